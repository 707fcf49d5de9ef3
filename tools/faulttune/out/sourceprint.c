// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording's instance got, said to the user on stderr: the
 * source ft_inst_enable() chose (the faulttune events, the kprobe
 * recorder with lock:contention, or lock:contention alone), what the
 * kernel lacks, and for the kprobe recorder where its probes sit and what
 * their cost inside a hold was measured to be.  record and tune print it;
 * watch, whose line is its output, does not.
 */
#include "out.h"

static void say_kprobes(const struct ft_inst *fi)
{
	const struct ft_kprobes *kp = fi->kp;

	ft_info("faulttune: %srecording with kprobe events (group %s) on %s "
		"and the table's unlocks at %d call sites, and "
		"lock:contention_begin/end.\n  call sites seen: %s\n  not seen "
		"(their acquisitions are missing): %s\n  unlocks at: %s%s%s",
		fi->source == FT_SRC_KPROBE ? "" :
		"kernel without the faulttune tracepoints: ",
		kp->group, kp->key_func, kp->nunlock, kp->covered,
		kp->uncovered[0] ? kp->uncovered : "none", kp->unlock_at,
		kp->unlock_uncovered[0] ? "\n  releases not seen (their holds "
		"never end): " : "", kp->unlock_uncovered);
	if (kp->key_callsites)
		ft_info("  keys at its locking calls: %s (releases that drop "
			"to wait: %s)", kp->key_at,
			kp->drops_at[0] ? kp->drops_at : "none");
	if (kp->njump)
		ft_info("  of them probed before their call, as jumps: %d (%s)",
			kp->njump, kp->jump_at);
	if (kp->unlock_refused[0])
		ft_info("  unlock sites the kernel refused a probe at (their "
			"releases are not seen): %s", kp->unlock_refused);
	if (kp->cal.done)
		ft_info("  the probes' own cost inside a hold, measured on %s: "
			"%llu ns from the key, %llu per rehash, %llu from "
			"contention_end; taken off each hold", kp->cal.path,
			(unsigned long long)kp->cal.key_unlock,
			(unsigned long long)kp->cal.key_key,
			(unsigned long long)kp->cal.end_unlock);
	else
		ft_info("  %s", kp->cal_why);
}

void ft_inst_print_source(const struct ft_inst *fi)
{
	if (fi->evset == FT_EVS_FAULTTUNE) {
		if (!fi->have_hugetlb)
			ft_info("faulttune: no hugetlb fault mutex events (kernel "
				"without the faulttune hugetlb tracepoint patch): "
				"recording memtype only");
		if (!fi->have_memtype)
			ft_info("faulttune: no memtype events (no X86_PAT or kernel "
				"without the memtype tracepoint patch): recording "
				"hugetlb only");
		return;
	}
	if (fi->evset != FT_EVS_CONTENTION)
		return;
	if (fi->kp_why)
		ft_info("faulttune: kprobe recorder not used: %s", fi->kp_why);
	if (fi->kp) {
		say_kprobes(fi);
		return;
	}
	ft_info("faulttune: kernel without the faulttune tracepoints "
		"(hugetlb_fault_mutex_*, memtype_lock_*): falling back "
		"to lock:contention_begin/end.\n"
		"  can attribute: contended waits per lock, lock type, "
		"caller and op (from a kernel stack per wait), fault "
		"mutex bucket where the table can be found\n"
		"  cannot attribute: (mapping, index), hold times, "
		"collisions vs true sharing, what-if");
}
