// Aggregate functions as exec runs them: an aggregate call of a plan, and the accumulator
// interface each function family implements (one file per family in this folder). The
// functions' names and result types are expr/aggregate_signatures.h; MakeAccumulator picks the
// implementation for the signature a call names.

#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "columnar/memory_pool.h"
#include "expr/aggregate_signatures.h"
#include "expr/bound_expression.h"
#include "tributary/result.h"

namespace tributary::exec {

using columnar::ColumnPtr;
using columnar::DataTypePtr;
using columnar::MemoryPool;
using expr::AggregateResultType;

/// One aggregate function call of a GROUP BY. Names are those of expr/aggregate_signatures.h
/// (case-insensitive, aliases included).
struct AggregateCall {
  std::string function;
  /// Bound against the aggregate's input schema; count(*) has none. first/last/any_value take
  /// an optional second argument, a boolean literal: ignoreNulls (Default: false, as Spark);
  /// approx_count_distinct an optional numeric literal: relativeSD (Default: 0.05); percentile,
  /// percentile_approx, percentile_cont and percentile_disc a constant percentage (or array of
  /// them) second; percentile_approx an optional constant accuracy (Default: 10000);
  /// histogram_numeric a constant number of bins.
  std::vector<expr::BoundExprPtr> arguments;
  /// count(DISTINCT ...), sum(DISTINCT ...): each distinct argument tuple counts once per group.
  bool distinct = false;
};

/// Describes group `g` for error messages ("(k=3)").
using GroupNamer = std::function<std::string(int32_t)>;

/// The running state of one aggregate call over all groups of a hash aggregate: per-group
/// arrays that grow with Resize, updated one batch at a time (one virtual call per batch; the
/// per-row loops are typed inside the implementation). Allocates from the pool it was made
/// with. Not thread-safe.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  /// Makes room for groups 0..groups-1 (new groups start empty).
  virtual Status Resize(int64_t groups) = 0;
  /// Folds `rows` rows of `args` into the groups `groups[i]`.
  virtual Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                        const GroupNamer& namer) = 0;
  /// One value per group, of `type`.
  virtual Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer& namer,
                                   MemoryPool* pool) = 0;
  /// Appends the state of `group` to `out`, for a streaming aggregation to keep it in a state
  /// store between micro-batches (one call per group saved; batch queries never call it). An
  /// accumulator made from the same call reads it back with DeserializeState. The bytes of
  /// each family are a grammar at the top of its file; values are in native byte order
  /// (little-endian on every platform tributary builds for), values of any type in the
  /// grouping encoding of exec/row_key.h.
  virtual Status SerializeState(int32_t group, std::string* out) const = 0;
  /// Sets the state of `group` (within Resize, not yet updated) to what SerializeState wrote;
  /// Corruption when `bytes` are not exactly such a state.
  virtual Status DeserializeState(int32_t group, std::string_view bytes) = 0;
};

/// The function that folds partial results of `call` (one row per group from each of several
/// aggregations of parts of the input) into the value one aggregation of the whole input gives,
/// exactly and with the same type: count's counts are summed, integral sums summed, min and max
/// taken again. Empty for the others: DISTINCT, floating sums and averages (a different order
/// of additions rounds differently), decimal sums (their type would widen again), and the rest.
std::string MergingFunction(const AggregateCall& call, const columnar::DataType& result);

/// The accumulator computing `call` (DISTINCT included), allocating from `pool`.
/// `value_arguments` receives how many leading arguments are evaluated per batch and passed to
/// Update (constant arguments such as first/last's ignoreNulls, approx_count_distinct's
/// relativeSD or percentile's percentages are read here). InvalidArgument for an unknown function,
/// argument types AggregateResultType rejects, or a literal argument that is not a literal of the
/// right type.
Result<std::unique_ptr<Accumulator>> MakeAccumulator(const AggregateCall& call, MemoryPool* pool,
                                                     size_t* value_arguments);

}  // namespace tributary::exec
