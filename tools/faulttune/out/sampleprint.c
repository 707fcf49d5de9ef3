// SPDX-License-Identifier: GPL-2.0
/*
 * The sample's line in report's text and its object in the JSON: how many
 * holds and windows the model took of how many (sample.c).
 */
#include <stdio.h>
#include "model.h"
#include "out.h"

void ft_sample_print(FILE *f, const struct ft_analysis *a, int json)
{
	const struct ft_sample *s = &a->sample;

	if (json) {
		fprintf(f, ",\"sample\":{\"sampled\":%s,\"holds_kept\":%zu,"
			"\"holds_total\":%llu,\"windows_kept\":%zu,"
			"\"windows_total\":%llu,\"window_ns\":%llu,"
			"\"window_max_holds\":%u,\"budget_holds\":%zu}",
			ft_sample_used(a) ? "true" : "false", a->nholds,
			(unsigned long long)s->holds, s->nwin,
			(unsigned long long)s->windows,
			(unsigned long long)FT_SAMPLE_WINDOW_NS, ft_sample_window_max(a),
			ft_sample_budget(a));
		return;
	}
	if (!ft_sample_used(a))
		return;
	fprintf(f, "sample: %zu of %llu holds (%.1f%%), in %zu of %llu windows "
		"of %llu ms or %u holds (each kept with probability 1/%llu); the "
		"what-if, the model and the resize stalls use the sample, the "
		"model with each window as a run\n", a->nholds,
		(unsigned long long)s->holds,
		s->holds ? 100.0 * a->nholds / s->holds : 0.0, s->nwin,
		(unsigned long long)s->windows,
		(unsigned long long)(FT_SAMPLE_WINDOW_NS / 1000000), ft_sample_window_max(a),
		1ULL << (s->halvings < 63 ? s->halvings : 63));
}
