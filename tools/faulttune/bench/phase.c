// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads' phase markers: a line into the recording's trace_marker
 * before each rep, so that a recording of `faulttune bench` (under record
 * or tune -- COMMAND, which name their instance's trace_marker in
 * FAULTTUNE_MARKER, read by bench's options) shows where each phase
 * starts.  Its own file: workload.c and lookup.c both mark, and
 * workload.c runs lookup.c's workload.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "faulttune.h"
#include "bench.h"

void ft_bench_marker(const struct ft_bench_opts *o, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, n;

	if (!o->marker)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(o->marker, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (n > 0 && write(fd, buf, n > (int)sizeof(buf) - 1 ?
			   (int)sizeof(buf) - 1 : n) < 0)
		n = -1;
	close(fd);
}
