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
#include "common/ascii.h"
#include "delta/table_writes.h"
#include "sql/binder.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "storage/file_system.h"
#include "storage/path.h"
#include "streaming/delta_sink.h"
#include "streaming/file_source.h"
#include "streaming/stream_execution.h"

namespace tributary {

namespace {

/// One CREATE STREAMING TABLE of the file.
struct StreamingTableDefinition {
  /// Lowercased, as the warehouse stores it.
  std::string name;
  /// The statement's text, bound again at every (re)start so a restart sees new columns.
  std::string sql;
  /// Tables of the pipeline it reads (lowercased).
  std::vector<std::string> reads;
};

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

bool TableExists(storage::FileSystem& fs, const std::string& path) {
  auto log = fs.GetFileInfo(path + "/_delta_log");
  return log.ok() && log->is_directory;
}

// The stream sources of `plan` in the order the engine numbers them (sources/<n>/).
void CollectSources(const plan::LogicalPlan& node,
                    std::vector<std::shared_ptr<const streaming::SourceDefinition>>& out) {
  if (node.Kind() != plan::PlanKind::kScan) {
    for (const plan::LogicalPlanPtr& input : node.Inputs()) {
      CollectSources(*input, out);
    }
    return;
  }
  const plan::ScanSource& source = static_cast<const plan::ScanNode&>(node).Source();
  auto definition = std::dynamic_pointer_cast<const streaming::SourceDefinition>(source.stream);
  if (definition != nullptr && std::find(out.begin(), out.end(), definition) == out.end()) {
    out.push_back(std::move(definition));
  }
}

// Files below a file stream source's path that its source log in `metadata_dir` does not
// hold yet: what an available-now run has ahead of it.
Result<int64_t> FilesNotIngested(storage::FileSystem& fs,
                                 const streaming::FileSourceDefinition& source,
                                 const std::string& metadata_dir) {
  auto listed = plan::ListDataFileInfos(fs, source.Path());
  if (!listed.ok()) {
    return listed.status().IsNotFound() ? Result<int64_t>(0) : listed.status();
  }
  std::set<std::string> ingested;
  streaming::FileSourceLog log(fs, metadata_dir);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> batch_ids, log.BatchIds());
  for (int64_t id : batch_ids) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<streaming::FileEntry> entries, log.Read(id));
    for (streaming::FileEntry& entry : entries) {
      ingested.insert(std::move(entry.path));
    }
  }
  return static_cast<int64_t>(std::count_if(
      listed->begin(), listed->end(), [&](const auto& f) { return !ingested.contains(f.path); }));
}

}  // namespace

struct PipelineState {
  std::shared_ptr<Session> session;
  PipelineOptions options;
  /// Statements that are not streaming tables, in file order.
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
    const SessionState& state = *session->State();
    auto bound = sql::Bind(statement, state.MakeCatalog(0), state.config);
    if (!bound.ok()) {
      return bound.status().WithContext(fmt::format("streaming table {}", table.name));
    }
    return bound;
  }

  // The table as an empty Delta table with its query's columns, partitioning and properties,
  // unless it exists.
  Status CreateTable(const StreamingTableDefinition& table) {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table));
    storage::FileSystem& fs = *session->State()->fs;
    if (TableExists(fs, bound.path)) {
      return Status::OK();
    }
    delta::TableWriteOptions write;
    write.mode = delta::SaveMode::kIgnore;
    write.partition_by = bound.create.partition_by;
    write.properties.insert(bound.create.properties.begin(), bound.create.properties.end());
    write.operation = "CREATE STREAMING TABLE";
    const columnar::SchemaPtr& schema = bound.plan->Schema();
    auto created = delta::WriteTable(fs, bound.path, schema, {}, write);
    if (!created.ok()) {
      return created.status().WithContext(fmt::format("creating streaming table {}", table.name));
    }
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kTableCreated;
    event.table = table.name;
    std::vector<std::string> columns;
    for (const columnar::Field& field : schema->Fields()) {
      columns.push_back(field.Name() + " " + field.Type()->ToString());
    }
    event.message = fmt::format("{}", fmt::join(columns, ", "));
    Emit(event);
    return Status::OK();
  }

  Status RunTable(const StreamingTableDefinition& table);
};

namespace {

// Turns a query's progress into pipeline events; counts its batches.
class TableListener final : public StreamingQueryListener {
 public:
  TableListener(PipelineState& state, std::string table,
                std::vector<std::optional<int64_t>> files_ahead)
      : state_(state), table_(std::move(table)), files_ahead_(std::move(files_ahead)) {}

  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    batches_.fetch_add(1);
    PipelineEvent event;
    event.kind = PipelineEvent::Kind::kBatch;
    event.table = table_;
    event.progress = progress;
    event.backlog = Backlog(progress);
    state_.Emit(event);
  }

