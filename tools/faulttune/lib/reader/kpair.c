// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe recorder's read side: turn what kprobe.c recorded on a kernel
 * without the faulttune events into the acquisitions the patched kernel's
 * hugetlb_fault_mutex_hold event describes, one at each release.
 *
 * Per task, in time order:
 *   key (mapping, index, caller)   a request: the hash and so the bucket
 *                                  at any size are computed here
 *                                  (ft_fault_hash(), jhash2 as the kernel's);
 *                                  a key the task already holds is the
 *                                  kernel hashing again to drop the mutex
 *                                  (hugetlb_no_page's entry, the userfault
 *                                  and wp drops), not a new request;
 *   lock:contention_begin/end      on the table's mutex: the wait; the end
 *                                  is the acquisition (with lock debugging
 *                                  every mutex_lock() has them);
 *   unlock (a call site of         the release: the acquisition goes out.
 *   mutex_unlock(), or that
 *   function itself in files
 *   made before call sites)
 *
 * The probes' own work between two timestamps lies inside every hold
 * (kcal.c): the cost measured at record start, in the start marker, is
 * taken off each hold, by how the hold was dated and how often the held
 * key was hashed again inside it (raw_holds, report's --raw-holds: not).
 *
 * contended, as the patched kernel's trylock says it: another task held
 * the bucket's mutex at some time between this one's request and its
 * acquisition: it held it when this one asked, or took it first (a waiter
 * the release hands the mutex to, a request in that gap that won the
 * race), or the wait slept (a contention_begin without LCB_F_SPIN).  The
 * holds of one mutex do not overlap, so another task held it in that
 * span exactly when the mutex was released between this one's request
 * and its own release: that is what is asked, at the release, of the
 * bucket's last release seen (an unlock without a key, wp's retake,
 * counts too), and besides, at the key, whether a task that
 * contention_end showed acquiring it has not released it yet (a release
 * lost or at a site not probed).  So the bucket goes to the task that
 * took it, not to the one that hashed first: hashing comes before
 * mutex_lock(), and of two tasks that hash to one bucket close together
 * the earlier may lose the race, show contention_begin and wait while
 * the later one takes it without a contention event (held from its key);
 * with lock debugging every mutex_lock() shows contention_begin (spin)
 * and _end, and of two such the first contention_end took it.  Nothing is
 * decided by the order of the keys, and no contention_begin hands the
 * bucket on: it may be lock debugging's, with no wait behind it.
 *
 * The op is the caller's, from the return address and the file's
 * kallsyms (the callers' table is kfacts.c's, which the record side
 * reads too); the patched helper passes it as an argument.
 *
 * A file with the patched kernel's summaries too (record --source=both)
 * has two accounts of each acquisition: they are matched one to one, per
 * task and key, and the match is what ft_kpair_print() (kpairprint.c)
 * reports.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kpair-local.h"

struct ft_kpair *ft_kpair_new(const char *file, int raw_holds)
{
	struct ft_kpair *kp = calloc(1, sizeof(*kp));
	size_t len;
	char *text;

	if (!kp)
		return NULL;
	kp->raw_holds = raw_holds;
	text = file ? ft_tracedat_kallsyms(file, &len) : NULL;
	if (text)
		kp->ks = ft_ksyms_parse(text, len);
	return kp;
}

static const char *marker_val(const char *m, const char *key, char *buf,
			      size_t len)
{
	const char *p = strstr(m, key);
	size_t n;

	if (!p)
		return NULL;
	p += strlen(key);
	n = strcspn(p, " \t\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* the marker's " drops=0xADDR:op,...": the unlock sites that drop */
static void parse_drops(struct ft_kpair *kp, const char *m)
{
	const char *p = strstr(m, " drops=");
	unsigned int op;
	char name[32];
	int used;

	kp->ndrops = 0;
	if (!p)
		return;
	p += 7;
	while (kp->ndrops < KP_DROPS &&
	       sscanf(p, "0x%" SCNx64 ":%31[a-z_]%n",
		      &kp->drop_at[kp->ndrops], name, &used) == 2) {
		for (op = 0; op < FT_HOP_OTHER; op++)
			if (!strcmp(name, ft_hop_name(op)))
				break;
		kp->drop_op[kp->ndrops++] = op;
		p += used;
		if (*p != ',')
			break;
		p++;
	}
}

/* the marker's " unlock_jump=S:REG,...": unlock_jN's scale, N in order */
static void parse_jumps(struct ft_kpair *kp, const char *m)
{
	const char *p = strstr(m, " unlock_jump=");
	unsigned int scale;
	int i, used;

	if (!p)
		return;
	p += 13;
	for (i = 0; i < KP_JUMPS && sscanf(p, "%u:%*[a-z0-9]%n", &scale,
					   &used) == 1; i++) {
		/* an address mode's scale or a shift's (kjump.c): 1 to 256 */
		if (!scale || scale > 256 || (scale & (scale - 1)))
			break;
		kp->jscale[i] = scale;
		p += used;
		if (*p != ',')
			break;
		p++;
	}
}

/* record's start marker: " kprobe group=... key=... table=0x... ..." */
static void on_marker(struct ft_kpair *kp, const char *m)
{
	char v[64];
	uint64_t n = 0, stride = 0;

	if (kp->have_table || !m || !strstr(m, " kprobe group="))
		return;
	if (!marker_val(m, " table=0x", v, sizeof(v)))
		return;
	kp->base = strtoull(v, NULL, 16);
	if (!marker_val(m, " nbuckets=", v, sizeof(v)) ||
	    ft_parse_uint(v, 1, 1U << 30, &n) || !ft_is_pow2(n) ||
	    !marker_val(m, " stride=", v, sizeof(v)) ||
	    ft_parse_uint(v, 1, 1 << 20, &stride))
		return;
	kp->owner = calloc(n, sizeof(*kp->owner));
	kp->released = calloc(n, sizeof(*kp->released));
	if (!kp->owner || !kp->released) {
		free(kp->owner);
		free(kp->released);
		kp->owner = NULL;
		kp->released = NULL;
		return;
	}
	kp->n = n;
	kp->stride = stride;
	kp->have_table = 1;
	marker_val(m, " key=", kp->key_func, sizeof(kp->key_func));
	kp->op_arg = !strcmp(kp->key_func, "hugetlb_fault_mutex_lock");
	marker_val(m, " covered=", kp->covered, sizeof(kp->covered));
	/* older files probed mutex_unlock() itself: no unlock= */
	if (!marker_val(m, " unlock=callsites:", kp->unlock_sites,
			sizeof(kp->unlock_sites)))
		kp->unlock_sites[0] = '\0';
	if (!marker_val(m, " key_at=callsites:", kp->key_sites,
			sizeof(kp->key_sites)))
		kp->key_sites[0] = '\0';
	parse_drops(kp, m);
	marker_val(m, " unreleased=", kp->unreleased, sizeof(kp->unreleased));
	marker_val(m, " uncovered=", kp->uncovered, sizeof(kp->uncovered));
	parse_jumps(kp, m);
	if (marker_val(m, " probe_cost_jump=", v, sizeof(v)) &&
	    sscanf(v, "%" SCNu64 ",%" SCNu64, &kp->cal_ku_j, &kp->cal_eu_j) == 2)
		kp->have_cal_j = 1;
	if (marker_val(m, " probe_cost=", v, sizeof(v)) &&
	    sscanf(v, "%" SCNu64 ",%" SCNu64 ",%" SCNu64, &kp->cal_ku,
		   &kp->cal_kk, &kp->cal_eu) == 3) {
		kp->have_cal = 1;
		marker_val(m, " probe_cost_on=", kp->cal_on, sizeof(kp->cal_on));
	}
}

/*
 * The probes' work inside this hold: the pair that dates it (key or
 * contention_end, then unlock) and a key-to-key span for each rehash.
 */
static uint64_t probe_cost(struct ft_kpair *kp, const struct kp_task *t,
			   int jump)
{
	if (!kp->have_cal || kp->raw_holds || (jump && !kp->have_cal_j))
		return 0;
	if (jump)
		return t->state == KP_REQ ? kp->cal_ku_j : kp->cal_eu_j;
	return (t->state == KP_REQ ? kp->cal_ku : kp->cal_eu) +
	       (uint64_t)t->recomputes * kp->cal_kk;
}

static struct kp_task *task(struct ft_kpair *kp, int pid)
{
	void **slot = ft_map_get(&kp->tasks, (uint64_t)pid + 1, 1);

	if (!slot)
		return NULL;
	if (!*slot) {
		struct kp_task *t = calloc(1, sizeof(*t));

		if (!t)
			return NULL;
		t->pid = pid;
		*slot = t;
	}
	return *slot;
}

static int in_table(const struct ft_kpair *kp, uint64_t addr, uint32_t *bucket)
{
	if (!kp->have_table || addr < kp->base ||
	    addr >= kp->base + (uint64_t)kp->n * kp->stride ||
	    (addr - kp->base) % kp->stride)
		return 0;
	*bucket = (addr - kp->base) / kp->stride;
	return 1;
}

/*
 * The task a contention_end showed taking the bucket, if it still holds
 * it (a lost release does not stick).  A key without a contention event
 * makes no owner: whether that task took the mutex at once is known only
 * at its next step, and a task that hashed later may take it first.
 */
static struct kp_task *owner_of(struct ft_kpair *kp, uint32_t bucket)
{
	struct kp_task *o = kp->owner[bucket];

	if (o && (o->state != KP_HELD || o->bucket != bucket))
		o = kp->owner[bucket] = NULL;
	return o;
}

static void drop(struct ft_kpair *kp, struct kp_task *t)
{
	if (t->state != KP_IDLE && kp->owner[t->bucket] == t)
		kp->owner[t->bucket] = NULL;
	t->state = KP_IDLE;
}

static unsigned int caller_op(struct ft_kpair *kp, const struct ft_event *ev,
			      const char **func)
{
	uint64_t off;
	unsigned int op;

	*func = kp->ks ? ft_ksyms_func(kp->ks, ev->ip, &off) : NULL;
	if (kp->op_arg)
		return ev->op < FT_HOP_OTHER ? ev->op : FT_HOP_OTHER;
	if (ft_kprobe_caller_op(*func, &op)) {
		kp->unknown_caller++;
		return FT_HOP_OTHER;
	}
	return op;
}

static void on_key(struct ft_kpair *kp, const struct ft_event *ev)
{
	struct kp_task *t = task(kp, ev->pid);
	const char *func;
	unsigned int op;
	struct kp_task *o;

	if (!t)
		return;
	kp->keys++;
	if (!kp->have_table) {
		kp->no_table++;
		return;
	}
	op = caller_op(kp, ev, &func);
	if (t->state != KP_IDLE && t->mapping == ev->mapping &&
	    t->index == ev->index) {
		/* hashed again to drop it: names the drop's op */
		kp->recomputes++;
		t->recomputes++;
		if (op == FT_HOP_WP || op == FT_HOP_USERFAULT)
			t->op = op;
		else if (t->op == FT_HOP_FAULT && t->recomputes >= 2)
			t->op = FT_HOP_USERFAULT;
		return;
	}
	if (t->state != KP_IDLE) {
		kp->replaced++;		/* its release was not seen */
		drop(kp, t);
	}
	t->state = KP_REQ;
	t->mapping = ev->mapping;
	t->index = ev->index;
	t->hash = ft_fault_hash(ev->mapping, ev->index);
	t->bucket = t->hash & (kp->n - 1);
	t->op = op;
	t->req = t->acq = ev->ts;
	t->slept = t->recomputes = 0;
	o = owner_of(kp, t->bucket);
	t->contended = o && o != t;	/* the rest at its release */
}

static void on_contention(struct ft_kpair *kp, const struct ft_event *ev)
{
	struct kp_task *t;
	uint32_t bucket;

	if (!in_table(kp, ev->mapping, &bucket))
		return;
	t = task(kp, ev->pid);
	if (!t || t->state != KP_REQ || t->bucket != bucket)
		return;
	if (ev->kind == FT_EV_START) {
		if (!(ev->index & LCB_F_SPIN))
			t->slept = 1;
		return;
	}
	t->acq = ev->ts;
	t->state = KP_HELD;
	kp->owner[bucket] = t;
}

static void match_push(struct kp_task *t, const struct ft_event *out)
{
	struct kp_hold *h;

	if (t->qn == KP_QUEUE) {	/* never matched: the oldest goes */
		memmove(t->q, t->q + 1, sizeof(t->q[0]) * (KP_QUEUE - 1));
		t->qn--;
	}
	h = &t->q[t->qn++];
	h->mapping = out->mapping;
	h->index = out->index;
	h->hash = out->hash;
	h->contended = out->contended;
	h->op = out->op;
	h->wait_ns = out->wait_ns;
	h->hold_ns = out->hold_ns;
}

/*
 * With the key at the locking call sites, a hold that is dropped to wait
 * (hugetlb_wp()'s unmap, the userfault hand-off) shows no rehash: the
 * release's own site, one the marker names, gives its op.
 */
static void drop_op(struct ft_kpair *kp, struct kp_task *t, uint64_t site)
{
	int i;

	if (!kp->key_sites[0] || !site)
		return;
	for (i = 0; i < kp->ndrops; i++)
		if (kp->drop_at[i] == site) {
			if (kp->drop_op[i] < FT_HOP_OTHER &&
			    t->op != kp->drop_op[i]) {
				t->op = kp->drop_op[i];
				kp->drops_named++;
			}
			return;
		}
}

static int on_unlock(struct ft_kpair *kp, const struct ft_event *ev,
		     struct ft_event *out)
{
	struct kp_task *t;
	uint32_t bucket;
	uint64_t cost;

	uint64_t lock = ev->ip;
	int jump = ev->index > 0;

	/* a jump-placed release: the table plus its scale times a register */
	if (jump) {
		unsigned int scale = ev->index <= KP_JUMPS ?
				     kp->jscale[ev->index - 1] : 0;

		if (!scale)
			return 0;
		lock = kp->base + scale * ev->ip;
		kp->jump_releases++;
	}
	if (!in_table(kp, lock, &bucket)) {
		/* every jump-placed probe releases the table's: a wrong decode */
		kp->jump_outside += jump;
		return 0;
	}
	t = task(kp, ev->pid);
	if (!t)
		return 0;
	if (t->state == KP_IDLE) {
		kp->unlock_nokey++;	/* wp's retake, or a caller not seen */
		kp->released[bucket] = ev->ts;	/* held: a waiter waited */
		return 0;
	}
	if (t->bucket != bucket)
		kp->bucket_mismatch++;
	drop_op(kp, t, ev->mapping);
	memset(out, 0, sizeof(*out));
	out->ts = ev->ts;
	out->cpu = ev->cpu;
	out->pid = ev->pid;
	out->lock = FT_LK_HUGETLB;
	out->kind = FT_EV_HOLD;
	out->op = t->op;
	out->mapping = t->mapping;
	out->index = t->index;
	out->hash = t->hash;
	out->bucket = t->bucket;
	out->nbuckets = kp->n;
	/* another task released it since this one asked: it held it first */
	out->contended = t->contended || t->slept ||
			 kp->released[t->bucket] > t->req;
	kp->released[bucket] = ev->ts;
	out->wait_ns = t->acq - t->req;
	out->hold_ns = ev->ts - t->acq;
	cost = probe_cost(kp, t, jump);
	if (cost) {
		kp->corrected++;
		if (cost >= out->hold_ns) {
			kp->clamped++;
			cost = out->hold_ns;
		}
		kp->corr_sum += cost;
		out->hold_ns -= cost;
	}
	if (t->state == KP_REQ)
		kp->acq_at_key++;
	drop(kp, t);
	kp->acquisitions++;
	kp->op_n[out->op < FT_HOP_NR ? out->op : FT_HOP_OTHER]++;
	match_push(t, out);
	return 1;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* a summary of the patched kernel: the same acquisition, as it saw it */
static void on_summary(struct ft_kpair *kp, const struct ft_event *ev)
{
	struct kp_task *t = task(kp, ev->pid);
	struct kp_hold *h;
	int i;

	kp->summaries++;
	if (!t)
		return;
	for (i = 0; i < t->qn; i++)
		if (t->q[i].mapping == ev->mapping && t->q[i].index == ev->index)
			break;
	if (i == t->qn) {
		kp->ev_only++;
		return;
	}
	kp->kp_only += i;	/* older ones the kernel did not report */
	h = &t->q[i];
	kp->matched++;
	kp->same_hash += h->hash == ev->hash;
	kp->same_bucket += ev->nbuckets &&
			   (h->hash & (ev->nbuckets - 1)) == ev->bucket;
	kp->same_contended += !h->contended == !ev->contended;
	kp->same_op += h->op == ev->op;
	ft_hist_add(&kp->wait_diff, absdiff(h->wait_ns, ev->wait_ns));
	ft_hist_add(&kp->hold_diff, absdiff(h->hold_ns, ev->hold_ns));
	kp->wait_diff_sum += (int64_t)h->wait_ns - (int64_t)ev->wait_ns;
	kp->hold_diff_sum += (int64_t)h->hold_ns - (int64_t)ev->hold_ns;
	memmove(t->q, t->q + i + 1, sizeof(t->q[0]) * (t->qn - i - 1));
	t->qn -= i + 1;
}

/*
 * A decode is refused past this share of disagreements (and more than
 * KP_BAD_MIN of them): a correct one has none, but a lost event can pair
 * a release with the wrong request now and then.
 */
#define KP_BAD_PCT	1
#define KP_BAD_MIN	2

static int too_many(uint64_t bad, uint64_t of)
{
	return bad > KP_BAD_MIN && bad * 100 > of * KP_BAD_PCT;
}

/*
 * Why the recorder's acquisitions must not be analysed, or NULL: its
 * decode of this kernel is wrong, or it did not see the fault path.
 *   - the bucket of the released mutex (its address in the table) is not
 *     the bucket of the key's hash: the hash, the table or its stride was
 *     read wrong;
 *   - a release probed before its call (unlock_jN) is of no mutex of the
 *     table: the instructions before the call were decoded wrong;
 *   - the return address of a key is in no known caller, where the file
 *     has the kernel's symbols to tell: the call sites were decoded
 *     wrong, or this kernel hashes from a function faulttune does not
 *     know, and the ops would be wrong;
 *   - no caller on the fault path was seen: whatever the file holds, it
 *     is not the faults' contention, and a size from it would be a guess.
 */
const char *ft_kpair_refusal(const struct ft_kpair *kp)
{
	static char why[768];

	if (!kp || !kp->feeds || !kp->have_table)
		return NULL;
	if (too_many(kp->bucket_mismatch, kp->acquisitions)) {
		snprintf(why, sizeof(why), "the kprobe recorder's decode is wrong "
			 "for this kernel: %llu of %llu releases were of another "
			 "bucket than their key's hash (at most %d%% may be)",
			 (unsigned long long)kp->bucket_mismatch,
			 (unsigned long long)kp->acquisitions, KP_BAD_PCT);
		return why;
	}
	if (too_many(kp->jump_outside, kp->jump_releases)) {
		snprintf(why, sizeof(why), "the kprobe recorder's decode is wrong "
			 "for this kernel: %llu of %llu releases probed before "
			 "their call were of no mutex of the table (at most %d%% "
			 "may be)", (unsigned long long)kp->jump_outside,
			 (unsigned long long)kp->jump_releases, KP_BAD_PCT);
		return why;
	}
	if (kp->ks && !kp->op_arg && too_many(kp->unknown_caller, kp->keys)) {
		snprintf(why, sizeof(why), "the kprobe recorder's decode is wrong "
			 "for this kernel: %llu of %llu keys came from no known "
			 "caller of %s (at most %d%% may)",
			 (unsigned long long)kp->unknown_caller,
			 (unsigned long long)kp->keys,
			 kp->key_func[0] ? kp->key_func : "the hash", KP_BAD_PCT);
		return why;
	}
	if (kp->covered[0] && strncmp(kp->covered, "fault:", 6) &&
	    !strstr(kp->covered, ",fault:")) {
		snprintf(why, sizeof(why), "the kprobe recorder saw no call site "
			 "on the fault path (seen: %s): no analysis or "
			 "recommendation for the faults without it", kp->covered);
		return why;
	}
	return NULL;
}

void ft_kpair_feeds(struct ft_kpair *kp, int feeds)
{
	kp->feeds = feeds;
}

int ft_kpair_feed(struct ft_kpair *kp, const struct ft_event *ev,
		  struct ft_event *out)
{
	switch (ev->kind) {
	case FT_EV_MARKER:
		on_marker(kp, ev->marker);
		return 0;
	case FT_EV_KP_KEY:
		on_key(kp, ev);
		return 0;
	case FT_EV_KP_UNLOCK:
		return on_unlock(kp, ev, out);
	case FT_EV_START:
	case FT_EV_ACQUIRE:
		if (ev->lock == FT_LK_CONTENTION)
			on_contention(kp, ev);
		return 0;
	case FT_EV_HOLD:
		if (ev->lock == FT_LK_HUGETLB)
			on_summary(kp, ev);
		return 0;
	}
	return 0;
}

static void finish_task(void *p, void *data)
{
	struct ft_kpair *kp = data;
	struct kp_task *t = p;

	if (t->state != KP_IDLE)
		kp->open_at_end++;
	if (kp->summaries)
		kp->kp_only += t->qn;
	t->qn = 0;
}

void ft_kpair_finish(struct ft_kpair *kp)
{
	size_t i;

	for (i = 0; kp && i < kp->tasks.cap; i++)
		if (kp->tasks.vals[i])
			finish_task(kp->tasks.vals[i], kp);
}

void ft_kpair_free(struct ft_kpair *kp)
{
	if (!kp)
		return;
	ft_map_free(&kp->tasks, free);
	free(kp->owner);
	free(kp->released);
	ft_hist_free(&kp->wait_diff);
	ft_hist_free(&kp->hold_diff);
	ft_ksyms_free(kp->ks);
	free(kp);
}
