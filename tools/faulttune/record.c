// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune record: capture the hugetlb / memtype lock events (or the
 * lock:contention fallback) in our own tracefs instance while a command
 * runs, and write a trace.dat that trace-cmd report reads.
 *
 * The capture itself (capture.c) drains the instance into temporary
 * files while the command runs; this file owns the options, the command's
 * child, the loop and the exit code.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"
#include "model.h"
#include "builtin.h"
#include "out.h"

static void record_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune record [options] [-- COMMAND [ARGS...]]\n"
"  -o, --output FILE   trace.dat to write (default: trace.dat)\n"
"  -b, --buffer KB     ring buffer size per CPU in KB\n"
"  -d, --duration SEC  without COMMAND: stop after SEC seconds\n"
"                      (default: until SIGINT)\n"
"      --trio          record each lock's start_locking, acquire_returned and\n"
"                      released events instead of its *_hold summary, one\n"
"                      event per acquisition emitted after the unlock (the\n"
"                      default where the kernel has it: the trio is emitted\n"
"                      inside the critical section and lengthens the holds)\n"
"      --source SRC    auto (default: the faulttune events, else the kprobe\n"
"                      recorder, else lock:contention), events, kprobe,\n"
"                      contention, or both (events and kprobe, compared by\n"
"                      report)\n"
"  -h, --help\n"
"Records in its own tracefs instance faulttune-<pid>; the command sees\n"
"FAULTTUNE_MARKER=<path of the instance's trace_marker> for phase markers.\n");
}

struct record_opts {
	const char *out;
	uint64_t buffer_kb;
	double duration;
	int trio;
	int source;		/* enum ft_source */
	char **cmd;
};

static int parse_record(int argc, char **argv, struct record_opts *o)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "trio", no_argument, NULL, 'T' },
		{ "source", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->out = "trace.dat";
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:b:d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'b':
			if (ft_opt_uint("record", "--buffer (KB per CPU)", optarg,
					1, 1ULL << 22, &o->buffer_kb))
				return -1;
			break;
		case 'd':
			if (ft_opt_double("record", "--duration (seconds)", optarg,
					  0.001, 1e7, &o->duration))
				return -1;
			break;
		case 'T':
			o->trio = 1;
			break;
		case 'S':
			if (ft_opt_source("record", optarg, &o->source))
				return -1;
			break;
		case 'h':
			record_usage(stdout);
			return 1;
		default:
			ft_err("record: unknown or incomplete option '%s'",
			       argv[optind - 1]);
			record_usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
}

/*
 * Refuse an output that cannot be written before touching tracefs, naming
 * it (not the OUT.cpuN capture file that would fail first), and without
 * truncating an existing file on the way.
 */
static int check_output(const char *out)
{
	char *dir = strdup(out), *slash;
	struct stat st;
	int ret = 0;

	if (!dir)
		return -1;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (!stat(out, &st) && S_ISDIR(st.st_mode)) {
		ft_err("record: cannot write %s: %s", out, strerror(EISDIR));
		ret = -1;
	} else if (stat(dir, &st) || !S_ISDIR(st.st_mode) ||
		   access(dir, W_OK | X_OK)) {
		ft_err("record: cannot write %s: directory %s: %s", out, dir,
		       S_ISDIR(st.st_mode) || errno ? strerror(errno) :
		       strerror(ENOTDIR));
		ret = -1;
	}
	free(dir);
	return ret;
}

static pid_t run_child(struct ft_inst *fi, char **cmd)
{
	char *marker = ft_inst_file(fi, "trace_marker");
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (marker)
			setenv("FAULTTUNE_MARKER", marker, 1);
		/* none of our trace_pipe_raw files: they would keep the instance busy */
		close_range(3, ~0u, 0);
		execvp(cmd[0], cmd);
		ft_err("cannot run %s: %s", cmd[0], strerror(errno));
		_exit(127);
	}
	tracefs_put_tracing_file(marker);
	if (pid < 0)
		ft_err("fork: %s", strerror(errno));
	return pid;
}

/*
 * Drain the buffers until the command exits (*child -1, its *status), the
 * duration from t0 is up or the user stops; the progress on a terminal.
 */
