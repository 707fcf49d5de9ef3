// SPDX-License-Identifier: GPL-2.0
/*
 * One stretch of holds as several runs of the model, so that the spread
 * from run to run bounds the prediction and says how settled the pick is.
 *
 * tune gets its runs from running the program again and again; a sampled
 * recording from its windows (sample.c).  A watch window, or a recording
 * within the sample's budget, is one stretch of time: as one run its
 * pick has no spread to bound, and how settled it is stays "not known"
 * however many holds it has.  So the stretch is cut into parts of about
 * equal hold counts, each a run of its own.
 *
 * A cut between two holds that overlap would lose their overlap from
 * both parts: the model could not predict the wait the later one
 * measured.  So each cut goes where no hold is in flight (every earlier
 * request released before the next one), the idle moment nearest the
 * even cut within a quarter of a part either way; only a stretch with no
 * such moment there is cut through its holds.  Parts are at least
 * FT_SPLIT_HOLDS_MIN holds: fewer say little each, and with the cut
 * through overlaps, lose a larger share of them.
 */
#include <stdlib.h>
#include <string.h>
#include "model.h"

static int by_req(const void *x, const void *y)
{
	const struct ft_hold *a = x, *b = y;

	if (a->req_ts != b->req_ts)
		return a->req_ts < b->req_ts ? -1 : 1;
	return a->rel_ts < b->rel_ts ? -1 : a->rel_ts > b->rel_ts;
}

/* idle[j]: no hold before j (in request order) is in flight at j's request */
static void idle_points(const struct ft_hold *h, size_t n, char *idle)
{
	uint64_t busy_until = 0;
	size_t j;

	for (j = 0; j < n; j++) {
		idle[j] = j > 0 && busy_until <= h[j].req_ts;
		if (h[j].rel_ts > busy_until)
			busy_until = h[j].rel_ts;
	}
}

/* the cut nearest `even` within `reach` either way at an idle moment */
static size_t cut_near(const char *idle, size_t lo, size_t hi, size_t even,
		       size_t reach)
{
	size_t d;

	for (d = 0; d <= reach; d++) {
		if (even >= lo + d && idle[even - d])
			return even - d;
		if (even + d < hi && idle[even + d])
			return even + d;
	}
	return even;
}

/* one part into the model, with the collision wait it measured */
static int add_part(struct ft_model *m, const struct ft_hold *h, size_t n,
		    uint32_t size)
{
	double coll = 0;
	size_t k;

	if (ft_model_add_run(m, h, n))
		return -1;
	for (k = 0; k < n; k++)
		if (h[k].collided)
			coll += (double)(h[k].acq_ts - h[k].req_ts);
	ft_model_run_measured(m, h, n, size, coll);
	return 0;
}

int ft_split_parts(size_t nholds, int max_parts)
{
	size_t parts = nholds / FT_SPLIT_HOLDS_MIN;

	if (parts > (size_t)max_parts)
		parts = max_parts;
	return parts ? (int)parts : 1;
}

int ft_split_add_runs(const struct ft_analysis *a, struct ft_model *m,
		      uint32_t size, int max_parts)
{
	int parts = ft_split_parts(a->nholds, max_parts), i, ret = -1;
	size_t n = a->nholds, start = 0, part, end;
	struct ft_hold *h;
	char *idle;

	if (ft_sample_used(a) || parts < 2)
		return ft_sample_add_runs(a, m, size);
	h = malloc(n * sizeof(*h));
	idle = malloc(n);
	if (!h || !idle)
		goto out;
	memcpy(h, a->holds, n * sizeof(*h));
	qsort(h, n, sizeof(*h), by_req);
	idle_points(h, n, idle);
	part = n / parts;
	for (i = 1; i <= parts; i++) {
		end = i == parts ? n : cut_near(idle, start + 1, n, i * part,
						part / 4);
		if (end <= start)
			continue;
		if (add_part(m, h + start, end - start, size))
			goto out;
		start = end;
	}
	ret = 0;
out:
	free(h);
	free(idle);
	return ret;
}

/*
 * The holds into the model: all of them as one run, or each kept window
 * as a run of its own (its spread is then the sampling error).
 */
int ft_sample_add_runs(const struct ft_analysis *a, struct ft_model *m,
		       uint32_t size)
{
	const struct ft_sample *s = &a->sample;
	size_t i, k;

	if (!ft_sample_used(a)) {
		if (ft_model_add_run(m, a->holds, a->nholds))
			return -1;
		ft_model_run_measured(m, a->holds, a->nholds, size,
				      a->hall.coll_wait);
		return 0;
	}
	for (i = 0; i < s->nwin; i++) {
		const struct ft_hold *h = a->holds + s->win[i].first;
		double coll = 0;

		if (!s->win[i].n)
			continue;
		if (ft_model_add_run(m, h, s->win[i].n))
			return -1;
		/* what the window measured: its holds' waits on other keys */
		for (k = 0; k < s->win[i].n; k++)
			if (h[k].collided)
				coll += (double)(h[k].acq_ts - h[k].req_ts);
		ft_model_run_measured(m, h, s->win[i].n, size, coll);
	}
	return 0;
}
