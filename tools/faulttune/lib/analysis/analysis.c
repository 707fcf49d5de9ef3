// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune analysis core: pairing, percentiles, collision vs sharing
 * classification, and the holds that the contention model (model.c) and
 * the what-if replay take as input.
 *
 * Pairing follows perf lock's sequence state machine: per task and lock
 * class, start -> acquire -> release.  Sequences that do not follow it are
 * counted (unpaired_*) rather than dropped silently.
 *
 * Classification: for a contended acquisition of hugetlb bucket B, the task
 * that handed B over is the one that acquired B last before us (a mutex
 * serialises its holders, and the trace is merged in timestamp order).  If
 * its (mapping, index) differs from ours, a bigger table could have avoided
 * the wait: a collision.  If it is the same key, the wait is true sharing
 * and no table size helps.  If B was never seen acquired: unknown.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis.h"

int ft_vec_push(struct ft_vec *vec, uint64_t x)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 64;
		uint64_t *v = realloc(vec->v, cap * sizeof(*v));

		if (!v)
			return -1;
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n++] = x;
	vec->sorted = 0;
	return 0;
}

void ft_vec_free(struct ft_vec *vec)
{
	free(vec->v);
	memset(vec, 0, sizeof(*vec));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * LSD radix sort, 16 bits a pass, skipping the passes whose digit is the
 * same in every sample (wait and hold times fit in 32-40 bits): report
 * sorts every wait and hold vector, and qsort() with a comparison call
 * per step was a sixth of its time on a million events.
 */
static void sort_u64(uint64_t *v, size_t n)
{
	static size_t cnt[65536];
	uint64_t *tmp, *src = v, *dst, all_or = 0, all_and = ~0ULL;
	size_t i, sum;
	int shift;

	if (n < 256) {
		qsort(v, n, sizeof(*v), cmp_u64);
		return;
	}
	tmp = malloc(n * sizeof(*v));
	if (!tmp) {
		qsort(v, n, sizeof(*v), cmp_u64);
		return;
	}
	dst = tmp;
	for (i = 0; i < n; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	for (shift = 0; shift < 64; shift += 16) {
		uint64_t *t;

		if ((((all_or ^ all_and) >> shift) & 0xffff) == 0)
			continue;	/* every sample has this digit */
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i] >> shift) & 0xffff]++;
		for (i = 0, sum = 0; i < 65536; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i] >> shift) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

uint64_t ft_percentile(struct ft_vec *vec, double q)
{
	size_t rank;

	if (!vec->n)
		return 0;
	if (!vec->sorted) {
		sort_u64(vec->v, vec->n);
		vec->sorted = 1;
	}
	if (q <= 0)
		return vec->v[0];
	/* nearest rank: ceil(q/100 * n), 1-based */
	rank = (size_t)(q / 100.0 * vec->n);
	if ((double)rank < q / 100.0 * vec->n)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > vec->n)
		rank = vec->n;
	return vec->v[rank - 1];
}

void ft_stats_free(struct ft_stats *s)
{
	ft_hist_free(&s->wait);
	ft_hist_free(&s->hold);
}

/* sums stop at UINT64_MAX rather than wrap */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* ---- analysis ---- */

enum { SEQ_NONE, SEQ_STARTED, SEQ_ACQUIRED };

struct task_state {
	uint64_t key;		/* in a->tasks */
	int state;
	uint64_t start_ts, acq_ts;
	uint64_t mapping, index;
	uint32_t hash, bucket, nbuckets;
	uint32_t op;
	uint64_t wait_ns;
	int collided;		/* its acquisition waited behind another key */
	/* the statistics of the bucket it acquired (bucket, nbuckets) */
	struct ft_bucket_stats *bs;
};

struct bucket_state {
	uint64_t key;		/* in a->bstate */
	uint64_t mapping, index;
	int pid;
};

void ft_analysis_init(struct ft_analysis *a)
{
	memset(a, 0, sizeof(*a));
}

