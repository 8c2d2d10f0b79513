#!/bin/sh
# The cli_run test: `tributary run --trigger available-now` on a bronze -> silver pipeline file
# over JSON files, then `tributary sql` reads the silver table; a rerun picks up only a new file.
# Usage: cli_run_test.sh TRIBUTARY_BINARY
set -eu
tributary=$1
work=$(mktemp -d /tmp/tributary-cli-run-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/landing"
printf '{"id":1,"status":"active"}\n{"id":2,"status":"idle"}\n' > "$work/landing/a.json"
printf '{"id":3,"status":"active"}\n' > "$work/landing/b.json"
cat > "$work/pipeline.sql" <<SQL
-- silver first: the runner orders the tables by what they read
CREATE OR REFRESH STREAMING TABLE silver AS
  SELECT id FROM STREAM(bronze) WHERE status = 'active';
CREATE OR REFRESH STREAMING TABLE bronze AS
  SELECT * FROM STREAM read_files('$work/landing', format => 'json',
                                  schema => 'id BIGINT, status STRING', maxFilesPerTrigger => 1);
SQL
"$tributary" run --warehouse "$work/wh" --trigger available-now "$work/pipeline.sql" > "$work/out.txt"
cat "$work/out.txt"
grep -q "in order: bronze, silver" "$work/out.txt"
grep -q "^bronze: batch 1: 1 rows read, 1 written" "$work/out.txt"
grep -q "(2/2 files)" "$work/out.txt"
grep -q "^silver: stream finished" "$work/out.txt"
result=$("$tributary" sql --warehouse "$work/wh" --format json "SELECT count(*) AS n, sum(id) AS s FROM silver")
echo "$result"
[ "$result" = '{"n":2,"s":4}' ]

printf '{"id":5,"status":"active"}\n' > "$work/landing/c.json"
"$tributary" run --warehouse "$work/wh" "$work/pipeline.sql" > "$work/out2.txt"
cat "$work/out2.txt"
grep -q "^bronze: batch 2: 1 rows read" "$work/out2.txt"
result=$("$tributary" sql --warehouse "$work/wh" --format json "SELECT count(*) AS n, sum(id) AS s FROM silver")
echo "$result"
[ "$result" = '{"n":3,"s":9}' ]

# A failing pipeline exits non-zero with the error.
echo "CREATE STREAMING TABLE x AS SELECT * FROM STREAM(missing)" > "$work/bad.sql"
if "$tributary" run --warehouse "$work/wh" "$work/bad.sql" 2> "$work/err.txt"; then
  echo "a failing pipeline exited 0"; exit 1
fi
grep -q "STREAM(missing): no Delta table" "$work/err.txt"
echo "cli_run: ok"
