// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune report's output: per-op and per-bucket tables, collisions vs
 * true sharing, lost and unpaired events, and the what-if, as text (the
 * verdict first, -v the tables), JSON or CSV, from an ft_analysis.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model.h"
#include "out.h"

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

/*
 * The statistics of one op, bucket or lock (struct ft_stats), described
 * once for the text table, the JSON objects and the CSV rows.
 */
enum { C_SECTION, C_NAME, C_FLAGS, C_ACQ, C_CONT, C_CONTPCT, C_COLL, C_SHARE,
       C_UNK, C_WTOT, C_W50, C_W90, C_W99, C_WMAX, C_CWAIT, C_SWAIT, C_REL,
       C_H50, C_H99, C_SIDE, C_EXTRA, C_NR };

static const struct ft_col stat_cols[C_NR] = {
	[C_SECTION] = { .csv = "section" },
	[C_NAME] = { .text = "", .width = -12, .json = "name", .csv = "name",
		     .json_early = 1 },
	[C_FLAGS] = { .json = "flags", .json_early = 1 },
	[C_ACQ] = { .text = "acq", .width = 9, .json = "acquisitions",
		    .csv = "acquisitions" },
	[C_CONT] = { .text = "contended", .width = 9, .json = "contended",
		     .csv = "contended" },
	[C_CONTPCT] = { .text = "cont%", .width = 6 },
	[C_COLL] = { .text = "collisions", .width = 10, .json = "collisions",
		     .csv = "collisions", .none_text = "-" },
	[C_SHARE] = { .text = "sharing", .width = 8, .json = "sharing",
		      .csv = "sharing", .none_text = "-" },
	[C_UNK] = { .text = "unknown", .width = 8, .json = "unknown",
		    .csv = "unknown", .none_text = "-" },
	[C_WTOT] = { .text = "wait_tot", .width = 10, .json = "wait_total_ns",
		     .csv = "wait_total_ns" },
	[C_W50] = { .text = "wait_p50", .width = 9, .json = "wait_p50_ns",
		    .csv = "wait_p50_ns" },
	[C_W90] = { .text = "wait_p90", .width = 9, .json = "wait_p90_ns",
		    .csv = "wait_p90_ns" },
	[C_W99] = { .text = "wait_p99", .width = 9, .json = "wait_p99_ns",
		    .csv = "wait_p99_ns" },
	[C_WMAX] = { .text = "wait_max", .width = 9, .json = "wait_max_ns",
		     .csv = "wait_max_ns" },
	[C_CWAIT] = { .json = "collision_wait_ns" },
	[C_SWAIT] = { .json = "sharing_wait_ns" },
	[C_REL] = { .json = "releases" },
	[C_H50] = { .text = "hold_p50", .width = 9, .json = "hold_p50_ns",
		    .csv = "hold_p50_ns" },
	[C_H99] = { .text = "hold_p99", .width = 9, .json = "hold_p99_ns",
		    .csv = "hold_p99_ns" },
	[C_SIDE] = { .json = "side" },
	[C_EXTRA] = { .text = "", .width = 0, .last = 1 },
};

/*
 * One row of stat_cols.  cls: the collision / sharing split is known
 * (hugetlb); hold: the events carry hold times (not lock:contention);
 * extra: the text's last column, or NULL; side, flags: JSON members, or
 * NULL.  A lock:contention row has its own JSON shape: no acquisitions,
 * no split, no releases.
 */
