// Crash points: named places where a test can make the process die as a real crash would.
//
// A process started with the environment variable TRIBUTARY_CRASH_AT=<name>:<n> (n >= 1)
// kills itself with SIGKILL the n-th time it reaches CrashPoint("<name>"): no destructor, no
// flush, no unlock runs, so the files on disk are exactly what a power cut or `kill -9` at that
// instant leaves behind. Without the variable a crash point costs one relaxed atomic load.
// A malformed value is reported on stderr once and arms nothing. TRIBUTARY_HANG_AT=<name>:<n>
// instead blocks the thread that reaches the point the n-th time forever, as I/O that never
// returns would. TRIBUTARY_PAUSE_AT=<name>:<n> with TRIBUTARY_PAUSE_FILE=<path> pauses the
// n-th visit: it creates <path>.reached and waits until <path> exists (tests of concurrent
// writers choose the interleaving: tests/interop/dml_process_test.cc).
//
// The points, in the order a micro-batch reaches them (tests/streaming/crash_recovery_test.cc
// kills a stream at each):
//
//   file_source.after_log       the file stream source wrote its next source log entry
//                               (sources/<n>/<id>); the engine has not yet written offsets/N
//   streaming.after_offsets     offsets/N is written (write-ahead), the batch has not run
//   streaming.before_add_batch  the batch is planned; the sink has not been called
//   parquet.mid_write           inside a Parquet file write, after a row group's column chunks
//                               were appended and before the footer: a torn staging file
//                               (data files, and Delta checkpoints written as Parquet)
//   dml.before_data_files       a DELETE/UPDATE/MERGE (delta::CommitRowChanges) computed its
//                               changes; no data, deletion vector or change data file written
//   dml.after_data_files        its new files are all written; nothing committed
//   dml.before_commit           its transaction holds every action; the commit is not written
//   delta.after_commit          a Delta commit _delta_log/<v>.json is published, before the
//                               transaction writes a checkpoint or returns
//   state.after_changelog       a state partition's <v>.changelog is written (the batch's
//                               state is not all committed, commits/N is not written)
//   state.after_snapshot        a state partition's <v>.snapshot is written, before the purge
//   kafka_sink.before_commit_transaction  the exactly-once Kafka sink produced the batch's
//                               records in its transaction; the transaction is not committed
//   kafka_sink.after_commit_transaction   the transaction (records and the batch id as group
//                               offsets) is committed; the plain offset commit and commits/N are
//                               not written
//   streaming.after_state_commit every stateful operator's state version N+1 is committed
//                               (after the sink returned); commits/N is not yet written
//   streaming.before_commit_log the sink returned; commits/N is not yet written
//   streaming.after_commit_log  commits/N is written; sources not yet told, no progress yet
//
// Thread-safety: CrashPoint may be called from any thread; the count is shared by all.

#pragma once

#include <atomic>
#include <string_view>

namespace tributary {

namespace crash_point_internal {
/// True when TRIBUTARY_CRASH_AT named a point; set once before main.
extern std::atomic<bool> armed;
/// Counts a visit of `name` and kills the process on the n-th visit of the armed point.
void Reach(std::string_view name);
}  // namespace crash_point_internal

/// Marks a place a crash test may stop the process at (see the list above).
inline void CrashPoint(std::string_view name) {
  if (crash_point_internal::armed.load(std::memory_order_relaxed)) {
    crash_point_internal::Reach(name);
  }
}

}  // namespace tributary
