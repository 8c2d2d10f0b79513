// The DuckDB test oracle: an independent Parquet reader and SQL engine that tests compare
// tributary against (TESTING.md, "DuckDB: the independent oracle"). tests/support/duckdb_oracle.h
// runs it from C++; it is also handy by hand.
//
// Usage: node tests/support/duckdb_oracle.mjs [--modules DIR] COMMAND ...
//   cat-parquet FILE [--columns a,b]     the file's rows, in file order, as canonical JSON lines
//   cat-many LIST OUT_DIR                cat-parquet of every path in LIST (one per line) into
//                                        OUT_DIR/<i>.jsonl, i = 0-based line number; prints one
//                                        JSON line per input: {"index","file","rows"} or
//                                        {"index","file","error"}
//   write-parquet OUT --sql SQL [--codec snappy|zstd|gzip|brotli|uncompressed] [--row-group-size N]
//                 [--parquet-version v1|v2]
//                                        COPY (SQL) TO OUT as Parquet. Default codec: snappy
//   query --sql SQL                      the result rows as canonical JSON lines
//   schema FILE                          parquet_schema(FILE) rows as JSON lines
//   --sql-file FILE  instead of --sql: the SQL text is FILE's content (for SQL longer than an
//                    argument may be)
//   --modules DIR  the node_modules folder holding @duckdb/node-api. Default: env
//                  TRIBUTARY_ORACLE_NODE_MODULES, else build/oracle/node_modules of this repo
// Errors go to stderr and the exit code is 1 (2 for a usage error).
//
// Canonical JSON (../shared/testdata/MANIFEST.md, "Canonical expected rows"), byte for byte as
// src/columnar/canonical_json.cc prints it: keys in schema order; integers exact; float and
// double as the shortest round-trip text of their width in Python repr form ("1.0", "1e+16",
// "1e-05"), NaN and infinities as the strings "NaN", "Infinity", "-Infinity"; decimal(p,s) as a
// string with s fraction digits; date "YYYY-MM-DD"; a UTC timestamp "YYYY-MM-DDTHH:MM:SS.ffffffZ"
// and a zone-less one without the Z, both truncated to microseconds; binary as lowercase hex;
// struct as object, list as array, map as an array of {"key","value"} objects sorted by their
// JSON text's UTF-8 bytes. Parquet INT96 and legacy TIMESTAMP_MILLIS/MICROS columns, which
// DuckDB reads as zone-less TIMESTAMP, are UTC by the Parquet spec and printed with the Z.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

class UsageError extends Error {}

function parseArgs(argv) {
  const options = { modules: process.env.TRIBUTARY_ORACLE_NODE_MODULES || '', positional: [] };
  const valueFlags = new Set(['--modules', '--columns', '--sql', '--sql-file', '--codec', '--row-group-size',
    '--parquet-version']);
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (valueFlags.has(arg)) {
      if (i + 1 >= argv.length) throw new UsageError(`missing value after ${arg}`);
      options[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      options.positional.push(arg);
    }
  }
  if (options['sql-file'] !== undefined) {
    if (options.sql !== undefined) throw new UsageError('give --sql or --sql-file, not both');
    options.sql = fs.readFileSync(options['sql-file'], 'utf8');
  }
  if (!options.modules) options.modules = path.join(here, '..', '..', 'build', 'oracle', 'node_modules');
  return options;
}

function loadDuckDB(modules) {
  const entry = path.join(modules, '@duckdb', 'node-api');
  if (!fs.existsSync(path.join(entry, 'package.json'))) {
    throw new Error(`@duckdb/node-api is not installed in ${modules} (run scripts/setup.sh)`);
  }
  return createRequire(path.join(modules, 'index.js'))('@duckdb/node-api');
}

function sqlString(text) {
  return `'${text.replaceAll("'", "''")}'`;
}

