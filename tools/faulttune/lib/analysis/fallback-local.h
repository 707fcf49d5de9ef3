/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lock:contention fallback's state, shared by its two files:
 * fallback.c attributes the waits as they are fed and judges what they
 * say (the view and its verdict), fallbackprint.c prints that as text,
 * JSON or CSV.  Not the library's interface: faulttune.h is.
 */
#ifndef FAULTTUNE_FALLBACK_LOCAL_H
#define FAULTTUNE_FALLBACK_LOCAL_H

#include <stddef.h>
#include <stdint.h>
#include "analysis.h"
#include "kernel.h"

enum fb_class { FB_OTHER, FB_FAULT_MUTEX, FB_MEMTYPE, FB_NR };

#define FB_OPEN		8	/* nested waits per task */
#define FB_PENDING	8	/* begins or stacks awaiting their pair, per CPU */

struct fb_cls {
	int cls;		/* enum fb_class */
	int op;			/* enum ft_hop or ft_mop */
	const char *caller;	/* first frame outside the locking code */
};

struct fb_sum {
	uint64_t n, total, max;
};

struct fb_lock {
	uint64_t addr;
	uint32_t flags;		/* of the sleeping wait (a mutex spins first) */
	struct fb_cls c;
	int has_stack;
	struct fb_sum w;
};

struct fb_wait {
	uint64_t addr, ts;
	uint32_t flags;
	struct fb_cls c;
	int has_stack;
};

struct fb_task {
	struct fb_wait open[FB_OPEN];
	int n;
};

struct fb_pend {
	int pid;
	uint64_t addr;		/* begins */
	struct fb_cls c;	/* stacks */
};

struct fb_cpu {
	struct fb_pend begin[FB_PENDING], stack[FB_PENDING];
	int nbegin, nstack;
};

struct ft_fallback {
	struct ft_ksyms *ks;
	const char *ksyms_from;		/* where the symbols came from */
	struct ft_map locks;		/* addr -> fb_lock */
	struct ft_map tasks;		/* pid -> fb_task */
	struct fb_cpu *cpu;
	int ncpu;
	struct fb_sum hop[FT_HOP_NR], mop[FT_MOP_NR], cls[FB_NR], all;
	uint64_t begins, ends, stacks, with_stack, without_stack;
	uint64_t stacks_used, end_unpaired, begin_unpaired, continued;
	uint64_t mutex_waits, mutex_spun;	/* spun: never slept */
	int recorded_cpus;		/* from the marker, else CPUs seen */
	int max_cpu;
	/* fault mutex table, from the record marker */
	uint64_t table_base;
	uint32_t table_n, mutex_bytes;
	char table_from[48], stride_from[48], table_why[160];
	int have_marker;
	uint64_t first_ts, last_ts;	/* of every record fed */
	uint64_t nev;			/* lock:contention records but stacks */
};

/* below this share of the recorded time, the table is not worth tuning */
#define FB_VERDICT_PCT	1.0

/* what a report shows: the locks by wait, the table, the verdict */
struct fb_view {
	const struct ft_fallback *fb;
	struct fb_lock **lk;		/* by wait, descending */
	size_t nlk;
	uint64_t fm_lowest;		/* lowest fault mutex address seen */
	size_t fm_locks;		/* distinct fault mutex addresses */
	uint64_t fm_top_wait;		/* the most waited-on one's wait */
	int table_ok;			/* base, size and stride known */
	uint64_t duration, capacity;	/* ns; duration x CPUs */
	int cpus;
	double fm_pct, mt_pct;
	const char *verdict, *reason;
	char why[512];
};

/* fills v from fb; the caller frees v->lk */
void ft_fallback_view(struct fb_view *v, const struct ft_fallback *fb);

#endif
