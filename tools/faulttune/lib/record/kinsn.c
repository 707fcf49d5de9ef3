// SPDX-License-Identifier: GPL-2.0
/*
 * Where instructions start in the kernel's text, as the kernel itself
 * decodes it.
 *
 * The recorder places some probes a few instructions before a call
 * (kprobe.c's releases, kcal.c's calibration of them) and has to know
 * that the address it picked starts an instruction, and that no jump
 * lands between it and the call.  Decoding x86 here would be a second
 * decoder that could disagree with the kernel's.  The kernel already
 * answers: register_kprobe() decodes the function from its start and
 * refuses an address inside an instruction with EILSEQ.  So a kprobe is
 * made there and removed at once.  It is never enabled, and a disabled
 * kprobe does not touch the text: nothing on the machine runs it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tracefs.h>
#include "record.h"

int ft_kprobe_insn_at(const char *group, const char *name, uint64_t addr)
{
	struct tracefs_dynevent *ev;
	char where[32];
	int made, err;

	snprintf(where, sizeof(where), "0x%llx", (unsigned long long)addr);
	ev = tracefs_kprobe_alloc(group, name, where, NULL);
	if (!ev)
		return -1;
	made = !tracefs_dynevent_create(ev);
	err = errno;
	if (made && tracefs_dynevent_destroy(ev, true))
		ft_err("cannot remove kprobe event %s/%s: %s", group, name,
		       strerror(errno));
	tracefs_dynevent_free(ev);
	tracefs_error_clear(NULL);
	if (made)
		return 1;
	return err == EILSEQ ? 0 : -1;
}
