// The public streaming API over the streaming layer: readers build streaming scans, writers
// pick a sink and a checkpoint and start a StreamExecution. The console and memory sinks are
// the streaming layer's; foreachBatch's lives here because it hands user code DataFrames.

#include "tributary/streaming.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "api/api_state.h"
#include "common/ascii.h"
#include "formats/json/json_reader.h"
#include "plan/plan_builder.h"
#include "plan/warehouse_catalog.h"
#include "storage/local_path.h"
#include "streaming/console_sink.h"
#include "streaming/delta_sink.h"
#include "streaming/kafka_sink.h"
#include "streaming/memory_sink.h"
#include "streaming/memory_source.h"
#include "streaming/source_factory.h"
#include "streaming/stream_execution.h"
#include "streaming/time_string.h"
#include "tributary/session.h"

namespace tributary {

/// What StreamingQuery copies share: the running query, and a temporary checkpoint to delete
/// once it is no longer needed.
class StreamingQueryHandle {
 public:
  StreamingQueryHandle(std::shared_ptr<streaming::StreamExecution> execution,
                       std::string temporary_checkpoint)
      : execution_(std::move(execution)), temporary_checkpoint_(std::move(temporary_checkpoint)) {}
  ~StreamingQueryHandle() {
    execution_->Stop();
    if (!temporary_checkpoint_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(temporary_checkpoint_, ignored);
    }
  }
  StreamingQueryHandle(const StreamingQueryHandle&) = delete;
  StreamingQueryHandle& operator=(const StreamingQueryHandle&) = delete;
  streaming::StreamExecution& Execution() const { return *execution_; }

 private:
  std::shared_ptr<streaming::StreamExecution> execution_;
  std::string temporary_checkpoint_;
};

struct MemoryStreamState {
  std::shared_ptr<streaming::MemoryStream> stream;
  std::shared_ptr<const streaming::SourceDefinition> definition;
};

namespace {

// foreachBatch: user code gets each batch as a DataFrame and its id.
class ForeachBatchSink final : public streaming::Sink {
 public:
  ForeachBatchSink(std::shared_ptr<SessionState> session,
                   std::function<tributary::Status(const DataFrame&, int64_t)> function)
      : session_(std::move(session)), function_(std::move(function)) {}

  Result<int64_t> AddBatch(const streaming::MicroBatch& batch) override {
    TRIBUTARY_RETURN_NOT_OK(function_(MakeDataFrame(session_, batch.plan), batch.batch_id));
    return -1;  // as Spark: the sink cannot know what the function wrote
  }
  std::string Description() const override { return "ForeachBatchSink"; }

 private:
  std::shared_ptr<SessionState> session_;
  std::function<tributary::Status(const DataFrame&, int64_t)> function_;
};

}  // namespace

DataStreamReader::DataStreamReader(std::shared_ptr<SessionState> session)
    : session_(std::move(session)) {}

DataStreamReader& DataStreamReader::Format(std::string_view format) {
  format_ = AsciiLower(format);
  return *this;
}

DataStreamReader& DataStreamReader::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

DataStreamReader& DataStreamReader::Options(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) {
    options_[key] = value;
  }
  return *this;
}

DataStreamReader& DataStreamReader::Schema(std::string ddl) {
  schema_ = std::move(ddl);
  return *this;
}

DataFrame DataStreamReader::Load(const std::string& path) const {
  auto load = [&]() -> Result<plan::LogicalPlanPtr> {
    streaming::SourceRequest request;
    request.format = format_;
    request.path = path;
    request.options = options_;
    if (!schema_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(request.schema, plan::ParseSchemaDdl(schema_));
    }
    request.fs = session_->fs.get();
    request.eval = session_->MakeCatalog(0).eval;
    request.session_config = session_->config;
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, streaming::DefineSource(request));
    return streaming::StreamScan(std::move(definition));
  };
  return MakeDataFrame(session_, load());
}

DataFrame DataStreamReader::Table(const std::string& name) const {
  auto path = plan::TablePath(session_->MakeCatalog(0), name);
  if (!path.ok()) {
    return MakeDataFrame(session_, path.status());
  }
  DataStreamReader reader(session_);
  reader.Format("delta").Options(options_);
  DataFrame frame = reader.Load(*path);
  return frame.Status().ok() ? frame.Alias(name) : frame;
}

StreamingQuery::StreamingQuery(std::shared_ptr<StreamingQueryHandle> handle)
    : handle_(std::move(handle)) {}

const std::string& StreamingQuery::Id() const {
  return handle_->Execution().Id();
}
const std::string& StreamingQuery::RunId() const {
  return handle_->Execution().RunId();
}
const std::string& StreamingQuery::Name() const {
  return handle_->Execution().Name();
}
bool StreamingQuery::IsActive() const {
  return handle_->Execution().IsActive();
}
void StreamingQuery::Stop() const {
  handle_->Execution().Stop();
}

tributary::Status StreamingQuery::AwaitTermination() const {
  handle_->Execution().AwaitTermination();
  return handle_->Execution().Exception();
}

