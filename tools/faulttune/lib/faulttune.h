/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the library's declarations (lib/), which every layer above
 * it includes; its printers declare theirs in out/out.h, the workloads in
 * bench/bench.h, the commands in builtin.h.
 *
 * The analysis core (analysis.c) knows nothing about trace.dat or tracefs:
 * readers turn records into struct ft_event and feed them to an
 * struct ft_analysis, so the unit tests can build event streams by hand.
 */
#ifndef FAULTTUNE_H
#define FAULTTUNE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>

#define FT_VERSION "0.1"

/* hugetlb op codes (kernel contract) */
enum ft_hop {
	FT_HOP_FAULT, FT_HOP_WP, FT_HOP_USERFAULT, FT_HOP_FALLOCATE,
	FT_HOP_PUNCH, FT_HOP_MEMFD, FT_HOP_UFFD_COPY, FT_HOP_OTHER,
	FT_HOP_NR
};

/* lock:contention_begin's flags (kernel contract: trace/events/lock.h) */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)

/* memtype op codes (kernel contract) */
enum ft_mop {
	FT_MOP_RESERVE, FT_MOP_FREE, FT_MOP_LOOKUP, FT_MOP_LIST, FT_MOP_OTHER,
	FT_MOP_NR
};

enum ft_lock { FT_LK_HUGETLB, FT_LK_MEMTYPE, FT_LK_CONTENTION, FT_LK_NR };

enum ft_kind {
	FT_EV_START,		/* *_start_locking, lock:contention_begin */
	FT_EV_ACQUIRE,		/* *_acquire_returned, lock:contention_end */
	FT_EV_RELEASE,		/* *_released */
	FT_EV_RESIZE,		/* hugetlb_fault_mutex_resize */
	FT_EV_HOLD,		/* *_hold: a whole acquisition, at its release */
	FT_EV_MARKER,		/* ftrace:print from trace_marker */
	FT_EV_STACK,		/* ftrace:kernel_stack (contention fallback) */
	FT_EV_KP_KEY,		/* kprobe recorder: the key of a request */
	FT_EV_KP_UNLOCK,	/* kprobe recorder: a table mutex's unlock call */
};

struct ft_event {
	uint64_t ts;		/* ns */
	int cpu;
	int pid;
	int lock;		/* enum ft_lock */
	int kind;		/* enum ft_kind */
	uint32_t op;
	uint64_t mapping;	/* hugetlb; memtype: start; contention: lock addr */
	uint64_t index;		/* hugetlb; memtype: end; contention: flags */
	uint32_t hash;
	uint32_t bucket;
	uint32_t nbuckets;
	int contended;
	uint64_t wait_ns;
	uint64_t hold_ns;
	/* resize */
	uint32_t old_nbuckets, new_nbuckets;
	uint64_t duration_ns;
	int result;
	const char *marker;	/* FT_EV_MARKER only, not owned */
	const uint64_t *stack;	/* FT_EV_STACK only: return addresses, not owned */
	int nstack;
	uint64_t ip;		/* FT_EV_KP_KEY: caller; FT_EV_KP_UNLOCK: mutex */
	/* FT_EV_KP_UNLOCK: mapping is the probed call site (0: not known) */
};

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

/*
 * hist.c: log-linear histogram of u64 values (ns), HDR-style: exact below
 * FT_HIST_SUB, else FT_HIST_SUB buckets per power of two; percentiles are
 * within 1 / (2 * FT_HIST_SUB) = 0.78% of the exact nearest-rank value
 * (min and max exact).  Memory: FT_HIST_SUB counters per power of two
 * that holds a value, whatever the number of values.
 */
#define FT_HIST_SUB 64
struct ft_hist {
	uint64_t n, min, max;
	uint64_t **oct;		/* per power of two, allocated on first use */
};
int ft_hist_add(struct ft_hist *h, uint64_t v);		/* -1: no memory */
uint64_t ft_hist_percentile(const struct ft_hist *h, double q);
void ft_hist_free(struct ft_hist *h);
size_t ft_hist_bytes(const struct ft_hist *h);

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

struct ft_whatif_row {
	uint32_t size;
	uint64_t collisions, sharing;
	uint64_t coll_wait_ns, share_wait_ns;
	uint64_t mem_bytes;
};

