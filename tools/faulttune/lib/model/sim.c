// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune contention model: one simulation, one draw of the hash
 * through one run at one table size, open loop (requests at their
 * recorded times) or closed loop (a wait delays the task's later
 * requests).  The steps are inlined into sim_run() so that its sums
 * stay in registers: this is where the model spends its time.  The
 * predictions (model.c) run many of these, each on a table of its own
 * (sim_alloc()).
 */
#include <stdlib.h>
#include <string.h>
#include "model-local.h"

static void heap_push(struct heap *hp, uint64_t t, uint32_t s)
{
	int i = hp->n++;

	while (i > 0) {
		int p = (i - 1) / 2;

		/* ties by stream id: the order must not depend on the heap */
		if (hp->t[p] < t || (hp->t[p] == t && hp->s[p] < s))
			break;
		hp->t[i] = hp->t[p];
		hp->s[i] = hp->s[p];
		i = p;
	}
	hp->t[i] = t;
	hp->s[i] = s;
}

static void heap_pop(struct heap *hp, uint64_t *t, uint32_t *s)
{
	uint64_t lt;
	uint32_t ls;
	int i = 0;

	*t = hp->t[0];
	*s = hp->s[0];
	lt = hp->t[--hp->n];
	ls = hp->s[hp->n];
	for (;;) {
		int c = 2 * i + 1;

		if (c >= hp->n)
			break;
		if (c + 1 < hp->n && (hp->t[c + 1] < hp->t[c] ||
		    (hp->t[c + 1] == hp->t[c] && hp->s[c + 1] < hp->s[c])))
			c++;
		if (lt < hp->t[c] || (lt == hp->t[c] && ls < hp->s[c]))
			break;
		hp->t[i] = hp->t[c];
		hp->s[i] = hp->s[c];
		i = c;
	}
	hp->t[i] = lt;
	hp->s[i] = ls;
}

/*
 * Copies of a run that --threads T asks for: T over the run's
 * concurrency, rounded, at least one.
 */
int sim_copies(const struct run *r, int threads)
{
	int k;

	if (!threads || r->inflight < 1)
		return 1;
	k = (threads + r->inflight / 2) / r->inflight;
	return k < 1 ? 1 : k;
}

/* the streams one simulation of the run runs: SIZE_MAX past any sane count */
size_t sim_streams(const struct run *r, int threads)
{
	size_t ns = (size_t)sim_copies(r, threads) * (size_t)r->nstreams;

	return ns > FT_MODEL_MAX_STREAMS ? SIZE_MAX : ns;
}

/*
 * One simulation (one draw through one run) while it runs: its table of
 * buckets and its sums.  A local of sim_run(), so that the sums stay in
 * registers through the steps below, which are inlined into it.
 */
struct sim_run {
	const uint32_t *hk;	/* each hold's hash in this draw, or NULL */
	uint64_t draw;
	uint32_t mask;		/* size - 1 */
	uint64_t handover;
	uint64_t *free_at, *last_key;	/* struct sim's */
	uint64_t *keyrel;	/* struct sim's, when the run has an `after` */
	uint64_t first, last;	/* first request, last release */
	double coll, coll_wait, share_wait, fault;
};

/*
 * Hold x (index p in the run) of key `key`, asked at t, through its
 * bucket's FIFO queue: it starts when the bucket's last holder releases
 * (and a handover after it), and its wait is sharing when that holder
 * had the same key, else a collision.  Returns the wait.
 */
static inline __attribute__((always_inline)) uint64_t
sim_hold(struct sim_run *s, const struct stream_hold *x, uint32_t p,
	 uint64_t key, uint64_t t)
{
	uint32_t b = (s->hk ? s->hk[p] : (uint32_t)mix64(s->draw ^
			(key * 0xd1b54a32d192ed03ULL))) & s->mask;
	uint64_t start = s->free_at[b] > t ? s->free_at[b] + s->handover : t;
	uint64_t w = start - t;

	if (w) {
		if (s->last_key[b] == key + 1) {
			s->share_wait += w;
		} else {
			s->coll += 1;
			s->coll_wait += w;
		}
	}
	s->fault += w + x->svc;
	s->free_at[b] = start + x->svc;
	if (s->free_at[b] > s->last)
		s->last = s->free_at[b];
	s->last_key[b] = key + 1;
	return w;
}

/*
 * Streams that wait for another's hold (key_order()): waiting for
 * stream a, head[a], then next[] of each; t[] the request each will
 * make when it may go.
 */
