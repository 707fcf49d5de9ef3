// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: libtracecmd iterates the records of every CPU in
 * timestamp order; each record is turned into a struct ft_event by reading
 * its fields at the offsets the file's own formats give (found by name,
 * never assumed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include "faulttune.h"

struct ft_evdesc {
	int id;
	int lock, kind;
	struct tep_event *event;
	struct tep_format_field *f_mapping, *f_index, *f_hash, *f_bucket,
		*f_nbuckets, *f_op, *f_contended, *f_wait, *f_hold,
		*f_start, *f_end, *f_addr, *f_flags,
		*f_old, *f_new, *f_dur, *f_result, *f_buf, *f_caller, *f_size,
		*f_lock;
	/* a record this long has every number field in it: no check each */
	unsigned int need;
	/*
	 * decode_full()'s fields read as 8 bytes each and masked to their
	 * size (mask 0: not in the format), when that many bytes from the
	 * record's start are readable (struct reader's room).
	 */
	struct wide_field {
		unsigned int off;
		uint64_t mask;
	} w_mapping, w_index, w_hash, w_bucket, w_nbuckets, w_op, w_contended,
	  w_wait, w_hold, w_old, w_new, w_dur, w_result;
	unsigned int need8;
};

enum {
	D_H_START, D_H_ACQ, D_H_REL, D_H_RESIZE, D_H_HOLD,
	D_M_START, D_M_ACQ, D_M_REL, D_M_HOLD,
	D_C_BEGIN, D_C_END, D_PRINT, D_STACK, D_K_KEY, D_K_UNLOCK, D_NR
};

static const struct {
	const char *sys, *name;
	int lock, kind;
} ev_table[D_NR] = {
	{ "hugetlb", "hugetlb_fault_mutex_start_locking", FT_LK_HUGETLB, FT_EV_START },
	{ "hugetlb", "hugetlb_fault_mutex_acquire_returned", FT_LK_HUGETLB, FT_EV_ACQUIRE },
	{ "hugetlb", "hugetlb_fault_mutex_released", FT_LK_HUGETLB, FT_EV_RELEASE },
	{ "hugetlb", "hugetlb_fault_mutex_resize", FT_LK_HUGETLB, FT_EV_RESIZE },
	{ "hugetlb", "hugetlb_fault_mutex_hold", FT_LK_HUGETLB, FT_EV_HOLD },
	{ "memtype", "memtype_lock_start_locking", FT_LK_MEMTYPE, FT_EV_START },
	{ "memtype", "memtype_lock_acquire_returned", FT_LK_MEMTYPE, FT_EV_ACQUIRE },
	{ "memtype", "memtype_lock_released", FT_LK_MEMTYPE, FT_EV_RELEASE },
	{ "memtype", "memtype_lock_hold", FT_LK_MEMTYPE, FT_EV_HOLD },
	{ "lock", "contention_begin", FT_LK_CONTENTION, FT_EV_START },
	{ "lock", "contention_end", FT_LK_CONTENTION, FT_EV_ACQUIRE },
	{ "ftrace", "print", -1, FT_EV_MARKER },
	{ "ftrace", "kernel_stack", FT_LK_CONTENTION, FT_EV_STACK },
	/* the kprobe recorder's group faulttune_<pid> (kprobe.c) */
	{ "faulttune_", "key", -1, FT_EV_KP_KEY },
	{ "faulttune_", "unlock", -1, FT_EV_KP_UNLOCK },
};

struct reader {
	struct tep_handle *tep;
	struct ft_evdesc d[D_NR];
	/* event id -> index in d[]; ID_OTHER: a format of the file, not ours */
	signed char idmap[65536];
	struct ft_analysis *a;
	unsigned long long records;
	int common_size;		/* bytes of the common fields (type, pid) */
	struct tep_format_field *f_type, *f_pid;	/* common_type, common_pid */
	/* library path: per CPU, where the next record may start, bad page */
	uint64_t next_off[FT_SKIP_NCPUS], bad_page[FT_SKIP_NCPUS];
	uint64_t last_off[FT_SKIP_NCPUS];	/* of the record before */
	struct tracecmd_input *last_h[FT_SKIP_NCPUS];	/* buffer it was in */
	uint64_t page;
	int looped, loop_cpu;		/* library path: a length wrapped back */
	uint64_t loop_off;
	dev_t dev;			/* the file, to find libtracecmd's maps */
	ino_t ino;
	/* fast path: bytes readable from the record's start (its page's) */
	unsigned int room;
	int kp_holds;			/* the kprobe recorder's holds to the analysis */
};

#define ID_OTHER	(-1)	/* an event of the file faulttune does not use */
#define ID_UNKNOWN	(-2)	/* no format in the file has this id */

static void short_record(struct reader *rd, int cpu)
{
	struct ft_cpu_skips *sk = ft_analysis_skips(rd->a, cpu);

	if (sk)
		sk->short_records++;
}

/* a field the record is known to hold (desc->need, or num()'s checks) */
static inline uint64_t num_in(const struct tep_format_field *f,
			      const unsigned char *data)
{
	const unsigned char *p;

	if (!f)
		return 0;
	p = data + f->offset;
	switch (f->size) {
	case 1:
		return *p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	default: {	/* 8: field_ok() allowed no other */
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

/*
 * Read a field at the offset and size its format gave (looked up by name
 * once, in setup()): what tep_read_number_field() does, without a library
 * call and a switch per field, a third of report's time on big files.
 */
static inline uint64_t num(const struct tep_format_field *f,
			   const struct tep_record *r, int *ok)
{
	if (!f)
		return 0;
	/* setup() refused negative offsets; 64-bit sums cannot wrap */
	if ((uint64_t)(unsigned int)f->offset + (unsigned int)f->size >
	    (unsigned int)r->size) {
		*ok = 0;
		return 0;
	}
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		*ok = 0;
		return 0;
	}
	return num_in(f, r->data);
}


/*
 * libtracecmd maps the file's data and leaves what it has read mapped:
 * the resident set grew with the file on the library path (226 MB for a
 * 206 MB file).  Its pages are clean file pages, so dropping them is
 * always safe (a later read faults them in again from the page cache):
 * drop every mapping of the file now and then.
 */
static void lib_drop_pages(const struct reader *rd)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long lo, hi, ino;
	unsigned int maj, mnr;
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &lo, &hi, &maj,
			   &mnr, &ino) == 5 && ino == (unsigned long long)rd->ino &&
		    makedev(maj, mnr) == rd->dev)
			madvise((void *)(uintptr_t)lo, hi - lo, MADV_DONTNEED);
	fclose(f);
}

