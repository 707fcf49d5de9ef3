// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune advice: the model's table and the one recommendation, shared
 * by tune (live and --from) and report, so that all three say the same
 * thing about the same recording.  adviceprint.c prints it.
 */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "model.h"

/* the table size at the end of a recording; 0 if it has no hugetlb events */
uint32_t ft_recorded_size(const struct ft_analysis *a)
{
	int i;

	if (a->resizes && !a->last_resize.result)
		return a->last_resize.new_n;
	for (i = 31; i >= 0; i--)
		if (a->nbuckets_seen[i])
			return a->nbuckets_seen[i];
	return 0;
}

/*
 * The table is the decision's (decide.c): each size as predicted by the
 * variant that judges it, the pick its recommendation.
 */
int ft_advise(const struct ft_model *m, const struct ft_advice_opts *o,
	      struct ft_advice *adv)
{
	struct ft_model_opts mo = { .threads = o->threads, .seed = FT_MODEL_SEED,
				    .max_draws = o->max_draws,
				    .run_draws = o->run_draws };
	struct ft_decision *d = &adv->dec;
	int k;

	memset(adv, 0, sizeof(*adv));
	adv->current = o->current;
	adv->target_pct = o->target_pct;
	adv->threads = o->threads;
	adv->streams = ft_model_streams(m);
	adv->concurrency = ft_model_concurrency(m);
	adv->nholds = ft_model_nholds(m);
	adv->nruns = ft_model_nruns(m);
	adv->mutex_bytes = ft_mutex_bytes(o->btf_path, adv->mutex_how,
					  sizeof(adv->mutex_how));
	adv->threads_raised = o->threads && o->threads < adv->concurrency;
	adv->handover_ns = ft_model_handover(m);
	if (ft_decide(m, &mo, o->current, o->target_pct, o->max_size, d))
		return -1;
	adv->rows = calloc(d->nsizes, sizeof(*adv->rows));
	if (!adv->rows)
		return -1;
	for (k = 0; k < d->nsizes; k++)
		adv->rows[k] = d->rows[ft_decision_variant(d, k)][k];
	adv->n = d->nsizes;
	adv->pick.idx = d->rec;
	adv->pick.keep = d->sizes[d->rec] == o->current;
	adv->pick.met = adv->rows[d->rec].coll_pct <= o->target_pct;
	adv->limited = o->max_size && d->sizes[d->nsizes - 1] >= o->max_size;
	return 0;
}

void ft_advice_free(struct ft_advice *adv)
{
	ft_decision_free(&adv->dec);
	free(adv->rows);
	adv->rows = NULL;
	adv->n = 0;
}

const struct ft_model_row *ft_advice_row(const struct ft_advice *adv,
					 uint32_t size)
{
	int i;

	for (i = 0; i < adv->n; i++)
		if (adv->rows[i].size == size)
			return &adv->rows[i];
	return NULL;
}

/*
 * The advice for a whole recording, as tune --from gives it: the holds
 * as one run, or a sample's windows as runs.  -1 when memory ran out.
 * Call it before ft_whatif(), which reorders the holds.
 */
int ft_advice_of(const struct ft_analysis *a, int threads, double target_pct,
		 struct ft_advice *adv)
{
	return ft_advice_of_parts(a, threads, target_pct, 1, adv);
}

/* the same, the holds cut into up to parts runs (split.c) */
int ft_advice_of_parts(const struct ft_analysis *a, int threads,
		       double target_pct, int parts, struct ft_advice *adv)
{
	struct ft_advice_opts ao = {
		.current = ft_recorded_size(a), .threads = threads,
		.target_pct = target_pct > 0 ? target_pct : FT_TARGET_PCT,
	};
	struct ft_model *m = ft_model_new();
	int ret = -1;

	/*
	 * Parts are small runs: the model's 256 draws over all its runs
	 * would give each a few, and the prediction the noise of a few
	 * (tests/split-draws on tests/synth's 4 tasks x 1600 rounds: 20
	 * parts of 320 holds predicted 0.88-1.05% at 128 over six seeds,
	 * 0.95-1.03% with these draws, the whole stretch as one run
	 * 0.98-1.00%).  So the draws of tune's small runs.
	 */
	if (parts > 1) {
		ao.run_draws = FT_SMALL_RUN_DRAWS;
		ao.max_draws = FT_SMALL_RUN_MAX_DRAWS;
	}
	memset(adv, 0, sizeof(*adv));
	if (m && !ft_split_add_runs(a, m, ao.current, parts))
		ret = ft_advise(m, &ao, adv);
	if (ret)
		ft_advice_free(adv);
	ft_model_free(m);
	return ret;
}
