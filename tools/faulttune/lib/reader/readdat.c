// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: libtracecmd iterates the records of every CPU in
 * timestamp order; each record is turned into a struct ft_event by reading
 * its fields at the offsets the file's own formats give (found by name,
 * never assumed).
 *
 * This file is the entry, ft_read_tracedat(), and the library path; the
 * checks of a version 6 file are validate.c's, the in-place decoder of a
 * plain one fast.c's, the records into events decode.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "reader-local.h"

/*
 * Events may sit in the top-level buffer (trace-cmd record -e) or in a
 * buffer instance (trace-cmd record -B, trace-cmd extract -B): merge them
 * all in timestamp order.
 */
static int iterate_all(struct tracecmd_input *h, struct reader *rd)
{
	int n = tracecmd_buffer_instances(h), i, nh = 1, ret;
	struct tracecmd_input **hs;

	if (n <= 0)
		return tracecmd_iterate_events(h, NULL, 0, rd_on_record, rd);
	hs = calloc(n + 1, sizeof(*hs));
	if (!hs)
		return -1;
	hs[0] = h;
	for (i = 0; i < n; i++) {
		hs[nh] = tracecmd_buffer_instance_handle(h, i);
		if (hs[nh])
			nh++;
	}
	ret = tracecmd_iterate_events_multi(hs, nh, rd_on_record, rd);
	for (i = 1; i < nh; i++)
		tracecmd_close(hs[i]);
	free(hs);
	return ret;
}

/*
 * libtracecmd prints to stderr on its own ("Can not mmap file, will read
 * instead", perror() lines) whatever its log level: its calls run with
 * stderr on /dev/null, so that an error stays the one line naming the
 * file.  Returns the saved stderr, or -1.
 */
static int lib_quiet(void)
{
	int saved, null;

	fflush(stderr);
	saved = dup(STDERR_FILENO);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	ft_isolate_phase(FT_PHASE_LIB);
	return saved;
}

static void lib_loud(int saved)
{
	ft_isolate_phase(FT_PHASE_OURS);
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/*
 * The holding tasks' names, from the file's saved command lines, for
 * sharing.c's table: the events carry a pid only.  Names the file does
 * not have are left out.
 */
static void name_tasks(struct ft_analysis *a, struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < a->nholds; i++) {
		void **slot = ft_map_get(&a->comms,
					 (uint64_t)a->holds[i].pid + 1, 1);
		const char *comm;

		if (!slot || *slot)
			continue;
		comm = tep_data_comm_from_pid(tep, a->holds[i].pid);
		*slot = strdup(comm && strcmp(comm, "<...>") ? comm : "");
		if (!*slot) {	/* the slot stays empty: the map allows it */
			a->nomem = 1;
			return;
		}
	}
}
/*
 * The library path: libtracecmd iterates the records, unless a page
 * would make it read past its commit or loop.  <0 on error (said).
 */
static int lib_read(const char *file, struct tracecmd_input *h,
		    struct reader *rd, struct layout *lay)
{
	int ret, quiet;

	if (lay->past_commit) {
		ft_err("%s: cpu %d: %llu data page%s with an event length that "
		       "runs past the page's commit or wraps (the first at "
		       "offset %#llx): libtracecmd would read beyond it or loop "
		       "(the in-place reader skips and counts them)", file,
		       lay->past_commit_cpu,
		       (unsigned long long)lay->past_commit,
		       lay->past_commit == 1 ? "" : "s",
		       (unsigned long long)lay->past_commit_off);
		return -1;
	}
	quiet = lib_quiet();
	ret = iterate_all(h, rd);
	lib_loud(quiet);
	if (rd->looped)
		ft_err("%s: cpu %d: an event length in the data page at "
		       "offset %#llx leads back into the page, which "
		       "libtracecmd would read forever", file, rd->loop_cpu,
		       (unsigned long long)rd->loop_off);
	else if (ret < 0)
		ft_err("%s: error while reading the event data "
		       "(truncated?)", file);
	/* libtracecmd says nothing of an empty page's missed events */
	if (lay->empty_missed)
		ft_analysis_lost(rd->a, -1, (long long)lay->empty_missed);
	for (; lay->empty_missed_unknown; lay->empty_missed_unknown--)
		ft_analysis_lost(rd->a, -1, -1);
	return ret;
}

