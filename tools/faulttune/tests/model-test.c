// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the contention model (model.c): hold streams small enough
 * that the expected collision wait is worked out by hand in the comments,
 * the rule that picks a size, the confidence interval and the BTF reader.
 * Ends with "N passed, N failed".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "model.h"
#include "check.h"


#define NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol),	\
			      "%s = %.6g, want %.6g +- %.3g", #a,	\
			      (double)(a), (double)(b), (double)(tol))
#define EQ(a, b) CHECK((long long)(a) == (long long)(b),		\
		       "%s = %lld, want %lld", #a, (long long)(a),	\
		       (long long)(b))

/* a recorded hold: task, key (mapping 0x1000, index key), request, acquire, release */
static struct ft_hold H(int pid, uint64_t key, uint64_t req, uint64_t acq,
			uint64_t rel)
{
	struct ft_hold h = {
		.req_ts = req, .acq_ts = acq, .rel_ts = rel,
		.mapping = 0x1000, .index = key, .pid = pid,
	};
	return h;
}

static void predict(const struct ft_hold *h, size_t n, int threads,
		    int draws, uint32_t size, struct ft_model_row *row)
{
	struct ft_model *m = ft_model_new();
	struct ft_model_opts o = { .threads = threads, .draws = draws,
				   .seed = FT_MODEL_SEED };

	CHECK(m && !ft_model_add_run(m, h, n), "model of %zu holds", n);
	CHECK(!ft_model_predict(m, &o, size, row), "predict at %u", size);
	ft_model_free(m);
}

/*
 * One mutex, three tasks asking 2 ns apart for 10 ns holds of distinct
 * keys: the second waits 10 - 2 = 8, the third waits for both holders
 * before it, until 20: 16; 24 in all.  Summing the overlapping pairs
 * without queueing (remaining hold at the request: 8, 6 and 8) says 22.
 * Fault time: 10 + 18 + 26 = 54; share 24 / 54.
 */
static void test_queue_one_mutex(void)
{
	struct ft_hold h[] = {
		H(1, 1, 0, 0, 10), H(2, 2, 2, 2, 12), H(3, 3, 4, 4, 14),
	};
	struct ft_model_row r;

	predict(h, 3, 0, 8, 1, &r);
	NEAR(r.coll_wait_ns, 24, 1e-9);
	NEAR(r.collisions, 2, 1e-9);
	NEAR(r.fault_ns, 54, 1e-9);
	NEAR(r.coll_pct, 100.0 * 24 / 54, 1e-9);
	NEAR(r.share_wait_ns, 0, 1e-9);
	NEAR(r.coll_pct_sd, 0, 1e-9);	/* one bucket: every draw alike */
	NEAR(r.span_ns, 30, 1e-9);	/* first request 0, last release 30 */
}

/*
 * A task's wait delays its next request.  Task 1: A 0-10, then D asked at
 * 32.  Task 2: B asked at 5, C asked 5 after B's release.  One mutex:
 * B waits 5 (10-20), so C is asked at 25 (not 20) and holds 25-35, and D
 * asked at 32 waits 3.  Collision wait 8 (without the feedback: 5).
 * Fault time 10 + 15 + 10 + 11 = 46.
 */
static void test_stream_feedback(void)
{
	struct ft_hold h[] = {
		H(1, 1, 0, 0, 10), H(2, 2, 5, 5, 15), H(2, 3, 20, 20, 30),
		H(1, 4, 32, 32, 40),
	};
	/*
	 * The same tasks recorded at a size where B waited 5 behind another
	 * key: B 5-10-20 and C asked at 25.  Taking the recorded wait off
	 * task 2's time line gives the same contention-free input.
	 */
	struct ft_hold w[] = {
		H(1, 1, 0, 0, 10), H(2, 2, 5, 10, 20), H(2, 3, 25, 25, 35),
		H(1, 4, 32, 32, 40),
	};
	struct ft_model_row r;

	predict(h, 4, 0, 8, 1, &r);
	NEAR(r.coll_wait_ns, 8, 1e-9);
	NEAR(r.collisions, 2, 1e-9);
	NEAR(r.fault_ns, 46, 1e-9);
	predict(w, 4, 0, 8, 1, &r);
	NEAR(r.coll_wait_ns, 8, 1e-9);
	NEAR(r.fault_ns, 46, 1e-9);
}

/*
 * Two overlapping holds of distinct keys collide with probability 1/N:
 * the second (asked at 4, the first holds until 10) waits 6 / N on
 * average.  4096 draws: within 4 standard errors of the mean,
 * 6 * sqrt(p (1 - p) / 4096).  With common random numbers the curve
 * cannot rise with the size.
 */
static void test_expected_one_over_n(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 2, 4, 4, 14) };
	struct ft_model_row r;
	double prev = 1e9;
	uint32_t n;

	for (n = 1; n <= 64; n <<= 1) {
		double p = 1.0 / n;

		predict(h, 2, 0, 4096, n, &r);
		NEAR(r.coll_wait_ns, 6.0 / n, 4 * 6 * sqrt(p * (1 - p) / 4096) + 1e-9);
		NEAR(r.collisions, 1.0 / n, 4 * sqrt(p * (1 - p) / 4096) + 1e-9);
		CHECK(r.coll_wait_ns <= prev, "size %u: %.4g after %.4g",
		      n, r.coll_wait_ns, prev);
		prev = r.coll_wait_ns;
	}
	/* far more buckets than keys: almost never */
	predict(h, 2, 0, 64, FT_MODEL_MAX_SIZE, &r);
	NEAR(r.coll_wait_ns, 0, 1e-9);
}

/*
 * Two tasks faulting the same page: the second waits in every draw and
 * at every size (recorded 4 -> 10 -> 20: asked at 4, waits 6), and it is
 * sharing, not a collision.
 */
static void test_true_sharing(void)
{
	struct ft_hold h[] = { H(1, 7, 0, 0, 10), H(2, 7, 4, 10, 20) };
	struct ft_model_row r;

	predict(h, 2, 0, 16, 1, &r);
	NEAR(r.share_wait_ns, 6, 1e-9);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	NEAR(r.share_pct, 100.0 * 6 / 26, 1e-9);
	predict(h, 2, 0, 16, 1024, &r);
	NEAR(r.share_wait_ns, 6, 1e-9);
	NEAR(r.coll_wait_ns, 0, 1e-9);
}

/*
 * Keys are numbered through a fold of (mapping, index): two keys with
 * the same fold are still two keys.  mapping ^ index * C is the same for
 * (M, 0) and (M ^ C, 1), so the second hold's 6 ns wait behind the first
 * is a collision, not true sharing; and 500 distinct keys, enough to grow
 * the key table several times, are 500 keys: no wait is sharing.
 */