/*
 * libtracecmd's kbuffer follows lengths blindly: one that wraps sends it
 * back into what it has decoded (or round forever, which the caller's
 * time limit ends), and it returns garbage from there.  A record starts
 * after the end of the one before it on its CPU, on a 4-byte boundary;
 * the rest of a page where one does not is dropped and counted.
 * 0: the record is good, 1: dropped, -1: a loop, the file is refused.
 */
static inline int lib_record_order(struct reader *rd, struct tracecmd_input *h,
				   const struct tep_record *r, int cpu)
{
	uint64_t pg = r->offset & ~(rd->page - 1);

	/* offsets grow within one buffer (top level or instance) */
	if (rd->last_h[cpu] != h) {
		rd->last_h[cpu] = h;
		rd->next_off[cpu] = rd->last_off[cpu] = 0;
	}
	/*
	 * A length that wraps sends kbuffer back into its page, and
	 * libtracecmd reads that page forever: stop the iteration
	 * (libtracecmd 1.3 stops on a negative return, not on any
	 * non-zero one) and refuse the file.
	 */
	if (r->offset <= rd->last_off[cpu] &&
	    pg == (rd->last_off[cpu] & ~(rd->page - 1))) {
		rd->looped = 1;
		rd->loop_cpu = cpu;
		rd->loop_off = pg;
		return -1;
	}
	rd->last_off[cpu] = r->offset;
	if (pg == rd->bad_page[cpu])
		return 1;
	/* the ring buffer aligns every event header to 4 bytes */
	if (r->offset < rd->next_off[cpu] || (r->offset & 3)) {
		struct ft_cpu_skips *sk = ft_analysis_skips(rd->a, cpu);

		if (sk)
			sk->bad_headers++;
		rd->bad_page[cpu] = pg;
		return 1;
	}
	rd->next_off[cpu] = r->offset + 4 + r->size;
	return 0;
}

/* the record's event of ours, or NULL (short, unknown id, or not ours) */
static inline struct ft_evdesc *record_desc(struct reader *rd,
					    const struct tep_record *r, int cpu)
{
	int id, i;

	/* tep_data_type() and tep_data_pid() read the common fields blindly */
	if (r->size < rd->common_size) {
		short_record(rd, cpu);
		return NULL;
	}
	/* common_fields() checked both fields, inside common_size */
	id = rd->f_type ? (int)num_in(rd->f_type, r->data) :
			  tep_data_type(rd->tep, (struct tep_record *)r);
	if (id < 0 || id > 65535 || rd->idmap[id] == ID_UNKNOWN) {
		struct ft_cpu_skips *sk = ft_analysis_skips(rd->a, cpu);

		if (sk)
			sk->unknown_ids++;
		return NULL;
	}
	i = rd->idmap[id];
	return i < 0 ? NULL : &rd->d[i];
}

static inline uint64_t wide_in(const struct wide_field *w,
			       const unsigned char *data)
{
	uint64_t v;

	memcpy(&v, data + w->off, 8);
	return v & w->mask;
}

/*
 * decode_full()'s numbers, each read as 8 bytes and masked (the record's
 * page has need8 bytes from its start): what num_in() reads, without a
 * switch on each field's size.
 */
static inline void decode_wide(struct ft_event *ev, const struct ft_evdesc *d,
			       const unsigned char *p)
{
	ev->mapping = wide_in(&d->w_mapping, p);
	ev->index = wide_in(&d->w_index, p);
	ev->hash = wide_in(&d->w_hash, p);
	ev->bucket = wide_in(&d->w_bucket, p);
	ev->nbuckets = wide_in(&d->w_nbuckets, p);
	ev->op = wide_in(&d->w_op, p);
	ev->contended = !!wide_in(&d->w_contended, p);
	ev->wait_ns = wide_in(&d->w_wait, p);
	ev->hold_ns = wide_in(&d->w_hold, p);
	ev->old_nbuckets = wide_in(&d->w_old, p);
	ev->new_nbuckets = wide_in(&d->w_new, p);
	ev->duration_ns = wide_in(&d->w_dur, p);
	ev->result = (int)wide_in(&d->w_result, p);
}

/* a field for decode_wide(), and the bytes it reads into need8 */
static void wide_set(struct ft_evdesc *d, struct wide_field *w,
		     const struct tep_format_field *f)
{
	w->off = f ? (unsigned int)f->offset : 0;
	w->mask = !f ? 0 : f->size == 8 ? ~0ULL :
		  (1ULL << (8 * f->size)) - 1;
	if (w->off + 8 > d->need8)
		d->need8 = w->off + 8;
}

/* decode_full()'s fields as decode_wide() reads them, by the event's lock */
static void wide_setup(struct ft_evdesc *d)
{
	int h = d->lock == FT_LK_HUGETLB;

	d->need8 = 0;
	wide_set(d, &d->w_mapping, d->lock == FT_LK_CONTENTION ? d->f_addr :
		 d->lock == FT_LK_MEMTYPE ? d->f_start : d->f_mapping);
	wide_set(d, &d->w_index, d->lock == FT_LK_CONTENTION ? d->f_flags :
		 d->lock == FT_LK_MEMTYPE ? d->f_end : d->f_index);
	wide_set(d, &d->w_hash, h ? d->f_hash : NULL);
	wide_set(d, &d->w_bucket, h ? d->f_bucket : NULL);
	wide_set(d, &d->w_nbuckets, h ? d->f_nbuckets : NULL);
	wide_set(d, &d->w_op, d->f_op);
	wide_set(d, &d->w_contended, d->f_contended);
	wide_set(d, &d->w_wait, d->f_wait);
	wide_set(d, &d->w_hold, d->f_hold);
	wide_set(d, &d->w_old, d->f_old);
	wide_set(d, &d->w_new, d->f_new);
	wide_set(d, &d->w_dur, d->f_dur);
	wide_set(d, &d->w_result, d->f_result);
}

/*
 * Every record to the analysis, through the kprobe recorder's pairing
 * when the file has its events: its acquisitions go to the analysis in
 * place of the patched kernel's summaries when those are absent or the
 * user asked for the kprobe source (the summaries are then only matched).
 */
static void feed(struct reader *rd, const struct ft_event *ev)
{
	struct ft_event out;

	if (rd->a->kpair && ft_kpair_feed(rd->a->kpair, ev, &out) &&
	    rd->kp_holds)
		ft_analysis_feed(rd->a, &out);
	if (ev->kind == FT_EV_KP_KEY || ev->kind == FT_EV_KP_UNLOCK)
		return;
	if (rd->kp_holds && ev->lock == FT_LK_HUGETLB)
		return;
	ft_analysis_feed(rd->a, ev);
}

