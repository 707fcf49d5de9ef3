// SPDX-License-Identifier: GPL-2.0
/*
 * The capture of a recording: the instance's per-CPU trace_pipe_raw
 * files drained into temporary files while a workload runs (so a
 * recording is not limited by the ring buffer's size), then assembled
 * into a version 6 trace.dat (tracedat.c).  record, tune --record and
 * watch's windows all capture this way; each owns its own loop.
 *
 * Also what a recording of the lock:contention fallback needs besides
 * the events: the stack trigger and the start marker's kernel facts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>
#include "record.h"

struct ft_capture {
	struct ft_inst *fi;
	const char *out;
	int ncpus;
	struct tracefs_cpu **in;
	int *tmp;
	char **tmpname;
	size_t page_size;
	char *page;
	uint64_t bytes;
	int err;		/* errno of a failed write: the file is lost */
};

void ft_capture_abort(struct ft_capture *c)
{
	int i;

	if (!c)
		return;

	for (i = 0; i < c->ncpus; i++) {
		if (c->in && c->in[i])
			tracefs_cpu_close(c->in[i]);
		if (c->tmp && c->tmp[i] >= 0)
			close(c->tmp[i]);
		if (c->tmpname && c->tmpname[i]) {
			unlink(c->tmpname[i]);
			free(c->tmpname[i]);
		}
	}
	free(c->in);
	free(c->tmp);
	free(c->tmpname);
	free(c->page);
	free(c);
}

/* the bytes drained so far */
uint64_t ft_capture_bytes(const struct ft_capture *c)
{
	return c->bytes;
}

static size_t subbuf_size(struct ft_inst *fi)
{
	long long kb;

	if (tracefs_instance_file_read_number(fi->inst, "buffer_subbuf_size_kb",
					      &kb) == 0 && kb > 0)
		return kb * 1024;
	return getpagesize();
}

struct ft_capture *ft_capture_start(struct ft_inst *fi, const char *out)
{
	struct ft_capture *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return NULL;
	c->fi = fi;
	c->out = out;
	c->ncpus = fi->ncpus;
	c->page_size = subbuf_size(fi);
	c->page = malloc(c->page_size);
	c->in = calloc(c->ncpus, sizeof(*c->in));
	c->tmp = malloc(c->ncpus * sizeof(int));
	c->tmpname = calloc(c->ncpus, sizeof(char *));
	if (!c->page || !c->in || !c->tmp || !c->tmpname) {
		free(c->page);
		free(c->in);
		free(c->tmp);
		free(c->tmpname);
		free(c);
		return NULL;
	}
	for (i = 0; i < c->ncpus; i++)
		c->tmp[i] = -1;
	for (i = 0; i < c->ncpus; i++) {
		char file[64], *path;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", i);
		path = ft_inst_file(fi, file);
		if (!path)
			goto fail;
		if (access(path, R_OK)) {	/* possible but absent cpu */
			tracefs_put_tracing_file(path);
			continue;
		}
		tracefs_put_tracing_file(path);
		c->in[i] = tracefs_cpu_open(fi->inst, i, true);
		if (!c->in[i]) {
			ft_err("cannot open %s of %s: %s", file, fi->name,
			       strerror(errno));
			goto fail;
		}
		if (asprintf(&c->tmpname[i], "%s.cpu%d", out, i) < 0) {
			c->tmpname[i] = NULL;
			goto fail;
		}
		c->tmp[i] = open(c->tmpname[i], O_RDWR | O_CREAT | O_TRUNC |
				 O_CLOEXEC, 0600);
		if (c->tmp[i] < 0) {
			ft_err("cannot create %s: %s", c->tmpname[i],
			       strerror(errno));
			goto fail;
		}
	}
	return c;
fail:
	ft_capture_abort(c);
	return NULL;
}

/*
 * A full or broken disk under the capture files: say which file and why,
 * once, and stop (EAGAIN and EINTR only mean no full page yet).
 */
static int write_failed(struct ft_capture *c, int cpu)
{
	int e = errno;

	if (e != ENOSPC && e != EDQUOT && e != EFBIG && e != EIO && e != EROFS)
		return 0;
	if (!c->err)
		ft_err("writing %s: %s", c->tmpname[cpu], strerror(e));
	c->err = e;
	return 1;
}

