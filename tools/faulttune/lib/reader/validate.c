// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: the checks of a version 6 file before libtracecmd
 * opens it, and what they learn of its layout (struct layout) for the
 * fast path and for the library path's own limits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "reader-local.h"

/*
 * libtracecmd trusts its input (a truncated file crashes tracecmd_open()
 * in libtracecmd 1.3), so check the structure of version 6 files first:
 * every size and offset must stay inside the file and every data page
 * must have a sane commit.  Other versions are left to libtracecmd, and
 * cmd_report() reads in a child process so that a crash in the library
 * becomes an error message.
 */
struct cur {
	const unsigned char *p;
	size_t len, off;
	int bad;
};

static uint64_t rd(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->off < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p + c->off, n);	/* little endian host and file */
	c->off += n;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if (c->bad || c->len - c->off < n)
		c->bad = 1;
	else
		c->off += n;
}

static int expect(struct cur *c, const char *s, size_t n)
{
	if (c->bad || c->len - c->off < n || memcmp(c->p + c->off, s, n))
		return c->bad = 1, -1;
	c->off += n;
	return 0;
}

/* the page layout the fast path decodes, as header_page must describe it */
static int std_header_page(const unsigned char *p, uint64_t len)
{
	static const char * const want[] = {
		"u64 timestamp;\toffset:0;\tsize:8;",
		"commit;\toffset:8;\tsize:8;",
		"char data;\toffset:16;",
	};
	char *text = len < 4096 ? strndup((const char *)p, len) : NULL;
	size_t i;
	int ok = !!text;

	for (i = 0; ok && i < sizeof(want) / sizeof(want[0]); i++)
		ok = strstr(text, want[i]) != NULL;
	free(text);
	return ok;
}

/* a page of a file the library path reads: see struct layout */
static void deep_check(struct layout *lay, const unsigned char *pg,
		       uint64_t commit, uint64_t cpu)
{
	uint64_t flags, missed;

	memcpy(&flags, pg + 8, 8);
	if (commit && rd_good_prefix(pg + PAGE_HDR, commit, NULL) < commit) {
		if (!lay->past_commit++) {
			lay->past_commit_off = pg - lay->base;
			lay->past_commit_cpu = (int)cpu;
		}
	} else if (!commit && (flags & RB_MISSED_EVENTS)) {
		if (flags & RB_MISSED_STORED) {
			memcpy(&missed, pg + PAGE_HDR, 8);
			lay->empty_missed += missed;
		} else {
			lay->empty_missed_unknown++;
		}
	}
}

/* the file mapped read-only into *map, its size in *len; -1: said why */
static int map_file(const char *file, void **map, size_t *len)
{
	struct stat st;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ft_err("%s: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size < 16) {
		close(fd);
		ft_err("%s: not a trace.dat file (%lld bytes)", file,
		       (long long)st.st_size);
		return -1;
	}
	*map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (*map == MAP_FAILED) {
		ft_err("%s: %s", file, strerror(errno));
		return -1;
	}
	*len = st.st_size;
	return 0;
}

/* other versions: libtracecmd's job; their page size, for rd_on_record() */
static void other_version(const struct cur *c, struct layout *lay)
{
	const unsigned char *z = memchr(c->p + c->off, 0, c->len - c->off);
	uint32_t p32 = 0;

	if (z && (size_t)(z - c->p) + 7 <= c->len)
		memcpy(&p32, z + 3, 4);
	if (ft_is_pow2(p32))
		lay->page = p32;
}

/*
 * A version 6 header after the version string, up to the flyrecord
 * section's per-CPU table: NULL, or what is wrong with it.
 */
