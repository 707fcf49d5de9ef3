// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune watch: always on, bounded.  Every interval it records the
 * fault mutex events for a window in its own tracefs instance, analyses
 * the window as report does (analysis.c, and advice.c for the
 * recommended size), prints one line, as vmstat and perf stat -I do, and
 * exports the numbers for Prometheus (prom.c: node_exporter's textfile,
 * httpd.c: /metrics); watchline.c prints the line.
 *
 * Bounded: the events are on only during the window (the fallback's
 * stacktrace trigger too: a trigger keeps a disabled event's probe
 * firing), each window's recording goes to one temporary trace.dat that
 * is read and deleted before the next, and an analysis lives for one
 * window; what the run keeps is struct ft_watch_state, a few counters.
 *
 * Restored on every exit path: the instance is removed (at the end, on
 * an error, on SIGINT, SIGTERM and SIGHUP, which stop the loop at its
 * next poll, and by atexit() on any exit()).  The knob is only read:
 * a size that changed between two windows was changed by someone else,
 * and is reported as an override (as bpftune reports them).  One watch
 * per machine: an flock() on FT_WATCH_LOCK, held for the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"
#include "knob.h"
#include "model.h"
#include "watch.h"
#include "builtin.h"

#define FT_WATCH_LOCK_DIR	"/run/faulttune"
#define FT_WATCH_LOCK		FT_WATCH_LOCK_DIR "/watch.lock"
/* the reader child's limit for one window's file, seconds */
#define FT_WATCH_READ_S	120
/*
 * A window's runs of the model, at most: twice the FT_SETTLE_RUNS a
 * settled pick needs, so that a few idle parts leave enough.
 */
#define FT_WATCH_PARTS	(2 * FT_SETTLE_RUNS)

struct watch_opts {
	double interval, window;
	uint64_t count;		/* 0: until stopped */
	uint64_t buffer_kb;
	double target;		/* percent */
	enum ft_fmt fmt;
	const char *textfile;	/* directory */
	const char *listen;
};

/*
 * What the reader child hands back: plain numbers, in a shared page.
 * The window's trace.dat is read in a child process (ft_isolate(), as
 * report reads): libtracecmd 1.3.1 leaves a mapping of each file's CPU
 * pages behind after tracecmd_close() (two a window on two CPUs, seen
 * in /proc/PID/maps), which in a process that lives for months is a
 * leak; a child takes them with it, and a corrupt window cannot take
 * the watch down either.
 */
struct window_result {
	int fallback;
	uint64_t acq, contended, wait_ns;
	struct ft_watch_ops hop[FT_HOP_NR], mop[FT_MOP_NR], other;
	double coll_ratio, share_ratio, pred_ratio;
	uint32_t rec, recorded_size, table_n;
	uint32_t rec_lowest;	/* 0: how settled rec is is not known */
	int settled, runs, undecided;
	uint64_t lost_events, resizes;
};

struct watch_ctx {
	struct watch_opts o;
	struct ft_inst fi;
	int have_inst;
	int lock;
	char lockfile[64];
	char tmpfile[4096];
	struct ft_httpd *httpd;
	char *body;		/* the exposition, as last rendered */
	size_t body_len;
	struct ft_watch_state st;
	struct window_result *result;	/* shared with the reader child */
	/*
	 * The fallback's table facts for each window's marker, found once:
	 * a stock kernel's table never moves, and finding it parses all of
	 * kallsyms (callgrind: 97% of the watch process's instructions).
	 */
	char fallback_marker[320];
	uint32_t last_size;	/* at the end of the last window, 0: none */
	uint64_t lost_seen;	/* the instance's overrun counters, cumulative */
	int lines;
};

/* what atexit() must undo */
static struct watch_ctx *cleanup_ctx;