struct waits {
	uint32_t *head, *next;
	uint64_t *t;
};

/*
 * The closed loop's hold x of stream j (key: its copy's), asked at *t,
 * after the hold of its key that it follows (key_order()): 0 when it
 * may go at *t; 1 when not before a later *t, that hold's release; -1
 * when that hold, the next or a later one of its stream, is not done:
 * then j waits in that stream's list until it is (after_ready()).
 */
static inline __attribute__((always_inline)) int
after_check(const struct run *r, const struct sim_run *s,
	    const struct stream_hold *x, uint32_t j, uint64_t key,
	    const uint32_t *pos, uint64_t *t, struct waits *wl)
{
	uint32_t ns = (uint32_t)r->nstreams;
	uint32_t ja = j - j % ns + r->src[x->after];

	if (pos[ja] <= x->after) {
		wl->t[j] = *t;
		wl->next[j] = wl->head[ja];
		wl->head[ja] = j;
		return -1;
	}
	if (s->keyrel[key] <= *t)
		return 0;
	*t = s->keyrel[key];
	return 1;
}

/* the key's last release, when the run has holds `after` another */
static inline __attribute__((always_inline)) void
after_done(struct sim_run *s, uint64_t key, uint64_t rel)
{
	if (s->keyrel[key] < rel)
		s->keyrel[key] = rel;
}

/*
 * Stream j has done a hold: the next stream waiting for it that may
 * now go, taken off its list (*wp walks it from &wl->head[j]), with the
 * request it makes in wl->t[]; NO_DEP when none is left.
 */
static inline __attribute__((always_inline)) uint32_t
after_ready(const struct run *r, const uint32_t *pos, uint32_t j,
	    struct waits *wl, uint32_t **wp)
{
	while (**wp != NO_DEP) {
		uint32_t b = **wp;

		if (pos[j] > r->h[pos[b]].after) {
			**wp = wl->next[b];
			return b;
		}
		*wp = &wl->next[b];
	}
	return NO_DEP;
}

/*
 * Open loop, k copies of the run's streams: the requests keep their
 * recorded times, so the order is the run's (open_order()), each copy
 * of a group of equal requests in turn, as the heap of (time, stream)
 * took them.
 */
static inline __attribute__((always_inline)) void
sim_open(const struct run *r, uint32_t k, struct sim_run *s)
{
	uint32_t c, g0, g1, i;

	s->first = r->h[r->order[0]].req;
	if (k == 1) {
		/* one copy: a group's holds in turn are the order itself */
		for (i = 0; i < r->n; i++) {
			uint32_t p = r->order[i];
			const struct stream_hold *x = &r->h[p];

			sim_hold(s, x, p, x->key, x->req);
		}
		return;
	}
	for (g0 = 0; g0 < r->n; g0 = g1) {
		uint64_t t = r->h[r->order[g0]].req;

		for (g1 = g0 + 1; g1 < r->n &&
		     r->h[r->order[g1]].req == t; g1++)
			;
		for (c = 0; c < k; c++) {
			uint64_t kb = (uint64_t)c * r->nkeys;

			for (i = g0; i < g1; i++) {
				uint32_t p = r->order[i];
				const struct stream_hold *x = &r->h[p];

				sim_hold(s, x, p, kb + x->key, t);
			}
		}
	}
}

/* streams that the closed loop keeps in a sorted queue, not a heap */
#define SIM_FEW_STREAMS	16
#define SIM_RING	32	/* the queue's ring: a power of two > 16 */

/* the closed loop's few streams still going, by (next request, stream) */
struct sim_queue {
	uint64_t t[SIM_RING];
	uint32_t s[SIM_RING];
	unsigned int head, n;
};

/*
 * Stream j's next request at t into the queue, after those that go
 * before it: a stream's next request mostly comes after the others',
 * so this seldom moves more than one or two from the tail.
 */
static inline __attribute__((always_inline)) void
queue_put(struct sim_queue *q, uint64_t t, uint32_t j)
{
	unsigned int i = q->n, at, prev;

	for (; i > 0; i--) {
		prev = (q->head + i - 1) & (SIM_RING - 1);
		if (q->t[prev] < t || (q->t[prev] == t && q->s[prev] < j))
			break;
		at = (q->head + i) & (SIM_RING - 1);
		q->t[at] = q->t[prev];
		q->s[at] = q->s[prev];
	}
	at = (q->head + i) & (SIM_RING - 1);
	q->t[at] = t;
	q->s[at] = j;
	q->n++;
}

