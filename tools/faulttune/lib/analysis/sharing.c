// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune true sharing: who waits behind whom on the same page.
 *
 * A fault that waits for the mutex of its own (mapping, index) waits for
 * another task working on the same page: no table size removes that
 * wait, and the one line "true sharing: N% of fault time" gives nothing
 * to act on.  What a user can act on is which pages, which tasks, and
 * what the holds they waited behind were doing.  From the holds a
 * recording gives (analysis.c), one page's holds in the order they got
 * its mutex: a hold that asked before the previous one released waited
 * behind the same page (unless analysis.c saw it hand over from another
 * key: a collision).  Its wait is split between the earlier holds of the
 * page it overlapped, each by what that hold was doing:
 *
 *   first touch  the page's first hold in the recording, a fault,
 *                fallocate or memfd: allocating and clearing the page
 *   truncation   a hole punch or truncation of the page
 *   again        a later hold of a page already faulted (a refault, or
 *                a write-protect fault)
 *
 * Only where first touches carry most of the wait is a remedy named: one
 * task populating the region before the others fault it.  The recording
 * holds a page's address_space (mapping) and index, not its file's name;
 * the waiters' names are the recording's saved command lines.
 *
 * sharingprint.c prints what is found here (text, the short line, JSON).
 */
#include <stdlib.h>
#include <string.h>
#include "analysis.h"

static int by_key_acq(const void *pa, const void *pb)
{
	const struct ft_hold *a = *(const struct ft_hold * const *)pa;
	const struct ft_hold *b = *(const struct ft_hold * const *)pb;

	if (a->mapping != b->mapping)
		return a->mapping < b->mapping ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->acq_ts != b->acq_ts)
		return a->acq_ts < b->acq_ts ? -1 : 1;
	return 0;
}

static int behind_of(const struct ft_hold *q, int first)
{
	if (q->op == FT_HOP_PUNCH)
		return FT_BEHIND_TRUNCATION;
	if (first && q->op != FT_HOP_WP)
		return FT_BEHIND_FIRST_TOUCH;
	return FT_BEHIND_AGAIN;
}

static void add_pid(int *pids, int *n, int pid)
{
	int i;

	for (i = 0; i < *n; i++)
		if (pids[i] == pid)
			return;
	if (*n < FT_SHARE_PIDS)
		pids[(*n)++] = pid;
}

static const char *comm_of(const struct ft_analysis *a, int pid)
{
	void **slot = ft_map_get((struct ft_map *)&a->comms,
				 (uint64_t)pid + 1, 0);

	return slot && *slot ? *slot : NULL;
}

static void set_comm(char *dst, const struct ft_analysis *a, int pid)
{
	const char *c = comm_of(a, pid);

	snprintf(dst, FT_SHARE_COMM, "%s", c ? c : "");
}

/* the page's entry: appended; NULL when memory ran out or the table is full */
static struct ft_share_page *page_new(struct ft_sharing *s,
				      const struct ft_hold *h)
{
	struct ft_share_page *p;

	if (s->npages == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		if (cap > FT_SHARE_MAX_PAGES) {
			s->pages_dropped++;
			return NULL;
		}
		p = realloc(s->pages, cap * sizeof(*p));
		if (!p)
			return NULL;
		s->pages = p;
		s->cap = cap;
	}
	p = &s->pages[s->npages++];
	memset(p, 0, sizeof(*p));
	p->mapping = h->mapping;
	p->index = h->index;
	return p;
}

/* one page's holds g[0..n-1], in the order they got its mutex */
static void add_page(struct ft_sharing *s, const struct ft_analysis *a,
		     const struct ft_hold **g, size_t n)
{
	struct ft_share_page *p = NULL;
	uint64_t most = 0;
	size_t j, k;

	for (j = 1; j < n; j++) {
		const struct ft_hold *h = g[j];

		if (h->collided || h->acq_ts <= h->req_ts ||
		    h->req_ts >= g[j - 1]->rel_ts)
			continue;
		if (!p && !(p = page_new(s, h)))
			return;
		p->wait_ns += h->acq_ts - h->req_ts;
		p->waits++;
		add_pid(p->pids, &p->npids, h->pid);
		for (k = j; k-- > 0 && g[k]->rel_ts > h->req_ts;) {
			const struct ft_hold *q = g[k];
			uint64_t from = q->acq_ts > h->req_ts ? q->acq_ts : h->req_ts;
			uint64_t to = q->rel_ts < h->acq_ts ? q->rel_ts : h->acq_ts;
			uint64_t ov = to > from ? to - from : 0;

			p->behind_ns[behind_of(q, k == 0)] += ov;
			if (ov > most) {
				most = ov;
				p->holder_pid = q->pid;
				p->holder_op = q->op;
				p->holder_hold_ns = q->rel_ts - q->acq_ts;
			}
		}
	}
	if (!p)
		return;
	for (k = 0; k < (size_t)p->npids; k++)
		set_comm(p->comm[k], a, p->pids[k]);
	set_comm(p->holder_comm, a, p->holder_pid);
	for (k = 0; k < FT_BEHIND_NR; k++)
		s->behind_ns[k] += p->behind_ns[k];
	s->wait_ns += p->wait_ns;
	s->waits += p->waits;
}

int ft_sharing_add(struct ft_sharing *s, const struct ft_analysis *a)
{
	const struct ft_hold **g;
	size_t i, j;

	for (i = 0; i < a->nholds; i++) {
		const struct ft_hold *h = &a->holds[i];

		s->fault_ns += h->rel_ts - h->req_ts;
		if (h->collided && h->acq_ts > h->req_ts)
			s->coll_wait_ns += h->acq_ts - h->req_ts;
	}
	if (!a->nholds)
		return 0;
	g = malloc(a->nholds * sizeof(*g));
	if (!g)
		return -1;
	for (i = 0; i < a->nholds; i++)
		g[i] = &a->holds[i];
	qsort(g, a->nholds, sizeof(*g), by_key_acq);
	for (i = 0; i < a->nholds; i = j) {
		for (j = i + 1; j < a->nholds && g[j]->mapping == g[i]->mapping &&
		     g[j]->index == g[i]->index; j++)
			;
		add_page(s, a, g + i, j - i);
	}
	free(g);
	return 0;
}

static int by_wait(const void *pa, const void *pb)
{
	const struct ft_share_page *a = pa, *b = pb;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	return 0;
}

void ft_sharing_sort(struct ft_sharing *s)
{
	if (s->npages)
		qsort(s->pages, s->npages, sizeof(*s->pages), by_wait);
}

void ft_sharing_free(struct ft_sharing *s)
{
	free(s->pages);
	memset(s, 0, sizeof(*s));
}

double ft_sharing_pct(const struct ft_sharing *s)
{
	return s->fault_ns ? 100.0 * s->wait_ns / s->fault_ns : 0;
}

int ft_sharing_matters(const struct ft_sharing *s, double target_pct)
{
	return s->waits && (ft_sharing_pct(s) > target_pct ||
			    s->wait_ns > s->coll_wait_ns);
}

/* first touches carry most of the wait: the remedy, else NULL */
const char *ft_sharing_remedy(const struct ft_sharing *s)
{
	if (!s->wait_ns ||
	    2 * s->behind_ns[FT_BEHIND_FIRST_TOUCH] <= s->wait_ns)
		return NULL;
	return "one task populating the region before the others fault it "
	       "(MAP_POPULATE, or MADV_POPULATE_WRITE on the mapping, or "
	       "fallocate on a hugetlbfs file) takes these waits out of the "
	       "tasks' faults";
}
