/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the analysis (lib/analysis).  The core (analysis.c) knows
 * nothing about trace.dat or tracefs: readers turn records into struct
 * ft_event and feed them to a struct ft_analysis; beside the core, the
 * consumers a caller registers (the lock:contention fallback), true
 * sharing, and the holds kept for the model.
 */
#ifndef FT_ANALYSIS_H
#define FT_ANALYSIS_H

#include "event.h"
#include "util.h"

/* growable vector of u64 samples */
struct ft_vec {
	uint64_t *v;
	size_t n, cap;
	int sorted;		/* v[0..n) ascending: set by ft_percentile */
};
int ft_vec_push(struct ft_vec *vec, uint64_t x);
void ft_vec_free(struct ft_vec *vec);
/* nearest-rank percentile, q in [0,100]; sorts the vector; 0 when empty */
uint64_t ft_percentile(struct ft_vec *vec, double q);

struct ft_stats {
	uint64_t acq;		/* acquisitions (acquire_returned events) */
	uint64_t contended;
	uint64_t collisions;	/* contended, bucket last held by another key */
	uint64_t sharing;	/* contended, bucket last held by the same key */
	uint64_t unknown;	/* contended, previous holder not seen */
	uint64_t wait_total, wait_max;
	uint64_t coll_wait, share_wait;
	struct ft_hist wait;	/* wait_ns of contended acquisitions */
	struct ft_hist hold;	/* hold_ns of releases with hold_ns > 0 */
	uint64_t releases;
};
void ft_stats_free(struct ft_stats *s);

/* completed hold of a hugetlb fault mutex: input of the model (model.h) */
struct ft_hold {
	uint64_t req_ts, acq_ts, rel_ts;
	uint64_t mapping, index;
	uint32_t hash;
	uint32_t op;		/* enum ft_hop */
	int pid;		/* the task: one stream of faults */
	int collided;		/* it waited behind another key (a collision) */
};

struct ft_bucket_stats {
	uint32_t nbuckets, bucket;
	struct ft_stats st;
};

struct ft_lockaddr_stats {
	uint64_t addr;
	uint32_t flags;
	struct ft_stats st;
};

/*
 * What a reader could not use, per CPU: counted and reported, never
 * dropped in silence (report exits non-zero on any unless --force).
 */
struct ft_cpu_skips {
	uint64_t bad_pages;	/* page header with an impossible commit size */
	uint64_t bad_headers;	/* event header running past its page's data */
	uint64_t skipped_bytes;	/* data bytes not decoded because of those */
	uint64_t short_records;	/* record too short for its event's fields */
	uint64_t implausible;	/* wait_ns / hold_ns above FT_IMPLAUSIBLE_NS */
	uint64_t unknown_ids;	/* record whose event id no format has */
};
#define FT_SKIP_NCPUS	8192	/* the readers' limit on a file's CPU count */
/* no mutex wait or hold of a sane trace lasts a day */
#define FT_IMPLAUSIBLE_NS (86400ULL * 1000000000ULL)

/*
 * sample.c: the holds kept for the model and the what-if.  All of them up
 * to a budget of FT_SAMPLE_HOLDS; past it, whole windows of release time
 * (FT_SAMPLE_WINDOW_NS, or budget / FT_SAMPLE_WINDOWS_MIN holds when a
 * window holds more), each kept with the same probability.
 */
#define FT_SAMPLE_HOLDS		131072		/* 7 MB of struct ft_hold */
#define FT_SAMPLE_WINDOW_NS	10000000ULL	/* 10 ms */
#define FT_SAMPLE_WINDOWS_MIN	64

struct ft_sample_win {
	uint64_t seq, prio;	/* its number in the recording, its priority */
	size_t first, n;	/* its holds: a->holds[first .. first + n) */
};

struct ft_sample {
	size_t budget;		/* holds kept at most; 0: FT_SAMPLE_HOLDS */
	uint64_t threshold;	/* a window is kept iff its priority <= it */
	int halvings;		/* of the threshold: 0, every hold kept */
	uint64_t holds;		/* completed holds seen, kept or not */
	uint64_t fault_ns;	/* their request-to-release time, summed */
	uint64_t windows, seq;	/* windows seen */
	struct ft_sample_win *win;	/* the kept ones, in time order */
	size_t nwin, capwin;
	uint64_t cur_idx;	/* the open window: its time index */
	uint32_t cur_n;		/* its holds so far */
	int cur_kept;
};

struct ft_consumer_ops;

struct ft_consumer_ops;
#define FT_CONSUMERS_MAX 4	/* registered on one analysis */

