#!/usr/bin/env bash
# `make bench`: builds the micro-benchmarks (release) and runs each against DuckDB on the same
# data in the same run, then prints medians and ratios. Exits non-zero when something fails to
# build or run, or when the two engines disagree on a result; never because of speed.
#
# Environment: TRIBUTARY_BENCH_ROWS, rows of the expression benchmark (Default: 8000000);
# TRIBUTARY_BENCH_PARQUET_ROWS, rows of the Parquet benchmark's log table (Default: 1000000);
# TRIBUTARY_BENCH_EXEC_ROWS, fact rows of the group-by and join benchmark (Default: 1000000);
# TRIBUTARY_BENCH_REPETITIONS (Default: 5); TRIBUTARY_BENCH_DELTA_FILES and
# TRIBUTARY_BENCH_DELTA_COMMITS, add actions in the Delta benchmark's checkpoint and JSON commits
# after it (Default: 100000 and 1000); TRIBUTARY_BENCH_PARQUET_DIR, where the Parquet
# benchmark keeps its files, kept afterwards (Default: a temporary directory on /dev/shm when it
# is writable, else under build/release/bench, removed at exit); TRIBUTARY_BENCH_STREAM_BATCHES,
# micro-batches timed by the streaming latency benchmark (Default: 500);
# TRIBUTARY_BENCH_STREAM_ROWS, rows of the streaming throughput data set and of each side of the
# stream-stream join (Default: 1000000); TRIBUTARY_BENCH_KAFKA_ROWS, records of the Kafka ->
# Delta throughput case (Default: 500000); TRIBUTARY_BENCH_KAFKA_SECONDS, seconds of the Kafka
# latency case at 1000 records/s (Default: 10).
# Both engines run on one thread, except the cases marked "all threads", where both run with
# every core (TRIBUTARY_THREADS and DuckDB's threads set to nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
export TRIBUTARY_THREADS=1
all_threads=$(nproc)
rows=${TRIBUTARY_BENCH_ROWS:-8000000}
parquet_rows=${TRIBUTARY_BENCH_PARQUET_ROWS:-1000000}
repetitions=${TRIBUTARY_BENCH_REPETITIONS:-5}
exec_rows=${TRIBUTARY_BENCH_EXEC_ROWS:-1000000}
out=build/release/bench
# Set when the engines disagree on a result; the script still prints every table first.
disagree=0

echo "== build (release): expr_bench parquet_bench delta_snapshot_bench json_bench exec_bench query_bench streaming_bench kafka_bench"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# The machine is shared: builds queue on one lock instead of competing for the cores.
build=(cmake --build build/release --target expr_bench parquet_bench delta_snapshot_bench json_bench
  exec_bench query_bench streaming_bench kafka_bench kafka-test-broker)
if command -v flock >/dev/null; then
  flock /tmp/tributary-build.lock "${build[@]}"
else
  "${build[@]}"
fi

echo "== tributary: expr_bench, $rows rows, $repetitions repetitions"
TRIBUTARY_BENCH_ROWS=$rows "$out/expr_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/expr_bench.json" --benchmark_out_format=json

echo "== duckdb: bench/duckdb_expr.mjs, $rows rows, $repetitions repetitions"
node bench/duckdb_expr.mjs --rows "$rows" --repetitions "$repetitions" >"$out/duckdb_expr.json"

echo "== expression evaluation, 1 thread, medians of $repetitions repetitions of >= 0.5 s"
echo "   ratio: duckdb / tributary wall time; cpu ratio: same for CPU time; > 1: tributary faster"
# The median table of a Google Benchmark JSON ($1, cases "BM_<x>/<case>/real_time" with a
# `result` counter) against a bench/duckdb_*.mjs JSON ($2) with the same case names; $3 names the
# benchmark in messages. Fails when a case is missing or the results differ.
compare_medians() {
node --input-type=module - "$@" <<'EOF'
import { readFileSync } from 'node:fs';

const [tributaryPath, duckdbPath, label] = process.argv.slice(2);
const tributary = JSON.parse(readFileSync(tributaryPath, 'utf8'));
const duckdb = JSON.parse(readFileSync(duckdbPath, 'utf8'));
const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };

let failed = false;
for (const run of tributary.benchmarks) {
  if (run.error_occurred) {
    console.error(`${label}: ${run.name} failed: ${run.error_message}`);
    failed = true;
  }
}

// The median aggregate per case; run_name is "BM_Evaluate/<case>/real_time".
const medians = new Map();
const cvs = new Map();
for (const run of tributary.benchmarks) {
  if (run.run_type !== 'aggregate') continue;
  const name = run.run_name.split('/')[1];
  if (run.aggregate_name === 'median') medians.set(name, run);
  if (run.aggregate_name === 'cv') cvs.set(name, run.real_time * 100);
}

