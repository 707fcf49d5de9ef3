// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the lock:contention fallback (fallback.c, ksyms.c): event
 * streams and kallsyms text built here, with answers known by hand.  No
 * root and no tracefs.  Ends with "N passed, N failed".
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "faulttune.h"
#include "model.h"
#include "builtin.h"
#include "out.h"
#include "check.h"


#define HAS(text, s) CHECK(strstr((text), (s)) != NULL, "no '%s' in:\n%s", (s), (text))
#define HASNT(text, s) CHECK(strstr((text), (s)) == NULL, "'%s' in:\n%s", (s), (text))

/* a kernel's symbols, as /proc/kallsyms prints them */
static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000001000 A cpu_number\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81100000 T __mutex_lock_slowpath\n"
	"ffffffff81100400 T mutex_lock\n"
	"ffffffff81100800 T down_read\n"
	"ffffffff81100c00 T _raw_spin_lock\n"
	"ffffffff81101000 T queued_spin_lock_slowpath\n"
	"ffffffff81101400 t trace_event_raw_event_contention_begin\n"
	"ffffffff81200000 T hugetlb_fault\n"
	"ffffffff81201000 T hugetlbfs_fallocate\n"
	"ffffffff81202000 t remove_inode_hugepages\n"
	"ffffffff81203000 T memfd_alloc_folio\n"
	"ffffffff81204000 t mfill_atomic_hugetlb\n"
	"ffffffff81205000 T memtype_reserve\n"
	"ffffffff81206000 t lookup_memtype\n"
	"ffffffff81206000 t lookup_memtype_alias\n"
	"ffffffff81207000 T pipe_write\n"
	"ffffffff81208000 T hugetlb_vma_lock_read\n"
	"ffffffff81209000 t hugetlb_fault.cold\n"
	"ffffffff81300000 T _etext\n"
	"ffffffff82000000 b memtype_lock\n"
	"ffffffff82000040 b jiffies_lock\n"
	"ffffffff82001000 B _end\n";

#define F(sym, off) (sym + (off))
#define MUTEX_SLOW	0xffffffff81100000ULL
#define MUTEX_LOCK	0xffffffff81100400ULL
#define DOWN_READ	0xffffffff81100800ULL
#define RAW_SPIN	0xffffffff81100c00ULL
#define QSPIN		0xffffffff81101000ULL
#define TRACE_CB	0xffffffff81101400ULL
#define HUGETLB_FAULT	0xffffffff81200000ULL
#define FALLOCATE	0xffffffff81201000ULL
#define REMOVE_INODE	0xffffffff81202000ULL
#define MEMFD		0xffffffff81203000ULL
#define MFILL		0xffffffff81204000ULL
#define LOOKUP_MT	0xffffffff81206000ULL
#define PIPE_WRITE	0xffffffff81207000ULL
#define VMA_LOCK	0xffffffff81208000ULL
#define FAULT_COLD	0xffffffff81209000ULL
#define MEMTYPE_LOCK	0xffffffff82000000ULL
#define JIFFIES_LOCK	0xffffffff82000040ULL

#define TABLE		0xffff888100000000ULL	/* a kmalloc'ed table */
#define SPIN		1u
#define READ		2u
#define MUTEX		32u

static struct ft_ksyms *syms(void)
{
	return ft_ksyms_parse(strdup(kallsyms), strlen(kallsyms));
}

static void test_ksyms(void)
{
	struct ft_ksyms *ks = syms();
	uint64_t off = 1, addr = 0;
	const char *n;

	CHECK(ks != NULL, "kallsyms not parsed");
	if (!ks)
		return;
	/* the absolute per-CPU symbols are not addresses */
	CHECK(ft_ksyms_count(ks) == 22, "count %zu", ft_ksyms_count(ks));
	n = ft_ksyms_func(ks, HUGETLB_FAULT + 0x123, &off);
	CHECK(n && !strcmp(n, "hugetlb_fault") && off == 0x123, "func %s+%llx",
	      n ? n : "NULL", (unsigned long long)off);
	n = ft_ksyms_func(ks, FAULT_COLD + 4, NULL);
	CHECK(n && !strcmp(n, "hugetlb_fault.cold"), "cold %s", n ? n : "NULL");
	/* a data address is no function, a text address no data */
	CHECK(!ft_ksyms_func(ks, MEMTYPE_LOCK, NULL), "memtype_lock as text");
	CHECK(!ft_ksyms_data(ks, PIPE_WRITE, NULL), "pipe_write as data");
	n = ft_ksyms_data(ks, MEMTYPE_LOCK, &off);
	CHECK(n && !strcmp(n, "memtype_lock") && !off, "data %s", n ? n : "NULL");
	/* below every symbol (slab), or past the last: not known */
	CHECK(!ft_ksyms_data(ks, TABLE, NULL), "slab address named");
	CHECK(!ft_ksyms_func(ks, 0xffffffffc0000000ULL, NULL), "past the end named");
	CHECK(!ft_ksyms_addr(ks, "jiffies_lock", &addr) && addr == JIFFIES_LOCK,
	      "addr of jiffies_lock %llx", (unsigned long long)addr);
	CHECK(ft_ksyms_addr(ks, "nonexistent", &addr), "nonexistent found");
	ft_ksyms_free(ks);
	/* kptr_restrict: every address zero */
	ks = ft_ksyms_parse(strdup("0000000000000000 T _stext\n0000000000000000 T x\n"), 52);
	CHECK(!ks, "all-zero kallsyms accepted");
	ft_ksyms_free(ks);
}

