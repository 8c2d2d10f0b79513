// Timing of one DuckDB query as the bench/duckdb_*.mjs scripts report it, shaped like a Google
// Benchmark repetition: the query runs once untimed (warm-up, which also sizes the
// repetitions); then each repetition runs it back to back for at least `minTime` seconds and
// records the mean wall time of one runAndReadAll() and the mean CPU time of the process per
// query.

export function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Returns {queries_per_repetition, times_ms, cpu_times_ms, median_ms, median_cpu_ms, value}
// where value is the first column of the first row of the last run.
export async function timeQuery(connection, sql, { repetitions, minTime }) {
  const warmupStart = process.hrtime.bigint();
  await connection.runAndReadAll(sql);
  const warmupMs = Number(process.hrtime.bigint() - warmupStart) / 1e6;
  const queriesPerRepetition = Math.max(1, Math.ceil((minTime * 1e3) / warmupMs));
  const times = [];
  const cpuTimes = [];
  let value;
  for (let r = 0; r < repetitions; ++r) {
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let q = 0; q < queriesPerRepetition; ++q) {
      value = (await connection.runAndReadAll(sql)).getRows()[0][0];
    }
    const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
    const cpu = process.cpuUsage(cpuStart);
    times.push(elapsedMs / queriesPerRepetition);
    cpuTimes.push((cpu.user + cpu.system) / 1e3 / queriesPerRepetition);
  }
  return {
    queries_per_repetition: queriesPerRepetition,
    times_ms: times,
    cpu_times_ms: cpuTimes,
    median_ms: median(times),
    median_cpu_ms: median(cpuTimes),
    value,
  };
}
