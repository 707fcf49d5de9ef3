// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune tune: the table size that keeps the workload's collision wait
 * within a target share of its fault time.
 *
 * The model decides (model.c, decide.c): traced runs of the workload
 * (the built-in threads workload, or the user's COMMAND) at the current
 * size give the overlap structure of its faults, and the model gives the
 * expected collision wait at every size, in the variant that fits what
 * the runs measured.  Probing goes on until the pick is settled (no
 * smaller size may still meet the target, with 95% confidence over the
 * runs) or the budget of runs or seconds is spent; then tune says which
 * sizes the runs could not separate and recommends the safe one.
 * Measurement confirms: the current and the recommended size are then
 * run interleaved, in an order drawn from the printed seed; the
 * difference in wall time is reported with a 95% confidence interval,
 * and the collision wait measured at each size is checked against the
 * prediction.  Throughput medians do not decide: between neighbouring
 * sizes their differences are below the noise, and picking by them was
 * a coin toss.
 *
 * --from FILE...: the same advice from recordings alone (faulttune record
 * or trace-cmd record -e hugetlb), changing nothing.
 *
 * A kernel without the knob (a stock kernel) sizes its table at boot:
 * there the probes run with the kprobe recorder (kprobe.c), which gives
 * the holds the model needs and reads the table's size from the kernel;
 * nothing is written, the measuring phase (which runs other sizes) is
 * skipped, and the answer is the boot parameter with its predicted effect.
 *
 * The knob and the instance are restored / removed on every exit path:
 * normal end, errors, SIGINT, SIGTERM, SIGHUP (the signal only sets
 * ft_stop and is forwarded to a running COMMAND; the runs stop after the
 * current one) and exit() (atexit).  --apply leaves the recommended size
 * set.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"
#include "knob.h"
#include "model.h"
#include "confirm.h"
#include "tune-local.h"
#include "builtin.h"
#include "out.h"


/* the one piece of global state: what atexit() must undo */
static struct tune_ctx *restore_ctx;

/* lockdown=confidentiality: nothing of what tune needs is there */
static void confidential(void)
{
	ft_err("the kernel is locked down (lockdown=confidentiality), which "
	       "closes debugfs and tracefs: tune can neither measure nor "
	       "resize the table on this boot; record on one booted with "
	       "lockdown=integrity or none, then faulttune tune --from r.dat, "
	       "then hugetlb_fault_mutexes=N on the kernel command line");
}

/*
 * Why the knob cannot be read.  Under kernel lockdown debugfs refuses to
 * open any file that can be written, the knob included (EPERM): the table
 * can then only be sized at boot, and tune says how to find the size.
 */
static void knob_refused(const char *knob, int err)
{
	const char *lock = ft_lockdown();

	/* confidentiality never gets here: preflight() refused first */
	if (err != EPERM || !lock || !strcmp(lock, "none"))
		ft_err("cannot read %s: %s", knob, strerror(err));
	else
		ft_err("cannot open %s: the kernel is locked down ([%s]), which "
		       "closes debugfs; size the table at boot instead: "
		       "faulttune record -o r.dat -- WORKLOAD, then faulttune "
		       "tune --from r.dat, then hugetlb_fault_mutexes=N on the "
		       "kernel command line", knob, lock);
}

static void tune_restore(void)
{
	struct tune_ctx *c = restore_ctx;
	uint32_t v;

	if (!c)
		return;
	restore_ctx = NULL;
	/* a knob that never moved is left alone, and nothing is said */
	if (c->saved_valid && (c->apply || c->moved)) {
		v = c->apply ? c->apply_value : c->saved;
		if (ft_knob_write(c->knob, v))
			ft_err("cannot restore %s to %u: %s", c->knob, v,
			       strerror(errno));
		else if (!c->apply && c->fmt == FT_FMT_TEXT)
			ft_info("faulttune: %s restored to %u", c->knob, v);
	}
	if (c->have_inst) {
		ft_inst_destroy(&c->fi);
		c->have_inst = 0;
	}
	if (c->tmpfile[0])
		unlink(c->tmpfile);
}

static void tune_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune tune [options] [-- COMMAND [ARGS]]\n"
"       faulttune tune --from FILE... [-t T] [-T PCT] [--current N] [-j]\n"
"  -T, --target PCT    largest predicted collision wait accepted, in percent\n"
"                      of fault time (default %g)\n"
"  -m, --max-size N    largest size considered (default: four times the first\n"
"                      size that meets the target, at most 65536)\n"
"  -r, --reps N        measured runs per size (default 5)\n"
"  -W, --warmup N      warm-up runs, discarded (default 1)\n"
"  -P, --probes N      traced runs at the current size that the model\n"
"                      learns from, at least (default 3; they count as\n"
"                      measured runs); more follow until the pick is settled\n"
"  -B, --budget N      most probe runs (default 20)\n"
"      --budget-time S most seconds of probing (default 30)\n"
"  -t, --threads N     built-in workload: its threads (default: online CPUs);\n"
"                      COMMAND, --from: predict for N faulting threads\n"
"  -s, --size SIZE     mapping size of the built-in workload (default 64M)\n"
"  -p, --page-size SZ  huge page size (default 2M)\n"
"  -S, --seed N        seed of the run order (default: drawn, and printed)\n"
"  -F, --full          measure every size the model considered, not only the\n"
"                      current and the recommended one\n"
"  -a, --apply         leave the recommended size set\n"
"  -j, --json          JSON output\n"
"  -v, --verbose       the whole text, not the verdict alone: the model's\n"
"                      table, the measured runs, the model checks, who\n"
"                      shares; -vv: and each run's wall time\n"
"      --plot FILE     predicted and measured collision wait per size\n"
"                      (gnuplot; .png, else SVG)\n"
"      --from FILE...  advice from recordings (faulttune record, trace-cmd\n"
"                      record -e hugetlb); changes nothing, needs no root\n"
"      --source SRC    --from: of a recording with both, events (default) or\n"
"                      kprobe (the kprobe recorder's acquisitions)\n"
"      --force         --from: use recordings even when damaged records had\n"
"                      to be skipped, as report --force\n"
"      --timeout SEC   --from: give up on a file the reader has not finished\n"
"                      in SEC seconds (default: 60 + 1 per MiB; 0: never)\n"
"      --current N     --from: the size to compare with (default: recorded)\n"
"      --knob FILE     knob path (default " FT_KNOB_PATH ")\n"
"  -h, --help\n"
"COMMAND runs once per run, with FAULTTUNE_MARKER=<the instance's\n"
"trace_marker>, as under faulttune record.\n"
"On a kernel without the knob (no faulttune patches) the probes run with the\n"
"kprobe recorder, nothing is changed (the size is fixed at boot there), the\n"
"measuring is skipped, and tune ends with the boot parameter for a patched\n"
"kernel and its predicted effect.\n", FT_TARGET_PCT);
}