static void capture_loop(struct ft_inst *fi, struct ft_capture *cap,
			 const struct record_opts *o, double t0, pid_t *child,
			 int *status)
{
	struct ft_child_stop stop = { 0 };
	const char *term = getenv("TERM");
	int tty = isatty(2) && !(term && !strcmp(term, "dumb"));
	double tprog = t0 + 1;

	for (;;) {
		if (ft_capture_poll(cap) < 0) {
			if (*child > 0)
				ft_err("record: the recording failed: stopping "
				       "%s (pid %d)", o->cmd[0], (int)*child);
			break;
		}
		if (*child > 0) {
			pid_t w = waitpid(*child, status, WNOHANG);

			if (w == *child) {
				*child = -1;
				break;
			}
			ft_child_stop_step(*child, &stop);
		} else if (ft_stop || (o->duration && ft_now() - t0 >= o->duration)) {
			break;
		}
		if (tty && ft_now() >= tprog) {
			fprintf(stderr, "\r  %s: %.0fs, %llu KB captured ", fi->name,
				ft_now() - t0, (unsigned long long)(ft_capture_bytes(cap) >> 10));
			tprog = ft_now() + 1;
		}
		usleep(50000);
	}
	if (tty)
		fprintf(stderr, "\r%60s\r", "");
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct ft_inst fi;
	struct ft_capture *cap = NULL;
	pid_t child = -1;
	int status = 0, ret, exit_code = 1;
	double t0;
	uint64_t lost = 0;
	struct stat st;

	ret = parse_record(argc, argv, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	if (check_output(o.out))
		return 1;
	if (ft_tracefs_check())
		return 1;
	ft_install_signals();
	ft_cleanup_stale(0);
	if (ft_inst_create(&fi, o.buffer_kb))
		return 1;
	fi.trio = o.trio;
	fi.source = o.source;
	ft_opt_kprobe_env(&fi.kpo);
	if (ft_inst_enable(&fi))
		goto out;
	ft_inst_print_source(&fi);
	/* the kprobe recorder has the callers: no stack inside each wait */
	if (fi.evset == FT_EVS_CONTENTION && !fi.kp)
		ft_record_stack_trigger(&fi);
	cap = ft_capture_start(&fi, o.out);
	if (!cap)
		goto out;
	if (tracefs_trace_on(fi.inst)) {
		ft_err("cannot turn tracing on in %s", fi.name);
		goto out;
	}
	ft_inst_marker(&fi, "faulttune: phase=record-start events=%s%s%s%s",
		       fi.systems[0], fi.nsys > 1 ? "," : "",
		       fi.nsys > 1 ? fi.systems[1] : "",
		       ft_record_fallback_marker(&fi));
	if (fi.kp)		/* what kpair.c needs to read the probes */
		ft_inst_marker(&fi, "faulttune:%s", ft_kprobes_marker(fi.kp));
	t0 = ft_now();
	if (o.cmd) {
		child = run_child(&fi, o.cmd);
		if (child < 0)
			goto out_cap;
	} else {
		ft_info("faulttune: recording in instance %s, %s", fi.name,
			o.duration ? "for the given duration" :
			"press Ctrl-C to stop");
	}
	capture_loop(&fi, cap, &o, t0, &child, &status);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	ft_inst_marker(&fi, "faulttune: phase=record-end%s",
		       ft_stop ? " interrupted=1" : "");
out_cap:
	if (ft_capture_finish(cap, &lost) == 0) {
		cap = NULL;
		if (!stat(o.out, &st))
			ft_info("faulttune: wrote %s (%lld KB, %d CPUs), lost events: "
				"%llu%s", o.out, (long long)st.st_size / 1024,
				fi.ncpus, (unsigned long long)lost,
				lost ? " (use a bigger -b)" : "");
		exit_code = 0;
		if (o.cmd && WIFEXITED(status))
			exit_code = WEXITSTATUS(status);
		else if (o.cmd && WIFSIGNALED(status) && !ft_stop)
			exit_code = 128 + WTERMSIG(status);
	} else {
		ft_err("record: %s not written", o.out);
	}
	cap = NULL;
out:
	/* tracing never started: the capture files go */
	ft_capture_abort(cap);
	ft_inst_destroy(&fi);
	return exit_code;
}
