// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune contention model.
 *
 * Input: the completed holds of the hugetlb fault mutexes of one or more
 * recorded runs (request, acquire and release time, key, task).  Output:
 * for a table of N buckets, the collision wait to expect, as a share of
 * the time the faults spend from request to release.
 *
 * Expected, not replayed.  The hash is jhash2 of the address_space's
 * kernel address and the index: a new draw whenever the file is created
 * again (every run of a workload that maps a fresh memfd, every restart of
 * a database, every boot).  A table size set at boot serves all of those
 * draws, so the model averages over draws of a uniform hash instead of
 * replaying the one the recording happened to get: one probe of 32 holds
 * said "no collision at 128" where measured runs had five.  What is stable
 * from run to run is the overlap structure (who holds while whom waits);
 * that is what the model keeps from the recording.  Two holds of one key
 * share their bucket in every draw: that wait is true sharing, reported
 * apart, and no size removes it.
 *
 * Queueing feedback.  Each task's holds are laid on a contention-free
 * time line: the recorded waits are taken out (a task that waited 1 ms
 * would have asked for its next page 1 ms earlier), the hold times are
 * kept.  For each draw the streams are then run through N FIFO mutexes in
 * request order: a hold starts when the bucket's previous holder releases,
 * and a task's wait delays its later requests.  So a third fault that
 * queues behind a second that queued behind a first waits for both, which
 * the pairwise 1/N estimate (sum over overlapping pairs of the remaining
 * hold / N) misses, and which is what makes one mutex so much worse than
 * 1/N would say.  Two holds of one page in two tasks that the recording
 * kept apart stay in their order (key_order()): no size changes it.
 *
 * Draws use common random numbers: a key's 64-bit draw is masked to each
 * size, so two keys that do not collide at N do not collide at 2N either
 * and the predicted curve is monotonic draw by draw.  Each run has draws
 * of its own: the runs of one workload often fault the same few keys, so
 * with draws common to all of them an unlucky draw was unlucky for every
 * run at once, and the spread over the runs, the printed error, left out
 * what the few draws left in the mean (at 256 mutexes on report's
 * windows of a synthetic recording: +-0.08% behind a printed +-0.003%).
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

struct stream_hold {
	uint64_t req;		/* recorded request time, ns (open loop) */
	uint64_t req0;		/* contention-free request time (closed loop) */
	uint64_t svc;		/* hold time, acquire to release */
	uint32_t key;		/* dense key id within the run */
	uint32_t after;		/* the hold of its key it follows, or NO_DEP */
};

#define NO_DEP	UINT32_MAX

struct run {
	struct stream_hold *h;	/* grouped by stream, each in request order */
	size_t n;
	uint32_t *first;	/* stream s: h[first[s] .. first[s + 1]) */
	/*
	 * Open loop: the holds in the order the simulation takes them, by
	 * (recorded request, stream): a wait moves no request, so the order
	 * is the same in every draw and at every size; src[] the stream of
	 * each.  Ties of equal requests in groups (runs of equal req).
	 */
	uint32_t *order, *src;
	int nstreams;
	int inflight;		/* most holds in flight at once: concurrency */
	uint32_t nkeys;
	size_t nafter;		/* holds with an `after` */
	/*
	 * A waiter runs some time after the release it waited for (a
	 * wake-up, a schedule): the mean of that gap over the run's
	 * handovers, which the simulation adds to every simulated one.
	 */
	uint64_t handover;
	/* what the run measured itself, at the size it ran at (0: unknown) */
	uint32_t rec_size;
	double rec_coll_wait;	/* ns */
	double rec_fault;	/* ns, request to release, all holds */
};

struct ft_model {
	struct run *runs;
	int nruns;
	size_t nholds;
	int max_streams;
	/*
	 * Each hold's bucket hash in each draw (run i: hash[i][d * n + p]),
	 * the same for every size and both variants: made once for the
	 * seed and draws asked, when no run is copied (--threads) and it
	 * fits in FT_MODEL_HASH_CACHE bytes; else hashed hold by hold.
	 */
	uint32_t **hash;
	uint64_t hash_seed;
	int hash_draws;
	/* threads that share the predictions' simulations (pool_start()) */
	struct pool *pool;
};

