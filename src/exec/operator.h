// Physical operators: the vectorized executors a plan compiles into.
//
// Execution is pull-based over record batches (Volcano on batches): the consumer calls Next()
// on the root, each operator pulls what it needs from its children and returns one batch of a
// few thousand rows, or nullptr at the end. The per-row work happens inside column kernels
// (expr::Evaluate, columnar::Take/Filter); an operator costs one virtual call per batch.
//
// Batches flowing between operators are immutable and shared; an operator never changes a
// batch it received. Operators that must hold everything before producing anything (hash
// aggregate, hash-join build side, sort) account their memory through ExecContext::pool.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "expr/evaluator.h"
#include "tributary/result.h"

namespace tributary::storage {
class FileSystem;
}

namespace tributary::exec {

using columnar::RecordBatchPtr;
using columnar::SchemaPtr;

/// Rows per batch that operators aim for when they build batches themselves (sort output,
/// aggregate output, joins). Scans pass on what the file reader produced.
inline constexpr int64_t kTargetBatchRows = 4096;

/// What every operator of one query shares. Owned by the caller; outlives the operators.
struct ExecContext {
  /// Session time zone, memory pool for evaluated columns, the query's current timestamp.
  expr::EvalContext eval;
  /// Where operator state (hash tables, sort buffers) is accounted.
  columnar::MemoryPool* pool = columnar::DefaultMemoryPool();
  /// Storage for scans; may be null when the plan has no file scan.
  storage::FileSystem* fs = nullptr;
  /// Threads the query may use. With more than one, InstantiateOperators reads a scan pipeline
  /// (a scan with the filters and projections above it) of several files on up to `threads`
  /// workers, a file each at a time (exec/parallel_scan.h), and runs up to threads - 1
  /// one-file scan pipelines that feed a join, a grouped aggregate or a sort, the first in pull
  /// order, each on a thread of its own ahead of its consumer (exec/read_ahead.h).
  int threads = 1;
};

/// A physical operator. Not thread-safe: one consumer pulls from it.
class Operator {
 public:
  virtual ~Operator() = default;

  /// Schema of every batch Next() returns.
  virtual const SchemaPtr& OutputSchema() const = 0;
  /// The next batch, or nullptr once the input is exhausted (and on every call after that).
  /// A batch may have zero rows only if it is the last one.
  virtual Result<RecordBatchPtr> Next() = 0;
  /// One line for EXPLAIN: "HashAggregate(keys=[a], aggs=[sum(b)])".
  virtual std::string ToString() const = 0;
  /// Children, for EXPLAIN.
  virtual std::vector<const Operator*> Children() const { return {}; }
};

using OperatorPtr = std::unique_ptr<Operator>;

/// Pulls every batch from `op` (skipping empty ones).
Result<std::vector<RecordBatchPtr>> Drain(Operator& op);

/// The operator tree as indented lines, root first.
std::string Explain(const Operator& root);

}  // namespace tributary::exec