/* a kprobe recorder's event: its fields by name, each checked */
static void decode_kprobe(struct reader *rd, const struct ft_evdesc *d,
			  const struct tep_record *r, struct ft_event *ev,
			  int ok, int cpu)
{
	if (d->kind == FT_EV_KP_KEY) {
		ev->mapping = num(d->f_mapping, r, &ok);
		ev->index = num(d->f_index, r, &ok);
		ev->ip = num(d->f_caller, r, &ok);
		ev->op = d->f_op ? num(d->f_op, r, &ok) : FT_HOP_OTHER;
	} else {
		ev->ip = num(d->f_lock, r, &ok);
	}
	if (!ok)
		short_record(rd, cpu);
	else
		feed(rd, ev);
}

/*
 * A lock event with every number field inside the record: read them
 * without a check each, and set every member rather than clear the
 * event first (a memset per event was a tenth of the read).
 */
static inline void decode_full(struct reader *rd, const struct ft_evdesc *d,
			       const struct tep_record *r, int ok, int cpu)
{
	const unsigned char *p = r->data;
	struct ft_event ev;

	ev.ts = r->ts;
	ev.cpu = cpu;
	ev.pid = rd->f_pid ? (int)num_in(rd->f_pid, r->data) :
			     tep_data_pid(rd->tep, (struct tep_record *)r);
	ev.lock = d->lock;
	ev.kind = d->kind;
	if (rd->room >= d->need8) {
		decode_wide(&ev, d, p);
	} else if (d->lock == FT_LK_CONTENTION) {
		ev.mapping = num_in(d->f_addr, p);
		ev.index = num_in(d->f_flags, p);
	} else if (d->lock == FT_LK_MEMTYPE) {
		ev.mapping = num_in(d->f_start, p);
		ev.index = num_in(d->f_end, p);
	} else {
		ev.mapping = num_in(d->f_mapping, p);
		ev.index = num_in(d->f_index, p);
	}
	if (rd->room < d->need8) {
		ev.hash = d->lock == FT_LK_HUGETLB ? num_in(d->f_hash, p) : 0;
		ev.bucket = d->lock == FT_LK_HUGETLB ? num_in(d->f_bucket, p) : 0;
		ev.nbuckets = d->lock == FT_LK_HUGETLB ?
			      num_in(d->f_nbuckets, p) : 0;
		ev.op = num_in(d->f_op, p);
		ev.contended = !!num_in(d->f_contended, p);
		ev.wait_ns = num_in(d->f_wait, p);
		ev.hold_ns = num_in(d->f_hold, p);
		ev.old_nbuckets = num_in(d->f_old, p);
		ev.new_nbuckets = num_in(d->f_new, p);
		ev.duration_ns = num_in(d->f_dur, p);
		ev.result = (int)num_in(d->f_result, p);
	}
	ev.marker = NULL;
	ev.stack = NULL;
	ev.nstack = 0;
	ev.ip = 0;
	if (!ok)
		short_record(rd, cpu);
	else
		feed(rd, &ev);
}

/* a trace_marker write: its text, "" when it has none inside the record */
static void decode_marker(struct reader *rd, const struct ft_evdesc *d,
			  const struct tep_record *r, struct ft_event *ev)
{
	ev->lock = -1;
	ev->marker = "";
	if (d->f_buf && (unsigned int)d->f_buf->offset < (unsigned int)r->size &&
	    memchr((char *)r->data + d->f_buf->offset, 0,
		   r->size - d->f_buf->offset))
		ev->marker = (char *)r->data + d->f_buf->offset;
	feed(rd, ev);
}

/* a kernel stack: the return addresses inside the record, 128 at most */
static void decode_stack(struct reader *rd, const struct ft_evdesc *d,
			 const struct tep_record *r, struct ft_event *ev, int ok)
{
	/* the payload is 4-byte aligned: copy the return addresses */
	uint64_t st[128], n = num(d->f_size, r, &ok);
	unsigned int off = d->f_caller ? (unsigned int)d->f_caller->offset : 0;

	if (!ok || !d->f_caller || off > (unsigned int)r->size)
		return;
	if (n > (r->size - off) / 8)
		n = (r->size - off) / 8;
	if (n > 128)
		n = 128;
	memcpy(st, (char *)r->data + off, n * 8);
	ev->stack = st;
	ev->nstack = (int)n;
	feed(rd, ev);
}

/* a lock event that may end before its fields: each one checked */
static void decode_checked(struct reader *rd, const struct ft_evdesc *d,
			   const struct tep_record *r, struct ft_event *ev,
			   int ok, int cpu)
{
	if (d->lock == FT_LK_CONTENTION) {
		ev->mapping = num(d->f_addr, r, &ok);
		ev->index = num(d->f_flags, r, &ok);
	} else if (d->lock == FT_LK_MEMTYPE) {
		ev->mapping = num(d->f_start, r, &ok);
		ev->index = num(d->f_end, r, &ok);
	} else {
		ev->mapping = num(d->f_mapping, r, &ok);
		ev->index = num(d->f_index, r, &ok);
		ev->hash = num(d->f_hash, r, &ok);
		ev->bucket = num(d->f_bucket, r, &ok);
		ev->nbuckets = num(d->f_nbuckets, r, &ok);
	}
	ev->op = num(d->f_op, r, &ok);
	ev->contended = !!num(d->f_contended, r, &ok);
	ev->wait_ns = num(d->f_wait, r, &ok);
	ev->hold_ns = num(d->f_hold, r, &ok);
	ev->old_nbuckets = num(d->f_old, r, &ok);
	ev->new_nbuckets = num(d->f_new, r, &ok);
	ev->duration_ns = num(d->f_dur, r, &ok);
	ev->result = (int)num(d->f_result, r, &ok);
	if (!ok)
		short_record(rd, cpu);
	else
		feed(rd, ev);
}

