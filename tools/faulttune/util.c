// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#include "faulttune.h"

/*
 * Messages go to stderr after whatever stdout holds: with both sent to one
 * file (tune > log 2>&1), a message at exit (the knob restored) once landed
 * in the middle of a line of the report that stdout's buffer had cut.
 */
void ft_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("faulttune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ft_info(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Option values are decimal, as the kernel's knob is: digits only (no
 * sign, no blanks, no 0x, no leading zero that strtoull() would take for
 * octal), nothing after the number but a unit where one is asked for.
 * errno is EINVAL for text that is no number, ERANGE for one out of range.
 */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || *p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return errno = EINVAL, -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return errno = ERANGE, -1;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int ft_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (parse_digits(s, &v, &end))
		return -1;
	if (*end)
		return errno = EINVAL, -1;
	if (v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int ft_parse_u64(const char *s, uint64_t *out)
{
	return ft_parse_uint(s, 0, UINT64_MAX, out);
}

/*
 * A decimal fraction: [-]digits[.digits][e[+-]digits]; strtod() alone
 * would also take "nan", "inf", hex floats and leading blanks.
 */
int ft_parse_double(const char *s, double min, double max, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (!s)
		return errno = EINVAL, -1;
	if (*p == '-')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return errno = EINVAL, -1;
	for (; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return errno = EINVAL, -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return errno = EINVAL, -1;
	if (!isfinite(v) || v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int ft_opt_uint(const char *cmd, const char *opt, const char *s,
		uint64_t min, uint64_t max, uint64_t *out)
{
	if (!ft_parse_uint(s, min, max, out))
		return 0;
	ft_err("%s: bad %s '%s': want a decimal integer from %llu to %llu",
	       cmd, opt, s ? s : "", (unsigned long long)min,
	       (unsigned long long)max);
	return -1;
}

int ft_opt_double(const char *cmd, const char *opt, const char *s,
		  double min, double max, double *out)
{
	if (!ft_parse_double(s, min, max, out))
		return 0;
	ft_err("%s: bad %s '%s': want a decimal number from %g to %g",
	       cmd, opt, s ? s : "", min, max);
	return -1;
}

int ft_opt_source(const char *cmd, const char *s, int *source)
{
	static const char *const names[] = {
		[FT_SRC_AUTO] = "auto", [FT_SRC_EVENTS] = "events",
		[FT_SRC_KPROBE] = "kprobe", [FT_SRC_CONTENTION] = "contention",
		[FT_SRC_BOTH] = "both",
	};
	int i;

	for (i = 0; s && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(s, names[i])) {
			*source = i;
			return 0;
		}
	ft_err("%s: bad --source '%s': want auto, events, kprobe, contention "
	       "or both", cmd, s ? s : "");
	return -1;
}

/*
 * FAULTTUNE_KPROBE_FUNC=FUNC puts the key probe on FUNC (the tests' way to
 * a function that is missing or blacklisted); FAULTTUNE_NO_KCAL skips
 * measuring the probes' own cost.  Read by the commands, not kprobe.c.
 */
void ft_opt_kprobe_env(struct ft_kprobe_opts *o)
{
	o->func = getenv("FAULTTUNE_KPROBE_FUNC");
	o->no_cal = getenv("FAULTTUNE_NO_KCAL") != NULL;
}

/* FAULTTUNE_LIBTRACECMD=1: read through libtracecmd (the tests compare) */
void ft_opt_read_env(struct ft_read_opts *o)
{
	o->libtracecmd = getenv("FAULTTUNE_LIBTRACECMD") != NULL;
}

int ft_opt_fmt(const char *cmd, enum ft_fmt *fmt, int *set, enum ft_fmt want)
{
	static const char * const name[] = { "text", "--json", "--csv" };

	if (*set && *fmt != want) {
		ft_err("%s: %s and %s exclude each other: give one", cmd,
		       name[*fmt], name[want]);
		return -1;
	}
	*fmt = want;
	*set = 1;
	return 0;
}

void ft_opt_bad(const char *cmd, char **argv, const char *const *moved)
{
	const char *arg = argv[optind - 1];

	ft_err("%s: unknown or incomplete option '%s'", cmd, arg);
	/* optopt is also the val of a long option missing its argument */
	if (arg[0] != '-' || arg[1] == '-')
		return;
	for (; moved && *moved; moved++)
		if (optopt && optopt == (*moved)[0]) {
			ft_err("%s: -%c is %s now: a short option means one "
			       "thing in every faulttune command, see faulttune(1)",
			       cmd, optopt, *moved + 1);
			return;
		}
}

int ft_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	unsigned int shift = 0;

	if (parse_digits(s, &v, &end))
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return errno = EINVAL, -1;
	}
	if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return errno = EINVAL, -1;
	if (shift && v > (UINT64_MAX >> shift))
		return errno = ERANGE, -1;
	*out = v << shift;
	return 0;
}

int ft_is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

const char *ft_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/* one line of ft_wrap()'s text, s[0..n): 0 or the lines printed */
static int wrap_line(FILE *f, int indent, const char *s, size_t n)
{
	int col = 0, lines = 1;

	while (n) {
		size_t room = FT_COLS - col, cut, skip;

		if (n <= room) {
			fwrite(s, 1, n, f);
			break;
		}
		/* the last space that leaves the line within FT_COLS */
		for (cut = room; cut > 0 && s[cut] != ' '; cut--)
			;
		if (!cut) {	/* a word longer than the line: up to its end */
			for (cut = room; cut < n && s[cut] != ' '; cut++)
				;
			if (cut == n) {
				fwrite(s, 1, n, f);
				break;
			}
		}
		fwrite(s, 1, cut, f);
		for (skip = cut; skip < n && s[skip] == ' '; skip++)
			;
		s += skip;
		n -= skip;
		if (!n)
			break;
		fprintf(f, "\n%*s", indent, "");
		col = indent;
		lines++;
	}
	fputc('\n', f);
	return lines;
}

int ft_wrap(FILE *f, int indent, const char *fmt, ...)
{
	char *text, *p, *nl;
	va_list ap;
	int n, lines = 0;

	if (indent >= FT_COLS / 2)
		indent = FT_COLS / 2;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		lines += wrap_line(f, indent, p, nl - p);
		if (!*nl)
			break;
	}
	free(text);
	return lines;
}

void ft_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* die of SIGPIPE, as a process that never ignored it would have */
static void __attribute__((noreturn)) die_of_sigpipe(void)
{
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

/*
 * Where the isolated reader is, for honest blame when it dies: the child
 * writes its phase to a shared page before it calls into libtracecmd and
 * after it comes back, so the parent can tell a library crash on a
 * corrupt file from a bug of our own.
 */
static volatile int *ft_phase;

void ft_isolate_phase(int phase)
{
	if (ft_phase)
		*ft_phase = phase;
}

/* the reader says it has read its files: what follows is no hang */
static int read_done(void)
{
	return ft_phase && *ft_phase == FT_PHASE_READ_DONE;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * reap pid within timeout_s (0: no limit) by polling waitpid(); 0 with
 * *st, 1 timed out, -1.  For kernels without pidfd_open() (before 5.3):
 * the naps make the end of a child seen up to 32 ms late.
 */
static int wait_child_polling(pid_t pid, int *st, double timeout_s)
{
	struct timespec t0, nap = { 0, 1000000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t w = waitpid(pid, st, timeout_s > 0 ? WNOHANG : 0);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;	/* ECHILD and co: nothing left to wait for */
		if (w == 0) {
			if (read_done())
				timeout_s = 0;	/* reading done: no limit */
			else if (since(&t0) > timeout_s)
				return 1;
			nanosleep(&nap, NULL);
			if (nap.tv_nsec < 32000000)
				nap.tv_nsec *= 2;
		}
	}
}

/*
 * Wait on a pidfd until its process ends (0), or timeout_s (0: no
 * limit) passes while the reader is still reading (1); -1 when poll()
 * fails.
 */
static int wait_pidfd(int fd, double timeout_s)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = -1, r;

		if (timeout_s > 0) {
			double left = timeout_s - since(&t0);

			if (left <= 0 && !read_done())
				return 1;
			if (left <= 0)
				timeout_s = 0;	/* reading done: no limit */
			else
				ms = left < 1e6 ? (int)(left * 1000) + 1 : 1000000000;
		}
		r = poll(&p, 1, ms);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/*
 * reap pid within timeout_s (0: no limit); 0 with *st, 1 timed out, -1.
 * A pidfd wakes the parent the moment the child ends: polling waitpid()
 * with growing naps saw it 16 ms late on average, an eighth of report's
 * time on a million events.
 */
static int wait_child(pid_t pid, int *st, double timeout_s)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), r;

	if (fd < 0)
		return wait_child_polling(pid, st, timeout_s);
	r = wait_pidfd(fd, timeout_s);
	close(fd);
	if (r < 0)
		return wait_child_polling(pid, st, timeout_s);
	if (r > 0)
		return 1;
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/*
 * Run fn in a child process: libtracecmd does not survive every corrupt
 * file (tracecmd_open() of a damaged header crashes in its error path in
 * 1.3), and a reader must fail with a message naming the file, not dump
 * core or loop forever.  Returns fn's result, or 1 with a message when
 * the child died or ran out of time; a child killed by SIGPIPE (its
 * stdout closed) takes the caller down the same way.
 */
int ft_isolate(int (*fn)(void *), void *arg, const char *what,
	       double timeout_s)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int st = 0, r, sig, phase;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	ft_phase = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ft_phase == MAP_FAILED)
		ft_phase = NULL;
	else
		*ft_phase = FT_PHASE_OURS;
	/* a caller that ignores SIGCHLD would have the child reaped for us */
	sigaction(SIGCHLD, &dfl, &old);
	pid = fork();
	if (pid < 0) {
		ft_err("%s: cannot start the trace reader: %s", what,
		       strerror(errno));
		r = 1;
		goto out;
	}
	if (pid == 0) {
		sigaction(SIGCHLD, &old, NULL);
		_exit(ft_stdout_done(fn(arg)) & 0xff);
	}
	r = wait_child(pid, &st, timeout_s);
	if (r > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ft_err("%s: the trace reader did not finish within %.0f s and "
		       "was stopped: a looping or huge file (--timeout SEC "
		       "allows more)", what, timeout_s);
		r = 1;
		goto out;
	}
	if (r < 0) {
		ft_err("%s: lost the trace reader: waitpid: %s", what,
		       strerror(errno));
		r = 1;
		goto out;
	}
	if (WIFEXITED(st)) {
		r = WEXITSTATUS(st);
		goto out;
	}
	sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (sig == SIGPIPE)
		die_of_sigpipe();
	phase = ft_phase ? *ft_phase : FT_PHASE_LIB;
	if (phase == FT_PHASE_LIB)
		ft_err("%s: corrupt trace.dat: the trace reader died of signal "
		       "%d (%s) inside libtracecmd while parsing it", what, sig,
		       strsignal(sig));
	else
		ft_err("%s: internal error: faulttune's reader died of signal "
		       "%d (%s) in its own code: a faulttune bug, not the "
		       "file's fault; please report it with the file", what,
		       sig, strsignal(sig));
	r = 1;
out:
	sigaction(SIGCHLD, &old, NULL);
	if (ft_phase)
		munmap((void *)ft_phase, sizeof(int));
	ft_phase = NULL;
	return r;
}

/* stdout is a pipe whose reader has gone (an earlier write saw EPIPE) */
static int stdout_widowed(void)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat st;

	return !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode) &&
	       poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

int ft_stdout_done(int ret)
{
	int bad = ferror(stdout), e;

	errno = 0;
	if (fflush(stdout) != EOF && !bad)
		return ret;
	e = errno;
	if (e == EPIPE || (!e && stdout_widowed()))
		die_of_sigpipe();
	/*
	 * The write that failed was an earlier flush inside printf(), whose
	 * errno is long gone, and stdio dropped the buffer.  The output is
	 * incomplete anyway: one byte written directly says why (ENOSPC on a
	 * full device, EIO, ...) instead of a bare "write error".
	 */
	if (!e && write(STDOUT_FILENO, "\n", 1) < 0)
		e = errno;
	if (e == EPIPE)
		die_of_sigpipe();
	ft_err("writing standard output: %s", e ? strerror(e) : "write error");
	return ret ? ret : 1;
}

double ft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
