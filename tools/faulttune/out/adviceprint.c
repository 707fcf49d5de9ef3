// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune advice, printed: the recommendation line, the model's table
 * and its checks (-v), the short verdict and the JSON member, the same
 * for tune (live and --from) and report.  It formats what advice.c and
 * decide.c found and decides nothing.
 */
#include <stdio.h>
#include "model.h"
#include "out.h"

static void mem_str(const struct ft_advice *adv, long long n, int sign,
		    char *buf, size_t len)
{
	if (adv->mutex_bytes > 0)
		snprintf(buf, len, sign ? "%+lld B" : "%lld B",
			 n * adv->mutex_bytes);
	else
		snprintf(buf, len, sign ? "%+lld mutexes" : "%lld mutexes", n);
}

static const char *used_str(unsigned int used)
{
	if (used == (1u << FT_LOOP_CLOSED))
		return "closed loop";
	if (used == (1u << FT_LOOP_OPEN))
		return "open loop";
	return "the larger of closed and open loop";
}

/* why the pick is where it is, relative to the target */
static void how_str(const struct ft_advice *adv, const struct ft_model_row *rec,
		    char *how, size_t len)
{
	if (rec->coll_pct <= adv->target_pct)
		snprintf(how, len, "within the %g%% target", adv->target_pct);
	else if (adv->pick.idx == adv->n - 1 && adv->limited)
		snprintf(how, len, "over the %g%% target: %u is the limit of "
			 "--max-size, and no size up to it meets the target "
			 "(raise --max-size)", adv->target_pct, rec->size);
	else if (adv->pick.idx == adv->n - 1)
		snprintf(how, len, "over the %g%% target: %u is the largest size "
			 "the model considers, and none up to it meets the target",
			 adv->target_pct, rec->size);
	else if (adv->pick.keep && adv->dec.cur_verdict == FT_CUR_UNDECIDED &&
		 adv->dec.nactive < 2)
		snprintf(how, len, "over the %g%% target, but within the spread "
			 "of the hash draws, and one run does not show %u missing "
			 "it (record more, or give several files)",
			 adv->target_pct, rec->size);
	else if (adv->pick.keep && adv->dec.cur_verdict == FT_CUR_UNDECIDED)
		snprintf(how, len, "over the %g%% target, but the runs do not "
			 "show %u missing it (see \"not settled\")",
			 adv->target_pct, rec->size);
	else if (adv->pick.keep && adv->dec.cur_verdict == FT_CUR_MEETS)
		snprintf(how, len, "over the %g%% target, but what was measured "
			 "at %u meets it, and the prediction there does not fit "
			 "the measurement", adv->target_pct, rec->size);
	else if (adv->pick.keep)
		snprintf(how, len, "over the %g%% target, but no size up to "
			 "--max-size comes closer", adv->target_pct);
	else
		snprintf(how, len, "over the %g%% target", adv->target_pct);
}

void ft_advice_line(FILE *f, const struct ft_advice *adv)
{
	const struct ft_model_row *rec, *cur;
	char mem[48], how[192];

	if (adv->pick.idx < 0 || !adv->nholds) {
		fprintf(f, "recommendation: none: no completed hugetlb fault mutex "
			"holds to model (the hugetlb events are needed)\n");
		return;
	}
	rec = &adv->rows[adv->pick.idx];
	cur = adv->current ? ft_advice_row(adv, adv->current) : NULL;
	how_str(adv, rec, how, sizeof(how));
	if (adv->pick.keep) {
		fprintf(f, "recommendation: keep %u: predicted collision wait "
			"%.2f%% of fault time, %s\n", rec->size, rec->coll_pct, how);
	} else {
		mem_str(adv, (long long)rec->size - adv->current, 1, mem,
			sizeof(mem));
		fprintf(f, "recommendation: %u: predicted collision wait %.2f%% of "
			"fault time, %s", rec->size, rec->coll_pct, how);
		if (cur)
			fprintf(f, " (the current %u: %.2f%%; memory %s)",
				cur->size, cur->coll_pct, mem);
		else if (adv->current)
			fprintf(f, " (the current size %u; memory %s)",
				adv->current, mem);
		fputc('\n', f);
	}
	fprintf(f, "true sharing: %.2f%% of fault time waits behind the same "
		"page; no table size removes it\n", rec->share_pct);
}

