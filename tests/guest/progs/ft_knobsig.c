// SPDX-License-Identifier: GPL-2.0
/*
 * ft_knobsig KNOB MODE SECONDS: writes to the hugetlb fault mutex knob
 * under signals, while a child resizes back and forth between 65536 and
 * 32768 (slow to allocate and initialise, so that the writes here wait for
 * the resize mutex).  Modes:
 *
 *   eintr    SIGALRM at random 1-20 ms intervals, handler without
 *            SA_RESTART: every write returns its byte count or EINTR
 *   restart  the same with SA_RESTART: every write returns its byte count
 *   kill     children that write 16 are SIGKILLed after 0-50 ms
 *
 * After every write the knob is read back and must hold a power of two
 * in [1, 65536] that some writer set: after a successful write of V, V
 * or a resizer value; after EINTR, the last value this process set or a
 * resizer value, never the interrupted one.  Prints key=value counters
 * on one line, then "ft_knobsig: ok" or the first violation; exit 0 if
 * nothing was violated (whether the counters are plausible is the
 * caller's test).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIG	65536
#define SMALL	32768

static const char *knob;
static volatile sig_atomic_t nsig;
static int violations;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void arm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 1000 * (1 + rand() % 20) } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void on_alarm(int sig)
{
	nsig++;
	arm();
}

static void __attribute__((format(printf, 1, 2))) violation(const char *fmt, ...)
{
	va_list ap;

	if (!violations++) {
		va_start(ap, fmt);
		printf("ft_knobsig: violation: ");
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
	}
}

/* The knob's value, or 0 (and a violation) if it is not a valid size. */
static unsigned long readknob(void)
{
	char buf[32], *end;
	unsigned long v;
	ssize_t n;
	int fd;

	do
		fd = open(knob, O_RDONLY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		violation("open for reading: %s", strerror(errno));
		return 0;
	}
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0) {
		violation("read returned %zd (%s)", n, strerror(errno));
		return 0;
	}
	buf[n] = 0;
	v = strtoul(buf, &end, 10);
	if (*end != '\n' || !v || v > BIG || (v & (v - 1))) {
		violation("read an invalid size \"%s\"", buf);
		return 0;
	}
	return v;
}

/* write(2) "V\n" once; 0 or errno. */
static int writeknob(unsigned long v)
{
	char buf[16];
	int fd, len, err = 0;

	len = snprintf(buf, sizeof(buf), "%lu\n", v);
	do
		fd = open(knob, O_WRONLY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return errno;
	if (write(fd, buf, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int resizer_value(unsigned long v)
{
	return v == BIG || v == SMALL;
}

static pid_t start_resizer(double until)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	while (now() < until) {
		if (writeknob(BIG) || writeknob(SMALL))
			_exit(1);
		usleep(1000);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long ok = 0, eintr = 0, other = 0, killed = 0, exited = 0;
	unsigned long v, k, last, i = 0;
	struct sigaction sa = { 0 };
	const char *mode;
	double until;
	pid_t resizer;
	int status, err;

	if (argc != 4) {
		fprintf(stderr, "usage: ft_knobsig KNOB eintr|restart|kill SECONDS\n");
		return 2;
	}
	knob = argv[1];
	mode = argv[2];
	until = now() + atof(argv[3]);
	srand(getpid());
	last = readknob();
	if (!last)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	resizer = start_resizer(until);
	if (resizer < 0) {
		perror("fork");
		return 1;
	}
	if (!strcmp(mode, "eintr") || !strcmp(mode, "restart")) {
		sa.sa_handler = on_alarm;
		sa.sa_flags = !strcmp(mode, "restart") ? SA_RESTART : 0;
		sigaction(SIGALRM, &sa, NULL);
		arm();
		while (now() < until) {
			/* 1 .. 8192, never the value this process set last */
			do
				v = 1UL << (i++ % 14);
			while (v == last);
			err = writeknob(v);
			k = readknob();
			if (!err) {
				ok++;
				last = v;
				if (k && k != v && !resizer_value(k))
					violation("wrote %lu, read back %lu", v, k);
			} else if (err == EINTR) {
				eintr++;
				if (k == v)
					violation("interrupted write of %lu took effect (read %lu)", v, k);
				else if (k && k != last && !resizer_value(k))
					violation("after EINTR read %lu, last set %lu", k, last);
			} else {
				other++;
				violation("write of %lu: %s", v, strerror(err));
			}
		}
		signal(SIGALRM, SIG_IGN);
	} else if (!strcmp(mode, "kill")) {
		while (now() < until) {
			pid_t pid = fork();

			if (!pid)
				_exit(writeknob(16) ? 1 : 0);
			usleep(rand() % 50000);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
				killed++;
			else if (WIFEXITED(status) && !WEXITSTATUS(status))
				exited++;
			else
				violation("writer child: status 0x%x", status);
			k = readknob();
			if (k && k != 16 && !resizer_value(k) && k != last)
				violation("after a killed writer read %lu (last %lu)", k, last);
		}
	} else {
		fprintf(stderr, "ft_knobsig: unknown mode %s\n", mode);
		return 2;
	}

	waitpid(resizer, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		violation("a resizer write failed (status 0x%x)", status);
	printf("signals=%d ok=%lu eintr=%lu other=%lu killed=%lu exited=%lu\n",
	       (int)nsig, ok, eintr, other, killed, exited);
	if (violations) {
		printf("ft_knobsig: %d violations\n", violations);
		return 1;
	}
	printf("ft_knobsig: ok\n");
	return 0;
}
