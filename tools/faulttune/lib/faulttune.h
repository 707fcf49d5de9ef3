/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faulttune: the library (lib/), for the layers above it.  Each area
 * declares its own in its folder, and a library file includes the
 * headers of its area and of those below it, never this one:
 *
 *   util/util.h          histograms, the map, jhash, parsers, ft_err
 *   event.h              the kernel's contract, struct ft_event
 *   kernel/kernel.h      symbols, kernel memory, the table, BTF
 *   kernel/knob.h        the debugfs knob
 *   record/record.h      our tracefs instance, sources, capture, kprobes
 *   analysis/analysis.h  the core, its consumers, sharing, the sample
 *   reader/reader.h      trace.dat into an analysis; the kprobe pairing
 *   model/model.h        the contention model, the what-if, the advice
 *
 * The printers declare theirs in out/out.h, the workloads in
 * bench/bench.h, the commands in builtin.h.
 */
#ifndef FAULTTUNE_H
#define FAULTTUNE_H

#define FT_VERSION "0.1"

#include "util.h"
#include "event.h"
#include "kernel.h"
#include "record.h"
#include "analysis.h"
#include "reader.h"
#include "model.h"

#endif
