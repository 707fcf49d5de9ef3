// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune contention model: recorded holds made into runs.  Each task's
 * holds become a stream on a contention-free time line (its own recorded
 * waits taken out), tasks that never overlap share a lane, keys get dense
 * ids, and the orders the simulation needs (open loop: by request; closed
 * loop: a key's holds kept in their recorded order) are made once here,
 * so that every draw and every size reuses them.  Also what a run
 * measured itself (its size, its collision wait, its handover gap).
 */
#include <stdlib.h>
#include <string.h>
#include "model-local.h"

static const struct ft_hold *acq_order;	/* qsort's context */

static int cmp_acq(const void *x, const void *y)
{
	const struct ft_hold *a = &acq_order[*(const uint32_t *)x];
	const struct ft_hold *b = &acq_order[*(const uint32_t *)y];

	if (a->acq_ts != b->acq_ts)
		return a->acq_ts < b->acq_ts ? -1 : 1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) -
	       (*(const uint32_t *)x < *(const uint32_t *)y);
}

/*
 * The mean gap from a release to the acquire of the hold that was
 * waiting for it, on the buckets of the size the run ran at: what a
 * handover costs on this machine beyond the holder's own time.  Holds
 * in acquire order; a hold waited for its bucket's last holder when it
 * asked before that one released.
 */
static uint64_t handover_of(const struct ft_hold *h, size_t n, uint32_t size)
{
	uint64_t *last = calloc(size, sizeof(*last));
	uint32_t *ord = malloc((n ? n : 1) * sizeof(*ord));
	double sum = 0;
	size_t i, cnt = 0;

	if (last && ord && n <= UINT32_MAX) {
		for (i = 0; i < n; i++)
			ord[i] = (uint32_t)i;
		acq_order = h;
		qsort(ord, n, sizeof(*ord), cmp_acq);
		for (i = 0; i < n; i++) {
			const struct ft_hold *x = &h[ord[i]];
			uint32_t b = x->hash & (size - 1);

			if (last[b] && x->req_ts < last[b] && x->acq_ts >= last[b]) {
				sum += (double)(x->acq_ts - last[b]);
				cnt++;
			}
			if (x->rel_ts > last[b])
				last[b] = x->rel_ts;
		}
	}
	free(last);
	free(ord);
	return cnt ? (uint64_t)(sum / cnt) : 0;
}

void ft_model_run_measured(struct ft_model *m, const struct ft_hold *h,
			   size_t n, uint32_t size, double coll_wait_ns)
{
	struct run *r;

	if (!m->nruns || !size || !ft_is_pow2(size) || size > FT_MODEL_MAX_SIZE)
		return;
	r = &m->runs[m->nruns - 1];
	r->rec_size = size;
	r->rec_coll_wait = coll_wait_ns;
	r->handover = h ? handover_of(h, n, size) : 0;
}

struct tagged {
	const struct ft_hold *h;
	uint64_t req_ts;	/* h->req_ts: the sort reads no hold but on ties */
	uint32_t stream, key;
	uint32_t task;		/* the stream before tasks_to_lanes() */
};

static int cmp_tagged(const void *x, const void *y)
{
	const struct tagged *a = x, *b = y;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->req_ts != b->req_ts)
		return a->req_ts < b->req_ts ? -1 : 1;
	return (a->h->acq_ts > b->h->acq_ts) - (a->h->acq_ts < b->h->acq_ts);
}

/*
 * In stream order, each stream's holds by request (cmp_tagged): counted
 * into their streams in the order they came (stably, as qsort's merge
 * sort kept equal ones), then each stream sorted only where it is not
 * already, which holds given at their release seldom are not.
 */
static int sort_tagged(struct tagged **tp, size_t n, uint32_t nstreams)
{
	struct tagged *t = *tp, *u = malloc((n ? n : 1) * sizeof(*u));
	size_t *at = calloc(nstreams + 1, sizeof(*at)), i, s;

	if (!u || !at) {
		free(u);
		free(at);
		return -1;
	}
	for (i = 0; i < n; i++)
		at[t[i].stream + 1]++;
	for (s = 0; s < nstreams; s++)
		at[s + 1] += at[s];
	for (i = 0; i < n; i++)
		u[at[t[i].stream]++] = t[i];
	for (s = 0, i = 0; s < nstreams; i = at[s++]) {
		size_t k;

		for (k = i + 1; k < at[s]; k++)
			if (cmp_tagged(&u[k - 1], &u[k]) > 0)
				break;
		if (k < at[s])
			qsort(u + i, at[s] - i, sizeof(*u), cmp_tagged);
	}
	free(at);
	free(t);
	*tp = u;
	return 0;
}

