#include "streaming/stream_execution.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "common/ascii.h"
#include "common/crash_point.h"
#include "common/thread_count.h"
#include "common/uuid.h"
#include "delta/snapshot.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "storage/local_path.h"
#include "streaming/schema_change.h"

namespace tributary::streaming {
namespace {

/// `status` with `context` prepended, except a schema change: that asks for a restart and is
/// reported once, in its own one-line words (a pipeline prints it as it restarts the stream).
Status ContextUnlessSchemaChanged(const Status& status, std::string_view context) {
  return IsSchemaChange(status) ? status : status.WithContext(context);
}

using Clock = std::chrono::steady_clock;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t ElapsedMs(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

/// Every StreamingRelation of the plan, in plan order (depth first, inputs left to right), each
/// once: the numbering of `sources/<n>` and of the offset lines.
void CollectStreams(const plan::LogicalPlan& node,
                    std::vector<std::shared_ptr<const SourceDefinition>>& out) {
  if (node.Kind() == plan::PlanKind::kScan) {
    const auto& scan = static_cast<const plan::ScanNode&>(node);
    if (scan.Source().kind == plan::ScanSource::Kind::kStream) {
      auto definition = std::dynamic_pointer_cast<const SourceDefinition>(scan.Source().stream);
      for (const auto& seen : out) {
        if (seen == definition) {
          return;
        }
      }
      out.push_back(std::move(definition));
    }
    return;
  }
  for (const plan::LogicalPlanPtr& input : node.Inputs()) {
    CollectStreams(*input, out);
  }
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) {
    return "unknown host";
  }
  return name;
}

/// "a: bigint, b: string", for one-line messages.
std::string FieldList(const columnar::Schema& schema) {
  std::string out;
  for (const columnar::Field& field : schema.Fields()) {
    out += (out.empty() ? "" : ", ") + field.Name() + ": " + field.Type()->ToString();
  }
  return out;
}

}  // namespace

std::string FormatIsoTimestamp(int64_t epoch_ms) {
  // Floored, so an instant before 1970 (an event time, a watermark) keeps its second and a
  // millisecond field in [0, 999].
  const std::time_t seconds = static_cast<std::time_t>(columnar::FloorDiv(epoch_ms, 1000));
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     columnar::FloorMod(epoch_ms, 1000));
}

StreamExecution::StreamExecution(plan::LogicalPlanPtr plan, std::unique_ptr<Sink> sink,
                                 QueryOptions options, std::shared_ptr<storage::FileSystem> fs)
    : plan_(std::move(plan)),
      sink_(std::move(sink)),
      options_(std::move(options)),
      fs_(std::move(fs)),
      checkpoint_(fs_.get(), options_.checkpoint_location),
      run_id_(NewUuid()) {
  status_.message = "Initializing sources";
}

Result<std::shared_ptr<StreamExecution>> StreamExecution::Start(
    plan::LogicalPlanPtr plan, std::unique_ptr<Sink> sink, QueryOptions options,
    std::shared_ptr<storage::FileSystem> fs) {
  // Every check at the start, never at batch 57 (Spark's UnsupportedOperationChecker).
  TRIBUTARY_RETURN_NOT_OK(CheckStreamingPlan(*plan, options.output_mode));
  if (options.checkpoint_location.empty()) {
    return Status::InvalidArgument("a streaming query needs a checkpointLocation");
  }
  // A local path or an object store URI; what must be local (the lock, RocksDB stores) lives in
  // the checkpoint's local working directory (Checkpoint::LocalDir).
  auto local = storage::StoragePath(options.checkpoint_location);
  if (!local.ok()) {
    return local.status().WithContext("checkpointLocation");
  }
  options.checkpoint_location = std::move(*local);
  std::shared_ptr<StreamExecution> query(
      new StreamExecution(std::move(plan), std::move(sink), std::move(options), std::move(fs)));
  TRIBUTARY_RETURN_NOT_OK(query->Open());
  query->thread_ = std::thread([raw = query.get()] { raw->Run(); });
  return query;
}

StreamExecution::~StreamExecution() {
  Stop();
}