/*
 * The runs replayed in the hash layout they recorded, at each size they
 * ran at: the variants above predict the mean over layouts, which runs
 * that reuse their files (one layout) can miss by their luck alone.
 */
static void replay_lines(FILE *f, const struct ft_decision *d)
{
	struct ft_check c;
	int k;

	for (k = 0; k < d->nsizes; k++) {
		ft_decision_check(d, d->sizes[k], &c);
		if (!c.known || !c.replay_known)
			continue;
		fprintf(f, "  replayed in their own hash layout at %u: %.2f%%, "
			"%s\n", c.size, c.replay_pct, c.replay_fits ?
			"fits" : "does not fit");
	}
}

/* the model against what the runs measured, one line per variant */
static void fit_lines(FILE *f, const struct ft_advice *adv)
{
	const struct ft_decision *d = &adv->dec;
	int v;

	if (!d->fit[0].nruns) {
		fprintf(f, "model check: nothing to check: %s\n", d->nactive ?
			"no run measured its own collision wait" : "no run had "
			"two faults on different pages in flight at once, and "
			"such runs predict no collision at any size");
		return;
	}
	fprintf(f, "model check at the recorded size%s (%d run%s%s): measured "
		"collision wait %.2f%% of fault time\n",
		d->nruns > 1 ? "s" : "", d->fit[0].nruns,
		d->fit[0].nruns == 1 ? "" : "s", d->recorded[0] ?
		", predicted as recorded, not as --threads copies" : "",
		d->fit[0].meas_pct);
	for (v = 0; v < FT_NLOOP; v++)
		fprintf(f, "  %-11s predicts %6.2f%%: measured - predicted %+.2f "
			"+- %.2f (%s), %s\n", ft_loop_name(v), d->fit[v].pred_pct,
			d->fit[v].diff, d->fit[v].diff_se,
			d->fit[v].nruns > 1 ? "se over the runs" :
			"sd over the hash draws", d->fit[v].fits ? "fits" :
			"does not fit");
	if (d->used == (1u << FT_NLOOP) - 1 && !d->fit[0].fits)
		fprintf(f, "  neither variant fits this workload: sizes are judged "
			"by the larger prediction, and the answer is less sure "
			"than its error says\n");
	else if (d->used == (1u << FT_NLOOP) - 1)
		fprintf(f, "  both fit: the runs cannot tell them apart, so each "
			"size is judged by the larger prediction\n");
	else
		fprintf(f, "  the decision uses %s, the variant that fits\n",
			used_str(d->used));
	replay_lines(f, d);
}

static const char *meets_str(const struct ft_decision *d, int k)
{
	if (d->nactive < 2)
		return d->up[k] <= d->target_pct ? "yes" : "no";
	if (d->up[k] <= d->target_pct)
		return "yes";
	return d->lo[k] <= d->target_pct ? "maybe" : "no";
}

/* the runs the sizes were judged on: "the 12 runs" or "the 8 active runs" */
static const char *runs_str(const struct ft_decision *d, char *buf, size_t len)
{
	if (d->nactive == 1)
		snprintf(buf, len, "the one %srun", d->nruns > 1 ? "active " : "");
	else if (d->nactive == d->nruns)
		snprintf(buf, len, "the %d runs", d->nruns);
	else
		snprintf(buf, len, "the %d active runs", d->nactive);
	return buf;
}

/*
 * What the runs say of the current size, when a measurement decided it
 * or the model failed there: the decision is on the measurement.
 */
