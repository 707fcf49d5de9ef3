#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A faulttune.prom written elsewhere (the guest's patched kernel), read
# the way a fleet reads it: promtool check metrics, node_exporter's
# textfile collector, and a prometheus server scraping node_exporter,
# asked through its HTTP API for the recommended size.  Servers on free
# 127.0.0.1 ports, stopped here.  Ends with "N passed, N failed".
#
# usage: tests/prom-textfile.sh FILE RECOMMENDED
FILE=$1
REC=$2
. "$(dirname "$0")/lib/host.sh"

W=$(mktemp -d /tmp/faulttune-promfile.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -s "$FILE" ] || [ -z "$REC" ]; then
	nok "the guest's textfile and recommendation came back (file '$FILE', recommended '$REC')"
	done_
fi
mkdir -p "$W/textfile"
cp "$FILE" "$W/textfile/faulttune.prom"
promtool check metrics < "$FILE" > "$W/lint" 2>&1
rc=$?
sed 's/^/# /' "$W/lint"
check "promtool check metrics on the guest's textfile: exit 0, no warning (rc=$rc)" \
	eval '[ $rc = 0 ] && [ ! -s "$W/lint" ]'

ne_port=$(free_port)
prometheus-node-exporter --web.listen-address=127.0.0.1:$ne_port --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$W/textfile" > "$W/ne.log" 2>&1 &
pids="$pids $!"
wait_for 15 curl -sf -o "$W/ne.prom" "http://127.0.0.1:$ne_port/metrics"
check "node_exporter exports the guest's faulttune_recommended_table_size $REC" \
	grep -qx "faulttune_recommended_table_size $REC" "$W/ne.prom"

# the recording rules of Documentation/faulttune.rst, as printed there
doc=$(dirname "$0")/../../../Documentation/faulttune.rst
awk '/^  groups:$/ { on = 1 } on && /^[^ ]/ { on = 0 } on' "$doc" | sed 's/^  //' > "$W/rules.yml"
promtool check rules "$W/rules.yml" > "$W/rules.log" 2>&1
rc=$?
sed 's/^/# /' "$W/rules.log"
check "promtool check rules on the fleet rules of faulttune.rst (rc=$rc)" \
	eval '[ $rc = 0 ] && grep -q "SUCCESS: 4 rules found" "$W/rules.log"'

port=$(free_port)
cat > "$W/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $W/rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
        labels:
          machine_type: qemu-guest
EOF
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
	--web.listen-address=127.0.0.1:$port > "$W/prom.log" 2>&1 &
pids="$pids $!"
value() {
	curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
have() { [ -n "$(value "$1")" ]; }
wait_for 40 have 'faulttune_recommended_table_size'
# the fleet query of Documentation/faulttune.rst: the size to set per
# machine type, the largest any machine of the type asks for
q='max by (machine_type) (faulttune_recommended_table_size)'
got=$(value "$q")
check "PromQL '$q' = $REC, the patched kernel's recommendation (got '$got')" [ "$got" = "$REC" ]
wait_for 20 have 'machine_type:faulttune_recommended_table_size:max1d'
q='machine_type:faulttune_recommended_table_size:max1d{machine_type="qemu-guest"}'
got=$(value "$q")
check "the documented recording rule gives $REC for the machine type ($q: '$got')" [ "$got" = "$REC" ]
got=$(value 'faulttune_kernel_info{variant="patched"}')
check "PromQL faulttune_kernel_info{variant=\"patched\"} = 1 (got '$got')" [ "$got" = 1 ]
done_
