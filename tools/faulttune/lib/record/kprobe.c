// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe recorder's record side: on a kernel without the faulttune
 * events, kprobe events in faulttune's own group give what the patched
 * kernel's hugetlb_fault_mutex_hold event carries (kpair.c assembles them
 * when the file is read):
 *
 *   key      at each call of the function that hashes (mapping,
 *            index) that is followed by the lock of its mutex:
 *            hugetlb_fault_mutex_hash() on a stock kernel, every kernel
 *            since 2014 (the site's function is the caller, hence the
 *            op; the arguments are in %di and %si at the call), or at the
 *            entry of the patched kernel's hugetlb_fault_mutex_lock(),
 *            whose op is an argument.  The hash's other calls are inside
 *            a hold, to find the mutex to release (hugetlb_no_page() on
 *            every fault that reaches it, hugetlb_wp()'s and the
 *            userfault hand-off's drops): probed, each cost the refault
 *            a third more (Documentation/bench.md), and told the reader
 *            nothing the release's own site does not (the drops' sites
 *            are named in the marker).  A kernel where no call is seen
 *            followed by a lock gets the probe on the hash's entry, with
 *            the return address for the caller;
 *   unlock   at each call of mutex_unlock() inside the functions that
 *            take the table's mutexes (the callers of the key function,
 *            or the patched kernel's unlock helper), the lock in %di,
 *            not filtered in the kernel (the reader keeps the table's
 *            address range): the release; or, on a stock kernel, where
 *            the instructions before the call compute the mutex from the
 *            table's pointer (kjump.c), on the first of them, which the
 *            kernel can optimize into a jump (a breakpoint on the call
 *            costs each release about 160 instructions more): unlock_jN,
 *            the register the mutex is an offset of;
 *
 * and lock:contention_begin/end, enabled beside them, give the waits.
 *
 * Never a probe on mutex_unlock() itself: every mutex of the machine is
 * unlocked there, so every pipe write and every i_rwsem neighbour would
 * pay the probe (measured on Debian's 7.3.4 kernel: a one-byte pipe
 * write + read 1.6x; Documentation/bench.md, "The rest of the machine").
 * A probe at a call site inside hugetlb's own functions fires only on
 * their paths.  The sites are found in the kernel's text (the same scan
 * that finds the key's callers); the kernel decodes the function up to a
 * probed address and refuses one that is not an instruction boundary, so
 * a wrong site fails loudly instead of tracing garbage.  All sites share
 * one event, "unlock": the kernel appends a probe with the same fetchargs
 * to an existing event, and removing the event removes them all.
 *
 * The probes' own cost inside a hold is measured as they are created
 * (kcal.c) and goes into the start marker, for kpair.c to take off.
 *
 * The group is faulttune_<pid>: two runs never share a probe, and a probe
 * whose run was killed is found by its pid (ft_kprobes_stale()).  Probes
 * are dynamic events of the whole machine, not of our instance: they go
 * with it, ft_inst_destroy() calling ft_kprobes_destroy(), on every path
 * that ends a run (record's return, tune's and watch's atexit handlers),
 * so nothing is left on the machine's tracing but what a SIGKILL leaves,
 * which the next run removes.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "record.h"

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

/*
 * Where the patched kernel releases the table's mutexes: its helpers,
 * which its callers call in place of mutex_unlock()
 */
static const char *const unlock_helpers[] = {
	"hugetlb_fault_mutex_unlock", "hugetlb_fault_mutex_unlock_traced",
};

/*
 * At a call site the callee's first argument is in its register ($argN
 * is for a function's entry only): the x86-64 ABI's %di.  The sites are
 * found by decoding x86 calls, so the recorder is x86-64's alone.
 */
#if defined(__x86_64__)
#define UNLOCK_FORMAT	"lock=%di:x64"
#define KEY_SITE_FORMAT	"mapping=%di:x64 index=%si:u64"
#else
#define UNLOCK_FORMAT	NULL
#define KEY_SITE_FORMAT	NULL
#endif

/*
 * How far after a call of the hash the lock of its mutex is looked for:
 * the hash's result indexes the table, then the lock is called (or,
 * under lock debugging, its _nested form)
 */
#define KEY_SPAN	96

static int is_lock(const char *f)
{
	return !strcmp(f, "mutex_lock") || !strcmp(f, "mutex_lock_nested") ||
	       !strcmp(f, "mutex_lock_killable") ||
	       !strcmp(f, "mutex_lock_killable_nested");
}

/*
 * 1: the next call of a mutex function after the hash's call at site is
 * a lock (the hash chooses the mutex to take); 0: a release, or none near
 * (a rehash inside the hold, for its release).
 */
static int locks_after(const struct ft_ksyms *ks, uint64_t site)
{
	uint64_t at = site + 5, end = site + 5 + KEY_SPAN;
	const char *callee;

	while (at < end && (at = ft_kcall_next(ks, at, end - at, 0, &callee))) {
		if (is_lock(callee))
			return 1;
		if (!strcmp(callee, "mutex_unlock"))
			return 0;
		at += 5;
	}
	return 0;
}

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
	int i;

	if (!kp)
		return;
	/* removing an event removes every probe appended to it */
	for (i = 0; i < kp->nunlock; i++) {
		if (kp->head[i]) {
			destroy_one(&kp->unlock[i]);
			continue;
		}
		tracefs_dynevent_free(kp->unlock[i]);
		kp->unlock[i] = NULL;
	}
	kp->nunlock = kp->njump = kp->nshape = 0;
	destroy_one(&kp->key[0]);
	for (i = 1; i < kp->nkey; i++) {
		tracefs_dynevent_free(kp->key[i]);
		kp->key[i] = NULL;
	}
	kp->nkey = 0;
	kp->armed = 0;
}