#define FT_MODEL_HASH_CACHE	(16u << 20)
static void pool_stop(struct pool *p);

static void hash_free(struct ft_model *m)
{
	int i;

	for (i = 0; m->hash && i < m->nruns; i++)
		free(m->hash[i]);
	free(m->hash);
	m->hash = NULL;
	m->hash_draws = 0;
}

struct ft_model *ft_model_new(void)
{
	return calloc(1, sizeof(struct ft_model));
}

void ft_model_free(struct ft_model *m)
{
	int i;

	if (!m)
		return;
	pool_stop(m->pool);
	hash_free(m);
	for (i = 0; i < m->nruns; i++) {
		free(m->runs[i].h);
		free(m->runs[i].first);
		free(m->runs[i].order);
		free(m->runs[i].src);
	}
	free(m->runs);
	free(m);
}

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

uint64_t ft_model_handover(const struct ft_model *m)
{
	double s = 0;
	int i, k = 0;

	for (i = 0; i < m->nruns; i++)
		if (m->runs[i].rec_size) {
			s += (double)m->runs[i].handover;
			k++;
		}
	return k ? (uint64_t)(s / k) : 0;
}

int ft_model_run_recorded(const struct ft_model *m, int i, uint32_t *size,
			  double *coll_wait_ns, double *fault_ns)
{
	const struct run *r = &m->runs[i];

	*size = r->rec_size;
	*coll_wait_ns = r->rec_coll_wait;
	*fault_ns = r->rec_fault;
	return r->rec_size != 0 && r->rec_fault > 0;
}

size_t ft_model_nholds(const struct ft_model *m)
{
	return m->nholds;
}

int ft_model_nruns(const struct ft_model *m)
{
	return m->nruns;
}

int ft_model_streams(const struct ft_model *m)
{
	return m->max_streams;
}

int ft_model_concurrency(const struct ft_model *m)
{
	int i, c = 0;

	for (i = 0; i < m->nruns; i++)
		if (m->runs[i].inflight > c)
			c = m->runs[i].inflight;
	return c;
}

/* splitmix64's finaliser: the model's hash draws and its key table */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
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
	r.first = calloc(nstreams + 1, sizeof(*r.first));
	rel_at = malloc((n ? n : 1) * sizeof(*rel_at));
	if (!r.h || !r.first || !rel_at)
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
	hash_free(m);		/* made for the runs before this one */
	runs = realloc(m->runs, (m->nruns + 1) * sizeof(*runs));
	if (!runs)
		goto out;
	m->runs = runs;
	m->runs[m->nruns++] = r;
	m->nholds += n;
	if ((int)nstreams > m->max_streams)
		m->max_streams = (int)nstreams;
	r.h = NULL;
	r.first = NULL;
	r.order = r.src = NULL;
	ret = 0;
out:
	ft_map_free(&streams, NULL);
	keyset_free(&keys);
	free(t);
	free(r.h);
	free(r.first);
	free(r.order);
	free(r.src);
	free(rel_at);
	return ret;
}

/* ---- simulation ---- */

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

/* min-heap of streams by their next request time */
struct heap {
	uint64_t *t;
	uint32_t *s;
	int n;
};

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

struct sim {
	uint64_t *free_at;	/* per bucket: release time of its last holder */
	uint64_t *last_key;	/* per bucket: that holder's key + 1 (0: none) */
	uint32_t *pos;		/* per stream: next hold */
	uint32_t *end;		/* per stream: past its last hold */
	uint64_t *kbase;	/* per stream: its copy's first key */
	uint64_t *delay;	/* per stream: simulated wait so far */
	uint32_t *whead, *wnext;	/* per stream: streams waiting for it */
	uint64_t *wt;		/* per stream: the request it waits with */
	uint64_t *keyrel;	/* per copy and key: last simulated release */
	struct heap hp;
};

struct sim_out {
	double coll, coll_wait, share_wait, fault, span;
};

/*
 * Copies of a run that --threads T asks for: T over the run's
 * concurrency, rounded, at least one.
 */
static int copies(const struct run *r, int threads)
{
	int k;

	if (!threads || r->inflight < 1)
		return 1;
	k = (threads + r->inflight / 2) / r->inflight;
	return k < 1 ? 1 : k;
}

