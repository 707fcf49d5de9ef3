// SPDX-License-Identifier: GPL-2.0
/*
 * The holds that the contention model and the what-if take, in memory
 * that does not grow with the recording.
 *
 * Every other number of a report is a counter or a fixed-size histogram;
 * the holds were kept one by one, 56 bytes each, about 35 MB per million
 * events.  Past a budget (FT_SAMPLE_HOLDS), whole time windows of holds
 * are kept instead: the model needs holds that overlap, and a sample of
 * single holds would keep almost none of the pairs that do.  A window is
 * FT_SAMPLE_WINDOW_NS of release time, or FT_SAMPLE_WINDOW_MAX holds when
 * a window holds more, so that no window is a large part of the budget.
 *
 * Which windows: each gets a priority from its sequence number (a fixed
 * hash: the same file gives the same sample) and is kept when the
 * priority is at most a threshold.  The threshold starts at the top and
 * halves whenever the kept holds pass the budget, dropping the windows
 * above it (about half), so every window ends up kept with the same
 * probability, 2^-halvings, whatever its size or place: a uniform sample
 * of windows, as in adaptive (Wegman) sampling.  The kept holds stay in
 * a->holds in time order; each kept window is a run of the model of its
 * own, so the model's standard error over runs carries the sampling
 * error (split.c's ft_sample_add_runs()).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"

/* splitmix64's finaliser: a window's priority from its sequence number */
static uint64_t prio_of(uint64_t seq)
{
	uint64_t x = seq + 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static size_t budget(const struct ft_sample *s)
{
	return s->budget ? s->budget : FT_SAMPLE_HOLDS;
}

/* a window's hold limit: a small part of the budget, at least one hold */
static uint32_t window_max(const struct ft_sample *s)
{
	size_t m = budget(s) / FT_SAMPLE_WINDOWS_MIN;

	return m > UINT32_MAX ? UINT32_MAX : m ? (uint32_t)m : 1;
}

/* halve the threshold and drop the windows above it, in place */
static void thin(struct ft_analysis *a)
{
	struct ft_sample *s = &a->sample;
	size_t i, k = 0, n = 0;

	s->threshold >>= 1;
	s->halvings++;
	for (i = 0; i < s->nwin; i++) {
		struct ft_sample_win *w = &s->win[i];

		if (w->prio > s->threshold)
			continue;
		if (n != w->first)
			memmove(&a->holds[n], &a->holds[w->first],
				w->n * sizeof(*a->holds));
		w->first = n;
		n += w->n;
		s->win[k++] = *w;
	}
	/* the open window, when dropped, drops the rest of its holds too */
	if (s->cur_kept && (!k || s->win[k - 1].seq != s->seq))
		s->cur_kept = 0;
	s->nwin = k;
	a->nholds = n;
}

/* a new window starts with this hold: kept or not */
static int open_window(struct ft_analysis *a, uint64_t idx)
{
	struct ft_sample *s = &a->sample;
	struct ft_sample_win *w;

	s->seq++;
	s->windows++;
	s->cur_idx = idx;
	s->cur_n = 0;
	s->cur_kept = prio_of(s->seq) <= s->threshold;
	if (!s->cur_kept)
		return 0;
	if (s->nwin == s->capwin) {
		size_t cap = s->capwin ? s->capwin * 2 : 64;

		w = realloc(s->win, cap * sizeof(*w));
		if (!w)
			return -1;
		s->win = w;
		s->capwin = cap;
	}
	w = &s->win[s->nwin++];
	w->seq = s->seq;
	w->prio = prio_of(s->seq);
	w->first = a->nholds;
	w->n = 0;
	return 0;
}

int ft_sample_push(struct ft_analysis *a, const struct ft_hold *h)
{
	struct ft_sample *s = &a->sample;
	uint64_t idx = h->rel_ts / FT_SAMPLE_WINDOW_NS;

	if (!s->windows)
		s->threshold = UINT64_MAX;
	s->holds++;
	s->fault_ns += h->rel_ts - h->req_ts;
	if (!s->windows || idx != s->cur_idx || s->cur_n == window_max(s))
		if (open_window(a, idx))
			return -1;
	s->cur_n++;
	if (!s->cur_kept)
		return 0;
	if (a->nholds == a->capholds) {
		/* no more than the budget and a hold (then thinned) */
		size_t lim = budget(s) < SIZE_MAX ? budget(s) + 1 : SIZE_MAX;
		size_t cap = a->capholds ? a->capholds * 2 : 256;
		struct ft_hold *n;

		if (cap > lim && a->capholds < lim)
			cap = lim;
		n = realloc(a->holds, cap * sizeof(*n));
		if (!n)
			return -1;
		a->holds = n;
		a->capholds = cap;
	}
	a->holds[a->nholds++] = *h;
	s->win[s->nwin - 1].n++;
	while (a->nholds > budget(s))
		thin(a);
	return 0;
}

/* the sample's limits, for its printer */
uint32_t ft_sample_window_max(const struct ft_analysis *a)
{
	return window_max(&a->sample);
}

size_t ft_sample_budget(const struct ft_analysis *a)
{
	return budget(&a->sample);
}

int ft_sample_used(const struct ft_analysis *a)
{
	return a->sample.halvings > 0;
}

/* one line on stderr when sampled, for output that has no room for it */
void ft_sample_note(const struct ft_analysis *a, const char *file)
{
	const struct ft_sample *s = &a->sample;

	if (ft_sample_used(a))
		ft_info("faulttune: %s: the model takes a sample: %zu of %llu "
			"holds, in %zu of %llu windows, each window a run", file,
			a->nholds, (unsigned long long)s->holds, s->nwin,
			(unsigned long long)s->windows);
}

void ft_sample_free(struct ft_analysis *a)
{
	free(a->sample.win);
	memset(&a->sample, 0, sizeof(a->sample));
}
