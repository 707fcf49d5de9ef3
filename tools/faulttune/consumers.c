// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's records to their consumers.
 *
 * The reader (readdat.c) decodes a recording into struct ft_event records
 * and hands each to ft_analysis_feed(), which passes it on to every
 * consumer attached to the analysis and to the faulttune-event analysis
 * itself (analysis.c).  The consumers today:
 *
 *   analysis.c   the faulttune events: pairing, wait/hold statistics,
 *                collisions vs sharing, the holds for the model;
 *   fallback.c   lock:contention_begin/end with their kernel stacks, on a
 *                kernel without the faulttune events; attached when the
 *                file records lock:contention_begin, and then the one that
 *                pairs those events.
 *
 * Neither knows the other: a new consumer is attached and fed here, and
 * printed by whoever prints the analysis (report.c, watch.c).
 */
#include "faulttune.h"

int ft_consumers_attach(struct ft_analysis *a, const char *file)
{
	size_t len = 0;
	char *text = ft_tracedat_kallsyms(file, &len);

	a->fb = ft_fallback_new(text ? ft_ksyms_parse(text, len) : NULL,
				"kallsyms stored in the file");
	return a->fb ? 0 : -1;
}

void ft_analysis_feed(struct ft_analysis *a, const struct ft_event *ev)
{
	if (a->fb)
		ft_fallback_feed(a->fb, ev);
	ft_core_feed(a, ev, a->fb != NULL);
}

void ft_analysis_free(struct ft_analysis *a)
{
	ft_fallback_free(a->fb);
	a->fb = NULL;
	ft_core_free(a);
}