static const char *check_header(struct cur *c, struct layout *lay,
				uint64_t *page, uint64_t *long_size,
				uint64_t *cpus)
{
	uint64_t n, i, cmd;

	if (rd(c, 1) != 0)
		return "big-endian trace.dat files are not supported";
	n = rd(c, 1);
	*long_size = n;
	*page = rd(c, 4);
	if (c->bad || (n != 4 && n != 8) || *page < 64 || *page > (1 << 20) ||
	    !ft_is_pow2(*page))
		return "corrupt header (long size or page size)";
	if (expect(c, "header_page", 12))
		return "corrupt header (header_page)";
	n = rd(c, 8);
	if (!c->bad && n <= c->len - c->off)
		lay->std_header_page = std_header_page(c->p + c->off, n);
	skip(c, n);
	if (expect(c, "header_event", 13))
		return "corrupt or truncated header (header_event)";
	skip(c, rd(c, 8));
	n = rd(c, 4);				/* ftrace formats */
	for (i = 0; i < n && !c->bad; i++)
		skip(c, rd(c, 8));
	n = rd(c, 4);				/* systems */
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t e, j;
		const unsigned char *z = memchr(c->p + c->off, 0, c->len - c->off);

		if (!z || z - (c->p + c->off) > 256) {
			c->bad = 1;
			break;
		}
		c->off = z - c->p + 1;
		e = rd(c, 4);
		for (j = 0; j < e && !c->bad; j++)
			skip(c, rd(c, 8));
	}
	skip(c, rd(c, 4));			/* kallsyms */
	skip(c, rd(c, 4));			/* printk formats */
	skip(c, rd(c, 8));			/* cmdlines */
	*cpus = rd(c, 4);
	if (c->bad)
		return "truncated or corrupt header (event formats)";
	if (!*cpus || *cpus > 8192)
		return "corrupt header (cpu count)";
	lay->plain = *long_size == 8 && lay->std_header_page;
	if (c->len - c->off >= 10 && !memcmp(c->p + c->off, "options  ", 10)) {
		c->off += 10;
		while (!c->bad && (cmd = rd(c, 2)) != 0) {
			if (cmd != 2 && cmd != 4)	/* CPUSTATS, TRACECLOCK */
				lay->plain = 0;
			skip(c, rd(c, 4));
		}
	}
	if (expect(c, "flyrecord", 10))
		return c->len - c->off < 10 ? "truncated header (no flyrecord section)" :
			"unsupported or corrupt trace.dat (no flyrecord section)";
	return NULL;
}

/*
 * The per-CPU table and the commits of the data pages: NULL, or what is
 * wrong with them.  deep: check the pages for the library path too.
 */
static const char *check_cpu_data(struct cur *c, struct layout *lay,
				  uint64_t cpus, uint64_t page, int deep)
{
	uint64_t i;

	if (lay->plain) {
		lay->off = calloc(cpus, sizeof(*lay->off));
		lay->size = calloc(cpus, sizeof(*lay->size));
		lay->cpus = cpus;
		lay->page = page;
		if (!lay->off || !lay->size)
			return "out of memory";
	}
	for (i = 0; i < cpus; i++) {
		uint64_t off = rd(c, 8), size = rd(c, 8), q;

		if (lay->plain) {
			lay->off[i] = off;
			lay->size[i] = size;
		}
		if (c->bad)
			return "truncated header (per-CPU offsets)";
		if (!size)
			continue;
		if (off > c->len || size > c->len - off)
			return "truncated: CPU data extends beyond the end of the file";
		if (off % page || size % page)
			return "corrupt CPU data (not page aligned)";
		/*
		 * The fast path checks each page's commit as it decodes it
		 * (cur_page()): a pass of its own touched every page of the
		 * file once more, a tenth of report's time on 1M events.
		 */
		if (lay->plain && !lay->lib)
			continue;
		for (q = off; q < off + size; q += page) {
			uint64_t commit;

			memcpy(&commit, c->p + q + 8, 8);
			commit &= (1ULL << 27) - 1;	/* flag bits on top */
			if (commit > page - 16)
				return "corrupt CPU data page (bad commit size)";
			lay->committed += commit;
			if (deep)
				deep_check(lay, c->p + q, commit, i);
			/* this pass touches every page: do not keep them */
			if (((q + page) & ((4u << 20) - 1)) == 0)
				madvise((void *)(((uintptr_t)c->p + q + page - (4u << 20)) &
						 ~((uintptr_t)getpagesize() - 1)),
					4u << 20, MADV_DONTNEED);
		}
	}
	return NULL;
}

int rd_validate(const char *file, struct layout *lay)
{
	struct cur c = { 0 };
	uint64_t cpus = 0, page = 0, long_size = 0;
	const char *why = NULL;
	void *map;
	size_t len;
	int deep;

	if (map_file(file, &map, &len))
		return -1;
	c.p = map;
	c.len = len;
	lay->base = map;
	if (expect(&c, "\x17\x08\x44tracing", 10)) {
		why = "not a trace.dat file (bad magic)";
		goto out;
	}
	if (c.p[c.off] != '6' || c.p[c.off + 1] != '\0') {
		other_version(&c, lay);
		goto out;
	}
	c.off += 2;
	why = check_header(&c, lay, &page, &long_size, &cpus);
	if (why)
		goto out;
	/* the pages the library path will read: see struct layout */
	deep = lay->std_header_page && long_size == 8 &&
	       (lay->lib || !lay->plain);
	why = check_cpu_data(&c, lay, cpus, page, deep);
out:
	if (c.bad && !why)
		why = "truncated or corrupt header";
	if (why)
		ft_err("%s: %s", file, why);
	munmap(map, len);
	return why ? -1 : 0;
}