Status StreamExecution::Open() {
  const std::string& location = options_.checkpoint_location;
  TRIBUTARY_RETURN_NOT_OK(fs_->CreateDir(location));
  const std::string who =
      options_.name.empty() ? std::string("a query") : fmt::format("query '{}'", options_.name);
  TRIBUTARY_ASSIGN_OR_RAISE(
      CheckpointLock lock,
      CheckpointLock::Acquire(checkpoint_.LocalDir(),
                              fmt::format("{} (run {}), pid {} on {}, since {}", who, run_id_,
                                          ::getpid(), HostName(), FormatIsoTimestamp(NowMs()))));
  lock_.emplace(std::move(lock));
  requests_reported_ = fs_->RequestCounts();
  TRIBUTARY_ASSIGN_OR_RAISE(stateful_, PlanStatefulOperators(plan_, options_.output_mode));
  plan_ = stateful_.plan;

  std::vector<std::shared_ptr<const SourceDefinition>> definitions;
  CollectStreams(*plan_, definitions);
  std::vector<std::string> identities;
  for (const auto& definition : definitions) {
    if (definition == nullptr) {
      return Status::Internal("a streaming scan without a source definition");
    }
    identities.push_back(definition->Identity());
  }

  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<CheckpointMetadata> metadata, checkpoint_.ReadMetadata());
  if (metadata) {
    // Spark's checkpoints carry no source list; ours must match, or this is another query.
    if (!metadata->sources.empty() && metadata->sources != identities) {
      return Status::InvalidArgument(fmt::format(
          "checkpoint {} belongs to another query: it read [{}], this query reads [{}]. Use a "
          "new checkpointLocation for a different query",
          location, fmt::join(metadata->sources, ", "), fmt::join(identities, ", ")));
    }
    if (!metadata->sink.empty() && metadata->sink != sink_->Description()) {
      return Status::InvalidArgument(fmt::format(
          "checkpoint {} belongs to another query: it wrote to {}, this query writes to {}. Use "
          "a new checkpointLocation for a different query",
          location, metadata->sink, sink_->Description()));
    }
    id_ = metadata->id;
  } else {
    CheckpointMetadata created{NewUuid(), identities, sink_->Description()};
    TRIBUTARY_RETURN_NOT_OK(checkpoint_.WriteMetadata(created));
    id_ = created.id;
  }
  TRIBUTARY_RETURN_NOT_OK(checkpoint_.ClaimLocalDir(id_));

  for (size_t i = 0; i < definitions.size(); ++i) {
    SourceContext context;
    context.fs = fs_.get();
    context.checkpoint_location = location;
    context.source_index = static_cast<int>(i);
    context.metadata_dir = checkpoint_.SourceDir(context.source_index);
    context.local_dir = checkpoint_.SourceLocalDir(context.source_index);
    context.eval = options_.eval;
    context.session_config = options_.session_config;
    TRIBUTARY_RETURN_NOT_OK(fs_->CreateDir(context.metadata_dir));
    std::error_code created;
    if (!std::filesystem::create_directories(context.local_dir, created) && created) {
      return Status::IOError(fmt::format("creating {}: {}", context.local_dir, created.message()));
    }
    auto source = definitions[i]->Open(context);
    if (!source.ok()) {
      return source.status().WithContext(
          fmt::format("opening source {} ({})", i, definitions[i]->Description()));
    }
    sources_.push_back(
        {definitions[i], std::move(*source), std::make_shared<std::atomic<int64_t>>(0)});
  }
  committed_.assign(sources_.size(), std::nullopt);

  // Recovery (Spark's populateStartOffsets).
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<int64_t> latest_offsets, checkpoint_.LatestOffsetBatch());
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<int64_t> latest_commit, checkpoint_.LatestCommitBatch());
  if (!latest_offsets) {
    next_batch_id_ = 0;
    return OpenState(std::nullopt);
  }
  const int64_t last = *latest_offsets;
  TRIBUTARY_ASSIGN_OR_RAISE(OffsetSeq last_offsets, checkpoint_.ReadOffsets(last));
  if (last_offsets.offsets.size() != sources_.size()) {
    return Status::InvalidArgument(fmt::format(
        "checkpoint {}: offsets/{} records {} sources, this query has {}; it belongs to another "
        "query",
        location, last, last_offsets.offsets.size(), sources_.size()));
  }
  if (latest_commit && *latest_commit >= last) {
    committed_ = last_offsets.offsets;
    next_batch_id_ = last + 1;
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t next_watermark, checkpoint_.ReadCommitWatermark(last));
    watermark_ms_ = std::max(last_offsets.batch_watermark_ms, next_watermark);
    last_batch_watermark_ms_ = last_offsets.batch_watermark_ms;
  } else {
    if (last > 0) {
      auto previous = checkpoint_.ReadOffsets(last - 1);
      if (!previous.ok()) {
        return previous.status().WithContext(fmt::format(
            "checkpoint {}: batch {} is uncommitted and the offsets of batch {} it starts from "
            "are missing",
            location, last, last - 1));
      }
      committed_ = previous->offsets;
      last_batch_watermark_ms_ = previous->batch_watermark_ms;
    }
    // The re-run batch uses the watermark it recorded.
    watermark_ms_ = last_offsets.batch_watermark_ms;
    next_batch_id_ = last;
    pending_batch_ = last_offsets;
  }
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (committed_[i]) {
      TRIBUTARY_RETURN_NOT_OK(sources_[i].source->Commit(*committed_[i]));
    }
  }
  return OpenState(last_offsets);
}

