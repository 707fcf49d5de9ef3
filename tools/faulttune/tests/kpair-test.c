// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe recorder's pairing (kpair.c) on event streams built by hand,
 * whose acquisitions are known: keys to hashes and buckets, waits and
 * holds from the times, contended from the owner and from a sleeping
 * wait, the drops that hash again, and the match against summaries.
 */
#include <stdlib.h>
#include <string.h>
#include "faulttune.h"
#include "kernel.h"
#include "out.h"
#include "tests/check.h"

#define BASE	0xffff888000100000ULL
#define STRIDE	32
#define NB	8
#define MAP	0xffff888001234560ULL

static struct ft_event outs[16];
static int nout;

static void feed(struct ft_kpair *kp, struct ft_event ev)
{
	struct ft_event out;

	if (ft_kpair_feed(kp, &ev, &out) && nout < 16)
		outs[nout++] = out;
}

static struct ft_event key(uint64_t ts, int pid, uint64_t idx, unsigned int op)
{
	return (struct ft_event){ .ts = ts, .pid = pid, .kind = FT_EV_KP_KEY,
				  .lock = -1, .mapping = MAP, .index = idx,
				  .op = op };
}

static uint64_t mutex_of(uint64_t idx)
{
	return BASE + (uint64_t)(ft_fault_hash(MAP, idx) & (NB - 1)) * STRIDE;
}

static struct ft_event unlock(uint64_t ts, int pid, uint64_t idx)
{
	return (struct ft_event){ .ts = ts, .pid = pid, .lock = -1,
				  .kind = FT_EV_KP_UNLOCK, .ip = mutex_of(idx) };
}

static struct ft_event cont(uint64_t ts, int pid, uint64_t idx, int end,
			    unsigned int flags)
{
	return (struct ft_event){ .ts = ts, .pid = pid, .lock = FT_LK_CONTENTION,
				  .kind = end ? FT_EV_ACQUIRE : FT_EV_START,
				  .mapping = mutex_of(idx), .index = flags };
}

/* the call sites the start marker says the key probe saw */
static const char *covered = "fault:x*1";

/* a start marker, with the probes' cost (kcal.c) when cal is not NULL */
/* start_cal()'s kpair leaves the probes' cost in its holds (--raw-holds) */
static int raw_holds;

static struct ft_kpair *start_cal(const char *key_func, const char *cal)
{
	struct ft_kpair *kp = ft_kpair_new(NULL, raw_holds);
	char m[320];

	ft_kpair_feeds(kp, 1);
	snprintf(m, sizeof(m), "faulttune: kprobe group=faulttune_1 key=%s "
		 "unlock=callsites:3 table=0x%llx nbuckets=%d stride=%d "
		 "covered=%s uncovered=none%s%s\n", key_func, BASE, NB, STRIDE,
		 covered, cal ? " probe_cost=" : "", cal ? cal : "");
	feed(kp, (struct ft_event){ .kind = FT_EV_MARKER, .lock = -1,
				    .marker = m });
	nout = 0;
	return kp;
}

static struct ft_kpair *start(const char *key_func)
{
	return start_cal(key_func, NULL);
}

/* two tasks on one key: the second waits (spins, then sleeps) */
static void test_pair(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_lock");
	uint32_t h = ft_fault_hash(MAP, 5);

	feed(kp, key(1000, 10, 5, FT_HOP_FAULT));
	feed(kp, key(1100, 11, 5, FT_HOP_FAULT));
	feed(kp, cont(1150, 11, 5, 0, 3));	/* LCB_F_SPIN | LCB_F_MUTEX */
	feed(kp, cont(1160, 11, 5, 0, 2));	/* sleeps */
	feed(kp, unlock(5000, 10, 5));
	feed(kp, cont(5200, 11, 5, 1, 0));
	feed(kp, unlock(7000, 11, 5));
	CHECK(nout == 2, "two acquisitions, got %d", nout);
	CHECK(outs[0].kind == FT_EV_HOLD && outs[0].lock == FT_LK_HUGETLB,
	      "a hold summary of the fault mutex");
	CHECK(outs[0].hash == h && outs[0].bucket == (h & (NB - 1)) &&
	      outs[0].nbuckets == NB, "hash %x bucket %u nbuckets %u",
	      outs[0].hash, outs[0].bucket, outs[0].nbuckets);
	CHECK(!outs[0].contended && outs[0].wait_ns == 0 &&
	      outs[0].hold_ns == 4000, "first: free, hold 4000, got %d %llu %llu",
	      outs[0].contended, (unsigned long long)outs[0].wait_ns,
	      (unsigned long long)outs[0].hold_ns);
	CHECK(outs[1].contended && outs[1].wait_ns == 4100 &&
	      outs[1].hold_ns == 1800, "second: contended, wait 4100, hold 1800, "
	      "got %d %llu %llu", outs[1].contended,
	      (unsigned long long)outs[1].wait_ns,
	      (unsigned long long)outs[1].hold_ns);
	CHECK(outs[1].ts == 7000 && outs[1].pid == 11, "at the release, its task");
	ft_kpair_free(kp);
}

/*
 * A request between a release and the waiter it hands the mutex to finds
 * no owner, but waits for that waiter (spinning, never asleep): contended,
 * as the trylock it made then failed.  A task that took the bucket before
 * anybody else did is not.
 */