const spread = (times) => {
  const mean = times.reduce((x, y) => x + y, 0) / times.length;
  const variance = times.reduce((x, y) => x + (y - mean) ** 2, 0) / Math.max(times.length - 1, 1);
  return (Math.sqrt(variance) / mean) * 100;
};
const rate = (ms) => `${((duckdb.rows / ms) * 1e3 / 1e6).toFixed(1)}M`;

const rows = [['case', 'tributary ms', 'duckdb ms', 'ratio', 'cpu ratio', 'tributary rows/s',
  'duckdb rows/s', 'cv% trib/duck', 'result']];
for (const duck of duckdb.cases) {
  const trib = medians.get(duck.name);
  if (trib === undefined) {
    console.error(`${label}: no median for case ${duck.name}`);
    failed = true;
    continue;
  }
  const tribMs = trib.real_time * toMs[trib.time_unit];
  const tribCpuMs = trib.cpu_time * toMs[trib.time_unit];
  // Integer results must match exactly; double sums may differ in the last bits because the
  // engines add in different orders.
  const tolerance = Number.isInteger(duck.result) ? 0 : 1e-9 * Math.abs(duck.result);
  const agree = Math.abs(trib.result - duck.result) <= tolerance;
  if (!agree) {
    console.error(`${duck.name}: tributary computed ${trib.result}, duckdb ${duck.result}`);
    failed = true;
  }
  rows.push([duck.name, tribMs.toFixed(1), duck.median_ms.toFixed(1),
    (duck.median_ms / tribMs).toFixed(2), (duck.median_cpu_ms / tribCpuMs).toFixed(2),
    rate(tribMs), rate(duck.median_ms),
    `${(cvs.get(duck.name) ?? NaN).toFixed(1)}/${spread(duck.times_ms).toFixed(1)}`,
    agree ? 'same' : 'DIFFERS']);
}

const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) {
  console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
    .join('  '));
}
console.log(`${duckdb.rows} rows; DuckDB ${duckdb.duckdb_version}, threads=${duckdb.threads}; ` +
  `load average at start ${tributary.context.load_avg.map((x) => x.toFixed(2)).join(' ')}`);
process.exitCode = failed ? 1 : 0;
EOF
}
compare_medians "$out/expr_bench.json" "$out/duckdb_expr.json" expr_bench || disagree=1

# Parquet: DuckDB generates the data once; both engines then write the same rows and scan the
# same file. The files live on tmpfs by default, so that the disk of a shared machine and the
# fsync with which tributary's LocalFileSystem publishes a file (DuckDB's COPY TO does not
# fsync) stay out of the timings: what is measured is encoding, compression and decoding.
if [ -n "${TRIBUTARY_BENCH_PARQUET_DIR:-}" ]; then
  parquet_dir=$TRIBUTARY_BENCH_PARQUET_DIR
  mkdir -p "$parquet_dir"
  rm -f "$parquet_dir"/tributary_*.parquet
else
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    parquet_dir=$(mktemp -d /dev/shm/tributary-bench.XXXXXX)
  else
    mkdir -p "$out"
    parquet_dir=$(mktemp -d "$PWD/$out/parquet.XXXXXX")
  fi
  trap 'rm -rf "$parquet_dir"' EXIT
fi

echo "== duckdb: generate the log table, $parquet_rows rows, in $parquet_dir"
node bench/duckdb_parquet.mjs generate --dir "$parquet_dir" --rows "$parquet_rows"

echo "== tributary: parquet_bench, $repetitions repetitions"
TRIBUTARY_BENCH_PARQUET_DIR=$parquet_dir "$out/parquet_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/parquet_bench.json" --benchmark_out_format=json

echo "== duckdb: bench/duckdb_parquet.mjs, $repetitions repetitions"
node bench/duckdb_parquet.mjs bench --dir "$parquet_dir" --repetitions "$repetitions" \
  >"$out/duckdb_parquet.json"

echo "== parquet write and full scan, 1 thread, medians of $repetitions repetitions of one operation"
echo "   ratio: duckdb / tributary wall time; cpu ratio: same for CPU time; > 1: tributary faster"
node --input-type=module - "$out/parquet_bench.json" "$out/duckdb_parquet.json" <<'EOF' || disagree=1
import { readFileSync } from 'node:fs';

const [tributaryPath, duckdbPath] = process.argv.slice(2);
const tributary = JSON.parse(readFileSync(tributaryPath, 'utf8'));
const duckdb = JSON.parse(readFileSync(duckdbPath, 'utf8'));
const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };

let failed = false;
for (const run of tributary.benchmarks) {
  if (run.error_occurred) {
    console.error(`parquet_bench: ${run.name} failed: ${run.error_message}`);
    failed = true;
  }
}

// run_name is "BM_Write/snappy/iterations:1/real_time"; DuckDB's case is "write_snappy".
const caseName = (runName) => {
  const [benchmark, argument] = runName.split('/');
  return `${benchmark.replace(/^BM_/, '').toLowerCase()}_${argument}`;
};
const medians = new Map();
const cvs = new Map();
for (const run of tributary.benchmarks) {
  if (run.run_type !== 'aggregate') continue;
  const name = caseName(run.run_name);
  if (run.aggregate_name === 'median') medians.set(name, run);
  if (run.aggregate_name === 'cv') cvs.set(name, run.real_time * 100);
}

