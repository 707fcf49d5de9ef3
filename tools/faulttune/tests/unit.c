// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune unit tests: event streams built here with known answers.
 * No root and no tracefs needed.  Ends with "N passed, N failed".
 */
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include "faulttune.h"
#include "knob.h"
#include "builtin.h"
#include "out.h"
#include "bench.h"

/* the reader through libtracecmd, as FAULTTUNE_LIBTRACECMD=1 asks a command */
static const struct ft_read_opts lib = { .libtracecmd = 1 };
#include "synth.h"
#include "check.h"


#define EQ(a, b) CHECK((unsigned long long)(a) == (unsigned long long)(b), \
		       "%s = %llu, want %llu", #a, (unsigned long long)(a), \
		       (unsigned long long)(b))

/* within the histograms' stated error, 1 / (2 * FT_HIST_SUB) */
#define NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) <=		\
			 (double)(b) / (2.0 * FT_HIST_SUB),		\
			 "%s = %llu, want %llu within %.2f%%", #a,	\
			 (unsigned long long)(a), (unsigned long long)(b), \
			 100.0 / (2 * FT_HIST_SUB))

/* ---- stream builders ---- */

static void hev(struct ft_analysis *a, int kind, int pid, uint64_t ts,
		uint64_t mapping, uint64_t index, uint32_t hash, uint32_t nb,
		int contended, uint64_t wait, uint64_t hold, uint32_t op)
{
	struct ft_event ev = {
		.ts = ts, .pid = pid, .lock = FT_LK_HUGETLB, .kind = kind,
		.op = op, .mapping = mapping, .index = index, .hash = hash,
		.bucket = hash & (nb - 1), .nbuckets = nb,
		.contended = contended, .wait_ns = wait, .hold_ns = hold,
	};
	ft_analysis_feed(a, &ev);
}

/* a complete start/acquire/release sequence */
static void hold(struct ft_analysis *a, int pid, uint64_t req, uint64_t acq,
		 uint64_t rel, uint64_t m, uint64_t i, uint32_t hash,
		 uint32_t nb, uint32_t op)
{
	hev(a, FT_EV_START, pid, req, m, i, hash, nb, 0, 0, 0, op);
	hev(a, FT_EV_ACQUIRE, pid, acq, m, i, hash, nb, acq > req, acq - req, 0, op);
	hev(a, FT_EV_RELEASE, pid, rel, m, i, hash, nb, 0, 0, rel - acq, op);
}

/*
 * The same hold as hugetlb_fault_mutex_hold reports it: one event at the
 * release, with the wait and the hold.
 */
static void summary(struct ft_analysis *a, int pid, uint64_t req, uint64_t acq,
		    uint64_t rel, uint64_t m, uint64_t i, uint32_t hash,
		    uint32_t nb, uint32_t op)
{
	hev(a, FT_EV_HOLD, pid, rel, m, i, hash, nb, acq > req, acq - req,
	    rel - acq, op);
}

/* ---- tests ---- */

static void test_percentiles(void)
{
	struct ft_vec v = { 0 };
	int i;

	EQ(ft_percentile(&v, 50), 0);
	for (i = 100; i >= 1; i--)
		ft_vec_push(&v, i);
	EQ(ft_percentile(&v, 50), 50);
	EQ(ft_percentile(&v, 90), 90);
	EQ(ft_percentile(&v, 99), 99);
	EQ(ft_percentile(&v, 100), 100);
	EQ(ft_percentile(&v, 0), 1);
	ft_vec_free(&v);
	ft_vec_push(&v, 7);
	EQ(ft_percentile(&v, 50), 7);
	EQ(ft_percentile(&v, 99), 7);
	ft_vec_free(&v);
	for (i = 1; i <= 4; i++)
		ft_vec_push(&v, i * 10);
	EQ(ft_percentile(&v, 50), 20);	/* rank ceil(2.0) = 2 */
	EQ(ft_percentile(&v, 90), 40);	/* rank ceil(3.6) = 4 */
	EQ(ft_percentile(&v, 25), 10);
	EQ(ft_percentile(&v, 26), 20);
	ft_vec_free(&v);
}

/* the radix sort behind ft_percentile against qsort on big vectors */
static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_percentiles_big(void)
{
	struct ft_vec v = { 0 };
	uint64_t *ref, x = 88172645463325252ULL;
	size_t i, n = 100000, bad = 0;
	int shift;

	for (shift = 0; shift < 3; shift++) {
		ref = malloc(n * sizeof(*ref));
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* all 64 bits, 40 bits (ns), 40 bits with equal low bits */
			ref[i] = shift == 0 ? x : shift == 1 ? x >> 24 :
				 (x >> 24) << 16 | 0x1234;
			ft_vec_push(&v, ref[i]);
		}
		qsort(ref, n, sizeof(*ref), cmp64);
		EQ(ft_percentile(&v, 50), ref[n / 2 - 1]);
		for (i = 0; i < n; i++)
			bad += v.v[i] != ref[i];
		EQ(bad, 0);
		EQ(ft_percentile(&v, 100), ref[n - 1]);
		ft_vec_push(&v, 0);	/* unsorted again */
		EQ(ft_percentile(&v, 0), 0);
		ft_vec_free(&v);
		free(ref);
	}
}

/*
 * The histograms against exact nearest-rank percentiles of the same
 * values: within the stated relative error, min and max exact, and the
 * memory independent of the number of values.
 */
static void test_hist(void)
{
	static const double qs[] = { 1, 10, 25, 50, 75, 90, 99, 99.9 };
	struct ft_hist h = { 0 };
	struct ft_vec v = { 0 };
	uint64_t x = 88172645463325252ULL, worst_ppm = 0;
	size_t i, j, bytes_small = 0;
	int bad = 0;

	EQ(ft_hist_percentile(&h, 50), 0);
	for (i = 0; i < 1000000; i++) {
		uint64_t val;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 1 ns .. 2^40 ns, log-uniform: every octave gets values */
		val = (x >> 24) >> ((x & 63) % 40);
		ft_hist_add(&h, val);
		ft_vec_push(&v, val);
		if (i == 9999)
			bytes_small = ft_hist_bytes(&h);
	}
	for (j = 0; j < sizeof(qs) / sizeof(qs[0]); j++) {
		uint64_t want = ft_percentile(&v, qs[j]);
		uint64_t got = ft_hist_percentile(&h, qs[j]);
		uint64_t d = got > want ? got - want : want - got;
		uint64_t ppm = want ? d * 1000000 / want : d * 1000000;

		if (ppm > worst_ppm)
			worst_ppm = ppm;
		bad += d * 2 * FT_HIST_SUB > want;
	}
	printf("# histogram: worst percentile error %.3f%% (stated bound %.2f%%), "
	       "%zu bytes for 1M values\n", worst_ppm / 1e4,
	       100.0 / (2 * FT_HIST_SUB), ft_hist_bytes(&h));
	EQ(bad, 0);
	EQ(ft_hist_percentile(&h, 0), ft_percentile(&v, 0));
	EQ(ft_hist_percentile(&h, 100), ft_percentile(&v, 100));
	EQ(h.n, 1000000);
	/* 100x the values, the same memory: it depends on the range only */
	CHECK(ft_hist_bytes(&h) == bytes_small, "memory %zu after 1M values, "
	      "%zu after 10k", ft_hist_bytes(&h), bytes_small);
	CHECK(ft_hist_bytes(&h) < 64 * 1024, "memory %zu", ft_hist_bytes(&h));
	ft_hist_free(&h);
	ft_vec_free(&v);
	/* small values are exact */
	for (i = 1; i <= 100; i++)
		ft_hist_add(&h, i);
	EQ(ft_hist_percentile(&h, 50), 50);
	EQ(ft_hist_percentile(&h, 90), 90);
	ft_hist_free(&h);
}

/* resize cost: acquisitions whose wait overlaps a resize */
static void test_resize_cost(void)
{
	struct ft_analysis a;
	struct ft_resize_cost rc;
	struct ft_event ev = { .lock = FT_LK_HUGETLB, .kind = FT_EV_RESIZE,
			       .old_nbuckets = 8, .new_nbuckets = 16 };

	ft_analysis_init(&a);
	hold(&a, 1, 1000, 1000, 2000, 1, 1, 11, 8, 0);	/* before */
	hold(&a, 2, 2500, 3500, 4500, 1, 2, 12, 8, 0);	/* waits over it */
	ev.ts = 3000;
	ev.duration_ns = 200;				/* [2800, 3000] */
	ft_analysis_feed(&a, &ev);
	hold(&a, 3, 5000, 5100, 6000, 1, 3, 13, 16, 0);	/* after */
	/* a write of the current size replaced nothing: not a resize */
	ev.old_nbuckets = ev.new_nbuckets = 16;
	ev.ts = 7000;
	ev.duration_ns = 5;
	ft_analysis_feed(&a, &ev);
	ft_analysis_finish(&a);
	ft_resize_cost(&a, &rc);
	EQ(rc.resizes, 1);
	EQ(rc.dur_max, 200);
	EQ(rc.overlapping, 1);
	EQ(rc.others, 2);
	EQ(rc.stall_max, 1000);
	NEAR(rc.fault_median, 1000);	/* 1000, 2000, 1000 */
	EQ(rc.other_wait_max, 100);
	ft_analysis_free(&a);
}

/*
 * report's table size is the table's at the end of the recording, as the
 * advice's current size is: after a shrink, not the largest size seen
 */
static void test_report_table_size(void)
{
	struct ft_analysis a;
	struct ft_event ev = { .lock = FT_LK_HUGETLB, .kind = FT_EV_RESIZE,
			       .old_nbuckets = 16, .new_nbuckets = 8,
			       .ts = 3000, .duration_ns = 100 };
	struct ft_report_opts o = { .file = "x.dat", .top = 10,
				     .fmt = FT_FMT_JSON };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	ft_analysis_init(&a);
	hold(&a, 1, 1000, 1000, 2000, 1, 1, 11, 16, FT_HOP_FAULT);
	ft_analysis_feed(&a, &ev);
	hold(&a, 2, 4000, 4000, 5000, 1, 2, 12, 8, FT_HOP_FAULT);
	ft_analysis_finish(&a);
	f = open_memstream(&out, &len);
	EQ(ft_report_print(f, &a, &o), 0);
	fclose(f);
	CHECK(out && strstr(out, "\"table_size\":8,"),
	      "report after a shrink to 8: table_size 8, not 16 (%.80s)",
	      out && strstr(out, "\"table_size\"") ?
	      strstr(out, "\"table_size\"") : "none");
	free(out);
	ft_analysis_free(&a);
}