static void test_key_fold_collision(void)
{
	const uint64_t c = 0x9e3779b97f4a7c15ULL, m0 = 0x10000;
	struct ft_hold h[] = { H(1, 0, 0, 0, 10), H(2, 1, 4, 10, 20) }, *many;
	struct ft_model_row r;
	int i;

	h[0].mapping = m0;
	h[1].mapping = m0 ^ c;
	predict(h, 2, 0, 16, 1, &r);
	NEAR(r.coll_wait_ns, 6, 1e-9);
	NEAR(r.share_wait_ns, 0, 1e-9);

	many = calloc(500, sizeof(*many));
	CHECK(many != NULL, "calloc");
	if (!many)
		return;
	for (i = 0; i < 500; i++)	/* two tasks, overlapping pairs */
		many[i] = H(1 + i % 2, i, 10 * (i / 2), 10 * (i / 2) + i % 2,
			    10 * (i / 2) + 5 + i % 2);
	predict(many, 500, 0, 4, 1, &r);
	CHECK(r.coll_wait_ns > 0, "one mutex: the pairs collide");
	NEAR(r.share_wait_ns, 0, 1e-9);
	free(many);
}

/*
 * --threads: one recorded task, holds 0-10 and asked again at 20.  Two
 * simulated streams on one mutex, each its own keys: both ask at 0, the
 * second waits 10 (10-20), so asks again at 30; the first holds 20-30;
 * the second finds the mutex free at 30.  Collision wait 10, fault time
 * 10 + 20 + 10 + 10 = 50.  One stream: nothing to collide with.
 */
static void test_threads(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(1, 2, 20, 20, 30) };
	struct ft_model_row r;

	predict(h, 2, 2, 8, 1, &r);
	NEAR(r.coll_wait_ns, 10, 1e-9);
	NEAR(r.fault_ns, 50, 1e-9);
	NEAR(r.span_ns, 40, 1e-9);	/* the second stream's last hold: 30-40 */
	predict(h, 2, 1, 8, 1, &r);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	predict(h, 2, 0, 8, 1, &r);
	NEAR(r.coll_wait_ns, 0, 1e-9);
}

/*
 * Tasks that never overlap are one stream: task 2 (20-30) starts after
 * task 1 (0-10) ended, task 3 (asked at 5) overlaps task 1.  Two streams;
 * on one mutex task 3 waits 5 (10-20) and task 2 finds it free at 20.
 * --threads 4 runs two copies of the two streams, each with its own keys:
 * at 0 stream 0 holds 0-10, stream 2 (copy 1 of it) waits 10 (10-20);
 * at 5 stream 1 waits until 20 (15), stream 3 until 30 (25); the streams
 * 0 and 2 go on with task 2's hold at 20 and at 30 (20 + its wait 10):
 * stream 0 waits for stream 3 until 40 (20), stream 2 until 50 (20).
 * In all 10 + 15 + 25 + 20 + 20 = 90.
 */
static void test_lanes(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 2, 20, 20, 30),
			       H(3, 3, 5, 5, 15) };
	struct ft_model *m = ft_model_new();
	struct ft_model_row r;

	CHECK(m && !ft_model_add_run(m, h, 3), "model");
	EQ(ft_model_streams(m), 2);
	ft_model_free(m);
	predict(h, 3, 0, 4, 1, &r);
	NEAR(r.coll_wait_ns, 5, 1e-9);
	predict(h, 3, 4, 4, 1, &r);
	NEAR(r.coll_wait_ns, 90, 1e-9);
}

/*
 * --threads counts faulting threads, not tasks: a worker (0-10), a main
 * thread that truncates after it (20-25) and again after the second
 * worker (30-40) at 50-55.  Two lanes (worker 1 + main, worker 2), one
 * fault in flight at any time: concurrency 1, and --threads 2 is two
 * copies of the run.  On one mutex, copy 1 waits 10 behind copy 0 at 0
 * (10-20, so its main thread asks at 30, not 20); copy 0's main holds
 * 20-25, its worker 2 holds 30-40; copy 1's main asks at 30, waits 10
 * (40-45); copy 1's worker 2 waits 15 (45-55); copy 0's main asks at 50,
 * waits 5 (55-60); copy 1's main asks at 50 + 20 = 70, free.  40 in all.
 */
static void test_concurrency(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(9, 2, 20, 20, 25),
			       H(2, 3, 30, 30, 40), H(9, 4, 50, 50, 55) };
	struct ft_model *m = ft_model_new();
	struct ft_model_row r;

	CHECK(m && !ft_model_add_run(m, h, 4), "model");
	EQ(ft_model_streams(m), 2);
	EQ(ft_model_concurrency(m), 1);
	ft_model_free(m);
	predict(h, 4, 0, 4, 1, &r);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	predict(h, 4, 2, 4, 1, &r);
	NEAR(r.coll_wait_ns, 40, 1e-9);
}

/*
 * A main thread that truncates after joining the workers is no later
 * part of the worker whose lane it takes.  Worker 1 faults key 3 (0-5),
 * then key 1, asked at 5, got at 10: it waited 5 behind worker 2's key 2
 * (2-10); worker 2 then faults key 4 (10-40).  The main thread truncates
 * key 4 at 41-42, after the join: lane 0, after worker 1 (done at 20).
 * Only the main thread's own waits (none) come off its time line, not
 * worker 1's 5, which moved the truncation to 36, into worker 2's fault
 * of the same page: 4 of true sharing that no size removes.  At a size
 * where the three keys hardly ever collide, no wait at all.  On one
 * mutex: key 2 waits 3 (5-13), key 1 8 (13-23), worker 2's key 4 10
 * (23-53); the main thread asks at 41 + 8 = 49, but not before worker
 * 2's hold of key 4 releases, at 53: no wait behind the same page, 21 of
 * collisions.  Fault time 5 + 11 + 18 + 40 + 1 = 75.
 */
static void test_truncate_after_join(void)
{
	struct ft_hold h[] = {
		H(1, 3, 0, 0, 5), H(1, 1, 5, 10, 20),
		H(2, 2, 2, 2, 10), H(2, 4, 10, 10, 40),
		H(9, 4, 41, 41, 42),
	};
	struct ft_model_row r;

	predict(h, 5, 0, 4, FT_MODEL_MAX_SIZE, &r);
	NEAR(r.share_wait_ns, 0, 1e-9);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	predict(h, 5, 0, 4, 1, &r);
	NEAR(r.share_wait_ns, 0, 1e-9);
	NEAR(r.coll_wait_ns, 21, 1e-9);
	NEAR(r.fault_ns, 75, 1e-9);
}