static void stat_row(FILE *f, enum ft_fmt fmt, const char *section,
		     const char *name, struct ft_stats *s, int cls, int hold,
		     const char *extra, const char *side, const char *flags)
{
	struct ft_cell v[C_NR];
	int lock = fmt == FT_FMT_JSON && !hold;

	v[C_SECTION] = FT_STR(section);
	v[C_NAME] = FT_STR(name);
	v[C_FLAGS] = flags ? FT_STR(flags) : FT_SKIP;
	v[C_ACQ] = lock ? FT_SKIP : FT_U64(s->acq);
	v[C_CONT] = FT_U64(s->contended);
	v[C_CONTPCT] = FT_PCT(pct(s->contended, s->acq));
	v[C_COLL] = lock ? FT_SKIP : cls ? FT_U64(s->collisions) : FT_NONE;
	v[C_SHARE] = lock ? FT_SKIP : cls ? FT_U64(s->sharing) : FT_NONE;
	v[C_UNK] = lock ? FT_SKIP : cls ? FT_U64(s->unknown) : FT_NONE;
	v[C_WTOT] = FT_NS(s->wait_total);
	v[C_W50] = FT_NS(ft_hist_percentile(&s->wait, 50));
	v[C_W90] = FT_NS(ft_hist_percentile(&s->wait, 90));
	v[C_W99] = FT_NS(ft_hist_percentile(&s->wait, 99));
	v[C_WMAX] = FT_NS(s->wait_max);
	v[C_CWAIT] = lock ? FT_SKIP : FT_NS(s->coll_wait);
	v[C_SWAIT] = lock ? FT_SKIP : FT_NS(s->share_wait);
	v[C_REL] = lock ? FT_SKIP : FT_U64(s->releases);
	v[C_H50] = hold ? FT_NS(ft_hist_percentile(&s->hold, 50)) : FT_NONE;
	v[C_H99] = hold ? FT_NS(ft_hist_percentile(&s->hold, 99)) : FT_NONE;
	v[C_SIDE] = side ? FT_STR(side) : FT_SKIP;
	v[C_EXTRA] = extra ? FT_STR(extra) : FT_SKIP;
	ft_table_row(f, fmt, stat_cols, C_NR, v);
}

/* extra: the title of a last column (the memtype side, the lock flags), or NULL */
static void text_header_x(FILE *f, const char *first, const char *extra)
{
	const char *titles[C_NR] = { [C_NAME] = first, [C_EXTRA] = extra };

	ft_table_header(f, stat_cols, C_NR, titles);
}

static void text_header(FILE *f, const char *first)
{
	text_header_x(f, first, NULL);
}

/*
 * lock:contention_begin's flags (LCB_F_* of include/trace/events/lock.h),
 * by name; unknown bits in hex
 */
static const char *lock_flags(uint32_t flags, char *buf, size_t len)
{
	static const char * const names[] = {
		"SPIN", "READ", "WRITE", "RT", "PERCPU", "MUTEX",
	};
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1u << i))
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "|" : "", names[i]);
	flags &= ~((1u << i) - 1);
	if (flags)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%#x",
			      n ? "|" : "", flags);
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

/*
 * cls: print the collision / sharing split (hugetlb only); hold: the
 * events carry hold times (not lock:contention); extra: a last column
 */
static void text_row_x(FILE *f, const char *name, struct ft_stats *s, int cls,
		       int hold, const char *extra)
{
	stat_row(f, FT_FMT_TEXT, NULL, name, s, cls, hold, extra, NULL, NULL);
}

static void text_row_cls(FILE *f, const char *name, struct ft_stats *s, int cls)
{
	text_row_x(f, name, s, cls, 1, NULL);
}

static void text_row(FILE *f, const char *name, struct ft_stats *s)
{
	text_row_cls(f, name, s, 1);
}

/* a lock:contention row: no hold times; flags, or NULL for a total */
static void json_contention(FILE *f, const char *name, struct ft_stats *s,
			    const char *flags)
{
	fputc('{', f);
	stat_row(f, FT_FMT_JSON, NULL, name, s, 0, 0, NULL, NULL, flags);
	fputc('}', f);
}

static void json_stats(FILE *f, const char *name, struct ft_stats *s)
{
	fputc('{', f);
	stat_row(f, FT_FMT_JSON, NULL, name, s, 1, 1, NULL, NULL, NULL);
	fputc('}', f);
}

/*
 * The side of memtype_lock an op takes once the lock is an rwlock (the
 * series' memtype read-lock patch): lookups and the debugfs list walk
 * read, reserve and free write.  The events carry no side; the op says it.
 */
static const char *memtype_side(unsigned int op)
{
	return op == FT_MOP_LOOKUP || op == FT_MOP_LIST ? "read" :
	       op == FT_MOP_RESERVE || op == FT_MOP_FREE ? "write" : "-";
}

#define MEMTYPE_SIDE_NOTE \
	"side: with the memtype read-lock patch, lookup and list hold " \
	"memtype_lock for reading (several at once), reserve and free for " \
	"writing; without it every op holds the spinlock alone"

