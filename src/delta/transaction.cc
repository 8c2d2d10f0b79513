// Commit file written by a transaction (PROTOCOL.md "Delta Log Entries"), one action per line
// in this order:
//
//   commitInfo   {"timestamp":ms,"operation":s,"operationParameters":{...},"isBlindAppend":b,
//                 "engineInfo":s,"txnId":uuid,"readVersion":v?}
//   [protocol]   {"minReaderVersion":r,"minWriterVersion":w,["readerFeatures"],["writerFeatures"]}
//   [metaData]   {"id","format":{"provider":"parquet","options":{}},"schemaString",
//                 "partitionColumns","configuration","createdTime"}
//   *txn         {"appId","version","lastUpdated"}
//   *domainMetadata {"domain","configuration","removed"}
//   *remove      {"path","deletionTimestamp","dataChange","extendedFileMetadata":true,
//                 "partitionValues","size"[,"deletionVector"]}
//   *add         {"path","partitionValues","size","modificationTime","dataChange","stats"
//                 [,"deletionVector"]}
//   *cdc         {"path","partitionValues","size","dataChange":false[,"tags"]}

#include "delta/transaction.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/crash_point.h"
#include "common/uuid.h"
#include "delta/checkpoint_writer.h"
#include "delta/log_cleanup.h"
#include "delta/log_segment.h"
#include "storage/path.h"

