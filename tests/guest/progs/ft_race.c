// SPDX-License-Identifier: GPL-2.0
/*
 * ft_race: first-touch races on the same huge pages of one file, round
 * after round, to catch a hugetlb fault mutex that fails to exclude.
 *
 *   ft_race PROCS PAGES ROUNDS
 *	PROCS processes map one hugetlbfs memfd of PAGES huge pages
 *	(MAP_SHARED).  Each round the hole is punched over the whole file,
 *	then every process touches every page at once, all in the same
 *	order: PROCS faults race on each index, and only the first may
 *	allocate it.  Prints "rounds=R faults=F".
 *
 * Why this can fail: in hugetlb_no_page() two faults on one (mapping,
 * index) that both find it missing both allocate, and the second
 * hugetlb_add_to_page_cache() fails with -EEXIST, which the fault turns
 * into SIGBUS.  Only the fault mutex keeps them apart, so a resize that
 * lets two holders of one page overlap shows up here as a child killed by
 * SIGBUS.  Exit status 0 if every round finished, 1 with a line naming
 * the failure otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define HPAGE (2UL << 20)
#define MAX_PROCS 64

struct shared {
	pthread_barrier_t start;	/* the hole is punched: touch */
	pthread_barrier_t done;		/* every page touched: punch */
};

static void die(const char *what)
{
	fprintf(stderr, "ft_race: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long arg(const char *s, const char *name, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > max) {
		fprintf(stderr, "ft_race: %s must be an integer in [1, %ld], not '%s'\n",
			name, max, s);
		exit(2);
	}
	return v;
}

static void child(struct shared *sh, int fd, long id, long pages, long rounds)
{
	volatile char *p = mmap(NULL, pages * HPAGE, PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0);
	long r, i;

	if (p == MAP_FAILED)
		die("mmap");
	for (r = 0; r < rounds; r++) {
		pthread_barrier_wait(&sh->start);
		for (i = 0; i < pages; i++)
			p[i * HPAGE + id] = 1;
		pthread_barrier_wait(&sh->done);
		/* process 0 punches while the others wait at start */
		if (id == 0 && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					 0, pages * HPAGE))
			die("fallocate(PUNCH_HOLE)");
	}
	exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_PROCS];
	pthread_barrierattr_t attr;
	struct shared *sh;
	long procs, pages, rounds, i, left;
	int fd, status, fail = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: ft_race PROCS PAGES ROUNDS\n");
		return 2;
	}
	procs = arg(argv[1], "PROCS", MAX_PROCS);
	pages = arg(argv[2], "PAGES", 1024);
	rounds = arg(argv[3], "ROUNDS", 1000000);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap(shared)");
	pthread_barrierattr_init(&attr);
	pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&sh->start, &attr, procs);
	pthread_barrier_init(&sh->done, &attr, procs);

	fd = memfd_create("ft_race", MFD_HUGETLB);
	if (fd < 0)
		die("memfd_create(MFD_HUGETLB)");
	if (ftruncate(fd, pages * HPAGE))
		die("ftruncate");

	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i])
			child(sh, fd, i, pages, rounds);
	}
	/*
	 * A child that dies leaves the others waiting at a barrier: on the
	 * first failure kill them all.
	 */
	for (left = procs; left; left--) {
		pid_t pid = wait(&status);

		if (pid < 0)
			die("wait");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (!fail) {
			if (WIFSIGNALED(status))
				fprintf(stderr, "ft_race: a racing process was killed by %s: two faults on one page overlapped\n",
					strsignal(WTERMSIG(status)));
			else
				fprintf(stderr, "ft_race: a racing process exited with %d\n",
					WEXITSTATUS(status));
			for (i = 0; i < procs; i++)
				kill(pids[i], SIGKILL);
		}
		fail = 1;
	}
	if (fail)
		return 1;
	printf("rounds=%ld faults=%ld\n", rounds, rounds * procs * pages);
	return 0;
}