static void free_bucket(void *p)
{
	struct ft_bucket_stats *b = p;

	ft_stats_free(&b->st);
	free(b);
}

static void free_lockaddr(void *p)
{
	struct ft_lockaddr_stats *l = p;

	ft_stats_free(&l->st);
	free(l);
}

struct ft_cpu_skips *ft_analysis_skips(struct ft_analysis *a, int cpu)
{
	struct ft_cpu_skips *n;
	int cap;

	if (cpu < 0 || cpu >= FT_SKIP_NCPUS)
		cpu = FT_SKIP_NCPUS - 1;
	if (cpu >= a->nskips) {
		cap = cpu < 64 ? 64 : FT_SKIP_NCPUS;
		n = realloc(a->skips, cap * sizeof(*n));
		if (!n) {
			a->nomem = 1;
			return NULL;
		}
		memset(n + a->nskips, 0, (cap - a->nskips) * sizeof(*n));
		a->skips = n;
		a->nskips = cap;
	}
	return &a->skips[cpu];
}

uint64_t ft_analysis_skipped(const struct ft_analysis *a,
			     struct ft_cpu_skips *sum)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < a->nskips; i++) {
		sum->bad_pages += a->skips[i].bad_pages;
		sum->bad_headers += a->skips[i].bad_headers;
		sum->skipped_bytes += a->skips[i].skipped_bytes;
		sum->short_records += a->skips[i].short_records;
		sum->implausible += a->skips[i].implausible;
		sum->unknown_ids += a->skips[i].unknown_ids;
	}
	return sum->bad_pages + sum->bad_headers + sum->short_records +
	       sum->implausible + sum->unknown_ids;
}

/*
 * The refusal report and tune --from share: an analysis that ran out of
 * memory, or (without force) had to skip damaged records, is incomplete,
 * and numbers from part of a file are not given as if they were the
 * file's.  One error line naming the file and what was skipped.
 */
int ft_analysis_usable(const struct ft_analysis *a, const char *file,
		       int force, enum ft_use use)
{
	static const char *const instead[] = {
		[FT_USE_REPORT] = "no report rather than an incomplete one",
		[FT_USE_ADVICE] = "no advice rather than advice from part of it",
	};
	static const char *const forced[] = {
		[FT_USE_REPORT] = "reports", [FT_USE_ADVICE] = "advises",
	};
	struct ft_cpu_skips sk;

	if (a->nomem) {
		ft_err("%s: out of memory while analysing it: %s", file,
		       instead[use]);
		return 0;
	}
	if (ft_analysis_skipped(a, &sk) && !force) {
		ft_err("%s: damaged records not used: bad page headers %llu, bad "
		       "event headers %llu (%llu bytes), short records %llu, "
		       "implausible times %llu, unknown event ids %llu; --force "
		       "%s without them",
		       file, (unsigned long long)sk.bad_pages,
		       (unsigned long long)sk.bad_headers,
		       (unsigned long long)sk.skipped_bytes,
		       (unsigned long long)sk.short_records,
		       (unsigned long long)sk.implausible,
		       (unsigned long long)sk.unknown_ids, forced[use]);
		return 0;
	}
	return 1;
}

void ft_core_free(struct ft_analysis *a)
{
	int i;

	for (i = 0; i < FT_HOP_NR; i++)
		ft_stats_free(&a->hop[i]);
	for (i = 0; i < FT_MOP_NR; i++)
		ft_stats_free(&a->mop[i]);
	ft_stats_free(&a->hall);
	ft_stats_free(&a->mall);
	ft_stats_free(&a->call);
	ft_map_free(&a->buckets, free_bucket);
	ft_map_free(&a->bstate, free);
	ft_map_free(&a->tasks, free);
	ft_map_free(&a->comms, free);
	ft_map_free(&a->lockaddrs, free_lockaddr);
	free(a->holds);
	ft_sample_free(a);
	free(a->skips);
	ft_vec_free(&a->resize_end);
	ft_vec_free(&a->resize_dur);
	memset(a, 0, sizeof(*a));
}

