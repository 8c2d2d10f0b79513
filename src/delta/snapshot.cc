#include "delta/snapshot.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "delta/checkpoint_reader.h"
#include "delta/schema_json.h"
#include "storage/path.h"

namespace tributary::delta {
namespace {

std::string FileKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
  return dv ? path + '\x1f' + dv->UniqueId() : path;
}

// Replay state, filled newest action first: the first action seen for a key wins.
struct Replay {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::unordered_set<std::string> seen_files;
  std::vector<AddFile> files;
  std::vector<RemoveFile> tombstones;
  std::map<std::string, int64_t> transactions;
  std::set<std::string> seen_domains;
  std::map<std::string, std::string> domains;

  void Apply(std::vector<Action>& actions) {
    // Within one commit every key appears at most once per action type; an add and a remove of
    // the same key cannot both be live, so applying the commit in reverse order keeps the
    // newest-first rule.
    for (auto it = actions.rbegin(); it != actions.rend(); ++it) {
      Action& a = *it;
      if (a.protocol && !protocol) {
        protocol = std::move(a.protocol);
      }
      if (a.metadata && !metadata) {
        metadata = std::move(a.metadata);
      }
      if (a.add) {
        if (seen_files.insert(FileKey(a.add->path, a.add->deletion_vector)).second) {
          files.push_back(std::move(*a.add));
        }
      }
      if (a.remove) {
        if (seen_files.insert(FileKey(a.remove->path, a.remove->deletion_vector)).second) {
          tombstones.push_back(std::move(*a.remove));
        }
      }
      if (a.txn && !transactions.count(a.txn->app_id)) {
        transactions[a.txn->app_id] = a.txn->version;
      }
      if (a.domain_metadata && seen_domains.insert(a.domain_metadata->domain).second &&
          !a.domain_metadata->removed) {
        domains[a.domain_metadata->domain] = a.domain_metadata->configuration;
      }
    }
  }
};

Status CheckProtocol(const Protocol& protocol, const std::string& table_root, int64_t version) {
  if (protocol.min_reader_version < 1 || protocol.min_reader_version > 3) {
    return Status::NotImplemented(
        fmt::format("{} at version {}: unreadable: unsupported minReaderVersion {}", table_root,
                    version, protocol.min_reader_version));
  }
  if (protocol.min_reader_version == 3) {
    if (!protocol.reader_features) {
      return Status::Corruption(fmt::format(
          "{} at version {}: reader version 3 without readerFeatures", table_root, version));
    }
    const auto& supported = Snapshot::SupportedReaderFeatures();
    for (const std::string& feature : *protocol.reader_features) {
      if (std::find(supported.begin(), supported.end(), feature) == supported.end()) {
        return Status::NotImplemented(
            fmt::format("{} at version {}: unreadable: unsupported reader feature '{}'", table_root,
                        version, feature));
      }
    }
  }
  return Status::OK();
}

}  // namespace

const std::vector<std::string>& Snapshot::SupportedReaderFeatures() {
  static const std::vector<std::string> kFeatures = {
      "columnMapping",        "deletionVectors", "timestampNtz",       "typeWidening",
      "typeWidening-preview", "v2Checkpoint",    "vacuumProtocolCheck"};
  return kFeatures;
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(storage::FileSystem& fs,
                                                       const std::string& table_root,
                                                       std::optional<int64_t> version) {
  TRIBUTARY_ASSIGN_OR_RAISE(LogSegment segment, BuildLogSegment(fs, table_root, version));
  Replay replay;
  for (auto it = segment.commits.rbegin(); it != segment.commits.rend(); ++it) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(it->path));
    TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, it->path));
    replay.Apply(actions);
  }
  if (!segment.checkpoint.empty()) {
    // Checkpoint actions are applied a slice at a time (each part, each V2 sidecar) so that a
    // checkpoint's actions are never all held at once.
    const std::string sidecars =
        storage::JoinPath(storage::JoinPath(table_root, "_delta_log"), "_sidecars");
    auto apply = [&replay](std::vector<Action>& actions) {
      replay.Apply(actions);
      return Status::OK();
    };
    for (const LogFile& part : segment.checkpoint) {
      TRIBUTARY_RETURN_NOT_OK(
          ReadCheckpointFile(fs, part.path, [&](std::vector<Action>& actions) -> Status {
            for (const Action& action : actions) {
              if (action.sidecar) {
                TRIBUTARY_RETURN_NOT_OK(ReadCheckpointFile(
                    fs, storage::JoinPath(sidecars, action.sidecar->path), apply));
              }
            }
            replay.Apply(actions);
            return Status::OK();
          }));
    }
  }
  if (!replay.protocol) {
    return Status::Corruption(fmt::format("{} at version {}: no protocol action in the log",
                                          table_root, segment.version));
  }
  if (!replay.metadata) {
    return Status::Corruption(fmt::format("{} at version {}: no metaData action in the log",
                                          table_root, segment.version));
  }
  TRIBUTARY_RETURN_NOT_OK(CheckProtocol(*replay.protocol, table_root, segment.version));
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->table_root_ = table_root;
  snapshot->version_ = segment.version;
  snapshot->protocol_ = std::move(*replay.protocol);
  snapshot->metadata_ = std::move(*replay.metadata);
  auto schema = ParseSchemaString(snapshot->metadata_.schema_string);
  if (!schema.ok()) {
    return schema.status().WithContext(
        fmt::format("{} at version {}", table_root, segment.version));
  }
  snapshot->schema_ = std::move(*schema);
  auto mode = snapshot->metadata_.configuration.find("delta.columnMapping.mode");
  if (mode != snapshot->metadata_.configuration.end()) {
    if (mode->second == "name") {
      snapshot->mapping_mode_ = ColumnMappingMode::kName;
    } else if (mode->second == "id") {
      snapshot->mapping_mode_ = ColumnMappingMode::kId;
    } else if (mode->second != "none") {
      return Status::NotImplemented(
          fmt::format("{}: column mapping mode '{}'", table_root, mode->second));
    }
  }
  // Replay collected files newest first; keep the log's order for callers.
  std::reverse(replay.files.begin(), replay.files.end());
  snapshot->files_ = std::move(replay.files);
  snapshot->tombstones_ = std::move(replay.tombstones);
  snapshot->transactions_ = std::move(replay.transactions);
  snapshot->domains_ = std::move(replay.domains);
  snapshot->segment_ = std::move(segment);
  return std::shared_ptr<const Snapshot>(std::move(snapshot));
}

std::shared_ptr<const Snapshot> Snapshot::WithFiles(std::vector<AddFile> files) const {
  auto derived = std::make_shared<Snapshot>(*this);
  derived->files_ = std::move(files);
  derived->tombstones_.clear();
  return derived;
}

}  // namespace tributary::delta