/* one record, from libtracecmd (h set) or from fast_read() (h NULL) */
static int on_record(struct tracecmd_input *h, struct tep_record *r,
		     int cpu, void *data)
{
	struct reader *rd = data;
	struct ft_event ev;
	struct ft_evdesc *d;
	int ok = 1;

	/* the in-place path (h NULL) is ours throughout: lib_loud() said so */
	if (h)
		ft_isolate_phase(FT_PHASE_OURS);
	rd->records++;
	if (h && !(rd->records & 0xffff) && rd->ino)
		lib_drop_pages(rd);
	if (r->missed_events)
		ft_analysis_lost(rd->a, cpu, r->missed_events);
	if (h && cpu >= 0 && cpu < FT_SKIP_NCPUS) {
		int order = lib_record_order(rd, h, r, cpu);

		if (order < 0) {
			ft_isolate_phase(FT_PHASE_LIB);
			return -1;
		}
		if (order)
			goto out;
	}
	d = record_desc(rd, r, cpu);
	if (!d)
		goto out;
	if (d->kind != FT_EV_MARKER && d->kind != FT_EV_STACK &&
	    d->kind != FT_EV_KP_KEY && d->kind != FT_EV_KP_UNLOCK &&
	    (unsigned int)r->size >= d->need) {
		decode_full(rd, d, r, ok, cpu);
		goto out;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts = r->ts;
	ev.cpu = cpu;
	ev.pid = rd->f_pid ? (int)num_in(rd->f_pid, r->data) :
			     tep_data_pid(rd->tep, r);
	ev.lock = d->lock;
	ev.kind = d->kind;
	if (d->kind == FT_EV_MARKER)
		decode_marker(rd, d, r, &ev);
	else if (d->kind == FT_EV_STACK)
		decode_stack(rd, d, r, &ev, ok);
	else if (d->kind == FT_EV_KP_KEY || d->kind == FT_EV_KP_UNLOCK)
		decode_kprobe(rd, d, r, &ev, ok, cpu);
	else
		decode_checked(rd, d, r, &ev, ok, cpu);
out:
	if (h)
		ft_isolate_phase(FT_PHASE_LIB);
	return 0;
}

/*
 * A field faulttune reads: inside the record (offset >= 0, which
 * libtraceevent does not check) and, for a number, 1, 2, 4 or 8 bytes.
 */
static int field_ok(const char *file, const struct tep_event *e,
		    const struct tep_format_field *f, int number)
{
	if (!f)
		return 0;
	if (f->offset >= 0 && f->offset < 65536 && f->size >= 0 &&
	    (!number || f->size == 1 || f->size == 2 || f->size == 4 ||
	     f->size == 8))
		return 0;
	ft_err("%s: event %s:%s: field %s has offset %d and size %d (want an "
	       "offset from 0 to 65535%s)", file, e->system, e->name, f->name,
	       f->offset, f->size, number ? " and a size of 1, 2, 4 or 8" : "");
	return -1;
}

/*
 * Every event of a trace has the same common fields, and both readers
 * read the type and pid of a record before they know its event: a format
 * that places them elsewhere would drop or misattribute records without a
 * word (libtraceevent takes them from one event, faulttune from another).
 * Check every format of the file, and note which ids it has.
 */
static int common_fields(struct reader *rd, const char *file)
{
	struct tep_event **ev = tep_list_events(rd->tep, TEP_EVENT_SORT_ID);
	struct tep_format_field *ref[2] = { NULL, NULL };
	static const char * const name[2] = { "common_type", "common_pid" };
	const struct tep_event *first = NULL;
	int i, k;

	memset(rd->idmap, ID_UNKNOWN, sizeof(rd->idmap));
	for (i = 0; ev && ev[i]; i++) {
		for (k = 0; k < 2; k++) {
			struct tep_format_field *f =
				tep_find_common_field(ev[i], name[k]);

			if (!first) {
				ref[k] = f;
				continue;
			}
			if (!f != !ref[k] || (f && (f->offset != ref[k]->offset ||
						    f->size != ref[k]->size))) {
				ft_err("%s: event %s:%s puts %s at offset %d size %d, "
				       "event %s:%s at offset %d size %d: every "
				       "format must agree", file, ev[i]->system,
				       ev[i]->name, name[k], f ? f->offset : -1,
				       f ? f->size : 0, first->system, first->name,
				       ref[k] ? ref[k]->offset : -1,
				       ref[k] ? ref[k]->size : 0);
				return -1;
			}
		}
		if (!first)
			first = ev[i];
		if (ev[i]->id >= 0 && ev[i]->id <= 65535)
			rd->idmap[ev[i]->id] = ID_OTHER;
	}
	for (k = 0; k < 2 && first; k++)
		if (ref[k] && field_ok(file, first, ref[k], 1))
			return -1;
	if (ref[0] && ref[0]->size != 8)
		rd->f_type = ref[0];
	if (ref[1] && ref[1]->size == 4)
		rd->f_pid = ref[1];
	for (k = 0; k < 2; k++)
		if (ref[k] && ref[k]->offset + ref[k]->size > rd->common_size)
			rd->common_size = ref[k]->offset + ref[k]->size;
	return 0;
}

/* the kprobe recorder's event name in its group faulttune_<pid> */
static struct tep_event *kprobe_event(struct reader *rd, const char *name)
{
	struct tep_event **ev = tep_list_events(rd->tep, TEP_EVENT_SORT_ID);
	int i;

	for (i = 0; ev && ev[i]; i++)
		if (!strncmp(ev[i]->system, "faulttune_", 10) &&
		    !strcmp(ev[i]->name, name))
			return ev[i];
	return NULL;
}

static int setup(struct reader *rd, const char *file)
{
	int i, n = 0;

	if (common_fields(rd, file))
		return -1;
	for (i = 0; i < D_NR; i++) {
		struct ft_evdesc *d = &rd->d[i];
		struct tep_format_field **num_fields[] = {
			&d->f_mapping, &d->f_index, &d->f_hash, &d->f_bucket,
			&d->f_nbuckets, &d->f_op, &d->f_contended, &d->f_wait,
			&d->f_hold, &d->f_start, &d->f_end, &d->f_addr,
			&d->f_flags, &d->f_old, &d->f_new, &d->f_dur,
			&d->f_result, &d->f_size, &d->f_lock,
		};
		struct tep_event *e;
		size_t k;

		if (i >= D_K_KEY)
			e = kprobe_event(rd, ev_table[i].name);
		else
			e = tep_find_event_by_name(rd->tep, ev_table[i].sys,
						   ev_table[i].name);
		d->lock = ev_table[i].lock;
		d->kind = ev_table[i].kind;
		if (!e)
			continue;
		d->event = e;
		d->id = e->id;
		if (e->id >= 0 && e->id <= 65535)
			rd->idmap[e->id] = i;
		d->f_mapping = tep_find_field(e, "mapping");
		d->f_index = tep_find_field(e, "index");
		d->f_hash = tep_find_field(e, "hash");
		d->f_bucket = tep_find_field(e, "bucket");
		d->f_nbuckets = tep_find_field(e, "nbuckets");
		d->f_op = tep_find_field(e, "op");
		d->f_contended = tep_find_field(e, "contended");
		d->f_wait = tep_find_field(e, "wait_ns");
		d->f_hold = tep_find_field(e, "hold_ns");
		d->f_start = tep_find_field(e, "start");
		d->f_end = tep_find_field(e, "end");
		d->f_addr = tep_find_field(e, "lock_addr");
		d->f_flags = tep_find_field(e, "flags");
		d->f_old = tep_find_field(e, "old_nbuckets");
		d->f_new = tep_find_field(e, "new_nbuckets");
		d->f_dur = tep_find_field(e, "duration_ns");
		d->f_result = tep_find_field(e, "result");
		d->f_buf = tep_find_field(e, "buf");
		d->f_caller = tep_find_field(e, "caller");
		d->f_size = tep_find_field(e, "size");
		d->f_lock = i == D_K_UNLOCK ? tep_find_field(e, "lock") : NULL;
		if (i >= D_K_KEY)
			d->f_caller = tep_find_field(e, "caller");
		if ((i == D_K_KEY && (!d->f_mapping || !d->f_index ||
				      !d->f_caller)) ||
		    (i == D_K_UNLOCK && !d->f_lock)) {
			ft_err("%s: kprobe event %s:%s lacks the fields faulttune's "
			       "kprobe recorder gives it", file, e->system, e->name);
			return -1;
		}
		for (k = 0; k < sizeof(num_fields) / sizeof(num_fields[0]); k++) {
			const struct tep_format_field *f = *num_fields[k];

			if (field_ok(file, e, *num_fields[k], 1))
				return -1;
			/* field_ok(): offset 0..65535, size 1, 2, 4 or 8 */
			if (f && (unsigned int)f->offset + (unsigned int)f->size > d->need)
				d->need = (unsigned int)f->offset + (unsigned int)f->size;
		}
		if (field_ok(file, e, d->f_buf, 0) ||
		    field_ok(file, e, d->f_caller, i >= D_K_KEY))
			return -1;
		wide_setup(d);
		if ((i <= D_H_REL || i == D_H_HOLD) &&
		    (!d->f_hash || !d->f_bucket || !d->f_nbuckets ||
		     !d->f_mapping)) {
			ft_err("%s: event hugetlb:%s lacks the hash/bucket/"
			       "nbuckets/mapping fields of the faulttune kernel "
			       "patches", file, ev_table[i].name);
			return -1;
		}
		if (i != D_PRINT && i != D_STACK)
			n++;
	}
	if (!n) {
		ft_err("%s: no hugetlb, memtype or lock:contention events in this "
		       "file (record with 'faulttune record' or 'trace-cmd record "
		       "-e hugetlb -e memtype')", file);
		return -1;
	}
	return 0;
}

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
		return tracecmd_iterate_events(h, NULL, 0, on_record, rd);
	hs = calloc(n + 1, sizeof(*hs));
	if (!hs)
		return -1;
	hs[0] = h;
	for (i = 0; i < n; i++) {
		hs[nh] = tracecmd_buffer_instance_handle(h, i);
		if (hs[nh])
			nh++;
	}
	ret = tracecmd_iterate_events_multi(hs, nh, on_record, rd);
	for (i = 1; i < nh; i++)
		tracecmd_close(hs[i]);
	free(hs);
	return ret;
}