bool StreamingQuery::AwaitTermination(std::chrono::milliseconds timeout) const {
  return handle_->Execution().AwaitTermination(timeout);
}

tributary::Status StreamingQuery::ProcessAllAvailable() const {
  return handle_->Execution().ProcessAllAvailable();
}

std::optional<StreamingQueryProgress> StreamingQuery::LastProgress() const {
  return handle_->Execution().LastProgress();
}

std::vector<StreamingQueryProgress> StreamingQuery::RecentProgress() const {
  return handle_->Execution().RecentProgress();
}

tributary::Status StreamingQuery::Exception() const {
  return handle_->Execution().Exception();
}

bool StreamingQuery::StoppedBySchemaChange() const {
  return handle_->Execution().StoppedBySchemaChange();
}

StreamingQueryStatus StreamingQuery::Status() const {
  return handle_->Execution().CurrentStatus();
}

DataStreamWriter::DataStreamWriter(DataFrame frame) : frame_(std::move(frame)) {}

DataStreamWriter& DataStreamWriter::Format(std::string_view format) {
  format_ = AsciiLower(format);
  return *this;
}

DataStreamWriter& DataStreamWriter::OutputMode(std::string_view mode) {
  output_mode_ = AsciiLower(mode);
  return *this;
}

DataStreamWriter& DataStreamWriter::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

DataStreamWriter& DataStreamWriter::Options(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) {
    options_[key] = value;
  }
  return *this;
}

DataStreamWriter& DataStreamWriter::PartitionBy(const std::vector<std::string>& columns) {
  partition_by_ = columns;
  return *this;
}

DataStreamWriter& DataStreamWriter::Trigger(tributary::Trigger trigger) {
  trigger_ = trigger;
  return *this;
}

DataStreamWriter& DataStreamWriter::QueryName(std::string name) {
  query_name_ = std::move(name);
  return *this;
}

DataStreamWriter& DataStreamWriter::ForeachBatch(
    std::function<tributary::Status(const DataFrame&, int64_t)> fn) {
  format_ = "foreachbatch";
  foreach_batch_ = std::move(fn);
  return *this;
}

Result<StreamingQuery> DataStreamWriter::ToTable(const std::string& name) {
  const std::shared_ptr<SessionState>& session = ApiAccess::State(frame_)->session;
  TRIBUTARY_ASSIGN_OR_RAISE(std::string path,
                            plan::DeltaTablePathForWrite(session->MakeCatalog(0), name, "ToTable"));
  if (format_ != "delta") {
    return Status::InvalidArgument(
        fmt::format("ToTable writes a Delta table; format '{}' has no tables", format_));
  }
  return Start(path);
}