  int64_t Batches() const { return batches_.load(); }

 private:
  // Files of the file sources done so far out of those ahead at start: the sources report
  // how many they still have outstanding after each batch (numFilesOutstanding).
  std::optional<PipelineBacklog> Backlog(const StreamingQueryProgress& progress) const {
    PipelineBacklog backlog;
    backlog.unit = "files";
    bool known = false;
    for (size_t i = 0; i < files_ahead_.size() && i < progress.sources.size(); ++i) {
      auto outstanding = progress.sources[i].metrics.find("numFilesOutstanding");
      if (!files_ahead_[i].has_value() || outstanding == progress.sources[i].metrics.end()) {
        continue;
      }
      const int64_t left = std::atoll(outstanding->second.c_str());
      const int64_t total = std::max(*files_ahead_[i], left);
      backlog.total += total;
      backlog.done += total - left;
      known = true;
    }
    return known ? std::optional<PipelineBacklog>(backlog) : std::nullopt;
  }

  PipelineState& state_;
  std::string table_;
  std::vector<std::optional<int64_t>> files_ahead_;
  std::atomic<int64_t> batches_{0};
};

}  // namespace

Status PipelineState::RunTable(const StreamingTableDefinition& table) {
  const SessionState& state = *session->State();
  int restarts = 0;
  while (!StopRequested()) {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound, BindTable(table));
    const std::string checkpoint = CheckpointOf(table.name);

    // Available-now runs have a known backlog: the files their file sources have not taken.
    std::vector<std::optional<int64_t>> files_ahead;
    if (options.trigger.GetKind() == Trigger::Kind::kAvailableNow) {
      std::vector<std::shared_ptr<const streaming::SourceDefinition>> sources;
      CollectSources(*bound.plan, sources);
      for (size_t i = 0; i < sources.size(); ++i) {
        const auto* files = dynamic_cast<const streaming::FileSourceDefinition*>(sources[i].get());
        files_ahead.emplace_back();
        if (files != nullptr) {
          const std::string dir =
              storage::JoinPath(storage::JoinPath(checkpoint, "sources"), std::to_string(i));
          TRIBUTARY_ASSIGN_OR_RAISE(files_ahead.back(), FilesNotIngested(*state.fs, *files, dir));
        }
      }
    }

    std::map<std::string, std::string> sink_options(bound.create.properties.begin(),
                                                    bound.create.properties.end());
    sink_options["mergeSchema"] = "true";
    TRIBUTARY_ASSIGN_OR_RAISE(
        std::unique_ptr<streaming::DeltaSink> sink,
        streaming::DeltaSink::Make(bound.path, sink_options, bound.create.partition_by));
    auto listener = std::make_shared<TableListener>(*this, table.name, std::move(files_ahead));
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
        streaming::StreamExecution::Start(bound.plan, std::move(sink), std::move(query), state.fs);
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
    if (error.IsSchemaChanged() && !StopRequested()) {
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
  for (const sql::StatementText& text : texts) {
    auto statement = sql::ParseStatement(text.text);
    if (!statement.ok()) {
      return statement.status().WithContext(
          fmt::format("the statement at line {}", text.position.line));
    }
    const auto* create = std::get_if<sql::CreateTable>(&statement->body);
    if (create == nullptr || !create->streaming) {
      state->statements.emplace_back(text.text);
      continue;
    }
    if (create->table.IsPath() || create->table.parts.size() != 1) {
      return Status::InvalidArgument(
          fmt::format("streaming table {} at line {}: a pipeline's tables are warehouse names",
                      create->table.ToString(), text.position.line));
    }
    StreamingTableDefinition table;
    table.name = AsciiLower(create->table.parts[0]);
    table.sql = std::string(text.text);
    table.reads = sql::ReferencedTables(*statement);
    if (std::any_of(tables.begin(), tables.end(),
                    [&](const auto& other) { return other.name == table.name; })) {
      return Status::InvalidArgument(
          fmt::format("streaming table {} is defined twice (again at line {})", table.name,
                      text.position.line));
    }
    tables.push_back(std::move(table));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state->tables, DependencyOrder(std::move(tables)));
  return std::make_unique<Pipeline>(std::move(state));
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
  for (const std::string& statement : state.statements) {
    TRIBUTARY_RETURN_NOT_OK(state.session->Sql(statement).Status());
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