const spread = (times) => {
  const mean = times.reduce((x, y) => x + y, 0) / times.length;
  const variance = times.reduce((x, y) => x + (y - mean) ** 2, 0) / Math.max(times.length - 1, 1);
  return (Math.sqrt(variance) / mean) * 100;
};
const rate = (ms) => `${((duckdb.rows / ms) * 1e3 / 1e6).toFixed(2)}M`;
const mb = (bytes) => (bytes / 1e6).toFixed(1);

// Returns [verdict, tributary's file size]. A write case: DuckDB read tributary's file back and
// found the same rows (count and sum of row hashes). The scan: tributary's totals equal DuckDB's
// aggregates of the same file.
const check = (name, trib) => {
  if (name.startsWith('write_')) {
    const file = duckdb.tributary_files.find(
      (f) => f.name === `tributary_${name.slice('write_'.length)}.parquet`);
    if (file === undefined) return ['no file', NaN];
    return [file.same_rows ? 'same rows' : `DIFFERS (${file.rows} rows)`, file.file_bytes];
  }
  const expected = duckdb.expected;
  const differing = Object.keys(expected).filter((key) => {
    const tolerance = key === 'double_sum' ? 1e-9 * Math.abs(expected[key]) : 0;
    return !(Math.abs(trib[key] - expected[key]) <= tolerance);
  });
  for (const key of differing) {
    console.error(`${name}: tributary counted ${key} = ${trib[key]}, duckdb ${expected[key]}`);
  }
  return [differing.length === 0 ? 'same totals' : `DIFFERS (${differing.join(', ')})`,
    trib.file_bytes];
};

const rows = [['case', 'tributary ms', 'duckdb ms', 'ratio', 'cpu ratio', 'tributary rows/s',
  'duckdb rows/s', 'tributary MB', 'duckdb MB', 'cv% trib/duck', 'check']];
for (const duck of duckdb.cases) {
  const trib = medians.get(duck.name);
  if (trib === undefined) {
    console.error(`parquet_bench: no median for case ${duck.name}`);
    failed = true;
    continue;
  }
  const tribMs = trib.real_time * toMs[trib.time_unit];
  const tribCpuMs = trib.cpu_time * toMs[trib.time_unit];
  const [verdict, tribBytes] = check(duck.name, trib);
  if (!verdict.startsWith('same')) failed = true;
  rows.push([duck.name, tribMs.toFixed(1), duck.median_ms.toFixed(1),
    (duck.median_ms / tribMs).toFixed(2), (duck.median_cpu_ms / tribCpuMs).toFixed(2),
    rate(tribMs), rate(duck.median_ms), mb(tribBytes), mb(duck.file_bytes),
    `${(cvs.get(duck.name) ?? NaN).toFixed(1)}/${spread(duck.times_ms).toFixed(1)}`, verdict]);
}

const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) {
  console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
    .join('  '));
}
console.log(`${duckdb.rows} rows; DuckDB ${duckdb.duckdb_version}, threads=${duckdb.threads}; ` +
  'read_scan: both engines scan the same DuckDB-written snappy file; ' +
  `load average at start ${tributary.context.load_avg.map((x) => x.toFixed(2)).join(' ')}`);
process.exitCode = failed ? 1 : 0;
EOF
# Queries end to end (SQL parsed, planned and run through tributary's Session) over the same
# log table: filter, group-by and join with a small dimension table, same SQL text in both.
echo "== duckdb: write the countries dimension table in $parquet_dir"
node bench/duckdb_query.mjs generate --dir "$parquet_dir"
echo "== tributary: query_bench, $repetitions repetitions, 1 thread (as DuckDB here)"
TRIBUTARY_THREADS=1 TRIBUTARY_BENCH_PARQUET_DIR=$parquet_dir "$out/query_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/query_bench.json" --benchmark_out_format=json
echo "== duckdb: bench/duckdb_query.mjs, $repetitions repetitions"
node bench/duckdb_query.mjs bench --dir "$parquet_dir" --repetitions "$repetitions" \
  >"$out/duckdb_query.json"
echo "== SQL queries over the log table (bench/query_cases.tsv), 1 thread, medians of $repetitions repetitions"
echo "   ratio: duckdb / tributary wall time; cpu ratio: same for CPU time; > 1: tributary faster"
compare_medians "$out/query_bench.json" "$out/duckdb_query.json" query_bench || disagree=1
echo "== tributary: query_bench, $repetitions repetitions, all threads ($all_threads)"
TRIBUTARY_THREADS=$all_threads TRIBUTARY_BENCH_PARQUET_DIR=$parquet_dir "$out/query_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/query_bench_all_threads.json" --benchmark_out_format=json
echo "== duckdb: bench/duckdb_query.mjs, $repetitions repetitions, $all_threads threads"
node bench/duckdb_query.mjs bench --dir "$parquet_dir" --repetitions "$repetitions" \
  --threads "$all_threads" >"$out/duckdb_query_all_threads.json"
