// SPDX-License-Identifier: GPL-2.0
/*
 * The lock:contention fallback: what a kernel without the faulttune
 * events can still tell about the hugetlb fault mutexes and memtype_lock.
 *
 * lock:contention_begin/end give a lock address, the lock type flags and
 * the wait (begin to end of one task on one address); nothing about the
 * hold.  With the instance's "stacktrace" trigger on contention_begin,
 * each begin is followed (or, in trigger mode, preceded) by a
 * ftrace:kernel_stack event of the same task on the same CPU.  The first
 * frame outside the locking code is the caller; a mutex wait whose caller
 * is a hugetlb fault mutex site (hugetlb_fault, hugetlbfs_fallocate,
 * remove_inode_hugepages, memfd_alloc_folio, mfill_atomic_hugetlb) is a
 * fault mutex wait with that site's op; a spinlock wait in a PAT function
 * is memtype_lock.  Static locks are named from kallsyms, which
 * "faulttune record" stores in the trace.dat, so that report works
 * offline and trace-cmd report prints the stacks with names too.
 *
 * The fault mutexes are one kmalloc'ed array: the bucket of an address
 * is (addr - base) / sizeof(struct mutex).  "faulttune record" writes
 * what it could find into a marker: the base and the size from /proc/kcore
 * (hugetlb_fault_mutex_table and num_fault_mutexes, data symbols that need
 * CONFIG_KALLSYMS_ALL), the stride from BTF or, without BTF, from the
 * table's own memory (each idle mutex's wait_list points to itself).
 *
 * What the waits say (ft_fallback_view(): the locks by wait, the share
 * of recorded time, the verdict) is decided here; fallbackprint.c prints
 * it.
 */
#include <stdlib.h>
#include <string.h>
#include "fallback-local.h"

/* ------------------------------------------------------------------------ */
/* classification of a kernel stack */

struct site {
	const char *func;
	int cls, op;
};

/*
 * The functions that lock the fault mutex table or memtype_lock
 * themselves in 6.12 (mm/hugetlb.c, fs/hugetlbfs/inode.c, mm/memfd.c,
 * mm/userfaultfd.c, arch/x86/mm/pat/memtype.c), plus their callers that
 * the compiler may inline them into (remove_inode_hugepages).  The first
 * of these outside the locking code decides; hugetlb_wp drops and retakes
 * the mutex itself, so it is looked for before hugetlb_fault.
 */
static const struct site sites[] = {
	{ "hugetlb_wp", FB_FAULT_MUTEX, FT_HOP_WP },
	{ "hugetlb_fault", FB_FAULT_MUTEX, FT_HOP_FAULT },
	{ "hugetlbfs_fallocate", FB_FAULT_MUTEX, FT_HOP_FALLOCATE },
	{ "remove_inode_hugepages", FB_FAULT_MUTEX, FT_HOP_PUNCH },
	{ "hugetlbfs_punch_hole", FB_FAULT_MUTEX, FT_HOP_PUNCH },
	{ "hugetlb_vmtruncate", FB_FAULT_MUTEX, FT_HOP_PUNCH },
	{ "hugetlbfs_evict_inode", FB_FAULT_MUTEX, FT_HOP_PUNCH },
	{ "memfd_alloc_folio", FB_FAULT_MUTEX, FT_HOP_MEMFD },
	{ "mfill_atomic_hugetlb", FB_FAULT_MUTEX, FT_HOP_UFFD_COPY },
	{ "memtype_reserve", FB_MEMTYPE, FT_MOP_RESERVE },
	{ "memtype_reserve_io", FB_MEMTYPE, FT_MOP_RESERVE },
	{ "memtype_free", FB_MEMTYPE, FT_MOP_FREE },
	{ "memtype_free_io", FB_MEMTYPE, FT_MOP_FREE },
	{ "lookup_memtype", FB_MEMTYPE, FT_MOP_LOOKUP },
	{ "memtype_get_idx", FB_MEMTYPE, FT_MOP_LIST },
	{ "memtype_seq_start", FB_MEMTYPE, FT_MOP_LIST },
	{ "memtype_seq_next", FB_MEMTYPE, FT_MOP_LIST },
};

/*
 * Frames of the locking and tracing code itself, between the tracepoint
 * and the code that asked for the lock.  The patched kernel's
 * hugetlb_fault_mutex_lock() helper is one too: its caller is the site.
 */