/*
 * The closed loop on a few streams: their next requests in a queue
 * sorted by (time, stream), the order the heap takes them in.
 */
static inline __attribute__((always_inline)) void
sim_closed_few(const struct run *r, uint32_t nstreams, struct sim_run *s)
{
	uint64_t delay[SIM_FEW_STREAMS], kbase[SIM_FEW_STREAMS];
	uint64_t wt[SIM_FEW_STREAMS];
	uint32_t pos[SIM_FEW_STREAMS], end[SIM_FEW_STREAMS];
	uint32_t whead[SIM_FEW_STREAMS], wnext[SIM_FEW_STREAMS];
	struct waits wl = { .head = whead, .next = wnext, .t = wt };
	uint32_t ns = (uint32_t)r->nstreams, j;
	struct sim_queue q;

	q.head = q.n = 0;
	for (j = 0; j < nstreams; j++) {
		uint32_t src = j % ns;

		pos[j] = r->first[src];
		end[j] = r->first[src + 1];
		kbase[j] = (uint64_t)(j / ns) * r->nkeys;
		delay[j] = 0;
		whead[j] = NO_DEP;
		if (pos[j] < end[j])
			queue_put(&q, r->h[pos[j]].req0, j);
	}
	while (q.n) {
		const struct stream_hold *x;
		uint64_t t = q.t[q.head & (SIM_RING - 1)], t0 = t, w;
		uint32_t b, *wp;

		j = q.s[q.head & (SIM_RING - 1)];
		q.head++;
		q.n--;
		if (t < s->first)
			s->first = t;
		x = &r->h[pos[j]];
		if (x->after != NO_DEP) {
			int a = after_check(r, s, x, j, kbase[j] + x->key, pos,
					    &t, &wl);

			if (a < 0)	/* until that stream has done it */
				continue;
			if (a > 0) {	/* in turn, when it asks */
				delay[j] += t - t0;
				queue_put(&q, t, j);
				continue;
			}
		}
		w = sim_hold(s, x, pos[j], kbase[j] + x->key, t);
		delay[j] += w;
		++pos[j];
		if (r->nafter) {
			after_done(s, kbase[j] + x->key, t + w + x->svc);
			for (wp = &whead[j];
			     (b = after_ready(r, pos, j, &wl, &wp)) != NO_DEP;)
				queue_put(&q, wt[b], b);
		}
		if (pos[j] < end[j])
			queue_put(&q, r->h[pos[j]].req0 + delay[j], j);
	}
}

/*
 * Closed loop, nstreams streams (copies of the run's): each stream's
 * next request is its contention-free time plus the waits it met so
 * far; the earliest request of any stream goes next, ties by stream.
 */
static inline __attribute__((always_inline)) void
sim_closed(const struct run *r, uint32_t nstreams, struct sim *sm,
	   struct sim_run *s)
{
	struct waits wl = { .head = sm->whead, .next = sm->wnext, .t = sm->wt };
	uint32_t ns = (uint32_t)r->nstreams, j;

	if (nstreams <= SIM_FEW_STREAMS) {
		sim_closed_few(r, nstreams, s);
		return;
	}
	sm->hp.n = 0;
	for (j = 0; j < nstreams; j++) {
		uint32_t src = j % ns;

		sm->pos[j] = r->first[src];
		sm->end[j] = r->first[src + 1];
		sm->kbase[j] = (uint64_t)(j / ns) * r->nkeys;
		sm->delay[j] = 0;
		sm->whead[j] = NO_DEP;
		if (sm->pos[j] < sm->end[j])
			heap_push(&sm->hp, r->h[sm->pos[j]].req0, j);
	}
	while (sm->hp.n) {
		const struct stream_hold *x;
		uint64_t t, t0, w;
		uint32_t j2, b, *wp;

		heap_pop(&sm->hp, &t, &j2);
		if (t < s->first)
			s->first = t;
		x = &r->h[sm->pos[j2]];
		t0 = t;
		if (x->after != NO_DEP) {
			int a = after_check(r, s, x, j2, sm->kbase[j2] + x->key,
					    sm->pos, &t, &wl);

			if (a < 0)	/* as sim_closed_few() */
				continue;
			if (a > 0) {
				sm->delay[j2] += t - t0;
				heap_push(&sm->hp, t, j2);
				continue;
			}
		}
		w = sim_hold(s, x, sm->pos[j2], sm->kbase[j2] + x->key, t);
		sm->delay[j2] += w;
		++sm->pos[j2];
		if (r->nafter) {
			after_done(s, sm->kbase[j2] + x->key, t + w + x->svc);
			for (wp = &sm->whead[j2];
			     (b = after_ready(r, sm->pos, j2, &wl, &wp)) != NO_DEP;)
				heap_push(&sm->hp, sm->wt[b], b);
		}
		if (sm->pos[j2] < sm->end[j2])
			heap_push(&sm->hp, r->h[sm->pos[j2]].req0 + sm->delay[j2],
				  j2);
	}
}

