/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune contention model: from recorded fault mutex holds, the expected
 * collision wait at any table size, the rule that picks a size from it,
 * and the statistics that confirm a pick by measurement.
 */
#ifndef FT_MODEL_H
#define FT_MODEL_H

#include "analysis.h"

struct ft_whatif_row {
	uint32_t size;
	uint64_t collisions, sharing;
	uint64_t coll_wait_ns, share_wait_ns;
	uint64_t mem_bytes;
};

struct ft_model;

/*
 * split.c: the kept holds into the model: one run, or a run per kept window; each
 * with what it measured at size, the table size it ran at (0: unknown)
 */
int ft_sample_add_runs(const struct ft_analysis *a, struct ft_model *m,
		       uint32_t size);
/*
 * split.c too: the holds as up to max_parts runs, cut where no hold is in
 * flight, each at least FT_SPLIT_HOLDS_MIN holds; a sampled recording as
 * its windows (ft_sample_add_runs()).  ft_split_parts(): how many.
 */
#define FT_SPLIT_HOLDS_MIN	64
int ft_split_add_runs(const struct ft_analysis *a, struct ft_model *m,
		      uint32_t size, int max_parts);
int ft_split_parts(size_t nholds, int max_parts);

/*
 * What-if replay of the recorded hashes (whatif.c): rows for sizes 1, 2,
 * 4 .. max_size; caller frees.  Returns the number of rows or -1.  Sorts
 * a->holds by acquisition: the contention model, which numbers keys in
 * the recorded order, must have its holds before.
 */
int ft_whatif(struct ft_analysis *a, uint32_t max_size,
	      struct ft_whatif_row **rows);

/* bytes of one struct mutex on x86_64 without debug options */
#define FT_MUTEX_BYTES 32

/* seed of the model's hash draws: fixed, so equal input gives equal output */
#define FT_MODEL_SEED	0x66746d6f64656cULL
/* largest size the model simulates (two arrays of this many buckets) */
#define FT_MODEL_MAX_SIZE	(1u << 20)
/* default --target: predicted collision wait, percent of fault time */
#define FT_TARGET_PCT	1.0
/* most fault streams one simulation runs (--threads times the lanes) */
#define FT_MODEL_MAX_STREAMS	(1u << 24)

struct ft_model;

struct ft_model *ft_model_new(void);
void ft_model_free(struct ft_model *m);
/* one recorded run (its own time axis); the holds are copied */
int ft_model_add_run(struct ft_model *m, const struct ft_hold *h, size_t n);
/*
 * What the last added run measured itself: its table size and the
 * collision wait its events recorded (analysis.c's split), so that the
 * model can be checked against it; and from its holds (h, n: those
 * given to ft_model_add_run, or NULL) the mean handover gap on that
 * size's buckets, which the simulation adds to each handover.
 */
void ft_model_run_measured(struct ft_model *m, const struct ft_hold *h,
			   size_t n, uint32_t size, double coll_wait_ns);
/* the mean handover gap over the measured runs, ns */
uint64_t ft_model_handover(const struct ft_model *m);
/* run i's measurement; 0 when it has none */
int ft_model_run_recorded(const struct ft_model *m, int i, uint32_t *size,
			  double *coll_wait_ns, double *fault_ns);
size_t ft_model_nholds(const struct ft_model *m);
int ft_model_nruns(const struct ft_model *m);
/* most fault streams (tasks packed into lanes) seen in one run */
int ft_model_streams(const struct ft_model *m);
/* most holds in flight at once in one run: the faulting threads */
int ft_model_concurrency(const struct ft_model *m);

struct ft_model_opts {
	int threads;		/* 0: as recorded; T: each run copied T over its
				   concurrency times, keys of their own */
	int draws;		/* hash draws; 0: chosen from the input size */
	int max_draws;		/* with draws 0: at most this many (0: 256) */
	int run_draws;		/* with draws 0: at least this many a run, as
				   far as the work allows (0: see auto_draws) */
	uint64_t seed;		/* of the draws; FT_MODEL_SEED */
	int only_run;		/* 0: all runs; k: the k-th run alone */
	int open_loop;		/* requests at their recorded times (sim.c) */
	int workers;		/* threads a prediction runs on; 0: one a CPU,
				   when the work is worth it (the answer is
				   the same on any number) */
	int recorded_layout;	/* one simulation a run, each hold in the
				   bucket of the hash it recorded: the layout
				   the runs had, not the expectation over
				   layouts (threads 0 only) */
};

