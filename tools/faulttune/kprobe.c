// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe recorder's record side: on a kernel without the faulttune
 * events, kprobe events in faulttune's own group give what the patched
 * kernel's hugetlb_fault_mutex_hold event carries (kpair.c assembles them
 * when the file is read):
 *
 *   key      at the entry of the function that hashes (mapping, index):
 *            hugetlb_fault_mutex_hash() on a stock kernel, every kernel
 *            since 2014 (the return address names the caller, hence the
 *            op), or the patched kernel's hugetlb_fault_mutex_lock(),
 *            whose op is an argument;
 *   unlock   at mutex_unlock(), filtered in the kernel to the table's
 *            address range: the release;
 *
 * and lock:contention_begin/end, enabled beside them, give the waits.
 * The probes' own cost inside a hold is measured as they are created
 * (kcal.c) and goes into the start marker, for kpair.c to take off.
 *
 * The group is faulttune_<pid>: two runs never share a probe, and a probe
 * whose run was killed is found by its pid (ft_kprobes_stale()).  Probes
 * are dynamic events of the whole machine, not of our instance: they are
 * removed by ft_kprobes_destroy() on every path that ends a run, and at
 * exit() by an atexit handler, so nothing is left on the machine's
 * tracing but our instance, which goes as it always does.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "faulttune.h"

/* the probed functions, best first; args as kprobe fetchargs */
static const struct ft_kp_key {
	const char *func;
	const char *format;
	int op_arg;		/* op is an argument: every caller is seen */
} keys[] = {
	/* patched: returns its token through a hidden pointer, $arg1 */
	{ "hugetlb_fault_mutex_lock",
	  "mapping=$arg2:x64 index=$arg3:u64 caller=$stack0:x64 op=$arg4:u8", 1 },
	{ "hugetlb_fault_mutex_hash",
	  "mapping=$arg1:x64 index=$arg2:u64 caller=$stack0:x64", 0 },
};

static struct ft_kprobes *live;	/* what the atexit handler removes */

/*
 * The kprobe blacklist, where debugfs shows it: "0xSTART-0xEND\tSYMBOL"
 * lines.  1: func is in it.
 */
static int blacklisted(const char *func)
{
	char *text = ft_read_all("/sys/kernel/debug/kprobes/blacklist", NULL);
	char *p = text;
	size_t n = strlen(func);
	int yes = 0;

	while (p && *p && !yes) {
		char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');

		if (tab && (!nl || tab < nl) && !strncmp(tab + 1, func, n) &&
		    (tab[1 + n] == '\n' || tab[1 + n] == '\0' ||
		     tab[1 + n] == ' ' || tab[1 + n] == '\t'))
			yes = 1;
		p = nl ? nl + 1 : NULL;
	}
	free(text);
	return yes;
}

static void destroy_one(struct tracefs_dynevent **ev)
{
	if (!*ev)
		return;
	if (tracefs_dynevent_destroy(*ev, true))
		ft_err("cannot remove kprobe event: %s", strerror(errno));
	tracefs_dynevent_free(*ev);
	*ev = NULL;
}

void ft_kprobes_destroy(struct ft_kprobes *kp)
{
	if (!kp)
		return;
	destroy_one(&kp->unlock);
	destroy_one(&kp->key);
	if (live == kp)
		live = NULL;
}

static void destroy_at_exit(void)
{
	ft_kprobes_destroy(live);
}

/*
 * Which ops the key probe sees on this kernel: each caller's out-of-line
 * calls, from its text in /proc/kcore.  A caller that hashes inline (or
 * that this kernel lacks) is not seen.  0, or -1 when no caller is seen.
 */
static int find_sites(struct ft_kprobes *kp, const struct ft_ksyms *ks,
		      uint64_t target)
{
	unsigned int seen = 0, op, cop;
	const char *func;
	size_t i, len = 0;

	kp->covered[0] = '\0';
	for (i = 0; (func = ft_kprobe_caller(i, &cop)); i++) {
		int n = ft_kcall_count(ks, func, target, 0);

		if (n <= 0)
			continue;
		seen |= 1U << cop;
		len += snprintf(kp->covered + len, len < sizeof(kp->covered) ?
				sizeof(kp->covered) - len : 0, "%s%s:%s*%d",
				len ? "," : "", ft_hop_name(cop), func, n);
	}
	/* the userfault drop is a second hash inside hugetlb_fault's inlines */
	if (seen & (1U << FT_HOP_FAULT))
		seen |= 1U << FT_HOP_USERFAULT;
	len = 0;
	kp->uncovered[0] = '\0';
	for (op = 0; op < FT_HOP_OTHER; op++)
		if (!(seen & (1U << op)))
			len += snprintf(kp->uncovered + len,
					len < sizeof(kp->uncovered) ?
					sizeof(kp->uncovered) - len : 0, "%s%s",
					len ? "," : "", ft_hop_name(op));
	return seen ? 0 : -1;
}

