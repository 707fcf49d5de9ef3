// SPDX-License-Identifier: GPL-2.0
/*
 * ft_paths: the users of the fault mutex table that kernel-race.t does not
 * reach, each beside a thread resizing the table back to back (issue 21,
 * make mutation-check).
 *
 *   ft_paths uffd ROUNDS	userfaultfd MISSING on a hugetlb memfd: a
 *	thread touches 4 pages, a handler resolves each fault with
 *	UFFDIO_COPY (the fault drops its mutex before it waits, the copy
 *	takes it), then the hole is punched; the copied bytes are checked.
 *   ft_paths wp ROUNDS		hugetlb_wp() from the owner of a private
 *	mapping with no free huge page: a child shares the pages, the
 *	parent writes them, the copy cannot be allocated, so the kernel
 *	drops the fault mutex, unmaps the child's pages and takes the mutex
 *	again; the parent's bytes are checked.  Uses every free huge page.
 *   ft_paths wpgiga ROUNDS	wp, with a thread beside it that faults
 *	1 GiB surplus pages (MAP_NORESERVE: allocated under the fault
 *	mutex, by alloc_contig, which on 7.3 migrates in-use 2 MiB hugetlb
 *	folios and waits for their locks), so that a resize can be pending
 *	while the owner's copy-on-write retakes its mutex with its old
 *	folio locked and the gigantic allocation waits for that folio: a
 *	deadlock unless the retake cannot wait for the resize (issue 39).
 *	Prints how many gigantic faults ran and how many of the owner's
 *	pages they moved (pagemap), which shows the state was reached;
 *	77 when no 1 GiB page can be allocated here.
 *   ft_paths memfd ROUNDS	udmabuf from an unfaulted hugetlb memfd
 *	(memfd_pin_folios() -> memfd_alloc_folio(), the mm/memfd.c user),
 *	then faults of the same memfd; needs /dev/udmabuf.
 *   ft_paths fallocate ROUNDS	fallocate() of 4 pages, again over the
 *	present pages, faults on them from 2 threads, then a punch.
 *
 * A last argument "noresize" runs the path alone, with no resizer and no
 * watchdog: on a stock kernel, which has no knob, under the kprobe
 * recorder (faulttune-kprobe.t: the drops named by their release's site).
 *
 * Prints "resizes=N" and exits 0 when every round finished and every
 * check held, 1 on a failed check (named on stderr), 2 on a setup error,
 * 3 when the resizer did not complete a resize within 20 s of the end
 * (a fault mutex or the table's read side left held), 77 when the path
 * cannot be reached here (no /dev/udmabuf).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SHRINK 0x0002
#endif

#define HPAGE	(2UL << 20)
#define GPAGE	(1UL << 30)
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB	(30 << 26)
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define NP	4
#define KNOB	"/sys/kernel/debug/hugetlb/num_fault_mutexes"

static volatile int stop;
static volatile unsigned long resizes;

static void fail(const char *what)
{
	fprintf(stderr, "ft_paths: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void bad(const char *what)
{
	fprintf(stderr, "ft_paths: check failed: %s\n", what);
	exit(1);
}

static int resize_once(unsigned int i)
{
	static const char *const sizes[] = { "1", "2048", "2", "64", "16", "512", "4", "32" };
	int fd = open(KNOB, O_WRONLY), ret;

	if (fd < 0)
		fail(KNOB);
	ret = write(fd, sizes[i % 8], strlen(sizes[i % 8])) < 0 ? -1 : 0;
	close(fd);
	return ret;
}

/* Resizes back to back until the run stops, then once more. */
static void *resizer(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (!stop) {
		if (resize_once(i++))
			fail("resize");
		resizes++;
	}
	if (resize_once(i))
		fail("resize");
	resizes++;
	return NULL;
}

/*
 * A fault mutex or a read side of the table left held stops every resize
 * (and then every fault): no resize for 20 s, during the run or for the
 * one after it, is a failure.  Exits at once: the stuck threads cannot be
 * joined.
 */
static void *watchdog(void *arg)
{
	unsigned long seen = resizes;
	int still = 0;

	(void)arg;
	for (;;) {
		usleep(100000);
		if (resizes != seen) {
			seen = resizes;
			still = 0;
			continue;
		}
		if (++still == 200) {
			fprintf(stderr, "ft_paths: no resize completed for 20 s: a fault mutex or the table's read side is left held\n");
			fflush(stderr);
			_exit(3);
		}
	}
}

static int hugetlb_memfd(size_t size)
{
	int fd = memfd_create("ft_paths", MFD_HUGETLB | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, size))
		fail("memfd");
	return fd;
}

