#include "streaming/sink.h"

#include "plan/optimizer.h"
#include "plan/physical_planner.h"

namespace tributary::streaming {

Result<exec::OperatorPtr> MicroBatch::Execute() const {
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr optimized, plan::Optimize(plan, context->eval));
  return plan::CreatePhysicalPlan(*optimized, *context);
}

Result<std::vector<columnar::RecordBatchPtr>> MicroBatch::Collect() const {
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root, Execute());
  return exec::Drain(*root);
}

}  // namespace tributary::streaming