static void csv_stats(FILE *f, const char *section, const char *name,
		      struct ft_stats *s)
{
	stat_row(f, FT_FMT_CSV, section, name, s, 1, 1, NULL, NULL, NULL);
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

/* the what-if curve: collision wait and collisions by table size */
static int plot(const char *file, struct ft_whatif_row *w, int n)
{
	static const char script[] =
		"set logscale x 2\n"
		"set xlabel 'table size (mutexes)'\n"
		"set ylabel 'collision wait (ns)'\n"
		"set y2label 'collisions'\n"
		"set y2tics\n"
		"plot ARG2 using 1:3 with linespoints title 'predicted collision wait', "
		"ARG2 using 1:2 axes x1y2 with linespoints title 'predicted collisions'";
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	int i, ret;

	if (!f) {
		ft_err("--plot %s: out of memory", file);
		return -1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%u %llu %llu\n", w[i].size,
			(unsigned long long)w[i].collisions,
			(unsigned long long)w[i].coll_wait_ns);
	if (fclose(f)) {
		ft_err("--plot %s: out of memory", file);
		free(data);
		return -1;
	}
	ret = ft_plot(file, script, data, len);
	free(data);
	return ret;
}

/* what the reader could not use, per CPU (only CPUs with something) */
static void print_skips(FILE *f, const struct ft_analysis *a, int json)
{
	struct ft_cpu_skips sum;
	int i, first = 1;

	if (!ft_analysis_skipped(a, &sum) && !json)
		return;
	if (!json) {
		fprintf(f, "SKIPPED (not in the numbers below): bad page headers "
			"%llu, bad event headers %llu (%llu bytes), short records "
			"%llu, implausible times %llu, unknown event ids %llu\n",
			(unsigned long long)sum.bad_pages,
			(unsigned long long)sum.bad_headers,
			(unsigned long long)sum.skipped_bytes,
			(unsigned long long)sum.short_records,
			(unsigned long long)sum.implausible,
			(unsigned long long)sum.unknown_ids);
	} else {
		fprintf(f, ",\"skipped\":{\"bad_pages\":%llu,\"bad_headers\":%llu,"
			"\"skipped_bytes\":%llu,\"short_records\":%llu,"
			"\"implausible\":%llu,\"unknown_ids\":%llu,\"cpus\":[",
			(unsigned long long)sum.bad_pages,
			(unsigned long long)sum.bad_headers,
			(unsigned long long)sum.skipped_bytes,
			(unsigned long long)sum.short_records,
			(unsigned long long)sum.implausible,
			(unsigned long long)sum.unknown_ids);
	}
	for (i = 0; i < a->nskips; i++) {
		const struct ft_cpu_skips *k = &a->skips[i];

		if (!(k->bad_pages | k->bad_headers | k->short_records |
		      k->implausible | k->unknown_ids))
			continue;
		if (json)
			fprintf(f, "%s{\"cpu\":%d,\"bad_pages\":%llu,"
				"\"bad_headers\":%llu,\"skipped_bytes\":%llu,"
				"\"short_records\":%llu,\"implausible\":%llu,"
				"\"unknown_ids\":%llu}",
				first ? "" : ",", i,
				(unsigned long long)k->bad_pages,
				(unsigned long long)k->bad_headers,
				(unsigned long long)k->skipped_bytes,
				(unsigned long long)k->short_records,
				(unsigned long long)k->implausible,
				(unsigned long long)k->unknown_ids);
		else
			fprintf(f, "  cpu%-4d bad pages %llu, bad headers %llu "
				"(%llu bytes), short records %llu, implausible %llu, "
				"unknown ids %llu\n",
				i, (unsigned long long)k->bad_pages,
				(unsigned long long)k->bad_headers,
				(unsigned long long)k->skipped_bytes,
				(unsigned long long)k->short_records,
				(unsigned long long)k->implausible,
				(unsigned long long)k->unknown_ids);
		first = 0;
	}
	if (json)
		fputs("]}", f);
}

/* what the report's printers share, worked out once by ft_report_print() */
struct rep {
	struct ft_analysis *a;
	const struct ft_fallback *fb;	/* NULL: not started on this file */
	const struct ft_report_opts *o;
	struct ft_whatif_row *w;	/* the what-if table, nw rows */
	int nw;
	struct ft_resize_cost rc;
	struct ft_advice adv;
	void **bk, **la;	/* buckets, lock addresses: by wait */
	int nbk, nla;		/* how many of them are printed */
	uint32_t cur;		/* the recorded table size */
	struct ft_sharing share;	/* who waits behind whom on one page */
};

/* JSON: the file, its counts, what was skipped, sampled, resized */
static void json_head(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	const struct ft_report_opts *o = r->o;
	uint32_t cur = r->cur;

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
	print_skips(f, a, 1);
	ft_sample_print(f, a, 1);
	if (a->resizes) {
		fprintf(f, ",\"resize\":{\"resizes\":%llu,"
			"\"duration_median_ns\":%llu,\"duration_max_ns\":%llu,"
			"\"fault_median_ns\":%llu,\"overlapping\":%llu,"
			"\"others\":%llu,"
			"\"stall_median_ns\":%llu,\"stall_max_ns\":%llu,"
			"\"other_wait_p99_ns\":%llu,\"other_wait_max_ns\":%llu}",
			(unsigned long long)r->rc.resizes,
			(unsigned long long)r->rc.dur_median,
			(unsigned long long)r->rc.dur_max,
			(unsigned long long)r->rc.fault_median,
			(unsigned long long)r->rc.overlapping,
			(unsigned long long)r->rc.others,
			(unsigned long long)r->rc.stall_median,
			(unsigned long long)r->rc.stall_max,
			(unsigned long long)r->rc.other_wait_p99,
			(unsigned long long)r->rc.other_wait_max);
	}
}

/* JSON: the hugetlb member: ops, buckets, what-if, advice */
static void json_hugetlb(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	struct ft_whatif_row *w = r->w;
	void **bk = r->bk;
	int nw = r->nw;
	int nbk = r->nbk;
	int i;

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
	ft_advice_json(f, &r->adv);
	fputs(",\"true_sharing\":", f);
	ft_sharing_json(f, &r->share, r->adv.target_pct);
	fputc('}', f);
}

/* JSON: the memtype member */
static void json_memtype(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	int i;

	fputs(",\"memtype\":{\"total\":", f);
	json_stats(f, "all", &a->mall);
	fputs(",\"ops\":[", f);
	for (i = 0; i < FT_MOP_NR; i++) {
		fputs(i ? ",{" : "{", f);
		stat_row(f, FT_FMT_JSON, NULL, ft_mop_name(i), &a->mop[i], 1, 1,
			 NULL, memtype_side(i), NULL);
		fputc('}', f);
	}
	fputs("],\"side_note\":", f);
	ft_json_str(f, MEMTYPE_SIDE_NOTE);
	fputc('}', f);
}

/* JSON: lock:contention, the fallback's member or the addresses' */
static void json_lock_contention(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	void **la = r->la;
	int nla = r->nla;
	int top = r->o->top;
	int i;

	if (r->fb) {
		/* its own member: names, callers, ops, no hold numbers */
		ft_fallback_print(f, r->fb, FT_FMT_JSON, top);
	} else {
		fputs(",\"lock_contention\":{\"total\":", f);
		json_contention(f, "all", &a->call, NULL);
		fputs(",\"locks\":[", f);
		for (i = 0; i < nla; i++) {
			struct ft_lockaddr_stats *s = la[i];
			char name[32], fl[64];

			snprintf(name, sizeof(name), "0x%llx",
				 (unsigned long long)s->addr);
			if (i)
				fputc(',', f);
			json_contention(f, name, &s->st,
					lock_flags(s->flags, fl, sizeof(fl)));
		}
		fputs("]}", f);
	}
}

static void print_json(FILE *f, const struct rep *r)
{
	json_head(f, r);
	if (r->a->kpair)
		ft_kpair_print(f, r->a->kpair, FT_FMT_JSON);
	json_hugetlb(f, r);
	json_memtype(f, r);
	json_lock_contention(f, r);
	fputs("}\n", f);
}

/* CSV: one table of statistics rows, the what-if, the fallback's */
static void print_csv(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	struct ft_whatif_row *w = r->w;
	void **bk = r->bk;
	void **la = r->la;
	int nw = r->nw;
	int nbk = r->nbk;
	int nla = r->nla;
	int top = r->o->top;
	int i;

	ft_table_csv_header(f, stat_cols, C_NR, NULL);
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
		/* no hold times in lock:contention: empty, not 0 */
		stat_row(f, FT_FMT_CSV, "lock_addr", name, &s->st, 0, 0, NULL,
			 NULL, NULL);
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
	ft_fallback_print(f, r->fb, FT_FMT_CSV, top);
}

/* text: the file, its counts and warnings */
static void text_head(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	const struct ft_report_opts *o = r->o;
	char b[8][32];

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
	print_skips(f, a, 0);
	ft_sample_print(f, a, 0);
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
}

/*
 * A kprobe recording comes from a kernel without the series, whose table
 * cannot be resized: the advice is the boot parameter of the patched one.
 */
static void kprobe_advice_line(FILE *f, const struct ft_advice *adv)
{
	const struct ft_model_row *rec, *cur;

	if (adv->pick.idx < 0 || !adv->nholds)
		return;
	rec = &adv->rows[adv->pick.idx];
	cur = adv->current ? ft_advice_row(adv, adv->current) : NULL;
	if (adv->pick.keep || (cur && cur->size == rec->size))
		fprintf(f, "on this kernel: its %u mutexes are enough: the patched "
			"kernel would not need another size (predicted collision "
			"wait %.2f%% of fault time)\n", rec->size, rec->coll_pct);
	else
		fprintf(f, "on this kernel (no resizable table): boot the patched "
			"kernel with hugetlb_fault_mutexes=%u: predicted collision "
			"wait %.2f%% -> %.2f%% of fault time\n", rec->size,
			cur ? cur->coll_pct : 0, rec->coll_pct);
}

/* text: the hugetlb fault mutexes: ops, resizes, buckets, what-if, advice */
static void text_hugetlb(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	struct ft_whatif_row *w = r->w;
	void **bk = r->bk;
	int nw = r->nw;
	int nbk = r->nbk;
	int i;
	uint32_t cur = r->cur;
	char b[8][32];

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
			double u;

			u = r->rc.fault_median ? (double)r->rc.fault_median : 1;
			fprintf(f, "resizes: %llu, duration median %s max %s; a fault "
				"(request to release) median %s; %llu acquisitions "
				"waited during a resize, wait median %s max %s "
				"(%.2f faults); the others' wait p99 %s max %s\n",
				(unsigned long long)r->rc.resizes,
				ft_fmt_ns(r->rc.dur_median, b[0], 32),
				ft_fmt_ns(r->rc.dur_max, b[1], 32),
				ft_fmt_ns(r->rc.fault_median, b[2], 32),
				(unsigned long long)r->rc.overlapping,
				ft_fmt_ns(r->rc.stall_median, b[3], 32),
				ft_fmt_ns(r->rc.stall_max, b[4], 32), r->rc.stall_max / u,
				ft_fmt_ns(r->rc.other_wait_p99, b[5], 32),
				ft_fmt_ns(r->rc.other_wait_max, b[6], 32));
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

		fprintf(f, "\nwhat-if: %zu recorded holds%s re-bucketed as hash & "
			"(N-1) (no queueing feedback)\n", a->nholds,
			ft_sample_used(a) ? " (the sample)" : "");
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
		ft_advice_check(f, &r->adv);
		ft_advice_line(f, &r->adv);
		if (r->a->kpair)
			kprobe_advice_line(f, &r->adv);
		ft_sharing_text(f, &r->share, r->adv.target_pct);
	}
}