Status StreamExecution::OpenState(const std::optional<OffsetSeq>& recorded) {
  const std::map<std::string, std::string>& session = options_.session_config;
  if (auto it = session.find(std::string(kMultipleWatermarkPolicyKey)); it != session.end()) {
    const std::string policy = AsciiLower(it->second);
    if (policy != "min" && policy != "max") {
      return Status::InvalidArgument(fmt::format("{} must be 'min' or 'max', got '{}'",
                                                 kMultipleWatermarkPolicyKey, it->second));
    }
    max_watermark_policy_ = policy == "max";
  }
  if (auto it = session.find(std::string(kNoDataMicroBatchesKey)); it != session.end()) {
    no_data_batches_ = AsciiLower(it->second) != "false";
  }
  point_watermarks_ms_.assign(stateful_.watermarks.size(), std::nullopt);
  if (stateful_.operators.empty()) {
    return Status::OK();
  }
  // The number of state partitions is the checkpoint's for its whole life (Spark restores
  // the offset log's conf over the session's): every key's state lives in one of them.
  std::string partitions_text = kDefaultStatePartitions;
  if (recorded && recorded->conf.count(std::string(kShufflePartitionsKey)) > 0) {
    partitions_text = recorded->conf.at(std::string(kShufflePartitionsKey));
  } else if (auto it = session.find(std::string(kShufflePartitionsKey)); it != session.end()) {
    partitions_text = it->second;
  }
  int32_t partitions = 0;
  const auto [end, error] = std::from_chars(
      partitions_text.data(), partitions_text.data() + partitions_text.size(), partitions);
  if (error != std::errc() || end != partitions_text.data() + partitions_text.size() ||
      partitions <= 0) {
    return Status::InvalidArgument(fmt::format("{} must be a positive integer, got '{}'",
                                               kShufflePartitionsKey, partitions_text));
  }
  num_state_partitions_ = partitions;
  TRIBUTARY_ASSIGN_OR_RAISE(state::StateStoreConf conf,
                            state::StateStoreConf::FromSessionConfig(session));
  const std::string& location = options_.checkpoint_location;
  providers_.clear();
  for (size_t id = 0; id < stateful_.operators.size(); ++id) {
    const StatefulOperator& op = stateful_.operators[id];
    const auto operator_id = static_cast<int64_t>(id);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<state::OperatorStateMetadata> existing,
                              state::ReadOperatorMetadata(fs_.get(), location, operator_id));
    if (existing) {
      if (existing->operator_name != op.name || existing->num_partitions != partitions ||
          existing->key_schema->NumFields() != op.key_schema->NumFields() ||
          existing->value_schema->NumFields() != op.value_schema->NumFields()) {
        return Status::InvalidArgument(fmt::format(
            "checkpoint {}: stateful operator {} was {} over {} partitions with key ({}) and "
            "value ({}); this query has {} over {} partitions with key ({}) and value ({}). "
            "A query's stateful operators cannot change for the life of its checkpoint: use a "
            "new checkpointLocation",
            location, operator_id, existing->operator_name, existing->num_partitions,
            FieldList(*existing->key_schema), FieldList(*existing->value_schema), op.name,
            partitions, FieldList(*op.key_schema), FieldList(*op.value_schema)));
      }
    } else {
      state::OperatorStateMetadata metadata;
      metadata.operator_id = operator_id;
      metadata.operator_name = op.name;
      metadata.num_partitions = partitions;
      metadata.key_schema = op.key_schema;
      metadata.value_schema = op.value_schema;
      TRIBUTARY_RETURN_NOT_OK(state::WriteOperatorMetadata(fs_.get(), location, metadata));
    }
    std::vector<std::unique_ptr<state::StateStoreProvider>> partition_providers;
    for (int32_t p = 0; p < partitions; ++p) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          std::unique_ptr<state::StateStoreProvider> provider,
          state::StateStoreProvider::Open(fs_.get(), location, operator_id, p, conf));
      partition_providers.push_back(std::move(provider));
    }
    providers_.push_back(std::move(partition_providers));
  }
  return Status::OK();
}

