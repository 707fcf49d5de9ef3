// SPDX-License-Identifier: GPL-2.0
/*
 * jhash2 as used by hugetlb_fault_mutex_hash().
 *
 * Built with KSRC=<linux tree> (make KSRC=...), this uses the kernel's own
 * tools/include/linux/jhash.h.  Otherwise a clean-room implementation of
 * Bob Jenkins' published lookup3 hashword() (public domain, 2006), which
 * is what the kernel's jhash2() is; the unit tests check it against
 * known-answer values taken from the kernel header.
 */
#include <stdint.h>
#include <string.h>
#include "util.h"

#ifdef FT_KERNEL_JHASH
#include <linux/types.h>
#include <linux/jhash.h>

uint32_t ft_jhash2(const uint32_t *k, uint32_t length, uint32_t initval)
{
	return jhash2(k, length, initval);
}
#else
static inline uint32_t rol32(uint32_t w, unsigned int s)
{
	return (w << s) | (w >> ((-s) & 31));
}

#define mix(a, b, c)					\
do {							\
	a -= c;  a ^= rol32(c, 4);  c += b;		\
	b -= a;  b ^= rol32(a, 6);  a += c;		\
	c -= b;  c ^= rol32(b, 8);  b += a;		\
	a -= c;  a ^= rol32(c, 16); c += b;		\
	b -= a;  b ^= rol32(a, 19); a += c;		\
	c -= b;  c ^= rol32(b, 4);  b += a;		\
} while (0)

#define final(a, b, c)					\
do {							\
	c ^= b; c -= rol32(b, 14);			\
	a ^= c; a -= rol32(c, 11);			\
	b ^= a; b -= rol32(a, 25);			\
	c ^= b; c -= rol32(b, 16);			\
	a ^= c; a -= rol32(c, 4);			\
	b ^= a; b -= rol32(a, 14);			\
	c ^= b; c -= rol32(b, 24);			\
} while (0)

uint32_t ft_jhash2(const uint32_t *k, uint32_t length, uint32_t initval)
{
	uint32_t a, b, c;

	a = b = c = 0xdeadbeef + (length << 2) + initval;
	while (length > 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		mix(a, b, c);
		length -= 3;
		k += 3;
	}
	switch (length) {
	case 3:
		c += k[2];
		/* fall through */
	case 2:
		b += k[1];
		/* fall through */
	case 1:
		a += k[0];
		final(a, b, c);
		break;
	case 0:
		break;
	}
	return c;
}
#endif

/* hugetlb_fault_mutex_hash(): key[0] = mapping, key[1] = index (64-bit) */
uint32_t ft_fault_hash(uint64_t mapping, uint64_t index)
{
	unsigned long key[2];
	uint32_t k[sizeof(key) / (sizeof(uint32_t))];

	key[0] = (unsigned long)mapping;
	key[1] = (unsigned long)index;
	memcpy(k, key, sizeof(key));
	return ft_jhash2(k, sizeof(key) / (sizeof(uint32_t)), 0);
}