/*
 * A task's pairing state, every event: the map behind a cache of the
 * last task seen at each slot (pid's low bits), where a recording's few
 * busy tasks are found without hashing.
 */
static struct task_state *task_get(struct ft_analysis *a, int lock, int pid)
{
	uint64_t key = ((uint64_t)lock << 40) | (uint32_t)pid;
	struct task_state **c = (struct task_state **)
		&a->task_cache[((uint32_t)pid ^ (uint32_t)lock) % FT_TASK_CACHE];
	void **slot;

	if (*c && (*c)->key == key)
		return *c;
	slot = ft_map_get(&a->tasks, key, 1);
	if (slot && !*slot) {
		*slot = calloc(1, sizeof(struct task_state));
		if (*slot)
			((struct task_state *)*slot)->key = key;
	}
	if (!slot || !*slot) {
		a->nomem = 1;
		return NULL;
	}
	*c = *slot;
	return *c;
}

/* a bucket's cache slot in a->bucket_cache and a->bstate_cache */
static unsigned int bucket_slot(uint32_t nb, uint32_t b)
{
	return (b ^ (nb >> 3)) % FT_BUCKET_CACHE;
}

/*
 * A bucket's statistics, every acquire and release: the map behind a
 * cache of the last bucket seen at each slot, as for the tasks.
 */
static struct ft_bucket_stats *bucket_get(struct ft_analysis *a,
					  uint32_t nb, uint32_t b)
{
	struct ft_bucket_stats **c = (struct ft_bucket_stats **)
		&a->bucket_cache[bucket_slot(nb, b)];
	uint64_t key = ((uint64_t)nb << 32) | b;
	struct ft_bucket_stats *bs;
	void **slot;

	if (*c && (*c)->nbuckets == nb && (*c)->bucket == b)
		return *c;
	slot = ft_map_get(&a->buckets, key, 1);
	if (!slot) {
		a->nomem = 1;
		return NULL;
	}
	if (!*slot) {
		bs = calloc(1, sizeof(*bs));
		if (!bs) {
			a->nomem = 1;
			return NULL;
		}
		bs->nbuckets = nb;
		bs->bucket = b;
		*slot = bs;
	}
	*c = *slot;
	return *c;
}

static void stats_acquire(struct ft_analysis *a, struct ft_stats *s,
			  int contended, uint64_t wait, int cls)
{
	s->acq++;
	if (!contended)
		return;
	s->contended++;
	s->wait_total = sat_add(s->wait_total, wait);
	if (wait > s->wait_max)
		s->wait_max = wait;
	if (ft_hist_add(&s->wait, wait))
		a->nomem = 1;
	switch (cls) {
	case 1:
		s->collisions++;
		s->coll_wait = sat_add(s->coll_wait, wait);
		break;
	case 2:
		s->sharing++;
		s->share_wait = sat_add(s->share_wait, wait);
		break;
	default:
		s->unknown++;
		break;
	}
}

static void stats_release(struct ft_analysis *a, struct ft_stats *s,
			  uint64_t hold)
{
	s->releases++;
	if (hold && ft_hist_add(&s->hold, hold))
		a->nomem = 1;
}

static void push_hold(struct ft_analysis *a, const struct ft_hold *h)
{
	/* all of them, or whole windows past a budget: sample.c */
	if (ft_sample_push(a, h))
		a->nomem = 1;	/* a what-if without these holds is wrong */
}

static unsigned int log2u(uint32_t x)
{
	return x > 1 ? 31 - __builtin_clz(x) : 0;
}

/* a bucket's last holder, NULL (and *fresh set) if none yet */
static struct bucket_state *bstate_get(struct ft_analysis *a, uint32_t nb,
				       uint32_t b, void ***fresh)
{
	struct bucket_state **c = (struct bucket_state **)
		&a->bstate_cache[bucket_slot(nb, b)];
	uint64_t key = ((uint64_t)nb << 32) | b;
	void **slot;

	*fresh = NULL;
	if (*c && (*c)->key == key)
		return *c;
	slot = ft_map_get(&a->bstate, key, 1);
	if (!slot) {
		a->nomem = 1;
		return NULL;
	}
	if (!*slot)
		*fresh = slot;
	else
		*c = *slot;
	return *slot;
}

