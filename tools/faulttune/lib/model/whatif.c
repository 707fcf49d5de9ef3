// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune what-if replay (report's table): the recorded holds through
 * tables of other sizes with the recorded hashes, one draw, no queueing
 * feedback.  Kept apart from the model, which averages over draws: this
 * says what the one draw the recording got would have done.
 */
#include <stdlib.h>
#include <string.h>
#include "model.h"

static int cmp_hold(const void *x, const void *y)
{
	const struct ft_hold *a = x, *b = y;

	if (a->acq_ts != b->acq_ts)
		return a->acq_ts < b->acq_ts ? -1 : 1;
	return (a->rel_ts > b->rel_ts) - (a->rel_ts < b->rel_ts);
}

/*
 * The holds by (acquire, release), equal ones in the order they came, as
 * qsort's merge sort gave them: they come at their release, so mostly a
 * few places from acquire order at most.  Insertion (stable) while few
 * move, else qsort on the permutation so far, which has equal holds in
 * their first order still.
 */
static void sort_holds(struct ft_hold *h, size_t n)
{
	size_t i, j, moves = 0;

	for (i = 1; i < n; i++) {
		struct ft_hold x;

		if (cmp_hold(&h[i - 1], &h[i]) <= 0)
			continue;
		x = h[i];
		for (j = i; j > 0 && cmp_hold(&h[j - 1], &x) > 0; j--) {
			h[j] = h[j - 1];
			if (++moves > 8 * n + 64) {
				h[j - 1] = x;	/* a permutation again */
				qsort(h, n, sizeof(*h), cmp_hold);
				return;
			}
		}
		h[j] = x;
	}
}

/*
 * Replay the recorded holds through a table of `size` buckets with the
 * recorded hashes: one draw, no queueing feedback (a predicted wait does
 * not delay the recorded hold).  At the recorded size it reproduces the
 * measured handovers; elsewhere it says what this draw would have done,
 * which the model above averages away.
 */
static void whatif_one(struct ft_hold *h, size_t n, uint32_t size,
		       uint64_t *until, uint64_t *km, uint64_t *ki,
		       struct ft_whatif_row *row)
{
	size_t i;

	memset(until, 0, size * sizeof(*until));
	memset(row, 0, sizeof(*row));
	row->size = size;
	row->mem_bytes = (uint64_t)size * FT_MUTEX_BYTES;
	for (i = 0; i < n; i++) {
		uint32_t b = h[i].hash & (size - 1);
		uint64_t t = h[i].req_ts;

		if (until[b] > t) {
			if (km[b] != h[i].mapping || ki[b] != h[i].index) {
				row->collisions++;
				row->coll_wait_ns += until[b] - t;
			} else {
				row->sharing++;
				row->share_wait_ns += until[b] - t;
			}
		}
		if (h[i].rel_ts >= until[b]) {
			until[b] = h[i].rel_ts;
			km[b] = h[i].mapping;
			ki[b] = h[i].index;
		}
	}
}

int ft_whatif(struct ft_analysis *a, uint32_t max_size,
	      struct ft_whatif_row **rows)
{
	uint64_t *until, *km, *ki;
	uint32_t size;
	int nrows = 0, i;

	*rows = NULL;
	if (!max_size || !ft_is_pow2(max_size))
		return -1;
	for (size = 1; size && size <= max_size; size <<= 1)
		nrows++;
	*rows = calloc(nrows, sizeof(**rows));
	until = malloc(max_size * sizeof(*until));
	km = malloc(max_size * sizeof(*km));
	ki = malloc(max_size * sizeof(*ki));
	if (!*rows || !until || !km || !ki) {
		free(*rows);
		*rows = NULL;
		nrows = -1;
		goto out;
	}
	/* in place: a copy was the largest thing report allocated */
	sort_holds(a->holds, a->nholds);
	for (i = 0, size = 1; i < nrows; i++, size <<= 1)
		whatif_one(a->holds, a->nholds, size, until, km, ki, &(*rows)[i]);
out:
	free(until);
	free(km);
	free(ki);
	return nrows;
}