Status StreamExecution::LoadState(
    int64_t batch_id, const OffsetSeq& offsets,
    std::vector<std::vector<std::unique_ptr<state::VersionedStateStore>>>* stores) {
  const bool has_watermark = !stateful_.watermarks.empty();
  for (WatermarkPoint& point : stateful_.watermarks) {
    point.stats->Reset();
  }
  stores->clear();
  for (size_t id = 0; id < stateful_.operators.size(); ++id) {
    exec::StatefulOperatorRuntime& runtime = *stateful_.operators[id].runtime;
    std::vector<std::unique_ptr<state::VersionedStateStore>> loaded;
    runtime.partitions.clear();
    for (const auto& provider : providers_[id]) {
      auto store = provider->Load(batch_id);
      if (!store.ok()) {
        return store.status().WithContext(
            fmt::format("batch {}, loading the state of operator {}", batch_id, id));
      }
      runtime.partitions.push_back(store->get());
      loaded.push_back(std::move(*store));
    }
    stores->push_back(std::move(loaded));
    runtime.output_mode = options_.output_mode;
    // Batch N loads version N: what an operator keeps in memory is valid for that version.
    runtime.state_version = batch_id;
    runtime.metrics = {};
  }
  // Spark 3.5: late rows are judged by the previous batch's watermark, state is evicted by
  // this batch's, each propagated to the operator through the ones below it.
  if (has_watermark) {
    SetOperatorWatermarks(stateful_, last_batch_watermark_ms_, offsets.batch_watermark_ms);
  } else {
    SetOperatorWatermarks(stateful_, std::nullopt, std::nullopt);
  }
  return Status::OK();
}

int64_t StreamExecution::AdvanceWatermark() {
  std::optional<int64_t> combined;
  for (size_t i = 0; i < stateful_.watermarks.size(); ++i) {
    const WatermarkPoint& point = stateful_.watermarks[i];
    const exec::EventTimeStats::Snapshot seen = point.stats->Get();
    if (seen.count > 0) {
      // Spark works in milliseconds: max event time (ms) - delay (ms).
      const int64_t candidate =
          columnar::FloorDiv(seen.max, 1000) - columnar::FloorDiv(point.delay_micros, 1000);
      std::optional<int64_t>& current = point_watermarks_ms_[i];
      current = current ? std::max(*current, candidate) : candidate;
    }
    // Points that never saw a row do not hold the others back (Spark's WatermarkTracker).
    if (point_watermarks_ms_[i]) {
      const int64_t value = *point_watermarks_ms_[i];
      combined = !combined               ? value
                 : max_watermark_policy_ ? std::max(*combined, value)
                                         : std::min(*combined, value);
    }
  }
  if (combined && *combined > watermark_ms_) {
    watermark_ms_ = *combined;
  }
  return watermark_ms_;
}

bool StreamExecution::NeedsNoDataBatch() const {
  if (!no_data_batches_ || !last_batch_watermark_ms_ ||
      watermark_ms_ <= *last_batch_watermark_ms_) {
    return false;
  }
  return WatermarkAdvancesState(stateful_, *last_batch_watermark_ms_, watermark_ms_);
}

bool StreamExecution::IsActive() const {
  std::lock_guard lock(mutex_);
  return active_;
}

void StreamExecution::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) {
    thread_.join();
  }
}

bool StreamExecution::AwaitTermination(std::optional<std::chrono::milliseconds> timeout) {
  std::unique_lock lock(mutex_);
  if (timeout) {
    return changed_.wait_for(lock, *timeout, [&] { return !active_; });
  }
  changed_.wait(lock, [&] { return !active_; });
  return true;
}

Status StreamExecution::ProcessAllAvailable() {
  std::unique_lock lock(mutex_);
  // Only a trigger that starts after this call proves the data present now was processed: one
  // that listed its sources before the data arrived may still end with "no new data".
  const int64_t request = ++process_all_requests_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return caught_up_through_ >= request || !active_; });
  return exception_;
}

std::optional<StreamingQueryProgress> StreamExecution::LastProgress() const {
  std::lock_guard lock(mutex_);
  if (recent_progress_.empty()) {
    return std::nullopt;
  }
  return recent_progress_.back();
}

std::vector<StreamingQueryProgress> StreamExecution::RecentProgress() const {
  std::lock_guard lock(mutex_);
  return {recent_progress_.begin(), recent_progress_.end()};
}

bool StreamExecution::StoppedBySchemaChange() const {
  std::lock_guard lock(mutex_);
  return IsSchemaChange(exception_);
}

Status StreamExecution::Exception() const {
  std::lock_guard lock(mutex_);
  return exception_;
}

StreamingQueryStatus StreamExecution::CurrentStatus() const {
  std::lock_guard lock(mutex_);
  return status_;
}

