// MemoryStream: a stream whose rows a program adds while a query runs (Spark's MemoryStream),
// for tests and examples. Each AddData call appends one block of record batches; offsets count
// blocks ({"offset":N}: every block up to the N-th, from 0). The blocks live in the process
// only: a restarted process cannot replay them, as with Spark's.

#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "columnar/record_batch.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// The rows a program feeds to streaming queries.
///
/// Thread-safety: every method may be called from any thread.
class MemoryStream {
 public:
  /// Every block must have `schema`'s column names and types.
  explicit MemoryStream(columnar::SchemaPtr schema);

  const columnar::SchemaPtr& Schema() const { return schema_; }

  /// Appends `batches` as one block and returns its offset. InvalidArgument naming the column
  /// when a batch's columns differ from the schema (names, types, or nulls in a column declared
  /// NOT NULL); nothing is added then.
  Result<Offset> AddData(const std::vector<columnar::RecordBatchPtr>& batches);

  /// Index of the newest block, nullopt while there is none.
  std::optional<int64_t> LatestBlock() const;

  /// The batches of blocks first..last (inclusive). InvalidArgument when some were discarded
  /// (committed) or never added.
  Result<std::vector<columnar::RecordBatchPtr>> Blocks(int64_t first, int64_t last) const;

  /// Forgets blocks up to `last` (they are in the sink). Offsets stay as they were.
  void DiscardThrough(int64_t last);

  /// A source definition reading this stream (the definition keeps it alive).
  static std::shared_ptr<const SourceDefinition> Definition(std::shared_ptr<MemoryStream> stream);

 private:
  columnar::SchemaPtr schema_;
  mutable std::mutex mutex_;
  /// blocks_[i] is block first_block_ + i.
  std::vector<std::vector<columnar::RecordBatchPtr>> blocks_;
  int64_t first_block_ = 0;
};

}  // namespace tributary::streaming