static void current_line(FILE *f, const struct ft_decision *d, const char *rb)
{
	if (d->cur_verdict == FT_CUR_MISSES_PREDICTED) {
		fprintf(f, "current: the prediction at %u is over the %g%% target "
			"with 95%% confidence over %s: it misses", d->current,
			d->target_pct, rb);
		if (d->cur_known)
			fprintf(f, ", and the %d runs measured there agree "
				"(%.2f%% .. %.2f%%)\n", d->cur_runs,
				d->cur_meas_lo < 0 ? 0 : d->cur_meas_lo,
				d->cur_meas_up);
		else
			fprintf(f, " (no run measured it there)\n");
		return;
	}
	if (!d->cur_known)
		return;
	if (d->cur_model_fails)
		fprintf(f, "current: the model check fails at %u, so the "
			"measurement there decides, not the prediction: ",
			d->current);
	else if (d->cur_verdict == FT_CUR_MISSES_MEASURED ||
		 d->cur_verdict == FT_CUR_MEETS)
		fprintf(f, "current: ");
	else
		return;
	fprintf(f, "measured at %u over its %d active run%s: %.2f%% .. %.2f%% "
		"of fault time (95%%), ", d->current, d->cur_runs,
		d->cur_runs == 1 ? "" : "s", d->cur_meas_lo < 0 ? 0 :
		d->cur_meas_lo, d->cur_meas_up);
	if (d->cur_verdict == FT_CUR_MISSES_MEASURED)
		fprintf(f, "over the %g%% target: it misses\n", d->target_pct);
	else if (d->cur_verdict == FT_CUR_MEETS && d->cur_meas_up <= d->target_pct)
		fprintf(f, "under the %g%% target: it meets it\n", d->target_pct);
	else
		fprintf(f, "not shown to miss the %g%% target\n", d->target_pct);
}

/* how settled the pick is: which sizes the runs separate it from */
static void settled_line(FILE *f, const struct ft_advice *adv)
{
	const struct ft_decision *d = &adv->dec;
	char rb[48];
	int k;

	if (d->nactive < d->nruns)
		fprintf(f, "idle runs: in %d of the %d runs no two faults on "
			"different pages overlapped (faults of the same page may "
			"have waited for each other: true sharing), so no size can "
			"collide there; sizes are judged on the other %d (the "
			"active runs)\n",
			d->nruns - d->nactive, d->nruns, d->nactive);
	if (!d->nactive) {
		fprintf(f, "settled: nothing to settle: no run had faults on "
			"different pages in flight at once, so no size collides "
			"and the runs cannot tell one size from another\n");
		return;
	}
	runs_str(d, rb, sizeof(rb));
	current_line(f, d, rb);
	if (d->nactive < 2) {
		fprintf(f, "settled: not known from one %srun (the bounds need "
			"the spread of several; record more, or give several "
			"files)\n", d->nactive < d->nruns ? "active " : "");
		return;
	}
	if (d->rec == ft_decision_size_idx(d, d->current) &&
	    d->cur_verdict == FT_CUR_UNDECIDED) {
		fprintf(f, "not settled: %s cannot tell whether the current %u "
			"meets the %g%% target, and do not show it missing it: "
			"kept.", rb, d->current, d->target_pct);
		if (d->last > d->rec)
			fprintf(f, "  They cannot separate %u from %u, the "
				"smallest size that surely meets it", d->current,
				d->sizes[d->last]);
		if (d->more_runs)
			fprintf(f, "; about %d more %sruns may decide (more "
				"probes, -P or -B)\n", d->more_runs,
				d->cur_known ? "measured " : "active ");
		else
			fprintf(f, "; the estimate at %u is too near the target "
				"for more runs to decide soon\n", d->current);
		return;
	}
	if (d->settled && d->rec == ft_decision_size_idx(d, d->current)) {
		fprintf(f, "settled: the current %u meets the %g%% target with "
			"95%% confidence over %s\n", d->current,
			d->target_pct, rb);
		return;
	}
	if (d->settled) {
		fprintf(f, "settled: with 95%% confidence over %s, %u "
			"meets the %g%% target", rb, d->sizes[d->rec],
			d->target_pct);
		if (d->rec > 0)
			fprintf(f, " and %u misses it", d->sizes[d->rec - 1]);
		fputc('\n', f);
		return;
	}
	if (d->nactive < FT_SETTLE_RUNS && d->first == d->rec) {
		fprintf(f, "not settled: %s are too few to say (%d at least); "
			"%u meets the %g%% target with 95%% confidence over them\n",
			rb, FT_SETTLE_RUNS, d->sizes[d->rec], d->target_pct);
		return;
	}
	fprintf(f, "not settled: %s cannot separate", rb);
	for (k = d->first; k <= d->rec; k++)
		fprintf(f, "%s %u", k == d->first ? "" : k == d->rec ? " and" : ",",
			d->sizes[k]);
	fprintf(f, " (below %u each may meet the %g%% target); recommending "
		"%u, the smallest that meets it with 95%% confidence (more "
		"probes, -P or -B, may settle it)\n", d->sizes[d->rec],
		d->target_pct, d->sizes[d->rec]);
}

