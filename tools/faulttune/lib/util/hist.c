// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear histograms (HDR-style) for wait and hold times: memory grows
 * with the range of the values, not with their number.
 *
 * Values below FT_HIST_SUB are counted exactly.  Above, each power of two
 * [2^k, 2^(k+1)) is split into FT_HIST_SUB equal buckets of width
 * 2^k / FT_HIST_SUB, and a percentile is reported as the middle of its
 * bucket, so it is off by at most half a bucket: 2^k / (2 * FT_HIST_SUB),
 * a relative error of at most 1 / (2 * FT_HIST_SUB) = 0.78% for 64.  The
 * minimum and maximum are kept exactly.  A power of two costs its
 * FT_HIST_SUB counters only once a value falls in it.
 */
#include <stdlib.h>
#include <string.h>
#include "util.h"

#define SUB_SHIFT 6
#define SUB (1u << SUB_SHIFT)
#define NOCT (64 - SUB_SHIFT + 1)	/* octave 0: [0, SUB) linear */

_Static_assert(SUB == FT_HIST_SUB, "FT_HIST_SUB is 1 << SUB_SHIFT");

static void locate(uint64_t v, unsigned int *oct, unsigned int *sub)
{
	unsigned int k;

	if (v < SUB) {
		*oct = 0;
		*sub = v;
		return;
	}
	k = 63 - __builtin_clzll(v);		/* k >= SUB_SHIFT */
	*oct = k - SUB_SHIFT + 1;
	*sub = (v >> (k - SUB_SHIFT)) - SUB;
}

/* the middle of bucket (oct, sub), rounded down */
static uint64_t middle(unsigned int oct, unsigned int sub)
{
	unsigned int shift;

	if (!oct)
		return sub;
	shift = oct - 1;
	return ((uint64_t)(SUB + sub) << shift) + (shift ? 1ULL << (shift - 1) : 0);
}

int ft_hist_add(struct ft_hist *h, uint64_t v)
{
	unsigned int oct, sub;

	locate(v, &oct, &sub);
	if (!h->oct) {
		h->oct = calloc(NOCT, sizeof(*h->oct));
		if (!h->oct)
			return -1;
	}
	if (!h->oct[oct]) {
		h->oct[oct] = calloc(SUB, sizeof(**h->oct));
		if (!h->oct[oct])
			return -1;
	}
	h->oct[oct][sub]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	return 0;
}

uint64_t ft_hist_percentile(const struct ft_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned int oct, sub;

	if (!h->n)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 100)
		return h->max;
	/* nearest rank: ceil(q/100 * n), 1-based */
	rank = (uint64_t)(q / 100.0 * h->n);
	if ((double)rank < q / 100.0 * h->n)
		rank++;
	if (rank < 1)
		rank = 1;
	for (oct = 0; oct < NOCT; oct++) {
		if (!h->oct[oct])
			continue;
		for (sub = 0; sub < SUB; sub++) {
			seen += h->oct[oct][sub];
			if (seen < rank)
				continue;
			v = middle(oct, sub);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

void ft_hist_free(struct ft_hist *h)
{
	unsigned int i;

	if (h->oct)
		for (i = 0; i < NOCT; i++)
			free(h->oct[i]);
	free(h->oct);
	memset(h, 0, sizeof(*h));
}

size_t ft_hist_bytes(const struct ft_hist *h)
{
	size_t b = 0;
	unsigned int i;

	if (!h->oct)
		return 0;
	b = NOCT * sizeof(*h->oct);
	for (i = 0; i < NOCT; i++)
		if (h->oct[i])
			b += SUB * sizeof(**h->oct);
	return b;
}