static const char *const internal_prefix[] = {
	"trace_event_raw_event_", "perf_trace_", "__traceiter_", "trace_contention",
	"__bpf_trace", "event_triggers_call", "stacktrace_trigger", "__trace_stack",
	"__mutex_", "mutex_", "ww_mutex_", "_raw_", "__raw_", "do_raw_",
	"queued_", "__pv_queued_", "native_queued_", "pv_queued_",
	"down_", "__down", "rwsem_", "__rwsem_", "rt_mutex", "__rt_mutex",
	"rt_spin", "rt_read", "rt_write", "rwbase_", "percpu_down", "__percpu_down",
	"osq_lock", "lock_acquire", "__lock_acquire", "spin_lock", "__spin_lock",
	"hugetlb_fault_mutex_lock", "memtype_lock_lock",
};

/* "name" of "name.cold", "name.isra.0", "name.constprop.0" */
static int name_is(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(sym, name, n) && (sym[n] == '\0' || sym[n] == '.');
}

static int is_internal(const char *sym)
{
	size_t i;

	for (i = 0; i < sizeof(internal_prefix) / sizeof(internal_prefix[0]); i++)
		if (!strncmp(sym, internal_prefix[i], strlen(internal_prefix[i])))
			return 1;
	return 0;
}

static void classify(const struct ft_ksyms *ks, const uint64_t *st, int n,
		     struct fb_cls *c)
{
	int i, first = 1;
	size_t s;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n; i++) {
		const char *fn = ft_ksyms_func(ks, st[i], NULL);

		if (!fn) {
			if (st[i] && first)
				break;		/* unknown caller: say nothing */
			continue;
		}
		if (is_internal(fn))
			continue;
		if (first) {
			c->caller = fn;
			first = 0;
		}
		for (s = 0; s < sizeof(sites) / sizeof(sites[0]); s++)
			if (name_is(fn, sites[s].func)) {
				c->cls = sites[s].cls;
				c->op = sites[s].op;
				return;
			}
		/*
		 * Only the direct caller (or what the compiler inlined it
		 * into: the site list has those) says which lock it is; a
		 * lock taken further down a hugetlb path is another lock.
		 */
		return;
	}
}

/* ------------------------------------------------------------------------ */
/* report side */

struct ft_fallback *ft_fallback_new(struct ft_ksyms *ks, const char *from)
{
	struct ft_fallback *fb = calloc(1, sizeof(*fb));

	if (!fb) {
		ft_ksyms_free(ks);
		return NULL;
	}
	fb->ks = ks;
	fb->ksyms_from = from;
	fb->max_cpu = -1;
	return fb;
}

static void free_ptr(void *p)
{
	free(p);
}

void ft_fallback_free(struct ft_fallback *fb)
{
	if (!fb)
		return;
	ft_map_free(&fb->locks, free_ptr);
	ft_map_free(&fb->tasks, free_ptr);
	ft_ksyms_free(fb->ks);
	free(fb->cpu);
	free(fb);
}

static struct fb_cpu *cpu_get(struct ft_fallback *fb, int cpu)
{
	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu > fb->max_cpu)
		fb->max_cpu = cpu;
	if (cpu >= fb->ncpu) {
		int n = cpu + 1;
		struct fb_cpu *c = realloc(fb->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + fb->ncpu, 0, (n - fb->ncpu) * sizeof(*c));
		fb->cpu = c;
		fb->ncpu = n;
	}
	return &fb->cpu[cpu];
}

static struct fb_task *task_get(struct ft_fallback *fb, int pid)
{
	void **slot = ft_map_get(&fb->tasks, (uint64_t)(unsigned int)pid + 1, 1);

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = calloc(1, sizeof(struct fb_task));
	return *slot;
}

static void push(struct fb_pend *arr, int *n, const struct fb_pend *p)
{
	if (*n == FB_PENDING) {
		memmove(arr, arr + 1, (FB_PENDING - 1) * sizeof(*arr));
		(*n)--;
	}
	arr[(*n)++] = *p;
}

/* give a stack to the task's open wait on addr, unless it has one */
static void attach(struct ft_fallback *fb, int pid, uint64_t addr,
		   const struct fb_cls *c)
{
	struct fb_task *t = task_get(fb, pid);
	int i;

	if (!t)
		return;
	for (i = t->n - 1; i >= 0; i--)
		if (t->open[i].addr == addr) {
			fb->stacks_used++;
			if (!t->open[i].has_stack) {
				t->open[i].c = *c;
				t->open[i].has_stack = 1;
			}
			return;
		}
}

