// SPDX-License-Identifier: GPL-2.0
/*
 * replay-tune: tune's probing and measuring, replayed on recorded runs,
 * to see how often a decision rule gives the same pick.
 *
 *   replay-tune DIR NAME TUNES RUNS SECONDS_A_RUN THREADS [BUDGET_S]
 *
 * DIR holds recordings NAME-SIZE-I.dat, one run of a workload each at
 * table size SIZE (tests/replay-tune.sh makes them in the guest).  Each
 * of TUNES replayed tunes draws runs at 32 as probes, in random order,
 * and decides after each from the third on as tune does (advice_opts()
 * and probe() in tune.c), until the pick stays settled
 * (ft_settled_look()) or RUNS probes, or BUDGET_S seconds (30) at
 * SECONDS_A_RUN each, are spent; then it adds 5 runs at 32 and 5 at the
 * pick, decides again, and measures a moved pick, at most twice, like
 * measure_and_decide().  THREADS is tune's --threads for the model (the
 * built-in workload's; 0 for a command).  Prints each tune's pick, how
 * settled it was and the prediction (+- se) at the pick and the size
 * below it, then how often each size was picked.  A pick with
 * no recordings at its size is counted and left unmeasured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include "faulttune.h"
#include "model.h"

#define MAXRUNS 256
#define REPS 5

struct pool {
	uint32_t size;
	int n;
	struct ft_analysis a[MAXRUNS];
};

static struct pool pools[32];
static int npools, unmeasured;
static uint64_t rng = 88172645463325252ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static struct pool *pool_of(uint32_t size)
{
	int i;

	for (i = 0; i < npools; i++)
		if (pools[i].size == size)
			return &pools[i];
	return NULL;
}

static int load(const char *dir, const char *name)
{
	size_t len = strlen(name);
	struct dirent *e;
	char path[4096];
	DIR *d = opendir(dir);

	if (!d) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		struct pool *p;
		uint32_t size;

		if (strncmp(e->d_name, name, len) || e->d_name[len] != '-')
			continue;
		size = strtoul(e->d_name + len + 1, NULL, 10);
		p = pool_of(size);
		if (!p && npools < 32) {
			p = &pools[npools++];
			p->size = size;
		}
		if (!p || p->n == MAXRUNS)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ft_analysis_init(&p->a[p->n]);
		if (ft_read_tracedat(path, &p->a[p->n])) {
			ft_analysis_free(&p->a[p->n]);
			continue;
		}
		ft_analysis_finish(&p->a[p->n]);
		p->n++;
	}
	closedir(d);
	return pool_of(32) ? 0 : -1;
}

/* one recorded run at size into the model: 0, or -1 when none was recorded */
static int add_run(struct ft_model *m, uint32_t size)
{
	struct pool *p = pool_of(size);

	if (!p)
		return -1;
	return ft_sample_add_runs(&p->a[rnd() % p->n], m, size);
}

static uint32_t decide(struct ft_model *m, const struct ft_advice_opts *ao,
		       struct ft_advice *adv)
{
	ft_advice_free(adv);
	if (ft_advise(m, ao, adv)) {
		fprintf(stderr, "replay-tune: the model failed\n");
		exit(1);
	}
	return adv->rows[adv->pick.idx].size;
}

int main(int argc, char **argv)
{
	struct ft_advice_opts ao = { .current = 32, .target_pct = FT_TARGET_PCT,
				     .run_draws = FT_SMALL_RUN_DRAWS,
				     .max_draws = FT_SMALL_RUN_MAX_DRAWS };
	int picks[33] = { 0 }, tunes, budget, nset = 0, t, i;
	double per_run, budget_s;
	long probes = 0;

	if (argc < 7) {
		fprintf(stderr, "usage: replay-tune DIR NAME TUNES RUNS "
			"SECONDS_A_RUN THREADS [BUDGET_S]\n");
		return 2;
	}
	tunes = atoi(argv[3]);
	budget = atoi(argv[4]);
	per_run = atof(argv[5]);
	ao.threads = atoi(argv[6]);
	budget_s = argc > 7 ? atof(argv[7]) : 30;
	if (load(argv[1], argv[2])) {
		fprintf(stderr, "replay-tune: no %s-32-*.dat in %s\n", argv[2], argv[1]);
		return 1;
	}
	for (t = 0; t < tunes; t++) {
		struct ft_model *m = ft_model_new();
		struct ft_advice adv = { 0 };
		struct ft_looks looks = { 0 };
		uint32_t ppick, pick, measured[2] = { 32, 0 };
		int n = 0, round;

		rng += 0x9e3779b97f4a7c15ULL * (t + 1);
		for (;;) {
			add_run(m, 32);
			if (++n < 3)
				continue;
			decide(m, &ao, &adv);
			if (ft_settled_look(&looks, &adv.dec) || n >= budget ||
			    n * per_run >= budget_s)
				break;
		}
		probes += n;
		ppick = adv.rows[adv.pick.idx].size;
		measured[1] = ppick;
		for (i = 0; i < REPS; i++) {
			add_run(m, 32);
			if (ppick != 32 && add_run(m, ppick))
				unmeasured++;
		}
		for (round = 0;; round++) {
			pick = decide(m, &ao, &adv);
			if (round == 2 || pick == measured[0] || pick == measured[1])
				break;
			for (i = 0; i < REPS; i++)
				if (add_run(m, pick))
					unmeasured++;
			measured[1] = pick;
		}
		picks[__builtin_ctz(pick)]++;
		nset += adv.dec.settled;
		printf("tune %d: %d probes, probes' pick %u, pick %u, %s %u..%u",
		       t + 1, n, ppick, pick, adv.dec.settled ? "settled" : "not settled",
		       adv.dec.sizes[adv.dec.first], adv.dec.sizes[adv.dec.rec]);
		/* the judged prediction at the pick and the size below it */
		for (i = adv.pick.idx > 0 ? adv.pick.idx - 1 : 0; i <= adv.pick.idx; i++)
			printf("; at %u: %.2f%% +- %.2f", adv.rows[i].size,
			       adv.rows[i].coll_pct, adv.rows[i].coll_pct_se);
		printf(" (%d active runs)\n", adv.dec.nactive);
		ft_advice_free(&adv);
		ft_model_free(m);
	}
	printf("%s %s: %d tunes, picks", argv[1], argv[2], tunes);
	for (i = 0; i < 33; i++)
		if (picks[i])
			printf(" %u:%d", 1u << i, picks[i]);
	printf("; settled %d; %.1f probes a tune; %d runs at sizes not recorded\n",
	       nset, (double)probes / tunes, unmeasured);
	return 0;
}