// DuckDB globs paths holding *, ? or [; such a file is read through a plainly named symlink.
let symlinkDir = '';
function literalPath(file) {
  const absolute = path.resolve(file);
  if (!/[*?[\]{}]/.test(absolute)) return absolute;
  if (!symlinkDir) symlinkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-oracle-'));
  const link = path.join(symlinkDir, `${fs.readdirSync(symlinkDir).length}.parquet`);
  fs.symlinkSync(absolute, link);
  return link;
}

// ---- Canonical JSON ----

// Python repr of a finite number from its shortest scientific digits ("1.2345e+2").
function reprFromExponential(sci) {
  let [mantissa, expText] = sci.split('e');
  let exponent = Number(expText);
  let negative = false;
  if (mantissa.startsWith('-')) {
    negative = true;
    mantissa = mantissa.slice(1);
  }
  let digits = mantissa.replace('.', '');
  while (digits.length > 1 && digits.endsWith('0')) digits = digits.slice(0, -1);
  let out = negative ? '-' : '';
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += '0.' + '0'.repeat(-exponent - 1) + digits;
    } else if (digits.length <= exponent + 1) {
      out += digits + '0'.repeat(exponent + 1 - digits.length) + '.0';
    } else {
      out += digits.slice(0, exponent + 1) + '.' + digits.slice(exponent + 1);
    }
    return out;
  }
  out += digits[0];
  if (digits.length > 1) out += '.' + digits.slice(1);
  const magnitude = String(Math.abs(exponent)).padStart(2, '0');
  return `${out}e${exponent < 0 ? '-' : '+'}${magnitude}`;
}

// Exact shortest round-trip digits of a finite nonzero IEEE value, as Ryu and std::to_chars
// produce them: the fewest significant digits whose value lies in the rounding interval of the
// value (bounds included when its significand is even), and of those the nearest to it, ties
// to even. Returns the digits and the decimal exponent of the first one. BigInt throughout:
// JS's toExponential rounds ties up and only knows doubles.
const kFloat32 = { mantissaBits: 23, bias: 127, maxExponent: 255 };
const kFloat64 = { mantissaBits: 52, bias: 1023, maxExponent: 2047 };
const scratch = new DataView(new ArrayBuffer(8));

function shortestDigits(value, format) {
  let ieeeExponent;
  let ieeeMantissa;
  if (format === kFloat32) {
    scratch.setFloat32(0, value);
    const bits = scratch.getUint32(0);
    ieeeExponent = (bits >>> 23) & 0xff;
    ieeeMantissa = BigInt(bits & 0x7fffff);
  } else {
    scratch.setFloat64(0, value);
    const bits = scratch.getBigUint64(0);
    ieeeExponent = Number((bits >> 52n) & 0x7ffn);
    ieeeMantissa = bits & ((1n << 52n) - 1n);
  }
  const bits = BigInt(format.mantissaBits);
  // value = m2 * 2^e2; the interval is [mm, mp] * 2^(e2 - 2).
  const m2 = ieeeExponent === 0 ? ieeeMantissa : ieeeMantissa | (1n << bits);
  const e2 = (ieeeExponent === 0 ? 1 : ieeeExponent) - format.bias - format.mantissaBits;
  const mmShift = ieeeMantissa !== 0n || ieeeExponent <= 1 ? 1n : 0n;
  const mv = 4n * m2;
  const mp = mv + 2n;
  const mm = mv - 1n - mmShift;
  const acceptBounds = m2 % 2n === 0n;
  const s = e2 - 2;
  // Compares d * 10^k with x * 2^s.
  const compare = (d, k, x) => {
    let left = d;
    let right = x;
    if (k >= 0) left *= 10n ** BigInt(k); else right *= 10n ** BigInt(-k);
    if (s >= 0) right <<= BigInt(s); else left <<= BigInt(-s);
    return left < right ? -1 : left > right ? 1 : 0;
  };
  const inside = (d, k) => {
    const low = compare(d, k, mm);
    const high = compare(d, k, mp);
    return acceptBounds ? low >= 0 && high <= 0 : low > 0 && high < 0;
  };
  let exponent = Math.floor(Math.log10(value));
  while (compare(1n, exponent, mv) > 0) --exponent;
  while (compare(1n, exponent + 1, mv) <= 0) ++exponent;
  for (let precision = 1; ; ++precision) {
    const k = exponent - precision + 1;
    // value / 10^k rounded half to even.
    let num = mv;
    let den = 1n;
    if (s >= 0) num <<= BigInt(s); else den <<= BigInt(-s);
    if (k >= 0) den *= 10n ** BigInt(k); else num *= 10n ** BigInt(-k);
    let d = num / den;
    const twice = 2n * (num % den);
    if (twice > den || (twice === den && d % 2n === 1n)) ++d;
    for (const candidate of [d, d + 1n, d - 1n]) {
      if (candidate > 0n && inside(candidate, k)) {
        const text = String(candidate);
        return { digits: text, exponent: k + text.length - 1 };
      }
    }
  }
}