/* 1: collision, 2: sharing, 0: unknown */
static int classify(struct ft_analysis *a, const struct ft_event *ev)
{
	uint64_t key = ((uint64_t)ev->nbuckets << 32) | ev->bucket;
	void **slot;
	struct bucket_state *bs = bstate_get(a, ev->nbuckets, ev->bucket, &slot);
	int cls = 0;

	if (!bs && !slot)
		return 0;	/* out of memory */
	if (bs) {
		if (ev->contended)
			cls = (bs->mapping == ev->mapping &&
			       bs->index == ev->index) ? 2 : 1;
	} else {
		bs = calloc(1, sizeof(*bs));
		if (!bs) {
			a->nomem = 1;
			return 0;
		}
		bs->key = key;
		*slot = bs;
	}
	bs->mapping = ev->mapping;
	bs->index = ev->index;
	bs->pid = ev->pid;
	return cls;
}

/* an acquisition: paired with its start, classified, counted */
static void hugetlb_acquire(struct ft_analysis *a, struct task_state *t,
			    const struct ft_event *ev, unsigned int op)
{
	struct ft_bucket_stats *bs;
	int cls;

	if (ft_fault_hash(ev->mapping, ev->index) != ev->hash)
		a->jhash_mismatch++;
	if (t->state != SEQ_STARTED || t->mapping != ev->mapping ||
	    t->index != ev->index) {
		/*
		 * A kernel may emit start_locking only on the slow
		 * path (trylock first): an uncontended acquire without
		 * a start is then normal, counted apart.
		 */
		if (t->state == SEQ_NONE && !ev->contended)
			a->acquire_nostart++;
		else
			a->unpaired_acquire++;
		t->start_ts = ev->ts - (ev->wait_ns < ev->ts ?
					ev->wait_ns : 0);
	}
	cls = classify(a, ev);
	stats_acquire(a, &a->hop[op], ev->contended, ev->wait_ns, cls);
	stats_acquire(a, &a->hall, ev->contended, ev->wait_ns, cls);
	bs = bucket_get(a, ev->nbuckets, ev->bucket);
	if (bs)
		stats_acquire(a, &bs->st, ev->contended, ev->wait_ns, cls);
	t->state = SEQ_ACQUIRED;
	t->acq_ts = ev->ts;
	t->mapping = ev->mapping;
	t->index = ev->index;
	t->hash = ev->hash;
	t->bucket = ev->bucket;
	t->nbuckets = ev->nbuckets;
	t->op = op;
	t->collided = ev->contended && cls == 1;
	t->bs = bs;
}

/* a release: counted, and a whole start-acquire-release kept as a hold */
static void hugetlb_release(struct ft_analysis *a, struct task_state *t,
			    const struct ft_event *ev, unsigned int op)
{
	struct ft_bucket_stats *bs;
	struct ft_hold h;

	stats_release(a, &a->hop[op], ev->hold_ns);
	stats_release(a, &a->hall, ev->hold_ns);
	/* the bucket's statistics stay where they are: its acquire's */
	if (t->state == SEQ_ACQUIRED && t->bs && t->nbuckets == ev->nbuckets &&
	    t->bucket == ev->bucket)
		bs = t->bs;
	else
		bs = bucket_get(a, ev->nbuckets, ev->bucket);
	if (bs)
		stats_release(a, &bs->st, ev->hold_ns);
	if (t->state != SEQ_ACQUIRED) {
		a->unpaired_release++;
	} else if (t->mapping != ev->mapping || t->index != ev->index) {
		a->key_mismatch++;
	} else {
		h.req_ts = t->start_ts;
		h.acq_ts = t->acq_ts;
		h.rel_ts = ev->ts;
		h.mapping = ev->mapping;
		h.index = ev->index;
		h.hash = ev->hash;
		h.op = t->op;
		h.pid = ev->pid;
		h.collided = t->collided;
		push_hold(a, &h);
	}
	t->state = SEQ_NONE;
}

