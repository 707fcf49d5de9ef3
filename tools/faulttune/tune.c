// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune tune: sweep /sys/kernel/debug/hugetlb/num_fault_mutexes over
 * powers of two in randomised order (with warm-up and repetitions), run
 * the threads workload at each size while recording the lock events in
 * our own instance, and recommend the smallest size whose median
 * throughput is within --margin of the best.
 *
 * The knob and the instance are restored / removed on every exit path:
 * normal end, errors, SIGINT, SIGTERM, SIGHUP (the signal only sets
 * ft_stop; the sweep stops after the current run) and exit() (atexit).
 * --apply leaves the recommended size set.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"
#include "model.h"

#define KNOB "/sys/kernel/debug/hugetlb/num_fault_mutexes"

struct size_result {
	uint32_t size;
	struct ft_vec tput;	/* faults/wall-s x 1000, per run */
	double tput_med, tput_min, tput_max;
	uint64_t acq, contended, collisions, sharing, faults;
	uint64_t coll_wait, wait_total, lost;
	int traced;
	/* what-if replay of the first traced run at the current size */
	uint64_t pred_coll, pred_coll_wait;
	int predicted;
	int measure;		/* in the plan (every size with --full) */
};

struct tune_ctx {
	const char *knob;
	uint32_t saved;
	int saved_valid;
	int apply;
	uint32_t apply_value;
	struct ft_inst fi;
	int have_inst;
	int trace;
	int full;		/* --full: measure every size */
	char tmpfile[64];
	/* options */
	uint32_t max_size;
	int reps, warmup;
	double margin;
	unsigned int seed;
	enum ft_fmt fmt;
	const char *plot;
	struct ft_bench_opts bench;
	int threads;
	/* results */
	struct size_result *res;
	int nres;
	struct ft_analysis ref;	/* first traced run at the saved size */
	int have_ref;
	double ref_thread_ns;	/* its threads x wall */
	int runs;		/* workload runs, warm-up and probe included */
	double wall_s;		/* the whole tune, seconds */
};

/* the one piece of global state: what atexit() must undo */
static struct tune_ctx *restore_ctx;

static int knob_read(const char *knob, uint32_t *v)
{
	char *text = ft_read_all(knob, NULL);
	uint64_t x;
	char *nl;

	if (!text)
		return -1;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (ft_parse_u64(text, &x) || x > UINT32_MAX) {
		free(text);
		return -1;
	}
	free(text);
	*v = (uint32_t)x;
	return 0;
}