static int append(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += n;
	if (*len >= size)		/* cut, but a string */
		*len = size - 1;
	return n;
}

/* the ops in none of the bits of seen, "op,op,..." */
static void ops_missing(char *buf, size_t size, unsigned int seen)
{
	size_t len = 0;
	unsigned int op;

	buf[0] = '\0';
	for (op = 0; op < FT_HOP_OTHER; op++)
		if (!(seen & (1U << op)))
			append(buf, size, &len, "%s%s", len ? "," : "",
			       ft_hop_name(op));
}

/*
 * a call of mutex_unlock() to probe, and the ops whose releases it sees;
 * probe: where its probe went (the call, or a jump-placed one before it)
 */
struct kp_site {
	uint64_t addr, probe;
	unsigned int ops;
};

/* the unlock call sites in the function (or copy) at start: *n grows */
static int unlock_sites(const struct ft_ksyms *ks, uint64_t start,
			uint64_t unlock, unsigned int ops, struct kp_site *sites,
			int *n)
{
	uint64_t at[FT_KP_SITES];
	int k, found = ft_kcall_sites(ks, start, unlock, 1, at, FT_KP_SITES - *n);

	if (found > FT_KP_SITES - *n)
		found = FT_KP_SITES - *n;
	for (k = 0; k < found; k++) {
		sites[*n + k].addr = at[k];
		sites[*n + k].ops = ops;
	}
	if (found > 0)
		*n += found;
	return found > 0 ? found : 0;
}

/* the calls of key_fn in the function at start that lock: *n grows */
static void lock_sites(const struct ft_ksyms *ks, uint64_t start,
		       uint64_t target, unsigned int ops, struct kp_site *sites,
		       int *n)
{
	uint64_t at[FT_KP_KEYS];
	int k, found = ft_kcall_sites(ks, start, target, 0, at, FT_KP_KEYS);

	if (found > FT_KP_KEYS)
		found = FT_KP_KEYS;
	for (k = 0; k < found && *n < FT_KP_KEYS; k++)
		if (locks_after(ks, at[k])) {
			sites[*n].addr = at[k];
			sites[(*n)++].ops = ops;
		}
}

