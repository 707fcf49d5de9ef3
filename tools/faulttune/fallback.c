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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faulttune.h"
#include "model.h"

enum fb_class { FB_OTHER, FB_FAULT_MUTEX, FB_MEMTYPE, FB_NR };

#define FB_OPEN		8	/* nested waits per task */
#define FB_PENDING	8	/* begins or stacks awaiting their pair, per CPU */

struct fb_cls {
	int cls;		/* enum fb_class */
	int op;			/* enum ft_hop or ft_mop */
	const char *caller;	/* first frame outside the locking code */
};

struct fb_sum {
	uint64_t n, total, max;
};

struct fb_lock {
	uint64_t addr;
	uint32_t flags;		/* of the sleeping wait (a mutex spins first) */
	struct fb_cls c;
	int has_stack;
	struct fb_sum w;
};

struct fb_wait {
	uint64_t addr, ts;
	uint32_t flags;
	struct fb_cls c;
	int has_stack;
};

struct fb_task {
	struct fb_wait open[FB_OPEN];
	int n;
};

struct fb_pend {
	int pid;
	uint64_t addr;		/* begins */
	struct fb_cls c;	/* stacks */
};

struct fb_cpu {
	struct fb_pend begin[FB_PENDING], stack[FB_PENDING];
	int nbegin, nstack;
};

struct ft_fallback {
	struct ft_ksyms *ks;
	const char *ksyms_from;		/* where the symbols came from */
	struct ft_map locks;		/* addr -> fb_lock */
	struct ft_map tasks;		/* pid -> fb_task */
	struct fb_cpu *cpu;
	int ncpu;
	struct fb_sum hop[FT_HOP_NR], mop[FT_MOP_NR], cls[FB_NR], all;
	uint64_t begins, ends, stacks, with_stack, without_stack;
	uint64_t stacks_used, end_unpaired, begin_unpaired, continued;
	uint64_t mutex_waits, mutex_spun;	/* spun: never slept */
	int recorded_cpus;		/* from the marker, else CPUs seen */
	int max_cpu;
	/* fault mutex table, from the record marker */
	uint64_t table_base;
	uint32_t table_n, mutex_bytes;
	char table_from[48], stride_from[48], table_why[160];
	int have_marker;
	uint64_t first_ts, last_ts;	/* of every record fed */
	uint64_t nev;			/* lock:contention records but stacks */
};

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
/* output */

/* below this share of the recorded time, the table is not worth tuning */
#define FB_VERDICT_PCT	1.0

