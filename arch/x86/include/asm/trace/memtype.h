/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM memtype

#if !defined(_TRACE_MEMTYPE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MEMTYPE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

/*
 * Users of the x86 PAT memtype_lock (arch/x86/mm/pat/memtype.c), and the
 * physical range [start, end) each one works on (0, 0 for list, which
 * reads the tree's entries by position).  The u8 fields come last in the
 * events so that they leave no holes between the u64 ones.
 */
#define MEMTYPE_LOCK_OP_RESERVE		0	/* memtype_reserve() */
#define MEMTYPE_LOCK_OP_FREE		1	/* memtype_free() */
#define MEMTYPE_LOCK_OP_LOOKUP		2	/* lookup_memtype() */
#define MEMTYPE_LOCK_OP_LIST		3	/* memtype_get_idx(), pat_memtype_list */

#define show_memtype_lock_op(op)					\
	__print_symbolic(op,						\
		{ MEMTYPE_LOCK_OP_RESERVE,	"reserve" },		\
		{ MEMTYPE_LOCK_OP_FREE,		"free" },		\
		{ MEMTYPE_LOCK_OP_LOOKUP,	"lookup" },		\
		{ MEMTYPE_LOCK_OP_LIST,		"list" })

TRACE_EVENT(memtype_lock_start_locking,

	TP_PROTO(u8 op, u64 start, u64 end),

	TP_ARGS(op, start, end),

	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u8, op)
	),

	TP_fast_assign(
		__entry->op = op;
		__entry->start = start;
		__entry->end = end;
	),

	TP_printk("op=%s start=0x%llx end=0x%llx",
		  show_memtype_lock_op(__entry->op),
		  __entry->start, __entry->end)
);

TRACE_EVENT(memtype_lock_acquire_returned,

	TP_PROTO(u8 op, u64 start, u64 end, bool contended, u64 wait_ns),

	TP_ARGS(op, start, end, contended, wait_ns),

	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u64, wait_ns)
		__field(u8, op)
		__field(u8, contended)
	),

	TP_fast_assign(
		__entry->op = op;
		__entry->start = start;
		__entry->end = end;
		__entry->contended = contended;
		__entry->wait_ns = wait_ns;
	),

	TP_printk("op=%s start=0x%llx end=0x%llx contended=%u wait_ns=%llu",
		  show_memtype_lock_op(__entry->op),
		  __entry->start, __entry->end,
		  __entry->contended, __entry->wait_ns)
);

TRACE_EVENT(memtype_lock_released,

	TP_PROTO(u8 op, u64 start, u64 end, u64 hold_ns),

	TP_ARGS(op, start, end, hold_ns),

	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u64, hold_ns)
		__field(u8, op)
	),

	TP_fast_assign(
		__entry->op = op;
		__entry->start = start;
		__entry->end = end;
		__entry->hold_ns = hold_ns;
	),

	TP_printk("op=%s start=0x%llx end=0x%llx hold_ns=%llu",
		  show_memtype_lock_op(__entry->op),
		  __entry->start, __entry->end, __entry->hold_ns)
);

/*
 * One record per hold, emitted after the unlock, so that neither the hold
 * it reports nor a waiter pays for recording it: the event to record.
 */
TRACE_EVENT(memtype_lock_hold,

	TP_PROTO(u8 op, u64 start, u64 end, bool contended, u64 wait_ns,
		 u64 hold_ns),

	TP_ARGS(op, start, end, contended, wait_ns, hold_ns),

	TP_STRUCT__entry(
		__field(u64, start)
		__field(u64, end)
		__field(u64, wait_ns)
		__field(u64, hold_ns)
		__field(u8, op)
		__field(u8, contended)
	),

	TP_fast_assign(
		__entry->op = op;
		__entry->start = start;
		__entry->end = end;
		__entry->contended = contended;
		__entry->wait_ns = wait_ns;
		__entry->hold_ns = hold_ns;
	),

	TP_printk("op=%s start=0x%llx end=0x%llx contended=%u wait_ns=%llu hold_ns=%llu",
		  show_memtype_lock_op(__entry->op),
		  __entry->start, __entry->end,
		  __entry->contended, __entry->wait_ns, __entry->hold_ns)
);

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH asm/trace/
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE memtype
#endif /* _TRACE_MEMTYPE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
