#!/bin/sh
# The cli_args test: exit codes and argument checks of the tributary CLI.
# - `tributary sql` from a pipe, -f FILE or STATEMENTS stops at the first failing statement,
#   names its line and exits 1 (as spark-sql -f);
# - `table history --version N` shows the commits up to N; negative versions, retentions and
#   trigger intervals are usage errors;
# - TZ in glibc's forms and Spark's short ids works, and a TZ that is no zone never stops a
#   command (a warning, then UTC) while `version` ignores it.
# Usage: cli_args_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-args-XXXXXX)
trap 'rm -rf "$work"' EXIT
wh="$work/wh"
fail() {
  echo "cli_args: $*"
  exit 1
}
expect_in() {
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }
}
expect_not_in() {
  if grep -qF -- "$2" "$1"; then cat "$1"; fail "$1 has: $2"; fi
}

# 1. A failing statement from a pipe: exit 1, its line named, nothing after it runs.
printf 'CREATE TABLE t (id INT) USING DELTA;\nINSERT INTO t VALUES (1);\n\nSELECT * FROM missing;\nCREATE TABLE after_pipe (id INT) USING DELTA;\n' \
  > "$work/script.sql"
if "$tributary" sql --warehouse "$wh" < "$work/script.sql" > "$work/out.txt" 2> "$work/err.txt"; then
  fail "a failing statement read from a pipe exited 0"
fi
expect_in "$work/err.txt" "statement at line 4 of standard input"
[ ! -e "$wh/after_pipe" ] || fail "a statement after the failing one ran (pipe)"
# The same with -f FILE, which names the file.
sed 's/after_pipe/after_file/' "$work/script.sql" | sed 's/CREATE TABLE t /CREATE TABLE u /; s/INTO t /INTO u /' \
  > "$work/script2.sql"
if "$tributary" sql --warehouse "$wh" -f "$work/script2.sql" > "$work/out.txt" 2> "$work/err.txt"; then
  fail "a failing statement of -f FILE exited 0"
fi
expect_in "$work/err.txt" "statement at line 4 of $work/script2.sql"
[ ! -e "$wh/after_file" ] || fail "a statement after the failing one ran (-f)"
[ -d "$wh/u/_delta_log" ] || fail "the statements before the failing one did not run (-f)"
if "$tributary" sql --warehouse "$wh" "SELECT 1; SELECT * FROM missing" 2> "$work/err.txt"; then
  fail "a failing statement of STATEMENTS exited 0"
fi
expect_in "$work/err.txt" "statement at line 1 of the command line"
if "$tributary" sql --warehouse "$wh" -f "$work/absent.sql" 2> "$work/err.txt"; then
  fail "a missing -f FILE exited 0"
fi
expect_in "$work/err.txt" "cannot read $work/absent.sql"
# Statements that all work exit 0, from a pipe and from -f.
printf 'INSERT INTO t VALUES (2);\nINSERT INTO t VALUES (3)' > "$work/good.sql"
"$tributary" sql --warehouse "$wh" < "$work/good.sql"
"$tributary" sql --warehouse "$wh" --format json -f /dev/stdin <<SQL > "$work/out.txt"
SELECT count(*) AS n FROM t;
SQL
expect_in "$work/out.txt" '{"n":3}'

# 2. table history --version N: the commits up to N (versions 0 to 3 exist).
"$tributary" table history "$wh/t" --format json > "$work/out.txt"
[ "$(wc -l < "$work/out.txt")" -eq 4 ] || fail "history has not 4 commits"
"$tributary" table history "$wh/t" --version 1 --format json > "$work/out.txt"
[ "$(wc -l < "$work/out.txt")" -eq 2 ] || { cat "$work/out.txt"; fail "history --version 1 shows other than 2 commits"; }
expect_in "$work/out.txt" '"version":1'
expect_not_in "$work/out.txt" '"version":2'
if "$tributary" table history "$wh/t" --version 9 2> "$work/err.txt"; then
  fail "history --version 9 of a table at version 3 exited 0"
fi
expect_in "$work/err.txt" "no version 9"
# Negative values are usage errors, and nothing is written.
if "$tributary" table checkpoint "$wh/t" --version -3 2> "$work/err.txt"; then
  fail "checkpoint --version -3 exited 0"
fi
expect_in "$work/err.txt" "must be 0 or more"
if ls "$wh/t/_delta_log" | grep -q checkpoint; then
  fail "checkpoint --version -3 wrote a checkpoint"
fi
if "$tributary" table vacuum "$wh/t" --retain-hours -100 --force 2> "$work/err.txt"; then
  fail "vacuum --retain-hours -100 --force exited 0"
fi
expect_in "$work/err.txt" "must be 0 or more"
expect_not_in "$work/err.txt" "unless forced"
if "$tributary" table describe "$wh/t" --version -1 2> "$work/err.txt"; then
  fail "describe --version -1 exited 0"
fi
echo "SELECT 1" > "$work/pipeline.sql"
if "$tributary" run --warehouse "$wh" --trigger processing-time=-1s "$work/pipeline.sql" \
  2> "$work/err.txt"; then
  fail "--trigger processing-time=-1s exited 0"
fi
expect_in "$work/err.txt" "is negative"

# 3. Time zones. 2024-07-01 12:00 on the wall clock of Los Angeles (PDT) is 19:00 UTC.
query="SELECT unix_timestamp('2024-07-01 12:00:00') AS s"
for tz in PST America/Los_Angeles :America/Los_Angeles PST8PDT 'PST8PDT,M3.2.0,M11.1.0'; do
  TZ=$tz "$tributary" version > /dev/null || fail "TZ=$tz tributary version failed"
  out=$(TZ=$tz "$tributary" sql --warehouse "$wh" --format json "$query")
  [ "$out" = '{"s":1719860400}' ] || fail "TZ=$tz: $out"
done
out=$(TZ=':Europe/Berlin' "$tributary" sql --warehouse "$wh" --format json "$query")
[ "$out" = '{"s":1719828000}' ] || fail "TZ=:Europe/Berlin: $out"
# --timezone wins over TZ; Spark's short ids there too.
out=$(TZ=':Europe/Berlin' "$tributary" --timezone PST sql --warehouse "$wh" --format json "$query")
[ "$out" = '{"s":1719860400}' ] || fail "--timezone PST: $out"
# A TZ that is no zone: version is silent, a command using the zone warns and uses UTC.
TZ='No/Such_Zone' "$tributary" version > "$work/out.txt" 2> "$work/err.txt" ||
  fail "TZ=No/Such_Zone tributary version failed"
[ ! -s "$work/err.txt" ] || fail "tributary version warned about TZ"
TZ='No/Such_Zone' "$tributary" sql --warehouse "$wh" --format json "$query" \
  > "$work/out.txt" 2> "$work/err.txt" || fail "TZ=No/Such_Zone stopped tributary sql"
expect_in "$work/out.txt" '{"s":1719835200}'
expect_in "$work/err.txt" "warning: TZ"
"$tributary" --timezone 'No/Such_Zone' version > /dev/null ||
  fail "--timezone No/Such_Zone stopped tributary version"
if "$tributary" --timezone 'No/Such_Zone' sql --warehouse "$wh" "SELECT 1" 2> "$work/err.txt"; then
  fail "an unknown --timezone was accepted by a command that uses it"
fi
expect_in "$work/err.txt" "--timezone"
echo "cli_args: ok"
