// SPDX-License-Identifier: GPL-2.0
/*
 * What the kprobe recorder's read side counted, for report: where its
 * probes were and what they saw, how its holds were dated and corrected,
 * and, in a file with the patched kernel's summaries too, how the two
 * accounts of each acquisition agree.  It formats what kpair.c counted
 * and decides nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kpair-local.h"
#include "out.h"

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

/* report --json's "source" and "kprobe" members */
static void print_json(FILE *f, const struct ft_kpair *kp)
{
	fprintf(f, ",\"source\":\"%s\",\"kprobe\":{\"key\":",
		kp->feeds ? "kprobe" : "events");
	ft_json_str(f, kp->key_func);
	fprintf(f, ",\"covered\":");
	ft_json_str(f, kp->covered);
	fprintf(f, ",\"uncovered\":");
	ft_json_str(f, kp->uncovered);
	fprintf(f, ",\"key_sites\":%s,\"drops_named\":%llu",
		kp->key_sites[0] ? kp->key_sites : "null",
		(unsigned long long)kp->drops_named);
	fprintf(f, ",\"unlock_sites\":%s,\"bucket_mismatch\":%llu",
		kp->unlock_sites[0] ? kp->unlock_sites : "null",
		(unsigned long long)kp->bucket_mismatch);
	fprintf(f, ",\"jump_releases\":%llu,\"jump_outside\":%llu",
		(unsigned long long)kp->jump_releases,
		(unsigned long long)kp->jump_outside);
	if (kp->have_cal_j)
		fprintf(f, ",\"probe_cost_jump\":{\"key_unlock_ns\":%llu,"
			"\"end_unlock_ns\":%llu}",
			(unsigned long long)kp->cal_ku_j,
			(unsigned long long)kp->cal_eu_j);
	fprintf(f, ",\"keys\":%llu,\"acquisitions\":%llu,\"recomputed\":%llu,"
		"\"unlock_without_key\":%llu,\"open_at_end\":%llu,"
		"\"unknown_caller\":%llu,\"acquired_at_key\":%llu,"
		"\"probe_cost\":{\"measured\":%s,\"key_unlock_ns\":%llu,"
		"\"key_key_ns\":%llu,\"end_unlock_ns\":%llu,"
		"\"holds_corrected\":%llu,\"clamped\":%llu,"
		"\"mean_correction_ns\":%llu}",
		(unsigned long long)kp->keys,
		(unsigned long long)kp->acquisitions,
		(unsigned long long)kp->recomputes,
		(unsigned long long)kp->unlock_nokey,
		(unsigned long long)kp->open_at_end,
		(unsigned long long)kp->unknown_caller,
		(unsigned long long)kp->acq_at_key,
		kp->have_cal ? "true" : "false",
		(unsigned long long)kp->cal_ku,
		(unsigned long long)kp->cal_kk,
		(unsigned long long)kp->cal_eu,
		(unsigned long long)kp->corrected,
		(unsigned long long)kp->clamped,
		(unsigned long long)(kp->corrected ?
				     kp->corr_sum / kp->corrected : 0));
	if (kp->summaries)
		fprintf(f, ",\"match\":{\"summaries\":%llu,\"matched\":%llu,"
			"\"kprobe_only\":%llu,\"events_only\":%llu,"
			"\"same_hash\":%llu,\"same_bucket\":%llu,"
			"\"same_contended\":%llu,\"same_op\":%llu,"
			"\"wait_diff_p50_ns\":%llu,\"wait_diff_p99_ns\":%llu,"
			"\"hold_diff_p50_ns\":%llu,\"hold_diff_p99_ns\":%llu}",
			(unsigned long long)kp->summaries,
			(unsigned long long)kp->matched,
			(unsigned long long)kp->kp_only,
			(unsigned long long)kp->ev_only,
			(unsigned long long)kp->same_hash,
			(unsigned long long)kp->same_bucket,
			(unsigned long long)kp->same_contended,
			(unsigned long long)kp->same_op,
			(unsigned long long)ft_hist_percentile(&kp->wait_diff, 50),
			(unsigned long long)ft_hist_percentile(&kp->wait_diff, 99),
			(unsigned long long)ft_hist_percentile(&kp->hold_diff, 50),
			(unsigned long long)ft_hist_percentile(&kp->hold_diff, 99));
	fprintf(f, "}");
}

/* where the probes were, what they saw, the acquisitions by op */
static void print_source(FILE *f, const struct ft_kpair *kp)
{
	int op;

	fprintf(f, "source: %s: key at %s%s%s, release at %s%s of the table "
		"(%u mutexes), waits from lock:contention_begin/end\n",
		kp->feeds ? "kprobe recorder" : "the faulttune events; the "
		"kprobe recorder beside them", kp->key_sites[0] ?
		kp->key_sites : "", kp->key_sites[0] ? " locking calls of " : "",
		kp->key_func[0] ? kp->key_func : "?",
		kp->unlock_sites[0] ? kp->unlock_sites : "mutex_unlock()",
		kp->unlock_sites[0] ? " unlock call sites" : "", kp->n);
	if (kp->unreleased[0] && strcmp(kp->unreleased, "none"))
		fprintf(f, "  releases not seen (no unlock probe sees them; their "
			"holds never end): %s\n", kp->unreleased);
	fprintf(f, "  call sites seen: %s\n  call sites not seen (their "
		"acquisitions are missing): %s\n",
		kp->covered[0] ? kp->covered : "unknown",
		kp->uncovered[0] ? kp->uncovered : "unknown");
	fprintf(f, "  acquisitions: %llu (", (unsigned long long)kp->acquisitions);
	for (op = 0; op < FT_HOP_NR; op++)
		if (kp->op_n[op])
			fprintf(f, "%s%s %llu", op ? ", " : "", ft_hop_name(op),
				(unsigned long long)kp->op_n[op]);
	fprintf(f, "); drops named by %s: %llu; unlocks without a "
		"key: %llu; open at the end: %llu%s\n",
		kp->key_sites[0] ? "their release's site" : "a key hashed again",
		(unsigned long long)(kp->key_sites[0] ? kp->drops_named :
				     kp->recomputes),
		(unsigned long long)kp->unlock_nokey,
		(unsigned long long)kp->open_at_end,
		kp->no_table ? "; keys before the table was known: skipped" : "");
	if (kp->jump_releases)
		fprintf(f, "  releases seen by probes placed before their call "
			"(jumps): %llu, of no mutex of the table: %llu\n",
			(unsigned long long)kp->jump_releases,
			(unsigned long long)kp->jump_outside);
}

