// SPDX-License-Identifier: GPL-2.0
/*
 * Where a release probe can be a jump: the instructions just before a
 * call of mutex_unlock() that compute the table's mutex.
 *
 * A kprobe on a call instruction is a breakpoint (x86 never optimizes it
 * into a jump: the call cannot be copied out of line), and a breakpoint
 * costs each hit about 160 instructions more than a jump
 * (Documentation/bench.md, "What one probe hit costs").  A probe the
 * kernel can optimize must sit on an instruction at least 5 bytes before
 * the call, where the mutex is not yet in %di: it is the table's pointer,
 * read from memory, plus a register the compiler scaled.  The shapes seen
 * in the hash's callers (stock 6.12 and 7.3, production and debug
 * builds), each ending right at the call:
 *
 *   A  mov table(%rip),%B; lea (%B,%I,S),%rdi      mutex = table + S * %I
 *   B  mov table(%rip),%rdi; add %I,%rdi            mutex = table + %I
 *   C  add table(%rip),%I; mov %I,%rdi              mutex = table + %I
 *   D  shl $N,%rdi; add table(%rip),%rdi            mutex = table + 2^N * %rdi
 *
 * (D is 6.12's hugetlb_no_page() hashing again to release: the hash's
 * return value moved to %edi, shifted by the log of struct mutex's size.)
 * The probe goes on the first instruction, where %I already holds its
 * value (the instructions after it do not change it but D's shift, which
 * the scale stands for), and fetches %I: the reader adds the table's
 * address from the marker, S times.  The operand
 * must reach the table's pointer (hugetlb_fault_mutex_table in kallsyms),
 * so a byte pattern that happens to look like a shape elsewhere does not
 * pass; and the kernel refuses a probe that is not on an instruction
 * boundary.
 *
 * What the kernel does not check: a path that jumps between the probe and
 * the call would release without the probe.  ft_kjump_into() scans the
 * function's bytes for any jump whose target lies there; the bytes are
 * not decoded, so most of what it finds are bytes inside other
 * instructions (a 0x70 in a stack offset reads as jo), and the caller
 * asks the kernel which of them start an instruction (kprobe.c): a real
 * jump there keeps the call site's breakpoint.  loop and jrcxz, which
 * compilers do not emit, are left out (below).
 */
#include <stdio.h>
#include <string.h>
#include "kernel.h"

