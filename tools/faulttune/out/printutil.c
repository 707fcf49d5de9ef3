// SPDX-License-Identifier: GPL-2.0
/*
 * The printers' two helpers: text wrapped to FT_COLS columns
 * under an indent, and a JSON string.  Printers and commands call them;
 * the library never prints.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "faulttune.h"
#include "out.h"

/* one line of ft_wrap()'s text, s[0..n): 0 or the lines printed */
static int wrap_line(FILE *f, int indent, const char *s, size_t n)
{
	int col = 0, lines = 1;

	while (n) {
		size_t room = FT_COLS - col, cut, skip;

		if (n <= room) {
			fwrite(s, 1, n, f);
			break;
		}
		/* the last space that leaves the line within FT_COLS */
		for (cut = room; cut > 0 && s[cut] != ' '; cut--)
			;
		if (!cut) {	/* a word longer than the line: up to its end */
			for (cut = room; cut < n && s[cut] != ' '; cut++)
				;
			if (cut == n) {
				fwrite(s, 1, n, f);
				break;
			}
		}
		fwrite(s, 1, cut, f);
		for (skip = cut; skip < n && s[skip] == ' '; skip++)
			;
		s += skip;
		n -= skip;
		if (!n)
			break;
		fprintf(f, "\n%*s", indent, "");
		col = indent;
		lines++;
	}
	fputc('\n', f);
	return lines;
}

int ft_wrap(FILE *f, int indent, const char *fmt, ...)
{
	char *text, *p, *nl;
	va_list ap;
	int n, lines = 0;

	if (indent >= FT_COLS / 2)
		indent = FT_COLS / 2;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		lines += wrap_line(f, indent, p, nl - p);
		if (!*nl)
			break;
	}
	free(text);
	return lines;
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