struct ft_analysis {
	struct ft_stats hop[FT_HOP_NR];
	struct ft_stats mop[FT_MOP_NR];
	struct ft_stats hall;	/* all hugetlb ops */
	struct ft_stats mall;	/* all memtype ops */
	struct ft_map buckets;	/* (nbuckets << 32 | bucket) -> ft_bucket_stats */
	struct ft_map bstate;	/* same key -> last holder */
	struct ft_map tasks;	/* (lock << 40 | pid) -> pairing state */
	struct ft_map comms;	/* pid + 1 -> its name, the recording's (char *) */
#define FT_TASK_CACHE	64
	void *task_cache[FT_TASK_CACHE];	/* some of tasks' values (analysis.c) */
#define FT_BUCKET_CACHE	256
	void *bucket_cache[FT_BUCKET_CACHE];	/* and of buckets' */
	void *bstate_cache[FT_BUCKET_CACHE];	/* and of bstate's */
	struct ft_map lockaddrs;/* contention fallback: addr -> ft_lockaddr_stats */
	struct ft_stats call;	/* all lock:contention */
	struct ft_hold *holds;	/* kept holds (sample.c), in release order */
	size_t nholds, capholds;
	struct ft_sample sample;
	uint64_t nev[FT_LK_NR];
	uint64_t markers, resizes;
	uint64_t unpaired_start, unpaired_acquire, unpaired_release;
	/* *_hold summaries read, and those skipped: the trio of the same
	 * lock is in the recording too and describes the same holds */
	uint64_t summaries, summaries_skipped;
	int trio_seen[FT_LK_NR];
	uint64_t key_mismatch;	/* release of another key than acquired */
	uint64_t acquire_nostart;/* uncontended acquire without start event */
	uint64_t open_at_end;	/* sequences still open when the trace ended */
	uint64_t hash_mismatch;	/* bucket != hash & (nbuckets - 1) */
	uint64_t jhash_mismatch;/* hash != jhash2(mapping, index) */
	uint64_t lost_events;	/* sum of known missed events */
	uint64_t lost_unknown;	/* pages with missed events of unknown count */
	uint32_t max_nbuckets;
	uint32_t nbuckets_seen[32];	/* bitmap by log2 */
	uint64_t first_ts, last_ts;
	struct {
		uint32_t old_n, new_n;
		uint64_t dur;
		int result;
	} last_resize;
	struct ft_vec resize_end, resize_dur;	/* every resize event */
	struct ft_cpu_skips *skips;	/* [nskips], grown on demand */
	int nskips;
	int nomem;		/* an allocation failed: the numbers are incomplete */
	/*
	 * The consumers beside this core that the caller registered, fed
	 * by consumers.c; analysis.c never looks at them.
	 */
	struct ft_consumer {
		const struct ft_consumer_ops *ops;
		void *state;	/* NULL: not started (the file lacks its event) */
	} consumers[FT_CONSUMERS_MAX];
	int nconsumers;
	int contention_claimed;	/* a started one pairs lock:contention */
	struct ft_kpair *kpair;	/* the file has the kprobe recorder's events */
	/* the reader's, which made the kpair: the analysis frees it with this */
	void (*kpair_free)(struct ft_kpair *kp);
};

/*
 * analysis.c: the faulttune-event analysis (the core).  ft_analysis_init,
 * _lost, _finish, _skips and _skipped are the core's own; a record goes in
 * through ft_analysis_feed() and everything is freed by ft_analysis_free()
 * (consumers.c), which hand it to the core through these two.
 */
void ft_core_feed(struct ft_analysis *a, const struct ft_event *ev,
		  int contention_elsewhere);
void ft_core_free(struct ft_analysis *a);
void ft_analysis_init(struct ft_analysis *a);
void ft_analysis_lost(struct ft_analysis *a, int cpu, long long missed);
void ft_analysis_finish(struct ft_analysis *a);
/* the skip counters of cpu (NULL, and a->nomem set, when out of memory) */
struct ft_cpu_skips *ft_analysis_skips(struct ft_analysis *a, int cpu);
/* sum over CPUs into *sum; returns the number of things skipped */
uint64_t ft_analysis_skipped(const struct ft_analysis *a,
			     struct ft_cpu_skips *sum);
/* 0, with one error line, when a is incomplete (nomem, or skips without force) */
enum ft_use { FT_USE_REPORT, FT_USE_ADVICE };
int ft_analysis_usable(const struct ft_analysis *a, const char *file,
		       int force, enum ft_use use);

/*
 * consumers.c: the reader's records to the consumers its caller registers.
 * The caller of ft_read_tracedat() (report, watch) registers on the
 * analysis, after ft_analysis_init(), each consumer it needs beside the
 * core.  Once it knows the file's event formats, the reader calls
 * ft_consumers_start(), which starts those whose event the file has; then
 * ft_analysis_feed() for every record hands it to each started consumer,
 * in the order registered, and to the core; ft_analysis_free() frees them
 * all.  A consumer knows neither the core nor the other consumers, nor
 * the core or the reader it.
 */
struct ft_consumer_ops {
	/* started only on a file with this event's format (NULL: on any) */
	const char *sys, *event;
	/* pairs lock:contention_begin/end itself: the core only counts them */
	int claims_contention;
	/* its state for file (NULL: out of memory, the consumer stays off) */
	void *(*start)(const char *file);
	void (*feed)(void *state, const struct ft_event *ev);
	void (*free)(void *state);
};
/*
 * ops on a; state: already started (owned by a from now on, freed on
 * error), NULL: started by ft_consumers_start().  0, or -1 when full.
 */
int ft_consumer_register(struct ft_analysis *a,
			 const struct ft_consumer_ops *ops, void *state);