static int parse_num(const char *opt, const char *arg, uint64_t lo,
		     uint64_t hi, uint64_t *v)
{
	return ft_opt_uint("tune", opt, arg, lo, hi, v);
}

static const struct option tune_lo[] = {
	{ "target", required_argument, NULL, 'T' },
	{ "max-size", required_argument, NULL, 'm' },
	{ "reps", required_argument, NULL, 'r' },
	{ "warmup", required_argument, NULL, 'W' },
	{ "probes", required_argument, NULL, 'P' },
	{ "threads", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 's' },
	{ "page-size", required_argument, NULL, 'p' },
	{ "seed", required_argument, NULL, 'S' },
	{ "full", no_argument, NULL, 'F' },
	{ "apply", no_argument, NULL, 'a' },
	{ "json", no_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "current", required_argument, NULL, 'c' },
	{ "from", no_argument, NULL, 1 },
	{ "knob", required_argument, NULL, 2 },
	{ "plot", required_argument, NULL, 4 },
	{ "budget", required_argument, NULL, 'B' },
	{ "budget-time", required_argument, NULL, 5 },
	{ "force", no_argument, NULL, 6 },
	{ "timeout", required_argument, NULL, 7 },
	{ "source", required_argument, NULL, 8 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void tune_defaults(struct tune_ctx *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	c->knob = FT_KNOB_PATH;
	c->reps = 5;
	c->warmup = 1;
	c->probes = 3;
	c->budget_runs = 20;
	c->budget_s = 30;
	c->timeout = -1;
	c->target = FT_TARGET_PCT;
	c->seed = (unsigned int)time(NULL) ^ ((unsigned int)getpid() << 16);
	c->threads = ncpu > 0 ? (int)ncpu : 1;
	memset(&c->bench, 0, sizeof(c->bench));
	c->bench.shape = FT_SH_THREADS;
	c->bench.size = 64ULL << 20;
	c->bench.page_size = 2ULL << 20;
	c->bench.reps = 1;
}

/* a power of two in [1, hi] for --max-size and --current */
static int parse_pow2(const char *opt, const char *arg, uint64_t hi, uint32_t *out)
{
	uint64_t v;

	if (parse_num(opt, arg, 1, hi, &v))
		return -1;
	if (!ft_is_pow2(v)) {
		ft_err("tune: %s wants a power of two, got '%s'", opt, arg);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* a count in [lo, 1000]: --reps, --warmup, --probes, --budget */
static int parse_count(const char *opt, const char *arg, uint64_t lo, int *out)
{
	uint64_t v;

	if (parse_num(opt, arg, lo, 1000, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * The options that take a number: 0 when taken, -1 on a bad value, 1
 * when o is not one of them.
 */
static int tune_opt_number(struct tune_ctx *c, int o, const char *arg)
{
	uint64_t v;

	switch (o) {
	case 'T':
		return ft_opt_double("tune", "--target", arg, 0.001, 99.9,
				     &c->target) ? -1 : 0;
	case 'm':
		return parse_pow2("--max-size", arg, FT_MODEL_MAX_SIZE, &c->max_size);
	case 'r':
		return parse_count("--reps", arg, 1, &c->reps);
	case 'W':
		return parse_count("--warmup", arg, 0, &c->warmup);
	case 'P':
		return parse_count("--probes", arg, 1, &c->probes);
	case 'B':
		return parse_count("--budget", arg, 1, &c->budget_runs);
	case 5:
		return ft_opt_double("tune", "--budget-time", arg, 0, 1e6,
				     &c->budget_s) ? -1 : 0;
	case 7:
		return ft_opt_double("tune", "--timeout", arg, 0, 1e6,
				     &c->timeout) ? -1 : 0;
	case 't':
		if (parse_num("--threads", arg, 1, 65536, &v))
			return -1;
		c->threads = (int)v;
		c->threads_set = 1;
		return 0;
	case 'S':
		if (parse_num("--seed", arg, 0, UINT32_MAX, &v))
			return -1;
		c->seed = (unsigned int)v;
		return 0;
	case 'c':
		return parse_pow2("--current", arg, 1u << 24, &c->saved);
	}
	return 1;
}

/*
 * The other options but --help: 0 when taken, -1 on a bad value, 1 when
 * o is none of them.
 */
static int tune_opt_other(struct tune_ctx *c, int o, const char *arg, int *from)
{
	switch (o) {
	case 's':
		if (ft_parse_size(arg, &c->bench.size) || !c->bench.size) {
			ft_err("tune: bad --size '%s' (bytes, or with K, M, G)", arg);
			return -1;
		}
		break;
	case 'p':
		if (ft_parse_size(arg, &c->bench.page_size) ||
		    !ft_is_pow2(c->bench.page_size)) {
			ft_err("tune: bad --page-size '%s' (a power of two, "
			       "with K, M, G)", arg);
			return -1;
		}
		break;
	case 6:
		c->force = 1;
		break;
	case 'F':
		c->full = 1;
		break;
	case 'a':
		c->apply = 1;
		break;
	case 'j':
		c->fmt = FT_FMT_JSON;
		break;
	case 'v':
		c->verbose++;
		break;
	case 1:
		*from = 1;
		break;
	case 2:
		c->knob = arg;
		break;
	case 4:
		c->plot = arg;
		break;
	case 8:
		if (ft_opt_source("tune", arg, &c->read.source))
			return -1;
		break;
	default:
		return 1;
	}
	return 0;
}

/* --from: the recordings, argv[first] to argv[end - 1] */
static int check_from(struct tune_ctx *c, char **argv, int first, int end)
{
	if (c->cmd || first >= end) {
		ft_err("tune: --from wants one or more recordings, and no "
		       "COMMAND");
		return -1;
	}
	for (; first < end; first++) {
		if (c->nfrom == MAX_FROM) {
			ft_err("tune: --from takes at most %d files", MAX_FROM);
			return -1;
		}
		c->from[c->nfrom++] = argv[first];
	}
	return 0;
}

/* live: no stray argument, no option of --from, a budget above the probes */
static int check_live(struct tune_ctx *c, char **argv, int first, int end)
{
	if (first < end) {
		ft_err("tune: unexpected argument '%s' (a COMMAND comes after --, "
		       "recordings after --from)", argv[first]);
		return -1;
	}
	if (c->saved) {
		ft_err("tune: --current is for --from; live, the knob says it");
		return -1;
	}
	if (c->force || c->timeout >= 0) {
		ft_err("tune: --force and --timeout are for --from (the reading "
		       "of recordings)");
		return -1;
	}
	if (c->budget_runs < c->probes) {
		ft_err("tune: --budget %d is below --probes %d: the budget is the "
		       "most probe runs, the probes the fewest", c->budget_runs,
		       c->probes);
		return -1;
	}
	c->bench.threads[0] = c->threads;
	c->bench.nthreads = 1;
	if (!c->cmd && c->bench.size < c->bench.page_size) {
		ft_err("tune: --size is smaller than one huge page");
		return -1;
	}
	return 0;
}

/* 0: run, 1: --help printed, -1: a bad command line (said) */
static int parse_tune(int argc, char **argv, struct tune_ctx *c)
{
	/* before one meaning per letter: -c was --current */
	static const char *const moved[] = { "c--current", NULL };
	int o, from = 0, dd, ret;

	tune_defaults(c);
	/*
	 * Options go before "--" and the COMMAND after it; with --from the
	 * files may come anywhere among the options.
	 */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++)
		;
	if (dd < argc)
		c->cmd = argv + dd + 1;
	optind = 0;
	opterr = 0;
	while ((o = getopt_long(dd, argv, "T:m:r:W:P:B:t:s:p:S:Fajvh", tune_lo,
				NULL)) != -1) {
		if (o == 'h') {
			tune_usage(stdout);
			return 1;
		}
		ret = tune_opt_number(c, o, optarg);
		if (ret > 0)
			ret = tune_opt_other(c, o, optarg, &from);
		if (ret > 0) {
			ft_opt_bad("tune", argv, moved);
			tune_usage(stderr);
		}
		if (ret)
			return -1;
	}
	if (c->cmd && !c->cmd[0]) {
		ft_err("tune: no COMMAND after --");
		return -1;
	}
	if (from)
		return check_from(c, argv, optind, dd);
	return check_live(c, argv, optind, dd);
}

/* the model's threads: the built-in workload already runs -t threads */
static int model_threads(const struct tune_ctx *c)
{
	return (c->cmd || c->nfrom) && c->threads_set ? c->threads : 0;
}

/* ---- --from: advice from recordings ---- */

static int from_child(void *arg)
{
	struct tune_ctx *c = arg;
	struct ft_advice_opts ao = { .target_pct = c->target,
				     .max_size = c->max_size };
	struct ft_analysis a;
	double coll = 0, share = 0, fault = 0;
	int i, ret = 1;

	c->model = ft_model_new();
	if (!c->model)
		return 1;
	for (i = 0; i < c->nfrom; i++) {
		uint32_t rs;

		ft_analysis_init(&a);
		if (ft_read_tracedat_opts(c->from[i], &a, &c->read) ||
		    !ft_analysis_usable(&a, c->from[i], c->force, FT_USE_ADVICE)) {
			ft_analysis_free(&a);
			goto out;
		}
		ft_analysis_finish(&a);
		if (!a.nholds) {
			ft_err("%s: no completed hugetlb fault mutex holds (record "
			       "the hugetlb events: faulttune record, or trace-cmd "
			       "record -e hugetlb)", c->from[i]);
			ft_analysis_free(&a);
			goto out;
		}
		rs = ft_recorded_size(&a);
		if (!ao.current)
			ao.current = rs;
		/* what the recording itself measured, at the size it ran at */
		coll += a.hall.coll_wait;
		share += a.hall.share_wait;
		fault += a.sample.fault_ns;	/* every hold, sampled or not */
		ft_sample_note(&a, c->from[i]);
		/* each run with what it measured at the size it ran at */
		if (ft_sharing_add(&c->share, &a) ||
		    ft_sample_add_runs(&a, c->model, rs)) {
			ft_err("%s: out of memory", c->from[i]);
			ft_analysis_free(&a);
			goto out;
		}
		ft_analysis_free(&a);
	}
	/* the files are read: what remains is the model's time, not a hang */
	ft_isolate_phase(FT_PHASE_READ_DONE);
	if (c->saved)
		ao.current = c->saved;
	ao.threads = model_threads(c);
	if (ft_advise(c->model, &ao, &c->adv)) {
		ft_err("tune: the model failed (out of memory?)");
		goto out;
	}
	cmd_tune_report_from(c, coll, share, fault);
	ret = 0;
out:
	ft_advice_free(&c->adv);
	ft_sharing_free(&c->share);
	ft_model_free(c->model);
	c->model = NULL;
	return ret;
}

/* ---- live runs ---- */

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

/* may move the results: hold no pointer into them across a call */
static struct size_result *res_get(struct tune_ctx *c, uint32_t size)
{
	struct size_result *r;
	int i;

	for (i = 0; i < c->nres; i++)
		if (c->res[i].size == size)
			return &c->res[i];
	r = realloc(c->res, (c->nres + 1) * sizeof(*r));
	if (!r)
		return NULL;
	c->res = r;
	r = &c->res[c->nres++];
	memset(r, 0, sizeof(*r));
	r->size = size;
	return r;
}

/*
 * One run of COMMAND, draining the ring buffer while it runs; a signal
 * to tune is passed on to it.  A pidfd wakes us the moment it exits, so
 * the wall time is the command's, not our polling period's.
 */
static int run_command(struct tune_ctx *c, struct ft_capture *cap,
		       double *wall, double *cpu)
{
	struct rusage ru = { 0 };
	char *marker = ft_inst_file(&c->fi, "trace_marker");
	struct ft_child_stop stop = { 0 };
	int status = 0, pfd;
	double t0 = ft_now();
	pid_t pid, w;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (marker)
			setenv("FAULTTUNE_MARKER", marker, 1);
		/*
		 * The instance's trace_pipe_raw files are open here: a process
		 * of the command that outlives it would keep the instance busy
		 * and its removal would fail.  The command gets none of ours.
		 */
		close_range(3, ~0u, 0);
		/* -j: the JSON alone on our standard output, the command's on stderr */
		if (c->fmt == FT_FMT_JSON && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(c->cmd[0], c->cmd);
		ft_err("tune: cannot run %s: %s", c->cmd[0], strerror(errno));
		_exit(127);
	}
	tracefs_put_tracing_file(marker);
	if (pid < 0) {
		ft_err("fork: %s", strerror(errno));
		return -1;
	}
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		if (cap && ft_capture_poll(cap) < 0) {
			ft_err("tune: the recording failed: stopping %s (pid %d)",
			       c->cmd[0], (int)pid);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (pfd >= 0)
				close(pfd);
			return -1;
		}
		/* the command's CPU time, its reaped children's included */
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		ft_child_stop_step(pid, &stop);
		if (pfd >= 0)
			poll(&p, 1, 50);
		else
			usleep(5000);
	}
	*wall = ft_now() - t0;
	*cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (pfd >= 0)
		close(pfd);
	if (ft_stop)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFEXITED(status))
			ft_err("tune: %s exited with status %d; stopping",
			       c->cmd[0], WEXITSTATUS(status));
		else
			ft_err("tune: %s was killed by signal %d; stopping",
			       c->cmd[0], WTERMSIG(status));
		return -1;
	}
	return 0;
}

/* the run order, for the JSON (-S repeats it) */
static int order_push(struct tune_ctx *c, uint32_t size)
{
	uint32_t *o = realloc(c->order, (c->norder + 1) * sizeof(*o));

	if (!o)
		return -1;
	c->order = o;
	c->order[c->norder++] = size;
	return 0;
}

/* warm-ups are not traced; probes count for the model, not the confirmation */
enum run_kind { RUN_WARMUP, RUN_PROBE, RUN_MEASURED };

/* one run at one size */
static int run_one(struct tune_ctx *c, uint32_t size, enum run_kind kind)
{
	int traced = kind != RUN_WARMUP;
	struct ft_bench_result br;
	struct ft_capture *cap = NULL;
	struct size_result *sr;
	struct ft_analysis a;
	uint64_t lost = 0;
	double wall = 0, cpu = 0;
	size_t i;
	int ret;

	/* without the knob every run is at the kernel's size */
	if (!c->fixed && ft_knob_write(c->knob, size)) {
		ft_err("cannot set %s to %u: %s", c->knob, size, strerror(errno));
		return -1;
	}
	c->moved |= !c->fixed && size != c->saved;
	if (traced) {
		cap = ft_capture_start(&c->fi, c->tmpfile);
		if (!cap || tracefs_trace_on(c->fi.inst))
			return -1;
		ft_inst_marker(&c->fi, "faulttune: phase=tune size=%u", size);
		/* each run is a file of its own: kpair.c reads the probes by it */
		if (c->fi.kp)
			ft_inst_marker(&c->fi, "faulttune:%s",
				       ft_kprobes_marker(c->fi.kp));
	}
	if (c->cmd) {
		ret = run_command(c, cap, &wall, &cpu);
	} else {
		ret = ft_bench_run(&c->bench, c->threads, &br);
		wall = br.wall;
		cpu = br.user + br.sys;
	}
	c->runs++;
	if (cap && ft_capture_finish(cap, &lost))
		return -1;
	if (ret || ft_stop || !traced)
		return ret;
	sr = res_get(c, size);
	if (!sr || order_push(c, size))
		return -1;
	if (sr->runs == sr->cap) {
		int cap2 = sr->cap ? sr->cap * 2 : 8;
		double *w = realloc(sr->wall, cap2 * sizeof(*w));

		if (!w)
			return -1;
		sr->wall = w;
		w = realloc(sr->cpu, cap2 * sizeof(*w));
		if (!w)
			return -1;
		sr->cpu = w;
		sr->cap = cap2;
	}
	sr->cpu[sr->runs] = cpu;
	sr->wall[sr->runs++] = wall;
	sr->probe_runs += kind == RUN_PROBE;
	ft_analysis_init(&a);
	if (ft_read_tracedat_opts(c->tmpfile, &a, &c->read) == 0) {
		double fault_ns = 0;

		ft_analysis_finish(&a);
		sr->acq += a.hall.acq;
		sr->contended += a.hall.contended;
		sr->collisions += a.hall.collisions;
		sr->sharing += a.hall.sharing;
		sr->coll_wait += a.hall.coll_wait;
		sr->lost += lost + a.lost_events;
		for (i = 0; i < a.nholds; i++)
			fault_ns += a.holds[i].rel_ts - a.holds[i].req_ts;
		sr->fault_ns += fault_ns;
		if (kind == RUN_PROBE) {
			sr->probe_coll_wait += a.hall.coll_wait;
			sr->probe_fault_ns += fault_ns;
		}
		if (a.nholds) {
			if (ft_sharing_add(&c->share, &a) ||
			    ft_model_add_run(c->model, a.holds, a.nholds)) {
				ft_analysis_free(&a);
				return -1;
			}
			ft_model_run_measured(c->model, a.holds, a.nholds, size,
					      a.hall.coll_wait);
		}
	}
	ft_analysis_free(&a);
	return 0;
}

/* runs of every measured size, interleaved round by round */
static int measure(struct tune_ctx *c, const uint32_t *sizes, int n, int tty);

/* the decision on every traced run so far */
static int advise(struct tune_ctx *c, const struct ft_advice_opts *ao)
{
	if (c->have_adv)
		ft_advice_free(&c->adv);
	c->have_adv = 0;
	if (ft_advise(c->model, ao, &c->adv))
		return -1;
	c->have_adv = 1;
	return 0;
}

static uint32_t pick_size(const struct tune_ctx *c)
{
	return c->adv.rows[c->adv.pick.idx].size;
}

/*
 * Every measured run is traced and goes into the model too: the decision
 * is made again on the probes and the measured runs together, and a pick
 * that moves is measured in its turn (twice at most, so that a pick on
 * the edge cannot keep tune measuring), interleaved with as many new runs
 * of the current size: the confirmation compares the two sizes only on
 * runs that were.
 */
static int measure_and_decide(struct tune_ctx *c, const struct ft_advice_opts *ao,
			      const uint32_t *sizes, int n, int tty)
{
	int round;

	if (measure(c, sizes, n, tty))
		return -1;
	for (round = 0; !ft_stop; round++) {
		const struct size_result *r;
		uint32_t rec;

		if (advise(c, ao))
			return -1;
		uint32_t two[2];

		rec = pick_size(c);
		r = res_find(c, rec);
		if (round == 2 || (r && r->runs - r->probe_runs >= c->reps))
			return 0;
		if (c->fmt == FT_FMT_TEXT)
			fprintf(stderr, "faulttune: with the measured runs the "
				"model recommends %u; measuring it and the "
				"current %u x %d runs\n", rec, c->saved, c->reps);
		two[0] = c->saved;
		two[1] = rec;
		if (measure(c, two, 2, tty))
			return -1;
	}
	return 0;
}

/*
 * --reps new runs of each size, whatever ran before (the probes at the
 * current size): round by round, each round in an order drawn from the
 * seed, so that every size's runs are interleaved with every other's.
 */
static int measure(struct tune_ctx *c, const uint32_t *sizes, int n,
		   int tty)
{
	int *order = calloc(n ? n : 1, sizeof(*order)), done = 0;
	int *base = calloc(n ? n : 1, sizeof(*base));
	int total = n * c->reps, round, i, k, ret = -1;

	if (!order || !base)
		goto out;
	for (i = 0; i < n; i++) {
		struct size_result *r = res_get(c, sizes[i]);

		if (!r)
			goto out;
		base[i] = r->runs;
	}
	for (round = 0; round < c->reps && !ft_stop; round++) {
		for (i = 0, k = 0; i < n; i++)
			if (res_get(c, sizes[i])->runs - base[i] <= round)
				order[k++] = i;
		for (i = k - 1; i > 0; i--) {
			int j = rnd(&c->rng) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < k && !ft_stop; i++) {
			if (tty && c->fmt == FT_FMT_TEXT)
				fprintf(stderr, "\r  run %d/%d: size %-8u", ++done,
					total, sizes[order[i]]);
			if (run_one(c, sizes[order[i]], RUN_MEASURED))
				goto out;
		}
	}
	ret = 0;
out:
	free(base);
	free(order);
	return ret;
}

/* --from: the advice from recordings, in a child (ft_isolate) */
static int tune_from(struct tune_ctx *c)
{
	struct stat st;
	double mb = 0;
	int i;

	/*
	 * The reader's time limit, as report's: 60 s + 1 s per MiB,
	 * for the reading only (the model may take longer at a large
	 * --threads, and that is no hang).
	 */
	for (i = 0; i < c->nfrom; i++)
		mb += stat(c->from[i], &st) ? 0 : st.st_size / 1048576.0;
	return ft_isolate(from_child, c, c->from[0], c->timeout >= 0 ?
			  c->timeout : 60 + mb);
}

#define DEBUGFS_MAGIC	0x64626720

/*
 * The default knob is absent from a mounted debugfs: a kernel without
 * the patch, whose table is sized at boot.  With debugfs unmounted
 * nothing can be told, and a --knob that is not there is a mistake.
 */
static int knob_absent(const struct tune_ctx *c)
{
	struct statfs sf;

	return errno == ENOENT && !strcmp(c->knob, FT_KNOB_PATH) &&
	       !statfs("/sys/kernel/debug", &sf) &&
	       sf.f_type == DEBUGFS_MAGIC;
}

/*
 * Before anything is changed: root, the knob (its value saved) and
 * tracefs.  Without the knob tune goes on with the size fixed (c->fixed;
 * tune_setup() finds whether the kprobe recorder can probe).  0, or 1
 * with the reason said.
 */
static int preflight(struct tune_ctx *c)
{
	const char *lock;

	if (geteuid()) {
		ft_err("tune needs root (it writes %s); tune --from FILE needs "
		       "none", c->knob);
		return 1;
	}
	lock = ft_lockdown();
	/* on any kernel: there is neither a knob nor a tracefs to use */
	if (lock && !strcmp(lock, "confidentiality")) {
		confidential();
		return 1;
	}
	if (access(c->knob, F_OK) && knob_absent(c)) {
		if (c->apply) {
			ft_err("tune: --apply: no %s on this kernel, whose fault "
			       "mutex table is sized at boot; tune without --apply "
			       "gives the boot parameter", c->knob);
			return 1;
		}
		c->fixed = 1;
	} else if (access(c->knob, F_OK)) {
		if (access("/sys/kernel/debug/hugetlb", F_OK) &&
		    access("/sys/kernel/debug/tracing", F_OK) &&
		    !strcmp(c->knob, FT_KNOB_PATH))
			ft_err("%s not found: debugfs is not mounted (mount -t "
			       "debugfs none /sys/kernel/debug) or the kernel lacks "
			       "the patch 'hugetlb: resizable fault mutex table "
			       "with a debugfs knob'", c->knob);
		else
			ft_err("%s not found: kernel without the patch 'hugetlb: "
			       "resizable fault mutex table with a debugfs knob'",
			       c->knob);
		return 1;
	} else if (ft_knob_read(c->knob, &c->saved)) {
		knob_refused(c->knob, errno);
		return 1;
	} else {
		c->saved_valid = 1;
	}
	/*
	 * Before tune_restore is registered: a tracefs mounted here is
	 * unmounted by an atexit handler, and handlers run in reverse, so
	 * tune_restore must come later to run first.
	 */
	if (ft_tracefs_check())
		return 1;
	return 0;
}

/*
 * No knob: the probes need the kprobe recorder, which ft_inst_enable()
 * chose where the faulttune events are absent, and the current size is
 * the one it read from the kernel.  lock:contention alone has no holds
 * for the model; record + report still say what it can.
 */
static int tune_setup_fixed(struct tune_ctx *c)
{
	if (c->fi.evset == FT_EVS_FAULTTUNE) {
		ft_err("%s not found, though the kernel has the hugetlb fault "
		       "mutex events: kernel without the patch 'hugetlb: "
		       "resizable fault mutex table with a debugfs knob'",
		       c->knob);
		return -1;
	}
	if (!c->fi.kp) {
		ft_err("tune: no %s (kernel without the faulttune patches) and "
		       "no kprobe recorder: %s; faulttune record -o r.dat -- "
		       "WORKLOAD, then faulttune report r.dat, still work "
		       "(lock:contention)", c->knob, c->fi.kp_why ?
		       c->fi.kp_why : "not available");
		return -1;
	}
	c->saved = c->fi.kp->n;
	if (c->fmt == FT_FMT_TEXT)
		fprintf(stderr, "faulttune: no %s: the table's size, %u, is fixed "
			"at boot on this kernel and is not changed; probing with "
			"the kprobe recorder (%s, %d unlock call sites, "
			"lock:contention), seed %u\n", c->knob, c->saved,
			c->fi.kp->key_func, c->fi.kp->nunlock, c->seed);
	return 0;
}

/* the workload's pages, the instance with the events, the model */
static int tune_setup(struct tune_ctx *c)
{
	if (!c->cmd && ft_bench_check_pages(&c->bench, c->threads))
		return -1;
	ft_cleanup_stale(0);
	if (ft_inst_create(&c->fi, 0))
		return -1;
	c->have_inst = 1;
	c->fi.source = c->read.source;
	ft_opt_kprobe_env(&c->fi.kpo);
	/* without the knob, what tune_setup_fixed() says replaces its lines */
	if (ft_inst_enable(&c->fi))
		return -1;
	if (!c->fixed && c->fmt == FT_FMT_TEXT)
		ft_inst_print_source(&c->fi);
	if (c->fixed) {
		if (tune_setup_fixed(c))
			return -1;
	} else if (c->fi.evset != FT_EVS_FAULTTUNE) {
		ft_err("tune: the kernel has no hugetlb fault mutex events (patch "
		       "'mm/hugetlb: add trace events for the hugetlb fault "
		       "mutexes'): the model needs them");
		return -1;
	}
	snprintf(c->tmpfile, sizeof(c->tmpfile), "/tmp/faulttune-tune-%d.dat",
		 getpid());
	c->model = ft_model_new();
	if (!c->model)
		return -1;
	if (c->fmt == FT_FMT_TEXT && !c->fixed)
		fprintf(stderr, "faulttune: tuning %s (current %u, restored at "
			"exit%s), seed %u\n", c->knob, c->saved,
			c->apply ? " unless --apply" : "", c->seed);
	return 0;
}

static void advice_opts(const struct tune_ctx *c, struct ft_advice_opts *ao)
{
	memset(ao, 0, sizeof(*ao));
	ao->current = c->saved;
	ao->target_pct = c->target;
	ao->threads = model_threads(c);
	ao->max_size = c->max_size;
	/*
	 * The decision is made again after each probe.  How settled the
	 * pick is comes from the spread between the runs, and each run's
	 * prediction carries the spread of its own hash draws: with the
	 * model's own 256 draws over all the runs (8 a run at 30 runs) the
	 * built-in workload's standard error at 256 mutexes was 0.11-0.14%
	 * on 30 runs, 0.09% with 64 draws a run.  32 a run, within the
	 * model's work bound, keep a decision a fraction of a probe's time
	 * in a TCG guest.
	 */
	ao->run_draws = FT_SMALL_RUN_DRAWS;
	ao->max_draws = FT_SMALL_RUN_MAX_DRAWS;
}

/*
 * The probes: what the model learns the workload's faults from.  From
 * the --probes-th on, the decision is made again after every probe;
 * probing stops when the pick is settled or the budget of runs or
 * seconds is spent.
 */
static int probe(struct tune_ctx *c, const struct ft_advice_opts *ao, int tty)
{
	double tp = ft_now();
	int ret = -1;

	while (!ft_stop) {
		if (run_one(c, c->saved, RUN_PROBE))
			goto out;
		c->nprobes++;
		if (ft_stop || c->nprobes < c->probes)
			continue;
		if (!ft_model_nholds(c->model)) {
			ft_err("tune: no completed hugetlb fault mutex holds in %d "
			       "probe run%s: %s does not fault hugetlb pages?",
			       c->nprobes, c->nprobes > 1 ? "s" : "",
			       c->cmd ? c->cmd[0] : "the workload");
			goto out;
		}
		if (advise(c, ao))
			goto out;
		if (tty && c->fmt == FT_FMT_TEXT)
			fprintf(stderr, "\r  probe %d: %u, %s   ", c->nprobes,
				c->adv.dec.sizes[c->adv.dec.rec],
				c->adv.dec.settled ? "settled" : "not settled");
		if (ft_settled_look(&c->looks, &c->adv.dec)) {
			c->stopped = "settled";
			break;
		}
		if (c->nprobes >= c->budget_runs) {
			c->stopped = "runs";
			break;
		}
		if (ft_now() - tp >= c->budget_s) {
			c->stopped = "seconds";
			break;
		}
	}
	ret = 0;
out:
	c->probe_s = ft_now() - tp;
	return ret;
}

/* the current size and the pick (every size with --full), measured */
static int measure_pick(struct tune_ctx *c, const struct ft_advice_opts *ao,
			int tty)
{
	uint32_t *sizes;
	int i, n = 0, ret;

	c->probe_pick = pick_size(c);
	sizes = calloc(c->adv.n + 1, sizeof(*sizes));
	if (!sizes)
		return -1;
	sizes[n++] = c->saved;
	for (i = 0; i < c->adv.n; i++)
		if (c->adv.rows[i].size != c->saved &&
		    (c->full || i == c->adv.pick.idx))
			sizes[n++] = c->adv.rows[i].size;
	if (c->fmt == FT_FMT_TEXT) {
		fprintf(stderr, "faulttune: the model (%zu holds) recommends "
			"%s%u; measuring", ft_model_nholds(c->model),
			c->adv.pick.keep ? "keep " : "",
			c->adv.rows[c->adv.pick.idx].size);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %u", sizes[i]);
		fprintf(stderr, " x %d runs\n", c->reps);
	}
	ret = measure_and_decide(c, ao, sizes, n, tty);
	free(sizes);
	return ret;
}

/* what the run allocated; the knob and the instance are tune_restore's */
static void tune_free(struct tune_ctx *c)
{
	int i;

	if (c->have_adv)
		ft_advice_free(&c->adv);
	ft_sharing_free(&c->share);
	ft_model_free(c->model);
	for (i = 0; c->res && i < c->nres; i++) {
		free(c->res[i].wall);
		free(c->res[i].cpu);
	}
	free(c->res);
	free(c->order);
}

int cmd_tune(int argc, char **argv)
{
	struct tune_ctx c;
	struct ft_advice_opts ao;
	int ret, i, exit_code = 1;
	double t0;
	const char *term = getenv("TERM");
	int tty = isatty(2) && !(term && !strcmp(term, "dumb"));

	memset(&c, 0, sizeof(c));
	ret = parse_tune(argc, argv, &c);
	if (ret)
		return ret < 0 ? 2 : 0;
	ft_opt_read_env(&c.read);
	if (c.nfrom)
		return tune_from(&c);
	c.rng = c.seed;
	if (preflight(&c))
		return 1;
	/* from here on every exit restores the knob and removes the instance */
	restore_ctx = &c;
	atexit(tune_restore);
	ft_install_signals();

	if (tune_setup(&c))
		goto out;
	t0 = ft_now();
	for (i = 0; i < c.warmup && !ft_stop; i++)
		if (run_one(&c, c.saved, RUN_WARMUP))
			goto out;
	advice_opts(&c, &ao);
	if (probe(&c, &ao, tty))
		goto out;
	/* the measuring runs other sizes: not where the size is fixed */
	if (!ft_stop && c.fixed)
		c.probe_pick = pick_size(&c);
	else if (!ft_stop && measure_pick(&c, &ao, tty))
		goto out;
	c.wall_s = ft_now() - t0;
	if (tty && c.fmt == FT_FMT_TEXT)
		fprintf(stderr, "\r%40s\r", "");
	if (ft_stop) {
		ft_err("tune: interrupted by signal %d, no recommendation",
		       ft_stop_sig);
		c.apply = 0;
		exit_code = 130;
		goto out;
	}
	cmd_tune_report(&c);
	exit_code = 0;
out:
	if (exit_code)
		c.apply = 0;
	tune_restore();
	tune_free(&c);
	return exit_code;
}
