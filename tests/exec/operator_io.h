// Helpers for the exec tests: bound column references, batch sources, rows as canonical JSON.

#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "exec/physical_plan.h"
#include "exec/relational_operators.h"
#include "expr/bound_expression.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::exec {

/// `expression` bound against `schema`; fails the test when binding fails.
inline expr::BoundExprPtr BindOrDie(const expr::ExprPtr& expression,
                                    const columnar::Schema& schema) {
  auto bound = expr::Bind(*expression, schema);
  EXPECT_TRUE(bound.ok()) << bound.status().ToString();
  return bound.ok() ? *bound : nullptr;
}

inline expr::BoundExprPtr ColumnRef(const columnar::Schema& schema, std::string_view name) {
  return BindOrDie(expr::Col(name), schema);
}

/// A plan node returning `batches`.
inline PhysicalNodePtr Source(columnar::SchemaPtr schema, std::vector<RecordBatchPtr> batches) {
  return std::make_shared<ValuesNode>(std::move(schema), std::move(batches));
}

/// The operators of `plan`; fails the test when instantiation fails.
inline OperatorPtr Instantiate(const PhysicalNodePtr& plan, const ExecContext& context) {
  auto op = InstantiateOperators(plan, context);
  EXPECT_TRUE(op.ok()) << op.status().ToString();
  return op.ok() ? std::move(*op) : nullptr;
}

/// Every row `op` produces, as canonical JSON, in output order.
inline Result<std::vector<std::string>> RowsOf(Operator& op) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, Drain(op));
  std::vector<std::string> rows;
  for (const RecordBatchPtr& batch : batches) {
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

inline std::vector<std::string> Sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// Splits `batch` into batches of at most `rows` rows (so operators see several batches).
inline std::vector<RecordBatchPtr> Split(const RecordBatchPtr& batch, int64_t rows) {
  std::vector<RecordBatchPtr> out;
  for (int64_t begin = 0; begin < batch->NumRows(); begin += rows) {
    const int64_t count = std::min(rows, batch->NumRows() - begin);
    std::vector<int64_t> indices;
    for (int64_t i = 0; i < count; ++i) {
      indices.push_back(begin + i);
    }
    std::vector<columnar::ColumnPtr> columns;
    for (const columnar::ColumnPtr& column : batch->Columns()) {
      columns.push_back(*columnar::Take(*column, indices));
    }
    out.push_back(*columnar::RecordBatch::Make(batch->Schema(), count, std::move(columns)));
  }
  return out;
}

/// A column of `type` from optional values (nullopt = null); T is int64_t, double or
/// std::string.
template <typename T>
columnar::ColumnPtr MakeColumn(columnar::DataTypePtr type,
                               const std::vector<std::optional<T>>& values) {
  columnar::ColumnBuilder builder(std::move(type));
  for (const std::optional<T>& value : values) {
    if (!value) {
      builder.AppendNull();
      continue;
    }
    // A chain of its own: a runtime `if` ahead of it would leave clone-looking empty branches
    // in each instantiation (bugprone-branch-clone).
    if constexpr (std::is_same_v<T, double>) {
      builder.AppendDouble(*value);
    } else if constexpr (std::is_same_v<T, std::string>) {
      builder.AppendBytes(*value);
    } else if constexpr (std::is_same_v<T, bool>) {
      builder.AppendBoolean(*value);
    } else {
      builder.AppendInt(*value);
    }
  }
  return *builder.Finish();
}

}  // namespace tributary::exec
