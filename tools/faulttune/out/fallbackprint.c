// SPDX-License-Identifier: GPL-2.0
/*
 * The lock:contention fallback's report: the verdict in a few lines by
 * default, then the waits by class, op and lock as text, JSON or CSV.
 * It formats what fallback.c attributed and judged, and decides nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fallback-local.h"
#include "out.h"

static const char *type_name(uint32_t f, char *buf, size_t len)
{
	static const struct { uint32_t f; const char *n; } t[] = {
		{ LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
		{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" },
		{ LCB_F_WRITE, "rwsem:W" },
		{ LCB_F_RT, "rt-mutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
		{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
		{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" },
		{ LCB_F_MUTEX | LCB_F_SPIN, "mutex" },	/* acquired spinning */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].f == f)
			return t[i].n;
	snprintf(buf, len, "flags=0x%x", f);
	return buf;
}

/* "hugetlb_fault_mutex_table[17]", "memtype_lock", "jiffies_lock", an address */
static const char *lock_name(const struct fb_view *v, const struct fb_lock *l,
			     char *buf, size_t len)
{
	const struct ft_fallback *fb = v->fb;
	const char *d;
	uint64_t off = 0;

	if (l->c.cls == FB_FAULT_MUTEX) {
		uint64_t s = fb->mutex_bytes;

		if (v->table_ok)
			snprintf(buf, len, "hugetlb_fault_mutex_table[%llu]",
				 (unsigned long long)((l->addr - fb->table_base) / s));
		else if (s && !((l->addr - v->fm_lowest) % s))
			snprintf(buf, len, "hugetlb fault mutex lowest+%llu",
				 (unsigned long long)((l->addr - v->fm_lowest) / s));
		else
			snprintf(buf, len, "hugetlb fault mutex %llx",
				 (unsigned long long)l->addr);
		return buf;
	}
	if (l->c.cls == FB_MEMTYPE)
		return "memtype_lock";
	d = ft_ksyms_data(fb->ks, l->addr, &off);
	if (d && !off)
		return d;
	if (d && off < 4096) {
		snprintf(buf, len, "%s+0x%llx", d, (unsigned long long)off);
		return buf;
	}
	snprintf(buf, len, "%llx", (unsigned long long)l->addr);
	return buf;
}

/*
 * A wait table of the fallback (locks, or ops), described once for text,
 * JSON and CSV: a lock row has its address, type, class and caller, an op
 * row only its name; no hold times (n/a, null).
 */
enum { FC_NAME, FC_LOCK, FC_ADDR, FC_TYPE, FC_CLASS, FC_OP, FC_CALLER, FC_WAITS,
       FC_WTOT, FC_WAVG, FC_WMAX, FC_HOLD, FC_TCALLER, FC_NR };

static const struct ft_col fb_cols[FC_NR] = {
	[FC_NAME] = { .text = "lock", .width = -34, .json = "name" },
	[FC_LOCK] = { .json = "lock", .csv = "lock" },
	[FC_ADDR] = { .json = "addr", .csv = "addr" },
	[FC_TYPE] = { .text = "type", .width = -10, .json = "type", .csv = "type" },
	[FC_CLASS] = { .json = "class", .csv = "class" },
	[FC_OP] = { .csv = "op" },
	[FC_CALLER] = { .json = "caller", .csv = "caller" },
	[FC_WAITS] = { .text = "waits", .width = 8, .json = "waits",
		      .csv = "waits" },
	[FC_WTOT] = { .text = "wait_tot", .width = 10, .json = "wait_total_ns",
		     .csv = "wait_total_ns" },
	[FC_WAVG] = { .text = "wait_avg", .width = 10 },
	[FC_WMAX] = { .text = "wait_max", .width = 10, .json = "wait_max_ns",
		     .csv = "wait_max_ns" },
	[FC_HOLD] = { .text = "hold", .width = 5, .json = "hold", .csv = "hold",
		     .none_csv = "n/a" },
	[FC_TCALLER] = { .text = "", .width = 0, .sep = "  ", .last = 1 },
};

static const char *class_name(int cls)
{
	return cls == FB_FAULT_MUTEX ? "hugetlb_fault_mutex" :
	       cls == FB_MEMTYPE ? "memtype_lock" : "other";
}

/* the cells every row has: waits, total, mean, max, no hold */
static void sum_cells(struct ft_cell *v, const struct fb_sum *s)
{
	int i;

	for (i = 0; i < FC_NR; i++)
		v[i] = FT_SKIP;
	v[FC_WAITS] = FT_U64(s->n);
	v[FC_WTOT] = FT_NS(s->total);
	v[FC_WAVG] = FT_NS(s->n ? s->total / s->n : 0);
	v[FC_WMAX] = FT_NS(s->max);
	v[FC_HOLD] = FT_NONE;
}

