// SPDX-License-Identifier: GPL-2.0
/*
 * Write a synthetic trace.dat (version 6) holding the faulttune kernel
 * contract events (hugetlb_fault_mutex_*, memtype_lock_*), produced by a
 * deterministic simulation of a mutex table, so that the reader, report
 * and trace-cmd report can be checked end to end on a kernel without the
 * events.  Prints the expected numbers as key=value lines.
 *
 * Used by tests/unit.c; built alone (make tests/synth) it is a generator:
 * usage: synth OUT.dat [tasks rounds nbuckets [trio|summary]]
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "faulttune.h"

#define PAGE 4096
/* -DMAXEV=N for bigger files (the tune --from speed check: 3600000) */
#ifndef MAXEV
#define MAXEV 1100000
#endif

static const char header_page[] =
"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_event[] =
"# compressed entry header\n"
"\ttype_len    :    5 bits\n"
"\ttime_delta  :   27 bits\n"
"\tarray       :   32 bits\n"
"\n"
"\tpadding     : type == 29\n"
"\ttime_extend : type == 30\n"
"\ttime_stamp : type == 31\n"
"\tdata max type_len  == 28\n";

#define COMMON \
"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define HFIELDS \
"\tfield:unsigned long mapping;\toffset:8;\tsize:8;\tsigned:0;\n" \
"\tfield:unsigned long index;\toffset:16;\tsize:8;\tsigned:0;\n" \
"\tfield:u32 hash;\toffset:24;\tsize:4;\tsigned:0;\n" \
"\tfield:u32 bucket;\toffset:28;\tsize:4;\tsigned:0;\n" \
"\tfield:u32 nbuckets;\toffset:32;\tsize:4;\tsigned:0;\n" \
"\tfield:u32 op;\toffset:36;\tsize:4;\tsigned:0;\n"

#define HPRINT \
"mapping=%lx index=%lu hash=%x bucket=%u nbuckets=%u op=%s"
#define HARGS \
"REC->mapping, REC->index, REC->hash, REC->bucket, REC->nbuckets, " \
"__print_symbolic(REC->op, { 0, \"fault\" }, { 1, \"wp\" }, { 2, \"userfault\" }, " \
"{ 3, \"fallocate\" }, { 4, \"punch\" }, { 5, \"memfd\" }, { 6, \"uffd_copy\" })"

#define MFIELDS \
"\tfield:u64 start;\toffset:8;\tsize:8;\tsigned:0;\n" \
"\tfield:u64 end;\toffset:16;\tsize:8;\tsigned:0;\n" \
"\tfield:u32 op;\toffset:24;\tsize:4;\tsigned:0;\n"
#define MPRINT "op=%s start=0x%llx end=0x%llx"
#define MARGS "__print_symbolic(REC->op, { 0, \"reserve\" }, { 1, \"free\" }, " \
	"{ 2, \"lookup\" }, { 3, \"list\" }), REC->start, REC->end"

enum { E_HS = 1001, E_HA, E_HR, E_HZ, E_MS, E_MA, E_MR, E_HH, E_MH };

int synth_summary;

