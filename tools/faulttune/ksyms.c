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
#include "faulttune.h"

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
 * Calls (e8 rel32) to target inside func, in its first 16 KB, and tail
 * calls (e9 rel32) too with tail: the call sites a probe on target sees
 * from func.  -1: func's text unreadable.
 */
int ft_kcall_count(const struct ft_ksyms *ks, const char *func,
		   uint64_t target, int tail)
{
	unsigned char buf[16384];
	uint64_t start, off;
	size_t i, len = sizeof(buf);
	const char *in;
	int n = 0;

	if (ft_ksyms_addr(ks, func, &start))
		return 0;
	/* near the end of the kernel's text, 16 KB may not all be mapped */
	while (ft_kcore_read(start, buf, len))
		if ((len /= 4) < 1024)
			return -1;
	for (i = 0; i + 5 <= len; i++) {
		int32_t rel;

		if (buf[i] != 0xe8 && (!tail || buf[i] != 0xe9))
			continue;
		memcpy(&rel, buf + i + 1, 4);
		if (start + i + 5 + (int64_t)rel != target)
			continue;
		/* in func itself: whichever alias names its start */
		in = ft_ksyms_func(ks, start + i, &off);
		if (in && off == i)
			n++;
	}
	return n;
}