Result<StreamingQuery> DataStreamWriter::Start(const std::string& path) {
  TRIBUTARY_RETURN_NOT_OK(frame_.Status());
  const std::shared_ptr<SessionState>& session = ApiAccess::State(frame_)->session;
  TRIBUTARY_ASSIGN_OR_RAISE(const exec::OutputMode output_mode,
                            streaming::ParseOutputMode(output_mode_));
  if (format_ == "delta" && output_mode == exec::OutputMode::kUpdate) {
    // Delta's own refusal: a table cannot take changed rows without a MERGE (foreachBatch).
    return Status::InvalidArgument(
        "Data source delta does not support Update output mode (use append or complete, or "
        "foreachBatch with a MERGE)");
  }

  std::unique_ptr<streaming::Sink> sink;
  bool temporary_checkpoint_allowed = false;
  if (format_ == "delta") {
    if (path.empty()) {
      return Status::InvalidArgument(
          "a Delta sink needs a table path: Start(path) or ToTable(name)");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string table, storage::StoragePath(path));
    TRIBUTARY_ASSIGN_OR_RAISE(sink, streaming::DeltaSink::Make(table, options_, partition_by_));
  } else if (format_ == "kafka") {
    if (!path.empty()) {
      return Status::InvalidArgument(fmt::format(
          "a Kafka sink takes no path (got '{}'): give the topic option or a topic column", path));
    }
    // The sink sees its own options (kafka.*, topic, ...), not the query's.
    std::map<std::string, std::string> sink_options = options_;
    sink_options.erase("checkpointLocation");
    TRIBUTARY_ASSIGN_OR_RAISE(sink, streaming::KafkaSink::Make(sink_options));
  } else if (format_ == "console") {
    int64_t num_rows = 20;
    if (auto it = options_.find("numRows"); it != options_.end()) {
      num_rows = std::strtoll(it->second.c_str(), nullptr, 10);
    }
    bool truncate = true;
    if (auto it = options_.find("truncate"); it != options_.end()) {
      truncate = AsciiLower(it->second) != "false";
    }
    sink = std::make_unique<streaming::ConsoleSink>(std::cout, num_rows, truncate);
    temporary_checkpoint_allowed = true;
  } else if (format_ == "memory") {
    if (query_name_.empty()) {
      return Status::InvalidArgument("a memory sink needs a QueryName: its table's name");
    }
    sink = std::make_unique<streaming::MemorySink>(session->memory_tables, AsciiLower(query_name_));
    temporary_checkpoint_allowed = true;
  } else if (format_ == "foreachbatch") {
    if (!foreach_batch_) {
      return Status::InvalidArgument("format foreachBatch needs ForeachBatch(function)");
    }
    sink = std::make_unique<ForeachBatchSink>(session, foreach_batch_);
  } else {
    return Status::InvalidArgument(fmt::format(
        "unknown streaming sink format '{}' (delta, kafka, console, memory, foreachBatch)",
        format_));
  }

  // The checkpoint: the option, else <spark.sql.streaming.checkpointLocation>/<queryName>,
  // else a temporary one for the debugging sinks (as Spark), else an error.
  std::string checkpoint;
  std::string temporary;
  if (auto it = options_.find("checkpointLocation"); it != options_.end()) {
    checkpoint = it->second;
  } else if (auto root = session->config.find("spark.sql.streaming.checkpointLocation");
             root != session->config.end() && !query_name_.empty()) {
    checkpoint = root->second + "/" + query_name_;
  } else if (temporary_checkpoint_allowed) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tributary-checkpoint-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError("creating a temporary checkpoint directory");
    }
    checkpoint = temporary = pattern;
  } else {
    return Status::InvalidArgument(
        "checkpointLocation must be specified either through Option(\"checkpointLocation\", "
        "...) or the session setting spark.sql.streaming.checkpointLocation (with a "
        "QueryName)");
  }

  streaming::QueryOptions options;
  options.name = query_name_;
  options.checkpoint_location = checkpoint;
  options.trigger = trigger_;
  options.output_mode = output_mode;
  options.session_config = session->config;
  options.eval = session->MakeCatalog(0).eval;
  if (auto it = session->config.find("spark.sql.streaming.minBatchesToRetain");
      it != session->config.end()) {
    options.min_batches_to_retain = std::max<int64_t>(1, std::atoll(it->second.c_str()));
  }
  if (auto it = session->config.find("spark.sql.streaming.pollingDelay");
      it != session->config.end()) {
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t micros, streaming::TimeStringAsMicros(
                                                  "spark.sql.streaming.pollingDelay", it->second,
                                                  streaming::TimeStringUnit::kMilliseconds));
    options.polling_delay = std::chrono::milliseconds(micros / 1000);
  }
  {
    std::lock_guard lock(session->streaming_mutex);
    options.listeners = session->listeners;
  }
  auto execution = streaming::StreamExecution::Start(
      ApiAccess::State(frame_)->plan, std::move(sink), std::move(options), session->fs);
  if (!execution.ok()) {
    if (!temporary.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(temporary, ignored);
    }
    return execution.status();
  }
  return ApiAccess::MakeStreamingQuery(
      std::make_shared<StreamingQueryHandle>(std::move(*execution), temporary));
}

Result<MemoryStream> MemoryStream::Make(const std::shared_ptr<Session>& session,
                                        const std::string& ddl) {
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr schema, plan::ParseSchemaDdl(ddl));
  auto state = std::make_shared<MemoryStreamState>();
  state->stream = std::make_shared<streaming::MemoryStream>(std::move(schema));
  state->definition = streaming::MemoryStream::Definition(state->stream);
  return ApiAccess::MakeMemoryStream(ApiAccess::State(*session), std::move(state));
}

MemoryStream::MemoryStream(std::shared_ptr<SessionState> session,
                           std::shared_ptr<MemoryStreamState> stream)
    : session_(std::move(session)), stream_(std::move(stream)) {}

tributary::Status MemoryStream::AddJson(const std::vector<std::string>& rows) const {
  std::string text;
  for (const std::string& row : rows) {
    text += row;
    text += '\n';
  }
  json::JsonReadOptions options;
  options.mode = text::ParseMode::kFailFast;
  // The rows must have exactly the stream's schema: no rescued-data column.
  options.rescued_data_column.clear();
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto reader,
      json::JsonReader::Make("MemoryStream.AddJson", text, stream_->stream->Schema(), options));
  std::vector<columnar::RecordBatchPtr> batches;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch, reader->Next());
    if (batch == nullptr) {
      break;
    }
    batches.push_back(std::move(batch));
  }
  return stream_->stream->AddData(batches).status();
}

DataFrame MemoryStream::ToDF() const {
  return MakeDataFrame(session_, streaming::StreamScan(stream_->definition));
}

DataStreamReader Session::ReadStream() const {
  return ApiAccess::MakeDataStreamReader(state_);
}

void Session::AddStreamingListener(std::shared_ptr<StreamingQueryListener> listener) const {
  std::lock_guard lock(state_->streaming_mutex);
  state_->listeners.push_back(std::move(listener));
}

DataStreamWriter DataFrame::WriteStream() const {
  return ApiAccess::MakeDataStreamWriter(*this);
}

bool DataFrame::IsStreaming() const {
  return state_->plan != nullptr && state_->plan->IsStreaming();
}

}  // namespace tributary
