// Physical planning: a (resolved, optimized) logical plan becomes a tree of exec operators.
// Choices made here: which side of a hash join is built (the smaller, by the metadata
// estimates below: "broadcast of the small side"), and how scans read their sources.

#pragma once

#include "exec/operator.h"
#include "plan/logical_plan.h"

namespace tributary::plan {

/// Operators computing `plan`. `context` must outlive them.
Result<exec::OperatorPtr> CreatePhysicalPlan(const LogicalPlan& plan,
                                             const exec::ExecContext& context);

/// A rough row count from metadata alone (Delta stats, file sizes, in-memory batches), for
/// choosing join sides; -1 when unknown.
int64_t EstimateRows(const LogicalPlan& plan);

}  // namespace tributary::plan
