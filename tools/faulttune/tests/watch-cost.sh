#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a long faulttune watch costs on this machine (root): memory after
# the first window against memory at the end, and CPU per window, the
# watch and its reader children together.  The watch runs in a private
# mount namespace with a /run/faulttune of its own, so that a watch
# already running on the machine does not refuse it.  Samples go to
# stdout as comments, the last line is the summary.
#
# usage: tests/watch-cost.sh ./faulttune MINUTES [INTERVAL-SECONDS]
FT=${1:-./faulttune}
MIN=${2:-60}
IVL=${3:-5}
case $FT in /*) ;; *) FT=$(pwd)/$FT ;; esac
[ "$(id -u)" = 0 ] || { echo "watch-cost: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/faulttune-cost.XXXXXX)
trap 'kill $wp 2>/dev/null; wait $wp 2>/dev/null; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
mkdir -p /run/faulttune
unshare -m --propagation private sh -c \
	"mount -t tmpfs -o mode=0755 tmpfs /run/faulttune && exec '$FT' watch -i $IVL" \
	> "$W/lines" 2> "$W/err" &
wp=$!
tick=$(getconf CLK_TCK)
# rss KB and CPU ticks of the watch and its waited-for children
sample() {
	echo "$(awk '/^VmRSS/ { print $2 }' /proc/$wp/status) $(awk '{ print $14 + $15 + $16 + $17 }' /proc/$wp/stat)"
}
t0=$(date +%s)
end=$((t0 + MIN * 60))
last=0 first= cpu0= n0=
while [ "$(date +%s)" -lt $end ] && kill -0 $wp 2>/dev/null; do
	l=$(($(grep -c . "$W/lines") - 1))
	# right after a window's line: between windows, nothing in flight
	if [ $l -gt $last ] && { [ $l = 1 ] || [ $((l % 12)) = 0 ]; }; then
		set -- $(sample)
		echo "# t=$(($(date +%s) - t0))s windows=$l rss=${1}kB cpu=${2}ticks"
		[ -z "$first" ] && first=$1
		# the base: a minute in (window 12 at -i 5), once the
		# first window's one-off set-up is behind
		[ -z "$cpu0" ] && [ $l -ge 12 ] && base=$1 cpu0=$2 n0=$l
		rss=$1 cpu=$2 n=$l
	fi
	last=$l
	sleep 0.1
done
if [ -z "$cpu0" ] || [ "$n" = "$n0" ]; then
	echo "watch-cost: too few windows ($(head -3 "$W/err"))"
	exit 1
fi
awk -v n="$n" -v n0="$n0" -v f="$first" -v a="$base" -v b="$rss" -v c0="$cpu0" \
    -v c="$cpu" -v tick="$tick" -v min="$MIN" -v ivl="$IVL" 'BEGIN {
	printf "watch-cost: %d windows in %d min at -i %s: RSS %d kB after window 1, %d kB after window %d, %d kB after window %d (%+.1f%% from window %d, %+.1f%% from window 1); CPU %.0f ms per window (watch and reader)\n",
		n, min, ivl, f, a, n0, b, n, 100 * (b - a) / a, n0, 100 * (b - f) / f,
		1000 * (c - c0) / tick / (n - n0)
}'
