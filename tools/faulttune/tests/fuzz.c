// SPDX-License-Identifier: GPL-2.0
/*
 * Structure-aware fuzzer of faulttune report.
 *
 * usage: tests/fuzz FAULTTUNE WORKDIR CASES SECONDS SEED_OR_CORPUS_FILE...
 *
 * Every file given is run as it is first (the regression corpus and the
 * seeds), then CASES mutants of the seeds (or as many as fit in SECONDS).
 * The mutator knows the trace.dat version 6 layout: it truncates at
 * section boundaries, sets size, count and offset fields to 0, 1, 2^32-1,
 * 2^64-1 or off by one, rewrites page commits and flags, gives event
 * headers every type_len and bad lengths, and edits the format text.  Of
 * other versions (7, compressed) it knows only the header, and mutates
 * aligned words and truncates anywhere.
 *
 * Each file is reported twice, by the in-place reader and by libtracecmd
 * (FAULTTUNE_LIBTRACECMD=1), with report's time limit.  A reader passes
 * when it exits 1 with one line naming the file (but not naming a
 * faulttune bug: "internal error"), or exits 0; the case passes when
 * neither crashed (signal, sanitizer report), the in-place reader did not
 * hit the time limit, and readers that both exited 0 printed the same
 * JSON.  A failing input is saved in WORKDIR/found-N.dat
 * for the corpus.  Ends with the counts and "N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define MAXFIELDS 4096

/* a place in the file worth mutating */
struct field {
	size_t off;
	int width;		/* 2, 4, 8 bytes; 0: a boundary; -1: text */
	size_t len;		/* text: its length */
};

struct seed {
	const char *name;
	unsigned char *buf;
	size_t len;
	struct field f[MAXFIELDS];
	int nf;
	size_t page;
	/* data pages: file offsets of the first pages of CPU 0 */
	size_t pages[64];
	int npages;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void add(struct seed *s, size_t off, int width, size_t len)
{
	if (s->nf < MAXFIELDS && off <= s->len)
		s->f[s->nf++] = (struct field){ off, width, len };
}

static uint64_t get(const struct seed *s, size_t off, int n)
{
	uint64_t v = 0;

	if (off + n <= s->len)
		memcpy(&v, s->buf + off, n);
	return v;
}

/* the fields of a version 6 file, as far as they parse */
static void parse_v6(struct seed *s)
{
	size_t p = 12, n, i, j, cnt, e;

	add(s, 12, 0, 0);			/* endian, long size */
	add(s, 14, 4, 0);			/* page size */
	s->page = get(s, 14, 4);
	p = 18;
#define SKIPSTR() do {						\
		const unsigned char *z = memchr(s->buf + p, 0, s->len - p); \
									\
		if (!z)							\
			return;						\
		p = z - s->buf + 1;					\
	} while (0)
#define NEED(k) do {							\
		if (p + (k) > s->len)					\
			return;						\
	} while (0)
	SKIPSTR();				/* header_page */
	add(s, p, 8, 0);
	NEED(8);
	n = get(s, p, 8);
	add(s, p + 8, -1, n);
	p += 8 + n;
	add(s, p, 0, 0);
	SKIPSTR();				/* header_event */
	add(s, p, 8, 0);
	NEED(8);
	n = get(s, p, 8);
	add(s, p + 8, -1, n);
	p += 8 + n;
	add(s, p, 4, 0);			/* ftrace formats */
	NEED(4);
	cnt = get(s, p, 4);
	p += 4;
	for (i = 0; i < cnt && p + 8 <= s->len; i++) {
		add(s, p, 8, 0);
		n = get(s, p, 8);
		add(s, p + 8, -1, n);
		p += 8 + n;
		add(s, p, 0, 0);
	}
	add(s, p, 4, 0);			/* systems */
	NEED(4);
	cnt = get(s, p, 4);
	p += 4;
	for (i = 0; i < cnt && p < s->len; i++) {
		SKIPSTR();
		add(s, p, 4, 0);
		NEED(4);
		e = get(s, p, 4);
		p += 4;
		for (j = 0; j < e && p + 8 <= s->len; j++) {
			add(s, p, 8, 0);
			n = get(s, p, 8);
			add(s, p + 8, -1, n);
			p += 8 + n;
			add(s, p, 0, 0);
		}
	}
	for (i = 0; i < 2; i++) {		/* kallsyms, printk */
		add(s, p, 4, 0);
		NEED(4);
		p += 4 + get(s, p, 4);
	}
	add(s, p, 8, 0);			/* cmdlines */
	NEED(8);
	p += 8 + get(s, p, 8);
	add(s, p, 4, 0);			/* cpus */
	NEED(4);
	cnt = get(s, p, 4);
	p += 4;
	if (p + 10 <= s->len && !memcmp(s->buf + p, "options  ", 10)) {
		p += 10;
		while (p + 6 <= s->len && get(s, p, 2)) {
			add(s, p, 2, 0);
			add(s, p + 2, 4, 0);
			p += 6 + get(s, p + 2, 4);
		}
		p += 2;
	}
	add(s, p, 0, 0);			/* flyrecord */
	p += 10;
	for (i = 0; i < cnt && i < 64 && p + 16 <= s->len; i++, p += 16) {
		uint64_t off = get(s, p, 8), size = get(s, p + 8, 8), q;

		add(s, p, 8, 0);
		add(s, p + 8, 8, 0);
		if (!s->page || off > s->len || size > s->len - off)
			continue;
		for (q = off; q < off + size && s->npages < 64; q += s->page) {
			s->pages[s->npages++] = q;
			add(s, q, 0, 0);
			add(s, q + 8, 8, 0);	/* commit and flags */
		}
	}
}