/* why creating a probe failed, from tracefs's error_log when it says */
static const char *create_failed(const char *what, char *buf, size_t len)
{
	char *log = tracefs_error_last(NULL);
	char *nl = log ? strrchr(log, '\n') : NULL;

	while (nl && nl > log && nl[1] == '\0') {
		*nl = '\0';
		nl = strrchr(log, '\n');
	}
	snprintf(buf, len, "cannot create the kprobe on %s (%s)%s%s", what,
		 errno == EPERM ? "refused: kernel lockdown?" : strerror(errno),
		 log ? ": " : "", log ? (nl ? nl + 1 : log) : "");
	free(log);
	tracefs_error_clear(NULL);
	return buf;
}

const char *ft_kprobes_create(struct ft_kprobes *kp,
			      struct tracefs_instance *inst)
{
	static char why[512];
	struct ft_ksyms *ks = NULL;
	const struct ft_kp_key *k = NULL;
	struct ft_kp_key test = { 0 };
	uint64_t target = 0;
	char filter[128], cfilter[128], *dir;
	const char *fail = NULL, *from;
	size_t i;
	int ok;

	memset(kp, 0, sizeof(*kp));
	snprintf(kp->group, sizeof(kp->group), "faulttune_%d", (int)getpid());
	dir = tracefs_get_tracing_file("kprobe_events");
	ok = dir && !access(dir, W_OK);
	tracefs_put_tracing_file(dir);
	if (!ok)
		return "no kprobe_events in tracefs (kernel without "
		       "CONFIG_KPROBE_EVENTS)";
	fail = ft_fault_table_find(&kp->base, &kp->n);
	if (fail)
		return fail;
	kp->stride = ft_mutex_stride(kp->base, kp->n, &from);
	if (!kp->stride)
		return "the fault mutex table's stride is not shown by "
		       "/proc/kcore: the unlock probe cannot be filtered to it";
	ks = ft_ksyms_load(NULL);
	/* the tests' way to a function that is missing, blacklisted, ... */
	test.func = getenv("FAULTTUNE_KPROBE_FUNC");
	if (test.func) {
		test.format = keys[1].format;
		if (ks && !ft_ksyms_addr(ks, test.func, &target))
			k = &test;
		else
			snprintf(why, sizeof(why), "%s not in kallsyms", test.func);
	}
	for (i = 0; !test.func && ks && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!ft_ksyms_addr(ks, keys[i].func, &target)) {
			k = &keys[i];
			break;
		}
	if (!k) {
		ft_ksyms_free(ks);
		return test.func ? why : "neither hugetlb_fault_mutex_lock nor "
		       "hugetlb_fault_mutex_hash in kallsyms (inlined or "
		       "CONFIG_HUGETLBFS=n)";
	}
	if (blacklisted(k->func)) {
		ft_ksyms_free(ks);
		snprintf(why, sizeof(why), "%s is on the kernel's kprobe "
			 "blacklist", k->func);
		return why;
	}
	kp->key_func = k->func;
	kp->op_arg = k->op_arg;
	if (find_sites(kp, ks, target)) {
		ft_ksyms_free(ks);
		snprintf(why, sizeof(why), "no caller calls %s out of line "
			 "(inlined everywhere in this kernel)", k->func);
		return why;
	}