/* text: memtype_lock */
static void text_memtype(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	int i;

	if (a->nev[FT_LK_MEMTYPE]) {
		fprintf(f, "\nmemtype_lock (x86 PAT)\n");
		text_header_x(f, "op", "side");
		for (i = 0; i < FT_MOP_NR; i++)
			if (a->mop[i].acq || a->mop[i].releases)
				text_row_x(f, ft_mop_name(i), &a->mop[i], 0, 1,
					   memtype_side(i));
		text_row_cls(f, "all", &a->mall, 0);
		fprintf(f, "%s\n", MEMTYPE_SIDE_NOTE);
	}
}

/* text: lock:contention, the fallback's or the addresses' */
static void text_contention(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	void **la = r->la;
	int nla = r->nla;
	int top = r->o->top;
	int i;

	if (a->nev[FT_LK_CONTENTION] && r->fb) {
		ft_fallback_print(f, r->fb, FT_FMT_TEXT, top);
	} else if (a->nev[FT_LK_CONTENTION]) {
		fprintf(f, "\nlock:contention_begin/end fallback (kernel without the "
			"faulttune events)\n"
			"  can attribute: wait time per lock address and lock type flags\n"
			"  cannot attribute: hugetlb bucket, (mapping, index) key, op, hold "
			"time (n/a), collisions vs true sharing, what-if\n");
		fprintf(f, "contended locks (top %d of %zu by wait)\n", nla,
			a->lockaddrs.n);
		text_header_x(f, "lock_addr", "flags");
		for (i = 0; i < nla; i++) {
			struct ft_lockaddr_stats *s = la[i];
			char name[32], fl[64];

			snprintf(name, sizeof(name), "%llx", (unsigned long long)s->addr);
			text_row_x(f, name, &s->st, 0, 0,
				   lock_flags(s->flags, fl, sizeof(fl)));
		}
		text_row_x(f, "all", &a->call, 0, 0, NULL);
	}
}

