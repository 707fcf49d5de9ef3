// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's records to the consumers its caller registers.
 *
 * The reader (readdat.c) decodes a recording into struct ft_event records
 * and hands each to ft_analysis_feed(), which passes it on to every
 * consumer the caller registered and started, then to the faulttune-event
 * analysis (the core, analysis.c), which is always there.  A caller
 * registers what it needs, as trace-cmd's tracecmd_follow_event() does:
 *
 *   report.c, watch.c   the lock:contention fallback (fallback.c), started
 *                       on a file that records lock:contention_begin;
 *   tune.c              none: it takes the core's holds only.
 *
 * Nothing here, in the reader or in the core names a consumer: a new one
 * is a file with a struct ft_consumer_ops, registered by the subcommand
 * that prints it.
 */
#include <traceevent/event-parse.h>
#include "analysis.h"

int ft_consumer_register(struct ft_analysis *a,
			 const struct ft_consumer_ops *ops, void *state)
{
	struct ft_consumer *c;

	if (a->nconsumers >= FT_CONSUMERS_MAX) {
		if (state)
			ops->free(state);
		return -1;
	}
	c = &a->consumers[a->nconsumers++];
	c->ops = ops;
	c->state = state;
	if (state && ops->claims_contention)
		a->contention_claimed = 1;
	return 0;
}

void *ft_consumer_state(const struct ft_analysis *a,
			const struct ft_consumer_ops *ops)
{
	int i;

	for (i = 0; i < a->nconsumers; i++)
		if (a->consumers[i].ops == ops)
			return a->consumers[i].state;
	return NULL;
}

void ft_consumers_start(struct ft_analysis *a, const char *file,
			struct tep_handle *tep)
{
	int i;

	for (i = 0; i < a->nconsumers; i++) {
		struct ft_consumer *c = &a->consumers[i];

		if (c->state || (c->ops->event &&
		    !tep_find_event_by_name(tep, c->ops->sys, c->ops->event)))
			continue;
		c->state = c->ops->start(file);
		if (c->state && c->ops->claims_contention)
			a->contention_claimed = 1;
	}
}

void ft_analysis_feed(struct ft_analysis *a, const struct ft_event *ev)
{
	int i;

	for (i = 0; i < a->nconsumers; i++)
		if (a->consumers[i].state)
			a->consumers[i].ops->feed(a->consumers[i].state, ev);
	ft_core_feed(a, ev, a->contention_claimed);
}

void ft_analysis_free(struct ft_analysis *a)
{
	int i;

	for (i = a->nconsumers - 1; i >= 0; i--)
		if (a->consumers[i].state)
			a->consumers[i].ops->free(a->consumers[i].state);
	a->nconsumers = 0;
	a->contention_claimed = 0;
	/* the reader's state: freed by its own function, named when made */
	if (a->kpair && a->kpair_free)
		a->kpair_free(a->kpair);
	a->kpair = NULL;
	ft_core_free(a);
}
