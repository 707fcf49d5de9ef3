// SPDX-License-Identifier: GPL-2.0
/*
 * Facts about the running kernel that several parts need, found through
 * kallsyms and /proc/kcore (ksyms.c) and BTF (btf.c): where the fault
 * mutex table is and how many mutexes it has, the stride of its mutexes,
 * and sizeof(struct mutex) for the memory column, and which functions
 * take the table's mutexes for which op.  Used by the advice (the memory
 * column), by the fallback's record side (the marker) and by the kprobe
 * recorder's two sides (the callers); calls nothing above the
 * kernel-fact readers, so neither of them closes a loop through it.
 *
 * The fault mutexes are one kmalloc'ed array: the bucket of an address
 * is (addr - base) / sizeof(struct mutex).  Its base and size come from
 * /proc/kcore (hugetlb_fault_mutex_table and num_fault_mutexes, data
 * symbols that need CONFIG_KALLSYMS_ALL), the stride from BTF or, without
 * BTF, from the table's own memory (each idle mutex's wait_list points to
 * itself).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event.h"
#include "kernel.h"

/*
 * Two words one stride apart in a table of idle mutexes hold the same
 * value, or pointers into their own mutex at the same offset (a list_head
 * pointing at itself).
 */
static int same_field(uint64_t a, uint64_t b, uint64_t stride)
{
	return a == b || (a && b == a + stride);
}

/*
 * A table of idle mutexes that are all zeros, but for the few held while
 * it was read (at most 1 word in 16 not zero), has no period to read.
 * Such a mutex has no word that points at itself (no wait_list: 7.3's
 * first_waiter is NULL when idle) and no debug word (DEBUG_MUTEXES's
 * magic points at the mutex, spinlock debugging's is 0xdead4ead,
 * lockdep's map names its class): it is owner, wait_lock (and osq) and
 * first_waiter, 24 bytes on 64 bits.  Not on PREEMPT_RT, whose mutex is
 * an rt_mutex of another size, idle zeros too: 0 there, as for anything
 * else.
 */
static int zero_table(const uint64_t *words, int nw)
{
	int i, zero = 0;

	for (i = 0; i < nw; i++)
		zero += !words[i];
	return zero >= nw - nw / 16;
}

static uint32_t zero_table_stride(void)
{
	char *rt = ft_read_all("/sys/kernel/realtime", NULL);
	int is_rt = rt && rt[0] == '1';

	free(rt);
	return is_rt ? 0 : 24;
}

/*
 * The mutex stride in words, from nw words of the table's memory (n
 * mutexes), as the table's period: the smallest s (at least four
 * repeats within the table's extent at that stride) at which some word
 * of a mutex is the same in nearly every mutex, 9 pairs of neighbours in
 * 10 or more: a non-zero value that repeats (lockdep's key and name
 * pointers, the spinlock debug magic), or a pointer into its own mutex at
 * the same offset (6.12's idle wait_list pointing at itself).  Columns,
 * not the share of all words that repeat: after workloads a used mutex
 * and an unused one differ in their lockdep class caches, and on 7.3's
 * lockdep guest that made two strides repeat more words than the real
 * one (0.956 at 272 bytes, 0.941 at 136).  A multiple of the stride has
 * the same columns, so the smallest wins; a mutex held while the table
 * was read breaks one pair of a column, not the column.  0: no column.
 */
int ft_stride_of(const uint64_t *words, int nw, uint32_t n)
{
	int s, o, k, end, pairs, same;

	for (s = 1; s <= nw / 4; s++) {
		end = (uint64_t)n * s < (uint64_t)nw ? (int)(n * s) : nw;
		if (end < 4 * s)
			break;
		for (o = 0; o < s; o++) {
			pairs = same = 0;
			for (k = o; k + s < end; k += s) {
				pairs++;
				same += (words[k] || words[k + s]) &&
					same_field(words[k], words[k + s], 8ULL * s);
			}
			if (pairs >= 3 && 10 * same >= 9 * pairs)
				return s;
		}
	}
	return 0;
}

/*
 * The stride in bytes from the table in /proc/kcore (ft_stride_of(), or
 * the all-zero table above).  Measured in the lockdep guests, after
 * workloads: 144 bytes on 6.12, 136 on 7.3.  0 when the memory does not
 * show it.
 */