static const char *type_name(uint32_t f, char *buf, size_t len)
{
	static const struct { uint32_t f; const char *n; } t[] = {
		{ LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
		{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" },
		{ LCB_F_WRITE, "rwsem:W" },
		{ LCB_F_RT, "rt-mutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
		{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
		{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" },
		{ LCB_F_MUTEX | LCB_F_SPIN, "mutex" },	/* acquired spinning */
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].f == f)
			return t[i].n;
	snprintf(buf, len, "flags=0x%x", f);
	return buf;
}

struct fb_view {
	const struct ft_fallback *fb;
	struct fb_lock **lk;		/* by wait, descending */
	size_t nlk;
	uint64_t fm_lowest;		/* lowest fault mutex address seen */
	size_t fm_locks;		/* distinct fault mutex addresses */
	uint64_t fm_top_wait;		/* the most waited-on one's wait */
	int table_ok;			/* base, size and stride known */
	uint64_t duration, capacity;	/* ns; duration x CPUs */
	int cpus;
	double fm_pct, mt_pct;
	const char *verdict, *reason;
	char why[512];
};

static int cmp_lock(const void *x, const void *y)
{
	const struct fb_lock *a = *(struct fb_lock * const *)x;
	const struct fb_lock *b = *(struct fb_lock * const *)y;

	if (a->w.total != b->w.total)
		return a->w.total < b->w.total ? 1 : -1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* "hugetlb_fault_mutex_table[17]", "memtype_lock", "jiffies_lock", an address */
static const char *lock_name(const struct fb_view *v, const struct fb_lock *l,
			     char *buf, size_t len)
{
	const struct ft_fallback *fb = v->fb;
	const char *d;
	uint64_t off = 0;

	if (l->c.cls == FB_FAULT_MUTEX) {
		uint64_t s = fb->mutex_bytes;

		if (v->table_ok)
			snprintf(buf, len, "hugetlb_fault_mutex_table[%llu]",
				 (unsigned long long)((l->addr - fb->table_base) / s));
		else if (s && !((l->addr - v->fm_lowest) % s))
			snprintf(buf, len, "hugetlb fault mutex lowest+%llu",
				 (unsigned long long)((l->addr - v->fm_lowest) / s));
		else
			snprintf(buf, len, "hugetlb fault mutex %llx",
				 (unsigned long long)l->addr);
		return buf;
	}
	if (l->c.cls == FB_MEMTYPE)
		return "memtype_lock";
	d = ft_ksyms_data(fb->ks, l->addr, &off);
	if (d && !off)
		return d;
	if (d && off < 4096) {
		snprintf(buf, len, "%s+0x%llx", d, (unsigned long long)off);
		return buf;
	}
	snprintf(buf, len, "%llx", (unsigned long long)l->addr);
	return buf;
}

static double pct_of(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

static void build_view(struct fb_view *v, const struct ft_fallback *fb)
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

/*
 * A wait table of the fallback (locks, or ops), described once for text,
 * JSON and CSV: a lock row has its address, type, class and caller, an op
 * row only its name; no hold times (n/a, null).
 */
enum { FC_NAME, FC_LOCK, FC_ADDR, FC_TYPE, FC_CLASS, FC_OP, FC_CALLER, FC_WAITS,
       FC_WTOT, FC_WAVG, FC_WMAX, FC_HOLD, FC_TCALLER, FC_NR };

static const struct ft_col fb_cols[FC_NR] = {
	[FC_NAME] = { .text = "lock", .width = -34, .json = "name" },
	[FC_LOCK] = { .json = "lock", .csv = "lock" },
	[FC_ADDR] = { .json = "addr", .csv = "addr" },
	[FC_TYPE] = { .text = "type", .width = -10, .json = "type", .csv = "type" },
	[FC_CLASS] = { .json = "class", .csv = "class" },
	[FC_OP] = { .csv = "op" },
	[FC_CALLER] = { .json = "caller", .csv = "caller" },
	[FC_WAITS] = { .text = "waits", .width = 8, .json = "waits",
		      .csv = "waits" },
	[FC_WTOT] = { .text = "wait_tot", .width = 10, .json = "wait_total_ns",
		     .csv = "wait_total_ns" },
	[FC_WAVG] = { .text = "wait_avg", .width = 10 },
	[FC_WMAX] = { .text = "wait_max", .width = 10, .json = "wait_max_ns",
		     .csv = "wait_max_ns" },
	[FC_HOLD] = { .text = "hold", .width = 5, .json = "hold", .csv = "hold",
		     .none_csv = "n/a" },
	[FC_TCALLER] = { .text = "", .width = 0, .sep = "  ", .last = 1 },
};

static const char *class_name(int cls)
{
	return cls == FB_FAULT_MUTEX ? "hugetlb_fault_mutex" :
	       cls == FB_MEMTYPE ? "memtype_lock" : "other";
}

/* the cells every row has: waits, total, mean, max, no hold */
static void sum_cells(struct ft_cell *v, const struct fb_sum *s)
{
	int i;

	for (i = 0; i < FC_NR; i++)
		v[i] = FT_SKIP;
	v[FC_WAITS] = FT_U64(s->n);
	v[FC_WTOT] = FT_NS(s->total);
	v[FC_WAVG] = FT_NS(s->n ? s->total / s->n : 0);
	v[FC_WMAX] = FT_NS(s->max);
	v[FC_HOLD] = FT_NONE;
}

/*
 * An op or total row.  Text: name, the type column empty, and the caller
 * column's separator (caller NULL); JSON: the name; CSV: the lock class
 * and the op.
 */
static void sum_row(FILE *f, enum ft_fmt fmt, const char *cls,
		    const char *name, const struct fb_sum *s)
{
	struct ft_cell v[FC_NR];

	sum_cells(v, s);
	if (fmt == FT_FMT_CSV) {
		v[FC_LOCK] = FT_STR(cls);
		v[FC_OP] = FT_STR(name);
	} else {
		v[FC_NAME] = FT_STR(name);
	}
	if (fmt == FT_FMT_TEXT) {
		v[FC_TYPE] = FT_STR("");
		v[FC_TCALLER] = FT_STR("");
	}
	ft_table_row(f, fmt, fb_cols, FC_NR, v);
}

/* the CSV header of sum_row()'s rows */
static void sum_csv_header(FILE *f)
{
	struct ft_cell v[FC_NR];
	struct fb_sum none = { 0 };

	sum_cells(v, &none);
	v[FC_LOCK] = v[FC_OP] = FT_STR("");
	ft_table_csv_header(f, fb_cols, FC_NR, v);
}

static void sum_json(FILE *f, const char *name, const struct fb_sum *s)
{
	fputc('{', f);
	sum_row(f, FT_FMT_JSON, NULL, name, s);
	fputc('}', f);
}

static void sum_text(FILE *f, const char *name, const struct fb_sum *s)
{
	sum_row(f, FT_FMT_TEXT, NULL, name, s);
}

/* a lock's row: its name, address, type, class, op and caller */
static void lock_row(FILE *f, enum ft_fmt fmt, const struct fb_view *v,
		     const struct fb_lock *l)
{
	struct ft_cell c[FC_NR];
	char nb[96], tb[32], ab[24];
	int csv = fmt == FT_FMT_CSV;
	const char *name = lock_name(v, l, nb, sizeof(nb));

	sum_cells(c, &l->w);
	c[FC_TYPE] = FT_STR(type_name(l->flags, tb, sizeof(tb)));
	if (fmt == FT_FMT_TEXT) {
		c[FC_NAME] = FT_STR(name);
		c[FC_TCALLER] = FT_STR(l->c.caller);
	} else {
		snprintf(ab, sizeof(ab), "0x%llx", (unsigned long long)l->addr);
		c[FC_LOCK] = csv ? FT_QSTR(name) : FT_STR(name);
		c[FC_ADDR] = FT_STR(ab);
		c[FC_CLASS] = FT_STR(class_name(l->c.cls));
		c[FC_CALLER] = csv ? FT_QSTR(l->c.caller) :
			l->c.caller ? FT_STR(l->c.caller) : FT_NONE;
	}
	if (csv)
		c[FC_OP] = FT_STR(l->c.cls == FB_FAULT_MUTEX ? ft_hop_name(l->c.op) :
				 l->c.cls == FB_MEMTYPE ? ft_mop_name(l->c.op) : "");
	ft_table_row(f, fmt, fb_cols, FC_NR, c);
}

static void print_json(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;
	size_t i;
	int k;

	fprintf(f, ",\"fallback\":{\"hold_measured\":false,"
		"\"kallsyms\":%s,\"kallsyms_symbols\":%zu,\"stacks\":%llu,"
		"\"waits\":%llu,\"waits_with_stack\":%llu,"
		"\"waits_without_stack\":%llu,\"mutex_waits\":%llu,"
		"\"mutex_waits_never_slept\":%llu,\"unpaired\":{\"begin\":%llu,"
		"\"end\":%llu,\"stack\":%llu},\"spin_then_sleep\":%llu,",
		fb->ks ? "true" : "false", ft_ksyms_count(fb->ks),
		(unsigned long long)fb->stacks, (unsigned long long)fb->all.n,
		(unsigned long long)fb->with_stack,
		(unsigned long long)fb->without_stack,
		(unsigned long long)fb->mutex_waits,
		(unsigned long long)fb->mutex_spun,
		(unsigned long long)fb->begin_unpaired,
		(unsigned long long)fb->end_unpaired,
		(unsigned long long)(fb->stacks - fb->stacks_used),
		(unsigned long long)fb->continued);
	fprintf(f, "\"table\":{\"base\":");
	if (v->table_ok)
		fprintf(f, "\"0x%llx\",\"base_from\":\"kcore\",\"nbuckets\":%u",
			(unsigned long long)fb->table_base, fb->table_n);
	else
		fprintf(f, "null,\"base_from\":%s,\"nbuckets\":null",
			fb->mutex_bytes && v->fm_locks ? "\"lowest address seen\"" :
			"null");
	fprintf(f, ",\"mutex_bytes\":");
	if (fb->mutex_bytes)
		fprintf(f, "%u,\"mutex_bytes_from\":\"%s\"", fb->mutex_bytes,
			fb->stride_from);
	else
		fputs("null,\"mutex_bytes_from\":null", f);
	fputs(",\"not_known\":", f);
	ft_json_str(f, fb->table_why[0] ? fb->table_why : "");
	fprintf(f, ",\"contended_mutexes\":%zu},\"locks\":[", v->fm_locks);
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++) {
		if (k)
			fputc(',', f);
		fputc('{', f);
		lock_row(f, FT_FMT_JSON, v, v->lk[i]);
		fputc('}', f);
	}
	fputs("],\"hugetlb_fault_mutex\":{\"total\":", f);
	sum_json(f, "all", &fb->cls[FB_FAULT_MUTEX]);
	fputs(",\"ops\":[", f);
	for (k = 0; k < FT_HOP_NR; k++) {
		if (k)
			fputc(',', f);
		sum_json(f, ft_hop_name(k), &fb->hop[k]);
	}
	fputs("]},\"memtype_lock\":{\"total\":", f);
	sum_json(f, "all", &fb->cls[FB_MEMTYPE]);
	fputs(",\"ops\":[", f);
	for (k = 0; k < FT_MOP_NR; k++) {
		if (k)
			fputc(',', f);
		sum_json(f, ft_mop_name(k), &fb->mop[k]);
	}
	fprintf(f, "]},\"on_this_kernel\":{\"duration_ns\":%llu,\"cpus\":%d,"
		"\"fault_mutex_wait_ns\":%llu,\"fault_mutex_pct\":%.4f,"
		"\"memtype_wait_ns\":%llu,\"memtype_pct\":%.4f,"
		"\"threshold_pct\":%.1f,\"verdict\":\"%s\",\"reason\":",
		(unsigned long long)v->duration, v->cpus,
		(unsigned long long)fb->cls[FB_FAULT_MUTEX].total, v->fm_pct,
		(unsigned long long)fb->cls[FB_MEMTYPE].total, v->mt_pct,
		FB_VERDICT_PCT, v->verdict);
	ft_json_str(f, v->reason);
	fputs("}}", f);
}

static void print_text(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;
	const struct fb_sum *fm = &fb->cls[FB_FAULT_MUTEX], *mt = &fb->cls[FB_MEMTYPE];
	char b[4][32];
	size_t i;
	int k;

	fprintf(f, "\nlock:contention_begin/end fallback (kernel without the "
		"faulttune events)\n"
		"  waits: contention_begin to contention_end of one task; hold "
		"times are not traced here (n/a)\n");
	fprintf(f, "  symbols: %s; kernel stacks: %llu, waits with one %llu of %llu\n",
		fb->ks ? fb->ksyms_from : "no kallsyms readable in the file "
		"(locks stay addresses)", (unsigned long long)fb->stacks,
		(unsigned long long)fb->with_stack, (unsigned long long)fb->all.n);
	if (fb->mutex_spun)
		fprintf(f, "  mutex waits that never slept (acquired spinning, or at "
			"once: with lock debugging every mutex_lock takes this "
			"path): %llu of %llu\n", (unsigned long long)fb->mutex_spun,
			(unsigned long long)fb->mutex_waits);
	if (fb->begin_unpaired || fb->end_unpaired)
		fprintf(f, "  unpaired: begin %llu, end %llu\n",
			(unsigned long long)fb->begin_unpaired,
			(unsigned long long)fb->end_unpaired);
	fprintf(f, "\ncontended locks (top %d of %zu by wait)\n",
		top < (int)v->nlk ? top : (int)v->nlk, v->nlk);
	ft_table_header(f, fb_cols, FC_NR,
			(const char *const[FC_NR]){ [FC_TCALLER] = "caller" });
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++)
		lock_row(f, FT_FMT_TEXT, v, v->lk[i]);
	sum_text(f, "all", &fb->all);

	fprintf(f, "\nhugetlb fault mutex waits by op (from the caller in the stack)\n");
	ft_table_header(f, fb_cols, FC_NR,
			(const char *const[FC_NR]){ [FC_NAME] = "op", [FC_TYPE] = "" });
	for (k = 0; k < FT_HOP_NR; k++)
		if (fb->hop[k].n)
			sum_text(f, ft_hop_name(k), &fb->hop[k]);
	sum_text(f, "all", fm);
	if (v->table_ok)
		fprintf(f, "buckets: %zu of the table's %u mutexes contended "
			"(table at %llx from /proc/kcore, %u-byte mutexes from %s)\n",
			v->fm_locks, fb->table_n,
			(unsigned long long)fb->table_base, fb->mutex_bytes,
			fb->stride_from);
	else if (fb->mutex_bytes && v->fm_locks)
		fprintf(f, "buckets: %zu mutexes contended, numbered from the "
			"lowest address seen in %u-byte steps (from %s); the "
			"table's base and size are not known%s%s\n", v->fm_locks,
			fb->mutex_bytes, fb->stride_from,
			fb->table_why[0] ? ": " : "", fb->table_why);
	else if (v->fm_locks)
		fprintf(f, "buckets: %zu distinct mutex addresses contended; the "
			"table's base and sizeof(struct mutex) are not known%s%s\n",
			v->fm_locks, fb->table_why[0] ? ": " : "", fb->table_why);

	if (mt->n) {
		fprintf(f, "\nmemtype_lock waits by op (from the caller in the stack)\n");
		for (k = 0; k < FT_MOP_NR; k++)
			if (fb->mop[k].n)
				sum_text(f, ft_mop_name(k), &fb->mop[k]);
		sum_text(f, "all", mt);
	}

	fprintf(f, "\non this kernel\n");
	fprintf(f, "  recorded: %s x %d CPUs\n", ft_fmt_ns(v->duration, b[0], 32),
		v->cpus);
	fprintf(f, "  hugetlb fault mutex waits: %llu, %s, %.2f%% of recorded time",
		(unsigned long long)fm->n, ft_fmt_ns(fm->total, b[1], 32), v->fm_pct);
	for (k = 0; k < FT_HOP_NR; k++)
		if (fb->hop[k].n)
			fprintf(f, "; %s %s", ft_hop_name(k),
				ft_fmt_ns(fb->hop[k].total, b[2], 32));
	fprintf(f, "\n  memtype_lock waits: %llu, %s, %.2f%% of recorded time\n",
		(unsigned long long)mt->n, ft_fmt_ns(mt->total, b[3], 32), v->mt_pct);
	fprintf(f, "  verdict: %s: %s\n", v->verdict, v->reason);
}

/* CSV: a block of its own after a blank line, like the what-if table */
static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv(FILE *f, struct fb_view *v, int top)
{
	const struct ft_fallback *fb = v->fb;

	size_t i;
	int k;

	fputc('\n', f);
	ft_table_csv_header(f, fb_cols, FC_NR, NULL);
	for (i = 0, k = 0; i < v->nlk && k < top; i++, k++)
		lock_row(f, FT_FMT_CSV, v, v->lk[i]);
	fputc('\n', f);
	sum_csv_header(f);
	for (k = 0; k < FT_HOP_NR; k++)
		sum_row(f, FT_FMT_CSV, "hugetlb_fault_mutex", ft_hop_name(k),
			&fb->hop[k]);
	for (k = 0; k < FT_MOP_NR; k++)
		sum_row(f, FT_FMT_CSV, "memtype_lock", ft_mop_name(k), &fb->mop[k]);
	fputs("\nduration_ns,cpus,fault_mutex_wait_ns,fault_mutex_pct,"
	      "memtype_wait_ns,memtype_pct,verdict,reason\n", f);
	fprintf(f, "%llu,%d,%llu,%.4f,%llu,%.4f,%s,",
		(unsigned long long)v->duration, v->cpus,
		(unsigned long long)fb->cls[FB_FAULT_MUTEX].total, v->fm_pct,
		(unsigned long long)fb->cls[FB_MEMTYPE].total, v->mt_pct, v->verdict);
	csv_field(f, v->reason);
	fputc('\n', f);
}

void ft_fallback_short(FILE *f, const struct ft_fallback *fb)
{
	const struct fb_sum *fm, *mt;
	struct fb_view v;
	char b[2][32];

	if (!fb || (!fb->begins && !fb->nev))
		return;
	build_view(&v, fb);
	fm = &fb->cls[FB_FAULT_MUTEX];
	mt = &fb->cls[FB_MEMTYPE];
	ft_wrap(f, 2, "verdict: %s: %s", v.verdict, v.reason);
	ft_wrap(f, 2, "hugetlb fault mutex waits: %llu, %s, %.2f%% of recorded "
		"time (lock:contention, no hold times)", (unsigned long long)fm->n,
		ft_fmt_ns(fm->total, b[0], 32), v.fm_pct);
	if (mt->n)
		ft_wrap(f, 2, "memtype_lock waits: %llu, %s, %.2f%% of recorded "
			"time", (unsigned long long)mt->n,
			ft_fmt_ns(mt->total, b[1], 32), v.mt_pct);
	free(v.lk);
}

void ft_fallback_print(FILE *f, const struct ft_fallback *fb, enum ft_fmt fmt,
		       int top)
{
	struct fb_view v;

	if (!fb || (!fb->begins && !fb->nev))
		return;
	build_view(&v, fb);
	if (fmt == FT_FMT_JSON)
		print_json(f, &v, top);
	else if (fmt == FT_FMT_CSV)
		print_csv(f, &v, top);
	else
		print_text(f, &v, top);
	free(v.lk);
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