static int knob_write(const char *knob, uint32_t v)
{
	char buf[32];
	int fd, n, ret = 0;
	uint32_t back;

	fd = open(knob, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%u", v);
	if (write(fd, buf, n) != n)
		ret = -1;
	if (close(fd))
		ret = -1;
	if (!ret && (knob_read(knob, &back) || back != v)) {
		errno = EIO;
		ret = -1;
	}
	return ret;
}

static void tune_restore(void)
{
	struct tune_ctx *c = restore_ctx;
	uint32_t v;

	if (!c)
		return;
	restore_ctx = NULL;
	if (c->saved_valid) {
		v = c->apply ? c->apply_value : c->saved;
		if (knob_write(c->knob, v))
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
"usage: faulttune tune [options]\n"
"  -m, --max-size N    largest size swept (default: 4x the current size)\n"
"  -r, --reps N        measured runs per size (default 5)\n"
"  -W, --warmup N      warm-up runs, discarded (default 1)\n"
"  -M, --margin PCT    recommend the smallest size within PCT%% of the\n"
"                      best median throughput (default 2)\n"
"  -t, --threads N     threads of the workload (default: online CPUs)\n"
"  -s, --size SIZE     mapping size of the workload (default 64M)\n"
"  -p, --page-size SZ  huge page size (default 2M)\n"
"  -S, --seed N        seed of the randomised order (default: time)\n"
"  -n, --no-trace      do not record events (throughput only; implies --full)\n"
"  -F, --full          measure every size; by default one traced run at the\n"
"                      current size is replayed (what-if) for every size and\n"
"                      only the sizes that can matter are measured\n"
"  -a, --apply         leave the recommended size set\n"
"  -j, --json          JSON output\n"
"      --plot FILE     throughput / collision wait curve via gnuplot\n"
"      --knob FILE     knob path (default " KNOB ")\n"
"  -h, --help\n");
}

static int parse_tune(int argc, char **argv, struct tune_ctx *c)
{
	static const struct option lo[] = {
		{ "max-size", required_argument, NULL, 'm' },
		{ "reps", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'W' },
		{ "margin", required_argument, NULL, 'M' },
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "no-trace", no_argument, NULL, 'n' },
		{ "full", no_argument, NULL, 'F' },
		{ "apply", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 1 },
		{ "knob", required_argument, NULL, 2 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int o;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	c->knob = KNOB;
	c->reps = 5;
	c->warmup = 1;
	c->margin = 2.0;
	c->trace = 1;
	c->seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	c->threads = ncpu > 0 ? (int)ncpu : 1;
	memset(&c->bench, 0, sizeof(c->bench));
	c->bench.shape = FT_SH_THREADS;
	c->bench.size = 64ULL << 20;
	c->bench.page_size = 2ULL << 20;
	c->bench.reps = 1;
	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+m:r:W:M:t:s:p:S:nFajh", lo, NULL)) != -1) {
		switch (o) {
		case 'm':
			if (ft_parse_u64(optarg, &v) || !ft_is_pow2(v) ||
			    v > (1u << 24)) {
				ft_err("tune: --max-size wants a power of two, got '%s'",
				       optarg);
				return -1;
			}
			c->max_size = (uint32_t)v;
			break;
		case 'r':
			if (ft_parse_u64(optarg, &v) || !v || v > 1000) {
				ft_err("tune: bad --reps '%s'", optarg);
				return -1;
			}
			c->reps = (int)v;
			break;
		case 'W':
			if (ft_parse_u64(optarg, &v) || v > 1000) {
				ft_err("tune: bad --warmup '%s'", optarg);
				return -1;
			}
			c->warmup = (int)v;
			break;
		case 'M':
			c->margin = strtod(optarg, &end);
			if (*end || c->margin < 0 || c->margin >= 100) {
				ft_err("tune: bad --margin '%s' (percent)", optarg);
				return -1;
			}
			break;
		case 't':
			if (ft_parse_u64(optarg, &v) || !v || v > 4096) {
				ft_err("tune: bad --threads '%s'", optarg);
				return -1;
			}
			c->threads = (int)v;
			break;
		case 's':
			if (ft_parse_size(optarg, &c->bench.size) || !c->bench.size) {
				ft_err("tune: bad --size '%s'", optarg);
				return -1;
			}
			break;
		case 'p':
			if (ft_parse_size(optarg, &c->bench.page_size) ||
			    !ft_is_pow2(c->bench.page_size)) {
				ft_err("tune: bad --page-size '%s'", optarg);
				return -1;
			}
			break;
		case 'S':
			if (ft_parse_u64(optarg, &v)) {
				ft_err("tune: bad --seed '%s'", optarg);
				return -1;
			}
			c->seed = (unsigned int)v;
			break;
		case 'n':
			c->trace = 0;
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
		case 1:
			c->plot = optarg;
			break;
		case 2:
			c->knob = optarg;
			break;
		case 'h':
			tune_usage(stdout);
			return 1;
		default:
			ft_err("tune: unknown or incomplete option '%s'",
			       argv[optind - 1]);
			tune_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		ft_err("tune: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	c->bench.threads[0] = c->threads;
	c->bench.nthreads = 1;
	if (c->bench.size < c->bench.page_size) {
		ft_err("tune: --size is smaller than one huge page");
		return -1;
	}
	return 0;
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

/* one measured (or warm-up) run at one size */
static int run_one(struct tune_ctx *c, struct size_result *sr, int measured)
{
	struct ft_bench_result br;
	struct ft_capture *cap = NULL;
	struct ft_analysis a;
	uint64_t lost = 0;
	int ret;

	if (knob_write(c->knob, sr->size)) {
		ft_err("cannot set %s to %u: %s", c->knob, sr->size,
		       strerror(errno));
		return -1;
	}
	if (c->trace && measured) {
		cap = ft_capture_start(&c->fi, c->tmpfile);
		if (!cap || tracefs_trace_on(c->fi.inst))
			return -1;
		ft_inst_marker(&c->fi, "faulttune: phase=tune size=%u", sr->size);
	}
	ret = ft_bench_run(&c->bench, c->threads, &br);
	c->runs++;
	if (cap) {
		if (ft_capture_finish(cap, &lost))
			return -1;
	}
	if (ret || ft_stop || !measured)
		return ret;
	ft_vec_push(&sr->tput, (uint64_t)(br.faults / br.wall * 1000.0));
	sr->faults += br.faults;
	if (cap) {
		ft_analysis_init(&a);
		if (ft_read_tracedat(c->tmpfile, &a) == 0) {
			sr->traced = 1;
			sr->acq += a.hall.acq;
			sr->contended += a.hall.contended;
			sr->collisions += a.hall.collisions;
			sr->sharing += a.hall.sharing;
			sr->coll_wait += a.hall.coll_wait;
			sr->wait_total += a.hall.wait_total + a.call.wait_total;
			sr->lost += lost + a.lost_events;
			if (!a.nev[FT_LK_HUGETLB])
				sr->contended += a.call.contended;
		}
		if (!c->have_ref && sr->size == c->saved && a.nholds) {
			c->ref = a;	/* kept for the what-if replay */
			c->have_ref = 1;
			c->ref_thread_ns = br.wall * 1e9 * c->threads;
			return 0;
		}
		ft_analysis_free(&a);
	}
	return 0;
}

static void summarize(struct size_result *sr)
{
	size_t n = sr->tput.n;

	ft_percentile(&sr->tput, 50);	/* sorts */
	if (!n)
		sr->tput_med = 0;
	else if (n & 1)
		sr->tput_med = sr->tput.v[n / 2] / 1000.0;
	else
		sr->tput_med = (sr->tput.v[n / 2 - 1] + sr->tput.v[n / 2]) / 2000.0;
	sr->tput_min = ft_percentile(&sr->tput, 0) / 1000.0;
	sr->tput_max = ft_percentile(&sr->tput, 100) / 1000.0;
}

static void print_chart(struct tune_ctx *c, int best, int rec)
{
	double max = 0;
	int i, j;

	for (i = 0; i < c->nres; i++)
		if (c->res[i].tput_max > max)
			max = c->res[i].tput_max;
	if (max <= 0)
		return;
	printf("\nmedian faults/wall-s by table size (# median, - up to the max run)\n");
	for (i = 0; i < c->nres; i++) {
		struct size_result *s = &c->res[i];
		int len = (int)(s->tput_med * 50 / max + 0.5);
		int lo = (int)(s->tput_min * 50 / max + 0.5);
		int hi = (int)(s->tput_max * 50 / max + 0.5);

		if (!s->tput.n) {
			printf("%8u   (skipped by the what-if plan)\n", s->size);
			continue;
		}
		printf("%8u %c ", s->size, i == rec ? '>' : ' ');
		for (j = 0; j <= hi && j <= 50; j++)
			putchar(j < len ? '#' : (j >= lo && j <= hi) ? '-' : ' ');
		printf(" %.0f%s%s\n", s->tput_med, i == rec ? "  recommended" : "",
		       i == best ? "  best" : "");
	}
}

static void do_plot(struct tune_ctx *c, int rec)
{
	char dat[] = "/tmp/faulttune-tune-XXXXXX";
	const char *ext = strrchr(c->plot, '.');
	char cmd[4096];
	FILE *f;
	int fd, i;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		ft_err("--plot: gnuplot is not installed (apt-get install gnuplot-nox)");
		return;
	}
	fd = mkstemp(dat);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return;
	for (i = 0; i < c->nres; i++)
		if (c->res[i].tput.n)
			fprintf(f, "%u %f %f %f %llu\n", c->res[i].size,
				c->res[i].tput_med, c->res[i].tput_min,
				c->res[i].tput_max,
				(unsigned long long)(c->res[i].faults ?
				c->res[i].coll_wait / c->res[i].faults : 0));
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "gnuplot -e \"set terminal %s; set output '%s'; set logscale x 2; "
		 "set xlabel 'num_fault_mutexes'; set ylabel 'faults/wall-s'; "
		 "set y2label 'collision wait per fault (ns)'; set y2tics; "
		 "set arrow from %u, graph 0 to %u, graph 1 nohead dt 2; "
		 "plot '%s' using 1:2:3:4 with yerrorlines title 'median faults/s', "
		 "'' using 1:5 axes x1y2 with linespoints title 'collision wait/fault'\"",
		 ext && !strcmp(ext, ".png") ? "pngcairo" : "svg", c->plot,
		 c->res[rec].size, c->res[rec].size, dat);
	if (system(cmd))
		ft_err("--plot: gnuplot failed");
	unlink(dat);
}

/* predicted collisions of every size from the reference run's hashes */
static void predict(struct tune_ctx *c)
{
	struct ft_whatif_row *w;
	int n, i, j;

	if (!c->have_ref)
		return;
	n = ft_whatif(&c->ref, c->res[c->nres - 1].size, &w);
	for (i = 0; i < n; i++)
		for (j = 0; j < c->nres; j++)
			if (c->res[j].size == w[i].size) {
				c->res[j].pred_coll = w[i].collisions;
				c->res[j].pred_coll_wait = w[i].coll_wait_ns;
				c->res[j].predicted = 1;
			}
	free(w);
}

static void report(struct tune_ctx *c)
{
	int i, best = 0, rec = -1, prev, nmeas = 0;
	double spread = 0, below = 0;
	char b[32];
	const char *conf;

	predict(c);
	for (i = 0; i < c->nres; i++)
		summarize(&c->res[i]);
	while (best < c->nres - 1 && !c->res[best].tput.n)
		best++;
	for (i = 0; i < c->nres; i++)
		if (c->res[i].tput.n && c->res[i].tput_med > c->res[best].tput_med)
			best = i;
	for (i = 0; i < c->nres && rec < 0; i++)
		if (c->res[i].tput.n && c->res[i].tput_med >=
		    c->res[best].tput_med * (1 - c->margin / 100.0))
			rec = i;
	if (rec < 0)
		rec = best;
	for (prev = rec - 1; prev >= 0 && !c->res[prev].tput.n; prev--)
		;
	/* run-to-run spread: median over sizes of (max - min) / median */
	{
		struct ft_vec sp = { 0 };

		for (i = 0; i < c->nres; i++)
			if (c->res[i].tput_med > 0)
				ft_vec_push(&sp, (uint64_t)(1e4 *
					(c->res[i].tput_max - c->res[i].tput_min) /
					c->res[i].tput_med));
		spread = ft_percentile(&sp, 50) / 100.0;
		ft_vec_free(&sp);
	}
	for (i = 0; i < c->nres; i++)
		nmeas += c->res[i].tput.n > 0;
	if (prev >= 0)
		below = 100.0 * (1 - c->res[prev].tput_med /
				 c->res[rec].tput_med);
	if (rec == 0)
		conf = "the smallest size swept is already within the margin: "
		       "this workload does not need a bigger table";
	else if (prev < 0)
		conf = "medium: the sizes below the recommended one were not "
		       "measured, the what-if replay predicts they lose more "
		       "than twice the margin";
	else if (below > c->margin &&
		 c->res[rec].tput_min > c->res[prev].tput_max)
		conf = "high: every run at the recommended size beat every run "
		       "at half of it, by more than the margin";
	else
		conf = "low: runs at the recommended size and at half of it "
		       "overlap; use more --reps or a larger --size";
	c->apply_value = c->res[rec].size;

	if (c->fmt == FT_FMT_JSON) {
		printf("{\"knob\":");
		ft_json_str(stdout, c->knob);
		printf(",\"saved\":%u,\"threads\":%d,\"reps\":%d,\"warmup\":%d,"
		       "\"seed\":%u,\"margin_pct\":%.2f,\"traced\":%s,"
		       "\"mode\":\"%s\",\"runs\":%d,\"sizes_measured\":%d,"
		       "\"wall_s\":%.3f,\"sizes\":[",
		       c->saved, c->threads, c->reps, c->warmup, c->seed,
		       c->margin, c->trace ? "true" : "false",
		       c->full || !c->trace ? "full" : "what-if plan", c->runs,
		       nmeas, c->wall_s);
		for (i = 0; i < c->nres; i++) {
			struct size_result *s = &c->res[i];

			printf("%s{\"size\":%u,\"memory_bytes\":%llu,\"runs\":%zu,"
			       "\"measured\":%s,"
			       "\"faults_per_wall_s_median\":%.1f,\"min\":%.1f,"
			       "\"max\":%.1f,\"acquisitions\":%llu,\"contended\":%llu,"
			       "\"collisions\":%llu,\"sharing\":%llu,"
			       "\"collision_wait_ns\":%llu,\"lost_events\":%llu,"
			       "\"predicted_collisions\":%lld,"
			       "\"predicted_collision_wait_ns\":%lld}",
			       i ? "," : "", s->size,
			       (unsigned long long)s->size * FT_MUTEX_BYTES,
			       s->tput.n, s->tput.n ? "true" : "false", s->tput_med, s->tput_min, s->tput_max,
			       (unsigned long long)s->acq,
			       (unsigned long long)s->contended,
			       (unsigned long long)s->collisions,
			       (unsigned long long)s->sharing,
			       (unsigned long long)s->coll_wait,
			       (unsigned long long)s->lost,
			       s->predicted ? (long long)s->pred_coll : -1LL,
			       s->predicted ? (long long)s->pred_coll_wait : -1LL);
		}
		printf("],\"best\":%u,\"recommended\":%u,\"spread_pct\":%.1f,"
		       "\"confidence\":", c->res[best].size, c->res[rec].size, spread);
		ft_json_str(stdout, conf);
		printf(",\"boot_parameter\":\"hugetlb_fault_mutexes=%u\","
		       "\"applied\":%s}\n", c->res[rec].size,
		       c->apply ? "true" : "false");
		return;
	}
	printf("\nfaulttune tune: workload threads, %d threads, %llu MB, %d runs "
	       "per size + %d warm-up, seed %u\n", c->threads,
	       (unsigned long long)(c->bench.size >> 20), c->reps, c->warmup,
	       c->seed);
	printf("%s: %d of %d sizes measured, %d runs, %.1f s\n",
	       c->full || !c->trace ? "full sweep" : "what-if plan", nmeas,
	       c->nres, c->runs, c->wall_s);
	printf("%8s %9s %12s %12s %12s %9s %9s %9s %11s %8s %9s\n", "size",
	       "memory", "faults/s", "min", "max", "vs best", "cont/run",
	       "coll/run", "coll_wait/f", "lost", "pred/run");
	for (i = 0; i < c->nres; i++) {
		struct size_result *s = &c->res[i];

		if (!s->tput.n) {
			printf("%8u %8lluB %12s %12s %12s %9s %9s %9s %11s %8s", s->size,
			       (unsigned long long)s->size * FT_MUTEX_BYTES,
			       "skipped", "-", "-", "-", "-", "-", "-", "-");
			if (s->predicted)
				printf(" %9llu", (unsigned long long)s->pred_coll);
			else
				printf(" %9s", "-");
			printf("\n");
			continue;
		}
		printf("%8u %8lluB %12.0f %12.0f %12.0f %8.1f%% ", s->size,
		       (unsigned long long)s->size * FT_MUTEX_BYTES, s->tput_med,
		       s->tput_min, s->tput_max,
		       100.0 * (s->tput_med / c->res[best].tput_med - 1));
		if (s->traced)
			printf("%9.1f %9.1f %11s %8llu",
			       s->tput.n ? (double)s->contended / s->tput.n : 0.0,
			       s->tput.n ? (double)s->collisions / s->tput.n : 0.0,
			       ft_fmt_ns(s->faults ? s->coll_wait / s->faults : 0,
					 b, sizeof(b)),
			       (unsigned long long)s->lost);
		else
			printf("%9s %9s %11s %8s", "-", "-", "-", "-");
		if (s->predicted)
			printf(" %9llu", (unsigned long long)s->pred_coll);
		else
			printf(" %9s", "-");
		printf("%s\n", i == rec ? "  <- recommended" : "");
	}
	print_chart(c, best, rec);
	printf("\nbest median throughput at %u; recommended: %u, the smallest size "
	       "within %.1f%% of it (memory %llu bytes, %+lld vs the current %u)\n",
	       c->res[best].size, c->res[rec].size, c->margin,
	       (unsigned long long)c->res[rec].size * FT_MUTEX_BYTES,
	       ((long long)c->res[rec].size - c->saved) * FT_MUTEX_BYTES,
	       c->saved);
	printf("run-to-run spread %.1f%%; confidence %s\n", spread, conf);
	if (c->have_ref)
		printf("pred/run: collisions per run predicted by replaying the "
		       "hashes of one run at the current size %u (what-if)\n",
		       c->saved);
	printf("boot parameter: hugetlb_fault_mutexes=%u\n", c->res[rec].size);
	printf("now:            echo %u > %s\n", c->res[rec].size, c->knob);
	if (c->plot)
		do_plot(c, rec);
}

int cmd_tune(int argc, char **argv)
{
	struct tune_ctx c;
	int ret, i, r, n, nm, probe = -1, *order = NULL, exit_code = 1;
	struct timespec t0, t1;
	uint32_t size, maxs;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *term = getenv("TERM");
	int tty = isatty(2) && !(term && !strcmp(term, "dumb"));

	memset(&c, 0, sizeof(c));
	ret = parse_tune(argc, argv, &c);
	if (ret)
		return ret < 0 ? 2 : 0;
	if (geteuid()) {
		ft_err("tune needs root (it writes %s)", c.knob);
		return 1;
	}
	if (access(c.knob, F_OK)) {
		if (access("/sys/kernel/debug/hugetlb", F_OK) &&
		    access("/sys/kernel/debug/tracing", F_OK) &&
		    !strcmp(c.knob, KNOB))
			ft_err("%s not found: debugfs is not mounted (mount -t "
			       "debugfs none /sys/kernel/debug) or the kernel lacks "
			       "the patch 'hugetlb: resizable fault mutex table "
			       "with a debugfs knob'", c.knob);
		else
			ft_err("%s not found: kernel without the patch 'hugetlb: "
			       "resizable fault mutex table with a debugfs knob'",
			       c.knob);
		return 1;
	}
	if (knob_read(c.knob, &c.saved)) {
		ft_err("cannot read %s", c.knob);
		return 1;
	}
	c.saved_valid = 1;
	/*
	 * Before tune_restore is registered: a tracefs mounted here is
	 * unmounted by an atexit handler, and handlers run in reverse, so
	 * tune_restore must come later to run first.
	 */
	if (c.trace && ft_tracefs_check())
		return 1;
	restore_ctx = &c;
	atexit(tune_restore);
	ft_install_signals();

	if (ft_bench_check_pages(&c.bench, c.threads))
		goto out;
	if (c.trace) {
		ft_cleanup_stale(0);
		if (ft_inst_create(&c.fi, 0))
			goto out;
		c.have_inst = 1;
		if (ft_inst_enable(&c.fi, c.fmt != FT_FMT_TEXT))
			goto out;
		snprintf(c.tmpfile, sizeof(c.tmpfile), "/tmp/faulttune-tune-%d.dat",
			 getpid());
	}

	/* candidate sizes: powers of two from 1 to 4x the current size */
	maxs = c.max_size;
	if (!maxs) {
		uint32_t def = 1;

		while (def < 8 * (ncpu > 0 ? ncpu : 1))
			def <<= 1;
		maxs = 4 * (c.saved > def ? c.saved : def);
		if (!ft_is_pow2(maxs)) {
			maxs = 1;
			while (maxs < 4 * c.saved)
				maxs <<= 1;
		}
	}
	for (size = 1, n = 0; size && size <= maxs; size <<= 1)
		n++;
	c.res = calloc(n, sizeof(*c.res));
	order = calloc(n, sizeof(*order));
	if (!c.res || !order)
		goto out;
	for (i = 0, size = 1; i < n; i++, size <<= 1)
		c.res[i].size = size;
	c.nres = n;

	if (c.fmt == FT_FMT_TEXT)
		fprintf(stderr, "faulttune: %s %s over 1..%u (%d sizes x %d "
			"runs, %d threads; current %u, restored at exit%s)\n",
			c.full || !c.trace ? "sweeping" : "tuning", c.knob, maxs,
			n, c.reps, c.threads, c.saved,
			c.apply ? " unless --apply" : "");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < c.warmup && !ft_stop; i++) {
		struct size_result w = { .size = c.saved };

		if (run_one(&c, &w, 0))
			goto out;
	}
	for (i = 0; i < n; i++)
		c.res[i].measure = 1;
	nm = n;
	if (!c.full && c.trace && !ft_stop) {
		/*
		 * The plan: one traced run at the current size, replayed
		 * through every size (what-if), tells which sizes cannot be
		 * told apart from the largest (their predicted collision
		 * wait is within half the margin of its) and which lose too
		 * much to be recommended; only the sizes between are
		 * measured, and the current size.  The probe counts as a run
		 * of the current size.
		 */
		struct size_result tmp = { .size = c.saved };
		struct ft_whatif_row *w = NULL;
		int *plan = calloc(n, sizeof(*plan)), np;

		for (i = 0; i < n; i++)
			if (c.res[i].size == c.saved)
				probe = i;
		if (!plan || run_one(&c, probe >= 0 ? &c.res[probe] : &tmp, 1)) {
			free(plan);
			ft_vec_free(&tmp.tput);
			goto out;
		}
		ft_vec_free(&tmp.tput);
		np = c.have_ref ? ft_whatif(&c.ref, maxs, &w) : -1;
		if (np == n && ft_tune_plan(w, n, c.ref_thread_ns, c.margin,
					    plan) >= 2) {
			for (i = 0, nm = 0; i < n; i++) {
				c.res[i].measure = plan[i];
				nm += plan[i];
			}
		}
		/*
		 * The current size is always measured: a recommendation to
		 * change the table must be weighed against the table the
		 * machine has now, not only against a prediction of it.
		 */
		if (probe >= 0 && !c.res[probe].measure) {
			c.res[probe].measure = 1;
			nm++;
		}
		free(w);
		free(plan);
		if (c.fmt == FT_FMT_TEXT) {
			fprintf(stderr, "faulttune: what-if plan from one run at %u: "
				"measuring", c.saved);
			for (i = 0; i < n; i++)
				if (c.res[i].measure)
					fprintf(stderr, " %u", c.res[i].size);
			fprintf(stderr, " (%d of %d sizes; --full for all)\n", nm, n);
		}
	}
	for (r = 0; r < c.reps && !ft_stop; r++) {
		int k = 0;

		for (i = 0; i < n; i++)
			if (c.res[i].measure && !(r == 0 && i == probe))
				order[k++] = i;
		for (i = k - 1; i > 0; i--) {
			int j = rnd(&c.seed) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < k && !ft_stop; i++) {
			if (tty && c.fmt == FT_FMT_TEXT)
				fprintf(stderr, "\r  run %d/%d: size %-8u", c.runs + 1,
					nm * c.reps + c.warmup, c.res[order[i]].size);
			if (run_one(&c, &c.res[order[i]], 1))
				goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c.wall_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (tty && c.fmt == FT_FMT_TEXT)
		fprintf(stderr, "\r%40s\r", "");
	if (ft_stop) {
		ft_err("tune: interrupted by signal %d, no recommendation",
		       ft_stop_sig);
		c.apply = 0;
		exit_code = 130;
		goto out;
	}
	report(&c);
	exit_code = 0;
out:
	if (exit_code)
		c.apply = 0;
	tune_restore();
	if (c.have_ref)
		ft_analysis_free(&c.ref);
	for (i = 0; c.res && i < c.nres; i++)
		ft_vec_free(&c.res[i].tput);
	free(c.res);
	free(order);
	return exit_code;
}
