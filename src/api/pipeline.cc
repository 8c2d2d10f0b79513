// SQL pipelines (tributary/pipeline.h): the statements of a file, the streaming tables ordered
// by what they read, one StreamExecution per table with a Delta sink that merges new columns.

#include "tributary/pipeline.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "api/api_state.h"
#include "api/auto_cdc.h"
#include "common/ascii.h"
#include "delta/log_segment.h"
#include "delta/table_writes.h"
#include "sql/binder.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "storage/file_system.h"
#include "storage/local_path.h"
#include "storage/path.h"
#include "streaming/delta_sink.h"
#include "streaming/file_source.h"
#include "streaming/kafka_source.h"
#include "streaming/offset_json.h"
#include "streaming/stream_execution.h"
#include "streaming/time_string.h"

namespace tributary {

/// One CREATE STREAMING TABLE of the file. Outside the anonymous namespace: PipelineState,
/// declared in the public header, holds them.
struct StreamingTableDefinition {
  /// Lowercased, as the warehouse stores it.
  std::string name;
  /// The statement's text, bound again at every (re)start so a restart sees new columns.
  std::string sql;
  /// Tables of the pipeline it reads (lowercased).
  std::vector<std::string> reads;
  /// `sql` is an AUTO CDC flow into the table, which its CREATE STREAMING TABLE without a
  /// query declares; `properties` are that statement's TBLPROPERTIES.
  bool auto_cdc = false;
  std::map<std::string, std::string> properties;
};

/// One stream of a pipeline run: a streaming table, or, scaled out, one share of a table that
/// reads Kafka.
struct PipelineTask {
  const StreamingTableDefinition* table = nullptr;
  /// The processIndex whose partitions the stream reads (scaled out, tables reading Kafka).
  std::optional<int32_t> share;
  /// The process that runs it; another takes it over only while that one is not running.
  int32_t home = 0;
  std::string checkpoint;
};

/// Which processes of a scaled-out pipeline are running: each holds a write lock on
/// <root>/_processes/<index>.lock while it runs. It is an open-file-description lock (not
/// flock, whose test would take the lock): the kernel drops it when the holder exits or dies,
/// and another process tests it with F_OFD_GETLK without taking it.
class PipelineProcessPresence {
 public:
  /// Announces process `index` in `dir`; AlreadyExists when a live process has that index.
  static Result<PipelineProcessPresence> Announce(const std::string& dir, int32_t index) {
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    const std::string path = LockPath(dir, index);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return Status::IOError(fmt::format("opening {}: {}", path, std::strerror(errno)));
    }
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    if (::fcntl(fd, F_OFD_SETLK, &whole) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EAGAIN || error == EACCES) {
        return Status::AlreadyExists(fmt::format(
            "process {} of this pipeline is already running ({} is locked): give each process "
            "its own tributary.kafka.processIndex",
            index, path));
      }
      return Status::IOError(fmt::format("locking {}: {}", path, std::strerror(error)));
    }
    return PipelineProcessPresence(dir, fd);
  }

  PipelineProcessPresence(PipelineProcessPresence&& other) noexcept
      : dir_(std::move(other.dir_)), fd_(std::exchange(other.fd_, -1)) {}
  PipelineProcessPresence& operator=(PipelineProcessPresence&&) = delete;
  PipelineProcessPresence(const PipelineProcessPresence&) = delete;
  PipelineProcessPresence& operator=(const PipelineProcessPresence&) = delete;
  ~PipelineProcessPresence() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  /// Whether process `index` holds its lock now (on this machine, or on another through a
  /// file system that carries the locks). A process never announced is not running.
  bool IsRunning(int32_t index) const {
    const std::string path = LockPath(dir_, index);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return false;
    }
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    const bool running = ::fcntl(fd, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
    ::close(fd);
    return running;
  }

 private:
  PipelineProcessPresence(std::string dir, int fd) : dir_(std::move(dir)), fd_(fd) {}

  static std::string LockPath(const std::string& dir, int32_t index) {
    return storage::JoinPath(dir, fmt::format("{}.lock", index));
  }

  std::string dir_;
  int fd_ = -1;
};

