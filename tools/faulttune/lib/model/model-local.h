/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune contention model, inside: the runs as the simulation takes
 * them and the model object that holds them, shared by the model's files
 * (model.c: the object and the predictions; runs.c: recorded holds made
 * into runs; sim.c: one simulation of one run).  Nothing outside the
 * model includes it: callers see struct ft_model through model.h only.
 */
#ifndef FT_MODEL_LOCAL_H
#define FT_MODEL_LOCAL_H

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
	uint32_t *rhash;	/* each hold's recorded hash, in h[]'s order */
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

/* splitmix64's finaliser: the model's hash draws and its key table */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* min-heap of streams by their next request time */
struct heap {
	uint64_t *t;
	uint32_t *s;
	int n;
};

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

/* model.c */
void model_hash_free(struct ft_model *m);

/* sim.c */
int sim_copies(const struct run *r, int threads);
size_t sim_streams(const struct run *r, int threads);
void sim_run(const struct run *r, int threads, int open_loop,
	     uint32_t size, uint64_t draw, const uint32_t *hk,
	     struct sim *sm, struct sim_out *out);
void sim_free(struct sim *sm);
int sim_alloc(struct sim *sm, uint32_t size, size_t maxs, size_t maxk);

#endif