static void test_pairing(void)
{
	struct ft_analysis a;

	ft_analysis_init(&a);
	/* pid 1: complete */
	hold(&a, 1, 100, 100, 200, 0x1000, 1, 0x11, 16, FT_HOP_FAULT);
	/* pid 2: uncontended acquire without start (fast path), then release */
	hev(&a, FT_EV_ACQUIRE, 2, 300, 0x1000, 2, 0x22, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_RELEASE, 2, 350, 0x1000, 2, 0x22, 16, 0, 0, 50, 0);
	/* pid 3: release without acquire */
	hev(&a, FT_EV_RELEASE, 3, 400, 0x1000, 3, 0x33, 16, 0, 0, 5, 0);
	/* pid 4: start, start again (lost events), then left open */
	hev(&a, FT_EV_START, 4, 500, 0x1000, 4, 0x44, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_START, 4, 600, 0x1000, 5, 0x55, 16, 0, 0, 0, 0);
	/* pid 5: acquired and never released */
	hev(&a, FT_EV_START, 5, 700, 0x1000, 6, 0x66, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_ACQUIRE, 5, 710, 0x1000, 6, 0x66, 16, 0, 0, 0, 0);
	/* pid 6: released another key than acquired */
	hold(&a, 6, 800, 800, 900, 0x1000, 7, 0x77, 16, 0);
	hev(&a, FT_EV_START, 6, 1000, 0x1000, 8, 0x88, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_ACQUIRE, 6, 1000, 0x1000, 8, 0x88, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_RELEASE, 6, 1100, 0x1000, 9, 0x99, 16, 0, 0, 0, 0);
	/* pid 7: contended acquire without start: unpaired */
	hev(&a, FT_EV_ACQUIRE, 7, 1200, 0x1000, 10, 0xaa, 16, 1, 30, 0, 0);
	hev(&a, FT_EV_RELEASE, 7, 1300, 0x1000, 10, 0xaa, 16, 0, 0, 100, 0);
	ft_analysis_finish(&a);

	EQ(a.nev[FT_LK_HUGETLB], 3 + 2 + 1 + 2 + 2 + 3 + 3 + 2);
	EQ(a.unpaired_start, 1);
	EQ(a.acquire_nostart, 1);
	EQ(a.unpaired_release, 1);
	EQ(a.key_mismatch, 1);
	EQ(a.open_at_end, 2);	/* pid 4 and pid 5 */
	EQ(a.unpaired_acquire, 1);	/* pid 7 */
	EQ(a.nholds, 4);	/* pid 1, pid 2 (no start), pid 6 first, pid 7 */
	EQ(a.hall.acq, 6);
	EQ(a.hall.releases, 6);
	EQ(a.hall.hold.n, 5);	/* hold_ns 0 is not a sample */
	EQ(a.hop[FT_HOP_FAULT].acq, 6);
	EQ(a.hash_mismatch, 0);
	EQ(a.max_nbuckets, 16);
	ft_analysis_free(&a);
}

static void test_classification(void)
{
	struct ft_analysis a;
	struct ft_bucket_stats *b;
	void **slot;

	ft_analysis_init(&a);
	/* bucket 3 of 16: key A holds, then B waits for it: collision */
	hold(&a, 1, 0, 0, 100, 0xA000, 1, 0x13, 16, FT_HOP_FAULT);
	hold(&a, 2, 50, 100, 200, 0xB000, 2, 0x23, 16, FT_HOP_FAULT);
	/* C, same key as B, waits for B: true sharing */
	hold(&a, 3, 150, 200, 260, 0xB000, 2, 0x23, 16, FT_HOP_WP);
	/* bucket 5, contended, holder never seen: unknown */
	hev(&a, FT_EV_START, 4, 300, 0xC000, 3, 0x35, 16, 0, 0, 0, 0);
	hev(&a, FT_EV_ACQUIRE, 4, 340, 0xC000, 3, 0x35, 16, 1, 40, 0, 0);
	hev(&a, FT_EV_RELEASE, 4, 400, 0xC000, 3, 0x35, 16, 0, 0, 60, 0);
	ft_analysis_finish(&a);

	EQ(a.hall.acq, 4);
	EQ(a.hall.contended, 3);
	EQ(a.hall.collisions, 1);
	EQ(a.hall.coll_wait, 50);
	EQ(a.hall.sharing, 1);
	EQ(a.hall.share_wait, 50);
	EQ(a.hall.unknown, 1);
	EQ(a.hall.wait_total, 140);
	EQ(a.hall.wait_max, 50);
	EQ(a.hop[FT_HOP_FAULT].acq, 3);
	EQ(a.hop[FT_HOP_WP].sharing, 1);
	slot = ft_map_get(&a.buckets, (16ULL << 32) | 3, 0);
	CHECK(slot && *slot, "bucket 3/16 present");
	if (slot && *slot) {
		b = *slot;
		EQ(b->st.acq, 3);
		EQ(b->st.collisions, 1);
		EQ(b->st.sharing, 1);
		EQ(ft_hist_percentile(&b->st.hold, 50), 100);
		EQ(ft_hist_percentile(&b->st.hold, 99), 100);
	}
	EQ(a.buckets.n, 2);
	ft_analysis_free(&a);
}

/*
 * The *_hold summaries give what the trio gives: the classification, the
 * histograms, the holds of the model and the what-if, for the streams of
 * test_classification() and test_whatif() (summaries in release order).
 */
static void test_summary(void)
{
	struct ft_analysis a, t;
	struct ft_whatif_row *w, *wt;
	size_t k;
	int n, nt, i;

	ft_analysis_init(&a);
	summary(&a, 1, 0, 0, 100, 0xA000, 1, 0x13, 16, FT_HOP_FAULT);
	summary(&a, 2, 50, 100, 200, 0xB000, 2, 0x23, 16, FT_HOP_FAULT);
	summary(&a, 3, 150, 200, 260, 0xB000, 2, 0x23, 16, FT_HOP_WP);
	hev(&a, FT_EV_HOLD, 4, 400, 0xC000, 3, 0x35, 16, 1, 40, 60, 0);
	ft_analysis_finish(&a);
	EQ(a.summaries, 4);
	EQ(a.summaries_skipped, 0);
	EQ(a.hall.acq, 4);
	EQ(a.hall.contended, 3);
	EQ(a.hall.collisions, 1);
	EQ(a.hall.coll_wait, 50);
	EQ(a.hall.sharing, 1);
	EQ(a.hall.share_wait, 50);
	EQ(a.hall.unknown, 1);
	EQ(a.hall.wait_total, 140);
	EQ(a.hall.releases, 4);
	EQ(ft_hist_percentile(&a.hall.hold, 100), 100);
	EQ(a.hop[FT_HOP_WP].sharing, 1);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
	EQ(a.nholds, 4);
	if (a.nholds == 4) {
		/* request, acquire and release times follow from the event */
		EQ(a.holds[3].req_ts, 300);
		EQ(a.holds[3].acq_ts, 340);
		EQ(a.holds[3].rel_ts, 400);
		EQ(a.holds[1].req_ts, 50);
		EQ(a.holds[1].acq_ts, 100);
	}
	ft_analysis_free(&a);

	/* the recorded time starts at the first request, not its summary */
	ft_analysis_init(&a);
	summary(&a, 1, 700, 800, 1000, 0xA, 1, 0x1, 4, 0);
	ft_analysis_finish(&a);
	EQ(a.first_ts, 700);
	EQ(a.last_ts, 1000);
	ft_analysis_free(&a);

	/* the what-if of test_whatif(), from summaries and from the trio */
	ft_analysis_init(&a);
	ft_analysis_init(&t);
	summary(&a, 1, 0, 0, 100, 0x1, 1, 0x0, 2, 0);
	summary(&a, 3, 120, 120, 130, 0x1, 1, 0x0, 2, 0);
	summary(&a, 2, 50, 50, 150, 0x2, 2, 0x1, 2, 0);
	summary(&a, 4, 140, 150, 160, 0x2, 2, 0x1, 2, 0);
	hold(&t, 1, 0, 0, 100, 0x1, 1, 0x0, 2, 0);
	hold(&t, 2, 50, 50, 150, 0x2, 2, 0x1, 2, 0);
	hold(&t, 3, 120, 120, 130, 0x1, 1, 0x0, 2, 0);
	hold(&t, 4, 140, 150, 160, 0x2, 2, 0x1, 2, 0);
	ft_analysis_finish(&a);
	ft_analysis_finish(&t);
	n = ft_whatif(&a, 4, &w);
	nt = ft_whatif(&t, 4, &wt);
	EQ(n, 3);
	EQ(nt, 3);
	for (i = 0; i < n && i < nt; i++) {
		EQ(w[i].collisions, wt[i].collisions);
		EQ(w[i].coll_wait_ns, wt[i].coll_wait_ns);
		EQ(w[i].sharing, wt[i].sharing);
		EQ(w[i].share_wait_ns, wt[i].share_wait_ns);
	}
	if (n == 3) {
		EQ(w[0].collisions, 2);
		EQ(w[0].coll_wait_ns, 80);
	}
	free(w);
	free(wt);
	for (k = 0; k < a.nholds && k < t.nholds; k++) {
		EQ(a.holds[k].req_ts, t.holds[k].req_ts);
		EQ(a.holds[k].rel_ts, t.holds[k].rel_ts);
	}
	ft_analysis_free(&a);
	ft_analysis_free(&t);

	/*
	 * Both forms of one lock (trace-cmd record -e hugetlb): read from the
	 * trio, the summaries counted and skipped; memtype, which has only
	 * summaries here, read from them.
	 */
	ft_analysis_init(&a);
	hev(&a, FT_EV_START, 1, 0, 0xA, 1, 0x1, 4, 0, 0, 0, 0);
	hev(&a, FT_EV_ACQUIRE, 1, 10, 0xA, 1, 0x1, 4, 1, 10, 0, 0);
	hev(&a, FT_EV_RELEASE, 1, 30, 0xA, 1, 0x1, 4, 0, 0, 20, 0);
	hev(&a, FT_EV_HOLD, 1, 31, 0xA, 1, 0x1, 4, 1, 10, 20, 0);
	{
		struct ft_event ev = { .lock = FT_LK_MEMTYPE, .pid = 9,
				       .op = FT_MOP_LOOKUP, .kind = FT_EV_HOLD,
				       .ts = 50, .contended = 1, .wait_ns = 4,
				       .hold_ns = 6 };

		ft_analysis_feed(&a, &ev);
	}
	ft_analysis_finish(&a);
	EQ(a.hall.acq, 1);
	EQ(a.hall.releases, 1);
	EQ(a.nholds, 1);
	EQ(a.summaries, 2);
	EQ(a.summaries_skipped, 1);
	EQ(a.mop[FT_MOP_LOOKUP].acq, 1);
	EQ(a.mop[FT_MOP_LOOKUP].contended, 1);
	EQ(a.mop[FT_MOP_LOOKUP].wait_total, 4);
	EQ(ft_hist_percentile(&a.mop[FT_MOP_LOOKUP].hold, 50), 6);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
	ft_analysis_free(&a);

	/* a summary with an implausible hold is counted, not fed */
	ft_analysis_init(&a);
	hev(&a, FT_EV_HOLD, 1, 100, 0xA, 1, 0x1, 4, 0, 0,
	    FT_IMPLAUSIBLE_NS + 1, 0);
	ft_analysis_finish(&a);
	EQ(a.hall.acq, 0);
	EQ(a.nholds, 0);
	ft_analysis_free(&a);
}