/* a raw BTF blob with an int and a 40-byte struct mutex */
static void test_btf(void)
{
	unsigned char b[256] = { 0x9f, 0xeb, 1, 0 };
	const char strs[] = "\0int\0mutex\0owner";
	uint32_t v[32], hdr = 24, tlen, slen = sizeof(strs);
	char path[] = "/tmp/faulttune-btf-XXXXXX";
	int fd, n = 0;

	/* INT "int": name 1, kind 1, size 4, + 4 bytes encoding */
	v[n++] = 1; v[n++] = 1u << 24; v[n++] = 4; v[n++] = 32;
	/* STRUCT "mutex": name 5, kind 4, vlen 1, size 40, one member */
	v[n++] = 5; v[n++] = (4u << 24) | 1; v[n++] = 40;
	v[n++] = 11; v[n++] = 1; v[n++] = 0;
	tlen = n * 4;
	memcpy(b + 4, &hdr, 4);
	memset(b + 8, 0, 4);			/* type_off */
	memcpy(b + 12, &tlen, 4);
	memcpy(b + 16, &tlen, 4);		/* str_off */
	memcpy(b + 20, &slen, 4);
	memcpy(b + hdr, v, tlen);
	memcpy(b + hdr + tlen, strs, slen);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, b, hdr + tlen + slen) != (ssize_t)(hdr + tlen + slen)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	close(fd);
	CHECK(ft_btf_struct_size(path, "mutex") == 40, "mutex size %ld",
	      ft_btf_struct_size(path, "mutex"));
	CHECK(ft_btf_struct_size(path, "spinlock") == -1, "spinlock found");
	CHECK(ft_btf_struct_size("/nonexistent", "mutex") == -1, "no file");
	unlink(path);
}

/* ---- event streams ---- */

static void ev_begin(struct ft_analysis *a, int cpu, int pid, uint64_t ts,
		     uint64_t addr, uint32_t flags)
{
	struct ft_event ev = { .ts = ts, .cpu = cpu, .pid = pid,
		.lock = FT_LK_CONTENTION, .kind = FT_EV_START,
		.mapping = addr, .index = flags };
	ft_analysis_feed(a, &ev);
}

static void ev_end(struct ft_analysis *a, int cpu, int pid, uint64_t ts,
		   uint64_t addr)
{
	struct ft_event ev = { .ts = ts, .cpu = cpu, .pid = pid,
		.lock = FT_LK_CONTENTION, .kind = FT_EV_ACQUIRE, .mapping = addr };
	ft_analysis_feed(a, &ev);
}

static void ev_stack(struct ft_analysis *a, int cpu, int pid, uint64_t ts,
		     const uint64_t *st, int n)
{
	struct ft_event ev = { .ts = ts, .cpu = cpu, .pid = pid,
		.lock = FT_LK_CONTENTION, .kind = FT_EV_STACK,
		.stack = st, .nstack = n };
	ft_analysis_feed(a, &ev);
}

static void ev_marker(struct ft_analysis *a, uint64_t ts, const char *m)
{
	struct ft_event ev = { .ts = ts, .lock = -1, .kind = FT_EV_MARKER,
		.marker = m };
	ft_analysis_feed(a, &ev);
}

