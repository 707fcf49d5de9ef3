/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The printers and exporters (out/): library data as text, JSON, CSV and
 * charts.  They format and write; they compute nothing of their own.
 */
#ifndef FAULTTUNE_OUT_H
#define FAULTTUNE_OUT_H

#include "faulttune.h"
#include "model.h"


/*
 * stattab.c: statistics tables described once as columns, printed as
 * text, JSON or CSV (report and the fallback)
 */
struct ft_col {
	const char *text;	/* text header; NULL: not in the text table */
	int width;		/* text width; negative: left-aligned */
	const char *sep;	/* text separator before it; NULL: " " */
	const char *json;	/* JSON member; NULL: not in JSON */
	const char *csv;	/* CSV column; NULL: not in CSV */
	const char *none_text;	/* a missing value in text; NULL: "n/a" */
	const char *none_csv;	/* ... in CSV; NULL: "" */
	int json_early;		/* JSON: before the unmarked columns */
	int last;		/* text: an optional last column, titled by the header */
};
enum ft_cell_kind { FT_CELL_NONE, FT_CELL_STR, FT_CELL_QSTR, FT_CELL_U64,
		    FT_CELL_NS, FT_CELL_PCT, FT_CELL_SKIP };
struct ft_cell {
	enum ft_cell_kind kind;
	const char *s;
	uint64_t u;
	double d;
};
#define FT_STR(x)	((struct ft_cell){ .kind = FT_CELL_STR, .s = (x) })
#define FT_QSTR(x)	((struct ft_cell){ .kind = FT_CELL_QSTR, .s = (x) })
#define FT_U64(x)	((struct ft_cell){ .kind = FT_CELL_U64, .u = (x) })
#define FT_NS(x)	((struct ft_cell){ .kind = FT_CELL_NS, .u = (x) })
#define FT_PCT(x)	((struct ft_cell){ .kind = FT_CELL_PCT, .d = (x) })
#define FT_NONE		((struct ft_cell){ .kind = FT_CELL_NONE })
#define FT_SKIP		((struct ft_cell){ .kind = FT_CELL_SKIP })
/* text header: titles[i], when titles and it are not NULL, replaces col i's */
void ft_table_header(FILE *f, const struct ft_col *cols, int n,
		     const char *const *titles);
void ft_table_csv_header(FILE *f, const struct ft_col *cols, int n,
			 const struct ft_cell *v);
void ft_table_row(FILE *f, enum ft_fmt fmt, const struct ft_col *cols, int n,
		  const struct ft_cell *v);
/*
 * The short (default) output's lines: the text printed within FT_COLS
 * columns, broken at spaces, continuation lines indented by indent
 * spaces; a word longer than a line (a path) is not broken.  A '\n' in
 * the text ends a line.  Returns the lines printed.
 */
/* printutil.c: the printers' helpers */
#define FT_COLS 100
int ft_wrap(FILE *f, int indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ft_json_str(FILE *f, const char *s);
/*
 * plot.c: draw the chart out (.png: PNG, else SVG) with gnuplot, run with
 * an argument vector, no shell.  script is gnuplot text (after "set
 * terminal" and "set output ARG1"); it names the data as ARG2, a file
 * holding the len bytes of data, and never contains a user-given string.
 * Returns 0, or -1 with a message: gnuplot missing, failed, killed, or no
 * file written.
 */
int ft_plot(const char *out, const char *script, const char *data, size_t len);
/* sharingprint.c */
void ft_sharing_text(FILE *f, const struct ft_sharing *s, double target_pct);
void ft_sharing_json(FILE *f, const struct ft_sharing *s, double target_pct);
/* the default output's lines: who shares, the remedy; within FT_COLS */
void ft_sharing_short(FILE *f, const struct ft_sharing *s, double target_pct);
/*
 * sampleprint.c: text, a line when sampled; json, a "sample" member with
 * a leading comma
 */
void ft_sample_print(FILE *f, const struct ft_analysis *a, int json);
/* fallbackprint.c: the fallback sections; json: one "fallback" member, leading comma */
/* report's default output: the verdict and the waits, within FT_COLS */
void ft_fallback_short(FILE *f, const struct ft_fallback *fb);
void ft_fallback_print(FILE *f, const struct ft_fallback *fb, enum ft_fmt fmt,
		       int top);
/* kpairprint.c: the kprobe recorder's source and its coverage (and the match); json: leading comma */
void ft_kpair_print(FILE *f, const struct ft_kpair *kp, enum ft_fmt fmt);

/* adviceprint.c: the advice as a table, a line, the model checks, JSON */
void ft_advice_table(FILE *f, const struct ft_advice *adv);
void ft_advice_line(FILE *f, const struct ft_advice *adv);
/* the model against what the runs measured, and how settled the pick is */
void ft_advice_check(FILE *f, const struct ft_advice *adv);
void ft_advice_json(FILE *f, const struct ft_advice *adv);
/* the short output's verdict: the pick, collisions or sharing, how settled */
struct ft_sharing;
void ft_advice_verdict(FILE *f, const struct ft_advice *adv,
		       const struct ft_sharing *s);

/* sourceprint.c: the source ft_inst_enable() chose, on stderr */
void ft_inst_print_source(const struct ft_inst *fi);

/* reportprint.c: report's options, set by its command line, and its output */
struct ft_report_opts {
	const char *file;
	enum ft_fmt fmt;
	int top;
	uint32_t max_size;
	const char *plot;
	double timeout;		/* s for the reader, 0: none, < 0: by size */
	int force;		/* report even when records were skipped */
	int threads;		/* --threads: the advice for T threads */
	double target;		/* --target: percent, 0: the default */
	size_t sample_holds;	/* --sample-holds: 0 default, SIZE_MAX all */
	int verbose;		/* text: 0 the verdict, 1 -v the tables, 2 -vv */
	struct ft_read_opts read;	/* --source, --raw-holds */
};
/* 0, or -1 (with a message) when memory ran out: no partial answer */
int ft_report_print(FILE *f, struct ft_analysis *a,
		    const struct ft_report_opts *o);

#endif