static const char fmt_hs[] =
"name: hugetlb_fault_mutex_start_locking\nID: 1001\nformat:\n" COMMON HFIELDS
"\nprint fmt: \"" HPRINT "\", " HARGS "\n";
static const char fmt_ha[] =
"name: hugetlb_fault_mutex_acquire_returned\nID: 1002\nformat:\n" COMMON HFIELDS
"\tfield:u32 contended;\toffset:40;\tsize:4;\tsigned:0;\n"
"\tfield:u64 wait_ns;\toffset:48;\tsize:8;\tsigned:0;\n"
"\nprint fmt: \"" HPRINT " contended=%u wait_ns=%llu\", " HARGS
", REC->contended, REC->wait_ns\n";
static const char fmt_hr[] =
"name: hugetlb_fault_mutex_released\nID: 1003\nformat:\n" COMMON HFIELDS
"\tfield:u64 hold_ns;\toffset:40;\tsize:8;\tsigned:0;\n"
"\nprint fmt: \"" HPRINT " hold_ns=%llu\", " HARGS ", REC->hold_ns\n";
static const char fmt_hz[] =
"name: hugetlb_fault_mutex_resize\nID: 1004\nformat:\n" COMMON
"\tfield:u32 old_nbuckets;\toffset:8;\tsize:4;\tsigned:0;\n"
"\tfield:u32 new_nbuckets;\toffset:12;\tsize:4;\tsigned:0;\n"
"\tfield:u64 duration_ns;\toffset:16;\tsize:8;\tsigned:0;\n"
"\tfield:int result;\toffset:24;\tsize:4;\tsigned:1;\n"
"\nprint fmt: \"old_nbuckets=%u new_nbuckets=%u duration_ns=%llu result=%d\", "
"REC->old_nbuckets, REC->new_nbuckets, REC->duration_ns, REC->result\n";
static const char fmt_ms[] =
"name: memtype_lock_start_locking\nID: 1005\nformat:\n" COMMON MFIELDS
"\nprint fmt: \"" MPRINT "\", " MARGS "\n";
static const char fmt_ma[] =
"name: memtype_lock_acquire_returned\nID: 1006\nformat:\n" COMMON MFIELDS
"\tfield:u32 contended;\toffset:28;\tsize:4;\tsigned:0;\n"
"\tfield:u64 wait_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
"\nprint fmt: \"" MPRINT " contended=%u wait_ns=%llu\", " MARGS
", REC->contended, REC->wait_ns\n";
static const char fmt_mr[] =
"name: memtype_lock_released\nID: 1007\nformat:\n" COMMON MFIELDS
"\tfield:u64 hold_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
"\nprint fmt: \"" MPRINT " hold_ns=%llu\", " MARGS ", REC->hold_ns\n";

/* the summaries, laid out as the kernel lays them out: u8 op and contended */
static const char fmt_hh[] =
"name: hugetlb_fault_mutex_hold\nID: 1008\nformat:\n" COMMON
"\tfield:unsigned long mapping;\toffset:8;\tsize:8;\tsigned:0;\n"
"\tfield:unsigned long index;\toffset:16;\tsize:8;\tsigned:0;\n"
"\tfield:u64 wait_ns;\toffset:24;\tsize:8;\tsigned:0;\n"
"\tfield:u64 hold_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
"\tfield:u32 hash;\toffset:40;\tsize:4;\tsigned:0;\n"
"\tfield:u32 bucket;\toffset:44;\tsize:4;\tsigned:0;\n"
"\tfield:u32 nbuckets;\toffset:48;\tsize:4;\tsigned:0;\n"
"\tfield:u8 op;\toffset:52;\tsize:1;\tsigned:0;\n"
"\tfield:u8 contended;\toffset:53;\tsize:1;\tsigned:0;\n"
"\nprint fmt: \"" HPRINT " contended=%u wait_ns=%llu hold_ns=%llu\", " HARGS
", REC->contended, REC->wait_ns, REC->hold_ns\n";
static const char fmt_mh[] =
"name: memtype_lock_hold\nID: 1009\nformat:\n" COMMON
"\tfield:u64 start;\toffset:8;\tsize:8;\tsigned:0;\n"
"\tfield:u64 end;\toffset:16;\tsize:8;\tsigned:0;\n"
"\tfield:u64 wait_ns;\toffset:24;\tsize:8;\tsigned:0;\n"
"\tfield:u64 hold_ns;\toffset:32;\tsize:8;\tsigned:0;\n"
"\tfield:u8 op;\toffset:40;\tsize:1;\tsigned:0;\n"
"\tfield:u8 contended;\toffset:41;\tsize:1;\tsigned:0;\n"
"\nprint fmt: \"" MPRINT " contended=%u wait_ns=%llu hold_ns=%llu\", " MARGS
", REC->contended, REC->wait_ns, REC->hold_ns\n";