/*
 * libtracecmd trusts its input (a truncated file crashes tracecmd_open()
 * in libtracecmd 1.3), so check the structure of version 6 files first:
 * every size and offset must stay inside the file and every data page
 * must have a sane commit.  Other versions are left to libtracecmd, and
 * cmd_report() reads in a child process so that a crash in the library
 * becomes an error message.
 */
struct cur {
	const unsigned char *p;
	size_t len, off;
	int bad;
};

static uint64_t rd(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->off < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p + c->off, n);	/* little endian host and file */
	c->off += n;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if (c->bad || c->len - c->off < n)
		c->bad = 1;
	else
		c->off += n;
}

static int expect(struct cur *c, const char *s, size_t n)
{
	if (c->bad || c->len - c->off < n || memcmp(c->p + c->off, s, n))
		return c->bad = 1, -1;
	c->off += n;
	return 0;
}

static unsigned int good_prefix(const unsigned char *d, unsigned int size,
				int *odd);

/* what validate() learnt of a plain version 6 file, for fast_read() */
struct layout {
	int plain;		/* v6, long size 8, only CPUSTATS/TRACECLOCK options */
	uint64_t page, cpus;
	uint64_t *off, *size;	/* per CPU, malloc'd */
	uint64_t committed;	/* event bytes the page headers announce */
	int std_header_page;	/* header_page: u64 time stamp, u64 commit, data at 16 */
	int lib;		/* FAULTTUNE_LIBTRACECMD: the library path, always */
	const unsigned char *base;	/* the file, mapped while validate() runs */
	/*
	 * For the library path, which cannot skip what kbuffer misreads:
	 * pages whose events run past their commit (the first of them), and
	 * what empty pages flagged with missed events lost (libtracecmd
	 * reports missed events with a page's first record only).
	 */
	uint64_t past_commit, past_commit_off;
	int past_commit_cpu;
	uint64_t empty_missed, empty_missed_unknown;
};

/* the page layout the fast path decodes, as header_page must describe it */
static int std_header_page(const unsigned char *p, uint64_t len)
{
	static const char * const want[] = {
		"u64 timestamp;\toffset:0;\tsize:8;",
		"commit;\toffset:8;\tsize:8;",
		"char data;\toffset:16;",
	};
	char *text = len < 4096 ? strndup((const char *)p, len) : NULL;
	size_t i;
	int ok = !!text;

	for (i = 0; ok && i < sizeof(want) / sizeof(want[0]); i++)
		ok = strstr(text, want[i]) != NULL;
	free(text);
	return ok;
}

#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define COMMIT_MASK ((1ULL << 27) - 1)
#define PAGE_HDR 16		/* u64 time stamp, u64 commit and flags */

/* a page of a file the library path reads: see struct layout */
static void deep_check(struct layout *lay, const unsigned char *pg,
		       uint64_t commit, uint64_t cpu)
{
	uint64_t flags, missed;

	memcpy(&flags, pg + 8, 8);
	if (commit && good_prefix(pg + PAGE_HDR, commit, NULL) < commit) {
		if (!lay->past_commit++) {
			lay->past_commit_off = pg - lay->base;
			lay->past_commit_cpu = (int)cpu;
		}
	} else if (!commit && (flags & RB_MISSED_EVENTS)) {
		if (flags & RB_MISSED_STORED) {
			memcpy(&missed, pg + PAGE_HDR, 8);
			lay->empty_missed += missed;
		} else {
			lay->empty_missed_unknown++;
		}
	}
}

