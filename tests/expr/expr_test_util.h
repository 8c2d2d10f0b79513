// Binds and evaluates an expression over a batch built from JSON, returning canonical texts.

#pragma once

#include <string>
#include <vector>

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

}  // namespace tributary::expr
