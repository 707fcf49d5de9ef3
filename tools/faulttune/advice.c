// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune advice: the model's table and the one recommendation line,
 * shared by tune (live and --from) and report, so that all three say the
 * same thing about the same recording.
 */
#include <stdlib.h>
#include <string.h>
#include "model.h"

/* the table size at the end of a recording; 0 if it has no hugetlb events */
uint32_t ft_recorded_size(const struct ft_analysis *a)
{
	int i;

	if (a->resizes && !a->last_resize.result)
		return a->last_resize.new_n;
	for (i = 31; i >= 0; i--)
		if (a->nbuckets_seen[i])
			return a->nbuckets_seen[i];
	return 0;
}

/*
 * Candidates from 1 up: far enough to show the current size, the first
 * size that meets the target and the one after each; at most max_size.
 */
int ft_advise(const struct ft_model *m, const struct ft_advice_opts *o,
	      struct ft_advice *adv)
{
	struct ft_model_opts mo = { .threads = o->threads, .seed = FT_MODEL_SEED };
	/* without -m: far enough for any machine, cheap to simulate */
	uint32_t size, limit = o->max_size ? o->max_size : 1u << 16;
	uint32_t met_at = 0;
	int cap = 0;

	memset(adv, 0, sizeof(*adv));
	adv->current = o->current;
	adv->target_pct = o->target_pct;
	adv->threads = o->threads;
	adv->streams = ft_model_streams(m);
	adv->concurrency = ft_model_concurrency(m);
	adv->nholds = ft_model_nholds(m);
	adv->nruns = ft_model_nruns(m);
	adv->mutex_bytes = ft_mutex_bytes(o->btf_path, adv->mutex_how,
					  sizeof(adv->mutex_how));
	if (limit > FT_MODEL_MAX_SIZE)
		limit = FT_MODEL_MAX_SIZE;
	for (size = 1; size && size <= limit; size <<= 1) {
		struct ft_model_row *r;

		if (o->max_size == 0 && met_at && size > 2 * met_at &&
		    size > 2 * o->current)
			break;
		if (adv->n == cap) {
			cap = cap ? cap * 2 : 16;
			r = realloc(adv->rows, cap * sizeof(*r));
			if (!r)
				return -1;
			adv->rows = r;
		}
		r = &adv->rows[adv->n];
		if (ft_model_predict_se(m, &mo, size, r))
			return -1;
		adv->n++;
		if (!met_at && r->coll_pct - r->coll_pct_se <= o->target_pct)
			met_at = size;
	}
	ft_model_pick(adv->rows, adv->n, o->current, o->target_pct, &adv->pick);
	return 0;
}

void ft_advice_free(struct ft_advice *adv)
{
	free(adv->rows);
	adv->rows = NULL;
	adv->n = 0;
}

const struct ft_model_row *ft_advice_row(const struct ft_advice *adv,
					 uint32_t size)
{
	int i;

	for (i = 0; i < adv->n; i++)
		if (adv->rows[i].size == size)
			return &adv->rows[i];
	return NULL;
}

static void mem_str(const struct ft_advice *adv, long long n, int sign,
		    char *buf, size_t len)
{
	if (adv->mutex_bytes > 0)
		snprintf(buf, len, sign ? "%+lld B" : "%lld B",
			 n * adv->mutex_bytes);
	else
		snprintf(buf, len, sign ? "%+lld mutexes" : "%lld mutexes", n);
}