echo "== SQL queries over the log table, all threads ($all_threads) on both sides, medians of $repetitions repetitions"
echo "   ratio: duckdb / tributary wall time; cpu ratio: same for CPU time; > 1: tributary faster"
compare_medians "$out/query_bench_all_threads.json" "$out/duckdb_query_all_threads.json" \
  query_bench || disagree=1

# Delta snapshot loading: the benchmark generates its table (a checkpoint plus JSON commits) in
# a temporary directory of its own before timing. DuckDB has no equivalent of loading a Delta
# snapshot, so only tributary's figures are printed.
echo "== tributary: delta_snapshot_bench, $repetitions repetitions"
"$out/delta_snapshot_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/delta_snapshot_bench.json" --benchmark_out_format=json >/dev/null

echo "== delta snapshot load (Snapshot::Load), 1 thread, medians of $repetitions repetitions of one load"
echo "   tributary only: DuckDB has no equivalent of loading a Delta snapshot"
node --input-type=module - "$out/delta_snapshot_bench.json" <<'EOF' || disagree=1
import { readFileSync } from 'node:fs';

const [tributaryPath] = process.argv.slice(2);
const tributary = JSON.parse(readFileSync(tributaryPath, 'utf8'));
const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };

let failed = false;
for (const run of tributary.benchmarks) {
  if (run.error_occurred) {
    console.error(`delta_snapshot_bench: ${run.name} failed: ${run.error_message}`);
    failed = true;
  }
}

// run_name is "BM_Load/<case>/iterations:1/real_time".
const medians = new Map();
const cvs = new Map();
for (const run of tributary.benchmarks) {
  if (run.run_type !== 'aggregate') continue;
  const name = run.run_name.split('/')[1];
  if (run.aggregate_name === 'median') medians.set(name, run);
  if (run.aggregate_name === 'cv') cvs.set(name, run.real_time * 100);
}
if (medians.size === 0) {
  console.error('delta_snapshot_bench: no medians');
  failed = true;
}

const rows = [['case', 'tributary ms', 'actions', 'actions/s', 'commits', 'live files',
  'checkpoint MB', 'cv%']];
for (const [name, run] of medians) {
  const ms = run.real_time * toMs[run.time_unit];
  rows.push([name, ms.toFixed(1), String(run.actions), `${(run.actions / ms / 1e3).toFixed(2)}M`,
    String(run.commits ?? 0), String(run.live_files), (run.checkpoint_bytes / 1e6).toFixed(1),
    (cvs.get(name) ?? NaN).toFixed(1)]);
}

const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) {
  console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
    .join('  '));
}
console.log('actions: checkpoint rows plus JSON commit lines replayed; ' +
  `load average at start ${tributary.context.load_avg.map((x) => x.toFixed(2)).join(' ')}`);
process.exitCode = failed ? 1 : 0;
EOF
json_rows=${TRIBUTARY_BENCH_JSON_ROWS:-1000000}
json_dir=$(mktemp -d "${TMPDIR:-/tmp}/tributary-json-bench.XXXXXX")
echo "== tributary: generate the NDJSON log data set, $json_rows lines, in $json_dir"
"$out/json_bench" --generate "$json_dir" "$json_rows"
echo "== tributary: json_bench, $repetitions repetitions"
TRIBUTARY_BENCH_JSON_DIR=$json_dir "$out/json_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/json_bench.json" --benchmark_out_format=json >/dev/null
echo "== duckdb: bench/duckdb_json.mjs, $repetitions repetitions"
node bench/duckdb_json.mjs --dir "$json_dir" --repetitions "$repetitions" >"$out/duckdb_json.json"
rm -rf "$json_dir"
echo "== NDJSON ingestion, 1 thread, medians of $repetitions repetitions"
node --input-type=module - "$out/json_bench.json" "$out/duckdb_json.json" <<'EOF' || disagree=1
import { readFileSync } from 'node:fs';
const tributary = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const duckdb = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const rows = [['case', 'tributary ms', 'duckdb ms', 'ratio', 'tributary rows/s', 'duckdb rows/s',
  'tributary rows', 'duckdb rows', 'rescued']];
let failed = false;
for (const run of tributary.benchmarks) {
  if (run.error_occurred) {
    console.error(`json_bench: ${run.name} failed: ${run.error_message}`);
    failed = true;
  }
  if (run.run_type !== 'aggregate' || run.aggregate_name !== 'median') continue;
  const name = run.run_name.split('/')[1];
  // explicit_schema_reporting_new_fields (Auto Loader's evolution) is DuckDB's explicit_schema.
  const theirs = duckdb.cases[name] ?? duckdb.cases[name.replace(/_reporting_new_fields$/, '')];
  const ms = run.real_time;
  rows.push([name, ms.toFixed(1), theirs.median_ms.toFixed(1), (theirs.median_ms / ms).toFixed(2),
    `${(run.rows / ms / 1e3).toFixed(2)}M`, `${(theirs.rows / theirs.median_ms / 1e3).toFixed(2)}M`,
    String(run.rows), String(theirs.rows), String(run.rescued)]);
}
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) {
  console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
    .join('  '));
}
console.log('ratio = duckdb ms / tributary ms (above 1: tributary faster). tributary keeps every ' +
  'line (malformed ones in _rescued_data); DuckDB ignore_errors skips or nulls them.');
