// DuckDB side of the streaming throughput benchmark (bench/streaming_bench.cc is tributary's):
// the same JSON -> filter(status = 'active') -> Parquet work as one COPY statement over the
// files `streaming_bench generate` wrote, with the same explicit columns, one thread.
//
// Usage: node bench/duckdb_streaming.mjs --dir DIR [--repetitions R] [--table T] [--threads N]
//   [--infer|--window|--join|--nested]
//   times COPY (SELECT * FROM read_json(DIR/logs/*.json, columns={...}) WHERE status =
//   'active') TO DIR/duckdb_out.parquet (FORMAT parquet) R times (Default: 5) after one
//   untimed warm-up, and counts the rows of its own output and, with --table, of tributary's
//   Delta table T (its Parquet files, read by DuckDB: the independent check that tributary
//   wrote every matching row). With --window it times the batch form of streaming_bench's
//   windowed case instead, COPY (SELECT time_bucket(INTERVAL 1 minute, ts), country, count(*),
//   avg(latency_ms) ... GROUP BY ALL) TO DIR/duckdb_out.parquet, and rows_out counts the windows
//   a 1-minute watermark has closed at the end of the stream (window end <= max(ts) - 1 minute:
//   what the streaming query writes in append mode). With --join it times the batch form of
//   streaming_bench's join case over DIR/impressions and DIR/clicks (clicks joined with their
//   impression within 10 minutes; no row is late for the streaming query's watermarks, so
//   both write the same rows). With --nested it times the nested case's filter over
//   DIR/nested/*.json with its explicit columns (tags a list, payload and error structs, region), the
//   malformed lines ignored (tributary's Auto Loader rescues them; their status is null, so
//   neither engine writes them). Prints one JSON object: duckdb_version, threads, times_ms,
//   median_ms, rows_in, rows_out, tributary_table_rows.

import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const dir = path.resolve(option('dir'));
const repetitions = Number(option('repetitions', '5'));
const table = option('table', '');
// --threads N: DuckDB's thread count (default 1), to compare with tributary at the same count.
const threads = Number(option('threads', '1'));
// --infer: read_json detects the columns and types itself, as tributary's Auto Loader pipeline
// infers them (streaming_bench pipeline); else the explicit columns of streaming_bench's schema.
const infer = args.includes('--infer');
const window = args.includes('--window');
const join = args.includes('--join');
const nested = args.includes('--nested');
const require = createRequire(path.resolve('build/oracle/package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;
// The types of streaming_bench's schema (ts TIMESTAMP, ...): a UTC instant is TIMESTAMPTZ.
const source = nested
  ? `read_json(${sqlPath(`${dir}/nested/*.json`)}, format='newline_delimited', ignore_errors=true,
  columns={ts: 'TIMESTAMPTZ', user_id: 'BIGINT', status: 'VARCHAR', country: 'VARCHAR',
  latency_ms: 'DOUBLE', path: 'VARCHAR', bytes: 'BIGINT', tags: 'VARCHAR[]',
  payload: 'STRUCT(method VARCHAR, code BIGINT, session VARCHAR)',
  error: 'STRUCT(type VARCHAR, retryable BOOLEAN)', region: 'VARCHAR'})`
  : infer
  ? `read_json(${sqlPath(`${dir}/logs/*.json`)})`
  : `read_json(${sqlPath(`${dir}/logs/*.json`)}, format='newline_delimited',
  columns={ts: 'TIMESTAMPTZ', user_id: 'BIGINT', status: 'VARCHAR', country: 'VARCHAR',
  latency_ms: 'DOUBLE', path: 'VARCHAR', bytes: 'BIGINT'})`;
const impressions = `read_json(${sqlPath(`${dir}/impressions/*.json`)}, format='newline_delimited',
  columns={ad_id: 'BIGINT', impression_time: 'TIMESTAMPTZ', campaign: 'VARCHAR'})`;
const clicks = `read_json(${sqlPath(`${dir}/clicks/*.json`)}, format='newline_delimited',
  columns={click_ad_id: 'BIGINT', click_time: 'TIMESTAMPTZ', country: 'VARCHAR'})`;
const out = `${dir}/duckdb_out.parquet`;
const query = join
  ? `SELECT i.ad_id, i.campaign, i.impression_time, c.click_time, c.country
  FROM ${impressions} i JOIN ${clicks} c ON c.click_ad_id = i.ad_id
  AND c.click_time BETWEEN i.impression_time AND i.impression_time + INTERVAL 10 minute`
  : window
  ? `SELECT time_bucket(INTERVAL 1 minute, ts) AS minute, country, count(*) AS events,
  avg(latency_ms) AS avg_latency_ms FROM ${source} GROUP BY ALL`
  : `SELECT * FROM ${source} WHERE status = 'active'`;
const copy = `COPY (${query}) TO ${sqlPath(out)} (FORMAT parquet)`;
// The windows a 1-minute watermark closed: the window end (minute + 1 minute) at or before the
// latest event time minus 1 minute.
const closed = window
  ? ` WHERE minute + INTERVAL 2 minute <= (SELECT max(ts) FROM ${source})`
  : '';

const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
const scalar = async (sql) => Number((await con.runAndReadAll(sql)).getRows()[0][0]);

await con.run(copy);  // warm-up
const times = [];
for (let r = 0; r < repetitions; ++r) {
  const start = process.hrtime.bigint();
  await con.run(copy);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const sorted = [...times].sort((a, b) => a - b);
const result = {
  duckdb_version: await (async () => (await con.runAndReadAll('SELECT version()')).getRows()[0][0])(),
  threads,
  times_ms: times.map((t) => Number(t.toFixed(1))),
  median_ms: sorted[Math.floor(sorted.length / 2)],
  // Nested: every line, malformed ones too (tributary reads them as rows and rescues them).
  rows_in: nested
    ? readdirSync(`${dir}/nested`).filter((name) => name.endsWith('.json'))
      .reduce((lines, name) => lines + readFileSync(`${dir}/nested/${name}`, 'latin1')
        .split('\n').filter((line) => line !== '').length, 0)
    : join
    ? await scalar(`SELECT (SELECT count(*) FROM ${impressions}) + (SELECT count(*) FROM ${clicks})`)
    : await scalar(`SELECT count(*) FROM ${source}`),
  rows_out: await scalar(`SELECT count(*) FROM read_parquet(${sqlPath(out)})${closed}`),
  tributary_table_rows: table === ''
    ? null
    : await scalar(`SELECT count(*) FROM read_parquet(${sqlPath(`${path.resolve(table)}/*.parquet`)})`),
};
console.log(JSON.stringify(result));
