// DuckDB side of the NDJSON ingestion benchmark: times read_json over the files json_bench
// generated, with the same explicit schema and with DuckDB's own inference, one thread.
// Each repetition runs EXPLAIN ANALYZE SELECT * so every column is parsed and materialized
// inside DuckDB without the cost of shipping rows to JavaScript. Prints JSON:
// {"cases":{"explicit_schema":{"median_ms":..,"rows":..},...}}.
import { createRequire } from 'node:module';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dir = option('dir');
const repetitions = Number(option('repetitions', '5'));
const require = createRequire(path.resolve('build/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const files = [0, 1, 2, 3].map((i) => `'${dir}/events-${i}.json'`).join(', ');
const columns = `{event_id: 'VARCHAR', ts: 'TIMESTAMPTZ', status: 'VARCHAR', user_id: 'BIGINT',
  country: 'VARCHAR', latency_ms: 'DOUBLE', bytes: 'BIGINT', path: 'VARCHAR',
  tags: 'VARCHAR[]', payload: 'STRUCT(a BIGINT, b VARCHAR)', region: 'VARCHAR'}`;
const cases = {
  explicit_schema: `read_json([${files}], format='newline_delimited', columns=${columns},
    ignore_errors=true)`,
  inferred_schema: `read_json([${files}], format='newline_delimited', ignore_errors=true)`,
};

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
const out = { cases: {} };
for (const [name, source] of Object.entries(cases)) {
  const count = await con.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${source}`);
  const rows = Number(count.getRows()[0][0]);
  await con.run(`EXPLAIN ANALYZE SELECT * FROM ${source}`);  // warm-up
  const times = [];
  for (let r = 0; r < repetitions; ++r) {
    const start = process.hrtime.bigint();
    await con.run(`EXPLAIN ANALYZE SELECT * FROM ${source}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  out.cases[name] = { median_ms: times[Math.floor(times.length / 2)], rows };
}
console.log(JSON.stringify(out));
