// SPDX-License-Identifier: GPL-2.0
/*
 * tune's confirmation (confirm.c) on synthetic runs: what it says first,
 * and the verdict it may draw, for the cases a user meets.  The numbers
 * of the first case are those of make run's guest (issue 40): 4 vCPUs on
 * 2 loaded host cores, the recommended 256 against 32, wall +58.8%.
 */
#include <math.h>
#include <string.h>
#include "faulttune.h"
#include "confirm.h"
#include "out.h"
#include "check.h"

#define HAS(text, s) CHECK(strstr(text, s), "no \"%s\" in:\n%s", s, text)
#define HASNT(text, s) CHECK(!strstr(text, s), "\"%s\" in:\n%s", s, text)

/* every line fits the short output's width, indented by ft_wrap */
static void check_width(const char *text)
{
	const char *p = text, *nl;

	for (;; p = nl + 1) {
		nl = strchrnul(p, '\n');
		CHECK(nl - p <= FT_COLS - 4, "line of %d columns: %.*s",
		      (int)(nl - p), (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

/* the default output's form: three lines, the same order and verdict */
static void check_brief(const struct ft_confirm_out *o, const char *verdict)
{
	const char *p = o->brief;
	int lines = 1;

	for (; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 3, "%d lines:\n%s", lines, o->brief);
	check_width(o->brief);
	HAS(o->brief, ": collision wait saved ");
	CHECK(strstr(o->brief, "collision wait") < strstr(o->brief, "wall time"),
	      "the wait first:\n%s", o->brief);
	HAS(o->brief, verdict);
}

static void test_interleaved(void)
{
	static const uint32_t mixed[] = { 32, 256, 256, 32, 32, 256 };
	static const uint32_t blocks[] = { 32, 32, 32, 256, 256, 256 };
	/* the pick moved: 256 measured again alone, after the mixed rounds */
	static const uint32_t moved[] = { 32, 64, 64, 32, 256, 256, 256 };

	CHECK(ft_confirm_interleaved(mixed, 6, 32, 256), "mixed runs");
	CHECK(ft_confirm_interleaved(mixed, 6, 256, 32), "either order");
	CHECK(!ft_confirm_interleaved(blocks, 6, 32, 256), "one block each");
	CHECK(!ft_confirm_interleaved(moved, 7, 32, 256), "measured later");
	CHECK(ft_confirm_interleaved(moved, 7, 32, 64), "the first pair");
	CHECK(!ft_confirm_interleaved(mixed, 6, 32, 512), "no runs at one");
}

static void side(struct ft_confirm_side *s, uint32_t size, int runs,
		 const double *wall, const double *cpu, double wait_ms,
		 double fault_ms)
{
	s->size = size;
	s->runs = runs;
	s->wall = wall;
	s->cpu = cpu;
	s->coll_wait_ns = wait_ms * 1e6;
	s->fault_ns = fault_ms * 1e6;
}

/* slower wall time on CPU-bound runs, with the collision wait saved */
static void test_slower_cpu_bound(void)
{
	static const double wc[] = { 1.00, 1.10, 0.95, 1.05, 0.90, 1.00 };
	static const double wr[] = { 1.60, 1.45, 1.75, 1.50, 1.65, 1.57 };
	static const double cc[] = { 3.95, 4.35, 3.78, 4.16, 3.57, 3.97 };
	static const double cr[] = { 6.33, 5.75, 6.93, 5.94, 6.54, 6.22 };
	struct ft_confirm_in in = { .interleaved = 1, .threads = 4, .ncpu = 4 };
	struct ft_confirm_out o;

	side(&in.cur, 32, 6, wc, cc, 40, 1010);
	side(&in.rec, 256, 6, wr, cr, 0, 1500);
	CHECK(!ft_confirm(&in, &o), "confirm");
	CHECK(o.verdict == FT_CONF_SLOWER_CPU_BOUND, "verdict %s",
	      ft_confirm_verdict_str(o.verdict));
	CHECK(o.wall.lo > 0, "wall slower: %+.1f%%", o.wall.lo);
	CHECK(fabs(o.saved_ns - 40e6 / 6) < 1, "saved %.0f", o.saved_ns);
	/* the collision wait saved leads; the wall time is last, a bound */
	CHECK(strstr(o.text, "collision wait saved") &&
	      strstr(o.text, "CPU time per run") &&
	      strstr(o.text, "collision wait saved") <
	      strstr(o.text, "CPU time per run") &&
	      strstr(o.text, "CPU time per run") <
	      strstr(o.text, "wall time per run"), "order:\n%s", o.text);
	HAS(o.text, "measured 256 against 32, 6 + 6 runs, interleaved:");
	HAS(o.text, "collision wait saved: 6.67 ms per run (6.67 -> 0.00 ms; "
		    "3.96% -> 0.00% of fault time)");
	HAS(o.text, "wall time: cannot show a gain smaller than 12.1% here, "
		    "nor the wait saved: the runs\n  were CPU-bound (4.0 of "
		    "4 CPUs busy)");
	HAS(o.text, "the wait saved is at most 0.17% of the wall time");
	/* no reading that the advice makes things worse */
	HASNT(o.text, "measured slower, which the model does not explain");
	HAS(o.text, "the CPU time per run grew with the size");
	check_width(o.text);
	check_brief(&o, "\n  wall time: cannot show the gain here: the runs "
		    "were CPU-bound, 4.0 of 4 CPUs busy (-v)");
	HASNT(o.brief, "slower");
}

/* the same numbers, but 256 measured after 32: no signed verdict */
static void test_not_interleaved(void)
{
	static const double wc[] = { 1.00, 1.10, 0.95, 1.05 };
	static const double wr[] = { 0.60, 0.65, 0.55, 0.62 };
	struct ft_confirm_in in = { .interleaved = 0, .threads = 4, .ncpu = 4 };
	struct ft_confirm_out o;

	side(&in.cur, 32, 4, wc, NULL, 40, 1010);
	side(&in.rec, 256, 4, wr, NULL, 0, 1500);
	CHECK(!ft_confirm(&in, &o), "confirm");
	CHECK(o.verdict == FT_CONF_CANNOT_TELL, "verdict %s",
	      ft_confirm_verdict_str(o.verdict));
	HAS(o.text, "NOT interleaved");
	HAS(o.text, "cannot tell: the runs at 256 and at 32 were not "
		    "interleaved, so what drifted\n  between them cannot be "
		    "separated from the effect of the size");
	HAS(o.text, "CPU time per run: not measured");
	HASNT(o.text, "confirmed");
	HASNT(o.text, "faster");
	HASNT(o.text, "slower");
	check_width(o.text);
	check_brief(&o, "\n  cannot tell: the runs of the two sizes were not "
		    "interleaved");
	HASNT(o.brief, "faster");
}

/* a real gain, interleaved: confirmed, the wait saved still first */
static void test_gain(void)
{
	static const double wc[] = { 2.00, 2.05, 1.98, 2.02, 2.01 };
	static const double wr[] = { 1.50, 1.52, 1.49, 1.51, 1.48 };
	static const double cc[] = { 4.0, 4.1, 3.9, 4.0, 4.05 };
	static const double cr[] = { 3.0, 3.1, 2.9, 3.0, 3.05 };
	struct ft_confirm_in in = { .interleaved = 1, .threads = 8, .ncpu = 64 };
	struct ft_confirm_out o;

	side(&in.cur, 64, 5, wc, cc, 5000, 20000);
	side(&in.rec, 1024, 5, wr, cr, 100, 16000);
	CHECK(!ft_confirm(&in, &o), "confirm");
	CHECK(o.verdict == FT_CONF_FASTER, "verdict %s",
	      ft_confirm_verdict_str(o.verdict));
	CHECK(o.have_cpu && o.cpu.hi < 0, "CPU time lower: %+.1f%%", o.cpu.hi);
	HAS(o.text, "measured 1024 against 64, 5 + 5 runs, interleaved:");
	HAS(o.text, "collision wait saved: 980.00 ms per run (1000.00 -> 20.00 ms");
	HAS(o.text, "confirmed: the recommended size is measurably faster");
	CHECK(!strncmp(strchr(o.text, '\n') + 1, "  collision wait saved", 22),
	      "the wait saved first:\n%s", o.text);
	check_width(o.text);
	check_brief(&o, "\n  confirmed: the recommended size is measurably "
		    "faster");
	HAS(o.brief, "  CPU time per run -24.9% (95% CI -27.6 .. -22.2); wall "
		     "time -25.4% (-27.1 .. -23.8)\n");
}

/* an interval across zero: the resolution, not a verdict */
static void test_unresolved(void)
{
	static const double wc[] = { 1.0, 1.2, 0.8, 1.1, 0.9 };
	static const double wr[] = { 1.1, 0.8, 1.2, 0.9, 1.0 };
	struct ft_confirm_in in = { .interleaved = 1, .threads = 2, .ncpu = 8 };
	struct ft_confirm_out o;
	char want[64];

	side(&in.cur, 16, 5, wc, NULL, 10, 1000);
	side(&in.rec, 64, 5, wr, NULL, 1, 1000);
	CHECK(!ft_confirm(&in, &o), "confirm");
	CHECK(o.verdict == FT_CONF_UNRESOLVED, "verdict %s",
	      ft_confirm_verdict_str(o.verdict));
	snprintf(want, sizeof(want), "wall time: cannot show a gain smaller "
		 "than %.1f%% here", o.resolution_pct);
	HAS(o.text, want);
	check_brief(&o, want);
	CHECK(o.resolution_pct > 10 && o.resolution_pct < 40, "resolution "
	      "%.1f%%", o.resolution_pct);
	check_width(o.text);
}

/* slower where the CPUs were not all busy: the model is questioned */
static void test_slower_idle_cpus(void)
{
	static const double wc[] = { 1.00, 1.02, 0.98, 1.01, 0.99 };
	static const double wr[] = { 1.20, 1.22, 1.18, 1.21, 1.19 };
	static const double cc[] = { 2.0, 2.1, 1.9, 2.0, 2.0 };
	static const double cr[] = { 2.4, 2.5, 2.3, 2.4, 2.4 };
	struct ft_confirm_in in = { .interleaved = 1, .threads = 2, .ncpu = 16 };
	struct ft_confirm_out o;

	side(&in.cur, 16, 5, wc, cc, 50, 1000);
	side(&in.rec, 128, 5, wr, cr, 5, 1000);
	CHECK(!ft_confirm(&in, &o), "confirm");
	CHECK(o.verdict == FT_CONF_SLOWER, "verdict %s",
	      ft_confirm_verdict_str(o.verdict));
	HAS(o.text, "the recommended size measured slower, which the model "
		    "does not explain");
	check_width(o.text);
	check_brief(&o, "\n  the recommended size measured slower, which the "
		    "model does not explain (-v)");
}

static void test_too_few(void)
{
	static const double w[] = { 1.0 };
	struct ft_confirm_in in = { .interleaved = 1 };
	struct ft_confirm_out o;

	side(&in.cur, 16, 1, w, NULL, 0, 0);
	side(&in.rec, 64, 1, w, NULL, 0, 0);
	CHECK(ft_confirm(&in, &o) < 0 && !o.have, "one run each");
}

int main(void)
{
	test_interleaved();
	test_slower_cpu_bound();
	test_not_interleaved();
	test_gain();
	test_unresolved();
	test_slower_idle_cpus();
	test_too_few();
	return check_done("confirm-test");
}