/* kprobe fetcharg names of the x86-64 registers, by number */
static const char *const reg_name[16] = {
	"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

#define RDI	7

static uint64_t rip_target(const unsigned char *insn, uint64_t at, int len)
{
	int32_t disp;

	memcpy(&disp, insn + len - 4, 4);
	return at + len + (int64_t)disp;
}

static int found(struct ft_kjump *j, uint64_t at, int reg, unsigned int scale)
{
	j->at = at;
	j->scale = scale;
	snprintf(j->reg, sizeof(j->reg), "%s", reg_name[reg & 15]);
	return 1;
}

/* A: 11 bytes, mov (7), lea (4) */
static int shape_a(const unsigned char *b, uint64_t at, uint64_t table,
		   struct ft_kjump *j)
{
	int base, idx, r = (b[0] >> 2) & 1, x = (b[7] >> 1) & 1, bb = b[7] & 1;

	if ((b[0] & 0xfb) != 0x48 || b[1] != 0x8b || (b[2] & 0xc7) != 0x05 ||
	    rip_target(b, at, 7) != table)
		return 0;
	/* REX.W, no REX.R (the destination is %rdi); 8d /r; ModRM 00 111 100 */
	if ((b[7] & 0xfc) != 0x48 || b[8] != 0x8d || b[9] != 0x3c ||
	    (b[10] & 7) == 5)
		return 0;
	base = (b[10] & 7) | bb << 3;
	idx = ((b[10] >> 3) & 7) | x << 3;
	if (base != (((b[2] >> 3) & 7) | r << 3) || idx == 4 || idx == base)
		return 0;
	return found(j, at, idx, 1U << (b[10] >> 6));
}

/* B: 10 bytes, mov (7) into %rdi, add (3) */
static int shape_b(const unsigned char *b, uint64_t at, uint64_t table,
		   struct ft_kjump *j)
{
	int idx;

	if (b[0] != 0x48 || b[1] != 0x8b || b[2] != 0x3d ||
	    rip_target(b, at, 7) != table)
		return 0;
	if ((b[7] & 0xfb) == 0x48 && b[8] == 0x01 && (b[9] & 0xc7) == 0xc7)
		idx = ((b[9] >> 3) & 7) | ((b[7] >> 2) & 1) << 3;
	else if ((b[7] & 0xfe) == 0x48 && b[8] == 0x03 && (b[9] & 0xf8) == 0xf8)
		idx = (b[9] & 7) | (b[7] & 1) << 3;
	else
		return 0;
	return idx == RDI ? 0 : found(j, at, idx, 1);
}

/* C: 10 bytes, add (7) to %I, mov (3) %I to %rdi */
static int shape_c(const unsigned char *b, uint64_t at, uint64_t table,
		   struct ft_kjump *j)
{
	int idx = ((b[2] >> 3) & 7) | ((b[0] >> 2) & 1) << 3;

	if ((b[0] & 0xfb) != 0x48 || b[1] != 0x03 || (b[2] & 0xc7) != 0x05 ||
	    rip_target(b, at, 7) != table)
		return 0;
	if ((b[7] & 0xfb) != 0x48 || b[8] != 0x89 || (b[9] & 0xc7) != 0xc7 ||
	    (((b[9] >> 3) & 7) | ((b[7] >> 2) & 1) << 3) != idx)
		return 0;
	return idx == RDI ? 0 : found(j, at, idx, 1);
}

/* D: 11 bytes, shl (4) of %rdi, add (7) into %rdi */
static int shape_d(const unsigned char *b, uint64_t at, uint64_t table,
		   struct ft_kjump *j)
{
	/* REX.W c1 /4 ib on %rdi; REX.W 03 /r, %rdi from rip + disp32 */
	if (b[0] != 0x48 || b[1] != 0xc1 || b[2] != 0xe7 || b[3] < 1 ||
	    b[3] > 8 || b[4] != 0x48 || b[5] != 0x03 || b[6] != 0x3d ||
	    rip_target(b + 4, at + 4, 7) != table)
		return 0;
	return found(j, at, RDI, 1U << b[3]);
}

int ft_kjump_match(const unsigned char *before, size_t len, uint64_t call,
		   uint64_t table, struct ft_kjump *j)
{
	const unsigned char *end = before + len;

	memset(j, 0, sizeof(*j));
	if (len >= 11 && (shape_a(end - 11, call - 11, table, j) ||
			  shape_d(end - 11, call - 11, table, j)))
		return 1;
	if (len >= 10 && (shape_b(end - 10, call - 10, table, j) ||
			  shape_c(end - 10, call - 10, table, j)))
		return 1;
	return 0;
}

int ft_kjump_into(const unsigned char *text, size_t len, uint64_t start,
		  uint64_t lo, uint64_t hi, uint64_t *from, int max)
{
	size_t i;
	int n = 0;

	for (i = 0; i + 2 <= len; i++) {
		unsigned char op = text[i];
		uint64_t to;
		int32_t rel;

		/*
		 * jcc and jmp rel8; not loop/jrcxz (e0-e3), which compilers
		 * do not emit and whose bytes are common inside other
		 * instructions (shl $N,%rcx is 48 c1 e1 N)
		 */
		if ((op >= 0x70 && op <= 0x7f) || op == 0xeb) {
			to = start + i + 2 + (int64_t)(int8_t)text[i + 1];
		} else if (op == 0xe9 && i + 5 <= len) {
			memcpy(&rel, text + i + 1, 4);
			to = start + i + 5 + (int64_t)rel;
		} else if (op == 0x0f && (text[i + 1] & 0xf0) == 0x80 &&
			   i + 6 <= len) {
			memcpy(&rel, text + i + 2, 4);
			to = start + i + 6 + (int64_t)rel;
		} else {
			continue;
		}
		if (to > lo && to <= hi) {
			if (n < max)
				from[n] = start + i;
			n++;
		}
	}
	return n;
}