int ft_read_tracedat(const char *file, struct ft_analysis *a)
{
	static const struct ft_read_opts defaults;

	return ft_read_tracedat_opts(file, a, &defaults);
}

int ft_read_tracedat_opts(const char *file, struct ft_analysis *a,
			  const struct ft_read_opts *o)
{
	struct tracecmd_input *h;
	struct reader *rd;
	struct layout lay;
	struct stat st;
	unsigned long long n;
	int ret, quiet;

	if (stat(file, &st)) {
		ft_err("%s: %s", file, strerror(errno));
		return -1;
	}
	memset(&lay, 0, sizeof(lay));
	/* always the library path (FAULTTUNE_LIBTRACECMD: tests compare) */
	lay.lib = o->libtracecmd;
	if (rd_validate(file, &lay)) {
		free(lay.off);
		free(lay.size);
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	quiet = lib_quiet();
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	lib_loud(quiet);
	if (!h) {
		free(lay.off);
		free(lay.size);
		ft_err("%s: not a readable trace.dat file (truncated or corrupt?)",
		       file);
		return -1;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		ft_err("%s: out of memory", file);
	else
		rd->a = a;
	if (rd) {
		rd->dev = st.st_dev;
		rd->ino = st.st_ino;
		rd->page = lay.page ? lay.page : 4096;
		memset(rd->bad_page, 0xff, sizeof(rd->bad_page));
	}
	if (!rd || !(rd->tep = tracecmd_get_tep(h)) || rd_setup(rd, file)) {
		free(rd);
		free(lay.off);
		free(lay.size);
		tracecmd_close(h);
		return -1;
	}
	/* the kprobe recorder's events: its acquisitions, and which source */
	if (rd->d[D_K_KEY].event && (rd->d[D_K_UNLOCK].event ||
				     rd->d[D_K_UJ0].event) &&
	    o->source != FT_SRC_EVENTS && o->source != FT_SRC_CONTENTION) {
		if (!a->kpair) {	/* tune --from FILE...: one for them all */
			a->kpair = ft_kpair_new(file, o->raw_holds);
			a->kpair_free = ft_kpair_free;
		}
		rd->kp_holds = a->kpair && (o->source == FT_SRC_KPROBE ||
					    !rd->d[D_H_HOLD].event);
		if (a->kpair)
			ft_kpair_feeds(a->kpair, rd->kp_holds);
	}
	/* the file's formats are known: the consumers it has events for */
	ft_consumers_start(a, file, rd->tep);
	if (lay.plain && tracecmd_buffer_instances(h) == 0 && !lay.lib) {
		ret = rd_fast_read(file, &lay, rd);	/* says why itself */
	} else {
		ret = lib_read(file, h, rd, &lay);
	}
	free(lay.off);
	free(lay.size);
	name_tasks(a, rd->tep);
	quiet = lib_quiet();
	tracecmd_close(h);
	lib_loud(quiet);
	n = rd->records;
	free(rd);
	if (ret < 0)
		return -1;
	ft_kpair_finish(a->kpair);
	if (ft_kpair_refusal(a->kpair)) {
		ft_err("%s: %s", file, ft_kpair_refusal(a->kpair));
		return -1;
	}
	if (!n && lay.committed) {
		ft_err("%s: no event decoded from %llu bytes of event data "
		       "(corrupt header_page or header_event?)", file,
		       (unsigned long long)lay.committed);
		return -1;
	}
	ft_analysis_finish(a);
	return 0;
}
