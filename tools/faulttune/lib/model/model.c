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
#include "model-local.h"

static void pool_stop(struct pool *p);

void model_hash_free(struct ft_model *m)
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
	model_hash_free(m);
	for (i = 0; i < m->nruns; i++) {
		free(m->runs[i].h);
		free(m->runs[i].rhash);
		free(m->runs[i].first);
		free(m->runs[i].order);
		free(m->runs[i].src);
	}
	free(m->runs);
	free(m);
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

		work += (double)r->n * sim_copies(r, threads);
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
		if (sim_copies(&m->runs[i], o->threads) != 1)
			return -1;
	if (m->hash && m->hash_seed == o->seed && m->hash_draws >= draws)
		return 0;
	model_hash_free(m);
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
			model_hash_free(m);
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
	/* the layout the runs had: one, and only for the keys they had */
	if (o->recorded_layout) {
		for (i = 0; i < m->nruns; i++)
			if (sim_copies(&m->runs[i], o->threads) != 1)
				return -1;
		draws = 1;
	}
	row->draws = draws;
	*maxs = *maxk = 0;
	for (i = 0; i < m->nruns; i++) {
		const struct run *r = &m->runs[i];
		size_t ns = sim_streams(r, o->threads);
		/* the closed loop's last release of each copy's keys */
		size_t k = (size_t)sim_copies(r, o->threads) * r->nkeys;

		if (ns == SIZE_MAX)
			return -1;	/* more streams than any machine runs */
		if (ns > *maxs)
			*maxs = ns;
		if (r->nafter && k > *maxk)
			*maxk = k;
	}
	return draws;
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
		sim_run(&m->runs[i], o->threads, o->open_loop, w->size,
			run_draw(o->seed, i, d),
			o->recorded_layout ? m->runs[i].rhash :
			w->cached ? m->hash[i] + (size_t)d * m->runs[i].n : NULL,
			sm, &w->out[j]);
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
		work += (double)m->runs[i].n *
			sim_copies(&m->runs[i], o->threads);
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
	w.cached = !o->recorded_layout &&
		   !hash_make((struct ft_model *)m, o, draws);
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
