// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune bench: real hugetlb fault workloads.
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
#include <getopt.h>
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
		if (o->fmt == FT_FMT_TEXT && !getenv("FAULTTUNE_QUIET"))
			fprintf(stderr, "faulttune: memtype workload on %s\n", res);
	}
	for (rep = 0; rep < o->reps && !ft_stop && !ret; rep++) {
		struct rusage u0, u1;
		char *base = NULL;
		double t0, t1;
		int who = o->shape == FT_SH_SHARE ? RUSAGE_CHILDREN : RUSAGE_SELF;

		ft_marker("faulttune: phase=bench shape=%s threads=%d rep=%d",
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

static void bench_usage(FILE *f)
{
	fprintf(f,
"usage: faulttune bench [options]\n"
"  -w, --workload W    threads (default) | share | punch | memtype | memtype-lookup\n"
"  -t, --threads LIST  threads (processes for share), e.g. 1,2,4 (default:\n"
"                      1 and the number of online CPUs)\n"
"  -s, --size SIZE     size of the mapping (default 64M; memtype-lookup:\n"
"                      the whole BAR)\n"
"  -p, --page-size SZ  huge page size (default 2M)\n"
"  -r, --reps N        repetitions per thread count (default 3)\n"
"      --iterations N  loops per thread for punch and memtype (default\n"
"                      20/2000), fault-passes for memtype-lookup (default 10)\n"
"  -R, --resource FILE PCI resource file for memtype (default: the VGA\n"
"                      framebuffer, else the first mmappable BAR >= 64 KB)\n"
"  -D, --device BDF    vfio-pci device for memtype-lookup, e.g. 0000:00:04.0\n"
"                      (default: the one in no-IOMMU mode); its biggest BAR\n"
"                      is written to: plain memory only, such as ivshmem's\n"
"      --pin           pin thread i to CPU i\n"
"  -j, --json          JSON output\n"
"  -h, --help\n");
}

static int parse_list(const char *s, struct ft_bench_opts *o)
{
	char buf[256], *tok, *save;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", s);
	o->nthreads = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (ft_parse_u64(tok, &v) || !v || v > 4096 || o->nthreads >= 16)
			return -1;
		o->threads[o->nthreads++] = (int)v;
	}
	return o->nthreads ? 0 : -1;
}

/*
 * Longer than the rest on purpose: the option table and one getopt switch
 * with a case per option, each a few lines of range checks; split, an
 * option's parsing would be in two places.
 */
/* one option's value into o: 0; -1, said; 1: not one of bench's */
static int bench_opt(int c, const char *arg, struct ft_bench_opts *o)
{
	uint64_t v;
	int i;

	switch (c) {
	case 'w':
		for (i = 0; i < FT_SH_NR; i++)
			if (!strcmp(arg, ft_shape_name(i)))
				break;
		if (i == FT_SH_NR) {
			ft_err("bench: unknown workload '%s' (threads, share, "
			       "punch, memtype, memtype-lookup)", arg);
			return -1;
		}
		o->shape = i;
		break;
	case 't':
		if (parse_list(arg, o)) {
			ft_err("bench: bad thread list '%s'", arg);
			return -1;
		}
		break;
	case 's':
		if (ft_parse_size(arg, &o->size) || !o->size) {
			ft_err("bench: bad size '%s'", arg);
			return -1;
		}
		o->size_set = 1;
		break;
	case 'p':
		if (ft_parse_size(arg, &o->page_size) ||
		    !ft_is_pow2(o->page_size) || o->page_size < 4096) {
			ft_err("bench: bad page size '%s'", arg);
			return -1;
		}
		break;
	case 'r':
		if (ft_parse_u64(arg, &v) || !v || v > 100000) {
			ft_err("bench: bad repetitions '%s'", arg);
			return -1;
		}
		o->reps = (int)v;
		break;
	case 'i':
		if (ft_parse_u64(arg, &v) || !v || v > 100000000) {
			ft_err("bench: bad iterations '%s'", arg);
			return -1;
		}
		o->iterations = (int)v;
		break;
	case 'R':
		o->resource = arg;
		break;
	case 'D':
		if (!ft_valid_bdf(arg)) {
			ft_err("bench: bad --device '%s': want a PCI address "
			       "such as 0000:00:04.0", arg);
			return -1;
		}
		o->device = arg;
		break;
	case 'P':
		o->pin = 1;
		break;
	case 'j':
		o->fmt = FT_FMT_JSON;
		break;
	default:
		return 1;
	}
	return 0;
}

/* what the options say together, and the defaults that follow from them */
static int bench_finish_opts(struct ft_bench_opts *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!o->iterations)
		o->iterations = o->shape == FT_SH_MEMTYPE ? 2000 :
				o->shape == FT_SH_LOOKUP ? 10 : 20;
	if (o->device && o->shape != FT_SH_LOOKUP) {
		ft_err("bench: --device is for -w memtype-lookup only");
		return -1;
	}
	if (o->shape != FT_SH_LOOKUP && o->size < o->page_size) {
		ft_err("bench: size %llu is smaller than one huge page",
		       (unsigned long long)o->size);
		return -1;
	}
	if (!o->nthreads) {
		o->threads[o->nthreads++] = 1;
		if (ncpu > 1)
			o->threads[o->nthreads++] = (int)ncpu;
	}
	return 0;
}