namespace {

// Whether a stream of `plan` reads only the share of its input the session gives it.
bool PlanReadsSessionShare(const plan::LogicalPlan& node) {
  if (node.Kind() == plan::PlanKind::kScan) {
    const plan::ScanSource& source = node.As<plan::ScanNode>().Source();
    const auto* definition = dynamic_cast<const streaming::SourceDefinition*>(source.stream.get());
    if (definition != nullptr && definition->ReadsSessionShare()) {
      return true;
    }
  }
  return std::any_of(
      node.Inputs().begin(), node.Inputs().end(),
      [](const plan::LogicalPlanPtr& input) { return PlanReadsSessionShare(*input); });
}

// Orders `tables` so each comes after the pipeline tables it reads; ties keep file order.
Result<std::vector<StreamingTableDefinition>> DependencyOrder(
    std::vector<StreamingTableDefinition> tables) {
  std::set<std::string> defined;
  for (const StreamingTableDefinition& table : tables) {
    defined.insert(table.name);
  }
  std::vector<StreamingTableDefinition> ordered;
  std::set<std::string> placed;
  while (!tables.empty()) {
    auto ready = std::find_if(tables.begin(), tables.end(), [&](const auto& table) {
      return std::all_of(table.reads.begin(), table.reads.end(), [&](const std::string& read) {
        return !defined.contains(read) || placed.contains(read);
      });
    });
    if (ready == tables.end()) {
      std::vector<std::string> names;
      names.reserve(tables.size());
      for (const StreamingTableDefinition& table : tables) {
        names.push_back(table.name);
      }
      return Status::InvalidArgument(
          fmt::format("the streaming tables {} read each other in a cycle; a pipeline needs an "
                      "order in which each table's inputs come first",
                      fmt::join(names, ", ")));
    }
    placed.insert(ready->name);
    ordered.push_back(std::move(*ready));
    tables.erase(ready);
  }
  return ordered;
}

}  // namespace

struct AdoptedRun;

struct PipelineState {
  std::shared_ptr<Session> session;
  PipelineOptions options;
  /// Statements that are not streaming tables, in file order. A CREATE TABLE among them is
  /// run as refreshing (with a query) or create-once (without), so that a rerun works.
  std::vector<std::string> statements;
  /// In dependency order.
  std::vector<StreamingTableDefinition> tables;

  std::mutex event_mutex;
  std::function<void(const PipelineEvent&)> on_event;

  std::mutex mutex;
  /// With `mutex`: wakes waits for a share and the scaled-out look-outs when Stop is called.
  std::condition_variable stop_changed;
  bool stop_requested = false;
  std::vector<std::shared_ptr<streaming::StreamExecution>> running;

  /// Scaled out (tributary.kafka.processCount > 1): which process this is.
  streaming::KafkaProcessShareOf process;
  /// Set while a scaled-out run goes: this process's announcement, through which it sees the
  /// others.
  std::optional<PipelineProcessPresence> presence;
  /// Whether this process takes over the streams of processes not running: scaled out, over a
  /// checkpoint root on a local or mounted directory (the presence locks are file locks).
  bool takeover = false;
  std::chrono::milliseconds takeover_interval{1000};

  void Emit(const PipelineEvent& event) {
    std::lock_guard lock(event_mutex);
    if (on_event) {
      on_event(event);
    }
  }

  bool StopRequested() {
    std::lock_guard lock(mutex);
    return stop_requested;
  }

  std::string CheckpointRoot() const {
    return options.checkpoint_root.empty()
               ? storage::JoinPath(session->WarehouseDirectory(), "_checkpoints")
               : options.checkpoint_root;
  }

  std::string CheckpointOf(const std::string& table) const {
    return storage::JoinPath(CheckpointRoot(), table);
  }

  Result<sql::BoundStatement> BindTable(const StreamingTableDefinition& table,
                                        const std::string& checkpoint) const {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(table.sql));
    const SessionState& state = *ApiAccess::State(*session);
    auto bound = sql::Bind(statement, state.MakeCatalog(0), state.config, checkpoint);
    if (!bound.ok()) {
      return bound.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    return bound;
  }

