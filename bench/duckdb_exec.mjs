// DuckDB side of the blocking-operator benchmark; bench/exec_bench.cc is tributary's side (its
// header describes the tables and cases) and scripts/bench.sh runs both and compares them.
//
// Usage: node bench/duckdb_exec.mjs [--rows N] [--repetitions R] [--min-time S] [--oracle DIR]
//   --rows         rows of the fact table; dim has rows / 10. Default: 1000000
//   --repetitions  timed repetitions per case; the median is reported. Default: 5
//   --min-time     seconds each repetition runs at least. Default: 0.5
//   --oracle       where setup.sh installed @duckdb/node-api. Default: build/oracle
// Timing as bench/duckdb_timing.mjs describes. Prints one JSON object in the shape of bench/duckdb_expr.mjs's: {duckdb_version, rows,
// threads, cases: [{name, sql, times_ms, cpu_times_ms, median_ms, median_cpu_ms, result}]}.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { timeQuery } from './duckdb_timing.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const options = { rows: 1000000, repetitions: 5, minTime: 0.5, oracle: path.join(here, '..', 'build', 'oracle') };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const key = { '--rows': 'rows', '--repetitions': 'repetitions', '--min-time': 'minTime', '--oracle': 'oracle' }[argv[i]];
  if (key === undefined || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
  options[key] = key === 'oracle' ? path.resolve(argv[i + 1]) : Number(argv[i + 1]);
}

// Same names as the BENCHMARK_CAPTUREs in exec_bench.cc; each reduces to one number.
const kCases = [
  { name: 'group_by', sql: 'SELECT sum(s) + sum(c) FROM (SELECT k, sum(v) AS s, count(*) AS c FROM fact GROUP BY k)' },
  { name: 'join', sql: 'SELECT count(*) + sum(dv) FROM fact JOIN dim ON fk = dk' },
  { name: 'join_sparse', sql: 'SELECT count(*) + sum(dv) FROM fact JOIN dim ON sk = sdk' },
  { name: 'join_string', sql: 'SELECT count(*) + sum(dv) FROM fact JOIN dim ON tk = tdk' },
];

async function main() {
  const require = createRequire(path.join(options.oracle, 'package.json'));
  const duckdb = require('@duckdb/node-api');
  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    const dimRows = Math.floor(options.rows / 10);
    await connection.run(`CREATE TABLE fact AS SELECT k, v, fk, fk * 1000003 AS sk,
      'key-' || fk AS tk FROM (SELECT i * 7919 % 10007 AS k, i % 1000 AS v,
      i * 7919 % ${2 * dimRows} AS fk FROM range(${options.rows}) r(i))`);
    await connection.run(`CREATE TABLE dim AS SELECT 2 * j AS dk, j % 100 AS dv,
      2 * j * 1000003 AS sdk, 'key-' || (2 * j) AS tdk FROM range(${dimRows}) r(j)`);
    const cases = [];
    for (const { name, sql } of kCases) {
      const { value, ...timing } = await timeQuery(connection, sql, options);
      cases.push({ name, sql, ...timing, result: Number(value) });
    }
    const threads = (await connection.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
    process.stdout.write(JSON.stringify({ duckdb_version: duckdb.version(), rows: options.rows,
      threads: Number(threads), cases }) + '\n');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

main().catch((error) => {
  process.stderr.write(`duckdb_exec: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