static void test_whatif(void)
{
	struct ft_analysis a;
	struct ft_whatif_row *w;
	int n;

	ft_analysis_init(&a);
	/* K1 hash 0, K2 hash 1: collide only when size == 1 */
	hold(&a, 1, 0, 0, 100, 0x1, 1, 0x0, 2, 0);	/* K1 */
	hold(&a, 2, 50, 50, 150, 0x2, 2, 0x1, 2, 0);	/* K2 */
	hold(&a, 3, 120, 120, 130, 0x1, 1, 0x0, 2, 0);	/* K1 */
	hold(&a, 4, 140, 150, 160, 0x2, 2, 0x1, 2, 0);	/* K2 again */
	ft_analysis_finish(&a);
	EQ(a.nholds, 4);
	n = ft_whatif(&a, 4, &w);
	EQ(n, 3);
	if (n == 3) {
		EQ(w[0].size, 1);
		EQ(w[0].collisions, 2);		/* K2 at 50 (50), K1 at 120 (30) */
		EQ(w[0].coll_wait_ns, 80);
		EQ(w[0].sharing, 1);		/* K2 at 140 behind K2 */
		EQ(w[0].share_wait_ns, 10);
		EQ(w[1].size, 2);
		EQ(w[1].collisions, 0);
		EQ(w[1].sharing, 1);
		EQ(w[2].size, 4);
		EQ(w[2].collisions, 0);
		EQ(w[2].mem_bytes, 4 * FT_MUTEX_BYTES);
	}
	free(w);
	EQ(ft_whatif(&a, 3, &w), -1);
	ft_analysis_free(&a);
}

/* the what-if at the recorded size reproduces the measured collisions */
static void test_whatif_consistent(void)
{
	struct ft_analysis a;
	struct ft_whatif_row *w;
	uint64_t t = 0;
	int i, n;

	ft_analysis_init(&a);
	uint32_t prev = ~0u;

	for (i = 0; i < 200; i++) {
		uint64_t m = 0xffff888000000000ULL, idx = (i * 7) % 37;
		uint32_t h = ft_fault_hash(m, idx);

		/*
		 * serialised holds; one waits (requested 5ns before the
		 * previous release) only if the previous hold was in its bucket
		 */
		t += 20;
		hold(&a, 100 + i, (h & 7) == prev ? t - 5 : t, t, t + 20, m,
		     idx, h, 8, 0);
		prev = h & 7;
	}
	ft_analysis_finish(&a);
	n = ft_whatif(&a, 8, &w);
	EQ(n, 4);
	CHECK(a.hall.contended > 0, "some contention in the stream");
	if (n == 4) {
		EQ(w[3].collisions, a.hall.collisions);
		EQ(w[3].sharing, a.hall.sharing);
	}
	EQ(a.hash_mismatch, 0);
	free(w);
	ft_analysis_free(&a);
}

/*
 * The detectors fire: a bucket that is not hash & (nbuckets - 1), a hash
 * that is not jhash2(mapping, index) and lost events are counted exactly
 * and reported (warnings in the text, counts in the JSON); a clean stream
 * of the same keys counts none.  Until issue 42 these counts were only
 * ever asserted at 0.
 */
static void hev_raw(struct ft_analysis *a, int kind, int pid, uint64_t ts,
		    uint64_t m, uint64_t i, uint32_t hash, uint32_t bucket,
		    uint32_t nb)
{
	struct ft_event ev = {
		.ts = ts, .pid = pid, .lock = FT_LK_HUGETLB, .kind = kind,
		.mapping = m, .index = i, .hash = hash, .bucket = bucket,
		.nbuckets = nb, .hold_ns = kind == FT_EV_RELEASE ||
		kind == FT_EV_HOLD ? 10 : 0,
	};
	ft_analysis_feed(a, &ev);
}

static char *report_of(struct ft_analysis *a, enum ft_fmt fmt)
{
	struct ft_report_opts o = { .file = "x.dat", .top = 10, .fmt = fmt };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	EQ(ft_report_print(f, a, &o), 0);
	fclose(f);
	return out;
}

/*
 * One hold, then @n pages lost on CPUs 0, 1, ..., each with its count in
 * @missed (-1: flagged without a count): the totals, and report's warning.
 */
static void test_lost_pages(const long long *missed, int n, uint64_t want_events,
			    uint64_t want_unknown, const char *warning)
{
	const uint64_t m = 0xffff888012340000ULL;
	uint32_t h = ft_fault_hash(m, 1);
	struct ft_analysis a;
	char *txt;

	ft_analysis_init(&a);
	hev_raw(&a, FT_EV_HOLD, 1, 100, m, 1, h, h & 15, 16);
	for (int i = 0; i < n; i++)
		ft_analysis_lost(&a, i, missed[i]);
	ft_analysis_finish(&a);
	EQ(a.lost_events, want_events);
	EQ(a.lost_unknown, want_unknown);
	txt = report_of(&a, FT_FMT_TEXT);
	CHECK(txt && strstr(txt, warning), "text: %s", warning);
	free(txt);
	ft_analysis_free(&a);
}

static void test_detectors(void)
{
	const uint64_t m = 0xffff888012340000ULL;
	struct ft_analysis a;
	char *txt, *js, want[160];
	uint64_t t = 1000;
	uint32_t h;
	int i, pass;

	/* pass 0: the keys with the kernel's hash and bucket; pass 1: planted */
	for (pass = 0; pass < 2; pass++) {
		ft_analysis_init(&a);
		for (i = 0; i < 12; i++, t += 100) {
			uint32_t hash, bucket;

			h = ft_fault_hash(m, i);
			hash = h;
			bucket = h & 15;
			/* holds 3 and 7: the bucket of another hash (3 events each) */
			if (pass && (i == 3 || i == 7))
				bucket = (h + 1) & 15;
			/* holds 4, 5, 6: another hash, its own bucket (1 acquire each) */
			if (pass && i >= 4 && i <= 6) {
				hash = h ^ 0x10000;
				bucket = hash & 15;
			}
			hev_raw(&a, FT_EV_START, 1, t, m, i, hash, bucket, 16);
			hev_raw(&a, FT_EV_ACQUIRE, 1, t + 10, m, i, hash, bucket, 16);
			hev_raw(&a, FT_EV_RELEASE, 1, t + 20, m, i, hash, bucket, 16);
		}
		if (pass) {
			/* lost events: counts of 5 and 3, and a page of unknown count */
			ft_analysis_lost(&a, 0, 5);
			ft_analysis_lost(&a, 1, 3);
			ft_analysis_lost(&a, 1, 0);	/* none lost: nothing */
		}
		ft_analysis_finish(&a);
		EQ(a.hall.acq, 12);
		EQ(a.hash_mismatch, pass ? 6 : 0);
		EQ(a.jhash_mismatch, pass ? 3 : 0);
		EQ(a.lost_events, pass ? 8 : 0);
		EQ(a.lost_unknown, 0);
		txt = report_of(&a, FT_FMT_TEXT);
		js = report_of(&a, FT_FMT_JSON);
		CHECK(txt && !strstr(txt, "WARNING: 9 events whose bucket or hash") ==
		      !pass, "text: %s the mismatch warning", pass ? "has" : "has not");
		CHECK(txt && !strstr(txt, "WARNING: 8 events lost") == !pass,
		      "text: %s the lost-events warning", pass ? "has" : "has not");
		snprintf(want, sizeof(want), "\"lost_events\":%d,\"lost_unknown_pages\":0,",
			 pass ? 8 : 0);
		CHECK(js && strstr(js, want), "JSON has %s", want);
		snprintf(want, sizeof(want), "\"hash_mismatch\":%d,\"jhash_mismatch\":%d,",
			 pass ? 6 : 0, pass ? 3 : 0);
		CHECK(js && strstr(js, want), "JSON has %s", want);
		free(txt);
		free(js);
		ft_analysis_free(&a);
	}

	/* a page of an unknown count beside known ones: "more than" */
	h = ft_fault_hash(m, 1);
	test_lost_pages((const long long[]){ 2, -1, -1 }, 3, 2, 2,
			"WARNING: more than 2 events lost");
	/* only pages of unknown count */
	test_lost_pages((const long long[]){ -1 }, 1, 0, 1,
			"WARNING: an unknown number of events lost");

	/* a summary (*_hold) with a wrong hash or bucket is caught too */
	ft_analysis_init(&a);
	hev_raw(&a, FT_EV_HOLD, 1, 100, m, 1, h ^ 0x10000, (h ^ 0x10000) & 15, 16);
	hev_raw(&a, FT_EV_HOLD, 1, 200, m, 1, h, (h + 1) & 15, 16);
	hev_raw(&a, FT_EV_HOLD, 1, 300, m, 1, h, h & 15, 16);
	ft_analysis_finish(&a);
	EQ(a.hall.acq, 3);
	EQ(a.jhash_mismatch, 1);
	/*
	 * at least one: the summary is fed as start, acquire and release, and
	 * each of the three counts today (3 for one recorded event)
	 */
	CHECK(a.hash_mismatch >= 1, "summary with a wrong bucket: hash_mismatch %llu",
	      (unsigned long long)a.hash_mismatch);
	ft_analysis_free(&a);
}