  Result<AutoCdcFlowPlan> BindFlow(const StreamingTableDefinition& table,
                                   const std::string& checkpoint) const {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(table.sql));
    auto flow = BindAutoCdcFlow(*ApiAccess::State(*session), statement, checkpoint);
    if (!flow.ok()) {
      return flow.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    return flow;
  }

  // Whether a checkpoint has been started (its metadata file exists).
  Result<bool> CheckpointStarted(const std::string& checkpoint) const {
    auto info =
        ApiAccess::State(*session)->fs->GetFileInfo(storage::JoinPath(checkpoint, "metadata"));
    if (info.ok()) {
      return true;
    }
    if (info.status().IsNotFound()) {
      return false;
    }
    return info.status();
  }

  // The streams to run: a task per table, or scaled out one per share of a table that reads
  // Kafka. A checkpoint made for the other layout is refused: its offsets cover another share
  // of the partitions, so starting beside it would read records again.
  Result<std::vector<PipelineTask>> Tasks() const {
    std::vector<PipelineTask> tasks;
    for (const StreamingTableDefinition& table : tables) {
      const std::string checkpoint = CheckpointOf(table.name);
      bool shared = false;
      if (process.count > 1) {
        // Bound once more only when scaled out: binding may infer a file source's schema.
        plan::LogicalPlanPtr plan;
        if (table.auto_cdc) {
          TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow, BindFlow(table, checkpoint));
          plan = flow.plan;
        } else {
          TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table, checkpoint));
          plan = bound.plan;
        }
        shared = PlanReadsSessionShare(*plan);
      }
      if (shared) {
        TRIBUTARY_ASSIGN_OR_RAISE(const bool whole, CheckpointStarted(checkpoint));
        if (whole) {
          return Status::InvalidArgument(fmt::format(
              "streaming table {}: its checkpoint {} was made by one process reading every "
              "Kafka partition; run as {} processes, each share has its own checkpoint "
              "(<table>/share-<i>), so give this run another checkpoint root (--checkpoints)",
              table.name, checkpoint, process.count));
        }
        for (int32_t share = 0; share < process.count; ++share) {
          tasks.push_back(PipelineTask{
              &table, share, share, storage::JoinPath(checkpoint, fmt::format("share-{}", share))});
        }
        continue;
      }
      if (process.count == 1) {
        TRIBUTARY_ASSIGN_OR_RAISE(const bool split,
                                  CheckpointStarted(storage::JoinPath(checkpoint, "share-0")));
        if (split) {
          return Status::InvalidArgument(fmt::format(
              "streaming table {}: its checkpoints under {} were made by processes reading a "
              "share of the Kafka partitions each; run it with the same "
              "tributary.kafka.processCount, or give this run another checkpoint root "
              "(--checkpoints)",
              table.name, checkpoint));
        }
      }
      tasks.push_back(PipelineTask{&table, std::nullopt, 0, checkpoint});
    }
    return tasks;
  }

  // Scaled out: whether this process may run `task` now, its process being away.
  Result<bool> MayTakeOver(const PipelineTask& task) const {
    if (!takeover || task.home == process.index || presence->IsRunning(task.home)) {
      return false;
    }
    // A share whose process never ran has no offsets to resume from: it waits for its process,
    // which is also what keeps a run with its own checkpoint root from starting the others'.
    return CheckpointStarted(task.checkpoint);
  }

  // Waits up to the takeover interval, or until Stop. False when stopped.
  bool WaitForNextLook() {
    std::unique_lock lock(mutex);
    stop_changed.wait_for(lock, takeover_interval, [this] { return stop_requested; });
    return !stop_requested;
  }

  void EmitShare(const PipelineTask& task, std::string message) {
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kShare;
    event.table = task.table->name;
    event.share = task.share;
    event.message = std::move(message);
    Emit(event);
  }

  // An AUTO CDC target: the flow's columns and the declaring statement's properties.
  Status CreateFlowTarget(const StreamingTableDefinition& table) {
    TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow, BindFlow(table, CheckpointOf(table.name)));
    auto created = CreateAutoCdcTarget(*ApiAccess::State(*session), flow, table.properties,
                                       "CREATE STREAMING TABLE");
    if (!created.ok()) {
      return created.status().WithContext(fmt::format("creating streaming table {}", table.name));
    }
    if (*created) {
      EmitCreated(table.name, *flow.target_schema);
    }
    return Status::OK();
  }

  void EmitCreated(const std::string& name, const columnar::Schema& schema) {
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kTableCreated;
    event.table = name;
    std::vector<std::string> columns;
    for (const columnar::Field& field : schema.Fields()) {
      columns.push_back(field.Name() + " " + field.Type()->ToString());
    }
    event.message = fmt::format("{}", fmt::join(columns, ", "));
    Emit(event);
  }

  // The table as an empty Delta table with its query's columns, partitioning and properties,
  // unless it exists.
  Status CreateTable(const StreamingTableDefinition& table) {
    if (table.auto_cdc) {
      return CreateFlowTarget(table);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound,
                              BindTable(table, CheckpointOf(table.name)));
    storage::FileSystem& fs = *ApiAccess::State(*session)->fs;
    // Existence is a committed version (kIgnore writes nothing then), not the _delta_log
    // directory: another process creating the table makes the directory before it commits
    // version 0, and a table bound in between would not be found.
    delta::TableWriteOptions write;
    write.mode = delta::SaveMode::kIgnore;
    write.partition_by = bound.create.partition_by;
    write.properties.insert(bound.create.properties.begin(), bound.create.properties.end());
    write.operation = "CREATE STREAMING TABLE";
    const columnar::SchemaPtr& schema = bound.plan->Schema();
    auto created = delta::WriteTable(fs, bound.path, schema, {}, write);
    if (!created.ok() && created.status().IsConflict() && delta::HasDeltaLog(fs, bound.path)) {
      // Another process running this pipeline (each its share of a Kafka topic) created the
      // table first: it exists now, which is all "unless it exists" asks. Delta itself refuses
      // the second creation (ProtocolChangedException), as Spark's writers do.
      return Status::OK();
    }
    if (!created.ok()) {
      return created.status().WithContext(fmt::format("creating streaming table {}", table.name));
    }
    if (created->committed) {
      EmitCreated(table.name, *schema);
    }
    return Status::OK();
  }

  /// Runs `task` until it ends (available-now/once), fails or is stopped. `adopted`: the task
  /// is another process's, taken over; its execution is published there for the look-out to
  /// stop when that process is back, and a checkpoint held by another process ends it at once.
  /// A task of this process whose checkpoint another holds waits for it.
  Status RunTask(const PipelineTask& task, AdoptedRun* adopted);
};

