// SPDX-License-Identifier: GPL-2.0
/*
 * ft_memhold: grow the x86 PAT memtype tree and keep it grown.
 *
 *   ft_memhold RESOURCE_FILE N READY_FILE
 *
 * mmaps the first page of a PCI BAR resource file N times (one
 * memtype_reserve and one tree entry each), creates READY_FILE, and holds
 * the mappings until killed.  Every step of a pat_memtype_list read then
 * walks that many entries under memtype_lock (memtype_copy_nth_element),
 * long enough for other memtype_lock users to wait behind it: contention
 * a test can count on, under TCG too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i;
	int fd;

	if (argc != 4 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: ft_memhold RESOURCE_FILE N READY_FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_SYNC);
	if (fd < 0) {
		fprintf(stderr, "ft_memhold: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		if (mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
			fprintf(stderr, "ft_memhold: mmap %ld of %ld: %s\n", i + 1,
				n, strerror(errno));
			return 1;
		}
	close(open(argv[3], O_WRONLY | O_CREAT, 0644));
	for (;;)
		pause();
}