/*
 * The later of two holds of a key, in two streams that did not overlap,
 * goes after the earlier even when its stream comes first.  Task 1: key
 * 1 (0-10), key 7 (10-11).  Task 2: key 2 asked at 1 and got at 30 (a
 * recorded wait of 29), key 7 at 31-32.  Without that wait task 2 asks
 * for key 7 at 2, before task 1 has asked for it: it waits for task 1's
 * hold to release at 11 and holds 11-12 (a dependency, not a wait on the
 * mutex), so the run ends at 12, not at 11 with key 7's holds swapped.
 * The same with --threads 20: ten copies, twenty streams (the heap).
 */
static void test_key_order(void)
{
	struct ft_hold h[] = {
		H(1, 1, 0, 0, 10), H(1, 7, 10, 10, 11),
		H(2, 2, 1, 30, 31), H(2, 7, 31, 31, 32),
	};
	struct ft_model_row r;

	predict(h, 4, 0, 4, FT_MODEL_MAX_SIZE, &r);
	NEAR(r.share_wait_ns, 0, 1e-9);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	NEAR(r.fault_ns, 13, 1e-9);
	NEAR(r.span_ns, 12, 1e-9);
	predict(h, 4, 20, 4, FT_MODEL_MAX_SIZE, &r);
	NEAR(r.share_wait_ns, 0, 1e-9);
	NEAR(r.coll_wait_ns, 0, 1e-9);
	NEAR(r.fault_ns, 130, 1e-9);
	NEAR(r.span_ns, 12, 1e-9);
}

/*
 * The model keeps each hold's hash per draw between predictions (model.c):
 * a prediction with --threads (copies of the run, keys of their own) after
 * one without, and one without after that, must give what a fresh model
 * gives, bit for bit.
 */
static void test_hash_cache(void)
{
	struct ft_model_opts o = { .draws = 16, .seed = FT_MODEL_SEED };
	struct ft_model_row a, b;
	struct ft_hold h[64];
	struct ft_model *m = ft_model_new(), *f;
	int i;

	for (i = 0; i < 64; i++)
		h[i] = H(1 + i % 4, (uint64_t)i * 7 % 23, (uint64_t)i / 4 * 10,
			 (uint64_t)i / 4 * 10, (uint64_t)i / 4 * 10 + 8);
	CHECK(m && !ft_model_add_run(m, h, 64), "model");
	CHECK(!ft_model_predict(m, &o, 8, &a), "predict");
	o.threads = 16;
	CHECK(!ft_model_predict(m, &o, 8, &a), "predict --threads");
	f = ft_model_new();
	CHECK(f && !ft_model_add_run(f, h, 64), "fresh model");
	CHECK(!ft_model_predict(f, &o, 8, &b), "fresh predict --threads");
	EQ(a.coll_wait_ns == b.coll_wait_ns && a.fault_ns == b.fault_ns, 1);
	o.threads = 0;
	CHECK(!ft_model_predict(m, &o, 4, &a), "predict again");
	ft_model_free(f);
	f = ft_model_new();
	CHECK(f && !ft_model_add_run(f, h, 64), "fresh model");
	CHECK(!ft_model_predict(f, &o, 4, &b), "fresh predict");
	EQ(a.coll_wait_ns == b.coll_wait_ns && a.fault_ns == b.fault_ns, 1);
	CHECK(a.coll_wait_ns > 0, "collisions at 4: %.0f", a.coll_wait_ns);
	ft_model_free(f);
	ft_model_free(m);
}

/* two runs are two time axes: their holds never overlap each other */
static void test_runs_apart(void)
{
	struct ft_hold a[] = { H(1, 1, 0, 0, 10) }, b[] = { H(2, 2, 4, 4, 14) };
	struct ft_model *m = ft_model_new();
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_model_row r;

	CHECK(!ft_model_add_run(m, a, 1) && !ft_model_add_run(m, b, 1), "runs");
	EQ(ft_model_nruns(m), 2);
	EQ(ft_model_nholds(m), 2);
	CHECK(!ft_model_predict(m, &o, 1, &r), "predict");
	NEAR(r.coll_wait_ns, 0, 1e-9);
	NEAR(r.fault_ns, 20, 1e-9);
	NEAR(r.span_ns, 20, 1e-9);	/* two runs of 10 ns each */
	o.only_run = 2;
	CHECK(!ft_model_predict(m, &o, 1, &r), "predict run 2");
	NEAR(r.fault_ns, 10, 1e-9);
	o.only_run = 3;
	CHECK(ft_model_predict(m, &o, 1, &r) < 0, "run 3 of 2 refused");
	/* not a power of two, or too big: refused */
	CHECK(ft_model_predict(m, &o, 3, &r) < 0, "size 3 refused");
	CHECK(ft_model_predict(m, &o, FT_MODEL_MAX_SIZE * 2, &r) < 0,
	      "size above the model's maximum refused");
	ft_model_free(m);
}

/*
 * The standard error over runs: on one mutex, run A (two tasks, 10 ns
 * holds asked at 0 and 5) has a wait of 5 in 25 (20%), run B (asked at 0
 * and 8) 2 in 22 (9.0909%).  Their mean 14.5455%, sd |a - b| / sqrt(2),
 * se = sd / sqrt(2) = |a - b| / 2 = 5.4545%.  Pooled: 7 in 47.
 */
static void test_se(void)
{
	struct ft_hold a[] = { H(1, 1, 0, 0, 10), H(2, 2, 5, 5, 15) };
	struct ft_hold b[] = { H(1, 1, 0, 0, 10), H(2, 2, 8, 8, 18) };
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_model *m = ft_model_new();
	struct ft_model_row r;

	CHECK(!ft_model_add_run(m, a, 2) && !ft_model_add_run(m, b, 2), "runs");
	CHECK(!ft_model_predict_se(m, &o, 1, &r), "predict");
	NEAR(r.coll_pct, 100.0 * 7 / 47, 1e-9);
	NEAR(r.coll_pct_se, (100.0 * 5 / 25 - 100.0 * 2 / 22) / 2, 1e-9);
	ft_model_free(m);
	/* one run: no standard error */
	predict(a, 2, 0, 4, 1, &r);
	NEAR(r.coll_pct_se, 0, 0);
}

/* the same input twice: the same numbers, bit for bit */
static void test_deterministic(void)
{
	struct ft_hold h[64];
	struct ft_model_row r1, r2;
	int i;

	for (i = 0; i < 64; i++)
		h[i] = H(i % 4, i, i * 3, i * 3, i * 3 + 11);
	predict(h, 64, 0, 0, 8, &r1);
	predict(h, 64, 0, 0, 8, &r2);
	CHECK(!memcmp(&r1, &r2, sizeof(r1)), "two predictions differ");
	CHECK(r1.draws >= 4 && r1.draws <= 256, "draws %d", r1.draws);
	CHECK(r1.coll_wait_ns > 0, "4 tasks on 8 buckets collide sometimes");
}