/// A stream taken over from a process that is not running, in a processing-time run.
struct AdoptedRun {
  const PipelineTask* task = nullptr;
  std::thread thread;
  /// With PipelineState::mutex.
  std::shared_ptr<streaming::StreamExecution> execution;
  bool handed_back = false;
  std::atomic<bool> finished{false};
  Status result;
};

namespace {

// Turns a query's progress into pipeline events; counts its batches.
class TableListener final : public StreamingQueryListener {
 public:
  /// `backlog_fs`: when set, batch events carry the files backlog of file sources, read from
  /// their source logs under `checkpoint`.
  TableListener(PipelineState& state, std::string table, std::optional<int32_t> share,
                storage::FileSystem* backlog_fs, std::string checkpoint)
      : state_(state),
        table_(std::move(table)),
        share_(share),
        backlog_fs_(backlog_fs),
        checkpoint_(std::move(checkpoint)) {}

  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    batches_.fetch_add(1);
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kBatch;
    event.table = table_;
    event.share = share_;
    event.progress = progress;
    if (backlog_fs_ != nullptr) {
      event.backlog = Backlog(progress);
    }
    state_.Emit(event);
  }

  int64_t Batches() const { return batches_.load(); }

 private:
  // A file source (plain or Auto Loader: {"logOffset":N} offsets over the source log in
  // sources/<n>/, and numFilesOutstanding) has done the files its logged batches of this run
  // hold, and has the outstanding ones left: pinned by available-now, so done + left stays
  // the backlog found at start. Reads only this run's log entries.
  std::optional<PipelineBacklog> Backlog(const StreamingQueryProgress& progress) {
    PipelineBacklog backlog;
    backlog.unit = "files";
    bool known = false;
    files_done_.resize(progress.sources.size());
    for (size_t i = 0; i < progress.sources.size(); ++i) {
      const SourceProgress& source = progress.sources[i];
      auto outstanding = source.metrics.find("numFilesOutstanding");
      if (outstanding == source.metrics.end()) {
        continue;
      }
      std::optional<streaming::Offset> start;
      if (!source.start_offset.empty()) {
        start = source.start_offset;
      }
      auto first = streaming::ParseIntegerOffset(start, "logOffset", -1, source.description);
      auto last =
          streaming::ParseIntegerOffset(source.end_offset, "logOffset", -1, source.description);
      if (!first.ok() || !last.ok()) {
        continue;
      }
      streaming::FileSourceLog log(
          *backlog_fs_,
          storage::JoinPath(storage::JoinPath(checkpoint_, "sources"), std::to_string(i)));
      for (int64_t id = *first + 1; id <= *last; ++id) {
        auto entries = log.Read(id);
        if (!entries.ok()) {
          return std::nullopt;
        }
        files_done_[i] += static_cast<int64_t>(entries->size());
      }
      backlog.done += files_done_[i];
      backlog.total += files_done_[i] + std::atoll(outstanding->second.c_str());
      known = true;
    }
    return known ? std::optional<PipelineBacklog>(backlog) : std::nullopt;
  }

