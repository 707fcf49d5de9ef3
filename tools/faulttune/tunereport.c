// SPDX-License-Identifier: GPL-2.0
/*
 * What faulttune tune says at the end: the confirmation of the pick on
 * the measured runs (confirm.c judges it), then the answer in three
 * lines by default, the tables and checks with -v, each run with -vv,
 * or one JSON object; and --plot's chart.  It formats what tune.c
 * measured and decides nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tune-local.h"
#include "builtin.h"
#include "out.h"

/* the confirmation: recommended against current (confirm.c) */
struct confirm {
	int have;
	struct ft_confirm_out out;
	char text[1024];
};

static void mean_sd(const double *x, int n, double *mean, double *sd)
{
	double s = 0, s2 = 0;
	int i;

	*mean = *sd = 0;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		s2 += (x[i] - *mean) * (x[i] - *mean);
	if (n > 1)
		*sd = sqrt(s2 / (n - 1));
}

static double measured_pct(const struct size_result *r)
{
	return r && r->fault_ns > 0 ? 100.0 * r->coll_wait / r->fault_ns : 0;
}


/*
 * The runs measured after the probes: the probes all ran first, at the
 * current size, before any other size was run, so they are never
 * interleaved with the recommended size's runs and would weigh the
 * comparison with whatever drifted since.
 */
static void confirm_side(const struct size_result *r,
			 struct ft_confirm_side *s)
{
	s->size = r->size;
	s->runs = r->runs - r->probe_runs;
	s->wall = r->wall + r->probe_runs;
	s->cpu = r->cpu + r->probe_runs;
	s->coll_wait_ns = r->coll_wait - r->probe_coll_wait;
	s->fault_ns = r->fault_ns - r->probe_fault_ns;
}

static void confirm(struct tune_ctx *c, struct confirm *cf)
{
	const struct ft_model_row *rec;
	struct size_result *rr, *rc;
	struct ft_confirm_in in;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(cf, 0, sizeof(*cf));
	if (c->adv.pick.idx < 0) {
		snprintf(cf->text, sizeof(cf->text), "nothing to confirm: no "
			 "recommendation");
		return;
	}
	rec = &c->adv.rows[c->adv.pick.idx];
	rc = res_find(c, c->saved);
	if (c->adv.pick.keep) {
		const struct ft_decision *d = &c->adv.dec;

		snprintf(cf->text, sizeof(cf->text), "keep: %s; measured "
			 "collision wait at %u: %.2f%% of fault time over %d "
			 "runs", d->cur_verdict == FT_CUR_MEETS ?
			 "the current size meets the target" :
			 d->cur_verdict == FT_CUR_UNDECIDED ?
			 "the runs do not show the current size missing the "
			 "target" : "no size considered meets the target",
			 c->saved, measured_pct(rc), rc ? rc->runs : 0);
		return;
	}
	if (c->fixed) {
		snprintf(cf->text, sizeof(cf->text), "not measured: the table's "
			 "size is fixed at boot on this kernel; predicted "
			 "collision wait at %u: %.2f%% of fault time, against "
			 "%.2f%% measured at the current %u over %d runs",
			 rec->size, rec->coll_pct, measured_pct(rc), c->saved,
			 rc ? rc->runs : 0);
		return;
	}
	rr = res_find(c, rec->size);
	memset(&in, 0, sizeof(in));
	if (rr && rc) {
		confirm_side(rc, &in.cur);
		confirm_side(rr, &in.rec);
		/* the probes are the first runs in order[] */
		in.interleaved = ft_confirm_interleaved(c->order + rc->probe_runs,
							c->norder - rc->probe_runs,
							rc->size, rr->size);
		in.threads = c->cmd ? 0 : c->threads;
		in.ncpu = ncpu > 0 ? (int)ncpu : 0;
	}
	if (!rr || !rc || ft_confirm(&in, &cf->out)) {
		snprintf(cf->text, sizeof(cf->text), "not confirmed: fewer than "
			 "2 runs at %u or at %u (--reps)", c->saved, rec->size);
		return;
	}
	cf->have = 1;
	snprintf(cf->text, sizeof(cf->text), "%s", cf->out.text);
}