static char *map(int fd, size_t size, int flags)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p == MAP_FAILED)
		fail("mmap");
	return p;
}

/* --- uffd ---------------------------------------------------------------- */

static int uffd;
static char *ubase, *usrc;

static void *uffd_handler(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd pfd = { .fd = uffd, .events = POLLIN };
		struct uffd_msg msg;
		struct uffdio_copy copy;
		unsigned long page;

		if (poll(&pfd, 1, 200) <= 0) {
			if (stop)
				return NULL;
			continue;
		}
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		page = (msg.arg.pagefault.address - (unsigned long)ubase) / HPAGE;
		memset(usrc, 'a' + page, HPAGE);
		copy.dst = (unsigned long)ubase + page * HPAGE;
		copy.src = (unsigned long)usrc;
		copy.len = HPAGE;
		copy.mode = 0;
		if (ioctl(uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
			fail("UFFDIO_COPY");
	}
}

static void run_uffd(int rounds)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t h;
	int fd = hugetlb_memfd(NP * HPAGE);

	ubase = map(fd, NP * HPAGE, MAP_SHARED);
	usrc = map(-1, HPAGE, MAP_PRIVATE | MAP_ANONYMOUS);
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		fail("userfaultfd");
	reg.range.start = (unsigned long)ubase;
	reg.range.len = NP * HPAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		fail("UFFDIO_REGISTER");
	if (pthread_create(&h, NULL, uffd_handler, NULL))
		fail("pthread_create");
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NP; i++)
			if (((volatile char *)ubase)[i * HPAGE + HPAGE - 1] != 'a' + i)
				bad("a page filled by UFFDIO_COPY reads back wrong");
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, NP * HPAGE))
			fail("punch");
	}
	stop = 1;
	pthread_join(h, NULL);
}

/* --- wp ------------------------------------------------------------------ */

static unsigned long free_pages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	unsigned long n = 0;

	if (!f || fscanf(f, "%lu", &n) != 1)
		fail("free_hugepages");
	fclose(f);
	return n;
}

static char *wp_base;
static unsigned long wp_pages;

static void run_wp(int rounds)
{
	unsigned long n = free_pages();
	char *p;

	if (n < 1 || n > 64) {
		fprintf(stderr, "ft_paths: wp wants 1..64 free huge pages, not %lu\n", n);
		exit(2);
	}
	/* every free page, reserved by the owner: no page left for a copy */
	p = map(-1, n * HPAGE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	for (unsigned long i = 0; i < n; i++)
		p[i * HPAGE] = 1;
	wp_base = p;
	__atomic_store_n(&wp_pages, n, __ATOMIC_RELEASE);
	for (int r = 0; r < rounds; r++) {
		int pipefd[2], status;
		pid_t child;
		char c;

		if (pipe(pipefd))
			fail("pipe");
		child = fork();
		if (child < 0)
			fail("fork");
		if (!child) {
			/* share the pages and wait; the parent's writes unmap them */
			close(pipefd[1]);
			if (read(pipefd[0], &c, 1) < 0)
				_exit(2);
			_exit(0);
		}
		close(pipefd[0]);
		for (unsigned long i = 0; i < n; i++)
			p[i * HPAGE + 1] = (char)(r + i);
		for (unsigned long i = 0; i < n; i++)
			if (p[i * HPAGE + 1] != (char)(r + i) || p[i * HPAGE] != 1)
				bad("the owner's private page lost its bytes over the copy-on-write");
		close(pipefd[1]);
		if (waitpid(child, &status, 0) != child)
			fail("waitpid");
	}
	stop = 1;
}

/* --- wpgiga -------------------------------------------------------------- */

static volatile unsigned long gigas, giga_fails, owner_moved;

/* The page frame behind @addr in this process, 0 if none (or unreadable). */
static uint64_t pfn_of(const void *addr)
{
	static int fd = -1;
	uint64_t e;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &e, sizeof(e), (uintptr_t)addr / 4096 * sizeof(e)) != sizeof(e))
		return 0;
	return (e >> 63) ? e & ((1ULL << 55) - 1) : 0;
}

