#include "exec/parallel_scan.h"

#include <algorithm>

namespace tributary::exec {

ParallelScanOperator::ParallelScanOperator(OperatorPtr whole, std::vector<ScanPart> parts,
                                           int workers, OpenPart open, Reports reports)
    : whole_(std::move(whole)),
      schema_(whole_->OutputSchema()),
      parts_(std::move(parts)),
      num_parts_(parts_.size()),
      num_workers_(std::min(num_parts_, static_cast<size_t>(std::max(1, workers)))),
      open_(std::move(open)),
      reports_(std::move(reports)) {}

ParallelScanOperator::~ParallelScanOperator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& worker : workers_) {
    worker.join();
  }
}

void ParallelScanOperator::Work() {
  std::unique_lock lock(mutex_);
  while (true) {
    // A worker stays at most 2 x workers parts ahead of the consumer.
    changed_.wait(lock, [this] {
      return stopping_ || next_part_ >= std::min(num_parts_, failed_part_) ||
             next_part_ < current_ + 2 * num_workers_;
    });
    if (stopping_ || next_part_ >= std::min(num_parts_, failed_part_)) {
      return;
    }
    const size_t index = next_part_++;
    // Elements of a deque keep their address while others are added at the back or removed
    // from the front, so `part` stays valid until the consumer has taken it whole.
    Part& part = window_.emplace_back();
    lock.unlock();
    const bool go_on = ReadPart(index, part);
    lock.lock();
    if (!go_on) {
      return;
    }
  }
}

bool ParallelScanOperator::ReadPart(size_t index, Part& part) {
  ScanPart scan_part = parts_[index];
  scan_part.report = &part.report;
  Result<OperatorPtr> opened = open_(scan_part);
  Status status = opened.status();
  OperatorPtr pipeline = status.ok() ? std::move(*opened) : nullptr;
  while (status.ok()) {
    Result<RecordBatchPtr> batch = pipeline->Next();
    if (!batch.ok()) {
      status = batch.status();
      break;
    }
    if (*batch == nullptr) {
      break;
    }
    std::unique_lock lock(mutex_);
    if ((*batch)->NumRows() > 0) {
      part.rows += (*batch)->NumRows();
      part.batches.push_back(std::move(*batch));
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return stopping_ || index == current_ || part.rows < kAheadRows; });
    if (stopping_) {
      return false;
    }
  }
  // The part's files are closed on this thread, before the consumer learns the part is done.
  pipeline.reset();
  {
    std::lock_guard lock(mutex_);
    part.done = true;
    if (!status.ok()) {
      part.status = std::move(status);
      failed_part_ = std::min(failed_part_, index);
    }
  }
  changed_.notify_all();
  return true;
}

void ParallelScanOperator::PassOn(ScanPartReport report) {
  if (reports_.on_corrupt_file) {
    for (const auto& [path, error] : report.corrupt_files) {
      reports_.on_corrupt_file(path, error);
    }
  }
  for (std::string& name : report.unknown_fields) {
    if (std::find(unknown_fields_.begin(), unknown_fields_.end(), name) == unknown_fields_.end()) {
      unknown_fields_.push_back(std::move(name));
    }
  }
}

Result<RecordBatchPtr> ParallelScanOperator::Next() {
  if (finished_) {
    return RecordBatchPtr{};
  }
  if (!started_) {
    started_ = true;
    workers_.reserve(num_workers_);
    for (size_t i = 0; i < num_workers_; ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  }
  std::unique_lock lock(mutex_);
  while (current_ < num_parts_) {
    changed_.wait(lock, [this] {
      return !window_.empty() && (!window_.front().batches.empty() || window_.front().done);
    });
    Part& part = window_.front();
    if (!part.batches.empty()) {
      RecordBatchPtr batch = std::move(part.batches.front());
      part.batches.pop_front();
      part.rows -= batch->NumRows();
      lock.unlock();
      changed_.notify_all();
      return batch;
    }
    if (!part.status.ok()) {
      finished_ = true;
      return part.status;
    }
    ScanPartReport report = std::move(part.report);
    window_.pop_front();
    ++current_;
    lock.unlock();
    changed_.notify_all();
    PassOn(std::move(report));
    lock.lock();
  }
  lock.unlock();
  finished_ = true;
  if (!unknown_fields_.empty() && reports_.on_unknown_fields) {
    TRIBUTARY_RETURN_NOT_OK(reports_.on_unknown_fields(unknown_fields_));
  }
  return RecordBatchPtr{};
}

}  // namespace tributary::exec
