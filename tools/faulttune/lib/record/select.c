// SPDX-License-Identifier: GPL-2.0
/*
 * Which recording source a run gets, in its instance: the faulttune
 * events where the kernel has them (the *_hold summaries, or the
 * start/acquire/release trio with --trio), else the kprobe recorder with
 * lock:contention_begin/end, else lock:contention alone; --source asks
 * for one (struct ft_inst's source) and is refused in one line where the
 * kernel cannot give it.  The one file of the record side that knows the
 * three sources (the read side's choice is ft_read_opts'): the instance
 * itself is tfs.c's, the probes kprobe.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"

static int have_system(struct ft_inst *fi, const char *sys)
{
	char path[256];
	char *dir = tracefs_instance_get_dir(fi->inst);
	int ok;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	ok = !access(path, F_OK);
	free(dir);
	return ok;
}

static int have_event(struct ft_inst *fi, const char *sys, const char *name)
{
	return tracefs_event_file_exists(fi->inst, sys, name, "format");
}

/*
 * The events of one lock that faulttune records: its *_hold summary where
 * the kernel has it (one event per acquisition, emitted after the unlock,
 * so the recorder adds nothing to the holds it measures), else or on
 * request (fi->trio) the start_locking/acquire_returned/released trio, which
 * is emitted inside the critical section.  Never both: they describe the
 * same holds.  NULL-terminated; returns 0, or -1 if one cannot be enabled.
 */
static int enable_lock_events(struct ft_inst *fi, const char *sys,
			      const char *const *summary,
			      const char *const *trio)
{
	const char *const *ev = summary;

	if (fi->trio || !have_event(fi, sys, summary[0]))
		ev = trio;
	else
		fi->summary = 1;
	for (; *ev; ev++)
		if (have_event(fi, sys, *ev) &&
		    tracefs_event_enable(fi->inst, sys, *ev))
			return -1;
	return 0;
}

static const char *const hugetlb_summary[] = {
	"hugetlb_fault_mutex_hold", "hugetlb_fault_mutex_resize", NULL
};
static const char *const hugetlb_trio[] = {
	"hugetlb_fault_mutex_start_locking",
	"hugetlb_fault_mutex_acquire_returned",
	"hugetlb_fault_mutex_released", "hugetlb_fault_mutex_resize", NULL
};
static const char *const memtype_summary[] = { "memtype_lock_hold", NULL };
static const char *const memtype_trio[] = {
	"memtype_lock_start_locking", "memtype_lock_acquire_returned",
	"memtype_lock_released", NULL
};

/*
 * Probe for the events, not for kernel versions: the faulttune events if
 * the kernel has them, else lock:contention_begin/end.
 */
/* one a process (fi points to it): large, and no run makes two */
static struct ft_kprobes inst_kprobes;

/*
 * The kprobe recorder beside lock:contention (which it needs for the
 * waits): 0, or -1 with why in *why (nothing left behind).
 */
static int enable_kprobes(struct ft_inst *fi, const char **why)
{
	*why = ft_kprobes_create(&inst_kprobes, fi->inst, &fi->kpo);
	if (*why)
		return -1;
	fi->kp = &inst_kprobes;
	fi->systems[fi->nsys++] = fi->kp->group;	/* its formats in the file */
	return 0;
}

static int enable_contention(struct ft_inst *fi)
{
	return tracefs_event_file_exists(fi->inst, "lock", "contention_begin",
					 "format") &&
	       tracefs_event_enable(fi->inst, "lock", "contention_begin") == 0 &&
	       tracefs_event_enable(fi->inst, "lock", "contention_end") == 0 ?
	       0 : -1;
}