static void feed_hugetlb(struct ft_analysis *a, const struct ft_event *ev)
{
	struct task_state *t = task_get(a, FT_LK_HUGETLB, ev->pid);
	unsigned int op = ev->op < FT_HOP_NR ? ev->op : FT_HOP_OTHER;

	if (!t)
		return;
	if (ev->nbuckets) {
		if (ev->nbuckets > a->max_nbuckets)
			a->max_nbuckets = ev->nbuckets;
		a->nbuckets_seen[log2u(ev->nbuckets) & 31] = ev->nbuckets;
		if (ft_is_pow2(ev->nbuckets) &&
		    (ev->hash & (ev->nbuckets - 1)) != ev->bucket)
			a->hash_mismatch++;
	}

	switch (ev->kind) {
	case FT_EV_START:
		if (t->state != SEQ_NONE)
			a->unpaired_start++;
		t->state = SEQ_STARTED;
		t->start_ts = ev->ts;
		t->mapping = ev->mapping;
		t->index = ev->index;
		break;
	case FT_EV_ACQUIRE:
		hugetlb_acquire(a, t, ev, op);
		break;
	case FT_EV_RELEASE:
		hugetlb_release(a, t, ev, op);
		break;
	case FT_EV_RESIZE:
		/* a write of the current size: no table was replaced */
		if (ev->old_nbuckets == ev->new_nbuckets)
			break;
		a->resizes++;
		if (ft_vec_push(&a->resize_end, ev->ts) ||
		    ft_vec_push(&a->resize_dur, ev->duration_ns))
			a->nomem = 1;
		a->last_resize.old_n = ev->old_nbuckets;
		a->last_resize.new_n = ev->new_nbuckets;
		a->last_resize.dur = ev->duration_ns;
		a->last_resize.result = ev->result;
		if (ev->new_nbuckets > a->max_nbuckets && !ev->result)
			a->max_nbuckets = ev->new_nbuckets;
		break;
	}
}

static void feed_memtype(struct ft_analysis *a, const struct ft_event *ev)
{
	struct task_state *t = task_get(a, FT_LK_MEMTYPE, ev->pid);
	unsigned int op = ev->op < FT_MOP_NR ? ev->op : FT_MOP_OTHER;

	if (!t)
		return;
	switch (ev->kind) {
	case FT_EV_START:
		if (t->state != SEQ_NONE)
			a->unpaired_start++;
		t->state = SEQ_STARTED;
		break;
	case FT_EV_ACQUIRE:
		if (t->state != SEQ_STARTED)
			a->unpaired_acquire++;
		stats_acquire(a, &a->mop[op], ev->contended, ev->wait_ns, 0);
		stats_acquire(a, &a->mall, ev->contended, ev->wait_ns, 0);
		t->state = SEQ_ACQUIRED;
		break;
	case FT_EV_RELEASE:
		if (t->state != SEQ_ACQUIRED)
			a->unpaired_release++;
		stats_release(a, &a->mop[op], ev->hold_ns);
		stats_release(a, &a->mall, ev->hold_ns);
		t->state = SEQ_NONE;
		break;
	}
}

/* lock:contention_begin/end: only addresses and wait times */
static void feed_contention(struct ft_analysis *a, const struct ft_event *ev)
{
	struct task_state *t = task_get(a, FT_LK_CONTENTION, ev->pid);
	struct ft_lockaddr_stats *l;
	void **slot;
	uint64_t wait;

	if (!t)
		return;
	if (ev->kind == FT_EV_START) {
		if (t->state != SEQ_NONE)
			a->unpaired_start++;
		t->state = SEQ_STARTED;
		t->start_ts = ev->ts;
		t->mapping = ev->mapping;
		t->index = ev->index;	/* flags */
		return;
	}
	if (ev->kind != FT_EV_ACQUIRE)
		return;
	if (t->state != SEQ_STARTED || t->mapping != ev->mapping) {
		a->unpaired_acquire++;
		t->state = SEQ_NONE;
		return;
	}
	t->state = SEQ_NONE;
	wait = ev->ts - t->start_ts;
	slot = ft_map_get(&a->lockaddrs, ev->mapping, 1);
	if (!slot) {
		a->nomem = 1;
		return;
	}
	if (!*slot) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			a->nomem = 1;
			return;
		}
		l->addr = ev->mapping;
		l->flags = (uint32_t)t->index;
		*slot = l;
	}
	l = *slot;
	stats_acquire(a, &l->st, 1, wait, 0);
	stats_acquire(a, &a->call, 1, wait, 0);
}

