/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune watch: what one window measured and what the run has
 * counted so far, shared by the loop (watch.c), its line (watchline.c),
 * the Prometheus exposition (prom.c) and its HTTP endpoint (httpd.c).
 */
#ifndef FT_WATCH_H
#define FT_WATCH_H

#include "faulttune.h"

/* per lock and op, summed over every window of the run (counters) */
struct ft_watch_ops {
	uint64_t acq, contended, wait_ns;
};

struct ft_watch_state {
	int fallback;		/* lock:contention: no holds, no hashes */
	int kprobe;		/* the kprobe recorder's acquisitions */
	double window_s;	/* the windows' length, as configured */
	/* the last window (gauges); a value < 0 or 0 size: not known */
	int have_window;
	double end_unix;	/* wall clock at its end */
	uint64_t acq;		/* fault mutex acquisitions (patched only) */
	uint64_t contended;	/* contended fault mutex acquisitions / waits */
	uint64_t wait_ns;	/* their wait */
	double coll_ratio;	/* collision wait / fault time */
	double share_ratio;	/* true sharing wait / fault time */
	uint32_t size;		/* table size */
	uint32_t rec;		/* recommended size */
	double pred_ratio;	/* predicted collision wait at rec */
	/*
	 * How settled rec is (decide.c): rec_lowest, the smallest size the
	 * window's runs cannot separate from it (rec itself when settled), 0
	 * when that is not known (fewer than 2 active runs: a window is one
	 * run unless its holds were sampled); settled only when it is known.
	 */
	uint32_t rec_lowest;
	int settled;
	int undecided;		/* rec is the current size, not shown to miss */
	int runs;		/* the active runs rec was judged on */
	uint64_t lost;		/* events lost in the window */
	int overridden;		/* the size changed since the last window */
	uint32_t size_before;	/* ... from this size */
	/* the run (counters) */
	uint64_t windows, lost_total, overrides_total, errors_total;
	struct ft_watch_ops hop[FT_HOP_NR];	/* fault mutex table, by op */
	struct ft_watch_ops mop[FT_MOP_NR];	/* memtype_lock, by op */
	struct ft_watch_ops other;		/* fallback: every other lock */
};

/*
 * watchline.c: the window's line in fmt; header: the column names first
 * (text and CSV)
 */
void ft_watch_line(FILE *f, const struct ft_watch_state *w, enum ft_fmt fmt,
		   int header);

/* prom.c: the exposition (text format 0.0.4); caller frees, NULL: no memory */
char *ft_prom_render(const struct ft_watch_state *w, size_t *len);
/* DIR/faulttune.prom, atomically: temporary file, fsync, rename */
int ft_prom_textfile(const char *dir, const char *text, size_t len);
/* refuse a directory that cannot take the file, before anything runs */
int ft_prom_check_dir(const char *dir);

/* httpd.c: GET /metrics, single-threaded, inside the watch loop */
struct ft_httpd;
/*
 * "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT" (127.0.0.1); port 0: any.
 * check: the syntax only, with the error line; open: and bind.
 */
int ft_httpd_check(const char *listen);
struct ft_httpd *ft_httpd_open(const char *listen);
/* the bound address, as "ADDR:PORT" */
const char *ft_httpd_addr(const struct ft_httpd *h);
/*
 * Serve requests for up to timeout_ms (returns early on a signal); body
 * is the answer to GET /metrics.
 */
void ft_httpd_serve(struct ft_httpd *h, int timeout_ms, const char *body,
		    size_t len);
void ft_httpd_close(struct ft_httpd *h);

#endif