static void on_stack(struct ft_fallback *fb, const struct ft_event *ev)
{
	struct fb_cpu *cpu = cpu_get(fb, ev->cpu);
	struct fb_pend p = { .pid = ev->pid };

	fb->stacks++;
	if (!cpu)
		return;
	classify(fb->ks, ev->stack, ev->nstack, &p.c);
	if (cpu->nbegin && cpu->begin[cpu->nbegin - 1].pid == ev->pid) {
		cpu->nbegin--;
		attach(fb, ev->pid, cpu->begin[cpu->nbegin].addr, &p.c);
		return;
	}
	push(cpu->stack, &cpu->nstack, &p);
}

static void on_begin(struct ft_fallback *fb, const struct ft_event *ev)
{
	struct fb_task *t = task_get(fb, ev->pid);
	struct fb_cpu *cpu = cpu_get(fb, ev->cpu);
	struct fb_pend p = { .pid = ev->pid, .addr = ev->mapping };
	struct fb_wait *w;

	fb->begins++;
	if (!t || !cpu)
		return;
	if (t->n && t->open[t->n - 1].addr == ev->mapping) {
		/* a mutex's spin, then its sleep: one wait */
		t->open[t->n - 1].flags = (uint32_t)ev->index;
		fb->continued++;
	} else {
		if (t->n == FB_OPEN) {
			memmove(t->open, t->open + 1, (FB_OPEN - 1) * sizeof(*w));
			t->n--;
			fb->begin_unpaired++;
		}
		w = &t->open[t->n++];
		memset(w, 0, sizeof(*w));
		w->addr = ev->mapping;
		w->ts = ev->ts;
		w->flags = (uint32_t)ev->index;
	}
	if (cpu->nstack && cpu->stack[cpu->nstack - 1].pid == ev->pid) {
		cpu->nstack--;
		attach(fb, ev->pid, ev->mapping, &cpu->stack[cpu->nstack].c);
		return;
	}
	push(cpu->begin, &cpu->nbegin, &p);
}

static void sum_add(struct fb_sum *s, uint64_t w)
{
	s->n++;
	s->total += w;
	if (w > s->max)
		s->max = w;
}

static void on_end(struct ft_fallback *fb, const struct ft_event *ev)
{
	struct fb_task *t = task_get(fb, ev->pid);
	struct fb_wait w;
	struct fb_lock *l;
	const char *dsym;
	uint64_t wait, off = 0;
	void **slot;
	int i;

	fb->ends++;
	if (!t)
		return;
	for (i = t->n - 1; i >= 0 && t->open[i].addr != ev->mapping; i--)
		;
	if (i < 0) {
		fb->end_unpaired++;
		return;
	}
	w = t->open[i];
	/* waits opened inside this one and never closed are lost */
	fb->begin_unpaired += t->n - 1 - i;
	t->n = i;
	wait = ev->ts > w.ts ? ev->ts - w.ts : 0;
	if (wait > FT_IMPLAUSIBLE_NS) {	/* a garbage time: count, skip */
		fb->end_unpaired++;
		return;
	}
	/*
	 * A mutex's slow path begins spinning; only a wait that sleeps
	 * begins again without LCB_F_SPIN.  With lock debugging there is
	 * no fast path: every mutex_lock() passes here, contended or not.
	 */
	if (w.flags & LCB_F_MUTEX) {
		fb->mutex_waits++;
		if (w.flags & LCB_F_SPIN)
			fb->mutex_spun++;
	}
	if (w.has_stack)
		fb->with_stack++;
	else
		fb->without_stack++;
	/* a static lock's own name outranks what its caller suggests */
	dsym = ft_ksyms_data(fb->ks, w.addr, &off);
	if (dsym && !off && !strcmp(dsym, "memtype_lock")) {
		if (w.c.cls != FB_MEMTYPE) {
			w.c.cls = FB_MEMTYPE;
			w.c.op = FT_MOP_OTHER;
		}
	} else if (w.c.cls == FB_MEMTYPE && dsym) {
		w.c.cls = FB_OTHER;	/* a PAT function, another lock */
	} else if (w.c.cls == FB_FAULT_MUTEX && !(w.flags & LCB_F_MUTEX)) {
		w.c.cls = FB_OTHER;	/* the table holds mutexes only */
	} else if (w.c.cls == FB_MEMTYPE && !(w.flags & LCB_F_SPIN)) {
		w.c.cls = FB_OTHER;
	}
	slot = ft_map_get(&fb->locks, w.addr, 1);
	if (!slot)
		return;
	if (!*slot) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return;
		l->addr = w.addr;
		*slot = l;
	}
	l = *slot;
	l->flags = w.flags;
	/*
	 * The lock's class: the first stack that attributed it; its caller
	 * and op: those of its longest wait (one lock, many callers).
	 */
	if (w.has_stack && (!l->has_stack ||
			    (l->c.cls == FB_OTHER && w.c.cls != FB_OTHER) ||
			    (w.c.cls == l->c.cls && wait >= l->w.max))) {
		l->c = w.c;
		l->has_stack = 1;
	} else if (w.c.cls == FB_MEMTYPE && l->c.cls != FB_MEMTYPE) {
		l->c = w.c;
	}
	sum_add(&l->w, wait);
	sum_add(&fb->all, wait);
	sum_add(&fb->cls[w.c.cls], wait);
	if (w.c.cls == FB_FAULT_MUTEX && w.c.op < FT_HOP_NR)
		sum_add(&fb->hop[w.c.op], wait);
	if (w.c.cls == FB_MEMTYPE && w.c.op < FT_MOP_NR)
		sum_add(&fb->mop[w.c.op], wait);
}