process.exitCode = failed ? 1 : 0;
EOF

echo "== tributary: exec_bench, $exec_rows fact rows, $repetitions repetitions"
TRIBUTARY_BENCH_EXEC_ROWS=$exec_rows "$out/exec_bench" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/exec_bench.json" --benchmark_out_format=json

echo "== duckdb: bench/duckdb_exec.mjs, $exec_rows fact rows, $repetitions repetitions"
node bench/duckdb_exec.mjs --rows "$exec_rows" --repetitions "$repetitions" >"$out/duckdb_exec.json"

echo "== hash aggregate (GROUP BY ~10k keys) and hash join ($exec_rows probe x $((exec_rows / 10)) build), 1 thread, medians of $repetitions repetitions"
echo "   ratio: duckdb / tributary wall time; cpu ratio: same for CPU time; > 1: tributary faster"
compare_medians "$out/exec_bench.json" "$out/duckdb_exec.json" exec_bench || disagree=1

# Streaming (issue 7). (a) Micro-batch overhead on local disk (the checkpoint and the table are
# fsynced as in production): a new small file to its committed batch, back to back.
stream_batches=${TRIBUTARY_BENCH_STREAM_BATCHES:-500}
stream_latency_dir=$(mktemp -d "$PWD/$out/streaming-latency.XXXXXX")
echo "== tributary: streaming_bench latency, $stream_batches micro-batches, JSON file stream -> Delta, default trigger"
"$out/streaming_bench" latency --dir "$stream_latency_dir" --batches "$stream_batches" || disagree=1
rm -rf "$stream_latency_dir"
# The same on tmpfs, where fsync costs nothing: what is left is the engine's own CPU time.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  stream_latency_dir=$(mktemp -d /dev/shm/tributary-stream-latency.XXXXXX)
  echo "== tributary: streaming_bench latency on tmpfs (no fsync cost), $stream_batches micro-batches"
  "$out/streaming_bench" latency --dir "$stream_latency_dir" --batches "$stream_batches" || disagree=1
  rm -rf "$stream_latency_dir"
fi

# (b) Stateless throughput: JSON -> filter -> Delta (available-now) against DuckDB's COPY of the
# same filter to Parquet, on tmpfs like the Parquet benchmark (DuckDB's COPY TO does not fsync).
stream_rows=${TRIBUTARY_BENCH_STREAM_ROWS:-1000000}
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  stream_dir=$(mktemp -d /dev/shm/tributary-stream-bench.XXXXXX)
else
  stream_dir=$(mktemp -d "$PWD/$out/streaming.XXXXXX")
fi
echo "== tributary: generate the NDJSON log data set, $stream_rows rows in 100 files, in $stream_dir"
"$out/streaming_bench" generate --dir "$stream_dir" --rows "$stream_rows" --files 100
echo "== tributary: streaming_bench throughput, $repetitions repetitions"
"$out/streaming_bench" throughput --dir "$stream_dir" --repetitions "$repetitions" \
  >"$out/streaming_bench.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs, $repetitions repetitions"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" \
  --table "$stream_dir/tributary_table" >"$out/duckdb_streaming.json" || disagree=1
# (b2) Stateful throughput on the same files: a 1-minute window x country count/avg with a
# 1-minute watermark into Delta (append mode, available-now: the state store, then the no-data
# batch writing the closed windows) against DuckDB's batch GROUP BY time_bucket(...) COPY.
echo "== tributary: streaming_bench window, $repetitions repetitions"
"$out/streaming_bench" window --dir "$stream_dir" --repetitions "$repetitions" \
  >"$out/window_bench.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --window, $repetitions repetitions"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" --window \
  --table "$stream_dir/tributary_window_table" >"$out/duckdb_window.json" || disagree=1
# (c) The reference pipeline of issue 8 (README's main job) on the same files: Auto Loader with
# inferred types -> raw_logs -> gold_active_logs, available-now, a fresh warehouse each run,
# against DuckDB's COPY of read_json with its own type detection.
echo "== tributary: streaming_bench pipeline (the reference pipeline), $repetitions repetitions"
"$out/streaming_bench" pipeline --dir "$stream_dir" --repetitions "$repetitions" \
  >"$out/pipeline_bench.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --infer, $repetitions repetitions"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" --infer \
  --table "$stream_dir/pipeline_warehouse/gold_active_logs" >"$out/duckdb_pipeline.json" ||
  disagree=1
