// SPDX-License-Identifier: GPL-2.0
/*
 * Which recording source a run gets, in its instance: the faulttune
 * events where the kernel has them (the *_hold summaries, or the
 * start/acquire/release trio with --trio), else the kprobe recorder with
 * lock:contention_begin/end, else lock:contention alone; --source asks
 * for one (struct ft_inst's source) and is refused in one line where the
 * kernel cannot give it.  The one file of the record side that knows the
 * three sources (the read side's choice is ft_read_opts'): it enables
 * them, and arms and disarms them for watch's windows; the instance
 * itself is tfs.c's, the probes kprobe.c's, and what was chosen is said
 * by out/sourceprint.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "record.h"

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

int ft_inst_enable(struct ft_inst *fi)
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
	fi->have_hugetlb = h;
	fi->have_memtype = m;
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
		}
		return 0;
	}
	ft_err("this kernel has neither the faulttune tracepoints (hugetlb, "
	       "memtype) nor lock:contention_begin/end (Linux >= 5.19 with "
	       "CONFIG_TRACEPOINTS)");
	return -1;
}

/*
 * The chosen source's events on or off, for watch's windows.  The fallback enables two events of
 * the lock system, never the whole system (lockdep's lock_acquire is
 * in it), and its stacktrace trigger goes with them.
 */
int ft_inst_arm(struct ft_inst *fi, int on)
{
	int i, r = 0;

	/*
	 * The kprobe recorder: its probes and waits are armed for the window
	 * only.  A disarmed probe is out of the kernel's text, so between
	 * windows neither the machine nor the hugetlb paths pay for it.
	 * Each arming rewrites the probed instructions, which QEMU's
	 * multi-threaded TCG does not always see at once (a stale
	 * translation once ran into a freed ftrace trampoline): the tests
	 * that watch on the kprobe recorder boot single-threaded TCG
	 * (tests/check.sh), as kdeb-boot.sh does for jump labels.
	 */
	if (fi->kp) {
		r = ft_kprobes_arm(fi->kp, fi->inst, on);
		if (fi->evset == FT_EVS_CONTENTION)
			return r ? -1 : 0;
	}
	if (fi->evset == FT_EVS_CONTENTION) {
		if (on) {
			ft_record_stack_trigger(fi);
			r |= tracefs_event_enable(fi->inst, "lock", "contention_begin");
			r |= tracefs_event_enable(fi->inst, "lock", "contention_end");
		} else {
			r |= tracefs_event_disable(fi->inst, "lock", "contention_begin");
			r |= tracefs_event_disable(fi->inst, "lock", "contention_end");
			tracefs_event_file_write(fi->inst, "lock", "contention_begin",
						 "trigger", "!stacktrace");
		}
		return r ? -1 : 0;
	}
	for (i = 0; i < fi->nsys; i++)
		r |= on ? tracefs_event_enable(fi->inst, fi->systems[i], NULL) :
			tracefs_event_disable(fi->inst, fi->systems[i], NULL);
	return r ? -1 : 0;
}