static void test_contention_fallback(void)
{
	struct ft_analysis a;
	struct ft_event ev = { .lock = FT_LK_CONTENTION };

	ft_analysis_init(&a);
	ev.kind = FT_EV_START; ev.pid = 1; ev.ts = 10; ev.mapping = 0xdead; ev.index = 32;
	ft_analysis_feed(&a, &ev);
	ev.kind = FT_EV_ACQUIRE; ev.ts = 35;
	ft_analysis_feed(&a, &ev);
	ev.kind = FT_EV_ACQUIRE; ev.pid = 2; ev.ts = 40;	/* end without begin */
	ft_analysis_feed(&a, &ev);
	ft_analysis_finish(&a);
	EQ(a.call.contended, 1);
	EQ(a.call.wait_total, 25);
	EQ(a.unpaired_acquire, 1);
	EQ(a.lockaddrs.n, 1);
	{
		/* the columns are honest: no hold times, the flags shown */
		struct ft_report_opts o = { .file = "x.dat", .top = 10,
					     .verbose = 1 };
		char *out = NULL, *row;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		EQ(ft_report_print(f, &a, &o), 0);
		fclose(f);
		row = out ? strstr(out, "\ndead ") : NULL;
		CHECK(row, "lock row in the text");
		if (row) {
			char line[256];

			sscanf(row + 1, "%255[^\n]", line);
			CHECK(strstr(line, " n/a       n/a MUTEX") &&
			      !strstr(line, "0ns "), "fallback row: '%s'", line);
		}
		CHECK(out && strstr(out, " flags\n"), "flags column in the header");
		free(out);
		out = NULL;
		o.fmt = FT_FMT_JSON;
		f = open_memstream(&out, &len);
		EQ(ft_report_print(f, &a, &o), 0);
		fclose(f);
		CHECK(out && strstr(out, "{\"name\":\"0xdead\",\"flags\":\"MUTEX\","
				    "\"contended\":1,\"wait_total_ns\":25,"),
		      "fallback JSON: flags");
		CHECK(out && strstr(out, "\"wait_max_ns\":25,\"hold_p50_ns\":null,"
				    "\"hold_p99_ns\":null}"), "fallback JSON: hold null");
		free(out);
	}
	ft_analysis_free(&a);
}

/* a garbage wait or hold is counted per CPU, not summed into nonsense */
static void test_implausible(void)
{
	struct ft_analysis a;
	struct ft_cpu_skips k;

	ft_analysis_init(&a);
	hold(&a, 1, 1000, 1500, 2000, 1, 1, 11, 8, 0);
	hev(&a, FT_EV_START, 2, 3000, 1, 2, 12, 8, 0, 0, 0, 0);
	/* 2^63 ns: wrapped the sums, beside a p50 of 9223 s */
	hev(&a, FT_EV_ACQUIRE, 2, 4000, 1, 2, 12, 8, 1, 1ULL << 63, 0, 0);
	hev(&a, FT_EV_ACQUIRE, 3, 4000, 1, 3, 13, 8, 1, FT_IMPLAUSIBLE_NS, 0, 0);
	ft_analysis_finish(&a);
	EQ(ft_analysis_skipped(&a, &k), 1);
	EQ(k.implausible, 1);
	EQ(a.hall.wait_total, 500 + FT_IMPLAUSIBLE_NS);	/* a day is still a wait */
	EQ(a.hall.wait_max, FT_IMPLAUSIBLE_NS);
	EQ(a.nomem, 0);
	ft_analysis_free(&a);
}

static void test_memtype(void)
{
	struct ft_analysis a;
	struct ft_event ev = { .lock = FT_LK_MEMTYPE, .pid = 9, .op = FT_MOP_LOOKUP };

	ft_analysis_init(&a);
	ev.kind = FT_EV_START; ev.ts = 1;
	ft_analysis_feed(&a, &ev);
	ev.kind = FT_EV_ACQUIRE; ev.ts = 5; ev.contended = 1; ev.wait_ns = 4;
	ft_analysis_feed(&a, &ev);
	ev.kind = FT_EV_RELEASE; ev.ts = 9; ev.hold_ns = 4;
	ft_analysis_feed(&a, &ev);
	ft_analysis_finish(&a);
	EQ(a.mop[FT_MOP_LOOKUP].acq, 1);
	EQ(a.mop[FT_MOP_LOOKUP].contended, 1);
	EQ(a.mop[FT_MOP_LOOKUP].wait_total, 4);
	EQ(ft_hist_percentile(&a.mop[FT_MOP_LOOKUP].hold, 50), 4);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
	{
		/* the report names the lock side each op takes */
		struct ft_report_opts o = { .file = "t", .top = 5, .max_size = 64,
					     .verbose = 1 };
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		EQ(ft_report_print(f, &a, &o), 0);
		o.fmt = FT_FMT_JSON;
		EQ(ft_report_print(f, &a, &o), 0);
		fclose(f);
		CHECK(text && strstr(text, "\nlookup ") &&
		      strstr(strstr(text, "\nlookup "), " 1 ") &&
		      strstr(text, "4ns read\n"),
		      "text: lookup row with 1 acquisition, hold 4ns, side read");
		CHECK(text && strstr(text, "\"name\":\"lookup\",\"acquisitions\":1,") &&
		      strstr(text, "\"hold_p99_ns\":4,\"side\":\"read\"}") &&
		      strstr(text, "\"name\":\"reserve\"") &&
		      strstr(strstr(text, "\"name\":\"reserve\""), "\"side\":\"write\"}"),
		      "json: lookup read, reserve write");
		free(text);
	}
	ft_analysis_free(&a);
}

static void test_jhash(void)
{
	/* known answers from the kernel's tools/include/linux/jhash.h */
	static const struct { uint64_t m, i; uint32_t h; } kv[] = {
		{ 0x0UL, 0UL, 0xbaf9078cU },
		{ 0xffff888012345678UL, 0UL, 0x7efb0ad0U },
		{ 0xffff888012345678UL, 1UL, 0x0b2db465U },
		{ 0xffff8880deadbe00UL, 12345UL, 0x073eaef1U },
		{ 0x1UL, 2UL, 0x2e453c6cU },
	};
	uint32_t k[5] = { 1, 2, 3, 4, 5 };
	size_t i;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		EQ(ft_fault_hash(kv[i].m, kv[i].i), kv[i].h);
	EQ(ft_jhash2(k, 5, 7), 0x5a4f3b1e);
	EQ(ft_jhash2(k, 3, 0), 0xa46158f5);
	EQ(ft_jhash2(k, 1, 0), 0x72a82a9b);
}

static int parse(struct ft_report_opts *o, const char *line)
{
	char buf[256], *argv[16], *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "report %s", line);
	for (tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return ft_report_parse_args(argc, argv, o);
}

static void test_args(void)
{
	struct ft_report_opts o;
	uint64_t v;

	EQ(parse(&o, ""), 0);
	CHECK(!strcmp(o.file, "trace.dat"), "default file");
	EQ(o.fmt, FT_FMT_TEXT);
	EQ(o.top, 10);
	EQ(parse(&o, "--json --top 5 x.dat"), 0);
	EQ(o.fmt, FT_FMT_JSON);
	EQ(o.top, 5);
	CHECK(!strcmp(o.file, "x.dat"), "file argument");
	EQ(parse(&o, "-m 1024 --csv"), 0);
	EQ(o.max_size, 1024);
	EQ(o.fmt, FT_FMT_CSV);
	fprintf(stderr, "(the next errors are expected)\n");
	EQ(parse(&o, "-m 3"), -1);
	EQ(parse(&o, "-m 0"), -1);
	EQ(parse(&o, "--bogus"), -1);
	EQ(parse(&o, "--top"), -1);
	EQ(parse(&o, "--top -1"), -1);
	/* the letters report gave up: refused, not read as another option */
	EQ(parse(&o, "-t 5"), -1);
	EQ(parse(&o, "-T 60"), -1);
	EQ(parse(&o, "-p x.svg"), -1);
	EQ(parse(&o, "a.dat b.dat"), -1);
	EQ(parse(&o, "--help"), 1);

	EQ(ft_parse_size("2M", &v), 0);
	EQ(v, 2 << 20);
	EQ(ft_parse_size("1G", &v), 0);
	EQ(v, 1ULL << 30);
	EQ(ft_parse_size("4096", &v), 0);
	EQ(v, 4096);
	EQ(ft_parse_size("2MB", &v), 0);
	EQ(ft_parse_size("abc", &v), -1);
	EQ(ft_parse_size("-1", &v), -1);
	EQ(ft_parse_size("3X", &v), -1);
	EQ(ft_parse_u64("12", &v), 0);
	EQ(v, 12);
	EQ(ft_parse_u64("12z", &v), -1);
	EQ(ft_parse_u64("", &v), -1);
	EQ(ft_is_pow2(0), 0);
	EQ(ft_is_pow2(1), 1);
	EQ(ft_is_pow2(96), 0);
}

/* one parser for every option: decimal, range-checked, nothing else */
/*
 * The knob on a plain file: a write is read back, a file that holds
 * something else than the kernel writes is EINVAL, a missing one fails
 * with open(2)'s errno and no file made.
 */
static void test_knob(void)
{
	char path[] = "/tmp/faulttune-knob-XXXXXX", gone[64];
	int fd = mkstemp(path);
	uint32_t v = 7;

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	EQ(ft_knob_write(path, 256), 0);
	EQ(ft_knob_read(path, &v), 0);
	EQ(v, 256);
	EQ(ft_knob_write(path, 32), 0);	/* shorter: the file is truncated */
	EQ(ft_knob_read(path, &v), 0);
	EQ(v, 32);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "0x10\n", 5) == 5, "write 0x10");
	close(fd);
	v = 7;
	errno = 0;
	EQ(ft_knob_read(path, &v), -1);
	EQ(errno, EINVAL);
	EQ(v, 7);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "4294967296\n", 11) == 11, "write 2^32");
	close(fd);
	EQ(ft_knob_read(path, &v), -1);
	EQ(v, 7);
	unlink(path);
	snprintf(gone, sizeof(gone), "%s.d/none", path);
	errno = 0;
	EQ(ft_knob_write(gone, 64), -1);
	EQ(errno, ENOENT);
	EQ(ft_knob_read(gone, &v), -1);
	EQ(access(gone, F_OK), -1);
}