uint32_t ft_fault_table_stride(uint64_t base, uint32_t n)
{
	uint64_t words[512];
	int nw = 512;

	/* the period must repeat four times in what is read */
	if (n < 4 || ft_kcore_read(base, words, sizeof(words)))
		return 0;
	/*
	 * Zeros repeat at every period, so a held mutex's words would win;
	 * read no further than the smallest table, of 24-byte mutexes
	 */
	if (zero_table(words, (uint64_t)n * 3 < (uint64_t)nw ? (int)(n * 3) : nw))
		return zero_table_stride();
	return 8 * ft_stride_of(words, nw, n);
}

/*
 * The stride of the table's mutexes: sizeof(struct mutex) from BTF where
 * the kernel has it (distribution kernels do), else the table's memory.
 * *from says which, "btf" or "kcore"; "unknown" with 0.  n = 0: BTF only.
 */
uint32_t ft_mutex_stride(uint64_t base, uint32_t n, const char **from)
{
	long btf = ft_btf_struct_size("/sys/kernel/btf/vmlinux", "mutex");
	uint32_t s;

	if (btf > 0) {
		*from = "btf";
		return btf;
	}
	s = n ? ft_fault_table_stride(base, n) : 0;
	*from = s ? "kcore" : "unknown";
	return s;
}

/*
 * The running kernel's fault mutex table, through kallsyms and /proc/kcore:
 * its base and size, or NULL with both 0; otherwise why it is not known.
 */
const char *ft_fault_table_find(uint64_t *base, uint32_t *n)
{
	struct ft_ksyms *ks;
	uint64_t tsym, nsym;
	const char *why = NULL;
	int r;

	*base = 0;
	*n = 0;
	ks = ft_ksyms_load(NULL);
	if (!ks)
		why = "/proc/kallsyms unreadable or its addresses hidden";
	else if (ft_ksyms_addr(ks, "hugetlb_fault_mutex_table", &tsym) ||
		 ft_ksyms_addr(ks, "num_fault_mutexes", &nsym))
		why = "hugetlb_fault_mutex_table not in kallsyms (CONFIG_KALLSYMS_ALL=n)";
	else if ((r = ft_kcore_read(tsym, base, 8)) ||
		 (r = ft_kcore_read(nsym, n, 4)))
		why = r == -ENOENT ? "no /proc/kcore (CONFIG_PROC_KCORE=n)" :
			"/proc/kcore unreadable (lockdown?)";
	else if (!*base || !*n || !ft_is_pow2(*n))
		why = "the table pointer or size read from /proc/kcore is not sane";
	ft_ksyms_free(ks);
	if (why)
		*base = *n = 0;
	return why;
}

static uint32_t fault_table_mutex_bytes(void)
{
	uint64_t base;
	uint32_t n;

	return ft_fault_table_find(&base, &n) ? 0 : ft_fault_table_stride(base, n);
}

static int mutex_bytes(const char *btf_path, char *how, size_t len)
{
	long sz;

	if (!btf_path)
		btf_path = "/sys/kernel/btf/vmlinux";
	sz = ft_btf_struct_size(btf_path, "mutex");
	if (sz > 0) {
		snprintf(how, len, "sizeof(struct mutex) = %ld from %s", sz,
			 btf_path);
		return (int)sz;
	}
	sz = fault_table_mutex_bytes();
	if (sz > 0) {
		snprintf(how, len, "sizeof(struct mutex) = %ld, the stride of the "
			 "kernel's fault mutex table read through /proc/kcore "
			 "(no BTF at %s)", sz, btf_path);
		return (int)sz;
	}
	if (!access("/proc/lockdep", F_OK)) {
		snprintf(how, len, "sizeof(struct mutex) unknown: the kernel has "
			 "lock debugging (/proc/lockdep), which enlarges it, and "
			 "no BTF (%s) to say by how much", btf_path);
		return -1;
	}
#if defined(__x86_64__)
	snprintf(how, len, "sizeof(struct mutex) assumed 32 (x86_64 without "
		 "lock debugging; no BTF at %s to check)", btf_path);
	return 32;
#else
	snprintf(how, len, "sizeof(struct mutex) unknown: no BTF at %s",
		 btf_path);
	return -1;
#endif
}

/*
 * The answer is the running kernel's, so it is found once per process
 * (for each BTF path asked about): tune asks for every advice it gives,
 * and each look reads BTF, kallsyms and /proc/kcore again.
 */
