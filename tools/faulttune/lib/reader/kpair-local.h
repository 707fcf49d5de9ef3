/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprobe recorder's read side, shared by its two files: kpair.c
 * turns the probes' events into acquisitions and matches them against
 * the patched kernel's summaries, kpairprint.c prints what it counted.
 * Not the library's interface: faulttune.h is.
 */
#ifndef FAULTTUNE_KPAIR_LOCAL_H
#define FAULTTUNE_KPAIR_LOCAL_H

#include <stdint.h>
#include "kernel.h"
#include "reader.h"

#define KP_QUEUE	16		/* a task's holds awaiting their summary */

enum { KP_IDLE, KP_REQ, KP_HELD };

struct kp_hold {
	uint64_t mapping, index, wait_ns, hold_ns;
	uint32_t hash;
	int contended;
	unsigned int op;
};

struct kp_task {
	int pid, state;
	uint64_t mapping, index, req, acq;
	uint32_t hash, bucket;
	unsigned int op;
	int contended, slept, recomputes;
	struct kp_hold q[KP_QUEUE];	/* emitted, not yet matched */
	int qn;
};

struct ft_kpair {
	struct ft_ksyms *ks;
	int feeds;			/* its acquisitions are the analysis' */
	int raw_holds;			/* the probes' cost left in the holds */
	int have_table, op_arg;
	uint64_t base;
	uint32_t n, stride;
	char key_func[64], covered[512], uncovered[128];
	char unlock_sites[16], unreleased[128];	/* "": mutex_unlock() probed */
	/*
	 * the key at its locking call sites (key_at=callsites:N), not at
	 * the hash's entry: no rehash inside a hold is seen, and a drop's
	 * op (wp, userfault) is its release site's
	 */
	char key_sites[16];
#define KP_DROPS	16
	uint64_t drop_at[KP_DROPS];	/* the marker's drops=: unlock sites */
	unsigned int drop_op[KP_DROPS];	/* and the op each drops for */
	int ndrops;
	uint64_t drops_named;		/* holds whose op their drop's site gave */
	struct kp_task **owner;		/* [n]: held since a contention_end */
	uint64_t *released;		/* [n]: the mutex's last release seen */
	struct ft_map tasks;		/* pid + 1 -> struct kp_task */
	uint64_t keys, acquisitions, recomputes, no_table, unknown_caller;
	uint64_t unlock_nokey, bucket_mismatch, replaced, open_at_end;
	uint64_t acq_at_key;		/* no contention_end: held from the key */
	/* the probes' own cost inside a hold (marker's probe_cost=), ns */
	int have_cal, have_cal_j;
	uint64_t cal_ku, cal_kk, cal_eu;
	uint64_t cal_ku_j, cal_eu_j;	/* released at a jump (probe_cost_jump=) */
#define KP_JUMPS	4
	unsigned int jscale[KP_JUMPS];	/* unlock_jN's (unlock_jump=), 0: none */
	uint64_t jump_releases;		/* releases seen at a jump-placed probe */
	uint64_t jump_outside;		/* of them, a mutex outside the table */
	char cal_on[64];
	uint64_t corrected, clamped, corr_sum;
	uint64_t op_n[FT_HOP_NR];
	/* against the summaries */
	uint64_t summaries, matched, kp_only, ev_only, same_hash, same_bucket,
		 same_contended, same_op;
	struct ft_hist wait_diff, hold_diff;	/* |kprobe - event| */
	int64_t hold_diff_sum, wait_diff_sum;
};

#endif
