// SQL pipelines (tributary/pipeline.h): the statements of a file, the streaming tables ordered
// by what they read, one StreamExecution per table with a Delta sink that merges new columns.

#include "tributary/pipeline.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
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
#include "storage/path.h"
#include "streaming/delta_sink.h"
#include "streaming/file_source.h"
#include "streaming/offset_json.h"
#include "streaming/stream_execution.h"

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

namespace {

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
  bool stop_requested = false;
  std::vector<std::shared_ptr<streaming::StreamExecution>> running;

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

  std::string CheckpointOf(const std::string& table) const {
    const std::string root = options.checkpoint_root.empty()
                                 ? storage::JoinPath(session->WarehouseDirectory(), "_checkpoints")
                                 : options.checkpoint_root;
    return storage::JoinPath(root, table);
  }

  Result<sql::BoundStatement> BindTable(const StreamingTableDefinition& table) const {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(table.sql));
    const SessionState& state = *ApiAccess::State(*session);
    auto bound = sql::Bind(statement, state.MakeCatalog(0), state.config, CheckpointOf(table.name));
    if (!bound.ok()) {
      return bound.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    return bound;
  }

  Result<AutoCdcFlowPlan> BindFlow(const StreamingTableDefinition& table) const {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement(table.sql));
    auto flow = BindAutoCdcFlow(*ApiAccess::State(*session), statement, CheckpointOf(table.name));
    if (!flow.ok()) {
      return flow.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    return flow;
  }

  // An AUTO CDC target: the flow's columns and the declaring statement's properties.
  Status CreateFlowTarget(const StreamingTableDefinition& table) {
    TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow, BindFlow(table));
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
    TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table));
    storage::FileSystem& fs = *ApiAccess::State(*session)->fs;
    if (delta::HasDeltaLog(fs, bound.path)) {
      return Status::OK();
    }
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
    EmitCreated(table.name, *schema);
    return Status::OK();
  }

  Status RunTable(const StreamingTableDefinition& table);
};

namespace {

// Turns a query's progress into pipeline events; counts its batches.
class TableListener final : public StreamingQueryListener {
 public:
  /// `backlog_fs`: when set, batch events carry the files backlog of file sources, read from
  /// their source logs under `checkpoint`.
  TableListener(PipelineState& state, std::string table, storage::FileSystem* backlog_fs,
                std::string checkpoint)
      : state_(state),
        table_(std::move(table)),
        backlog_fs_(backlog_fs),
        checkpoint_(std::move(checkpoint)) {}

  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    batches_.fetch_add(1);
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kBatch;
    event.table = table_;
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
  storage::FileSystem* backlog_fs_;
  std::string checkpoint_;
  /// Per source, the files of the batches this run committed.
  std::vector<int64_t> files_done_;
  std::atomic<int64_t> batches_{0};
};

}  // namespace

Status PipelineState::RunTable(const StreamingTableDefinition& table) {
  const SessionState& state = *ApiAccess::State(*session);
  int restarts = 0;
  while (!StopRequested()) {
    const std::string checkpoint = CheckpointOf(table.name);
    plan::LogicalPlanPtr plan;
    std::unique_ptr<streaming::Sink> sink;
    if (table.auto_cdc) {
      TRIBUTARY_ASSIGN_OR_RAISE(AutoCdcFlowPlan flow, BindFlow(table));
      plan = flow.plan;
      sink = MakeAutoCdcSink(state, flow);
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table));
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
        *this, table.name, available_now ? state.fs.get() : nullptr, checkpoint);
    streaming::QueryOptions query;
    query.name = table.name;
    query.checkpoint_location = checkpoint;
    query.trigger = options.trigger;
    query.session_config = state.config;
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
    if (!started.ok()) {
      return started.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    std::shared_ptr<streaming::StreamExecution> execution = *std::move(started);
    bool stop_now = false;
    {
      std::lock_guard lock(mutex);
      running.push_back(execution);
      stop_now = stop_requested;
    }
    if (stop_now) {
      execution->Stop();
    }
    PipelineEvent started_event;
    started_event.kind = PipelineEvent::Kind::kStreamStarted;
    started_event.table = table.name;
    started_event.message = options.trigger.ToString();
    Emit(started_event);

    execution->AwaitTermination();
    {
      std::lock_guard lock(mutex);
      std::erase(running, execution);
    }
    const Status error = execution->Exception();
    if (execution->StoppedBySchemaChange() && !StopRequested()) {
      restarts = listener->Batches() > 0 ? 1 : restarts + 1;
      if (restarts > options.max_schema_restarts) {
        return error.WithContext(
            fmt::format("streaming table {}: still changing schema after {} restarts", table.name,
                        options.max_schema_restarts));
      }
      PipelineEvent restart;
      restart.kind = PipelineEvent::Kind::kSchemaRestart;
      restart.table = table.name;
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
  if (state.options.trigger.GetKind() != Trigger::Kind::kProcessingTime) {
    for (const StreamingTableDefinition& table : state.tables) {
      TRIBUTARY_RETURN_NOT_OK(state.RunTable(table));
    }
    return Status::OK();
  }
  // Processing time: every table at once, each its own query; the first failure stops all.
  std::vector<Status> results(state.tables.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < state.tables.size(); ++i) {
    threads.emplace_back([this, &state, &results, i] {
      results[i] = state.RunTable(state.tables[i]);
      if (!results[i].ok()) {
        Stop();
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const Status& result : results) {
    TRIBUTARY_RETURN_NOT_OK(result);
  }
  return Status::OK();
}

void Pipeline::Stop() {
  std::vector<std::shared_ptr<streaming::StreamExecution>> running;
  {
    std::lock_guard lock(state_->mutex);
    state_->stop_requested = true;
    running = state_->running;
  }
  for (const auto& execution : running) {
    execution->Stop();
  }
}

}  // namespace tributary
