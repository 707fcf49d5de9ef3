/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tune's own state, shared by its two files: tune.c runs the probes and
 * the measured sizes, tunereport.c confirms the pick on the measured runs
 * and says what tune found (text, -v, JSON).  Not the library's: nothing
 * below the commands includes it.
 */
#ifndef FAULTTUNE_TUNE_LOCAL_H
#define FAULTTUNE_TUNE_LOCAL_H

#include <stdint.h>
#include "faulttune.h"
#include "model.h"
#include "confirm.h"
#include "bench.h"

#define MAX_FROM 64

/* measured runs at one size */
struct size_result {
	uint32_t size;
	double *wall;		/* seconds, per run */
	double *cpu;		/* user + system seconds, per run */
	int runs, cap;
	uint64_t acq, contended, collisions, sharing, lost;
	double coll_wait, fault_ns;	/* ns, from the events */
	/* of those, the probes' (the first runs, at the current size) */
	int probe_runs;
	double probe_coll_wait, probe_fault_ns;
};

struct tune_ctx {
	const char *knob;
	uint32_t saved;
	int saved_valid;
	int moved;		/* the knob was set to a size other than saved */
	int fixed;		/* no knob: the kernel's size, fixed at boot */
	int apply;
	uint32_t apply_value;
	struct ft_inst fi;
	int have_inst;
	char tmpfile[64];
	/* options */
	uint32_t max_size;
	int reps, warmup, probes;
	int budget_runs;	/* most probe runs */
	double budget_s;	/* most seconds of probing */
	struct ft_looks looks;	/* how long the probes' pick stayed settled */
	double timeout;		/* --from: the reader's limit, -1: default */
	int force;		/* --from: use recordings with damaged records */
	struct ft_read_opts read;	/* --source: of the runs and --from */
	double target;
	unsigned int seed;	/* as given or drawn: what is printed */
	unsigned int rng;	/* the state drawn from it */
	enum ft_fmt fmt;
	int verbose;		/* -v: the tables and checks; -vv: each run */
	int full;
	int threads, threads_set;
	char **cmd;		/* -- COMMAND [ARGS] */
	const char *from[MAX_FROM];
	int nfrom;
	const char *plot;	/* --plot FILE */
	struct ft_bench_opts bench;
	/* results */
	struct size_result *res;
	int nres;
	struct ft_model *model;
	struct ft_advice adv;
	int have_adv;
	struct ft_sharing share;	/* the traced runs' same-page waits */
	uint32_t *order;	/* sizes of the measured runs, in run order */
	int norder;
	int runs;		/* workload runs, warm-up included */
	int nprobes;		/* probe runs made */
	double probe_s;		/* seconds they took */
	const char *stopped;	/* why probing stopped */
	uint32_t probe_pick;	/* the pick on the probes alone */
	double wall_s;		/* the whole tune, seconds */
};

/* the results at one size, NULL when none ran */
static inline struct size_result *res_find(struct tune_ctx *c, uint32_t size)
{
	int i;

	for (i = 0; i < c->nres; i++)
		if (c->res[i].size == size)
			return &c->res[i];
	return NULL;
}

void cmd_tune_report(struct tune_ctx *c);
void cmd_tune_report_from(struct tune_ctx *c, double coll, double share,
			  double fault);

#endif
