// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune bench -w memtype-lookup: the per-fault lookup_memtype() path.
 *
 * A PCI BAR mapped through vfio-pci is filled one page per fault: the
 * fault handler (vfio_pci_mmap_huge_fault() in 6.12) takes the device's
 * memory_lock for reading and calls vmf_insert_pfn(), which looks up the
 * page's memory type under memtype_lock (track_pfn_insert() ->
 * lookup_memtype()), once per 4 KiB page of device memory.  That is the
 * path of the 2010 report behind this project (vm_insert_pfn of 2 GB per
 * thread, 256 threads, 68 s).
 *
 * T threads each own a slice of the BAR.  A pass faults every page of the
 * slice (a read checks what the previous pass wrote, a write leaves this
 * pass's pattern); the slice is then mapped again over itself
 * (MAP_FIXED), which zaps its page table entries, for the next pass: the
 * timing covers the faulting only.  Passes start together behind a
 * barrier, so no thread's remap (mmap_lock for writing) runs beside
 * another's faults.
 *
 * Faults must be order 0: with THP, vfio 6.12 also has a huge_fault
 * handler that maps a whole PMD (or PUD) when the virtual and the physical
 * address are both 2 MiB (1 GiB) aligned.  Every slice is mapped at a
 * virtual address one page off the physical alignment, so that handler
 * always falls back (VM_FAULT_FALLBACK: "pfn & ((1 << order) - 1)") and
 * each fault maps one page, whatever the THP settings; MADV_NOHUGEPAGE
 * would do too, but only on kernels with THP (EINVAL without).
 *
 * The device: vfio's group interface (container, group, device fd), with
 * the no-IOMMU type for a "noiommu-N" group (vfio.enable_unsafe_noiommu_mode,
 * a guest without an IOMMU) and type 1 for a real IOMMU group.  The BAR is
 * written to: use a device whose BAR is plain memory (QEMU's ivshmem).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/vfio.h>
#include "faulttune.h"
#include "bench.h"

#define LK_PAGE		4096ULL
#define LK_PMD		(2ULL << 20)
#define PCI_SYS		"/sys/bus/pci/devices"
#define VFIO_DRV	"/sys/bus/pci/drivers/vfio-pci"
#define NOIOMMU_PARAM	"/sys/module/vfio/parameters/enable_unsafe_noiommu_mode"

/* the open device: kept for every thread count of one bench run */
static struct {
	int container, group, device;
	char bdf[32];
	char group_path[64];
	int noiommu;
	int bar;
	uint64_t bar_size;	/* bytes of the BAR */
	uint64_t region_off;	/* mmap offset of the BAR in the device fd */
} dev = { .container = -1, .group = -1, .device = -1 };

int ft_valid_bdf(const char *s)
{
	unsigned int d, b, s2, f;
	char end;

	return strlen(s) == 12 &&
	       sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &s2, &f, &end) == 4 &&
	       s[4] == ':' && s[7] == ':' && s[10] == '.' && s2 < 32 && f < 8;
}

/* the driver a PCI device is bound to, "" for none */
static void driver_of(const char *bdf, char *drv, size_t len)
{
	char path[128], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), PCI_SYS "/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	drv[0] = 0;
	if (n > 0) {
		link[n] = 0;
		snprintf(drv, len, "%.63s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
}

/* the vfio group device file of a PCI device, 0, or -1 when it has none */
static int group_file(const char *bdf, char *out, size_t len, int *noiommu)
{
	char path[128], link[PATH_MAX];
	const char *num;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_SYS "/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	num = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(out, len, "/dev/vfio/noiommu-%.16s", num);
	*noiommu = 1;
	if (access(out, F_OK) == 0)
		return 0;
	snprintf(out, len, "/dev/vfio/%.16s", num);
	*noiommu = 0;
	return access(out, F_OK) == 0 ? 0 : -1;
}

/* a device one could bind: QEMU's ivshmem (1af4:1110), for the hint */
static const char *ivshmem_hint(void)
{
	static char bdf[300];
	struct dirent *de;
	DIR *d = opendir(PCI_SYS);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[300], *v, *dv;
		int match;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		snprintf(path, sizeof(path), PCI_SYS "/%s/vendor", de->d_name);
		v = ft_read_all(path, NULL);
		snprintf(path, sizeof(path), PCI_SYS "/%s/device", de->d_name);
		dv = ft_read_all(path, NULL);
		match = v && dv && !strncmp(v, "0x1af4", 6) && !strncmp(dv, "0x1110", 6);
		free(v);
		free(dv);
		if (match) {
			snprintf(bdf, sizeof(bdf), "%s", de->d_name);
			closedir(d);
			return bdf;
		}
	}
	closedir(d);
	return NULL;
}

/* how to bind a device to vfio-pci, for the error line */
static const char *setup_hint(char *buf, size_t len, const char *want)
{
	const char *iv = want ? NULL : ivshmem_hint();
	const char *b = want ? want : iv ? iv : "BDF";

	snprintf(buf, len, "as root: echo 1 > " NOIOMMU_PARAM " (no IOMMU "
		 "only: unsafe for DMA); echo vfio-pci > " PCI_SYS "/%s/"
		 "driver_override; echo %s > /sys/bus/pci/drivers_probe%s", b, b,
		 iv ? " (QEMU's ivshmem, whose BAR2 is plain memory)" : "");
	return buf;
}

/* --device, or the one vfio-pci device of a no-IOMMU group */
static int pick_device(const char *want)
{
	char drv[64], found[8][64], hint[512];
	int nfound = 0, nvfio = 0, noiommu;
	struct dirent *de;
	DIR *d;

	if (want) {
		char path[128];

		snprintf(path, sizeof(path), PCI_SYS "/%s", want);
		if (access(path, F_OK)) {
			ft_err("bench: --device %s: no such PCI device (%s)", want, path);
			return -1;
		}
		driver_of(want, drv, sizeof(drv));
		if (strcmp(drv, "vfio-pci")) {
			ft_err("bench: --device %s is %s%s, not vfio-pci; %s", want,
			       drv[0] ? "bound to " : "bound to no driver", drv,
			       setup_hint(hint, sizeof(hint), want));
			return -1;
		}
		if (group_file(want, dev.group_path, sizeof(dev.group_path),
			       &dev.noiommu)) {
			ft_err("bench: --device %s: no vfio group file in /dev/vfio "
			       "(no iommu_group link in sysfs)", want);
			return -1;
		}
		snprintf(dev.bdf, sizeof(dev.bdf), "%.12s", want);
		return 0;
	}

	d = opendir(VFIO_DRV);
	if (d) {
		while ((de = readdir(d))) {
			char gp[64];

			if (!ft_valid_bdf(de->d_name))
				continue;
			nvfio++;
			if (!group_file(de->d_name, gp, sizeof(gp), &noiommu) &&
			    noiommu && nfound < 8)
				snprintf(found[nfound++], sizeof(found[0]), "%.12s",
					 de->d_name);
		}
		closedir(d);
	}
	if (nfound == 1) {
		snprintf(dev.bdf, sizeof(dev.bdf), "%.12s", found[0]);
		return group_file(dev.bdf, dev.group_path, sizeof(dev.group_path),
				  &dev.noiommu);
	}
	if (nfound > 1) {
		ft_err("bench memtype-lookup: %d vfio-pci devices in no-IOMMU "
		       "mode (%s, %s%s): choose one with --device", nfound,
		       found[0], found[1], nfound > 2 ? ", ..." : "");
		return -1;
	}
	if (access("/dev/vfio/vfio", F_OK) && access(VFIO_DRV, F_OK))
		ft_err("bench memtype-lookup: no vfio (no /dev/vfio/vfio, no "
		       "vfio-pci driver): a kernel with CONFIG_VFIO, "
		       "CONFIG_VFIO_GROUP, CONFIG_VFIO_CONTAINER and "
		       "CONFIG_VFIO_PCI (and CONFIG_VFIO_NOIOMMU without an IOMMU)");
	else if (nvfio)
		ft_err("bench memtype-lookup: %d vfio-pci device%s but none in "
		       "no-IOMMU mode: name the device with --device BDF", nvfio,
		       nvfio > 1 ? "s" : "");
	else
		ft_err("bench memtype-lookup: no PCI device is bound to vfio-pci; "
		       "%s", setup_hint(hint, sizeof(hint), NULL));
	return -1;
}

static int vfio_err(const char *what, const char *path)
{
	int e = errno;

	if (e == EACCES || e == EPERM)
		ft_err("bench memtype-lookup: %s %s: %s (needs root; a no-IOMMU "
		       "group also needs CAP_SYS_RAWIO)", what, path, strerror(e));
	else
		ft_err("bench memtype-lookup: %s %s: %s", what, path, strerror(e));
	return -1;
}

void ft_lookup_close(void)
{
	if (dev.device >= 0)
		close(dev.device);
	if (dev.group >= 0)
		close(dev.group);
	if (dev.container >= 0)
		close(dev.container);
	dev.device = dev.group = dev.container = -1;
}

int ft_lookup_open(const struct ft_bench_opts *o)
{
	struct vfio_group_status gs = { .argsz = sizeof(gs) };
	int type, i;

	if (dev.device >= 0)
		return 0;
	if (pick_device(o->device))
		return -1;
	dev.container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (dev.container < 0)
		return vfio_err("open", "/dev/vfio/vfio");
	if (ioctl(dev.container, VFIO_GET_API_VERSION) != VFIO_API_VERSION) {
		ft_err("bench memtype-lookup: /dev/vfio/vfio speaks another "
		       "API version than %d", VFIO_API_VERSION);
		goto fail;
	}
	type = dev.noiommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU;
	dev.group = open(dev.group_path, O_RDWR | O_CLOEXEC);
	if (dev.group < 0) {
		vfio_err("open", dev.group_path);
		goto fail;
	}
	if (ioctl(dev.group, VFIO_GROUP_GET_STATUS, &gs) ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		ft_err("bench memtype-lookup: group %s is not viable: bind every "
		       "device of the group to vfio-pci", dev.group_path);
		goto fail;
	}
	if (ioctl(dev.group, VFIO_GROUP_SET_CONTAINER, &dev.container)) {
		vfio_err("attach the group to the container:", dev.group_path);
		goto fail;
	}
	if (ioctl(dev.container, VFIO_CHECK_EXTENSION, type) <= 0 ||
	    ioctl(dev.container, VFIO_SET_IOMMU, type)) {
		ft_err("bench memtype-lookup: the vfio container refuses the %s "
		       "IOMMU type%s", dev.noiommu ? "no-IOMMU" : "type 1",
		       dev.noiommu ? " (CONFIG_VFIO_NOIOMMU)" : "");
		goto fail;
	}
	dev.device = ioctl(dev.group, VFIO_GROUP_GET_DEVICE_FD, dev.bdf);
	if (dev.device < 0) {
		vfio_err("get the device fd of", dev.bdf);
		goto fail;
	}
	/* the biggest BAR that vfio lets us mmap */
	dev.bar = -1;
	for (i = VFIO_PCI_BAR0_REGION_INDEX; i <= VFIO_PCI_BAR5_REGION_INDEX; i++) {
		struct vfio_region_info ri = { .argsz = sizeof(ri), .index = i };

		if (ioctl(dev.device, VFIO_DEVICE_GET_REGION_INFO, &ri))
			continue;
		if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP) ||
		    !(ri.flags & VFIO_REGION_INFO_FLAG_WRITE) || ri.size < LK_PAGE)
			continue;
		if (dev.bar < 0 || ri.size > dev.bar_size) {
			dev.bar = i;
			dev.bar_size = ri.size & ~(LK_PAGE - 1);
			dev.region_off = ri.offset;
		}
	}
	if (dev.bar < 0) {
		ft_err("bench memtype-lookup: %s has no BAR that vfio can mmap "
		       "for writing", dev.bdf);
		goto fail;
	}
	return 0;