echo "== tributary: streaming_bench pipeline, $repetitions repetitions, all threads ($all_threads)"
TRIBUTARY_THREADS=$all_threads "$out/streaming_bench" pipeline --dir "$stream_dir" \
  --repetitions "$repetitions" >"$out/pipeline_bench_all_threads.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --infer, $repetitions repetitions, $all_threads threads"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" --infer \
  --threads "$all_threads" --table "$stream_dir/pipeline_warehouse/gold_active_logs" \
  >"$out/duckdb_pipeline_all_threads.json" || disagree=1
# (c1) Logs as services write them: a nested object and an array per record, about one
# malformed line per thousand, a field that appears only in the last file, 70 MB files; a
# one-table Auto Loader pipeline with inferred types and a filter, against DuckDB's COPY of
# read_json with the columns given (it infers nothing) and the malformed lines ignored.
echo "== tributary: generate the nested NDJSON log data set, $stream_rows rows in 4 files, in $stream_dir/nested"
"$out/streaming_bench" generate-nested --dir "$stream_dir" --rows "$stream_rows" --files 4
echo "== tributary: streaming_bench nested, $repetitions repetitions"
"$out/streaming_bench" nested --dir "$stream_dir" --repetitions "$repetitions" \
  >"$out/nested_bench.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --nested, $repetitions repetitions"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" --nested \
  --table "$stream_dir/nested_warehouse/active_events" >"$out/duckdb_nested.json" ||
  disagree=1
echo "== tributary: streaming_bench nested, $repetitions repetitions, all threads ($all_threads)"
TRIBUTARY_THREADS=$all_threads "$out/streaming_bench" nested --dir "$stream_dir" \
  --repetitions "$repetitions" >"$out/nested_bench_all_threads.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --nested, $repetitions repetitions, $all_threads threads"
node bench/duckdb_streaming.mjs --dir "$stream_dir" --repetitions "$repetitions" --nested \
  --threads "$all_threads" --table "$stream_dir/nested_warehouse/active_events" \
  >"$out/duckdb_nested_all_threads.json" || disagree=1
# (c2) The same pipeline entirely on S3: landing and warehouse (tables, checkpoints, schema
# location) in a bucket of a moto server on loopback (the S3 API server the tests use), against
# the local run above; what each micro-batch asks of S3 comes from the progress records.
moto_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m moto.server -H 127.0.0.1 -p "$moto_port" >"$out/moto.log" 2>&1 &
moto_pid=$!
python3 - "$moto_port" <<'EOF_PY' || disagree=1
import sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
for _ in range(600):
    try:
        urllib.request.urlopen(base + "/moto-api/", timeout=1)
        break
    except Exception:
        time.sleep(0.1)
urllib.request.urlopen(urllib.request.Request(base + "/tributary-bench", method="PUT"))
EOF_PY
echo "== tributary: streaming_bench pipeline --s3 (moto on 127.0.0.1:$moto_port), $repetitions repetitions"
AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 \
  AWS_ENDPOINT_URL_S3="http://127.0.0.1:$moto_port" \
  "$out/streaming_bench" pipeline --dir "$stream_dir" --s3 s3://tributary-bench/run \
  --repetitions "$repetitions" >"$out/pipeline_s3_bench.json" || disagree=1
kill "$moto_pid" 2>/dev/null || true
wait "$moto_pid" 2>/dev/null || true
rm -rf "$stream_dir"
# (d) A stream-stream join: 1M clicks joined with 1M impressions within a 10-minute bound, both
# streams with watermarks, 10 files of each per micro-batch, state in RocksDB, against DuckDB's
# batch join of the same files with the same condition.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  join_dir=$(mktemp -d /dev/shm/tributary-join-bench.XXXXXX)
else
  join_dir=$(mktemp -d "$PWD/$out/join.XXXXXX")
fi
echo "== tributary: generate impressions and clicks, $stream_rows rows each in 100 files, in $join_dir"
"$out/streaming_bench" generate-join --dir "$join_dir" --rows "$stream_rows" --files 100
# At most 3 repetitions: a run still takes about a minute (docs/benchmarks.md says where).
join_repetitions=$((repetitions < 3 ? repetitions : 3))
echo "== tributary: streaming_bench join, $join_repetitions repetitions"
"$out/streaming_bench" join --dir "$join_dir" --repetitions "$join_repetitions" \
  >"$out/join_bench.json" || disagree=1
echo "== duckdb: bench/duckdb_streaming.mjs --join, $join_repetitions repetitions"
node bench/duckdb_streaming.mjs --dir "$join_dir" --repetitions "$join_repetitions" --join \
  --table "$join_dir/join_warehouse/ad_clicks" >"$out/duckdb_join.json" || disagree=1
