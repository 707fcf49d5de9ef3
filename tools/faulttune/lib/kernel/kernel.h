/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: what the library learns of the running kernel (lib/kernel):
 * its symbols and memory, the fault mutex table, the hashing function's
 * callers and their ops, struct sizes from BTF, the lockdown level.  The
 * knob is knob.h's.
 */
#ifndef FT_KERNEL_H
#define FT_KERNEL_H

#include "util.h"

/*
 * ksyms.c: kernel symbols (kallsyms text) and kernel memory (/proc/kcore)
 * for the lock:contention fallback; struct sizes from BTF are btf.c's.
 */
struct ft_ksyms;
struct ft_ksyms *ft_ksyms_parse(char *text, size_t len);	/* owns text */
struct ft_ksyms *ft_ksyms_load(const char *path);	/* NULL: /proc/kallsyms */
void ft_ksyms_free(struct ft_ksyms *ks);
size_t ft_ksyms_count(const struct ft_ksyms *ks);
/* the text / data symbol containing addr, or NULL; *off = addr - symbol */
const char *ft_ksyms_func(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off);
const char *ft_ksyms_data(const struct ft_ksyms *ks, uint64_t addr, uint64_t *off);
int ft_ksyms_addr(const struct ft_ksyms *ks, const char *name, uint64_t *addr);
char *ft_tracedat_kallsyms(const char *file, size_t *len);	/* v6 only */
int ft_kcore_read(uint64_t addr, void *buf, size_t len);	/* 0 or -errno */
/* calls (e8 rel32; tail: e9 too) from func to target; -1: unreadable */
int ft_kcall_count(const struct ft_ksyms *ks, const char *func, uint64_t target,
		   int tail);
/* the first call (tail: or jump) to a function in [from, from + span) */
uint64_t ft_kcall_next(const struct ft_ksyms *ks, uint64_t from, size_t span,
		       int tail, const char **callee);
/* the same from the function at start, each site's address into sites[] */
int ft_kcall_sites(const struct ft_ksyms *ks, uint64_t start, uint64_t target,
		   int tail, uint64_t *sites, int max);
/* how many symbols are named name (a kprobe on SYM+OFF needs one) */
int ft_ksyms_named(const struct ft_ksyms *ks, const char *name);
/* name is func or a compiler's copy of it (func.isra.0, func.cold, ...) */
int ft_ksym_is(const char *name, const char *func);
/* func and its copies in ks, one per call, *i from 0 until NULL */
const char *ft_ksyms_copy(const struct ft_ksyms *ks, const char *func,
			  size_t *i, uint64_t *addr);

/*
 * kjump.c: a release probe that the kernel can optimize into a jump: the
 * instruction before a call of mutex_unlock() where the mutex is the
 * table's pointer (read from the address table) plus scale times a
 * register.  1: found, into *j; 0: no known shape ends at call.
 */
struct ft_kjump {
	uint64_t at;		/* the probe's address */
	char reg[8];		/* its fetcharg register, "dx", "r15", ... */
	unsigned int scale;	/* mutex = *table + scale * reg */
};

int ft_kjump_match(const unsigned char *before, size_t len, uint64_t call,
		   uint64_t table, struct ft_kjump *j);
/*
 * the bytes of text (at start) that would be a jump landing in (lo, hi]
 * if an instruction started there: how many, the first max of their
 * addresses into from[] (not decoded: most are inside other instructions)
 */
int ft_kjump_into(const unsigned char *text, size_t len, uint64_t start,
		  uint64_t lo, uint64_t hi, uint64_t *from, int max);

/*
 * kfacts.c: the running kernel's fault mutex table through kallsyms and
 * /proc/kcore: its base and size (NULL, or why they are not known, with
 * both 0), and the stride of its mutexes in memory (0: not shown);
 * ft_mutex_bytes (model.h) is there too, found once per process; and
 * the kernel's lockdown level, which decides what of them can be read.
 */
const char *ft_fault_table_find(uint64_t *base, uint32_t *n);
uint32_t ft_fault_table_stride(uint64_t base, uint32_t n);
int ft_stride_of(const uint64_t *words, int nw, uint32_t n);	/* words */
/* BTF first, then the table's memory; *from: "btf", "kcore", "unknown" */
uint32_t ft_mutex_stride(uint64_t base, uint32_t n, const char **from);
/* the lockdown level, "none", "integrity" or ...; NULL: securityfs does not say */
const char *ft_lockdown(void);
/*
 * kfacts.c: bytes of one struct mutex in the running kernel: from BTF
 * (/sys/kernel/btf/vmlinux) when present; else 32 (x86_64, no lock
 * debugging) when the kernel shows no sign of lock debugging; else -1,
 * unknown.  how says which, for the report.
 */
int ft_mutex_bytes(const char *btf_path, char *how, size_t len);
/* btf.c: sizeof(struct <name>) from a BTF file, -1 if absent or unreadable */
long ft_btf_struct_size(const char *path, const char *name);

/* kfacts.c: the op of a caller of the hashing function, -1: not known */
int ft_kprobe_caller_op(const char *func, unsigned int *op);
/* the known callers, i from 0 until NULL */
const char *ft_kprobe_caller(size_t i, unsigned int *op);
/* kfacts.c: the op of a release in func that drops the mutex to wait, -1: none */
int ft_kprobe_drop_op(const char *func, unsigned int *op);

#endif