int ft_bench_parse_args(int argc, char **argv, struct ft_bench_opts *o)
{
	static const struct option lo[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "reps", required_argument, NULL, 'r' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "resource", required_argument, NULL, 'R' },
		{ "device", required_argument, NULL, 'D' },
		{ "pin", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* before one meaning per letter: -i and -P were these */
	static const char *const moved[] = { "i--iterations", "P--pin", NULL };
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->size = 64ULL << 20;
	o->page_size = 2ULL << 20;
	o->reps = 3;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+w:t:s:p:r:R:D:jh", lo, NULL)) != -1) {
		if (c == 'h') {
			bench_usage(stdout);
			return 1;
		}
		ret = bench_opt(c, optarg, o);
		if (ret > 0) {
			ft_opt_bad("bench", argv, moved);
			bench_usage(stderr);
		}
		if (ret)
			return -1;
	}
	if (optind < argc) {
		ft_err("bench: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return bench_finish_opts(o);
}

/* what runs, before the results: JSON's opening, or the text table's header */
static void print_head(const struct ft_bench_opts *o)
{
	char desc[160];

	if (o->fmt == FT_FMT_JSON) {
		printf("{\"workload\":\"%s\",\"size\":%llu,\"page_size\":%llu,"
		       "\"reps\":%d,\"pin\":%s,", ft_shape_name(o->shape),
		       (unsigned long long)o->size,
		       (unsigned long long)(o->shape == FT_SH_LOOKUP ? 4096 : o->page_size),
		       o->reps, o->pin ? "true" : "false");
		if (o->shape == FT_SH_LOOKUP) {
			printf("\"device\":");
			ft_json_str(stdout, ft_lookup_describe(desc, sizeof(desc)));
			printf(",\"passes\":%d,", o->iterations);
		}
		printf("\"results\":[");
	} else if (o->shape == FT_SH_MEMTYPE) {
		printf("workload memtype: %d iterations per thread, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n", o->iterations, o->reps,
		       o->pin ? ", pinned" : "", "threads", "user", "system", "wall",
		       "ops/cpu-s", "ops/wall-s");
	} else if (o->shape == FT_SH_LOOKUP) {
		/* times of the fault-passes only, not of the remaps between */
		printf("workload memtype-lookup: %s, 4 kB pages, %d fault-passes "
		       "per thread, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n",
		       ft_lookup_describe(desc, sizeof(desc)), o->iterations,
		       o->reps, o->pin ? ", pinned" : "", "threads", "user",
		       "system", "wall", "faults/cpu-s", "faults/wall-s");
	} else {
		printf("workload %s: %llu MB of %llu kB pages, %d reps%s\n"
		       "%8s %10s %10s %10s %14s %14s\n",
		       ft_shape_name(o->shape), (unsigned long long)(o->size >> 20),
		       (unsigned long long)(o->page_size >> 10), o->reps,
		       o->pin ? ", pinned" : "", o->shape == FT_SH_SHARE ?
		       "procs" : "threads", "user", "system", "wall",
		       o->shape == FT_SH_PUNCH || o->shape == FT_SH_MEMTYPE ?
		       "ops/cpu-s" : "faults/cpu-s",
		       o->shape == FT_SH_PUNCH || o->shape == FT_SH_MEMTYPE ?
		       "ops/wall-s" : "faults/wall-s");
	}
}

int cmd_bench(int argc, char **argv)
{
	struct ft_bench_opts o;
	struct ft_bench_result r, done[16];
	int ret, i, ndone = 0, maxt = 0;

	ret = ft_bench_parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 2 : 0;
	for (i = 0; i < o.nthreads; i++)
		if (o.threads[i] > maxt)
			maxt = o.threads[i];
	if (ft_bench_check_pages(&o, maxt))
		return 1;
	if (o.shape == FT_SH_LOOKUP) {
		if (ft_lookup_open(&o))
			return 1;
		if (!o.size_set)	/* the whole BAR */
			o.size = ft_lookup_bar_size();
	}
	ft_install_signals();
	print_head(&o);
	ret = 0;
	for (i = 0; i < o.nthreads && !ft_stop; i++) {
		double cpu;

		if (ft_bench_run(&o, o.threads[i], &r)) {
			free(r.thread_time);
			ret = 1;
			break;
		}
		if (ft_stop) {
			free(r.thread_time);
			break;
		}
		cpu = r.user + r.sys;
		if (o.fmt == FT_FMT_JSON) {
			printf("%s{\"threads\":%d,\"faults\":%llu,\"user_s\":%.6f,"
			       "\"system_s\":%.6f,\"wall_s\":%.6f,\"wall_min_s\":%.6f,"
			       "\"wall_max_s\":%.6f,\"faults_per_cpu_s\":%.1f,"
			       "\"faults_per_wall_s\":%.1f", i ? "," : "",
			       r.threads, (unsigned long long)r.faults, r.user,
			       r.sys, r.wall, r.wall_min, r.wall_max,
			       cpu > 0 ? r.faults / cpu : 0.0,
			       r.wall > 0 ? r.faults / r.wall : 0.0);
			if (r.thread_time)
				ft_lookup_print_threads(stdout, &r, FT_FMT_JSON);
			printf("}");
		} else {
			printf("%8d %10.3f %10.3f %10.3f %14.0f %14.0f\n",
			       r.threads, r.user, r.sys, r.wall,
			       cpu > 0 ? r.faults / cpu : 0.0,
			       r.wall > 0 ? r.faults / r.wall : 0.0);
		}
		fflush(stdout);
		/* the per-thread times follow the table */
		if (r.thread_time && o.fmt != FT_FMT_JSON)
			done[ndone++] = r;
		else
			free(r.thread_time);
	}
	if (o.fmt == FT_FMT_JSON && !ret)
		printf("]}\n");
	for (i = 0; i < ndone; i++) {
		if (!ret && !ft_stop)
			ft_lookup_print_threads(stdout, &done[i], FT_FMT_TEXT);
		free(done[i].thread_time);
	}
	ft_lookup_close();
	if (ret)
		return ret;
	if (ft_stop) {
		ft_err("bench: interrupted");
		return 130;
	}
	return 0;
}
