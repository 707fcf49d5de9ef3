/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hugetlb

#if !defined(_TRACE_HUGETLB_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_HUGETLB_H

#include <linux/tracepoint.h>
#include <linux/types.h>
#include <linux/hugetlb.h>

/*
 * The hugetlb fault mutexes serialize faults, fallocate, hole punch,
 * truncate, memfd pinning and UFFDIO_COPY on one huge page of a file.
 * The events record the full 32-bit hash of (mapping, index) as well as
 * the bucket it selected, so that a recording can be re-bucketed offline
 * for any table size: bucket == hash & (nbuckets - 1).  The text output
 * prints mapping as a hashed pointer and leaves the hash out, since with a
 * known index the hash gives the pointer back; tools read both from the
 * raw record.
 */
#define show_hugetlb_fault_op(op)					\
	__print_symbolic(op,						\
		{ HUGETLB_FAULT_OP_FAULT,	"fault" },		\
		{ HUGETLB_FAULT_OP_WP,		"wp" },			\
		{ HUGETLB_FAULT_OP_USERFAULT,	"userfault" },		\
		{ HUGETLB_FAULT_OP_FALLOCATE,	"fallocate" },		\
		{ HUGETLB_FAULT_OP_PUNCH,	"punch" },		\
		{ HUGETLB_FAULT_OP_MEMFD,	"memfd" },		\
		{ HUGETLB_FAULT_OP_UFFD_COPY,	"uffd_copy" })

TRACE_EVENT(hugetlb_fault_mutex_start_locking,

	TP_PROTO(unsigned long mapping, unsigned long index, u32 hash,
		 u32 bucket, u32 nbuckets, u8 op),

	TP_ARGS(mapping, index, hash, bucket, nbuckets, op),

	TP_STRUCT__entry(
		__field(unsigned long, mapping)
		__field(unsigned long, index)
		__field(u32, hash)
		__field(u32, bucket)
		__field(u32, nbuckets)
		__field(u8, op)
	),

	TP_fast_assign(
		__entry->mapping = mapping;
		__entry->index = index;
		__entry->hash = hash;
		__entry->bucket = bucket;
		__entry->nbuckets = nbuckets;
		__entry->op = op;
	),

	TP_printk("mapping=%p index=%lu bucket=%u nbuckets=%u op=%s",
		  (void *)__entry->mapping, __entry->index,
		  __entry->bucket, __entry->nbuckets,
		  show_hugetlb_fault_op(__entry->op))
);

TRACE_EVENT(hugetlb_fault_mutex_acquire_returned,

	TP_PROTO(unsigned long mapping, unsigned long index, u32 hash,
		 u32 bucket, u32 nbuckets, u8 op, bool contended, u64 wait_ns),

	TP_ARGS(mapping, index, hash, bucket, nbuckets, op, contended, wait_ns),

	TP_STRUCT__entry(
		__field(unsigned long, mapping)
		__field(unsigned long, index)
		__field(u32, hash)
		__field(u32, bucket)
		__field(u32, nbuckets)
		__field(u8, op)
		__field(u8, contended)
		__field(u64, wait_ns)
	),

	TP_fast_assign(
		__entry->mapping = mapping;
		__entry->index = index;
		__entry->hash = hash;
		__entry->bucket = bucket;
		__entry->nbuckets = nbuckets;
		__entry->op = op;
		__entry->contended = contended;
		__entry->wait_ns = wait_ns;
	),

	TP_printk("mapping=%p index=%lu bucket=%u nbuckets=%u op=%s contended=%u wait_ns=%llu",
		  (void *)__entry->mapping, __entry->index,
		  __entry->bucket, __entry->nbuckets,
		  show_hugetlb_fault_op(__entry->op),
		  __entry->contended, __entry->wait_ns)
);