/*
 * The simulations of a prediction on 1 to 4 threads: the same row and
 * the same runs' shares to the last bit, in both variants and with
 * --threads copies (12 runs of 200 holds, 8 draws: more jobs than
 * threads, of unequal length, taken in whatever order they come).
 */
static void test_workers(void)
{
	struct ft_model *m = ft_model_new();
	struct ft_model_row r1, rk;
	struct ft_run_pred p1[12], pk[12];
	struct ft_hold h[200];
	int i, k, v, t;

	for (i = 0; i < 12; i++) {
		int j, n = 100 + 100 * (i % 2);

		for (j = 0; j < n; j++)
			h[j] = H(j % 6, (j * 7 + i) % 40, j * 3, j * 3 + j % 2,
				 j * 3 + 11);
		CHECK(!ft_model_add_run(m, h, n), "run %d", i);
	}
	for (v = 0; v < 2; v++)
		for (t = 0; t <= 16; t += 16) {
			struct ft_model_opts o = { .draws = 8, .seed = FT_MODEL_SEED,
						   .open_loop = v, .threads = t,
						   .workers = 1 };

			CHECK(!ft_model_predict_runs(m, &o, 16, &r1, p1), "one thread");
			/* 4 first: the model's pool then has 3 helpers */
			for (k = 4; k >= 2; k--) {
				o.workers = k;
				CHECK(!ft_model_predict_runs(m, &o, 16, &rk, pk),
				      "%d threads", k);
				CHECK(!memcmp(&r1, &rk, sizeof(r1)) &&
				      !memcmp(p1, pk, sizeof(p1)),
				      "%s, --threads %d: %d threads differ from one",
				      v ? "open" : "closed", t, k);
			}
		}
	ft_model_free(m);
}

/*
 * Open against closed loop, on one mutex.  Task 1 holds 0..10.  Task 2
 * was recorded without waiting: 2..12, then its next fault 12..22.  On
 * one mutex, closed loop: task 2 waits 8 (10..20), and its next request
 * comes 8 later too, at 20, when the mutex is free: 8 in all, fault time
 * 10 + 18 + 10 = 38.  Open loop: the next request stays at 12 and waits
 * for 20: 16 in all, fault time 10 + 18 + 18 = 46.
 */
static const struct ft_hold loop_run[] = {
	{ .req_ts = 0, .acq_ts = 0, .rel_ts = 10, .mapping = 0x1000,
	  .index = 1, .pid = 1 },
	{ .req_ts = 2, .acq_ts = 2, .rel_ts = 12, .mapping = 0x1000,
	  .index = 2, .pid = 2 },
	{ .req_ts = 12, .acq_ts = 12, .rel_ts = 22, .mapping = 0x1000,
	  .index = 3, .pid = 2 },
};

static void test_open_loop(void)
{
	struct ft_model *m = ft_model_new();
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_model_row r;

	CHECK(!ft_model_add_run(m, loop_run, 3), "run");
	CHECK(!ft_model_predict(m, &o, 1, &r), "closed");
	NEAR(r.coll_wait_ns, 8, 1e-9);
	NEAR(r.fault_ns, 38, 1e-9);
	o.open_loop = 1;
	CHECK(!ft_model_predict(m, &o, 1, &r), "open");
	NEAR(r.coll_wait_ns, 16, 1e-9);
	NEAR(r.fault_ns, 46, 1e-9);
	ft_model_free(m);
}

/*
 * The handover gap: recorded on one mutex, task 2 asked at 2 and got the
 * mutex at 13, 3 after task 1 released it at 10.  The model adds those 3
 * to every simulated handover: at one mutex task 2 waits 8 + 3 = 11.
 */
static void test_handover(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 2, 2, 13, 23) };
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_model *m = ft_model_new();
	struct ft_model_row r;

	CHECK(!ft_model_add_run(m, h, 2), "run");
	ft_model_run_measured(m, h, 2, 1, 11);
	EQ(ft_model_handover(m), 3);
	CHECK(!ft_model_predict(m, &o, 1, &r), "predict");
	NEAR(r.coll_wait_ns, 11, 1e-9);
	NEAR(r.fault_ns, 10 + 21, 1e-9);
	ft_model_free(m);
}

/* a model of `copies` runs of loop_run, each measured `meas` ns at size 1 */
static struct ft_model *loop_model(int copies, double meas)
{
	struct ft_model *m = ft_model_new();
	int i;

	for (i = 0; i < copies; i++) {
		CHECK(!ft_model_add_run(m, loop_run, 3), "run %d", i);
		ft_model_run_measured(m, loop_run, 3, 1, meas);
	}
	return m;
}

/*
 * The check against the measurement picks the variant.  The run's own
 * fault time is 10 + 10 + 10 = 30 ns.  Measured 8 in 30 (26.7%):
 * closed loop predicts 8/38 (21.1%), open 16/46 (34.8%), both off by
 * more than the floor, and at one mutex every draw is the same (sd 0):
 * neither fits, both are used.  Measured 6.316 (8/38 of 30) fits closed
 * alone; 10.435 (16/46 of 30) open alone.
 */
static void test_fit(void)
{
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_decision d;
	struct ft_model *m;

	m = loop_model(1, 30.0 * 8 / 38);
	CHECK(!ft_decide(m, &o, 1, 50, 4, &d), "decide");
	NEAR(d.fit[FT_LOOP_CLOSED].pred_pct, 100.0 * 8 / 38, 1e-9);
	NEAR(d.fit[FT_LOOP_OPEN].pred_pct, 100.0 * 16 / 46, 1e-9);
	NEAR(d.fit[FT_LOOP_CLOSED].meas_pct, 100.0 * 8 / 38, 1e-9);
	EQ(d.fit[FT_LOOP_CLOSED].fits, 1);
	EQ(d.fit[FT_LOOP_OPEN].fits, 0);
	EQ(d.used, 1u << FT_LOOP_CLOSED);
	ft_decision_free(&d);
	ft_model_free(m);

	m = loop_model(1, 30.0 * 16 / 46);
	CHECK(!ft_decide(m, &o, 1, 50, 4, &d), "decide");
	EQ(d.used, 1u << FT_LOOP_OPEN);
	/* 34.8% at one mutex meets 50%: keep 1 */
	EQ(d.sizes[d.rec], 1);
	ft_decision_free(&d);
	ft_model_free(m);

	m = loop_model(1, 8);
	CHECK(!ft_decide(m, &o, 1, 30, 4, &d), "decide");
	EQ(d.fit[FT_LOOP_CLOSED].fits, 0);
	EQ(d.fit[FT_LOOP_OPEN].fits, 0);
	EQ(d.used, 3);
	/*
	 * Judged by the larger, open's 34.8% would miss 30% at one mutex;
	 * but the model check fails there, and what was measured, 26.7%,
	 * meets 30%: kept.  At a 25% target the measurement misses it.
	 */
	EQ(d.cur_model_fails, 1);
	EQ(d.cur_verdict, FT_CUR_MEETS);
	EQ(d.sizes[d.rec], 1);
	ft_decision_free(&d);
	CHECK(!ft_decide(m, &o, 1, 25, 4, &d), "decide");
	EQ(d.cur_verdict, FT_CUR_MISSES_MEASURED);
	CHECK(d.sizes[d.rec] > 1, "not kept at 1: %u", d.sizes[d.rec]);
	ft_decision_free(&d);
	ft_model_free(m);
}