	kp->key = tracefs_kprobe_alloc(kp->group, "key", k->func, k->format);
	kp->unlock = tracefs_kprobe_alloc(kp->group, "unlock", "mutex_unlock",
					  "lock=$arg1:x64");
	if (!kp->key || !kp->unlock) {
		ft_ksyms_free(ks);
		ft_kprobes_destroy(kp);
		return "out of memory";
	}
	tracefs_error_clear(NULL);
	if (tracefs_dynevent_create(kp->key)) {
		ft_ksyms_free(ks);
		fail = create_failed(k->func, why, sizeof(why));
		tracefs_dynevent_free(kp->key);
		kp->key = NULL;
		ft_kprobes_destroy(kp);
		return fail;
	}
	live = kp;
	if (!kp->atexit_done) {
		atexit(destroy_at_exit);
		kp->atexit_done = 1;
	}
	if (tracefs_dynevent_create(kp->unlock)) {
		ft_ksyms_free(ks);
		fail = create_failed("mutex_unlock", why, sizeof(why));
		tracefs_dynevent_free(kp->unlock);
		kp->unlock = NULL;
		ft_kprobes_destroy(kp);
		return fail;
	}
	/* only the table's mutexes, filtered before the event is written */
	snprintf(filter, sizeof(filter), "lock >= 0x%llx && lock < 0x%llx",
		 (unsigned long long)kp->base,
		 (unsigned long long)(kp->base + (uint64_t)kp->n * kp->stride));
	/*
	 * lock:contention too: with lock debugging every mutex_lock() of
	 * the machine has its pair, and only the table's are waits here
	 */
	snprintf(cfilter, sizeof(cfilter), "lock_addr >= 0x%llx && "
		 "lock_addr < 0x%llx", (unsigned long long)kp->base,
		 (unsigned long long)(kp->base + (uint64_t)kp->n * kp->stride));
	if (tracefs_event_file_write(inst, kp->group, "unlock", "filter",
				     filter) < 0 ||
	    tracefs_event_file_write(inst, "lock", "contention_begin", "filter",
				     cfilter) < 0 ||
	    tracefs_event_file_write(inst, "lock", "contention_end", "filter",
				     cfilter) < 0 ||
	    tracefs_event_enable(inst, kp->group, "unlock") ||
	    tracefs_event_enable(inst, kp->group, "key")) {
		ft_ksyms_free(ks);
		snprintf(why, sizeof(why), "cannot filter or enable the kprobe "
			 "events in our instance: %s", strerror(errno));
		ft_kprobes_destroy(kp);
		return why;
	}
	/* last: with the filters set, nothing else fills the buffer */
	kp->cal_why = getenv("FAULTTUNE_NO_KCAL") ? "the probes' own cost was "
		      "not measured (FAULTTUNE_NO_KCAL): holds are not corrected "
		      "for it" : ft_kcal_measure(kp, inst, ks, k->format,
						 "lock=$arg1:x64");
	ft_ksyms_free(ks);
	return NULL;
}

const char *ft_kprobes_marker(const struct ft_kprobes *kp)
{
	static char text[1024];

	int len;

	len = snprintf(text, sizeof(text), " kprobe group=%s key=%s "
		       "table=0x%llx nbuckets=%u stride=%u covered=%s "
		       "uncovered=%s", kp->group, kp->key_func,
		       (unsigned long long)kp->base, kp->n, kp->stride,
		       kp->covered, kp->uncovered[0] ? kp->uncovered : "none");
	/* ns, in the trace clock: what kpair.c takes off each hold */
	if (kp->cal.done && len > 0 && (size_t)len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, " probe_cost=%llu,%llu,%llu "
			 "probe_cost_on=%s",
			 (unsigned long long)kp->cal.key_unlock,
			 (unsigned long long)kp->cal.key_key,
			 (unsigned long long)kp->cal.end_unlock, kp->cal.path);
	return text;
}

/*
 * faulttune_<pid> groups whose run is gone: its instance faulttune-<pid>
 * is gone too (ft_cleanup_stale() removes a dead run's instance first).
 */
int ft_kprobes_stale(int quiet)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(
		TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE, NULL);
	int i, removed = 0;

	for (i = 0; all && all[i]; i++) {
		char *sys = NULL, *ev = NULL, inst[64], *end;
		long pid;

		tracefs_dynevent_info(all[i], &sys, &ev, NULL, NULL, NULL);
		if (!sys || strncmp(sys, "faulttune_", 10))
			goto next;
		pid = strtol(sys + 10, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			goto next;
		snprintf(inst, sizeof(inst), "faulttune-%ld", pid);
		if (tracefs_instance_exists(inst))
			goto next;
		if (tracefs_dynevent_destroy(all[i], true) == 0) {
			removed++;
			if (!quiet)
				ft_info("faulttune: removed stale kprobe event "
					"%s/%s (its run was killed)", sys, ev);
		} else {
			ft_err("cannot remove stale kprobe event %s/%s: %s",
			       sys, ev, strerror(errno));
		}
next:
		free(sys);
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	return removed;
}