static void feed_lock(struct ft_analysis *a, const struct ft_event *ev)
{
	if (ev->lock == FT_LK_HUGETLB)
		feed_hugetlb(a, ev);
	else
		feed_memtype(a, ev);
}

/*
 * A *_hold summary is one whole acquisition, emitted after the release:
 * the release is at its timestamp, the acquisition hold_ns before it and
 * the request wait_ns before that.  It is fed as the start, acquire and
 * release it stands for, so that the statistics, the holds of the model
 * and the what-if read one form.  A recording with both forms of a lock
 * (trace-cmd record -e hugetlb enables all of them) is read from the
 * trio, which it then has for every hold: the summaries are counted and
 * skipped.
 */
static void feed_summary(struct ft_analysis *a, const struct ft_event *ev)
{
	struct ft_event e = *ev;
	uint64_t rel = ev->ts;
	uint64_t acq = rel - (ev->hold_ns < rel ? ev->hold_ns : rel);
	uint64_t req = acq - (ev->wait_ns < acq ? ev->wait_ns : acq);

	a->summaries++;
	if (a->trio_seen[ev->lock]) {
		a->summaries_skipped++;
		return;
	}
	if (req < a->first_ts)
		a->first_ts = req;
	e.kind = FT_EV_START;
	e.ts = req;
	e.contended = 0;
	e.wait_ns = 0;
	e.hold_ns = 0;
	feed_lock(a, &e);
	e.kind = FT_EV_ACQUIRE;
	e.ts = acq;
	e.contended = ev->contended;
	e.wait_ns = ev->wait_ns;
	feed_lock(a, &e);
	e.kind = FT_EV_RELEASE;
	e.ts = rel;
	e.contended = 0;
	e.wait_ns = 0;
	e.hold_ns = ev->hold_ns;
	feed_lock(a, &e);
}

/*
 * One record, through consumers.c's ft_analysis_feed(); contention_elsewhere:
 * another consumer pairs the lock:contention events (they are counted here,
 * not paired).
 */
void ft_core_feed(struct ft_analysis *a, const struct ft_event *ev,
		  int contention_elsewhere)
{
	if (!a->first_ts || ev->ts < a->first_ts)
		a->first_ts = ev->ts;
	if (ev->ts > a->last_ts)
		a->last_ts = ev->ts;
	if (ev->kind == FT_EV_MARKER) {
		a->markers++;
		return;
	}
	if (ev->kind == FT_EV_STACK || ev->lock < 0 || ev->lock >= FT_LK_NR)
		return;
	a->nev[ev->lock]++;
	/* a wrapped or garbage time would swamp every sum: count, skip */
	if (ev->wait_ns > FT_IMPLAUSIBLE_NS || ev->hold_ns > FT_IMPLAUSIBLE_NS) {
		struct ft_cpu_skips *sk = ft_analysis_skips(a, ev->cpu);

		if (sk)
			sk->implausible++;
		return;
	}
	if (ev->kind == FT_EV_HOLD) {
		if (ev->lock != FT_LK_CONTENTION)
			feed_summary(a, ev);
		return;
	}
	if (ev->kind <= FT_EV_RELEASE)
		a->trio_seen[ev->lock] = 1;
	switch (ev->lock) {
	case FT_LK_HUGETLB:
		feed_hugetlb(a, ev);
		break;
	case FT_LK_MEMTYPE:
		feed_memtype(a, ev);
		break;
	case FT_LK_CONTENTION:
		if (!contention_elsewhere)
			feed_contention(a, ev);
		break;
	}
}

