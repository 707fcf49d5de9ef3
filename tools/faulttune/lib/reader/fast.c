// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: the fast path.  A plain version 6 file mapped, each
 * CPU's ring-buffer pages checked by the length rules and decoded in
 * place (or by kbuffer), the CPUs merged by time stamp into
 * rd_on_record().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/kbuffer.h>
#include "reader-local.h"

/*
 * The fast path for plain version 6 files (what faulttune record writes):
 * libtracecmd allocates a record per event and merges the CPUs through
 * its own heap; here the file is mapped, every CPU's pages are decoded in
 * place and the CPUs merged by time stamp, lowest CPU first on ties as
 * libtracecmd does.  A page of data events and time extends only (what
 * faulttune record and trace-cmd write) is decoded here (page_next(),
 * by kbuffer's rules); a page with padding or absolute time stamps by
 * libtraceevent's kbuffer, the decoder libtracecmd itself uses: both
 * paths see the same events and time stamps.  The formats still come
 * from libtracecmd (rd_setup()); files with buffer instances, other options
 * or 4-byte longs take the library path.
 *
 * kbuffer trusts the lengths in a page: a commit beyond the page, or an
 * event whose length runs past the commit or wraps, makes it read out of
 * bounds or loop forever.  So each page is checked first, by the ring
 * buffer's length rules only (rd_good_prefix()), and the decoder is handed
 * the good part: the page itself, or a copy with the commit cut before
 * the first bad header.  What is cut is counted per CPU, never dropped
 * silently.
 */
struct cpu_cur {
	const unsigned char *p, *end;	/* this CPU's pages left */
	const unsigned char *drop;	/* decoded pages before it are dropped */
	struct kbuffer *kb;		/* a page with padding or absolute times */
	/* else the page decoded here (page_next()): its data, where next */
	const unsigned char *pd;
	unsigned int pos, size;
	const unsigned char *pg_end;	/* the end of the page being read */
	unsigned char *copy;		/* a page with its commit cut */
	unsigned long long ts;		/* of the current event */
	void *data;			/* its payload, NULL when done */
	unsigned int len;
	uint64_t committed;		/* event bytes its page headers announce */
	const unsigned char *bad_commit;	/* a page whose commit is past it */
};

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Bytes of a page's data (size = its commit) that hold whole events by
 * the ring buffer's length rules, as kbuffer applies them: type_len 1-28
 * is 4 * type_len bytes of payload; 0 a length word (payload + 4); 29
 * (padding) a length word counted from itself; 30 and 31 (time extend,
 * absolute time stamp) 8 bytes in all.  *odd (if odd) is set when the
 * good part has padding or an absolute time stamp, which page_next()
 * leaves to kbuffer.
 */
unsigned int rd_good_prefix(const unsigned char *d, unsigned int size,
			    int *odd)
{
	unsigned int c = 0, tl, len;

	while (c < size) {
		if (size - c < 4)
			return c;
		tl = get32(d + c) & 0x1f;
		if (tl >= 1 && tl <= 28) {
			if (tl * 4 > size - c - 4)
				return c;
			c += 4 + tl * 4;
			continue;
		}
		if (size - c < 8)
			return c;
		len = get32(d + c + 4);
		switch (tl) {
		case 0:
			if (len < 4 || ((len - 4 + 3) & ~3u) > size - c - 8 ||
			    len > size)
				return c;
			c += 8 + ((len - 4 + 3) & ~3u);
			break;
		case 29:
			if (len > size - c - 4)
				return c;
			c += 4 + len;
			if (odd)
				*odd = 1;
			break;
		default:
			c += 8;
			if (odd && tl == 31)
				*odd = 1;
			break;
		}
	}
	return c;
}

/*
 * The next data event of a page decoded here (c->pd): what
 * kbuffer_next_event() and kbuffer_event_size() give, for the header
 * types a page has when rd_good_prefix() found it good and not odd (data
 * events and time extends), without kbuffer's indirect calls per
 * header, a fifth of report's reading.  The payload, NULL at the end of
 * the page; sets c->ts and c->len.
 */