static void watch_cleanup(void)
{
	struct watch_ctx *c = cleanup_ctx;

	if (!c)
		return;
	cleanup_ctx = NULL;
	if (c->have_inst)
		ft_inst_destroy(&c->fi);
	c->have_inst = 0;
	if (c->tmpfile[0])
		unlink(c->tmpfile);
	ft_httpd_close(c->httpd);
	c->httpd = NULL;
	free(c->body);
	c->body = NULL;
	if (c->result)
		munmap(c->result, sizeof(*c->result));
	c->result = NULL;
	if (c->lock >= 0)
		close(c->lock);
	c->lock = -1;
}

static void watch_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune watch [options]\n"
"  -i, --interval SEC  one window every SEC seconds (default 60)\n"
"      --window SEC    record for SEC seconds of each interval (default 5)\n"
"  -n, --count N       stop after N windows (default: until SIGINT/SIGTERM)\n"
"  -b, --buffer KB     ring buffer size per CPU in KB\n"
"  -T, --target PCT    predicted collision wait target, percent of fault\n"
"                      time, for the recommended size (default 1)\n"
"      --textfile DIR  write DIR/faulttune.prom after each window, atomically\n"
"                      (node_exporter --collector.textfile.directory=DIR)\n"
"      --listen ADDR   serve GET /metrics on ADDR ([IP:]PORT, IP default\n"
"                      127.0.0.1, port 0: any free port, printed)\n"
"  -j, --json          one JSON object per window\n"
"  -c, --csv           CSV, a header line first\n"
"  -h, --help\n"
"One watch per machine (lock " FT_WATCH_LOCK ", without /run in /tmp);\n"
"tracefs is restored on exit, SIGINT and SIGTERM.  Columns the kernel\n"
"cannot fill print '-'.\n");
}

static int parse_watch(int argc, char **argv, struct watch_opts *o)
{
	static const struct option lo[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "window", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 'T' },
		{ "textfile", required_argument, NULL, 1 },
		{ "listen", required_argument, NULL, 2 },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* before one meaning per letter: -w and -t were these */
	static const char *const moved[] = { "w--window", "t--target", NULL };
	int c, fmt_set = 0, window_set = 0;

	memset(o, 0, sizeof(*o));
	o->interval = 60;
	o->window = 5;
	o->target = FT_TARGET_PCT;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:n:b:T:jch", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (ft_opt_double("watch", "--interval (seconds)", optarg,
					  0.1, 86400, &o->interval))
				return -1;
			break;
		case 'w':
			if (ft_opt_double("watch", "--window (seconds)", optarg,
					  0.05, 86400, &o->window))
				return -1;
			window_set = 1;
			break;
		case 'n':
			if (ft_opt_uint("watch", "--count", optarg, 1,
					UINT32_MAX, &o->count))
				return -1;
			break;
		case 'b':
			if (ft_opt_uint("watch", "--buffer (KB per CPU)", optarg,
					1, 1ULL << 22, &o->buffer_kb))
				return -1;
			break;
		case 'T':
			if (ft_opt_double("watch", "--target (percent)", optarg,
					  0.001, 100, &o->target))
				return -1;
			break;
		case 1:
			o->textfile = optarg;
			break;
		case 2:
			o->listen = optarg;
			break;
		case 'j':
			if (ft_opt_fmt("watch", &o->fmt, &fmt_set, FT_FMT_JSON))
				return -1;
			break;
		case 'c':
			if (ft_opt_fmt("watch", &o->fmt, &fmt_set, FT_FMT_CSV))
				return -1;
			break;
		case 'h':
			watch_usage(stdout);
			return 1;
		default:
			ft_opt_bad("watch", argv, moved);
			watch_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		ft_err("watch: unexpected argument '%s': watch takes options only",
		       argv[optind]);
		return -1;
	}
	/* a short interval without --window: the window fills half of it */
	if (!window_set && o->window > o->interval / 2)
		o->window = o->interval / 2;
	if (o->window > o->interval) {
		ft_err("watch: bad --window '%g': want at most the interval (%g s)",
		       o->window, o->interval);
		return -1;
	}
	return 0;
}

/*
 * Where the one-watch lock lives: /run, and on a system without /run (a
 * busybox initramfs) /tmp.  Either way a directory of root's that nobody
 * else can write, and no symbolic link followed: the file is truncated.
 */
