#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Build the reader-bug corpus (issue 23) from one good trace.dat (v6).

usage: mkbadfiles.py GOOD.dat OUTDIR [GOOD-v7.dat]

Each file damages the good recording in one way that a reader once took
without a word; tests/badfiles.sh checks that both readers refuse it (or,
for a lost-events flag, that both say the same), in under a second:

  common-type-size-1   one format says common_type is 1 byte, the others 2
  unknown-event-id     one record carries an id no format in the file has
  past-commit          a page's commit ends inside its last event
  padding-fffffff0     a padding event whose length wraps the page index
  padding-ffffffff     the same, one byte short of the page's start
  negative-offset      one field's offset is -8 (wrapped the bounds check)
  empty-page-missed    an empty page flagged as having lost events
  field-size-3         a number field of 3 bytes (hash), no integer read
  commit-past-page     a page's commit larger than the page's data room
  truncated            the file cut in the middle of the last CPU's data
  size-wraps           a CPU's data size whose end wraps the file offset
  padding-fffffff0-v7  the padding of padding-fffffff0 in GOOD-v7.dat, the
                       same file converted to version 7 (uncompressed), which
                       only libtracecmd reads

The page edits go to the first data page of CPU 0 with at least four
events; the format edits keep every length, so only the damage differs.
"""
import struct
import sys

PAGE_HDR = 16
COMMIT_MASK = (1 << 27) - 1
MISSED_EVENTS = 1 << 31


def cpu_data(buf):
    """(page size, [(offset, size)] per CPU) of a version 6 file"""
    if buf[:10] != b"\x17\x08\x44tracing" or buf[10:12] != b"6\0":
        sys.exit("mkbadfiles: not a trace.dat version 6 file")
    page = struct.unpack_from("<I", buf, 14)[0]
    opt = buf.index(b"options  \0")
    cpus = struct.unpack_from("<I", buf, opt - 4)[0]
    fly = buf.index(b"flyrecord\0", opt) + 10
    return page, [struct.unpack_from("<QQ", buf, fly + 16 * i)
                  for i in range(cpus)]


def events(buf, pg):
    """(offset of the header, type_len) of each event in the page at pg"""
    commit = struct.unpack_from("<Q", buf, pg + 8)[0] & COMMIT_MASK
    c, out = 0, []
    while c + 4 <= commit:
        at = pg + PAGE_HDR + c
        tl = struct.unpack_from("<I", buf, at)[0] & 31
        out.append((at, tl))
        if 1 <= tl <= 28:
            c += 4 + 4 * tl
        elif tl == 0:
            c += 8 + ((struct.unpack_from("<I", buf, at + 4)[0] - 4 + 3) & ~3)
        elif tl == 29:
            c += 4 + struct.unpack_from("<I", buf, at + 4)[0]
        else:
            c += 8
    return commit, out


def busy_page(buf):
    page, cpus = cpu_data(buf)
    off, size = cpus[0]
    for pg in range(off, off + size, page):
        commit, ev = events(buf, pg)
        if len([e for e in ev if e[1] <= 28]) >= 4:
            return pg, commit, ev
    sys.exit("mkbadfiles: no data page with four events on CPU 0")


def edit_format(buf, old, new, nth=0):
    """replace the nth occurrence of old by new, the same length"""
    assert len(old) == len(new)
    at = -1
    for _ in range(nth + 1):
        at = buf.index(old, at + 1)
    buf[at:at + len(old)] = new


def main():
    good, outdir = sys.argv[1], sys.argv[2]
    with open(good, "rb") as f:
        orig = bytearray(f.read())
    files = {}

    # the third format's common_type (hugetlb_fault_mutex_released in
    # faulttune's and synth's files): libtraceevent takes the common
    # fields from the event with the lowest id, faulttune took the last
    b = bytearray(orig)
    edit_format(b, b"common_type;\toffset:0;\tsize:2;",
                b"common_type;\toffset:0;\tsize:1;", 2)
    files["common-type-size-1"] = b

    pg, commit, ev = busy_page(orig)
    data = [e for e in ev if 1 <= e[1] <= 28]

    b = bytearray(orig)
    struct.pack_into("<H", b, data[1][0] + 4, 4095)
    files["unknown-event-id"] = b

    b = bytearray(orig)
    last = data[-1][0] - pg - PAGE_HDR
    flags = struct.unpack_from("<Q", b, pg + 8)[0] & ~COMMIT_MASK
    struct.pack_into("<Q", b, pg + 8, flags | (last + 8))
    files["past-commit"] = b

    for name, length in (("padding-fffffff0", 0xfffffff0),
                         ("padding-ffffffff", 0xffffffff)):
        b = bytearray(orig)
        at = data[1][0]
        struct.pack_into("<II", b, at, 29, length)
        files[name] = b

    b = bytearray(orig)
    # -8 as libtraceevent reads it (an unsigned long into an int); the
    # signedness, optional in the format, makes room for it
    edit_format(b, b"long index;\toffset:16;\tsize:8;\tsigned:0;",
                b"long index;\toffset:0x00fffffff8;\tsize:8;")
    files["negative-offset"] = b

    b = bytearray(orig)
    flags = struct.unpack_from("<Q", b, pg + 8)[0] & ~COMMIT_MASK
    struct.pack_into("<Q", b, pg + 8, flags | MISSED_EVENTS)
    files["empty-page-missed"] = b

    # a number field of 3 bytes: no integer read fits it
    b = bytearray(orig)
    edit_format(b, b"u32 hash;\toffset:24;\tsize:4;",
                b"u32 hash;\toffset:24;\tsize:3;")
    files["field-size-3"] = b

    # a commit larger than the page's room for data
    b = bytearray(orig)
    page = cpu_data(orig)[0]
    flags = struct.unpack_from("<Q", b, pg + 8)[0] & ~COMMIT_MASK
    struct.pack_into("<Q", b, pg + 8, flags | (page - PAGE_HDR + 8))
    files["commit-past-page"] = b

    # the file cut in the middle of the last CPU's data
    page, cpus = cpu_data(orig)
    off, size = cpus[-1]
    files["truncated"] = bytearray(orig[:off + size // 2 + 100])

    # a CPU's data size whose end wraps the 64-bit file offset
    b = bytearray(orig)
    fly = b.index(b"flyrecord\0", b.index(b"options  \0")) + 10
    struct.pack_into("<Q", b, fly + 8, (1 << 64) - off // 2)
    files["size-wraps"] = b

    if len(sys.argv) > 3:
        # an uncompressed version 7 file keeps the pages as they are
        with open(sys.argv[3], "rb") as f:
            b = bytearray(f.read())
        page = cpu_data(orig)[0]
        at = b.find(orig[pg:pg + page])
        if at < 0:
            sys.exit("mkbadfiles: the page is not in %s" % sys.argv[3])
        struct.pack_into("<II", b, at + data[1][0] - pg, 29, 0xfffffff0)
        files["padding-fffffff0-v7"] = b

    for name, b in files.items():
        with open("%s/%s.dat" % (outdir, name), "wb") as f:
            f.write(b)


if __name__ == "__main__":
    main()