/*
 * An op or total row.  Text: name, the type column empty, and the caller
 * column's separator (caller NULL); JSON: the name; CSV: the lock class
 * and the op.
 */
static void sum_row(FILE *f, enum ft_fmt fmt, const char *cls,
		    const char *name, const struct fb_sum *s)
{
	struct ft_cell v[FC_NR];

	sum_cells(v, s);
	if (fmt == FT_FMT_CSV) {
		v[FC_LOCK] = FT_STR(cls);
		v[FC_OP] = FT_STR(name);
	} else {
		v[FC_NAME] = FT_STR(name);
	}
	if (fmt == FT_FMT_TEXT) {
		v[FC_TYPE] = FT_STR("");
		v[FC_TCALLER] = FT_STR("");
	}
	ft_table_row(f, fmt, fb_cols, FC_NR, v);
}

/* the CSV header of sum_row()'s rows */
static void sum_csv_header(FILE *f)
{
	struct ft_cell v[FC_NR];
	struct fb_sum none = { 0 };

	sum_cells(v, &none);
	v[FC_LOCK] = v[FC_OP] = FT_STR("");
	ft_table_csv_header(f, fb_cols, FC_NR, v);
}

static void sum_json(FILE *f, const char *name, const struct fb_sum *s)
{
	fputc('{', f);
	sum_row(f, FT_FMT_JSON, NULL, name, s);
	fputc('}', f);
}

static void sum_text(FILE *f, const char *name, const struct fb_sum *s)
{
	sum_row(f, FT_FMT_TEXT, NULL, name, s);
}

/* a lock's row: its name, address, type, class, op and caller */
static void lock_row(FILE *f, enum ft_fmt fmt, const struct fb_view *v,
		     const struct fb_lock *l)
{
	struct ft_cell c[FC_NR];
	char nb[96], tb[32], ab[24];
	int csv = fmt == FT_FMT_CSV;
	const char *name = lock_name(v, l, nb, sizeof(nb));

	sum_cells(c, &l->w);
	c[FC_TYPE] = FT_STR(type_name(l->flags, tb, sizeof(tb)));
	if (fmt == FT_FMT_TEXT) {
		c[FC_NAME] = FT_STR(name);
		c[FC_TCALLER] = FT_STR(l->c.caller);
	} else {
		snprintf(ab, sizeof(ab), "0x%llx", (unsigned long long)l->addr);
		c[FC_LOCK] = csv ? FT_QSTR(name) : FT_STR(name);
		c[FC_ADDR] = FT_STR(ab);
		c[FC_CLASS] = FT_STR(class_name(l->c.cls));
		c[FC_CALLER] = csv ? FT_QSTR(l->c.caller) :
			l->c.caller ? FT_STR(l->c.caller) : FT_NONE;
	}
	if (csv)
		c[FC_OP] = FT_STR(l->c.cls == FB_FAULT_MUTEX ? ft_hop_name(l->c.op) :
				 l->c.cls == FB_MEMTYPE ? ft_mop_name(l->c.op) : "");
	ft_table_row(f, fmt, fb_cols, FC_NR, c);
}