/* the state of ops registered on a; NULL: not registered or not started */
void *ft_consumer_state(const struct ft_analysis *a,
			const struct ft_consumer_ops *ops);
struct tep_handle;
void ft_consumers_start(struct ft_analysis *a, const char *file,
			struct tep_handle *tep);
void ft_analysis_feed(struct ft_analysis *a, const struct ft_event *ev);

/* sharing.c: who waits behind whom on the same page (true sharing) */
enum { FT_BEHIND_FIRST_TOUCH, FT_BEHIND_AGAIN, FT_BEHIND_TRUNCATION,
       FT_BEHIND_NR };
#define FT_SHARE_PIDS		6	/* waiters named per page */
#define FT_SHARE_COMM		16	/* TASK_COMM_LEN */
#define FT_SHARE_TOP		5	/* pages shown */
#define FT_SHARE_MAX_PAGES	65536
struct ft_share_page {
	uint64_t mapping, index;
	uint64_t wait_ns, waits;	/* behind this page's own holds */
	uint64_t behind_ns[FT_BEHIND_NR];	/* the wait, by what was held */
	int pids[FT_SHARE_PIDS], npids;		/* the waiters */
	char comm[FT_SHARE_PIDS][FT_SHARE_COMM];
	int holder_pid;			/* the hold waited behind the longest */
	uint32_t holder_op;
	uint64_t holder_hold_ns;
	char holder_comm[FT_SHARE_COMM];
};
struct ft_sharing {
	uint64_t fault_ns, wait_ns, waits, coll_wait_ns;
	uint64_t behind_ns[FT_BEHIND_NR];
	struct ft_share_page *pages;	/* with same-page waits */
	size_t npages, cap, pages_dropped;
};
/* a's holds into s (runs add up); -1: out of memory */
int ft_sharing_add(struct ft_sharing *s, const struct ft_analysis *a);
/* the pages by wait, most first: before the output */
void ft_sharing_sort(struct ft_sharing *s);
double ft_sharing_pct(const struct ft_sharing *s);
/* same-page waits over the target, or more than the collisions' */
int ft_sharing_matters(const struct ft_sharing *s, double target_pct);
/* first touches carry most of the wait: the remedy to name, else NULL */
const char *ft_sharing_remedy(const struct ft_sharing *s);
void ft_sharing_free(struct ft_sharing *s);
void ft_analysis_free(struct ft_analysis *a);

/* sample.c: see struct ft_sample */

int ft_sample_push(struct ft_analysis *a, const struct ft_hold *h);
int ft_sample_used(const struct ft_analysis *a);
uint32_t ft_sample_window_max(const struct ft_analysis *a);
size_t ft_sample_budget(const struct ft_analysis *a);

/* "FILE: the model takes a sample ..." on stderr, when sampled */
void ft_sample_note(const struct ft_analysis *a, const char *file);
void ft_sample_free(struct ft_analysis *a);

/*
 * Resize cost from a recording: every resize event and the acquisitions
 * whose wait overlapped one ([ts - duration, ts]), against the median
 * locked time of a fault (request to release), the unit of "stall".
 */
struct ft_resize_cost {
	uint64_t resizes;
	uint64_t dur_median, dur_max;		/* ns */
	uint64_t fault_median;			/* ns, request to release */
	uint64_t overlapping;			/* acquisitions overlapping */
	uint64_t others;			/* and those that did not */
	uint64_t stall_max, stall_median;	/* ns, their wait */
	uint64_t other_wait_max, other_wait_p99;/* ns, the others' wait */
	int nomem;				/* out of memory: not computed */
};
void ft_resize_cost(const struct ft_analysis *a, struct ft_resize_cost *rc);

/*
 * fallback.c: on a kernel without the faulttune events, name the locks of
 * lock:contention_begin/end from kallsyms and the kernel stack recorded
 * with each contention_begin, find the fault mutex and memtype_lock waits
 * and say whether the patched kernel would be worth installing.
 */
struct ft_fallback;
struct ft_ksyms;
/*
 * The consumer to register (consumers.c): started on a file that records
 * lock:contention_begin, with the kallsyms stored in the file; its state
 * is the struct ft_fallback.
 */
extern const struct ft_consumer_ops ft_fallback_consumer;
/* one naming locks from ks (owned), to register already started */
struct ft_fallback *ft_fallback_new(struct ft_ksyms *ks, const char *from);
void ft_fallback_feed(struct ft_fallback *fb, const struct ft_event *ev);
void ft_fallback_free(struct ft_fallback *fb);
/* the fallback's numbers for watch: waits (count, ns) by lock and op */
struct ft_fallback_sum {
	uint64_t hop_n[FT_HOP_NR], hop_ns[FT_HOP_NR];	/* fault mutex */
	uint64_t mop_n[FT_MOP_NR], mop_ns[FT_MOP_NR];	/* memtype_lock */
	uint64_t other_n, other_ns;	/* every other lock */
	uint32_t table_n;		/* fault mutex table size, 0: unknown */
};
void ft_fallback_sum(const struct ft_fallback *fb, struct ft_fallback_sum *s);

#endif
