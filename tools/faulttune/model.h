/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune contention model: from recorded fault mutex holds, the expected
 * collision wait at any table size, the rule that picks a size from it,
 * and the statistics that confirm a pick by measurement.
 */
#ifndef FT_MODEL_H
#define FT_MODEL_H

#include "faulttune.h"

/* seed of the model's hash draws: fixed, so equal input gives equal output */
#define FT_MODEL_SEED	0x66746d6f64656cULL
/* largest size the model simulates (two arrays of this many buckets) */
#define FT_MODEL_MAX_SIZE	(1u << 20)
/* default --target: predicted collision wait, percent of fault time */
#define FT_TARGET_PCT	1.0

struct ft_model;

struct ft_model *ft_model_new(void);
void ft_model_free(struct ft_model *m);
/* one recorded run (its own time axis); the holds are copied */
int ft_model_add_run(struct ft_model *m, const struct ft_hold *h, size_t n);
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
	uint64_t seed;		/* of the draws; FT_MODEL_SEED */
	int only_run;		/* 0: all runs; k: the k-th run alone */
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

/*
 * The rule: keep the current size when its predicted collision share is
 * within target_pct; otherwise the smallest size (least memory) that is.
 * "Within" allows one standard error over the recorded runs
 * (coll_pct - coll_pct_se <= target): a table is not doubled for a
 * difference the recordings cannot resolve.  rows are in ascending size
 * order; current need not be among them.
 */
struct ft_pick {
	int idx;		/* recommended row; -1 when n == 0 */
	int keep;		/* the current size meets the target */
	int met;		/* the recommended size meets the target */
};
void ft_model_pick(const struct ft_model_row *rows, int n, uint32_t current,
		   double target_pct, struct ft_pick *p);

/* 95% confidence interval of mean(b) - mean(a), Welch's t; -1 if n < 2 */
struct ft_ci {
	double diff, lo, hi;
	double df;
};
int ft_ci95_diff(const double *a, int na, const double *b, int nb,
		 struct ft_ci *ci);
double ft_t975(double df);

/* advice.c: the model's table and recommendation, for tune and report */
struct ft_advice_opts {
	uint32_t current;	/* the table size now (0: unknown) */
	double target_pct;
	int threads;		/* simulated threads, 0: as recorded */
	uint32_t max_size;	/* 0: as far as the answer needs */
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
};

uint32_t ft_recorded_size(const struct ft_analysis *a);
int ft_advise(const struct ft_model *m, const struct ft_advice_opts *o,
	      struct ft_advice *adv);
const struct ft_model_row *ft_advice_row(const struct ft_advice *adv,
					 uint32_t size);
void ft_advice_table(FILE *f, const struct ft_advice *adv);
void ft_advice_line(FILE *f, const struct ft_advice *adv);
void ft_advice_json(FILE *f, const struct ft_advice *adv);
void ft_advice_free(struct ft_advice *adv);
/* report's advice for a recording: before ft_whatif(); -1: out of memory */
int ft_advice_of(const struct ft_analysis *a, int threads, double target_pct,
		 struct ft_advice *adv);

/*
 * Bytes of one struct mutex in the running kernel: from BTF
 * (/sys/kernel/btf/vmlinux) when present; else 32 (x86_64, no lock
 * debugging) when the kernel shows no sign of lock debugging; else -1,
 * unknown.  how says which, for the report.
 */
int ft_mutex_bytes(const char *btf_path, char *how, size_t len);
/* sizeof(struct <name>) from a BTF file, -1 if absent or unreadable */
long ft_btf_struct_size(const char *path, const char *name);

#endif
