#include "exec/streaming_join.h"

namespace tributary::exec {

StreamingJoinOperator::StreamingJoinOperator(std::shared_ptr<const StreamingJoinNode> node,
                                             OperatorPtr left, OperatorPtr right,
                                             const ExecContext& context)
    : node_(std::move(node)), left_(std::move(left)), right_(std::move(right)), context_(context) {}

Result<RecordBatchPtr> StreamingJoinOperator::Next() {
  (void)context_;
  return Status::NotImplemented("stream-stream join operator");
}

}  // namespace tributary::exec