/* one run's share of a prediction: expected over the draws */
struct ft_run_pred {
	double coll_wait;	/* ns */
	double fault;		/* ns */
	double draw_sd;		/* sd of its collision share over the draws, % */
};

struct ft_model_row {
	uint32_t size;
	int draws;
	double collisions;	/* expected count, all runs */
	double coll_wait_ns;	/* expected collision wait, all runs */
	double share_wait_ns;	/* waits behind the same key: no size helps */
	double fault_ns;	/* expected request-to-release time, all runs */
	double span_ns;		/* first request to last release, runs summed */
	double coll_pct;	/* coll_wait_ns / fault_ns, percent */
	double share_pct;
	double coll_pct_sd;	/* standard deviation over the hash draws */
	double coll_pct_se;	/* standard error over the runs (0: one run) */
};

int ft_model_predict(const struct ft_model *m, const struct ft_model_opts *o,
		     uint32_t size, struct ft_model_row *row);
/* the same, and coll_pct_se from each run predicted on its own */
int ft_model_predict_se(const struct ft_model *m, const struct ft_model_opts *o,
			uint32_t size, struct ft_model_row *row);
/* the same, and each run's share in runs[nruns] (NULL: not wanted) */
int ft_model_predict_runs(const struct ft_model *m,
			  const struct ft_model_opts *o, uint32_t size,
			  struct ft_model_row *row, struct ft_run_pred *runs);

/*
 * decide.c: the rule, on both variants of the model, checked against
 * what the runs measured, with 95% bounds for how settled it is.
 */
enum { FT_LOOP_CLOSED, FT_LOOP_OPEN, FT_NLOOP };
/* a variant fits when |measured - predicted| <= 2 se + this, in % */
#define FT_FIT_FLOOR_PCT	0.1
/* the fewest runs whose spread can settle a pick */
#define FT_SETTLE_RUNS		10
/* one-sided 95% quantile of Student's t with df degrees of freedom */
double ft_t95(double df);

struct ft_fit {
	int nruns;		/* runs with a measurement (with multiplicity) */
	double meas_pct;	/* pooled measured collision share, % */
	double pred_pct;	/* pooled predicted, same runs and sizes */
	double diff, diff_se;	/* mean of measured - predicted per run; se */
	int fits;
};

struct ft_decision {
	uint32_t current;
	double target_pct;
	int nruns, nsizes;
	int *idle;			/* run: no two faults on different pages overlapped */
	int nactive;			/* runs not idle: what sizes are judged on */
	uint32_t *sizes;			/* ascending */
	struct ft_model_row *rows[FT_NLOOP];	/* [size], over the active runs */
	struct ft_run_pred *runs[FT_NLOOP];	/* [size * nruns + run] */
	/* with --threads: the runs as recorded, at their measured sizes */
	struct ft_run_pred *recorded[FT_NLOOP];	/* same layout; else NULL */
	/*
	 * The runs as recorded, each hold in the bucket it hashed to: the
	 * hash layout the runs had, at their measured sizes (same layout
	 * as runs[]; NULL: not made)
	 */
	struct ft_run_pred *replayed[FT_NLOOP];
	int *meas_k;			/* run: index of its recorded size, -1 */
	double *meas_cw, *meas_f;	/* run: measured collision wait, fault */
	struct ft_fit fit[FT_NLOOP];	/* on all the runs */
	unsigned int used;		/* bit per variant the decision uses */
	double *up, *lo;		/* per size: 95% bounds, % of fault time */
	int rec;			/* the recommendation, index */
	int first;			/* the first size that may meet the target */
	int last;			/* first..last: the runs cannot separate */
	int settled;			/* first == rec, FT_SETTLE_RUNS active runs */
	/* the current size, judged before any other (decide.c's settle()) */
	int cur_known;			/* active runs measured at the current size */
	int cur_runs;			/* how many */
	int cur_model_fails;		/* the model check fails there */
	double cur_meas_lo, cur_meas_up;	/* measured there: 95% bounds */
	enum ft_cur_verdict {
		FT_CUR_UNKNOWN,		/* not a candidate (not a power of two) */
		FT_CUR_MEETS,		/* meets the target with 95% confidence */
		FT_CUR_UNDECIDED,	/* not shown to miss it: kept */
		FT_CUR_MISSES_MEASURED,	/* measured over it beyond the error */
		FT_CUR_MISSES_PREDICTED, /* predicted over it beyond the error */
	} cur_verdict;
	int more_runs;			/* undecided: more runs that may decide; 0: unknown */
};