static void test_numbers(void)
{
	struct ft_report_opts o;
	uint64_t v = 77;
	double d = 7;

	EQ(ft_parse_uint("0", 0, 10, &v), 0);
	EQ(v, 0);
	EQ(ft_parse_uint("10", 0, 10, &v), 0);
	EQ(v, 10);
	EQ(ft_parse_uint("18446744073709551615", 0, UINT64_MAX, &v), 0);
	EQ(v, UINT64_MAX);
	EQ(ft_parse_uint("11", 0, 10, &v), -1);
	EQ(errno, ERANGE);
	EQ(ft_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), -1);
	EQ(errno, ERANGE);
	EQ(ft_parse_uint("010", 0, 100, &v), -1);	/* octal to strtoull */
	EQ(errno, EINVAL);
	EQ(ft_parse_uint("0x10", 0, 100, &v), -1);
	EQ(ft_parse_uint(" 5", 0, 100, &v), -1);
	EQ(ft_parse_uint("+5", 0, 100, &v), -1);
	EQ(ft_parse_uint("5 ", 0, 100, &v), -1);
	EQ(ft_parse_uint("-1", 0, UINT64_MAX, &v), -1);
	EQ(ft_parse_uint("", 0, 100, &v), -1);
	EQ(ft_parse_uint(NULL, 0, 100, &v), -1);
	EQ(v, UINT64_MAX);			/* untouched by the failures */
	EQ(ft_parse_size(" -1M", &v), -1);	/* strtoull would negate it */
	EQ(ft_parse_size("010M", &v), -1);
	EQ(ft_parse_size("17179869184G", &v), -1);

	EQ(ft_parse_double("1.5", 0, 10, &d), 0);
	CHECK(d == 1.5, "1.5 parsed as %g", d);
	EQ(ft_parse_double("2e1", 0, 100, &d), 0);
	CHECK(d == 20, "2e1 parsed as %g", d);
	EQ(ft_parse_double("-0.5", -1, 0, &d), 0);
	EQ(ft_parse_double(".5", 0, 1, &d), 0);
	d = 7;
	EQ(ft_parse_double("nan", 0, 100, &d), -1);
	EQ(ft_parse_double("NaN", -1e300, 1e300, &d), -1);
	EQ(ft_parse_double("inf", 0, 1e300, &d), -1);
	EQ(ft_parse_double("1e999", 0, 1e300, &d), -1);
	EQ(errno, ERANGE);
	EQ(ft_parse_double("0x1p3", 0, 100, &d), -1);
	EQ(ft_parse_double(" 1", 0, 100, &d), -1);
	EQ(ft_parse_double("1s", 0, 100, &d), -1);
	EQ(ft_parse_double("1e", 0, 100, &d), -1);
	EQ(ft_parse_double("0", 0.001, 100, &d), -1);
	EQ(ft_parse_double("", 0, 100, &d), -1);
	CHECK(d == 7, "d untouched by the failures");

	fprintf(stderr, "(the next errors are expected)\n");
	EQ(parse(&o, "--top 010"), -1);
	EQ(parse(&o, "--top 10x"), -1);
	EQ(parse(&o, "-m 0x400"), -1);
	EQ(parse(&o, "--json --csv"), -1);	/* conflicting formats */
	EQ(parse(&o, "--csv --json"), -1);
	EQ(parse(&o, "--json --json"), 0);
	EQ(o.fmt, FT_FMT_JSON);
	EQ(parse(&o, "--timeout nan"), -1);
	EQ(parse(&o, "--timeout 2.5"), 0);
	CHECK(o.timeout == 2.5, "--timeout 2.5");
}

/*
 * Run the built faulttune (cwd: tools/faulttune) with stdout on out_fd
 * (-1: /dev/null) and stderr in errbuf, SIGPIPE / SIGCHLD as given, an
 * alarm as a hang guard.  Returns the wait status; *pid_out for kill_child.
 */
static rlim_t run_as_limit;	/* RLIMIT_AS for run_ft(), 0: none */

static int run_ft(char *const argv[], int out_fd, int ign_pipe, int ign_chld,
		  char *errbuf, size_t errlen, void (*during)(pid_t))
{
	int ep[2], st = 0;
	ssize_t n, tot = 0;
	pid_t pid;

	if (pipe(ep))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(ep[1], 2);
		close(ep[0]);
		signal(SIGPIPE, ign_pipe ? SIG_IGN : SIG_DFL);
		signal(SIGCHLD, ign_chld ? SIG_IGN : SIG_DFL);
		alarm(30);		/* a hang is a failure, not a stuck test */
		if (run_as_limit) {
			struct rlimit rl = { run_as_limit, run_as_limit };

			setrlimit(RLIMIT_AS, &rl);
		}
		execv("./faulttune", argv);
		_exit(127);
	}
	close(ep[1]);
	if (during)
		during(pid);
	while ((n = read(ep[0], errbuf + tot, errlen - 1 - tot)) > 0)
		tot += n;
	errbuf[tot] = '\0';
	close(ep[0]);
	waitpid(pid, &st, 0);
	return st;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* faulttune's pid -> the reader child's pid, from /proc */
static pid_t reader_of(pid_t pid)
{
	char path[64], buf[64];
	FILE *f;
	int i;
	long c = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	for (i = 0; i < 200 && !c; i++) {
		usleep(10000);
		f = fopen(path, "r");
		if (f) {
			if (fgets(buf, sizeof(buf), f))
				c = atol(buf);
			fclose(f);
		}
	}
	return c;
}

static void segv_reader(pid_t pid)
{
	pid_t c = reader_of(pid);

	usleep(100000);
	if (c > 0)
		kill(c, SIGSEGV);
}

/* exit statuses and messages of report as a user meets them */
static void test_report_cli(void)
{
	char path[] = "/tmp/faulttune-cli-XXXXXX", fifo[64], err[4096];
	struct synth_expect x;
	int fd = mkstemp(path), p[2], st;

	if (fd < 0)
		return;
	close(fd);
	EQ(synth_write(path, 4, 200, 8, &x), 0);
	{
		char *argv[] = { "faulttune", "report", path, NULL };

		/* a closed pipe: killed by SIGPIPE like trace-cmd, quietly */
		if (pipe(p) == 0) {
			close(p[0]);
			st = run_ft(argv, p[1], 0, 0, err, sizeof(err), NULL);
			close(p[1]);
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
			      "closed pipe: status %#x, want SIGPIPE", st);
			CHECK(!err[0], "closed pipe: quiet, got '%s'", err);
		}
		/* the same with SIGPIPE ignored by the caller: EPIPE */
		if (pipe(p) == 0) {
			close(p[0]);
			st = run_ft(argv, p[1], 1, 0, err, sizeof(err), NULL);
			close(p[1]);
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
			      "EPIPE: status %#x, want SIGPIPE", st);
			CHECK(!err[0], "EPIPE: quiet, got '%s'", err);
		}
		/* a full device: exit 1 and say so */
		fd = open("/dev/full", O_WRONLY);
		if (fd >= 0) {
			st = run_ft(argv, fd, 0, 0, err, sizeof(err), NULL);
			close(fd);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1,
			      "/dev/full: status %#x, want exit 1", st);
			CHECK(strstr(err, "writing standard output: No space left"),
			      "/dev/full: message '%s'", err);
		}
		/* a caller that ignores SIGCHLD: no endless waitpid loop */
		st = run_ft(argv, -1, 0, 1, err, sizeof(err), NULL);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "SIGCHLD ignored: status %#x, want exit 0 (%s)", st, err);
	}
	/* a reader that never finishes (a FIFO nobody writes): time limit */
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	if (mkfifo(fifo, 0600) == 0) {
		char *argv[] = { "faulttune", "report", "--timeout", "0.5", fifo, NULL };
		char *argv2[] = { "faulttune", "report", fifo, NULL };

		st = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1,
		      "stuck reader: status %#x, want exit 1", st);
		CHECK(lines(err) == 1 && strstr(err, fifo) &&
		      strstr(err, "did not finish within"),
		      "stuck reader: one line naming the file, got '%s'", err);
		/* a crash in our own code is blamed on faulttune, not the file */
		st = run_ft(argv2, -1, 0, 0, err, sizeof(err), segv_reader);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1,
		      "crashed reader: status %#x, want exit 1", st);
		CHECK(strstr(err, "faulttune bug") && !strstr(err, "corrupt"),
		      "crashed reader: blame, got '%s'", err);
		unlink(fifo);
	}
	{
		char *argv[] = { "faulttune", "record", "-d", "nan", NULL };
		char *argv2[] = { "faulttune", "report", "--json", "--csv", path, NULL };

		st = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
		      strstr(err, "--duration") && strstr(err, "'nan'"),
		      "record -d nan: status %#x, '%s'", st, err);
		st = run_ft(argv2, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
		      strstr(err, "exclude each other"),
		      "--json --csv: status %#x, '%s'", st, err);
	}
	{
		/* the output is named, not the OUT.cpuN capture file */
		char *argv[] = { "faulttune", "record", "-o",
				 "/nonexistent/x.dat", "--", "true", NULL };

		st = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && lines(err) == 1 &&
		      strstr(err, "cannot write /nonexistent/x.dat: directory "
			     "/nonexistent: No such file") && !strstr(err, ".cpu"),
		      "record -o /nonexistent/x.dat: status %#x, '%s'", st, err);
	}
	unlink(path);
}