/* Fault 1 GiB surplus pages one after the other until the run stops. */
static void *giga(void *arg)
{
	uint64_t before[64];

	(void)arg;
	while (!__atomic_load_n(&wp_pages, __ATOMIC_ACQUIRE))
		usleep(1000);
	while (!stop) {
		char *g = mmap(NULL, GPAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			       MAP_HUGE_1GB | MAP_NORESERVE, -1, 0);

		if (g == MAP_FAILED)
			fail("mmap of a 1 GiB page");
		/* not shared with the owner's children */
		if (madvise(g, GPAGE, MADV_DONTFORK))
			fail("MADV_DONTFORK");
		for (unsigned long i = 0; i < wp_pages && i < 64; i++)
			before[i] = pfn_of(wp_base + i * HPAGE);
		if (madvise(g, GPAGE, MADV_POPULATE_WRITE)) {
			giga_fails++;
		} else {
			gigas++;
			for (unsigned long i = 0; i < wp_pages && i < 64; i++)
				if (before[i] && pfn_of(wp_base + i * HPAGE) != before[i])
					owner_moved++;
		}
		munmap(g, GPAGE);
	}
	return NULL;
}

static void run_wpgiga(int rounds)
{
	pthread_t t;

	if (pthread_create(&t, NULL, giga, NULL))
		fail("pthread_create");
	run_wp(rounds);
	pthread_join(t, NULL);
	printf("gigantic faults=%lu failed=%lu, owner pages they moved=%lu\n",
	       gigas, giga_fails, owner_moved);
	if (!gigas) {
		printf("no 1 GiB page could be allocated here\n");
		exit(77);
	}
}

/* --- memfd --------------------------------------------------------------- */

static void run_memfd(int rounds)
{
	int dev = open("/dev/udmabuf", O_RDWR);

	if (dev < 0) {
		fprintf(stderr, "ft_paths: no /dev/udmabuf (CONFIG_UDMABUF)\n");
		exit(77);
	}
	for (int r = 0; r < rounds; r++) {
		int fd = hugetlb_memfd(NP * HPAGE), buf;
		struct udmabuf_create create = {
			.memfd = fd, .offset = 0, .size = NP * HPAGE,
		};
		char *p;

		if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
			fail("F_ADD_SEALS");
		/* pins the unfaulted pages: memfd_alloc_folio() under the mutex */
		buf = ioctl(dev, UDMABUF_CREATE, &create);
		if (buf < 0)
			fail("UDMABUF_CREATE");
		p = map(fd, NP * HPAGE, MAP_SHARED);
		for (int i = 0; i < NP; i++) {
			if (p[i * HPAGE + 7])
				bad("a page pinned by udmabuf is not zero");
			p[i * HPAGE + 7] = 1;
		}
		munmap(p, NP * HPAGE);
		close(buf);
		close(fd);
	}
	close(dev);
	stop = 1;
}

/* --- fallocate ----------------------------------------------------------- */

static char *fbase;
static int ffd;
static volatile int fround;

static void *f_faulter(void *arg)
{
	unsigned int i = (uintptr_t)arg;

	while (!stop) {
		((volatile char *)fbase)[(i++ % NP) * HPAGE] = 1;
		madvise(fbase, NP * HPAGE, MADV_DONTNEED);
	}
	return NULL;
}

static void run_fallocate(int rounds)
{
	pthread_t t[2];

	ffd = hugetlb_memfd(NP * HPAGE);
	fbase = map(ffd, NP * HPAGE, MAP_SHARED);
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, f_faulter, (void *)i))
			fail("pthread_create");
	for (int r = 0; r < rounds; r++) {
		if (fallocate(ffd, 0, 0, NP * HPAGE))
			fail("fallocate");
		/* again over the present pages: the early-unlock path */
		if (fallocate(ffd, 0, 0, NP * HPAGE))
			fail("fallocate over present pages");
		if (fallocate(ffd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, NP * HPAGE))
			fail("punch");
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	pthread_t rz, wd;
	int rounds, resize;

	/* noresize: the path alone, on a kernel without the knob (stock) */
	resize = argc == 3;
	if ((argc != 3 && (argc != 4 || strcmp(argv[3], "noresize"))) ||
	    (rounds = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: ft_paths uffd|wp|wpgiga|memfd|fallocate ROUNDS [noresize]\n");
		return 2;
	}
	if (resize && (pthread_create(&rz, NULL, resizer, NULL) ||
		       pthread_create(&wd, NULL, watchdog, NULL)))
		fail("pthread_create");
	if (!strcmp(argv[1], "uffd"))
		run_uffd(rounds);
	else if (!strcmp(argv[1], "wp"))
		run_wp(rounds);
	else if (!strcmp(argv[1], "wpgiga"))
		run_wpgiga(rounds);
	else if (!strcmp(argv[1], "memfd"))
		run_memfd(rounds);
	else if (!strcmp(argv[1], "fallocate"))
		run_fallocate(rounds);
	else
		return 2;
	stop = 1;
	if (!resize)
		return 0;
	pthread_join(rz, NULL);		/* the watchdog ends it if it hangs */
	printf("resizes=%lu\n", resizes);
	return 0;
}