void ft_advice_table(FILE *f, const struct ft_advice *adv)
{
	const struct ft_decision *d = &adv->dec;
	char mem[48], hb[32];
	int i;

	fprintf(f, "model: %d run%s, %zu holds, %d streams, %d faulting at "
		"once; expected over %d draws of a uniform hash, with queueing; "
		"%s\n", adv->nruns, adv->nruns == 1 ? "" : "s", adv->nholds,
		adv->streams, adv->concurrency, adv->n ? adv->rows[0].draws : 0,
		used_str(d->used));
	if (adv->handover_ns)
		fprintf(f, "handover: a waiter ran %s after the release it "
			"waited for (mean, measured); each simulated handover "
			"takes as long\n", ft_fmt_ns(adv->handover_ns, hb,
						    sizeof(hb)));
	if (adv->threads && adv->concurrency > 0) {
		int k = (adv->threads + adv->concurrency / 2) / adv->concurrency;

		k = k < 1 ? 1 : k;
		fprintf(f, "for %d threads: %d simulated threads, %d cop%s of "
			"the recording, each on keys of its own\n", adv->threads,
			k * adv->concurrency, k, k == 1 ? "y" : "ies");
		if (adv->threads_raised)
			fprintf(f, "--threads %d is below the %d that faulted at "
				"once in the recording: the model cannot take "
				"threads out, it simulates the %d\n", adv->threads,
				adv->concurrency, k * adv->concurrency);
	}
	fprintf(f, "%8s %12s %10s %8s %10s %14s %8s %8s %6s\n", "size",
		"memory", "coll%", "+-se%", "share%", "collisions/run",
		"closed%", "open%", "meets");
	for (i = 0; i < adv->n; i++) {
		const struct ft_model_row *r = &adv->rows[i];
		char se[16], pk[16];

		mem_str(adv, r->size, 0, mem, sizeof(mem));
		if (adv->nruns > 1)
			snprintf(se, sizeof(se), "%.2f%%", r->coll_pct_se);
		else
			snprintf(se, sizeof(se), "-");
		snprintf(pk, sizeof(pk), "%s", meets_str(d, i));
		/* the model's count is over all its runs: per run, as measured */
		fprintf(f, "%8u %12s %9.2f%% %8s %9.2f%% %14.1f %7.2f%% %7.2f%% "
			"%6s%s%s\n", r->size, mem, r->coll_pct, se, r->share_pct,
			adv->nruns > 1 ? r->collisions / adv->nruns :
			r->collisions, d->rows[FT_LOOP_CLOSED][i].coll_pct,
			d->rows[FT_LOOP_OPEN][i].coll_pct, pk,
			r->size == adv->current ? "  <- current" : "",
			i == adv->pick.idx && !adv->pick.keep ?
			"  <- recommended" : "");
	}
	fprintf(f, "coll%%, share%%: predicted collision and true sharing wait, "
		"%% of fault time (request to release), by %s; +-se%%: standard "
		"error over the %s; collisions/run: predicted; closed%%, open%%: "
		"each variant's coll%%; meets: the target, "
		"with 95%% confidence over the runs (yes), or not excluded "
		"(maybe)\nmemory: %s\n", used_str(d->used),
		adv->nruns > 1 ? "runs" : "runs (one run: none)",
		adv->mutex_how);
	ft_advice_check(f, adv);
}

