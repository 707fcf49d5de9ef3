/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the readers of a recording (lib/reader): trace.dat into an
 * analysis, through libtracecmd or the fast reader, and the kprobe
 * recorder's read side that pairs its probes into holds.
 */
#ifndef FT_READER_H
#define FT_READER_H

#include "analysis.h"

/* readdat.c: how a recording is read; zeroed: every source, holds corrected */
struct ft_read_opts {
	int source;		/* enum ft_source: which of a file's accounts */
	int raw_holds;		/* kprobe holds as recorded, the probes' cost in */
	int libtracecmd;	/* always libtracecmd's path, never the fast
				   reader (the tests compare the two) */
};
int ft_read_tracedat(const char *file, struct ft_analysis *a);
int ft_read_tracedat_opts(const char *file, struct ft_analysis *a,
			  const struct ft_read_opts *o);

/*
 * kpair.c: the kprobe recorder's read side.  The reader hands it the
 * kprobe events (FT_EV_KP_KEY / FT_EV_KP_UNLOCK), lock:contention, the
 * markers and any hugetlb_fault_mutex_hold summaries; it gives back, at
 * each release, the acquisition as a hold summary would carry it.  Where
 * the file has both (record --source=both), it matches them one to one.
 */
struct ft_kpair;
/* file: its kallsyms; raw_holds: leave the probes' cost in the holds */
struct ft_kpair *ft_kpair_new(const char *file, int raw_holds);
/* 1: *out is an acquisition (FT_EV_HOLD) for the analysis */
int ft_kpair_feed(struct ft_kpair *kp, const struct ft_event *ev,
		  struct ft_event *out);
void ft_kpair_finish(struct ft_kpair *kp);
/* whether its acquisitions go to the analysis (else: only matched) */
void ft_kpair_feeds(struct ft_kpair *kp, int feeds);
void ft_kpair_free(struct ft_kpair *kp);
/* why its acquisitions must not be analysed (a wrong decode), or NULL */
const char *ft_kpair_refusal(const struct ft_kpair *kp);

#endif
