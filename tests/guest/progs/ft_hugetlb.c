// SPDX-License-Identifier: GPL-2.0
/*
 * ft_hugetlb: drive every path that takes a hugetlb fault mutex, for the
 * guest tests of the hugetlb trace events and the fault mutex table knob.
 *
 *   ft_hugetlb fault N          touch N distinct huge pages of a shared mapping
 *   ft_hugetlb fallocate N      fallocate N huge pages of a hugetlbfs memfd
 *   ft_hugetlb punch N          fallocate N, punch them out, then truncate
 *   ft_hugetlb memfd N          UDMABUF_CREATE over N unfaulted memfd pages
 *   ft_hugetlb uffd N           fault N pages resolved by UFFDIO_COPY
 *   ft_hugetlb contend ROUNDS   two threads fault the same page, ROUNDS times
 *   ft_hugetlb wp N             private mapping, fork, write: COW faults
 *   ft_hugetlb park KNOB SIZE   park a fault in userfaultfd, resize the
 *                               fault mutex table through KNOB meanwhile
 *                               (fails if that takes over 20 s), resolve
 *   ft_hugetlb bench T [SECS]   T threads fault and punch 4 pages each of
 *                               one file for SECS (default 5) seconds;
 *                               prints "faults=F seconds=S faults_per_s=R"
 *
 * Exit status 0 on success; a failure prints one line naming the step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
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
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

#define HPAGE (2UL << 20)

struct udmabuf_create {
	uint32_t memfd;
	uint32_t flags;
	uint64_t offset;
	uint64_t size;
};
#define UDMABUF_CREATE _IOW('u', 0x42, struct udmabuf_create)

static void die(const char *what)
{
	fprintf(stderr, "ft_hugetlb: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int hugetlb_memfd(size_t size)
{
	int fd = memfd_create("ft_hugetlb", MFD_HUGETLB | MFD_ALLOW_SEALING);

	if (fd < 0)
		die("memfd_create(MFD_HUGETLB)");
	if (size && ftruncate(fd, size))
		die("ftruncate");
	return fd;
}

static int do_fault(long n)
{
	char *p = mmap(NULL, n * HPAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	long i;

	if (p == MAP_FAILED)
		die("mmap(MAP_HUGETLB)");
	for (i = 0; i < n; i++)
		p[i * HPAGE] = (char)i;
	for (i = 0; i < n; i++)
		if (p[i * HPAGE] != (char)i) {
			fprintf(stderr, "ft_hugetlb: page %ld lost its data\n", i);
			return 1;
		}
	munmap(p, n * HPAGE);
	return 0;
}

static int do_fallocate(long n, int punch)
{
	int fd = hugetlb_memfd(0);

	if (fallocate(fd, 0, 0, n * HPAGE))
		die("fallocate");
	if (punch) {
		/* punch every other page, then truncate the rest away */
		long i;

		for (i = 0; i < n; i += 2)
			if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      i * HPAGE, HPAGE))
				die("fallocate(PUNCH_HOLE)");
		if (ftruncate(fd, 0))
			die("ftruncate(0)");
	}
	close(fd);
	return 0;
}

static int do_memfd(long n)
{
	struct udmabuf_create create = { 0 };
	int fd = hugetlb_memfd(n * HPAGE);
	int dev, buf;

	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("F_ADD_SEALS");
	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		die("open /dev/udmabuf");
	create.memfd = fd;
	create.size = n * HPAGE;
	buf = ioctl(dev, UDMABUF_CREATE, &create);
	if (buf < 0)
		die("UDMABUF_CREATE");
	close(buf);
	close(dev);
	close(fd);
	return 0;
}

struct uffd_ctx {
	int uffd;
	char *src;
	long n;
};

static void *uffd_handler(void *arg)
{
	struct uffd_ctx *c = arg;
	long done = 0;

	while (done < c->n) {
		struct uffd_msg msg;
		struct uffdio_copy copy;
		struct pollfd pfd = { .fd = c->uffd, .events = POLLIN };

		if (poll(&pfd, 1, 10000) <= 0)
			die("poll(userfaultfd)");
		if (read(c->uffd, &msg, sizeof(msg)) != sizeof(msg))
			die("read(userfaultfd)");
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		copy.dst = msg.arg.pagefault.address & ~(HPAGE - 1);
		copy.src = (unsigned long)c->src;
		copy.len = HPAGE;
		copy.mode = 0;
		copy.copy = 0;
		if (ioctl(c->uffd, UFFDIO_COPY, &copy) && errno != EEXIST)
			die("UFFDIO_COPY");
		done++;
	}
	return NULL;
}