static void print_json(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;
	size_t i;
	int k;

	fprintf(f, ",\"fallback\":{\"hold_measured\":false,"
		"\"kallsyms\":%s,\"kallsyms_symbols\":%zu,\"stacks\":%llu,"
		"\"waits\":%llu,\"waits_with_stack\":%llu,"
		"\"waits_without_stack\":%llu,\"mutex_waits\":%llu,"
		"\"mutex_waits_never_slept\":%llu,\"unpaired\":{\"begin\":%llu,"
		"\"end\":%llu,\"stack\":%llu},\"spin_then_sleep\":%llu,",
		fb->ks ? "true" : "false", ft_ksyms_count(fb->ks),
		(unsigned long long)fb->stacks, (unsigned long long)fb->all.n,
		(unsigned long long)fb->with_stack,
		(unsigned long long)fb->without_stack,
		(unsigned long long)fb->mutex_waits,
		(unsigned long long)fb->mutex_spun,
		(unsigned long long)fb->begin_unpaired,
		(unsigned long long)fb->end_unpaired,
		(unsigned long long)(fb->stacks - fb->stacks_used),
		(unsigned long long)fb->continued);
	fprintf(f, "\"table\":{\"base\":");
	if (v->table_ok)
		fprintf(f, "\"0x%llx\",\"base_from\":\"kcore\",\"nbuckets\":%u",
			(unsigned long long)fb->table_base, fb->table_n);
	else
		fprintf(f, "null,\"base_from\":%s,\"nbuckets\":null",
			fb->mutex_bytes && v->fm_locks ? "\"lowest address seen\"" :
			"null");
	fprintf(f, ",\"mutex_bytes\":");
	if (fb->mutex_bytes)
		fprintf(f, "%u,\"mutex_bytes_from\":\"%s\"", fb->mutex_bytes,
			fb->stride_from);
	else
		fputs("null,\"mutex_bytes_from\":null", f);
	fputs(",\"not_known\":", f);
	ft_json_str(f, fb->table_why[0] ? fb->table_why : "");
	fprintf(f, ",\"contended_mutexes\":%zu},\"locks\":[", v->fm_locks);
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++) {
		if (k)
			fputc(',', f);
		fputc('{', f);
		lock_row(f, FT_FMT_JSON, v, v->lk[i]);
		fputc('}', f);
	}
	fputs("],\"hugetlb_fault_mutex\":{\"total\":", f);
	sum_json(f, "all", &fb->cls[FB_FAULT_MUTEX]);
	fputs(",\"ops\":[", f);
	for (k = 0; k < FT_HOP_NR; k++) {
		if (k)
			fputc(',', f);
		sum_json(f, ft_hop_name(k), &fb->hop[k]);
	}
	fputs("]},\"memtype_lock\":{\"total\":", f);
	sum_json(f, "all", &fb->cls[FB_MEMTYPE]);
	fputs(",\"ops\":[", f);
	for (k = 0; k < FT_MOP_NR; k++) {
		if (k)
			fputc(',', f);
		sum_json(f, ft_mop_name(k), &fb->mop[k]);
	}
	fprintf(f, "]},\"on_this_kernel\":{\"duration_ns\":%llu,\"cpus\":%d,"
		"\"fault_mutex_wait_ns\":%llu,\"fault_mutex_pct\":%.4f,"
		"\"memtype_wait_ns\":%llu,\"memtype_pct\":%.4f,"
		"\"threshold_pct\":%.1f,\"verdict\":\"%s\",\"reason\":",
		(unsigned long long)v->duration, v->cpus,
		(unsigned long long)fb->cls[FB_FAULT_MUTEX].total, v->fm_pct,
		(unsigned long long)fb->cls[FB_MEMTYPE].total, v->mt_pct,
		FB_VERDICT_PCT, v->verdict);
	ft_json_str(f, v->reason);
	fputs("}}", f);
}

static void print_text(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;
	const struct fb_sum *fm = &fb->cls[FB_FAULT_MUTEX], *mt = &fb->cls[FB_MEMTYPE];
	char b[4][32];
	size_t i;
	int k;

	fprintf(f, "\nlock:contention_begin/end fallback (kernel without the "
		"faulttune events)\n"
		"  waits: contention_begin to contention_end of one task; hold "
		"times are not traced here (n/a)\n");
	fprintf(f, "  symbols: %s; kernel stacks: %llu, waits with one %llu of %llu\n",
		fb->ks ? fb->ksyms_from : "no kallsyms readable in the file "
		"(locks stay addresses)", (unsigned long long)fb->stacks,
		(unsigned long long)fb->with_stack, (unsigned long long)fb->all.n);
	if (fb->mutex_spun)
		fprintf(f, "  mutex waits that never slept (acquired spinning, or at "
			"once: with lock debugging every mutex_lock takes this "
			"path): %llu of %llu\n", (unsigned long long)fb->mutex_spun,
			(unsigned long long)fb->mutex_waits);
	if (fb->begin_unpaired || fb->end_unpaired)
		fprintf(f, "  unpaired: begin %llu, end %llu\n",
			(unsigned long long)fb->begin_unpaired,
			(unsigned long long)fb->end_unpaired);
	fprintf(f, "\ncontended locks (top %d of %zu by wait)\n",
		top < (int)v->nlk ? top : (int)v->nlk, v->nlk);
	ft_table_header(f, fb_cols, FC_NR,
			(const char *const[FC_NR]){ [FC_TCALLER] = "caller" });
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++)
		lock_row(f, FT_FMT_TEXT, v, v->lk[i]);
	sum_text(f, "all", &fb->all);

	fprintf(f, "\nhugetlb fault mutex waits by op (from the caller in the stack)\n");
	ft_table_header(f, fb_cols, FC_NR,
			(const char *const[FC_NR]){ [FC_NAME] = "op", [FC_TYPE] = "" });
	for (k = 0; k < FT_HOP_NR; k++)
		if (fb->hop[k].n)
			sum_text(f, ft_hop_name(k), &fb->hop[k]);
	sum_text(f, "all", fm);
	if (v->table_ok)
		fprintf(f, "buckets: %zu of the table's %u mutexes contended "
			"(table at %llx from /proc/kcore, %u-byte mutexes from %s)\n",
			v->fm_locks, fb->table_n,
			(unsigned long long)fb->table_base, fb->mutex_bytes,
			fb->stride_from);
	else if (fb->mutex_bytes && v->fm_locks)
		fprintf(f, "buckets: %zu mutexes contended, numbered from the "
			"lowest address seen in %u-byte steps (from %s); the "
			"table's base and size are not known%s%s\n", v->fm_locks,
			fb->mutex_bytes, fb->stride_from,
			fb->table_why[0] ? ": " : "", fb->table_why);
	else if (v->fm_locks)
		fprintf(f, "buckets: %zu distinct mutex addresses contended; the "
			"table's base and sizeof(struct mutex) are not known%s%s\n",
			v->fm_locks, fb->table_why[0] ? ": " : "", fb->table_why);

	if (mt->n) {
		fprintf(f, "\nmemtype_lock waits by op (from the caller in the stack)\n");
		for (k = 0; k < FT_MOP_NR; k++)
			if (fb->mop[k].n)
				sum_text(f, ft_mop_name(k), &fb->mop[k]);
		sum_text(f, "all", mt);
	}

	fprintf(f, "\non this kernel\n");
	fprintf(f, "  recorded: %s x %d CPUs\n", ft_fmt_ns(v->duration, b[0], 32),
		v->cpus);
	fprintf(f, "  hugetlb fault mutex waits: %llu, %s, %.2f%% of recorded time",
		(unsigned long long)fm->n, ft_fmt_ns(fm->total, b[1], 32), v->fm_pct);
	for (k = 0; k < FT_HOP_NR; k++)
		if (fb->hop[k].n)
			fprintf(f, "; %s %s", ft_hop_name(k),
				ft_fmt_ns(fb->hop[k].total, b[2], 32));
	fprintf(f, "\n  memtype_lock waits: %llu, %s, %.2f%% of recorded time\n",
		(unsigned long long)mt->n, ft_fmt_ns(mt->total, b[3], 32), v->mt_pct);
	fprintf(f, "  verdict: %s: %s\n", v->verdict, v->reason);
}