// Float32 shortest digits the quick way: toExponential(p - 1) is the nearest p-digit decimal
// (ties up) and the rounding interval's ends are doubles, so inside-ness is a double compare.
// Ties, ends hit exactly, and a neighbour of the nearest being the shortest fall back to
// shortestDigits.
function float32Digits(value) {
  scratch.setFloat32(0, value);
  const bits = scratch.getUint32(0);
  scratch.setUint32(0, bits + 1);
  const next = scratch.getFloat32(0);
  scratch.setUint32(0, bits - 1);
  const previous = scratch.getFloat32(0);
  const low = value - (value - previous) / 2;
  const high = Number.isFinite(next) ? value + (next - value) / 2 : value + (value - previous) / 2;
  // 1: inside, 0: outside, -1: cannot tell.
  const inside = (text) => {
    const n = Number(text);
    if (n === low || n === high) return -1;
    return n > low && n < high ? 1 : 0;
  };
  for (let precision = 1; precision <= 9; ++precision) {
    const nearest = value.toExponential(precision - 1);
    const verdict = inside(nearest);
    if (verdict === 1) {
      const longer = value.toExponential(precision);
      if (longer[longer.indexOf('e') - 1] === '5' && Number(longer) === value) break;
      const [mantissa, exponent] = nearest.split('e');
      return { digits: mantissa.replace('.', ''), exponent: Number(exponent) };
    }
    if (verdict === -1) break;
    // A neighbour of the nearest p-digit decimal that may be inside (judged in doubles, with
    // slack for their rounding) sends the value to the exact path.
    const step = 10 ** (Number(nearest.slice(nearest.indexOf('e') + 1)) - precision + 1);
    const slack = value * 1e-12;
    const up = Number(nearest) + step;
    const down = Number(nearest) - step;
    if ((up > low - slack && up < high + slack) || (down > low - slack && down < high + slack)) break;
  }
  return shortestDigits(value, kFloat32);
}

function formatFloating(value, float32) {
  if (Number.isNaN(value)) return '"NaN"';
  if (value === Infinity) return '"Infinity"';
  if (value === -Infinity) return '"-Infinity"';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  if (!float32) return reprFromExponential(value.toExponential());
  const { digits, exponent } = float32Digits(Math.abs(value));
  return reprFromExponential(`${sign}${digits}e${exponent}`);
}

function formatDecimal(unscaled, scale) {
  const negative = unscaled < 0n;
  let digits = String(negative ? -unscaled : unscaled);
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return `"${negative ? '-' : ''}${digits}"`;
}

