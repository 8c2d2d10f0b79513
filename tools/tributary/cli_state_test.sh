#!/bin/sh
# The cli_state test: `tributary state CHECKPOINT` on the checkpoint of a stateless streaming
# table (its last committed batch, no stateful operators) and its argument checks. The rows of
# stateful operators are checked by tests/state/state_inspection_test.cc, which builds state
# with the state layer.
# Usage: cli_state_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-state-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "cli_state: $*"
  exit 1
}
expect_in() {
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }
}

mkdir -p "$work/landing"
printf '{"id":1}\n{"id":2}\n' > "$work/landing/a.json"
cat > "$work/pipeline.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE bronze AS
  SELECT * FROM STREAM read_files('$work/landing', format => 'json', schema => 'id BIGINT');
SQL
"$tributary" run --warehouse "$work/wh" --trigger available-now "$work/pipeline.sql" > /dev/null
checkpoint="$work/wh/_checkpoints/bronze"
[ -d "$checkpoint/commits" ] || fail "no checkpoint at $checkpoint"

"$tributary" state "$checkpoint" > "$work/out.txt"
expect_in "$work/out.txt" "last committed batch: 0 (state version 1)"
expect_in "$work/out.txt" "no stateful operators"

# An operator without state metadata cannot be printed; a missing checkpoint is an error.
if "$tributary" state "$checkpoint" --operator 0 2> "$work/err.txt"; then
  fail "--operator 0 of a stateless query exited 0"
fi
expect_in "$work/err.txt" "has no state metadata"
if "$tributary" state "$work/absent" 2> "$work/err.txt"; then
  fail "a missing checkpoint exited 0"
fi
expect_in "$work/err.txt" "$work/absent"
# Usage errors: --batch without --operator, negative numbers.
if "$tributary" state "$checkpoint" --batch 0 2> "$work/err.txt"; then
  fail "--batch without --operator exited 0"
fi
expect_in "$work/err.txt" "--operator"
if "$tributary" state "$checkpoint" --operator -1 2> "$work/err.txt"; then
  fail "--operator -1 exited 0"
fi
expect_in "$work/err.txt" "must be 0 or more"
echo "cli_state: ok"