  PipelineState& state_;
  std::string table_;
  std::optional<int32_t> share_;
  storage::FileSystem* backlog_fs_;
  std::string checkpoint_;
  /// Per source, the files of the batches this run committed.
  std::vector<int64_t> files_done_;
  std::atomic<int64_t> batches_{0};
};

}  // namespace

Status PipelineState::RunTask(const PipelineTask& task, AdoptedRun* adopted) {
  const StreamingTableDefinition& table = *task.table;
  const SessionState& state = *ApiAccess::State(*session);
  const std::string& checkpoint = task.checkpoint;
  int restarts = 0;
  bool waiting = false;
  while (!StopRequested()) {
    plan::LogicalPlanPtr plan;
    std::unique_ptr<streaming::Sink> sink;
    if (table.auto_cdc) {
      TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow, BindFlow(table, checkpoint));
      plan = flow.plan;
      sink = MakeAutoCdcSink(state, flow);
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table, checkpoint));
      std::map<std::string, std::string> sink_options(bound.create.properties.begin(),
                                                      bound.create.properties.end());
      sink_options["mergeSchema"] = "true";
      TRIBUTARY_ASSIGN_OR_RAISE(
          sink, streaming::DeltaSink::Make(bound.path, sink_options, bound.create.partition_by));
      plan = bound.plan;
    }
    // Available-now runs have a known backlog: the files present at start.
    const bool available_now = options.trigger.GetKind() == Trigger::Kind::kAvailableNow;
    auto listener = std::make_shared<TableListener>(
        *this, table.name, task.share, available_now ? state.fs.get() : nullptr, checkpoint);
    streaming::QueryOptions query;
    query.name = table.name;
    query.checkpoint_location = checkpoint;
    query.trigger = options.trigger;
    query.session_config = state.config;
    if (task.share.has_value()) {
      query.session_config[std::string(streaming::kKafkaProcessIndexKey)] =
          std::to_string(*task.share);
    }
    query.eval = state.MakeCatalog(0).eval;
    if (auto it = state.config.find("spark.sql.streaming.minBatchesToRetain");
        it != state.config.end()) {
      query.min_batches_to_retain = std::max<int64_t>(1, std::atoll(it->second.c_str()));
    }
    {
      std::lock_guard lock(state.streaming_mutex);
      query.listeners = state.listeners;
    }
    query.listeners.push_back(listener);
    auto started =
        streaming::StreamExecution::Start(plan, std::move(sink), std::move(query), state.fs);
    if (!started.ok() && started.status().IsAlreadyExists() && presence.has_value()) {
      // Another process holds the share's checkpoint: one that took it over while this one was
      // away (its look-out hands it back after its batch), or the share's own process.
      if (adopted != nullptr) {
        return Status::OK();
      }
      if (!waiting) {
        EmitShare(task, fmt::format("waiting for the share's checkpoint: {}",
                                    started.status().Message()));
        waiting = true;
      }
      if (!WaitForNextLook()) {
        return Status::OK();
      }
      continue;
    }
    if (!started.ok()) {
      return started.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    std::shared_ptr<streaming::StreamExecution> execution = *std::move(started);
    bool stop_now = false;
    {
      std::lock_guard lock(mutex);
      running.push_back(execution);
      stop_now = stop_requested;
      if (adopted != nullptr) {
        adopted->execution = execution;
        stop_now = stop_now || adopted->handed_back;
      }
    }
    if (stop_now) {
      execution->Stop();
    }
    PipelineEvent started_event;
    started_event.kind = PipelineEvent::Kind::kStreamStarted;
    started_event.table = table.name;
    started_event.share = task.share;
    started_event.message = options.trigger.ToString();
    Emit(started_event);

    execution->AwaitTermination();
    {
      std::lock_guard lock(mutex);
      std::erase(running, execution);
      if (adopted != nullptr) {
        adopted->execution.reset();
      }
    }
    const Status error = execution->Exception();
    const bool handed_back = adopted != nullptr && [&] {
      std::lock_guard lock(mutex);
      return adopted->handed_back;
    }();
    if (execution->StoppedBySchemaChange() && !StopRequested() && !handed_back) {
      restarts = listener->Batches() > 0 ? 1 : restarts + 1;
      if (restarts > options.max_schema_restarts) {
        return error.WithContext(
            fmt::format("streaming table {}: still changing schema after {} restarts", table.name,
                        options.max_schema_restarts));
      }
      PipelineEvent restart;
      restart.kind = PipelineEvent::Kind::kSchemaRestart;
      restart.table = table.name;
      restart.share = task.share;
      restart.message = error.Message();
      Emit(restart);
      continue;
    }
    if (!error.ok()) {
      return error.WithContext(fmt::format("streaming table {}", table.name));
    }
    PipelineEvent finished;
    finished.kind = PipelineEvent::Kind::kStreamFinished;
    finished.table = table.name;
    finished.share = task.share;
    Emit(finished);
    return Status::OK();
  }
  return Status::OK();
}