TRACE_EVENT(hugetlb_fault_mutex_released,

	TP_PROTO(unsigned long mapping, unsigned long index, u32 hash,
		 u32 bucket, u32 nbuckets, u8 op, u64 hold_ns),

	TP_ARGS(mapping, index, hash, bucket, nbuckets, op, hold_ns),

	TP_STRUCT__entry(
		__field(unsigned long, mapping)
		__field(unsigned long, index)
		__field(u32, hash)
		__field(u32, bucket)
		__field(u32, nbuckets)
		__field(u8, op)
		__field(u64, hold_ns)
	),

	TP_fast_assign(
		__entry->mapping = mapping;
		__entry->index = index;
		__entry->hash = hash;
		__entry->bucket = bucket;
		__entry->nbuckets = nbuckets;
		__entry->op = op;
		__entry->hold_ns = hold_ns;
	),

	TP_printk("mapping=%p index=%lu bucket=%u nbuckets=%u op=%s hold_ns=%llu",
		  (void *)__entry->mapping, __entry->index,
		  __entry->bucket, __entry->nbuckets,
		  show_hugetlb_fault_op(__entry->op), __entry->hold_ns)
);

/*
 * One record per acquisition, emitted after the mutex and the table are
 * given back: neither the hold it reports nor the wait of the next owner
 * includes the cost of recording it.  The three events above show the
 * steps as they happen; this one is the one to record.
 */
TRACE_EVENT(hugetlb_fault_mutex_hold,

	TP_PROTO(unsigned long mapping, unsigned long index, u32 hash,
		 u32 bucket, u32 nbuckets, u8 op, bool contended,
		 u64 wait_ns, u64 hold_ns),

	TP_ARGS(mapping, index, hash, bucket, nbuckets, op, contended,
		wait_ns, hold_ns),

	TP_STRUCT__entry(
		__field(unsigned long, mapping)
		__field(unsigned long, index)
		__field(u64, wait_ns)
		__field(u64, hold_ns)
		__field(u32, hash)
		__field(u32, bucket)
		__field(u32, nbuckets)
		__field(u8, op)
		__field(u8, contended)
	),

	TP_fast_assign(
		__entry->mapping = mapping;
		__entry->index = index;
		__entry->wait_ns = wait_ns;
		__entry->hold_ns = hold_ns;
		__entry->hash = hash;
		__entry->bucket = bucket;
		__entry->nbuckets = nbuckets;
		__entry->op = op;
		__entry->contended = contended;
	),

	TP_printk("mapping=%p index=%lu bucket=%u nbuckets=%u op=%s contended=%u wait_ns=%llu hold_ns=%llu",
		  (void *)__entry->mapping, __entry->index,
		  __entry->bucket, __entry->nbuckets,
		  show_hugetlb_fault_op(__entry->op),
		  __entry->contended, __entry->wait_ns, __entry->hold_ns)
);

/* Only debugfs resizes the table: without it there is nothing to report. */
#ifdef CONFIG_DEBUG_FS
TRACE_EVENT(hugetlb_fault_mutex_resize,

	TP_PROTO(u32 old_nbuckets, u32 new_nbuckets, u64 duration_ns,
		 int result),

	TP_ARGS(old_nbuckets, new_nbuckets, duration_ns, result),

	TP_STRUCT__entry(
		__field(u32, old_nbuckets)
		__field(u32, new_nbuckets)
		__field(u64, duration_ns)
		__field(int, result)
	),

	TP_fast_assign(
		__entry->old_nbuckets = old_nbuckets;
		__entry->new_nbuckets = new_nbuckets;
		__entry->duration_ns = duration_ns;
		__entry->result = result;
	),

	TP_printk("old_nbuckets=%u new_nbuckets=%u duration_ns=%llu result=%d",
		  __entry->old_nbuckets, __entry->new_nbuckets,
		  __entry->duration_ns, __entry->result)
);
#endif /* CONFIG_DEBUG_FS */

#endif /* _TRACE_HUGETLB_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
