// SPDX-License-Identifier: GPL-2.0
/*
 * ft_memtype: reach every user of the x86 PAT memtype_lock from userspace.
 *
 *   ft_memtype RESOURCE_FILE [ROUNDS]
 *
 * Each round mmaps the PCI BAR resource file (memtype_reserve), forks
 * (reserve in the child, free at its exit), reads the mapping through
 * /proc/self/mem, mremaps it smaller (free of the tail: lookup and
 * reserve of the rest), and munmaps it (memtype_free).  Then it reads
 * /sys/kernel/debug/x86/pat_memtype_list (memtype_get_idx).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN (64UL << 10)

static void die(const char *what)
{
	fprintf(stderr, "ft_memtype: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 1, r;
	char buf[4096];
	int fd, mem, st;
	ssize_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: ft_memtype RESOURCE_FILE [ROUNDS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_SYNC);
	if (fd < 0)
		die(argv[1]);
	for (r = 0; r < rounds; r++) {
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		pid_t pid;

		if (p == MAP_FAILED)
			die("mmap");
		(void)*(volatile char *)p;
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			(void)*(volatile char *)(p + 4096);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		mem = open("/proc/self/mem", O_RDONLY);
		if (mem >= 0) {
			/* access_remote_vm -> generic_access_phys -> ioremap */
			if (pread(mem, buf, 16, (off_t)(unsigned long)p) < 0 &&
			    errno != EIO)
				die("pread /proc/self/mem");
			close(mem);
		}
		p = mremap(p, LEN, LEN / 2, 0);
		if (p == MAP_FAILED)
			die("mremap");
		if (munmap(p, LEN / 2))
			die("munmap");
	}
	close(fd);
	fd = open("/sys/kernel/debug/x86/pat_memtype_list", O_RDONLY);
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		close(fd);
	}
	return 0;
}
