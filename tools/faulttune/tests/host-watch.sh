#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# faulttune watch on this machine's own kernel (root), against the real
# monitoring components from Debian: promtool (prometheus package) lints
# the exposition, prometheus-node-exporter's textfile collector reads the
# file, a prometheus server scrapes /metrics and answers PromQL over its
# HTTP API.  They run on 127.0.0.1 on free ports and are stopped here.
#
# The host kernel differs from machine to machine and has no faulttune
# events: watch runs on the lock:contention fallback, which has no hold
# times and so no recommended size or table size (without /proc/kcore);
# what a scrape is checked against is what faulttune itself exported,
# never what the host happens to record.  Ends with "N passed, N failed".
#
# usage: tests/host-watch.sh ./faulttune
FT=${1:-./faulttune}
case $FT in /*) ;; *) FT=$(pwd)/$FT ;; esac
T=/sys/kernel/tracing
. "$(dirname "$0")/lib/host.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" != 0 ]; then
	skip "watch host tests" "need root"
	done_
fi
for tool in promtool prometheus prometheus-node-exporter curl; do
	command -v $tool >/dev/null || nok "$tool installed (tests/check.sh installs it)"
done
[ $fail = 0 ] || done_
mount_tracefs
if [ ! -d $T/events/lock/contention_begin ]; then
	skip "watch host tests" "this kernel has no lock:contention_begin"
	done_
fi
if [ -d $T/events/hugetlb ]; then
	skip "watch host tests" "this kernel has the faulttune events (the guest test covers them)"
	done_
fi

W=$(mktemp -d /tmp/faulttune-watch.XXXXXX)

inst_mark
# start_watch NAME ARGS...: watch in the background, $wpid; its stderr in W/NAME.err
start_watch() {
	local name=$1; shift
	"$FT" watch "$@" > "$W/$name.out" 2> "$W/$name.err" &
	wpid=$!
	pids="$pids $wpid"
}
listen_addr() { sed -n 's|.*serving /metrics on http://\(.*\)/metrics$|\1|p' "$W/$1.err"; }
# the samples of the faulttune_ metrics, sorted: "name{labels} value"
samples() { grep '^faulttune_' "$@" | sort; }

# --- bad input: one line naming it, exit 2, nothing changed ------------------
n0=$(inst_count)
touch "$W/plainfile"
bad() {		# WHAT-IS-NAMED ARGS...
	local want=$1; shift
	"$FT" watch "$@" > "$W/bad.out" 2> "$W/bad.err"
	local rc=$?
	check "watch $* refused: exit 2, one line naming '$want' (rc=$rc: $(head -1 "$W/bad.err"))" \
		eval '[ $rc = 2 ] && [ "$(grep -c . "$W/bad.err")" = 1 ] &&
		      grep -qF -- "$want" "$W/bad.err" && [ ! -s "$W/bad.out" ]'
}
bad "--interval (seconds) '0'" -i 0
bad "--interval (seconds) 'abc'" -i abc
bad "--window '10'" -i 5 --window 10
bad "--count '0'" -n 0
bad "--textfile '$W/missing'" --textfile "$W/missing"
bad "--textfile '$W/plainfile'" --textfile "$W/plainfile"
bad "--listen '1.2.3:80'" --listen 1.2.3:80
bad "--listen '127.0.0.1:65536'" --listen 127.0.0.1:65536
bad "--listen 'localhost:9435'" --listen localhost:9435
bad "--json and --csv" --json --csv
bad "'extra'" extra
check "bad options left no instance and no file behind" \
	eval '[ "$(inst_count)" = "$n0" ] && [ ! -e "$W/missing" ]'

# --- one line per window, JSON and CSV ---------------------------------------
"$FT" watch -i 1 --window 0.3 -n 2 > "$W/text.out" 2> "$W/text.err"
rc=$?
sed 's/^/# /' "$W/text.out"
check "watch -n 2: exit 0, a header and 2 lines (rc=$rc)" \
	eval '[ $rc = 0 ] && [ "$(wc -l < "$W/text.out")" = 3 ] && head -1 "$W/text.out" | grep -q "^time .* rec .* lost"'
check "watch says which columns the fallback cannot fill" \
	grep -q "fallback (lock:contention_begin/end): cannot fill acq, coll%, share%, rec and pred%" "$W/text.err"
check "the fallback's unknown columns print '-' (acq, coll%, share%, rec, pred%)" \
	eval 'tail -n +2 "$W/text.out" | awk '\''$2 != "-" || $5 != "-" || $6 != "-" || $8 != "-" || $9 != "-" { bad = 1 } END { exit bad }'\'''
"$FT" watch -i 1 --window 0.3 -n 2 --json > "$W/json.out" 2>/dev/null
check "watch --json: 2 objects, variant fallback, acquisitions, recommended, settled and inseparable_from null" \
	python3 -c '
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert len(l) == 2, l
for d in l:
    assert d["variant"] == "fallback" and d["acquisitions"] is None and d["recommended"] is None, d
    assert d["settled"] is None and d["inseparable_from"] is None, d
    assert d["window_s"] == 0.3 and isinstance(d["contended"], int), d
assert [d["window"] for d in l] == [1, 2]
' "$W/json.out"
"$FT" watch -i 1 --window 0.3 -n 2 --csv > "$W/csv.out" 2>/dev/null
check "watch --csv: a header and 2 rows of 14 fields, settled and inseparable_from last and empty" \
	python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
assert len(r) == 3 and r[0][0] == "time" and all(len(x) == 14 for x in r), r
assert r[0][11:] == ["overridden", "settled", "inseparable_from"], r[0]
assert all(x[1] == "fallback" and x[12:] == ["", ""] for x in r[1:]), r
' "$W/csv.out"

# --- events on during the window only; SIGTERM / SIGINT restore tracefs -----
start_watch gap -i 4 --window 0.5 -n 2
gap=$wpid
wait_for 60 grep -q '^[0-9]' "$W/gap.out"
ev=$T/instances/faulttune-$gap/events/lock/contention_begin
check "between windows: the instance's contention events are off and the stacktrace trigger gone ($(cat $ev/enable 2>/dev/null), $(grep -v '^#' $ev/trigger 2>/dev/null | head -1))" \
	eval '[ "$(cat $ev/enable)" = 0 ] && [ "$(cat $T/instances/faulttune-$gap/events/lock/contention_end/enable)" = 0 ] &&
	      ! grep -q "^stacktrace" $ev/trigger'
wait $gap
for sig in TERM INT; do
	start_watch sig -i 30 --window 20
	p=$wpid
	ev=$T/instances/faulttune-$p/events/lock/contention_begin
	# generous: a loaded CI host once took longer than 10 s here; the
	# name says what was seen, for the next time it does not come
	wait_for 60 eval 'grep -q 1 $ev/enable && grep -q "^stacktrace" $ev/trigger'
	check "SIG$sig: the window is recording (contention_begin enabled, stacktrace trigger set; saw enable=$(cat $ev/enable 2>/dev/null || echo none), trigger=$(grep -v '^#' $ev/trigger 2>/dev/null | head -1 | cut -d' ' -f1))" \
		eval 'grep -q 1 $ev/enable && grep -q "^stacktrace" $ev/trigger'
	kill -$sig $p
	wait $p
	rc=$?
	check "SIG$sig during a window: exit 0 (rc=$rc), instance faulttune-$p and its capture files gone" \
		eval '[ $rc = 0 ] && [ ! -d $T/instances/faulttune-$p ] &&
		      [ -z "$(ls /tmp/faulttune-watch-$p.dat* 2>/dev/null)" ]'
done
check "no faulttune instance of this test left ($(inst_count) now, $n0 before)" [ "$(inst_count)" = "$n0" ]

# --- a second watch is refused; the first serves /metrics and the textfile --
mkdir -p "$W/textfile"
start_watch one -i 1 --window 0.3 --listen 127.0.0.1:0 --textfile "$W/textfile"
one=$wpid
wait_for 60 test -s "$W/textfile/faulttune.prom"
addr=$(listen_addr one)
"$FT" watch -n 1 > "$W/two.out" 2> "$W/two.err"
rc=$?
check "a second watch is refused: exit 1, one line naming the first's pid $one (rc=$rc: $(cat "$W/two.err"))" \
	eval '[ $rc = 1 ] && [ "$(grep -c . "$W/two.err")" = 1 ] &&
	      grep -q "another faulttune watch is running (pid $one," "$W/two.err"'
curl -s -o "$W/scrape.prom" -w '%{http_code} %{content_type}' "http://$addr/metrics" > "$W/scrape.code"
check "GET http://$addr/metrics: 200, text/plain; version=0.0.4 ($(cat "$W/scrape.code"))" \
	grep -q '^200 text/plain; version=0.0.4' "$W/scrape.code"
promtool check metrics < "$W/scrape.prom" > "$W/lint1" 2>&1
rc=$?
sed 's/^/# /' "$W/lint1"
check "promtool check metrics on the /metrics scrape: exit 0, no warning (rc=$rc)" \
	eval '[ $rc = 0 ] && [ ! -s "$W/lint1" ] && grep -q "^faulttune_kernel_info{variant=\"fallback\"" "$W/scrape.prom"'
check "GET /, /metricsx: 404; POST /metrics: 405" \
	eval '[ "$(curl -s -o /dev/null -w "%{http_code}" "http://$addr/")" = 404 ] &&
	      [ "$(curl -s -o /dev/null -w "%{http_code}" "http://$addr/metricsx")" = 404 ] &&
	      [ "$(curl -s -o /dev/null -w "%{http_code}" -X POST "http://$addr/metrics")" = 405 ]'
promtool check metrics < "$W/textfile/faulttune.prom" > "$W/lint2" 2>&1
rc=$?
sed 's/^/# /' "$W/lint2"
check "promtool check metrics on the textfile: exit 0, no warning (rc=$rc)" \
	eval '[ $rc = 0 ] && [ ! -s "$W/lint2" ]'
# the host's kernel fills no recommendation: lint the gauges only a
# patched kernel's window fills (settled, the lowest inseparable size)
# from tests/watch-unit's example exposition
"$(dirname "$0")/watch-unit" --prom-example > "$W/example.prom" 2>/dev/null
promtool check metrics < "$W/example.prom" > "$W/lint3" 2>&1
rc=$?
sed 's/^/# /' "$W/lint3"
check "promtool check metrics on a patched window's exposition (watch-unit --prom-example): exit 0, no warning (rc=$rc)" \
	eval '[ $rc = 0 ] && [ ! -s "$W/lint3" ] &&
	      grep -qx "faulttune_recommendation_settled 0" "$W/example.prom" &&
	      grep -qx "faulttune_recommended_table_size_lowest 32" "$W/example.prom"'
kill -TERM $one
wait $one
check "after SIGTERM: the textfile stays whole, no temporary file left ($(ls -A "$W/textfile" | tr '\n' ' '))" \
	eval '[ "$(ls -A "$W/textfile")" = faulttune.prom ] && tail -1 "$W/textfile/faulttune.prom" | grep -q "^faulttune_"'

# --- node_exporter's textfile collector reads the file --------------------------
port=$(free_port)
prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$W/textfile" > "$W/ne.log" 2>&1 &
ne=$!
pids="$pids $ne"
wait_for 15 curl -sf -o "$W/ne.prom" "http://127.0.0.1:$port/metrics"
# the same series with the same values (node_exporter prints its own float format)
same_samples() {
	python3 - "$1" "$2" <<'PY'
import sys
def load(f):
    d = {}
    for line in open(f):
        if line.startswith("faulttune_"):
            k, v = line.rsplit(" ", 1)
            d[k] = float(v)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print("# %s: file %s, node_exporter %s" % (k, a.get(k), b.get(k)))
sys.exit(not a or a != b)
PY
}
check "node_exporter (textfile collector) exports every faulttune sample of the file, same values ($(samples "$W/textfile/faulttune.prom" | grep -c .) samples)" \
	same_samples "$W/textfile/faulttune.prom" "$W/ne.prom"
check "node_exporter: node_textfile_scrape_error 0, faulttune_windows_total >= 1" \
	eval 'grep -qx "node_textfile_scrape_error 0" "$W/ne.prom" &&
	      awk '\''$1 == "faulttune_windows_total" && $2 >= 1 { f = 1 } END { exit !f }'\'' "$W/ne.prom"'
kill $ne
wait $ne 2>/dev/null

# --- a prometheus server scrapes /metrics; PromQL through its HTTP API --------
start_watch prom -i 1 --window 0.25 --listen 127.0.0.1:0
wp=$wpid
wait_for 60 grep -q 'serving /metrics' "$W/prom.err"
addr=$(listen_addr prom)
port=$(free_port)
cat > "$W/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: faulttune
    static_configs:
      - targets: ['$addr']
        labels:
          machine_type: test-host
EOF
promtool check config "$W/prometheus.yml" > "$W/cfg.log" 2>&1
check "promtool check config on the scrape config" [ $? = 0 ]
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
	--web.listen-address=127.0.0.1:$port > "$W/prom.log" 2>&1 &
pp=$!
pids="$pids $pp"
# value QUERY: the first result's value, empty while there is none
value() {
	curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
have() { [ -n "$(value "$1")" ]; }
wait_for 40 have 'faulttune_windows_total >= 2'
got=$(value 'up{job="faulttune"}')
check "prometheus scraped faulttune: up{job=\"faulttune\"} = 1 (got '$got')" [ "$got" = 1 ]
# the fallback cannot give a recommended size (no hold times, no hashes)
# nor, without /proc/kcore, the table size: the query asks for what it
# fills, the window length and the variant, which faulttune set itself
got=$(value 'faulttune_window_seconds{job="faulttune"}')
check "PromQL faulttune_window_seconds = 0.25, as watch --window 0.25 exported (got '$got')" [ "$got" = 0.25 ]
got=$(value 'count by (machine_type) (faulttune_kernel_info{variant="fallback"})')
check "PromQL count by (machine_type) (faulttune_kernel_info{variant=\"fallback\"}) = 1 (got '$got')" [ "$got" = 1 ]
curl -s "http://$addr/metrics" > "$W/now.prom"
mine=$(awk '$1 == "faulttune_windows_total" { print $2 }' "$W/now.prom")
got=$(value 'faulttune_windows_total')
check "PromQL faulttune_windows_total ($got) is a value watch exported (>= 2, <= $mine now)" \
	eval '[ -n "$got" ] && [ "$got" -ge 2 ] && [ "$got" -le "$mine" ]'
got=$(value 'faulttune_recommended_table_size')
check "PromQL faulttune_recommended_table_size: no series on the fallback (got '$got')" [ -z "$got" ]
kill $pp $wp
wait $pp $wp 2>/dev/null

"$FT" watch -i 1 --window 0.2 -n 1 > /dev/null 2>&1
check "the lock is free again once the watches stopped" [ $? = 0 ]
done_