/*
 * While tracing, move only full sub-buffers (splice, as trace-cmd does):
 * reading a partial page with read() consumes it, and with the
 * lock:contention fallback the read itself can emit a contention event,
 * so a read() loop chases its own events (seen on 6.12 under QEMU: one
 * event pair per page, forever).  Partial pages are read at the end, with
 * tracing off.
 */
int ft_capture_poll(struct ft_capture *c)
{
	int i, got = 0;

	for (i = 0; i < c->ncpus; i++) {
		int n;

		if (!c->in[i])
			continue;
		for (n = 0; n < 4096; n++) {
			int r = tracefs_cpu_write(c->in[i], c->tmp[i], true);

			if (r < 0 && write_failed(c, i))
				return -1;
			if (r <= 0)
				break;
			c->bytes += r;
			got++;
		}
	}
	return got;
}

/* tracing is off: read what is left, partial pages included */
static int capture_flush(struct ft_capture *c)
{
	int i, n;

	for (i = 0; i < c->ncpus; i++) {
		if (!c->in[i])
			continue;
		for (;;) {
			int r = tracefs_cpu_write(c->in[i], c->tmp[i], true);

			if (r < 0 && write_failed(c, i))
				return -1;
			if (r <= 0)
				break;
		}
		for (n = 0; n < (1 << 20); n++) {
			int r = tracefs_cpu_read(c->in[i], c->page, true);

			if (r <= 0)
				break;
			if (r < (int)c->page_size)
				memset(c->page + r, 0, c->page_size - r);
			if (write(c->tmp[i], c->page, c->page_size) !=
			    (ssize_t)c->page_size) {
				ft_err("writing %s: %s", c->tmpname[i],
				       strerror(errno));
				return -1;
			}
			c->bytes += c->page_size;
		}
	}
	return 0;
}

int ft_capture_finish(struct ft_capture *c, uint64_t *lost)
{
	char **stats = NULL;
	int ret, i;

	tracefs_trace_off(c->fi->inst);
	if (c->err || capture_flush(c)) {
		ft_capture_abort(c);
		return -1;
	}
	*lost = ft_inst_lost(c->fi, &stats);
	ret = ft_tracedat_write(c->out, c->fi, c->ncpus, c->tmpname, stats,
				c->page_size);
	for (i = 0; stats && i < c->ncpus; i++)
		free(stats[i]);
	free(stats);
	ft_capture_abort(c);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* the lock:contention fallback's record side (fallback.c reads it) */

/*
 * A stack with every contention_begin, through the event's own trigger
 * (not the instance's stacktrace option, which would add one to every
 * contention_end and marker too).  The trigger goes with the instance.
 */
int ft_record_stack_trigger(struct ft_inst *fi)
{
	if (tracefs_event_file_write(fi->inst, "lock", "contention_begin",
				     "trigger", "stacktrace") < 0) {
		ft_info("faulttune: cannot add a stacktrace trigger to "
			"lock:contention_begin (%s): waits will not be attributed "
			"to their callers", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * What the report needs to know about this kernel, as text for record's
 * start marker (so the file says it, and trace-cmd report shows it):
 * " fallback cpus=N table=ADDR nbuckets=N table_from=kcore|unknown
 * mutex_bytes=N mutex_bytes_from=btf|kcore|unknown[ why=...]", or "".
 */
const char *ft_record_fallback_marker(struct ft_inst *fi)
{
	static char text[320];
	uint64_t base;
	uint32_t n, stride;
	const char *why, *sfrom;

	if (fi->evset != FT_EVS_CONTENTION)
		return "";
	why = ft_fault_table_find(&base, &n);
	stride = ft_mutex_stride(base, why ? 0 : n, &sfrom);
	snprintf(text, sizeof(text), " fallback cpus=%d table=0x%llx nbuckets=%u "
		 "table_from=%s mutex_bytes=%u mutex_bytes_from=%s%s%s",
		 fi->ncpus, (unsigned long long)base, n,
		 why ? "unknown" : "kcore", stride, sfrom,
		 why ? " why=" : "", why ? why : "");
	return text;
}