static void test_handover(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_lock");

	feed(kp, key(1000, 20, 5, FT_HOP_FAULT));	/* holds */
	feed(kp, key(1100, 21, 5, FT_HOP_FAULT));	/* waits */
	feed(kp, cont(1150, 21, 5, 0, 3));
	feed(kp, unlock(5000, 20, 5));
	feed(kp, key(5050, 22, 5, FT_HOP_FAULT));	/* asks in the gap */
	feed(kp, cont(5060, 22, 5, 0, 3));		/* and spins */
	feed(kp, cont(5100, 21, 5, 1, 0));		/* the waiter has it */
	feed(kp, unlock(6000, 21, 5));
	feed(kp, cont(6100, 22, 5, 1, 0));
	feed(kp, unlock(7000, 22, 5));
	feed(kp, key(8000, 23, 5, FT_HOP_FAULT));	/* alone again */
	feed(kp, cont(8010, 23, 5, 0, 3));
	feed(kp, cont(8020, 23, 5, 1, 0));
	feed(kp, unlock(9000, 23, 5));
	CHECK(nout == 4, "four acquisitions, got %d", nout);
	CHECK(!outs[0].contended && outs[1].contended,
	      "the holder free, the waiter contended: %d %d", outs[0].contended,
	      outs[1].contended);
	CHECK(outs[2].pid == 22 && outs[2].contended && outs[2].wait_ns == 1050,
	      "asked in the gap: contended, wait 1050, got pid %d %d %llu",
	      outs[2].pid, outs[2].contended,
	      (unsigned long long)outs[2].wait_ns);
	CHECK(outs[3].pid == 23 && !outs[3].contended,
	      "alone after them: free, got pid %d %d", outs[3].pid,
	      outs[3].contended);
	ft_kpair_free(kp);
}

/* an index other than idx whose key hashes to idx's bucket */
static uint64_t same_bucket(uint64_t idx)
{
	uint64_t q;

	for (q = idx + 1; mutex_of(q) != mutex_of(idx); q++)
		;
	return q;
}

static void want(int i, int pid, int contended, uint64_t wait, uint64_t hold,
		 const char *what)
{
	CHECK(i < nout && outs[i].pid == pid && !outs[i].contended == !contended &&
	      outs[i].wait_ns == wait && outs[i].hold_ns == hold,
	      "%s: acquisition %d: pid %d %s, wait %llu, hold %llu; got pid %d "
	      "%s, wait %llu, hold %llu", what, i, pid,
	      contended ? "contended" : "free", (unsigned long long)wait,
	      (unsigned long long)hold, i < nout ? outs[i].pid : -1,
	      i < nout && outs[i].contended ? "contended" : "free",
	      i < nout ? (unsigned long long)outs[i].wait_ns : 0,
	      i < nout ? (unsigned long long)outs[i].hold_ns : 0);
}

/*
 * Two tasks hash to one bucket close together, and the later hasher
 * takes the mutex first: hashing comes before mutex_lock(), and the
 * earlier one lost the race and waits.  The later one is free (held from
 * its key: no contention event), the earlier one contended, whether it
 * only spun or slept too; with a third hasher that waits behind them.
 */
static void test_later_owns(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_hash");
	uint64_t q = same_bucket(5), r = same_bucket(q);

	/* the earlier hasher spins only, and is handed the mutex */
	feed(kp, key(1000, 60, 5, 0));
	feed(kp, key(1100, 61, q, 0));		/* takes it at once */
	feed(kp, cont(1150, 60, 5, 0, 3));	/* LCB_F_SPIN | LCB_F_MUTEX */
	feed(kp, unlock(1400, 61, q));
	feed(kp, cont(1420, 60, 5, 1, 0));
	feed(kp, unlock(2000, 60, 5));
	CHECK(nout == 2, "spin: two acquisitions, got %d", nout);
	want(0, 61, 0, 0, 300, "spin: the later hasher took it at once");
	want(1, 60, 1, 420, 580, "spin: the earlier hasher waited for it");
	ft_kpair_free(kp);

	/* the earlier hasher sleeps */
	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(1000, 60, 5, 0));
	feed(kp, key(1100, 61, q, 0));
	feed(kp, cont(1150, 60, 5, 0, 3));
	feed(kp, cont(1160, 60, 5, 0, 2));	/* sleeps */
	feed(kp, unlock(5000, 61, q));
	feed(kp, cont(5200, 60, 5, 1, 0));
	feed(kp, unlock(7000, 60, 5));
	CHECK(nout == 2, "sleep: two acquisitions, got %d", nout);
	want(0, 61, 0, 0, 3900, "sleep: the later hasher took it at once");
	want(1, 60, 1, 4200, 1800, "sleep: the earlier hasher waited for it");
	ft_kpair_free(kp);

	/* three hashers: the middle one takes it, the others wait in turn */
	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(1000, 60, 5, 0));
	feed(kp, key(1100, 61, q, 0));		/* takes it at once */
	feed(kp, key(1200, 62, r, 0));
	feed(kp, cont(1250, 60, 5, 0, 3));
	feed(kp, cont(1260, 62, r, 0, 3));
	feed(kp, unlock(2000, 61, q));
	feed(kp, cont(2010, 60, 5, 1, 0));
	feed(kp, unlock(3000, 60, 5));
	feed(kp, cont(3010, 62, r, 1, 0));
	feed(kp, unlock(4000, 62, r));
	CHECK(nout == 3, "three: three acquisitions, got %d", nout);
	want(0, 61, 0, 0, 900, "three: the middle hasher took it at once");
	want(1, 60, 1, 1010, 990, "three: the first hasher waited");
	want(2, 62, 1, 1810, 990, "three: the last hasher waited");
	ft_kpair_free(kp);
}

