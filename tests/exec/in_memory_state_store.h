// An exec::StateStore test double: one partition's state in a std::map (keys in byte order, as
// the interface requires), for testing the stateful operators without the state layer.

#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/stateful_operator.h"

namespace tributary::exec {

class InMemoryStateStore final : public StateStore {
 public:
  Result<std::optional<std::string>> Get(std::string_view key) override {
    auto it = rows_.find(std::string(key));
    if (it == rows_.end()) {
      return std::optional<std::string>();
    }
    return std::optional<std::string>(it->second);
  }
  Status Put(std::string_view key, std::string_view value) override {
    rows_[std::string(key)] = std::string(value);
    return Status::OK();
  }
  Status Remove(std::string_view key) override {
    rows_.erase(std::string(key));
    return Status::OK();
  }
  Status ForEach(
      const std::function<Status(std::string_view key, std::string_view value)>& visit) override {
    // A copy, so writes made by `visit` are not seen by this iteration.
    const std::map<std::string, std::string> snapshot = rows_;
    for (const auto& [key, value] : snapshot) {
      TRIBUTARY_RETURN_NOT_OK(visit(key, value));
    }
    return Status::OK();
  }
  int64_t NumKeys() const override { return static_cast<int64_t>(rows_.size()); }
  int64_t MemoryUsedBytes() const override {
    int64_t bytes = 0;
    for (const auto& [key, value] : rows_) {
      bytes += static_cast<int64_t>(key.size() + value.size());
    }
    return bytes;
  }

  const std::map<std::string, std::string>& Rows() const { return rows_; }

 private:
  std::map<std::string, std::string> rows_;
};

/// `count` in-memory partitions and a runtime pointing at them; the stores outlive batches, as
/// committed state does.
struct InMemoryPartitions {
  explicit InMemoryPartitions(int count)
      : stores(static_cast<size_t>(count)), runtime(std::make_shared<StatefulOperatorRuntime>()) {
    for (InMemoryStateStore& store : stores) {
      runtime->partitions.push_back(&store);
    }
  }
  std::vector<InMemoryStateStore> stores;
  std::shared_ptr<StatefulOperatorRuntime> runtime;
};

}  // namespace tributary::exec
