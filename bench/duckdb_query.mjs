// DuckDB side of the query benchmark; bench/query_bench.cc is tributary's side and
// bench/query_cases.tsv holds the SQL both run.
//
// Usage:
//   node bench/duckdb_query.mjs generate --dir DIR
//     writes DIR/countries.parquet (code, region: the 16 countries of the log table)
//   node bench/duckdb_query.mjs bench --dir DIR [--repetitions R] [--min-time S] [--threads T] [--oracle D]
//     (--threads: DuckDB's threads, default 1)
//     times each case over DIR/scan.parquet and DIR/countries.parquet, one thread, and prints
//     {duckdb_version, rows, threads, cases: [{name, sql, times_ms, ..., result}]} as the other
//     bench/duckdb_*.mjs scripts do (timing: bench/duckdb_timing.mjs).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { timeQuery } from './duckdb_timing.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [command, ...argv] = process.argv.slice(2);
const options = { dir: '', repetitions: 5, minTime: 0.5, threads: 1, oracle: path.join(here, '..', 'build', 'oracle') };
for (let i = 0; i < argv.length; i += 2) {
  const key = { '--dir': 'dir', '--repetitions': 'repetitions', '--min-time': 'minTime', '--threads': 'threads', '--oracle': 'oracle' }[argv[i]];
  if (key === undefined || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
  options[key] = key === 'dir' || key === 'oracle' ? path.resolve(argv[i + 1]) : Number(argv[i + 1]);
}
if (options.dir === '' || (command !== 'generate' && command !== 'bench')) {
  throw new Error('usage: duckdb_query.mjs generate|bench --dir DIR [...]');
}

const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;

function loadCases() {
  return readFileSync(path.join(here, 'query_cases.tsv'), 'utf8').split('\n')
    .filter((line) => line !== '' && !line.startsWith('#') && line.includes('\t'))
    .map((line) => {
      const tab = line.indexOf('\t');
      return { name: line.slice(0, tab), template: line.slice(tab + 1) };
    });
}

async function main() {
  const require = createRequire(path.join(options.oracle, 'package.json'));
  const duckdb = require('@duckdb/node-api');
  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: String(options.threads) });
  const connection = await instance.connect();
  try {
    const countries = path.join(options.dir, 'countries.parquet');
    if (command === 'generate') {
      await connection.run(`COPY (SELECT * FROM (VALUES
        ('US', 'Americas'), ('CA', 'Americas'), ('MX', 'Americas'), ('BR', 'Americas'),
        ('DE', 'Europe'), ('FR', 'Europe'), ('GB', 'Europe'), ('NL', 'Europe'), ('SE', 'Europe'),
        ('ES', 'Europe'), ('IT', 'Europe'), ('PL', 'Europe'),
        ('JP', 'Asia'), ('IN', 'Asia'), ('KR', 'Asia'), ('AU', 'Oceania')) t(code, region))
        TO ${sqlPath(countries)} (FORMAT parquet)`);
      return;
    }
    const logs = `read_parquet(${sqlPath(path.join(options.dir, 'scan.parquet'))})`;
    const rows = Number((await connection.runAndReadAll(`SELECT count(*) FROM ${logs}`))
      .getRows()[0][0]);
    const cases = [];
    for (const { name, template } of loadCases()) {
      const sql = template.replaceAll('{logs}', logs)
        .replaceAll('{countries}', `read_parquet(${sqlPath(countries)})`);
      const { value, ...timing } = await timeQuery(connection, sql, options);
      cases.push({ name, sql, ...timing, result: Number(value) });
    }
    const threads = (await connection.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
    process.stdout.write(JSON.stringify({ duckdb_version: duckdb.version(), rows,
      threads: Number(threads), cases }) + '\n');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

main().catch((error) => {
  process.stderr.write(`duckdb_query: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