static void do_plot(struct tune_ctx *c, uint32_t rec);

/* below: the text goes on with the decision on all the runs (-v) */
static const char *stopped_str(const struct tune_ctx *c, int below, char *buf,
			       size_t len)
{
	if (!c->stopped)
		snprintf(buf, len, "interrupted");
	else if (!strcmp(c->stopped, "settled"))
		snprintf(buf, len, "settled on %u after %d probes",
			 c->probe_pick, c->nprobes);
	else
		snprintf(buf, len, "the budget (%s) ran out with the pick "
			 "(%u) not settled%s", !strcmp(c->stopped, "runs") ?
			 "--budget runs" : "--budget-time seconds",
			 c->probe_pick, c->fixed || !below ? "" : "; the "
			 "decision below adds the measured runs");
	return buf;
}

/*
 * Each measured size against the model: a size where they disagree is
 * named, with which way, since the pick stands on the model.
 */
static void check_text(const struct tune_ctx *c)
{
	int i, bad = 0, rows = 0;

	for (i = 0; i < c->nres; i++) {
		struct ft_check chk;

		ft_decision_check(&c->adv.dec, c->res[i].size, &chk);
		rows += chk.known && chk.runs;
	}
	if (!rows) {
		printf("model check at the measured sizes: nothing to check: %s\n",
		       c->adv.dec.nactive ? "no active run was measured" :
		       "in no run were two faults on different pages in flight "
		       "at once, and such runs predict no collision at any size");
		return;
	}
	printf("model check at the measured sizes (measured and predicted "
	       "collision wait over the active runs at each size, +- se; "
	       "replayed: the runs in the hash layout they recorded)\n");
	printf("%8s %5s %10s %8s %10s %8s %9s  %s\n", "size", "runs",
	       "measured%", "+-se%", "predicted%", "+-se%", "replayed%", "");
	for (i = 0; i < c->nres; i++) {
		struct ft_check chk;

		ft_decision_check(&c->adv.dec, c->res[i].size, &chk);
		if (!chk.known || !chk.runs)
			continue;
		printf("%8u %5d %9.2f%% %7.2f%% %9.2f%% %7.2f%% ", chk.size,
		       chk.runs, chk.meas_pct, chk.meas_se, chk.pred_pct,
		       chk.pred_se);
		if (chk.replay_known)
			printf("%8.2f%%", chk.replay_pct);
		else
			printf("%9s", "-");
		printf("  %s (%s)\n", chk.fits ? "fits" : "DOES NOT FIT",
		       ft_loop_name(chk.variant));
		if (chk.fits)
			continue;
		bad++;
		if (chk.replay_known && chk.replay_fits)
			printf("  at %u the runs' own hash layout, replayed, "
			       "fits them: they hashed their pages %s than the "
			       "mean over layouts the model predicts (runs that "
			       "reuse their files keep one layout)\n", chk.size,
			       chk.meas_pct > chk.pred_pct ? "less evenly" :
			       "more evenly");
		else if (chk.replay_known)
			printf("  at %u not even the runs' own hash layout, "
			       "replayed, fits them: the model misses something "
			       "these runs do\n", chk.size);
		if (chk.meas_pct > chk.pred_pct && chk.meas_pct > c->target)
			printf("  at %u the model predicts less collision wait than "
			       "was measured, and the measurement misses the "
			       "target: the recommendation may be too small\n",
			       chk.size);
		else if (chk.meas_pct > chk.pred_pct)
			printf("  at %u the model predicts less than was measured, "
			       "but the measurement still meets the target\n",
			       chk.size);
		else
			printf("  at %u the model predicts more than was measured: "
			       "the recommendation may be larger than needed\n",
			       chk.size);
	}
	if (!bad)
		printf("the model fits every measured size within two standard "
		       "errors\n");
}

