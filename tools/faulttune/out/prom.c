// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune watch: the Prometheus exposition (text format 0.0.4) of what
 * the windows measured, and node_exporter's textfile.
 *
 * Names follow the Prometheus conventions: the faulttune_ prefix, base
 * units (seconds, ratios of 0..1), _total on counters only, one HELP and
 * one TYPE line per metric, the lock and the op as labels.  What the
 * kernel cannot tell (the fallback has no acquisitions, no hold times and
 * so no recommendation) is left out, not exported as a made-up 0: an
 * absent series is what PromQL treats as unknown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "watch.h"
#include "out.h"

#define PROM_FILE "faulttune.prom"

static void meta(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gauge_u(FILE *f, const char *name, const char *help, uint64_t v)
{
	meta(f, name, "gauge", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

static void gauge_d(FILE *f, const char *name, const char *help, double v)
{
	meta(f, name, "gauge", help);
	fprintf(f, "%s %.12g\n", name, v);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	meta(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

enum ops_field { F_ACQ, F_CONTENDED, F_WAIT };

/* one counter over the locks and ops: the ops that saw something */
static void ops_counter(FILE *f, const struct ft_watch_state *w,
			enum ops_field fld, const char *name, const char *help)
{
	const struct ft_watch_ops *o;
	int lock, i, n;

	meta(f, name, "counter", help);
	for (lock = 0; lock < 3; lock++) {
		n = lock == 0 ? FT_HOP_NR : lock == 1 ? FT_MOP_NR : 1;
		for (i = 0; i < n; i++) {
			o = lock == 0 ? &w->hop[i] : lock == 1 ? &w->mop[i] :
				&w->other;
			/*
			 * the fallback's "other" lock, and the ops that never
			 * ran: a series appears with its first event
			 */
			if (!o->acq && !o->contended)
				continue;
			fprintf(f, "%s{lock=\"%s\",op=\"%s\"} ", name,
				lock == 0 ? "fault_mutex" : lock == 1 ?
				"memtype" : "other",
				lock == 0 ? ft_hop_name(i) : lock == 1 ?
				ft_mop_name(i) : "any");
			if (fld == F_WAIT)
				fprintf(f, "%.9f\n", o->wait_ns / 1e9);
			else
				fprintf(f, "%llu\n", (unsigned long long)
					(fld == F_ACQ ? o->acq : o->contended));
		}
	}
}

static int ops_any(const struct ft_watch_state *w, int acq)
{
	int i;

	for (i = 0; i < FT_HOP_NR; i++)
		if (acq ? w->hop[i].acq : w->hop[i].contended)
			return 1;
	for (i = 0; i < FT_MOP_NR; i++)
		if (acq ? w->mop[i].acq : w->mop[i].contended)
			return 1;
	return !acq && w->other.contended;
}

char *ft_prom_render(const struct ft_watch_state *w, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	meta(f, "faulttune_kernel_info", "gauge",
	     "What the kernel lets faulttune see: variant patched (the "
	     "faulttune tracepoints), kprobe (the kprobe recorder on a kernel "
	     "without them) or fallback (lock:contention_begin/end).");
	fprintf(f, "faulttune_kernel_info{variant=\"%s\",version=\"%s\"} 1\n",
		w->fallback ? "fallback" : w->kprobe ? "kprobe" : "patched", FT_VERSION);
	counter(f, "faulttune_windows_total",
		"Recording windows completed and analysed.", w->windows);
	counter(f, "faulttune_window_errors_total",
		"Recording windows that could not be recorded or read.",
		w->errors_total);
	gauge_d(f, "faulttune_window_seconds",
		"Length of each recording window.", w->window_s);
	counter(f, "faulttune_lost_events_total",
		"Trace events lost (ring buffer overrun or dropped) in all windows.",
		w->lost_total);
	counter(f, "faulttune_knob_overrides_total",
		"Windows that found the fault mutex table resized by someone else "
		"since the window before.", w->overrides_total);
	if (w->have_window) {
		gauge_d(f, "faulttune_last_window_end_timestamp_seconds",
			"Unix time at the end of the last window.", w->end_unix);
		gauge_u(f, "faulttune_knob_overridden",
			"1 when the last window found the table resized by someone "
			"else since the window before.", w->overridden);
		if (w->size)
			gauge_u(f, "faulttune_table_size",
				"Fault mutex table size (num_fault_mutexes) in the "
				"last window.", w->size);
		if (w->rec)
			gauge_u(f, "faulttune_recommended_table_size",
				"Smallest table size whose predicted collision wait "
				"meets the target, from the last window.", w->rec);
		/* how settled: absent when one window's runs cannot tell */
		if (w->rec && w->rec_lowest) {
			gauge_u(f, "faulttune_recommendation_settled",
				"1 when the last window's runs settle the "
				"recommended size (no smaller size may also meet "
				"the target), 0 when they do not; absent when not "
				"known (fewer than 2 active runs).",
				w->settled ? 1 : 0);
			gauge_u(f, "faulttune_recommended_table_size_lowest",
				"Smallest table size the last window's runs cannot "
				"separate from the recommended one (equal to it when "
				"settled); absent when not known.", w->rec_lowest);
		}
		if (w->pred_ratio >= 0)
			gauge_d(f, "faulttune_predicted_collision_wait_ratio",
				"Predicted collision wait at the recommended size, "
				"share of fault time.", w->pred_ratio);
		if (w->coll_ratio >= 0)
			gauge_d(f, "faulttune_collision_wait_ratio",
				"Measured wait behind other pages' faults on the "
				"same mutex (hash collisions), share of fault time.",
				w->coll_ratio);
		if (w->share_ratio >= 0)
			gauge_d(f, "faulttune_true_sharing_wait_ratio",
				"Measured wait behind faults of the same page (no "
				"table size helps), share of fault time.",
				w->share_ratio);
	}
	if (ops_any(w, 1))
		ops_counter(f, w, F_ACQ, "faulttune_lock_acquisitions_total",
			    "Lock acquisitions recorded in the windows.");
	if (ops_any(w, 0)) {
		ops_counter(f, w, F_CONTENDED, "faulttune_lock_contended_total",
			    "Contended lock acquisitions recorded in the windows.");
		ops_counter(f, w, F_WAIT, "faulttune_lock_wait_seconds_total",
			    "Wait of the contended acquisitions recorded in the "
			    "windows.");
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ft_prom_check_dir(const char *dir)
{
	struct stat st;
	const char *why = NULL;

	if (stat(dir, &st))
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = strerror(ENOTDIR);
	else if (access(dir, W_OK | X_OK))
		why = strerror(errno);
	if (!why)
		return 0;
	ft_err("watch: bad --textfile '%s': %s: want an existing directory that "
	       "faulttune can write (node_exporter's "
	       "--collector.textfile.directory)", dir, why);
	return -1;
}

/*
 * node_exporter reads every *.prom in the directory at each scrape: the
 * file is written under a name it ignores, flushed to disk, then renamed
 * over the old one, so a scrape sees the old file or the new one, whole.
 */
int ft_prom_textfile(const char *dir, const char *text, size_t len)
{
	char tmp[4096], dst[4096];
	size_t off = 0;
	int fd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, PROM_FILE) >=
	    sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, PROM_FILE) >=
	    sizeof(dst)) {
		ft_err("watch: --textfile %s: path too long", dir);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ft_err("watch: cannot create a file in %s: %s", dir,
		       strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t r = write(fd, text + off, len - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail;
		off += r;
	}
	/* node_exporter runs as another user: the file must be readable */
	if (fchmod(fd, 0644) || fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst))
		goto fail;
	return 0;
fail:
	ft_err("watch: cannot write %s: %s", dst, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}
