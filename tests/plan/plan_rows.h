// What the plan tests share: a plan over one in-memory batch, and the rows a plan gives when
// it runs, so a test can compare an optimized plan's rows with the original's.

#pragma once

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "exec/operator.h"
#include "plan/logical_plan.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "storage/file_system.h"

namespace tributary::testing {

/// A scan of `batch` named "values", qualified `v`.
inline plan::LogicalPlanPtr ValuesPlan(const columnar::SchemaPtr& schema,
                                       const columnar::RecordBatchPtr& batch) {
  plan::ScanSource source;
  source.kind = plan::ScanSource::Kind::kValues;
  source.schema = schema;
  source.batches = {batch};
  source.description = "values";
  return plan::Scan(std::move(source), "v");
}

/// The rows `plan` gives, as canonical JSON in output order (a failure is a test failure and
/// no rows).
inline std::vector<std::string> RunPlan(const plan::LogicalPlan& plan, storage::FileSystem* fs) {
  exec::ExecContext context;
  context.fs = fs;
  auto root = plan::CreatePhysicalPlan(plan, context);
  EXPECT_TRUE(root.ok()) << root.status().ToString();
  if (!root.ok()) {
    return {};
  }
  auto batches = exec::Drain(**root);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<std::string> rows;
  for (const auto& batch : batches.ok() ? *batches : std::vector<columnar::RecordBatchPtr>{}) {
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace tributary::testing
