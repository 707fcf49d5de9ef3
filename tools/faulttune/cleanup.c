// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune cleanup: remove what killed runs left on the machine's
 * tracing: their instances faulttune-<pid> and their kprobe events
 * faulttune_<pid>/... .  A run removes its own on every exit path it
 * lives through; kill -9, the OOM killer, a crash or a unit's stop
 * timeout end it before that, and a kprobe left behind stays armed in
 * the kernel's text until somebody removes it.  record, tune and watch
 * do this as they start; this is the same on its own, for the unit's
 * ExecStopPost= and for an administrator, and it says what it removed.
 *
 * A run that still owns its instance (its flock, held in any PID
 * namespace) is left alone, and so are its probes.
 */
#include <getopt.h>
#include <string.h>
#include "faulttune.h"
#include "builtin.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: faulttune cleanup [options]\n\n"
		"Remove the tracefs instances and kprobe events of faulttune runs\n"
		"that were killed; a running faulttune's are left alone.\n\n"
		"  -q, --quiet   say nothing when there is nothing to remove\n"
		"  -h, --help    this help\n");
}

int cmd_cleanup(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, quiet = 0, removed;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err("cleanup: bad option '%s' (see faulttune cleanup "
			       "--help)", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		ft_err("cleanup: unexpected argument '%s': it takes none",
		       argv[optind]);
		return 2;
	}
	if (ft_tracefs_check())
		return 1;
	removed = ft_cleanup_stale(0);
	if (removed || !quiet)
		printf("faulttune cleanup: %d left by killed runs removed; no "
		       "faulttune instance or kprobe event of a dead run is "
		       "left\n", removed);
	return 0;
}