rm -rf "$join_dir"
# Prints one streaming case against DuckDB:
# compare_streaming CASE TRIBUTARY_JSON DUCKDB_JSON [TARGET_RATIO (Default: 1.5)].
compare_streaming() {
node --input-type=module - "$@" <<'EOF'
import { readFileSync } from 'node:fs';
const [name, tributaryPath, duckdbPath, target = '1.5'] = process.argv.slice(2);
const tributary = JSON.parse(readFileSync(tributaryPath, 'utf8'));
const duckdb = JSON.parse(readFileSync(duckdbPath, 'utf8'));
let failed = false;
// Both engines read every row, and DuckDB finds exactly its own output's rows in tributary's table.
if (tributary.rows_in !== duckdb.rows_in || tributary.rows_out !== duckdb.rows_out ||
    duckdb.tributary_table_rows !== duckdb.rows_out) {
  console.error(`${name}: tributary read ${tributary.rows_in} and wrote ${tributary.rows_out} ` +
    `rows (DuckDB counts ${duckdb.tributary_table_rows} in its table); DuckDB read ` +
    `${duckdb.rows_in} and wrote ${duckdb.rows_out}`);
  failed = true;
}
const rate = (ms) => `${(tributary.rows_in / ms / 1e3).toFixed(2)}M`;
const rows = [['case', 'tributary ms', 'duckdb ms', 'ratio', 'tributary rows/s', 'duckdb rows/s',
  'rows in', 'rows out', 'check'],
  [name, tributary.median_ms.toFixed(1), duckdb.median_ms.toFixed(1),
    (duckdb.median_ms / tributary.median_ms).toFixed(2), rate(tributary.median_ms),
    rate(duckdb.median_ms), String(tributary.rows_in), String(tributary.rows_out),
    failed ? 'DIFFERS' : 'same rows']];
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
for (const row of rows) {
  console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
    .join('  '));
}
console.log(`rows/s: input rows per second; DuckDB ${duckdb.duckdb_version}, ` +
  `threads=${duckdb.threads}; times ` +
  `tributary ${tributary.times_ms.join('/')} ms, duckdb ${duckdb.times_ms.map((t) => t.toFixed(1)).join('/')} ms; ` +
  `target ratio >= ${target}`);
process.exitCode = failed ? 1 : 0;
EOF
}
echo "== streaming JSON -> filter(status = 'active') -> Delta, available-now, 1 thread, medians of $repetitions repetitions"
echo "   ratio: duckdb / tributary wall time (COPY ... WHERE status = 'active' TO parquet); > 1: tributary faster"
compare_streaming json_filter_to_delta "$out/streaming_bench.json" "$out/duckdb_streaming.json" ||
  disagree=1
echo "== windowed aggregation: JSON -> withWatermark(ts, 1 minute) -> GROUP BY window(ts, 1 minute),"
echo "   country: count(*), avg(latency_ms) -> Delta (append), available-now, 1 thread, medians of"
echo "   $repetitions repetitions, against COPY (SELECT time_bucket(INTERVAL 1 minute, ts), country,"
echo "   count(*), avg(latency_ms) ... GROUP BY ALL) TO parquet; rows out: the windows the watermark"
echo "   closed (DuckDB counts them in its result and in tributary's table)"
echo "   ratio: duckdb / tributary wall time; > 1: tributary faster"
compare_streaming window_count_avg_to_delta "$out/window_bench.json" "$out/duckdb_window.json" \
  1.0 || disagree=1
echo "== the reference pipeline: read_files(json, inferColumnTypes) -> raw_logs -> gold_active_logs,"
echo "   available-now, fresh warehouse, 1 thread, medians of $repetitions repetitions, against"
echo "   COPY (SELECT * FROM read_json(files) WHERE status = 'active') TO parquet (types detected)"
echo "   ratio: duckdb / tributary wall time; > 1: tributary faster"
compare_streaming reference_pipeline "$out/pipeline_bench.json" "$out/duckdb_pipeline.json" ||
  disagree=1
echo "== nested logs: read_files(json, inferColumnTypes) WHERE status = 'active' -> active_events,"
echo "   records with an array and an object, malformed lines, a late field, available-now, fresh"
echo "   warehouse, 1 thread, medians of $repetitions repetitions, against COPY (SELECT * FROM"
echo "   read_json(files, columns={...}, ignore_errors=true) WHERE status = 'active') TO parquet"
echo "   ratio: duckdb / tributary wall time; > 1: tributary faster"
compare_streaming nested_logs_pipeline "$out/nested_bench.json" "$out/duckdb_nested.json" ||
  disagree=1
echo "== the reference pipeline and nested logs as above, all threads ($all_threads) on both sides"
echo "   ratio: duckdb / tributary wall time; > 1: tributary faster"
compare_streaming reference_pipeline_all_threads "$out/pipeline_bench_all_threads.json" \
  "$out/duckdb_pipeline_all_threads.json" 2.0 || disagree=1
compare_streaming nested_logs_pipeline_all_threads "$out/nested_bench_all_threads.json" \
  "$out/duckdb_nested_all_threads.json" || disagree=1
