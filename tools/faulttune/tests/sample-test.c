// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded sample of holds (sample.c), on hold streams whose windows
 * are known by construction: within the budget every hold is kept and the
 * model gets one run; past it, at most the budget, whole windows in time
 * order, the same sample every time, each window a run of the model.
 */
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "check.h"

/*
 * n holds, per_ms of them released each millisecond (a window of 10 ms
 * then holds 10 * per_ms), each tagged with its number in pid
 */
static void feed(struct ft_analysis *a, size_t budget, size_t n, int per_ms)
{
	size_t i, err = 0;

	ft_analysis_init(a);
	a->sample.budget = budget;
	for (i = 0; i < n; i++) {
		struct ft_hold h = { 0 };

		h.rel_ts = 1000000000ULL + i * (1000000ULL / per_ms);
		h.acq_ts = h.rel_ts - 500;
		h.req_ts = h.acq_ts - 100;
		h.mapping = 0xffff888000000000ULL;
		h.index = i;
		h.hash = (uint32_t)i * 2654435761u;
		h.pid = (int)i;
		err += ft_sample_push(a, &h) != 0;
	}
	CHECK(!err, "%zu of %zu pushes failed", err, n);
}

static void test_within_budget(void)
{
	struct ft_analysis a;
	struct ft_model *m = ft_model_new();
	size_t i;

	feed(&a, 1000, 1000, 10);
	CHECK(!ft_sample_used(&a), "1000 holds in a budget of 1000: not sampled");
	CHECK(a.nholds == 1000 && a.sample.holds == 1000, "kept %zu of %llu",
	      a.nholds, (unsigned long long)a.sample.holds);
	for (i = 0; i < a.nholds && a.holds[i].pid == (int)i; i++)
		;
	CHECK(i == 1000, "every hold, in order (first out of place: %zu)", i);
	CHECK(m && !ft_sample_add_runs(&a, m, 0) && ft_model_nruns(m) == 1,
	      "one run of the model");
	ft_model_free(m);
	ft_analysis_free(&a);
}

static void test_past_budget(void)
{
	struct ft_analysis a, b;
	struct ft_model *m = ft_model_new();
	size_t i, k, wmax = 6400 / FT_SAMPLE_WINDOWS_MIN, bad = 0;

	/* 64000 holds, 1000 per 10 ms window: 640 windows of 100 holds */
	feed(&a, 6400, 64000, 100);
	CHECK(ft_sample_used(&a), "64000 holds in a budget of 6400: sampled");
	CHECK(a.nholds <= 6400 && a.nholds > 0, "kept %zu <= 6400", a.nholds);
	CHECK(a.sample.holds == 64000, "all 64000 counted (%llu)",
	      (unsigned long long)a.sample.holds);
	CHECK(a.sample.windows == 640, "640 windows of %zu holds (%llu)", wmax,
	      (unsigned long long)a.sample.windows);
	CHECK(a.sample.fault_ns == 64000ULL * 600, "fault time of every hold");
	/* whole windows: each kept window is 100 consecutive holds */
	for (k = 0; k < a.sample.nwin; k++) {
		const struct ft_sample_win *w = &a.sample.win[k];

		if (w->n != wmax || a.holds[w->first].pid % wmax ||
		    (k && w->first != a.sample.win[k - 1].first + wmax))
			bad++;
		for (i = 1; i < w->n; i++)
			if (a.holds[w->first + i].pid != a.holds[w->first].pid + (int)i)
				bad++;
		if (k && a.holds[w->first].pid <= a.holds[w->first - 1].pid)
			bad++;
	}
	CHECK(!bad, "%zu kept windows: whole, in time order (%zu bad)",
	      a.sample.nwin, bad);
	CHECK(a.sample.nwin * wmax == a.nholds, "the windows cover the holds");
	/* each window kept with probability 1/2^halvings: 640 of them */
	k = 640 >> a.sample.halvings;
	CHECK(a.sample.nwin >= k / 2 && a.sample.nwin <= 2 * k,
	      "%zu windows kept at 1/%d, about %zu", a.sample.nwin,
	      1 << a.sample.halvings, k);
	feed(&b, 6400, 64000, 100);
	CHECK(b.nholds == a.nholds &&
	      !memcmp(a.holds, b.holds, a.nholds * sizeof(*a.holds)),
	      "the same sample twice");
	CHECK(m && !ft_sample_add_runs(&a, m, 0) &&
	      ft_model_nruns(m) == (int)a.sample.nwin &&
	      ft_model_nholds(m) == a.nholds, "a run of the model per window");
	ft_model_free(m);
	ft_analysis_free(&a);
	ft_analysis_free(&b);
}

static void test_window_time(void)
{
	struct ft_analysis a;

	/* 10 holds a millisecond, budget 64000: windows end by time */
	feed(&a, 64000, 100000, 10);
	CHECK(a.sample.windows == 1000, "10 ms windows: %llu of 1000",
	      (unsigned long long)a.sample.windows);
	CHECK(ft_sample_used(&a) && a.nholds <= 64000 &&
	      a.sample.nwin * 100 == a.nholds, "%zu holds in %zu windows of 100",
	      a.nholds, a.sample.nwin);
	ft_analysis_free(&a);
}

int main(void)
{
	test_within_budget();
	test_past_budget();
	test_window_time();
	return check_done("sample");
}