/*
 * With --threads the table simulates copies of the run, which the run
 * never measured: the check predicts the run as recorded (8/38 closed,
 * 16/46 open, as above), so the variant that fits the recording is the
 * one the copies are judged by, and the check at the recorded size
 * compares like with like.
 */
static void test_fit_threads(void)
{
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED,
				   .threads = 8 };
	struct ft_decision d;
	struct ft_check c;
	struct ft_model *m = loop_model(1, 30.0 * 8 / 38);

	CHECK(!ft_decide(m, &o, 1, 50, 4, &d), "decide");
	CHECK(d.recorded[FT_LOOP_CLOSED] != NULL, "predicted as recorded too");
	NEAR(d.fit[FT_LOOP_CLOSED].pred_pct, 100.0 * 8 / 38, 1e-9);
	NEAR(d.fit[FT_LOOP_OPEN].pred_pct, 100.0 * 16 / 46, 1e-9);
	EQ(d.fit[FT_LOOP_CLOSED].fits, 1);
	EQ(d.used, 1u << FT_LOOP_CLOSED);
	CHECK(d.rows[FT_LOOP_CLOSED][0].coll_pct > 100.0 * 8 / 38 + 1,
	      "the copies contend more: %.2f%% at one mutex",
	      d.rows[FT_LOOP_CLOSED][0].coll_pct);
	ft_decision_check(&d, 1, &c);
	CHECK(c.known && c.fits, "check at 1: measured %.2f%%, predicted "
	      "%.2f%%", c.meas_pct, c.pred_pct);
	NEAR(c.pred_pct, 100.0 * 8 / 38, 1e-9);
	ft_decision_free(&d);
	ft_model_free(m);
}

/*
 * Settled: identical runs differ only in their hash draws (each run has
 * its own): with 256 draws a run, too little to move the bounds off the
 * prediction across the target.  With closed loop fitting, one mutex at 21.1%
 * meets 25%: keep 1; at 20% it does not, and a larger size does.
 */
static void test_settled(void)
{
	struct ft_model_opts o = { .draws = 256, .seed = FT_MODEL_SEED };
	struct ft_decision d;
	struct ft_model *m = loop_model(FT_SETTLE_RUNS, 30.0 * 8 / 38);

	CHECK(!ft_decide(m, &o, 1, 25, 8, &d), "decide");
	EQ(d.settled, 1);
	EQ(d.sizes[d.rec], 1);
	ft_decision_free(&d);
	CHECK(!ft_decide(m, &o, 1, 20, 8, &d), "decide");
	EQ(d.settled, 1);
	CHECK(d.sizes[d.rec] > 1, "grown: %u", d.sizes[d.rec]);
	CHECK(d.up[d.rec - 1] > 20, "the size below misses 20%%: %.2f",
	      d.up[d.rec - 1]);
	EQ(d.first, d.rec);
	ft_decision_free(&d);
	ft_model_free(m);
	/* one run: no spread to bound, not known */
	m = loop_model(1, 30.0 * 8 / 38);
	CHECK(!ft_decide(m, &o, 1, 25, 8, &d), "decide");
	EQ(d.settled, 0);
	EQ(d.sizes[d.rec], 1);
	ft_decision_free(&d);
	ft_model_free(m);
}

/*
 * Not settled, then settled by more runs; idle runs left out.  A third of
 * the runs contend hard (loop_run: 8 of 38 ns, 21.05%, at one mutex), a
 * third lightly (light_run: task 2 asks 2 ns before task 1 releases, 2 of
 * 30 ns, 6.67%), a third fault alone (0 at every size: idle).  Closed loop
 * fits (each run measured what it predicts); open loop does not.  Sizes
 * are judged on the active runs: pooled, (8 + 2) / (38 + 30) = 14.71% at
 * one mutex (with the idle runs it would be 10.20%).  Six active runs:
 * the shares 21.05 and 6.67 have an sd of 7.880, se 3.217, t(5) 2.015:
 * one mutex's bounds are 8.22% .. 21.19%, so at a 17% target it may meet
 * it and a larger size is the safe pick: not settled, 1 and the pick
 * inseparable.  Sixty active runs: sd 7.253, se 0.936, t(59) 1.684: 1
 * surely meets 17% (upper bound 16.28%): kept, settled.
 */
static const struct ft_hold light_run[] = {
	{ .req_ts = 0, .acq_ts = 0, .rel_ts = 10, .mapping = 0x3000,
	  .index = 1, .pid = 1 },
	{ .req_ts = 8, .acq_ts = 10, .rel_ts = 18, .mapping = 0x3000,
	  .index = 2, .pid = 2 },
	{ .req_ts = 18, .acq_ts = 18, .rel_ts = 28, .mapping = 0x3000,
	  .index = 3, .pid = 2 },
};

static struct ft_model *third_model(int n)
{
	static const struct ft_hold alone[] = {
		{ .req_ts = 0, .acq_ts = 0, .rel_ts = 10, .mapping = 0x2000,
		  .index = 1, .pid = 1 },
		{ .req_ts = 10, .acq_ts = 10, .rel_ts = 20, .mapping = 0x2000,
		  .index = 2, .pid = 1 },
		{ .req_ts = 20, .acq_ts = 20, .rel_ts = 30, .mapping = 0x2000,
		  .index = 3, .pid = 1 },
	};
	struct ft_model *m = ft_model_new();
	int i;

	for (i = 0; i < n; i++) {
		if (i % 3 == 2) {
			CHECK(!ft_model_add_run(m, alone, 3), "alone");
			ft_model_run_measured(m, alone, 3, 1, 0);
		} else if (i % 3 == 1) {
			CHECK(!ft_model_add_run(m, light_run, 3), "light");
			ft_model_run_measured(m, light_run, 3, 1, 2);
		} else {
			CHECK(!ft_model_add_run(m, loop_run, 3), "loop");
			ft_model_run_measured(m, loop_run, 3, 1, 30.0 * 8 / 38);
		}
	}
	return m;
}

