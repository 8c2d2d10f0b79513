// DuckDB side of the Parquet benchmark; bench/parquet_bench.cc is tributary's side and
// scripts/bench.sh runs both and compares them.
//
// Usage:
//   node bench/duckdb_parquet.mjs generate --dir DIR [--rows N] [--oracle DIR]
//   node bench/duckdb_parquet.mjs bench --dir DIR [--repetitions R] [--oracle DIR]
//     --dir          where the data files live; bench.sh puts it on tmpfs when it can
//     --rows         rows of the log table. Default: 1000000
//     --repetitions  timed repetitions per case; the median is reported. Default: 5
//     --oracle       where setup.sh installed @duckdb/node-api. Default: build/oracle
//
// `generate` builds the log table below from range(N) (deterministic: no random(), no now())
// and writes it twice, untimed: DIR/base.parquet (uncompressed), which both engines load into
// memory as the input of the write cases, and DIR/scan.parquet (snappy, DuckDB's defaults
// otherwise), which both engines scan in the read case. It prints nothing.
//
// `bench` loads base.parquet into an in-memory table (untimed), then times
//   write_snappy, write_zstd  COPY (SELECT * FROM logs) TO '...' (FORMAT parquet, COMPRESSION c)
//   read_scan                 EXPLAIN ANALYZE SELECT * FROM read_parquet('DIR/scan.parquet')
// Why EXPLAIN ANALYZE: it runs the plan to completion and its sink discards every chunk, so the
// scan decodes every column of every row group into DuckDB vectors and nothing more. Returning
// the rows to JavaScript would time the conversion to JS values instead, and aggregates would
// time the aggregation and let DuckDB evaluate string functions on dictionaries only.
// Each case runs once untimed (warm-up), then --repetitions times; one repetition is one
// statement, which takes ~0.1 to 1 s at the default size. One thread.
//
// It also checks, untimed: the aggregates of scan.parquet that parquet_bench.cc computes while
// scanning (`expected`, compared by bench.sh), and that every file tributary wrote
// (DIR/tributary_*.parquet) holds the same rows as the table: same count, same order-independent
// sum of row hashes (`tributary_files`).
//
// Prints one JSON object: {duckdb_version, rows, threads, cases: [{name, times_ms, cpu_times_ms,
// median_ms, median_cpu_ms, file_bytes}], expected: {...}, tributary_files: [{name, file_bytes,
// rows, same_rows}]}.