static void check_json(const struct tune_ctx *c)
{
	int i, first = 1;

	printf(",\"model_check_measured\":[");
	for (i = 0; i < c->nres; i++) {
		struct ft_check chk;

		ft_decision_check(&c->adv.dec, c->res[i].size, &chk);
		if (!chk.known || !chk.runs)
			continue;
		printf("%s{\"size\":%u,\"runs\":%d,\"measured_pct\":%.4f,"
		       "\"measured_se_pct\":%.4f,\"predicted_pct\":%.4f,"
		       "\"predicted_se_pct\":%.4f,\"variant\":\"%s\","
		       "\"fits\":%s,\"replayed_pct\":%.4f,"
		       "\"replayed_fits\":%s}", first ? "" : ",", chk.size,
		       chk.runs, chk.meas_pct, chk.meas_se, chk.pred_pct,
		       chk.pred_se, ft_loop_name(chk.variant),
		       chk.fits ? "true" : "false", chk.replay_pct,
		       chk.replay_known && chk.replay_fits ? "true" : "false");
		first = 0;
	}
	putchar(']');
}

/* tune's result as one JSON object */
static void report_json(const struct tune_ctx *c, const struct confirm *cf,
			uint32_t rec, int nmeas)
{
	const struct ft_model_row *cur = ft_advice_row(&c->adv, c->saved);
	const struct ft_model_row *r = ft_advice_row(&c->adv, rec);
	int i;

	printf("{\"knob\":");
	ft_json_str(stdout, c->knob);
	/* saved: the knob's value, or the size the kernel was booted with */
	printf(",\"saved\":%u,\"runtime_adjustable\":%s,\"recorder\":\"%s\","
	       "\"workload\":", c->saved, c->fixed ? "false" : "true",
	       c->fi.evset == FT_EVS_FAULTTUNE ? "events" : "kprobe");
	if (c->cmd) {
		printf("\"command\",\"command\":[");
		for (i = 0; c->cmd[i]; i++) {
			if (i)
				putchar(',');
			ft_json_str(stdout, c->cmd[i]);
		}
		putchar(']');
	} else {
		printf("\"threads\",\"size_bytes\":%llu",
		       (unsigned long long)c->bench.size);
	}
	printf(",\"threads\":%d,\"reps\":%d,\"warmup\":%d,\"min_probes\":%d,"
	       "\"seed\":%u,\"target_pct\":%g,\"mode\":\"%s\",\"runs\":%d,"
	       "\"sizes_measured\":%d,\"wall_s\":%.3f,\"model\":",
	       c->threads, c->reps, c->warmup, c->probes, c->seed,
	       c->target, c->full ? "full" : "model", c->runs, nmeas,
	       c->wall_s);
	ft_advice_json(stdout, &c->adv);
	printf(",\"order\":[");
	for (i = 0; i < c->norder; i++)
		printf("%s%u", i ? "," : "", c->order[i]);
	printf("],\"measured\":[");
	for (i = 0; i < c->nres; i++) {
		struct size_result *r = &c->res[i];
		double m, sd;

		mean_sd(r->wall, r->runs, &m, &sd);
		printf("%s{\"size\":%u,\"runs\":%d,\"wall_mean_s\":%.6f,"
		       "\"wall_sd_s\":%.6f,\"acquisitions\":%llu,"
		       "\"contended\":%llu,\"collisions\":%llu,"
		       "\"sharing\":%llu,\"collision_wait_ns\":%.0f,"
		       "\"fault_ns\":%.0f,\"collision_pct\":%.4f,"
		       "\"lost_events\":%llu}", i ? "," : "", r->size,
		       r->runs, m, sd, (unsigned long long)r->acq,
		       (unsigned long long)r->contended,
		       (unsigned long long)r->collisions,
		       (unsigned long long)r->sharing, r->coll_wait,
		       r->fault_ns, measured_pct(r),
		       (unsigned long long)r->lost);
	}
	printf("],\"probes\":{\"runs\":%d,\"seconds\":%.3f,"
	       "\"budget_runs\":%d,\"budget_s\":%g,\"stopped\":\"%s\","
	       "\"pick\":%u}", c->nprobes, c->probe_s, c->budget_runs,
	       c->budget_s, c->stopped ? c->stopped : "interrupted",
	       c->probe_pick);
	check_json(c);
	printf(",\"true_sharing\":");
	ft_sharing_json(stdout, &c->share, c->target);
	printf(",\"recommended\":%u,\"keep\":%s,\"confirm\":{",
	       rec, c->adv.pick.keep ? "true" : "false");
	if (cf->have) {
		const struct ft_confirm_out *o = &cf->out;

		printf("\"diff_pct\":%.3f,\"ci_lo_pct\":%.3f,"
		       "\"ci_hi_pct\":%.3f,\"measurable\":%s,", o->wall.diff,
		       o->wall.lo, o->wall.hi,
		       o->wall.lo > 0 || o->wall.hi < 0 ? "true" : "false");
		printf("\"interleaved\":%s,\"verdict\":\"%s\","
		       "\"collision_wait_saved_ns\":%.0f,\"cpus_busy\":%.3f,"
		       "\"wall_resolution_pct\":%.3f,\"wall_bound_pct\":%.4f,",
		       o->interleaved ? "true" : "false",
		       ft_confirm_verdict_str(o->verdict), o->saved_ns, o->busy,
		       o->resolution_pct, o->bound_pct);
		if (o->have_cpu)
			printf("\"cpu_diff_pct\":%.3f,\"cpu_ci_lo_pct\":%.3f,"
			       "\"cpu_ci_hi_pct\":%.3f,", o->cpu.diff,
			       o->cpu.lo, o->cpu.hi);
	}
	printf("\"statement\":");
	ft_json_str(stdout, cf->text);
	printf("}");
	if (c->fixed)
		printf(",\"measure_skipped\":\"the table's size is fixed at "
		       "boot on this kernel\"");
	if (cur && r)
		printf(",\"predicted\":{\"current_collision_pct\":%.4f,"
		       "\"recommended_collision_pct\":%.4f}", cur->coll_pct,
		       r->coll_pct);
	printf(",\"boot_parameter\":\"hugetlb_fault_mutexes=%u\","
	       "\"applied\":%s}\n", rec, c->apply ? "true" : "false");
}