/* half the n shares a, half b: their standard error */
static double se_of_two(double a, double b, int n)
{
	return sqrt(n * (a - b) * (a - b) / 4 / (n - 1)) / sqrt(n);
}

static void test_not_settled(void)
{
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	double a = 800.0 / 38, b = 200.0 / 30, pooled = 1000.0 / 68;
	struct ft_model *m = third_model(9);
	struct ft_decision d;

	CHECK(!ft_decide(m, &o, 1, 17, 8, &d), "decide");
	EQ(d.nruns, 9);
	EQ(d.nactive, 6);
	EQ(d.idle[2], 1);
	EQ(d.idle[1], 0);
	EQ(d.used, 1u << FT_LOOP_CLOSED);
	NEAR(d.rows[FT_LOOP_CLOSED][0].coll_pct, pooled, 1e-9);
	NEAR(d.up[0], pooled + 2.015 * se_of_two(a, b, 6), 1e-3);
	NEAR(d.lo[0], pooled - 2.015 * se_of_two(a, b, 6), 1e-3);
	EQ(d.settled, 0);
	EQ(d.first, 0);
	/*
	 * Nothing shows 1 missing 17% (measured as predicted, 8.22% ..
	 * 21.19%): it is kept, undecided, and the sizes up to the first that
	 * surely meets 17% are those the runs cannot separate.  The
	 * measurement at 1 decides: per run 21.05% and 6.67%, 13.86% over
	 * the six (the measured fault time is the recorded one), se 3.217:
	 * its upper bound comes under 17% at about
	 * 6 * (2.015 * 3.217 / 3.14)^2 = 25 runs, 19 more.
	 */
	EQ(d.cur_verdict, FT_CUR_UNDECIDED);
	EQ(d.rec, 0);
	CHECK(d.last > 0 && d.up[d.last] <= 17, "inseparable up to %u "
	      "(upper %.2f)", d.sizes[d.last], d.up[d.last]);
	CHECK(d.more_runs >= 17 && d.more_runs <= 22, "more runs: %d",
	      d.more_runs);
	ft_decision_free(&d);
	ft_model_free(m);

	m = third_model(90);
	CHECK(!ft_decide(m, &o, 1, 17, 8, &d), "decide");
	EQ(d.nactive, 60);
	NEAR(d.up[0], pooled + 1.684 * se_of_two(a, b, 60), 1e-3);
	EQ(d.settled, 1);
	EQ(d.sizes[d.rec], 1);
	ft_decision_free(&d);
	ft_model_free(m);
}

/* only idle runs: nothing to judge sizes by; the current size is kept */
static void test_all_idle(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 1, 10, 10, 20) };
	struct ft_model_opts o = { .draws = 4, .seed = FT_MODEL_SEED };
	struct ft_model *m = ft_model_new();
	struct ft_decision d;
	int i;

	for (i = 0; i < 6; i++) {
		CHECK(!ft_model_add_run(m, h, 2), "run");
		ft_model_run_measured(m, h, 2, 32, 0);
	}
	CHECK(!ft_decide(m, &o, 32, 1, 0, &d), "decide");
	EQ(d.nactive, 0);
	EQ(d.sizes[d.rec], 32);
	EQ(d.settled, 0);
	EQ(d.fit[FT_LOOP_CLOSED].nruns, 0);
	ft_decision_free(&d);
	ft_model_free(m);
}

/*
 * run_draws: 30 small runs get 256 draws in all (9 a run) by default and
 * 32 a run when asked, the million simulated holds allowing it.
 */
static void test_run_draws(void)
{
	struct ft_model_opts o = { .seed = FT_MODEL_SEED };
	struct ft_model *m = loop_model(30, 30.0 * 8 / 38);
	struct ft_model_row row;

	CHECK(!ft_model_predict(m, &o, 2, &row), "predict");
	EQ(row.draws, (256 + 29) / 30);
	o.run_draws = 32;
	CHECK(!ft_model_predict(m, &o, 2, &row), "predict");
	EQ(row.draws, 32);
	ft_model_free(m);
}

/*
 * Probing stops when the pick stayed settled on one size for
 * FT_SETTLED_LOOKS looks in a row: an unsettled look or a settled one on
 * another size starts the count again.
 */
static void test_settled_looks(void)
{
	uint32_t sizes[] = { 128, 256, 512 };
	struct ft_decision d = { .sizes = sizes, .nsizes = 3 };
	struct ft_looks l = { 0 };
	/* each look: settled?, pick (index), may probing stop */
	static const int look[][3] = {
		{ 0, 2, 0 }, { 1, 1, 0 }, { 1, 1, 0 }, { 0, 1, 0 },
		{ 1, 1, 0 }, { 1, 2, 0 }, { 1, 2, 0 }, { 1, 2, 1 }, { 1, 2, 1 },
	};
	size_t i;

	CHECK(FT_SETTLED_LOOKS == 3, "the looks below assume 3");
	for (i = 0; i < sizeof(look) / sizeof(look[0]); i++) {
		d.settled = look[i][0];
		d.rec = look[i][1];
		CHECK(ft_settled_look(&l, &d) == look[i][2],
		      "look %zu: settled %d on %u", i + 1, d.settled, sizes[d.rec]);
	}
}

static void test_t95(void)
{
	NEAR(ft_t95(1), 6.314, 0);
	NEAR(ft_t95(5), 2.015, 0);
	NEAR(ft_t95(59), 1.684, 0);
	NEAR(ft_t95(1000), 1.658, 0);
	CHECK(isinf(ft_t95(0.5)), "df < 1");
}

/*
 * A current size above --max-size (128 with -m 4) stays a candidate:
 * when nothing up to 4 meets the target, the current size is kept, never
 * exchanged for a smaller, worse one.
 */
static void test_current_above_max(void)
{
	struct ft_hold h[16];
	struct ft_model_opts o = { .draws = 8, .seed = FT_MODEL_SEED };
	struct ft_model *m = ft_model_new();
	struct ft_decision d;
	int i;

	for (i = 0; i < 16; i++)	/* 16 tasks at once: 4 buckets collide */
		h[i] = H(i + 1, i + 1, 0, 0, 100);
	CHECK(!ft_model_add_run(m, h, 16), "run");
	CHECK(!ft_decide(m, &o, 128, 1, 4, &d), "decide");
	EQ(d.sizes[d.nsizes - 1], 128);
	EQ(d.sizes[d.rec], 128);
	ft_decision_free(&d);
	ft_model_free(m);
}

