// Rewrite rules over resolved logical plans, applied in order by Optimize():
//   1. constant folding: deterministic subexpressions without column references are evaluated
//      once into literals;
//   2. predicate pushdown: filter conjuncts move below joins to the side(s) they reference
//      (as far as outer-join semantics allow), adjacent filters merge, and a filter directly
//      above a Delta scan is also handed to the scan for file skipping (partition values and
//      min/max/nullCount statistics; the filter itself stays to drop rows);
//   3. limit into sort: ORDER BY ... LIMIT n becomes a top-N sort;
//   4. projection pushdown (column pruning): every node keeps only the columns something above
//      it uses, down to the scans, which then decode only those columns.

#pragma once

#include "expr/evaluator.h"
#include "plan/logical_plan.h"

namespace tributary::plan {

/// The optimized equivalent of `plan` (same output columns and rows).
Result<LogicalPlanPtr> Optimize(const LogicalPlanPtr& plan, const expr::EvalContext& context = {});

}  // namespace tributary::plan
