// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols and memory for the lock:contention fallback: the
 * /proc/kallsyms text (live, or the copy a version 6 trace.dat carries)
 * and kernel memory through /proc/kcore (struct sizes from BTF: btf.c).  Each answers "not known" (NULL, -1) rather than guess.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel.h"

struct ksym {
	uint64_t addr;
	char type;		/* kallsyms type letter: t T d D b B r R ... */
	const char *name;	/* in ft_ksyms.text */
};

struct ft_ksyms {
	char *text;		/* the kallsyms text, names cut out of it */
	struct ksym *sym;	/* by address */
	size_t n;
};

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static int is_data(char t)
{
	return t == 'd' || t == 'D' || t == 'b' || t == 'B' ||
	       t == 'r' || t == 'R';
}

static int cmp_ksym(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr > b->addr ? 1 : -1;
	/* aliases in the order kallsyms lists them: names are in that order */
	return (a->name > b->name) - (a->name < b->name);
}

/*
 * Takes ownership of text (NUL-terminated, len bytes).  Lines are
 * "ADDR TYPE NAME[\t[MODULE]]"; absolute and per-CPU symbols (type A, and
 * the small per-CPU offsets) are not addresses of anything and are left
 * out.  Returns NULL when no line has a non-zero address (kptr_restrict).
 */
struct ft_ksyms *ft_ksyms_parse(char *text, size_t len)
{
	struct ft_ksyms *ks = calloc(1, sizeof(*ks));
	size_t cap = 0;
	char *p = text, *end = text + len;

	if (!ks) {
		free(text);
		return NULL;
	}
	ks->text = text;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		char *line = p, *q, *name;
		uint64_t addr;
		char type;

		if (!nl)
			nl = end;
		*nl = '\0';
		p = nl + 1;
		addr = strtoull(line, &q, 16);
		if (q == line || *q != ' ' || !q[1] || q[2] != ' ')
			continue;
		type = q[1];
		name = q + 3;
		name[strcspn(name, " \t")] = '\0';
		if (!addr || type == 'A' || type == 'a' || !*name)
			continue;
		if (addr < 0x100000000ULL)	/* per-CPU offsets */
			continue;
		if (ks->n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			struct ksym *ns = realloc(ks->sym, nc * sizeof(*ns));

			if (!ns)
				break;
			ks->sym = ns;
			cap = nc;
		}
		ks->sym[ks->n].addr = addr;
		ks->sym[ks->n].type = type;
		ks->sym[ks->n].name = name;
		ks->n++;
	}
	if (!ks->n) {
		ft_ksyms_free(ks);
		return NULL;
	}
	qsort(ks->sym, ks->n, sizeof(*ks->sym), cmp_ksym);
	return ks;
}

struct ft_ksyms *ft_ksyms_load(const char *path)
{
	size_t len;
	char *text = ft_read_all(path ? path : "/proc/kallsyms", &len);

	return text ? ft_ksyms_parse(text, len) : NULL;
}

void ft_ksyms_free(struct ft_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->sym);
	free(ks->text);
	free(ks);
}

size_t ft_ksyms_count(const struct ft_ksyms *ks)
{
	return ks ? ks->n : 0;
}

