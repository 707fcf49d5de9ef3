// SPDX-License-Identifier: GPL-2.0
/*
 * The library's utilities: its one message function (ft_err, ft_info:
 * the only writes to stderr below the commands), the parsers of decimal
 * values and sizes, time formatting, the clock, and the isolated
 * reader's phase mark.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

/*
 * Messages go to stderr after whatever stdout holds: with both sent to one
 * file (tune > log 2>&1), a message at exit (the knob restored) once landed
 * in the middle of a line of the report that stdout's buffer had cut.
 */
void ft_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("faulttune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ft_info(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Option values are decimal, as the kernel's knob is: digits only (no
 * sign, no blanks, no 0x, no leading zero that strtoull() would take for
 * octal), nothing after the number but a unit where one is asked for.
 * errno is EINVAL for text that is no number, ERANGE for one out of range.
 */
static int parse_digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || *p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return errno = EINVAL, -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = *p - '0';

		if (v > (UINT64_MAX - d) / 10)
			return errno = ERANGE, -1;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int ft_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (parse_digits(s, &v, &end))
		return -1;
	if (*end)
		return errno = EINVAL, -1;
	if (v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int ft_parse_u64(const char *s, uint64_t *out)
{
	return ft_parse_uint(s, 0, UINT64_MAX, out);
}

/*
 * A decimal fraction: [-]digits[.digits][e[+-]digits]; strtod() alone
 * would also take "nan", "inf", hex floats and leading blanks.
 */
int ft_parse_double(const char *s, double min, double max, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (!s)
		return errno = EINVAL, -1;
	if (*p == '-')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return errno = EINVAL, -1;
	for (; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return errno = EINVAL, -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s)
		return errno = EINVAL, -1;
	if (!isfinite(v) || v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int ft_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	unsigned int shift = 0;

	if (parse_digits(s, &v, &end))
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return errno = EINVAL, -1;
	}
	if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return errno = EINVAL, -1;
	if (shift && v > (UINT64_MAX >> shift))
		return errno = ERANGE, -1;
	*out = v << shift;
	return 0;
}

int ft_is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

const char *ft_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/*
 * The isolated reader's phase (cmd-util.c's ft_isolate()): the page the
 * parent mapped before it forked, where the child says whether it is in
 * libtracecmd or in our code.  NULL outside a reader child.
 */
static volatile int *phase_page;

void ft_isolate_phase_page(volatile int *page)
{
	phase_page = page;
}

void ft_isolate_phase(int phase)
{
	if (phase_page)
		*phase_page = phase;
}

double ft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
