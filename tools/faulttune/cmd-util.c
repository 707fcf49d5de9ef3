// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands share and the library must not do: their options'
 * parsers and messages (the library parses values, util.c; naming the
 * option and the command is the command's), the environment hooks that
 * fill the library's option structs, the reader run in a child process
 * with a timeout, the end of standard output (SIGPIPE, a full disk), the
 * signal handlers that stop a run, and tracefs mounted for a run.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <tracefs.h>
#include "faulttune.h"
#include "builtin.h"

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
 * measuring the probes' own cost; FAULTTUNE_NO_KJUMP puts every release
 * probe on its call (the breakpoints before jumps: make bench compares).
 * Read by the commands, not kprobe.c.
 */
void ft_opt_kprobe_env(struct ft_kprobe_opts *o)
{
	o->func = getenv("FAULTTUNE_KPROBE_FUNC");
	o->no_cal = getenv("FAULTTUNE_NO_KCAL") != NULL;
	o->no_jump = getenv("FAULTTUNE_NO_KJUMP") != NULL;
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

/* die of SIGPIPE, as a process that never ignored it would have */
static void __attribute__((noreturn)) die_of_sigpipe(void)
{
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

/*
 * Where the isolated reader is, for honest blame when it dies: the child
 * writes its phase (ft_isolate_phase(), util.c) to this shared page
 * before it calls into libtracecmd and after it comes back, so the parent
 * can tell a library crash on a corrupt file from a bug of our own.
 */
static volatile int *ft_phase;

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
	ft_isolate_phase_page(ft_phase);
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
	ft_isolate_phase_page(NULL);
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

static void on_signal(int sig)
{
	ft_stop = 1;
	ft_stop_sig = sig;
}

void ft_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void ft_child_stop_step(pid_t child, struct ft_child_stop *st)
{
	if (ft_stop && !st->forwarded) {
		kill(child, ft_stop_sig ? ft_stop_sig : SIGTERM);
		st->forwarded = 1;
		st->kill_at = ft_now() + 5;
	} else if (st->forwarded && ft_now() > st->kill_at) {
		kill(child, SIGKILL);
		st->kill_at = ft_now() + 1e9;
	}
}

/* where this run mounted tracefs itself, to unmount it at exit */
static const char *ft_mounted_here;

static void unmount_own_tracefs(void)
{
	struct tracefs_instance *inst;
	char name[64];

	if (!ft_mounted_here)
		return;
	/*
	 * An exit() that skipped the caller's cleanup must not hide our
	 * instance in an unmounted tracefs: remove it first.
	 */
	snprintf(name, sizeof(name), "faulttune-%d", getpid());
	if (tracefs_instance_exists(name)) {
		inst = tracefs_instance_alloc(NULL, name);
		if (inst) {
			tracefs_trace_off(inst);
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
		}
	}
	if (umount(ft_mounted_here) && umount2(ft_mounted_here, MNT_DETACH))
		ft_err("cannot unmount the tracefs this run mounted at %s: %s",
		       ft_mounted_here, strerror(errno));
	else
		ft_info("faulttune: unmounted tracefs from %s (it was not "
			"mounted before this run)", ft_mounted_here);
	ft_mounted_here = NULL;
}

/*
 * Like trace-cmd, mount tracefs when nobody has: a root user asking for a
 * recording takes that for granted.  Unlike libtracefs, which would mount
 * it silently and leave it mounted, say so and unmount it at exit.  The
 * instance is destroyed before exit on every path that reaches exit().
 */
int ft_tracefs_check(void)
{
	const char *dir, *lock;

	if (geteuid()) {
		ft_err("tracefs needs root (run as root or with sudo)");
		return -1;
	}
	lock = ft_lockdown();
	/* tracefs creates no file at all under it: say why, not ENOENT */
	if (lock && !strcmp(lock, "confidentiality")) {
		ft_err("the kernel is locked down (lockdown=confidentiality), "
		       "which closes tracefs: nothing can be recorded on this "
		       "boot; record on one booted with lockdown=integrity or "
		       "none (faulttune report reads recordings anywhere)");
		return -1;
	}
	if (!ft_tracefs_mounted(NULL)) {
		if (mount("nodev", FT_TRACEFS_DIR, "tracefs", 0, NULL)) {
			ft_err("no tracefs mounted, and mounting it at %s failed "
			       "(%s): mount it with 'mount -t tracefs nodev %s' "
			       "(CONFIG_FTRACE, CONFIG_EVENT_TRACING)",
			       FT_TRACEFS_DIR, strerror(errno), FT_TRACEFS_DIR);
			return -1;
		}
		ft_mounted_here = FT_TRACEFS_DIR;
		atexit(unmount_own_tracefs);
		ft_info("faulttune: tracefs was not mounted: mounted it at %s "
			"for this run (unmounted at exit)", FT_TRACEFS_DIR);
	}
	dir = tracefs_tracing_dir();
	if (!dir || access(dir, W_OK)) {
		ft_err("no tracefs: mount it with 'mount -t tracefs nodev "
		       FT_TRACEFS_DIR "' (CONFIG_FTRACE, CONFIG_EVENT_TRACING)");
		return -1;
	}
	return 0;
}
