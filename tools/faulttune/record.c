// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune record: capture the hugetlb / memtype lock events (or the
 * lock:contention fallback) in our own tracefs instance while a command
 * runs, and write a trace.dat that trace-cmd report reads.
 *
 * The per-CPU trace_pipe_raw files are drained into temporary files while
 * the command runs (so the recording is not limited by the ring buffer
 * size), then assembled into a version 6 trace.dat (see tracedat.c).
 */
#include <errno.h>
#include <fcntl.h>
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

struct ft_capture {
	struct ft_inst *fi;
	const char *out;
	int ncpus;
	struct tracefs_cpu **in;
	int *tmp;
	char **tmpname;
	size_t page_size;
	char *page;
	uint64_t bytes;
	int err;		/* errno of a failed write: the file is lost */
};

static void capture_free(struct ft_capture *c)
{
	int i;

	for (i = 0; i < c->ncpus; i++) {
		if (c->in && c->in[i])
			tracefs_cpu_close(c->in[i]);
		if (c->tmp && c->tmp[i] >= 0)
			close(c->tmp[i]);
		if (c->tmpname && c->tmpname[i]) {
			unlink(c->tmpname[i]);
			free(c->tmpname[i]);
		}
	}
	free(c->in);
	free(c->tmp);
	free(c->tmpname);
	free(c->page);
	free(c);
}

static size_t subbuf_size(struct ft_inst *fi)
{
	long long kb;

	if (tracefs_instance_file_read_number(fi->inst, "buffer_subbuf_size_kb",
					      &kb) == 0 && kb > 0)
		return kb * 1024;
	return getpagesize();
}

struct ft_capture *ft_capture_start(struct ft_inst *fi, const char *out)
{
	struct ft_capture *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return NULL;
	c->fi = fi;
	c->out = out;
	c->ncpus = fi->ncpus;
	c->page_size = subbuf_size(fi);
	c->page = malloc(c->page_size);
	c->in = calloc(c->ncpus, sizeof(*c->in));
	c->tmp = malloc(c->ncpus * sizeof(int));
	c->tmpname = calloc(c->ncpus, sizeof(char *));
	if (!c->page || !c->in || !c->tmp || !c->tmpname) {
		free(c->page);
		free(c->in);
		free(c->tmp);
		free(c->tmpname);
		free(c);
		return NULL;
	}
	for (i = 0; i < c->ncpus; i++)
		c->tmp[i] = -1;
	for (i = 0; i < c->ncpus; i++) {
		char file[64], *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", i);
		path = ft_inst_file(fi, file);
		if (!path)
			goto fail;
		if (access(path, R_OK)) {	/* possible but absent cpu */
			tracefs_put_tracing_file(path);
			continue;
		}
		tracefs_put_tracing_file(path);
		c->in[i] = tracefs_cpu_open(fi->inst, i, true);
		if (!c->in[i]) {
			ft_err("cannot open %s of %s: %s", file, fi->name,
			       strerror(errno));
			goto fail;
		}
		if (asprintf(&c->tmpname[i], "%s.cpu%d", out, i) < 0) {
			c->tmpname[i] = NULL;
			goto fail;
		}
		c->tmp[i] = open(c->tmpname[i], O_RDWR | O_CREAT | O_TRUNC |
				 O_CLOEXEC, 0600);
		if (c->tmp[i] < 0) {
			ft_err("cannot create %s: %s", c->tmpname[i],
			       strerror(errno));
			goto fail;
		}
	}
	return c;
fail:
	capture_free(c);
	return NULL;
}

/*
 * A full or broken disk under the capture files: say which file and why,
 * once, and stop (EAGAIN and EINTR only mean no full page yet).
 */
static int write_failed(struct ft_capture *c, int cpu)
{
	int e = errno;

	if (e != ENOSPC && e != EDQUOT && e != EFBIG && e != EIO && e != EROFS)
		return 0;
	if (!c->err)
		ft_err("writing %s: %s", c->tmpname[cpu], strerror(e));
	c->err = e;
	return 1;
}

