#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Makefile keeps the flags the code needs when the user sets CFLAGS on
# the command line, and passes the user's CPPFLAGS and LDFLAGS on: every
# compile line of a dry run has -std=gnu11 -D_GNU_SOURCE and the user's
# flags, every link line the user's LDFLAGS.  Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
unset MAKEFLAGS MFLAGS MAKELEVEL
pass=0
fail=0
check() { d=$1; shift; if "$@"; then pass=$((pass + 1)); echo "ok - $d"; \
	else fail=$((fail + 1)); echo "not ok - $d"; fi; }

out=$(make -s -n -B CFLAGS=-O1 CPPFLAGS=-DFT_USER_CPP LDFLAGS=-Wl,-O1 \
	faulttune tests/unit tests/synth 2>&1)
cc=$(printf '%s\n' "$out" | grep -E '(^| )-c ')
ld=$(printf '%s\n' "$out" | grep -E ' -o (faulttune|tests/unit|tests/synth) ')
n_cc=$(printf '%s\n' "$cc" | grep -c .)
n_ld=$(printf '%s\n' "$ld" | grep -c .)
check "a dry run with CFLAGS=-O1 compiles something ($n_cc lines) and links 3" \
	[ "$n_cc" -gt 5 -a "$n_ld" = 3 ]
check "every compile keeps -std=gnu11 -D_GNU_SOURCE" \
	[ -z "$(printf '%s\n' "$cc" "$ld" | grep -v -- '-std=gnu11 -D_GNU_SOURCE')" ]
check "every compile has the user's CFLAGS and CPPFLAGS" \
	[ -z "$(printf '%s\n' "$cc" "$ld" | grep -v -- '-DFT_USER_CPP' | grep .)$(printf '%s\n' "$cc" "$ld" | grep -v -- '-O1' | grep .)" ]
check "every link has the user's LDFLAGS" \
	[ -z "$(printf '%s\n' "$ld" | grep -v -- '-Wl,-O1')" ]
echo "$pass passed, $fail failed"
[ $fail = 0 ]