fail:
	ft_lookup_close();
	return -1;
}

uint64_t ft_lookup_bar_size(void)
{
	return dev.bar_size;
}

const char *ft_lookup_describe(char *buf, size_t len)
{
	snprintf(buf, len, "%s BAR%d (%llu kB, %s vfio group %s)", dev.bdf,
		 dev.bar, (unsigned long long)(dev.bar_size >> 10),
		 dev.noiommu ? "no-IOMMU" : "IOMMU", dev.group_path);
	return buf;
}

/* ---- the workload ---- */

struct lk_run {
	const struct ft_bench_opts *o;
	int nthreads, passes, rep;
	uint64_t pages;			/* per thread */
	pthread_barrier_t bar;
	volatile int go;		/* set by the barrier's serial thread */
	volatile int failed;
};

struct lk_worker {
	pthread_t tid;
	struct lk_run *run;
	int id;
	uint64_t off;			/* of the slice in the BAR */
	char *resv, *va;
	size_t resv_len;
	double *t0, *t1;		/* per pass, ft_now() */
	double user, sys;
	double untimed;			/* s in the fill and read-back faults */
	/* what went wrong, for the message */
	int err;
	const char *what;
	uint64_t bad_page, got, want;
	int bad_pass;
};

static uint64_t pattern(int id, int rep, int pass, uint64_t page)
{
	return 0xf7a5ULL << 48 ^ (uint64_t)id << 36 ^ (uint64_t)rep << 28 ^
	       (uint64_t)(pass + 1) << 20 ^ page;
}