/* base.c: u64 -> slot map, open addressing, used for tasks and buckets */
struct ft_map {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};
void **ft_map_get(struct ft_map *m, uint64_t key, int create);
void ft_map_free(struct ft_map *m, void (*free_val)(void *));

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
struct ft_model;
int ft_sample_push(struct ft_analysis *a, const struct ft_hold *h);
int ft_sample_used(const struct ft_analysis *a);
uint32_t ft_sample_window_max(const struct ft_analysis *a);
size_t ft_sample_budget(const struct ft_analysis *a);
/*
 * split.c: the kept holds into the model: one run, or a run per kept window; each
 * with what it measured at size, the table size it ran at (0: unknown)
 */
int ft_sample_add_runs(const struct ft_analysis *a, struct ft_model *m,
		       uint32_t size);
/*
 * split.c too: the holds as up to max_parts runs, cut where no hold is in
 * flight, each at least FT_SPLIT_HOLDS_MIN holds; a sampled recording as
 * its windows (ft_sample_add_runs()).  ft_split_parts(): how many.
 */
#define FT_SPLIT_HOLDS_MIN	64
int ft_split_add_runs(const struct ft_analysis *a, struct ft_model *m,
		      uint32_t size, int max_parts);
int ft_split_parts(size_t nholds, int max_parts);
/* "FILE: the model takes a sample ..." on stderr, when sampled */
void ft_sample_note(const struct ft_analysis *a, const char *file);
void ft_sample_free(struct ft_analysis *a);

/*
 * What-if replay of the recorded hashes (whatif.c): rows for sizes 1, 2,
 * 4 .. max_size; caller frees.  Returns the number of rows or -1.  Sorts
 * a->holds by acquisition: the contention model, which numbers keys in
 * the recorded order, must have its holds before.
 */
int ft_whatif(struct ft_analysis *a, uint32_t max_size,
	      struct ft_whatif_row **rows);

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

/* bytes of one struct mutex on x86_64 without debug options */
#define FT_MUTEX_BYTES 32

/* output formats, which options and printers name */
enum ft_fmt { FT_FMT_TEXT, FT_FMT_JSON, FT_FMT_CSV };

/* jhash.c */
uint32_t ft_jhash2(const uint32_t *k, uint32_t length, uint32_t initval);
uint32_t ft_fault_hash(uint64_t mapping, uint64_t index);

/* base.c: names of the ops; a whole file, NUL-terminated (NULL: errno) */
const char *ft_hop_name(unsigned int op);
const char *ft_mop_name(unsigned int op);
char *ft_read_all(const char *path, size_t *len);


/* util.c */
/*
 * Numbers from the command line, one parser for every subcommand: decimal
 * only (no sign, blanks, 0x, octal-looking leading zeros, NaN, inf or
 * trailing text) and range-checked.  The ft_parse_* return 0, or -1 with
 * errno EINVAL (not a number) or ERANGE (outside [min, max]); the
 * commands' ft_opt_* (builtin.h) also say which option was bad.
 */
int ft_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int ft_parse_u64(const char *s, uint64_t *out);		/* [0, UINT64_MAX] */
int ft_parse_double(const char *s, double min, double max, double *out);
int ft_parse_size(const char *s, uint64_t *out);	/* 2M, 1G, 4096 */
int ft_is_pow2(uint64_t x);
const char *ft_fmt_ns(uint64_t ns, char *buf, size_t len);
double ft_now(void);		/* util.c: CLOCK_MONOTONIC, seconds */
/*
 * FT_PHASE_READ_DONE: the file is read, what follows is computation
 * whose time is the caller's to spend (tune --from's model at
 * --threads 4096): the time limit no longer applies.
 */
enum { FT_PHASE_OURS, FT_PHASE_LIB, FT_PHASE_READ_DONE };
void ft_isolate_phase(int phase);
/* util.c: where ft_isolate_phase() writes (the parent's page), or NULL */
void ft_isolate_phase_page(volatile int *page);
void ft_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ft_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* readdat.c: how a recording is read; zeroed: every source, holds corrected */
struct ft_read_opts {
	int source;		/* enum ft_source: which of a file's accounts */
	int raw_holds;		/* kprobe holds as recorded, the probes' cost in */
	int libtracecmd;	/* always libtracecmd's path, never the fast
				   reader (the tests compare the two) */
};
int ft_read_tracedat(const char *file, struct ft_analysis *a);
int ft_read_tracedat_opts(const char *file, struct ft_analysis *a,
			  const struct ft_read_opts *o);

