// Helpers shared by plan_builder.cc and the planning rules split out of it
// (window_planning.cc); internal to the plan layer.

#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace tributary::plan::internal {

/// `name#index`: the internal name of column `index` of `plan`, which ExactColumn reads.
std::string InternalName(const LogicalPlan& plan, int index);

/// `node` with other children (same op, name, literal, type, DISTINCT and OVER clause).
ExprPtr Rebuild(const expr::Expression& node, std::vector<ExprPtr> children);

/// `input` with the event-time window column the expressions `*exprs` call for (window(...):
/// tumbling as a scalar, sliding as an explode; session_window(...): the rows with a session),
/// and the calls in `*exprs` rewritten to read it (Spark's TimeWindowing/SessionWindowing).
Result<LogicalPlanPtr> PlanTimeWindow(LogicalPlanPtr input, const std::vector<ExprPtr*>& exprs);

/// Binds an expression over the input of the node being planned.
using BindOverInput = std::function<Result<BoundExprPtr>(const expr::Expression&)>;

/// `input` with a WindowNode computing the window calls in `*items` (each bound through `bind`,
/// over `input`) on top; the items then read the window node's columns instead. `input`
/// itself when the items have no window call.
Result<LogicalPlanPtr> PlanWindows(LogicalPlanPtr input, const std::vector<ExprPtr*>& items,
                                   const BindOverInput& bind);

}  // namespace tributary::plan::internal
