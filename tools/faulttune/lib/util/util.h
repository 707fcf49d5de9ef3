/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the library's bottom layer (lib/util): histograms, the map,
 * the kernel's jhash, the command-line number parsers, and the one
 * message function through which the library reports.
 */
#ifndef FT_UTIL_H
#define FT_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <sys/types.h>

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

/* base.c: u64 -> slot map, open addressing, used for tasks and buckets */
struct ft_map {
	uint64_t *keys;
	void **vals;
	size_t cap, n;
};
void **ft_map_get(struct ft_map *m, uint64_t key, int create);
void ft_map_free(struct ft_map *m, void (*free_val)(void *));

/* output formats, which options and printers name */
enum ft_fmt { FT_FMT_TEXT, FT_FMT_JSON, FT_FMT_CSV };

/* jhash.c */
uint32_t ft_jhash2(const uint32_t *k, uint32_t length, uint32_t initval);
uint32_t ft_fault_hash(uint64_t mapping, uint64_t index);

/* base.c: a whole file, NUL-terminated (NULL: errno) */
char *ft_read_all(const char *path, size_t *len);

/* the workloads' shapes (bench/), and base.c's names of them */
enum ft_shape { FT_SH_THREADS, FT_SH_SHARE, FT_SH_PUNCH, FT_SH_MEMTYPE,
		FT_SH_LOOKUP, FT_SH_NR };
const char *ft_shape_name(int shape);

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

#endif