static int do_uffd(long n)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffd_ctx c = { .n = n };
	pthread_t t;
	char *p;
	long i;

	c.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (c.uffd < 0)
		die("userfaultfd");
	if (ioctl(c.uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	p = mmap(NULL, n * HPAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		die("mmap(MAP_HUGETLB)");
	c.src = malloc(HPAGE);
	if (!c.src)
		die("malloc");
	memset(c.src, 0x5a, HPAGE);
	reg.range.start = (unsigned long)p;
	reg.range.len = n * HPAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(c.uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	pthread_create(&t, NULL, uffd_handler, &c);
	for (i = 0; i < n; i++)
		if (p[i * HPAGE] != 0x5a) {
			fprintf(stderr, "ft_hugetlb: uffd page %ld wrong\n", i);
			return 1;
		}
	pthread_join(t, NULL);
	munmap(p, n * HPAGE);
	return 0;
}

static pthread_barrier_t barrier;
static char *volatile shared_page;

static void *contender(void *arg)
{
	long rounds = (long)arg, i;

	for (i = 0; i < rounds; i++) {
		pthread_barrier_wait(&barrier);
		shared_page[0] = 1;
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static int do_contend(long rounds)
{
	pthread_t t;
	long i;

	pthread_barrier_init(&barrier, NULL, 2);
	pthread_create(&t, NULL, contender, (void *)rounds);
	for (i = 0; i < rounds; i++) {
		char *p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

		if (p == MAP_FAILED)
			die("mmap(MAP_HUGETLB)");
		shared_page = p;
		pthread_barrier_wait(&barrier);
		p[HPAGE / 2] = 2;
		pthread_barrier_wait(&barrier);
		munmap(p, HPAGE);
	}
	pthread_join(t, NULL);
	return 0;
}

static int do_wp(long n)
{
	char *p = mmap(NULL, n * HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	pid_t pid;
	long i;
	int st;

	if (p == MAP_FAILED)
		die("mmap(MAP_HUGETLB|MAP_PRIVATE)");
	for (i = 0; i < n; i++)
		p[i * HPAGE] = 1;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < n; i++)
			p[i * HPAGE] = 2;
		_exit(0);
	}
	for (i = 0; i < n; i++)
		p[i * HPAGE] = 3;
	waitpid(pid, &st, 0);
	munmap(p, n * HPAGE);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

static char *park_page;

static void *park_toucher(void *arg)
{
	(void)arg;
	if (park_page[0] != 0x5a)
		fprintf(stderr, "ft_hugetlb: parked page has wrong data\n");
	return NULL;
}

static void park_timeout(int sig)
{
	(void)sig;
	fprintf(stderr, "ft_hugetlb: the resize blocked behind a parked fault\n");
	_exit(1);
}

static int do_park(const char *knob, const char *size)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct pollfd pfd;
	struct uffdio_copy copy;
	struct uffd_msg msg;
	struct timespec t0, t1;
	pthread_t t;
	char *src;
	int uffd, fd;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		die("userfaultfd");
	park_page = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (park_page == MAP_FAILED)
		die("mmap(MAP_HUGETLB)");
	reg.range.start = (unsigned long)park_page;
	reg.range.len = HPAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
	pthread_create(&t, NULL, park_toucher, NULL);
	pfd.fd = uffd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 20000) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		die("waiting for the fault");
	/* the fault is parked in handle_userfault() now */
	signal(SIGALRM, park_timeout);
	alarm(20);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = open(knob, O_WRONLY);
	if (fd < 0 || write(fd, size, strlen(size)) != (ssize_t)strlen(size))
		die("resize");
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	src = malloc(HPAGE);
	memset(src, 0x5a, HPAGE);
	copy.dst = (unsigned long)park_page;
	copy.src = (unsigned long)src;
	copy.len = HPAGE;
	copy.mode = 0;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		die("UFFDIO_COPY");
	pthread_join(t, NULL);
	printf("resize to %s with a parked fault took %ld ms\n", size,
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000000));
	return park_page[0] == 0x5a ? 0 : 1;
}

struct bench_arg {
	int fd;
	char *map;
	int id;
	volatile int *stop;
	long faults;
};

static void *bench_thread(void *p)
{
	struct bench_arg *a = p;
	long i;

	while (!*a->stop) {
		for (i = 0; i < 4; i++)
			a->map[(a->id * 4 + i) * HPAGE] = 1;
		a->faults += 4;
		if (fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      a->id * 4 * HPAGE, 4 * HPAGE))
			die("fallocate(PUNCH_HOLE)");
	}
	return NULL;
}

static int do_bench(int threads, int secs)
{
	struct bench_arg *a = calloc(threads, sizeof(*a));
	pthread_t *t = calloc(threads, sizeof(*t));
	int fd = hugetlb_memfd(threads * 4 * HPAGE);
	volatile int stop = 0;
	struct timespec t0, t1;
	long total = 0;
	double s;
	char *map;
	int i;

	map = mmap(NULL, threads * 4 * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < threads; i++) {
		a[i] = (struct bench_arg){ .fd = fd, .map = map, .id = i,
					   .stop = &stop };
		pthread_create(&t[i], NULL, bench_thread, &a[i]);
	}
	sleep(secs);
	stop = 1;
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += a[i].faults;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("threads=%d faults=%ld seconds=%.2f faults_per_s=%.1f\n",
	       threads, total, s, total / s);
	return 0;
}

int main(int argc, char **argv)
{
	long n;

	if (argc == 4 && !strcmp(argv[1], "park"))
		return do_park(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "bench"))
		return do_bench(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1,
				argc > 3 ? atoi(argv[3]) : 5);
	if (argc != 3) {
		fprintf(stderr, "usage: ft_hugetlb fault|fallocate|punch|memfd|uffd|contend|wp N\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 0);
	if (n <= 0)
		n = 1;
	if (!strcmp(argv[1], "fault"))
		return do_fault(n);
	if (!strcmp(argv[1], "fallocate"))
		return do_fallocate(n, 0);
	if (!strcmp(argv[1], "punch"))
		return do_fallocate(n, 1);
	if (!strcmp(argv[1], "memfd"))
		return do_memfd(n);
	if (!strcmp(argv[1], "uffd"))
		return do_uffd(n);
	if (!strcmp(argv[1], "contend"))
		return do_contend(n);
	if (!strcmp(argv[1], "wp"))
		return do_wp(n);
	fprintf(stderr, "ft_hugetlb: unknown mode %s\n", argv[1]);
	return 2;
}
