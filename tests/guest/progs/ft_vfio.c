// SPDX-License-Identifier: GPL-2.0
/*
 * ft_vfio: hand QEMU's ivshmem device to vfio-pci in no-IOMMU mode, and
 * give it back, for the guest tests of faulttune bench -w memtype-lookup.
 *
 *   ft_vfio bind      print the device's address once it is bound
 *   ft_vfio unbind    undo what bind changed
 *   ft_vfio scribble SECONDS BYTES
 *                     overwrite every 64-byte line of BAR2's first BYTES
 *                     through the
 *                     sysfs resource2 file, over and over, behind the
 *                     back of the vfio mapping (to show that faulttune's
 *                     data check fails when the data is wrong)
 *
 * bind turns vfio.enable_unsafe_noiommu_mode on (the guest has no IOMMU),
 * sets the device's driver_override to vfio-pci and probes it; it keeps
 * what it found (driver, parameter) in STATE, which unbind restores, so
 * that the tests after it (stress-ng --pci mmapping the sysfs resource
 * files) see the device as it was.  Exit status 0, 1 on failure, 3 when
 * the machine has no ivshmem device, 4 when the kernel has no vfio-pci.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define PCI	"/sys/bus/pci/devices"
#define PARAM	"/sys/module/vfio/parameters/enable_unsafe_noiommu_mode"
#define STATE	"/tmp/ft_vfio.state"

static int put(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		fprintf(stderr, "ft_vfio: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = fputs(val, f) < 0;
	ret |= fclose(f) != 0;
	if (ret)
		fprintf(stderr, "ft_vfio: write '%s' to %s: %s\n", val, path,
			strerror(errno));
	return ret ? -1 : 0;
}

static int get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return -1;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void driver_of(const char *bdf, char *drv, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), PCI "/%s/driver", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	drv[0] = 0;
	if (n > 0) {
		link[n] = 0;
		snprintf(drv, len, "%s", strrchr(link, '/') + 1);
	}
}

static int find_ivshmem(char *bdf, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(PCI);
	char path[PATH_MAX], v[32], dv[32];

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI "/%s/vendor", de->d_name);
		get(path, v, sizeof(v));
		snprintf(path, sizeof(path), PCI "/%s/device", de->d_name);
		get(path, dv, sizeof(dv));
		if (!strcmp(v, "0x1af4") && !strcmp(dv, "0x1110")) {
			snprintf(bdf, len, "%.63s", de->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}

static int bind(void)
{
	char bdf[64], drv[64], param[8], path[PATH_MAX];
	FILE *st;

	if (find_ivshmem(bdf, sizeof(bdf))) {
		fprintf(stderr, "ft_vfio: no ivshmem device (1af4:1110)\n");
		return 3;
	}
	if (access("/sys/bus/pci/drivers/vfio-pci", F_OK) || get(PARAM, param, sizeof(param))) {
		fprintf(stderr, "ft_vfio: no vfio-pci driver or no %s "
			"(CONFIG_VFIO_PCI, CONFIG_VFIO_NOIOMMU)\n", PARAM);
		return 4;
	}
	driver_of(bdf, drv, sizeof(drv));
	if (!strcmp(drv, "vfio-pci")) {
		fprintf(stderr, "ft_vfio: %s is bound to vfio-pci already\n", bdf);
		return 1;
	}
	st = fopen(STATE, "w");
	if (!st || fprintf(st, "%s %s %s\n", bdf, param, drv[0] ? drv : "-") < 0 ||
	    fclose(st)) {
		fprintf(stderr, "ft_vfio: cannot save %s\n", STATE);
		return 1;
	}
	if (put(PARAM, "1"))
		return 1;
	snprintf(path, sizeof(path), PCI "/%s/driver_override", bdf);
	if (put(path, "vfio-pci"))
		return 1;
	if (drv[0]) {
		snprintf(path, sizeof(path), PCI "/%s/driver/unbind", bdf);
		if (put(path, bdf))
			return 1;
	}
	if (put("/sys/bus/pci/drivers_probe", bdf))
		return 1;
	driver_of(bdf, drv, sizeof(drv));
	if (strcmp(drv, "vfio-pci")) {
		fprintf(stderr, "ft_vfio: %s did not bind to vfio-pci (driver: %s)\n",
			bdf, drv[0] ? drv : "none");
		return 1;
	}
	printf("%s\n", bdf);
	return 0;
}

static int unbind(void)
{
	char bdf[64], param[8], drv[64], path[PATH_MAX];
	FILE *st = fopen(STATE, "r");
	int ret = 0;

	if (!st || fscanf(st, "%63s %7s %63s", bdf, param, drv) != 3) {
		fprintf(stderr, "ft_vfio: nothing to undo (%s)\n", STATE);
		if (st)
			fclose(st);
		return 1;
	}
	fclose(st);
	if (put("/sys/bus/pci/drivers/vfio-pci/unbind", bdf))
		ret = 1;
	snprintf(path, sizeof(path), PCI "/%s/driver_override", bdf);
	/* an empty write clears the override */
	if (put(path, "\n"))
		ret = 1;
	if (strcmp(drv, "-") && put("/sys/bus/pci/drivers_probe", bdf))
		ret = 1;
	if (put(PARAM, param))
		ret = 1;
	if (!ret)
		unlink(STATE);
	return ret;
}

static int scribble(double secs, size_t bytes)
{
	char bdf[64], path[PATH_MAX];
	struct timespec t0, t;
	volatile unsigned long *m;
	struct stat st;
	size_t i;
	int fd;

	if (find_ivshmem(bdf, sizeof(bdf))) {
		fprintf(stderr, "ft_vfio: no ivshmem device (1af4:1110)\n");
		return 3;
	}
	snprintf(path, sizeof(path), PCI "/%s/resource2", bdf);
	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ft_vfio: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!bytes || bytes > (size_t)st.st_size)
		bytes = st.st_size;
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "ft_vfio: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < bytes / sizeof(*m); i += 8)
			m[i] = 0x5c5c5c5c5c5c5c5cUL;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "scribble"))
		return scribble(atof(argv[2]), strtoul(argv[3], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "bind"))
		return bind();
	if (argc == 2 && !strcmp(argv[1], "unbind"))
		return unbind();
	fprintf(stderr, "usage: ft_vfio bind|unbind|scribble SECONDS BYTES\n");
	return 2;
}
