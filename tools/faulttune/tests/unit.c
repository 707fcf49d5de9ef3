// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune unit tests: event streams built here with known answers.
 * No root and no tracefs needed.  Ends with "N passed, N failed".
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "faulttune.h"
#include "synth.h"

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#define EQ(a, b) CHECK((unsigned long long)(a) == (unsigned long long)(b), \
		       "%s = %llu, want %llu", #a, (unsigned long long)(a), \
		       (unsigned long long)(b))

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
	EQ(rc.fault_median, 1000);	/* 1000, 2000, 1000 */
	EQ(rc.other_wait_max, 100);
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
		EQ(ft_percentile(&b->st.hold, 50), 100);
		EQ(ft_percentile(&b->st.hold, 99), 100);
	}
	EQ(a.buckets.n, 2);
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
	EQ(ft_percentile(&a.mop[FT_MOP_LOOKUP].hold, 50), 4);
	EQ(a.unpaired_start + a.unpaired_acquire + a.unpaired_release, 0);
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
	EQ(parse(&o, "--json -t 5 x.dat"), 0);
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
	EQ(parse(&o, "-t"), -1);
	EQ(parse(&o, "-t -1"), -1);
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

	EQ(bparse(&o, "-t 1,2,8 -s 128M -p 2M -r 4 -P --json"), 0);
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

		setenv("FAULTTUNE_LIBTRACECMD", "1", 1);
		ft_analysis_init(&b);
		EQ(ft_read_tracedat(path, &b), 0);
		unsetenv("FAULTTUNE_LIBTRACECMD");
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
	test_resize_cost();
	test_pairing();
	test_classification();
	test_whatif();
	test_whatif_consistent();
	test_contention_fallback();
	test_memtype();
	test_jhash();
	test_args();
	test_bench_args();
	test_bad_files();
	test_synth_file();
	test_fuzz_reader();
	test_tracefs_mounted();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
