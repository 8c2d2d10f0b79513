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

}  // namespace

// Replay state, filled newest action first: the first action seen for a key wins.
struct Snapshot::Replay {
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

// Applies the state of a snapshot older than every commit applied so far: what those commits
// did not override stays.
namespace {

void ApplyOlderSnapshot(Snapshot::Replay& replay, const Snapshot& older) {
  if (!replay.protocol) {
    replay.protocol = older.GetProtocol();
  }
  if (!replay.metadata) {
    replay.metadata = older.GetMetadata();
  }
  // Replay.files is newest first: the older snapshot's files go after, newest of them first.
  const std::vector<AddFile>& files = older.Files();
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if (replay.seen_files.insert(FileKey(it->path, it->deletion_vector)).second) {
      replay.files.push_back(*it);
    }
  }
  for (const RemoveFile& remove : older.Tombstones()) {
    if (replay.seen_files.insert(FileKey(remove.path, remove.deletion_vector)).second) {
      replay.tombstones.push_back(remove);
    }
  }
  for (const auto& [app_id, version] : older.Transactions()) {
    replay.transactions.emplace(app_id, version);
  }
  for (const auto& [domain, configuration] : older.Domains()) {
    if (replay.seen_domains.insert(domain).second) {
      replay.domains.emplace(domain, configuration);
    }
  }
}

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

namespace {

// Applies the checkpoint of `segment` (all parts, and the sidecars of a V2 one) to `replay`.
Status ApplyCheckpoint(storage::FileSystem& fs, const std::string& table_root,
                       const LogSegment& segment, Snapshot::Replay& replay) {
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
              TRIBUTARY_RETURN_NOT_OK(
                  ReadCheckpointFile(fs, storage::JoinPath(sidecars, action.sidecar->path), apply));
            }
          }
          replay.Apply(actions);
          return Status::OK();
        }));
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(storage::FileSystem& fs,
                                                       const std::string& table_root,
                                                       std::optional<int64_t> version) {
  TRIBUTARY_ASSIGN_OR_RAISE(LogSegment segment, BuildLogSegment(fs, table_root, version));
  // A checkpoint that cannot be read (truncated, corrupt, a sidecar gone) is only a shortcut:
  // as Delta, replay from an older checkpoint, or from version 0, when the commits for that
  // exist. Transient I/O errors are passed on.
  Status checkpoint_error;
  while (true) {
    Replay replay;
    for (auto it = segment.commits.rbegin(); it != segment.commits.rend(); ++it) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(it->path));
      TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, it->path));
      replay.Apply(actions);
    }
    Status applied = ApplyCheckpoint(fs, table_root, segment, replay);
    if (applied.ok()) {
      return Finish(std::move(replay), table_root, std::move(segment));
    }
    if (applied.IsIOError()) {
      return applied;
    }
    if (checkpoint_error.ok()) {
      checkpoint_error = applied;
    }
    Result<LogSegment> older =
        BuildLogSegment(fs, table_root, segment.version, segment.checkpoint_version);
    if (!older.ok()) {
      return checkpoint_error.WithContext(fmt::format(
          "{} at version {}: the checkpoint of version {} is unreadable and no older checkpoint "
          "or complete run of commits replaces it ({})",
          table_root, segment.version, segment.checkpoint_version, older.status().Message()));
    }
    segment = *std::move(older);
  }
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Update(
    storage::FileSystem& fs, const std::shared_ptr<const Snapshot>& previous,
    std::optional<int64_t> version) {
  const std::string& table_root = previous->TableRoot();
  if (version && *version < previous->Version()) {
    return Load(fs, table_root, version);
  }
  const std::string log_dir = storage::JoinPath(table_root, "_delta_log");
  TRIBUTARY_ASSIGN_OR_RAISE(LogListing listing, ListLog(fs, log_dir, previous->Version() + 1));
  std::vector<LogFile> commits;
  for (const LogFile& commit : listing.commits) {
    if (commit.version > previous->Version() && (!version || commit.version <= *version)) {
      commits.push_back(commit);
    }
  }
  if (commits.empty()) {
    if (version && *version != previous->Version()) {
      return Load(fs, table_root, version);  // names the missing version
    }
    return previous;
  }
  for (size_t i = 0; i < commits.size(); ++i) {
    if (commits[i].version != previous->Version() + 1 + static_cast<int64_t>(i)) {
      return Load(fs, table_root, version);  // a gap: let the full replay decide
    }
  }
  Replay replay;
  for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(it->path));
    TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, it->path));
    replay.Apply(actions);
  }
  ApplyOlderSnapshot(replay, *previous);
  LogSegment segment = previous->Segment();
  segment.version = commits.back().version;
  segment.commits.insert(segment.commits.end(), commits.begin(), commits.end());
  return Finish(std::move(replay), table_root, std::move(segment));
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Finish(Replay replay,
                                                         const std::string& table_root,
                                                         LogSegment segment) {
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
