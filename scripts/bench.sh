#!/usr/bin/env bash
# `make bench`: builds the micro-benchmarks (release) and runs each against DuckDB on the same
# data in the same run, then prints medians and ratios. Exits non-zero when something fails to
# build or run, or when the two engines disagree on a result; never because of speed.
#
# Environment: TRIBUTARY_BENCH_ROWS (Default: 8000000), TRIBUTARY_BENCH_REPETITIONS
# (Default: 5). Both engines run on one thread.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${TRIBUTARY_BENCH_ROWS:-8000000}
repetitions=${TRIBUTARY_BENCH_REPETITIONS:-5}
out=build/release/bench

echo "== build (release): expr_bench"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# The machine is shared: builds queue on one lock instead of competing for the cores.
build=(cmake --build build/release --target expr_bench)
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
node --input-type=module - "$out/expr_bench.json" "$out/duckdb_expr.json" <<'EOF'
import { readFileSync } from 'node:fs';

const [tributaryPath, duckdbPath] = process.argv.slice(2);
const tributary = JSON.parse(readFileSync(tributaryPath, 'utf8'));
const duckdb = JSON.parse(readFileSync(duckdbPath, 'utf8'));
const toMs = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 };

let failed = false;
for (const run of tributary.benchmarks) {
  if (run.error_occurred) {
    console.error(`expr_bench: ${run.name} failed: ${run.error_message}`);
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
    console.error(`expr_bench: no median for case ${duck.name}`);
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