void StreamExecution::SetStatus(std::string message, bool data_available, bool trigger_active) {
  std::lock_guard lock(mutex_);
  status_.message = std::move(message);
  status_.is_data_available = data_available;
  status_.is_trigger_active = trigger_active;
}

void StreamExecution::WaitUntil(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  // A pending ProcessAllAvailable starts the next trigger now, even before a processing-time
  // interval ends: it asks for everything available to be processed, not for the next trigger.
  changed_.wait_until(lock, deadline, [&] {
    return stop_requested_ || process_all_requests_ > caught_up_through_;
  });
}

void StreamExecution::Run() {
  const QueryStartedEvent started{id_, run_id_, options_.name, FormatIsoTimestamp(NowMs())};
  for (const auto& listener : options_.listeners) {
    listener->OnQueryStarted(started);
  }
  const tributary::Status result = RunBatches();
  // Sources and the lock go with the run: a restart may begin as soon as IsActive is false.
  sources_.clear();
  lock_.reset();
  QueryTerminatedEvent terminated{id_, run_id_, std::nullopt};
  {
    std::lock_guard lock(mutex_);
    exception_ = result;
    active_ = false;
    status_ = {"Stopped", false, false};
  }
  if (!result.ok()) {
    terminated.exception = result.ToString();
  }
  for (const auto& listener : options_.listeners) {
    listener->OnQueryTerminated(terminated);
  }
  changed_.notify_all();
}

Status StreamExecution::RunBatches() {
  const Trigger::Kind trigger = options_.trigger.GetKind();
  if (trigger == Trigger::Kind::kAvailableNow) {
    for (SourceSlot& slot : sources_) {
      TRIBUTARY_RETURN_NOT_OK(slot.source->PrepareForTriggerAvailableNow());
    }
  }
  if (pending_batch_) {
    // Re-run the batch that was in flight, exactly as logged.
    const Clock::time_point start = Clock::now();
    SetStatus("Processing new data", true, true);
    OffsetSeq pending = std::move(*pending_batch_);
    pending_batch_.reset();
    TRIBUTARY_RETURN_NOT_OK(RunBatch(pending, pending.offsets, {}, start));
    if (trigger == Trigger::Kind::kOnce) {
      return Status::OK();
    }
  }
  while (true) {
    int64_t requests_before_trigger = 0;
    {
      std::lock_guard lock(mutex_);
      if (stop_requested_) {
        return Status::OK();
      }
      requests_before_trigger = process_all_requests_;
    }
    const Clock::time_point trigger_start = Clock::now();
    SetStatus("Processing new data", false, true);
    TRIBUTARY_ASSIGN_OR_RAISE(bool ran, RunNextBatch());
    if (trigger == Trigger::Kind::kOnce) {
      return Status::OK();
    }
    if (!ran) {
      if (trigger == Trigger::Kind::kAvailableNow) {
        return Status::OK();
      }
      SetStatus("Waiting for data to arrive", false, false);
      {
        std::lock_guard lock(mutex_);
        caught_up_through_ = requests_before_trigger;
      }
      changed_.notify_all();
    } else {
      SetStatus("Waiting for next trigger", true, false);
    }
    const auto interval = options_.trigger.Interval();
    if (interval.count() > 0) {
      WaitUntil(trigger_start + interval);
    } else if (!ran) {
      WaitUntil(Clock::now() + options_.polling_delay);
    }
  }
}

Result<bool> StreamExecution::RunNextBatch() {
  const Clock::time_point trigger_start = Clock::now();
  std::map<std::string, int64_t> durations;
  const bool respect_limits = options_.trigger.GetKind() != Trigger::Kind::kOnce;
  std::vector<std::optional<Offset>> latest(sources_.size());
  bool has_new_data = false;
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto offset = sources_[i].source->LatestOffset(committed_[i], respect_limits);
    if (!offset.ok()) {
      return ContextUnlessSchemaChanged(
          offset.status(), fmt::format("source {} ({})", i, sources_[i].definition->Description()));
    }
    latest[i] = std::move(*offset);
    if (latest[i] && latest[i] != committed_[i]) {
      has_new_data = true;
    }
  }
  durations["latestOffset"] = ElapsedMs(trigger_start);
  if (!has_new_data && !NeedsNoDataBatch()) {
    return false;
  }
  OffsetSeq offsets;
  offsets.batch_timestamp_ms = NowMs();
  offsets.batch_watermark_ms = watermark_ms_;
  if (num_state_partitions_ > 0) {
    offsets.conf[std::string(kShufflePartitionsKey)] = std::to_string(num_state_partitions_);
  }
  // A no-data batch ends where the last one did.
  offsets.offsets = has_new_data ? latest : committed_;
  const Clock::time_point wal_start = Clock::now();
  const int64_t batch_id = next_batch_id_;
  tributary::Status written = checkpoint_.WriteOffsets(batch_id, offsets);
  if (written.IsAlreadyExists()) {
    return Status::Conflict(fmt::format(
        "checkpoint {}: offsets/{} was written by someone else: another query is using this "
        "checkpoint location",
        options_.checkpoint_location, batch_id));
  }
  TRIBUTARY_RETURN_NOT_OK(written);
  CrashPoint("streaming.after_offsets");
  if (batch_id >= options_.min_batches_to_retain) {
    TRIBUTARY_RETURN_NOT_OK(checkpoint_.Purge(batch_id - options_.min_batches_to_retain + 1));
  }
  durations["walCommit"] = ElapsedMs(wal_start);
  TRIBUTARY_RETURN_NOT_OK(RunBatch(offsets, latest, std::move(durations), trigger_start));
  return true;
}