static void report_text(const struct tune_ctx *c, const struct confirm *cf,
			uint32_t rec)
{
	const struct ft_model_row *cur = ft_advice_row(&c->adv, c->saved);
	const struct ft_model_row *r = ft_advice_row(&c->adv, rec);
	char stop[160];
	int i;

	printf("\nfaulttune tune: ");
	if (c->cmd) {
		printf("command");
		for (i = 0; c->cmd[i]; i++)
			printf(" %s", c->cmd[i]);
	} else {
		printf("workload threads, %d threads, %llu MB", c->threads,
		       (unsigned long long)(c->bench.size >> 20));
	}
	printf("\nseed %u, ", c->seed);
	if (!c->fixed)
		printf("%d runs per size, ", c->reps);
	printf("%d probes (at least %d, at most %d or %g s) + %d warm-up, %d "
	       "runs, %.1f s%s\n", c->nprobes, c->probes, c->budget_runs,
	       c->budget_s, c->warmup, c->runs, c->wall_s,
	       c->fixed ? "; recorder: kprobe" : "");
	printf("probing: %d runs at %u in %.1f s; %s\n", c->nprobes, c->saved,
	       c->probe_s, stopped_str(c, 1, stop, sizeof(stop)));
	if (c->fixed)
		printf("the decision below is on the %d probe runs\n",
		       c->adv.nruns);
	else if (c->probe_pick != rec)
		printf("the measured runs moved the pick: %u on the probes "
		       "alone, %u on all %d traced runs\n", c->probe_pick, rec,
		       c->adv.nruns);
	else
		printf("the decision below is on all %d traced runs: the probes "
		       "and the measured runs\n", c->adv.nruns);
	ft_advice_table(stdout, &c->adv);
	if (c->fixed) {
		/* the measuring compares sizes, and this kernel runs one */
		printf("\nmeasuring: skipped: the table's size is fixed at boot "
		       "on this kernel (no %s), so no other size can run\n\n",
		       c->knob);
		check_text(c);
		putchar('\n');
		ft_advice_line(stdout, &c->adv);
		ft_sharing_text(stdout, &c->share, c->target);
		printf("confirmation: %s\n", cf->text);
		printf("now:            nothing: this kernel's table size (%u) "
		       "cannot be changed at run time\n", c->saved);
		printf("boot parameter: hugetlb_fault_mutexes=%u (on a kernel "
		       "with the patch 'hugetlb: resizable fault mutex table "
		       "with a debugfs knob')\n", rec);
		if (cur && r)
			printf("predicted:      collision wait %.2f%% -> %.2f%% "
			       "of fault time (%u -> %u)\n", cur->coll_pct,
			       r->coll_pct, c->saved, rec);
		return;
	}
	printf("\nmeasured (interleaved in the seed's order)\n");
	printf("%8s %5s %10s %8s %10s %14s %14s %8s\n", "size", "runs",
	       "wall/run", "+-sd", "coll%", "contended/run", "collisions/run",
	       "lost");
	for (i = 0; i < c->nres; i++) {
		struct size_result *r = &c->res[i];
		double m, sd;

		mean_sd(r->wall, r->runs, &m, &sd);
		printf("%8u %5d %9.3fs %7.3fs %9.2f%% %14.1f %14.1f %8llu\n",
		       r->size, r->runs, m, sd, measured_pct(r),
		       r->runs ? (double)r->contended / r->runs : 0.0,
		       r->runs ? (double)r->collisions / r->runs : 0.0,
		       (unsigned long long)r->lost);
	}
	printf("coll%%: measured collision wait, %% of fault time; wall/run, "
	       "+-sd: seconds\n\n");
	check_text(c);
	putchar('\n');
	ft_advice_line(stdout, &c->adv);
	ft_sharing_text(stdout, &c->share, c->target);
	printf("confirmation: %s\n", cf->text);
	printf("boot parameter: hugetlb_fault_mutexes=%u\n", rec);
	printf("now:            echo %u > %s\n", rec, c->knob);
}

