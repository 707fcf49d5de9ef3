/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.dat reader, inside: what its files share.  readdat.c opens the
 * file and picks a path; validate.c checks a version 6 file before
 * libtracecmd sees it and learns its layout; fast.c decodes the pages of
 * a plain file in place; decode.c turns each record, from either path,
 * into a struct ft_event.  Nothing outside the reader includes it.
 */
#ifndef FT_READER_LOCAL_H
#define FT_READER_LOCAL_H

#include <stdint.h>
#include <sys/types.h>
#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include "kernel.h"
#include "reader.h"

struct ft_evdesc {
	int id;
	int lock, kind;
	struct tep_event *event;
	struct tep_format_field *f_mapping, *f_index, *f_hash, *f_bucket,
		*f_nbuckets, *f_op, *f_contended, *f_wait, *f_hold,
		*f_start, *f_end, *f_addr, *f_flags,
		*f_old, *f_new, *f_dur, *f_result, *f_buf, *f_caller, *f_size,
		*f_lock;
	/* a record this long has every number field in it: no check each */
	unsigned int need;
	/*
	 * decode_full()'s fields read as 8 bytes each and masked to their
	 * size (mask 0: not in the format), when that many bytes from the
	 * record's start are readable (struct reader's room).
	 */
	struct wide_field {
		unsigned int off;
		uint64_t mask;
	} w_mapping, w_index, w_hash, w_bucket, w_nbuckets, w_op, w_contended,
	  w_wait, w_hold, w_old, w_new, w_dur, w_result;
	unsigned int need8;
};

enum {
	D_H_START, D_H_ACQ, D_H_REL, D_H_RESIZE, D_H_HOLD,
	D_M_START, D_M_ACQ, D_M_REL, D_M_HOLD,
	D_C_BEGIN, D_C_END, D_PRINT, D_STACK, D_K_KEY, D_K_UNLOCK,
	D_K_UJ0, D_K_UJ1, D_K_UJ2, D_K_UJ3,	/* unlock_j0..3: kprobe.c */
	D_NR
};

struct reader {
	struct tep_handle *tep;
	struct ft_evdesc d[D_NR];
	/* event id -> index in d[]; ID_OTHER: a format of the file, not ours */
	signed char idmap[65536];
	struct ft_analysis *a;
	unsigned long long records;
	int common_size;		/* bytes of the common fields (type, pid) */
	struct tep_format_field *f_type, *f_pid;	/* common_type, common_pid */
	/* library path: per CPU, where the next record may start, bad page */
	uint64_t next_off[FT_SKIP_NCPUS], bad_page[FT_SKIP_NCPUS];
	uint64_t last_off[FT_SKIP_NCPUS];	/* of the record before */
	struct tracecmd_input *last_h[FT_SKIP_NCPUS];	/* buffer it was in */
	uint64_t page;
	int looped, loop_cpu;		/* library path: a length wrapped back */
	uint64_t loop_off;
	dev_t dev;			/* the file, to find libtracecmd's maps */
	ino_t ino;
	/* fast path: bytes readable from the record's start (its page's) */
	unsigned int room;
	int kp_holds;			/* the kprobe recorder's holds to the analysis */
};

#define ID_OTHER	(-1)	/* an event of the file faulttune does not use */
#define ID_UNKNOWN	(-2)	/* no format in the file has this id */

/* what rd_validate() learnt of a plain version 6 file, for rd_fast_read() */
struct layout {
	int plain;		/* v6, long size 8, only CPUSTATS/TRACECLOCK options */
	uint64_t page, cpus;
	uint64_t *off, *size;	/* per CPU, malloc'd */
	uint64_t committed;	/* event bytes the page headers announce */
	int std_header_page;	/* header_page: u64 time stamp, u64 commit, data at 16 */
	int lib;		/* FAULTTUNE_LIBTRACECMD: the library path, always */
	const unsigned char *base;	/* mapped in rd_validate() */
	/*
	 * For the library path, which cannot skip what kbuffer misreads:
	 * pages whose events run past their commit (the first of them), and
	 * what empty pages flagged with missed events lost (libtracecmd
	 * reports missed events with a page's first record only).
	 */
	uint64_t past_commit, past_commit_off;
	int past_commit_cpu;
	uint64_t empty_missed, empty_missed_unknown;
};

#define RB_MISSED_EVENTS (1ULL << 31)
#define RB_MISSED_STORED (1ULL << 30)
#define COMMIT_MASK ((1ULL << 27) - 1)
#define PAGE_HDR 16		/* u64 time stamp, u64 commit and flags */

/* decode.c */
int rd_on_record(struct tracecmd_input *h, struct tep_record *r,
		 int cpu, void *data);
int rd_setup(struct reader *rd, const char *file);

/* validate.c */
int rd_validate(const char *file, struct layout *lay);

/* fast.c */
unsigned int rd_good_prefix(const unsigned char *d, unsigned int size,
			    int *odd);
int rd_fast_read(const char *file, struct layout *lay, struct reader *rd);

#endif
