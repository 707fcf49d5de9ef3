// SPDX-License-Identifier: GPL-2.0
/*
 * One printer of statistics tables for report and the fallback: a table
 * is described once as its columns (struct ft_col: the text header and
 * width, the JSON member, the CSV column), and each row is its cells; the
 * same description prints the text table, the JSON objects and the CSV
 * rows, so a column is added, renamed or dropped in one place.
 *
 * A cell is a string (QSTR: quoted in CSV), a count, a time in ns (text: human units; JSON and
 * CSV: ns), a share (text only), missing (text: the column's none_text,
 * "n/a" by default; JSON null; CSV the column's none_csv, "" by default)
 * or left out of the row altogether (FT_CELL_SKIP: no separator either).
 */
#include <stdio.h>
#include "faulttune.h"
#include "out.h"

static void text_cell(FILE *f, const struct ft_col *c, const struct ft_cell *v,
		      int first)
{
	char buf[64];
	const char *s = buf;

	switch (v->kind) {
	case FT_CELL_STR:
	case FT_CELL_QSTR:
		s = v->s ? v->s : "";
		break;
	case FT_CELL_U64:
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v->u);
		break;
	case FT_CELL_NS:
		ft_fmt_ns(v->u, buf, 32);
		break;
	case FT_CELL_PCT:
		snprintf(buf, sizeof(buf), "%.1f%%", v->d);
		break;
	default:
		s = c->none_text ? c->none_text : "n/a";
		break;
	}
	if (!first)
		fputs(c->sep ? c->sep : " ", f);
	fprintf(f, "%*s", c->width, s);
}

void ft_table_header(FILE *f, const struct ft_col *cols, int n,
		     const char *const *titles)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		const char *t = titles && titles[i] ? titles[i] : cols[i].text;

		if (!cols[i].text || (cols[i].last && !(titles && titles[i])))
			continue;
		if (k++)
			fputs(cols[i].sep ? cols[i].sep : " ", f);
		fprintf(f, "%*s", cols[i].width, t);
	}
	fputc('\n', f);
}

/* a number as JSON and CSV write it: 1, or 0 when v is not one */
static int num_cell(FILE *f, const struct ft_cell *v)
{
	if (v->kind == FT_CELL_U64 || v->kind == FT_CELL_NS)
		fprintf(f, "%llu", (unsigned long long)v->u);
	else if (v->kind == FT_CELL_PCT)
		fprintf(f, "%.4f", v->d);
	else
		return 0;
	return 1;
}

static void json_cell(FILE *f, const struct ft_col *c, const struct ft_cell *v)
{
	fprintf(f, "\"%s\":", c->json);
	if (num_cell(f, v))
		return;
	if (v->kind == FT_CELL_STR || v->kind == FT_CELL_QSTR)
		ft_json_str(f, v->s);
	else
		fputs("null", f);
}

static void csv_cell(FILE *f, const struct ft_col *c, const struct ft_cell *v)
{
	const char *p;

	if (num_cell(f, v))
		return;
	switch (v->kind) {
	case FT_CELL_STR:
		fputs(v->s ? v->s : "", f);
		break;
	case FT_CELL_QSTR:	/* RFC 4180: quoted, quotes doubled */
		fputc('"', f);
		for (p = v->s; p && *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
		break;
	default:
		fputs(c->none_csv ? c->none_csv : "", f);
		break;
	}
}

/*
 * One row.  JSON: the members only, without braces (the caller may add
 * its own); the columns marked json_early first, then the others, each in
 * the order of the description.
 */
void ft_table_row(FILE *f, enum ft_fmt fmt, const struct ft_col *cols, int n,
		  const struct ft_cell *v)
{
	int i, k = 0, pass;

	switch (fmt) {
	case FT_FMT_TEXT:
		for (i = 0; i < n; i++)
			if (cols[i].text && v[i].kind != FT_CELL_SKIP)
				text_cell(f, &cols[i], &v[i], !k++);
		fputc('\n', f);
		break;
	case FT_FMT_JSON:
		for (pass = 1; pass >= 0; pass--)
			for (i = 0; i < n; i++) {
				if (!cols[i].json || v[i].kind == FT_CELL_SKIP ||
				    !cols[i].json_early != !pass)
					continue;
				if (k++)
					fputc(',', f);
				json_cell(f, &cols[i], &v[i]);
			}
		break;
	case FT_FMT_CSV:
		for (i = 0; i < n; i++) {
			if (!cols[i].csv || v[i].kind == FT_CELL_SKIP)
				continue;
			if (k++)
				fputc(',', f);
			csv_cell(f, &cols[i], &v[i]);
		}
		fputc('\n', f);
		break;
	}
}

/* the CSV header of the columns v does not skip (v NULL: all) */
void ft_table_csv_header(FILE *f, const struct ft_col *cols, int n,
			 const struct ft_cell *v)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (cols[i].csv && !(v && v[i].kind == FT_CELL_SKIP))
			fprintf(f, "%s%s", k++ ? "," : "", cols[i].csv);
	fputc('\n', f);
}