/* the default output's confirmation: what the measured runs showed */
static void confirm_short(const struct tune_ctx *c, const struct confirm *cf)
{
	struct size_result *rc = res_find((struct tune_ctx *)c, c->saved);

	if (c->adv.pick.idx < 0)
		return;
	if (c->adv.pick.keep || c->fixed) {
		ft_wrap(stdout, 2, "measured: collision wait %.2f%% of fault time "
			"at the current %u over %d runs%s", measured_pct(rc),
			c->saved, rc ? rc->runs : 0, c->fixed ? "; no other size "
			"can run on this kernel" : "");
		return;
	}
	if (!cf->have) {
		ft_wrap(stdout, 2, "measured: %s", cf->text);
		return;
	}
	ft_wrap(stdout, 4, "%s", cf->out.brief);
}

/* the default output's model check: one line */
static void check_short(const struct tune_ctx *c)
{
	char bad[160];
	int i, n = 0, rows = 0, unexplained = 0;

	bad[0] = '\0';
	for (i = 0; i < c->nres; i++) {
		struct ft_check chk;

		ft_decision_check(&c->adv.dec, c->res[i].size, &chk);
		if (!chk.known || !chk.runs)
			continue;
		rows++;
		if (chk.fits)
			continue;
		unexplained += !chk.replay_known || !chk.replay_fits;
		if (n < (int)sizeof(bad))
			n += snprintf(bad + n, sizeof(bad) - n, " %u", chk.size);
	}
	if (!rows)
		ft_wrap(stdout, 2, "model check: nothing to check at the measured "
			"sizes");
	else if (n && !unexplained)
		ft_wrap(stdout, 2, "model check: at%s the runs' own hash layout "
			"explains what they measured, the model's mean over "
			"layouts does not (-v: which way)", bad);
	else if (n)
		ft_wrap(stdout, 2, "model check: the model DOES NOT FIT the runs "
			"at%s (-v: which way)", bad);
	else
		ft_wrap(stdout, 2, "model check: the model fits every measured "
			"size");
}

