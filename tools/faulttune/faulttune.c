// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune: observe and tune the hugetlb fault mutex table.
 * Dispatcher in the style of rtla.c / trace-cmd.c.
 */
#include <string.h>
#include "faulttune.h"
#include "builtin.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "bench", cmd_bench, "run the built-in hugetlb / memtype workloads" },
	{ "record", cmd_record, "record hugetlb and memtype lock events to trace.dat" },
	{ "report", cmd_report, "analyse a recording: waits, collisions, what-if" },
	{ "tune", cmd_tune, "sweep num_fault_mutexes and recommend a size" },
	{ "watch", cmd_watch, "a window every interval: one line, Prometheus metrics" },
	{ "cleanup", cmd_cleanup, "remove what killed runs left in tracefs (probes, instances)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: faulttune COMMAND [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'faulttune COMMAND --help' for the options of a command,\n"
		"'faulttune --version' for the versions of faulttune and its libraries.\n"
		"See faulttune(1).\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return ft_stdout_done(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		ft_print_version(stdout);
		return ft_stdout_done(0);
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return ft_stdout_done(cmds[i].fn(argc - 1, argv + 1));
	ft_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