Result<plan::LogicalPlanPtr> StreamExecution::ReplaceSources(
    const plan::LogicalPlanPtr& node, std::vector<plan::ScanSource>& batch_sources) {
  if (node->Kind() == plan::PlanKind::kScan) {
    const auto& scan = static_cast<const plan::ScanNode&>(*node);
    const plan::ScanSource& source = scan.Source();
    const std::string qualifier = scan.Qualifiers().empty() ? "" : scan.Qualifiers().front();
    if (source.kind == plan::ScanSource::Kind::kStream) {
      for (size_t i = 0; i < sources_.size(); ++i) {
        if (sources_[i].definition.get() == source.stream.get()) {
          return plan::LogicalPlanPtr(std::make_shared<plan::ScanNode>(
              batch_sources[i], scan.Columns(), qualifier, scan.PushedFilter(), false));
        }
      }
      return Status::Internal("a streaming scan of an unknown source");
    }
    if (source.kind == plan::ScanSource::Kind::kDelta && !source.pinned_version) {
      // Stream-static join: the static table is read as of each batch's start.
      // Only the commits since the snapshot last used are read, not the whole log per batch.
      const std::string& root = source.snapshot->TableRoot();
      auto& cached = static_tables_[root];
      TRIBUTARY_ASSIGN_OR_RAISE(cached,
                                delta::Snapshot::Update(*fs_, cached ? cached : source.snapshot));
      if (cached->Version() == source.snapshot->Version()) {
        return node;
      }
      if (!cached->Schema()->Equals(*source.schema)) {
        return SchemaChangedStatus(fmt::format(
            "the static table {} joined with the stream changed its schema at version {}; "
            "restart the query to use the new schema",
            root, cached->Version()));
      }
      plan::ScanSource refreshed = source;
      refreshed.snapshot = cached;
      refreshed.description = fmt::format("delta {} v{}", root, cached->Version());
      return plan::LogicalPlanPtr(std::make_shared<plan::ScanNode>(
          std::move(refreshed), scan.Columns(), qualifier, scan.PushedFilter(), false));
    }
    return node;
  }
  std::vector<plan::LogicalPlanPtr> inputs;
  bool changed = false;
  for (const plan::LogicalPlanPtr& input : node->Inputs()) {
    TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr replaced, ReplaceSources(input, batch_sources));
    changed = changed || replaced != input;
    inputs.push_back(std::move(replaced));
  }
  return changed ? node->WithInputs(std::move(inputs)) : node;
}

