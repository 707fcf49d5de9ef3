/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FT_SYNTH_H
#define FT_SYNTH_H
#include <stdint.h>

struct synth_expect {
	unsigned long long events, hugetlb, memtype, acq, contended;
	unsigned long long collisions, sharing, unknown, coll_wait;
};

/*
 * The form of the lock events synth_write() writes: 0, the start/acquire/
 * release trio; 1, one *_hold summary per acquisition at its release.  The
 * file has the formats of both, as a recording of a kernel with both has.
 */
extern int synth_summary;

/* write a synthetic v6 trace.dat with the contract events; 0 on success */
int synth_write(const char *out, int tasks, int rounds, uint32_t nb,
		struct synth_expect *x);
#endif
