#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune report on truncated and corrupt files: a one-line error naming
# the file and exit status 1, never a crash, a hang or a silent partial
# answer; TAP.
W=/tmp/ft-bad.$$
. "$(dirname "$0")/lib.sh"
bad() {	# file description
	faulttune report "$1" >/dev/null 2>$W/err
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l < $W/err)" = 1 ] && grep -q "^faulttune: $1: " $W/err
	t $? "$2: exit 1 with one line naming the file (rc=$rc: $(head -n 1 $W/err))"
}

mkdir -p $W
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
faulttune record -o $W/ok.dat -- faulttune bench -t 2 -s 16M -r 1 >/dev/null 2>&1
faulttune report $W/ok.dat >/dev/null 2>&1
t $? "the intact recording reads"
sz=$(stat -c %s $W/ok.dat)

: > $W/empty.dat
bad $W/empty.dat "empty file"
bad $W/none.dat "missing file"
head -c 4096 /dev/urandom > $W/rand.dat
bad $W/rand.dat "random bytes"
for cut in 10 100 1000 $((sz / 2)) $((sz - 1)); do
	head -c $cut $W/ok.dat > $W/cut.dat
	bad $W/cut.dat "truncated at $cut of $sz bytes"
done
# corrupt bytes: header, formats, cpu offsets, data pages
i=0
for off in 3 20 200 2000 $((sz / 2)) $((sz - 100)); do
	cp $W/ok.dat $W/bad.dat
	head -c 64 /dev/urandom | dd of=$W/bad.dat bs=1 seek=$off conv=notrunc 2>/dev/null
	faulttune report --timeout 60 $W/bad.dat >/dev/null 2>$W/err
	rc=$?
	[ $rc = 0 ] || { [ $rc = 1 ] && [ "$(wc -l < $W/err)" = 1 ]; }
	t $? "64 random bytes at offset $off: a report or one line (rc=$rc)"
done

# a damaged event header in a data page of the real recording (the file
# ends with CPU data, one page of it): the last page gets a commit of 8
# bytes holding a padding event whose length wraps (0xfffffff0), which
# made kbuffer loop or read out of bounds.  Counted and refused; --force
# reports without it and says so.
pg=$((sz - 4096))
cp $W/ok.dat $W/pad.dat
printf '\010\000\000\000\000\000\000\000\035\000\000\000\360\377\377\377' |
	dd of=$W/pad.dat bs=1 seek=$((pg + 8)) conv=notrunc 2>/dev/null
bad $W/pad.dat "padding event with a wrapping length"
grep -q 'bad event headers 1 ' $W/err
t $? "the error counts the bad event header ($(cat $W/err))"
faulttune report --force --json $W/pad.dat >$W/pad.json 2>$W/err
rc=$?
[ $rc = 0 ] && grep -q '"skipped":{"bad_pages":0,"bad_headers":1,' $W/pad.json
t $? "--force: exit 0, the skipped header in the JSON (rc=$rc)"

rm -rf $W
echo "1..$n"
exit $fail
