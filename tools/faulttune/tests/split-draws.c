// SPDX-License-Identifier: GPL-2.0
/*
 * split-draws: how much a stretch of holds cut into parts (split.c)
 * leaves to the hash draws, not a test.
 *
 *   split-draws FILE SIZE PARTS SEEDS
 *
 * For SEEDS seeds of the draws, the open loop's predicted collision wait
 * at SIZE mutexes for FILE's holds as one run, as up to PARTS parts with
 * the model's own draws, and as parts with the draws of small runs
 * (FT_SMALL_RUN_DRAWS, as watch asks for); then each column's range over
 * the seeds.  A column whose range is wider than the one run's carries
 * the draws' noise into watch's pick.
 */
#include <stdio.h>
#include <stdlib.h>
#include "faulttune.h"
#include "model.h"

/* the open loop's share at size over seed's draws, or -1 */
static double predict(const struct ft_analysis *a, uint32_t size, int parts,
		      int run_draws, uint64_t seed)
{
	struct ft_model_opts o = {
		.seed = seed, .open_loop = 1, .run_draws = run_draws,
		.max_draws = run_draws ? FT_SMALL_RUN_MAX_DRAWS : 0,
	};
	struct ft_model *m = ft_model_new();
	struct ft_model_row row;
	double pct = -1;

	if (m && !ft_split_add_runs(a, m, 0, parts) &&
	    !ft_model_predict(m, &o, size, &row))
		pct = row.coll_pct;
	ft_model_free(m);
	return pct;
}

int main(int argc, char **argv)
{
	static const char *const col[3] = {
		"one run", "parts, model's draws", "parts, small runs' draws"
	};
	double lo[3] = { 1e9, 1e9, 1e9 }, hi[3] = { -1, -1, -1 };
	struct ft_analysis a;
	int parts, seeds, s, c;
	uint32_t size;

	if (argc != 5) {
		fprintf(stderr, "usage: split-draws FILE SIZE PARTS SEEDS\n");
		return 2;
	}
	size = (uint32_t)atoi(argv[2]);
	parts = atoi(argv[3]);
	seeds = atoi(argv[4]);
	ft_analysis_init(&a);
	if (ft_read_tracedat(argv[1], &a))
		return 1;
	printf("%s: %zu holds, %d parts; open loop at %u, %% of fault time\n",
	       argv[1], a.nholds, ft_split_parts(a.nholds, parts), size);
	for (s = 0; s < seeds; s++) {
		double p[3] = {
			predict(&a, size, 1, 0, FT_MODEL_SEED + s),
			predict(&a, size, parts, 0, FT_MODEL_SEED + s),
			predict(&a, size, parts, FT_SMALL_RUN_DRAWS,
				FT_MODEL_SEED + s),
		};

		printf("seed %d:", s);
		for (c = 0; c < 3; c++) {
			if (p[c] < 0)
				return 1;
			printf(" %.3f", p[c]);
			lo[c] = p[c] < lo[c] ? p[c] : lo[c];
			hi[c] = p[c] > hi[c] ? p[c] : hi[c];
		}
		putchar('\n');
	}
	for (c = 0; c < 3; c++)
		printf("%s: %.2f-%.2f%%\n", col[c], lo[c], hi[c]);
	ft_analysis_free(&a);
	return 0;
}