/* tune's default output: the verdict, how to apply it, how it was found */
static void report_short(const struct tune_ctx *c, const struct confirm *cf,
			 uint32_t rec)
{
	char stop[160], what[256];
	int i, n = 0;

	if (c->cmd) {
		n = snprintf(what, sizeof(what), "command");
		for (i = 0; c->cmd[i] && n < (int)sizeof(what); i++)
			n += snprintf(what + n, sizeof(what) - n, " %s", c->cmd[i]);
	} else {
		snprintf(what, sizeof(what), "workload threads, %d threads, %llu MB",
			 c->threads, (unsigned long long)(c->bench.size >> 20));
	}
	ft_wrap(stdout, 2, "faulttune tune: %s (seed %u, %d runs, %.1f s%s)",
		what, c->seed, c->runs, c->wall_s, c->fixed ?
		", recorder: kprobe" : "");
	ft_advice_verdict(stdout, &c->adv, &c->share);
	if (c->fixed) {
		ft_wrap(stdout, 2, "boot parameter: hugetlb_fault_mutexes=%u (on "
			"a kernel with the faulttune patches)", rec);
		ft_wrap(stdout, 2, "now:            nothing: this kernel's table "
			"size (%u) cannot be changed at run time", c->saved);
	} else {
		printf("boot parameter: hugetlb_fault_mutexes=%u\n", rec);
		ft_wrap(stdout, 2, "now:            echo %u > %s", rec, c->knob);
	}
	ft_wrap(stdout, 2, "probing: %d runs at %u in %.1f s; %s", c->nprobes,
		c->saved, c->probe_s, stopped_str(c, 0, stop, sizeof(stop)));
	confirm_short(c, cf);
	check_short(c);
	ft_sharing_short(stdout, &c->share, c->target);
	ft_wrap(stdout, 2, "-v: the model's table by size, the measured runs, "
		"the model checks, who shares");
}

/* -vv: each run, in the order run */
static void runs_text(const struct tune_ctx *c)
{
	int i, *seen = calloc(c->nres ? c->nres : 1, sizeof(*seen));

	if (!seen)
		return;
	printf("\nruns (in the order run; wall time, s)\n");
	for (i = 0; i < c->norder; i++) {
		struct size_result *r = res_find((struct tune_ctx *)c, c->order[i]);
		int k = r ? (int)(r - c->res) : -1;

		if (k < 0 || seen[k] >= r->runs)
			printf("%4d %8u %10s\n", i + 1, c->order[i], "-");
		else
			printf("%4d %8u %10.3f\n", i + 1, c->order[i],
			       r->wall[seen[k]++]);
	}
	free(seen);
}

void cmd_tune_report(struct tune_ctx *c)
{
	struct confirm cf;
	uint32_t rec = c->adv.pick.idx >= 0 ?
		c->adv.rows[c->adv.pick.idx].size : c->saved;
	int i, nmeas = 0;

	confirm(c, &cf);
	ft_sharing_sort(&c->share);
	for (i = 0; i < c->nres; i++)
		nmeas += c->res[i].runs > 0;
	c->apply_value = rec;
	if (c->fmt == FT_FMT_JSON)
		report_json(c, &cf, rec, nmeas);
	else if (!c->verbose)
		report_short(c, &cf, rec);
	else
		report_text(c, &cf, rec);
	if (c->fmt != FT_FMT_JSON && c->verbose > 1)
		runs_text(c);
	if (c->plot)
		do_plot(c, rec);
}