static int bparse(struct ft_bench_opts *o, const char *line)
{
	char buf[256], *argv[16], *tok;
	int argc = 0;

	snprintf(buf, sizeof(buf), "bench %s", line);
	for (tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return ft_bench_parse_args(argc, argv, o);
}

static void test_bench_args(void)
{
	struct ft_bench_opts o;

	EQ(bparse(&o, "-t 1,2,8 -s 128M -p 2M -r 4 --pin --json"), 0);
	EQ(o.nthreads, 3);
	EQ(o.threads[2], 8);
	EQ(o.size, 128ULL << 20);
	EQ(o.page_size, 2ULL << 20);
	EQ(o.reps, 4);
	EQ(o.pin, 1);
	EQ(o.fmt, FT_FMT_JSON);
	EQ(o.shape, FT_SH_THREADS);
	EQ(bparse(&o, "-w memtype"), 0);
	EQ(o.shape, FT_SH_MEMTYPE);
	EQ(o.iterations, 2000);
	EQ(bparse(&o, "-w punch --iterations 7"), 0);
	EQ(o.iterations, 7);
	EQ(bparse(&o, "-w memtype-lookup"), 0);
	EQ(o.shape, FT_SH_LOOKUP);
	EQ(o.iterations, 10);
	EQ(o.size_set, 0);
	EQ(bparse(&o, "-w memtype-lookup -D 0000:00:04.0 -s 64K"), 0);
	EQ(o.size, 64ULL << 10);
	EQ(o.size_set, 1);
	CHECK(o.device && !strcmp(o.device, "0000:00:04.0"), "--device kept");
	EQ(bparse(&o, "-w share -t 4"), 0);
	EQ(o.shape, FT_SH_SHARE);
	EQ(bparse(&o, ""), 0);
	CHECK(o.nthreads >= 1 && o.threads[0] == 1, "default thread list starts at 1");
	fprintf(stderr, "(the next errors are expected)\n");
	EQ(bparse(&o, "-w bogus"), -1);
	EQ(bparse(&o, "-t 0"), -1);
	EQ(bparse(&o, "-t 1,,2"), 0);		/* empty items are skipped */
	EQ(bparse(&o, "-t x"), -1);
	EQ(bparse(&o, "-p 3M"), -1);
	EQ(bparse(&o, "-s 1M"), -1);		/* smaller than a 2M page */
	EQ(bparse(&o, "-r 0"), -1);
	EQ(bparse(&o, "extra"), -1);
	EQ(bparse(&o, "-w memtype-lookup -D 00:04.0"), -1);	/* no domain */
	EQ(bparse(&o, "-w memtype-lookup -D 0000:00:04.8"), -1);
	EQ(bparse(&o, "-w memtype-lookup -D 0000:00:04.0x"), -1);
	EQ(bparse(&o, "-D 0000:00:04.0"), -1);	/* not that workload */
	EQ(bparse(&o, "-i 5"), -1);		/* --iterations: no short form */
	EQ(bparse(&o, "-P"), -1);		/* --pin: no short form */
}

static void test_bad_files(void)
{
	char path[] = "/tmp/faulttune-unit-XXXXXX";
	struct ft_analysis a;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	ft_analysis_init(&a);
	fprintf(stderr, "(the next errors are expected)\n");
	EQ(ft_read_tracedat(path, &a), -1);		/* empty */
	if (write(fd, "\x17\x08\x44tracing6\0\0\x08", 13) != 13)
		CHECK(0, "write");
	EQ(ft_read_tracedat(path, &a), -1);		/* truncated header */
	EQ(ft_read_tracedat("/nonexistent/trace.dat", &a), -1);
	close(fd);
	unlink(path);
	ft_analysis_free(&a);
}

/* end to end: a synthetic trace.dat with the contract events */
static void test_synth_file(void)
{
	char path[] = "/tmp/faulttune-synth-XXXXXX";
	struct synth_expect x;
	struct ft_analysis a;
	struct ft_whatif_row *w;
	char cmd[256], line[64];
	FILE *p;
	int fd = mkstemp(path), n, i;

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	EQ(synth_write(path, 4, 50, 8, &x), 0);
	CHECK(x.collisions > 0 && x.sharing > 0, "stream has collisions and sharing");
	ft_analysis_init(&a);
	EQ(ft_read_tracedat(path, &a), 0);
	EQ(a.nev[FT_LK_HUGETLB], x.hugetlb);
	EQ(a.nev[FT_LK_MEMTYPE], x.memtype);
	EQ(a.hall.acq, x.acq);
	EQ(a.hall.contended, x.contended);
	EQ(a.hall.collisions, x.collisions);
	EQ(a.hall.sharing, x.sharing);
	EQ(a.hall.unknown, x.unknown);
	EQ(a.hall.coll_wait, x.coll_wait);
	EQ(a.resizes, 1);
	EQ(a.hash_mismatch, 0);
	EQ(a.jhash_mismatch, 0);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
	EQ(a.mop[FT_MOP_LOOKUP].acq, x.memtype / 3);
	{
		/* the fast reader and libtracecmd's agree on everything */
		struct ft_analysis b;
		size_t k, diff = 0;

		ft_analysis_init(&b);
		EQ(ft_read_tracedat_opts(path, &b, &lib), 0);
		EQ(b.nholds, a.nholds);
		for (k = 0; k < a.nholds && k < b.nholds; k++)
			diff += a.holds[k].req_ts != b.holds[k].req_ts ||
				a.holds[k].acq_ts != b.holds[k].acq_ts ||
				a.holds[k].rel_ts != b.holds[k].rel_ts ||
				a.holds[k].mapping != b.holds[k].mapping ||
				a.holds[k].index != b.holds[k].index ||
				a.holds[k].hash != b.holds[k].hash;
		EQ(diff, 0);
		EQ(b.first_ts, a.first_ts);
		EQ(b.last_ts, a.last_ts);
		EQ(b.hall.wait_total, a.hall.wait_total);
		EQ(b.mall.acq, a.mall.acq);
		EQ(b.markers, a.markers);
		EQ(b.lost_events, a.lost_events);
		ft_analysis_free(&b);
	}
	n = ft_whatif(&a, 64, &w);
	EQ(n, 7);
	if (n == 7) {
		EQ(w[3].collisions, x.collisions);	/* recorded size 8 */
		for (i = 1; i < n; i++)
			CHECK(w[i].collisions <= w[i - 1].collisions,
			      "predicted collisions fall with size (%u)", w[i].size);
	}
	free(w);
	ft_analysis_free(&a);
	/* Debian's trace-cmd report must read and print every event */
	if (!system("command -v trace-cmd >/dev/null 2>&1")) {
		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | "
			 "grep -cE ' (hugetlb_fault_mutex|memtype_lock)_[a-z_]+:'",
			 path);
		p = popen(cmd, "r");
		if (p && fgets(line, sizeof(line), p))
			EQ(strtoull(line, NULL, 10), x.events);
		else
			CHECK(0, "trace-cmd report ran");
		if (p)
			pclose(p);
	} else {
		printf("# SKIP trace-cmd report check: trace-cmd not installed\n");
	}
	unlink(path);
}

/*
 * The same simulated run written as *_hold summaries and as the trio: both
 * readers give the same statistics, holds and what-if from either, and
 * trace-cmd report prints every summary with its fields.
 */
static void test_synth_summary(void)
{
	char pt[] = "/tmp/faulttune-trio-XXXXXX", ps[] = "/tmp/faulttune-summ-XXXXXX";
	struct synth_expect xt, xs;
	struct ft_analysis t, a, b;
	struct ft_whatif_row *wt = NULL, *ws = NULL;
	char cmd[512], line[64];
	size_t k, diff = 0;
	int fdt = mkstemp(pt), fds = mkstemp(ps), nt, ns, i;
	FILE *p;

	CHECK(fdt >= 0 && fds >= 0, "mkstemp");
	if (fdt < 0 || fds < 0)
		return;
	close(fdt);
	close(fds);
	synth_summary = 0;
	EQ(synth_write(pt, 4, 50, 8, &xt), 0);
	synth_summary = 1;
	EQ(synth_write(ps, 4, 50, 8, &xs), 0);
	synth_summary = 0;
	EQ(xs.acq, xt.acq);
	EQ(xs.hugetlb, xs.acq + 1);	/* one summary each, and the resize */
	ft_analysis_init(&t);
	ft_analysis_init(&a);
	ft_analysis_init(&b);
	EQ(ft_read_tracedat(pt, &t), 0);
	EQ(ft_read_tracedat(ps, &a), 0);
	EQ(ft_read_tracedat_opts(ps, &b, &lib), 0);
	EQ(a.summaries, xs.hugetlb - 1 + xs.memtype);
	EQ(a.summaries_skipped, 0);
	EQ(a.nev[FT_LK_HUGETLB], xs.hugetlb);
	EQ(a.hall.acq, xt.acq);
	EQ(a.hall.contended, xt.contended);
	EQ(a.hall.collisions, xt.collisions);
	EQ(a.hall.sharing, xt.sharing);
	EQ(a.hall.unknown, xt.unknown);
	EQ(a.hall.coll_wait, xt.coll_wait);
	EQ(a.hall.wait_total, t.hall.wait_total);
	EQ(ft_hist_percentile(&a.hall.hold, 50), ft_hist_percentile(&t.hall.hold, 50));
	EQ(a.hop[FT_HOP_FALLOCATE].acq, t.hop[FT_HOP_FALLOCATE].acq);
	EQ(a.mop[FT_MOP_LOOKUP].acq, t.mop[FT_MOP_LOOKUP].acq);
	EQ(a.mall.wait_total, t.mall.wait_total);
	EQ(a.resizes, 1);
	EQ(a.hash_mismatch + a.jhash_mismatch, 0);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
	EQ(a.first_ts, t.first_ts);
	EQ(a.nholds, t.nholds);
	EQ(b.nholds, a.nholds);
	if (a.nholds == t.nholds && b.nholds == a.nholds) {
		/* the summaries come in release order; the trio's holds too */
		for (k = 0; k < a.nholds; k++)
			diff += a.holds[k].req_ts != t.holds[k].req_ts ||
				a.holds[k].acq_ts != t.holds[k].acq_ts ||
				a.holds[k].rel_ts != t.holds[k].rel_ts ||
				a.holds[k].hash != t.holds[k].hash ||
				a.holds[k].op != t.holds[k].op ||
				b.holds[k].acq_ts != a.holds[k].acq_ts;
		EQ(diff, 0);
	}
	nt = ft_whatif(&t, 64, &wt);
	ns = ft_whatif(&a, 64, &ws);
	EQ(ns, nt);
	for (i = 0; i < ns && i < nt; i++) {
		EQ(ws[i].collisions, wt[i].collisions);
		EQ(ws[i].coll_wait_ns, wt[i].coll_wait_ns);
		EQ(ws[i].sharing, wt[i].sharing);
	}
	free(wt);
	free(ws);
	ft_analysis_free(&t);
	ft_analysis_free(&a);
	ft_analysis_free(&b);
	/* Debian's trace-cmd report prints every summary, fields decoded */
	if (!system("command -v trace-cmd >/dev/null 2>&1")) {
		snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -cE "
			 "' hugetlb_fault_mutex_hold: +mapping=ffff888012340000 "
			 "index=[0-9]+ hash=[0-9a-f]+ bucket=[0-7] nbuckets=8 "
			 "op=(fault|fallocate) contended=[01] wait_ns=[0-9]+ "
			 "hold_ns=(1000|1500|2000)$|"
			 " memtype_lock_hold: +op=lookup start=0xfd000000 "
			 "end=0xfd001000 contended=1 wait_ns=200 hold_ns=300$'", ps);
		p = popen(cmd, "r");
		if (p && fgets(line, sizeof(line), p))
			EQ(strtoull(line, NULL, 10), xs.events - 1);
		else
			CHECK(0, "trace-cmd report ran");
		if (p)
			pclose(p);
	} else {
		printf("# SKIP trace-cmd report check: trace-cmd not installed\n");
	}
	unlink(pt);
	unlink(ps);
}

/*
 * Small mutation fuzz of the reader: flip bytes of a valid recording and
 * read it in a child; an error is fine, a crash or a hang is not.
 */