/* text, default: the verdict first, then one line a lock, within FT_COLS */
static void print_short(FILE *f, const struct rep *r)
{
	struct ft_analysis *a = r->a;
	const struct ft_advice *adv = &r->adv;
	struct ft_cpu_skips sk;
	char b[4][32];
	int hugetlb = a->nev[FT_LK_HUGETLB] != 0;

	ft_wrap(f, 2, "faulttune report: %s (%s of trace)", r->o->file,
		ft_fmt_ns(a->last_ts - a->first_ts, b[0], 32));
	if (hugetlb) {
		ft_advice_verdict(f, adv, &r->share);
		if (adv->pick.idx >= 0 && adv->nholds) {
			uint32_t n = adv->rows[adv->pick.idx].size;

			if (a->kpair && adv->pick.keep)
				ft_wrap(f, 2, "on this kernel: its %u mutexes are "
					"enough", n);
			else if (a->kpair)
				ft_wrap(f, 2, "boot parameter: hugetlb_fault_mutexes="
					"%u (this kernel's table is fixed: boot the "
					"patched kernel)", n);
			else if (!adv->pick.keep)
				ft_wrap(f, 2, "boot parameter: hugetlb_fault_mutexes="
					"%u", n);
		}
		ft_wrap(f, 2, "fault mutexes: table %u%s, %llu acquisitions, "
			"%llu contended (%.1f%%), %s waiting",
			r->cur, a->resizes ? " (resized)" : "",
			(unsigned long long)a->hall.acq,
			(unsigned long long)a->hall.contended,
			pct(a->hall.contended, a->hall.acq),
			ft_fmt_ns(a->hall.wait_total, b[1], 32));
		ft_sharing_short(f, &r->share, adv->target_pct);
	}
	if (a->nev[FT_LK_MEMTYPE])
		ft_wrap(f, 2, "memtype_lock: %llu acquisitions, %llu contended "
			"(%.1f%%), %s waiting", (unsigned long long)a->mall.acq,
			(unsigned long long)a->mall.contended,
			pct(a->mall.contended, a->mall.acq),
			ft_fmt_ns(a->mall.wait_total, b[2], 32));
	/* the fallback's answer, where it is the only one */
	if (!hugetlb && a->nev[FT_LK_CONTENTION] && r->fb)
		ft_fallback_short(f, r->fb);
	else if (!hugetlb && a->nev[FT_LK_CONTENTION])
		ft_wrap(f, 2, "lock:contention: %llu waits on %zu locks, %s in all "
			"(no hugetlb events: no verdict on the fault mutexes)",
			(unsigned long long)a->call.contended, a->lockaddrs.n,
			ft_fmt_ns(a->call.wait_total, b[3], 32));
	if (!a->nev[FT_LK_HUGETLB] && !a->nev[FT_LK_MEMTYPE] &&
	    !a->nev[FT_LK_CONTENTION])
		ft_wrap(f, 2, "no hugetlb, memtype or lock:contention events in "
			"the recording: nothing to say");
	if (a->lost_events || a->lost_unknown) {
		if (!a->lost_events)
			snprintf(b[0], 32, "an unknown number of");
		else
			snprintf(b[0], 32, "%s%llu", a->lost_unknown ?
				 "more than " : "",
				 (unsigned long long)a->lost_events);
		ft_wrap(f, 2, "WARNING: %s events lost: the numbers are "
			"incomplete (bigger buffer: record -b KB)", b[0]);
	}
	if (ft_analysis_skipped(a, &sk))
		ft_wrap(f, 2, "SKIPPED: damaged records not in the numbers "
			"(-v: how many, per CPU)");
	if (a->hash_mismatch || a->jhash_mismatch)
		ft_wrap(f, 2, "WARNING: %llu events whose bucket or hash is not the "
			"kernel's as modelled (-v)", (unsigned long long)
			(a->hash_mismatch + a->jhash_mismatch));
	if (ft_sample_used(a))
		ft_wrap(f, 2, "sample: %zu of %llu holds, which the model and the "
			"what-if use (-v: how drawn)", a->nholds,
			(unsigned long long)a->sample.holds);
	if (hugetlb)
		ft_wrap(f, 2, "-v: the counts, the tables by op and bucket, the "
			"what-if, the model check%s", a->nev[FT_LK_CONTENTION] ?
			", the lock:contention waits" : "");
	else if (a->nev[FT_LK_CONTENTION])
		ft_wrap(f, 2, "-v: the counts, the contended locks, the waits by "
			"op%s", a->nev[FT_LK_MEMTYPE] ? ", memtype_lock" : "");
	else
		ft_wrap(f, 2, "-v: the counts%s", a->nev[FT_LK_MEMTYPE] ?
			", memtype_lock's table" : "");
}

