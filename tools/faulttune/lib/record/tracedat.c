// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat version 6 writer (format: trace-cmd.dat.v6(5)).
 *
 * Why write the file here rather than through libtracecmd's output API:
 * tracecmd_output_create() and friends are exported by libtracecmd.so but
 * declared only in trace-cmd's private header, which Debian does not ship;
 * copying their prototypes would bind us to an unstable ABI.  "trace-cmd
 * extract" needs the whole recording to fit in the ring buffer.  Version 6
 * is documented, uncompressed, read by every trace-cmd since 2.x and by
 * libtracecmd, and is just headers, format files and the raw ring-buffer
 * pages we already read from trace_pipe_raw.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>
#include "record.h"

/* option ids of trace-cmd's file format */
#define OPT_DONE	0
#define OPT_CPUSTATS	2
#define OPT_TRACECLOCK	4

struct out {
	int fd;
	int err;
	uint64_t off;
};

static void put(struct out *o, const void *p, size_t len)
{
	const char *c = p;

	while (len && !o->err) {
		ssize_t r = write(o->fd, c, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			o->err = errno ? errno : EIO;
			return;
		}
		c += r;
		len -= r;
		o->off += r;
	}
}

static void put16(struct out *o, uint16_t v) { put(o, &v, 2); }
static void put32(struct out *o, uint32_t v) { put(o, &v, 4); }
static void put64(struct out *o, uint64_t v) { put(o, &v, 8); }

static char *tracing_file(const char *name, size_t *len)
{
	char *path = tracefs_get_tracing_file(name);
	char *data;

	if (!path)
		return NULL;
	data = ft_read_all(path, len);
	tracefs_put_tracing_file(path);
	return data;
}

static void put_file64(struct out *o, const char *name)
{
	size_t len = 0;
	char *data = tracing_file(name, &len);

	put64(o, data ? len : 0);
	if (data)
		put(o, data, len);
	free(data);
}