static const char *lock_dir(void)
{
	struct stat st;

	return !stat("/run", &st) && S_ISDIR(st.st_mode) ? FT_WATCH_LOCK_DIR :
		"/tmp/faulttune";
}

/*
 * One watch per machine: two would fight over nothing in tracefs (each
 * has its own instance) but double the cost and export two answers.
 */
static int take_lock(struct watch_ctx *c)
{
	const char *dir = lock_dir();
	char buf[32] = "";
	struct stat st;
	ssize_t n;

	snprintf(c->lockfile, sizeof(c->lockfile), "%s/watch.lock", dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ft_err("watch: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022)) {
		ft_err("watch: %s is not a directory of root's that only root can "
		       "write: not putting the lock there", dir);
		return -1;
	}
	c->lock = open(c->lockfile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		       0644);
	if (c->lock < 0) {
		ft_err("watch: cannot open %s: %s", c->lockfile, strerror(errno));
		return -1;
	}
	if (flock(c->lock, LOCK_EX | LOCK_NB)) {
		n = pread(c->lock, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		ft_err("watch: another faulttune watch is running (pid %s, lock %s): "
		       "one per machine; stop it first", buf[0] ? buf : "?",
		       c->lockfile);
		close(c->lock);
		c->lock = -1;
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(c->lock, 0) || pwrite(c->lock, buf, n, 0) != n)
		ft_info("faulttune: watch: cannot write the pid to %s: %s",
			c->lockfile, strerror(errno));
	return 0;
}

/* num_fault_mutexes from the knob; 0 when there is none (stock kernel) */
static uint32_t knob_size(void)
{
	uint32_t v;

	return ft_knob_read(FT_KNOB_PATH, &v) ? 0 : v;
}

/* wait until t (monotonic), serving /metrics meanwhile */
static void wait_until(struct watch_ctx *c, double t, int slice_ms)
{
	double now;

	while (!ft_stop && (now = ft_now()) < t) {
		int ms = (int)((t - now) * 1e3) + 1;

		if (ms > slice_ms)
			ms = slice_ms;
		if (c->httpd)
			ft_httpd_serve(c->httpd, ms, c->body, c->body_len);
		else
			poll(NULL, 0, ms);
	}
}

/* record one window into c->tmpfile; the instance's lost count in *lost */
static int record_window(struct watch_ctx *c, uint64_t *lost)
{
	struct ft_capture *cap;
	uint64_t total = 0;
	double end;
	int ret = 0;

	cap = ft_capture_start(&c->fi, c->tmpfile);
	if (!cap)
		return -1;
	if (ft_inst_arm(&c->fi, 1) || tracefs_trace_on(c->fi.inst)) {
		ft_err("watch: cannot turn the events on in %s", c->fi.name);
		ret = -1;
	} else {
		ft_inst_marker(&c->fi, "faulttune: phase=watch-start window=%llu "
			       "events=%s%s%s%s", (unsigned long long)
			       c->st.windows + 1, c->fi.systems[0],
			       c->fi.nsys > 1 ? "," : "",
			       c->fi.nsys > 1 ? c->fi.systems[1] : "",
			       c->fallback_marker);
		if (c->fi.kp)	/* what kpair.c needs to read the probes */
			ft_inst_marker(&c->fi, "faulttune:%s",
				       ft_kprobes_marker(c->fi.kp));
		end = ft_now() + c->o.window;
		while (!ft_stop && ft_now() < end) {
			if (ft_capture_poll(cap) < 0) {
				ret = -1;
				break;
			}
			wait_until(c, fmin(end, ft_now() + 0.05), 50);
		}
		ft_inst_marker(&c->fi, "faulttune: phase=watch-end");
	}
	/* off first: the capture's last read must not see its own events */
	tracefs_trace_off(c->fi.inst);
	ft_inst_arm(&c->fi, 0);
	if (ft_capture_finish(cap, &total))
		return -1;
	/* the per-CPU overrun counters add up over the instance's life */
	*lost = total >= c->lost_seen ? total - c->lost_seen : total;
	c->lost_seen = total;
	return ret;
}

static double ratio(uint64_t a, double b)
{
	return b > 0 ? a / b : -1;
}

struct reader_arg {
	const char *file;
	double target;
	struct window_result *r;
};

static int window_fallback(const struct ft_fallback *fb, struct window_result *r)
{
	struct ft_fallback_sum fs;
	int k;

	ft_fallback_sum(fb, &fs);
	for (k = 0; k < FT_HOP_NR; k++) {
		r->contended += fs.hop_n[k];
		r->wait_ns += fs.hop_ns[k];
		r->hop[k].contended = fs.hop_n[k];
		r->hop[k].wait_ns = fs.hop_ns[k];
	}
	for (k = 0; k < FT_MOP_NR; k++) {
		r->mop[k].contended = fs.mop_n[k];
		r->mop[k].wait_ns = fs.mop_ns[k];
	}
	r->other.contended = fs.other_n;
	r->other.wait_ns = fs.other_ns;
	r->table_n = fs.table_n;
	return 0;
}

static int window_patched(struct ft_analysis *a, double target,
			  struct window_result *r)
{
	struct ft_advice adv;
	double fault_ns = 0;
	size_t i;
	int k;

	r->acq = a->hall.acq;
	r->contended = a->hall.contended;
	r->wait_ns = a->hall.wait_total;
	for (k = 0; k < FT_HOP_NR; k++) {
		r->hop[k].acq = a->hop[k].acq;
		r->hop[k].contended = a->hop[k].contended;
		r->hop[k].wait_ns = a->hop[k].wait_total;
	}
	for (k = 0; k < FT_MOP_NR; k++) {
		r->mop[k].acq = a->mop[k].acq;
		r->mop[k].contended = a->mop[k].contended;
		r->mop[k].wait_ns = a->mop[k].wait_total;
	}
	for (i = 0; i < a->nholds; i++)
		fault_ns += a->holds[i].rel_ts - a->holds[i].req_ts;
	r->coll_ratio = ratio(a->hall.coll_wait, fault_ns);
	r->share_ratio = ratio(a->hall.share_wait, fault_ns);
	r->recorded_size = ft_recorded_size(a);
	r->resizes = a->resizes;
	if (!a->nholds)
		return 0;
	/*
	 * The window as runs of the model (split.c), so that the spread
	 * between its parts bounds the pick and says whether it is settled,
	 * as tune's runs do; as one run it never could.
	 */
	if (ft_advice_of_parts(a, 0, target, FT_WATCH_PARTS, &adv)) {
		ft_err("watch: out of memory for the advice");
		return -1;
	}
	if (adv.pick.idx >= 0 && adv.nholds) {
		const struct ft_decision *d = &adv.dec;

		r->rec = adv.rows[adv.pick.idx].size;
		r->pred_ratio = adv.rows[adv.pick.idx].coll_pct / 100;
		/*
		 * A window is a short sample: say whether its parts settle the
		 * pick, as tune and report do, so that a pick that flips from
		 * window to window is not taken for an answer.  A window of
		 * fewer than two active parts has no spread to bound
		 * (advice.c: "settled: not known").
		 */
		r->runs = d->nactive;
		if (d->nactive >= 2 && d->first >= 0 && d->first <= d->rec) {
			r->settled = d->settled;
			r->rec_lowest = d->sizes[d->first];
		}
		r->undecided = d->cur_verdict == FT_CUR_UNDECIDED;
	}
	ft_advice_free(&adv);
	return 0;
}

/* in the child: the window's file into *r; the exit status says if it did */
static int read_window(void *arg)
{
	struct reader_arg *ra = arg;
	struct window_result *r = ra->r;
	struct ft_analysis a;
	struct ft_fallback *fb;
	int ret;

	memset(r, 0, sizeof(*r));
	r->coll_ratio = r->share_ratio = r->pred_ratio = -1;
	ft_analysis_init(&a);
	/* started on a window of lock:contention events */
	ret = ft_consumer_register(&a, &ft_fallback_consumer, NULL);
	if (!ret)
		ret = ft_read_tracedat(ra->file, &a);
	if (!ret) {
		fb = ft_consumer_state(&a, &ft_fallback_consumer);
		r->lost_events = a.lost_events;
		r->fallback = !!fb;
		/* the kprobe recorder's acquisitions are the patched kind */
		if (a.kpair)
			fb = NULL;
		r->fallback = !!fb;
		ret = fb ? window_fallback(fb, r) :
			window_patched(&a, ra->target, r);
	}
	ft_analysis_free(&a);
	return ret ? 1 : 0;
}

/* the window's numbers into the state: gauges replaced, counters added */
static void take_window(struct watch_ctx *c, const struct window_result *r,
			uint32_t size_start, uint32_t size_end, uint64_t lost)
{
	struct ft_watch_state *w = &c->st;
	int k;

	w->fallback = c->fi.evset == FT_EVS_CONTENTION && !c->fi.kp;
	w->kprobe = !!c->fi.kp;
	w->have_window = 1;
	w->end_unix = (double)time(NULL);
	w->lost = lost + r->lost_events;
	w->lost_total += w->lost;
	w->acq = r->acq;
	w->contended = r->contended;
	w->wait_ns = r->wait_ns;
	w->coll_ratio = r->coll_ratio;
	w->share_ratio = r->share_ratio;
	w->pred_ratio = r->pred_ratio;
	w->rec = r->rec;
	w->rec_lowest = r->rec_lowest;
	w->settled = r->settled;
	w->undecided = r->undecided;
	w->runs = r->runs;
	for (k = 0; k < FT_HOP_NR; k++) {
		w->hop[k].acq += r->hop[k].acq;
		w->hop[k].contended += r->hop[k].contended;
		w->hop[k].wait_ns += r->hop[k].wait_ns;
	}
	for (k = 0; k < FT_MOP_NR; k++) {
		w->mop[k].acq += r->mop[k].acq;
		w->mop[k].contended += r->mop[k].contended;
		w->mop[k].wait_ns += r->mop[k].wait_ns;
	}
	w->other.contended += r->other.contended;
	w->other.wait_ns += r->other.wait_ns;
	if (w->fallback) {
		/* no knob: the size the record marker found, if any */
		size_end = r->table_n;
		if (!size_start)
			size_start = size_end;
	} else if (!size_end) {
		size_end = r->recorded_size;
	}
	/* watch never writes the knob: any change is someone else's */
	w->overridden = (c->last_size && size_start && size_start != c->last_size) ||
			(size_start && size_end && size_start != size_end) ||
			r->resizes;
	w->size_before = c->last_size ? c->last_size : size_start;
	w->overrides_total += w->overridden;
	w->size = size_end;
	if (size_end)
		c->last_size = size_end;
	w->windows++;
}

static void print_line(struct watch_ctx *c)
{
	ft_watch_line(stdout, &c->st, c->o.fmt, !c->lines++);
}

/* the exposition after a window, to the textfile and /metrics */
static int export(struct watch_ctx *c)
{
	size_t len = 0;
	char *body = ft_prom_render(&c->st, &len);

	if (!body) {
		ft_err("watch: out of memory for the metrics");
		return -1;
	}
	free(c->body);
	c->body = body;
	c->body_len = len;
	if (c->o.textfile && c->st.windows &&
	    ft_prom_textfile(c->o.textfile, body, len))
		return -1;
	return 0;
}

static int one_window(struct watch_ctx *c)
{
	struct reader_arg ra = { c->tmpfile, c->o.target, c->result };
	uint32_t size_start, size_end;
	uint64_t lost = 0;
	int ret;

	size_start = knob_size();
	ret = record_window(c, &lost);
	size_end = knob_size();
	if (ret || ft_stop) {
		unlink(c->tmpfile);
		return ft_stop ? 0 : -1;
	}
	ret = ft_isolate(read_window, &ra, c->tmpfile, FT_WATCH_READ_S);
	unlink(c->tmpfile);
	if (!ret)
		take_window(c, c->result, size_start, size_end, lost);
	/*
	 * Everything the window allocated here is freed, but glibc keeps
	 * freed heap pages: the multi-megabyte kallsyms copies of the
	 * capture raise its mmap threshold and land on the heap.  Hand
	 * them back, so that RSS stays flat for months.
	 */
	malloc_trim(0);
	return ret ? -1 : 0;
}

static int fallback_note_once(struct watch_ctx *c)
{
	if (c->fi.evset != FT_EVS_CONTENTION || c->fi.kp)
		return 0;
	ft_info("faulttune: watch: fallback (lock:contention_begin/end): cannot "
		"fill acq, coll%%, share%%, rec and pred%% (no acquisitions, hold "
		"times or hashes on this kernel); contended and wait are the "
		"fault mutex waits, size is shown when /proc/kcore tells it");
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	static struct watch_ctx c;
	double next;
	int ret, errors = 0;

	memset(&c, 0, sizeof(c));
	c.lock = -1;
	ret = parse_watch(argc, argv, &c.o);
	if (ret)
		return ret < 0 ? 2 : 0;
	/* every bad option refused before anything changes */
	if (c.o.textfile && ft_prom_check_dir(c.o.textfile))
		return 2;
	if (c.o.listen && ft_httpd_check(c.o.listen))
		return 2;
	/* from here on a signal stops the run through its cleanup */
	ft_install_signals();
	/* the lock first: a refused second watch must not even mount tracefs */
	if (geteuid()) {
		ft_err("watch: tracefs needs root (run as root or with sudo)");
		return 1;
	}
	if (take_lock(&c))
		return 1;
	cleanup_ctx = &c;
	if (c.o.listen) {
		c.httpd = ft_httpd_open(c.o.listen);	/* says why */
		if (!c.httpd) {
			watch_cleanup();
			return 2;
		}
	}
	if (ft_tracefs_check()) {
		watch_cleanup();
		return 1;
	}
	atexit(watch_cleanup);
	if (c.httpd)
		ft_info("faulttune: watch: serving /metrics on http://%s/metrics",
			ft_httpd_addr(c.httpd));
	snprintf(c.tmpfile, sizeof(c.tmpfile), "%s/faulttune-watch-%d.dat",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	c.result = mmap(NULL, sizeof(*c.result), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c.result == MAP_FAILED) {
		c.result = NULL;
		ft_err("watch: mmap: %s", strerror(errno));
		goto fail;
	}
	ft_cleanup_stale(1);
	if (ft_inst_create(&c.fi, c.o.buffer_kb))
		goto fail;
	c.have_inst = 1;
	ft_opt_kprobe_env(&c.fi.kpo);
	if (ft_inst_enable(&c.fi) || ft_inst_arm(&c.fi, 0))
		goto fail;
	snprintf(c.fallback_marker, sizeof(c.fallback_marker), "%s",
		 ft_record_fallback_marker(&c.fi));
	c.st.fallback = c.fi.evset == FT_EVS_CONTENTION && !c.fi.kp;
	c.st.kprobe = !!c.fi.kp;
	c.st.window_s = c.o.window;
	fallback_note_once(&c);
	if (export(&c))
		goto fail;
	next = ft_now();
	while (!ft_stop) {
		if (one_window(&c)) {
			c.st.errors_total++;
			/* a machine that cannot record at all: say so and stop */
			if (++errors >= 3 && !c.st.windows) {
				ft_err("watch: %d windows failed in a row: stopping",
				       errors);
				goto fail;
			}
		} else if (!ft_stop) {
			errors = 0;
			print_line(&c);
			fflush(stdout);
		}
		if (ft_stop)
			break;
		if (export(&c))
			goto fail;
		if (c.o.count && c.st.windows >= c.o.count)
			break;
		next += c.o.interval;
		if (next < ft_now())	/* a slow window: skip to the next slot */
			next += ceil((ft_now() - next) / c.o.interval) * c.o.interval;
		wait_until(&c, next, 1000);
	}
	watch_cleanup();
	return 0;
fail:
	watch_cleanup();
	return 1;
}