static inline void *page_next(struct cpu_cur *c)
{
	while (c->pos < c->size) {
		uint32_t w = get32(c->pd + c->pos), tl = w & 0x1f;
		const unsigned char *data;

		c->ts += w >> 5;
		if (tl >= 1 && tl <= 28) {
			data = c->pd + c->pos + 4;
			c->len = tl * 4;
		} else if (tl == 0) {
			data = c->pd + c->pos + 8;
			c->len = (get32(c->pd + c->pos + 4) - 4 + 3) & ~3u;
		} else {	/* 30: a time extend, the delta's upper bits */
			c->ts += (uint64_t)get32(c->pd + c->pos + 4) << 27;
			c->pos += 8;
			continue;
		}
		c->pos = (unsigned int)(data - c->pd) + c->len;
		return (void *)data;
	}
	return NULL;
}

/*
 * Page pg (good, not odd) to decode here, and its first event; 0 when
 * it has none.  Missed events as kbuffer_missed_events() tells them
 * right after loading a page: the page's count when its first data
 * event is its first header, or it has no data at all; else 0.
 */
static int page_load(struct cpu_cur *c, const unsigned char *pg,
		     struct reader *rd, int cpu)
{
	uint64_t flags, lost = 0;
	int missed;

	memcpy(&c->ts, pg, 8);
	memcpy(&flags, pg + 8, 8);
	c->pd = pg + PAGE_HDR;
	c->pos = 0;
	c->size = (unsigned int)(flags & COMMIT_MASK);
	if (flags & RB_MISSED_EVENTS) {
		if (flags & RB_MISSED_STORED)
			memcpy(&lost, c->pd + c->size, 8);
		else
			lost = (uint64_t)-1;
	}
	missed = (int)lost;	/* kbuffer's int */
	if (missed && (!c->size || (get32(c->pd) & 0x1f) <= 28))
		ft_analysis_lost(rd->a, cpu, missed);
	c->data = page_next(c);
	return c->data != NULL;
}

/*
 * Give the pages decoded so far back, a few MB at a time: a file mapping
 * counts in the resident set as it is read, and a report's memory should
 * not grow with the file it reads.
 */
static void drop_behind(struct cpu_cur *c, const unsigned char *upto)
{
	uintptr_t mask = (uintptr_t)getpagesize() - 1;
	uintptr_t start = ((uintptr_t)c->drop + mask) & ~mask;
	uintptr_t end = (uintptr_t)upto & ~mask;

	if (end > start && end - start >= (4u << 20)) {
		madvise((void *)start, end - start, MADV_DONTNEED);
		c->drop = (const unsigned char *)end;
	}
}

/* load the next page with events into kbuffer; 0 at the end of this CPU */
static int cur_page(struct cpu_cur *c, uint64_t page, struct reader *rd, int cpu)
{
	struct ft_cpu_skips *sk;
	uint64_t flags, commit, room = page - PAGE_HDR;
	const unsigned char *pg;
	unsigned int good;
	int missed, odd;

	while (c->p + page <= c->end) {
		pg = c->p;
		c->p += page;
		drop_behind(c, pg);
		/*
		 * The next page's lines are fetched while this one is
		 * decoded: the first look at each line (rd_good_prefix()) was
		 * a cache miss, the hardware does not prefetch across pages.
		 */
		if (c->p + page <= c->end) {
			uint64_t l;

			for (l = 0; l < page; l += 64)
				__builtin_prefetch(c->p + l);
		}
		memcpy(&flags, pg + 8, 8);
		commit = flags & COMMIT_MASK;
		if (commit > room) {
			/* the file is refused, as rd_validate() refuses it */
			c->bad_commit = pg;
			break;
		}
		c->committed += commit;
		if ((flags & RB_MISSED_STORED) && commit + 8 > room) {
			sk = ft_analysis_skips(rd->a, cpu);
			if (sk) {
				sk->bad_pages++;
				sk->skipped_bytes += room;
			}
			continue;
		}
		odd = 0;
		good = rd_good_prefix(pg + PAGE_HDR, commit, &odd);
		if (good < commit) {
			uint64_t cut = (flags & ~COMMIT_MASK) | good;

			sk = ft_analysis_skips(rd->a, cpu);
			if (sk) {
				sk->bad_headers++;
				sk->skipped_bytes += commit - good;
			}
			memcpy(c->copy, pg, PAGE_HDR + good);
			memcpy(c->copy + 8, &cut, 8);
			if (flags & RB_MISSED_STORED)	/* the count follows the data */
				memcpy(c->copy + PAGE_HDR + good,
				       pg + PAGE_HDR + commit, 8);
			pg = c->copy;
		}
		c->pg_end = pg + page;
		if (!odd) {
			if (page_load(c, pg, rd, cpu))
				return 1;
			continue;
		}
		c->pd = NULL;
		if (kbuffer_load_subbuffer(c->kb, (void *)pg))
			continue;
		missed = kbuffer_missed_events(c->kb);
		if (missed)
			ft_analysis_lost(rd->a, cpu, missed);
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data)
			return 1;
	}
	c->data = NULL;
	return 0;
}