/* the kallsyms section: a 4-byte size, then /proc/kallsyms as it is */
static void put_kallsyms(struct out *o)
{
	size_t len = 0;
	char *text = ft_read_all("/proc/kallsyms", &len);

	if (!text || len > 0xffffffffu)
		len = 0;
	put32(o, len);
	if (len)
		put(o, text, len);
	free(text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* names of the events of a system that have a format file */
static char **system_events(const char *sys, int *n)
{
	char **ev = tracefs_system_events(NULL, sys);
	int i;

	*n = 0;
	if (!ev)
		return NULL;
	for (i = 0; ev[i]; i++)
		;
	qsort(ev, i, sizeof(char *), cmp_str);
	*n = i;
	return ev;
}

static void put_system_formats(struct out *o, const char *sys, int with_name)
{
	char **ev;
	char name[512];
	int n, i;

	ev = system_events(sys, &n);
	if (with_name) {
		put(o, sys, strlen(sys) + 1);
		put32(o, n);
	} else {
		put32(o, n);
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "events/%s/%s/format", sys, ev[i]);
		put_file64(o, name);
	}
	tracefs_list_free(ev);
}

/* the initial format, the headers, the event formats, kallsyms, cmdlines */
static void put_headers(struct out *o, const struct ft_inst *fi, size_t page_size)
{
	char lsize = sizeof(long);
	int i;

	put(o, "\x17\x08\x44" "tracing" "6", 11);
	put(o, "", 1);
	put(o, "\0", 1);			/* little endian (x86) */
	put(o, &lsize, 1);
	put32(o, page_size);

	/* header info */
	put(o, "header_page", 12);
	put_file64(o, "events/header_page");
	put(o, "header_event", 13);
	put_file64(o, "events/header_event");

	/* ftrace event formats (print carries the trace_marker phases) */
	put_system_formats(o, "ftrace", 0);

	/* event formats of the systems we enabled */
	put32(o, fi->nsys);
	for (i = 0; i < fi->nsys; i++)
		put_system_formats(o, fi->systems[i], 1);

	/*
	 * kallsyms only for the lock:contention fallback, whose lock
	 * addresses and kernel stacks report names offline (and trace-cmd
	 * report prints the stacks with names), and for the kprobe
	 * recorder, whose callers name the ops; no trace_printk formats.
	 */
	if (fi->evset == FT_EVS_CONTENTION || fi->kp)	/* kprobes: callers */
		put_kallsyms(o);
	else
		put32(o, 0);
	put32(o, 0);

	put_file64(o, "saved_cmdlines");
}

/* the CPU count and the options: the trace clock, each CPU's stats */
static void put_options(struct out *o, const struct ft_inst *fi, int ncpus,
			char **cpustats)
{
	char *clock;
	int i;

	put32(o, ncpus);
	put(o, "options  ", 10);
	clock = tracefs_instance_file_read(fi->inst, "trace_clock", NULL);
	if (clock) {
		put16(o, OPT_TRACECLOCK);
		put32(o, strlen(clock) + 1);
		put(o, clock, strlen(clock) + 1);
		free(clock);
	}
	for (i = 0; cpustats && i < ncpus; i++) {
		char hdr[32];
		size_t hl, sl;

		if (!cpustats[i])
			continue;
		hl = snprintf(hdr, sizeof(hdr), "CPU: %d\n", i);
		sl = strlen(cpustats[i]);
		put16(o, OPT_CPUSTATS);
		put32(o, hl + sl + 1);
		put(o, hdr, hl);
		put(o, cpustats[i], sl + 1);
	}
	put16(o, OPT_DONE);
}

/* the flyrecord section: each CPU's offset and size, then its pages */
static void put_flyrecord(struct out *o, int ncpus, char **cpu_files,
			  const uint64_t *sizes, size_t page_size)
{
	uint64_t data_off, pad;
	char buf[65536];
	int i;

	put(o, "flyrecord", 10);
	data_off = o->off + 16ULL * ncpus;
	data_off = (data_off + page_size - 1) & ~((uint64_t)page_size - 1);
	for (i = 0; i < ncpus; i++) {
		put64(o, data_off);
		put64(o, sizes[i]);
		data_off += sizes[i];
		data_off = (data_off + page_size - 1) & ~((uint64_t)page_size - 1);
	}
	for (i = 0; i < ncpus && !o->err; i++) {
		int fd;
		ssize_t r;

		pad = ((o->off + page_size - 1) & ~((uint64_t)page_size - 1)) - o->off;
		memset(buf, 0, pad < sizeof(buf) ? pad : sizeof(buf));
		put(o, buf, pad);
		if (!sizes[i])
			continue;
		fd = open(cpu_files[i], O_RDONLY);
		if (fd < 0) {
			o->err = errno;
			break;
		}
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			put(o, buf, r);
		close(fd);
	}
}

int ft_tracedat_write(const char *out, struct ft_inst *fi, int ncpus,
		      char **cpu_files, char **cpustats, size_t page_size)
{
	struct out o = { .fd = -1 };
	uint64_t *sizes;
	int i, ret = -1;

	sizes = calloc(ncpus, sizeof(*sizes));
	if (!sizes)
		return -1;
	for (i = 0; i < ncpus; i++) {
		struct stat st;

		if (cpu_files[i] && !stat(cpu_files[i], &st))
			sizes[i] = st.st_size;
	}
	o.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o.fd < 0) {
		ft_err("cannot create %s: %s", out, strerror(errno));
		free(sizes);
		return -1;
	}
	put_headers(&o, fi, page_size);
	put_options(&o, fi, ncpus, cpustats);
	put_flyrecord(&o, ncpus, cpu_files, sizes, page_size);
	if (!o.err)
		ret = 0;
	if (close(o.fd) && !o.err)
		o.err = errno ? errno : EIO;
	if (o.err) {
		/* a truncated trace.dat would only mislead a later report */
		ft_err("writing %s: %s (partial file removed)", out,
		       strerror(o.err));
		unlink(out);
		ret = -1;
	}
	free(sizes);
	return ret;
}