/* dense ids for a u64 key, in order of first appearance (deterministic) */
static uint32_t dense_id(struct ft_map *map, uint64_t key, uint32_t *next)
{
	void **slot = ft_map_get(map, key, 1);

	if (!slot)
		return UINT32_MAX;
	if (!*slot)
		*slot = (void *)(uintptr_t)++*next;	/* non-NULL: id + 1 */
	return (uint32_t)(uintptr_t)*slot - 1;
}

/*
 * Dense ids for (mapping, index) keys, in order of first appearance: an
 * open-addressed table of ids (4 bytes a slot, at most half full) over
 * the keys' own arrays.  A general u64 -> pointer map would take 16 bytes
 * a slot: on a million-event recording that was half of report's memory.
 */
struct keyset {
	uint32_t *slot;		/* id + 1; 0: empty */
	uint32_t mask;		/* slots - 1 */
	uint32_t n;		/* keys; mapping[] and index[] hold slots / 2 */
	uint64_t *mapping, *index;
};

static uint64_t key_fold(uint64_t mapping, uint64_t index)
{
	/* mapping addresses are aligned: fold the index in above them */
	return mix64(mapping ^ (index * 0x9e3779b97f4a7c15ULL));
}

static int keyset_grow(struct keyset *ks)
{
	uint32_t nslots = ks->slot ? 2 * (ks->mask + 1) : 1024, i, j;
	uint32_t *slot;
	uint64_t *p;

	if (!nslots)
		return -1;
	p = realloc(ks->mapping, nslots / 2 * sizeof(*p));
	if (!p)
		return -1;
	ks->mapping = p;
	p = realloc(ks->index, nslots / 2 * sizeof(*p));
	if (!p)
		return -1;
	ks->index = p;
	slot = calloc(nslots, sizeof(*slot));
	if (!slot)
		return -1;
	for (i = 0; i < ks->n; i++) {
		j = key_fold(ks->mapping[i], ks->index[i]) & (nslots - 1);
		while (slot[j])
			j = (j + 1) & (nslots - 1);
		slot[j] = i + 1;
	}
	free(ks->slot);
	ks->slot = slot;
	ks->mask = nslots - 1;
	return 0;
}

static uint32_t key_id(struct keyset *ks, uint64_t mapping, uint64_t index)
{
	uint32_t j;

	if ((!ks->slot || 2 * (ks->n + 1) > ks->mask + 1) && keyset_grow(ks))
		return UINT32_MAX;
	for (j = key_fold(mapping, index) & ks->mask; ks->slot[j];
	     j = (j + 1) & ks->mask) {
		uint32_t id = ks->slot[j] - 1;

		if (ks->mapping[id] == mapping && ks->index[id] == index)
			return id;
	}
	ks->slot[j] = ks->n + 1;
	ks->mapping[ks->n] = mapping;
	ks->index[ks->n] = index;
	return ks->n++;
}

static void keyset_free(struct keyset *ks)
{
	free(ks->slot);
	free(ks->mapping);
	free(ks->index);
	memset(ks, 0, sizeof(*ks));
}

/*
 * Tasks that never overlap in time are one stream of faults: a shell loop
 * that runs one process after another, the second repetition of a
 * workload's threads after the first.  Packing the tasks into the fewest
 * lanes (interval partitioning: each task, by start, into the first lane
 * free by then) gives the streams that really ran side by side, which is
 * what --threads multiplies and what the queueing feedback runs along.
 * On entry t[].stream is the task; on return the lane.
 */
static const uint64_t *lane_first;	/* qsort's context */

