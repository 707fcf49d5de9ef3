# SPDX-License-Identifier: GPL-2.0
#
# bench-programs-guest.sh: the guest side of tests/bench-programs.sh
# (busybox sh), sent as the guest command after a line of variables:
# STABLE (tune runs per program), WALLS (timed QEMU runs per size),
# PROGRAMS (which of qemu, stress-ng, builtin).
# Prints one "BENCHP <kind> <json>" line per measurement.
knob=/sys/kernel/debug/hugetlb/num_fault_mutexes
[ -e $knob ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
boot=$(cat $knob)
cat > /tmp/qemu.sh <<'Q'
#!/bin/sh
echo quit | exec qemu-system-x86_64 -machine none -nodefaults -display none \
	-object memory-backend-memfd,id=m,size=256M,hugetlb=on,hugetlbsize=2097152,prealloc=on,prealloc-threads=4 \
	-monitor stdio >/dev/null
Q
chmod +x /tmp/qemu.sh
field() { grep -o "\"$1\":[^,}]*" "$2" | head -n 1 | cut -d: -f2; }
# one default tune of PROGRAM: its pick, time, probing, settledness and
# the model against measurement at the sizes it measured
one() {	# PROGRAM RUN [-- COMMAND...]
	p=$1 i=$2
	shift 2
	if faulttune tune -j "$@" > /tmp/t.json 2>/tmp/t.err; then
		echo "BENCHP tune {\"program\":\"$p\",\"run\":$i,\"recommended\":$(field recommended /tmp/t.json),\"wall_s\":$(field wall_s /tmp/t.json),$(grep -o '"probes":{[^}]*}' /tmp/t.json),$(grep -o '"settled":{[^}]*}' /tmp/t.json),$(grep -o '"model_check_measured":\[[^]]*\]' /tmp/t.json)}"
		[ "$p" = qemu ] && field recommended /tmp/t.json >> /tmp/qemu.picks
	else
		echo "BENCHP fail {\"program\":\"$p\",\"run\":$i}"
		sed 's/^/# /' /tmp/t.err
	fi
}
: > /tmp/qemu.picks
i=0
while [ $i -lt "$STABLE" ]; do
	i=$((i + 1))
	for p in $PROGRAMS; do
		case $p in
		qemu) one qemu $i -- /tmp/qemu.sh ;;
		stress-ng) one stress-ng $i -- stress-ng --mmaphuge 4 --mmaphuge-mmaps 16 --timeout 2s --quiet ;;
		builtin) one builtin $i ;;
		esac
	done
done

# QEMU's preallocation: wall time at 1 mutex, the boot size and the size
# the tune runs picked most, interleaved in a rotating order
pick=$(sort /tmp/qemu.picks | uniq -c | sort -rn | head -n 1 | awk '{ print $2 }')
[ -n "$pick" ] || pick=$boot
up() { cut -d' ' -f1 /proc/uptime; }
r=0
while [ $r -lt "$WALLS" ]; do
	r=$((r + 1))
	case $((r % 3)) in
	0) order="1 $boot $pick" ;;
	1) order="$boot $pick 1" ;;
	*) order="$pick 1 $boot" ;;
	esac
	for s in $order; do
		echo $s > $knob
		t0=$(up)
		/tmp/qemu.sh
		t1=$(up)
		echo "BENCHP wall {\"run\":$r,\"size\":$s,\"boot\":$boot,\"pick\":$pick,\"wall_s\":$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')}"
	done
done
echo $boot > $knob
