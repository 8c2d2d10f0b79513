#include "exec/operator.h"

namespace tributary::exec {

Result<std::vector<RecordBatchPtr>> Drain(Operator& op) {
  std::vector<RecordBatchPtr> batches;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, op.Next());
    if (batch == nullptr) {
      return batches;
    }
    if (batch->NumRows() > 0) {
      batches.push_back(std::move(batch));
    }
  }
}

namespace {

void ExplainInto(const Operator& op, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(op.ToString());
  out->push_back('\n');
  for (const Operator* child : op.Children()) {
    ExplainInto(*child, depth + 1, out);
  }
}

}  // namespace

std::string Explain(const Operator& root) {
  std::string out;
  ExplainInto(root, 0, &out);
  return out;
}

}  // namespace tributary::exec