int ft_mutex_bytes(const char *btf_path, char *how, size_t len)
{
	static char *cached_path, cached_how[256];
	static int cached_bytes, cached;
	/* NULL (the running kernel's BTF) apart from any path given */
	const char *path = btf_path ? btf_path : "\001";

	if (!cached || strcmp(cached_path, path)) {
		char *p = strdup(path);

		if (!p)		/* not cached: asked again next time */
			return mutex_bytes(btf_path, how, len);
		free(cached_path);
		cached_path = p;
		cached_bytes = mutex_bytes(btf_path, cached_how, sizeof(cached_how));
		cached = 1;
	}
	snprintf(how, len, "%s", cached_how);
	return cached_bytes;
}

/*
 * The kernel's lockdown level as securityfs shows it ("none",
 * "integrity" or "confidentiality"), or NULL where it does not say
 * (securityfs not mounted, no lockdown LSM).  Integrity closes the
 * writable files of debugfs, the knob among them; confidentiality also
 * tracefs, kprobes and /proc/kcore.
 */
const char *ft_lockdown(void)
{
	static char mode[24];
	char *text = ft_read_all("/sys/kernel/security/lockdown", NULL);
	char *lo = text ? strchr(text, '[') : NULL;
	char *hi = lo ? strchr(lo, ']') : NULL;
	const char *ret = NULL;

	if (hi && (size_t)(hi - lo - 1) < sizeof(mode)) {
		memcpy(mode, lo + 1, hi - lo - 1);
		mode[hi - lo - 1] = '\0';
		ret = mode;
	}
	free(text);
	return ret;
}

/*
 * Which caller hashes for which op (include/linux/hugetlb.h's
 * HUGETLB_FAULT_OP_* of the patched kernel name the same call sites).
 * Static callers may be inlined into their own callers: those are listed
 * too, under the op of the site they carry.
 */
struct func_op {
	const char *func;
	unsigned int op;
};

static const struct func_op callers[] = {
	{ "hugetlb_fault", FT_HOP_FAULT },
	{ "hugetlb_no_page", FT_HOP_FAULT },
	{ "hugetlb_wp", FT_HOP_WP },
	{ "hugetlb_handle_userfault", FT_HOP_USERFAULT },
	{ "hugetlbfs_fallocate", FT_HOP_FALLOCATE },
	{ "remove_inode_hugepages", FT_HOP_PUNCH },
	{ "hugetlbfs_punch_hole", FT_HOP_PUNCH },
	{ "hugetlbfs_evict_inode", FT_HOP_PUNCH },
	{ "hugetlb_vmtruncate", FT_HOP_PUNCH },
	{ "hugetlbfs_setattr", FT_HOP_PUNCH },
	{ "memfd_alloc_folio", FT_HOP_MEMFD },
	{ "mfill_atomic_hugetlb", FT_HOP_UFFD_COPY },
	{ "mfill_atomic", FT_HOP_UFFD_COPY },
	{ "mfill_atomic_copy", FT_HOP_UFFD_COPY },
	{ "mfill_atomic_continue", FT_HOP_UFFD_COPY },
	{ "mfill_atomic_poison", FT_HOP_UFFD_COPY },
};

const char *ft_kprobe_caller(size_t i, unsigned int *op)
{
	if (i >= sizeof(callers) / sizeof(callers[0]))
		return NULL;
	*op = callers[i].op;
	return callers[i].func;
}

/* func's op in the table t[n] (a compiler's copy is func): 0, or -1 */
static int op_of(const struct func_op *t, size_t n, const char *func,
		 unsigned int *op)
{
	size_t i;

	for (i = 0; func && i < n; i++)
		if (ft_ksym_is(func, t[i].func)) {
			*op = t[i].op;
			return 0;
		}
	return -1;
}

int ft_kprobe_caller_op(const char *func, unsigned int *op)
{
	return op_of(callers, sizeof(callers) / sizeof(callers[0]), func, op);
}

/*
 * The functions whose calls of mutex_unlock() drop a fault mutex for the
 * op named, to wait for what the op waits for: hugetlb_wp() unmaps the
 * page from the owner's children, hugetlb_handle_userfault() hands the
 * fault to userfaultfd.  Each hashes the key again to find its mutex.
 * Where hugetlb_handle_userfault() is inlined (into hugetlb_no_page(),
 * which also releases normally), its release is the one followed by the
 * call of handle_userfault() (kprobe.c).
 */
static const struct func_op drops[] = {
	{ "hugetlb_wp", FT_HOP_WP },
	{ "hugetlb_handle_userfault", FT_HOP_USERFAULT },
};

int ft_kprobe_drop_op(const char *func, unsigned int *op)
{
	return op_of(drops, sizeof(drops) / sizeof(drops[0]), func, op);
}
