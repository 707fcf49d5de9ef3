/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workloads (bench/): faulttune bench's, and tune's when it runs no
 * COMMAND; bench.c (the command) parses their options.
 */
#ifndef FAULTTUNE_BENCH_H
#define FAULTTUNE_BENCH_H

#include "faulttune.h"

struct ft_bench_opts {
	int shape;
	int threads[16];
	int nthreads;
	uint64_t size;		/* bytes of the mapping */
	int size_set;		/* -s given (memtype-lookup: else the BAR) */
	uint64_t page_size;	/* huge page size */
	int reps;
	int pin;
	enum ft_fmt fmt;
	int iterations;		/* memtype / punch loops per thread */
	const char *resource;	/* memtype: PCI resource file */
	const char *device;	/* memtype-lookup: vfio-pci device (BDF) */
	const char *marker;	/* trace_marker for phase markers, or NULL */
	int quiet;		/* no note of the memtype resource used */
};

/* memtype-lookup: one thread's time per fault-pass */
struct ft_thread_time {
	uint64_t min_ns, max_ns, sum_ns;
	uint64_t passes;
};

struct ft_bench_result {
	int threads;
	uint64_t faults;	/* faults (or operations) over all reps */
	double user, sys, wall;	/* seconds over all reps */
	double wall_min, wall_max;
	/* memtype-lookup only: pages per thread and pass, [threads] times */
	uint64_t pages_per_pass;
	struct ft_thread_time *thread_time;	/* caller frees */
	/* faults outside the passes (fill, read-back) and their thread-time */
	uint64_t untimed_faults, untimed_ns;
};

/* bench.c: the command's options; workload.c: the workloads */
int ft_bench_parse_args(int argc, char **argv, struct ft_bench_opts *o);
int ft_bench_check_pages(const struct ft_bench_opts *o, int threads);
int ft_bench_run(const struct ft_bench_opts *o, int threads,
		 struct ft_bench_result *r);
/* phase.c: a phase marker into o->marker's trace, when it names one */
void ft_bench_marker(const struct ft_bench_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * lookup.c: the memtype-lookup workload on a vfio-pci device's BAR.
 * ft_lookup_open() picks and opens the device (one error line and -1 when
 * it cannot), ft_lookup_run() is ft_bench_run() for that shape.
 */
int ft_valid_bdf(const char *s);	/* 0000:00:04.0 */
int ft_lookup_open(const struct ft_bench_opts *o);
void ft_lookup_close(void);
const char *ft_lookup_describe(char *buf, size_t len);
uint64_t ft_lookup_bar_size(void);	/* of the BAR ft_lookup_open() chose */
int ft_lookup_run(const struct ft_bench_opts *o, int threads,
		  struct ft_bench_result *r);
void ft_lookup_print_threads(FILE *f, const struct ft_bench_result *r,
			     enum ft_fmt fmt);

#endif