/* the file mapped read-only into *map, its size in *len; -1: said why */
static int map_file(const char *file, void **map, size_t *len)
{
	struct stat st;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ft_err("%s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size < 16) {
		close(fd);
		ft_err("%s: not a trace.dat file (%lld bytes)", file,
		       (long long)st.st_size);
		return -1;
	}
	*map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*map == MAP_FAILED) {
		ft_err("%s: %s", file, strerror(errno));
		return -1;
	}
	*len = st.st_size;
	return 0;
}

/* other versions: libtracecmd's job; their page size, for on_record() */
static void other_version(const struct cur *c, struct layout *lay)
{
	const unsigned char *z = memchr(c->p + c->off, 0, c->len - c->off);
	uint32_t p32 = 0;

	if (z && (size_t)(z - c->p) + 7 <= c->len)
		memcpy(&p32, z + 3, 4);
	if (ft_is_pow2(p32))
		lay->page = p32;
}

/*
 * A version 6 header after the version string, up to the flyrecord
 * section's per-CPU table: NULL, or what is wrong with it.
 */
static const char *check_header(struct cur *c, struct layout *lay,
				uint64_t *page, uint64_t *long_size,
				uint64_t *cpus)
{
	uint64_t n, i, cmd;

	if (rd(c, 1) != 0)
		return "big-endian trace.dat files are not supported";
	n = rd(c, 1);
	*long_size = n;
	*page = rd(c, 4);
	if (c->bad || (n != 4 && n != 8) || *page < 64 || *page > (1 << 20) ||
	    !ft_is_pow2(*page))
		return "corrupt header (long size or page size)";
	if (expect(c, "header_page", 12))
		return "corrupt header (header_page)";
	n = rd(c, 8);
	if (!c->bad && n <= c->len - c->off)
		lay->std_header_page = std_header_page(c->p + c->off, n);
	skip(c, n);
	if (expect(c, "header_event", 13))
		return "corrupt or truncated header (header_event)";
	skip(c, rd(c, 8));
	n = rd(c, 4);				/* ftrace formats */
	for (i = 0; i < n && !c->bad; i++)
		skip(c, rd(c, 8));
	n = rd(c, 4);				/* systems */
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t e, j;
		const unsigned char *z = memchr(c->p + c->off, 0, c->len - c->off);

		if (!z || z - (c->p + c->off) > 256) {
			c->bad = 1;
			break;
		}
		c->off = z - c->p + 1;
		e = rd(c, 4);
		for (j = 0; j < e && !c->bad; j++)
			skip(c, rd(c, 8));
	}
	skip(c, rd(c, 4));			/* kallsyms */
	skip(c, rd(c, 4));			/* printk formats */
	skip(c, rd(c, 8));			/* cmdlines */
	*cpus = rd(c, 4);
	if (c->bad)
		return "truncated or corrupt header (event formats)";
	if (!*cpus || *cpus > 8192)
		return "corrupt header (cpu count)";
	lay->plain = *long_size == 8 && lay->std_header_page;
	if (c->len - c->off >= 10 && !memcmp(c->p + c->off, "options  ", 10)) {
		c->off += 10;
		while (!c->bad && (cmd = rd(c, 2)) != 0) {
			if (cmd != 2 && cmd != 4)	/* CPUSTATS, TRACECLOCK */
				lay->plain = 0;
			skip(c, rd(c, 4));
		}
	}
	if (expect(c, "flyrecord", 10))
		return c->len - c->off < 10 ? "truncated header (no flyrecord section)" :
			"unsupported or corrupt trace.dat (no flyrecord section)";
	return NULL;
}

/*
 * The per-CPU table and the commits of the data pages: NULL, or what is
 * wrong with them.  deep: check the pages for the library path too.
 */
static const char *check_cpu_data(struct cur *c, struct layout *lay,
				  uint64_t cpus, uint64_t page, int deep)
{
	uint64_t i;

	if (lay->plain) {
		lay->off = calloc(cpus, sizeof(*lay->off));
		lay->size = calloc(cpus, sizeof(*lay->size));
		lay->cpus = cpus;
		lay->page = page;
		if (!lay->off || !lay->size)
			return "out of memory";
	}
	for (i = 0; i < cpus; i++) {
		uint64_t off = rd(c, 8), size = rd(c, 8), q;

		if (lay->plain) {
			lay->off[i] = off;
			lay->size[i] = size;
		}
		if (c->bad)
			return "truncated header (per-CPU offsets)";
		if (!size)
			continue;
		if (off > c->len || size > c->len - off)
			return "truncated: CPU data extends beyond the end of the file";
		if (off % page || size % page)
			return "corrupt CPU data (not page aligned)";
		/*
		 * The fast path checks each page's commit as it decodes it
		 * (cur_page()): a pass of its own touched every page of the
		 * file once more, a tenth of report's time on 1M events.
		 */
		if (lay->plain && !lay->lib)
			continue;
		for (q = off; q < off + size; q += page) {
			uint64_t commit;

			memcpy(&commit, c->p + q + 8, 8);
			commit &= (1ULL << 27) - 1;	/* flag bits on top */
			if (commit > page - 16)
				return "corrupt CPU data page (bad commit size)";
			lay->committed += commit;
			if (deep)
				deep_check(lay, c->p + q, commit, i);
			/* this pass touches every page: do not keep them */
			if (((q + page) & ((4u << 20) - 1)) == 0)
				madvise((void *)(((uintptr_t)c->p + q + page - (4u << 20)) &
						 ~((uintptr_t)getpagesize() - 1)),
					4u << 20, MADV_DONTNEED);
		}
	}
	return NULL;
}

static int validate(const char *file, struct layout *lay)
{
	struct cur c = { 0 };
	uint64_t cpus = 0, page = 0, long_size = 0;
	const char *why = NULL;
	void *map;
	size_t len;
	int deep;

	if (map_file(file, &map, &len))
		return -1;
	c.p = map;
	c.len = len;
	lay->base = map;
	if (expect(&c, "\x17\x08\x44tracing", 10)) {
		why = "not a trace.dat file (bad magic)";
		goto out;
	}
	if (c.p[c.off] != '6' || c.p[c.off + 1] != '\0') {
		other_version(&c, lay);
		goto out;
	}
	c.off += 2;
	why = check_header(&c, lay, &page, &long_size, &cpus);
	if (why)
		goto out;
	/* the pages the library path will read: see struct layout */
	deep = lay->std_header_page && long_size == 8 &&
	       (lay->lib || !lay->plain);
	why = check_cpu_data(&c, lay, cpus, page, deep);
out:
	if (c.bad && !why)
		why = "truncated or corrupt header";
	if (why)
		ft_err("%s: %s", file, why);
	munmap(map, len);
	return why ? -1 : 0;
}

