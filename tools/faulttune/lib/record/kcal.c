// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe recorder's own cost inside a hold, measured on this machine
 * when the probes are created.
 *
 * A hold the recorder sees runs from one probe's timestamp to the next's:
 * from the key probe (or lock:contention_end) to the unlock probe.  Each
 * probe takes its timestamp part way through its work, so the span holds
 * the first probe's work after its timestamp and the second's before it:
 * on a production kernel about 1,500 instructions, where a page-cache-hit
 * refault holds its mutex for about 550 (Documentation/bench.md, "kprobe
 * recorder cost").  No choice of probe points removes that, but it is the
 * same for every pair of probes of the same shapes, whatever the code
 * between them: so it is measured on a path where nothing lies between.
 *
 * getpid() enters __x64_sys_getpid() and calls __task_pid_nr_ns() a few
 * instructions later.  Probes of the recorder's shapes there, each of the
 * kind the real probe is (the key's on a function's entry, an ftrace
 * site; the unlock's on a call instruction, a breakpoint or, where the
 * kernel can optimize it, a jump), give per call the span of probe work
 * alone:
 *
 *   key_unlock  the key probe's shape (its fetchargs, no filter) on the
 *               entry, then the unlock probe's (its fetcharg, no filter)
 *               on the call of __task_pid_nr_ns(): the cost inside a
 *               hold dated at the key probe;
 *   key_key     key then key (on the callee's entry): inside a hold for
 *               each time the kernel hashes the held key again (stock's
 *               hugetlb_no_page());
 *   end_unlock  a filtered probe, then the unlock probe's shape: inside a
 *               hold dated at lock:contention_end (a filtered event too,
 *               though a tracepoint where this is a kprobe: an estimate).
 *
 * With the key at the hash's call sites (kprobe.c: a stock kernel), the
 * key is a breakpoint on a call, as the unlock is: key_unlock is then put
 * together from three spans (calibrate_site_key()).  Releases placed
 * before their call as jumps (kjump.c) get key_unlock and end_unlock of
 * their own, measured with a probe of their kind before the path's call
 * once the kernel has optimized it (calibrate_jump()).
 *
 * The median of 1000 calls each; kpair.c subtracts them.  The calibration
 * probes live in the recorder's group as cal_a to cal_e, enabled
 * only in its instance, and go before the recording starts (a killed
 * run's go with the group, ft_kprobes_stale()); the instance's buffer is
 * cleared after them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <tracefs.h>
#include "record.h"

#define CAL_CALLS	1000
#define CAL_MIN_PAIRS	100

/*
 * The entry and a function it calls out of line, best first: getpid()
 * has nothing between them; getppid() has rcu_read_lock(), nothing
 * either on a production kernel, lockdep's work under PROVE_RCU.
 */
static const struct {
	const char *entry, *callee;
	long nr;
} paths[] = {
	{ "__x64_sys_getpid", "__task_pid_nr_ns", SYS_getpid },
	{ "__x64_sys_getppid", "__task_pid_nr_ns", SYS_getppid },
};

struct cal_pass {
	int id_a, id_b, pid;
	size_t n, cap;
	struct cal_rec { uint64_t ts; int cpu, b; } *r;
};

static int on_record(struct tep_event *ev, struct tep_record *rec, int cpu,
		     void *data)
{
	struct cal_pass *p = data;
	struct cal_rec *r;

	if (ev->id != p->id_a && ev->id != p->id_b)
		return 0;
	if (tep_data_pid(ev->tep, rec) != p->pid)
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		struct cal_rec *nr = realloc(p->r, cap * sizeof(*nr));

		if (!nr)
			return 1;
		p->r = nr;
		p->cap = cap;
	}
	r = &p->r[p->n++];
	r->ts = rec->ts;
	r->cpu = cpu;
	r->b = ev->id == p->id_b;
	return 0;
}

static int by_cpu_ts(const void *a, const void *b)
{
	const struct cal_rec *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int event_id(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);

	return ev ? ev->id : -1;
}

/*
 * A parser for our three probes alone: tracefs_local_events_system()
 * would read kallsyms and every printk format too (1.2 s on the TCG
 * guests, for nothing these records need).
 */
static struct tep_handle *cal_tep(const char *group, const char *const *names)
{
	enum tep_endian e = tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int size = 0, i, bad;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	tep_set_file_bigendian(tep, e);
	tep_set_local_bigendian(tep, e);
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	bad = !buf || tep_parse_header_page(tep, buf, size, sizeof(long));
	free(buf);
	for (i = 0; !bad && names[i]; i++) {
		buf = tracefs_event_file_read(NULL, group, names[i], "format", &size);
		bad = !buf || tep_parse_event(tep, buf, size, group);
		free(buf);
	}
	if (bad) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/*
 * A pass: our getpid() calls with what is enabled now; the median span
 * from an event of id_a to the next, of id_b, on the same CPU.  The
 * buffer is emptied before and after.  NULL, or why not.
 */
static const char *run_pass(struct tracefs_instance *inst,
			    struct tep_handle *tep, long nr, int id_a, int id_b,
			    uint64_t *med)
{
	struct cal_pass p = { .pid = getpid(), .id_a = id_a, .id_b = id_b };
	const char *fail = NULL;
	uint64_t *spans = NULL;
	size_t i, n = 0;

	if (tracefs_instance_file_clear(inst, "trace") ||
	    tracefs_trace_on(inst))
		return "cannot start tracing in our instance";
	for (i = 0; i < CAL_CALLS; i++)
		syscall(nr);
	tracefs_trace_off(inst);
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, &p)) {
		fail = "cannot read its events";
		goto out;
	}
	qsort(p.r, p.n, sizeof(*p.r), by_cpu_ts);
	spans = calloc(p.n ? p.n : 1, sizeof(*spans));
	for (i = 0; spans && i + 1 < p.n; i++)
		if (!p.r[i].b && p.r[i + 1].b && p.r[i].cpu == p.r[i + 1].cpu)
			spans[n++] = p.r[i + 1].ts - p.r[i].ts;
	if (n < CAL_MIN_PAIRS) {
		fail = "too few of its calls seen by both probes";
		goto out;
	}
	qsort(spans, n, sizeof(*spans), by_u64);
	*med = spans[n / 2];
out:
	tracefs_instance_file_clear(inst, "trace");
	free(p.r);
	free(spans);
	return fail;
}

/* three probes of our group, made and their formats parsed: NULL, or why not */
static const char *make_probes(const char *group, const char *const name[3],
			       const char *const at[3],
			       const char *const format[3],
			       struct tracefs_dynevent *ev[3], int *made,
			       struct tep_handle **tep, int id[3])
{
	const char *const names[] = { name[0], name[1], name[2], NULL };
	int i;

	*made = 0;
	*tep = NULL;
	for (i = 0; i < 3; i++)
		ev[i] = tracefs_kprobe_alloc(group, name[i], at[i], format[i]);
	for (i = 0; i < 3; i++) {
		if (!ev[i] || tracefs_dynevent_create(ev[i]))
			return "cannot create its probes";
		*made = i + 1;
	}
	*tep = cal_tep(group, names);
	for (i = 0; i < 3; i++) {
		id[i] = *tep ? event_id(*tep, group, name[i]) : -1;
		if (id[i] < 0)
			return "cannot read its probes' formats";
	}
	return NULL;
}

static void drop_probes(struct tracefs_instance *inst,
			struct tracefs_dynevent *ev[3], int made,
			struct tep_handle *tep)
{
	int i;

	tracefs_trace_off(inst);
	for (i = made - 1; i >= 0; i--)
		if (tracefs_dynevent_destroy(ev[i], true))
			ft_err("cannot remove its calibration probe: %s",
			       strerror(errno));
	for (i = 0; i < 3; i++)
		tracefs_dynevent_free(ev[i]);
	tracefs_instance_file_clear(inst, "trace");
	tep_free(tep);
}

/*
 * 1 once debugfs's kprobes/list shows the probe at addr optimized into a
 * jump ("ADDR  k  SYM+OFF    [OPTIMIZED]"): the kernel does that a few
 * jiffies after the probe is armed, in the background.  0 when it has
 * not within 2 s, or the list cannot be read (debugfs not mounted).
 */
static int optimized(uint64_t addr)
{
	char want[32], *text, *line;
	int tries, yes = 0;

	snprintf(want, sizeof(want), "%016llx ", (unsigned long long)addr);
	for (tries = 0; tries < 40 && !yes; tries++) {
		if (tries)
			usleep(50000);
		text = ft_read_all("/sys/kernel/debug/kprobes/list", NULL);
		if (!text)
			return 0;
		for (line = strstr(text, want); line && !yes;
		     line = strstr(line + 1, want)) {
			char *nl = strchr(line, '\n');
			char *opt = strstr(line, "[OPTIMIZED]");

			yes = opt && (!nl || opt < nl);
		}
		free(text);
	}
	return yes;
}

/*
 * Where in the path's entry a release probe of the jump-placed kind goes:
 * the first instruction boundary the kernel accepts at least 5 bytes
 * before the call of the callee (the jump's length), after the entry's
 * first 5 bytes (its ftrace site, where the key's probe is).  0, or -1.
 */
static int jump_site(const char *group, uint64_t entry, uint64_t call,
		     uint64_t *at)
{
	uint64_t a;

	for (a = call - 5; a >= entry + 5 && a + 16 > call; a--)
		if (ft_kprobe_insn_at(group, "cal_j", a) == 1) {
			*at = a;
			return 0;
		}
	return -1;
}

/*
 * Three probes, armed twice: cal_a (the key's shape) on the entry, cal_b
 * (the unlock's shape) on the call site, then cal_c (the key's
 * shape) on the callee's entry.  Each arming rewrites the kernel's text,
 * the slow part (about 0.1 s each on the TCG guests), so cal_a stays
 * armed throughout and only its filter changes between the first two
 * passes.
 */
static const char *calibrate(struct ft_kcal *cal, const char *group,
			     struct tracefs_instance *inst, int path,
			     const char *site, const char *key_format,
			     const char *unlock_format, const char *f_key,
			     uint64_t jump_at)
{
	static const char *const name[3] = { "cal_a", "cal_b", "cal_c" };
	const char *const at[3] = {
		paths[path].entry, site, paths[path].callee,
	};
	const char *const format[3] = { key_format, unlock_format, key_format };
	struct tracefs_dynevent *ev[3];
	struct tep_handle *tep;
	const char *fail;
	int made, id[3];

	fail = make_probes(group, name, at, format, ev, &made, &tep, id);
	if (fail)
		goto out;
	if (tracefs_event_enable(inst, group, "cal_a") ||
	    tracefs_event_enable(inst, group, "cal_b")) {
		fail = "cannot enable its probes";
		goto out;
	}
	if (jump_at && !optimized(jump_at)) {
		fail = "the kernel did not make its probe before the call a jump";
		goto out;
	}
	fail = run_pass(inst, tep, paths[path].nr, id[0], id[1],
			&cal->key_unlock);
	if (fail)
		goto out;
	if (tracefs_event_file_write(inst, group, "cal_a", "filter", f_key) < 0) {
		fail = "cannot filter its probe";
		goto out;
	}
	fail = run_pass(inst, tep, paths[path].nr, id[0], id[1],
			&cal->end_unlock);
	if (fail)
		goto out;
	/* "0" clears a filter */
	if (tracefs_event_file_write(inst, group, "cal_a", "filter", "0") < 0 ||
	    tracefs_event_disable(inst, group, "cal_b") ||
	    tracefs_event_enable(inst, group, "cal_c")) {
		fail = "cannot enable its probes";
		goto out;
	}
	fail = run_pass(inst, tep, paths[path].nr, id[0], id[2], &cal->key_key);
out:
	drop_probes(inst, ev, made, tep);
	return fail;
}

/*
 * The key at the hash's call sites is a breakpoint on a call, as the
 * unlock is, and no path has two calls with nothing between them on
 * every kernel (a production kernel inlines all of __task_pid_nr_ns()).
 * So the span of a breakpoint key then a breakpoint unlock is put
 * together from three that can be measured, the entry's probe (an
 * ftrace site, F) and the call site's (a breakpoint, B) each seen before
 * and after another of the other kind:
 *
 *   X1  F key at the entry, B unlock at the call   (calibrate()'s first)
 *   X2  B key at the call, F unlock at the callee's entry
 *   X3  F key at the entry, F unlock at the callee's entry
 *
 * A span is the first probe's work after its timestamp and the second's
 * before it, so X1 + X2 - X3 is the B key's after and the B unlock's
 * before, and the few instructions between the probes cancel but for
 * the call itself.  cal_d and cal_e are made after calibrate()'s probes
 * are gone: a second probe at the call site would share its breakpoint
 * (the kernel's aggregated kprobe), which costs more than one alone.
 */
static const char *calibrate_site_key(struct ft_kcal *cal, const char *group,
				      struct tracefs_instance *inst, int path,
				      const char *site, const char *key_format,
				      const char *unlock_format)
{
	static const char *const name[3] = { "cal_a", "cal_d", "cal_e" };
	const char *const at[3] = {
		paths[path].entry, site, paths[path].callee,
	};
	const char *const format[3] = { key_format, key_format, unlock_format };
	struct tracefs_dynevent *ev[3];
	struct tep_handle *tep;
	uint64_t x2 = 0, x3 = 0;
	const char *fail;
	int made, id[3];

	fail = make_probes(group, name, at, format, ev, &made, &tep, id);
	if (fail)
		goto out;
	if (tracefs_event_enable(inst, group, "cal_d") ||
	    tracefs_event_enable(inst, group, "cal_e")) {
		fail = "cannot enable its probes";
		goto out;
	}
	fail = run_pass(inst, tep, paths[path].nr, id[1], id[2], &x2);
	if (fail)
		goto out;
	if (tracefs_event_disable(inst, group, "cal_d") ||
	    tracefs_event_enable(inst, group, "cal_a")) {
		fail = "cannot enable its probes";
		goto out;
	}
	fail = run_pass(inst, tep, paths[path].nr, id[0], id[2], &x3);
	if (fail)
		goto out;
	if (cal->key_unlock + x2 <= x3)
		fail = "its spans do not add up";
	else
		cal->key_unlock += x2 - x3;
out:
	drop_probes(inst, ev, made, tep);
	return fail;
}

/*
 * The releases placed as jumps (kprobe.c, kjump.c) are another kind of
 * probe than a breakpoint on the call, whose work before its timestamp
 * need not be the same (on getpid() the two measure within 20
 * instructions of each other, inside a refault about 100 apart:
 * bench.md, "The releases placed as jumps"): their spans are measured
 * apart, with a probe of their shape (unlock_j0's register) on an
 * instruction before the path's call that the kernel makes a jump.  The
 * key's share is the same as for the call-site release: site_key, what
 * calibrate_site_key() added to the entry key's span.
 */
static const char *calibrate_jump(struct ft_kprobes *kp,
				  struct tracefs_instance *inst, int path,
				  uint64_t entry, uint64_t call,
				  const char *key_format, const char *f_key,
				  int64_t site_key)
{
	struct ft_kcal j = { 0 };
	char site[32], format[32];
	const char *fail;
	uint64_t at;

	if (jump_site(kp->group, entry, call, &at))
		return "no instruction before its call for a jump-placed probe";
	snprintf(site, sizeof(site), "0x%llx", (unsigned long long)at);
	snprintf(format, sizeof(format), "idx=%%%s:x64", kp->jreg[0]);
	fail = calibrate(&j, kp->group, inst, path, site, key_format, format,
			 f_key, at);
	if (fail)
		return fail;
	if ((int64_t)j.key_unlock + site_key <= 0)
		return "its jump spans do not add up";
	kp->cal.key_unlock_j = (uint64_t)((int64_t)j.key_unlock + site_key);
	kp->cal.end_unlock_j = j.end_unlock;
	kp->cal.jump_done = 1;
	return NULL;
}

const char *ft_kcal_measure(struct ft_kprobes *kp, struct tracefs_instance *inst,
			    const struct ft_ksyms *ks, const char *key_format,
			    const char *unlock_format)
{
	static char why[384];
	const char *fail = "no getpid()/getppid() path with a call to "
			   "__task_pid_nr_ns() in kallsyms";
	char f_key[128], site[32];
	uint64_t target, entry, call, ku;
	size_t i;

	memset(&kp->cal, 0, sizeof(kp->cal));
	/* two compares that pass, on a field every event has */
	snprintf(f_key, sizeof(f_key), "common_pid > 0 && common_pid < %d",
		 (int)getpid() + 1);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (!ks || ft_ksyms_addr(ks, paths[i].callee, &target) ||
		    ft_ksyms_addr(ks, paths[i].entry, &entry) ||
		    ft_kcall_sites(ks, entry, target, 1, &call, 1) <= 0)
			continue;
		snprintf(site, sizeof(site), "0x%llx", (unsigned long long)call);
		fail = calibrate(&kp->cal, kp->group, inst, (int)i, site,
				 key_format, unlock_format, f_key, 0);
		ku = kp->cal.key_unlock;
		if (!fail && kp->key_callsites)
			fail = calibrate_site_key(&kp->cal, kp->group, inst,
						  (int)i, site, key_format,
						  unlock_format);
		if (!fail && kp->nshape)
			fail = calibrate_jump(kp, inst, (int)i, entry, call,
					      key_format, f_key,
					      (int64_t)kp->cal.key_unlock -
					      (int64_t)ku);
		if (!fail) {
			snprintf(kp->cal.path, sizeof(kp->cal.path), "%s>%s",
				 paths[i].entry, paths[i].callee);
			kp->cal.done = 1;
			return NULL;
		}
		snprintf(why, sizeof(why), "the probes' own cost was not "
			 "measured on %s>%s (%s): holds are not corrected for it",
			 paths[i].entry, paths[i].callee, fail);
		memset(&kp->cal, 0, sizeof(kp->cal));
		return why;
	}
	snprintf(why, sizeof(why), "the probes' own cost was not measured (%s): "
		 "holds are not corrected for it", fail);
	return why;
}