/*
 * The earlier hasher takes it and the later one waits: as ever.  With
 * lock debugging the owner's mutex_lock() shows lock:contention_begin
 * (spin) and _end too, before the later hasher's: that begin is no wait,
 * and the bucket stays the earlier hasher's.  A waiter that only spun is
 * contended all the same.
 */
static void test_earlier_owns(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_hash");
	uint64_t q = same_bucket(5);

	feed(kp, key(1000, 70, 5, 0));
	feed(kp, key(1100, 71, q, 0));
	feed(kp, cont(1150, 70, 5, 0, 3));	/* lock debugging: every lock */
	feed(kp, cont(1160, 70, 5, 1, 0));	/* has it */
	feed(kp, cont(1170, 71, q, 0, 3));
	feed(kp, cont(1180, 71, q, 0, 2));	/* sleeps */
	feed(kp, unlock(5000, 70, 5));
	feed(kp, cont(5100, 71, q, 1, 0));
	feed(kp, unlock(6000, 71, q));
	CHECK(nout == 2, "debug: two acquisitions, got %d", nout);
	want(0, 70, 0, 160, 3840, "debug: the earlier hasher took it");
	want(1, 71, 1, 4000, 900, "debug: the later hasher waited");
	ft_kpair_free(kp);

	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(1000, 70, 5, 0));		/* takes it at once */
	feed(kp, key(1100, 71, q, 0));
	feed(kp, cont(1150, 71, q, 0, 3));	/* spins only */
	feed(kp, unlock(1300, 70, 5));
	feed(kp, cont(1310, 71, q, 1, 0));
	feed(kp, unlock(1500, 71, q));
	CHECK(nout == 2, "spin: two acquisitions, got %d", nout);
	want(0, 70, 0, 0, 300, "spin: the earlier hasher took it at once");
	want(1, 71, 1, 210, 190, "spin: the later hasher spun for it");
	ft_kpair_free(kp);
}

/*
 * Both hashers show lock:contention_begin (lock debugging, or a holder
 * the probes do not see): the one whose contention_end comes first took
 * it, whichever hashed first; the other waited for it.  Behind a holder
 * that is seen (it hashed first) or whose release alone is seen (wp's
 * retake: an unlock without a key), both waited.
 */
static void test_both_wait(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_hash");
	uint64_t q = same_bucket(5), r = same_bucket(q);

	/* the later hasher's contention_end first */
	feed(kp, key(1000, 80, 5, 0));
	feed(kp, key(1100, 81, q, 0));
	feed(kp, cont(1150, 80, 5, 0, 3));
	feed(kp, cont(1160, 81, q, 0, 3));
	feed(kp, cont(1170, 81, q, 1, 0));	/* has it */
	feed(kp, cont(1180, 80, 5, 0, 2));	/* sleeps */
	feed(kp, unlock(5000, 81, q));
	feed(kp, cont(5100, 80, 5, 1, 0));
	feed(kp, unlock(6000, 80, 5));
	CHECK(nout == 2, "later first: two acquisitions, got %d", nout);
	want(0, 81, 0, 70, 3830, "later first: the later hasher took it");
	want(1, 80, 1, 4100, 900, "later first: the earlier hasher waited");
	ft_kpair_free(kp);

	/* the earlier hasher's contention_end first */
	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(1000, 80, 5, 0));
	feed(kp, key(1100, 81, q, 0));
	feed(kp, cont(1150, 80, 5, 0, 3));
	feed(kp, cont(1160, 81, q, 0, 3));
	feed(kp, cont(1170, 80, 5, 1, 0));	/* has it */
	feed(kp, unlock(5000, 80, 5));
	feed(kp, cont(5100, 81, q, 1, 0));	/* spun all along */
	feed(kp, unlock(6000, 81, q));
	CHECK(nout == 2, "earlier first: two acquisitions, got %d", nout);
	want(0, 80, 0, 170, 3830, "earlier first: the earlier hasher took it");
	want(1, 81, 1, 4000, 900, "earlier first: the later hasher waited");
	ft_kpair_free(kp);

	/* behind a holder that hashed first: the later waiter overtakes */
	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(900, 82, r, 0));		/* holds */
	feed(kp, key(1000, 80, 5, 0));
	feed(kp, key(1100, 81, q, 0));
	feed(kp, cont(1150, 80, 5, 0, 3));
	feed(kp, cont(1160, 81, q, 0, 3));
	feed(kp, unlock(3000, 82, r));
	feed(kp, cont(3010, 81, q, 1, 0));
	feed(kp, unlock(4000, 81, q));
	feed(kp, cont(4010, 80, 5, 1, 0));
	feed(kp, unlock(5000, 80, 5));
	CHECK(nout == 3, "holder: three acquisitions, got %d", nout);
	want(0, 82, 0, 0, 2100, "holder: free");
	want(1, 81, 1, 1910, 990, "holder: the later hasher waited");
	want(2, 80, 1, 3010, 990, "holder: the earlier hasher waited longer");
	ft_kpair_free(kp);

	/* behind a hold whose release alone is seen (no key: wp's retake) */
	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(1000, 80, 5, 0));
	feed(kp, key(1100, 81, q, 0));
	feed(kp, cont(1150, 80, 5, 0, 3));
	feed(kp, cont(1160, 81, q, 0, 3));
	feed(kp, unlock(2000, 83, r));		/* the retake's release */
	feed(kp, cont(2010, 81, q, 1, 0));
	feed(kp, unlock(3000, 81, q));
	feed(kp, cont(3010, 80, 5, 1, 0));
	feed(kp, unlock(4000, 80, 5));
	CHECK(nout == 2, "retake: two acquisitions, got %d", nout);
	want(0, 81, 1, 910, 990, "retake: the later hasher waited for it");
	want(1, 80, 1, 2010, 990, "retake: the earlier hasher waited longer");
	ft_kpair_free(kp);
}

