#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A long recording from a shorter one: its event pages K times over.

usage: mkrepeat.py IN.dat K OUT.dat

IN.dat is a version 6 trace.dat with one flyrecord section (what
tests/synth writes).  OUT.dat has the same header and, for each CPU,
IN's pages K times, copy k with every page's time stamp moved on by k
times IN's span (its last page stamp less its first, plus a second), so
that the events stay in order on each CPU and across them.  The events
themselves are untouched: their times are deltas from their page's
stamp.  Pages carrying an absolute time stamp event (type 31) would not
move with their page: IN must have none (tests/synth writes none).

tests/synth keeps every event in memory (about 11 GB for 100M events);
this streams page by page, so a 100M-event file takes the memory of
a page.  For bench-report.sh's lengths beyond what synth can hold.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkbadfiles import cpu_data  # noqa: E402

CHUNK = 256


def main():
    src, k, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, "rb") as f:
        head = f.read(1 << 20)
    page, cpus = cpu_data(head)
    first = min(off for off, size in cpus if size)
    hdr = bytearray(head[:first])
    fly = hdr.index(b"flyrecord\0", hdr.index(b"options  \0")) + 10
    lo, hi = None, 0
    with open(src, "rb") as f:
        for off, size in cpus:
            for p in range(off, off + size, page):
                f.seek(p)
                ts = struct.unpack("<Q", f.read(8))[0]
                lo = ts if lo is None or ts < lo else lo
                hi = max(hi, ts)
    shift = hi - lo + 1000000000
    off = first
    for i, (o, size) in enumerate(cpus):
        struct.pack_into("<QQ", hdr, fly + 16 * i, off, size * k)
        off += size * k
    with open(src, "rb") as f, open(dst, "wb") as out:
        out.write(hdr)
        for o, size in cpus:
            for c in range(k):
                f.seek(o)
                left = size
                while left:
                    n = min(left, CHUNK * page)
                    b = bytearray(f.read(n))
                    for p in range(0, n, page):
                        ts = struct.unpack_from("<Q", b, p)[0]
                        struct.pack_into("<Q", b, p, ts + c * shift)
                    out.write(b)
                    left -= n


if __name__ == "__main__":
    main()
