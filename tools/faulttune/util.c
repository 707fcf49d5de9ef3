// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "faulttune.h"

int ft_verbose;

void ft_err(const char *fmt, ...)
{
	va_list ap;

	fputs("faulttune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ft_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ft_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int ft_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
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
		return -1;
	}
	if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return -1;
	if (shift && v > (~0ULL >> shift))
		return -1;
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

void ft_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * Run fn in a child process: libtracecmd does not survive every corrupt
 * file (tracecmd_open() of a damaged header crashes in its error path in
 * 1.3), and a reader must fail with a message, not a core dump.
 * Returns fn's result, or 1 (with a message) if the child died.
 */
int ft_isolate(int (*fn)(void *), void *arg, const char *what)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return fn(arg);
	if (pid == 0) {
		int r = fn(arg);

		fflush(stdout);
		_exit(r & 0xff);
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	ft_err("%s: corrupt trace.dat: the trace reader (libtracecmd) died "
	       "with signal %d while parsing it", what,
	       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 1;
}
