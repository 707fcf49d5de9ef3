// SPDX-License-Identifier: GPL-2.0
/*
 * resize_stall: what a resize of the fault mutex table costs the faults
 * running beside it (issue 21).
 *
 *   resize_stall [-t THREADS] [-p PAGES] [-s SECONDS] [-r ROUNDS]
 *		  [-l 1g|2m|none] [-g GAP_MS] [-a SIZE] [-b SIZE]
 *
 * THREADS faulters (default 3) each re-fault PAGES 2 MiB pages (default 8
 * per thread) of one hugetlb memfd: touch a page, timed, then
 * MADV_DONTNEED it, so every touch is a fault that finds the page in the
 * page cache and takes its fault mutex.  Beside them a child process (its
 * own mm, so its mmap_lock is not theirs) makes long holds: -l 1g
 * first-touches a fresh 1 GiB page again and again (its fault holds a
 * fault mutex while the gigantic page is allocated and cleared; needs
 * hugepagesz=1G hugepages=1 on the command line), -l 2m
 * first-touches fresh 2 MiB pages instead (a hold per 2 MiB clear), -l
 * none makes none.
 *
 * The run alternates ROUNDS times (default 3) a "still" phase of SECONDS
 * (default 5) with no resize and a "resize" phase of SECONDS in which a
 * thread flips /sys/kernel/debug/hugetlb/num_fault_mutexes between -a and
 * -b (default 1024 and 2048: few collisions between the faulters' pages
 * and the long hold's, so that a wait is the resize's), sleeping GAP_MS
 * (default 50) after each write; in the still phase the same thread wakes
 * as often without writing.
 * A fault is counted in the phase it started in; the faults that start
 * while the phase changes (the last resize finishing) are left out.
 *
 * Prints one line per distribution, in microseconds:
 *   still   faults=N p50= p99= max=	the faulters' fault latency
 *   resize  faults=N p50= p99= max=	the same while resizing
 *   long    holds=N p50= p99= max=	the long holder's first touches
 *   resizes n=N p50= p99= max=		each write to the knob
 * and the same as one JSON line ("{...}") for make bench.  The size the
 * table had is restored at the end.  Exits 1 on a setup failure, 4 when
 * -l 1g is asked and the guest has no free 1 GiB page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#define MFD_HUGE_1GB (30U << 26)
#define MFD_HUGE_2MB (21U << 26)

#define HPAGE		(2UL << 20)
#define GPAGE		(1UL << 30)
#define KNOB		"/sys/kernel/debug/hugetlb/num_fault_mutexes"
#define MAXS		(1U << 20)	/* samples kept per distribution */

enum { STILL, RESIZE, CHANGING };

struct samples {
	uint64_t *ns;
	unsigned int n;
	pthread_mutex_t lock;
};

static volatile int phase = CHANGING, done;
static volatile int *long_done;		/* shared with the long holder */
static volatile int resizer_busy;
static struct samples lat[2], *longs, resizes;
static char *fbase;
static unsigned int nthreads = 3, npages = 8, gap_ms = 50;
static unsigned int size_a = 1024, size_b = 2048;
static const char *longmode = "1g";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "resize_stall: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Shared memory: the long holder's samples come from another process. */
static void samples_init(struct samples *s)
{
	pthread_mutexattr_t a;

	s->ns = mmap(NULL, MAXS * sizeof(*s->ns), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->ns == MAP_FAILED)
		die("mmap");
	s->n = 0;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->lock, &a);
}

/* Merge a thread's local samples into @s. */
static void samples_add(struct samples *s, const uint64_t *v, unsigned int n)
{
	pthread_mutex_lock(&s->lock);
	if (n > MAXS - s->n)
		n = MAXS - s->n;
	memcpy(s->ns + s->n, v, n * sizeof(*v));
	s->n += n;
	pthread_mutex_unlock(&s->lock);
}