static char *report(struct ft_analysis *a, enum ft_fmt fmt)
{
	struct ft_report_opts o = { .file = "synthetic", .fmt = fmt, .top = 10,
				     .verbose = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ft_analysis_finish(a);
	ft_report_print(f, a, &o);
	fclose(f);
	return buf;
}

static const uint64_t st_fault[] = { F(TRACE_CB, 8), F(MUTEX_SLOW, 0x20),
	F(MUTEX_LOCK, 0x10), F(HUGETLB_FAULT, 0x200), F(PIPE_WRITE, 1) };
static const uint64_t st_fallocate[] = { F(TRACE_CB, 8), F(MUTEX_SLOW, 0x20),
	F(MUTEX_LOCK, 0x10), F(FALLOCATE, 0x80) };
static const uint64_t st_punch[] = { F(MUTEX_SLOW, 0x20), F(MUTEX_LOCK, 0x10),
	F(REMOVE_INODE, 0x40) };
static const uint64_t st_memfd[] = { F(MUTEX_SLOW, 0x20), F(MEMFD, 0x40) };
static const uint64_t st_uffd[] = { F(MUTEX_SLOW, 0x20), F(MFILL, 0x40) };
static const uint64_t st_lookup[] = { F(TRACE_CB, 8), F(QSPIN, 0x30),
	F(RAW_SPIN, 0x8), F(LOOKUP_MT, 0x50) };
static const uint64_t st_pipe[] = { F(QSPIN, 0x30), F(RAW_SPIN, 0x8),
	F(PIPE_WRITE, 0x10) };
/* an rwsem taken on the fault path is not the fault mutex */
static const uint64_t st_vma[] = { F(DOWN_READ, 0x30), F(VMA_LOCK, 0x8),
	F(HUGETLB_FAULT, 0x100) };
/* a mutex taken by a caller of the fault path is not it either */
static const uint64_t st_pipe_mutex[] = { F(MUTEX_SLOW, 0x20),
	F(PIPE_WRITE, 0x10), F(HUGETLB_FAULT, 0x100) };

#define N(x) ((int)(sizeof(x) / sizeof(x[0])))

/*
 * Every op, both orders of stack and begin, a nested wait, the spin then
 * sleep of one mutex wait; waits in ns known by hand.
 */
static void test_attribution(void)
{
	struct ft_analysis a;
	char *out;

	ft_analysis_init(&a);
	ft_consumer_register(&a, &ft_fallback_consumer,
			     ft_fallback_new(syms(), "test symbols"));
	ev_marker(&a, 1000, "faulttune: phase=record-start events=lock fallback "
		  "cpus=4 table=0x0 nbuckets=0 "
		  "table_from=unknown mutex_bytes=32 mutex_bytes_from=btf "
		  "why=no /proc/kcore (CONFIG_PROC_KCORE=n)");
	/* fault: spin (stack after begin), then sleep (stack after), 4000 */
	ev_begin(&a, 0, 10, 2000, TABLE + 32, MUTEX | SPIN);
	ev_stack(&a, 0, 10, 2000, st_fault, N(st_fault));
	ev_begin(&a, 0, 10, 2500, TABLE + 32, MUTEX);
	ev_stack(&a, 0, 10, 2500, st_fault, N(st_fault));
	ev_end(&a, 1, 10, 6000, TABLE + 32);
	/* fallocate: stack before begin (trigger mode), 1000 */
	ev_stack(&a, 1, 11, 3000, st_fallocate, N(st_fallocate));
	ev_begin(&a, 1, 11, 3000, TABLE + 64, MUTEX);
	/* punch waits, and an interrupt on its CPU waits on a pipe spinlock */
	ev_begin(&a, 2, 12, 3100, TABLE + 96, MUTEX);
	ev_begin(&a, 2, 12, 3200, 0xffff888200000000ULL, SPIN);
	ev_stack(&a, 2, 12, 3200, st_pipe, N(st_pipe));
	ev_end(&a, 2, 12, 3300, 0xffff888200000000ULL);		/* 100 */
	ev_stack(&a, 2, 12, 3300, st_punch, N(st_punch));
	ev_end(&a, 1, 11, 4000, TABLE + 64);
	ev_end(&a, 2, 12, 5100, TABLE + 96);				/* 2000 */
	/* memfd 500, uffd copy 700 */
	ev_begin(&a, 3, 13, 7000, TABLE + 32, MUTEX);
	ev_stack(&a, 3, 13, 7000, st_memfd, N(st_memfd));
	ev_end(&a, 3, 13, 7500, TABLE + 32);
	ev_begin(&a, 3, 14, 8000, TABLE + 160, MUTEX);
	ev_stack(&a, 3, 14, 8000, st_uffd, N(st_uffd));
	ev_end(&a, 3, 14, 8700, TABLE + 160);
	/* memtype_lock lookup 300, by its symbol and its caller */
	ev_begin(&a, 0, 15, 9000, MEMTYPE_LOCK, SPIN);
	ev_stack(&a, 0, 15, 9000, st_lookup, N(st_lookup));
	ev_end(&a, 0, 15, 9300, MEMTYPE_LOCK);
	/* not the fault mutex: an rwsem and another mutex on that path */
	ev_begin(&a, 1, 16, 9400, 0xffff888300000000ULL, READ);
	ev_stack(&a, 1, 16, 9400, st_vma, N(st_vma));
	ev_end(&a, 1, 16, 9500, 0xffff888300000000ULL);
	ev_begin(&a, 1, 17, 9600, 0xffff888300001000ULL, MUTEX);
	ev_stack(&a, 1, 17, 9600, st_pipe_mutex, N(st_pipe_mutex));
	ev_end(&a, 1, 17, 9800, 0xffff888300001000ULL);
	/* a static lock without any stack keeps its name */
	ev_begin(&a, 2, 18, 9900, JIFFIES_LOCK, SPIN);
	ev_end(&a, 2, 18, 10000, JIFFIES_LOCK);

	out = report(&a, FT_FMT_JSON);
	HAS(out, "{\"name\":\"fault\",\"waits\":1,\"wait_total_ns\":4000,");
	HAS(out, "{\"name\":\"fallocate\",\"waits\":1,\"wait_total_ns\":1000,");
	HAS(out, "{\"name\":\"punch\",\"waits\":1,\"wait_total_ns\":2000,");
	HAS(out, "{\"name\":\"memfd\",\"waits\":1,\"wait_total_ns\":500,");
	HAS(out, "{\"name\":\"uffd_copy\",\"waits\":1,\"wait_total_ns\":700,");
	HAS(out, "\"hugetlb_fault_mutex\":{\"total\":{\"name\":\"all\",\"waits\":5,"
	    "\"wait_total_ns\":8200,");
	HAS(out, "{\"name\":\"lookup\",\"waits\":1,\"wait_total_ns\":300,");
	HAS(out, "\"memtype_lock\":{\"total\":{\"name\":\"all\",\"waits\":1,");
	HAS(out, "\"waits\":10,\"waits_with_stack\":9,\"waits_without_stack\":1,"
	    "\"mutex_waits\":6,\"mutex_waits_never_slept\":0");
	HAS(out, "\"lock\":\"jiffies_lock\"");
	HAS(out, "\"lock\":\"memtype_lock\",\"addr\":\"0xffffffff82000000\","
	    "\"type\":\"spinlock\",\"class\":\"memtype_lock\",\"caller\":\"lookup_memtype\"");
	HAS(out, "\"type\":\"rwsem:R\",\"class\":\"other\",\"caller\":\"hugetlb_vma_lock_read\"");
	HAS(out, "\"type\":\"mutex\",\"class\":\"other\",\"caller\":\"pipe_write\"");
	HAS(out, "\"type\":\"spinlock\",\"class\":\"other\",\"caller\":\"pipe_write\"");
	/* buckets from the lowest address in BTF's 32-byte steps: 4 mutexes */
	HAS(out, "\"base\":null,\"base_from\":\"lowest address seen\"");
	HAS(out, "\"mutex_bytes\":32,\"mutex_bytes_from\":\"btf\"");
	HAS(out, "\"contended_mutexes\":4");
	HAS(out, "\"lock\":\"hugetlb fault mutex lowest+0\"");
	HAS(out, "\"lock\":\"hugetlb fault mutex lowest+4\"");
	/* one mutex, a fault (4000 ns) and a memfd wait: the longest's caller */
	HAS(out, "\"lock\":\"hugetlb fault mutex lowest+0\",\"addr\":\"0xffff888100000020\","
	    "\"type\":\"mutex\",\"class\":\"hugetlb_fault_mutex\",\"caller\":\"hugetlb_fault\"");
	HAS(out, "\"hold\":null");
	HAS(out, "\"hold_measured\":false");
	/* 8200 ns of fault mutex wait in 9000 ns x 4 CPUs: 22.8% */
	HAS(out, "\"fault_mutex_wait_ns\":8200,\"fault_mutex_pct\":22.7778");
	HAS(out, "\"verdict\":\"may-limit\"");
	free(out);

	out = report(&a, FT_FMT_CSV);
	HAS(out, "\nlock,addr,type,class,op,caller,waits,wait_total_ns,wait_max_ns,hold\n");
	HAS(out, "\"memtype_lock\",0xffffffff82000000,spinlock,memtype_lock,lookup,"
	    "\"lookup_memtype\",1,300,300,n/a\n");
	HAS(out, "hugetlb_fault_mutex,fault,1,4000,4000,n/a\n");
	HAS(out, ",may-limit,\"hugetlb fault mutex waits are 22.8%");
	free(out);

	out = report(&a, FT_FMT_TEXT);
	HAS(out, "hugetlb fault mutex lowest+0");
	HAS(out, "memtype_lock");
	HAS(out, "jiffies_lock");
	HAS(out, "on this kernel");
	HAS(out, "verdict: may-limit: hugetlb fault mutex waits are 22.8% of recorded time");
	HAS(out, "the table's base and size are not known: no /proc/kcore");
	HASNT(out, " 0ns  ");
	{
		/* every lock row of the fallback shows hold n/a */
		char *p = strstr(out, "contended locks"), *e;
		int rows = 0, na = 0;

		for (p = p ? strchr(p, '\n') + 1 : NULL; p && *p != '\n'; p = e + 1) {
			e = strchr(p, '\n');
			if (!e)
				break;
			if (strncmp(p, "lock ", 5)) {
				rows++;
				na += !!strstr(p, " n/a ");
			}
		}
		CHECK(rows == 10 && na == rows, "rows %d, n/a %d", rows, na);
	}
	free(out);
	ft_analysis_free(&a);
}

/* the table marker: buckets of the table, and a verdict below 1% */
static void test_table_and_verdict(void)
{
	struct ft_analysis a;
	char *out;
	int i;

	ft_analysis_init(&a);
	ft_consumer_register(&a, &ft_fallback_consumer,
			     ft_fallback_new(syms(), "test symbols"));
	ev_marker(&a, 1, "faulttune: phase=record-start events=lock fallback "
		  "cpus=2 table=0xffff888100000000 "
		  "nbuckets=64 table_from=kcore mutex_bytes=32 mutex_bytes_from=kcore");
	/* 10 waits of 1 us on buckets 3 and 17 in 1 s x 2 CPUs: 0.0005% */
	for (i = 0; i < 10; i++) {
		uint64_t addr = TABLE + 32 * (i % 2 ? 3 : 17), t = 1000000 + i * 10000;

		ev_begin(&a, 0, 20 + i, t, addr, MUTEX);
		ev_stack(&a, 0, 20 + i, t, st_fault, N(st_fault));
		ev_end(&a, 0, 20 + i, t + 1000, addr);
	}
	ev_marker(&a, 1000000000, "faulttune: phase=record-end");
	out = report(&a, FT_FMT_TEXT);
	HAS(out, "hugetlb_fault_mutex_table[3]");
	HAS(out, "hugetlb_fault_mutex_table[17]");
	HAS(out, "buckets: 2 of the table's 64 mutexes contended");
	HAS(out, "verdict: not-limiting: hugetlb fault mutex waits are 0.00% of "
	    "recorded time (10.0us over 1000.0ms x 2 CPUs)");
	free(out);
	out = report(&a, FT_FMT_JSON);
	HAS(out, "\"base\":\"0xffff888100000000\",\"base_from\":\"kcore\",\"nbuckets\":64");
	HAS(out, "\"verdict\":\"not-limiting\"");
	free(out);
	ft_analysis_free(&a);

	/* no stacks at all: the verdict says it cannot tell */
	ft_analysis_init(&a);
	ft_consumer_register(&a, &ft_fallback_consumer,
			     ft_fallback_new(syms(), "test symbols"));
	ev_begin(&a, 0, 5, 100, TABLE, MUTEX);
	ev_end(&a, 0, 5, 900000, TABLE);
	out = report(&a, FT_FMT_TEXT);
	HAS(out, "verdict: unknown: the recording has no kernel stacks");
	HASNT(out, "hugetlb fault mutex lowest");
	free(out);
	ft_analysis_free(&a);

	/* no kallsyms: addresses only, verdict unknown */
	ft_analysis_init(&a);
	ft_consumer_register(&a, &ft_fallback_consumer,
			     ft_fallback_new(NULL, "none"));
	ev_begin(&a, 0, 5, 100, TABLE, MUTEX);
	ev_stack(&a, 0, 5, 100, st_fault, N(st_fault));
	ev_end(&a, 0, 5, 900000, TABLE);
	out = report(&a, FT_FMT_JSON);
	HAS(out, "\"verdict\":\"unknown\"");
	HAS(out, "\"lock\":\"ffff888100000000\"");
	free(out);
	ft_analysis_free(&a);
}

int main(void)
{
	test_ksyms();
	test_btf();
	test_attribution();
	test_table_and_verdict();
	return check_done(NULL);
}