function floorDiv(a, b) {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

function pad(n, width) {
  return String(n).padStart(width, '0');
}

// Days since 1970-01-01 to "YYYY-MM-DD" (Hinnant's civil_from_days, as columnar/calendar.cc).
function formatDays(days) {
  const z = BigInt(days) + 719468n;
  const era = floorDiv(z, 146097n);
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const day = Number(doy - (153n * mp + 2n) / 5n + 1n);
  const month = Number(mp < 10n ? mp + 3n : mp - 9n);
  const year = Number(yoe + era * 400n + (month <= 2 ? 1n : 0n));
  const yearText = year >= 0 && year <= 9999 ? pad(year, 4) : (year < 0 ? '-' : '+') + pad(Math.abs(year), 4);
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}`;
}

function formatMicros(micros, utc) {
  const perDay = 86400000000n;
  const days = floorDiv(micros, perDay);
  const ofDay = micros - days * perDay;
  const seconds = ofDay / 1000000n;
  const fraction = ofDay % 1000000n;
  const time = `${pad(seconds / 3600n, 2)}:${pad((seconds / 60n) % 60n, 2)}:${pad(seconds % 60n, 2)}`;
  return `"${formatDays(days)}T${time}.${pad(fraction, 6)}${utc ? 'Z' : ''}"`;
}

function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// `hint` is what the Parquet schema says about a column (see parquetHints), or undefined.
function formatValue(T, type, value, hint) {
  if (value === null || value === undefined) return 'null';
  const id = T.DuckDBTypeId;
  switch (type.typeId) {
    case id.BOOLEAN:
      return value ? 'true' : 'false';
    case id.TINYINT: case id.SMALLINT: case id.INTEGER: case id.BIGINT: case id.HUGEINT:
    case id.UTINYINT: case id.USMALLINT: case id.UINTEGER: case id.UBIGINT: case id.UHUGEINT:
      return String(value);
    case id.FLOAT:
      return formatFloating(value, true);
    case id.DOUBLE:
      return formatFloating(value, false);
    case id.DECIMAL:
      return formatDecimal(value.value, value.scale);
    case id.VARCHAR:
      return JSON.stringify(value);
    case id.BLOB:
      return `"${hex(value.bytes)}"`;
    case id.DATE:
      return `"${formatDays(value.days)}"`;
    case id.TIMESTAMP:
      return formatMicros(value.micros, hint?.utc === true);
    case id.TIMESTAMP_TZ:
      return formatMicros(value.micros, hint?.utc !== false);
    case id.TIMESTAMP_S:
      return formatMicros(value.seconds * 1000000n, hint?.utc === true);
    case id.TIMESTAMP_MS:
      return formatMicros(value.millis * 1000n, hint?.utc === true);
    case id.TIMESTAMP_NS:
      return formatMicros(floorDiv(value.nanos, 1000n), hint?.utc === true);
    case id.STRUCT: {
      const parts = type.entryNames.map((name, i) =>
        `${JSON.stringify(name)}:${formatValue(T, type.entryTypes[i], value.entries[name], hint?.fields?.get(name))}`);
      return `{${parts.join(',')}}`;
    }
    case id.LIST:
    case id.ARRAY:
      return `[${value.items.map((item) => formatValue(T, type.valueType, item, hint?.element)).join(',')}]`;
    case id.MAP: {
      const entries = value.entries.map((entry) =>
        `{"key":${formatValue(T, type.keyType, entry.key, hint?.key)},` +
        `"value":${formatValue(T, type.valueType, entry.value, hint?.value)}}`);
      entries.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      return `[${entries.join(',')}]`;
    }
    default:
      return JSON.stringify(String(value));
  }
}

// ---- Parquet schema hints ----

// The tree of parquet_schema(FILE) rows (pre-order, num_children each) as hints mirroring
// DuckDB's types: {utc} on timestamp leaves, {fields: Map} on structs, {element} on lists,
// {key, value} on maps.
function hintFromNode(node) {
  if (node.children.length === 0) {
    const logical = node.row.logical_type ?? '';
    const converted = node.row.converted_type ?? '';
    if (logical.startsWith('TimestampType(')) return { utc: /isAdjustedToUTC=(1|true)/.test(logical) };
    if (converted === 'TIMESTAMP_MICROS' || converted === 'TIMESTAMP_MILLIS') return { utc: true };
    if (node.row.type === 'INT96') return { utc: true };
    return undefined;
  }
  const converted = node.row.converted_type ?? '';
  const logical = node.row.logical_type ?? '';
  const only = node.children.length === 1 ? node.children[0] : undefined;
  if ((converted === 'MAP' || converted === 'MAP_KEY_VALUE' || logical.startsWith('MapType')) &&
      only && only.children.length === 2) {
    return { key: hintFromNode(only.children[0]), value: hintFromNode(only.children[1]) };
  }
  if ((converted === 'LIST' || logical.startsWith('ListType')) && only) {
    const element = only.row.repetition_type === 'REPEATED' && only.children.length === 1
      ? only.children[0] : only;
    return { element: hintFromNode(element) };
  }
  if (node.row.repetition_type === 'REPEATED' && node.row.type === null) {
    return { element: { fields: fieldHints(node.children) } };
  }
  return { fields: fieldHints(node.children) };
}

function fieldHints(children) {
  const fields = new Map();
  for (const child of children) {
    let hint = hintFromNode(child);
    if (child.row.repetition_type === 'REPEATED' && child.children.length === 0) hint = { element: hint };
    fields.set(child.row.name, hint);
  }
  return fields;
}

async function parquetHints(connection, file) {
  const reader = await connection.runAndReadAll(
      `SELECT name, type, repetition_type, num_children, converted_type, logical_type ` +
      `FROM parquet_schema(${sqlString(file)})`);
  const rows = reader.getRowObjects();
  let next = 0;
  function build() {
    const row = rows[next++];
    const node = { row, children: [] };
    const count = Number(row.num_children ?? 0);
    for (let i = 0; i < count && next < rows.length; ++i) node.children.push(build());
    return node;
  }
  if (rows.length === 0) return new Map();
  return fieldHints(build().children);
}

// ---- Commands ----

function canonicalLines(T, reader, hints) {
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const keys = names.map((name) => `${JSON.stringify(name)}:`);
  const columnHints = names.map((name) => hints?.get(name));
  const lines = [];
  for (const row of reader.getRows()) {
    const parts = row.map((value, i) => keys[i] + formatValue(T, types[i], value, columnHints[i]));
    lines.push(`{${parts.join(',')}}\n`);
  }
  return lines;
}

async function catParquetLines(T, connection, file, columns) {
  const literal = literalPath(file);
  const hints = await parquetHints(connection, literal);
  const projection = columns ? columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(', ') : '*';
  const reader = await connection.runAndReadAll(
      `SELECT ${projection} FROM read_parquet(${sqlString(literal)}, hive_partitioning=false)`);
  return canonicalLines(T, reader, hints);
}

function writeOut(text) {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

async function writeLines(lines) {
  const kChunk = 4096;
  for (let i = 0; i < lines.length; i += kChunk) await writeOut(lines.slice(i, i + kChunk).join(''));
}

function requirePositional(options, count, usage) {
  if (options.positional.length !== count) throw new UsageError(`usage: ${usage}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const command = options.positional.shift();
  if (!command) throw new UsageError('usage: duckdb_oracle.mjs [--modules DIR] COMMAND ...');
  const T = loadDuckDB(options.modules);
  const instance = await T.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");

  switch (command) {
    case 'cat-parquet': {
      requirePositional(options, 1, 'cat-parquet FILE [--columns a,b]');
      const columns = options.columns !== undefined ? options.columns.split(',') : undefined;
      await writeLines(await catParquetLines(T, connection, options.positional[0], columns));
      break;
    }
    case 'cat-many': {
      requirePositional(options, 2, 'cat-many LIST OUT_DIR');
      const [list, outDir] = options.positional;
      const files = fs.readFileSync(list, 'utf8').split('\n').filter((line) => line.length > 0);
      fs.mkdirSync(outDir, { recursive: true });
      const summary = [];
      for (let index = 0; index < files.length; ++index) {
        const file = files[index];
        try {
          const lines = await catParquetLines(T, connection, file, undefined);
          fs.writeFileSync(path.join(outDir, `${index}.jsonl`), lines.join(''));
          summary.push(`${JSON.stringify({ index, file, rows: lines.length })}\n`);
        } catch (error) {
          summary.push(`${JSON.stringify({ index, file, error: String(error.message ?? error) })}\n`);
        }
      }
      await writeLines(summary);
      break;
    }
    case 'write-parquet': {
      requirePositional(options, 1, 'write-parquet OUT --sql SQL [--codec C] [--row-group-size N]');
      if (options.sql === undefined) throw new UsageError('write-parquet needs --sql');
      const codec = options.codec ?? 'snappy';
      if (!['snappy', 'zstd', 'gzip', 'brotli', 'uncompressed'].includes(codec)) {
        throw new UsageError(`unknown codec ${codec}`);
      }
      let copyOptions = `FORMAT parquet, COMPRESSION ${codec}`;
      if (options['row-group-size'] !== undefined) {
        const rows = Number(options['row-group-size']);
        if (!Number.isSafeInteger(rows) || rows <= 0) {
          throw new UsageError(`--row-group-size must be a positive integer, got ${options['row-group-size']}`);
        }
        copyOptions += `, ROW_GROUP_SIZE ${rows}`;
      }
      if (options['parquet-version'] !== undefined) {
        // V2 makes DuckDB write data page v2 and the DELTA_* / BYTE_STREAM_SPLIT encodings.
        if (!['v1', 'v2'].includes(options['parquet-version'])) {
          throw new UsageError(`--parquet-version must be v1 or v2`);
        }
        copyOptions += `, PARQUET_VERSION ${options['parquet-version'].toUpperCase()}`;
      }
      const out = path.resolve(options.positional[0]);
      await connection.run(`COPY (${options.sql}) TO ${sqlString(out)} (${copyOptions})`);
      break;
    }
    case 'query': {
      requirePositional(options, 0, 'query --sql SQL');
      if (options.sql === undefined) throw new UsageError('query needs --sql');
      const reader = await connection.runAndReadAll(options.sql);
      await writeLines(canonicalLines(T, reader, undefined));
      break;
    }
    case 'query-many': {
      // LIST: a JSON array of SQL strings. Each result goes to OUT_DIR/<index>.jsonl; one summary
      // line per query says its row count or DuckDB's error, so one bad query fails only itself.
      requirePositional(options, 2, 'query-many LIST OUT_DIR');
      const [list, outDir] = options.positional;
      const queries = JSON.parse(fs.readFileSync(list, 'utf8'));
      fs.mkdirSync(outDir, { recursive: true });
      const summary = [];
      for (let index = 0; index < queries.length; ++index) {
        try {
          const lines = canonicalLines(T, await connection.runAndReadAll(queries[index]), undefined);
          fs.writeFileSync(path.join(outDir, `${index}.jsonl`), lines.join(''));
          summary.push(`${JSON.stringify({ index, rows: lines.length })}\n`);
        } catch (error) {
          summary.push(`${JSON.stringify({ index, error: String(error.message ?? error) })}\n`);
        }
      }
      await writeLines(summary);
      break;
    }
    case 'schema': {
      requirePositional(options, 1, 'schema FILE');
      const reader = await connection.runAndReadAll(
          `SELECT * FROM parquet_schema(${sqlString(literalPath(options.positional[0]))})`);
      await writeLines(reader.getRowObjectsJson().map((row) => `${JSON.stringify(row)}\n`));
      break;
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
  connection.closeSync?.();
}

try {
  await main();
} catch (error) {
  process.stderr.write(`duckdb_oracle: ${error.message ?? error}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  if (symlinkDir) fs.rmSync(symlinkDir, { recursive: true, force: true });
}
