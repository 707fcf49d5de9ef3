// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune bench: its options, its header and its table of results; the
 * workloads themselves are workload.c's (and lookup.c's), which tune
 * runs too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faulttune.h"
#include "builtin.h"
#include "bench.h"
#include "out.h"

static void bench_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune bench [options]\n"
"  -w, --workload W    threads (default) | share | punch | memtype | memtype-lookup\n"
"  -t, --threads LIST  threads (processes for share), e.g. 1,2,4 (default:\n"
"                      1 and the number of online CPUs)\n"
"  -s, --size SIZE     size of the mapping (default 64M; memtype-lookup:\n"
"                      the whole BAR)\n"
"  -p, --page-size SZ  huge page size (default 2M)\n"
"  -r, --reps N        repetitions per thread count (default 3)\n"
"      --iterations N  loops per thread for punch and memtype (default\n"
"                      20/2000), fault-passes for memtype-lookup (default 10)\n"
"  -R, --resource FILE PCI resource file for memtype (default: the VGA\n"
"                      framebuffer, else the first mmappable BAR >= 64 KB)\n"
"  -D, --device BDF    vfio-pci device for memtype-lookup, e.g. 0000:00:04.0\n"
"                      (default: the one in no-IOMMU mode); its biggest BAR\n"
"                      is written to: plain memory only, such as ivshmem's\n"
"      --pin           pin thread i to CPU i\n"
"  -j, --json          JSON output\n"
"  -h, --help\n");
}

static int parse_list(const char *s, struct ft_bench_opts *o)
{
	char buf[256], *tok, *save;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", s);
	o->nthreads = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ft_parse_u64(tok, &v) || !v || v > 4096 || o->nthreads >= 16)
			return -1;
		o->threads[o->nthreads++] = (int)v;
	}
	return o->nthreads ? 0 : -1;
}

/*
 * Longer than the rest on purpose: the option table and one getopt switch
 * with a case per option, each a few lines of range checks; split, an
 * option's parsing would be in two places.
 */
/* one option's value into o: 0; -1, said; 1: not one of bench's */
static int bench_opt(int c, const char *arg, struct ft_bench_opts *o)
{
	uint64_t v;
	int i;

	switch (c) {
	case 'w':
		for (i = 0; i < FT_SH_NR; i++)
			if (!strcmp(arg, ft_shape_name(i)))
				break;
		if (i == FT_SH_NR) {
			ft_err("bench: unknown workload '%s' (threads, share, "
			       "punch, memtype, memtype-lookup)", arg);
			return -1;
		}
		o->shape = i;
		break;
	case 't':
		if (parse_list(arg, o)) {
			ft_err("bench: bad thread list '%s'", arg);
			return -1;
		}
		break;
	case 's':
		if (ft_parse_size(arg, &o->size) || !o->size) {
			ft_err("bench: bad size '%s'", arg);
			return -1;
		}
		o->size_set = 1;
		break;
	case 'p':
		if (ft_parse_size(arg, &o->page_size) ||
		    !ft_is_pow2(o->page_size) || o->page_size < 4096) {
			ft_err("bench: bad page size '%s'", arg);
			return -1;
		}
		break;
	case 'r':
		if (ft_parse_u64(arg, &v) || !v || v > 100000) {
			ft_err("bench: bad repetitions '%s'", arg);
			return -1;
		}
		o->reps = (int)v;
		break;
	case 'i':
		if (ft_parse_u64(arg, &v) || !v || v > 100000000) {
			ft_err("bench: bad iterations '%s'", arg);
			return -1;
		}
		o->iterations = (int)v;
		break;
	case 'R':
		o->resource = arg;
		break;
	case 'D':
		if (!ft_valid_bdf(arg)) {
			ft_err("bench: bad --device '%s': want a PCI address "
			       "such as 0000:00:04.0", arg);
			return -1;
		}
		o->device = arg;
		break;
	case 'P':
		o->pin = 1;
		break;
	case 'j':
		o->fmt = FT_FMT_JSON;
		break;
	default:
		return 1;
	}
	return 0;
}

/* what the options say together, and the defaults that follow from them */
static int bench_finish_opts(struct ft_bench_opts *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!o->iterations)
		o->iterations = o->shape == FT_SH_MEMTYPE ? 2000 :
				o->shape == FT_SH_LOOKUP ? 10 : 20;
	if (o->device && o->shape != FT_SH_LOOKUP) {
		ft_err("bench: --device is for -w memtype-lookup only");
		return -1;
	}
	if (o->shape != FT_SH_LOOKUP && o->size < o->page_size) {
		ft_err("bench: size %llu is smaller than one huge page",
		       (unsigned long long)o->size);
		return -1;
	}
	if (!o->nthreads) {
		o->threads[o->nthreads++] = 1;
		if (ncpu > 1)
			o->threads[o->nthreads++] = (int)ncpu;
	}
	return 0;
}

