// Data skipping: which files of a snapshot can hold rows matching a predicate, from partition
// values (exact) and per-file statistics (min/max/nullCount; PROTOCOL.md "Per-file
// Statistics"). A file is skipped only when its metadata proves no row can match.

#pragma once

#include <functional>
#include <vector>

#include "delta/snapshot.h"
#include "expr/evaluator.h"
#include "expr/expression.h"

namespace tributary::delta {

/// The live files of `snapshot` that may hold rows for which `predicate` (over the table's
/// logical columns) is true, in snapshot order. Files without statistics are kept; so are all
/// files when the predicate cannot be judged from metadata. Errors come from binding the
/// predicate (unknown column, type mismatch) or from unreadable partition values.
Result<std::vector<const AddFile*>> PruneFiles(const Snapshot& snapshot,
                                               const expr::Expression& predicate,
                                               const expr::EvalContext& context = {});

/// `predicate` over partition columns only, as a test of one file's partition values (null
/// counts as false). InvalidArgument when the predicate references a data column.
Result<std::function<bool(const PartitionValues&)>> PartitionPredicate(
    const columnar::Schema& schema, const std::vector<std::string>& partition_columns,
    const expr::ExprPtr& predicate, const expr::EvalContext& context = {});

}  // namespace tributary::delta
