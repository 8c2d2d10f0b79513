#include "exec/read_ahead.h"

#include <algorithm>

#include "exec/parallel_scan.h"

namespace tributary::exec {

ReadAheadOperator::ReadAheadOperator(OperatorPtr input, int depth)
    : input_(std::move(input)),
      schema_(input_->OutputSchema()),
      depth_(static_cast<size_t>(std::max(1, depth))) {}

ReadAheadOperator::~ReadAheadOperator() {
  if (producer_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    producer_.join();
  }
}

void ReadAheadOperator::Produce() {
  while (true) {
    Result<RecordBatchPtr> batch = input_->Next();
    const bool last = !batch.ok() || *batch == nullptr;
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return stopping_ || ready_.size() < depth_; });
    if (stopping_) {
      return;
    }
    ready_.push_back(std::move(batch));
    lock.unlock();
    changed_.notify_all();
    if (last) {
      return;
    }
  }
}

Result<RecordBatchPtr> ReadAheadOperator::Next() {
  if (finished_) {
    return RecordBatchPtr{};
  }
  if (!started_) {
    started_ = true;
    producer_ = std::thread([this] { Produce(); });
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !ready_.empty(); });
  Result<RecordBatchPtr> batch = std::move(ready_.front());
  ready_.pop_front();
  lock.unlock();
  changed_.notify_all();
  if (!batch.ok() || *batch == nullptr) {
    finished_ = true;
  }
  return batch;
}

OperatorPtr AheadOfWriter(OperatorPtr root, const ExecContext& context) {
  if (context.threads <= 1 || dynamic_cast<const ParallelScanOperator*>(root.get()) != nullptr) {
    return root;
  }
  return std::make_unique<ReadAheadOperator>(std::move(root), kReadAheadDepth);
}

}  // namespace tributary::exec