struct sev {
	uint64_t ts;
	int cpu, pid, id;
	uint64_t a, b;		/* mapping/index or start/end */
	uint32_t hash, bucket, nb, op, contended;
	uint64_t x;		/* wait_ns / hold_ns / duration */
	uint64_t hold;		/* the summaries' hold_ns (x: wait_ns) */
	uint32_t old_nb, new_nb;
	int seq;
};

static struct sev ev[MAXEV];
static int nev;

static struct sev *add(uint64_t ts, int pid, int id)
{
	struct sev *e = &ev[nev];

	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->pid = pid;
	e->cpu = pid % 2;
	e->id = id;
	e->seq = nev++;
	return e;
}

static int cmp_ev(const void *x, const void *y)
{
	const struct sev *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu - b->cpu;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq - b->seq;
}

static void w8(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void w4(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

/* payload of one event, returns its length */
static int payload(const struct sev *e, unsigned char *p)
{
	memset(p, 0, 64);
	p[0] = e->id & 0xff;
	p[1] = e->id >> 8;
	w4(p + 4, e->pid);
	switch (e->id) {
	case E_HS: case E_HA: case E_HR:
		w8(p + 8, e->a);
		w8(p + 16, e->b);
		w4(p + 24, e->hash);
		w4(p + 28, e->bucket);
		w4(p + 32, e->nb);
		w4(p + 36, e->op);
		if (e->id == E_HS)
			return 40;
		if (e->id == E_HA) {
			w4(p + 40, e->contended);
			w8(p + 48, e->x);
			return 56;
		}
		w8(p + 40, e->x);
		return 48;
	case E_HH:
		w8(p + 8, e->a);
		w8(p + 16, e->b);
		w8(p + 24, e->x);
		w8(p + 32, e->hold);
		w4(p + 40, e->hash);
		w4(p + 44, e->bucket);
		w4(p + 48, e->nb);
		p[52] = e->op;
		p[53] = e->contended;
		return 56;
	case E_MH:
		w8(p + 8, e->a);
		w8(p + 16, e->b);
		w8(p + 24, e->x);
		w8(p + 32, e->hold);
		p[40] = e->op;
		p[41] = e->contended;
		return 48;
	case E_HZ:
		w4(p + 8, e->old_nb);
		w4(p + 12, e->new_nb);
		w8(p + 16, e->x);
		return 32;
	default:
		w8(p + 8, e->a);
		w8(p + 16, e->b);
		w4(p + 24, e->op);
		if (e->id == E_MS)
			return 32;
		if (e->id == E_MA) {
			w4(p + 28, e->contended);
			w8(p + 32, e->x);
			return 40;
		}
		w8(p + 32, e->x);
		return 40;
	}
}

static void put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }
static void put32(FILE *f, uint32_t v) { put(f, &v, 4); }
static void put64(FILE *f, uint64_t v) { put(f, &v, 8); }
static void putfmt(FILE *f, const char *s) { put64(f, strlen(s)); put(f, s, strlen(s)); }

/* per-CPU data: pages of compressed event headers */
static unsigned char *cpu_pages(int cpu, size_t *len)
{
	unsigned char *buf = NULL, *page = NULL, pl[64];
	size_t cap = 0, n = 0, off = 0;
	uint64_t last = 0;
	int i;

	for (i = 0; i < nev; i++) {
		int plen;

		if (ev[i].cpu != cpu)
			continue;
		plen = payload(&ev[i], pl);
		if (!page || off + 4 + plen > PAGE) {
			if (n + PAGE > cap) {
				cap = cap ? cap * 2 : 16 * PAGE;
				buf = realloc(buf, cap);
			}
			page = buf + n;
			memset(page, 0, PAGE);
			n += PAGE;
			w8(page, ev[i].ts);
			last = ev[i].ts;
			off = 16;
		}
		w4(page + off, (uint32_t)(plen / 4) | (uint32_t)((ev[i].ts - last) << 5));
		memcpy(page + off + 4, pl, plen);
		off += 4 + plen;
		last = ev[i].ts;
		w8(page + 8, off - 16);
	}
	*len = n;
	return buf;
}

#include "synth.h"

int synth_write(const char *out, int tasks, int rounds, uint32_t nb,
		struct synth_expect *x)
{
	uint64_t mapping = 0xffff888012340000ULL;
	uint64_t free_at[4096] = { 0 }, lastkey[4096];
	int seen[4096] = { 0 };
	uint64_t coll = 0, share = 0, unknown = 0, contended = 0, acq = 0;
	uint64_t coll_wait = 0, mt = 0;
	unsigned char *data[2];
	size_t dlen[2];
	uint64_t off;
	FILE *f;
	int r, t, c;

	if (tasks < 1 || tasks > 64 || rounds < 1 || !ft_is_pow2(nb) ||
	    nb > 4096 || (uint64_t)tasks * rounds * 3 + rounds + 10 > MAXEV)
		return -1;
	nev = 0;
	add(10, 1, E_HZ)->x = 5000;
	ev[0].old_nb = nb / 2 ? nb / 2 : 1;
	ev[0].new_nb = nb;
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < tasks; t++) {
			/* last task shares the key of task 0: true sharing */
			uint64_t idx = t == tasks - 1 && tasks > 1 ?
				(uint64_t)r * tasks : (uint64_t)r * tasks + t;
			uint64_t req = 1000 + (uint64_t)r * 100000 + t * 150;
			uint32_t h = ft_fault_hash(mapping, idx), b = h & (nb - 1);
			uint64_t at = req > free_at[b] ? req : free_at[b];
			uint64_t hold = 1000 + (idx % 3) * 500;
			int pid = 2000 + t;
			struct sev *e;

			if (synth_summary) {
				e = add(at + hold, pid, E_HH);
				e->a = mapping; e->b = idx; e->hash = h; e->bucket = b;
				e->nb = nb;
				e->op = r % 7 == 3 ? FT_HOP_FALLOCATE : FT_HOP_FAULT;
				e->contended = at > req;
				e->x = at - req;
				e->hold = hold;
				goto counted;
			}
			e = add(req, pid, E_HS);
			e->a = mapping; e->b = idx; e->hash = h; e->bucket = b; e->nb = nb;
			e->op = r % 7 == 3 ? FT_HOP_FALLOCATE : FT_HOP_FAULT;
			e = add(at, pid, E_HA);
			e->a = mapping; e->b = idx; e->hash = h; e->bucket = b; e->nb = nb;
			e->op = ev[nev - 2].op;
			e->contended = at > req;
			e->x = at - req;
			e = add(at + hold, pid, E_HR);
			e->a = mapping; e->b = idx; e->hash = h; e->bucket = b; e->nb = nb;
			e->op = ev[nev - 2].op;
			e->x = hold;
counted:
			acq++;
			if (at > req) {
				contended++;
				if (!seen[b])
					unknown++;
				else if (lastkey[b] == idx)
					share++;
				else {
					coll++;
					coll_wait += at - req;
				}
			}
			seen[b] = 1;
			lastkey[b] = idx;
			free_at[b] = at + hold;
		}
		/* one memtype lookup per round on task 0's CPU */
		if (r % 5 == 0) {
			uint64_t ts = 1000 + (uint64_t)r * 100000 + 50000;
			struct sev *e;

			if (synth_summary) {
				e = add(ts + 500, 3000, E_MH);
				e->a = 0xfd000000; e->b = 0xfd001000;
				e->op = FT_MOP_LOOKUP;
				e->contended = 1; e->x = 200; e->hold = 300;
				mt++;
				continue;
			}
			e = add(ts, 3000, E_MS);
			e->a = 0xfd000000; e->b = 0xfd001000; e->op = FT_MOP_LOOKUP;
			e = add(ts + 200, 3000, E_MA);
			e->a = 0xfd000000; e->b = 0xfd001000; e->op = FT_MOP_LOOKUP;
			e->contended = 1; e->x = 200;
			e = add(ts + 500, 3000, E_MR);
			e->a = 0xfd000000; e->b = 0xfd001000; e->op = FT_MOP_LOOKUP;
			e->x = 300;
			mt += 3;
		}
	}
	qsort(ev, nev, sizeof(ev[0]), cmp_ev);
	for (c = 0; c < 2; c++)
		data[c] = cpu_pages(c, &dlen[c]);

	f = fopen(out, "wb");
	if (!f) {
		free(data[0]);
		free(data[1]);
		return -1;
	}
	put(f, "\x17\x08\x44" "tracing" "6", 11);
	put(f, "\0\0\x08", 3);
	put32(f, PAGE);
	put(f, "header_page", 12);
	putfmt(f, header_page);
	put(f, "header_event", 13);
	putfmt(f, header_event);
	put32(f, 0);			/* ftrace formats */
	put32(f, 2);			/* systems */
	put(f, "hugetlb", 8);
	put32(f, 5);
	putfmt(f, fmt_hs);
	putfmt(f, fmt_ha);
	putfmt(f, fmt_hr);
	putfmt(f, fmt_hz);
	putfmt(f, fmt_hh);
	put(f, "memtype", 8);
	put32(f, 4);
	putfmt(f, fmt_ms);
	putfmt(f, fmt_ma);
	putfmt(f, fmt_mr);
	putfmt(f, fmt_mh);
	put32(f, 0);			/* kallsyms */
	put32(f, 0);			/* printk */
	putfmt(f, "2000 synth\n");	/* cmdlines */
	put32(f, 2);
	put(f, "options  ", 10);
	put(f, "\0", 2);		/* OPTION_DONE */
	put(f, "flyrecord", 10);
	off = ftell(f) + 32;
	off = (off + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	put64(f, off);
	put64(f, dlen[0]);
	put64(f, off + dlen[0]);
	put64(f, dlen[1]);
	while ((uint64_t)ftell(f) < off)
		fputc(0, f);
	put(f, data[0], dlen[0]);
	put(f, data[1], dlen[1]);
	fclose(f);
	free(data[0]);
	free(data[1]);

	x->events = nev;
	x->hugetlb = nev - mt;
	x->memtype = mt;
	x->acq = acq;
	x->contended = contended;
	x->collisions = coll;
	x->sharing = share;
	x->unknown = unknown;
	x->coll_wait = coll_wait;
	return 0;
}

#ifdef SYNTH_MAIN
int main(int argc, char **argv)
{
	struct synth_expect x;

	if (argc > 5 && strcmp(argv[5], "trio") && strcmp(argv[5], "summary")) {
		fprintf(stderr, "synth: the form is trio or summary, not '%s'\n",
			argv[5]);
		return 2;
	}
	synth_summary = argc > 5 && !strcmp(argv[5], "summary");
	if (argc < 2 || synth_write(argv[1], argc > 2 ? atoi(argv[2]) : 4,
				    argc > 3 ? atoi(argv[3]) : 50,
				    argc > 4 ? atoi(argv[4]) : 8, &x)) {
		fprintf(stderr, "usage: synth OUT.dat [tasks rounds nbuckets [trio|summary]]\n");
		return 2;
	}
	printf("events=%llu\nhugetlb=%llu\nmemtype=%llu\nacquisitions=%llu\n"
	       "contended=%llu\ncollisions=%llu\nsharing=%llu\nunknown=%llu\n"
	       "collision_wait_ns=%llu\n", x.events, x.hugetlb, x.memtype, x.acq,
	       x.contended, x.collisions, x.sharing, x.unknown, x.coll_wait);
	return 0;
}
#endif