/* --threads past any machine: refused, not an int overflow */
static void test_threads_overflow(void)
{
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 2, 0, 0, 10) };
	struct ft_model_opts o = { .threads = 1 << 30, .draws = 1,
				   .seed = FT_MODEL_SEED };
	struct ft_model *m = ft_model_new();
	struct ft_model_row r;

	CHECK(!ft_model_add_run(m, h, 2), "run");
	CHECK(ft_model_predict(m, &o, 8, &r) < 0, "2^29 copies refused");
	ft_model_free(m);
}

/* holds across 2^63 ns: the concurrency still sees them overlap */
static void test_huge_times(void)
{
	uint64_t t = 1ULL << 63;
	struct ft_hold h[] = {
		H(1, 1, t - 20, t - 20, t + 10), H(2, 2, t - 10, t - 10, t + 20),
	};
	struct ft_model *m = ft_model_new();

	CHECK(!ft_model_add_run(m, h, 2), "run");
	EQ(ft_model_concurrency(m), 2);
	ft_model_free(m);
}

/*
 * a = 10 12 14, b = 20 22 24: means 12 and 22, variances 4 and 4;
 * se = sqrt(4/3 + 4/3) = 1.63299; Welch df = (8/3)^2 /
 * (2 * (4/3)^2 / 2) = 4; t(0.975, 4) = 2.776: 10 +- 4.5332.
 */
static void test_ci(void)
{
	double a[] = { 10, 12, 14 }, b[] = { 20, 22, 24 }, c[] = { 1, 1 };
	double d[] = { 5, 7, 9, 11, 13 };
	struct ft_ci ci;

	CHECK(!ft_ci95_diff(a, 3, b, 3, &ci), "ci");
	NEAR(ci.diff, 10, 1e-9);
	NEAR(ci.df, 4, 1e-9);
	NEAR(ci.lo, 10 - 2.776 * sqrt(8.0 / 3), 1e-9);
	NEAR(ci.hi, 10 + 2.776 * sqrt(8.0 / 3), 1e-9);
	/* includes zero: a = 10 12 14 against 5 7 9 11 13 (mean 9, var 10):
	 * se = sqrt(4/3 + 2) = 1.8257, df = (10/3)^2 /
	 * ((4/3)^2 / 2 + 4 / 4) = 5.882 -> 5: t 2.571; -3 +- 4.694 */
	CHECK(!ft_ci95_diff(a, 3, d, 5, &ci), "ci");
	NEAR(ci.diff, -3, 1e-9);
	NEAR(ci.df, (100.0 / 9) / (16.0 / 18 + 1), 1e-9);
	NEAR(ci.hi, -3 + 2.571 * sqrt(10.0 / 3), 1e-9);
	CHECK(ci.lo < 0 && ci.hi > 0, "includes zero");
	/* no spread: a point */
	CHECK(!ft_ci95_diff(c, 2, c, 2, &ci), "ci");
	NEAR(ci.lo, 0, 0);
	NEAR(ci.hi, 0, 0);
	CHECK(ft_ci95_diff(a, 1, b, 3, &ci) < 0, "one sample: no interval");
	NEAR(ft_t975(1), 12.706, 0);
	NEAR(ft_t975(30.9), 2.042, 0);
	NEAR(ft_t975(1000), 1.980, 0);
	CHECK(isinf(ft_t975(0.5)), "df < 1");
}

/* a BTF blob written by hand: INT "int" (4), STRUCT "mutex" of 48 bytes */
static void test_btf(void)
{
	static const char strs[] = "\0int\0mutex\0mutex_waiter";
	uint32_t types[] = {
		1, 1u << 24, 4, 32,		/* INT "int", 4 bytes, 32 bits */
		11, (4u << 24) | 1, 40,		/* STRUCT "mutex_waiter", 1 member */
		1, 1, 0,			/*  member "int" type 1 offset 0 */
		5, 4u << 24, 48,		/* STRUCT "mutex", 48 bytes */
	};
	struct {
		uint16_t magic;
		uint8_t version, flags;
		uint32_t hdr_len, type_off, type_len, str_off, str_len;
	} hd = { 0xeb9f, 1, 0, 24, 0, sizeof(types), sizeof(types),
		 sizeof(strs) };
	char path[] = "/tmp/faulttune-btf-XXXXXX", how[256];
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	CHECK(write(fd, &hd, 24) == 24 &&
	      write(fd, types, sizeof(types)) == sizeof(types) &&
	      write(fd, strs, sizeof(strs)) == sizeof(strs), "write");
	close(fd);
	EQ(ft_btf_struct_size(path, "mutex"), 48);
	EQ(ft_btf_struct_size(path, "mutex_waiter"), 40);
	EQ(ft_btf_struct_size(path, "mute"), -1);
	EQ(ft_mutex_bytes(path, how, sizeof(how)), 48);
	CHECK(strstr(how, path) != NULL, "how names the BTF file: %s", how);
	unlink(path);
	EQ(ft_btf_struct_size(path, "mutex"), -1);
}

/*
 * The burden of proof, on synthetic runs whose answer is known: each run
 * is loop_run (three tasks, keys 1-3), declared measured at the current
 * size with a collision wait the test chooses, around a mean and spread
 * the model does not know.  Whatever the model predicts, no decision
 * keeps a current size whose measured collision wait is over the target
 * beyond its error (one-sided 95%), and none leaves one measured under
 * the target beyond its error.  Both kinds must occur, or the test says
 * nothing.
 */
static int size_idx_in(const struct ft_decision *d, uint32_t size)
{
	int k;

	for (k = 0; k < d->nsizes && d->sizes[k] != size; k++)
		;
	return k < d->nsizes ? k : 0;
}