echo "== the reference pipeline on S3 (moto server on loopback) against the same on local disk,"
echo "   medians of $repetitions repetitions; requests: the median S3 run's, per micro-batch"
node --input-type=module - "$out/pipeline_bench.json" "$out/pipeline_s3_bench.json" <<'EOF' ||
import { readFileSync } from 'node:fs';
const [localPath, s3Path] = process.argv.slice(2);
const local = JSON.parse(readFileSync(localPath, 'utf8'));
const s3 = JSON.parse(readFileSync(s3Path, 'utf8'));
const same = local.rows_in === s3.rows_in && local.rows_out === s3.rows_out;
console.log(`reference_pipeline_s3  local ${local.median_ms.toFixed(1)} ms  s3 ` +
  `${s3.median_ms.toFixed(1)} ms  ratio local/s3 ${(local.median_ms / s3.median_ms).toFixed(2)}  ` +
  `rows ${s3.rows_in} in, ${s3.rows_out} out (${same ? 'same rows' : 'DIFFERS'})`);
const r = s3.requests;
const per = (n) => ((n ?? 0) / Math.max(s3.batches, 1)).toFixed(1);
console.log(`requests in ${s3.batches} micro-batches: ${r.listRequests ?? 0} LIST, ` +
  `${r.getRequests ?? 0} GET, ${r.putRequests ?? 0} PUT, ${r.deleteRequests ?? 0} DELETE; per ` +
  `batch ${per(r.listRequests)} LIST, ${per(r.getRequests)} GET, ${per(r.putRequests)} PUT, ` +
  `${per(r.deleteRequests)} DELETE; ${(r.bytesRead ?? 0)} B read, ${(r.bytesWritten ?? 0)} B ` +
  `written; times ${s3.times_ms.join('/')} ms`);
process.exitCode = same ? 0 : 1;
EOF
  disagree=1
echo "== stream-stream join: impressions (watermark 10 minutes) JOIN clicks (watermark 20 minutes)"
echo "   ON click_ad_id = ad_id AND click_time BETWEEN impression_time AND impression_time +"
echo "   INTERVAL 10 MINUTES -> Delta, 10 files of each per micro-batch, available-now, 1 thread,"
echo "   medians of $join_repetitions repetitions, against DuckDB's batch join COPY TO parquet"
echo "   ratio: duckdb / tributary wall time; > 1: tributary faster"
compare_streaming stream_stream_join "$out/join_bench.json" "$out/duckdb_join.json" 1.0 ||
  disagree=1

# Kafka -> Delta (issue 20) against the project's TEST broker (tools/kafka_test_broker:
# librdkafka's mock cluster in memory on loopback; no disk, no network): (a) throughput, records
# produced first and then read from the earliest offsets with available-now, one thread; (b)
# end-to-end latency at a steady 1000 records/s, produce -> the batch's progress record (after
# the Delta commit), with the processing-time trigger at 0 (back to back) and 100 ms. The test
# broker keeps about 5 MB per partition (librdkafka's mock drops the oldest records beyond it, and
# its API has no setting for that): 32 partitions hold 500k log records whole.
kafka_rows=${TRIBUTARY_BENCH_KAFKA_ROWS:-500000}
kafka_seconds=${TRIBUTARY_BENCH_KAFKA_SECONDS:-10}
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  kafka_dir=$(mktemp -d /dev/shm/tributary-kafka-bench.XXXXXX)
else
  kafka_dir=$(mktemp -d "$PWD/$out/kafka.XXXXXX")
fi
build/release/tools/kafka_test_broker/kafka-test-broker --bootstrap-file "$kafka_dir/bootstrap" \
  --topic kafka-bench-throughput:32 --topic kafka-bench-latency-0:1 \
  --topic kafka-bench-latency-100:1 --stdin-ignore >"$out/kafka-test-broker.log" 2>&1 &
kafka_broker=$!
for _ in $(seq 100); do [ -s "$kafka_dir/bootstrap" ] && break; sleep 0.1; done
kafka_bootstrap=$(cat "$kafka_dir/bootstrap")
echo "== Kafka -> Delta throughput (test broker $kafka_bootstrap, topic of 32 partitions), $kafka_rows"
echo "   records, available-now from the earliest offsets, 1 thread, medians of $repetitions repetitions"
"$out/kafka_bench" throughput --bootstrap "$kafka_bootstrap" --topic kafka-bench-throughput \
  --dir "$kafka_dir/throughput" --rows "$kafka_rows" --repetitions "$repetitions" || disagree=1
for trigger_ms in 0 100; do
  echo "== Kafka -> Delta latency, produce -> committed, 1000 records/s for $kafka_seconds s, ProcessingTime($trigger_ms ms)"
  "$out/kafka_bench" latency --bootstrap "$kafka_bootstrap" --topic "kafka-bench-latency-$trigger_ms" \
    --dir "$kafka_dir/latency-$trigger_ms" --rate 1000 --seconds "$kafka_seconds" \
    --trigger-ms "$trigger_ms" || disagree=1
done
kill "$kafka_broker" 2>/dev/null || true
wait "$kafka_broker" 2>/dev/null || true
rm -rf "$kafka_dir"

exit "$disagree"