/* the model's curve and the measured points, through plot.c's runner */
static void do_plot(struct tune_ctx *c, uint32_t rec)
{
	static const char script[] =
		"set logscale x 2\n"
		"set xlabel 'num_fault_mutexes'\n"
		"set ylabel 'collision wait, % of fault time'\n"
		"plot ARG2 using 1:2 with linespoints title 'predicted (model)', "
		"ARG2 using 1:($3 < 0 ? NaN : $3) with points pt 7 "
		"title 'measured (events)', "
		"ARG2 using 1:($4 ? $2 : NaN) with points pt 6 ps 2 "
		"title 'recommended'\n";
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	int i;

	if (!f) {
		ft_err("--plot %s: out of memory", c->plot);
		return;
	}
	for (i = 0; i < c->adv.n; i++) {
		const struct ft_model_row *r = &c->adv.rows[i];
		struct size_result *m = res_find(c, r->size);

		fprintf(f, "%u %f %f %d\n", r->size, r->coll_pct,
			m && m->runs ? measured_pct(m) : -1.0, r->size == rec);
	}
	if (fclose(f)) {
		ft_err("--plot %s: out of memory", c->plot);
		free(data);
		return;
	}
	ft_plot(c->plot, script, data, len);
	free(data);
}

/*
 * tune --from: the advice on the recordings; coll, share and fault are
 * what they measured themselves (ns), each at the size it ran at.
 */
void cmd_tune_report_from(struct tune_ctx *c, double coll, double share,
			  double fault)
{
	int i;

	if (c->fmt == FT_FMT_JSON) {
		printf("{\"from\":[");
		for (i = 0; i < c->nfrom; i++) {
			if (i)
				putchar(',');
			ft_json_str(stdout, c->from[i]);
		}
		printf("],\"recorded\":{\"collision_wait_ns\":%.0f,"
		       "\"sharing_wait_ns\":%.0f,\"fault_ns\":%.0f,"
		       "\"collision_pct\":%.4f,\"sharing_pct\":%.4f},\"model\":",
		       coll, share, fault, fault > 0 ? 100 * coll / fault : 0,
		       fault > 0 ? 100 * share / fault : 0);
		ft_advice_json(stdout, &c->adv);
		printf(",\"true_sharing\":");
		ft_sharing_sort(&c->share);
		ft_sharing_json(stdout, &c->share, c->target);
		printf("}\n");
	} else if (!c->verbose) {
		char *files = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&files, &len);

		for (i = 0; m && i < c->nfrom; i++)
			fprintf(m, " %s", c->from[i]);
		if (m)
			fclose(m);
		ft_wrap(stdout, 2, "faulttune tune --from:%s (advice only, nothing "
			"changed)", files ? files : "");
		free(files);
		ft_advice_verdict(stdout, &c->adv, &c->share);
		if (c->adv.pick.idx >= 0 && !c->adv.pick.keep)
			printf("boot parameter: hugetlb_fault_mutexes=%u\n",
			       c->adv.rows[c->adv.pick.idx].size);
		ft_sharing_short(stdout, &c->share, c->target);
		ft_wrap(stdout, 2, "-v: the model's table by size, its check "
			"against the recording%s, who shares", c->nfrom > 1 ?
			"s" : "");
	} else {
		printf("faulttune tune --from:");
		for (i = 0; i < c->nfrom; i++)
			printf(" %s", c->from[i]);
		printf(" (advice only, nothing changed)\n");
		ft_advice_table(stdout, &c->adv);
		printf("recorded: collision wait %.2f%%, true sharing %.2f%% of "
		       "fault time, as measured in the recording%s\n",
		       fault > 0 ? 100 * coll / fault : 0,
		       fault > 0 ? 100 * share / fault : 0,
		       c->nfrom > 1 ? "s" : "");
		putchar('\n');
		ft_advice_line(stdout, &c->adv);
		ft_sharing_sort(&c->share);
		ft_sharing_text(stdout, &c->share, c->target);
		if (c->adv.pick.idx >= 0 && !c->adv.pick.keep)
			printf("boot parameter: hugetlb_fault_mutexes=%u\n",
			       c->adv.rows[c->adv.pick.idx].size);
	}
}
