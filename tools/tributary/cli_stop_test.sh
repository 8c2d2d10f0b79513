#!/bin/sh
# The cli_stop test (issue 15): `tributary run` over a landing folder holding a FIFO ends and
# counts it (numNonRegularFilesSkipped) instead of blocking forever in open(); a run blocked in
# I/O (the hang point TRIBUTARY_HANG_AT stands in for a read that never returns) still ends on
# SIGTERM, saying why, and the next run redoes the unfinished batch exactly once.
# Usage: cli_stop_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-stop-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/landing"
printf '{"id":1}\n{"id":2}\n' > "$work/landing/a.json"
mkfifo "$work/landing/pipe.json"
cat > "$work/pipeline.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE bronze AS
  SELECT * FROM STREAM read_files('$work/landing', format => 'json', schema => 'id BIGINT');
SQL
checkpoint="$work/wh/_checkpoints/bronze"

# Runs the command in the background and waits for it at most $1 seconds (then kills it, so a
# regression fails instead of hanging); the command's exit status in $status.
run_with_deadline() {
  deadline=$1
  shift
  "$@" &
  pid=$!
  ( sleep "$deadline"; kill -9 "$pid" ) > /dev/null 2>&1 &
  watchdog=$!
  status=0
  wait "$pid" || status=$?
  kill "$watchdog" 2> /dev/null || true
}

run_with_deadline 120 "$tributary" run --warehouse "$work/wh" --trigger available-now \
  "$work/pipeline.sql" > "$work/out.txt"
cat "$work/out.txt"
[ "$status" -eq 0 ] || { echo "cli_stop: the run over a FIFO exited $status"; exit 1; }
grep -q "^bronze: batch 0: 2 rows read, 2 written" "$work/out.txt"
grep -q '"numNonRegularFilesSkipped":"1"' "$checkpoint/progress.jsonl"

# Blocked after writing offsets/1 (before the sink): SIGTERM ends it after the grace period,
# shortened to 1 s for the test (TRIBUTARY_STOP_GRACE_SECONDS; 10 s by default).
printf '{"id":3}\n' > "$work/landing/b.json"
TRIBUTARY_HANG_AT=streaming.before_add_batch:1 TRIBUTARY_STOP_GRACE_SECONDS=1 \
  "$tributary" run --warehouse "$work/wh" --trigger available-now "$work/pipeline.sql" \
  > "$work/out2.txt" 2> "$work/err2.txt" &
pid=$!
tries=0
until [ -f "$checkpoint/offsets/1" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 600 ]; then
    kill -9 "$pid"; echo "cli_stop: the run never reached the hang point"; exit 1
  fi
  sleep 0.1
done
kill -TERM "$pid"
( sleep 120; kill -9 "$pid" ) > /dev/null 2>&1 &
watchdog=$!
status=0
wait "$pid" || status=$?
kill "$watchdog" 2> /dev/null || true
cat "$work/err2.txt"
[ "$status" -eq 143 ] || { echo "cli_stop: a blocked run ended with status $status after SIGTERM"; exit 1; }
grep -q "did not stop within 1 s of SIGTERM" "$work/err2.txt"

run_with_deadline 120 "$tributary" run --warehouse "$work/wh" --trigger available-now \
  "$work/pipeline.sql" > "$work/out3.txt"
[ "$status" -eq 0 ]
result=$("$tributary" sql --warehouse "$work/wh" --format json "SELECT count(*) AS n, sum(id) AS s FROM bronze")
echo "$result"
[ "$result" = '{"n":3,"s":6}' ]
echo "cli_stop: ok"