/* the stock kernel: the op from the caller, the drops hash again */
static void test_recompute(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_hash");

	/* no kallsyms: the caller is unknown, the op other */
	feed(kp, key(100, 20, 1, 0));
	feed(kp, key(200, 20, 1, 0));	/* hugetlb_no_page's entry */
	feed(kp, unlock(300, 20, 1));
	CHECK(nout == 1, "one acquisition for a key hashed twice, got %d", nout);
	CHECK(nout == 1 && outs[0].wait_ns == 0 && outs[0].hold_ns == 200,
	      "held from the first key to the unlock");
	/* an unlock without a key (wp's retake) gives nothing */
	feed(kp, unlock(400, 20, 1));
	CHECK(nout == 1, "no acquisition from an unlock without a key");
	/* another key before the release: the first is dropped */
	feed(kp, key(500, 21, 2, 0));
	feed(kp, key(600, 21, 3, 0));
	feed(kp, unlock(700, 21, 3));
	CHECK(nout == 2 && outs[1].index == 3 && outs[1].hold_ns == 100,
	      "the last key's acquisition");
	/* an unlock of another mutex than the table's is not ours */
	feed(kp, key(800, 22, 4, 0));
	feed(kp, (struct ft_event){ .ts = 900, .pid = 22, .lock = -1,
				    .kind = FT_EV_KP_UNLOCK, .ip = BASE - STRIDE });
	CHECK(nout == 2, "an unlock outside the table is not a release");
	ft_kpair_free(kp);
}

/* summaries of the same run: matched one to one */
static void test_match(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_lock");
	char *buf = NULL;
	size_t len;
	FILE *f;

	feed(kp, key(1000, 30, 7, FT_HOP_FAULT));
	feed(kp, unlock(2000, 30, 7));
	feed(kp, (struct ft_event){ .ts = 2010, .pid = 30, .lock = FT_LK_HUGETLB,
				    .kind = FT_EV_HOLD, .mapping = MAP, .index = 7,
				    .hash = ft_fault_hash(MAP, 7), .nbuckets = NB,
				    .bucket = ft_fault_hash(MAP, 7) & (NB - 1),
				    .wait_ns = 10, .hold_ns = 990 });
	/* a summary the probes did not see */
	feed(kp, (struct ft_event){ .ts = 3000, .pid = 31, .lock = FT_LK_HUGETLB,
				    .kind = FT_EV_HOLD, .mapping = MAP, .index = 8,
				    .nbuckets = NB });
	ft_kpair_finish(kp);
	f = open_memstream(&buf, &len);
	ft_kpair_print(f, kp, FT_FMT_JSON);
	fclose(f);
	CHECK(strstr(buf, "\"summaries\":2,\"matched\":1,\"kprobe_only\":0,"
		     "\"events_only\":1,\"same_hash\":1,\"same_bucket\":1,"
		     "\"same_contended\":1,\"same_op\":1") != NULL, "match: %s", buf);
	CHECK(strstr(buf, "\"source\":\"kprobe\"") == buf + 1, "source first: %s",
	      buf);
	free(buf);
	ft_kpair_free(kp);
}

static char *printed(struct ft_kpair *kp, enum ft_fmt fmt)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ft_kpair_print(f, kp, fmt);
	fclose(f);
	return buf;
}

/*
 * Acquisitions no contention_end dated are held from the key probe: the
 * report says so, and says nothing where lock debugging dated them all.
 */
static void test_dated(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_hash");
	char *txt, *js;

	feed(kp, key(100, 40, 1, 0));
	feed(kp, unlock(300, 40, 1));
	feed(kp, key(400, 40, 2, 0));
	feed(kp, cont(450, 40, 2, 0, 3));
	feed(kp, cont(460, 40, 2, 1, 0));
	feed(kp, unlock(600, 40, 2));
	feed(kp, key(700, 40, 3, 0));
	feed(kp, unlock(900, 40, 3));
	ft_kpair_finish(kp);
	txt = printed(kp, FT_FMT_TEXT);
	js = printed(kp, FT_FMT_JSON);
	CHECK(strstr(js, "\"acquisitions\":3,") && strstr(js, "\"acquired_at_key\":2"),
	      "2 of 3 dated at the key: %s", js);
	CHECK(strstr(txt, "  holds: 67% of the acquisitions had no "
		     "lock:contention_end") != NULL, "the report says so: %s", txt);
	free(txt);
	free(js);
	ft_kpair_free(kp);

	kp = start("hugetlb_fault_mutex_hash");
	feed(kp, key(100, 41, 1, 0));
	feed(kp, cont(150, 41, 1, 0, 3));
	feed(kp, cont(160, 41, 1, 1, 0));
	feed(kp, unlock(300, 41, 1));
	ft_kpair_finish(kp);
	txt = printed(kp, FT_FMT_TEXT);
	CHECK(strstr(txt, "  holds: as recorded, with the probes' own cost "
		     "inside (not measured at record start)") != NULL,
	      "all dated by lock:contention, no cost measured: %s", txt);
	free(txt);
	ft_kpair_free(kp);
}