/* a probe's place: SYM+0xOFF where the symbol is unique, else its address */
static void site_name(const struct ft_ksyms *ks, uint64_t addr, char *buf,
		      size_t len)
{
	const char *func;
	uint64_t off;

	func = ft_ksyms_func(ks, addr, &off);
	if (func && ft_ksyms_named(ks, func) == 1)
		snprintf(buf, len, "%s+0x%llx", func, (unsigned long long)off);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

/* code at "at" tail-calls handle_userfault() before any ret (c3) byte */
static int tail_to_userfault(const struct ft_ksyms *ks, uint64_t at)
{
	unsigned char b[32];
	const char *callee;
	size_t span;

	if (ft_kcore_read(at, b, sizeof(b)))
		return 0;
	for (span = 0; span < sizeof(b) - 5 && b[span] != 0xc3; span++)
		;
	return ft_kcall_next(ks, at, span, 1, &callee) &&
	       !strcmp(callee, "handle_userfault");
}

/*
 * The release at addr (a 5-byte call) hands the fault to userfaultfd:
 * the next call after it is handle_userfault(), or before any call its
 * first jump (e9 rel32, within 32 bytes) goes to code of its own function
 * that tail-calls handle_userfault() before a return: an epilogue shared
 * with the function's other exits, as hugetlb_no_page()'s on 7.3 (after
 * a stack-protector check on Debian's build).  Only the first jump: what
 * follows it is another block's.  The bytes are scanned, not decoded, as
 * ft_kcall_next() scans them; what the jump reaches must itself end in
 * the tail call, so a stray e9 byte almost never passes, and one that
 * comes first only hides a hand-off.
 */
static int hands_off(const struct ft_ksyms *ks, uint64_t addr)
{
	const char *callee = NULL, *func, *to_func;
	uint64_t call, off, to;
	unsigned char b[37];
	size_t i, before;
	int32_t rel;

	call = ft_kcall_next(ks, addr + 5, 32, 1, &callee);
	before = call ? call - (addr + 5) : 32;
	func = ft_ksyms_func(ks, addr, &off);
	if (func && !ft_kcore_read(addr + 5, b, sizeof(b)))
		for (i = 0; i < before && i < 32; i++) {
			if (b[i] != 0xe9)
				continue;
			memcpy(&rel, b + i + 1, 4);
			to = addr + 5 + i + 5 + (int64_t)rel;
			to_func = ft_ksyms_func(ks, to, &off);
			return to_func && !strcmp(to_func, func) &&
			       tail_to_userfault(ks, to);
		}
	return call && !strcmp(callee, "handle_userfault");
}

/*
 * The unlock sites that drop the mutex to wait, "0xaddr:op,..." into
 * kp->drops: those of hugetlb_wp() and hugetlb_handle_userfault(), or a
 * release that hands the fault to handle_userfault() (the hand-off
 * inlined: hands_off()).  With the key at the locking call sites no
 * rehash names them.
 */
static void find_drops(struct ft_kprobes *kp, const struct ft_ksyms *ks,
		       const struct kp_site *sites, int n)
{
	const char *func;
	size_t len = 0, len_at = 0;
	unsigned int op;
	char place[96];
	uint64_t off;
	int i;

	kp->drops[0] = kp->drops_at[0] = '\0';
	for (i = 0; i < n; i++) {
		func = ft_ksyms_func(ks, sites[i].addr, &off);
		if (ft_kprobe_drop_op(func, &op)) {
			if (!hands_off(ks, sites[i].addr))
				continue;
			op = FT_HOP_USERFAULT;
		}
		/* the reader knows a site by its probe's address */
		site_name(ks, sites[i].probe, place, sizeof(place));
		append(kp->drops_at, sizeof(kp->drops_at), &len_at, "%s%s:%s",
		       len_at ? "," : "", place, ft_hop_name(op));
		append(kp->drops, sizeof(kp->drops), &len, "%s0x%llx:%s",
		       len ? "," : "", (unsigned long long)sites[i].probe,
		       ft_hop_name(op));
	}
}

/*
 * Which ops the key probe sees on this kernel, and where the unlock
 * probes go: each caller's (and each compiler's copy of it: .isra.0,
 * .constprop.0, .part.0, .cold) out-of-line calls of the key function and
 * of mutex_unlock(), from its text in /proc/kcore.  A caller that hashes
 * inline (or that this kernel lacks) is not seen.  *seen: the ops the key
 * probe sees.  0, or why not.
 */
static const char *find_sites(struct ft_kprobes *kp, const struct ft_ksyms *ks,
			      uint64_t target, uint64_t unlock,
			      struct kp_site *sites, int *nsites,
			      struct kp_site *ksites, int *nksites,
			      unsigned int *seen)
{
	unsigned int cop;
	const char *func, *copy;
	size_t i, j, len = 0;
	uint64_t start;

	*nsites = 0;
	*nksites = 0;
	*seen = 0;
	kp->covered[0] = '\0';
	for (i = 0; (func = ft_kprobe_caller(i, &cop)); i++) {
		for (j = 0; (copy = ft_ksyms_copy(ks, func, &j, &start)); ) {
			int n = ft_kcall_sites(ks, start, target, 0, NULL, 0);

			if (n > 0) {
				*seen |= 1U << cop;
				append(kp->covered, sizeof(kp->covered), &len,
				       "%s%s:%s*%d", len ? "," : "",
				       ft_hop_name(cop), copy, n);
				if (ksites)
					lock_sites(ks, start, target, 1U << cop,
						   ksites, nksites);
			}
			unlock_sites(ks, start, unlock, 1U << cop, sites, nsites);
		}
	}
	/* the patched kernel: every op releases through its helper */
	for (i = 0; i < sizeof(unlock_helpers) / sizeof(unlock_helpers[0]); i++)
		for (j = 0; (copy = ft_ksyms_copy(ks, unlock_helpers[i], &j,
						  &start)); )
			unlock_sites(ks, start, unlock, ~0U, sites, nsites);
	/* the userfault drop is a second hash inside hugetlb_fault's inlines */
	if (*seen & (1U << FT_HOP_FAULT))
		*seen |= 1U << FT_HOP_USERFAULT;
	ops_missing(kp->uncovered, sizeof(kp->uncovered), *seen);
	if (!*seen)
		return "no caller calls %s out of line (inlined everywhere in "
		       "this kernel)";
	if (!*nsites)
		return "no call of mutex_unlock() in the callers of %s: their "
		       "releases cannot be seen";
	return NULL;
}

/* why creating a probe failed, from tracefs's error_log when it says */
static const char *create_failed(const char *what, char *buf, size_t len)
{
	int err = errno;
	char *log = tracefs_error_last(NULL);
	char *msg = log ? strstr(log, "error: ") : NULL;

	/* "[ts] trace_kprobe: error: WHY\n  Command: ...\n   ^": the WHY */
	if (msg) {
		msg += 7;
		msg[strcspn(msg, "\n")] = '\0';
	}
	snprintf(buf, len, "cannot create the kprobe on %s (%s)%s%s", what,
		 err == EPERM ? "refused: kernel lockdown?" :
		 err ? strerror(err) : "refused", msg ? ": " : "",
		 msg ? msg : "");
	free(log);
	tracefs_error_clear(NULL);
	return buf;
}

/* the table's address range, as a filter on the field named */
static void range_filter(const struct ft_kprobes *kp, const char *field,
			 char *buf, size_t len)
{
	snprintf(buf, len, "%s >= 0x%llx && %s < 0x%llx", field,
		 (unsigned long long)kp->base, field,
		 (unsigned long long)(kp->base + (uint64_t)kp->n * kp->stride));
}

/*
 * A probe of event (our group's) at the call of callee at addr, named in
 * place[]: 0 made, into *ev; 1 refused for its place (a notrace function,
 * a reserved or blacklisted address); -1, why: a wrong decode (EILSEQ:
 * no instruction boundary), or no memory.
 */
static int site_probe(struct ft_kprobes *kp, const struct ft_ksyms *ks,
		      const char *event, const char *format, uint64_t addr,
		      const char *callee, struct tracefs_dynevent **ev,
		      char *place, size_t plen, char *why, size_t len)
{
	char what[256];
	int err;

	site_name(ks, addr, place, plen);
	*ev = tracefs_kprobe_alloc(kp->group, event, place, format);
	if (!*ev) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	tracefs_error_clear(NULL);
	if (!tracefs_dynevent_create(*ev))
		return 0;
	err = errno;
	tracefs_dynevent_free(*ev);
	*ev = NULL;
	if (err == EILSEQ || err == ENOMEM) {
		snprintf(what, sizeof(what), "the call of %s at %s", callee,
			 place);
		errno = err;
		create_failed(what, why, len);
		return -1;
	}
	tracefs_error_clear(NULL);
	return 1;
}

/*
 * The key: one probe per locking call site of the hash, all on the event
 * "key" of our group, as the unlocks are (a site refused as no
 * instruction boundary fails the recording; one refused for its place is
 * left out); or, with no site, or none the kernel takes, one probe on the
 * function's entry.
 */
static const char *create_keys(struct ft_kprobes *kp, const struct ft_ksyms *ks,
			       const struct ft_kp_key *k,
			       const struct kp_site *sites, int n,
			       char *why, size_t len)
{
	char addr[160];
	size_t alen = 0;
	int i, r;

	kp->key_at[0] = '\0';
	for (i = 0; i < n && kp->nkey < FT_KP_KEYS; i++) {
		r = site_probe(kp, ks, "key", KEY_SITE_FORMAT, sites[i].addr,
			       k->func, &kp->key[kp->nkey], addr, sizeof(addr),
			       why, len);
		if (r < 0)
			return why;
		if (r > 0)
			continue;
		kp->nkey++;
		append(kp->key_at, sizeof(kp->key_at), &alen, "%s%s",
		       alen ? "," : "", addr);
	}
	if (kp->nkey) {
		kp->key_callsites = 1;
		return NULL;
	}
	kp->key[0] = tracefs_kprobe_alloc(kp->group, "key", k->func, k->format);
	if (!kp->key[0])
		return "out of memory";
	tracefs_error_clear(NULL);
	if (tracefs_dynevent_create(kp->key[0])) {
		const char *fail = create_failed(k->func, why, len);

		tracefs_dynevent_free(kp->key[0]);
		kp->key[0] = NULL;
		return fail;
	}
	kp->nkey = 1;
	return NULL;
}

/* an instruction starts at addr, or the kernel cannot say: taken as yes */
static int insn_starts(struct ft_kprobes *kp, uint64_t addr)
{
	return ft_kprobe_insn_at(kp->group, "insn", addr) != 0;
}

/*
 * 1: a jump in the function that holds call, or in a copy of it (its
 * .cold part jumps back into it), lands in (at, call]: a path there
 * would release without passing a probe at "at".  Candidates are bytes
 * that would be such a jump (kjump.c); one whose byte (or the branch
 * hint prefix before it) starts an instruction is one.  Also 1 when a
 * function's text cannot be read, or it has too many to ask about.
 */
static int jumped_into(struct ft_kprobes *kp, const struct ft_ksyms *ks,
		       uint64_t at, uint64_t call)
{
	static unsigned char text[16384];
	uint64_t off, start, from[8];
	const char *func, *copy;
	char base[128];
	size_t j = 0, len;
	int n, i;

	func = ft_ksyms_func(ks, call, &off);
	if (!func)
		return 1;
	snprintf(base, sizeof(base), "%s", func);
	base[strcspn(base, ".")] = '\0';
	while ((copy = ft_ksyms_copy(ks, base, &j, &start))) {
		len = sizeof(text);
		while (ft_kcore_read(start, text, len))
			if ((len /= 4) < 1024)
				return 1;
		n = ft_kjump_into(text, len, start, at, call, from, 8);
		if (n > 8)
			return 1;
		for (i = 0; i < n; i++)
			if (insn_starts(kp, from[i]) ||
			    (from[i] > start &&
			     (text[from[i] - start - 1] == 0x2e ||
			      text[from[i] - start - 1] == 0x3e) &&
			     insn_starts(kp, from[i] - 1)))
				return 1;
	}
	return 0;
}

/* the kernel optimizes kprobes into jumps (debug.kprobes-optimization) */
static int optimizes(void)
{
	char *v = ft_read_all("/proc/sys/debug/kprobes-optimization", NULL);
	int yes = v && v[0] == '1';

	free(v);
	return yes;
}

/*
 * The event of our group for a jump-placed release of this shape: its
 * slot, a new one (== kp->nshape, taken by the caller once a probe is
 * made on it) when no event has the shape yet; -1 when none is left.
 */
static int jump_event(const struct ft_kprobes *kp, const struct ft_kjump *j,
		      char *name, size_t nlen, char *format, size_t flen)
{
	int s;

	for (s = 0; s < kp->nshape; s++)
		if (!strcmp(kp->jreg[s], j->reg) && kp->jscale[s] == j->scale)
			break;
	if (s == FT_KP_JUMPS)
		return -1;
	snprintf(name, nlen, "unlock_j%d", s);
	snprintf(format, flen, "idx=%%%s:x64", j->reg);
	return s;
}

/*
 * The release at site as a probe the kernel can make a jump (kjump.c):
 * 0 made, named in place[]; else the call site's breakpoint is to be
 * used (no known shape, a jump may land between, the kernel refused it,
 * or no room for another event).  The kernel decides whether it
 * optimizes it (not, for one, where the function has an indirect jump):
 * either way the probe sees every release of its call.
 */
static int jump_probe(struct ft_kprobes *kp, const struct ft_ksyms *ks,
		      struct kp_site *site, char *place, size_t plen)
{
	unsigned char before[16];
	struct tracefs_dynevent *ev;
	char name[32], format[32], why[256];
	struct ft_kjump j;
	int s, first;

	if (kp->nunlock >= FT_KP_SITES ||
	    ft_kcore_read(site->addr - sizeof(before), before, sizeof(before)) ||
	    !ft_kjump_match(before, sizeof(before), site->addr, kp->table_sym,
			    &j) ||
	    jumped_into(kp, ks, j.at, site->addr))
		return -1;
	s = jump_event(kp, &j, name, sizeof(name), format, sizeof(format));
	if (s < 0 || site_probe(kp, ks, name, format, j.at, "mutex_unlock()",
				&ev, place, plen, why, sizeof(why)))
		return -1;
	first = s == kp->nshape;
	if (first) {
		snprintf(kp->jreg[s], sizeof(kp->jreg[s]), "%s", j.reg);
		kp->jscale[s] = j.scale;
		kp->nshape++;
	}
	/* the first probe of its event is the one whose removal removes all */
	kp->head[kp->nunlock] = first;
	kp->unlock[kp->nunlock++] = ev;
	kp->njump++;
	site->probe = j.at;
	append(kp->jump_at, sizeof(kp->jump_at), &kp->jump_len, "%s%s",
	       kp->jump_len ? "," : "", place);
	return 0;
}

/*
 * One probe per site, on the event "unlock" of our group (or, placed
 * before the call as a jump, on its shape's unlock_jN: jump_probe()),
 * each named SYM+0xOFF (as kprobe_events then shows it) where the symbol
 * is unique, else by its address.  A site the kernel refuses as no instruction
 * boundary (EILSEQ) means the decode is wrong: the recording fails.  A
 * site it refuses for its place (a notrace function without
 * CONFIG_KPROBE_EVENTS_ON_NOTRACE, as Debian 6.1's
 * hugetlb_handle_userfault(); a reserved or blacklisted address) is left
 * out and named in kp->unlock_refused: its releases are not seen, and
 * kp->unlock_uncovered names the ops no probe then releases.
 */
static const char *create_unlocks(struct ft_kprobes *kp,
				  const struct ft_ksyms *ks,
				  struct kp_site *sites, int n,
				  unsigned int seen, char *why, size_t len)
{
	unsigned int released = 0, own = 0;
	char addr[160];
	size_t alen = 0, rlen = 0;
	int i, r;

	kp->unlock_at[0] = kp->unlock_refused[0] = kp->jump_at[0] = '\0';
	kp->jump_len = 0;
	for (i = 0; i < n; i++) {
		struct tracefs_dynevent *ev;

		own |= sites[i].ops;
		sites[i].probe = sites[i].addr;
		if (kp->table_sym && !jump_probe(kp, ks, &sites[i], addr,
						 sizeof(addr))) {
			released |= sites[i].ops;
			append(kp->unlock_at, sizeof(kp->unlock_at), &alen,
			       "%s%s", alen ? "," : "", addr);
			continue;
		}
		r = site_probe(kp, ks, "unlock", UNLOCK_FORMAT, sites[i].addr,
			       "mutex_unlock()", &ev, addr, sizeof(addr), why,
			       len);
		if (r < 0)
			return why;
		if (r > 0) {
			append(kp->unlock_refused, sizeof(kp->unlock_refused),
			       &rlen, "%s%s", rlen ? "," : "", addr);
			continue;
		}
		/* the first on "unlock": no release on a call before it */
		kp->head[kp->nunlock] = kp->nunlock == kp->njump;
		kp->unlock[kp->nunlock++] = ev;
		released |= sites[i].ops;
		append(kp->unlock_at, sizeof(kp->unlock_at), &alen, "%s%s",
		       alen ? "," : "", addr);
	}
	/* hugetlb_handle_userfault() inlined into hugetlb_fault(): its sites */
	if ((released & (1U << FT_HOP_FAULT)) && !(own & (1U << FT_HOP_USERFAULT)))
		released |= 1U << FT_HOP_USERFAULT;
	ops_missing(kp->unlock_uncovered, sizeof(kp->unlock_uncovered),
		    released | ~seen);
	if (!kp->nunlock) {
		snprintf(why, len, "the kernel refused a probe at every call of "
			 "mutex_unlock() in the hugetlb functions (%s): their "
			 "releases cannot be seen", kp->unlock_refused);
		return why;
	}
	return NULL;
}

const char *ft_kprobes_create(struct ft_kprobes *kp,
			      struct tracefs_instance *inst,
			      const struct ft_kprobe_opts *o)
{
	static char why[800];
	struct ft_ksyms *ks = NULL;
	const struct ft_kp_key *k = NULL;
	struct ft_kp_key test = { 0 };
	uint64_t target = 0, unlock = 0;
	struct kp_site sites[FT_KP_SITES], ksites[FT_KP_KEYS];
	unsigned int seen = 0;
	char *dir;
	const char *fail = NULL, *from;
	size_t i;
	int ok, nsites = 0, nksites = 0, at_sites;

	memset(kp, 0, sizeof(*kp));
	snprintf(kp->group, sizeof(kp->group), "faulttune_%d", (int)getpid());
	if (!UNLOCK_FORMAT)
		return "the kprobe recorder finds its call sites in x86-64 code "
		       "only";
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
		       "/proc/kcore: the releases cannot be told from others";
	ks = ft_ksyms_load(NULL);
	/* the tests' way to a function that is missing, blacklisted, ... */
	test.func = o ? o->func : NULL;
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
	/*
	 * Releases as jumps (kjump.c) where the table is the hash's, which
	 * nothing resizes: the mutex is then its pointer's value at record
	 * start plus an offset.  Not the patched kernel's (its helpers
	 * unlock a token's mutex) nor the tests' function; and only where
	 * the kernel optimizes kprobes at all, and debugfs shows whether it
	 * made the calibration's probe a jump (kcal.c), so that the cost
	 * taken off is that of a jump.
	 */
	if (!k->op_arg && !test.func && !(o && o->no_jump) &&
	    !access("/sys/kernel/debug/kprobes/list", R_OK) && optimizes() &&
	    ft_ksyms_addr(ks, "hugetlb_fault_mutex_table", &kp->table_sym))
		kp->table_sym = 0;
	if (ft_ksyms_addr(ks, "mutex_unlock", &unlock)) {
		ft_ksyms_free(ks);
		return "mutex_unlock not in kallsyms";
	}
	/* the hash's locking call sites; the test hook's function: its entry */
	at_sites = !k->op_arg && !test.func;
	fail = find_sites(kp, ks, target, unlock, sites, &nsites,
			  at_sites ? ksites : NULL, &nksites, &seen);
	if (fail) {
		ft_ksyms_free(ks);
		snprintf(why, sizeof(why), fail, k->func);
		return why;
	}
	fail = create_keys(kp, ks, k, ksites, nksites, why, sizeof(why));
	if (fail) {
		ft_ksyms_free(ks);
		ft_kprobes_destroy(kp);
		return fail;
	}
	fail = create_unlocks(kp, ks, sites, nsites, seen, why, sizeof(why));
	if (!fail && kp->key_callsites)
		find_drops(kp, ks, sites, nsites);
	if (fail || ft_kprobes_arm(kp, inst, 1)) {
		ft_ksyms_free(ks);
		if (!fail)
			snprintf(why, sizeof(why), "cannot filter or enable the "
				 "kprobe events in our instance: %s",
				 strerror(errno));
		ft_kprobes_destroy(kp);
		return why;
	}
	/* last: with the filters set, nothing else fills the buffer */
	kp->cal_why = o && o->no_cal ? "the probes' own cost was "
		      "not measured (FAULTTUNE_NO_KCAL): holds are not corrected "
		      "for it" : ft_kcal_measure(kp, inst, ks,
						 kp->key_callsites ?
						 KEY_SITE_FORMAT : k->format,
						 UNLOCK_FORMAT);
	ft_ksyms_free(ks);
	return NULL;
}

/*
 * The filters are set once, at the first arming: they stay with the
 * event files of our instance while the events are off.
 */
int ft_kprobes_arm(struct ft_kprobes *kp, struct tracefs_instance *inst, int on)
{
	static const char *const lock_events[] = {
		"contention_begin", "contention_end",
	};
	char filter[128];
	size_t i;

	if (!kp || !kp->nkey || !kp->nunlock || !!on == kp->armed)
		return 0;
	if (on && !kp->armed) {
		/*
		 * Not the unlock probes: they sit at the hash's callers' calls
		 * of mutex_unlock(), whose unlocks are all the table's in every
		 * kernel seen, and the reader keeps only the table's (kpair.c's
		 * in_table()).  A filter there costs each release about 120
		 * instructions (bench.md, "What one probe hit costs").
		 * lock:contention is filtered: with lock debugging every
		 * mutex_lock() of the machine has its pair, and only the
		 * table's are waits.
		 */
		range_filter(kp, "lock_addr", filter, sizeof(filter));
		for (i = 0; i < 2; i++)
			if (tracefs_event_file_write(inst, "lock", lock_events[i],
						     "filter", filter) < 0)
				return -1;
	}
	if (on) {
		char name[32];

		for (i = 0; i < (size_t)kp->nshape; i++) {
			snprintf(name, sizeof(name), "unlock_j%zu", i);
			if (tracefs_event_enable(inst, kp->group, name))
				return -1;
		}
		/* "unlock" exists when a release is on a call */
		if ((kp->nunlock > kp->njump &&
		     tracefs_event_enable(inst, kp->group, "unlock")) ||
		    tracefs_event_enable(inst, kp->group, "key") ||
		    tracefs_event_enable(inst, "lock", lock_events[0]) ||
		    tracefs_event_enable(inst, "lock", lock_events[1]))
			return -1;
	} else if (tracefs_event_disable(inst, kp->group, NULL) ||
		   tracefs_event_disable(inst, "lock", lock_events[0]) ||
		   tracefs_event_disable(inst, "lock", lock_events[1])) {
		return -1;
	}
	kp->armed = on;
	return 0;
}

const char *ft_kprobes_marker(const struct ft_kprobes *kp)
{
	static char text[1024];
	int len, i;

	/* what kpair.c needs first: a trace_marker write may be cut at 1 KB */
	len = snprintf(text, sizeof(text), " kprobe group=%s key=%s "
		       "unlock=callsites:%d table=0x%llx nbuckets=%u stride=%u",
		       kp->group, kp->key_func, kp->nunlock,
		       (unsigned long long)kp->base, kp->n, kp->stride);
	/* unlock_jN's scale and register, N in order: "S:REG,..." */
	for (i = 0; i < kp->nshape && len > 0 && (size_t)len < sizeof(text); i++)
		len += snprintf(text + len, sizeof(text) - len, "%s%u:%s",
				i ? "," : " unlock_jump=", kp->jscale[i],
				kp->jreg[i]);
	/* the key at its call sites, and the releases that drop (kpair.c) */
	if (kp->key_callsites && len > 0 && (size_t)len < sizeof(text))
		len += snprintf(text + len, sizeof(text) - len,
				" key_at=callsites:%d drops=%s", kp->nkey,
				kp->drops[0] ? kp->drops : "none");
	/* ns, in the trace clock: what kpair.c takes off each hold */
	if (kp->cal.done && len > 0 && (size_t)len < sizeof(text))
		len += snprintf(text + len, sizeof(text) - len,
				" probe_cost=%llu,%llu,%llu probe_cost_on=%s",
				(unsigned long long)kp->cal.key_unlock,
				(unsigned long long)kp->cal.key_key,
				(unsigned long long)kp->cal.end_unlock,
				kp->cal.path);
	if (kp->cal.jump_done && len > 0 && (size_t)len < sizeof(text))
		len += snprintf(text + len, sizeof(text) - len,
				" probe_cost_jump=%llu,%llu",
				(unsigned long long)kp->cal.key_unlock_j,
				(unsigned long long)kp->cal.end_unlock_j);
	if (len > 0 && (size_t)len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, " covered=%s "
			 "uncovered=%s unreleased=%s", kp->covered,
			 kp->uncovered[0] ? kp->uncovered : "none",
			 kp->unlock_uncovered[0] ? kp->unlock_uncovered : "none");
	return text;
}

/*
 * faulttune_<pid> groups whose run is gone: its instance faulttune-<pid>
 * is gone too (ft_cleanup_stale() removes a dead run's instance first),
 * or, when only counting (owned given: nothing is removed), owned()
 * says no running faulttune owns it.
 */
int ft_kprobes_stale(int quiet, int (*owned)(const char *inst))
{
	int dry = owned != NULL;
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(
		TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE, NULL);
	char last[160] = "", name[160];
	int i, removed = 0;

	for (i = 0; all && all[i]; i++) {
		char *sys = NULL, *ev = NULL, inst[64], *end;
		long pid;

		tracefs_dynevent_info(all[i], &sys, &ev, NULL, NULL, NULL);
		if (!sys || !ev || strncmp(sys, "faulttune_", 10))
			goto next;
		/* the unlock event's probes are listed one by one, removed as one */
		snprintf(name, sizeof(name), "%s/%s", sys, ev);
		if (!strcmp(name, last))
			goto next;
		pid = strtol(sys + 10, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			goto next;
		snprintf(inst, sizeof(inst), "faulttune-%ld", pid);
		/* a killed run's instance is removed first, unless counting */
		if (dry ? owned(inst) : tracefs_instance_exists(inst))
			goto next;
		if (dry) {
			snprintf(last, sizeof(last), "%s", name);
			removed++;
		} else if (tracefs_dynevent_destroy(all[i], true) == 0) {
			snprintf(last, sizeof(last), "%s", name);
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