/* tfs.c: our own tracefs instance, never the top-level buffer */
struct tracefs_instance;
extern volatile int ft_stop;		/* set by SIGINT / SIGTERM / SIGHUP */
extern volatile int ft_stop_sig;
#define FT_TRACEFS_DIR "/sys/kernel/tracing"
int ft_tracefs_mounted(const char *mounts);	/* NULL: /proc/self/mounts */
int ft_cleanup_stale(int quiet);	/* removes faulttune-* nobody owns */
int ft_stale_count(void);	/* killed runs' kprobe events; 0: not root */
int ft_inst_owned(const char *name);	/* a running faulttune holds it */

enum ft_evset { FT_EVS_NONE, FT_EVS_FAULTTUNE, FT_EVS_CONTENTION };

struct ft_inst {
	struct tracefs_instance *inst;
	char name[64];
	int ncpus;
	int evset;			/* enum ft_evset */
	int trio;			/* set before ft_inst_enable(): record the
					 * start/acquire/release trio even where
					 * the kernel has the *_hold summaries */
	int summary;			/* ft_inst_enable() chose the summaries */
	int source;			/* set before ft_inst_enable(): enum
					 * ft_source, FT_SRC_AUTO if not */
	const char *systems[6];		/* enabled systems, NULL-terminated */
	int nsys;
	int lock;			/* owner's flock on the instance dir */
	struct ft_kprobes *kp;		/* the kprobe recorder's, NULL: none */
	const char *kp_why;		/* kp NULL: why it could not be made */
	/* ft_inst_enable(): the faulttune events the kernel has (0 for
	 * --source=kprobe or contention, which do not look) */
	int have_hugetlb, have_memtype;
	/* set before ft_inst_enable(): the kprobe recorder's options */
	struct ft_kprobe_opts {
		const char *func;	/* the key on this function instead
					   (the tests' way to a missing or
					   blacklisted one), NULL: none */
		int no_cal;		/* do not measure the probes' cost */
	} kpo;
};
int ft_inst_create(struct ft_inst *fi, size_t buffer_kb);
/*
 * select.c: the recording source, its events enabled in fi; what it chose
 * is in fi (evset, systems, kp or kp_why, have_*) for the command to say
 * (ft_inst_print_source(), out.h)
 */