/*
 * While tracing, move only full sub-buffers (splice, as trace-cmd does):
 * reading a partial page with read() consumes it, and with the
 * lock:contention fallback the read itself can emit a contention event,
 * so a read() loop chases its own events (seen on 6.12 under QEMU: one
 * event pair per page, forever).  Partial pages are read at the end, with
 * tracing off.
 */
int ft_capture_poll(struct ft_capture *c)
{
	int i, got = 0;

	for (i = 0; i < c->ncpus; i++) {
		int n;

		if (!c->in[i])
			continue;
		for (n = 0; n < 4096; n++) {
			int r = tracefs_cpu_write(c->in[i], c->tmp[i], true);

			if (r < 0 && write_failed(c, i))
				return -1;
			if (r <= 0)
				break;
			c->bytes += r;
			got++;
		}
	}
	return got;
}

/* tracing is off: read what is left, partial pages included */
static int capture_flush(struct ft_capture *c)
{
	int i, n;

	for (i = 0; i < c->ncpus; i++) {
		if (!c->in[i])
			continue;
		for (;;) {
			int r = tracefs_cpu_write(c->in[i], c->tmp[i], true);

			if (r < 0 && write_failed(c, i))
				return -1;
			if (r <= 0)
				break;
		}
		for (n = 0; n < (1 << 20); n++) {
			int r = tracefs_cpu_read(c->in[i], c->page, true);

			if (r <= 0)
				break;
			if (r < (int)c->page_size)
				memset(c->page + r, 0, c->page_size - r);
			if (write(c->tmp[i], c->page, c->page_size) !=
			    (ssize_t)c->page_size) {
				ft_err("writing %s: %s", c->tmpname[i],
				       strerror(errno));
				return -1;
			}
			c->bytes += c->page_size;
		}
	}
	return 0;
}

int ft_capture_finish(struct ft_capture *c, uint64_t *lost)
{
	char **stats = NULL;
	int ret, i;

	tracefs_trace_off(c->fi->inst);
	if (c->err || capture_flush(c)) {
		capture_free(c);
		return -1;
	}
	*lost = ft_inst_lost(c->fi, &stats);
	ret = ft_tracedat_write(c->out, c->fi, c->ncpus, c->tmpname, stats,
				c->page_size);
	for (i = 0; stats && i < c->ncpus; i++)
		free(stats[i]);
	free(stats);
	capture_free(c);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* the lock:contention fallback's record side (fallback.c reads it) */

/*
 * A stack with every contention_begin, through the event's own trigger
 * (not the instance's stacktrace option, which would add one to every
 * contention_end and marker too).  The trigger goes with the instance.
 */
int ft_record_stack_trigger(struct ft_inst *fi)
{
	if (tracefs_event_file_write(fi->inst, "lock", "contention_begin",
				     "trigger", "stacktrace") < 0) {
		ft_info("faulttune: cannot add a stacktrace trigger to "
			"lock:contention_begin (%s): waits will not be attributed "
			"to their callers", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What the report needs to know about this kernel, as text for record's
 * start marker (so the file says it, and trace-cmd report shows it):
 * " fallback cpus=N table=ADDR nbuckets=N table_from=kcore|unknown
 * mutex_bytes=N mutex_bytes_from=btf|kcore|unknown[ why=...]", or "".
 */
const char *ft_record_fallback_marker(struct ft_inst *fi)
{
	static char text[320];
	uint64_t base;
	uint32_t n, stride;
	const char *why, *sfrom;

	if (fi->evset != FT_EVS_CONTENTION)
		return "";
	why = ft_fault_table_find(&base, &n);
	stride = ft_mutex_stride(base, why ? 0 : n, &sfrom);
	snprintf(text, sizeof(text), " fallback cpus=%d table=0x%llx nbuckets=%u "
		 "table_from=%s mutex_bytes=%u mutex_bytes_from=%s%s%s",
		 fi->ncpus, (unsigned long long)base, n,
		 why ? "unknown" : "kcore", stride, sfrom,
		 why ? " why=" : "", why ? why : "");
	return text;
}

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
				ft_now() - t0, (unsigned long long)(cap->bytes >> 10));
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
	if (ft_inst_enable(&fi, 0))
		goto out;
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
	if (cap)		/* tracing never started: the capture files go */
		capture_free(cap);
	ft_inst_destroy(&fi);
	return exit_code;
}