/* the streams one simulation of the run runs: SIZE_MAX past any sane count */
static size_t sim_streams(const struct run *r, int threads)
{
	size_t ns = (size_t)copies(r, threads) * (size_t)r->nstreams;

	return ns > FT_MODEL_MAX_STREAMS ? SIZE_MAX : ns;
}

/*
 * One simulation (one draw through one run) while it runs: its table of
 * buckets and its sums.  A local of simulate(), so that the sums stay in
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
 * threads = T, copies() copies of all of them, each copy with keys of
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
static void simulate(const struct run *r, int threads, int open_loop,
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

/*
 * Enough draws that the mean is steady, few enough that a million-event
 * recording (a third of a million holds) stays well under a second over
 * a dozen sizes and both variants: about a million simulated holds per
 * size and variant.  Each run has draws of its own (run_draw()), so the
 * mean over the runs rests on runs times draws of the hash: with many
 * runs (report's windows) a few draws each are as many as one run would
 * need alone, and the runs' spread, the standard error, includes what
 * the draws leave.  So at most 256 draws in all over the runs, at least
 * 4 a run (a run's spread over its draws, which decide.c uses, from
 * fewer would be too rough).  A caller with few small runs (tune) asks
 * for run_draws a run instead of the 256 in all, within the same work.
 */
static int auto_draws(const struct ft_model *m, int threads, int run_draws)
{
	double work = 0;
	int i, d, cap;

	for (i = 0; i < m->nruns; i++) {
		const struct run *r = &m->runs[i];

		work += (double)r->n * copies(r, threads);
	}
	if (work < 1)
		return 1;
	d = (int)(1e6 / work);
	cap = m->nruns > 1 ? (256 + m->nruns - 1) / m->nruns : 256;
	if (cap < run_draws)
		cap = run_draws;
	if (d > cap)
		d = cap;
	return d < 4 ? 4 : d > 256 ? 256 : d;
}

/*
 * Draw d of run i: the first run's draws are those every run had when
 * the draws were common to all, the others' their own.
 */
static uint64_t run_draw(uint64_t seed, int i, int d)
{
	return mix64(seed + (((uint64_t)i << 32) + (uint64_t)d) *
		     0x9e3779b97f4a7c15ULL);
}

static void pct_moments(double coll, double fault, double *sum, double *sum2)
{
	double p;

	if (fault <= 0)
		return;
	p = 100.0 * coll / fault;
	*sum += p;
	*sum2 += p * p;
}

static double sd_of(double sum, double sum2, int n)
{
	double var;

	if (n < 2)
		return 0;
	var = (sum2 - sum * sum / n) / (n - 1);
	return var > 0 ? sqrt(var) : 0;
}

/* the bucket hashes of every hold in every draw, if they fit: 0 or -1 */
static int hash_make(struct ft_model *m, const struct ft_model_opts *o,
		     int draws)
{
	size_t bytes = 0;
	int i, d;

	/* a copied run's keys are other keys: hashed hold by hold */
	for (i = 0; i < m->nruns; i++)
		if (copies(&m->runs[i], o->threads) != 1)
			return -1;
	if (m->hash && m->hash_seed == o->seed && m->hash_draws >= draws)
		return 0;
	hash_free(m);
	for (i = 0; i < m->nruns; i++) {
		bytes += m->runs[i].n * (size_t)draws * sizeof(uint32_t);
		if (bytes > FT_MODEL_HASH_CACHE)
			return -1;
	}
	m->hash = calloc(m->nruns + 1, sizeof(*m->hash));
	if (!m->hash)
		return -1;
	for (i = 0; i < m->nruns; i++) {
		const struct run *r = &m->runs[i];
		uint32_t *hk = malloc((r->n ? r->n : 1) * (size_t)draws *
				      sizeof(*hk));
		size_t p;

		if (!hk) {
			hash_free(m);
			return -1;
		}
		m->hash[i] = hk;
		for (d = 0; d < draws; d++) {
			uint64_t draw = run_draw(o->seed, i, d);

			for (p = 0; p < r->n; p++)
				hk[(size_t)d * r->n + p] = (uint32_t)mix64(draw ^
					((uint64_t)r->h[p].key * 0xd1b54a32d192ed03ULL));
		}
	}
	m->hash_seed = o->seed;
	m->hash_draws = draws;
	return 0;
}