/* index of the last symbol at or below addr, or -1 */
static long below(const struct ft_ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->sym[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/*
 * The symbol of the given class that contains addr: the last one at or
 * below it, when no symbol of any kind starts between the two (that one
 * would be the container).  The last symbol of all has no end: nothing
 * past it is attributed.
 */
static const char *contain(const struct ft_ksyms *ks, uint64_t addr,
			   int (*cls)(char), uint64_t *off)
{
	long i;

	if (!ks)
		return NULL;
	i = below(ks, addr);
	if (i < 0 || (size_t)i + 1 >= ks->n)
		return NULL;
	/* aliases share an address: the first listed of the wanted class */
	while (i > 0 && ks->sym[i - 1].addr == ks->sym[i].addr)
		i--;
	while ((size_t)i + 1 < ks->n && ks->sym[i + 1].addr == ks->sym[i].addr &&
	       !cls(ks->sym[i].type))
		i++;
	if (!cls(ks->sym[i].type))
		return NULL;
	if (off)
		*off = addr - ks->sym[i].addr;
	return ks->sym[i].name;
}

const char *ft_ksyms_func(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off)
{
	return contain(ks, addr, is_text, off);
}

const char *ft_ksyms_data(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off)
{
	return contain(ks, addr, is_data, off);
}

int ft_ksyms_addr(const struct ft_ksyms *ks, const char *name, uint64_t *addr)
{
	size_t i;

	for (i = 0; ks && i < ks->n; i++)
		if (!strcmp(ks->sym[i].name, name)) {
			*addr = ks->sym[i].addr;
			return 0;
		}
	return -1;
}

/*
 * The kallsyms section of a version 6 trace.dat (trace-cmd.dat.v6(5)):
 * walk the headers to it.  NULL when the file has none, or is another
 * version (trace-cmd's version 7 keeps sections compressible; not read).
 */
char *ft_tracedat_kallsyms(const char *file, size_t *len)
{
	unsigned char hdr[16];
	uint64_t n64, i, j;
	uint32_t n32, nev;
	char *text = NULL;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	off_t off;
	char c;

#define RD(p, n) (read(fd, (p), (n)) == (ssize_t)(n))
#define SKIP(n) (lseek(fd, (off_t)(n), SEEK_CUR) >= 0)
	if (fd < 0)
		return NULL;
	if (!RD(hdr, 16) || memcmp(hdr, "\x17\x08\x44tracing6", 11) || hdr[11])
		goto out;
	if (!SKIP(2) || !RD(hdr, 12) || memcmp(hdr, "header_page", 12) ||
	    !RD(&n64, 8) || !SKIP(n64) ||
	    !RD(hdr, 13) || memcmp(hdr, "header_event", 13) ||
	    !RD(&n64, 8) || !SKIP(n64))
		goto out;
	if (!RD(&n32, 4))
		goto out;
	for (i = 0; i < n32; i++)
		if (!RD(&n64, 8) || !SKIP(n64))
			goto out;
	if (!RD(&n32, 4))
		goto out;
	for (i = 0; i < n32; i++) {
		do {
			if (!RD(&c, 1))
				goto out;
		} while (c);
		if (!RD(&nev, 4))
			goto out;
		for (j = 0; j < nev; j++)
			if (!RD(&n64, 8) || !SKIP(n64))
				goto out;
	}
	if (!RD(&n32, 4) || !n32)
		goto out;
	off = lseek(fd, 0, SEEK_CUR);
	if (off < 0 || n32 > (64u << 20))
		goto out;
	text = malloc((size_t)n32 + 1);
	if (!text || pread(fd, text, n32, off) != (ssize_t)n32) {
		free(text);
		text = NULL;
		goto out;
	}
	text[n32] = '\0';
	*len = n32;
out:
#undef RD
#undef SKIP
	close(fd);
	return text;
}

/*
 * Read kernel memory at a kernel virtual address through /proc/kcore (an
 * ELF core whose PT_LOAD segments are the kernel's mappings).  Root and
 * CONFIG_PROC_KCORE; lockdown refuses it.  0 or -errno.
 */
int ft_kcore_read(uint64_t addr, void *buf, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC), i, ret = -ENOENT;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		close(fd);
		return -EINVAL;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_filesz)
			continue;
		ret = pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) ==
			(ssize_t)len ? 0 : -EIO;
		break;
	}
	close(fd);
	return ret;
}

/*
 * name is func, or a compiler's copy of it: GCC names a specialised or
 * split copy func.constprop.0, func.isra.0, func.part.0, func.cold (and
 * combinations), clang's LTO func.llvm.N.  Another build of the same
 * source may have either, so a caller is known by its name up to the dot.
 */
int ft_ksym_is(const char *name, const char *func)
{
	size_t n = strlen(func);

	return name && !strncmp(name, func, n) &&
	       (name[n] == '\0' || name[n] == '.');
}

/*
 * The text symbols that are func or a copy of it (ft_ksym_is()), one per
 * call: *i from 0; NULL after the last.  Aliases at one address count once.
 */
const char *ft_ksyms_copy(const struct ft_ksyms *ks, const char *func,
			  size_t *i, uint64_t *addr)
{
	for (; ks && *i < ks->n; (*i)++) {
		const struct ksym *s = &ks->sym[*i];

		if (!is_text(s->type) || !ft_ksym_is(s->name, func))
			continue;
		if (*i && ks->sym[*i - 1].addr == s->addr &&
		    is_text(ks->sym[*i - 1].type) &&
		    ft_ksym_is(ks->sym[*i - 1].name, func))
			continue;
		*addr = s->addr;
		return ks->sym[(*i)++].name;
	}
	return NULL;
}

