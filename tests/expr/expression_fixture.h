// Binds and evaluates an expression over a batch built from JSON, returning canonical texts.

#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "expr/evaluator.h"
#include "support/batch_from_json.h"

namespace tributary::expr {

inline Result<std::vector<std::string>> EvalToJson(const ExprPtr& expr,
                                                   const columnar::RecordBatch& batch,
                                                   const EvalContext& context = {}) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto bound, Bind(*expr, *batch.Schema()));
  TRIBUTARY_ASSIGN_OR_RAISE(auto column, Evaluate(*bound, batch, context));
  if (column->Length() != batch.NumRows() || !column->Type()->SameShape(*bound->Type())) {
    return Status::Internal("result column does not match the bound expression");
  }
  TRIBUTARY_RETURN_NOT_OK(column->ValidateFull());
  std::vector<std::string> values;
  for (int64_t i = 0; i < column->Length(); ++i) {
    std::string text;
    columnar::AppendCanonicalJsonValue(*column, i, &text);
    values.push_back(std::move(text));
  }
  return values;
}

using Strings = std::vector<std::string>;

inline ExprPtr IntLit(int32_t value) {
  return Lit(Scalar::Int32(value));
}
inline ExprPtr StrLit(std::string value) {
  return Lit(Scalar::String(std::move(value)));
}

/// A fixture evaluating expressions over one batch (`batch_`, set by the test's SetUp).
class BatchExpressionTest : public ::testing::Test {
 protected:
  Strings Eval(const ExprPtr& expr, const EvalContext& context = {}) {
    auto result = EvalToJson(expr, *batch_, context);
    EXPECT_TRUE(result.ok()) << expr->ToString() << ": " << result.status();
    return result.ok() ? *result : Strings{};
  }
  /// The error evaluating `expr` (OK when it succeeds).
  Status EvalError(const ExprPtr& expr, const EvalContext& context = {}) {
    return EvalToJson(expr, *batch_, context).status();
  }

  columnar::RecordBatchPtr batch_;
};

}  // namespace tributary::expr