Pipeline::Pipeline(std::unique_ptr<PipelineState> state) : state_(std::move(state)) {}

Pipeline::~Pipeline() {
  Stop();
}

Result<std::unique_ptr<Pipeline>> Pipeline::Parse(std::shared_ptr<Session> session,
                                                  const std::string& sql, PipelineOptions options) {
  auto state = std::make_unique<PipelineState>();
  state->session = std::move(session);
  state->options = std::move(options);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<sql::StatementText> texts, sql::SplitStatements(sql));
  std::vector<StreamingTableDefinition> tables;
  // Streaming tables without a query, by name: their TBLPROPERTIES; an AUTO CDC flow fills
  // each.
  std::map<std::string, std::map<std::string, std::string>> declared;
  for (const sql::StatementText& text : texts) {
    auto statement = sql::ParseStatement(text.text);
    if (!statement.ok()) {
      return statement.status().WithContext(
          fmt::format("the statement at line {}", text.position.line));
    }
    const auto* create = std::get_if<sql::CreateTable>(&statement->body);
    const auto* flow = std::get_if<sql::AutoCdc>(&statement->body);
    if ((create == nullptr || !create->streaming) && flow == nullptr) {
      state->statements.emplace_back(text.text);
      continue;
    }
    const sql::TableName& name = create != nullptr ? create->table : flow->target;
    if (name.IsPath() || name.parts.size() != 1) {
      return Status::InvalidArgument(
          fmt::format("streaming table {} at line {}: a pipeline's tables are warehouse names",
                      name.ToString(), text.position.line));
    }
    if (create != nullptr && create->query == nullptr) {
      declared[AsciiLower(name.parts[0])].insert(create->properties.begin(),
                                                 create->properties.end());
      continue;
    }
    StreamingTableDefinition table;
    table.name = AsciiLower(name.parts[0]);
    table.sql = std::string(text.text);
    table.reads = sql::ReferencedTables(*statement);
    table.auto_cdc = flow != nullptr;
    if (std::any_of(tables.begin(), tables.end(),
                    [&](const auto& other) { return other.name == table.name; })) {
      return Status::InvalidArgument(
          fmt::format("streaming table {} is defined twice (again at line {})", table.name,
                      text.position.line));
    }
    tables.push_back(std::move(table));
  }
  // Databricks' rule: an AUTO CDC flow writes a streaming table the pipeline declares, and a
  // streaming table without a query is written by a flow.
  for (StreamingTableDefinition& table : tables) {
    auto declaration = declared.find(table.name);
    if (table.auto_cdc && declaration == declared.end()) {
      return Status::InvalidArgument(fmt::format(
          "AUTO CDC INTO {}: the target needs a CREATE STREAMING TABLE {} without a query",
          table.name, table.name));
    }
    if (declaration != declared.end()) {
      if (!table.auto_cdc) {
        return Status::InvalidArgument(
            fmt::format("streaming table {} is defined twice", table.name));
      }
      table.properties = declaration->second;
      declared.erase(declaration);
    }
  }
  if (!declared.empty()) {
    return Status::InvalidArgument(fmt::format(
        "streaming table {} has no query and no AUTO CDC flow into it", declared.begin()->first));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state->tables, DependencyOrder(std::move(tables)));
  // The constructor is private (users get pipelines from Parse only), out of make_unique's
  // reach.
  return std::unique_ptr<Pipeline>(new Pipeline(std::move(state)));
}