static void print_text(FILE *f, const struct rep *r)
{
	if (!r->o->verbose) {
		print_short(f, r);
		return;
	}
	text_head(f, r);
	if (r->a->kpair)
		ft_kpair_print(f, r->a->kpair, FT_FMT_TEXT);
	text_hugetlb(f, r);
	text_memtype(f, r);
	text_contention(f, r);
}

/*
 * The model, the what-if, the resize cost and the sorted tables first (the
 * what-if sorts the holds in place), then one of the three printers.
 */
int ft_report_print(FILE *f, struct ft_analysis *a,
		    const struct ft_report_opts *o)
{
	struct rep r = { .a = a, .o = o, .cur = ft_recorded_size(a),
			 .fb = ft_consumer_state(a, &ft_fallback_consumer) };
	int ret = 0, advice_nomem = 0;

	if (ft_advice_of(a, o->threads, o->target, &r.adv) ||
	    ft_sharing_add(&r.share, a))
		advice_nomem = 1;
	else if (a->nev[FT_LK_HUGETLB])
		r.nw = ft_whatif(a, whatif_max(a, o), &r.w);
	if (a->resizes)
		ft_resize_cost(a, &r.rc);
	r.bk = sorted_vals(&a->buckets, cmp_bucket);
	r.la = sorted_vals(&a->lockaddrs, cmp_lockaddr);
	if (advice_nomem || r.nw < 0 || r.rc.nomem || !r.bk || !r.la) {
		ft_err("%s: out of memory for the model, the what-if and the "
		       "tables: no report rather than an incomplete one", o->file);
		ret = -1;
		r.nw = 0;
		goto out;
	}
	ft_sharing_sort(&r.share);
	r.nbk = a->buckets.n < (size_t)o->top ? (int)a->buckets.n : o->top;
	r.nla = a->lockaddrs.n < (size_t)o->top ? (int)a->lockaddrs.n : o->top;

	if (o->fmt == FT_FMT_JSON)
		print_json(f, &r);
	else if (o->fmt == FT_FMT_CSV)
		print_csv(f, &r);
	else
		print_text(f, &r);

	if (o->plot && !r.nw) {
		ft_err("--plot %s: no hugetlb events, nothing to plot", o->plot);
		ret = -1;
	} else if (o->plot && plot(o->plot, r.w, r.nw)) {
		ret = -1;
	}
out:
	ft_advice_free(&r.adv);
	ft_sharing_free(&r.share);
	free(r.w);
	free(r.bk);
	free(r.la);
	return ret;
}
