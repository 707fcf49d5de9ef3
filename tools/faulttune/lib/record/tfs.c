// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs helpers: faulttune works in its own instance "faulttune-<pid>",
 * never in the top-level buffer, so nothing it does disturbs other tracing
 * users and everything it touched goes away with the instance.  A run that
 * was SIGKILLed leaves its instance behind: ft_cleanup_stale() removes the
 * instances nobody owns any more.
 *
 * Ownership is an flock() on the instance directory, held by the owner
 * for as long as it runs and dropped by the kernel when it dies.  A pid
 * alone does not tell: kill(pid, 0) answers for this PID namespace only,
 * and tracefs is shared by all of them, so a run in a container ended a
 * live recording of the host's.
 *
 * Which events the instance records is select.c's; the signal handlers
 * that set ft_stop, and the tracefs mount a run makes and undoes at exit,
 * are the commands' (cmd-util.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <tracefs.h>
#include "record.h"

/* set by the commands' signal handler: the library stops at the next poll */
volatile int ft_stop;
volatile int ft_stop_sig;

/* a tracefs mount anywhere (/sys/kernel/tracing or debugfs/tracing) */
int ft_tracefs_mounted(const char *mounts)
{
	char line[1024], dev[256], dir[512], type[64];
	int found = 0;
	FILE *f = fopen(mounts ? mounts : "/proc/self/mounts", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "tracefs"))
			found = 1;
	fclose(f);
	return found;
}

/*
 * Take the owner's lock of an instance: an fd with LOCK_EX on its
 * directory, or -1 (errno EWOULDBLOCK: somebody holds it).
 */
static int inst_lock(struct tracefs_instance *inst)
{
	char *dir = tracefs_instance_get_dir(inst);
	int fd, e;

	if (!dir)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(dir);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

struct stale_ctx {
	int quiet;
	int removed;
};

static int stale_cb(const char *name, void *data)
{
	struct stale_ctx *sc = data;
	struct tracefs_instance *inst;
	char *end;
	long pid;
	int lock;

	if (strncmp(name, "faulttune-", 10))
		return 0;
	pid = strtol(name + 10, &end, 10);
	if (*end || pid <= 0)
		return 0;
	if (pid == getpid())
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	/*
	 * Locked: its owner runs, in whatever PID namespace.  Unlocked but
	 * the pid is alive here: a faulttune that predates the lock, or the
	 * owner between mkdir and flock; leave it too.
	 */
	lock = inst_lock(inst);
	if (lock < 0 || !kill(pid, 0) || errno != ESRCH) {
		if (!sc->quiet)
			ft_info("faulttune: instance %s belongs to a running "
				"faulttune (pid %ld), left alone", name, pid);
		if (lock >= 0)
			close(lock);
		tracefs_instance_free(inst);
		return 0;
	}
	tracefs_trace_off(inst);
	if (tracefs_instance_destroy(inst) == 0) {
		sc->removed++;
		if (!sc->quiet)
			ft_info("faulttune: removed stale instance %s (its run was "
				"killed)", name);
	} else {
		ft_err("cannot remove stale instance %s: %s", name, strerror(errno));
	}
	close(lock);
	tracefs_instance_free(inst);
	return 0;
}

int ft_cleanup_stale(int quiet)
{
	struct stale_ctx sc = { .quiet = quiet };

	tracefs_instances_walk(stale_cb, &sc);
	/* and the kprobe events of those runs, now without an instance */
	return sc.removed + ft_kprobes_stale(quiet, NULL);
}

/*
 * Whether a running faulttune owns the instance name (its flock), for
 * what ft_stale_count() tells: 1 when it cannot be told.
 */
int ft_inst_owned(const char *name)
{
	struct tracefs_instance *inst;
	int lock;

	if (!tracefs_instance_exists(name))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 1;
	lock = inst_lock(inst);
	tracefs_instance_free(inst);
	if (lock < 0)
		return 1;
	close(lock);
	return 0;
}

/*
 * The kprobe events of killed runs still in the kernel, removing nothing:
 * what report names, since each stays armed and taxes its paths.  0
 * where tracefs is not readable (not root, not mounted).
 */
int ft_stale_count(void)
{
	if (geteuid() || !ft_tracefs_mounted(NULL))
		return 0;
	return ft_kprobes_stale(1, ft_inst_owned);
}

int ft_inst_create(struct ft_inst *fi, size_t buffer_kb)
{
	memset(fi, 0, sizeof(*fi));
	snprintf(fi->name, sizeof(fi->name), "faulttune-%d", getpid());
	fi->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (fi->ncpus < 1)
		fi->ncpus = 1;
	fi->lock = -1;
	fi->inst = tracefs_instance_create(fi->name);
	if (!fi->inst) {
		ft_err("cannot create tracefs instance %s: %s", fi->name,
		       strerror(errno));
		return -1;
	}
	fi->lock = inst_lock(fi->inst);
	if (fi->lock < 0 || !tracefs_instance_exists(fi->name)) {
		ft_err("cannot take ownership of tracefs instance %s: %s",
		       fi->name, fi->lock < 0 ? strerror(errno) :
		       "removed by another faulttune");
		ft_inst_destroy(fi);
		return -1;
	}
	tracefs_trace_off(fi->inst);
	if (buffer_kb &&
	    tracefs_instance_set_buffer_size(fi->inst, buffer_kb, -1) < 0) {
		ft_err("cannot set the buffer size to %zu KB per CPU", buffer_kb);
		ft_inst_destroy(fi);
		return -1;
	}
	return 0;
}

int ft_inst_marker(struct ft_inst *fi, const char *fmt, ...)
{
	char buf[1024];		/* what trace_marker takes on every kernel */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	return tracefs_instance_file_write(fi->inst, "trace_marker", buf) < 0 ?
		-1 : 0;
}

char *ft_inst_file(struct ft_inst *fi, const char *file)
{
	return tracefs_instance_get_file(fi->inst, file);
}

uint64_t ft_inst_lost(struct ft_inst *fi, char ***stats)
{
	uint64_t lost = 0;
	char **st = calloc(fi->ncpus + 1, sizeof(char *));
	int cpu;

	for (cpu = 0; cpu < fi->ncpus; cpu++) {
		char file[64], *text, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(fi->inst, file, NULL);
		if (!text)
			continue;
		p = strstr(text, "\noverrun:");
		if (p)
			lost += strtoull(p + 9, NULL, 10);
		p = strstr(text, "dropped events:");
		if (p)
			lost += strtoull(p + 15, NULL, 10);
		if (st)
			st[cpu] = text;
		else
			free(text);
	}
	if (stats)
		*stats = st;
	else if (st) {
		for (cpu = 0; cpu < fi->ncpus; cpu++)
			free(st[cpu]);
		free(st);
	}
	return lost;
}

void ft_inst_destroy(struct ft_inst *fi)
{
	if (!fi->inst)
		return;
	tracefs_trace_off(fi->inst);
	if (tracefs_instance_destroy(fi->inst))
		ft_err("cannot remove tracefs instance %s: %s", fi->name,
		       strerror(errno));
	tracefs_instance_free(fi->inst);
	fi->inst = NULL;
	ft_kprobes_destroy(fi->kp);	/* after: no instance has them on */
	fi->kp = NULL;
	if (fi->lock >= 0)
		close(fi->lock);
	fi->lock = -1;
}