static int load(struct seed *s, const char *name)
{
	FILE *f = fopen(name, "rb");
	long n;

	memset(s, 0, sizeof(*s));
	s->name = name;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s->buf = malloc(n > 0 ? n : 1);
	s->len = n > 0 && fread(s->buf, 1, n, f) == (size_t)n ? n : 0;
	fclose(f);
	if (s->len > 12 && s->buf[10] == '6' && !s->buf[11]) {
		parse_v6(s);
	} else {
		size_t i;

		/* other versions: aligned words of the first 8 KB */
		for (i = 12; i + 8 <= s->len && i < 8192; i += 4)
			add(s, i, i % 8 ? 4 : 8, 0);
	}
	return s->len ? 0 : -1;
}

static const uint64_t specials[] = {
	0, 1, 2, 3, 4, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0xfffffff0,
	0x100000000ULL, 0x7fffffffffffffffULL, 0xffffffffffffffffULL,
};

static void put(unsigned char *b, size_t len, size_t off, int width, uint64_t v)
{
	if (off + width <= len)
		memcpy(b + off, &v, width);
}

/* one mutation of m (a copy of s); returns the new length */
static size_t mutate(const struct seed *s, unsigned char *m, size_t len)
{
	const struct field *f = s->nf ? &s->f[rnd() % s->nf] : NULL;
	unsigned int op = rnd() % 8;
	uint64_t v;

	switch (op) {
	case 0:			/* truncate at a boundary, give or take */
		if (f)
			return f->off + rnd() % 4 < len ? f->off + rnd() % 4 : len;
		return rnd() % len;
	case 1:			/* a size, count or offset field */
	case 2:
		if (!f || f->width <= 0)
			break;
		v = rnd() % 3 ? specials[rnd() % (sizeof(specials) / 8)] :
			get(s, f->off, f->width) + (rnd() & 1 ? 1 : -1);
		put(m, len, f->off, f->width, v);
		return len;
	case 3:			/* a page's commit and flags */
		if (s->npages) {
			size_t pg = s->pages[rnd() % s->npages];
			uint64_t fl = get(s, pg + 8, 8);
			static const uint64_t commits[] = { 0, 1, 8, 4096 - 16,
				4096 - 15, 4096 - 8, 4096, (1 << 27) - 1 };

			if (rnd() & 1)
				fl = (fl & ~((1ULL << 27) - 1)) | commits[rnd() % 8];
			else
				fl |= (rnd() & 1 ? 1ULL << 31 : 0) |
				      (rnd() & 1 ? 1ULL << 30 : 0);
			put(m, len, pg + 8, 8, fl);
			return len;
		}
		break;
	case 4:			/* an event header: every type_len, bad lengths */
	case 5:
		if (s->npages) {
			size_t pg = s->pages[rnd() % s->npages], c = 0;
			uint64_t commit = get(s, pg + 8, 8) & ((1 << 27) - 1);
			unsigned int k = rnd() % 64, i, hdr = 0;

			/* walk to the k-th event by the type_len rules */
			for (i = 0; i < k && c + 8 <= commit; i++) {
				unsigned int tl;

				hdr = get(s, pg + 16 + c, 4);
				tl = hdr & 31;
				c += tl >= 1 && tl <= 28 ? 4 + tl * 4 :
				     tl == 0 ? 8 + ((get(s, pg + 20 + c, 4) - 4 + 3) & ~3u) :
				     tl == 29 ? 4 + get(s, pg + 20 + c, 4) : 8;
			}
			if (c + 8 > commit)
				c = 0;
			hdr = get(s, pg + 16 + c, 4);
			hdr = (hdr & ~31u) | (rnd() % 32);
			if (rnd() % 4 == 0)
				hdr = (hdr & 31) | (uint32_t)(rnd() << 5);
			put(m, len, pg + 16 + c, 4, hdr);
			if (rnd() & 1)
				put(m, len, pg + 20 + c, 4,
				    specials[rnd() % (sizeof(specials) / 8)]);
			return len;
		}
		break;
	case 6:			/* format text: digits, separators, bytes */
		if (f && f->width == -1 && f->len) {
			size_t at = f->off + rnd() % f->len;
			static const char repl[] = "0123456789;:\t\n %[]()\"-x";

			if (at < len)
				m[at] = repl[rnd() % (sizeof(repl) - 1)];
			return len;
		}
		break;
	}
	/* a few random bytes */
	m[rnd() % len] ^= 1u << (rnd() % 8);
	return len;
}

