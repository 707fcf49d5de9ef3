// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune report: per-op and per-bucket tables, collisions vs true
 * sharing, lost and unpaired events, and the what-if table.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faulttune.h"

static void report_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune report [options] [FILE]\n"
"  FILE               trace.dat to analyse (default: trace.dat)\n"
"  -t, --top N        buckets / lock addresses to list (default 10)\n"
"  -m, --max-size N   largest power-of-two size in the what-if table\n"
"                     (default: 4x the largest table size recorded, >= 64)\n"
"  -j, --json         JSON output\n"
"  -c, --csv          CSV output\n"
"  -p, --plot FILE    draw the what-if curve with gnuplot (.svg or .png)\n"
"      --threads T    recommendation for T faulting threads (tune's model)\n"
"      --target PCT   its collision wait target, percent of fault time\n"
"  -h, --help\n");
}

int ft_report_parse_args(int argc, char **argv, struct ft_report_opts *o)
{
	static const struct option lo[] = {
		{ "top", required_argument, NULL, 't' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "threads", required_argument, NULL, 1 },
		{ "target", required_argument, NULL, 2 },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->file = "trace.dat";
	o->top = 10;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+t:m:jcp:h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (ft_parse_u64(optarg, &v) || v > 1000000) {
				ft_err("report: bad --top value '%s'", optarg);
				return -1;
			}
			o->top = (int)v;
			break;
		case 'm':
			if (ft_parse_u64(optarg, &v) || !ft_is_pow2(v) ||
			    v > (1u << 24)) {
				ft_err("report: --max-size wants a power of two "
				       "up to 16777216, got '%s'", optarg);
				return -1;
			}
			o->max_size = (uint32_t)v;
			break;
		case 'j':
			o->fmt = FT_FMT_JSON;
			break;
		case 'c':
			o->fmt = FT_FMT_CSV;
			break;
		case 'p':
			o->plot = optarg;
			break;
		case 1:
			if (ft_parse_u64(optarg, &v) || !v || v > 65536) {
				ft_err("report: --threads wants 1 to 65536, got '%s'",
				       optarg);
				return -1;
			}
			o->threads = (int)v;
			break;
		case 2:
			o->target = strtod(optarg, &end);
			if (end == optarg || *end || !(o->target > 0 &&
						       o->target < 100)) {
				ft_err("report: --target wants a percentage in "
				       "(0, 100), got '%s'", optarg);
				return -1;
			}
			break;
		case 'h':
			report_usage(stdout);
			return 1;
		default:
			ft_err("report: unknown or incomplete option '%s'",
			       argv[optind - 1]);
			report_usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->file = argv[optind++];
	if (optind < argc) {
		ft_err("report: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

struct row {
	const char *name;
	struct ft_stats *st;
};

static uint32_t whatif_max(const struct ft_analysis *a,
			   const struct ft_report_opts *o)
{
	uint32_t m;

	if (o->max_size)
		return o->max_size;
	m = a->max_nbuckets ? a->max_nbuckets * 4 : 64;
	if (m < 64)
		m = 64;
	if (m > (1u << 24))
		m = 1u << 24;
	return m;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0.0;
}

static void text_header(FILE *f, const char *first)
{
	fprintf(f, "%-12s %9s %9s %6s %8s %8s %8s %10s %9s %9s %9s %9s %9s %9s\n",
		first, "acq", "contended", "cont%", "collide", "share",
		"unknown", "wait_tot", "wait_p50", "wait_p90", "wait_p99",
		"wait_max", "hold_p50", "hold_p99");
}

/* cls: print the collision / sharing split (hugetlb only) */
static void text_row_cls(FILE *f, const char *name, struct ft_stats *s, int cls)
{
	char b[8][32], c[3][24];

	if (cls) {
		snprintf(c[0], 24, "%llu", (unsigned long long)s->collisions);
		snprintf(c[1], 24, "%llu", (unsigned long long)s->sharing);
		snprintf(c[2], 24, "%llu", (unsigned long long)s->unknown);
	} else {
		strcpy(c[0], "-");
		strcpy(c[1], "-");
		strcpy(c[2], "-");
	}
	fprintf(f, "%-12s %9llu %9llu %5.1f%% %8s %8s %8s %10s %9s %9s %9s %9s %9s %9s\n",
		name, (unsigned long long)s->acq,
		(unsigned long long)s->contended, pct(s->contended, s->acq),
		c[0], c[1], c[2],
		ft_fmt_ns(s->wait_total, b[0], 32),
		ft_fmt_ns(ft_percentile(&s->wait, 50), b[1], 32),
		ft_fmt_ns(ft_percentile(&s->wait, 90), b[2], 32),
		ft_fmt_ns(ft_percentile(&s->wait, 99), b[3], 32),
		ft_fmt_ns(s->wait_max, b[4], 32),
		ft_fmt_ns(ft_percentile(&s->hold, 50), b[5], 32),
		ft_fmt_ns(ft_percentile(&s->hold, 99), b[6], 32));
}

static void text_row(FILE *f, const char *name, struct ft_stats *s)
{
	text_row_cls(f, name, s, 1);
}

static void json_stats(FILE *f, const char *name, struct ft_stats *s)
{
	fputs("{\"name\":", f);
	ft_json_str(f, name);
	fprintf(f, ",\"acquisitions\":%llu,\"contended\":%llu,"
		"\"collisions\":%llu,\"sharing\":%llu,\"unknown\":%llu,"
		"\"wait_total_ns\":%llu,\"wait_p50_ns\":%llu,\"wait_p90_ns\":%llu,"
		"\"wait_p99_ns\":%llu,\"wait_max_ns\":%llu,"
		"\"collision_wait_ns\":%llu,\"sharing_wait_ns\":%llu,"
		"\"releases\":%llu,\"hold_p50_ns\":%llu,\"hold_p99_ns\":%llu}",
		(unsigned long long)s->acq, (unsigned long long)s->contended,
		(unsigned long long)s->collisions,
		(unsigned long long)s->sharing, (unsigned long long)s->unknown,
		(unsigned long long)s->wait_total,
		(unsigned long long)ft_percentile(&s->wait, 50),
		(unsigned long long)ft_percentile(&s->wait, 90),
		(unsigned long long)ft_percentile(&s->wait, 99),
		(unsigned long long)s->wait_max,
		(unsigned long long)s->coll_wait,
		(unsigned long long)s->share_wait,
		(unsigned long long)s->releases,
		(unsigned long long)ft_percentile(&s->hold, 50),
		(unsigned long long)ft_percentile(&s->hold, 99));
}

static void csv_stats(FILE *f, const char *section, const char *name,
		      struct ft_stats *s)
{
	fprintf(f, "%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
		section, name, (unsigned long long)s->acq,
		(unsigned long long)s->contended,
		(unsigned long long)s->collisions,
		(unsigned long long)s->sharing, (unsigned long long)s->unknown,
		(unsigned long long)s->wait_total,
		(unsigned long long)ft_percentile(&s->wait, 50),
		(unsigned long long)ft_percentile(&s->wait, 90),
		(unsigned long long)ft_percentile(&s->wait, 99),
		(unsigned long long)s->wait_max,
		(unsigned long long)ft_percentile(&s->hold, 50),
		(unsigned long long)ft_percentile(&s->hold, 99));
}

static int cmp_bucket(const void *x, const void *y)
{
	const struct ft_bucket_stats *a = *(void * const *)x;
	const struct ft_bucket_stats *b = *(void * const *)y;

	if (a->st.wait_total != b->st.wait_total)
		return a->st.wait_total < b->st.wait_total ? 1 : -1;
	if (a->st.acq != b->st.acq)
		return a->st.acq < b->st.acq ? 1 : -1;
	if (a->nbuckets != b->nbuckets)
		return a->nbuckets < b->nbuckets ? -1 : 1;
	return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

static int cmp_lockaddr(const void *x, const void *y)
{
	const struct ft_lockaddr_stats *a = *(void * const *)x;
	const struct ft_lockaddr_stats *b = *(void * const *)y;

	if (a->st.wait_total != b->st.wait_total)
		return a->st.wait_total < b->st.wait_total ? 1 : -1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* map values sorted by cmp; caller frees the array */
static void **sorted_vals(struct ft_map *m, int (*cmp)(const void *, const void *))
{
	void **v = calloc(m->n + 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < m->cap; i++)
		if (m->vals[i])
			v[n++] = m->vals[i];
	qsort(v, n, sizeof(*v), cmp);
	return v;
}

static void text_chart(FILE *f, struct ft_whatif_row *w, int n, uint32_t cur)
{
	uint64_t max = 0;
	int i, j, width = 50;
	char b[32];

	for (i = 0; i < n; i++)
		if (w[i].coll_wait_ns > max)
			max = w[i].coll_wait_ns;
	fprintf(f, "\npredicted collision wait by table size%s\n",
		max ? "" : " (no collisions predicted at any size)");
	if (!max)
		return;
	for (i = 0; i < n; i++) {
		int len = (int)((double)w[i].coll_wait_ns * width / max + 0.5);

		fprintf(f, "%8u %c|", w[i].size, w[i].size == cur ? '*' : ' ');
		for (j = 0; j < len; j++)
			fputc('#', f);
		fprintf(f, " %s\n", ft_fmt_ns(w[i].coll_wait_ns, b, sizeof(b)));
	}
	if (cur)
		fprintf(f, "         * = recorded table size\n");
}

static int plot(const char *file, struct ft_whatif_row *w, int n)
{
	char dat[] = "/tmp/faulttune-plot-XXXXXX";
	const char *ext = strrchr(file, '.');
	const char *term = (ext && !strcmp(ext, ".png")) ? "pngcairo" : "svg";
	char cmd[4096];
	FILE *f;
	int fd, i, ret;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		ft_err("--plot: gnuplot is not installed (apt-get install gnuplot-nox)");
		return -1;
	}
	fd = mkstemp(dat);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ft_err("--plot: cannot create a temporary file");
		return -1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%u %llu %llu\n", w[i].size,
			(unsigned long long)w[i].collisions,
			(unsigned long long)w[i].coll_wait_ns);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "gnuplot -e \"set terminal %s; set output '%s'; set logscale x 2; "
		 "set xlabel 'table size (mutexes)'; set ylabel 'collision wait (ns)'; "
		 "set y2label 'collisions'; set y2tics; "
		 "plot '%s' using 1:3 with linespoints title 'predicted collision wait', "
		 "'' using 1:2 axes x1y2 with linespoints title 'predicted collisions'\"",
		 term, file, dat);
	ret = system(cmd);
	unlink(dat);
	if (ret) {
		ft_err("--plot: gnuplot failed");
		return -1;
	}
	return 0;
}

static uint32_t recorded_size(const struct ft_analysis *a)
{
	int i;

	for (i = 31; i >= 0; i--)
		if (a->nbuckets_seen[i])
			return a->nbuckets_seen[i];
	return 0;
}

void ft_report_print(FILE *f, struct ft_analysis *a,
		     const struct ft_report_opts *o)
{
	struct ft_whatif_row *w = NULL;
	int nw = 0, i, top = o->top;
	void **bk = NULL, **la = NULL;
	uint32_t cur = recorded_size(a);
	char b[8][32];
	int nbk = 0, nla = 0;

	if (a->nev[FT_LK_HUGETLB])
		nw = ft_whatif(a, whatif_max(a, o), &w);
	if (nw < 0)
		nw = 0;
	bk = sorted_vals(&a->buckets, cmp_bucket);
	la = sorted_vals(&a->lockaddrs, cmp_lockaddr);
	nbk = a->buckets.n < (size_t)top ? (int)a->buckets.n : top;
	nla = a->lockaddrs.n < (size_t)top ? (int)a->lockaddrs.n : top;

	if (o->fmt == FT_FMT_JSON) {
		fputs("{\"file\":", f);
		ft_json_str(f, o->file);
		fprintf(f, ",\"events\":{\"hugetlb\":%llu,\"memtype\":%llu,"
			"\"lock_contention\":%llu,\"markers\":%llu,\"resizes\":%llu},"
			"\"lost_events\":%llu,\"lost_unknown_pages\":%llu,"
			"\"unpaired\":{\"start\":%llu,\"acquire\":%llu,"
			"\"release\":%llu,\"key_mismatch\":%llu,\"open_at_end\":%llu,"
			"\"acquire_without_start\":%llu},"
			"\"hash_mismatch\":%llu,\"jhash_mismatch\":%llu,"
			"\"table_size\":%u,\"duration_ns\":%llu",
			(unsigned long long)a->nev[FT_LK_HUGETLB],
			(unsigned long long)a->nev[FT_LK_MEMTYPE],
			(unsigned long long)a->nev[FT_LK_CONTENTION],
			(unsigned long long)a->markers,
			(unsigned long long)a->resizes,
			(unsigned long long)a->lost_events,
			(unsigned long long)a->lost_unknown,
			(unsigned long long)a->unpaired_start,
			(unsigned long long)a->unpaired_acquire,
			(unsigned long long)a->unpaired_release,
			(unsigned long long)a->key_mismatch,
			(unsigned long long)a->open_at_end,
			(unsigned long long)a->acquire_nostart,
			(unsigned long long)a->hash_mismatch,
			(unsigned long long)a->jhash_mismatch, cur,
			(unsigned long long)(a->last_ts - a->first_ts));
		if (a->resizes) {
			struct ft_resize_cost rc;

			ft_resize_cost(a, &rc);
			fprintf(f, ",\"resize\":{\"resizes\":%llu,"
				"\"duration_median_ns\":%llu,\"duration_max_ns\":%llu,"
				"\"fault_median_ns\":%llu,\"overlapping\":%llu,"
				"\"others\":%llu,"
				"\"stall_median_ns\":%llu,\"stall_max_ns\":%llu,"
				"\"other_wait_p99_ns\":%llu,\"other_wait_max_ns\":%llu}",
				(unsigned long long)rc.resizes,
				(unsigned long long)rc.dur_median,
				(unsigned long long)rc.dur_max,
				(unsigned long long)rc.fault_median,
				(unsigned long long)rc.overlapping,
				(unsigned long long)rc.others,
				(unsigned long long)rc.stall_median,
				(unsigned long long)rc.stall_max,
				(unsigned long long)rc.other_wait_p99,
				(unsigned long long)rc.other_wait_max);
		}
		fputs(",\"hugetlb\":{\"total\":", f);
		json_stats(f, "all", &a->hall);
		fputs(",\"ops\":[", f);
		for (i = 0; i < FT_HOP_NR; i++) {
			if (i)
				fputc(',', f);
			json_stats(f, ft_hop_name(i), &a->hop[i]);
		}
		fputs("],\"buckets\":[", f);
		for (i = 0; i < nbk; i++) {
			struct ft_bucket_stats *s = bk[i];
			char name[32];

			snprintf(name, sizeof(name), "%u/%u", s->bucket, s->nbuckets);
			if (i)
				fputc(',', f);
			json_stats(f, name, &s->st);
		}
		fputs("],\"whatif\":[", f);
		for (i = 0; i < nw; i++)
			fprintf(f, "%s{\"size\":%u,\"memory_bytes\":%llu,"
				"\"collisions\":%llu,\"collision_wait_ns\":%llu,"
				"\"sharing\":%llu,\"sharing_wait_ns\":%llu}",
				i ? "," : "", w[i].size,
				(unsigned long long)w[i].mem_bytes,
				(unsigned long long)w[i].collisions,
				(unsigned long long)w[i].coll_wait_ns,
				(unsigned long long)w[i].sharing,
				(unsigned long long)w[i].share_wait_ns);
		fputs("],\"advice\":", f);
		ft_advice_report(f, a, o->threads, o->target, 1);
		fputs("},\"memtype\":{\"total\":", f);
		json_stats(f, "all", &a->mall);
		fputs(",\"ops\":[", f);
		for (i = 0; i < FT_MOP_NR; i++) {
			if (i)
				fputc(',', f);
			json_stats(f, ft_mop_name(i), &a->mop[i]);
		}
		fputs("]},\"lock_contention\":{\"total\":", f);
		json_stats(f, "all", &a->call);
		fputs(",\"locks\":[", f);
		for (i = 0; i < nla; i++) {
			struct ft_lockaddr_stats *s = la[i];
			char name[32];

			snprintf(name, sizeof(name), "0x%llx",
				 (unsigned long long)s->addr);
			if (i)
				fputc(',', f);
			json_stats(f, name, &s->st);
		}
		fputs("]}}\n", f);
		goto out;
	}

	if (o->fmt == FT_FMT_CSV) {
		fputs("section,name,acquisitions,contended,collisions,sharing,"
		      "unknown,wait_total_ns,wait_p50_ns,wait_p90_ns,wait_p99_ns,"
		      "wait_max_ns,hold_p50_ns,hold_p99_ns\n", f);
		if (a->nev[FT_LK_HUGETLB]) {
			csv_stats(f, "hugetlb_op", "all", &a->hall);
			for (i = 0; i < FT_HOP_NR; i++)
				csv_stats(f, "hugetlb_op", ft_hop_name(i), &a->hop[i]);
		}
		for (i = 0; i < nbk; i++) {
			struct ft_bucket_stats *s = bk[i];
			char name[32];

			snprintf(name, sizeof(name), "%u/%u", s->bucket, s->nbuckets);
			csv_stats(f, "hugetlb_bucket", name, &s->st);
		}
		if (a->nev[FT_LK_MEMTYPE]) {
			csv_stats(f, "memtype_op", "all", &a->mall);
			for (i = 0; i < FT_MOP_NR; i++)
				csv_stats(f, "memtype_op", ft_mop_name(i), &a->mop[i]);
		}
		for (i = 0; i < nla; i++) {
			struct ft_lockaddr_stats *s = la[i];
			char name[32];

			snprintf(name, sizeof(name), "0x%llx",
				 (unsigned long long)s->addr);
			csv_stats(f, "lock_addr", name, &s->st);
		}
		if (nw) {
			fputs("\nsize,memory_bytes,collisions,collision_wait_ns,"
			      "sharing,sharing_wait_ns\n", f);
			for (i = 0; i < nw; i++)
				fprintf(f, "%u,%llu,%llu,%llu,%llu,%llu\n", w[i].size,
					(unsigned long long)w[i].mem_bytes,
					(unsigned long long)w[i].collisions,
					(unsigned long long)w[i].coll_wait_ns,
					(unsigned long long)w[i].sharing,
					(unsigned long long)w[i].share_wait_ns);
		}
		goto out;
	}

	fprintf(f, "faulttune report: %s (%s of trace)\n", o->file,
		ft_fmt_ns(a->last_ts - a->first_ts, b[0], 32));
	fprintf(f, "events: hugetlb %llu, memtype %llu, lock:contention %llu, "
		"markers %llu, resizes %llu\n",
		(unsigned long long)a->nev[FT_LK_HUGETLB],
		(unsigned long long)a->nev[FT_LK_MEMTYPE],
		(unsigned long long)a->nev[FT_LK_CONTENTION],
		(unsigned long long)a->markers, (unsigned long long)a->resizes);
	fprintf(f, "lost events: %llu%s\n", (unsigned long long)a->lost_events,
		a->lost_unknown ? " (plus pages with an unknown number lost)" : "");
	fprintf(f, "unpaired: start %llu, acquire %llu, release %llu, "
		"key mismatch %llu; open at end of trace %llu\n",
		(unsigned long long)a->unpaired_start,
		(unsigned long long)a->unpaired_acquire,
		(unsigned long long)a->unpaired_release,
		(unsigned long long)a->key_mismatch,
		(unsigned long long)a->open_at_end);
	if (a->acquire_nostart)
		fprintf(f, "uncontended acquisitions without a start event (fast "
			"path not traced): %llu\n",
			(unsigned long long)a->acquire_nostart);
	if (a->lost_events || a->lost_unknown)
		fprintf(f, "WARNING: events were lost; pairing and classification "
			"are incomplete (use a bigger buffer: faulttune record -b KB)\n");
	if (a->hash_mismatch)
		fprintf(f, "WARNING: %llu events with bucket != hash & (nbuckets - 1)\n",
			(unsigned long long)a->hash_mismatch);

	if (a->jhash_mismatch)
		fprintf(f, "WARNING: %llu acquisitions whose hash is not "
			"jhash2(mapping, index): the what-if table assumes it is\n",
			(unsigned long long)a->jhash_mismatch);
	if (a->nev[FT_LK_HUGETLB]) {
		fprintf(f, "\nhugetlb fault mutexes: table size %u%s; waits are over "
			"contended acquisitions\n", cur,
			a->resizes ? " (resized during the trace)" : "");
		text_header(f, "op");
		for (i = 0; i < FT_HOP_NR; i++)
			if (a->hop[i].acq || a->hop[i].releases)
				text_row(f, ft_hop_name(i), &a->hop[i]);
		text_row(f, "all", &a->hall);
		if (a->resizes) {
			struct ft_resize_cost rc;
			double u;

			ft_resize_cost(a, &rc);
			u = rc.fault_median ? (double)rc.fault_median : 1;
			fprintf(f, "resizes: %llu, duration median %s max %s; a fault "
				"(request to release) median %s; %llu acquisitions "
				"waited during a resize, wait median %s max %s "
				"(%.2f faults); the others' wait p99 %s max %s\n",
				(unsigned long long)rc.resizes,
				ft_fmt_ns(rc.dur_median, b[0], 32),
				ft_fmt_ns(rc.dur_max, b[1], 32),
				ft_fmt_ns(rc.fault_median, b[2], 32),
				(unsigned long long)rc.overlapping,
				ft_fmt_ns(rc.stall_median, b[3], 32),
				ft_fmt_ns(rc.stall_max, b[4], 32), rc.stall_max / u,
				ft_fmt_ns(rc.other_wait_p99, b[5], 32),
				ft_fmt_ns(rc.other_wait_max, b[6], 32));
		}
		fprintf(f, "contended: %.1f%% collisions (fixable by table size, "
			"%s wait), %.1f%% true sharing (%s wait), %.1f%% unknown\n",
			pct(a->hall.collisions, a->hall.contended),
			ft_fmt_ns(a->hall.coll_wait, b[1], 32),
			pct(a->hall.sharing, a->hall.contended),
			ft_fmt_ns(a->hall.share_wait, b[2], 32),
			pct(a->hall.unknown, a->hall.contended));

		fprintf(f, "\nbuckets (top %d of %zu by wait)\n", nbk, a->buckets.n);
		text_header(f, "bucket/size");
		for (i = 0; i < nbk; i++) {
			struct ft_bucket_stats *s = bk[i];
			char name[32];

			snprintf(name, sizeof(name), "%u/%u", s->bucket, s->nbuckets);
			text_row(f, name, &s->st);
		}

		fprintf(f, "\nwhat-if: %zu recorded holds re-bucketed as hash & (N-1) "
			"(no queueing feedback)\n", a->nholds);
		fprintf(f, "%8s %10s %11s %12s %9s %12s\n", "size", "memory",
			"collisions", "coll_wait", "sharing", "share_wait");
		for (i = 0; i < nw; i++)
			fprintf(f, "%8u %9lluB %11llu %12s %9llu %12s%s\n", w[i].size,
				(unsigned long long)w[i].mem_bytes,
				(unsigned long long)w[i].collisions,
				ft_fmt_ns(w[i].coll_wait_ns, b[0], 32),
				(unsigned long long)w[i].sharing,
				ft_fmt_ns(w[i].share_wait_ns, b[1], 32),
				w[i].size == cur ? "  <- recorded" : "");
		text_chart(f, w, nw, cur);
		fputc('\n', f);
		ft_advice_report(f, a, o->threads, o->target, 0);
	}

	if (a->nev[FT_LK_MEMTYPE]) {
		fprintf(f, "\nmemtype_lock (x86 PAT)\n");
		text_header(f, "op");
		for (i = 0; i < FT_MOP_NR; i++)
			if (a->mop[i].acq || a->mop[i].releases)
				text_row_cls(f, ft_mop_name(i), &a->mop[i], 0);
		text_row_cls(f, "all", &a->mall, 0);
	}

	if (a->nev[FT_LK_CONTENTION]) {
		fprintf(f, "\nlock:contention_begin/end fallback (kernel without the "
			"faulttune events)\n"
			"  can attribute: wait time per lock address and lock type flags\n"
			"  cannot attribute: hugetlb bucket, (mapping, index) key, op, hold "
			"time, collisions vs true sharing, what-if\n");
		fprintf(f, "contended locks (top %d of %zu by wait)\n", nla,
			a->lockaddrs.n);
		text_header(f, "lock_addr");
		for (i = 0; i < nla; i++) {
			struct ft_lockaddr_stats *s = la[i];
			char name[32];

			snprintf(name, sizeof(name), "%llx", (unsigned long long)s->addr);
			text_row_cls(f, name, &s->st, 0);
		}
		text_row_cls(f, "all", &a->call, 0);
	}
out:
	if (o->plot && nw)
		plot(o->plot, w, nw);
	else if (o->plot)
		ft_err("--plot: no hugetlb events, nothing to plot");
	free(w);
	free(bk);
	free(la);
}

static int report_child(void *arg)
{
	struct ft_report_opts *o = arg;
	struct ft_analysis a;

	ft_analysis_init(&a);
	if (ft_read_tracedat(o->file, &a)) {
		ft_analysis_free(&a);
		return 1;
	}
	ft_report_print(stdout, &a, o);
	ft_analysis_free(&a);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct ft_report_opts o;
	int ret;

	ret = ft_report_parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	return ft_isolate(report_child, &o, o.file);
}