int ft_bench_parse_args(int argc, char **argv, struct ft_bench_opts *o)
{
	static const struct option lo[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "reps", required_argument, NULL, 'r' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "resource", required_argument, NULL, 'R' },
		{ "device", required_argument, NULL, 'D' },
		{ "pin", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* before one meaning per letter: -i and -P were these */
	static const char *const moved[] = { "i--iterations", "P--pin", NULL };
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->size = 64ULL << 20;
	o->page_size = 2ULL << 20;
	o->reps = 3;
	/* run under record or tune -- faulttune bench: mark the phases */
	o->marker = getenv("FAULTTUNE_MARKER");
	o->quiet = getenv("FAULTTUNE_QUIET") != NULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+w:t:s:p:r:R:D:jh", lo, NULL)) != -1) {
		if (c == 'h') {
			bench_usage(stdout);
			return 1;
		}
		ret = bench_opt(c, optarg, o);
		if (ret > 0) {
			ft_opt_bad("bench", argv, moved);
			bench_usage(stderr);
		}
		if (ret)
			return -1;
	}
	if (optind < argc) {
		ft_err("bench: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return bench_finish_opts(o);
}

/* what runs, before the results: JSON's opening, or the text table's header */
static void print_head(const struct ft_bench_opts *o)
{
	char desc[160];

	if (o->fmt == FT_FMT_JSON) {
		printf("{\"workload\":\"%s\",\"size\":%llu,\"page_size\":%llu,"
		       "\"reps\":%d,\"pin\":%s,", ft_shape_name(o->shape),
		       (unsigned long long)o->size,
		       (unsigned long long)(o->shape == FT_SH_LOOKUP ? 4096 : o->page_size),
		       o->reps, o->pin ? "true" : "false");
		if (o->shape == FT_SH_LOOKUP) {
			printf("\"device\":");
			ft_json_str(stdout, ft_lookup_describe(desc, sizeof(desc)));
			printf(",\"passes\":%d,", o->iterations);
		}
		printf("\"results\":[");
	} else if (o->shape == FT_SH_MEMTYPE) {
		printf("workload memtype: %d iterations per thread, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n", o->iterations, o->reps,
		       o->pin ? ", pinned" : "", "threads", "user", "system", "wall",
		       "ops/cpu-s", "ops/wall-s");
	} else if (o->shape == FT_SH_LOOKUP) {
		/* times of the fault-passes only, not of the remaps between */
		printf("workload memtype-lookup: %s, 4 kB pages, %d fault-passes "
		       "per thread, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n",
		       ft_lookup_describe(desc, sizeof(desc)), o->iterations,
		       o->reps, o->pin ? ", pinned" : "", "threads", "user",
		       "system", "wall", "faults/cpu-s", "faults/wall-s");
	} else {
		printf("workload %s: %llu MB of %llu kB pages, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n",
		       ft_shape_name(o->shape), (unsigned long long)(o->size >> 20),
		       (unsigned long long)(o->page_size >> 10), o->reps,
		       o->pin ? ", pinned" : "", o->shape == FT_SH_SHARE ?
		       "procs" : "threads", "user", "system", "wall",
		       o->shape == FT_SH_PUNCH || o->shape == FT_SH_MEMTYPE ?
		       "ops/cpu-s" : "faults/cpu-s",
		       o->shape == FT_SH_PUNCH || o->shape == FT_SH_MEMTYPE ?
		       "ops/wall-s" : "faults/wall-s");
	}
}

int cmd_bench(int argc, char **argv)
{
	struct ft_bench_opts o;
	struct ft_bench_result r, done[16];
	int ret, i, ndone = 0, maxt = 0;

	ret = ft_bench_parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	for (i = 0; i < o.nthreads; i++)
		if (o.threads[i] > maxt)
			maxt = o.threads[i];
	if (ft_bench_check_pages(&o, maxt))
		return 1;
	if (o.shape == FT_SH_LOOKUP) {
		if (ft_lookup_open(&o))
			return 1;
		if (!o.size_set)	/* the whole BAR */
			o.size = ft_lookup_bar_size();
	}
	ft_install_signals();
	print_head(&o);
	ret = 0;
	for (i = 0; i < o.nthreads && !ft_stop; i++) {
		double cpu;

		if (ft_bench_run(&o, o.threads[i], &r)) {
			free(r.thread_time);
			ret = 1;
			break;
		}
		if (ft_stop) {
			free(r.thread_time);
			break;
		}
		cpu = r.user + r.sys;
		if (o.fmt == FT_FMT_JSON) {
			printf("%s{\"threads\":%d,\"faults\":%llu,\"user_s\":%.6f,"
			       "\"system_s\":%.6f,\"wall_s\":%.6f,\"wall_min_s\":%.6f,"
			       "\"wall_max_s\":%.6f,\"faults_per_cpu_s\":%.1f,"
			       "\"faults_per_wall_s\":%.1f", i ? "," : "",
			       r.threads, (unsigned long long)r.faults, r.user,
			       r.sys, r.wall, r.wall_min, r.wall_max,
			       cpu > 0 ? r.faults / cpu : 0.0,
			       r.wall > 0 ? r.faults / r.wall : 0.0);
			if (r.thread_time)
				ft_lookup_print_threads(stdout, &r, FT_FMT_JSON);
			printf("}");
		} else {
			printf("%8d %10.3f %10.3f %10.3f %14.0f %14.0f\n",
			       r.threads, r.user, r.sys, r.wall,
			       cpu > 0 ? r.faults / cpu : 0.0,
			       r.wall > 0 ? r.faults / r.wall : 0.0);
		}
		fflush(stdout);
		/* the per-thread times follow the table */
		if (r.thread_time && o.fmt != FT_FMT_JSON)
			done[ndone++] = r;
		else
			free(r.thread_time);
	}
	if (o.fmt == FT_FMT_JSON && !ret)
		printf("]}\n");
	for (i = 0; i < ndone; i++) {
		if (!ret && !ft_stop)
			ft_lookup_print_threads(stdout, &done[i], FT_FMT_TEXT);
		free(done[i].thread_time);
	}
	ft_lookup_close();
	if (ret)
		return ret;
	if (ft_stop) {
		ft_err("bench: interrupted");
		return 130;
	}
	return 0;
}
