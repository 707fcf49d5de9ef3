// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of faulttune bench, and of tune when it runs no COMMAND:
 * real hugetlb fault (and memtype) loads.
 *
 *  threads  T threads fault distinct pages of one MFD_HUGETLB memfd
 *           (Anton Blanchard's parallel_fault shape: only hash
 *           collisions contend, so the table size matters);
 *  share    P processes fault the same pages of one memfd (true sharing:
 *           every fault of a page takes the same mutex, no size helps);
 *  punch    T threads fallocate, fault and punch holes in their own
 *           ranges of one memfd (fallocate/punch take the mutexes too);
 *  memtype  T threads mmap a PCI BAR resource file, touch it (lookup
 *           per pfn fault), mremap-shrink it, fork, munmap
 *           (memtype_reserve/free/lookup under memtype_lock);
 *  memtype-lookup  T threads fault the pages of their slices of a vfio-pci
 *           BAR one by one (lookup_memtype per fault: lookup.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include "faulttune.h"
#include "bench.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef MFD_HUGE_SHIFT
#define MFD_HUGE_SHIFT 26
#endif

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

static unsigned int log2u64(uint64_t x)
{
	unsigned int l = 0;

	while (x > 1) {
		x >>= 1;
		l++;
	}
	return l;
}

static void pin_to(int i)
{
	cpu_set_t set;
	int n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(i % (n > 0 ? n : 1), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* ---- huge page accounting ---- */

static long hp_read(uint64_t page_size, const char *file)
{
	char path[128], *text;
	long v;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%llukB/%s",
		 (unsigned long long)(page_size >> 10), file);
	text = ft_read_all(path, NULL);
	if (!text)
		return -1;
	v = strtol(text, NULL, 10);
	free(text);
	return v;
}

static uint64_t pages_needed(const struct ft_bench_opts *o, int threads)
{
	uint64_t pages = o->size / o->page_size;

	if (o->shape == FT_SH_PUNCH)
		return (uint64_t)threads * (pages / threads ? pages / threads : 1);
	if (o->shape == FT_SH_MEMTYPE || o->shape == FT_SH_LOOKUP)
		return 0;
	return pages;
}

int ft_bench_check_pages(const struct ft_bench_opts *o, int threads)
{
	uint64_t need = pages_needed(o, threads);
	long fr, total;

	if (!need)
		return 0;
	fr = hp_read(o->page_size, "free_hugepages");
	total = hp_read(o->page_size, "nr_hugepages");
	if (fr < 0) {
		ft_err("no %llu kB huge pages on this system (CONFIG_HUGETLBFS, "
		       "or a page size the CPU does not support)",
		       (unsigned long long)(o->page_size >> 10));
		return -1;
	}
	if ((uint64_t)fr < need) {
		ft_err("bench needs %llu free %llu kB huge pages, %ld are free: "
		       "echo %llu > /sys/kernel/mm/hugepages/hugepages-%llukB/"
		       "nr_hugepages%s",
		       (unsigned long long)need,
		       (unsigned long long)(o->page_size >> 10), fr,
		       (unsigned long long)(total + need - fr),
		       (unsigned long long)(o->page_size >> 10),
		       o->page_size == 2 << 20 ? " (or /proc/sys/vm/nr_hugepages)" : "");
		return -1;
	}
	return 0;
}

static int hugetlb_memfd(const struct ft_bench_opts *o, uint64_t size)
{
	int fd = memfd_create("faulttune-bench", MFD_HUGETLB | MFD_CLOEXEC |
			      (log2u64(o->page_size) << MFD_HUGE_SHIFT));

	if (fd < 0) {
		ft_err("memfd_create(MFD_HUGETLB, %llu kB pages): %s",
		       (unsigned long long)(o->page_size >> 10), strerror(errno));
		return -1;
	}
	if (ftruncate(fd, size)) {
		ft_err("ftruncate hugetlb memfd to %llu bytes: %s",
		       (unsigned long long)size, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- workers ---- */

struct worker {
	pthread_t tid;
	const struct ft_bench_opts *o;
	int id, nthreads;
	char *base;
	int fd;
	uint64_t pages;
	uint64_t ops;
	pthread_barrier_t *bar;
	int err;
};

static void *fault_worker(void *arg)
{
	struct worker *w = arg;
	uint64_t p;

	if (w->o->pin)
		pin_to(w->id);
	pthread_barrier_wait(w->bar);
	/* distinct pages: contiguous chunk per thread, as parallel_fault */
	for (p = w->id * w->pages / w->nthreads;
	     p < (w->id + 1) * w->pages / w->nthreads; p++) {
		w->base[p * w->o->page_size] = 1;
		w->ops++;
	}
	return NULL;
}

static void *punch_worker(void *arg)
{
	struct worker *w = arg;
	uint64_t per = w->pages / w->nthreads ? w->pages / w->nthreads : 1;
	off_t off = (off_t)(w->id * per * w->o->page_size);
	off_t len = (off_t)(per * w->o->page_size);
	int it;
	uint64_t p;

	if (w->o->pin)
		pin_to(w->id);
	pthread_barrier_wait(w->bar);
	for (it = 0; it < w->o->iterations; it++) {
		if (fallocate(w->fd, 0, off, len)) {
			w->err = errno;
			break;
		}
		w->ops += per;
		/* fault half of it back through the mapping */
		for (p = 0; p < per; p += 2) {
			w->base[off + p * w->o->page_size] = 1;
			w->ops++;
		}
		if (fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      off, len)) {
			w->err = errno;
			break;
		}
		w->ops += per;
	}
	return NULL;
}

static void *memtype_worker(void *arg)
{
	struct worker *w = arg;
	long pg = getpagesize();
	size_t len = 16 * pg;
	int it;

	if (w->o->pin)
		pin_to(w->id);
	pthread_barrier_wait(w->bar);
	for (it = 0; it < w->o->iterations; it++) {
		volatile char *m;
		char *r;
		size_t i;

		m = mmap(NULL, len, PROT_READ, MAP_SHARED, w->fd, 0);
		if (m == MAP_FAILED) {
			w->err = errno;
			break;
		}
		w->ops++;		/* reserve */
		for (i = 0; i < len; i += pg) {
			(void)m[i];	/* pfn fault: lookup_memtype */
			w->ops++;
		}
		r = mremap((void *)m, len, pg, 0);	/* shrink: free + reserve */
		if (r != MAP_FAILED) {
			m = r;
			len = pg;
			w->ops++;
		}
		if (w->id == 0 && (it & 15) == 0) {
			pid_t pid = fork();	/* copies the PFNMAP: reserve */

			if (pid == 0)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			w->ops++;
		}
		munmap((void *)m, len);	/* free */
		w->ops++;
		len = 16 * pg;
	}
	return NULL;
}

/* a PCI memory BAR of at least 16 pages that can be mmapped */
static int usable_bar(const char *path)
{
	struct stat st;
	void *m;
	int fd;

	if (stat(path, &st) || st.st_size < 16 * getpagesize())
		return 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	m = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	munmap(m, getpagesize());
	return 1;
}

static const char *find_resource(const struct ft_bench_opts *o)
{
	static char path[300];
	DIR *d;
	struct dirent *de;
	int bar;

	if (o->resource)
		return o->resource;
	/* std VGA's framebuffer first (00:02.0 on i440fx, 00:01.0 on q35) */
	for (bar = 1; bar <= 2; bar++) {
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/0000:00:0%d.0/resource0", bar);
		if (usable_bar(path))
			return path;
	}
	d = opendir("/sys/bus/pci/devices");
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (bar = 0; bar < 6; bar++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/pci/devices/%s/resource%d", de->d_name, bar);
			if (usable_bar(path)) {
				closedir(d);
				return path;
			}
		}
	}
	closedir(d);
	return NULL;
}

static int run_threads(const struct ft_bench_opts *o, int threads, int fd,
		       char *base, uint64_t pages, void *(*fn)(void *),
		       uint64_t *ops)
{
	struct worker *w = calloc(threads, sizeof(*w));
	pthread_barrier_t bar;
	int i, err = 0;

	if (!w)
		return -1;
	pthread_barrier_init(&bar, NULL, threads);
	for (i = 0; i < threads; i++) {
		w[i].o = o;
		w[i].id = i;
		w[i].nthreads = threads;
		w[i].base = base;
		w[i].fd = fd;
		w[i].pages = pages;
		w[i].bar = &bar;
		if (pthread_create(&w[i].tid, NULL, fn, &w[i])) {
			ft_err("cannot create thread %d", i);
			/* the barrier would wait forever: abort */
			exit(1);
		}
	}
	*ops = 0;
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		*ops += w[i].ops;
		if (w[i].err)
			err = w[i].err;
	}
	pthread_barrier_destroy(&bar);
	free(w);
	if (err) {
		ft_err("bench %s: %s", ft_shape_name(o->shape), strerror(err));
		return -1;
	}
	return 0;
}

/* P processes fault every page of the same memfd */
static int run_share(const struct ft_bench_opts *o, int procs, int fd,
		     uint64_t pages, uint64_t *ops)
{
	int i, st, ret = 0, pipefd[2];
	pid_t *pid = calloc(procs, sizeof(*pid));
	char go = 'g';

	if (!pid || pipe(pipefd)) {
		free(pid);
		return -1;
	}
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			char *m, c;
			uint64_t p;

			close(pipefd[1]);
			if (o->pin)
				pin_to(i);
			m = mmap(NULL, pages * o->page_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				_exit(2);
			if (read(pipefd[0], &c, 1) != 1)
				_exit(3);
			/* start at a different page, then all of them */
			for (p = 0; p < pages; p++)
				m[((p + i) % pages) * o->page_size] = 1;
			_exit(0);
		}
		if (pid[i] < 0) {
			ft_err("fork: %s", strerror(errno));
			ret = -1;
			procs = i;
			break;
		}
	}
	close(pipefd[0]);
	for (i = 0; i < procs; i++)
		if (write(pipefd[1], &go, 1) != 1)
			ret = -1;
	close(pipefd[1]);
	for (i = 0; i < procs; i++) {
		waitpid(pid[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			ret = -1;
	}
	free(pid);
	*ops = (uint64_t)procs * pages;
	if (ret)
		ft_err("bench share: a worker process failed (SIGBUS: not "
		       "enough huge pages?)");
	return ret;
}

int ft_bench_run(const struct ft_bench_opts *o, int threads,
		 struct ft_bench_result *r)
{
	uint64_t pages = o->size / o->page_size, ops;
	int rep, fd = -1, ret = 0;
	const char *res = NULL;

	memset(r, 0, sizeof(*r));
	r->threads = threads;
	r->wall_min = 1e30;
	if (o->shape == FT_SH_LOOKUP)
		return ft_lookup_open(o) ? -1 : ft_lookup_run(o, threads, r);
	if (o->shape == FT_SH_MEMTYPE) {
		res = find_resource(o);
		if (!res) {
			ft_err("bench memtype: no mmappable PCI memory BAR of 64 KB "
			       "or more (/sys/bus/pci/devices/*/resourceN); use "
			       "--resource");
			return -1;
		}
		if (o->fmt == FT_FMT_TEXT && !o->quiet)
			ft_info("faulttune: memtype workload on %s", res);
	}
	for (rep = 0; rep < o->reps && !ft_stop && !ret; rep++) {
		struct rusage u0, u1;
		char *base = NULL;
		double t0, t1;
		int who = o->shape == FT_SH_SHARE ? RUSAGE_CHILDREN : RUSAGE_SELF;

		ft_bench_marker(o, "faulttune: phase=bench shape=%s threads=%d rep=%d",
				ft_shape_name(o->shape), threads, rep);
		if (o->shape == FT_SH_MEMTYPE) {
			fd = open(res, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				ft_err("%s: %s", res, strerror(errno));
				return -1;
			}
		} else {
			fd = hugetlb_memfd(o, pages * o->page_size);
			if (fd < 0)
				return -1;
			if (o->shape != FT_SH_SHARE) {
				base = mmap(NULL, pages * o->page_size,
					    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
				if (base == MAP_FAILED) {
					ft_err("mmap hugetlb memfd: %s", strerror(errno));
					close(fd);
					return -1;
				}
			}
		}
		getrusage(who, &u0);
		t0 = ft_now();
		switch (o->shape) {
		case FT_SH_THREADS:
			ret = run_threads(o, threads, fd, base, pages,
					  fault_worker, &ops);
			break;
		case FT_SH_PUNCH:
			ret = run_threads(o, threads, fd, base, pages,
					  punch_worker, &ops);
			break;
		case FT_SH_MEMTYPE:
			ret = run_threads(o, threads, fd, NULL, 0,
					  memtype_worker, &ops);
			break;
		default:
			ret = run_share(o, threads, fd, pages, &ops);
			break;
		}
		t1 = ft_now();
		getrusage(who, &u1);
		if (base)
			munmap(base, pages * o->page_size);
		close(fd);
		if (ret)
			break;
		r->faults += ops;
		r->user += tv(u1.ru_utime) - tv(u0.ru_utime);
		r->sys += tv(u1.ru_stime) - tv(u0.ru_stime);
		r->wall += t1 - t0;
		if (t1 - t0 < r->wall_min)
			r->wall_min = t1 - t0;
		if (t1 - t0 > r->wall_max)
			r->wall_max = t1 - t0;
	}
	return ret ? -1 : 0;
}
