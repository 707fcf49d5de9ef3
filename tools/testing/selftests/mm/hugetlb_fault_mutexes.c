// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the run-time resizable hugetlb fault mutex table:
 * /sys/kernel/debug/hugetlb/num_fault_mutexes.
 *
 *  - every power of two up to the maximum reads back after a write;
 *  - every malformed or out of range write fails with EINVAL and leaves
 *    the size alone;
 *  - a resize storm (random valid sizes back to back) runs against threads
 *    faulting distinct pages of one mapping, processes faulting the same
 *    pages of a shared file, hole punch + fallocate refills and a
 *    userfaultfd region resolved by UFFDIO_COPY: all data stays intact,
 *    no fault fails, and HugePages_Free/Rsvd return to where they started.
 *
 * Needs root, debugfs, the knob (a kernel with the resizable table) and
 * free huge pages of the default size for the storm (it skips, saying
 * why, otherwise).  Without SMP the only size is 1: the round trip and
 * the bad writes are checked against that, the resizes are skipped.
 * Every test puts the size it found back, a failed assertion included.
 * FAULT_MUTEX_STORM_SECONDS sets the storm length (default 5).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define KNOB		"/sys/kernel/debug/hugetlb/num_fault_mutexes"
#define KNOB_MAX	65536
#define STORM_MAX	4096

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	0x0004U
#endif

