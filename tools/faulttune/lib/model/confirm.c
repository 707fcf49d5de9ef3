// SPDX-License-Identifier: GPL-2.0
/*
 * tune's confirmation: the recommended size measured against the current
 * one, in the order of what the change is for.
 *
 * A bigger table shortens the collision wait; that is what the events
 * measure at each size, so it comes first.  Then the CPU time per run: a
 * mutex waiter spins before it sleeps, so less waiting can show there.
 * Wall time comes last and as a bound: on CPU-bound runs (all CPUs busy,
 * as in a TCG guest with more vCPUs than host cores) a thread that waits
 * less only hands its CPU back sooner, and the wall time cannot get
 * shorter by the wait saved.  A wall time that measured slower there read
 * as "the advice makes things worse" (issue 40), where it only showed
 * what this machine's wall time cannot resolve.
 *
 * The runs of the two sizes are compared only where they were
 * interleaved: sizes measured one after the other differ by whatever
 * drifted between them too (another guest, a host that warmed up), and a
 * signed verdict on that would be a guess.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "confirm.h"

/* the CPUs the runs kept busy: at 90% of them they are CPU-bound */
#define CPU_BOUND_SHARE 0.9

int ft_confirm_interleaved(const uint32_t *order, int n, uint32_t a,
			   uint32_t b)
{
	int fa = -1, la = -1, fb = -1, lb = -1, i;

	for (i = 0; i < n; i++) {
		if (order[i] == a) {
			if (fa < 0)
				fa = i;
			la = i;
		} else if (order[i] == b) {
			if (fb < 0)
				fb = i;
			lb = i;
		}
	}
	/* a run of each size lies between two runs of the other's span */
	return fa >= 0 && fb >= 0 && fa < lb && fb < la;
}

static double mean(const double *x, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += x[i];
	return n ? s / n : 0;
}

static double pct_of(double x, double whole)
{
	return whole > 0 ? 100.0 * x / whole : 0;
}

/* a difference in percent of the current size's mean */
static int ci_pct(const double *cur, int nc, const double *rec, int nr,
		  struct ft_ci *ci)
{
	double m = mean(cur, nc);

	if (m <= 0 || ft_ci95_diff(cur, nc, rec, nr, ci))
		return -1;
	ci->diff *= 100 / m;
	ci->lo *= 100 / m;
	ci->hi *= 100 / m;
	return 0;
}

const char *ft_confirm_verdict_str(enum ft_confirm_verdict v)
{
	switch (v) {
	case FT_CONF_FASTER:		return "faster";
	case FT_CONF_UNRESOLVED:	return "not_measurable";
	case FT_CONF_SLOWER_CPU_BOUND:	return "slower_cpu_bound";
	case FT_CONF_SLOWER:		return "slower";
	case FT_CONF_CANNOT_TELL:	return "cannot_tell";
	}
	return "none";
}

#define ADD(...) \
	(n += snprintf(out->text + n, n < (int)sizeof(out->text) ? \
		       sizeof(out->text) - n : 0, __VA_ARGS__))
#define BRIEF(...) \
	(nb += snprintf(out->brief + nb, nb < (int)sizeof(out->brief) ? \
			sizeof(out->brief) - nb : 0, __VA_ARGS__))

/*
 * The default output's three lines: the same order, the same verdict,
 * the evidence left to -v (the default output is about 15 lines).
 */
static void brief(const struct ft_confirm_in *in, struct ft_confirm_out *out)
{
	const struct ft_confirm_side *c = &in->cur, *r = &in->rec;
	int nb = 0;

	BRIEF("measured %u against %u: collision wait %s %.2f ms per run "
	      "(%.2f%% -> %.2f%% of fault time)\n", r->size, c->size,
	      out->saved_ns >= 0 ? "saved" : "ADDED", fabs(out->saved_ns) / 1e6,
	      pct_of(c->coll_wait_ns, c->fault_ns),
	      pct_of(r->coll_wait_ns, r->fault_ns));
	if (out->have_cpu)
		BRIEF("  CPU time per run %+.1f%% (95%% CI %+.1f .. %+.1f); wall "
		      "time %+.1f%% (%+.1f .. %+.1f)\n", out->cpu.diff,
		      out->cpu.lo, out->cpu.hi, out->wall.diff, out->wall.lo,
		      out->wall.hi);
	else
		BRIEF("  wall time per run %+.1f%% (95%% CI %+.1f .. %+.1f)\n",
		      out->wall.diff, out->wall.lo, out->wall.hi);
	switch (out->verdict) {
	case FT_CONF_CANNOT_TELL:
		BRIEF("  cannot tell: the runs of the two sizes were not "
		      "interleaved (-v: why)");
		break;
	case FT_CONF_FASTER:
		BRIEF("  confirmed: the recommended size is measurably faster");
		break;
	case FT_CONF_UNRESOLVED:
		BRIEF("  wall time: cannot show a gain smaller than %.1f%% here "
		      "(-v: why)", out->resolution_pct);
		break;
	case FT_CONF_SLOWER_CPU_BOUND:
		BRIEF("  wall time: cannot show the gain here: the runs were "
		      "CPU-bound, %.1f of %d CPUs busy (-v)", out->busy,
		      in->ncpu);
		break;
	case FT_CONF_SLOWER:
		BRIEF("  the recommended size measured slower, which the model "
		      "does not explain (-v)");
		break;
	}
}