/*
 * The probes' cost from the start marker comes off each hold: the pair
 * that dated it, and a key-to-key span per rehash of the held key; a hold
 * shorter than that is 0, and counted.  --raw-holds leaves them.
 */
static void run_cal(struct ft_kpair *kp)
{
	feed(kp, key(100, 50, 1, 0));		/* dated at the key */
	feed(kp, unlock(300, 50, 1));
	feed(kp, key(400, 50, 2, 0));		/* and hashed again inside */
	feed(kp, key(450, 50, 2, 0));
	feed(kp, unlock(700, 50, 2));
	feed(kp, key(800, 50, 3, 0));		/* dated at contention_end */
	feed(kp, cont(850, 50, 3, 0, 3));
	feed(kp, cont(860, 50, 3, 1, 0));
	feed(kp, unlock(1000, 50, 3));
	feed(kp, key(1100, 50, 4, 0));		/* shorter than the cost */
	feed(kp, unlock(1130, 50, 4));
	ft_kpair_finish(kp);
}

/* mean taken off: (50 + 120 + 25 + 30, the clamped one) / 4 = 56 */
static void test_cal(void)
{
	struct ft_kpair *kp = start_cal("hugetlb_fault_mutex_hash", "50,70,25 "
					"probe_cost_on=__x64_sys_getpid>__task_pid_nr_ns");
	char *txt, *js;

	run_cal(kp);
	CHECK(nout == 4, "four acquisitions, got %d", nout);
	CHECK(nout == 4 && outs[0].hold_ns == 150 && outs[1].hold_ns == 300 - 50 - 70 &&
	      outs[2].hold_ns == 140 - 25 && outs[3].hold_ns == 0,
	      "holds 150 180 115 0, got %llu %llu %llu %llu",
	      (unsigned long long)outs[0].hold_ns, (unsigned long long)outs[1].hold_ns,
	      (unsigned long long)outs[2].hold_ns, (unsigned long long)outs[3].hold_ns);
	CHECK(outs[2].wait_ns == 60, "the wait is not corrected: %llu",
	      (unsigned long long)outs[2].wait_ns);
	txt = printed(kp, FT_FMT_TEXT);
	js = printed(kp, FT_FMT_JSON);
	CHECK(strstr(js, "\"probe_cost\":{\"measured\":true,\"key_unlock_ns\":50,"
		     "\"key_key_ns\":70,\"end_unlock_ns\":25,\"holds_corrected\":4,"
		     "\"clamped\":1,\"mean_correction_ns\":56}") != NULL,
	      "json: %s", js);
	CHECK(strstr(txt, "holds: the probes' own cost taken off each (measured at "
		     "record start on __x64_sys_getpid>__task_pid_nr_ns") &&
	      strstr(txt, "1 of 4 holds shorter than it"), "text: %s", txt);
	free(txt);
	free(js);
	ft_kpair_free(kp);

	raw_holds = 1;
	kp = start_cal("hugetlb_fault_mutex_hash", "50,70,25");
	run_cal(kp);
	CHECK(nout == 4 && outs[0].hold_ns == 200 && outs[1].hold_ns == 300 &&
	      outs[2].hold_ns == 140 && outs[3].hold_ns == 30,
	      "--raw-holds: as recorded");
	txt = printed(kp, FT_FMT_TEXT);
	CHECK(strstr(txt, "holds: 75% of the acquisitions had no lock:contention_end") &&
	      strstr(txt, "(--raw-holds: on production-like"), "raw text: %s", txt);
	free(txt);
	ft_kpair_free(kp);
	raw_holds = 0;
}

/*
 * A decode that disagrees with itself is refused: releases of another
 * bucket than their key's hash beyond 1% (and more than 2), or no call
 * site on the fault path; a correct one, or one wrong release in many
 * (a lost event), is not.
 */