import { createRequire } from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const options = {
    mode: argv[0],
    dir: undefined,
    rows: 1000000,
    repetitions: 5,
    oracle: path.join(here, '..', 'build', 'oracle'),
  };
  if (options.mode !== 'generate' && options.mode !== 'bench') {
    throw new Error(`the first argument must be generate or bench, got ${options.mode}`);
  }
  for (let i = 1; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value after ${flag}`);
    if (flag === '--dir') options.dir = path.resolve(value);
    else if (flag === '--rows') options.rows = Number(value);
    else if (flag === '--repetitions') options.repetitions = Number(value);
    else if (flag === '--oracle') options.oracle = path.resolve(value);
    else throw new Error(`unknown argument ${flag}`);
  }
  if (options.dir === undefined) throw new Error('--dir is required');
  if (!Number.isSafeInteger(options.rows) || options.rows <= 0) {
    throw new Error(`--rows must be a positive integer, got ${options.rows}`);
  }
  if (!Number.isSafeInteger(options.repetitions) || options.repetitions <= 0) {
    throw new Error(`--repetitions must be a positive integer, got ${options.repetitions}`);
  }
  return options;
}

// A request log: a unique 32-character id, increasing timestamps, low-cardinality status and
// country, 100,003 users, byte counts with some nulls, latencies with two decimals, ~40,000
// distinct paths, 0 to 3 tags, and a client struct that is null every 50th row.
function logTableSql(rows) {
  return `
    CREATE TABLE logs AS
    SELECT
      md5(CAST(i AS VARCHAR)) AS request_id,
      make_timestamp(1704067200000000 + i * 250000 + (i * 7919) % 250000) AS ts,
      (['OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'OK', 'NOT_FOUND', 'ERROR', 'TIMEOUT',
        'REDIRECT'])[1 + (i * 7919) % 12] AS status,
      (['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'AU', 'NL', 'SE', 'ES', 'IT', 'PL', 'KR',
        'MX'])[1 + (i * 104729) % 16] AS country,
      (i * 48271) % 100003 AS user_id,
      CASE WHEN i % 23 = 0 THEN NULL ELSE 200 + (i * 7919) % 65536 END AS bytes,
      CAST((i * 7919) % 100000 AS DOUBLE) / 100 + 0.25 AS latency_ms,
      '/api/v1/' || (['users', 'orders', 'items', 'search', 'cart', 'login', 'health',
        'metrics'])[1 + i % 8] || '/' || CAST((i * 31) % 5000 AS VARCHAR) AS path,
      list_slice(['mobile', 'cached', 'retry', 'beta', 'eu', 'canary'], 1 + (i * 7) % 6,
        (i * 7) % 6 + i % 4) AS tags,
      CASE WHEN i % 50 = 0 THEN NULL
           ELSE {'agent': (['chrome', 'firefox', 'safari', 'curl', 'okhttp'])[1 + i % 5],
                 'major': CAST(90 + i % 37 AS INTEGER)} END AS client
    FROM range(${rows}) r(i)`;
}

// What parquet_bench.cc computes while it scans (ScanTotals there), over the leaf columns:
// non-null values (list elements and struct fields counted as leaves; a null struct's fields
// are null), bytes of all strings, the sum of the integer leaves, the sum of the double leaf.
const kExpectedSql = `
  SELECT count(*) AS rows,
         count(request_id) + count(ts) + count(status) + count(country) + count(user_id)
           + count(bytes) + count(latency_ms) + count(path)
           + coalesce(sum(length(list_filter(tags, x -> x IS NOT NULL))), 0)
           + count(client.agent) + count(client.major) AS non_null_values,
         coalesce(sum(strlen(request_id)), 0) + coalesce(sum(strlen(status)), 0)
           + coalesce(sum(strlen(country)), 0) + coalesce(sum(strlen(path)), 0)
           + coalesce(sum(list_sum(list_transform(tags, x -> strlen(x)))), 0)
           + coalesce(sum(strlen(client.agent)), 0) AS string_bytes,
         coalesce(sum(user_id), 0) + coalesce(sum(bytes), 0)
           + coalesce(sum(client.major), 0) AS int_sum,
         coalesce(sum(latency_ms), 0) AS double_sum
  FROM read_parquet(?)`;

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Paths go into SQL text (COPY TO takes no parameters); refuse the one character that breaks it.
function sqlPath(file) {
  if (file.includes("'")) throw new Error(`path with a quote is not supported: ${file}`);
  return `'${file}'`;
}

async function generate(connection, options) {
  await connection.run(logTableSql(options.rows));
  await connection.run(
    `COPY logs TO ${sqlPath(path.join(options.dir, 'base.parquet'))} ` +
      '(FORMAT parquet, COMPRESSION uncompressed)');
  await connection.run(
    `COPY logs TO ${sqlPath(path.join(options.dir, 'scan.parquet'))} ` +
      '(FORMAT parquet, COMPRESSION snappy)');
}

// `file` is the file the case writes or reads; its size is reported.
async function timeCase(connection, name, sql, repetitions, file) {
  await connection.run(sql);
  const times = [];
  const cpuTimes = [];
  for (let r = 0; r < repetitions; ++r) {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    await connection.run(sql);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1e3);
  }
  return {
    name,
    sql,
    times_ms: times,
    cpu_times_ms: cpuTimes,
    median_ms: median(times),
    median_cpu_ms: median(cpuTimes),
    file_bytes: statSync(file).size,
  };
}

async function bench(connection, options) {
  const dir = options.dir;
  const scan = path.join(dir, 'scan.parquet');
  await connection.run(`CREATE TABLE logs AS SELECT * FROM read_parquet(${sqlPath(
    path.join(dir, 'base.parquet'))})`);
  const rows = Number((await connection.runAndReadAll('SELECT count(*) FROM logs'))
    .getRows()[0][0]);

  const cases = [];
  for (const codec of ['snappy', 'zstd']) {
    const out = path.join(dir, `duckdb_${codec}.parquet`);
    cases.push(await timeCase(connection, `write_${codec}`,
      `COPY (SELECT * FROM logs) TO ${sqlPath(out)} (FORMAT parquet, COMPRESSION ${codec})`,
      options.repetitions, out));
  }
  cases.push(await timeCase(connection, 'read_scan',
    `EXPLAIN ANALYZE SELECT * FROM read_parquet(${sqlPath(scan)})`, options.repetitions, scan));

  const expectedRow = (await connection.runAndReadAll(kExpectedSql, [scan])).getRowObjects()[0];
  const expected = Object.fromEntries(
    Object.entries(expectedRow).map(([key, value]) => [key, Number(value)]));

  // Row hashes summed as HUGEINT: equal multisets of rows give equal sums, whatever the order
  // and the row group layout.
  const rowHashSum = async (source) => (await connection.runAndReadAll(
    `SELECT count(*), CAST(sum(hash(${'request_id, ts, status, country, user_id, bytes, ' +
      'latency_ms, path, tags, client'})) AS VARCHAR) FROM ${source}`)).getRows()[0];
  const [, tableHash] = await rowHashSum('logs');
  const tributaryFiles = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.startsWith('tributary_') || !name.endsWith('.parquet')) continue;
    const file = path.join(dir, name);
    const [count, hash] = await rowHashSum(`read_parquet(${sqlPath(file)})`);
    tributaryFiles.push({
      name,
      file_bytes: statSync(file).size,
      rows: Number(count),
      same_rows: Number(count) === rows && hash === tableHash,
    });
  }
  return { rows, cases, expected, tributary_files: tributaryFiles };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // The package lives under build/oracle, not beside this file, so resolve it from there.
  const require = createRequire(path.join(options.oracle, 'package.json'));
  const duckdb = require('@duckdb/node-api');

  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    if (options.mode === 'generate') {
      await generate(connection, options);
      return;
    }
    const threads = (await connection.runAndReadAll("SELECT current_setting('threads')"))
      .getRows()[0][0];
    const result = await bench(connection, options);
    process.stdout.write(
      JSON.stringify({ duckdb_version: duckdb.version(), threads: Number(threads), ...result }) +
        '\n');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

main().catch((error) => {
  process.stderr.write(`duckdb_parquet: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