static int cmp_task_start(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (lane_first[a] != lane_first[b])
		return lane_first[a] < lane_first[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static int tasks_to_lanes(struct tagged *t, size_t n, uint32_t *nstreams)
{
	uint32_t ntasks = *nstreams, nlanes = 0, i, *order = NULL, *lane = NULL;
	uint64_t *first = NULL, *last = NULL, *lane_end = NULL;
	size_t k;
	int ret = -1;

	first = malloc((ntasks + 1) * sizeof(*first));
	last = calloc(ntasks + 1, sizeof(*last));
	order = malloc((ntasks + 1) * sizeof(*order));
	lane = malloc((ntasks + 1) * sizeof(*lane));
	lane_end = malloc((ntasks + 1) * sizeof(*lane_end));
	if (!first || !last || !order || !lane || !lane_end)
		goto out;
	for (i = 0; i < ntasks; i++) {
		first[i] = UINT64_MAX;
		order[i] = i;
	}
	for (k = 0; k < n; k++) {
		uint32_t s = t[k].stream;

		if (t[k].h->req_ts < first[s])
			first[s] = t[k].h->req_ts;
		if (t[k].h->rel_ts > last[s])
			last[s] = t[k].h->rel_ts;
	}
	/* by first request, ties by task id: a total order */
	lane_first = first;
	qsort(order, ntasks, sizeof(*order), cmp_task_start);
	for (i = 0; i < ntasks; i++) {
		uint32_t x = order[i], l;

		for (l = 0; l < nlanes; l++)
			if (lane_end[l] <= first[x])
				break;
		if (l == nlanes)
			nlanes++;
		lane[x] = l;
		lane_end[l] = last[x];
	}
	for (k = 0; k < n; k++)
		t[k].stream = lane[t[k].stream];
	*nstreams = nlanes;
	ret = 0;
out:
	free(first);
	free(last);
	free(order);
	free(lane);
	free(lane_end);
	return ret;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/*
 * Sort times that mostly come in order (holds arrive at their release,
 * so their releases are in order and their requests nearly): insertion
 * while few move, else qsort.
 */
static void sort_times(uint64_t *v, size_t n)
{
	size_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		uint64_t x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--) {
			v[j] = v[j - 1];
			if (++moves > 8 * n + 64) {
				v[j - 1] = x;	/* v is a permutation again */
				qsort(v, n, sizeof(*v), cmp_u64);
				return;
			}
		}
		v[j] = x;
	}
}

/*
 * The run's concurrency: the most holds in flight (request to release)
 * at once.  A task has one fault in flight at a time, so this is how
 * many faulting threads really ran side by side, whatever the number of
 * tasks (a main thread that truncates between repetitions is a task,
 * not a faulting thread more).  Ends count before starts at equal times:
 * the requests and the releases each sorted, then merged.
 */
static int max_inflight(const struct ft_hold *h, size_t n)
{
	uint64_t *req = malloc((n + 1) * sizeof(*req));
	uint64_t *rel = malloc((n + 1) * sizeof(*rel));
	int cur = 0, best = n ? 1 : 0;
	size_t i, j;

	if (!req || !rel) {
		free(req);
		free(rel);
		return best;
	}
	for (i = 0; i < n; i++) {
		req[i] = h[i].req_ts;
		rel[i] = h[i].rel_ts > h[i].req_ts ? h[i].rel_ts : h[i].req_ts;
	}
	sort_times(req, n);
	sort_times(rel, n);
	for (i = j = 0; i < n; ) {
		if (j < n && rel[j] <= req[i]) {
			cur--;
			j++;
			continue;
		}
		if (++cur > best)
			best = cur;
		i++;
	}
	free(req);
	free(rel);
	return best;
}

static int open_order(struct run *r);
static int key_order(struct run *r, const uint64_t *rel_at);

int ft_model_add_run(struct ft_model *m, const struct ft_hold *h, size_t n)
{
	struct ft_map streams = { 0 };
	struct keyset keys = { 0 };
	struct tagged *t = NULL;
	struct run r = { 0 }, *runs;
	uint32_t nstreams = 0, nkeys = 0, s, task = UINT32_MAX;
	uint64_t waited = 0, *rel_at = NULL;
	size_t i;
	int ret = -1;

	t = malloc((n ? n : 1) * sizeof(*t));
	if (!t)
		goto out;
	for (i = 0; i < n; i++) {
		t[i].h = &h[i];
		t[i].req_ts = h[i].req_ts;
		t[i].stream = dense_id(&streams, (uint32_t)h[i].pid, &nstreams);
		t[i].task = t[i].stream;
		t[i].key = key_id(&keys, h[i].mapping, h[i].index);
		if (t[i].stream == UINT32_MAX || t[i].key == UINT32_MAX)
			goto out;
	}
	nkeys = keys.n;
	/* each step's arrays go before the next one's come: peak memory */
	keyset_free(&keys);
	ft_map_free(&streams, NULL);
	if (tasks_to_lanes(t, n, &nstreams))
		goto out;
	if (sort_tagged(&t, n, nstreams))
		goto out;
	r.h = malloc((n ? n : 1) * sizeof(*r.h));
	r.rhash = malloc((n ? n : 1) * sizeof(*r.rhash));
	r.first = calloc(nstreams + 1, sizeof(*r.first));
	rel_at = malloc((n ? n : 1) * sizeof(*rel_at));
	if (!r.h || !r.rhash || !r.first || !rel_at)
		goto out;
	for (i = 0, s = UINT32_MAX; i < n; i++) {
		const struct ft_hold *x = t[i].h;
		uint64_t acq = x->acq_ts > x->req_ts ? x->acq_ts : x->req_ts;
		uint64_t rel = x->rel_ts > acq ? x->rel_ts : acq;

		if (t[i].stream != s) {
			s = t[i].stream;
			r.first[s] = (uint32_t)i;
		}
		/*
		 * The recorded waits of this task so far come off its time
		 * line: its own, not those of the tasks before it in its
		 * lane.  A task that starts after others ended started when
		 * something outside the table let it: the main thread that
		 * truncates after joining the faulting threads started after
		 * the last of them, not after its lane's, and taking that
		 * one's waits off moved its truncation into the faults of
		 * the others (the same pages: a true sharing the runs never
		 * had; other pages: collisions they never had).  The lane's
		 * simulated waits still delay it, so that no two tasks of a
		 * lane overlap.
		 */
		if (t[i].task != task) {
			task = t[i].task;
			waited = 0;
		}
		r.h[i].req = x->req_ts;
		r.h[i].req0 = x->req_ts - (waited < x->req_ts ? waited : 0);
		r.rec_fault += (double)(rel - x->req_ts);
		r.h[i].svc = rel - acq;
		r.h[i].key = t[i].key;
		r.rhash[i] = x->hash;
		r.h[i].after = NO_DEP;
		rel_at[i] = rel;
		waited += acq - x->req_ts;
	}
	r.first[nstreams] = (uint32_t)n;
	r.n = n;
	r.nstreams = (int)nstreams;
	r.nkeys = nkeys;
	free(t);
	t = NULL;
	r.inflight = max_inflight(h, n);
	if (open_order(&r) || key_order(&r, rel_at))
		goto out;
	model_hash_free(m);	/* made for the runs before this one */
	runs = realloc(m->runs, (m->nruns + 1) * sizeof(*runs));
	if (!runs)
		goto out;
	m->runs = runs;
	m->runs[m->nruns++] = r;
	m->nholds += n;
	if ((int)nstreams > m->max_streams)
		m->max_streams = (int)nstreams;
	r.h = NULL;
	r.rhash = NULL;
	r.first = NULL;
	r.order = r.src = NULL;
	ret = 0;
out:
	ft_map_free(&streams, NULL);
	keyset_free(&keys);
	free(t);
	free(r.h);
	free(r.rhash);
	free(r.first);
	free(r.order);
	free(r.src);
	free(rel_at);
	return ret;
}

static const struct stream_hold *req_order;	/* qsort's context */

static int cmp_req(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (req_order[a].req != req_order[b].req)
		return req_order[a].req < req_order[b].req ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * The open loop's order: by recorded request, ties by stream and then
 * by position in the stream, which is the order of the holds' indices
 * (grouped by stream, each in request order).  The heap of the closed
 * loop takes them in the same order, (time, stream) first.
 */
static int open_order(struct run *r)
{
	uint32_t s, i;

	r->order = malloc((r->n ? r->n : 1) * sizeof(*r->order));
	r->src = malloc((r->n ? r->n : 1) * sizeof(*r->src));
	if (!r->order || !r->src)
		return -1;
	for (s = 0; s < (uint32_t)r->nstreams; s++)
		for (i = r->first[s]; i < r->first[s + 1]; i++)
			r->src[i] = s;
	for (i = 0; i < r->n; i++)
		r->order[i] = i;
	req_order = r->h;
	qsort(r->order, r->n, sizeof(*r->order), cmp_req);
	return 0;
}

/*
 * Holds of one key in two streams that did not overlap in the recording
 * keep their order: the later one is `after` the earlier (the one of its
 * key released last before it asked), and the closed loop does not
 * start it before that one's simulated release.  Their order was not
 * the table's doing: no size takes a page's mutex off the page, so what
 * kept them apart was the program (a truncation after the join of the
 * threads that faulted the pages, a page faulted once and then found
 * present).  The closed loop moves each stream's time line by its own
 * waits, and streams that moved apart laid such holds over each other:
 * waits behind the same page that no run had.  Holds of one key that did
 * overlap (a true sharing the recording has) queue as any others.  By
 * open_order(), (request, index): a total order in which every `after`
 * and every stream's previous hold come first, so the streams cannot
 * wait for each other in a ring.  The open loop keeps the recorded
 * requests and takes the holds in their order: it is left as it was.
 */
static int key_order(struct run *r, const uint64_t *rel_at)
{
	uint32_t *last = malloc((r->nkeys ? r->nkeys : 1) * sizeof(*last));
	uint32_t i, k;

	if (!last)
		return -1;
	for (k = 0; k < r->nkeys; k++)
		last[k] = NO_DEP;
	for (i = 0; i < r->n; i++) {
		uint32_t p = r->order[i], q;

		k = r->h[p].key;
		q = last[k];
		if (q != NO_DEP && rel_at[q] <= r->h[p].req &&
		    r->src[q] != r->src[p]) {
			r->h[p].after = q;
			r->nafter++;
		}
		if (q == NO_DEP || rel_at[p] >= rel_at[q])
			last[k] = p;
	}
	free(last);
	return 0;
}
