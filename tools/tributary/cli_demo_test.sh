#!/bin/sh
# The cli_demo test: `tributary demo` runs the main job (issue 8) in a fresh folder; its output
# shows both runs of the reference pipeline (the second one restarted on the new column and
# reading only the new files) and the query results, and `tributary sql` then finds the gold
# table evolved with the new column; the per-minute gold table (a windowed aggregate with a
# watermark) writes each minute once, in the no-data batch after the watermark passes it.
# Usage: cli_demo_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-demo-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$tributary" demo --dir "$work/demo" > "$work/out.txt"
cat "$work/out.txt"
expect() {
  if ! grep -qF -- "$1" "$work/out.txt"; then
    echo "cli_demo: the output lacks: $1"; exit 1
  fi
}
expect "in order: raw_logs, gold_active_logs, gold_logs_per_minute"
expect "gold_logs_per_minute: batch 0: 3000 rows read, 0 written"
expect "gold_logs_per_minute: batch 1: 0 rows read, 1645 written"
expect "gold_logs_per_minute: batch 3: 0 rows read, 1132 written"
expect "raw_logs: batch 0: 3000 rows read, 3000 written"
expect "gold_active_logs: batch 0: 3000 rows read, 1490 written"
expect "raw_logs: the schema changed; restarting the stream with it"
expect "Auto Loader found new columns device"
expect "raw_logs: batch 1: 2003 rows read, 2003 written"
expect "gold_active_logs: batch 1: 2003 rows read, 979 written"
expect "|   5003 |       3 |        2001 |"
expect '{"_corrupt_record":"GET /healthz 200 0.4ms"'
expect "|   3000 |         6 |"
expect "checked: raw_logs holds each of the 5003 landed lines once (3 rescued; 3000 at version 1), gold_active_logs its 2469 active rows, gold_logs_per_minute the 2777 closed (minute, country) groups of a batch GROUP BY"
result=$("$tributary" sql --warehouse "$work/demo/warehouse" --format json \
  "SELECT count(*) AS n, count(device) AS with_device, count(_rescued_data) AS rescued FROM gold_active_logs")
echo "$result"
[ "$result" = '{"n":2469,"with_device":979,"rescued":1}' ]
# A second demo in the same folder is refused instead of landing files twice.
if "$tributary" demo --dir "$work/demo" > /dev/null 2> "$work/err.txt"; then
  echo "cli_demo: a second demo in the same folder succeeded"; exit 1
fi
grep -q "holds an earlier demo's files" "$work/err.txt"
echo "cli_demo: ok"
