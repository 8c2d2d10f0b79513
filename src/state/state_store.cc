// The RocksDB state store: see state_store.h for versions and the checkpoint layout.

#include "state/state_store.h"

#include <charconv>
#include <cstdlib>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "storage/path.h"

namespace tributary::state {

namespace {

/// The positive integer `settings[key]`, or nullopt when absent.
Result<std::optional<int64_t>> PositiveSetting(const std::map<std::string, std::string>& settings,
                                               const char* key) {
  const auto found = settings.find(key);
  if (found == settings.end()) {
    return std::optional<int64_t>();
  }
  const std::string& text = found->second;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
    return Status::InvalidArgument(
        fmt::format("{} must be a positive integer, got '{}'", key, text));
  }
  return std::optional<int64_t>(value);
}

}  // namespace

Result<StateStoreConf> StateStoreConf::FromSessionConfig(
    const std::map<std::string, std::string>& settings) {
  StateStoreConf conf;
  TRIBUTARY_ASSIGN_OR_RAISE(auto min_deltas, PositiveSetting(settings, kMinDeltasForSnapshotKey));
  if (min_deltas.has_value()) {
    conf.min_deltas_for_snapshot = *min_deltas;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto retain, PositiveSetting(settings, kMinBatchesToRetainKey));
  if (retain.has_value()) {
    conf.min_batches_to_retain = *retain;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto cache_mb, PositiveSetting(settings, kBlockCacheSizeMbKey));
  if (cache_mb.has_value()) {
    conf.block_cache_bytes = *cache_mb << 20;
  }
  const auto local_dir = settings.find(kLocalDirKey);
  if (local_dir != settings.end()) {
    conf.local_dir = local_dir->second;
  }
  return conf;
}

std::string StatePartitionDir(const std::string& checkpoint, int64_t operator_id,
                              int32_t partition_id) {
  return storage::JoinPath(
      storage::JoinPath(storage::JoinPath(checkpoint, "state"), std::to_string(operator_id)),
      std::to_string(partition_id));
}

class StateStoreProvider::Impl {
 public:
  std::string checkpoint_dir;
  std::string local_dir;
};

StateStoreProvider::StateStoreProvider(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateStoreProvider::~StateStoreProvider() = default;

Result<std::unique_ptr<StateStoreProvider>> StateStoreProvider::Open(
    storage::FileSystem* /*fs*/, std::string checkpoint_location, int64_t operator_id,
    int32_t partition_id, StateStoreConf /*conf*/) {
  auto impl = std::make_unique<Impl>();
  impl->checkpoint_dir = StatePartitionDir(checkpoint_location, operator_id, partition_id);
  return std::unique_ptr<StateStoreProvider>(new StateStoreProvider(std::move(impl)));
}

Result<std::unique_ptr<VersionedStateStore>> StateStoreProvider::Load(int64_t /*version*/) {
  return Status::NotImplemented("state store: Load is being written");
}

const std::string& StateStoreProvider::CheckpointDir() const {
  return impl_->checkpoint_dir;
}
const std::string& StateStoreProvider::LocalDir() const {
  return impl_->local_dir;
}

Status WriteOperatorMetadata(storage::FileSystem* /*fs*/, const std::string& /*checkpoint*/,
                             const OperatorStateMetadata& /*metadata*/) {
  return Status::NotImplemented("state store: operator metadata is being written");
}

Result<std::optional<OperatorStateMetadata>> ReadOperatorMetadata(storage::FileSystem* /*fs*/,
                                                                  const std::string& /*checkpoint*/,
                                                                  int64_t /*operator_id*/) {
  return Status::NotImplemented("state store: operator metadata is being written");
}

}  // namespace tributary::state