static int knob_read(void)
{
	char buf[32] = "";
	int fd = open(KNOB, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Returns 0 or the errno of the write. */
static int knob_write(const char *s, size_t len)
{
	int fd = open(KNOB, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

static int knob_write_int(unsigned int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u\n", v);
	return knob_write(buf, strlen(buf));
}

static long hugepages_info(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			v = atol(line + strlen(key) + 1);
			break;
		}
	fclose(f);
	return v;
}

/* the default huge page size, from /proc/meminfo (0: unknown) */
static unsigned long hpage;

static unsigned long hpage_size(void)
{
	long kb = hugepages_info("Hugepagesize");

	return kb > 0 ? (unsigned long)kb << 10 : 0;
}

/*
 * Without SMP every page hashes to mutex 0, and the knob takes only 1.
 * The kernel's version string says "SMP" when it was built with it.
 */
static bool smp_kernel(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "SMP");
}

#define NO_KNOB "needs root, debugfs and a kernel with the resizable table"
#define NO_SMP "without SMP the only size is 1: nothing to resize to"

/* the knob's size when a test starts, put back when it ends, however */
FIXTURE(knob) {
	int orig;
};

FIXTURE_SETUP(knob)
{
	if (access(KNOB, R_OK | W_OK))
		SKIP(return, "%s: %s (%s)", KNOB, strerror(errno), NO_KNOB);
	self->orig = knob_read();
	ASSERT_GT(self->orig, 0);
}

FIXTURE_TEARDOWN(knob)
{
	if (self->orig > 0)
		knob_write_int(self->orig);
}

TEST_F(knob, round_trip)
{
	unsigned int v;

	if (!smp_kernel()) {
		ASSERT_EQ(0, knob_write_int(1));
		ASSERT_EQ(1, knob_read());
		EXPECT_EQ(EINVAL, knob_write_int(2));
		EXPECT_EQ(1, knob_read());
		return;
	}
	for (v = 1; v <= KNOB_MAX; v <<= 1) {
		ASSERT_EQ(0, knob_write_int(v)) TH_LOG("write %u", v);
		ASSERT_EQ((int)v, knob_read()) TH_LOG("read back %u", v);
	}
	/* without the newline too, and the same value twice */
	ASSERT_EQ(0, knob_write("64", 2));
	ASSERT_EQ(64, knob_read());
	ASSERT_EQ(0, knob_write("64", 2));
	ASSERT_EQ(64, knob_read());
	ASSERT_EQ(0, knob_write_int(self->orig));
	ASSERT_EQ(self->orig, knob_read());
}

FIXTURE(bad_input) {
	int orig;
	int set;	/* what the bad write must leave */
};

FIXTURE_VARIANT(bad_input) {
	const char *s;
	int len;	/* -1: strlen(s); -2: a 4 KiB string of digits */
};

FIXTURE_VARIANT_ADD(bad_input, zero) {
	.s = "0\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, three) {
	.s = "3\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, six) {
	.s = "6\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, minus_one) {
	.s = "-1\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, two_pow_31) {
	.s = "2147483648\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, two_pow_64) {
	.s = "18446744073709551616\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, twenty_nines) {
	.s = "99999999999999999999\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, above_max) {
	.s = "131072\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, abc) {
	.s = "abc\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, newline_only) {
	.s = "\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, trailing_junk) {
	.s = "16abc\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, hex) {
	.s = "0x10\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, plus) {
	.s = "+16\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, leading_space) {
	.s = " 16\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, trailing_space) {
	.s = "16\x20\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, two_newlines) {
	.s = "16\n\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, leading_zero) {
	.s = "016\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, octal_style) {
	.s = "020\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, negative_pow2) {
	.s = "-16\n",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, embedded_nul) {
	.s = "16\0",
	.len = -1,
};

FIXTURE_VARIANT_ADD(bad_input, empty) {
	.s = "",
	.len = 0,
};

FIXTURE_VARIANT_ADD(bad_input, four_kib) {
	.s = NULL,
	.len = -2,
};

FIXTURE_SETUP(bad_input)
{
	if (access(KNOB, R_OK | W_OK))
		SKIP(return, "%s: %s (%s)", KNOB, strerror(errno), NO_KNOB);
	self->orig = knob_read();
	ASSERT_GT(self->orig, 0);
	/* a value the bad write could be mistaken for, where there is one */
	self->set = smp_kernel() ? 32 : 1;
	ASSERT_EQ(0, knob_write_int(self->set));
}

FIXTURE_TEARDOWN(bad_input)
{
	if (self->orig > 0)
		knob_write_int(self->orig);
}

TEST_F(bad_input, rejected)
{
	char big[4096];
	const char *s = variant->s;
	size_t len;

	if (variant->len == -2) {
		memset(big, '1', sizeof(big));
		big[0] = '3';
		s = big;
		len = sizeof(big);
	} else if (variant->len == -1) {
		len = strlen(s);
		if (!strcmp(s, "16"))	/* "16\0": write the NUL too */
			len = 3;
	} else {
		len = variant->len;
	}
	if (len == 0) {
		/* an empty write: must not change anything, may succeed */
		knob_write(s, 0);
	} else {
		EXPECT_EQ(EINVAL, knob_write(s, len));
	}
	EXPECT_EQ(self->set, knob_read());
}

/* ---- a fault parked in userfaultfd must not block a resize ------------ */

static char *parked;

static void *park_fault(void *arg)
{
	return (void *)(long)(parked[0] == 0x3c);
}

TEST_F(knob, resize_with_parked_userfault)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy copy = { 0 };
	struct timespec t0, t1;
	struct pollfd pfd;
	struct uffd_msg msg;
	void *good;
	pthread_t t;
	int uffd, orig, next;
	char *src;
	long ms;

	if (!smp_kernel())
		SKIP(return, NO_SMP);
	hpage = hpage_size();
	if (!hpage)
		SKIP(return, "no Hugepagesize in /proc/meminfo");
	if (hugepages_info("HugePages_Free") - hugepages_info("HugePages_Rsvd") < 1)
		SKIP(return, "no free huge page");
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	parked = mmap(NULL, hpage, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	ASSERT_NE(MAP_FAILED, parked);
	reg.range.start = (unsigned long)parked;
	reg.range.len = hpage;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	ASSERT_EQ(0, pthread_create(&t, NULL, park_fault, NULL));

	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* the fault sleeps in handle_userfault(): resize twice */
	orig = knob_read();
	next = orig == 1024 ? 2048 : 1024;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, knob_write_int(next));
	ASSERT_EQ(0, knob_write_int(orig));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	TH_LOG("two resizes with a parked fault: %ld ms", ms);

	src = malloc(hpage);
	ASSERT_NE(NULL, src);
	memset(src, 0x3c, hpage);
	copy.dst = (unsigned long)parked;
	copy.src = (unsigned long)src;
	copy.len = hpage;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy));
	ASSERT_EQ(0, pthread_join(t, &good));
	EXPECT_NE(NULL, good);
	munmap(parked, hpage);
	close(uffd);
	free(src);
}

