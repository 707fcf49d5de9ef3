// SPDX-License-Identifier: GPL-2.0
/*
 * What several parts of faulttune share and nothing else provides: the
 * u64 map (analysis, model, fallback), the op and workload name tables
 * (report, fallback, watch, bench, lookup), reading a whole file (kernel
 * facts, tracefs, knobs) and the workloads' phase marker.  Below every other file but util.c: it calls nothing of
 * faulttune's, so that whatever uses it cannot close a loop through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event.h"
#include "util.h"

/* ---- u64 map ---- */

/* murmur3's finaliser (the model's hash draws use splitmix64's) */
static uint64_t fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static int map_grow(struct ft_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->vals[i])
			continue;
		j = fmix64(m->keys[i]) & (cap - 1);
		while (vals[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/*
 * Returns the slot for key; with create, an empty slot (*slot == NULL) is
 * reserved and the caller must store a non-NULL value in it.
 */
void **ft_map_get(struct ft_map *m, uint64_t key, int create)
{
	size_t j;

	if (!m->cap) {
		if (!create || map_grow(m))
			return NULL;
	}
	j = fmix64(key) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	if (!create)
		return NULL;
	if ((m->n + 1) * 2 > m->cap) {
		if (map_grow(m))
			return NULL;
		return ft_map_get(m, key, create);
	}
	m->keys[j] = key;
	m->n++;
	return &m->vals[j];
}

void ft_map_free(struct ft_map *m, void (*free_val)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->vals[i] && free_val)
			free_val(m->vals[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- names ---- */

const char *ft_hop_name(unsigned int op)
{
	static const char * const n[] = {
		"fault", "wp", "userfault", "fallocate", "punch", "memfd",
		"uffd_copy", "other",
	};
	return op < FT_HOP_NR ? n[op] : "other";
}

const char *ft_mop_name(unsigned int op)
{
	static const char * const n[] = {
		"reserve", "free", "lookup", "list", "other",
	};
	return op < FT_MOP_NR ? n[op] : "other";
}

/* the workloads' names (bench.c, lookup.c) */
const char *ft_shape_name(int shape)
{
	static const char * const n[] = {
		"threads", "share", "punch", "memtype", "memtype-lookup",
	};

	return shape >= 0 && shape < FT_SH_NR ? n[shape] : "?";
}

/* ---- files ---- */

char *ft_read_all(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
