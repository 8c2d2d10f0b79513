// The memory sink (format "memory"): each micro-batch's rows appended to an in-memory table,
// which the session reads as a table named after the query (Spark's MemorySink).

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "streaming/sink.h"

namespace tributary::streaming {

/// A memory sink's rows so far.
struct MemoryTable {
  columnar::SchemaPtr schema;
  std::vector<columnar::RecordBatchPtr> batches;
  /// The last batch id appended, so a re-run batch is not appended twice.
  int64_t last_batch_id = -1;
};

/// The memory sinks' tables by name: written by the sinks, read by the session.
///
/// Thread-safety: every member may be called from any thread.
class MemoryTables {
 public:
  /// Appends `rows` (in `schema`) to table `name` as batch `batch_id` (`replace`: they become
  /// the whole table, complete output mode), unless a batch up to that id was written already
  /// (a re-run batch). Whether the rows were written.
  bool Append(const std::string& name, int64_t batch_id, columnar::SchemaPtr schema,
              const std::vector<columnar::RecordBatchPtr>& rows, bool replace = false);
  /// A copy of table `name` (its batches shared), or nullopt when no sink wrote it.
  std::optional<MemoryTable> Find(const std::string& name) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, MemoryTable> tables_;
};

/// Appends every batch to table `table` of `tables`; in complete output mode each batch
/// replaces the table.
class MemorySink final : public Sink {
 public:
  MemorySink(std::shared_ptr<MemoryTables> tables, std::string table);

  /// The batch's row count, 0 for a re-run batch.
  Result<int64_t> AddBatch(const MicroBatch& batch) override;
  /// "MemorySink[<table>]".
  std::string Description() const override;

 private:
  std::shared_ptr<MemoryTables> tables_;
  std::string table_;
};

}  // namespace tributary::streaming