namespace tributary::delta {

using nlohmann::json;

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json PartitionsJson(const PartitionValues& values) {
  json out = json::object();
  for (const auto& [key, value] : values) {
    out[key] = value ? json(*value) : json();
  }
  return out;
}

json DeletionVectorJson(const DeletionVectorDescriptor& dv) {
  json out = {{"storageType", dv.storage_type},
              {"pathOrInlineDv", dv.path_or_inline_dv},
              {"sizeInBytes", dv.size_in_bytes},
              {"cardinality", dv.cardinality}};
  if (dv.offset) {
    out["offset"] = *dv.offset;
  }
  return out;
}

// delta.isolationLevel of the table read (Delta's DeltaConfigs.ISOLATION_LEVEL), when
// `explicit_level` does not set one.
IsolationLevel ResolveIsolation(const std::optional<IsolationLevel>& explicit_level,
                                const Snapshot* snapshot) {
  if (explicit_level) {
    return *explicit_level;
  }
  if (snapshot != nullptr) {
    const auto& config = snapshot->GetMetadata().configuration;
    auto it = config.find("delta.isolationLevel");
    if (it != config.end() && it->second == "Serializable") {
      return IsolationLevel::kSerializable;
    }
  }
  return IsolationLevel::kWriteSerializable;
}

bool IsDataFileOf(const std::string& path, const std::vector<delta::AddFile>& files) {
  for (const auto& f : files) {
    if (f.path == path) {
      return true;
    }
  }
  return false;
}

// Whether this writer can keep the table's protocol promises (PROTOCOL.md "Writer Requirements"):
// features it does not implement are refused, never silently ignored.
Status CheckWritable(const Snapshot& snapshot) {
  const Protocol& p = snapshot.GetProtocol();
  const std::string& root = snapshot.TableRoot();
  if (p.min_writer_version > 7) {
    return Status::NotImplemented(
        fmt::format("{}: unsupported minWriterVersion {}", root, p.min_writer_version));
  }
  static const std::vector<std::string> kSupported = {
      // invariants: enforced per column, refused below when a column has one. v2Checkpoint:
      // checkpoints are classic-named V2 ones (with checkpointMetadata), which the protocol
      // allows for compatibility.
      "appendOnly",          "invariants",      "timestampNtz", "domainMetadata",
      "vacuumProtocolCheck", "deletionVectors", "v2Checkpoint", "changeDataFeed"};
  if (p.writer_features) {
    for (const std::string& feature : *p.writer_features) {
      if (std::find(kSupported.begin(), kSupported.end(), feature) == kSupported.end()) {
        return Status::NotImplemented(
            fmt::format("{}: writing tables with feature '{}' is not supported", root, feature));
      }
    }
  }
  const auto& config = snapshot.GetMetadata().configuration;
  for (const auto& [key, value] : config) {
    // delta.enableChangeDataFeed: appends, overwrites and OPTIMIZE need no change data files
    // (readers derive the changes from their adds and removes); row-level changes write them
    // (CommitRowChanges).
    const bool active = (key == "delta.columnMapping.mode" && value != "none") ||
                        (key == "delta.enableInCommitTimestamps" && value == "true") ||
                        (key == "delta.enableRowTracking" && value == "true") ||
                        key.rfind("delta.constraints.", 0) == 0;
    if (active) {
      return Status::NotImplemented(
          fmt::format("{}: writing tables with '{}' = '{}' is not supported", root, key, value));
    }
  }
  for (const auto& field : snapshot.Schema()->Fields()) {
    for (const auto& [key, value] : field.Metadata()) {
      if (key == "delta.invariants" || key == "delta.generationExpression" ||
          key.rfind("delta.identity.", 0) == 0) {
        return Status::NotImplemented(
            fmt::format("{}: column '{}' has '{}', which this writer does not enforce", root,
                        field.Name(), key));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Transaction::Transaction(storage::FileSystem& fs, std::string table_root,
                         std::shared_ptr<const Snapshot> snapshot, TransactionOptions options)
    : fs_(fs),
      table_root_(std::move(table_root)),
      snapshot_(std::move(snapshot)),
      options_(std::move(options)),
      isolation_(ResolveIsolation(options_.isolation, snapshot_.get())),
      txn_id_(NewUuid()) {}

Result<std::unique_ptr<Transaction>> Transaction::Begin(storage::FileSystem& fs,
                                                        std::string table_root,
                                                        TransactionOptions options) {
  std::shared_ptr<const Snapshot> snapshot;
  auto loaded = Snapshot::Load(fs, table_root);
  if (loaded.ok()) {
    snapshot = std::move(*loaded);
  } else if (!loaded.status().IsNotFound()) {
    return loaded.status();
  }
  return Begin(fs, std::move(table_root), std::move(snapshot), std::move(options));
}

Result<std::unique_ptr<Transaction>> Transaction::Begin(storage::FileSystem& fs,
                                                        std::string table_root,
                                                        std::shared_ptr<const Snapshot> snapshot,
                                                        TransactionOptions options) {
  if (snapshot) {
    TRIBUTARY_RETURN_NOT_OK(CheckWritable(*snapshot));
  }
  return std::unique_ptr<Transaction>(
      new Transaction(fs, std::move(table_root), std::move(snapshot), std::move(options)));
}

void Transaction::SetTransaction(std::string app_id, int64_t version) {
  txns_[std::move(app_id)] = version;
}

void Transaction::SetDomainMetadata(std::string domain, std::string configuration) {
  DomainMetadata& d = domains_[domain];
  d.domain = std::move(domain);
  d.configuration = std::move(configuration);
  d.removed = false;
}

void Transaction::RemoveDomainMetadata(std::string domain) {
  DomainMetadata& d = domains_[domain];
  d.domain = std::move(domain);
  d.configuration.clear();
  d.removed = true;
}

void Transaction::ReadWholeTable() {
  read_whole_table_ = true;
}

void Transaction::ReadPartitions(std::function<bool(const PartitionValues&)> predicate) {
  read_predicate_ = std::move(predicate);
}

void Transaction::ReadFiles(std::vector<std::string> paths,
                            std::function<bool(const delta::AddFile&)> could_match) {
  read_files_set_ = true;
  read_files_.insert(read_files_.end(), std::make_move_iterator(paths.begin()),
                     std::make_move_iterator(paths.end()));
  std::sort(read_files_.begin(), read_files_.end());
  could_match_ = std::move(could_match);
}

void Transaction::SetOperation(std::string operation,
                               std::map<std::string, std::string> parameters) {
  operation_ = std::move(operation);
  operation_parameters_ = std::move(parameters);
}

bool Transaction::IsBlindAppend() const {
  return removes_.empty() && !read_whole_table_ && !read_predicate_ && !read_files_set_ &&
         !metadata_ && !protocol_;
}

std::string Transaction::Serialize() const {
  std::string out;
  json parameters = json::object();
  for (const auto& [key, value] : operation_parameters_) {
    parameters[key] = value;
  }
  json commit_info = {
      {"timestamp", NowMillis()},
      {"operation", operation_},
      {"operationParameters", parameters},
      {"isolationLevel",
       isolation_ == IsolationLevel::kSerializable ? "Serializable" : "WriteSerializable"},
      {"isBlindAppend", IsBlindAppend()},
      {"engineInfo", options_.engine_info},
      {"txnId", txn_id_}};
  if (snapshot_) {
    commit_info["readVersion"] = snapshot_->Version();
  }
  if (!operation_metrics_.empty()) {
    commit_info["operationMetrics"] = operation_metrics_;
  }
  out += json({{"commitInfo", commit_info}}).dump() + "\n";
  if (protocol_) {
    json p = {{"minReaderVersion", protocol_->min_reader_version},
              {"minWriterVersion", protocol_->min_writer_version}};
    if (protocol_->reader_features) {
      p["readerFeatures"] = *protocol_->reader_features;
    }
    if (protocol_->writer_features) {
      p["writerFeatures"] = *protocol_->writer_features;
    }
    out += json({{"protocol", p}}).dump() + "\n";
  }
  if (metadata_) {
    json m = {{"id", metadata_->id},
              {"format", {{"provider", metadata_->format_provider}, {"options", json::object()}}},
              {"schemaString", metadata_->schema_string},
              {"partitionColumns", metadata_->partition_columns},
              {"configuration", metadata_->configuration}};
    if (metadata_->name) {
      m["name"] = *metadata_->name;
    }
    if (metadata_->description) {
      m["description"] = *metadata_->description;
    }
    if (metadata_->created_time) {
      m["createdTime"] = *metadata_->created_time;
    }
    out += json({{"metaData", m}}).dump() + "\n";
  }
  for (const auto& [app_id, version] : txns_) {
    out += json({{"txn", {{"appId", app_id}, {"version", version}, {"lastUpdated", NowMillis()}}}})
               .dump() +
           "\n";
  }
  for (const auto& [domain, d] : domains_) {
    out +=
        json({{"domainMetadata",
               {{"domain", domain}, {"configuration", d.configuration}, {"removed", d.removed}}}})
            .dump() +
        "\n";
  }
  const int64_t now = NowMillis();
  for (const delta::RemoveFile& r : removes_) {
    json rm = {{"path", EncodeUriPath(r.path)},
               {"deletionTimestamp", r.deletion_timestamp.value_or(now)},
               {"dataChange", r.data_change},
               {"extendedFileMetadata", true},
               {"partitionValues", PartitionsJson(r.partition_values)}};
    if (r.size) {
      rm["size"] = *r.size;
    }
    if (r.deletion_vector) {
      rm["deletionVector"] = DeletionVectorJson(*r.deletion_vector);
    }
    out += json({{"remove", rm}}).dump() + "\n";
  }
  for (const delta::AddFile& a : adds_) {
    json add = {{"path", EncodeUriPath(a.path)},
                {"partitionValues", PartitionsJson(a.partition_values)},
                {"size", a.size},
                {"modificationTime", a.modification_time},
                {"dataChange", a.data_change}};
    if (a.stats) {
      add["stats"] = *a.stats;
    }
    if (!a.tags.empty()) {
      add["tags"] = a.tags;
    }
    if (a.deletion_vector) {
      add["deletionVector"] = DeletionVectorJson(*a.deletion_vector);
    }
    out += json({{"add", add}}).dump() + "\n";
  }
  for (const delta::AddCdcFile& c : cdcs_) {
    json cdc = {{"path", EncodeUriPath(c.path)},
                {"partitionValues", PartitionsJson(c.partition_values)},
                {"size", c.size},
                {"dataChange", false}};
    if (!c.tags.empty()) {
      cdc["tags"] = c.tags;
    }
    out += json({{"cdc", cdc}}).dump() + "\n";
  }
  return out;
}

Status Transaction::CheckConflict(int64_t version, const std::vector<Action>& winner) const {
  auto conflict = [&](std::string_view reason) {
    return Status::Conflict(
        fmt::format("{}: transaction that read version {} conflicts with version {}: {}",
                    table_root_, ReadVersion(), version, reason));
  };
  bool winner_blind = false;
  for (const Action& a : winner) {
    if (a.commit_info) {
      json info = json::parse(*a.commit_info, nullptr, false);
      if (info.is_object()) {
        auto it = info.find("isBlindAppend");
        winner_blind = it != info.end() && it->is_boolean() && it->get<bool>();
      }
    }
  }
  for (const Action& a : winner) {
    if (a.protocol) {
      return conflict("the protocol changed (ProtocolChangedException)");
    }
    if (a.metadata) {
      return conflict(ReadVersion() < 0 ? "the table was created concurrently"
                                        : "the metadata changed (MetadataChangedException)");
    }
    if (a.txn && txns_.count(a.txn->app_id)) {
      return conflict(
          fmt::format("application '{}' committed concurrently (ConcurrentTransactionException)",
                      a.txn->app_id));
    }
    if (a.domain_metadata && domains_.count(a.domain_metadata->domain)) {
      return conflict(fmt::format("both changed domain '{}' (domain metadata conflict)",
                                  a.domain_metadata->domain));
    }
    if (a.add && a.add->data_change) {
      const bool checked = isolation_ == IsolationLevel::kSerializable || !winner_blind;
      const bool read_it = read_whole_table_ ||
                           (read_predicate_ && read_predicate_(a.add->partition_values)) ||
                           (read_files_set_ && (!could_match_ || could_match_(*a.add)));
      if (checked && read_it) {
        return conflict(
            fmt::format("it added {} which this transaction should have read "
                        "(ConcurrentAppendException)",
                        a.add->path));
      }
    }
    if (a.remove) {
      // Spark's ConflictChecker checks the files read before the files both removed.
      const bool read_it =
          snapshot_ &&
          (read_whole_table_ || (read_predicate_ && read_predicate_(a.remove->partition_values))) &&
          IsDataFileOf(a.remove->path, snapshot_->Files());
      const bool read_file =
          read_files_set_ &&
          std::binary_search(read_files_.begin(), read_files_.end(), a.remove->path);
      if (read_it || read_file) {
        return conflict(
            fmt::format("it removed {} which this transaction read "
                        "(ConcurrentDeleteReadException)",
                        a.remove->path));
      }
      for (const delta::RemoveFile& mine : removes_) {
        if (mine.path == a.remove->path) {
          return conflict(
              fmt::format("both removed {} (ConcurrentDeleteDeleteException)", a.remove->path));
        }
      }
    }
  }
  return Status::OK();
}

void Transaction::MaybeCheckpoint(int64_t version) const {
  const Metadata* metadata = metadata_   ? &*metadata_
                             : snapshot_ ? &snapshot_->GetMetadata()
                                         : nullptr;
  if (metadata == nullptr || version == 0 || version % CheckpointInterval(*metadata) != 0) {
    return;
  }
  // The commit stands whatever happens here: a missing checkpoint only slows readers down,
  // the next interval writes one again, and cleanup can wait for the next checkpoint.
  // From the snapshot this transaction read, only the commits since are read.
  auto snapshot = snapshot_ ? Snapshot::Update(fs_, snapshot_, version)
                            : Snapshot::Load(fs_, table_root_, version);
  if (snapshot.ok() && WriteCheckpoint(fs_, **snapshot).ok()) {
    (void)CleanUpExpiredLogs(fs_, **snapshot, NowMillis());
  }
}

Result<int64_t> Transaction::Commit() {
  if (snapshot_ && snapshot_->GetMetadata().configuration.count("delta.appendOnly") &&
      snapshot_->GetMetadata().configuration.at("delta.appendOnly") == "true") {
    for (const delta::RemoveFile& r : removes_) {
      if (r.data_change) {
        return Status::InvalidArgument(
            fmt::format("{}: the table is append-only (delta.appendOnly); cannot remove {}",
                        table_root_, r.path));
      }
    }
  }
  if (ReadVersion() < 0 && (!metadata_ || !protocol_)) {
    return Status::InvalidArgument(
        fmt::format("{}: the first commit of a table needs protocol and metaData", table_root_));
  }
  if (!domains_.empty()) {
    const Protocol& protocol = protocol_ ? *protocol_ : snapshot_->GetProtocol();
    const auto& features = protocol.writer_features;
    if (!features ||
        std::find(features->begin(), features->end(), "domainMetadata") == features->end()) {
      return Status::InvalidArgument(fmt::format(
          "{}: domain metadata ('{}') needs the domainMetadata table feature, which the table "
          "does not support",
          table_root_, domains_.begin()->first));
    }
  }
  const std::string log_dir = storage::JoinPath(table_root_, "_delta_log");
  const std::string text = Serialize();
  int64_t version = ReadVersion() + 1;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    const std::string path = CommitPath(log_dir, version);
    Status st = fs_.WriteFile(path, text, storage::WriteMode::kPutIfAbsent);
    if (st.ok()) {
      CrashPoint("delta.after_commit");
      MaybeCheckpoint(version);
      return version;
    }
    if (!st.IsAlreadyExists()) {
      // The outcome is unknown (FileSystem guarantee 5): the commit may have landed.
      auto landed = fs_.ReadFile(path);
      if (landed.ok() && *landed == text) {
        MaybeCheckpoint(version);
        return version;
      }
      return st.WithContext(fmt::format("committing version {}", version));
    }
    // Lost the race: check every commit that won since, then try after the newest.
    while (true) {
      auto winner_text = fs_.ReadFile(CommitPath(log_dir, version));
      if (!winner_text.ok()) {
        if (winner_text.status().IsNotFound()) {
          break;  // `version` is free again in our view: retry it
        }
        return winner_text.status();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto winner,
                                ParseCommit(*winner_text, CommitPath(log_dir, version)));
      TRIBUTARY_RETURN_NOT_OK(CheckConflict(version, winner));
      ++version;
    }
  }
  return Status::Conflict(fmt::format("{}: gave up after {} attempts; the table is too contended",
                                      table_root_, options_.max_attempts));
}

}  // namespace tributary::delta