/*
 * One draw through one run: the streams are the recorded lanes, or with
 * threads = T, sim_copies() copies of all of them, each copy with keys of
 * its own: the same workload started again on another file, as
 * parallel_fault starts one thread per CPU.
 *
 * Closed loop: a task asks for its next page when its previous fault
 * is done, so a simulated wait delays all its later requests.  Open
 * loop: the requests come at their recorded times whatever the table
 * does, as when the waits of the recording were not the task's own
 * doing (the recorded time line already has them in; the model takes
 * nothing out and adds nothing on).
 */
void sim_run(const struct run *r, int threads, int open_loop,
	     uint32_t size, uint64_t draw, const uint32_t *hk,
	     struct sim *sm, struct sim_out *out)
{
	uint32_t nstreams = (uint32_t)sim_streams(r, threads);
	struct sim_run s = {
		.hk = hk, .draw = draw, .mask = size - 1,
		.handover = r->handover,
		.free_at = sm->free_at, .last_key = sm->last_key,
		.keyrel = sm->keyrel,
		.first = UINT64_MAX,
	};

	if (!r->nstreams)
		return;
	memset(s.free_at, 0, (size_t)size * sizeof(*s.free_at));
	memset(s.last_key, 0, (size_t)size * sizeof(*s.last_key));
	if (!open_loop && r->nafter)
		memset(s.keyrel, 0, (size_t)(nstreams / (uint32_t)r->nstreams) *
		       r->nkeys * sizeof(*s.keyrel));
	if (open_loop)
		sim_open(r, nstreams / (uint32_t)r->nstreams, &s);
	else
		sim_closed(r, nstreams, sm, &s);
	out->coll += s.coll;
	out->coll_wait += s.coll_wait;
	out->share_wait += s.share_wait;
	out->fault += s.fault;
	if (s.last > s.first)
		out->span += s.last - s.first;
}

void sim_free(struct sim *sm)
{
	free(sm->free_at);
	free(sm->last_key);
	free(sm->pos);
	free(sm->delay);
	free(sm->end);
	free(sm->kbase);
	free(sm->whead);
	free(sm->wnext);
	free(sm->wt);
	free(sm->keyrel);
	free(sm->hp.t);
	free(sm->hp.s);
}

/*
 * A simulation's table of `size` buckets, its maxs streams and maxk
 * keys: 0 or -1.
 */
int sim_alloc(struct sim *sm, uint32_t size, size_t maxs, size_t maxk)
{
	memset(sm, 0, sizeof(*sm));
	sm->free_at = malloc((size_t)size * sizeof(*sm->free_at));
	sm->last_key = malloc((size_t)size * sizeof(*sm->last_key));
	sm->pos = malloc((maxs + 1) * sizeof(*sm->pos));
	sm->delay = malloc((maxs + 1) * sizeof(*sm->delay));
	sm->end = malloc((maxs + 1) * sizeof(*sm->end));
	sm->kbase = malloc((maxs + 1) * sizeof(*sm->kbase));
	sm->whead = malloc((maxs + 1) * sizeof(*sm->whead));
	sm->wnext = malloc((maxs + 1) * sizeof(*sm->wnext));
	sm->wt = malloc((maxs + 1) * sizeof(*sm->wt));
	sm->keyrel = malloc((maxk + 1) * sizeof(*sm->keyrel));
	sm->hp.t = malloc((maxs + 1) * sizeof(*sm->hp.t));
	sm->hp.s = malloc((maxs + 1) * sizeof(*sm->hp.s));
	if (!sm->free_at || !sm->last_key || !sm->pos || !sm->delay ||
	    !sm->end || !sm->kbase || !sm->whead || !sm->wnext || !sm->wt ||
	    !sm->keyrel || !sm->hp.t || !sm->hp.s) {
		sim_free(sm);
		return -1;
	}
	return 0;
}
