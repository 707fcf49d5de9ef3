#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh: faulttune installed as a user installs it, one TAP line per
# check (make check collects them as the "install" group):
#
#   make install DESTDIR=... PREFIX=/usr/local, the installed binary's
#   --version and report; man -l on the installed page; the installed bash
#   completion as bash-completion loads it; faulttune-watch.service's
#   ExecStart; make uninstall;
#   make deb: contents, Depends, version, lintian (make deb fails on a
#   lintian error), then apt install of the package (--version, man
#   faulttune, systemd-analyze verify on the unit, not enabled) and
#   dpkg --purge; make kernel-deb KDEB_CONFIG=guest, for 6.12 (and 7.3
#   with INSTALL_KDEB_KVERS="6.12 7.3"): the package is that kernel's, the
#   kernel image in it carries the series, its docs the boot parameter,
#   and the image taken out of the package boots with that kernel's guest
#   image and passes kernel-knob.t.
#
# INSTALL_KDEB=0 leaves out the kernel package (the only slow part).
# INSTALL_KDEB_KVERS: the kernels packaged, 6.12 unless set.  make check
# packages 6.12 only, the LTS a Debian 12 fleet installs: kernel-deb.sh
# is the same for both versions, and 7.3's package cost CI three of its
# 90 minutes (a kernel build and a boot).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ft=$top/tools/faulttune
tmp=$(mktemp -d /tmp/faulttune-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() {	# DESC COMMAND...
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# show a file as TAP diagnostics
diag() { sed 's/^/# /' "$@" | head -${DIAG_LINES:-20}; }

version=$(sed -n 's/^#define FT_VERSION "\(.*\)"/\1/p' "$ft/lib/faulttune.h")

# --- make install ------------------------------------------------------------
dest=$tmp/root
prefix=/usr/local
bin=$dest$prefix/bin/faulttune
page=$dest$prefix/share/man/man1/faulttune.1
comp=$dest$prefix/share/bash-completion/completions/faulttune
unit=$dest$prefix/lib/systemd/system/faulttune-watch.service
make -s -C "$top" install DESTDIR="$dest" PREFIX=$prefix > "$tmp/install.log" 2>&1
rc=$?
[ $rc = 0 ] || diag "$tmp/install.log"
check "make install DESTDIR PREFIX=$prefix: binary, faulttune.1, the completion and faulttune-watch.service in place (make exit $rc)" \
	eval '[ -x "$bin" ] && [ -s "$page" ] && [ -s "$comp" ] && [ -s "$unit" ] &&
	      [ "$(cd "$dest" && find . -type f | sort | tr "\n" " ")" = "./usr/local/bin/faulttune ./usr/local/lib/systemd/system/faulttune-watch.service ./usr/local/share/bash-completion/completions/faulttune ./usr/local/share/man/man1/faulttune.1 " ]'
check "make install: the unit runs the installed binary ($(grep '^ExecStart=' "$unit"))" \
	grep -qx "ExecStart=$prefix/bin/faulttune watch --textfile /var/lib/prometheus/node-exporter" "$unit"

# --version: faulttune's own, then each library with the version of the
# file the dynamic linker resolves for it (by ldd, not by the tool)
"$bin" --version > "$tmp/version" 2>&1
diag "$tmp/version"
check "installed faulttune --version: first line 'faulttune $version'" \
	eval '[ "$(head -1 "$tmp/version")" = "faulttune $version" ]'
for lib in libtracefs libtraceevent libtracecmd; do
	so=$(ldd "$bin" | awk -v l="$lib.so." 'index($1, l) == 1 { print $3 }')
	real=$(readlink -f "$so" 2>/dev/null)
	want=${real##*.so.}
	got=$(awk -v l=$lib '$1 == l { print $2 }' "$tmp/version")
	check "installed faulttune --version: $lib $got is the loaded $real" \
		eval '[ -n "$want" ] && [ "$got" = "$want" ] && grep -q "^$lib .*run time" "$tmp/version"'
done

# report on a synthetic recording: 4 threads, 50 faults each, table of 8
make -s -C "$ft" tests/synth > /dev/null 2>&1
"$ft/tests/synth" "$tmp/s.dat" 4 50 8 > /dev/null 2>&1
"$bin" report -v -m 32 "$tmp/s.dat" > "$tmp/report" 2>&1
rc=$?
[ $rc = 0 ] || diag "$tmp/report"
check "installed faulttune report on a synthetic recording: exit 0, what-if table 1..32 (exit $rc)" \
	eval '[ $rc = 0 ] && grep -q "what-if" "$tmp/report" &&
	      grep -Eq "^ +32 +[0-9]+B" "$tmp/report" && grep -Eq "^ +1 +[0-9]+B" "$tmp/report"'

# --- the manual page -----------------------------------------------------------
LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" > "$tmp/man.out" 2> "$tmp/man.err"
rc=$?
diag "$tmp/man.err"
check "man --warnings -l faulttune.1: no warning, NAME, SYNOPSIS and every subcommand rendered (exit $rc)" \
	eval '[ $rc = 0 ] && [ ! -s "$tmp/man.err" ] && grep -q "^NAME" "$tmp/man.out" &&
	      grep -q "^SYNOPSIS" "$tmp/man.out" &&
	      (for c in bench record report tune watch cleanup; do grep -q "faulttune $c" "$tmp/man.out" || exit 1; done)'

# --- bash completion, loaded the way bash-completion loads it ----------------
# comp.sh LINE...: the candidates for each LINE (cursor at its end), one
# line of space-separated sorted words per LINE
cat > "$tmp/comp.sh" <<'EOF'
source /usr/share/bash-completion/bash_completion
__load_completion faulttune || { echo "not loaded"; exit 1; }
[ "$1" = -p ] && { complete -p faulttune; exit; }
for line in "$@"; do
	COMP_LINE=$line COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	# compopt complains outside a real completion: not a result
	_faulttune faulttune "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
	echo
done
EOF
complete_() {	# LINE: candidates for LINE, run in $tmp/files
	(cd "$tmp/files" && XDG_DATA_DIRS=$dest$prefix/share PATH=$dest$prefix/bin:$PATH \
		bash "$tmp/comp.sh" "$@" 2>&1)
}
mkdir -p "$tmp/files/sub"
touch "$tmp/files/one.dat" "$tmp/files/plot.svg"

got=$(complete_ -p)
check "completion: bash-completion loads it from PREFIX/share ($got)" \
	[ "$got" = "complete -F _faulttune faulttune" ]
got=$(complete_ "faulttune ")
check "completion: 'faulttune <TAB>' offers the six subcommands (got: $got)" \
	[ "$got" = "bench cleanup record report tune watch" ]
got=$(complete_ "faulttune --")
check "completion: 'faulttune --<TAB>' offers --help and --version (got: $got)" \
	[ "$got" = "--help --version" ]

# tune's options: the ones known here must be offered, and the offer must be
# exactly the long options 'faulttune tune --help' lists
got=$(complete_ "faulttune tune --")
# (and "--" itself, since tune takes "-- COMMAND", as its usage line says)
want=$({ "$bin" tune --help 2>&1 | grep -E '^ +-' | grep -oE -- '--[a-z][a-z-]*'
	"$bin" tune --help 2>&1 | grep -qF '[-- COMMAND' && echo --; } |
	sort -u | tr '\n' ' ' | sed 's/ $//')
echo "# tune --<TAB>: $got"
check "completion: 'faulttune tune --<TAB>' offers --apply --json --plot --help" \
	eval 'for o in --apply --json --plot --help; do [[ " $got " == *" $o "* ]] || exit 1; done'
check "completion: 'faulttune tune --<TAB>' offers exactly the long options of 'faulttune tune --help'" \
	[ "$got" = "$want" ]
for c in bench record report watch cleanup; do
	got=$(complete_ "faulttune $c --")
	want=$("$bin" $c --help 2>&1 | grep -E '^ +-' | grep -oE -- '--[a-z][a-z-]*' | sort -u | tr '\n' ' ' | sed 's/ $//')
	[ "$c" = record ] && want="-- $want"
	check "completion: 'faulttune $c --<TAB>' offers the long options of its --help (got: $got)" \
		[ "$got" = "$want" ]
done

got=$(complete_ "faulttune watch --textfile ")
check "completion: 'faulttune watch --textfile <TAB>' offers directories only (got: $got)" \
	[ "$got" = "sub" ]
got=$(complete_ "faulttune report ")
check "completion: 'faulttune report <TAB>' offers file names (got: $got)" \
	[ "$got" = "one.dat plot.svg sub" ]
got=$(complete_ "faulttune tune --plot p")
check "completion: 'faulttune tune --plot p<TAB>' offers file names (got: $got)" \
	[ "$got" = "plot.svg" ]
got=$(complete_ "faulttune record -o ")
check "completion: 'faulttune record -o <TAB>' offers file names (got: $got)" \
	[ "$got" = "one.dat plot.svg sub" ]
got=$(complete_ "faulttune bench -w ")
check "completion: 'faulttune bench -w <TAB>' offers the workloads (got: $got)" \
	[ "$got" = "memtype memtype-lookup punch share threads" ]
got=$(complete_ "faulttune tune -r ")
check "completion: 'faulttune tune -r <TAB>' offers nothing for a number (got: $got)" \
	[ -z "$got" ]
got=$(complete_ "faulttune record -- trace-cm")
check "completion: 'faulttune record -- trace-cm<TAB>' completes a command (got: $got)" \
	[ "$got" = "trace-cmd" ]

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=$prefix > "$tmp/uninstall.log" 2>&1
rc=$?
check "make uninstall removes all four files (exit $rc)" \
	eval '[ $rc = 0 ] && [ -z "$(find "$dest" -type f)" ]'

# --- make deb ----------------------------------------------------------------
t0=$(date +%s)
make -s -C "$top" deb > "$tmp/deb.log" 2>&1
rc=$?
echo "# make deb: $(($(date +%s) - t0)) s"
deb=$top/faulttune_${version}_$(dpkg --print-architecture).deb
DIAG_LINES=30 diag "$tmp/deb.log"
check "make deb: dpkg-buildpackage and lintian without error, $(basename "$deb") (exit $rc)" \
	eval '[ $rc = 0 ] && [ -s "$deb" ]'
if [ -s "$deb" ]; then
	dpkg-deb -c "$deb" | awk '{ print $NF }' > "$tmp/deb.files"
	for f in ./usr/bin/faulttune ./usr/share/man/man1/faulttune.1.gz \
		 ./usr/share/bash-completion/completions/faulttune \
		 ./lib/systemd/system/faulttune-watch.service \
		 ./usr/share/doc/faulttune/copyright \
		 ./usr/share/doc/faulttune/hugetlb_fault_mutexes.rst.gz; do
		check "make deb: the package has $f" grep -qxF "$f" "$tmp/deb.files"
	done
	check "make deb: package version $(dpkg-deb -f "$deb" Version) is faulttune --version's" \
		[ "$(dpkg-deb -f "$deb" Version)" = "$version" ]
	# every library the binary needs is in Depends, by its package
	dpkg-deb -x "$deb" "$tmp/deb"
	depends=$(dpkg-deb -f "$deb" Depends)
	missing=
	for so in $(objdump -p "$tmp/deb/usr/bin/faulttune" | awk '$1 == "NEEDED" { print $2 }'); do
		# the file the dynamic linker loads, not any file of that name
		# (a multilib libc6-i386 has a /lib32/libm.so.6 too)
		path=$(ldd "$tmp/deb/usr/bin/faulttune" | awk -v so="$so" '$1 == so { print $3 }')
		pkg=$({ dpkg -S "$path" || dpkg -S "$(realpath "$path")"; } 2>/dev/null |
			head -1 | cut -d: -f1)
		[[ -n $pkg && ", $depends" == *", $pkg "* ]] || missing+=" $so(${pkg:-no package})"
	done
	check "make deb: Depends ($depends) names the package of every NEEDED library${missing:+; missing:$missing}" \
		[ -z "$missing" ]

	# as a user installs it: apt resolves Depends, man finds the page;
	# then removed, and a faulttune package already here is left alone
	if dpkg -s faulttune >/dev/null 2>&1; then
		skip "apt install $(basename "$deb")" "a faulttune package is installed on this host: not replaced"
	else
		apt-get install -y --no-install-recommends "$deb" > "$tmp/apt.log" 2>&1
		rc=$?
		[ $rc = 0 ] || diag "$tmp/apt.log"
		check "apt install $(basename "$deb") (exit $rc)" \
			eval '[ $rc = 0 ] && dpkg -s faulttune 2>/dev/null | grep -q "^Status: install ok installed"'
		check "installed: /usr/bin/faulttune --version is $version" \
			eval '[ "$(/usr/bin/faulttune --version 2>/dev/null | head -n 1)" = "faulttune $version" ]'
		check "installed: man faulttune finds /usr/share/man/man1/faulttune.1.gz and renders it" \
			eval '[ "$(man -w faulttune 2>/dev/null)" = /usr/share/man/man1/faulttune.1.gz ] &&
			      MANWIDTH=80 man -P cat faulttune 2>/dev/null | grep -q "faulttune tune"'
		# the unit as installed: its binary and man page are there now
		if command -v systemd-analyze >/dev/null; then
			systemd-analyze verify /lib/systemd/system/faulttune-watch.service > "$tmp/verify.log" 2>&1
			rc=$?
			diag "$tmp/verify.log"
			check "installed: systemd-analyze verify faulttune-watch.service: exit 0, no warning (exit $rc)" \
				eval '[ $rc = 0 ] && [ ! -s "$tmp/verify.log" ]'
		else
			skip "installed: systemd-analyze verify faulttune-watch.service" "no systemd-analyze"
		fi
		check "installed: faulttune-watch.service is not enabled by the package" \
			eval '[ ! -e /etc/systemd/system/multi-user.target.wants/faulttune-watch.service ]'
		dpkg --purge faulttune > "$tmp/purge.log" 2>&1
		rc=$?
		check "dpkg --purge faulttune leaves no /usr/bin/faulttune (exit $rc)" \
			eval '[ $rc = 0 ] && [ ! -e /usr/bin/faulttune ] && ! dpkg -s faulttune >/dev/null 2>&1'
	fi
fi

# --- make kernel-deb with the guest config, each kernel ------------------------
if [ "${INSTALL_KDEB:-1}" = 0 ]; then
	skip "make kernel-deb KDEB_CONFIG=guest" "INSTALL_KDEB=0"
	[ $failed = 0 ]
	exit
fi
# KVER BUILD-DIR PREFIX: make kernel-deb KVER=... KDEB_CONFIG=guest, the
# package checked, its image booted with that kernel's guest image
kdeb() {
	local kver=$1 b=$2 p=$3 t0 rc out image vmlinuz map doc res
	t0=$(date +%s)
	make -s -C "$top" kernel-deb KVER="$kver" KDEB_CONFIG=guest > "$tmp/kdeb.log" 2>&1
	rc=$?
	echo "# make kernel-deb KVER=$kver KDEB_CONFIG=guest: $(($(date +%s) - t0)) s"
	out=$b/kernel-deb/guest
	image=$(ls "$out"/linux-image-*.deb 2>/dev/null | grep -v -- -dbg_ | head -1)
	DIAG_LINES=30 diag "$tmp/kdeb.log"
	check "${p}make kernel-deb KVER=$kver KDEB_CONFIG=guest: a linux-image package (exit $rc)" \
		eval '[ $rc = 0 ] && [ -n "$image" ]'
	[ -n "$image" ] || return
	check "${p}kernel-deb: the package is $kver's (${image##*/})" \
		eval 'case ${image##*/} in linux-image-$kver.*) true;; *) false;; esac'
	rm -rf "$tmp/kdeb"
	dpkg-deb -x "$image" "$tmp/kdeb"
	vmlinuz=$(ls "$tmp"/kdeb/boot/vmlinuz-* 2>/dev/null | head -1)
	map=$(ls "$tmp"/kdeb/boot/System.map-* 2>/dev/null | head -1)
	"$b/patched/src/scripts/extract-vmlinux" "$vmlinuz" > "$tmp/vmlinux" 2>/dev/null
	check "${p}kernel-deb: the package's $(basename "$vmlinuz") carries the series (knob and boot parameter strings in the image)" \
		eval 'grep -aq "num_fault_mutexes" "$tmp/vmlinux" && grep -aq "hugetlb_fault_mutexes=" "$tmp/vmlinux"'
	check "${p}kernel-deb: the package's System.map has hugetlb_fault_mutex_lock" \
		grep -q ' hugetlb_fault_mutex_lock$' "$map"
	doc=$(ls "$tmp"/kdeb/usr/share/doc/linux-image-*/hugetlb_fault_mutexes.rst* 2>/dev/null | head -1)
	check "${p}kernel-deb: the package's docs document the boot parameter (${doc#$tmp/kdeb})" \
		eval '[ -n "$doc" ] && zgrep -qF "hugetlb_fault_mutexes=N" "$doc"'
	# the image as a user installs it boots, and the knob works in it
	if [ -r "$b/guest.cpio" ]; then
		VM_LOGDIR=$tmp/vm "$top/kernel/scripts/kdeb-boot.sh" "$image" \
			"$b/guest.cpio" "run-tests /ft/tests/kernel-knob.t" \
			> "$tmp/kdeb-boot.log" 2>&1
		rc=$?
		res=$(grep -c '^ok - kernel-knob: ' "$tmp/kdeb-boot.log")
		[ $rc = 0 ] || tail -n 30 "$tmp/kdeb-boot.log" | sed 's/^/# /'
		check "${p}kernel-deb: the package's image boots, kernel-knob.t passes in it ($res results, exit $rc)" \
			eval '[ $rc = 0 ] && [ "$res" -gt 10 ] && ! grep -q "^not ok" "$tmp/kdeb-boot.log"'
	else
		skip "${p}kernel-deb: the package's image boots" "no ${b#$top/}/guest.cpio (make KVER=$kver image)"
	fi
}
kvers=${INSTALL_KDEB_KVERS:-6.12}
case " $kvers " in
*" 6.12 "*) kdeb 6.12 "$top/build" "" ;;
esac
if [[ " $kvers " != *" 7.3 "* ]]; then
	echo "# 7.3's kernel package: INSTALL_KDEB_KVERS=\"6.12 7.3\" tests/install.sh (left out of make check)"
elif [ -f "$top/kernel/patches-7.3/series" ]; then
	kdeb 7.3 "$top/build/7.3" "7.3/"
else
	skip "7.3/make kernel-deb KVER=7.3 KDEB_CONFIG=guest" "no kernel/patches-7.3/series in this tree"
fi
[ $failed = 0 ]