static void test_fuzz_reader(void)
{
	char path[] = "/tmp/faulttune-fuzz-XXXXXX", mut[64];
	struct synth_expect x;
	unsigned char *buf;
	unsigned int seed = 12345;
	long len;
	FILE *f;
	int fd = mkstemp(path), i, j, crashes = 0, libcrash = 0, runs = 300;

	if (fd < 0)
		return;
	close(fd);
	if (synth_write(path, 3, 20, 8, &x)) {
		CHECK(0, "synth_write");
		return;
	}
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len);
	if (fread(buf, 1, len, f) != (size_t)len)
		len = 0;
	fclose(f);
	snprintf(mut, sizeof(mut), "%s.mut", path);
	for (i = 0; i < runs && len; i++) {
		unsigned char *m = malloc(len);
		long n = len;
		pid_t pid;
		int st;

		memcpy(m, buf, len);
		seed = seed * 1103515245u + 12345u;
		if (i % 4 == 3)		/* truncation */
			n = (seed >> 8) % len;
		for (j = 0; j < 1 + i % 8; j++) {
			seed = seed * 1103515245u + 12345u;
			/* bias towards the header (formats, sizes, offsets) */
			m[(i & 1 ? (seed >> 4) % 2048 : (seed >> 4)) % n ? : 0] ^=
				(unsigned char)(seed >> 20) | 1;
		}
		f = fopen(mut, "wb");
		fwrite(m, 1, n, f);
		fclose(f);
		free(m);
		pid = fork();
		if (pid == 0) {
			struct ft_analysis a;

			alarm(10);
			freopen("/dev/null", "w", stderr);
			ft_analysis_init(&a);
			ft_read_tracedat(mut, &a);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st))
			libcrash++;
		/* what the user runs: cmd_report contains any library crash */
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "report", mut, NULL };

			alarm(10);
			freopen("/dev/null", "w", stderr);
			freopen("/dev/null", "w", stdout);
			_exit(cmd_report(2, argv) ? 1 : 0);
		}
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st)) {
			crashes++;
			if (crashes == 1) {
				char keep[96];

				snprintf(keep, sizeof(keep), "/tmp/faulttune-fuzz-crash-%d.dat", i);
				rename(mut, keep);
				printf("# fuzz: report crashed (signal %d), input kept in %s\n",
				       WIFSIGNALED(st) ? WTERMSIG(st) : 0, keep);
			}
		}
	}
	printf("# fuzz: %d mutated files; libtracecmd crashed on %d (contained)\n",
	       runs, libcrash);
	EQ(crashes, 0);
	unlink(mut);
	unlink(path);
	free(buf);
}

static unsigned char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len);
	if (buf && fread(buf, 1, *len, f) != (size_t)*len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void spit(const char *path, const unsigned char *buf, long len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
}

/* the first data page of CPU 0 of a v6 file, and its events' offsets */
static unsigned char *first_page(unsigned char *buf, long len, uint32_t *ev,
				 int *nev)
{
	unsigned char *fly = memmem(buf, len, "flyrecord", 10), *pg;
	uint64_t off, commit;
	uint32_t c = 0, hdr;

	*nev = 0;
	if (!fly)
		return NULL;
	memcpy(&off, fly + 10, 8);
	pg = buf + off;
	memcpy(&commit, pg + 8, 8);
	while (c < commit && *nev < 256) {
		memcpy(&hdr, pg + 16 + c, 4);
		ev[(*nev)++] = c;
		c += 4 + (hdr & 31) * 4;	/* synth writes type_len 1-28 only */
	}
	return pg;
}

static uint64_t skipped(struct ft_analysis *a, int what)
{
	struct ft_cpu_skips k;

	ft_analysis_skipped(a, &k);
	return what == 0 ? k.bad_pages : what == 1 ? k.bad_headers :
	       what == 2 ? k.skipped_bytes : k.short_records;
}

/* read path twice, in place and through libtracecmd; 0 when they agree */
static int both_readers(const char *path, struct ft_analysis *a,
			struct ft_analysis *b)
{
	size_t k, diff = 0;

	ft_analysis_init(a);
	ft_analysis_init(b);
	if (ft_read_tracedat(path, a))
		return -1;
	setenv("FAULTTUNE_LIBTRACECMD", "1", 1);
	if (ft_read_tracedat(path, b))
		diff++;
	unsetenv("FAULTTUNE_LIBTRACECMD");
	diff += a->nholds != b->nholds || a->first_ts != b->first_ts ||
		a->last_ts != b->last_ts || a->hall.acq != b->hall.acq ||
		a->hall.wait_total != b->hall.wait_total;
	for (k = 0; k < a->nholds && k < b->nholds; k++)
		diff += a->holds[k].req_ts != b->holds[k].req_ts ||
			a->holds[k].acq_ts != b->holds[k].acq_ts ||
			a->holds[k].rel_ts != b->holds[k].rel_ts;
	return diff ? 1 : 0;
}

/*
 * Damaged and unusual pages: the in-place reader decodes what kbuffer
 * (and so libtracecmd) decodes, and counts what it cannot use.
 */
static void test_page_damage(void)
{
	char path[] = "/tmp/faulttune-page-XXXXXX", mut[64], err[4096];
	struct synth_expect x;
	struct ft_analysis a, b;
	unsigned char *buf, *pg;
	uint32_t ev[256], hdr, tl, w;
	uint64_t commit;
	long len;
	int fd = mkstemp(path), n, i, st;

	if (fd < 0)
		return;
	close(fd);
	snprintf(mut, sizeof(mut), "%s.mut", path);
	EQ(synth_write(path, 4, 50, 8, &x), 0);
	buf = slurp(path, &len);
	pg = buf ? first_page(buf, len, ev, &n) : NULL;
	CHECK(pg && n > 8, "found the first page's events");
	if (!pg || n <= 8)
		goto out;

	/* a discarded event (padding with a time delta): the delta counts */
	for (i = 2; i < n - 1; i++) {
		memcpy(&hdr, pg + 16 + ev[i], 4);
		if (hdr >> 5)
			break;
	}
	CHECK(i < n - 1, "an event with a time delta");
	{
		unsigned char *m = malloc(len);

		memcpy(m, buf, len);
		tl = hdr & 31;
		hdr = (hdr & ~31u) | 29;
		w = tl * 4;
		memcpy(m + (pg - buf) + 16 + ev[i], &hdr, 4);
		memcpy(m + (pg - buf) + 16 + ev[i] + 4, &w, 4);
		spit(mut, m, len);
		free(m);
		EQ(both_readers(mut, &a, &b), 0);
		EQ(a.nev[FT_LK_HUGETLB] + a.nev[FT_LK_MEMTYPE], x.events - 1);
		EQ(skipped(&a, 1), 0);
		ft_analysis_free(&a);
		ft_analysis_free(&b);
	}

	/* a padding whose length wraps: the rest of the page is counted */
	{
		unsigned char *m = malloc(len);

		memcpy(m, buf, len);
		memcpy(&hdr, pg + 16 + ev[3], 4);
		hdr = (hdr & ~31u) | 29;
		w = 0xfffffff0;
		memcpy(m + (pg - buf) + 16 + ev[3], &hdr, 4);
		memcpy(m + (pg - buf) + 16 + ev[3] + 4, &w, 4);
		memcpy(&commit, pg + 8, 8);
		spit(mut, m, len);
		free(m);
		ft_analysis_init(&a);
		EQ(ft_read_tracedat(mut, &a), 0);
		EQ(skipped(&a, 1), 1);
		EQ(skipped(&a, 2), commit - ev[3]);
		EQ(a.nev[FT_LK_HUGETLB] + a.nev[FT_LK_MEMTYPE],
		   x.events - (n - 3));
		ft_analysis_free(&a);
		{
			char *argv[] = { "faulttune", "report", mut, NULL };
			char *argv2[] = { "faulttune", "report", "--force", "--json", mut, NULL };
			char *argv3[] = { "faulttune", "report", "--timeout", "3", mut, NULL };
			int p[2];

			st = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && lines(err) == 1 &&
			      strstr(err, mut) && strstr(err, "bad event headers 1"),
			      "bad header: status %#x, '%s'", st, err);
			if (pipe(p) == 0) {
				char out[65536] = "";
				ssize_t r, tot = 0;

				st = run_ft(argv2, p[1], 0, 0, err, sizeof(err), NULL);
				close(p[1]);
				while ((r = read(p[0], out + tot, sizeof(out) - 1 - tot)) > 0)
					tot += r;
				out[tot] = 0;
				close(p[0]);
				CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
				      strstr(out, "\"skipped\":{\"bad_pages\":0,\"bad_headers\":1,"),
				      "--force: status %#x, skipped in the JSON", st);
				CHECK(strstr(out, "\"cpus\":[{\"cpu\":0,"), "--force: per CPU");
			}
			/* libtracecmd loops on it: the time limit names the file */
			setenv("FAULTTUNE_LIBTRACECMD", "1", 1);
			st = run_ft(argv3, -1, 0, 0, err, sizeof(err), NULL);
			unsetenv("FAULTTUNE_LIBTRACECMD");
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && lines(err) == 1 &&
			      strstr(err, mut),
			      "library path on a wrapping padding: status %#x, '%s'", st, err);
		}
	}

	/* a record too short for the common fields: counted, not read */
	{
		unsigned char *m = malloc(len);
		uint32_t last = ev[n - 1];

		memcpy(m, buf, len);
		memcpy(&hdr, pg + 16 + last, 4);
		tl = hdr & 31;
		memcpy(&commit, pg + 8, 8);
		commit -= (tl - 1) * 4;
		hdr = (hdr & ~31u) | 1;
		memcpy(m + (pg - buf) + 16 + last, &hdr, 4);
		memcpy(m + (pg - buf) + 8, &commit, 8);
		spit(mut, m, len);
		free(m);
		EQ(both_readers(mut, &a, &b), 0);
		EQ(skipped(&a, 3), 1);
		EQ(skipped(&b, 3), 1);
		EQ(skipped(&a, 1), 0);
		ft_analysis_free(&a);
		ft_analysis_free(&b);
	}

	/*
	 * One byte of header_page ("\tsigned" after the time stamp field):
	 * libtracecmd then decoded nothing and report said "hugetlb 0",
	 * exit 0.  Now the records it cannot read are counted and refused.
	 */
	{
		unsigned char *m = malloc(len), *hp;
		char *argv[] = { "faulttune", "report", mut, NULL };

		memcpy(m, buf, len);
		hp = memmem(m, len, "u64 timestamp;\toffset:0;\tsize:8;\tsigned", 39);
		CHECK(hp, "header_page text");
		if (hp) {
			hp[34] = 'X';
			spit(mut, m, len);
			setenv("FAULTTUNE_LIBTRACECMD", "1", 1);
			st = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
			unsetenv("FAULTTUNE_LIBTRACECMD");
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && lines(err) == 1 &&
			      strstr(err, mut), "header_page byte, library path: %#x '%s'",
			      st, err);
		}
		free(m);
	}

	/* a commit beyond the page: the page is counted, not decoded */
	{
		unsigned char *m = malloc(len);

		memcpy(m, buf, len);
		commit = 4096 - 8;
		memcpy(m + (pg - buf) + 8, &commit, 8);
		spit(mut, m, len);
		free(m);
		ft_analysis_init(&a);
		/* rd_validate() refuses such a file before any decoding */
		EQ(ft_read_tracedat(mut, &a), -1);
		ft_analysis_free(&a);
	}