/* CSV: a block of its own after a blank line, like the what-if table */
static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;

	size_t i;
	int k;

	fputc('\n', f);
	ft_table_csv_header(f, fb_cols, FC_NR, NULL);
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++)
		lock_row(f, FT_FMT_CSV, v, v->lk[i]);
	fputc('\n', f);
	sum_csv_header(f);
	for (k = 0; k < FT_HOP_NR; k++)
		sum_row(f, FT_FMT_CSV, "hugetlb_fault_mutex", ft_hop_name(k),
			&fb->hop[k]);
	for (k = 0; k < FT_MOP_NR; k++)
		sum_row(f, FT_FMT_CSV, "memtype_lock", ft_mop_name(k), &fb->mop[k]);
	fputs("\nduration_ns,cpus,fault_mutex_wait_ns,fault_mutex_pct,"
	      "memtype_wait_ns,memtype_pct,verdict,reason\n", f);
	fprintf(f, "%llu,%d,%llu,%.4f,%llu,%.4f,%s,",
		(unsigned long long)v->duration, v->cpus,
		(unsigned long long)fb->cls[FB_FAULT_MUTEX].total, v->fm_pct,
		(unsigned long long)fb->cls[FB_MEMTYPE].total, v->mt_pct, v->verdict);
	csv_field(f, v->reason);
	fputc('\n', f);
}

void ft_fallback_short(FILE *f, const struct ft_fallback *fb)
{
	const struct fb_sum *fm, *mt;
	struct fb_view v;
	char b[2][32];

	if (!fb || (!fb->begins && !fb->nev))
		return;
	ft_fallback_view(&v, fb);
	fm = &fb->cls[FB_FAULT_MUTEX];
	mt = &fb->cls[FB_MEMTYPE];
	ft_wrap(f, 2, "verdict: %s: %s", v.verdict, v.reason);
	ft_wrap(f, 2, "hugetlb fault mutex waits: %llu, %s, %.2f%% of recorded "
		"time (lock:contention, no hold times)", (unsigned long long)fm->n,
		ft_fmt_ns(fm->total, b[0], 32), v.fm_pct);
	if (mt->n)
		ft_wrap(f, 2, "memtype_lock waits: %llu, %s, %.2f%% of recorded "
			"time", (unsigned long long)mt->n,
			ft_fmt_ns(mt->total, b[1], 32), v.mt_pct);
	free(v.lk);
}

void ft_fallback_print(FILE *f, const struct ft_fallback *fb, enum ft_fmt fmt,
		       int top)
{
	struct fb_view v;

	if (!fb || (!fb->begins && !fb->nev))
		return;
	ft_fallback_view(&v, fb);
	if (fmt == FT_FMT_JSON)
		print_json(f, &v, top);
	else if (fmt == FT_FMT_CSV)
		print_csv(f, &v, top);
	else
		print_text(f, &v, top);
	free(v.lk);
}
