// Physical planning: a (resolved, optimized) logical plan becomes an immutable physical plan
// (exec/physical_plan.h), which is instantiated into a tree of exec operators.
// Choices made here: which side of a hash join is built (the smaller, by the metadata
// estimates below: "broadcast of the small side"), and how scans read their sources.

#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "exec/operator.h"
#include "exec/physical_plan.h"
#include "plan/logical_plan.h"

namespace tributary::plan {

/// The session setting that bounds the memory one query may hold (column buffers and operator
/// state): a number of bytes, or a Java byte string as Spark's memory settings take ("512m",
/// "4g"). Default: 80% of physical memory, or half the address-space limit (ulimit -v) when
/// that is lower.
inline constexpr std::string_view kQueryMemoryLimitKey = "spark.tributary.sql.queryMemoryLimit";

/// The memory of one query: a pool that counts every column buffer and every operator's state
/// the query allocates and refuses an allocation past the limit, so that a query that would
/// exhaust the machine (lpad('a', 2000000000)) ends with an error naming the limit and the
/// setting instead of being killed.
///
/// Columns the query returns may outlive this object: the pool itself lives until the last
/// buffer allocated from it is freed. Thread-safety: Pool() may be used from any thread.
class QueryMemory {
 public:
  /// A pool with the limit `config` sets under kQueryMemoryLimitKey (or the default);
  /// InvalidArgument when the setting is not a positive byte size.
  static Result<std::unique_ptr<QueryMemory>> Make(
      const std::map<std::string, std::string>& config);
  /// A pool refusing allocations past `limit_bytes`.
  static std::unique_ptr<QueryMemory> WithLimit(int64_t limit_bytes);
  ~QueryMemory();
  QueryMemory(const QueryMemory&) = delete;
  QueryMemory& operator=(const QueryMemory&) = delete;

  /// The query's pool. Valid while this object lives; buffers from it stay valid longer.
  columnar::MemoryPool* Pool() const;
  int64_t LimitBytes() const { return limit_bytes_; }
  /// Points `context`'s column and operator memory at Pool().
  void Attach(exec::ExecContext* context) const;

  /// The default limit (see kQueryMemoryLimitKey).
  static int64_t DefaultLimitBytes();

 private:
  class CountedPool;
  QueryMemory(CountedPool* pool, int64_t limit_bytes) : pool_(pool), limit_bytes_(limit_bytes) {}

  CountedPool* pool_;
  int64_t limit_bytes_;
};

/// The physical plan computing `plan` (immutable; instantiate it with
/// exec::InstantiateOperators, once or once per micro-batch). The scans are resolved here
/// through `context`: file schemas read through its file system, Delta files pruned with its
/// eval context. InvalidArgument for a streaming source, which only a started stream reads.
Result<exec::PhysicalNodePtr> BuildPhysicalPlan(const LogicalPlan& plan,
                                                const exec::ExecContext& context);

/// Operators computing `plan`: BuildPhysicalPlan, then exec::InstantiateOperators. `context`
/// must outlive them.
Result<exec::OperatorPtr> CreatePhysicalPlan(const LogicalPlan& plan,
                                             const exec::ExecContext& context);

/// A rough row count from metadata alone (Delta stats, file sizes, in-memory batches), for
/// choosing join sides; -1 when unknown.
int64_t EstimateRows(const LogicalPlan& plan);

}  // namespace tributary::plan