static void on_marker(struct ft_fallback *fb, const char *m)
{
	const char *p;
	char from[48] = "", sfrom[48] = "";
	unsigned long long base = 0;
	unsigned int n = 0, bytes = 0;
	int cpus = 0;

	if (!m || !(p = strstr(m, " fallback cpus=")))
		return;
	if (sscanf(p, " fallback cpus=%d table=%llx nbuckets=%u "
		   "table_from=%47s mutex_bytes=%u mutex_bytes_from=%47s",
		   &cpus, &base, &n, from, &bytes, sfrom) != 6)
		return;
	fb->have_marker = 1;
	fb->recorded_cpus = cpus;
	fb->table_base = base;
	fb->table_n = n;
	fb->mutex_bytes = bytes;
	snprintf(fb->table_from, sizeof(fb->table_from), "%s", from);
	snprintf(fb->stride_from, sizeof(fb->stride_from), "%s", sfrom);
	p = strstr(p, " why=");
	if (p) {
		snprintf(fb->table_why, sizeof(fb->table_why), "%s", p + 5);
		fb->table_why[strcspn(fb->table_why, "\n")] = '\0';
	}
}

void ft_fallback_feed(struct ft_fallback *fb, const struct ft_event *ev)
{
	if (!fb)
		return;
	/* the span and the count the report's own lines give, kept here too */
	if (!fb->first_ts || ev->ts < fb->first_ts)
		fb->first_ts = ev->ts;
	if (ev->ts > fb->last_ts)
		fb->last_ts = ev->ts;
	if (ev->kind != FT_EV_MARKER && ev->kind != FT_EV_STACK &&
	    ev->lock == FT_LK_CONTENTION)
		fb->nev++;
	if (ev->kind == FT_EV_MARKER) {
		on_marker(fb, ev->marker);
		return;
	}
	if (ev->lock != FT_LK_CONTENTION)
		return;
	switch (ev->kind) {
	case FT_EV_STACK:
		on_stack(fb, ev);
		break;
	case FT_EV_START:
		on_begin(fb, ev);
		break;
	case FT_EV_ACQUIRE:
		on_end(fb, ev);
		break;
	}
}

/* the consumer the callers register (consumers.c) */
static void *fb_start(const char *file)
{
	size_t len = 0;
	char *text = ft_tracedat_kallsyms(file, &len);

	return ft_fallback_new(text ? ft_ksyms_parse(text, len) : NULL,
			       "kallsyms stored in the file");
}

static void fb_feed(void *fb, const struct ft_event *ev)
{
	ft_fallback_feed(fb, ev);
}

static void fb_free(void *fb)
{
	ft_fallback_free(fb);
}

const struct ft_consumer_ops ft_fallback_consumer = {
	.sys = "lock",
	.event = "contention_begin",
	.claims_contention = 1,
	.start = fb_start,
	.feed = fb_feed,
	.free = fb_free,
};

/* ------------------------------------------------------------------------ */
/* the view: the locks by wait and the verdict */