/* ---- the storm ------------------------------------------------------- */

struct storm {
	bool stop;		/* __atomic accesses only */
	int seconds;
	/* distinct pages, one mapping */
	int memfd;
	char *map;
	int nthreads;
	int pages_per_thread;
	/* same pages, several processes */
	int shfd;
	int shpages;
	int nprocs;
	/* punch + fallocate */
	int punchfd;
	int punchpages;
	/* userfaultfd */
	int nuffd;
	/* results */
	long resizes;
	long failures;
	char why[256];
};

static bool stopped(struct storm *s)
{
	return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
}

static void fail(struct storm *s, const char *fmt, const char *what, long v)
{
	__atomic_fetch_add(&s->failures, 1, __ATOMIC_RELAXED);
	snprintf(s->why, sizeof(s->why), fmt, what, v);
}

static void *resizer(void *arg)
{
	struct storm *s = arg;
	unsigned int seed = 1;

	while (!stopped(s)) {
		unsigned int v = 1U << (rand_r(&seed) % 13);	/* 1 .. 4096 */
		int err = knob_write_int(v);

		if (err)
			fail(s, "%s: errno %ld", "resize", err);
		else
			s->resizes++;
	}
	return NULL;
}

struct faulter {
	struct storm *s;
	int id;
	long rounds;
};

static void *distinct_faulter(void *arg)
{
	struct faulter *f = arg;
	struct storm *s = f->s;
	int first = f->id * s->pages_per_thread, i;

	while (!stopped(s)) {
		for (i = 0; i < s->pages_per_thread; i++) {
			long *p = (long *)(s->map + (first + i) * hpage);

			p[0] = f->rounds;
			p[hpage / sizeof(long) - 1] = f->id;
		}
		for (i = 0; i < s->pages_per_thread; i++) {
			long *p = (long *)(s->map + (first + i) * hpage);

			if (p[0] != f->rounds || p[hpage / sizeof(long) - 1] != f->id)
				fail(s, "%s: page %ld lost its data", "distinct", first + i);
		}
		/* drop the pages so that the next round faults again */
		if (fallocate(s->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      first * hpage, s->pages_per_thread * hpage))
			fail(s, "%s: punch errno %ld", "distinct", errno);
		f->rounds++;
	}
	return NULL;
}

/* A child process: add 1 to a counter in every shared page, many times. */
static long shared_child(struct storm *s, long *done)
{
	char *p = mmap(NULL, s->shpages * hpage, PROT_READ | PROT_WRITE,
		       MAP_SHARED, s->shfd, 0);
	long rounds = 0;
	int i;

	if (p == MAP_FAILED)
		return -1;
	while (!stopped(s) && rounds < 100000) {
		for (i = 0; i < s->shpages; i++)
			__atomic_fetch_add((long *)(p + i * hpage), 1,
					   __ATOMIC_RELAXED);
		rounds++;
		/* unmap and map again so every round faults */
		munmap(p, s->shpages * hpage);
		p = mmap(NULL, s->shpages * hpage, PROT_READ | PROT_WRITE,
			 MAP_SHARED, s->shfd, 0);
		if (p == MAP_FAILED)
			return -1;
	}
	munmap(p, s->shpages * hpage);
	*done = rounds;
	return rounds;
}