static void test_refusal(void)
{
	struct ft_kpair *kp = start("hugetlb_fault_mutex_lock");
	uint64_t idx, other;
	int i;

	for (i = 0; i < 300; i++) {
		feed(kp, key(1000 + 10 * i, 30, i, FT_HOP_FAULT));
		feed(kp, unlock(1005 + 10 * i, 30, i));
	}
	ft_kpair_finish(kp);
	CHECK(!ft_kpair_refusal(kp), "300 releases of their key's bucket: "
	      "not refused (%s)", ft_kpair_refusal(kp) ?: "");
	/* an index whose bucket differs from 0's */
	for (other = 1; mutex_of(other) == mutex_of(0); other++)
		;
	for (i = 0; i < 4; i++) {
		idx = 0;
		feed(kp, key(10000 + 10 * i, 31, idx, FT_HOP_FAULT));
		feed(kp, unlock(10005 + 10 * i, 31, other));
	}
	ft_kpair_finish(kp);
	CHECK(ft_kpair_refusal(kp) && strstr(ft_kpair_refusal(kp),
					     "4 of 304 releases"),
	      "4 of 304 releases of another bucket (over 1%%): refused (%s)",
	      ft_kpair_refusal(kp) ?: "not refused");
	ft_kpair_free(kp);

	kp = start("hugetlb_fault_mutex_lock");
	for (i = 0; i < 300; i++) {
		feed(kp, key(1000 + 10 * i, 30, i, FT_HOP_FAULT));
		feed(kp, unlock(1005 + 10 * i, 30, i ? (uint64_t)i : other));
	}
	ft_kpair_finish(kp);
	CHECK(!ft_kpair_refusal(kp), "1 of 300 of another bucket (a lost "
	      "event): not refused (%s)", ft_kpair_refusal(kp) ?: "");
	ft_kpair_free(kp);

	covered = "fallocate:hugetlbfs_fallocate*1,punch:remove_inode_hugepages*1";
	kp = start("hugetlb_fault_mutex_hash");
	covered = "fault:x*1";
	feed(kp, key(1000, 30, 1, FT_HOP_FALLOCATE));
	feed(kp, unlock(1005, 30, 1));
	ft_kpair_finish(kp);
	CHECK(ft_kpair_refusal(kp) && strstr(ft_kpair_refusal(kp),
					     "no call site on the fault path"),
	      "no fault-path call site seen: refused (%s)",
	      ft_kpair_refusal(kp) ?: "not refused");
	ft_kpair_free(kp);
}

/* a compiler's copies of a caller are that caller */
static void test_clones(void)
{
	static const char *const same[] = {
		"hugetlb_no_page", "hugetlb_no_page.isra.0",
		"hugetlb_no_page.constprop.0", "hugetlb_no_page.part.0",
		"hugetlb_no_page.cold", "hugetlb_no_page.isra.0.cold",
	};
	unsigned int op = FT_HOP_OTHER;
	size_t i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		op = FT_HOP_OTHER;
		CHECK(!ft_kprobe_caller_op(same[i], &op) && op == FT_HOP_FAULT,
		      "%s: the fault op's caller", same[i]);
	}
	CHECK(ft_kprobe_caller_op("hugetlb_no_pages", &op) &&
	      ft_kprobe_caller_op("xhugetlb_fault", &op),
	      "another name with the same start is not a copy");
	CHECK(!ft_kprobe_caller_op("mfill_atomic_copy", &op) &&
	      op == FT_HOP_UFFD_COPY && !ft_ksym_is("mfill_atomic_copy",
						  "mfill_atomic"),
	      "mfill_atomic_copy is its own caller, not a copy of mfill_atomic");
}

/*
 * The key at the hash's locking call sites (key_at=): a hold dropped to
 * wait shows no rehash, and the marker's drops= names its release sites.
 */
#define WP_SITE		0xffffffff81001000ULL
#define UF_SITE		0xffffffff81002000ULL
#define FAULT_SITE	0xffffffff81003000ULL

static struct ft_kpair *start_sites(const char *sites)
{
	struct ft_kpair *kp = ft_kpair_new(NULL, 0);
	char m[512];

	ft_kpair_feeds(kp, 1);
	snprintf(m, sizeof(m), "faulttune: kprobe group=faulttune_1 "
		 "key=hugetlb_fault_mutex_hash unlock=callsites:3 "
		 "table=0x%llx nbuckets=%d stride=%d%s covered=fault:x*1 "
		 "uncovered=none\n", BASE, NB, STRIDE, sites);
	feed(kp, (struct ft_event){ .kind = FT_EV_MARKER, .lock = -1,
				    .marker = m });
	nout = 0;
	return kp;
}

static struct ft_event unlock_at(uint64_t ts, int pid, uint64_t idx,
				 uint64_t site)
{
	struct ft_event ev = unlock(ts, pid, idx);

	ev.mapping = site;
	return ev;
}

static void test_drops(void)
{
	struct ft_kpair *kp = start_sites(" key_at=callsites:2 drops=0x"
					  "ffffffff81001000:wp,0xffffffff"
					  "81002000:userfault");

	feed(kp, key(1000, 10, 5, FT_HOP_FAULT));
	feed(kp, unlock_at(2000, 10, 5, WP_SITE));
	feed(kp, key(3000, 10, 6, FT_HOP_FAULT));
	feed(kp, unlock_at(4000, 10, 6, UF_SITE));
	feed(kp, key(5000, 10, 7, FT_HOP_FAULT));
	feed(kp, unlock_at(6000, 10, 7, FAULT_SITE));
	CHECK(nout == 3, "three acquisitions, got %d", nout);
	CHECK(nout == 3 && outs[0].op == FT_HOP_WP &&
	      outs[1].op == FT_HOP_USERFAULT && outs[2].op != FT_HOP_WP &&
	      outs[2].op != FT_HOP_USERFAULT,
	      "the drops' ops from their release sites: %s %s, the other "
	      "release none (%s)", ft_hop_name(outs[0].op),
	      ft_hop_name(outs[1].op), ft_hop_name(outs[2].op));
	CHECK(outs[0].hold_ns == 1000 && outs[1].hold_ns == 1000,
	      "a dropped hold ends at its drop: %llu %llu",
	      (unsigned long long)outs[0].hold_ns,
	      (unsigned long long)outs[1].hold_ns);
	ft_kpair_free(kp);

	/* an older recording (key at the hash's entry): its sites name nothing */
	kp = start_sites("");
	feed(kp, key(1000, 10, 5, FT_HOP_FAULT));
	feed(kp, unlock_at(2000, 10, 5, WP_SITE));
	CHECK(nout == 1 && outs[0].op != FT_HOP_WP,
	      "without key_at=, a release site names no op (%s)",
	      nout ? ft_hop_name(outs[0].op) : "none");
	ft_kpair_free(kp);
}