enum { RES_OK, RES_REFUSED, RES_TIMEOUT, RES_CRASH };

/* run report on file; JSON into out (malloc'd) when it exits 0 */
static int run(const char *ft, const char *file, int lib, char **out)
{
	char err[8192], *argv[] = { (char *)ft, "report", "--json", "--timeout", "10",
				    (char *)file, NULL };
	int op[2], ep[2], st = 0, lines = 0;
	size_t olen = 0, ocap = 65536, elen = 0;
	pid_t pid;
	ssize_t r;
	char *o = malloc(ocap), *p;

	*out = NULL;
	if (!o || pipe(op) || pipe(ep))
		return RES_CRASH;
	pid = fork();
	if (pid == 0) {
		dup2(op[1], 1);
		dup2(ep[1], 2);
		close(op[0]);
		close(ep[0]);
		if (lib)
			setenv("FAULTTUNE_LIBTRACECMD", "1", 1);
		alarm(60);
		execv(ft, argv);
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	/* the JSON is small (one line); stderr is read after it */
	while ((r = read(op[0], o + olen, ocap - olen - 1)) > 0) {
		olen += r;
		if (olen + 1 == ocap) {
			char *n = realloc(o, ocap * 2);

			if (!n)
				break;
			o = n;
			ocap *= 2;
		}
	}
	o[olen] = 0;
	while ((r = read(ep[0], err + elen, sizeof(err) - 1 - elen)) > 0)
		elen += r;
	err[elen] = 0;
	close(op[0]);
	close(ep[0]);
	waitpid(pid, &st, 0);
	for (p = err; *p; p++)
		lines += *p == '\n';
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		*out = o;
		return RES_OK;
	}
	free(o);
	/* a signal in faulttune's own code is named as its bug: a crash */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && lines == 1 &&
	    strstr(err, file) && !strstr(err, "internal error"))
		return strstr(err, "did not finish within") ? RES_TIMEOUT : RES_REFUSED;
	fprintf(stderr, "# %s%s: status %#x: %.600s\n", file,
		lib ? " (libtracecmd)" : "", st, err);
	return RES_CRASH;
}