/*
 * Probing looks again after every run.  Stopping at the first settled look
 * would stop on a lucky stretch of runs (a size just under the target
 * looks surely under it now and then), so it stops when the pick has
 * stayed settled, on the same size, for FT_SETTLED_LOOKS looks in a row.
 */
#define FT_SETTLED_LOOKS	3
struct ft_looks {
	int settled;		/* looks in a row settled on pick */
	uint32_t pick;
};
/* one more look, at decision d: 1 when probing may stop */
int ft_settled_look(struct ft_looks *l, const struct ft_decision *d);

int ft_decide(const struct ft_model *m, const struct ft_model_opts *mo,
	      uint32_t current, double target_pct, uint32_t max_size,
	      struct ft_decision *d);
void ft_decision_free(struct ft_decision *d);
const char *ft_loop_name(int v);
/* the variant whose prediction judges size index k */
int ft_decision_variant(const struct ft_decision *d, int k);
/* the index of size in d->sizes, -1: not one of them */
int ft_decision_size_idx(const struct ft_decision *d, uint32_t size);

/* what the active runs at a size measured, against the prediction there */
struct ft_check {
	uint32_t size;
	int known;		/* active runs ran at this size */
	int variant, runs;
	double meas_pct, meas_se, pred_pct, pred_se;
	int fits;
	/*
	 * The same runs replayed with the hashes they recorded: whether
	 * their own layout explains what they measured where the model's
	 * mean over layouts does not (runs that reuse their files keep one
	 * layout)
	 */
	int replay_known;
	double replay_pct, replay_se;
	int replay_fits;
};
void ft_decision_check(const struct ft_decision *d, uint32_t size,
		       struct ft_check *c);

struct ft_pick {
	int idx;		/* recommended row; -1 when n == 0 */
	int keep;		/* the current size meets the target */
	int met;		/* the recommended size meets the target */
};

/* 95% confidence interval of mean(b) - mean(a), Welch's t; -1 if n < 2 */
struct ft_ci {
	double diff, lo, hi;
	double df;
};
int ft_ci95_diff(const double *a, int na, const double *b, int nb,
		 struct ft_ci *ci);
double ft_t975(double df);

/*
 * Draws a run for small runs, tune's probes and watch's parts: the
 * model's 256 in all would leave each a few and its prediction their
 * noise (tune.c's advice_opts() says what was measured).  At least
 * FT_SMALL_RUN_DRAWS a run, within the model's work bound and at most
 * FT_SMALL_RUN_MAX_DRAWS.
 */
#define FT_SMALL_RUN_DRAWS	32
#define FT_SMALL_RUN_MAX_DRAWS	64

/* advice.c: the model's table and recommendation, for tune and report */
struct ft_advice_opts {
	uint32_t current;	/* the table size now (0: unknown) */
	double target_pct;
	int threads;		/* simulated threads, 0: as recorded */
	uint32_t max_size;	/* 0: as far as the answer needs */
	int max_draws;		/* 0: the model's own cap */
	int run_draws;		/* at least this many draws a run (ft_model_opts) */
	const char *btf_path;	/* NULL: /sys/kernel/btf/vmlinux */
};

struct ft_advice {
	uint32_t current;
	double target_pct;
	int threads, streams, nruns;
	int concurrency;	/* most holds in flight at once, in one run */
	size_t nholds;
	int mutex_bytes;	/* -1: unknown, see mutex_how */
	char mutex_how[256];
	struct ft_model_row *rows;	/* sizes 1, 2, 4 .. */
	int n;
	struct ft_pick pick;
	struct ft_decision dec;		/* rows[i] is dec's size i */
	int limited;			/* the last row is -m's limit */
	uint64_t handover_ns;		/* measured, added to each handover */
	int threads_raised;		/* --threads below the recorded */
};

uint32_t ft_recorded_size(const struct ft_analysis *a);
int ft_advise(const struct ft_model *m, const struct ft_advice_opts *o,
	      struct ft_advice *adv);
const struct ft_model_row *ft_advice_row(const struct ft_advice *adv,
					 uint32_t size);
void ft_advice_free(struct ft_advice *adv);
/* report's advice for a recording: before ft_whatif(); -1: out of memory */
int ft_advice_of(const struct ft_analysis *a, int threads, double target_pct,
		 struct ft_advice *adv);
int ft_advice_of_parts(const struct ft_analysis *a, int threads,
		       double target_pct, int parts, struct ft_advice *adv);

#endif