/* a release probed before its call (unlock_jN): the register it scales */
static struct ft_event unlock_j(uint64_t ts, int pid, uint64_t idx, int n,
				unsigned int scale)
{
	struct ft_event ev = unlock(ts, pid, idx);

	ev.index = n + 1;
	ev.ip = (ev.ip - BASE) / scale;
	return ev;
}

/*
 * Releases probed before their call (kjump.c): the mutex is the table's
 * address plus the marker's scale times the fetched register, and their
 * holds lose the jump's calibration (probe_cost_jump=), not the call
 * site's.  A decode whose mutexes fall outside the table is refused.
 */
static void test_jumps(void)
{
	struct ft_kpair *kp = start_sites(" unlock_jump=8:dx,1:r14,32:di "
					  "probe_cost=50,70,25 probe_cost_jump=20,10");
	const char *why;
	char *js;
	int i;

	feed(kp, key(100, 50, 1, 0));
	feed(kp, unlock_j(300, 50, 1, 0, 8));
	feed(kp, key(400, 50, 2, 0));
	feed(kp, unlock_j(700, 50, 2, 1, 1));
	feed(kp, key(800, 50, 3, 0));
	feed(kp, cont(850, 50, 3, 0, 3));
	feed(kp, cont(860, 50, 3, 1, 0));
	feed(kp, unlock_j(1000, 50, 3, 0, 8));
	feed(kp, key(1100, 50, 4, 0));
	feed(kp, unlock(1300, 50, 4));
	feed(kp, key(1400, 50, 5, 0));			/* a shift's scale */
	feed(kp, unlock_j(1500, 50, 5, 2, 32));
	CHECK(nout == 5, "five acquisitions, got %d", nout);
	CHECK(nout == 5 && outs[0].hold_ns == 200 - 20 && outs[1].hold_ns == 300 - 20 &&
	      outs[2].hold_ns == 140 - 10 && outs[3].hold_ns == 200 - 50 &&
	      outs[4].hold_ns == 100 - 20,
	      "holds 180 280 130 150 80, got %llu %llu %llu %llu %llu",
	      (unsigned long long)outs[0].hold_ns, (unsigned long long)outs[1].hold_ns,
	      (unsigned long long)outs[2].hold_ns, (unsigned long long)outs[3].hold_ns,
	      (unsigned long long)outs[4].hold_ns);
	CHECK(nout == 5 && outs[0].bucket == (ft_fault_hash(MAP, 1) & (NB - 1)) &&
	      outs[1].bucket == (ft_fault_hash(MAP, 2) & (NB - 1)) &&
	      outs[4].bucket == (ft_fault_hash(MAP, 5) & (NB - 1)),
	      "the jumps' buckets are their keys'");
	js = printed(kp, FT_FMT_JSON);
	CHECK(strstr(js, "\"bucket_mismatch\":0,\"jump_releases\":4,"
		     "\"jump_outside\":0,\"probe_cost_jump\":{\"key_unlock_ns\":20,"
		     "\"end_unlock_ns\":10}") != NULL, "json: %s", js);
	free(js);
	CHECK(ft_kpair_refusal(kp) == NULL, "a right decode is not refused: %s",
	      ft_kpair_refusal(kp));
	ft_kpair_free(kp);

	/* the register is not the mutex's offset: every mutex outside */
	kp = start_sites(" unlock_jump=8:dx");
	for (i = 0; i < 20; i++) {
		struct ft_event ev = unlock_j(200 + 1000 * i, 50, i, 0, 8);

		ev.ip += NB * STRIDE;
		feed(kp, key(100 + 1000 * i, 50, i, 0));
		feed(kp, ev);
	}
	ft_kpair_finish(kp);
	why = ft_kpair_refusal(kp);
	CHECK(nout == 0, "no release outside the table pairs, got %d", nout);
	CHECK(why && strstr(why, "20 of 20 releases probed before their call were "
			    "of no mutex of the table"), "refused: %s", why ? why : "no");
	ft_kpair_free(kp);

	/* a marker without unlock_jump=: its jump releases are not guessed */
	kp = start_sites("");
	feed(kp, key(100, 50, 1, 0));
	feed(kp, unlock_j(300, 50, 1, 0, 8));
	CHECK(nout == 0, "no scale, no release: %d", nout);
	ft_kpair_free(kp);
}

/*
 * kjump.c on the bytes compilers emitted before calls of mutex_unlock()
 * (objdump of the kernels built here): the probe's place, the register
 * and its scale; and what must not match.
 */