void ft_advice_check(FILE *f, const struct ft_advice *adv)
{
	if (adv->pick.idx < 0 || !adv->nholds)
		return;
	fit_lines(f, adv);
	settled_line(f, adv);
}

/* the short output's "settled" line: how sure the pick is, in a few words */
static void settled_short(FILE *f, const struct ft_advice *adv)
{
	const struct ft_decision *d = &adv->dec;
	char rb[48], sz[160];
	int k, n = 0;

	if (!d->nactive) {
		ft_wrap(f, 2, "settled: nothing to settle: in no run did faults on "
			"different pages overlap, so no size collides");
		return;
	}
	runs_str(d, rb, sizeof(rb));
	if (d->nactive < 2) {
		ft_wrap(f, 2, "settled: not known from one %srun (record more, or "
			"give several files)", d->nactive < d->nruns ?
			"active " : "");
		return;
	}
	if (d->rec == ft_decision_size_idx(d, d->current) &&
	    d->cur_verdict == FT_CUR_UNDECIDED) {
		if (d->last > d->rec)
			snprintf(sz, sizeof(sz), " (nor separate it from %u)",
				 d->sizes[d->last]);
		else
			sz[0] = '\0';
		ft_wrap(f, 2, "not settled: %s cannot tell whether the current "
			"%u meets the %g%% target%s: kept", rb, d->current,
			d->target_pct, sz);
		return;
	}
	if (d->settled && d->rec == ft_decision_size_idx(d, d->current)) {
		ft_wrap(f, 2, "settled: the current %u meets the %g%% target with "
			"95%% confidence over %s", d->current, d->target_pct, rb);
		return;
	}
	if (d->settled) {
		if (d->rec > 0)
			snprintf(sz, sizeof(sz), " and %u misses it",
				 d->sizes[d->rec - 1]);
		else
			sz[0] = '\0';
		ft_wrap(f, 2, "settled: with 95%% confidence over %s, %u meets the "
			"%g%% target%s", rb, d->sizes[d->rec], d->target_pct, sz);
		return;
	}
	if (d->nactive < FT_SETTLE_RUNS && d->first == d->rec) {
		ft_wrap(f, 2, "not settled: %s are too few to say (%d at least)",
			rb, FT_SETTLE_RUNS);
		return;
	}
	for (k = d->first; k <= d->rec && n < (int)sizeof(sz); k++)
		n += snprintf(sz + n, sizeof(sz) - n, "%s %u", k == d->first ? "" :
			      k == d->rec ? " and" : ",", d->sizes[k]);
	ft_wrap(f, 2, "not settled: %s cannot separate%s; %u is the smallest that "
		"surely meets the target (more probes, -P or -B, may settle it)",
		rb, sz, d->sizes[d->rec]);
}

/*
 * The verdict that leads tune's and report's default output, every line
 * within FT_COLS columns: the pick (keep, or change to N), whether the
 * wait measured is collisions (which the size removes) or true sharing
 * (which it does not), and how settled the pick is.  s: the measured
 * waits of the same runs.  The caller adds how to apply it.
 */