Status StreamExecution::RunBatch(const OffsetSeq& offsets,
                                 const std::vector<std::optional<Offset>>& latest,
                                 std::map<std::string, int64_t> durations,
                                 Clock::time_point trigger_start) {
  const int64_t batch_id = next_batch_id_;
  const Clock::time_point get_batch_start = Clock::now();
  std::vector<plan::ScanSource> batch_sources(sources_.size());
  for (size_t i = 0; i < sources_.size(); ++i) {
    SourceSlot& slot = sources_[i];
    slot.rows_read->store(0);
    const std::optional<Offset>& end = offsets.offsets[i];
    if (end && end != committed_[i]) {
      auto batch = slot.source->GetBatch(committed_[i], *end);
      if (!batch.ok()) {
        return ContextUnlessSchemaChanged(
            batch.status(),
            fmt::format("batch {}, source {} ({})", batch_id, i, slot.definition->Description()));
      }
      batch_sources[i] = std::move(*batch);
    } else {
      batch_sources[i].kind = plan::ScanSource::Kind::kValues;
      batch_sources[i].schema = slot.definition->Schema();
      batch_sources[i].description = slot.definition->Description();
    }
    batch_sources[i].rows_read = slot.rows_read;
  }
  durations["getBatch"] = ElapsedMs(get_batch_start);

  const Clock::time_point planning_start = Clock::now();
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr batch_plan, ReplaceSources(plan_, batch_sources));
  exec::ExecContext context;
  context.eval = options_.eval;
  context.eval.current_timestamp_micros = offsets.batch_timestamp_ms * 1000;
  context.fs = fs_.get();
  // A batch's scans split their files across threads; the rows come out in the files' order,
  // so what a batch writes does not depend on the thread count.
  TRIBUTARY_ASSIGN_OR_RAISE(context.threads, ResolveThreadCount(options_.session_config));
  TRIBUTARY_ASSIGN_OR_RAISE(auto memory, plan::QueryMemory::Make(options_.session_config));
  memory->Attach(&context);
  durations["queryPlanning"] = ElapsedMs(planning_start);

  // Stores of version batch_id, one per (operator, partition); destroyed uncommitted (aborted)
  // on any error below.
  std::vector<std::vector<std::unique_ptr<state::VersionedStateStore>>> stores;
  TRIBUTARY_RETURN_NOT_OK(LoadState(batch_id, offsets, &stores));

  const Clock::time_point add_start = Clock::now();
  MicroBatch micro_batch{id_, batch_id, batch_plan, &context, options_.output_mode};
  if (!stateful_.operators.empty()) {
    // The state must advance exactly once per batch whatever the sink does (a sink skips a
    // batch it already wrote): run the plan here, hand the sink its rows.
    auto rows = micro_batch.Collect();
    if (!rows.ok()) {
      return ContextUnlessSchemaChanged(rows.status(), fmt::format("batch {}", batch_id));
    }
    plan::ScanSource result;
    result.kind = plan::ScanSource::Kind::kValues;
    result.schema = batch_plan->Schema();
    result.batches = std::move(*rows);
    result.description = fmt::format("batch {}", batch_id);
    micro_batch.plan = plan::Scan(std::move(result), "");
  }
  CrashPoint("streaming.before_add_batch");
  auto written = sink_->AddBatch(micro_batch);
  if (!written.ok()) {
    return ContextUnlessSchemaChanged(
        written.status(), fmt::format("batch {}, writing to {}", batch_id, sink_->Description()));
  }
  durations["addBatch"] = ElapsedMs(add_start);

  const Clock::time_point commit_start = Clock::now();
  std::vector<StateOperatorProgress> state_progress;
  for (size_t id = 0; id < stores.size(); ++id) {
    const Clock::time_point operator_commit_start = Clock::now();
    StateOperatorProgress progress;
    progress.memory_used_bytes = 0;
    for (auto& store : stores[id]) {
      progress.num_rows_total += store->NumKeys();
      progress.memory_used_bytes += store->MemoryUsedBytes();
      TRIBUTARY_RETURN_NOT_OK(store->Commit().WithContext(
          fmt::format("batch {}, committing the state of operator {}", batch_id, id)));
    }
    const StatefulOperator& op = stateful_.operators[id];
    const exec::StateOperatorMetrics& metrics = op.runtime->metrics;
    if (op.join) {
      // A join's store also holds a row count per key: its rows are what the operator counted.
      progress.num_rows_total = metrics.num_rows_total;
    }
    progress.operator_name = op.name;
    progress.num_rows_updated = metrics.num_rows_updated;
    progress.num_rows_removed = metrics.num_rows_removed;
    progress.num_rows_dropped_by_watermark = metrics.num_rows_dropped_by_watermark;
    progress.all_updates_time_ms = metrics.all_updates_time_ms;
    progress.all_removals_time_ms = metrics.all_removals_time_ms;
    progress.commit_time_ms = ElapsedMs(operator_commit_start);
    progress.num_shuffle_partitions = num_state_partitions_;
    progress.num_state_store_instances = num_state_partitions_;
    if (op.state_unbounded) {
      progress.custom_metrics["stateGrowsWithoutBound"] = 1;
    }
    state_progress.push_back(std::move(progress));
  }
  if (!stores.empty()) {
    CrashPoint("streaming.after_state_commit");
  }
  // Event times of this batch: the next batch's watermark, and progress `eventTime`.
  std::optional<exec::EventTimeStats::Snapshot> seen;
  for (const WatermarkPoint& point : stateful_.watermarks) {
    const exec::EventTimeStats::Snapshot stats = point.stats->Get();
    if (stats.count == 0) {
      continue;
    }
    if (!seen) {
      seen = stats;
    } else {
      seen->min = std::min(seen->min, stats.min);
      seen->max = std::max(seen->max, stats.max);
      seen->sum += stats.sum;
      seen->count += stats.count;
    }
  }
  const int64_t next_watermark_ms = AdvanceWatermark();
  CrashPoint("streaming.before_commit_log");
  TRIBUTARY_RETURN_NOT_OK(checkpoint_.WriteCommit(batch_id, next_watermark_ms));
  last_batch_watermark_ms_ = offsets.batch_watermark_ms;
  CrashPoint("streaming.after_commit_log");
  const std::vector<std::optional<Offset>> started_from = committed_;
  committed_ = offsets.offsets;
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (committed_[i]) {
      TRIBUTARY_RETURN_NOT_OK(sources_[i].source->Commit(*committed_[i]));
    }
  }
  ++next_batch_id_;
  durations["commitOffsets"] = ElapsedMs(commit_start);
  durations["triggerExecution"] = ElapsedMs(trigger_start);

  StreamingQueryProgress progress;
  progress.id = id_;
  progress.run_id = run_id_;
  progress.name = options_.name;
  progress.timestamp = FormatIsoTimestamp(offsets.batch_timestamp_ms);
  progress.batch_id = batch_id;
  progress.batch_duration = durations["triggerExecution"];
  const double execution_seconds =
      std::max<double>(static_cast<double>(durations["triggerExecution"]), 1.0) / 1000.0;
  const double since_last_trigger =
      last_trigger_start_ == Clock::time_point{}
          ? 0.0
          : std::chrono::duration<double>(trigger_start - last_trigger_start_).count();
  last_trigger_start_ = trigger_start;
  for (size_t i = 0; i < sources_.size(); ++i) {
    SourceProgress source;
    source.description = sources_[i].definition->Description();
    source.start_offset = started_from[i].value_or("");
    source.end_offset = offsets.offsets[i].value_or("");
    source.latest_offset = latest[i].value_or("");
    source.num_input_rows = sources_[i].rows_read->load();
    source.input_rows_per_second =
        since_last_trigger > 0 ? static_cast<double>(source.num_input_rows) / since_last_trigger
                               : 0.0;
    source.processed_rows_per_second =
        static_cast<double>(source.num_input_rows) / execution_seconds;
    source.metrics = sources_[i].source->Metrics();
    progress.num_input_rows += source.num_input_rows;
    progress.sources.push_back(std::move(source));
  }
  progress.input_rows_per_second =
      since_last_trigger > 0 ? static_cast<double>(progress.num_input_rows) / since_last_trigger
                             : 0.0;
  progress.processed_rows_per_second =
      static_cast<double>(progress.num_input_rows) / execution_seconds;
  progress.duration_ms = std::move(durations);
  progress.state_operators = std::move(state_progress);
  if (!stateful_.watermarks.empty()) {
    if (seen) {
      progress.event_time["min"] = FormatIsoTimestamp(columnar::FloorDiv(seen->min, 1000));
      progress.event_time["max"] = FormatIsoTimestamp(columnar::FloorDiv(seen->max, 1000));
      progress.event_time["avg"] = FormatIsoTimestamp(
          static_cast<int64_t>(seen->sum / static_cast<double>(seen->count) / 1000.0));
    }
    progress.event_time["watermark"] = FormatIsoTimestamp(offsets.batch_watermark_ms);
  }
  progress.sink.description = sink_->Description();
  progress.sink.num_output_rows = *written;
  const storage::StorageRequestCounts requests = fs_->RequestCounts();
  const storage::StorageRequestCounts made = requests - requests_reported_;
  requests_reported_ = requests;
  if (!(made == storage::StorageRequestCounts())) {
    progress.storage_requests = {
        {"listRequests", made.list_requests}, {"getRequests", made.get_requests},
        {"putRequests", made.put_requests},   {"deleteRequests", made.delete_requests},
        {"bytesRead", made.bytes_read},       {"bytesWritten", made.bytes_written}};
  }
  ReportProgress(std::move(progress));
  return Status::OK();
}

void StreamExecution::ReportProgress(StreamingQueryProgress progress) {
  // A lost progress line is not worth failing a committed batch for.
  (void)checkpoint_.AppendProgress(progress.Json());
  for (const auto& listener : options_.listeners) {
    listener->OnQueryProgress(progress);
  }
  std::lock_guard lock(mutex_);
  recent_progress_.push_back(std::move(progress));
  while (recent_progress_.size() > options_.num_recent_progress) {
    recent_progress_.pop_front();
  }
}

}  // namespace tributary::streaming