void ft_analysis_lost(struct ft_analysis *a, int cpu, long long missed)
{
	(void)cpu;
	if (missed > 0)
		a->lost_events += missed;
	else if (missed < 0)
		a->lost_unknown++;
}

void ft_analysis_finish(struct ft_analysis *a)
{
	size_t i;

	/* doubling left up to half the holds' array unused: give it back */
	if (a->nholds && a->nholds < a->capholds) {
		struct ft_hold *h = realloc(a->holds, a->nholds * sizeof(*h));

		if (h) {
			a->holds = h;
			a->capholds = a->nholds;
		}
	}

	for (i = 0; i < a->tasks.cap; i++) {
		struct task_state *t = a->tasks.vals[i];

		if (t && t->state != SEQ_NONE) {
			a->open_at_end++;
			t->state = SEQ_NONE;
		}
	}
}

/* ---- resize cost ---- */

struct window {
	uint64_t start, end;
};

static int cmp_window(const void *x, const void *y)
{
	const struct window *a = x, *b = y;

	return (a->end > b->end) - (a->end < b->end);
}

/*
 * Every hold against the resize windows [end - duration, end]: with the
 * windows sorted by end and the minimum start of every suffix, a hold
 * (req, acq) overlaps one iff the first window ending at or after req
 * has a suffix minimum start <= acq: O(log resizes) a hold.
 */
void ft_resize_cost(const struct ft_analysis *a, struct ft_resize_cost *rc)
{
	struct ft_vec dur = { 0 };
	struct ft_hist fault = { 0 }, stall = { 0 }, other = { 0 };
	size_t i, n = a->resize_end.n;
	struct window *w = NULL;
	uint64_t *minstart = NULL;

	memset(rc, 0, sizeof(*rc));
	rc->resizes = n;
	if (n) {
		w = malloc(n * sizeof(*w));
		minstart = malloc(n * sizeof(*minstart));
		if (!w || !minstart)
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		uint64_t e = a->resize_end.v[i], d = a->resize_dur.v[i];

		w[i].end = e;
		w[i].start = d < e ? e - d : 0;
		if (ft_vec_push(&dur, d))
			goto nomem;
	}
	qsort(w, n, sizeof(*w), cmp_window);
	for (i = n; i-- > 0; )
		minstart[i] = i + 1 < n && minstart[i + 1] < w[i].start ?
			      minstart[i + 1] : w[i].start;
	for (i = 0; i < a->nholds; i++) {
		const struct ft_hold *h = &a->holds[i];
		size_t lo = 0, hi = n;
		int over;

		while (lo < hi) {		/* first window with end >= req */
			size_t mid = lo + (hi - lo) / 2;

			if (w[mid].end < h->req_ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		over = lo < n && minstart[lo] <= h->acq_ts;
		if (ft_hist_add(&fault, h->rel_ts - h->req_ts) ||
		    ft_hist_add(over ? &stall : &other, h->acq_ts - h->req_ts))
			goto nomem;
	}
	rc->dur_median = ft_percentile(&dur, 50);
	rc->dur_max = ft_percentile(&dur, 100);
	rc->fault_median = ft_hist_percentile(&fault, 50);
	rc->overlapping = stall.n;
	rc->others = other.n;
	rc->stall_median = ft_hist_percentile(&stall, 50);
	rc->stall_max = ft_hist_percentile(&stall, 100);
	rc->other_wait_p99 = ft_hist_percentile(&other, 99);
	rc->other_wait_max = ft_hist_percentile(&other, 100);
	goto out;
nomem:
	rc->nomem = 1;
out:
	free(w);
	free(minstart);
	ft_vec_free(&dur);
	ft_hist_free(&fault);
	ft_hist_free(&stall);
	ft_hist_free(&other);
}