static int cmp_lock(const void *x, const void *y)
{
	const struct fb_lock *a = *(struct fb_lock * const *)x;
	const struct fb_lock *b = *(struct fb_lock * const *)y;

	if (a->w.total != b->w.total)
		return a->w.total < b->w.total ? 1 : -1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

static double pct_of(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

void ft_fallback_view(struct fb_view *v, const struct ft_fallback *fb)
{
	const struct fb_sum *fm = &fb->cls[FB_FAULT_MUTEX];
	size_t i, n = 0;
	int inside = 1;
	char b[4][32];

	memset(v, 0, sizeof(*v));
	v->fb = fb;
	v->lk = calloc(fb->locks.n + 1, sizeof(*v->lk));
	for (i = 0; v->lk && i < fb->locks.cap; i++)
		if (fb->locks.vals[i])
			v->lk[n++] = fb->locks.vals[i];
	v->nlk = n;
	if (v->lk)
		qsort(v->lk, n, sizeof(*v->lk), cmp_lock);
	for (i = 0; i < n; i++) {
		const struct fb_lock *l = v->lk[i];

		if (l->c.cls != FB_FAULT_MUTEX)
			continue;
		if (!v->fm_locks || l->addr < v->fm_lowest)
			v->fm_lowest = l->addr;
		if (l->w.total > v->fm_top_wait)
			v->fm_top_wait = l->w.total;
		v->fm_locks++;
		if (fb->table_n && fb->mutex_bytes &&
		    (l->addr < fb->table_base ||
		     (l->addr - fb->table_base) % fb->mutex_bytes ||
		     (l->addr - fb->table_base) / fb->mutex_bytes >= fb->table_n))
			inside = 0;
	}
	v->table_ok = fb->table_base && fb->table_n && fb->mutex_bytes && inside;
	v->duration = fb->last_ts > fb->first_ts ? fb->last_ts - fb->first_ts : 0;
	v->cpus = fb->recorded_cpus > 0 ? fb->recorded_cpus : fb->max_cpu + 1;
	if (v->cpus < 1)
		v->cpus = 1;
	v->capacity = v->duration * (uint64_t)v->cpus;
	v->fm_pct = pct_of(fm->total, v->capacity);
	v->mt_pct = pct_of(fb->cls[FB_MEMTYPE].total, v->capacity);

	if (!fb->ks) {
		v->verdict = "unknown";
		v->reason = "no kallsyms readable in the recording (they are read "
			"from version 6 files: faulttune record, or trace-cmd "
			"record --file-version 6): the waits cannot be attributed";
	} else if (!fb->stacks) {
		v->verdict = "unknown";
		v->reason = "the recording has no kernel stacks with its "
			"contention_begin events: the waits cannot be attributed "
			"(record with faulttune record)";
	} else if (!fm->n) {
		v->verdict = "not-limiting";
		v->reason = "no hugetlb fault mutex waits were recorded: the table "
			"size does not limit what ran (did it fault hugetlb pages?)";
	} else if (v->fm_pct < FB_VERDICT_PCT) {
		v->verdict = "not-limiting";
		snprintf(v->why, sizeof(v->why), "hugetlb fault mutex waits are "
			 "%.2f%% of recorded time (%s over %s x %d CPUs), below %.0f%%: "
			 "the table size is not what limits this workload",
			 v->fm_pct, ft_fmt_ns(fm->total, b[0], 32),
			 ft_fmt_ns(v->duration, b[1], 32), v->cpus, FB_VERDICT_PCT);
		v->reason = v->why;
	} else {
		/*
		 * Many contended mutexes can be collisions or many shared
		 * pages (each page has its own mutex), one can be a single
		 * hot page or a collision: only the (mapping, index) of the
		 * patched kernel's events tells, so the spread is shown and
		 * the decision left to them.
		 */
		v->verdict = "may-limit";
		snprintf(v->why, sizeof(v->why), "hugetlb fault mutex waits are "
			 "%.1f%% of recorded time (%s over %s x %d CPUs), on %zu "
			 "mutexes (the busiest has %.0f%% of the wait): the table "
			 "may limit this workload; a bigger table helps only if "
			 "they are hash collisions, not tasks faulting the same "
			 "pages, which the patched kernel's events tell: install "
			 "it and run faulttune tune",
			 v->fm_pct, ft_fmt_ns(fm->total, b[0], 32),
			 ft_fmt_ns(v->duration, b[1], 32), v->cpus, v->fm_locks,
			 pct_of(v->fm_top_wait, fm->total));
		v->reason = v->why;
	}
}

void ft_fallback_sum(const struct ft_fallback *fb, struct ft_fallback_sum *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	if (!fb)
		return;
	for (i = 0; i < FT_HOP_NR; i++) {
		s->hop_n[i] = fb->hop[i].n;
		s->hop_ns[i] = fb->hop[i].total;
	}
	for (i = 0; i < FT_MOP_NR; i++) {
		s->mop_n[i] = fb->mop[i].n;
		s->mop_ns[i] = fb->mop[i].total;
	}
	s->other_n = fb->cls[FB_OTHER].n;
	s->other_ns = fb->cls[FB_OTHER].total;
	s->table_n = fb->table_n;
}