out:
	free(buf);
	unlink(mut);
	unlink(path);
}

/*
 * A data page flagged with a stored count of lost events (the kernel's
 * RB_MISSED_EVENTS | RB_MISSED_STORED, the count after the data): both
 * readers report that count, not one; flagged without a count, a page of
 * an unknown number.
 */
static void test_lost_in_file(void)
{
	char path[] = "/tmp/faulttune-lost-XXXXXX", mut[64];
	struct synth_expect x;
	struct ft_analysis a, b;
	unsigned char *buf, *pg;
	uint32_t ev[256];
	uint64_t commit, flags, cnt = 7;
	long len;
	int fd = mkstemp(path), n;

	if (fd < 0)
		return;
	close(fd);
	snprintf(mut, sizeof(mut), "%s.mut", path);
	EQ(synth_write(path, 1, 2, 8, &x), 0);
	buf = slurp(path, &len);
	pg = buf ? first_page(buf, len, ev, &n) : NULL;
	if (pg)
		memcpy(&commit, pg + 8, 8);
	CHECK(pg && n > 0 && commit + 16 + 8 <= 4096,
	      "a first page with room for a stored count");
	if (!pg || n <= 0 || commit + 16 + 8 > 4096)
		goto out;
	flags = commit | (1ULL << 31) | (1ULL << 30);
	memcpy(pg + 8, &flags, 8);
	memcpy(pg + 16 + commit, &cnt, 8);
	spit(mut, buf, len);
	EQ(both_readers(mut, &a, &b), 0);
	EQ(a.lost_events, 7);
	EQ(a.lost_unknown, 0);
	EQ(b.lost_events, 7);
	EQ(b.lost_unknown, 0);
	EQ(a.nev[FT_LK_HUGETLB] + a.nev[FT_LK_MEMTYPE], x.events);
	ft_analysis_free(&a);
	ft_analysis_free(&b);

	/* flagged, no count stored: one page of an unknown number */
	flags = commit | (1ULL << 31);
	memcpy(pg + 8, &flags, 8);
	spit(mut, buf, len);
	EQ(both_readers(mut, &a, &b), 0);
	EQ(a.lost_events, 0);
	EQ(a.lost_unknown, 1);
	EQ(b.lost_unknown, a.lost_unknown);
	ft_analysis_free(&a);
	ft_analysis_free(&b);
out:
	free(buf);
	unlink(mut);
	unlink(path);
}

/*
 * Out of memory is an error, never a smaller answer: under every address
 * space limit report either prints every event or fails saying so.
 */
static void test_nomem(void)
{
	char path[] = "/tmp/faulttune-nomem-XXXXXX", err[4096], want[64];
	struct synth_expect x;
	int fd = mkstemp(path), st, oom = 0, full = 0, wrong = 0, mb, p[2];

	if (fd < 0)
		return;
	close(fd);
	EQ(synth_write(path, 64, 600, 64, &x), 0);
	snprintf(want, sizeof(want), "\"memtype\":%llu,", x.memtype);
	for (mb = 8; mb <= 40; mb += 2) {
		char *argv[] = { "faulttune", "report", "--json", path, NULL };
		char out[8192] = "";
		ssize_t r, tot = 0;

		if (pipe(p))
			break;
		run_as_limit = (rlim_t)mb << 20;
		st = run_ft(argv, p[1], 0, 0, err, sizeof(err), NULL);
		run_as_limit = 0;
		close(p[1]);
		while ((r = read(p[0], out + tot, sizeof(out) - 1 - tot)) > 0)
			tot += r;
		out[tot] = 0;
		close(p[0]);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			full++;
			if (!strstr(out, want)) {
				wrong++;
				printf("# %d MB: exit 0 without all events: %.200s\n",
				       mb, out);
			}
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 1 &&
			   lines(err) == 1 && (strstr(err, "out of memory") ||
			   strstr(err, "Cannot allocate memory"))) {
			oom++;
		} else {
			wrong++;
			printf("# %d MB: status %#x: %s\n", mb, st, err);
		}
	}
	printf("# address space limits: %d out-of-memory errors, %d complete "
	       "reports\n", oom, full);
	EQ(wrong, 0);
	CHECK(oom > 0 && full > 0, "the limits cover both outcomes");
	unlink(path);
}

/* --plot: gnuplot from an argument vector, its failures are errors */
static void test_plot(void)
{
	char path[] = "/tmp/faulttune-plot-XXXXXX", dir[] = "/tmp/faulttune-pd-XXXXXX";
	char evil[256], pwned[128], err[4096];
	struct synth_expect x;
	struct stat st;
	int fd = mkstemp(path), rc;
	int have = !system("command -v gnuplot >/dev/null 2>&1");

	if (fd < 0 || !mkdtemp(dir))
		return;
	close(fd);
	EQ(synth_write(path, 3, 20, 8, &x), 0);
	/* the shell would run "touch faulttune-pwned" in our cwd */
	snprintf(pwned, sizeof(pwned), "faulttune-pwned");
	snprintf(evil, sizeof(evil), "%s/$(touch %s)'\";.svg", dir, pwned);
	{
		char *argv[] = { "faulttune", "report", "--plot", evil, path, NULL };

		rc = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(stat(pwned, &st) != 0, "the file name ran as a command");
		if (have) {
			CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "plot: %#x %s", rc, err);
			CHECK(stat(evil, &st) == 0 && st.st_size > 0,
			      "the chart is in the file of that very name");
		} else {
			CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 &&
			      strstr(err, "gnuplot is not installed"), "no gnuplot: %s", err);
		}
		unlink(evil);
	}
	{
		char *argv[] = { "faulttune", "report", "--plot", "/nonexistent/a.svg",
				 path, NULL };

		rc = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 &&
		      strstr(err, "faulttune: --plot /nonexistent/a.svg: gnuplot"),
		      "gnuplot failure is an error: %#x '%s'", rc, err);
	}
	{
		char *argv[] = { "faulttune", "report", "--plot", evil, path, NULL };
		char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

		setenv("PATH", "/nonexistent", 1);
		rc = run_ft(argv, -1, 0, 0, err, sizeof(err), NULL);
		if (old)
			setenv("PATH", old, 1);
		free(old);
		CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && lines(err) == 1 &&
		      strstr(err, "gnuplot is not installed"),
		      "no gnuplot in PATH: %#x '%s'", rc, err);
	}
	rmdir(dir);
	unlink(path);
}

/*
 * The mutex stride from a table's memory (kfacts.c): the words of 7.3's
 * lockdep guest after workloads, where used and unused mutexes differ in
 * a class cache word (the share of repeating words put 272 bytes ahead
 * of the real 136); 6.12's production mutex, whose idle wait_list points
 * at itself, with one mutex held and waited for; and tables with no
 * column that repeats.
 */
static void test_stride(void)
{
	static const uint64_t m73[17] = {
		0, 0xdead4ead00000000ULL, 0xffffffffULL, ~0ULL,
		0xffffffff81c70d10ULL, 0xffffffff81e8a970ULL, 0,
		0xffffffff817475d0ULL, 0x200, 0, 0, 0 /* self */,
		0xffffffff8270d350ULL, 0xffffffff81e8a7e0ULL, 0,
		0xffffffff81763587ULL, 0x400 };
	uint64_t w[512];
	unsigned int seed = 7;
	int i;

	for (i = 0; i < 512; i++) {
		w[i] = m73[i % 17];
		if (i % 17 == 11)	/* the mutex magic: its own address */
			w[i] = 0xff11000100366000ULL + 136 * (i / 17);
		if (i % 17 == 5 && (i / 17) % 4 >= 2)
			w[i] = 0;	/* class cache of an unused mutex */
	}
	EQ(ft_stride_of(w, 512, 32), 17);
	/* 6.12, no lock debugging: owner, wait_lock + osq, wait_list */
	for (i = 0; i < 512; i++)
		w[i] = i % 4 < 2 ? 0 : 0xff11000100400000ULL + 32 * (i / 4) + 16;
	w[40] = 0xffffc90000123000ULL;	/* mutex 10 held: owner, a waiter */
	w[42] = w[43] = 0xffffc90000abc000ULL;
	EQ(ft_stride_of(w, 512, 256), 4);
	/* three mutexes are too few for a period (four repeats) */
	EQ(ft_stride_of(w, 512, 3), 0);
	memset(w, 0, sizeof(w));
	EQ(ft_stride_of(w, 512, 32), 0);
	for (i = 0; i < 512; i++)
		w[i] = (seed = seed * 1103515245u + 12345u) | 1;
	EQ(ft_stride_of(w, 512, 32), 0);
}

/* tracefs found in a mounts table wherever it is, debugfs alone is not it */
static void test_tracefs_mounted(void)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{ "sysfs /sys sysfs rw 0 0\ntracefs /sys/kernel/tracing tracefs rw 0 0\n", 1 },
		{ "debugfs /sys/kernel/debug debugfs rw 0 0\n"
		  "tracefs /sys/kernel/debug/tracing tracefs rw 0 0\n", 1 },
		{ "debugfs /sys/kernel/debug debugfs rw 0 0\n", 0 },
		{ "none /mnt/tracefs tmpfs rw 0 0\n", 0 },
		{ "", 0 },
	};
	char path[] = "/tmp/faulttune-mounts.XXXXXX";
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		size_t len = strlen(cases[i].text);

		CHECK(fd >= 0, "mkstemp");
		if (fd < 0)
			return;
		if (write(fd, cases[i].text, len) != (ssize_t)len)
			CHECK(0, "write");
		close(fd);
		EQ(ft_tracefs_mounted(path), cases[i].want);
		unlink(path);
		strcpy(path, "/tmp/faulttune-mounts.XXXXXX");
	}
	EQ(ft_tracefs_mounted("/nonexistent/mounts"), 0);
}

int main(void)
{
	/* forked children must not repeat buffered output */
	setvbuf(stdout, NULL, _IONBF, 0);
	test_percentiles();
	test_percentiles_big();
	test_hist();
	test_resize_cost();
	test_report_table_size();
	test_pairing();
	test_classification();
	test_whatif();
	test_whatif_consistent();
	test_detectors();
	test_contention_fallback();
	test_memtype();
	test_summary();
	test_implausible();
	test_jhash();
	test_args();
	test_numbers();
	test_knob();
	test_report_cli();
	test_bench_args();
	test_bad_files();
	test_synth_file();
	test_synth_summary();
	test_page_damage();
	test_lost_in_file();
	test_plot();
	test_nomem();
	test_fuzz_reader();
	test_tracefs_mounted();
	test_stride();
	return check_done(NULL);
}