/*
 * The fast path for plain version 6 files (what faulttune record writes):
 * libtracecmd allocates a record per event and merges the CPUs through
 * its own heap; here the file is mapped, every CPU's pages are decoded in
 * place and the CPUs merged by time stamp, lowest CPU first on ties as
 * libtracecmd does.  A page of data events and time extends only (what
 * faulttune record and trace-cmd write) is decoded here (page_next(),
 * by kbuffer's rules); a page with padding or absolute time stamps by
 * libtraceevent's kbuffer, the decoder libtracecmd itself uses: both
 * paths see the same events and time stamps.  The formats still come
 * from libtracecmd (setup()); files with buffer instances, other options
 * or 4-byte longs take the library path.
 *
 * kbuffer trusts the lengths in a page: a commit beyond the page, or an
 * event whose length runs past the commit or wraps, makes it read out of
 * bounds or loop forever.  So each page is checked first, by the ring
 * buffer's length rules only (good_prefix()), and the decoder is handed
 * the good part: the page itself, or a copy with the commit cut before
 * the first bad header.  What is cut is counted per CPU, never dropped
 * silently.
 */
struct cpu_cur {
	const unsigned char *p, *end;	/* this CPU's pages left */
	const unsigned char *drop;	/* decoded pages before it are dropped */
	struct kbuffer *kb;		/* a page with padding or absolute times */
	/* else the page decoded here (page_next()): its data, where next */
	const unsigned char *pd;
	unsigned int pos, size;
	const unsigned char *pg_end;	/* the end of the page being read */
	unsigned char *copy;		/* a page with its commit cut */
	unsigned long long ts;		/* of the current event */
	void *data;			/* its payload, NULL when done */
	unsigned int len;
	uint64_t committed;		/* event bytes its page headers announce */
	const unsigned char *bad_commit;	/* a page whose commit is past it */
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Bytes of a page's data (size = its commit) that hold whole events by
 * the ring buffer's length rules, as kbuffer applies them: type_len 1-28
 * is 4 * type_len bytes of payload; 0 a length word (payload + 4); 29
 * (padding) a length word counted from itself; 30 and 31 (time extend,
 * absolute time stamp) 8 bytes in all.  *odd (if odd) is set when the
 * good part has padding or an absolute time stamp, which page_next()
 * leaves to kbuffer.
 */
static unsigned int good_prefix(const unsigned char *d, unsigned int size,
				int *odd)
{
	unsigned int c = 0, tl, len;

	while (c < size) {
		if (size - c < 4)
			return c;
		tl = get32(d + c) & 0x1f;
		if (tl >= 1 && tl <= 28) {
			if (tl * 4 > size - c - 4)
				return c;
			c += 4 + tl * 4;
			continue;
		}
		if (size - c < 8)
			return c;
		len = get32(d + c + 4);
		switch (tl) {
		case 0:
			if (len < 4 || ((len - 4 + 3) & ~3u) > size - c - 8 ||
			    len > size)
				return c;
			c += 8 + ((len - 4 + 3) & ~3u);
			break;
		case 29:
			if (len > size - c - 4)
				return c;
			c += 4 + len;
			if (odd)
				*odd = 1;
			break;
		default:
			c += 8;
			if (odd && tl == 31)
				*odd = 1;
			break;
		}
	}
	return c;
}

/*
 * The next data event of a page decoded here (c->pd): what
 * kbuffer_next_event() and kbuffer_event_size() give, for the header
 * types a page has when good_prefix() found it good and not odd (data
 * events and time extends), without kbuffer's indirect calls per
 * header, a fifth of report's reading.  The payload, NULL at the end of
 * the page; sets c->ts and c->len.
 */
static inline void *page_next(struct cpu_cur *c)
{
	while (c->pos < c->size) {
		uint32_t w = get32(c->pd + c->pos), tl = w & 0x1f;
		const unsigned char *data;

		c->ts += w >> 5;
		if (tl >= 1 && tl <= 28) {
			data = c->pd + c->pos + 4;
			c->len = tl * 4;
		} else if (tl == 0) {
			data = c->pd + c->pos + 8;
			c->len = (get32(c->pd + c->pos + 4) - 4 + 3) & ~3u;
		} else {	/* 30: a time extend, the delta's upper bits */
			c->ts += (uint64_t)get32(c->pd + c->pos + 4) << 27;
			c->pos += 8;
			continue;
		}
		c->pos = (unsigned int)(data - c->pd) + c->len;
		return (void *)data;
	}
	return NULL;
}

/*
 * Page pg (good, not odd) to decode here, and its first event; 0 when
 * it has none.  Missed events as kbuffer_missed_events() tells them
 * right after loading a page: the page's count when its first data
 * event is its first header, or it has no data at all; else 0.
 */
static int page_load(struct cpu_cur *c, const unsigned char *pg,
		     struct reader *rd, int cpu)
{
	uint64_t flags, lost = 0;
	int missed;

