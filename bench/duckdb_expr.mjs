// DuckDB side of the expression micro-benchmark; bench/expr_bench.cc is tributary's side and
// scripts/bench.sh runs both and compares them.
//
// Usage: node bench/duckdb_expr.mjs [--rows N] [--repetitions R] [--min-time S] [--oracle DIR]
//   --rows         rows of the data set. Default: 8000000
//   --repetitions  timed repetitions per case; the median is reported. Default: 5
//   --min-time     seconds each repetition runs at least, as Google Benchmark's
//                  --benchmark_min_time. Default: 0.5
//   --oracle       where setup.sh installed @duckdb/node-api. Default: build/oracle
// Prints one JSON object: {duckdb_version, rows, threads, cases: [{name, sql, times_ms,
// cpu_times_ms, median_ms, median_cpu_ms, result}]}.
//
// The table is built from range(N) with the same formulas as expr_bench.cc, outside the timed
// region, in an in-memory database pinned to one thread. A query evaluates the expression over
// every row and reduces it to one value (sum or filtered count), the same work expr_bench.cc
// times. Each case runs once untimed (warm-up, which also sizes the repetitions); then each
// repetition runs the query back to back for at least --min-time and records the mean wall
// time of one runAndReadAll() and the mean CPU time of the process per query, so a repetition
// means what one of Google Benchmark's does.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { timeQuery } from './duckdb_timing.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const options = {
    rows: 8000000,
    repetitions: 5,
    minTime: 0.5,
    oracle: path.join(here, '..', 'build', 'oracle'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value after ${flag}`);
    if (flag === '--rows') options.rows = Number(value);
    else if (flag === '--repetitions') options.repetitions = Number(value);
    else if (flag === '--min-time') options.minTime = Number(value);
    else if (flag === '--oracle') options.oracle = path.resolve(value);
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!Number.isSafeInteger(options.rows) || options.rows <= 0) {
    throw new Error(`--rows must be a positive integer, got ${options.rows}`);
  }
  if (!Number.isSafeInteger(options.repetitions) || options.repetitions <= 0) {
    throw new Error(`--repetitions must be a positive integer, got ${options.repetitions}`);
  }
  if (!(options.minTime >= 0)) {
    throw new Error(`--min-time must be a number of seconds, got ${options.minTime}`);
  }
  return options;
}

// Same names and order as the BENCHMARK_CAPTUREs in expr_bench.cc.
const kCases = [
  { name: 'arith_bigint', sql: 'SELECT sum(a + b * 3) FROM t' },
  { name: 'and_predicate', sql: 'SELECT count(*) FILTER (WHERE a > 500000 AND b < 100) FROM t' },
  { name: 'cast_string_bigint', sql: 'SELECT sum(CAST(s AS BIGINT)) FROM t' },
  { name: 'double_arith', sql: 'SELECT sum(d * 2.5 + 1) FROM t' },
];

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // The package lives under build/oracle, not beside this file, so resolve it from there.
  const require = createRequire(path.join(options.oracle, 'package.json'));
  const duckdb = require('@duckdb/node-api');

  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    const threads = (await connection.runAndReadAll("SELECT current_setting('threads')"))
      .getRows()[0][0];
    await connection.run(`
      CREATE TABLE t AS
      SELECT i * 7919 % 1000003 AS a,
             CAST(i % 1000 AS INTEGER) AS b,
             CAST(i % 10007 AS DOUBLE) * 0.25 AS d,
             CAST(i % 100000 AS VARCHAR) AS s
      FROM range(${options.rows}) r(i)`);

    const cases = [];
    for (const { name, sql } of kCases) {
      const { value, ...timing } = await timeQuery(connection, sql, options);
      // sum(bigint) is a HUGEINT and count(*) a BIGINT, both JS bigints; the totals of this data
      // stay below 2^53, so a Number holds them exactly.
      cases.push({ name, sql, ...timing, result: Number(value) });
    }
    process.stdout.write(
      JSON.stringify({
        duckdb_version: duckdb.version(),
        rows: options.rows,
        threads: Number(threads),
        cases,
      }) + '\n',
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

main().catch((error) => {
  process.stderr.write(`duckdb_expr: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
