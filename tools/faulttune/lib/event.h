/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the kernel's contract as the library reads it: the op codes
 * of the hugetlb and memtype events, lock:contention_begin's flags, which
 * account of a recording is read, and struct ft_event, the record every
 * reader hands the analysis (so the unit tests can build event streams
 * by hand).
 */
#ifndef FT_EVENT_H
#define FT_EVENT_H

#include <stdint.h>

/* hugetlb op codes (kernel contract) */
enum ft_hop {
	FT_HOP_FAULT, FT_HOP_WP, FT_HOP_USERFAULT, FT_HOP_FALLOCATE,
	FT_HOP_PUNCH, FT_HOP_MEMFD, FT_HOP_UFFD_COPY, FT_HOP_OTHER,
	FT_HOP_NR
};

/* lock:contention_begin's flags (kernel contract: trace/events/lock.h) */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

/* memtype op codes (kernel contract) */
enum ft_mop {
	FT_MOP_RESERVE, FT_MOP_FREE, FT_MOP_LOOKUP, FT_MOP_LIST, FT_MOP_OTHER,
	FT_MOP_NR
};

enum ft_lock { FT_LK_HUGETLB, FT_LK_MEMTYPE, FT_LK_CONTENTION, FT_LK_NR };

enum ft_kind {
	FT_EV_START,		/* *_start_locking, lock:contention_begin */
	FT_EV_ACQUIRE,		/* *_acquire_returned, lock:contention_end */
	FT_EV_RELEASE,		/* *_released */
	FT_EV_RESIZE,		/* hugetlb_fault_mutex_resize */
	FT_EV_HOLD,		/* *_hold: a whole acquisition, at its release */
	FT_EV_MARKER,		/* ftrace:print from trace_marker */
	FT_EV_STACK,		/* ftrace:kernel_stack (contention fallback) */
	FT_EV_KP_KEY,		/* kprobe recorder: the key of a request */
	FT_EV_KP_UNLOCK,	/* kprobe recorder: a table mutex's unlock call */
};

struct ft_event {
	uint64_t ts;		/* ns */
	int cpu;
	int pid;
	int lock;		/* enum ft_lock */
	int kind;		/* enum ft_kind */
	uint32_t op;
	uint64_t mapping;	/* hugetlb; memtype: start; contention: lock addr */
	uint64_t index;		/* hugetlb; memtype: end; contention: flags */
	uint32_t hash;
	uint32_t bucket;
	uint32_t nbuckets;
	int contended;
	uint64_t wait_ns;
	uint64_t hold_ns;
	/* resize */
	uint32_t old_nbuckets, new_nbuckets;
	uint64_t duration_ns;
	int result;
	const char *marker;	/* FT_EV_MARKER only, not owned */
	const uint64_t *stack;	/* FT_EV_STACK only: return addresses, not owned */
	int nstack;
	uint64_t ip;		/* FT_EV_KP_KEY: caller; FT_EV_KP_UNLOCK: mutex */
	/*
	 * FT_EV_KP_UNLOCK: mapping is the probe's address (0: not known);
	 * index N > 0: a jump-placed release, unlock_j(N - 1), whose ip is
	 * the register the mutex is the table's address plus a multiple of
	 * (the marker's unlock_jump= says which multiple)
	 */
};

/* base.c: names of the ops */
const char *ft_hop_name(unsigned int op);
const char *ft_mop_name(unsigned int op);

/* which recording report and tune read: FT_SRC_AUTO, _EVENTS, _KPROBE */
enum ft_source { FT_SRC_AUTO, FT_SRC_EVENTS, FT_SRC_KPROBE,
		 FT_SRC_CONTENTION, FT_SRC_BOTH };

#endif
