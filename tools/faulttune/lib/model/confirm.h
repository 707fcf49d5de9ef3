/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FT_CONFIRM_H
#define FT_CONFIRM_H

#include <stdint.h>
#include "model.h"

/*
 * confirm.c: tune's confirmation, the recommended size's measured runs
 * against the current size's: the collision wait saved, the CPU time per
 * run, and the wall time as what these runs can resolve.
 */
struct ft_confirm_side {
	uint32_t size;
	int runs;
	const double *wall;	/* seconds per run */
	const double *cpu;	/* user + system seconds per run, or NULL */
	double coll_wait_ns;	/* over all runs, from the events */
	double fault_ns;
};
struct ft_confirm_in {
	struct ft_confirm_side cur, rec;
	int interleaved;	/* ft_confirm_interleaved() */
	int threads;		/* the workload's, for the wall bound */
	int ncpu;		/* online CPUs, for "CPU-bound" */
};
enum ft_confirm_verdict {
	FT_CONF_FASTER = 1,	/* wall time: measurably faster */
	FT_CONF_UNRESOLVED,	/* the interval includes zero */
	FT_CONF_SLOWER_CPU_BOUND, /* slower, on runs that kept all CPUs busy */
	FT_CONF_SLOWER,		/* slower, which the model does not explain */
	FT_CONF_CANNOT_TELL,	/* the runs were not interleaved */
};
struct ft_confirm_out {
	int have, have_cpu, interleaved;
	struct ft_ci wall, cpu;	/* in percent of the current size's mean */
	double saved_ns;	/* collision wait saved per run, ns */
	double busy;		/* CPUs the current size's runs kept busy */
	double bound_pct;	/* most wall time the saved wait can give back */
	double resolution_pct;	/* the wall interval's half width */
	enum ft_confirm_verdict verdict;
	char text[1024];	/* -v's, lines within FT_COLS - 4 */
	char brief[512];	/* the default output's three lines */
};
/* a run of each size lies within the span of the other's runs */
int ft_confirm_interleaved(const uint32_t *order, int n, uint32_t a,
			   uint32_t b);
/* -1: fewer than 2 runs at a size (out->have 0) */
int ft_confirm(const struct ft_confirm_in *in, struct ft_confirm_out *out);
const char *ft_confirm_verdict_str(enum ft_confirm_verdict v);

#endif
