#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faulttune's fuzz run (make fuzz, part of make check): the structure-aware
# mutator of tests/fuzz.c against an ASan/UBSan build of faulttune, over
# the regression corpus (tests/fuzz-corpus/*.dat: files that once crashed,
# hung or split the readers) and fresh seeds: a synthetic recording as
# version 6, and converted by trace-cmd to version 7 and version 7 with
# zstd.  Bounded: FUZZ_CASES mutants (default 600) or FUZZ_SECONDS
# (default 90), whichever ends first.  Inputs that fail are copied into
# the corpus directory, to be added to git.
#
# usage: tests/fuzz.sh ./faulttune-san
FT=${1:-./faulttune-san}
case $FT in /*) ;; *) FT=$(pwd)/$FT ;; esac
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/fuzz-corpus
W=$(mktemp -d /tmp/faulttune-fuzz.XXXXXX)
trap 'rm -rf "$W"' EXIT

command -v trace-cmd >/dev/null || { echo "trace-cmd not installed (apt-get install trace-cmd)"; exit 1; }
"$here/synth" "$W/seed-v6.dat" 2 12 8 >/dev/null || exit 1
trace-cmd convert -i "$W/seed-v6.dat" -o "$W/seed-v7.dat" --file-version 7 \
	--compression none >/dev/null 2>&1 || { echo "trace-cmd convert (v7) failed"; exit 1; }
trace-cmd convert -i "$W/seed-v6.dat" -o "$W/seed-v7-zstd.dat" --file-version 7 \
	--compression zstd >/dev/null 2>&1 || { echo "trace-cmd convert (v7, zstd) failed"; exit 1; }

# a sanitizer report is a failure with its own exit status; a SIGSEGV,
# SIGBUS, SIGFPE or SIGILL in libtracecmd (not instrumented) is left to
# faulttune's reader isolation, which names the library (a refusal) or,
# in faulttune's own code, a faulttune bug (a crash: tests/fuzz.c)
# allocator_may_return_null: an absurd size from a damaged header gets
# NULL, as from glibc, instead of an ASan abort; max_allocation_size_mb:
# no input of these seeds needs 256 MB, and a damaged one that asks for
# GBs would have ASan write their shadow (seconds: a false hang)
export ASAN_OPTIONS=exitcode=99:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=256
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1
"$here/fuzz" "$FT" "$W" "${FUZZ_CASES:-600}" "${FUZZ_SECONDS:-90}" \
	"$corpus"/*.dat "$W"/seed-*.dat
rc=$?
for f in "$W"/found-*.dat; do
	[ -e "$f" ] || continue
	n=$(sha1sum "$f" | cut -c1-12)
	cp "$f" "$corpus/found-$n.dat"
	echo "# new corpus file: $corpus/found-$n.dat (add it to git)"
done
exit $rc
