#include "streaming/memory_sink.h"

#include <utility>

namespace tributary::streaming {

bool MemoryTables::Append(const std::string& name, int64_t batch_id, columnar::SchemaPtr schema,
                          const std::vector<columnar::RecordBatchPtr>& rows, bool replace) {
  std::lock_guard lock(mutex_);
  MemoryTable& table = tables_[name];
  if (batch_id <= table.last_batch_id) {
    return false;
  }
  table.schema = std::move(schema);
  if (replace) {
    table.batches.clear();
  }
  table.batches.insert(table.batches.end(), rows.begin(), rows.end());
  table.last_batch_id = batch_id;
  return true;
}

std::optional<MemoryTable> MemoryTables::Find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return std::nullopt;
  }
  return it->second;
}

MemorySink::MemorySink(std::shared_ptr<MemoryTables> tables, std::string table)
    : tables_(std::move(tables)), table_(std::move(table)) {}

Result<int64_t> MemorySink::AddBatch(const MicroBatch& batch) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto rows, batch.Collect());
  int64_t count = 0;
  for (const auto& b : rows) {
    count += b->NumRows();
  }
  if (!tables_->Append(table_, batch.batch_id, batch.plan->Schema(), rows,
                       batch.output_mode == exec::OutputMode::kComplete)) {
    return 0;  // a re-run batch: already appended
  }
  return count;
}

std::string MemorySink::Description() const {
  return "MemorySink[" + table_ + "]";
}

}  // namespace tributary::streaming