/*
 * The draws a prediction makes (o->draws, else auto_draws() within
 * o->max_draws), in row->draws too, and the most streams one simulation
 * of a run runs (and keys, when it has holds `after` another); -1 when
 * the size or the options are out of range.
 */
static int predict_setup(const struct ft_model *m,
			 const struct ft_model_opts *o, uint32_t size,
			 struct ft_model_row *row, size_t *maxs, size_t *maxk)
{
	int draws, i;

	if (!size || !ft_is_pow2(size) || size > FT_MODEL_MAX_SIZE ||
	    o->threads < 0 || o->only_run < 0 || o->only_run > m->nruns)
		return -1;
	draws = o->draws > 0 ? o->draws :
				 auto_draws(m, o->threads, o->run_draws);
	if (!o->draws && o->max_draws > 0 && draws > o->max_draws)
		draws = o->max_draws;
	row->draws = draws;
	*maxs = *maxk = 0;
	for (i = 0; i < m->nruns; i++) {
		const struct run *r = &m->runs[i];
		size_t ns = sim_streams(r, o->threads);

		if (ns == SIZE_MAX)
			return -1;	/* more streams than any machine runs */
		if (ns > *maxs)
			*maxs = ns;
		/* the closed loop's last release of each copy's keys */
		if (r->nafter && (size_t)copies(r, o->threads) * r->nkeys > *maxk)
			*maxk = (size_t)copies(r, o->threads) * r->nkeys;
	}
	return draws;
}

static void sim_free(struct sim *sm)
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
static int sim_alloc(struct sim *sm, uint32_t size, size_t maxs, size_t maxk)
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

/* a prediction's sums over the draws: the row's, and each run's moments */
struct pred_sums {
	double sum, sum2;	/* of each draw's collision share, % */
	double *rs, *rs2;	/* run i's, over its draws (runs wanted) */
};

/*
 * The simulations of one prediction, one per (draw, run), are
 * independent: each has its own draw (run_draw()) and its own table.
 * They are shared out among threads, each taking the next one not yet
 * taken, and each result goes to its own place in out[], so the sums
 * below add them in the same order whichever thread ran them: the
 * answer does not depend on the threads or their timing.
 */
struct predict_work {
	const struct ft_model *m;
	const struct ft_model_opts *o;
	uint32_t size;
	size_t maxs, maxk;	/* most streams and keys of a run (sim_alloc()) */
	int cached;		/* m->hash holds every draw's hashes */
	int helpers;		/* pool threads that may take part */
	struct sim_out *out;	/* [draw * nruns + run] */
	size_t njobs;
	size_t next;		/* the next job to take (atomic) */
};

/* fewer simulated holds than this: the threads would cost more than they save */
#define FT_MODEL_THREAD_WORK	65536
/* most threads a prediction runs on (each has a table of its own) */
#define FT_MODEL_MAX_THREADS	4
/* and at most this many bytes of tables beyond the caller's */
#define FT_MODEL_THREAD_TABLES	(16u << 20)

static void predict_jobs(struct predict_work *w, struct sim *sm)
{
	const struct ft_model *m = w->m;
	const struct ft_model_opts *o = w->o;
	size_t j;

	while ((j = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) <
	       w->njobs) {
		int d = (int)(j / m->nruns), i = (int)(j % m->nruns);

		if (o->only_run && o->only_run != i + 1)
			continue;
		simulate(&m->runs[i], o->threads, o->open_loop, w->size,
			 run_draw(o->seed, i, d), w->cached ? m->hash[i] +
			 (size_t)d * m->runs[i].n : NULL, sm, &w->out[j]);
	}
}

/*
 * Helper threads, started with the model's first prediction that is
 * worth sharing and kept until ft_model_free(): a thread started for
 * each prediction (a millisecond or two of work) often came when its
 * jobs were all taken.  The caller publishes a prediction's work and
 * takes jobs itself; helpers that wake in time join in.  When the jobs
 * run out the caller closes the work, so that a helper that wakes late
 * does not join, and waits only for those that did.
 */
