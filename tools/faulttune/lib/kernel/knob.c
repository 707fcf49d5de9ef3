// SPDX-License-Identifier: GPL-2.0
/*
 * The knob, num_fault_mutexes in debugfs: tune sets it for each run and
 * puts it back, watch reads it for its gauge.  A write is checked by
 * reading the file again, so that a knob that took another value than
 * the one written (a plain file given with --knob, or a racing writer)
 * is an error and not a run measured at the wrong size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel.h"
#include "knob.h"

int ft_knob_read(const char *knob, uint32_t *v)
{
	char *text = ft_read_all(knob, NULL);
	uint64_t x;
	char *nl;

	if (!text)
		return -1;
	nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (ft_parse_u64(text, &x) || x > UINT32_MAX) {
		free(text);
		errno = EINVAL;
		return -1;
	}
	free(text);
	*v = (uint32_t)x;
	return 0;
}

int ft_knob_write(const char *knob, uint32_t v)
{
	char buf[32];
	int fd, n, ret = 0;
	uint32_t back;

	fd = open(knob, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%u", v);
	if (write(fd, buf, n) != n)
		ret = -1;
	if (close(fd))
		ret = -1;
	if (!ret && (ft_knob_read(knob, &back) || back != v)) {
		errno = EIO;
		ret = -1;
	}
	return ret;
}