int main(int argc, char **argv)
{
	struct seed *seeds;
	unsigned long cases, ncase = 0, crashes = 0, hangs = 0, disagree = 0,
		      refused = 0, libtimeouts = 0, found = 0, passed = 0;
	double budget;
	char file[512];
	struct timespec t0, t;
	int nseeds = 0, i;

	if (argc < 6) {
		fprintf(stderr, "usage: fuzz FAULTTUNE WORKDIR CASES SECONDS FILE...\n");
		return 2;
	}
	cases = strtoul(argv[3], NULL, 10);
	budget = strtod(argv[4], NULL);
	seeds = calloc(argc - 5, sizeof(*seeds));
	if (!seeds)
		return 1;
	snprintf(file, sizeof(file), "%s/case.dat", argv[2]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 5; i < argc + (int)cases; i++) {
		unsigned char *m;
		size_t len;
		char *a = NULL, *b = NULL;
		int ra, rb, bad = 0;
		const char *what;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (i >= argc && t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > budget)
			break;
		if (i < argc) {		/* the corpus as it is */
			if (load(&seeds[nseeds], argv[i])) {
				fprintf(stderr, "# cannot read %s\n", argv[i]);
				continue;
			}
			what = argv[i];
			m = malloc(seeds[nseeds].len);
			memcpy(m, seeds[nseeds].buf, seeds[nseeds].len);
			len = seeds[nseeds].len;
			nseeds++;
		} else {
			const struct seed *s;
			int k, nm = 1 + rnd() % 3;

			if (!nseeds)
				break;
			s = &seeds[rnd() % nseeds];
			what = "mutant";
			m = malloc(s->len);
			memcpy(m, s->buf, s->len);
			len = s->len;
			for (k = 0; k < nm && len; k++)
				len = mutate(s, m, len);
		}
		{
			FILE *f = fopen(file, "wb");

			if (!f || fwrite(m, 1, len, f) != len || fclose(f)) {
				fprintf(stderr, "# cannot write %s\n", file);
				return 1;
			}
		}
		ncase++;
		ra = run(argv[1], file, 0, &a);
		rb = run(argv[1], file, 1, &b);
		if (ra == RES_CRASH || rb == RES_CRASH) {
			crashes++;
			bad = 1;
		}
		if (ra == RES_TIMEOUT) {
			hangs++;
			bad = 1;
		}
		if (rb == RES_TIMEOUT)
			libtimeouts++;	/* libtracecmd's loop, stopped and named */
		if (ra == RES_REFUSED)
			refused++;
		if (a && b && strcmp(a, b)) {
			disagree++;
			bad = 1;
			fprintf(stderr, "# readers disagree:\n#  in place: %.300s\n"
				"#  library:  %.300s\n", a, b);
		}
		if (bad) {
			char keep[600];

			snprintf(keep, sizeof(keep), "%s/found-%lu.dat", argv[2], found++);
			rename(file, keep);
			printf("# FAIL %s: kept as %s\n", what, keep);
		} else {
			passed++;
		}
		free(a);
		free(b);
		free(m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("# fuzz: %lu cases (%d corpus files) in %.0f s: crashes %lu, hangs "
	       "%lu, disagreements between readers %lu; refused with one line "
	       "%lu; libtracecmd path stopped by the time limit %lu\n",
	       ncase, nseeds, t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9,
	       crashes, hangs, disagree, refused, libtimeouts);
	printf("%lu passed, %lu failed\n", passed, ncase - passed);
	return ncase == passed && ncase ? 0 : 1;
}