int ft_inst_enable(struct ft_inst *fi, int quiet)
{
	int h = have_system(fi, "hugetlb") &&
		have_event(fi, "hugetlb", "hugetlb_fault_mutex_acquire_returned");
	int m = have_system(fi, "memtype");
	const char *why = NULL;

	fi->nsys = 0;
	fi->summary = 0;
	fi->kp_why = NULL;
	if (fi->source == FT_SRC_KPROBE || fi->source == FT_SRC_CONTENTION)
		h = m = 0;
	if ((fi->source == FT_SRC_EVENTS || fi->source == FT_SRC_BOTH) && !h) {
		ft_err("--source=%s: this kernel has no faulttune hugetlb events "
		       "(hugetlb_fault_mutex_*)",
		       fi->source == FT_SRC_BOTH ? "both" : "events");
		return -1;
	}
	if (h || m) {
		if (h && !enable_lock_events(fi, "hugetlb", hugetlb_summary,
					     hugetlb_trio))
			fi->systems[fi->nsys++] = "hugetlb";
		if (m && !enable_lock_events(fi, "memtype", memtype_summary,
					     memtype_trio))
			fi->systems[fi->nsys++] = "memtype";
		if (!fi->nsys) {
			ft_err("cannot enable the hugetlb/memtype events");
			return -1;
		}
		fi->evset = FT_EVS_FAULTTUNE;
		/* both sources of one run, to compare them (kpair.c) */
		if (fi->source == FT_SRC_BOTH &&
		    (enable_contention(fi) || enable_kprobes(fi, &why))) {
			ft_err("--source=both: %s", why ? why :
			       "cannot enable lock:contention_begin/end");
			return -1;
		}
		if (fi->source == FT_SRC_BOTH)
			fi->systems[fi->nsys++] = "lock";
		if (!quiet && !h)
			ft_info("faulttune: no hugetlb fault mutex events (kernel "
				"without the faulttune hugetlb tracepoint patch): "
				"recording memtype only");
		if (!quiet && !m)
			ft_info("faulttune: no memtype events (no X86_PAT or kernel "
				"without the memtype tracepoint patch): recording "
				"hugetlb only");
		return 0;
	}
	if (enable_contention(fi) == 0) {
		fi->systems[fi->nsys++] = "lock";
		fi->evset = FT_EVS_CONTENTION;
		if (fi->source != FT_SRC_CONTENTION && enable_kprobes(fi, &why)) {
			/* tune says it when it cannot go on without them */
			fi->kp_why = why;
			if (fi->source == FT_SRC_KPROBE) {
				ft_err("--source=kprobe: %s", why);
				return -1;
			}
			if (!quiet)
				ft_info("faulttune: kprobe recorder not used: %s", why);
		}
		if (fi->kp) {
			if (!quiet)
				ft_info("faulttune: %srecording with kprobe events "
					"(group %s) on %s and the table's unlocks at "
					"%d call sites, and lock:contention_begin/end."
					"\n  call sites seen: %s\n  not seen (their "
					"acquisitions are missing): %s\n  unlocks "
					"at: %s%s%s",
					fi->source == FT_SRC_KPROBE ? "" :
					"kernel without the faulttune tracepoints: ",
					fi->kp->group, fi->kp->key_func,
					fi->kp->nunlock, fi->kp->covered,
					fi->kp->uncovered[0] ? fi->kp->uncovered :
					"none", fi->kp->unlock_at,
					fi->kp->unlock_uncovered[0] ?
					"\n  releases not seen (their holds never "
					"end): " : "", fi->kp->unlock_uncovered);
			if (!quiet && fi->kp->key_callsites)
				ft_info("  keys at its locking calls: %s (releases "
					"that drop to wait: %s)", fi->kp->key_at,
					fi->kp->drops[0] ? fi->kp->drops : "none");
			if (!quiet && fi->kp->unlock_refused[0])
				ft_info("  unlock sites the kernel refused a probe "
					"at (their releases are not seen): %s",
					fi->kp->unlock_refused);
			if (!quiet && fi->kp->cal.done)
				ft_info("  the probes' own cost inside a hold, "
					"measured on %s: %llu ns from the key, "
					"%llu per rehash, %llu from "
					"contention_end; taken off each hold",
					fi->kp->cal.path,
					(unsigned long long)fi->kp->cal.key_unlock,
					(unsigned long long)fi->kp->cal.key_key,
					(unsigned long long)fi->kp->cal.end_unlock);
			else if (!quiet)
				ft_info("  %s", fi->kp->cal_why);
			return 0;
		}
		if (!quiet)
			ft_info("faulttune: kernel without the faulttune tracepoints "
				"(hugetlb_fault_mutex_*, memtype_lock_*): falling back "
				"to lock:contention_begin/end.\n"
				"  can attribute: contended waits per lock, lock type, "
				"caller and op (from a kernel stack per wait), fault "
				"mutex bucket where the table can be found\n"
				"  cannot attribute: (mapping, index), hold times, "
				"collisions vs true sharing, what-if");
		return 0;
	}
	ft_err("this kernel has neither the faulttune tracepoints (hugetlb, "
	       "memtype) nor lock:contention_begin/end (Linux >= 5.19 with "
	       "CONFIG_TRACEPOINTS)");
	return -1;
}