static void cur_set_len(struct cpu_cur *c)
{
	if (c->data && !c->pd)
		c->len = kbuffer_event_size(c->kb);
}

/* advance to the next data event; 0 at the end of this CPU */
static int cur_next(struct cpu_cur *c, uint64_t page, struct reader *rd, int cpu)
{
	if (c->data)
		c->data = c->pd ? page_next(c) :
			  kbuffer_next_event(c->kb, &c->ts);
	if (!c->data)
		cur_page(c, page, rd, cpu);
	cur_set_len(c);
	return c->data != NULL;
}

int rd_fast_read(const char *file, struct layout *lay,
		 struct reader *rd)
{
	struct cpu_cur *cur;
	struct tep_record rec;
	struct stat st;
	void *map;
	uint64_t i;
	int fd, ret = -1;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ft_err("%s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		ft_err("%s: %s", file, strerror(errno));
		return -1;
	}
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	cur = calloc(lay->cpus, sizeof(*cur));
	if (!cur)
		goto nomem;
	for (i = 0; i < lay->cpus; i++) {
		cur[i].kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
		cur[i].copy = malloc(lay->page);
		if (!cur[i].kb || !cur[i].copy)
			goto nomem;
		/* rd_validate() checked that off + size is inside the file */
		cur[i].p = (const unsigned char *)map + lay->off[i];
		cur[i].end = cur[i].p + lay->size[i];
		cur[i].drop = cur[i].p;
		cur_next(&cur[i], lay->page, rd, (int)i);
	}
	memset(&rec, 0, sizeof(rec));
	for (;;) {
		struct cpu_cur *m = NULL;
		int cpu = -1;

		for (i = 0; i < lay->cpus; i++) {
			if (cur[i].data && (!m || cur[i].ts < m->ts)) {
				m = &cur[i];
				cpu = (int)i;
			}
			if (cur[i].bad_commit)
				goto bad_commit;
		}
		if (!m)
			break;
		rec.ts = m->ts;
		rec.data = m->data;
		rec.size = m->len;
		rec.cpu = cpu;
		rd->room = (unsigned int)(m->pg_end -
					  (const unsigned char *)m->data);
		rd_on_record(NULL, &rec, cpu, rd);
		cur_next(m, lay->page, rd, cpu);
	}
	rd->room = 0;
	for (i = 0; i < lay->cpus; i++)
		lay->committed += cur[i].committed;
	ret = 0;
	goto out;
bad_commit:
	ft_err("%s: corrupt CPU data page (bad commit size)", file);
	goto out;
nomem:
	ft_err("%s: out of memory for the page decoders", file);
out:
	for (i = 0; cur && i < lay->cpus; i++) {
		kbuffer_free(cur[i].kb);
		free(cur[i].copy);
	}
	free(cur);
	munmap(map, st.st_size);
	return ret;
}
