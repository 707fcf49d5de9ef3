/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run-time knob of the fault mutex table: the kernel contract of the
 * series' patch 4 (Documentation/admin-guide/mm/hugetlb_fault_mutexes.rst),
 * read and written through knob.c only.
 */
#ifndef FT_KNOB_H
#define FT_KNOB_H

#include <stdint.h>

#define FT_KNOB_PATH "/sys/kernel/debug/hugetlb/num_fault_mutexes"

/* the table's size; -1 with errno (EINVAL: not a number the kernel writes) */
int ft_knob_read(const char *knob, uint32_t *v);
/*
 * Set the size and read it back; -1 with errno: write(2)'s (EINVAL for a
 * size the kernel refuses, ENOMEM), or EIO when the read-back differs.
 */
int ft_knob_write(const char *knob, uint32_t v);

#endif
