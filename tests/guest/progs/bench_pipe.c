// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pipe: a program that never touches hugetlb or memtype but unlocks
 * mutexes at a high rate, for what a recorder costs the rest of the
 * machine (make bench, tests/bench-machine.sh).  Each pipe read and
 * write takes and releases the pipe's mutex.
 *
 *   bench_pipe rw N
 *	one process: N times a 1-byte write() then read() on one pipe
 *	(two mutex_lock()/mutex_unlock() pairs each).
 *   bench_pipe pingpong N
 *	two processes: N round trips of one byte over two pipes (each
 *	round trip two writes, two reads and two wake-ups).
 *
 * Prints "ops=N seconds=S" (CLOCK_MONOTONIC around the N operations,
 * after 1,000 of warm-up); under -icount shift=0 a nanosecond is an
 * instruction, so seconds * 1e9 / N is instructions per operation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP	1000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_pipe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void xfer(int wfd, int rfd)
{
	char c = 'x';

	if (write(wfd, &c, 1) != 1)
		die("write");
	if (read(rfd, &c, 1) != 1)
		die("read");
}

static double rw(unsigned long n)
{
	unsigned long i;
	int p[2];
	double t0;

	if (pipe(p))
		die("pipe");
	for (i = 0; i < WARMUP; i++)
		xfer(p[1], p[0]);
	t0 = now();
	for (i = 0; i < n; i++)
		xfer(p[1], p[0]);
	return now() - t0;
}

static double pingpong(unsigned long n)
{
	unsigned long i;
	int a[2], b[2], st;
	double t0;
	pid_t pid;
	char c;

	if (pipe(a) || pipe(b))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {		/* echoes every byte back until EOF */
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	for (i = 0; i < WARMUP; i++)
		xfer(a[1], b[0]);
	t0 = now();
	for (i = 0; i < n; i++)
		xfer(a[1], b[0]);
	t0 = now() - t0;
	close(a[1]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the echo process");
	return t0;
}

int main(int argc, char **argv)
{
	unsigned long n;
	char *end;
	double s;

	if (argc != 3 || (strcmp(argv[1], "rw") && strcmp(argv[1], "pingpong"))) {
		fprintf(stderr, "usage: bench_pipe rw|pingpong N\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || *end || !n) {
		fprintf(stderr, "bench_pipe: bad N '%s': want a positive count\n",
			argv[2]);
		return 2;
	}
	s = strcmp(argv[1], "rw") ? pingpong(n) : rw(n);
	printf("ops=%lu seconds=%.6f\n", n, s);
	return 0;
}
