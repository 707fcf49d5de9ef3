// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded sample of holds (sample.c), on hold streams whose windows
 * are known by construction: within the budget every hold is kept and the
 * model gets one run; past it, at most the budget, whole windows in time
 * order, the same sample every time, each window a run of the model.
 */
#include <math.h>
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

/*
 * split.c: a stretch of holds as runs of the model.  nb bursts of four
 * holds on different keys, each burst's holds requested together and
 * served one after the other (a collision each but the first), the
 * bursts 10 us apart with nothing in flight between them; or, with
 * gap 0, holds that overlap their neighbours throughout.
 */
static void push_bursts(struct ft_analysis *a, size_t nb, int gap)
{
	size_t b, err = 0;
	int j;

	ft_analysis_init(a);
	for (b = 0; b < nb; b++)
		for (j = 0; j < 4; j++) {
			struct ft_hold h = { 0 };

			if (gap) {
				h.req_ts = 1000000 + b * 10000;
				h.acq_ts = h.req_ts + j * 100;
				h.rel_ts = h.acq_ts + 100;
				h.collided = j > 0;
			} else {
				h.req_ts = 1000000 + (b * 4 + j) * 100;
				h.acq_ts = h.req_ts;
				h.rel_ts = h.acq_ts + 250;
			}
			h.mapping = 0xffff888000000000ULL;
			h.index = b * 4 + j;
			h.hash = (uint32_t)h.index * 2654435761u;
			h.pid = j + 1;
			err += ft_sample_push(a, &h) != 0;
		}
	CHECK(!err, "%zu pushes failed", err);
}

static void test_split(void)
{
	struct ft_analysis a;
	struct ft_model *m = ft_model_new();
	double cw, f, fsum = 0, cwsum = 0;
	int i, whole = 1;
	uint32_t rs;

	/* 660 holds: 10 parts of 66, each even cut inside a burst */
	push_bursts(&a, 165, 1);
	CHECK(ft_split_parts(a.nholds, 20) == 10, "660 holds: %d parts of 20",
	      ft_split_parts(a.nholds, 20));
	CHECK(m && !ft_split_add_runs(&a, m, 64, 20) && ft_model_nruns(m) == 10,
	      "660 holds in bursts: 10 runs of the model (%d)",
	      m ? ft_model_nruns(m) : -1);
	for (i = 0; m && i < ft_model_nruns(m); i++) {
		if (!ft_model_run_recorded(m, i, &rs, &cw, &f)) {
			whole = 0;
			continue;
		}
		/* a burst is 1000 ns of fault time and 600 of collision wait */
		if (fmod(f, 1000) || fmod(cw, 600) || cw / 600 != f / 1000)
			whole = 0;
		fsum += f;
		cwsum += cw;
	}
	CHECK(whole && fsum == 165000 && cwsum == 99000,
	      "each run whole bursts, cut where nothing is in flight, with what "
	      "it measured (fault %.0f, collision wait %.0f)", fsum, cwsum);
	ft_model_free(m);
	ft_analysis_free(&a);

	/* no moment without a hold in flight: cut evenly all the same */
	m = ft_model_new();
	push_bursts(&a, 160, 0);
	CHECK(m && !ft_split_add_runs(&a, m, 64, 20) && ft_model_nruns(m) == 10 &&
	      ft_model_nholds(m) == 640,
	      "640 holds that always overlap: 10 runs, every hold in one");
	ft_model_free(m);
	ft_analysis_free(&a);

	/* under two parts' worth: one run */
	m = ft_model_new();
	push_bursts(&a, 30, 1);
	CHECK(ft_split_parts(a.nholds, 20) == 1 && m &&
	      !ft_split_add_runs(&a, m, 64, 20) && ft_model_nruns(m) == 1,
	      "120 holds: one run");
	ft_model_free(m);
	ft_analysis_free(&a);

	/* a sampled recording keeps its windows as runs */
	m = ft_model_new();
	feed(&a, 6400, 64000, 100);
	CHECK(m && !ft_split_add_runs(&a, m, 0, 20) &&
	      ft_model_nruns(m) == (int)a.sample.nwin,
	      "sampled: a run per kept window (%zu), not split again",
	      a.sample.nwin);
	ft_model_free(m);
	ft_analysis_free(&a);
}

int main(void)
{
	test_within_budget();
	test_past_budget();
	test_window_time();
	test_split();
	return check_done("sample");
}
