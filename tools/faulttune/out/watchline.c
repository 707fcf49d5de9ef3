// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune watch: the one line a window prints, as text, JSON or CSV,
 * from the run's state alone (watch.h), so that the loop (watch.c) and
 * the unit tests print the same line.
 */
#include <stdio.h>
#include <time.h>
#include "model.h"
#include "watch.h"
#include "out.h"

static void col_ratio(char *buf, size_t len, double r)
{
	if (r < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", 100 * r);
}

static void col_u(char *buf, size_t len, uint64_t v, int known)
{
	if (known)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "-");
}

/* how settled the recommendation is, for the text line's note */
static void settled_note(char *buf, size_t len, const struct ft_watch_state *w)
{
	if (!w->rec)
		snprintf(buf, len, "%s", "");
	else if (!w->rec_lowest && !w->runs)
		snprintf(buf, len, "nothing to settle (no two faults on "
			 "different pages overlapped)");
	else if (!w->rec_lowest)
		snprintf(buf, len, "settled: not known (one run)");
	else if (w->settled)
		snprintf(buf, len, "settled");
	else if (w->undecided)
		snprintf(buf, len, "unsettled: kept, not shown to miss the "
			 "target (%d runs)", w->runs);
	else if (w->rec_lowest < w->rec)
		snprintf(buf, len, "unsettled %u..%u", w->rec_lowest, w->rec);
	else
		snprintf(buf, len, "unsettled (%d runs, %d needed)", w->runs,
			 FT_SETTLE_RUNS);
}

void ft_watch_line(FILE *f, const struct ft_watch_state *w, enum ft_fmt fmt,
		   int header)
{
	char tm[16], acq[24], size[16], rec[16], coll[16], share[16], pred[16];
	char wait[32], over[48] = "", settled[64], note[128], lowest[16];
	time_t now = (time_t)w->end_unix;
	struct tm lt;

	localtime_r(&now, &lt);
	strftime(tm, sizeof(tm), "%H:%M:%S", &lt);
	col_u(acq, sizeof(acq), w->acq, !w->fallback);
	col_u(size, sizeof(size), w->size, w->size);
	col_u(rec, sizeof(rec), w->rec, w->rec);
	col_ratio(coll, sizeof(coll), w->coll_ratio);
	col_ratio(share, sizeof(share), w->share_ratio);
	col_ratio(pred, sizeof(pred), w->pred_ratio);
	col_u(lowest, sizeof(lowest), w->rec_lowest, w->rec_lowest);
	if (w->overridden)
		snprintf(over, sizeof(over), "override %u->%u", w->size_before,
			 w->size);
	settled_note(settled, sizeof(settled), w);
	snprintf(note, sizeof(note), "%s%s%s", over, over[0] && settled[0] ?
		 ", " : "", settled);
	if (fmt == FT_FMT_JSON) {
		fprintf(f, "{\"time\":%.0f,\"window\":%llu,\"variant\":\"%s\","
			"\"window_s\":%g,\"acquisitions\":%s,\"contended\":%llu,"
			"\"wait_ns\":%llu,\"collision_wait_pct\":%s,"
			"\"sharing_wait_pct\":%s,\"size\":%s,\"recommended\":%s,"
			"\"predicted_collision_pct\":%s,\"lost\":%llu,"
			"\"overridden\":%s,\"settled\":%s,"
			"\"inseparable_from\":%s}\n", w->end_unix,
			(unsigned long long)w->windows,
			w->fallback ? "fallback" : w->kprobe ? "kprobe" : "patched", w->window_s,
			w->fallback ? "null" : acq, (unsigned long long)w->contended,
			(unsigned long long)w->wait_ns,
			w->coll_ratio < 0 ? "null" : coll,
			w->share_ratio < 0 ? "null" : share,
			w->size ? size : "null", w->rec ? rec : "null",
			w->pred_ratio < 0 ? "null" : pred,
			(unsigned long long)w->lost,
			w->overridden ? "true" : "false",
			!w->rec_lowest ? "null" : w->settled ? "true" : "false",
			w->rec_lowest ? lowest : "null");
		return;
	}
	if (fmt == FT_FMT_CSV) {
		if (header)
			fprintf(f, "time,variant,acquisitions,contended,wait_ns,"
				"collision_wait_pct,sharing_wait_pct,size,"
				"recommended,predicted_collision_pct,lost,"
				"overridden,settled,inseparable_from\n");
		fprintf(f, "%.0f,%s,%s,%llu,%llu,%s,%s,%s,%s,%s,%llu,%d,%s,%s\n",
			w->end_unix, w->fallback ? "fallback" : w->kprobe ? "kprobe" : "patched",
			w->fallback ? "" : acq, (unsigned long long)w->contended,
			(unsigned long long)w->wait_ns,
			w->coll_ratio < 0 ? "" : coll,
			w->share_ratio < 0 ? "" : share, w->size ? size : "",
			w->rec ? rec : "", w->pred_ratio < 0 ? "" : pred,
			(unsigned long long)w->lost, w->overridden,
			!w->rec_lowest ? "" : w->settled ? "1" : "0",
			w->rec_lowest ? lowest : "");
		return;
	}
	if (header)
		fprintf(f, "%-8s %10s %9s %9s %6s %6s %7s %7s %6s %6s  %s\n",
			"time", "acq", "contended", "wait", "coll%", "share%",
			"size", "rec", "pred%", "lost", "note");
	ft_fmt_ns(w->wait_ns, wait, sizeof(wait));
	fprintf(f, "%-8s %10s %9llu %9s %6s %6s %7s %7s %6s %6llu  %s\n", tm,
		acq, (unsigned long long)w->contended, wait, coll, share, size,
		rec, pred, (unsigned long long)w->lost, note);
}