static volatile uint64_t *word(struct lk_worker *w, uint64_t p)
{
	/* a different cache line of each page */
	return (volatile uint64_t *)(w->va + p * LK_PAGE + (p * 64) % LK_PAGE);
}

static int map_slice(struct lk_worker *w)
{
	void *m = mmap(w->va, w->run->pages * LK_PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, dev.device,
		       (off_t)(dev.region_off + w->off));

	if (m == MAP_FAILED) {
		w->err = errno;
		w->what = "mmap of the BAR slice";
		return -1;
	}
	return 0;
}

/* every thread calls it; all get the same answer: go on or stop */
static int next_step(struct lk_run *run)
{
	if (pthread_barrier_wait(&run->bar) == PTHREAD_BARRIER_SERIAL_THREAD)
		run->go = !ft_stop && !run->failed;
	pthread_barrier_wait(&run->bar);
	return run->go;
}

static void fail(struct lk_worker *w)
{
	w->run->failed = 1;
}

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

static void *lookup_worker(void *arg)
{
	struct lk_worker *w = arg;
	struct lk_run *run = w->run;
	uint64_t p, n = run->pages;
	int pass;

	if (run->o->pin) {
		cpu_set_t set;
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		CPU_ZERO(&set);
		CPU_SET(w->id % (ncpu > 0 ? ncpu : 1), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	/* fill the slice with pass -1's pattern (not in the pass times) */
	if (map_slice(w)) {
		fail(w);
	} else {
		double t = ft_now();

		for (p = 0; p < n; p++)
			*word(w, p) = pattern(w->id, run->rep, -1, p);
		w->untimed += ft_now() - t;
	}
	for (pass = 0; next_step(run) && pass <= run->passes; pass++) {
		struct rusage u0, u1;

		/* a fresh mapping: every page faults again */
		if (map_slice(w)) {
			fail(w);
			continue;
		}
		if (!next_step(run))
			break;
		if (pass == run->passes) {
			double t = ft_now();

			/* the last pass's data, read back through a new mapping */
			for (p = 0; p < n; p++) {
				uint64_t want = pattern(w->id, run->rep, pass - 1, p);
				uint64_t got = *word(w, p);

				if (got != want && !w->what) {
					w->what = "data check";
					w->bad_page = p;
					w->bad_pass = pass;
					w->got = got;
					w->want = want;
					fail(w);
				}
			}
			w->untimed += ft_now() - t;
			break;
		}
		getrusage(RUSAGE_THREAD, &u0);
		w->t0[pass] = ft_now();
		for (p = 0; p < n; p++) {
			volatile uint64_t *x = word(w, p);
			uint64_t got = *x;	/* the fault: lookup_memtype */

			if (got != pattern(w->id, run->rep, pass - 1, p) && !w->what) {
				w->what = "data check";
				w->bad_page = p;
				w->bad_pass = pass;
				w->got = got;
				w->want = pattern(w->id, run->rep, pass - 1, p);
				fail(w);
			}
			*x = pattern(w->id, run->rep, pass, p);
		}
		w->t1[pass] = ft_now();
		getrusage(RUSAGE_THREAD, &u1);
		w->user += tv(u1.ru_utime) - tv(u0.ru_utime);
		w->sys += tv(u1.ru_stime) - tv(u0.ru_stime);
	}
	return NULL;
}

static int slice_setup(struct lk_worker *w)
{
	size_t len = w->run->pages * LK_PAGE;
	uintptr_t base;

	/*
	 * Room for the slice at a virtual address that is one page off the
	 * 2 MiB alignment of its physical address (the BAR is aligned to its
	 * size), so that no 2 MiB virtual block maps a 2 MiB aligned pfn
	 * range: vfio's huge_fault falls back to one page per fault.
	 */
	w->resv_len = len + 2 * LK_PMD;
	w->resv = mmap(NULL, w->resv_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (w->resv == MAP_FAILED) {
		w->resv = NULL;
		return -1;
	}
	base = ((uintptr_t)w->resv + LK_PMD - 1) & ~(uintptr_t)(LK_PMD - 1);
	w->va = (char *)base + (w->off + LK_PAGE) % LK_PMD;
	return 0;
}

/* says what went wrong in a rep's threads, if anything did: 1 */
static int rep_failed(const struct lk_worker *w, int threads)
{
	int i, failed = 0;

	for (i = 0; i < threads; i++) {
		if (!w[i].what)
			continue;
		if (w[i].err)
			ft_err("bench memtype-lookup: thread %d: %s: %s", i,
			       w[i].what, strerror(w[i].err));
		else
			ft_err("bench memtype-lookup: data check failed: "
			       "thread %d, BAR offset 0x%llx, pass %d: read "
			       "0x%016llx where the pass before wrote 0x%016llx", i,
			       (unsigned long long)(w[i].off +
						    w[i].bad_page * LK_PAGE),
			       w[i].bad_pass,
			       (unsigned long long)w[i].got,
			       (unsigned long long)w[i].want);
		failed = 1;
	}
	return failed;
}

/* a rep's times: each pass's wall from its first start to its last end */
static void rep_times(const struct lk_worker *w, int threads, int passes,
		      struct ft_bench_result *r)
{
	int i, pass;

	for (pass = 0; pass < passes; pass++) {
		double s = 1e300, e = 0;

		for (i = 0; i < threads; i++) {
			struct ft_thread_time *tt = &r->thread_time[i];
			uint64_t ns = (uint64_t)((w[i].t1[pass] - w[i].t0[pass]) * 1e9);

			if (w[i].t0[pass] < s)
				s = w[i].t0[pass];
			if (w[i].t1[pass] > e)
				e = w[i].t1[pass];
			if (ns < tt->min_ns)
				tt->min_ns = ns;
			if (ns > tt->max_ns)
				tt->max_ns = ns;
			tt->sum_ns += ns;
			tt->passes++;
		}
		r->wall += e - s;
		if (e - s < r->wall_min)
			r->wall_min = e - s;
		if (e - s > r->wall_max)
			r->wall_max = e - s;
	}
	for (i = 0; i < threads; i++) {
		r->user += w[i].user;
		r->sys += w[i].sys;
		r->untimed_ns += (uint64_t)(w[i].untimed * 1e9);
	}
}

int ft_lookup_run(const struct ft_bench_opts *o, int threads,
		  struct ft_bench_result *r)
{
	uint64_t total = o->size_set ? o->size : dev.bar_size;
	struct lk_worker *w = NULL;
	struct lk_run run;
	int i, rep, ret = 0;

	if (total % LK_PAGE || total > dev.bar_size) {
		ft_err("bench memtype-lookup: --size %llu: want a multiple of "
		       "4096 up to the BAR's %llu bytes",
		       (unsigned long long)total,
		       (unsigned long long)dev.bar_size);
		return -1;
	}
	if ((uint64_t)threads > total / LK_PAGE) {
		ft_err("bench memtype-lookup: %d threads for %llu pages: at "
		       "least one page per thread", threads,
		       (unsigned long long)(total / LK_PAGE));
		return -1;
	}
	memset(&run, 0, sizeof(run));
	run.o = o;
	run.nthreads = threads;
	run.passes = o->iterations;
	run.pages = total / LK_PAGE / threads;
	r->pages_per_pass = run.pages;
	r->thread_time = calloc(threads, sizeof(*r->thread_time));
	w = calloc(threads, sizeof(*w));
	if (!w || !r->thread_time) {
		ft_err("bench memtype-lookup: out of memory");
		free(w);
		return -1;
	}
	for (i = 0; i < threads; i++) {
		w[i].run = &run;
		w[i].id = i;
		w[i].off = (uint64_t)i * run.pages * LK_PAGE;
		w[i].t0 = calloc(run.passes, sizeof(double));
		w[i].t1 = calloc(run.passes, sizeof(double));
		if (!w[i].t0 || !w[i].t1 || slice_setup(&w[i])) {
			ft_err("bench memtype-lookup: out of memory or address "
			       "space for %d slices of %llu pages", threads,
			       (unsigned long long)run.pages);
			ret = -1;
			goto out;
		}
		r->thread_time[i].min_ns = UINT64_MAX;
	}

	for (rep = 0; rep < o->reps && !ft_stop && !ret; rep++) {
		ft_bench_marker(o, "faulttune: phase=bench shape=%s threads=%d rep=%d",
				ft_shape_name(o->shape), threads, rep);
		run.rep = rep;
		pthread_barrier_init(&run.bar, NULL, threads);
		for (i = 0; i < threads; i++) {
			w[i].user = w[i].sys = w[i].untimed = 0;
			if (pthread_create(&w[i].tid, NULL, lookup_worker, &w[i])) {
				ft_err("cannot create thread %d", i);
				/* the barrier would wait forever */
				exit(1);
			}
		}
		for (i = 0; i < threads; i++)
			pthread_join(w[i].tid, NULL);
		pthread_barrier_destroy(&run.bar);

		if (rep_failed(w, threads))
			ret = -1;
		if (ret || ft_stop)
			break;
		rep_times(w, threads, run.passes, r);
		r->untimed_faults += 2ULL * threads * run.pages;
		r->faults += (uint64_t)threads * run.pages * run.passes;
	}
out:
	for (i = 0; i < threads; i++) {
		if (w[i].resv)
			munmap(w[i].resv, w[i].resv_len);
		free(w[i].t0);
		free(w[i].t1);
	}
	free(w);
	return ret;
}

void ft_lookup_print_threads(FILE *f, const struct ft_bench_result *r,
			     enum ft_fmt fmt)
{
	char b[3][32];
	int i;

	if (fmt == FT_FMT_JSON) {
		/*
		 * The fill before the first pass and the read-back after the
		 * last fault every page too: not in the pass times, but in a
		 * recording of the run (one lookup per fault).
		 */
		fprintf(f, ",\"pages_per_pass\":%llu,\"untimed_faults\":%llu,"
			"\"untimed_fault_ns\":%llu,\"per_thread\":[",
			(unsigned long long)r->pages_per_pass,
			(unsigned long long)r->untimed_faults,
			(unsigned long long)r->untimed_ns);
		for (i = 0; i < r->threads; i++) {
			const struct ft_thread_time *t = &r->thread_time[i];

			fprintf(f, "%s{\"thread\":%d,\"passes\":%llu,\"min_ns\":%llu,"
				"\"max_ns\":%llu,\"avg_ns\":%llu}", i ? "," : "", i,
				(unsigned long long)t->passes,
				(unsigned long long)t->min_ns,
				(unsigned long long)t->max_ns,
				(unsigned long long)(t->passes ? t->sum_ns / t->passes : 0));
		}
		fputc(']', f);
		return;
	}
	fprintf(f, "  %d thread%s, time per fault-pass of %llu pages:\n",
		r->threads, r->threads > 1 ? "s" : "",
		(unsigned long long)r->pages_per_pass);
	for (i = 0; i < r->threads; i++) {
		const struct ft_thread_time *t = &r->thread_time[i];

		fprintf(f, "  thread %d: min %s max %s avg %s\n", i,
			ft_fmt_ns(t->min_ns, b[0], 32), ft_fmt_ns(t->max_ns, b[1], 32),
			ft_fmt_ns(t->passes ? t->sum_ns / t->passes : 0, b[2], 32));
	}
}
