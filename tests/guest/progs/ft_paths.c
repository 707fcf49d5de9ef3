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
 *   ft_paths wpgiga ROUNDS	issue 39's deadlock, reached: wp by four
 *	threads of the owner, on pages spread over every 1 GiB range, beside
 *	1 GiB surplus faults (MAP_NORESERVE: allocated under a fault mutex
 *	by alloc_contig, which on 7.3 migrates in-use 2 MiB hugetlb folios
 *	once no range is free of them, waiting for their folio locks) and
 *	the resizes.  A retake that waits for a pending resize with the old
 *	folio locked hangs there (owner -> resize -> gigantic fault ->
 *	owner), which the watchdog reports.  ROUNDS / 6 episodes (at least
 *	one).  Prints how many gigantic faults moved the owner's pages
 *	(pagemap), which shows the state was reached; 77 when no 1 GiB page
 *	can be allocated here.  Sets nr_hugepages itself: the caller puts
 *	it back.
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
 * 3 when the resizer did not complete a resize within 20 s (120 s for
 * wpgiga: a fault mutex or the table's read side left held), 77 when
 * the path cannot be reached here (no /dev/udmabuf).
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
 * (and then every fault): no resize for stall_s seconds, during the run
 * or for the one after it, is a failure.  20 s, but 120 s beside gigantic
 * faults (wpgiga): each holds the read side while it clears 1 GiB, which
 * under TCG on a loaded host took more than 20 s.  Exits at once: the
 * stuck threads cannot be joined.
 */
static int stall_s = 20;
static volatile int longest_still;	/* tenths of a second without a resize */

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
		if (++still > longest_still)
			longest_still = still;
		if (still == stall_s * 10) {
			fprintf(stderr, "ft_paths: no resize completed for %d s: a fault mutex or the table's read side is left held\n",
				stall_s);
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

/* the owner's private pages, each written once a round */
static char *wp_base, *wp_page[64];
static unsigned long wp_len, wp_pages;

/*
 * Every free page, mapped privately by the owner and faulted (at most 64):
 * no page left for a copy.
 */
static unsigned long wp_map(void)
{
	unsigned long n = free_pages();

	if (n < 1 || n > 64) {
		fprintf(stderr, "ft_paths: wp wants 1..64 free huge pages, not %lu\n", n);
		exit(2);
	}
	wp_len = n * HPAGE;
	wp_base = map(-1, wp_len, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB);
	for (unsigned long i = 0; i < n; i++) {
		wp_page[i] = wp_base + i * HPAGE;
		wp_page[i][0] = 1;
	}
	return n;
}

struct wp_writer {
	pthread_t t;
	int r;
	unsigned long first, step;
};

/* The owner's writes to every step-th page from first: its copy-on-writes. */
static void *wp_write(void *arg)
{
	struct wp_writer *w = arg;

	for (unsigned long i = w->first; i < wp_pages; i += w->step)
		wp_page[i][1] = (char)(w->r + i);
	return NULL;
}

/*
 * One round: a child shares the owner's pages, the owner writes every one
 * of them (from @writers threads, each its share of the pages); the copy
 * cannot be allocated, so hugetlb_wp() unmaps the child's pages and the
 * owner keeps its own.
 */
static void wp_round(int r, int writers)
{
	struct wp_writer w[4];
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
	for (int t = 0; t < writers; t++) {
		w[t] = (struct wp_writer){ .r = r, .first = t, .step = writers };
		if (writers > 1 && pthread_create(&w[t].t, NULL, wp_write, &w[t]))
			fail("pthread_create");
	}
	if (writers == 1)
		wp_write(&w[0]);
	for (int t = 0; writers > 1 && t < writers; t++)
		pthread_join(w[t].t, NULL);
	for (unsigned long i = 0; i < wp_pages; i++)
		if (wp_page[i][1] != (char)(r + i) || wp_page[i][0] != 1)
			bad("the owner's private page lost its bytes over the copy-on-write");
	close(pipefd[1]);
	if (waitpid(child, &status, 0) != child)
		fail("waitpid");
}

static void run_wp(int rounds)
{
	wp_pages = wp_map();
	for (int r = 0; r < rounds; r++)
		wp_round(r, 1);
	stop = 1;
}

/* --- wpgiga -------------------------------------------------------------- */

/*
 * The state of issue 39's deadlock, reached on purpose.  On 7.3,
 * alloc_contig_frozen_pages() first looks for a 1 GiB range without
 * hugetlb folios, and only when none is left takes one that holds 2 MiB
 * folios, migrating them (and from its third pass waiting for their folio
 * locks).  So each episode:
 *
 *  - maps a fresh pool of WP_GIGA_POOL pages privately, keeps at most
 *    WP_GIGA_PAGES of them spread over every 1 GiB range they lie in,
 *    and gives the pool the others back: the owner's pages are then the
 *    only hugetlb folios, in as many ranges as it could;
 *  - faults 1 GiB surplus pages, each under its fault mutex and each held,
 *    until one fails: the first take the ranges free of the owner's pages,
 *    the later ones migrate the owner's, while four threads of the owner
 *    write its pages (hugetlb_wp(): old folio locked, mutex dropped, the
 *    child's pages unmapped, mutex retaken) and the table is resized
 *    back to back;
 *  - gives everything back.
 *
 * A retake that waits for a pending resize with the old folio locked
 * deadlocks there: owner -> resize -> gigantic fault -> owner.  Whether a
 * writer is between its drop and its retake when a gigantic fault makes
 * the resize wait, with its folio in the range that fault migrates, is a
 * race each episode wins or not: hence several episodes, and the
 * gigantic faults only once the owner's threads are writing.
 */
#define GIGA_MAX	16
#define WP_GIGA_POOL	64
#define WP_GIGA_PAGES	16
#define WP_GIGA_WRITERS	4

static unsigned long gigas, giga_fails, giga_moving, owner_moved;
static volatile unsigned long wp_done;	/* the owner's rounds so far */
static volatile int episode_done;

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

static void set_pool(unsigned long n)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");

	if (!f || fprintf(f, "%lu\n", n) < 0 || fclose(f))
		fail("/proc/sys/vm/nr_hugepages");
}

/*
 * Keep at most WP_GIGA_PAGES of the mapped pages, taking one page of each
 * 1 GiB range in turn; unmap the others (their reservations go with
 * them) and shrink the pool to the kept.
 */
static void wp_spread(void)
{
	unsigned long n = wp_len / HPAGE, kept = 0;
	uint64_t range[64];
	char *keep[64] = { 0 };

	for (unsigned long i = 0; i < n; i++)
		range[i] = pfn_of(wp_page[i]) >> 18;
	while (kept < WP_GIGA_PAGES) {
		unsigned long before = kept;
		uint64_t taken[64];
		unsigned long ntaken = 0;

		for (unsigned long i = 0; i < n && kept < WP_GIGA_PAGES; i++) {
			unsigned long j;

			if (!wp_page[i])
				continue;
			for (j = 0; j < ntaken && taken[j] != range[i]; j++)
				;
			if (j < ntaken)
				continue;	/* this turn has a page of that range */
			taken[ntaken++] = range[i];
			keep[kept++] = wp_page[i];
			wp_page[i] = NULL;
		}
		if (kept == before)
			break;
	}
	for (unsigned long i = 0; i < n; i++)
		if (wp_page[i] && munmap(wp_page[i], HPAGE))
			fail("munmap");
	memcpy(wp_page, keep, sizeof(keep));
	set_pool(kept);
	if (free_pages())
		bad("the pool kept free pages beside the owner's");
	__atomic_store_n(&wp_pages, kept, __ATOMIC_RELEASE);
}

/* One episode's gigantic faults, each held, until one fails. */
static void *giga(void *arg)
{
	char *held[GIGA_MAX];
	uint64_t before[64];
	int n = 0;

	(void)arg;
	/* not before the owner's threads are writing */
	for (unsigned long r0 = wp_done; wp_done == r0; )
		usleep(1000);
	while (n < GIGA_MAX) {
		unsigned long moved = 0;
		char *g = mmap(NULL, GPAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			       MAP_HUGE_1GB | MAP_NORESERVE, -1, 0);

		if (g == MAP_FAILED)
			fail("mmap of a 1 GiB page");
		/* not shared with the owner's children */
		if (madvise(g, GPAGE, MADV_DONTFORK))
			fail("MADV_DONTFORK");
		for (unsigned long i = 0; i < wp_pages; i++)
			before[i] = pfn_of(wp_page[i]);
		if (madvise(g, GPAGE, MADV_POPULATE_WRITE)) {
			giga_fails++;
			munmap(g, GPAGE);
			break;
		}
		gigas++;
		held[n++] = g;
		for (unsigned long i = 0; i < wp_pages; i++)
			if (before[i] && pfn_of(wp_page[i]) != before[i])
				moved++;
		owner_moved += moved;
		giga_moving += moved > 0;
	}
	while (n)
		munmap(held[--n], GPAGE);
	episode_done = 1;
	return NULL;
}

static void run_wpgiga(int rounds)
{
	int episodes = (rounds + 5) / 6;
	unsigned long r = 0;

	for (int e = 0; e < episodes; e++) {
		pthread_t t;

		/* a fresh pool, from wherever the last episode freed memory */
		set_pool(0);
		set_pool(WP_GIGA_POOL);
		if (free_pages() < WP_GIGA_PAGES)
			fail("a pool of 16 huge pages or more");
		wp_map();
		wp_spread();
		episode_done = 0;
		if (pthread_create(&t, NULL, giga, NULL))
			fail("pthread_create");
		while (!episode_done) {
			wp_round(r++, WP_GIGA_WRITERS);
			wp_done = r;
		}
		pthread_join(t, NULL);
		/* page by page: what wp_spread() unmapped may be in use again */
		for (unsigned long i = 0; i < wp_pages; i++)
			munmap(wp_page[i], HPAGE);
	}
	stop = 1;
	printf("episodes=%d owner rounds=%lu gigantic faults=%lu failed=%lu, moving the owner's pages=%lu (%lu pages)\n",
	       episodes, r, gigas, giga_fails, giga_moving, owner_moved);
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
	if (!strcmp(argv[1], "wpgiga"))
		stall_s = 120;
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
	printf("resizes=%lu, the longest time without one %d.%d s\n", resizes,
	       longest_still / 10, longest_still % 10);
	return 0;
}