static void samples_add1(struct samples *s, uint64_t v)
{
	samples_add(s, &v, 1);
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile @p of the sorted @s, in microseconds. */
static double pct(const struct samples *s, double p)
{
	unsigned int i;

	if (!s->n)
		return 0;
	i = (unsigned int)(p / 100 * s->n + 0.999999);
	if (i < 1)
		i = 1;
	if (i > s->n)
		i = s->n;
	return s->ns[i - 1] / 1000.0;
}

static void summary(const char *name, const char *count, struct samples *s,
		    char *json, size_t len)
{
	qsort(s->ns, s->n, sizeof(*s->ns), cmp64);
	printf("%-7s %s=%u p50=%.1f p99=%.1f max=%.1f\n", name, count, s->n,
	       pct(s, 50), pct(s, 99), pct(s, 100));
	snprintf(json + strlen(json), len - strlen(json),
		 "%s\"%s\":{\"n\":%u,\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f}",
		 json[1] ? "," : "", name, s->n, pct(s, 50), pct(s, 99), pct(s, 100));
}

static void *faulter(void *arg)
{
	char *slice = fbase + (uintptr_t)arg * npages * HPAGE;
	unsigned int local = 4096, k[2] = { 0, 0 }, i = 0;
	uint64_t *buf[2];
	int ph;

	buf[0] = malloc(local * sizeof(uint64_t));
	buf[1] = malloc(local * sizeof(uint64_t));
	if (!buf[0] || !buf[1])
		die("malloc");
	while (!done) {
		char *p = slice + (i++ % npages) * HPAGE;
		uint64_t t0;

		ph = phase;
		t0 = now_ns();
		*(volatile char *)p = 1;
		if (ph != CHANGING) {
			buf[ph][k[ph]++] = now_ns() - t0;
			if (k[ph] == local) {
				samples_add(&lat[ph], buf[ph], local);
				k[ph] = 0;
			}
		}
		if (madvise(p, HPAGE, MADV_DONTNEED))
			die("madvise");
	}
	samples_add(&lat[STILL], buf[STILL], k[STILL]);
	samples_add(&lat[RESIZE], buf[RESIZE], k[RESIZE]);
	return NULL;
}

/*
 * First-touch fresh huge pages, one fault (one hold) per page, in a child
 * process of its own (its mmap_lock is not the faulters'), until told to
 * stop; the times go to @longs, which is in shared memory.
 */
static void long_holder(void)
{
	int giga = !strcmp(longmode, "1g");
	size_t sz = giga ? GPAGE : HPAGE;

	while (!*long_done) {
		int fd = memfd_create("long", MFD_HUGETLB |
				      (giga ? MFD_HUGE_1GB : MFD_HUGE_2MB));
		uint64_t t0;
		char *p;

		if (fd < 0 || ftruncate(fd, sz))
			die("long: memfd");
		p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			die("long: mmap");
		t0 = now_ns();
		*(volatile char *)p = 1;
		samples_add1(longs, now_ns() - t0);
		munmap(p, sz);
		close(fd);
	}
}

static int knob_write(unsigned int v)
{
	char s[16];
	int fd = open(KNOB, O_WRONLY), n, ret;

	if (fd < 0)
		return -1;
	n = snprintf(s, sizeof(s), "%u", v);
	ret = write(fd, s, n) == n ? 0 : -1;
	close(fd);
	return ret;
}

static void *resizer(void *arg)
{
	unsigned int flip = 0;

	(void)arg;
	while (!done) {
		uint64_t t0;

		/* the same wake-ups in every phase, a write only in one */
		if (phase != RESIZE) {
			resizer_busy = 0;
			usleep(gap_ms * 1000);
			continue;
		}
		resizer_busy = 1;
		t0 = now_ns();
		if (knob_write(flip++ & 1 ? size_a : size_b))
			die("resize");
		samples_add1(&resizes, now_ns() - t0);
		resizer_busy = 0;
		usleep(gap_ms * 1000);
	}
	resizer_busy = 0;
	return NULL;
}

static unsigned int free_gigantic(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "r");
	unsigned int n = 0;

	if (f) {
		if (fscanf(f, "%u", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned int seconds = 5, rounds = 3, orig = 0, r, i;
	pthread_t ft[64], rt;
	pid_t lp = 0;
	char json[1024] = "{";
	FILE *k;
	int c, fd;

	while ((c = getopt(argc, argv, "t:p:s:r:l:g:a:b:")) != -1) {
		switch (c) {
		case 't': nthreads = atoi(optarg); break;
		case 'p': npages = atoi(optarg); break;
		case 's': seconds = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'l': longmode = optarg; break;
		case 'g': gap_ms = atoi(optarg); break;
		case 'a': size_a = atoi(optarg); break;
		case 'b': size_b = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: resize_stall [-t THREADS] [-p PAGES] [-s SECONDS] [-r ROUNDS] [-l 1g|2m|none] [-g GAP_MS] [-a SIZE] [-b SIZE]\n");
			return 1;
		}
	}
	if (!nthreads || nthreads > 64 || !npages || !seconds || !rounds ||
	    (strcmp(longmode, "1g") && strcmp(longmode, "2m") && strcmp(longmode, "none"))) {
		fprintf(stderr, "resize_stall: bad arguments\n");
		return 1;
	}
	if (!strcmp(longmode, "1g") && free_gigantic() < 1) {
		fprintf(stderr, "resize_stall: no free 1 GiB page (boot with hugepagesz=1G hugepages=1)\n");
		return 4;
	}
	k = fopen(KNOB, "r");
	if (!k || fscanf(k, "%u", &orig) != 1)
		die(KNOB);
	fclose(k);
	if (knob_write(size_a))
		die("resize");

	samples_init(&lat[STILL]);
	samples_init(&lat[RESIZE]);
	longs = mmap(NULL, sizeof(*longs) + sizeof(int), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (longs == MAP_FAILED)
		die("mmap");
	long_done = (volatile int *)(longs + 1);
	samples_init(longs);
	samples_init(&resizes);

	fd = memfd_create("faulters", MFD_HUGETLB);
	if (fd < 0 || ftruncate(fd, (off_t)nthreads * npages * HPAGE))
		die("memfd");
	fbase = mmap(NULL, nthreads * npages * HPAGE, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, fd, 0);
	if (fbase == MAP_FAILED)
		die("mmap");

	if (strcmp(longmode, "none")) {
		lp = fork();
		if (lp < 0)
			die("fork");
		if (!lp) {
			long_holder();
			_exit(0);
		}
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&ft[i], NULL, faulter, (void *)(uintptr_t)i))
			die("pthread_create");
	if (pthread_create(&rt, NULL, resizer, NULL))
		die("pthread_create");

	sleep(1);			/* everyone running */
	for (r = 0; r < rounds; r++) {
		phase = STILL;
		sleep(seconds);
		phase = RESIZE;
		sleep(seconds);
		phase = CHANGING;	/* let the last resize finish */
		usleep(200000);
		while (resizer_busy)
			usleep(10000);
	}
	done = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(ft[i], NULL);
	*long_done = 1;
	if (lp && waitpid(lp, NULL, 0) != lp)
		die("waitpid");
	pthread_join(rt, NULL);
	if (knob_write(orig))
		die("restoring the size");

	summary("still", "faults", &lat[STILL], json, sizeof(json));
	summary("resize", "faults", &lat[RESIZE], json, sizeof(json));
	summary("long", "holds", longs, json, sizeof(json));
	summary("resizes", "n", &resizes, json, sizeof(json));
	printf("%s,\"threads\":%u,\"pages\":%u,\"long_mode\":\"%s\",\"gap_ms\":%u,\"sizes\":[%u,%u]}\n",
	       json, nthreads, npages, longmode, gap_ms, size_a, size_b);
	return 0;
}