void ft_advice_verdict(FILE *f, const struct ft_advice *adv,
		       const struct ft_sharing *s)
{
	const struct ft_model_row *rec, *cur;
	double cw, sw;
	char how[192];

	if (adv->pick.idx < 0 || !adv->nholds) {
		ft_wrap(f, 2, "recommendation: none: no completed hugetlb fault "
			"mutex holds to model (the hugetlb events are needed)");
		return;
	}
	rec = &adv->rows[adv->pick.idx];
	cur = adv->current ? ft_advice_row(adv, adv->current) : NULL;
	if (rec->coll_pct <= adv->target_pct)
		how[0] = '\0';
	else if (adv->pick.idx == adv->n - 1 && adv->limited)
		snprintf(how, sizeof(how), ", over the %g%% target at the "
			 "--max-size limit (raise it)", adv->target_pct);
	else if (adv->pick.idx == adv->n - 1)
		snprintf(how, sizeof(how), ", over the %g%% target at the largest "
			 "size considered", adv->target_pct);
	else if (adv->pick.keep && adv->dec.cur_verdict == FT_CUR_UNDECIDED)
		snprintf(how, sizeof(how), ", over the %g%% target, but the runs "
			 "do not show %u missing it", adv->target_pct, rec->size);
	else if (adv->pick.keep && adv->dec.cur_verdict == FT_CUR_MEETS)
		snprintf(how, sizeof(how), ", over the %g%% target as predicted, "
			 "but measured within it", adv->target_pct);
	else
		snprintf(how, sizeof(how), ", over the %g%% target",
			 adv->target_pct);
	/* "recommendation: [keep ]N: predicted collision wait ": as -v says */
	if (adv->pick.keep)
		ft_wrap(f, 2, "recommendation: keep %u: predicted collision wait "
			"%.2f%% of fault time%s", rec->size, rec->coll_pct, how);
	else if (cur)
		ft_wrap(f, 2, "recommendation: %u: predicted collision wait %.2f%% "
			"of fault time (%.2f%% at the current %u)%s", rec->size,
			rec->coll_pct, cur->coll_pct, cur->size, how);
	else
		ft_wrap(f, 2, "recommendation: %u: predicted collision wait %.2f%% "
			"of fault time (the current size: %u)%s", rec->size,
			rec->coll_pct, adv->current, how);
	/* what the runs measured: which of the two waits there is */
	cw = s && s->fault_ns ? 100.0 * s->coll_wait_ns / s->fault_ns : 0;
	sw = s ? ft_sharing_pct(s) : 0;
	if (cw <= 0 && sw <= 0)
		ft_wrap(f, 2, "cause: no fault waited for another on the fault "
			"mutexes in the runs");
	else if (cw >= sw)
		ft_wrap(f, 2, "cause: collisions, which the size removes: %.2f%% "
			"of fault time; true sharing %.2f%%", cw, sw);
	else
		ft_wrap(f, 2, "cause: true sharing, which no size removes: %.2f%% "
			"of fault time; collisions %.2f%%", sw, cw);
	settled_short(f, adv);
	if (adv->threads && adv->concurrency > 0) {
		int k = (adv->threads + adv->concurrency / 2) / adv->concurrency;

		k = k < 1 ? 1 : k;
		if (adv->threads_raised)
			ft_wrap(f, 2, "--threads %d is below the %d that faulted at "
				"once in the recording: %d simulated threads",
				adv->threads, adv->concurrency, k * adv->concurrency);
		else
			ft_wrap(f, 2, "for %d threads: %d simulated threads, %d "
				"cop%s of the recording", adv->threads,
				k * adv->concurrency, k, k == 1 ? "y" : "ies");
	}
}

static const char *verdict_str(enum ft_cur_verdict v)
{
	static const char *const s[] = {
		[FT_CUR_UNKNOWN] = "unknown", [FT_CUR_MEETS] = "meets",
		[FT_CUR_UNDECIDED] = "undecided",
		[FT_CUR_MISSES_MEASURED] = "misses_measured",
		[FT_CUR_MISSES_PREDICTED] = "misses_predicted",
	};

	return s[v];
}

static void fit_json(FILE *f, const struct ft_fit *x)
{
	fprintf(f, "{\"runs\":%d,\"measured_pct\":%.4f,\"predicted_pct\":%.4f,"
		"\"diff_pct\":%.4f,\"diff_se_pct\":%.4f,\"fits\":%s}", x->nruns,
		x->meas_pct, x->pred_pct, x->diff, x->diff_se,
		x->fits ? "true" : "false");
}

