/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the recording side (lib/record): our own tracefs instance,
 * the source chosen for it and its events, the kprobe recorder's probes
 * and their calibration, and the capture into trace.dat.
 */
#ifndef FT_RECORD_H
#define FT_RECORD_H

#include "event.h"
#include "kernel.h"

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
		int no_jump;		/* every release probe on its call */
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
 * kprobe.c: the kprobe recorder's record side, for kernels without the
 * faulttune events: kprobe events in the group faulttune_<pid> at the
 * hash (the key, the caller) and at the table's unlock call sites inside
 * the hugetlb functions (the release), enabled in our instance beside
 * lock:contention_begin/end.
 */
#define FT_KP_SITES	64	/* unlock call sites probed, at most */
#define FT_KP_KEYS	16	/* locking call sites of the hash, at most */
#define FT_KP_JUMPS	4	/* release events placed as jumps, at most */
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
	/*
	 * the release probes: on the event "unlock" at the calls of
	 * mutex_unlock() (the mutex in %di), or placed to be a jump before
	 * the call (kjump.c) on "unlock_jN", one event per register and
	 * scale (jreg[N], jscale[N]); each appended to its event's first
	 * (head[i]: the first, whose removal removes them all)
	 */
	struct tracefs_dynevent *unlock[FT_KP_SITES];
	unsigned char head[FT_KP_SITES];
	int nunlock, njump;	/* the probes, and those placed as jumps */
	char jreg[FT_KP_JUMPS][8];
	unsigned int jscale[FT_KP_JUMPS];
	int nshape;
	uint64_t table_sym;	/* hugetlb_fault_mutex_table's own address */
	const char *key_func;	/* the probed function */
	int op_arg;		/* its op is an argument (the patched helper) */
	uint64_t base;		/* the table, its size and its mutexes' stride */
	uint32_t n, stride;
	char covered[512];	/* "op:caller*calls,..." the key probe sees */
	char uncovered[128];	/* "op,..." it does not */
	char unlock_at[1024];	/* "caller+0xoff,..." the unlock probes */
	char jump_at[512];	/* those of them placed before the call */
	size_t jump_len;
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
		/* the same two, released at a jump-placed probe */
		int jump_done;
		uint64_t key_unlock_j, end_unlock_j;
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
/*
 * kinsn.c: whether the kernel takes a kprobe at addr, made as group/name
 * and removed at once, never enabled: 1 it does, so an instruction
 * starts there; 0 it refuses with EILSEQ; -1 it refuses for another
 * reason.
 */
int ft_kprobe_insn_at(const char *group, const char *name, uint64_t addr);
/* kcal.c: fills kp->cal; NULL, or why not (then holds go uncorrected) */
const char *ft_kcal_measure(struct ft_kprobes *kp, struct tracefs_instance *inst,
			    const struct ft_ksyms *ks, const char *key_format,
			    const char *unlock_format);

#endif