struct pool {
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	struct predict_work *work;	/* open to helpers; NULL: none */
	unsigned long gen;		/* of the work last published */
	int busy;			/* helpers in the work's jobs */
	int quit;
	int n;
	pthread_t tid[FT_MODEL_MAX_THREADS - 1];
};

struct helper {
	struct pool *p;
	int idx;
	struct sim sm;			/* its table, kept between predictions */
	uint32_t size;			/* what sm was made for */
	size_t maxs, maxk;
};

/* the helper's table for w, kept when it is large enough: 0 or -1 */
static int helper_table(struct helper *h, const struct predict_work *w)
{
	if (h->size >= w->size && h->maxs >= w->maxs && h->maxk >= w->maxk)
		return 0;
	if (h->size)
		sim_free(&h->sm);
	h->size = 0;
	if (sim_alloc(&h->sm, w->size, w->maxs, w->maxk))
		return -1;
	h->size = w->size;
	h->maxs = w->maxs;
	h->maxk = w->maxk;
	return 0;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct pool *p = h->p;
	unsigned long seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct predict_work *w;

		while (!p->quit && (!p->work || p->gen == seen))
			pthread_cond_wait(&p->go, &p->lock);
		if (p->quit)
			break;
		seen = p->gen;
		w = p->work;
		if (h->idx >= w->helpers)
			continue;
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		/* without a table it takes no job: the others do them */
		if (!helper_table(h, w))
			predict_jobs(w, &h->sm);
		pthread_mutex_lock(&p->lock);
		if (!--p->busy)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	if (h->size)
		sim_free(&h->sm);
	free(h);
	return NULL;
}

static void pool_stop(struct pool *p)
{
	int k;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	for (k = 0; k < p->n; k++)
		pthread_join(p->tid[k], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p);
}

/*
 * Helpers to share a model's predictions with: nhelpers of them (the
 * first prediction's wish, which later ones do not exceed but by
 * o->workers), or fewer when some cannot start (NULL: none).  They block every signal,
 * so that the caller's handlers (tune's) run on the caller.
 */
static struct pool *pool_start(int nhelpers)
{
	struct pool *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int k;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (k = 0; k < nhelpers && k < FT_MODEL_MAX_THREADS - 1; k++) {
		struct helper *h = calloc(1, sizeof(*h));

		if (!h)
			break;
		h->p = p;
		h->idx = k;
		if (pthread_create(&p->tid[p->n], NULL, helper_main, h)) {
			free(h);
			break;
		}
		p->n++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->n) {
		pool_stop(p);
		return NULL;
	}
	return p;
}

/*
 * Threads for a prediction, the caller's included: o->workers, or one
 * a CPU this process may run on, within FT_MODEL_MAX_THREADS and the
 * tables' memory; one when the work is too small to share.
 */
static int predict_threads(const struct ft_model *m,
			   const struct ft_model_opts *o, uint32_t size,
			   int draws)
{
	double work = 0;
	size_t table = (size_t)size * 2 * sizeof(uint64_t);
	cpu_set_t cpus;
	int i, n;

	if (o->workers > 0)
		return o->workers < FT_MODEL_MAX_THREADS ? o->workers :
							  FT_MODEL_MAX_THREADS;
	for (i = 0; i < m->nruns; i++)
		work += (double)m->runs[i].n * copies(&m->runs[i], o->threads);
	if (work * draws < FT_MODEL_THREAD_WORK ||
	    sched_getaffinity(0, sizeof(cpus), &cpus))
		return 1;
	n = CPU_COUNT(&cpus);
	if (n > FT_MODEL_MAX_THREADS)
		n = FT_MODEL_MAX_THREADS;
	if ((size_t)(n - 1) * table > FT_MODEL_THREAD_TABLES)
		n = 1 + (int)(FT_MODEL_THREAD_TABLES / table);
	return n < 1 ? 1 : n;
}

/*
 * Every job of w on nthreads threads: the caller's (with its table sm)
 * and the model's pool, started the first time (a cache, as m->hash,
 * not the model's state).  Without helpers the caller does them all.
 */