Result<std::unique_ptr<Pipeline>> Pipeline::ParseFile(std::shared_ptr<Session> session,
                                                      const std::string& path,
                                                      PipelineOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::NotFound(fmt::format("cannot open pipeline file {}", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto pipeline = Parse(std::move(session), text.str(), std::move(options));
  if (!pipeline.ok()) {
    return pipeline.status().WithContext(path);
  }
  return pipeline;
}

std::vector<std::string> Pipeline::Tables() const {
  std::vector<std::string> names;
  for (const StreamingTableDefinition& table : state_->tables) {
    names.push_back(table.name);
  }
  return names;
}

void Pipeline::OnEvent(std::function<void(const PipelineEvent&)> callback) {
  std::lock_guard lock(state_->event_mutex);
  state_->on_event = std::move(callback);
}

Status Pipeline::Run() {
  PipelineState& state = *state_;
  for (const std::string& text : state.statements) {
    // Every run runs the file again, so its tables must be rerunnable (Databricks pipelines
    // refresh a table defined by a query on every update): CREATE TABLE ... AS query
    // recomputes and replaces the table's rows in one commit (as CREATE OR REPLACE); a table
    // of declared columns only is created once (as IF NOT EXISTS).
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(text));
    if (auto* create = std::get_if<sql::CreateTable>(&statement.body); create != nullptr) {
      if (create->query != nullptr && !create->if_not_exists) {
        create->or_replace = true;
      } else if (create->query == nullptr && !create->or_replace) {
        create->if_not_exists = true;
      }
    }
    TRIBUTARY_RETURN_NOT_OK(
        RunStatement(ApiAccess::State(*state.session), statement, text).status());
  }
  for (const StreamingTableDefinition& table : state.tables) {
    TRIBUTARY_RETURN_NOT_OK(state.CreateTable(table));
  }
  const std::map<std::string, std::string>& config = ApiAccess::State(*state.session)->config;
  TRIBUTARY_ASSIGN_OR_RAISE(state.process, streaming::KafkaProcessShareFromSettings(config));
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<PipelineTask> tasks, state.Tasks());
  if (state.process.count > 1) {
    const std::string root = state.CheckpointRoot();
    TRIBUTARY_ASSIGN_OR_RAISE(PipelineProcessPresence presence,
                              PipelineProcessPresence::Announce(
                                  storage::JoinPath(root, "_processes"), state.process.index));
    state.presence.emplace(std::move(presence));
    state.takeover = !storage::IsObjectStorePath(root);
    if (auto it = config.find(std::string(streaming::kKafkaTakeoverIntervalKey));
        it != config.end()) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          const int64_t micros,
          streaming::TimeStringAsMicros(streaming::kKafkaTakeoverIntervalKey, it->second,
                                        streaming::TimeStringUnit::kMilliseconds));
      state.takeover_interval = std::chrono::milliseconds(std::max<int64_t>(1, micros / 1000));
    }
  }
  if (state.options.trigger.GetKind() != Trigger::Kind::kProcessingTime) {
    // Each stream to its end in dependency order: this process's own, and those of a process
    // that is away.
    for (const PipelineTask& task : tasks) {
      if (task.home == state.process.index) {
        TRIBUTARY_RETURN_NOT_OK(state.RunTask(task, nullptr));
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const bool away, state.MayTakeOver(task));
      if (away) {
        state.EmitShare(
            task, fmt::format("taking over from process {}, which is not running", task.home));
        AdoptedRun run;
        run.task = &task;
        TRIBUTARY_RETURN_NOT_OK(state.RunTask(task, &run));
      }
    }
    return Status::OK();
  }
  // Processing time: every stream of this process at once, each its own query; the first
  // failure stops all. Scaled out, this thread looks out for processes that are away (their
  // streams are taken over) or back (their streams are handed back after the batch in
  // progress).
  std::vector<Status> results(tasks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].home != state.process.index) {
      continue;
    }
    threads.emplace_back([this, &state, &results, &tasks, i] {
      results[i] = state.RunTask(tasks[i], nullptr);
      if (!results[i].ok()) {
        Stop();
      }
    });
  }
  std::list<AdoptedRun> adopted;
  Status look_out;
  while (state.takeover && look_out.ok() && state.WaitForNextLook()) {
    look_out = [&]() -> Status {
      for (auto run = adopted.begin(); run != adopted.end();) {
        if (run->finished.load()) {
          run->thread.join();
          TRIBUTARY_RETURN_NOT_OK(run->result);
          run = adopted.erase(run);
          continue;
        }
        std::shared_ptr<streaming::StreamExecution> execution;
        if (state.presence->IsRunning(run->task->home)) {
          std::lock_guard lock(state.mutex);
          execution = run->handed_back ? nullptr : run->execution;
          run->handed_back = true;
        }
        if (execution != nullptr) {
          state.EmitShare(*run->task, fmt::format("handing back to process {}, running again",
                                                  run->task->home));
          execution->Stop();
        }
        ++run;
      }
      for (const PipelineTask& task : tasks) {
        const bool taken = std::any_of(adopted.begin(), adopted.end(),
                                       [&](const AdoptedRun& run) { return run.task == &task; });
        if (taken) {
          continue;
        }
        TRIBUTARY_ASSIGN_OR_RAISE(const bool away, state.MayTakeOver(task));
        if (!away) {
          continue;
        }
        state.EmitShare(
            task, fmt::format("taking over from process {}, which is not running", task.home));
        AdoptedRun& run = adopted.emplace_back();
        run.task = &task;
        run.thread = std::thread([this, &state, &run] {
          run.result = state.RunTask(*run.task, &run);
          if (!run.result.ok()) {
            Stop();
          }
          run.finished.store(true);
        });
      }
      return Status::OK();
    }();
  }
  if (!look_out.ok()) {
    Stop();
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (AdoptedRun& run : adopted) {
    run.thread.join();
    if (look_out.ok()) {
      look_out = run.result;
    }
  }
  for (const Status& result : results) {
    TRIBUTARY_RETURN_NOT_OK(result);
  }
  return look_out;
}

void Pipeline::Stop() {
  std::vector<std::shared_ptr<streaming::StreamExecution>> running;
  {
    std::lock_guard lock(state_->mutex);
    state_->stop_requested = true;
    running = state_->running;
  }
  state_->stop_changed.notify_all();
  for (const auto& execution : running) {
    execution->Stop();
  }
}

}  // namespace tributary