/*
 * How the holds were dated.  An uncontended mutex_lock() without lock
 * debugging, or the patched helper's trylock, emits no
 * lock:contention_end to date the acquisition: the hold then runs from
 * the key probe and holds most of both probes' own cost
 * (Documentation/bench.md, the kprobe recorder's cost), which kcal.c
 * measured at record start.
 */
static void print_holds(FILE *f, const struct ft_kpair *kp)
{
	char b[4][32];

	if (kp->have_cal && !kp->raw_holds)
		fprintf(f, "  holds: the probes' own cost taken off each (measured "
			"at record start on %s: %s from the key probe, %s per "
			"rehash of the held key, %s from contention_end); mean "
			"%s off per hold, %llu of %llu holds shorter than it (0)%s; "
			"waits not corrected\n", kp->cal_on[0] ? kp->cal_on : "?",
			ft_fmt_ns(kp->cal_ku, b[0], 32), ft_fmt_ns(kp->cal_kk, b[1], 32),
			ft_fmt_ns(kp->cal_eu, b[2], 32),
			ft_fmt_ns(kp->corrected ? kp->corr_sum / kp->corrected : 0,
				  b[3], 32),
			(unsigned long long)kp->clamped,
			(unsigned long long)kp->corrected,
			kp->acq_at_key * 2 > kp->acquisitions ?
			"; most were dated at the key probe (no contention_end)" : "");
	else if (kp->acq_at_key * 2 > kp->acquisitions)
		fprintf(f, "  holds: %.0f%% of the acquisitions had no "
			"lock:contention_end to date them, so each hold runs "
			"from the key probe and includes most of both probes' "
			"own cost (%s: on production-like kernels about "
			"1,500 instructions, where a page-cache-hit refault "
			"holds its mutex about 550): short holds, and the "
			"collision wait predicted from them, are overstated\n",
			pct(kp->acq_at_key, kp->acquisitions),
			kp->raw_holds ? "--raw-holds" :
			"not measured at record start");
	else if (!kp->have_cal)
		fprintf(f, "  holds: as recorded, with the probes' own cost inside "
			"(%s)\n", kp->raw_holds ? "--raw-holds" :
			"not measured at record start");
}

/* the kprobe recorder's acquisitions against the patched kernel's summaries */
static void print_match(FILE *f, const struct ft_kpair *kp)
{
	uint64_t both = kp->summaries > kp->acquisitions ? kp->summaries :
			kp->acquisitions;
	char b[6][32];

	fprintf(f, "  against hugetlb_fault_mutex_hold: %llu summaries, %llu "
		"matched one to one (%.2f%%), %llu kprobe only, %llu events "
		"only; of the matched: hash %.2f%%, bucket %.2f%%, contended "
		"%.2f%%, op %.2f%% equal\n",
		(unsigned long long)kp->summaries,
		(unsigned long long)kp->matched, pct(kp->matched, both),
		(unsigned long long)kp->kp_only, (unsigned long long)kp->ev_only,
		pct(kp->same_hash, kp->matched), pct(kp->same_bucket, kp->matched),
		pct(kp->same_contended, kp->matched), pct(kp->same_op, kp->matched));
	fprintf(f, "  |kprobe - event| wait p50 %s p99 %s, hold p50 %s p99 %s; "
		"mean kprobe - event: wait %s%s, hold %s%s\n",
		ft_fmt_ns(ft_hist_percentile(&kp->wait_diff, 50), b[0], 32),
		ft_fmt_ns(ft_hist_percentile(&kp->wait_diff, 99), b[1], 32),
		ft_fmt_ns(ft_hist_percentile(&kp->hold_diff, 50), b[2], 32),
		ft_fmt_ns(ft_hist_percentile(&kp->hold_diff, 99), b[3], 32),
		kp->wait_diff_sum < 0 ? "-" : "",
		ft_fmt_ns(kp->matched ? llabs(kp->wait_diff_sum) / kp->matched : 0,
			  b[4], 32),
		kp->hold_diff_sum < 0 ? "-" : "",
		ft_fmt_ns(kp->matched ? llabs(kp->hold_diff_sum) / kp->matched : 0,
			  b[5], 32));
}

void ft_kpair_print(FILE *f, const struct ft_kpair *kp, enum ft_fmt fmt)
{
	if (fmt == FT_FMT_JSON) {
		print_json(f, kp);
		return;
	}
	if (fmt != FT_FMT_TEXT)
		return;
	print_source(f, kp);
	print_holds(f, kp);
	if (kp->summaries)
		print_match(f, kp);
}