void ft_advice_json(FILE *f, const struct ft_advice *adv)
{
	const struct ft_decision *d = &adv->dec;
	int i, v;

	fprintf(f, "{\"current\":%u,\"target_pct\":%g,\"threads\":%d,"
		"\"streams\":%d,\"concurrency\":%d,\"runs\":%d,\"holds\":%zu,"
		"\"draws\":%d,\"handover_ns\":%llu,\"mutex_bytes\":",
		adv->current, adv->target_pct, adv->threads, adv->streams,
		adv->concurrency, adv->nruns, adv->nholds,
		adv->n ? adv->rows[0].draws : 0,
		(unsigned long long)adv->handover_ns);
	if (adv->mutex_bytes > 0)
		fprintf(f, "%d", adv->mutex_bytes);
	else
		fputs("null", f);
	fputs(",\"mutex_bytes_source\":", f);
	ft_json_str(f, adv->mutex_how);
	fputs(",\"sizes\":[", f);
	for (i = 0; i < adv->n; i++) {
		const struct ft_model_row *r = &adv->rows[i];

		fprintf(f, "%s{\"size\":%u,\"memory_bytes\":", i ? "," : "",
			r->size);
		if (adv->mutex_bytes > 0)
			fprintf(f, "%llu", (unsigned long long)r->size *
				adv->mutex_bytes);
		else
			fputs("null", f);
		fprintf(f, ",\"predicted_collision_pct\":%.4f,\"predicted_sd_pct\":"
			"%.4f,\"predicted_sharing_pct\":%.4f,"
			"\"predicted_se_pct\":%.4f,"
			"\"predicted_collisions\":%.3f,\"predicted_fault_ns\":%.0f,"
			"\"predicted_span_ns\":%.0f,\"closed_loop_pct\":%.4f,"
			"\"open_loop_pct\":%.4f,\"upper_pct\":%.4f,"
			"\"lower_pct\":%.4f,\"meets\":\"%s\"}",
			r->coll_pct, r->coll_pct_sd, r->share_pct, r->coll_pct_se,
			r->collisions, r->fault_ns, r->span_ns,
			d->rows[FT_LOOP_CLOSED][i].coll_pct,
			d->rows[FT_LOOP_OPEN][i].coll_pct, d->up[i], d->lo[i],
			meets_str(d, i));
	}
	fputs("],\"model_check\":{", f);
	for (v = 0; v < FT_NLOOP; v++) {
		fprintf(f, "%s\"%s\":", v ? "," : "", v == FT_LOOP_OPEN ?
			"open_loop" : "closed_loop");
		fit_json(f, &d->fit[v]);
	}
	fprintf(f, ",\"used\":\"%s\"}", used_str(d->used));
	fprintf(f, ",\"settled\":{\"known\":%s,\"settled\":%s,\"runs\":%d,"
		"\"idle_runs\":%d,\"t\":%.3f,\"inseparable\":[",
		d->nactive > 1 ? "true" : "false",
		d->settled ? "true" : "false", d->nactive, d->nruns - d->nactive,
		d->nactive > 1 ? ft_t95(d->nactive - 1) : 0.0);
	for (i = d->first; i <= d->last && i < d->nsizes; i++)
		fprintf(f, "%s%u", i == d->first ? "" : ",", d->sizes[i]);
	fputs("]}", f);
	fprintf(f, ",\"current_verdict\":{\"verdict\":\"%s\",\"more_runs\":",
		verdict_str(d->cur_verdict));
	if (d->more_runs)
		fprintf(f, "%d", d->more_runs);
	else
		fputs("null", f);
	fprintf(f, ",\"measured\":%s", d->cur_known ? "true" : "false");
	if (d->cur_known)
		fprintf(f, ",\"measured_lo_pct\":%.4f,\"measured_up_pct\":%.4f,"
			"\"model_fits\":%s", d->cur_meas_lo, d->cur_meas_up,
			d->cur_model_fails ? "false" : "true");
	fputc('}', f);
	if (adv->pick.idx >= 0 && adv->nholds)
		fprintf(f, ",\"recommended\":%u,\"keep\":%s,\"target_met\":%s}",
			adv->rows[adv->pick.idx].size,
			adv->pick.keep ? "true" : "false",
			adv->pick.met ? "true" : "false");
	else
		fputs(",\"recommended\":null}", f);
}