static void predict_run_jobs(const struct ft_model *m,
			     struct predict_work *w, struct sim *sm,
			     int nthreads)
{
	struct ft_model *mm = (struct ft_model *)m;
	struct pool *p;

	if (nthreads > 1 && !mm->pool)
		mm->pool = pool_start(nthreads - 1);
	p = mm->pool;
	if (nthreads < 2 || !p) {
		predict_jobs(w, sm);
		return;
	}
	w->helpers = nthreads - 1;
	pthread_mutex_lock(&p->lock);
	p->work = w;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	predict_jobs(w, sm);
	pthread_mutex_lock(&p->lock);
	p->work = NULL;
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Every draw through every run (or o->only_run): the row's sums, and
 * with runs each run's collision wait, fault time and the moments of
 * its share.  -1: out of memory.
 */
static int predict_draws(const struct ft_model *m,
			 const struct ft_model_opts *o, uint32_t size,
			 int draws, size_t maxs, size_t maxk, struct sim *sm,
			 struct ft_model_row *row, struct ft_run_pred *runs,
			 struct pred_sums *ps)
{
	struct predict_work w = {
		.m = m, .o = o, .size = size, .maxs = maxs, .maxk = maxk,
		.njobs = (size_t)draws * m->nruns,
	};
	int d, i;

	/* the model keeps them for the next size: a cache, not its state */
	w.cached = !hash_make((struct ft_model *)m, o, draws);
	w.out = calloc(w.njobs + 1, sizeof(*w.out));
	if (!w.out)
		return -1;
	predict_run_jobs(m, &w, sm, predict_threads(m, o, size, draws));
	for (d = 0; d < draws; d++) {
		struct sim_out so = { 0 };

		for (i = 0; i < m->nruns; i++) {
			const struct sim_out *one = &w.out[(size_t)d * m->nruns + i];

			if (o->only_run && o->only_run != i + 1)
				continue;
			so.coll += one->coll;
			so.coll_wait += one->coll_wait;
			so.share_wait += one->share_wait;
			so.fault += one->fault;
			so.span += one->span;
			if (runs) {
				runs[i].coll_wait += one->coll_wait;
				runs[i].fault += one->fault;
				pct_moments(one->coll_wait, one->fault, &ps->rs[i],
					    &ps->rs2[i]);
			}
		}
		row->collisions += so.coll;
		row->coll_wait_ns += so.coll_wait;
		row->share_wait_ns += so.share_wait;
		row->fault_ns += so.fault;
		row->span_ns += so.span;
		pct_moments(so.coll_wait, so.fault, &ps->sum, &ps->sum2);
	}
	free(w.out);
	return 0;
}

/* the row's sums over the draws into means, shares and spread */
static void row_means(struct ft_model_row *row, int draws,
		      const struct pred_sums *ps)
{
	row->collisions /= draws;
	row->coll_wait_ns /= draws;
	row->share_wait_ns /= draws;
	row->fault_ns /= draws;
	row->span_ns /= draws;
	if (row->fault_ns > 0) {
		row->coll_pct = 100.0 * row->coll_wait_ns / row->fault_ns;
		row->share_pct = 100.0 * row->share_wait_ns / row->fault_ns;
	}
	row->coll_pct_sd = sd_of(ps->sum, ps->sum2, draws);
}

/*
 * Each run's means over its draws, and the row's standard error: each
 * run on its own, how much the answer moves between runs, the runs'
 * draws included (each run has its own).  One run: what its draws
 * leave of the mean, their spread over their square root.
 */
static void runs_means(const struct ft_model *m,
		       const struct ft_model_opts *o, int draws,
		       struct ft_model_row *row, struct ft_run_pred *runs,
		       const struct pred_sums *ps)
{
	int i;

	for (i = 0; i < m->nruns; i++) {
		runs[i].coll_wait /= draws;
		runs[i].fault /= draws;
		runs[i].draw_sd = sd_of(ps->rs[i], ps->rs2[i], draws);
	}
	if (m->nruns > 1 && !o->only_run) {
		double s = 0, s2 = 0;

		for (i = 0; i < m->nruns; i++)
			pct_moments(runs[i].coll_wait, runs[i].fault, &s, &s2);
		row->coll_pct_se = sd_of(s, s2, m->nruns) / sqrt(m->nruns);
	} else if (draws > 1) {
		row->coll_pct_se = row->coll_pct_sd / sqrt(draws);
	}
}

int ft_model_predict_runs(const struct ft_model *m,
			  const struct ft_model_opts *o, uint32_t size,
			  struct ft_model_row *row, struct ft_run_pred *runs)
{
	struct pred_sums ps = { 0 };
	struct sim sm;
	size_t maxs, maxk;
	int draws, ret = -1;

	memset(row, 0, sizeof(*row));
	row->size = size;
	draws = predict_setup(m, o, size, row, &maxs, &maxk);
	if (draws < 0)
		return -1;
	if (runs) {
		memset(runs, 0, m->nruns * sizeof(*runs));
		ps.rs = calloc(m->nruns + 1, sizeof(*ps.rs));
		ps.rs2 = calloc(m->nruns + 1, sizeof(*ps.rs2));
		if (!ps.rs || !ps.rs2)
			goto out;
	}
	if (sim_alloc(&sm, size, maxs, maxk))
		goto out;
	ret = predict_draws(m, o, size, draws, maxs, maxk, &sm, row, runs, &ps);
	sim_free(&sm);
	if (ret)
		goto out;
	row_means(row, draws, &ps);
	if (runs)
		runs_means(m, o, draws, row, runs, &ps);
	ret = 0;
out:
	free(ps.rs);
	free(ps.rs2);
	return ret;
}

int ft_model_predict(const struct ft_model *m, const struct ft_model_opts *o,
		     uint32_t size, struct ft_model_row *row)
{
	return ft_model_predict_runs(m, o, size, row, NULL);
}

/*
 * The prediction's standard error over the runs: each run predicted on
 * its own; their spread is how much the overlap structure, and so the
 * answer, moves from one run of the workload to the next.  Each run has
 * draws of its own (run_draw()), so the spread includes what the draws
 * leave in each run's prediction.
 */
int ft_model_predict_se(const struct ft_model *m, const struct ft_model_opts *o,
			uint32_t size, struct ft_model_row *row)
{
	struct ft_run_pred *runs = calloc(m->nruns + 1, sizeof(*runs));
	int ret;

	if (!runs)
		return -1;
	ret = ft_model_predict_runs(m, o, size, row, runs);
	free(runs);
	return ret;
}

/* ---- confidence interval ---- */

/*
 * Student's t quantiles: a table for 1..30 degrees of freedom and the
 * values at 40, 60 and 120, each used from there up to the next (fewer
 * degrees of freedom than the data has: a wider interval, the safe side).
 */
struct t_table {
	double t[31];
	double at40, at60, at120;
};

static double t_lookup(const struct t_table *tb, double df)
{
	int k = (int)floor(df);

	if (k < 1)
		return INFINITY;
	if (k <= 30)
		return tb->t[k];
	if (k < 40)
		return tb->t[30];
	if (k < 60)
		return tb->at40;
	if (k < 120)
		return tb->at60;
	return tb->at120;
}

double ft_t975(double df)
{
	/* two-sided 95% */
	static const struct t_table tb = {
		{ 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		  2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		  2.052, 2.048, 2.045, 2.042 },
		2.021, 2.000, 1.980,
	};

	return t_lookup(&tb, df);
}

double ft_t95(double df)
{
	/* one-sided 95%: decide.c's bounds */
	static const struct t_table tb = {
		{ 0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860,
		  1.833, 1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740,
		  1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706,
		  1.703, 1.701, 1.699, 1.697 },
		1.684, 1.671, 1.658,
	};

	return t_lookup(&tb, df);
}

static void mean_var(const double *x, int n, double *mean, double *var)
{
	double s = 0, s2 = 0;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		s2 += (x[i] - *mean) * (x[i] - *mean);
	*var = s2 / (n - 1);
}

int ft_ci95_diff(const double *a, int na, const double *b, int nb,
		 struct ft_ci *ci)
{
	double ma, va, mb, vb, qa, qb, se, h;

	memset(ci, 0, sizeof(*ci));
	if (na < 2 || nb < 2)
		return -1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	qa = va / na;
	qb = vb / nb;
	se = sqrt(qa + qb);
	ci->diff = mb - ma;
	/* Welch-Satterthwaite; two constant samples: the pooled df */
	if (qa + qb > 0)
		ci->df = (qa + qb) * (qa + qb) /
			 (qa * qa / (na - 1) + qb * qb / (nb - 1));
	else
		ci->df = na + nb - 2;
	h = ft_t975(ci->df) * se;
	ci->lo = ci->diff - h;
	ci->hi = ci->diff + h;
	return 0;
}

/* ---- what-if replay of the recorded draw (report's table) ---- */

static int cmp_hold(const void *x, const void *y)
{
	const struct ft_hold *a = x, *b = y;

	if (a->acq_ts != b->acq_ts)
		return a->acq_ts < b->acq_ts ? -1 : 1;
	return (a->rel_ts > b->rel_ts) - (a->rel_ts < b->rel_ts);
}

/*
 * The holds by (acquire, release), equal ones in the order they came, as
 * qsort's merge sort gave them: they come at their release, so mostly a
 * few places from acquire order at most.  Insertion (stable) while few
 * move, else qsort on the permutation so far, which has equal holds in
 * their first order still.
 */
static void sort_holds(struct ft_hold *h, size_t n)
{
	size_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		struct ft_hold x;

		if (cmp_hold(&h[i - 1], &h[i]) <= 0)
			continue;
		x = h[i];
		for (j = i; j > 0 && cmp_hold(&h[j - 1], &x) > 0; j--) {
			h[j] = h[j - 1];
			if (++moves > 8 * n + 64) {
				h[j - 1] = x;	/* a permutation again */
				qsort(h, n, sizeof(*h), cmp_hold);
				return;
			}
		}
		h[j] = x;
	}
}