static void *puncher(void *arg)
{
	struct storm *s = arg;
	long round = 0;
	int i;

	while (!stopped(s)) {
		for (i = 0; i < s->punchpages; i++) {
			if (fallocate(s->punchfd, 0, i * hpage, hpage))
				fail(s, "%s: fallocate errno %ld", "punch", errno);
		}
		for (i = 0; i < s->punchpages; i++) {
			if (fallocate(s->punchfd,
				      FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      i * hpage, hpage))
				fail(s, "%s: punch errno %ld", "punch", errno);
		}
		round++;
	}
	return NULL;
}

struct uffd_arg {
	struct storm *s;
	int uffd;
	char *src;
	long copies;
};

static void *uffd_server(void *arg)
{
	struct uffd_arg *u = arg;

	for (;;) {
		struct pollfd pfd = { .fd = u->uffd, .events = POLLIN };
		struct uffdio_copy copy;
		struct uffd_msg msg;
		int r = poll(&pfd, 1, 200);

		if (r == 0) {
			if (stopped(u->s))
				return NULL;
			continue;
		}
		if (r < 0 || read(u->uffd, &msg, sizeof(msg)) != sizeof(msg)) {
			if (errno == EAGAIN)
				continue;
			fail(u->s, "%s: read errno %ld", "uffd", errno);
			return NULL;
		}
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		copy.dst = msg.arg.pagefault.address & ~(hpage - 1);
		copy.src = (unsigned long)u->src;
		copy.len = hpage;
		copy.mode = 0;
		if (ioctl(u->uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
			fail(u->s, "%s: UFFDIO_COPY errno %ld", "uffd", errno);
		u->copies++;
	}
}

static void *uffd_client(void *arg)
{
	struct storm *s = arg;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffd_arg u = { .s = s };
	pthread_t server;
	char *p;
	int i;

	u.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u.uffd < 0 || ioctl(u.uffd, UFFDIO_API, &api)) {
		fail(s, "%s: userfaultfd errno %ld", "uffd", errno);
		return NULL;
	}
	u.src = malloc(hpage);
	memset(u.src, 0xa5, hpage);
	pthread_create(&server, NULL, uffd_server, &u);
	while (!stopped(s)) {
		p = mmap(NULL, s->nuffd * hpage, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED) {
			fail(s, "%s: mmap errno %ld", "uffd", errno);
			break;
		}
		reg.range.start = (unsigned long)p;
		reg.range.len = s->nuffd * hpage;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (ioctl(u.uffd, UFFDIO_REGISTER, &reg)) {
			fail(s, "%s: UFFDIO_REGISTER errno %ld", "uffd", errno);
			munmap(p, s->nuffd * hpage);
			break;
		}
		for (i = 0; i < s->nuffd; i++)
			if ((unsigned char)p[i * hpage + 4096] != 0xa5)
				fail(s, "%s: uffd page %ld wrong", "uffd", i);
		munmap(p, s->nuffd * hpage);
	}
	pthread_join(server, NULL);
	close(u.uffd);
	free(u.src);
	return NULL;
}

static int hugetlb_memfd(int pages)
{
	int fd = memfd_create("hugetlb_fault_mutexes", MFD_HUGETLB);

	if (fd >= 0 && ftruncate(fd, pages * hpage)) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE(storm) {
	int orig;
};

FIXTURE_SETUP(storm)
{
	self->orig = knob_read();
}

FIXTURE_TEARDOWN(storm)
{
	if (self->orig > 0)
		knob_write_int(self->orig);
}

TEST_F_TIMEOUT(storm, resize_storm, 300)
{
	long free0, rsvd0, free1, rsvd1, total = 0, want = 0, *done;
	struct faulter f[8];
	pthread_t rt, pt, ut, ft[8];
	struct storm *s;
	const char *env;
	pid_t pids[8];
	int orig, i, st;
	char *sh;

	if (access(KNOB, R_OK | W_OK))
		SKIP(return, "%s: %s (%s)", KNOB, strerror(errno), NO_KNOB);
	if (!smp_kernel())
		SKIP(return, NO_SMP);
	hpage = hpage_size();
	if (!hpage)
		SKIP(return, "no Hugepagesize in /proc/meminfo");
	free0 = hugepages_info("HugePages_Free");
	rsvd0 = hugepages_info("HugePages_Rsvd");
	if (free0 - rsvd0 < 48)
		SKIP(return, "needs 48 free %lu KiB huge pages, %ld available",
		     hpage >> 10, free0 - rsvd0);
	orig = knob_read();

	s = mmap(NULL, sizeof(*s) + 8 * sizeof(long), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s);
	memset(s, 0, sizeof(*s));
	done = (long *)(s + 1);
	env = getenv("FAULT_MUTEX_STORM_SECONDS");
	s->seconds = env ? atoi(env) : 5;
	s->nthreads = 4;
	s->pages_per_thread = 4;
	s->shpages = 4;
	s->nprocs = 4;
	s->punchpages = 4;
	s->nuffd = 4;

	s->memfd = hugetlb_memfd(s->nthreads * s->pages_per_thread);
	ASSERT_GE(s->memfd, 0);
	s->map = mmap(NULL, s->nthreads * s->pages_per_thread * hpage,
		      PROT_READ | PROT_WRITE, MAP_SHARED, s->memfd, 0);
	ASSERT_NE(MAP_FAILED, s->map);
	s->shfd = hugetlb_memfd(s->shpages);
	ASSERT_GE(s->shfd, 0);
	s->punchfd = hugetlb_memfd(s->punchpages);
	ASSERT_GE(s->punchfd, 0);

	ASSERT_EQ(0, pthread_create(&rt, NULL, resizer, s));
	for (i = 0; i < s->nthreads; i++) {
		f[i].s = s;
		f[i].id = i;
		f[i].rounds = 0;
		ASSERT_EQ(0, pthread_create(&ft[i], NULL, distinct_faulter, &f[i]));
	}
	ASSERT_EQ(0, pthread_create(&pt, NULL, puncher, s));
	ASSERT_EQ(0, pthread_create(&ut, NULL, uffd_client, s));
	for (i = 0; i < s->nprocs; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (!pids[i])
			_exit(shared_child(s, &done[i]) < 0 ? 1 : 0);
	}

	sleep(s->seconds);
	__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);

	for (i = 0; i < s->nprocs; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("shared process %d: status 0x%x (SIGBUS?)", i, st);
		want += done[i];
	}
	pthread_join(rt, NULL);
	for (i = 0; i < s->nthreads; i++) {
		pthread_join(ft[i], NULL);
		total += f[i].rounds;
	}
	pthread_join(pt, NULL);
	pthread_join(ut, NULL);

	/* every increment of every process is in every shared page */
	sh = mmap(NULL, s->shpages * hpage, PROT_READ, MAP_SHARED, s->shfd, 0);
	ASSERT_NE(MAP_FAILED, sh);
	for (i = 0; i < s->shpages; i++)
		EXPECT_EQ(want, *(long *)(sh + i * hpage)) TH_LOG("shared page %d", i);
	munmap(sh, s->shpages * hpage);

	TH_LOG("%ld resizes, %ld distinct-page rounds, %ld shared rounds",
	       s->resizes, total, want);
	EXPECT_EQ(0, s->failures) TH_LOG("%s", s->why);
	EXPECT_GT(s->resizes, 0);
	EXPECT_GT(total, 0);

	munmap(s->map, s->nthreads * s->pages_per_thread * hpage);
	close(s->memfd);
	close(s->shfd);
	close(s->punchfd);
	munmap(s, sizeof(*s) + 8 * sizeof(long));
	ASSERT_EQ(0, knob_write_int(orig));

	free1 = hugepages_info("HugePages_Free");
	rsvd1 = hugepages_info("HugePages_Rsvd");
	EXPECT_EQ(free0, free1) TH_LOG("HugePages_Free %ld -> %ld", free0, free1);
	EXPECT_EQ(rsvd0, rsvd1) TH_LOG("HugePages_Rsvd %ld -> %ld", rsvd0, rsvd1);
}

TEST_HARNESS_MAIN