static void test_kjump(void)
{
	/* 7.3.4 production: hugetlb_no_page+0x22e, the refault's release */
	static const unsigned char a[] = {
		0x48, 0x8b, 0x05, 0x83, 0x0b, 0x58, 0x00,	/* mov table(%rip),%rax */
		0x48, 0x8d, 0x3c, 0xd0,				/* lea (%rax,%rdx,8),%rdi */
	};
	/* 6.12 debug: hugetlb_fault */
	static const unsigned char b[] = {
		0x48, 0x8b, 0x3d, 0x73, 0xd9, 0x77, 0x00,	/* mov table(%rip),%rdi */
		0x4c, 0x01, 0xf7,				/* add %r14,%rdi */
	};
	/* 6.12 debug: hugetlbfs_fallocate */
	static const unsigned char c[] = {
		0x48, 0x03, 0x1d, 0xd0, 0x20, 0x6e, 0x00,	/* add table(%rip),%rbx */
		0x48, 0x89, 0xdf,				/* mov %rbx,%rdi */
	};
	/* 6.12 production: hugetlb_fault+0xa27, the refault's rehash, %edi << 5 */
	static const unsigned char d[] = {
		0x48, 0xc1, 0xe7, 0x05,				/* shl $0x5,%rdi */
		0x48, 0x03, 0x3d, 0x0e, 0xc5, 0x58, 0x00,	/* add table(%rip),%rdi */
	};
	/* 6.12 debug: hugetlb_wp, the mutex in %rdi before the table's add */
	static const unsigned char wp[] = {
		0x4c, 0x89, 0xef,				/* mov %r13,%rdi */
		0x48, 0x03, 0x3d, 0xff, 0xdf, 0x77, 0x00,	/* add table(%rip),%rdi */
		0x4c, 0x89, 0x2c, 0x24,				/* mov %r13,(%rsp) */
	};
	/* jb -3 at 0x1003 lands on 0x1002: inside the 10 bytes before 0x100c */
	static const unsigned char jmp[] = { 0x90, 0x90, 0x90, 0x72, 0xfd };
	/* shl $0x3a,%rcx (48 c1 e1 3a): e1 3a would be a loopz there */
	static const unsigned char shl[] = { 0x48, 0xc1, 0xe1, 0x3a };
	struct ft_kjump j;
	uint64_t from[2];

	CHECK(ft_kjump_match(a, sizeof(a), 0xffffffff811fd6f9ULL,
			     0xffffffff8177e278ULL, &j) &&
	      j.at == 0xffffffff811fd6eeULL && !strcmp(j.reg, "dx") && j.scale == 8,
	      "A: at %llx %s x%u", (unsigned long long)j.at, j.reg, j.scale);
	CHECK(!ft_kjump_match(a, sizeof(a), 0xffffffff811fd6f9ULL,
			      0xffffffff8177e270ULL, &j),
	      "A whose operand is not the table's pointer");
	CHECK(ft_kjump_match(b, sizeof(b), 0xffffffff8123a7a0ULL,
			     0xffffffff819b8110ULL, &j) &&
	      j.at == 0xffffffff8123a796ULL && !strcmp(j.reg, "r14") && j.scale == 1,
	      "B: at %llx %s x%u", (unsigned long long)j.at, j.reg, j.scale);
	CHECK(ft_kjump_match(c, sizeof(c), 0xffffffff812d6043ULL,
			     0xffffffff819b8110ULL, &j) &&
	      j.at == 0xffffffff812d6039ULL && !strcmp(j.reg, "bx") && j.scale == 1,
	      "C: at %llx %s x%u", (unsigned long long)j.at, j.reg, j.scale);
	CHECK(ft_kjump_match(d, sizeof(d), 0xffffffff811cac02ULL,
			     0xffffffff81757110ULL, &j) &&
	      j.at == 0xffffffff811cabf7ULL && !strcmp(j.reg, "di") && j.scale == 32,
	      "D: at %llx %s x%u", (unsigned long long)j.at, j.reg, j.scale);
	CHECK(!ft_kjump_into(shl, sizeof(shl), 0x1000, 0x1002, 0x1040, NULL, 0),
	      "a loopz's byte inside a shift is no jump");
	CHECK(!ft_kjump_match(wp, sizeof(wp), 0xffffffff8123a115ULL,
			      0xffffffff819b8110ULL, &j), "hugetlb_wp's shape is none");
	CHECK(ft_kjump_into(jmp, sizeof(jmp), 0x1000, 0x1001, 0x100c, from, 2) == 1 &&
	      from[0] == 0x1003 &&
	      !ft_kjump_into(jmp, sizeof(jmp), 0x1000, 0x1002, 0x100c, from, 2) &&
	      !ft_kjump_into(jmp, sizeof(jmp), 0x1000, 0x1000, 0x1001, from, 2),
	      "a jump into (at, call] is seen, from where, one to at itself or "
	      "outside is not");
}

int main(void)
{
	test_refusal();
	test_clones();
	test_pair();
	test_handover();
	test_later_owns();
	test_earlier_owns();
	test_both_wait();
	test_recompute();
	test_match();
	test_dated();
	test_cal();
	test_drops();
	test_jumps();
	test_kjump();
	return check_done("kpair-test");
}