/* how many symbols of any kind are named name */
int ft_ksyms_named(const struct ft_ksyms *ks, const char *name)
{
	size_t i;
	int n = 0;

	for (i = 0; ks && i < ks->n; i++)
		n += !strcmp(ks->sym[i].name, name);
	return n;
}

/*
 * Where a call to target lands: target itself or, on a kernel built with
 * call padding (CONFIG_CALL_PADDING: the call-depth thunks of retbleed's
 * "stuff" mitigation are patched into it), inside __pfx_target, the
 * padding kallsyms names in front of it.  The lowest address that is one.
 */
static uint64_t call_floor(const struct ft_ksyms *ks, uint64_t target)
{
	uint64_t off;
	const char *pfx = ft_ksyms_func(ks, target - 1, &off);
	const char *name = ft_ksyms_func(ks, target, NULL);

	if (pfx && name && !strncmp(pfx, "__pfx_", 6) && !strcmp(pfx + 6, name))
		return target - 1 - off;
	return target;
}

/*
 * The call sites (e8 rel32) of target inside the text symbol at start,
 * and its tail calls (e9 rel32) too with tail, in its first 16 KB: each
 * site's address into sites[] (at most max; NULL: only counted).  The
 * bytes are not decoded: an e8 inside another instruction whose next four
 * bytes happen to reach target would count, and a probe put there is
 * refused by the kernel, which decodes the function to the probed
 * address (-EILSEQ), so a wrong site fails loudly.  -1: text unreadable.
 */
int ft_kcall_sites(const struct ft_ksyms *ks, uint64_t start, uint64_t target,
		   int tail, uint64_t *sites, int max)
{
	unsigned char buf[16384];
	uint64_t off, lo = call_floor(ks, target);
	size_t i, len = sizeof(buf);
	int n = 0;

	/* near the end of the kernel's text, 16 KB may not all be mapped */
	while (ft_kcore_read(start, buf, len))
		if ((len /= 4) < 1024)
			return -1;
	for (i = 0; i + 5 <= len; i++) {
		uint64_t dest;
		int32_t rel;

		if (buf[i] != 0xe8 && (!tail || buf[i] != 0xe9))
			continue;
		memcpy(&rel, buf + i + 1, 4);
		dest = start + i + 5 + (int64_t)rel;
		if (dest < lo || dest > target)
			continue;
		/* in func itself: whichever alias names its start */
		if (!ft_ksyms_func(ks, start + i, &off) || off != i)
			continue;
		if (sites && n < max)
			sites[n] = start + i;
		n++;
	}
	return n;
}

/*
 * The first call (e8 rel32), or with tail also tail call (e9 rel32), in
 * the span bytes from "from" whose destination is a function's start (or
 * its __pfx_ padding): its address, with the function's name in *callee;
 * 0 when there is none, or the text is unreadable.  As ft_kcall_sites(),
 * the bytes are not decoded: an e8 inside another instruction whose next
 * four bytes happen to reach a function's first byte would count, and a
 * probe put there is refused.
 */
uint64_t ft_kcall_next(const struct ft_ksyms *ks, uint64_t from, size_t span,
		       int tail, const char **callee)
{
	unsigned char buf[512];
	size_t i;

	if (span + 5 > sizeof(buf))
		span = sizeof(buf) - 5;
	if (ft_kcore_read(from, buf, span + 5))
		return 0;
	for (i = 0; i < span; i++) {
		const char *name;
		uint64_t dest, off;
		int32_t rel;

		if (buf[i] != 0xe8 && (!tail || buf[i] != 0xe9))
			continue;
		memcpy(&rel, buf + i + 1, 4);
		dest = from + i + 5 + (int64_t)rel;
		name = ft_ksyms_func(ks, dest, &off);
		if (!name)
			continue;
		if (!strncmp(name, "__pfx_", 6))
			name += 6;
		else if (off)
			continue;
		*callee = name;
		return from + i;
	}
	return 0;
}

/*
 * Calls (e8 rel32) to target inside func, in its first 16 KB, and tail
 * calls (e9 rel32) too with tail: the call sites a probe on target sees
 * from func.  -1: func's text unreadable.
 */
int ft_kcall_count(const struct ft_ksyms *ks, const char *func,
		   uint64_t target, int tail)
{
	uint64_t start;

	if (ft_ksyms_addr(ks, func, &start))
		return 0;
	return ft_kcall_sites(ks, start, target, tail, NULL, 0);
}