void ft_advice_line(FILE *f, const struct ft_advice *adv)
{
	const struct ft_model_row *rec, *cur;
	char mem[48], how[96];

	if (adv->pick.idx < 0 || !adv->nholds) {
		fprintf(f, "recommendation: none: no completed hugetlb fault mutex "
			"holds to model (the hugetlb events are needed)\n");
		return;
	}
	rec = &adv->rows[adv->pick.idx];
	cur = adv->current ? ft_advice_row(adv, adv->current) : NULL;
	if (rec->coll_pct <= adv->target_pct)
		snprintf(how, sizeof(how), "within the %g%% target",
			 adv->target_pct);
	else if (adv->pick.met)
		snprintf(how, sizeof(how), "within one standard error (%.2f%%) of "
			 "the %g%% target", rec->coll_pct_se, adv->target_pct);
	else
		snprintf(how, sizeof(how), "the closest to the %g%% target",
			 adv->target_pct);
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

void ft_advice_table(FILE *f, const struct ft_advice *adv)
{
	char mem[48];
	int i;

	fprintf(f, "model: %d run%s, %zu holds, %d streams, %d faulting at "
		"once; expected over %d draws of a uniform hash, with queueing\n",
		adv->nruns, adv->nruns == 1 ? "" : "s", adv->nholds,
		adv->streams, adv->concurrency, adv->n ? adv->rows[0].draws : 0);
	if (adv->threads && adv->concurrency > 0) {
		int k = (adv->threads + adv->concurrency / 2) / adv->concurrency;

		k = k < 1 ? 1 : k;
		fprintf(f, "for %d threads: %d simulated threads, %d cop%s of "
			"the recording, each on keys of its own\n", adv->threads,
			k * adv->concurrency, k, k == 1 ? "y" : "ies");
	}
	fprintf(f, "%8s %12s %10s %8s %10s %11s\n", "size", "memory", "coll_wait",
		"+-se", "sharing", "collisions");
	for (i = 0; i < adv->n; i++) {
		const struct ft_model_row *r = &adv->rows[i];
		char se[16];

		mem_str(adv, r->size, 0, mem, sizeof(mem));
		if (adv->nruns > 1)
			snprintf(se, sizeof(se), "%.2f%%", r->coll_pct_se);
		else
			snprintf(se, sizeof(se), "-");
		fprintf(f, "%8u %12s %9.2f%% %8s %9.2f%% %11.1f%s%s\n",
			r->size, mem, r->coll_pct, se, r->share_pct,
			r->collisions,
			r->size == adv->current ? "  <- current" : "",
			i == adv->pick.idx && !adv->pick.keep ?
			"  <- recommended" : "");
	}
	fprintf(f, "coll_wait, sharing: predicted wait as a share of fault time "
		"(request to release); +-se: standard error over the %s\n"
		"memory: %s\n", adv->nruns > 1 ? "runs" : "runs (one run: none)",
		adv->mutex_how);
}

void ft_advice_json(FILE *f, const struct ft_advice *adv)
{
	int i;

	fprintf(f, "{\"current\":%u,\"target_pct\":%g,\"threads\":%d,"
		"\"streams\":%d,\"concurrency\":%d,\"runs\":%d,\"holds\":%zu,"
		"\"draws\":%d,\"mutex_bytes\":", adv->current, adv->target_pct,
		adv->threads, adv->streams, adv->concurrency, adv->nruns, adv->nholds,
		adv->n ? adv->rows[0].draws : 0);
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
			"\"predicted_span_ns\":%.0f}", r->coll_pct, r->coll_pct_sd,
			r->share_pct, r->coll_pct_se, r->collisions, r->fault_ns,
			r->span_ns);
	}
	fputc(']', f);
	if (adv->pick.idx >= 0 && adv->nholds)
		fprintf(f, ",\"recommended\":%u,\"keep\":%s,\"target_met\":%s}",
			adv->rows[adv->pick.idx].size,
			adv->pick.keep ? "true" : "false",
			adv->pick.met ? "true" : "false");
	else
		fputs(",\"recommended\":null}", f);
}

/*
 * The advice for a whole recording, as tune --from gives it.  -1 when
 * memory ran out.  Call it before ft_whatif(), which reorders the holds.
 */
int ft_advice_of(const struct ft_analysis *a, int threads, double target_pct,
		 struct ft_advice *adv)
{
	struct ft_advice_opts ao = {
		.current = ft_recorded_size(a), .threads = threads,
		.target_pct = target_pct > 0 ? target_pct : FT_TARGET_PCT,
	};
	struct ft_model *m = ft_model_new();
	int ret = -1;

	memset(adv, 0, sizeof(*adv));
	if (m && !ft_sample_add_runs(a, m))
		ret = ft_advise(m, &ao, adv);
	if (ret)
		ft_advice_free(adv);
	ft_model_free(m);
	return ret;
}
