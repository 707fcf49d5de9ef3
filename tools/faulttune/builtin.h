/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands (the files beside this one): their entries, and what they
 * share in cmd-util.c: option parsing with its messages, the reader run
 * in a child, signals, tracefs mounted for a run, the end of stdout.
 */
#ifndef FAULTTUNE_BUILTIN_H
#define FAULTTUNE_BUILTIN_H

#include "faulttune.h"

int ft_opt_uint(const char *cmd, const char *opt, const char *s,
		uint64_t min, uint64_t max, uint64_t *out);
int ft_opt_double(const char *cmd, const char *opt, const char *s,
		  double min, double max, double *out);
/* --json / --csv: a second, different format is refused (*set tracks) */
int ft_opt_fmt(const char *cmd, enum ft_fmt *fmt, int *set, enum ft_fmt want);
/*
 * An option getopt refused: say so; a short option the command had before
 * each letter got one meaning in every command ("t--top", NULL-ended list)
 * also hears its long name.
 */
void ft_opt_bad(const char *cmd, char **argv, const char *const *moved);
/*
 * End of a command's output: flush stdout and turn a failed write into
 * exit status 1 with a message; a closed pipe (EPIPE) ends the process by
 * SIGPIPE, quietly, as trace-cmd does (status 141 in a shell).
 */
int ft_stdout_done(int ret);
/*
 * cmd-util.c: run fn(arg) in a child process (the trace reader),
 * waiting at most timeout_s seconds (0: no limit); what names the file in
 * messages.  The child marks with ft_isolate_phase() when it is inside
 * libtracecmd, so a crash there is blamed on the file and a crash
 * elsewhere on faulttune.
 */
int ft_isolate(int (*fn)(void *), void *arg, const char *what,
	       double timeout_s);
/* cmd-util.c: the handlers that set ft_stop, SIGPIPE ignored */
void ft_install_signals(void);
/*
 * cmd-util.c: a command we run while polling: once ft_stop is set,
 * forward the signal to it, and SIGKILL it if it is still there 5 s
 * later.  Call on every pass of the polling loop; @st starts zeroed.
 */
struct ft_child_stop {
	int forwarded;
	double kill_at;
};
void ft_child_stop_step(pid_t child, struct ft_child_stop *st);
/* cmd-util.c: root + tracefs (mounted here if nobody did, unmounted at exit) */
int ft_tracefs_check(void);
/* cmd-util.c: --source's argument into *source: 0, or -1 said (naming cmd) */
int ft_opt_source(const char *cmd, const char *s, int *source);
/* the kprobe recorder's options the environment gives (the tests' hooks) */
void ft_opt_kprobe_env(struct ft_kprobe_opts *o);
/* the reader's: FAULTTUNE_LIBTRACECMD */
void ft_opt_read_env(struct ft_read_opts *o);
/* report.c: its options (out.h) from its command line */
struct ft_report_opts;
int ft_report_parse_args(int argc, char **argv, struct ft_report_opts *o);
/* subcommands */
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);

/* version.c: faulttune --version */
void ft_print_version(FILE *f);

#endif
