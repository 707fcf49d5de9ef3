// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: each record into a struct ft_event, by reading its
 * fields at the offsets the file's own formats give (found by name in
 * rd_setup(), never assumed).  Both paths hand their records to
 * rd_on_record(): libtracecmd's iteration (readdat.c) and the in-place
 * decoder (fast.c);
 * the checks of the library path's record order sit here too, since
 * rd_on_record() makes them on every record libtracecmd gives.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include "reader-local.h"

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
	/* releases placed as jumps: an offset from the table (kjump.c) */
	{ "faulttune_", "unlock_j0", -1, FT_EV_KP_UNLOCK },
	{ "faulttune_", "unlock_j1", -1, FT_EV_KP_UNLOCK },
	{ "faulttune_", "unlock_j2", -1, FT_EV_KP_UNLOCK },
	{ "faulttune_", "unlock_j3", -1, FT_EV_KP_UNLOCK },
};

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
 * once, in rd_setup()): what tep_read_number_field() does, without a library
 * call and a switch per field, a third of report's time on big files.
 */
static inline uint64_t num(const struct tep_format_field *f,
			   const struct tep_record *r, int *ok)
{
	if (!f)
		return 0;
	/* rd_setup() refused negative offsets; 64-bit sums cannot wrap */
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
		ev->mapping = d->f_caller ? num(d->f_caller, r, &ok) : 0;
		/* unlock_jN: ip is the register kpair.c scales, N + 1 */
		if (d >= &rd->d[D_K_UJ0])
			ev->index = (uint64_t)(d - &rd->d[D_K_UJ0]) + 1;
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

/* one record, from libtracecmd (h set) or from rd_fast_read() (h NULL) */
int rd_on_record(struct tracecmd_input *h, struct tep_record *r,
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

int rd_setup(struct reader *rd, const char *file)
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
		d->f_lock = i == D_K_UNLOCK ? tep_find_field(e, "lock") :
			    i >= D_K_UJ0 ? tep_find_field(e, "idx") : NULL;
		/*
		 * A key probed at the function's entry fetches its caller;
		 * one probed at each call site is its own caller, as is each
		 * unlock probe: the kernel's __probe_ip says which site fired.
		 */
		if (i >= D_K_KEY)
			d->f_caller = tep_find_field(e, "caller");
		if (i >= D_K_KEY && !d->f_caller)
			d->f_caller = tep_find_field(e, "__probe_ip");
		if ((i == D_K_KEY && (!d->f_mapping || !d->f_index ||
				      !d->f_caller)) ||
		    (i >= D_K_UNLOCK && !d->f_lock)) {
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
