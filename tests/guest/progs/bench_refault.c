// SPDX-License-Identifier: GPL-2.0
/*
 * bench_refault: make bench's helper in the guest.
 *
 *   bench_refault fault PAGES FAULTS [THREADS]
 *	populate PAGES huge pages of one hugetlb memfd once, then THREADS
 *	threads (default 1) fault them again, FAULTS faults in all: touch
 *	each page of the thread's slice, MADV_DONTNEED the slice, again.
 *	The page stays in the page cache, so every fault takes its fault
 *	mutex (2-3 events) without clearing 2 MiB: the cheap way to a
 *	recording of a million events under TCG.  Prints
 *	"faults=F seconds=S".
 *   bench_refault time CMD [ARGS...]
 *	run CMD with its stdout on /dev/null, print "seconds=S" (wall,
 *	CLOCK_MONOTONIC) and exit with CMD's status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define HPAGE (2UL << 20)

static char *base;
static unsigned long pages_per, faults_per;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_refault: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *worker(void *arg)
{
	char *p = base + (uintptr_t)arg * pages_per * HPAGE;
	unsigned long done = 0, i;

	while (done < faults_per) {
		for (i = 0; i < pages_per && done < faults_per; i++, done++)
			(void)*(volatile char *)(p + i * HPAGE);
		if (madvise(p, pages_per * HPAGE, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
	}
	return NULL;
}

static int do_fault(unsigned long pages, unsigned long faults, unsigned long nt)
{
	pthread_t tid[64];
	unsigned long i;
	double t0;
	int fd;

	if (!pages || !nt || nt > 64 || pages < nt) {
		fprintf(stderr, "bench_refault: bad arguments\n");
		return 2;
	}
	fd = memfd_create("bench_refault", MFD_HUGETLB);
	if (fd < 0)
		die("memfd_create(MFD_HUGETLB)");
	if (ftruncate(fd, pages * HPAGE))
		die("ftruncate");
	base = mmap(NULL, pages * HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		die("mmap");
	for (i = 0; i < pages; i++)
		base[i * HPAGE] = 1;		/* populate the page cache */
	if (madvise(base, pages * HPAGE, MADV_DONTNEED))
		die("madvise(MADV_DONTNEED)");
	pages_per = pages / nt;
	faults_per = faults / nt;
	t0 = now();
	for (i = 0; i < nt; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)i))
			die("pthread_create");
	for (i = 0; i < nt; i++)
		pthread_join(tid[i], NULL);
	printf("faults=%lu seconds=%.6f\n", faults_per * nt, now() - t0);
	return 0;
}

static int do_time(char **argv)
{
	double t0 = now();
	int st, fd;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	printf("seconds=%.3f\n", now() - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "fault"))
		return do_fault(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
				argc > 4 ? strtoul(argv[4], NULL, 0) : 1);
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return do_time(argv + 2);
	fprintf(stderr, "usage: bench_refault fault PAGES FAULTS [THREADS] | "
		"time CMD [ARGS...]\n");
	return 2;
}
