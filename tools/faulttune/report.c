// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune report: per-op and per-bucket tables, collisions vs true
 * sharing, lost and unpaired events, and the what-if table.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "model.h"
#include "builtin.h"
#include "out.h"

static void report_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune report [options] [FILE]\n"
"  FILE               trace.dat to analyse (default: trace.dat)\n"
"      --top N        buckets / lock addresses to list (default 10)\n"
"  -m, --max-size N   largest power-of-two size in the what-if table\n"
"                     (default: 4x the largest table size recorded, >= 64)\n"
"  -j, --json         JSON output\n"
"  -c, --csv          CSV output\n"
"      --plot FILE    draw the what-if curve with gnuplot (.svg or .png)\n"
"  -f, --force        report even when damaged records had to be skipped\n"
"                     (they are counted per CPU in the report)\n"
"  -v, --verbose      the whole text, not the verdict alone: the counts, the\n"
"                     tables, the what-if, the model check, who shares;\n"
"                     -vv: every bucket and lock, not the top N\n"
"      --timeout SEC  give up on a file the reader has not finished in SEC\n"
"                     seconds (default: 60 + 1 per MiB of file; 0: never)\n"
"      --threads T    recommendation for T faulting threads (tune's model)\n"
"      --target PCT   its collision wait target, percent of fault time\n"
"      --sample-holds N  holds kept for the model and the what-if (default\n"
"                     131072; past it, whole 10 ms windows; 0: every hold)\n"
"      --source SRC   of a recording with both: events (default) or kprobe\n"
"      --raw-holds    the kprobe recorder's holds as recorded, without taking\n"
"                     off the probes' own cost measured at record start\n"
"  -h, --help\n");
}

int ft_report_parse_args(int argc, char **argv, struct ft_report_opts *o)
{
	static const struct option lo[] = {
		{ "top", required_argument, NULL, 't' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "threads", required_argument, NULL, 1 },
		{ "target", required_argument, NULL, 2 },
		{ "sample-holds", required_argument, NULL, 3 },
		{ "source", required_argument, NULL, 4 },
		{ "raw-holds", no_argument, NULL, 5 },
		{ NULL, 0, NULL, 0 },
	};
	/* before one meaning per letter: -t, -T and -p were these */
	static const char *const moved[] = { "t--top", "T--timeout",
					     "p--plot", NULL };
	uint64_t v;
	int c, fmt_set = 0, top_set = 0;

	memset(o, 0, sizeof(*o));
	o->file = "trace.dat";
	o->top = 10;
	o->timeout = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+m:jcfvh", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (ft_opt_uint("report", "--top", optarg, 0, 1000000, &v))
				return -1;
			o->top = (int)v;
			top_set = 1;
			break;
		case 'm':
			if (ft_parse_uint(optarg, 1, 1u << 24, &v) ||
			    !ft_is_pow2(v)) {
				ft_err("report: --max-size wants a power of two "
				       "up to 16777216, got '%s'", optarg);
				return -1;
			}
			o->max_size = (uint32_t)v;
			break;
		case 'j':
			if (ft_opt_fmt("report", &o->fmt, &fmt_set, FT_FMT_JSON))
				return -1;
			break;
		case 'c':
			if (ft_opt_fmt("report", &o->fmt, &fmt_set, FT_FMT_CSV))
				return -1;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'T':
			if (ft_opt_double("report", "--timeout", optarg, 0, 1e6,
					  &o->timeout))
				return -1;
			break;
		case 'p':
			o->plot = optarg;
			break;
		case 1:
			if (ft_opt_uint("report", "--threads", optarg, 1, 65536, &v))
				return -1;
			o->threads = (int)v;
			break;
		case 2:
			if (ft_opt_double("report", "--target", optarg, 0.001, 99.9,
					  &o->target))
				return -1;
			break;
		case 3:
			if (ft_opt_uint("report", "--sample-holds", optarg, 0,
					UINT32_MAX, &v))
				return -1;
			o->sample_holds = v ? (size_t)v : SIZE_MAX;
			break;
		case 4:
			if (ft_opt_source("report", optarg, &o->read.source))
				return -1;
			break;
		case 5:
			o->read.raw_holds = 1;
			break;
		case 'h':
			report_usage(stdout);
			return 1;
		default:
			ft_opt_bad("report", argv, moved);
			report_usage(stderr);
			return -1;
		}
	}
	/* -vv, for debugging: every bucket and lock, unless --top says */
	if (o->verbose > 1 && !top_set)
		o->top = 1000000;
	if (optind < argc)
		o->file = argv[optind++];
	if (optind < argc) {
		ft_err("report: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

static int report_child(void *arg)
{
	struct ft_report_opts *o = arg;
	struct ft_analysis a;
	int ret = 1;

	ft_analysis_init(&a);
	a.sample.budget = o->sample_holds;
	/* the fallback's sections, on a file of lock:contention events */
	if (ft_consumer_register(&a, &ft_fallback_consumer, NULL) ||
	    ft_read_tracedat_opts(o->file, &a, &o->read))
		goto out;
	if (!ft_analysis_usable(&a, o->file, o->force, FT_USE_REPORT))
		goto out;
	if (ft_report_print(stdout, &a, o) == 0)
		ret = 0;
out:
	ft_analysis_free(&a);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct ft_report_opts o;
	struct stat st;
	int ret;

	ret = ft_report_parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	ft_opt_read_env(&o.read);
	/* report changes nothing, but a probe left armed taxes the machine */
	ret = ft_stale_count();
	if (ret > 0)
		ft_info("faulttune: %d kprobe event(s) of killed faulttune runs "
			"are still in the kernel (armed ones tax their paths): "
			"'faulttune cleanup' removes them", ret);
	/* the reader does tens of MB/s: a minute plus 1 s/MiB is no limit for a sane file */
	if (o.timeout < 0)
		o.timeout = 60 + (stat(o.file, &st) ? 0 : st.st_size / 1048576.0);
	return ft_isolate(report_child, &o, o.file, o.timeout);
}
