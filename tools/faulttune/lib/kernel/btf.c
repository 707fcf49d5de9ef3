// SPDX-License-Identifier: GPL-2.0
/*
 * sizeof(struct mutex) of the running kernel, for the memory column.
 *
 * Lock debugging changes it: 32 bytes on x86_64 without; with
 * CONFIG_DEBUG_MUTEXES + CONFIG_DEBUG_LOCK_ALLOC (the guest's kernel) a
 * mutex also carries a lockdep map and debug fields, in itself and in
 * its wait_lock.  The kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)
 * has the exact size; without it, a kernel showing signs of lock
 * debugging gets "unknown" rather than a number that may be wrong.
 * The BTF layout is the kernel's uapi (include/uapi/linux/btf.h): a
 * header, then the type records, each a btf_type followed by a
 * kind-dependent tail.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "kernel.h"

#define BTF_MAGIC	0xeb9f

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

/* bytes of a type record after its 12-byte btf_type, by kind */
static long tail_len(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case 1:			/* INT */
	case 14:		/* VAR */
	case 17:		/* DECL_TAG */
		return 4;
	case 3:			/* ARRAY */
		return 12;
	case 4:			/* STRUCT */
	case 5:			/* UNION */
	case 15:		/* DATASEC */
	case 19:		/* ENUM64 */
		return 12L * vlen;
	case 6:			/* ENUM */
	case 13:		/* FUNC_PROTO */
		return 8L * vlen;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12:
	case 16: case 18:	/* PTR FWD TYPEDEF VOLATILE CONST RESTRICT FUNC FLOAT TYPE_TAG */
		return 0;
	default:
		return -1;	/* a kind this reader does not know */
	}
}

/*
 * The BTF file, mapped (*mapped set) or read: the kernel's
 * /sys/kernel/btf/vmlinux can be mapped since Linux 6.16, and reading
 * its 5 MB a page per read() was 3 ms of a 0.1 s report.  NULL if
 * unreadable.
 */
static char *btf_load(const char *path, size_t *len, int *mapped)
{
	struct stat st;
	void *p = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*mapped = 0;
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0)
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return ft_read_all(path, len);
	*len = st.st_size;
	*mapped = 1;
	return p;
}

long ft_btf_struct_size(const char *path, const char *name)
{
	size_t len;
	int mapped;
	char *buf = btf_load(path, &len, &mapped);
	const struct btf_hdr *hd = (const void *)buf;
	const char *types, *strs;
	long size = -1, pos;
	size_t nlen = strlen(name);

	if (!buf)
		return -1;
	if (len < sizeof(*hd) || hd->magic != BTF_MAGIC ||
	    (uint64_t)hd->hdr_len + hd->type_off + hd->type_len > len ||
	    (uint64_t)hd->hdr_len + hd->str_off + hd->str_len > len)
		goto out;
	types = buf + hd->hdr_len + hd->type_off;
	strs = buf + hd->hdr_len + hd->str_off;
	for (pos = 0; pos + 12 <= (long)hd->type_len;) {
		uint32_t name_off, info, sz;
		unsigned int kind;
		long tail;

		memcpy(&name_off, types + pos, 4);
		memcpy(&info, types + pos + 4, 4);
		memcpy(&sz, types + pos + 8, 4);
		kind = (info >> 24) & 0x1f;
		tail = tail_len(kind, info & 0xffff);
		if (tail < 0)
			break;
		if (kind == 4 && name_off + nlen < hd->str_len &&
		    !memcmp(strs + name_off, name, nlen + 1)) {
			size = sz;
			break;
		}
		pos += 12 + tail;
	}
out:
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	return size;
}