/*
 * Replay the recorded holds through a table of `size` buckets with the
 * recorded hashes: one draw, no queueing feedback (a predicted wait does
 * not delay the recorded hold).  At the recorded size it reproduces the
 * measured handovers; elsewhere it says what this draw would have done,
 * which the model above averages away.
 */
static void whatif_one(struct ft_hold *h, size_t n, uint32_t size,
		       uint64_t *until, uint64_t *km, uint64_t *ki,
		       struct ft_whatif_row *row)
{
	size_t i;

	memset(until, 0, size * sizeof(*until));
	memset(row, 0, sizeof(*row));
	row->size = size;
	row->mem_bytes = (uint64_t)size * FT_MUTEX_BYTES;
	for (i = 0; i < n; i++) {
		uint32_t b = h[i].hash & (size - 1);
		uint64_t t = h[i].req_ts;

		if (until[b] > t) {
			if (km[b] != h[i].mapping || ki[b] != h[i].index) {
				row->collisions++;
				row->coll_wait_ns += until[b] - t;
			} else {
				row->sharing++;
				row->share_wait_ns += until[b] - t;
			}
		}
		if (h[i].rel_ts >= until[b]) {
			until[b] = h[i].rel_ts;
			km[b] = h[i].mapping;
			ki[b] = h[i].index;
		}
	}
}

int ft_whatif(struct ft_analysis *a, uint32_t max_size,
	      struct ft_whatif_row **rows)
{
	uint64_t *until, *km, *ki;
	uint32_t size;
	int nrows = 0, i;

	*rows = NULL;
	if (!max_size || !ft_is_pow2(max_size))
		return -1;
	for (size = 1; size && size <= max_size; size <<= 1)
		nrows++;
	*rows = calloc(nrows, sizeof(**rows));
	until = malloc(max_size * sizeof(*until));
	km = malloc(max_size * sizeof(*km));
	ki = malloc(max_size * sizeof(*ki));
	if (!*rows || !until || !km || !ki) {
		free(*rows);
		*rows = NULL;
		nrows = -1;
		goto out;
	}
	/* in place: a copy was the largest thing report allocated */
	sort_holds(a->holds, a->nholds);
	for (i = 0, size = 1; i < nrows; i++, size <<= 1)
		whatif_one(a->holds, a->nholds, size, until, km, ki, &(*rows)[i]);
out:
	free(until);
	free(km);
	free(ki);
	return nrows;
}