static void test_burden_of_proof(void)
{
	static const double means[] = { 0, 0.5, 3, 10, 20, 33 };
	static const double targets[] = { 1, 5, 15 };
	static const uint32_t currents[] = { 1, 2, 4, 32 };
	static const int nruns[] = { 1, 3, 10 };
	struct ft_model_opts o = { .draws = 32, .seed = FT_MODEL_SEED };
	int over = 0, under = 0;
	size_t a, b, c, e;

	for (a = 0; a < sizeof(means) / sizeof(*means); a++)
	for (b = 0; b < sizeof(targets) / sizeof(*targets); b++)
	for (c = 0; c < sizeof(currents) / sizeof(*currents); c++)
	for (e = 0; e < sizeof(nruns) / sizeof(*nruns); e++) {
		struct ft_model *m = ft_model_new();
		struct ft_decision d;
		struct ft_check chk;
		double t, sum = 0;
		int i, n = nruns[e];

		for (i = 0; i < n; i++) {
			/* +-20% around the mean; fault time 30 ns a run */
			double pct = means[a] * (1 + 0.2 * (i % 3 - 1));

			sum += pct;
			CHECK(!ft_model_add_run(m, loop_run, 3), "run");
			ft_model_run_measured(m, loop_run, 3, currents[c],
					      30 * pct / 100);
		}
		CHECK(!ft_decide(m, &o, currents[c], targets[b], 0, &d),
		      "decide");
		ft_decision_check(&d, currents[c], &chk);
		CHECK(chk.known && fabs(chk.meas_pct - sum / n) < 1e-6,
		      "measured at %u: %.4f%%, fed %.4f%%", currents[c],
		      chk.meas_pct, sum / n);
		t = chk.runs > 1 ? ft_t95(chk.runs - 1) : 1.645;
		if (chk.meas_pct - t * chk.meas_se > targets[b]) {
			over++;
			CHECK(d.sizes[d.rec] != currents[c], "kept %u measured "
			      "%.2f%% +- %.2f over the %g%% target (%d runs)",
			      currents[c], chk.meas_pct, chk.meas_se,
			      targets[b], n);
		} else if (chk.meas_pct + t * chk.meas_se < targets[b]) {
			under++;
			CHECK(d.sizes[d.rec] == currents[c], "left %u measured "
			      "%.2f%% +- %.2f under the %g%% target for %u "
			      "(%d runs)", currents[c], chk.meas_pct,
			      chk.meas_se, targets[b], d.sizes[d.rec], n);
		}
		ft_decision_free(&d);
		ft_model_free(m);
	}
	CHECK(over >= 20 && under >= 20, "cases over the target: %d, under: "
	      "%d", over, under);
}

/*
 * True sharing, no collision (issue 32): eight processes fault the pages
 * of one mapping in lockstep, each page first by one and then by the
 * other seven behind it (the same key: true sharing).  In some rounds of
 * a run four pages are faulted at once, which a small table could
 * collide: in all 16 rounds of the first run, in 4, 2, 1 and 1 of the
 * others.  Measured at 32 in five runs: no collision wait.  The
 * prediction at 32 (0.77-1.03% +- 0.92-1.20% over the seeds; the issue's
 * was 1.51% +- 0.95%) does not show 32 missing a 1% target: kept, in
 * every one of ten decisions on five runs each (each with its own hash
 * seed).
 */
static void test_sharing_kept(void)
{
	static const int overlapped[5] = { 16, 4, 2, 1, 1 };
	struct ft_hold h[5][8 * 16];
	struct ft_model_opts o = { .draws = 32 };
	int i, j, r, run, kept = 0;

	for (run = 0; run < 5; run++)
		for (r = 0; r < 16; r++)
			for (i = 0; i < 8; i++) {
				int two = r < overlapped[run];
				uint64_t t0 = r * 100, key = 4 * r + (two ? i & 3 : 0);
				/* two pages: two holders at once, else one after another */
				uint64_t acq = t0 + 10 * (two ? i / 4 : i);

				h[run][r * 8 + i] = H(i + 1, key, t0 + i, acq,
						      acq + 10);
			}
	for (j = 0; j < 10; j++) {
		struct ft_model *m = ft_model_new();
		struct ft_decision d;

		o.seed = FT_MODEL_SEED + j;
		for (run = 0; run < 5; run++) {
			CHECK(!ft_model_add_run(m, h[run], 8 * 16), "run");
			ft_model_run_measured(m, h[run], 8 * 16, 32, 0);
		}
		CHECK(!ft_decide(m, &o, 32, 1, 0, &d), "decide");
		kept += d.sizes[d.rec] == 32;
		CHECK(d.nactive == 5 && d.rows[0][0].coll_pct > 1,
		      "seed %d: %d active runs, %.2f%% at one mutex", j,
		      d.nactive, d.rows[0][0].coll_pct);
		CHECK(d.cur_verdict == FT_CUR_MEETS ||
		      d.cur_verdict == FT_CUR_UNDECIDED, "seed %d: verdict %d "
		      "(lower bound %.2f%% at 32)", j, d.cur_verdict,
		      d.lo[size_idx_in(&d, 32)]);
		ft_decision_free(&d);
		ft_model_free(m);
	}
	EQ(kept, 10);
}

/*
 * The model check's replay: runs that reuse their files keep one hash
 * layout.  Two holds of distinct keys, asked at 0 and 4 for 10 ns, at
 * 4 mutexes: their recorded hashes 0x0 and 0x4 share bucket 0, so the
 * second waited 6 (acquired at 10), in every one of 4 runs: 6 of 10 +
 * 16 = 26 ns of fault time, 23.08%.  The model's mean over layouts
 * expects the collision one time in 4 (6.98%), and does not fit; the
 * replay puts the second hold behind the first again, 6 / 26: it fits.
 * With hashes 0x0 and 0x1 (other buckets) the same measurement is not
 * the replay's 0%: a measurement its own layout cannot explain.
 */
static void test_replayed_layout(void)
{
	struct ft_model_opts o = { .draws = 64, .seed = FT_MODEL_SEED };
	struct ft_hold h[] = { H(1, 1, 0, 0, 10), H(2, 2, 4, 10, 20) };
	static const uint32_t second[] = { 0x4, 0x1 };
	int c, i;

	for (c = 0; c < 2; c++) {
		struct ft_model *m = ft_model_new();
		struct ft_decision d;
		struct ft_check k;

		h[0].hash = 0x0;
		h[1].hash = second[c];
		for (i = 0; i < 4; i++) {
			CHECK(!ft_model_add_run(m, h, 2), "run %d", i);
			ft_model_run_measured(m, h, 2, 4, 6);
		}
		CHECK(!ft_decide(m, &o, 4, 50, 8, &d), "decide");
		ft_decision_check(&d, 4, &k);
		CHECK(k.known && k.runs == 4, "check at 4: %d runs", k.runs);
		NEAR(k.meas_pct, 100.0 * 6 / 26, 1e-9);
		EQ(k.fits, 0);
		EQ(k.replay_known, 1);
		NEAR(k.replay_pct, c ? 0 : 100.0 * 6 / 26, 1e-9);
		EQ(k.replay_fits, !c);
		ft_decision_free(&d);
		ft_model_free(m);
	}
}

int main(void)
{
	test_queue_one_mutex();
	test_stream_feedback();
	test_expected_one_over_n();
	test_true_sharing();
	test_key_fold_collision();
	test_threads();
	test_lanes();
	test_concurrency();
	test_truncate_after_join();
	test_key_order();
	test_runs_apart();
	test_hash_cache();
	test_se();
	test_deterministic();
	test_workers();
	test_open_loop();
	test_handover();
	test_fit();
	test_fit_threads();
	test_replayed_layout();
	test_settled();
	test_not_settled();
	test_all_idle();
	test_settled_looks();
	test_run_draws();
	test_t95();
	test_current_above_max();
	test_burden_of_proof();
	test_sharing_kept();
	test_threads_overflow();
	test_huge_times();
	test_ci();
	test_btf();
	return check_done("model");
}