int ft_inst_enable(struct ft_inst *fi);
/* select.c: those events on or off again (watch's windows); 0 or -1 */
int ft_inst_arm(struct ft_inst *fi, int on);
int ft_inst_marker(struct ft_inst *fi, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *ft_inst_file(struct ft_inst *fi, const char *file); /* tracefs_put_tracing_file */
void ft_inst_destroy(struct ft_inst *fi);
/* overrun + dropped events per cpu summed; fills per-cpu stats text */
uint64_t ft_inst_lost(struct ft_inst *fi, char ***stats);

/* capture.c: raw per-CPU capture into trace.dat (record, tune, watch) */
struct ft_capture;
struct ft_capture *ft_capture_start(struct ft_inst *fi, const char *out);
int ft_capture_poll(struct ft_capture *c);	/* drain available pages */
int ft_capture_finish(struct ft_capture *c, uint64_t *lost);	/* writes file, frees */
void ft_capture_abort(struct ft_capture *c);	/* removes its files, frees */
uint64_t ft_capture_bytes(const struct ft_capture *c);
/*
 * the lock:contention fallback's record side (record, watch): a kernel
 * stack with every contention_begin (its trigger, which goes with the
 * instance), and the start marker's text on the fault mutex table ("" when
 * the instance does not record the fallback's events)
 */
int ft_record_stack_trigger(struct ft_inst *fi);
const char *ft_record_fallback_marker(struct ft_inst *fi);

/* tracedat.c: trace.dat version 6 writer */
int ft_tracedat_write(const char *out, struct ft_inst *fi, int ncpus,
		      char **cpu_files, char **cpustats, size_t page_size);


/*
 * ksyms.c: kernel symbols (kallsyms text) and kernel memory (/proc/kcore)
 * for the lock:contention fallback; struct sizes from BTF are btf.c's.
 */
struct ft_ksyms;
struct ft_ksyms *ft_ksyms_parse(char *text, size_t len);	/* owns text */
struct ft_ksyms *ft_ksyms_load(const char *path);	/* NULL: /proc/kallsyms */
void ft_ksyms_free(struct ft_ksyms *ks);
size_t ft_ksyms_count(const struct ft_ksyms *ks);
/* the text / data symbol containing addr, or NULL; *off = addr - symbol */
const char *ft_ksyms_func(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off);
const char *ft_ksyms_data(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off);
int ft_ksyms_addr(const struct ft_ksyms *ks, const char *name, uint64_t *addr);
char *ft_tracedat_kallsyms(const char *file, size_t *len);	/* v6 only */
int ft_kcore_read(uint64_t addr, void *buf, size_t len);	/* 0 or -errno */
/* calls (e8 rel32; tail: e9 too) from func to target; -1: unreadable */
int ft_kcall_count(const struct ft_ksyms *ks, const char *func, uint64_t target,
		   int tail);
/* the first call (tail: or jump) to a function in [from, from + span) */
uint64_t ft_kcall_next(const struct ft_ksyms *ks, uint64_t from, size_t span,
		       int tail, const char **callee);
/* the same from the function at start, each site's address into sites[] */
int ft_kcall_sites(const struct ft_ksyms *ks, uint64_t start, uint64_t target,
		   int tail, uint64_t *sites, int max);
/* how many symbols are named name (a kprobe on SYM+OFF needs one) */
int ft_ksyms_named(const struct ft_ksyms *ks, const char *name);
/* name is func or a compiler's copy of it (func.isra.0, func.cold, ...) */
int ft_ksym_is(const char *name, const char *func);
/* func and its copies in ks, one per call, *i from 0 until NULL */
const char *ft_ksyms_copy(const struct ft_ksyms *ks, const char *func,
			  size_t *i, uint64_t *addr);

/*
 * kfacts.c: the running kernel's fault mutex table through kallsyms and
 * /proc/kcore: its base and size (NULL, or why they are not known, with
 * both 0), and the stride of its mutexes in memory (0: not shown);
 * ft_mutex_bytes (model.h) is there too, found once per process; and
 * the kernel's lockdown level, which decides what of them can be read.
 */
const char *ft_fault_table_find(uint64_t *base, uint32_t *n);
uint32_t ft_fault_table_stride(uint64_t base, uint32_t n);
int ft_stride_of(const uint64_t *words, int nw, uint32_t n);	/* words */
/* BTF first, then the table's memory; *from: "btf", "kcore", "unknown" */
uint32_t ft_mutex_stride(uint64_t base, uint32_t n, const char **from);
/* the lockdown level, "none", "integrity" or ...; NULL: securityfs does not say */
const char *ft_lockdown(void);
/*
 * kfacts.c: bytes of one struct mutex in the running kernel: from BTF
 * (/sys/kernel/btf/vmlinux) when present; else 32 (x86_64, no lock
 * debugging) when the kernel shows no sign of lock debugging; else -1,
 * unknown.  how says which, for the report.
 */
int ft_mutex_bytes(const char *btf_path, char *how, size_t len);
/* btf.c: sizeof(struct <name>) from a BTF file, -1 if absent or unreadable */
long ft_btf_struct_size(const char *path, const char *name);

/*
 * fallback.c: on a kernel without the faulttune events, name the locks of
 * lock:contention_begin/end from kallsyms and the kernel stack recorded
 * with each contention_begin, find the fault mutex and memtype_lock waits
 * and say whether the patched kernel would be worth installing.
 */
struct ft_fallback;
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

/*
 * kprobe.c: the kprobe recorder's record side, for kernels without the
 * faulttune events: kprobe events in the group faulttune_<pid> at the
 * hash (the key, the caller) and at the table's unlock call sites inside
 * the hugetlb functions (the release), enabled in our instance beside
 * lock:contention_begin/end.
 */
#define FT_KP_SITES	64	/* unlock call sites probed, at most */
#define FT_KP_KEYS	16	/* locking call sites of the hash, at most */
struct tracefs_dynevent;
struct ft_kprobes {
	char group[32];
	/*
	 * the key event: one probe at the function's entry, or one per
	 * locking call site of the hash, appended to the first
	 */
	struct tracefs_dynevent *key[FT_KP_KEYS];
	int nkey;
	int key_callsites;	/* the key is at call sites, not at the entry */
	char key_at[512];	/* "caller+0xoff,..." its call sites */
	char drops[256];	/* "0xaddr:op,...": unlock sites that drop */
	char drops_at[512];	/* the same as "caller+0xoff:op,..." */
	/* the unlock event: one probe per call site, appended to the first */
	struct tracefs_dynevent *unlock[FT_KP_SITES];
	int nunlock;
	const char *key_func;	/* the probed function */
	int op_arg;		/* its op is an argument (the patched helper) */
	uint64_t base;		/* the table, its size and its mutexes' stride */
	uint32_t n, stride;
	char covered[512];	/* "op:caller*calls,..." the key probe sees */
	char uncovered[128];	/* "op,..." it does not */
	char unlock_at[1024];	/* "caller+0xoff,..." the unlock probes */
	char unlock_uncovered[128];	/* "op,..." whose releases no site sees */
	char unlock_refused[512];	/* "caller+0xoff,..." the kernel refused */
	int armed;		/* enabled in the instance (ft_kprobes_arm()) */
	/* the probes' own cost inside a hold, measured at create (kcal.c) */
	struct ft_kcal {
		int done;
		char path[64];		/* "entry>callee" it was measured on */
		uint64_t key_unlock;	/* ns: a hold dated at the key probe */
		uint64_t key_key;	/* ns: each rehash of the held key */
		uint64_t end_unlock;	/* ns: dated at lock:contention_end */
	} cal;
	const char *cal_why;	/* NULL, or why it was not measured */
};
/* NULL: created and enabled in inst; else why not (nothing left behind) */
const char *ft_kprobes_create(struct ft_kprobes *kp,
			      struct tracefs_instance *inst,
			      const struct ft_kprobe_opts *o);
void ft_kprobes_destroy(struct ft_kprobes *kp);	/* NULL, or again: nothing */
/*
 * Arm (on) or disarm the probes and lock:contention in inst: a disarmed
 * kprobe is taken out of the kernel's text, so between watch's windows
 * nothing of the machine pays for it.  0, or -1 with errno.
 */
int ft_kprobes_arm(struct ft_kprobes *kp, struct tracefs_instance *inst, int on);
/* removes faulttune_<pid> of dead runs (owned given: counts them) */
int ft_kprobes_stale(int quiet, int (*owned)(const char *inst));
/* " kprobe group=... key=... table=... nbuckets=... stride=... covered=..." */
const char *ft_kprobes_marker(const struct ft_kprobes *kp);
/* kcal.c: fills kp->cal; NULL, or why not (then holds go uncorrected) */
const char *ft_kcal_measure(struct ft_kprobes *kp, struct tracefs_instance *inst,
			    const struct ft_ksyms *ks, const char *key_format,
			    const char *unlock_format);

/*
 * kpair.c: the kprobe recorder's read side.  The reader hands it the
 * kprobe events (FT_EV_KP_KEY / FT_EV_KP_UNLOCK), lock:contention, the
 * markers and any hugetlb_fault_mutex_hold summaries; it gives back, at
 * each release, the acquisition as a hold summary would carry it.  Where
 * the file has both (record --source=both), it matches them one to one.
 */
struct ft_kpair;
/* file: its kallsyms; raw_holds: leave the probes' cost in the holds */
struct ft_kpair *ft_kpair_new(const char *file, int raw_holds);
/* 1: *out is an acquisition (FT_EV_HOLD) for the analysis */
int ft_kpair_feed(struct ft_kpair *kp, const struct ft_event *ev,
		  struct ft_event *out);
void ft_kpair_finish(struct ft_kpair *kp);
/* whether its acquisitions go to the analysis (else: only matched) */
void ft_kpair_feeds(struct ft_kpair *kp, int feeds);
void ft_kpair_free(struct ft_kpair *kp);
/* why its acquisitions must not be analysed (a wrong decode), or NULL */
const char *ft_kpair_refusal(const struct ft_kpair *kp);
/* kfacts.c: the op of a caller of the hashing function, -1: not known */
int ft_kprobe_caller_op(const char *func, unsigned int *op);
/* the known callers, i from 0 until NULL */
const char *ft_kprobe_caller(size_t i, unsigned int *op);
/* kfacts.c: the op of a release in func that drops the mutex to wait, -1: none */
int ft_kprobe_drop_op(const char *func, unsigned int *op);
/* which recording report and tune read: FT_SRC_AUTO, _EVENTS, _KPROBE */
enum ft_source { FT_SRC_AUTO, FT_SRC_EVENTS, FT_SRC_KPROBE,
		 FT_SRC_CONTENTION, FT_SRC_BOTH };

/* the workloads' shapes (bench/), and base.c's names of them */
enum ft_shape { FT_SH_THREADS, FT_SH_SHARE, FT_SH_PUNCH, FT_SH_MEMTYPE,
		FT_SH_LOOKUP, FT_SH_NR };
const char *ft_shape_name(int shape);

#endif