int ft_confirm(const struct ft_confirm_in *in, struct ft_confirm_out *out)
{
	const struct ft_confirm_side *c = &in->cur, *r = &in->rec;
	double wc, wr, cpu_c, wall_c, half;
	int n = 0, threads = in->threads > 0 ? in->threads : 1;

	memset(out, 0, sizeof(*out));
	if (ci_pct(c->wall, c->runs, r->wall, r->runs, &out->wall))
		return -1;
	out->have = 1;
	out->interleaved = in->interleaved;
	wc = c->runs ? c->coll_wait_ns / c->runs : 0;
	wr = r->runs ? r->coll_wait_ns / r->runs : 0;
	out->saved_ns = wc - wr;
	wall_c = mean(c->wall, c->runs);
	out->have_cpu = c->cpu && r->cpu &&
			!ci_pct(c->cpu, c->runs, r->cpu, r->runs, &out->cpu);
	cpu_c = c->cpu ? mean(c->cpu, c->runs) : 0;
	out->busy = wall_c > 0 ? cpu_c / wall_c : 0;
	/*
	 * The most wall time the saved wait can give back: each thread's
	 * share of it, if all of it were on the thread's critical path.
	 */
	out->bound_pct = pct_of(out->saved_ns / threads, wall_c * 1e9);
	half = (out->wall.hi - out->wall.lo) / 2;
	out->resolution_pct = half;

	ADD("measured %u against %u, %d + %d runs, %s:\n", r->size, c->size,
	    r->runs, c->runs, in->interleaved ? "interleaved" :
	    "NOT interleaved");
	ADD("  collision wait %s: %.2f ms per run (%.2f -> %.2f ms; %.2f%% -> "
	    "%.2f%% of fault time)\n", out->saved_ns >= 0 ? "saved" :
	    "ADDED", fabs(out->saved_ns) / 1e6, wc / 1e6, wr / 1e6,
	    pct_of(c->coll_wait_ns, c->fault_ns),
	    pct_of(r->coll_wait_ns, r->fault_ns));
	if (out->have_cpu)
		ADD("  CPU time per run: %+.1f%% (95%% CI %+.1f%% .. %+.1f%%); "
		    "%.1f of %d CPUs busy\n", out->cpu.diff, out->cpu.lo,
		    out->cpu.hi, out->busy, in->ncpu);
	else
		ADD("  CPU time per run: not measured\n");
	ADD("  wall time per run: %+.1f%% (95%% CI %+.1f%% .. %+.1f%%)",
	    out->wall.diff, out->wall.lo, out->wall.hi);

	if (!in->interleaved) {
		out->verdict = FT_CONF_CANNOT_TELL;
		ADD("\n  cannot tell: the runs at %u and at %u were not "
		    "interleaved, so what drifted\n  between them cannot be "
		    "separated from the effect of the size", r->size, c->size);
	} else if (out->wall.hi < 0) {
		out->verdict = FT_CONF_FASTER;
		ADD("\n  confirmed: the recommended size is measurably faster");
	} else if (out->wall.lo <= 0) {
		out->verdict = FT_CONF_UNRESOLVED;
		ADD("\n  wall time: cannot show a gain smaller than %.1f%% here "
		    "(the interval includes zero);\n  the wait saved is at "
		    "most %.2f%% of it", half, out->bound_pct);
	} else if (in->ncpu > 0 && out->busy >= CPU_BOUND_SHARE * in->ncpu) {
		out->verdict = FT_CONF_SLOWER_CPU_BOUND;
		ADD("\n  wall time: cannot show a gain smaller than %.1f%% here, "
		    "nor the wait saved: the runs\n  were CPU-bound (%.1f of %d "
		    "CPUs busy), where waiting less only hands a CPU back "
		    "sooner;\n  the wait saved is at most %.2f%% of the wall "
		    "time", half, out->busy, in->ncpu, out->bound_pct);
		if (out->have_cpu && out->cpu.lo > 0)
			ADD("\n  the CPU time per run grew with the size, which "
			    "the model does not explain:\n  check with --full "
			    "and more --reps");
	} else {
		out->verdict = FT_CONF_SLOWER;
		ADD("\n  the recommended size measured slower, which the model "
		    "does not explain (a cost\n  it does not see, or noise "
		    "beyond the interval, +-%.1f%%): check with --full and more "
		    "--reps", half);
	}
	brief(in, out);
	return 0;
}
