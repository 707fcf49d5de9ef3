/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting assertions the unit test programs share: each CHECK counts
 * a pass or prints where and why it failed, and the program ends with
 * check_done(), whose "N passed, N failed" line make check adds up.
 */
#ifndef FT_TESTS_CHECK_H
#define FT_TESTS_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* "PREFIX: N passed, N failed" (no prefix when NULL); the exit status */
static inline int check_done(const char *prefix)
{
	if (prefix)
		printf("%s: ", prefix);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* FT_TESTS_CHECK_H */