	memcpy(&c->ts, pg, 8);
	memcpy(&flags, pg + 8, 8);
	c->pd = pg + PAGE_HDR;
	c->pos = 0;
	c->size = (unsigned int)(flags & COMMIT_MASK);
	if (flags & RB_MISSED_EVENTS) {
		if (flags & RB_MISSED_STORED)
			memcpy(&lost, c->pd + c->size, 8);
		else
			lost = (uint64_t)-1;
	}
	missed = (int)lost;	/* kbuffer's int */
	if (missed && (!c->size || (get32(c->pd) & 0x1f) <= 28))
		ft_analysis_lost(rd->a, cpu, missed);
	c->data = page_next(c);
	return c->data != NULL;
}

/*
 * Give the pages decoded so far back, a few MB at a time: a file mapping
 * counts in the resident set as it is read, and a report's memory should
 * not grow with the file it reads.
 */
static void drop_behind(struct cpu_cur *c, const unsigned char *upto)
{
	uintptr_t mask = (uintptr_t)getpagesize() - 1;
	uintptr_t start = ((uintptr_t)c->drop + mask) & ~mask;
	uintptr_t end = (uintptr_t)upto & ~mask;

	if (end > start && end - start >= (4u << 20)) {
		madvise((void *)start, end - start, MADV_DONTNEED);
		c->drop = (const unsigned char *)end;
	}
}

/* load the next page with events into kbuffer; 0 at the end of this CPU */
static int cur_page(struct cpu_cur *c, uint64_t page, struct reader *rd, int cpu)
{
	struct ft_cpu_skips *sk;
	uint64_t flags, commit, room = page - PAGE_HDR;
	const unsigned char *pg;
	unsigned int good;
	int missed, odd;

	while (c->p + page <= c->end) {
		pg = c->p;
		c->p += page;
		drop_behind(c, pg);
		/*
		 * The next page's lines are fetched while this one is
		 * decoded: the first look at each line (good_prefix()) was
		 * a cache miss, the hardware does not prefetch across pages.
		 */
		if (c->p + page <= c->end) {
			uint64_t l;

			for (l = 0; l < page; l += 64)
				__builtin_prefetch(c->p + l);
		}
		memcpy(&flags, pg + 8, 8);
		commit = flags & COMMIT_MASK;
		if (commit > room) {
			/* the file is refused, as validate() refuses it */
			c->bad_commit = pg;
			break;
		}
		c->committed += commit;
		if ((flags & RB_MISSED_STORED) && commit + 8 > room) {
			sk = ft_analysis_skips(rd->a, cpu);
			if (sk) {
				sk->bad_pages++;
				sk->skipped_bytes += room;
			}
			continue;
		}
		odd = 0;
		good = good_prefix(pg + PAGE_HDR, commit, &odd);
		if (good < commit) {
			uint64_t cut = (flags & ~COMMIT_MASK) | good;

			sk = ft_analysis_skips(rd->a, cpu);
			if (sk) {
				sk->bad_headers++;
				sk->skipped_bytes += commit - good;
			}
			memcpy(c->copy, pg, PAGE_HDR + good);
			memcpy(c->copy + 8, &cut, 8);
			if (flags & RB_MISSED_STORED)	/* the count follows the data */
				memcpy(c->copy + PAGE_HDR + good,
				       pg + PAGE_HDR + commit, 8);
			pg = c->copy;
		}
		c->pg_end = pg + page;
		if (!odd) {
			if (page_load(c, pg, rd, cpu))
				return 1;
			continue;
		}
		c->pd = NULL;
		if (kbuffer_load_subbuffer(c->kb, (void *)pg))
			continue;
		missed = kbuffer_missed_events(c->kb);
		if (missed)
			ft_analysis_lost(rd->a, cpu, missed);
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data)
			return 1;
	}
	c->data = NULL;
	return 0;
}

static void cur_set_len(struct cpu_cur *c)
{
	if (c->data && !c->pd)
		c->len = kbuffer_event_size(c->kb);
}

/* advance to the next data event; 0 at the end of this CPU */
static int cur_next(struct cpu_cur *c, uint64_t page, struct reader *rd, int cpu)
{
	if (c->data)
		c->data = c->pd ? page_next(c) :
			  kbuffer_next_event(c->kb, &c->ts);
	if (!c->data)
		cur_page(c, page, rd, cpu);
	cur_set_len(c);
	return c->data != NULL;
}

static int fast_read(const char *file, struct layout *lay,
		     struct reader *rd)
{
	struct cpu_cur *cur;
	struct tep_record rec;
	struct stat st;
	void *map;
	uint64_t i;
	int fd, ret = -1;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ft_err("%s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		ft_err("%s: %s", file, strerror(errno));
		return -1;
	}
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	cur = calloc(lay->cpus, sizeof(*cur));
	if (!cur)
		goto nomem;
	for (i = 0; i < lay->cpus; i++) {
		cur[i].kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		cur[i].copy = malloc(lay->page);
		if (!cur[i].kb || !cur[i].copy)
			goto nomem;
		/* validate() checked that off + size is inside the file */
		cur[i].p = (const unsigned char *)map + lay->off[i];
		cur[i].end = cur[i].p + lay->size[i];
		cur[i].drop = cur[i].p;
		cur_next(&cur[i], lay->page, rd, (int)i);
	}
	memset(&rec, 0, sizeof(rec));
	for (;;) {
		struct cpu_cur *m = NULL;
		int cpu = -1;

		for (i = 0; i < lay->cpus; i++) {
			if (cur[i].data && (!m || cur[i].ts < m->ts)) {
				m = &cur[i];
				cpu = (int)i;
			}
			if (cur[i].bad_commit)
				goto bad_commit;
		}
		if (!m)
			break;
		rec.ts = m->ts;
		rec.data = m->data;
		rec.size = m->len;
		rec.cpu = cpu;
		rd->room = (unsigned int)(m->pg_end -
					  (const unsigned char *)m->data);
		on_record(NULL, &rec, cpu, rd);
		cur_next(m, lay->page, rd, cpu);
	}
	rd->room = 0;
	for (i = 0; i < lay->cpus; i++)
		lay->committed += cur[i].committed;
	ret = 0;
	goto out;
bad_commit:
	ft_err("%s: corrupt CPU data page (bad commit size)", file);
	goto out;
nomem:
	ft_err("%s: out of memory for the page decoders", file);
out:
	for (i = 0; cur && i < lay->cpus; i++) {
		kbuffer_free(cur[i].kb);
		free(cur[i].copy);
	}
	free(cur);
	munmap(map, st.st_size);
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
	/* FAULTTUNE_LIBTRACECMD=1: always the library path (tests compare) */
	lay.lib = getenv("FAULTTUNE_LIBTRACECMD") != NULL;
	if (validate(file, &lay)) {
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
	if (!rd || !(rd->tep = tracecmd_get_tep(h)) || setup(rd, file)) {
		free(rd);
		free(lay.off);
		free(lay.size);
		tracecmd_close(h);
		return -1;
	}
	/* the kprobe recorder's events: its acquisitions, and which source */
	if (rd->d[D_K_KEY].event && rd->d[D_K_UNLOCK].event &&
	    ft_source != FT_SRC_EVENTS && ft_source != FT_SRC_CONTENTION) {
		if (!a->kpair)	/* tune --from FILE...: one for them all */
			a->kpair = ft_kpair_new(file);
		rd->kp_holds = a->kpair && (ft_source == FT_SRC_KPROBE ||
					    !rd->d[D_H_HOLD].event);
		if (a->kpair)
			ft_kpair_feeds(a->kpair, rd->kp_holds);
	}
	/* the file's formats are known: the consumers it has events for */
	ft_consumers_start(a, file, rd->tep);
	if (lay.plain && tracecmd_buffer_instances(h) == 0 && !lay.lib) {
		ret = fast_read(file, &lay, rd);	/* says why itself */
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
