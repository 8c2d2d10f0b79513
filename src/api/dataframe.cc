#include "tributary/dataframe.h"

#include <charconv>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "api/api_state.h"
#include "columnar/show_string.h"
#include "common/ascii.h"
#include "common/thread_count.h"
#include "delta/table_writes.h"
#include "exec/operator.h"
#include "expr/interval_text.h"
#include "formats/reader_options.h"
#include "plan/optimizer.h"
#include "plan/physical_planner.h"
#include "plan/plan_builder.h"
#include "plan/warehouse_catalog.h"
#include "sql/parser.h"
#include "storage/local_path.h"
#include "streaming/kafka_sink.h"

namespace tributary {

namespace {

using plan::LogicalPlanPtr;

// The error of the first column that could not be built, or OK.
tributary::Status ColumnsStatus(const std::vector<Column>& columns) {
  for (const Column& column : columns) {
    if (!column.Error().empty()) {
      return tributary::Status::InvalidArgument(column.Error());
    }
  }
  return tributary::Status::OK();
}

Result<exec::JoinType> ParseJoinType(std::string_view how) {
  std::string normalized = AsciiLower(how);
  std::erase(normalized, '_');
  if (normalized == "inner") {
    return exec::JoinType::kInner;
  }
  if (normalized == "cross") {
    return exec::JoinType::kCross;
  }
  if (normalized == "left" || normalized == "leftouter") {
    return exec::JoinType::kLeft;
  }
  if (normalized == "right" || normalized == "rightouter") {
    return exec::JoinType::kRight;
  }
  if (normalized == "outer" || normalized == "full" || normalized == "fullouter") {
    return exec::JoinType::kFull;
  }
  if (normalized == "semi" || normalized == "leftsemi") {
    return exec::JoinType::kLeftSemi;
  }
  if (normalized == "anti" || normalized == "leftanti") {
    return exec::JoinType::kLeftAnti;
  }
  return tributary::Status::InvalidArgument(fmt::format(
      "unsupported join type '{}': use inner, cross, outer, full, fullouter, full_outer, left, "
      "leftouter, left_outer, right, rightouter, right_outer, semi, leftsemi, left_semi, anti, "
      "leftanti, left_anti",
      how));
}

std::vector<plan::NamedExpr> NamedExprs(const std::vector<Column>& columns) {
  std::vector<plan::NamedExpr> items;
  items.reserve(columns.size());
  for (const Column& column : columns) {
    items.push_back({ApiAccess::Expr(column), ApiAccess::AliasName(column)});
  }
  return items;
}

}  // namespace

DataFrame MakeDataFrame(std::shared_ptr<SessionState> session, Result<LogicalPlanPtr> plan) {
  auto state = std::make_shared<DataFrameState>();
  state->session = std::move(session);
  if (plan.ok()) {
    state->plan = std::move(*plan);
  } else {
    state->error = plan.status();
  }
  return ApiAccess::MakeDataFrame(std::move(state));
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

plan::Catalog SessionState::MakeCatalog(int64_t now_micros) const {
  plan::Catalog catalog;
  catalog.fs = fs.get();
  catalog.warehouse = warehouse;
  catalog.eval.session_time_zone = time_zone;
  catalog.eval.current_timestamp_micros = now_micros;
  // A bad setting is reported when the query runs (ExecuteDataFrame); inference then uses one.
  catalog.threads = ResolveThreadCount(config).ValueOr(1);
  catalog.current_schema = current_schema;
  catalog.session_views = [this]() {
    std::vector<std::string> names;
    std::lock_guard<std::mutex> lock(views_mutex);
    for (const auto& [name, view] : views) {
      names.push_back(name);
    }
    return names;
  };
  catalog.session_table = [this](const std::string& name) -> plan::LogicalPlanPtr {
    {
      std::lock_guard<std::mutex> lock(views_mutex);
      if (auto view = views.find(name); view != views.end()) {
        return view->second;
      }
    }
    std::optional<streaming::MemoryTable> table = memory_tables->Find(name);
    if (!table) {
      return nullptr;
    }
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = std::move(table->schema);
    source.batches = std::move(table->batches);
    source.description = "memory table " + name;
    return plan::Scan(std::move(source), "");
  };
  return catalog;
}

Result<std::vector<columnar::RecordBatchPtr>> ExecuteDataFrame(const DataFrameState& frame) {
  TRIBUTARY_RETURN_NOT_OK(frame.error);
  exec::ExecContext context;
  context.eval.session_time_zone = frame.session->time_zone;
  context.eval.current_schema = frame.session->current_schema;
  // current_timestamp() is one instant for the whole query, as Spark.
  context.eval.current_timestamp_micros = NowMicros();
  context.fs = frame.session->fs.get();
  TRIBUTARY_ASSIGN_OR_RAISE(context.threads, ResolveThreadCount(frame.session->config));
  TRIBUTARY_ASSIGN_OR_RAISE(auto memory, plan::QueryMemory::Make(frame.session->config));
  memory->Attach(&context);
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr optimized, plan::Optimize(frame.plan, context.eval));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root, plan::CreatePhysicalPlan(*optimized, context));
  return exec::Drain(*root);
}

StructType ToStructType(const columnar::Schema& schema) {
  StructType out;
  for (const columnar::Field& field : schema.Fields()) {
    out.fields.push_back({field.Name(), field.Type()->ToString(), field.Nullable()});
  }
  return out;
}

std::vector<Row> ToRows(const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<Row> rows;
  for (const columnar::RecordBatchPtr& batch : batches) {
    ApiAccess::AppendRows(batch, &rows);
  }
  return rows;
}

DataFrame::DataFrame(std::shared_ptr<const DataFrameState> state) : state_(std::move(state)) {}

tributary::Status DataFrame::Status() const {
  return state_->error;
}

StructType DataFrame::Schema() const {
  return state_->plan ? ToStructType(*state_->plan->Schema()) : StructType{};
}

std::vector<std::string> DataFrame::Columns() const {
  std::vector<std::string> names;
  for (const StructField& field : Schema().fields) {
    names.push_back(field.name);
  }
  return names;
}

namespace {

// Applies `transform` to the frame's plan unless it already carries an error.
template <typename F>
DataFrame Transform(const DataFrameState& state, F&& transform) {
  if (!state.error.ok()) {
    return MakeDataFrame(state.session, state.error);
  }
  return MakeDataFrame(state.session, transform(state.plan));
}

}  // namespace

DataFrame DataFrame::Select(const std::vector<Column>& columns) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus(columns));
    return plan::Select(input, NamedExprs(columns));
  });
}

DataFrame DataFrame::Select(const std::vector<std::string>& names) const {
  std::vector<Column> columns;
  columns.reserve(names.size());
  for (const std::string& name : names) {
    columns.push_back(Col(name));
  }
  return Select(columns);
}

DataFrame DataFrame::Select(std::initializer_list<const char*> names) const {
  return Select(std::vector<std::string>(names.begin(), names.end()));
}

DataFrame DataFrame::SelectExpr(const std::vector<std::string>& expressions) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    std::vector<plan::NamedExpr> items;
    for (const std::string& text : expressions) {
      // Parsed as a one-item SELECT so "expr AS alias" and "t.*" work as in Spark.
      TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement statement, sql::ParseStatement("SELECT " + text));
      const auto* query = std::get_if<sql::QueryPtr>(&statement.body);
      if (query == nullptr || (*query)->select.size() != 1 || (*query)->from != nullptr) {
        return tributary::Status::InvalidArgument(
            fmt::format("selectExpr: '{}' is not one expression", text));
      }
      const sql::SelectItem& item = (*query)->select.front();
      if (item.IsStar()) {
        std::string path;
        for (const std::string& part : item.star_qualifier) {
          path += "`" + part + "`.";
        }
        items.push_back({expr::Col(path + "*"), ""});
      } else {
        items.push_back({item.expr, item.alias});
      }
    }
    return plan::Select(input, items);
  });
}

DataFrame DataFrame::Filter(const Column& condition) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus({condition}));
    return plan::Filter(input, ApiAccess::Expr(condition));
  });
}

DataFrame DataFrame::Filter(std::string_view condition) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(expr::ExprPtr parsed, sql::ParseExpression(condition));
    return plan::Filter(input, parsed);
  });
}

DataFrame DataFrame::WithColumn(const std::string& name, const Column& value) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus({value}));
    return plan::WithColumn(input, name, ApiAccess::Expr(value));
  });
}

DataFrame DataFrame::WithColumnRenamed(const std::string& existing, const std::string& name) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    std::vector<std::string> names;
    for (const columnar::Field& field : input->Schema()->Fields()) {
      // Spark: renaming a column that does not exist is a no-op.
      names.push_back(field.Name() == existing ? name : field.Name());
    }
    return plan::Rename(input, names);
  });
}

DataFrame DataFrame::Drop(const std::vector<std::string>& names) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) { return plan::Drop(input, names); });
}

GroupedData DataFrame::GroupBy(const std::vector<Column>& keys) const {
  return ApiAccess::MakeGroupedData(*this, keys);
}

DataFrame DataFrame::Agg(const std::vector<Column>& aggregates) const {
  return ApiAccess::MakeGroupedData(*this, {}).Agg(aggregates);
}

DataFrame DataFrame::Join(const DataFrame& other, const Column& on, std::string_view how) const {
  if (!other.state_->error.ok()) {
    return other;
  }
  return Transform(*state_, [&](const LogicalPlanPtr& left) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus({on}));
    TRIBUTARY_ASSIGN_OR_RAISE(exec::JoinType type, ParseJoinType(how));
    return plan::Join(left, other.state_->plan, type, ApiAccess::Expr(on));
  });
}

DataFrame DataFrame::Join(const DataFrame& other, const std::vector<std::string>& using_columns,
                          std::string_view how) const {
  if (!other.state_->error.ok()) {
    return other;
  }
  return Transform(*state_, [&](const LogicalPlanPtr& left) -> Result<LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(exec::JoinType type, ParseJoinType(how));
    return plan::JoinUsing(left, other.state_->plan, type, using_columns);
  });
}

DataFrame DataFrame::CrossJoin(const DataFrame& other) const {
  if (!other.state_->error.ok()) {
    return other;
  }
  return Transform(*state_, [&](const LogicalPlanPtr& left) {
    return plan::Join(left, other.state_->plan, exec::JoinType::kCross, nullptr);
  });
}

DataFrame DataFrame::OrderBy(const std::vector<Column>& columns) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus(columns));
    std::vector<plan::SortItem> items;
    items.reserve(columns.size());
    for (const Column& column : columns) {
      items.push_back(
          {ApiAccess::Expr(column), ApiAccess::Ascending(column), ApiAccess::NullsFirst(column)});
    }
    return plan::OrderBy(input, items);
  });
}

DataFrame DataFrame::Limit(int64_t n) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) { return plan::Limit(input, n); });
}

DataFrame DataFrame::Distinct() const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) {
    // Spark's Dataset.distinct is dropDuplicates(): on a stream, a deduplication with state.
    return input->IsStreaming() ? plan::DropDuplicates(input, {}, /*within_watermark=*/false)
                                : plan::Distinct(input);
  });
}

DataFrame DataFrame::DropDuplicates(const std::vector<std::string>& columns) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) {
    return plan::DropDuplicates(input, columns, /*within_watermark=*/false);
  });
}

DataFrame DataFrame::DropDuplicatesWithinWatermark(const std::vector<std::string>& columns) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) {
    return plan::DropDuplicates(input, columns, /*within_watermark=*/true);
  });
}

DataFrame DataFrame::WithWatermark(std::string_view event_time,
                                   std::string_view delay_threshold) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t delay, expr::ParseIntervalMicros(delay_threshold));
    return plan::Watermark(input, std::string(event_time), delay, delay_threshold);
  });
}

DataFrame DataFrame::Union(const DataFrame& other) const {
  if (!other.state_->error.ok()) {
    return other;
  }
  return Transform(*state_, [&](const LogicalPlanPtr& input) {
    return plan::Union({input, other.state_->plan}, /*distinct=*/false);
  });
}

DataFrame DataFrame::Alias(const std::string& alias) const {
  return Transform(*state_, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    return input->WithAlias(alias);
  });
}

Result<std::vector<Row>> DataFrame::Collect() const {
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(*state_));
  return ToRows(batches);
}

Result<int64_t> DataFrame::Count() const {
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(*Agg({tributary::Count()}).State()));
  Row row = ApiAccess::MakeRow(batches.front(), 0);
  return row.GetLong(0);
}

Result<std::vector<Row>> DataFrame::Take(int64_t n) const {
  return Limit(n).Collect();
}

tributary::Status DataFrame::Show(int64_t n, bool truncate) const {
  return Show(std::cout, n, truncate);
}

tributary::Status DataFrame::Show(std::ostream& out, int64_t n, bool truncate) const {
  // One more row than shown tells whether to print "only showing top n rows".
  TRIBUTARY_ASSIGN_OR_RAISE(auto rows, ExecuteDataFrame(*Limit(n + 1).State()));
  std::string text;
  columnar::AppendShowString(Columns(), rows, n, truncate, &text);
  out << text;
  return tributary::Status::OK();
}

Result<std::string> DataFrame::Explain() const {
  TRIBUTARY_RETURN_NOT_OK(state_->error);
  exec::ExecContext context;
  context.eval.session_time_zone = state_->session->time_zone;
  context.fs = state_->session->fs.get();
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr optimized, plan::Optimize(state_->plan, context.eval));
  TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root, plan::CreatePhysicalPlan(*optimized, context));
  return "== Analyzed Logical Plan ==\n" + plan::ExplainLogical(*state_->plan) +
         "== Optimized Logical Plan ==\n" + plan::ExplainLogical(*optimized) +
         "== Physical Plan ==\n" + exec::Explain(*root);
}

DataFrameWriter DataFrame::Write() const {
  return ApiAccess::MakeDataFrameWriter(*this);
}

GroupedData::GroupedData(DataFrame input, std::vector<Column> keys)
    : input_(std::move(input)), keys_(std::move(keys)) {}

DataFrame GroupedData::Agg(const std::vector<Column>& aggregates) const {
  const DataFrameState& state = *ApiAccess::State(input_);
  return Transform(state, [&](const LogicalPlanPtr& input) -> Result<LogicalPlanPtr> {
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus(keys_));
    TRIBUTARY_RETURN_NOT_OK(ColumnsStatus(aggregates));
    std::vector<expr::ExprPtr> keys;
    std::vector<Column> outputs = keys_;
    for (const Column& key : keys_) {
      keys.push_back(ApiAccess::Expr(key));
    }
    outputs.insert(outputs.end(), aggregates.begin(), aggregates.end());
    return plan::Aggregate(input, keys, NamedExprs(outputs), nullptr);
  });
}

DataFrame GroupedData::Count() const {
  return Agg({tributary::Count().Alias("count")});
}

DataFrameWriter::DataFrameWriter(DataFrame frame) : frame_(std::move(frame)) {}

DataFrameWriter& DataFrameWriter::Format(std::string_view format) {
  format_ = std::string(format);
  return *this;
}

DataFrameWriter& DataFrameWriter::Mode(std::string_view mode) {
  mode_ = std::string(mode);
  return *this;
}

DataFrameWriter& DataFrameWriter::PartitionBy(const std::vector<std::string>& columns) {
  partition_by_ = columns;
  return *this;
}

DataFrameWriter& DataFrameWriter::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

namespace {

Result<delta::SaveMode> ParseSaveMode(std::string_view mode) {
  const std::string lowered = AsciiLower(mode);
  if (lowered == "append") {
    return delta::SaveMode::kAppend;
  }
  if (lowered == "overwrite") {
    return delta::SaveMode::kOverwrite;
  }
  if (lowered == "error" || lowered == "errorifexists" || lowered == "default") {
    return delta::SaveMode::kErrorIfExists;
  }
  if (lowered == "ignore") {
    return delta::SaveMode::kIgnore;
  }
  return tributary::Status::InvalidArgument(fmt::format(
      "unknown save mode '{}': use append, overwrite, error, errorifexists or ignore", mode));
}

}  // namespace

tributary::Status DataFrameWriter::Save(const std::string& path) {
  const std::string format = AsciiLower(format_);
  if (format == "kafka") {
    return SaveKafka(path);
  }
  if (format != "delta") {
    return tributary::Status::NotImplemented(
        fmt::format("DataFrameWriter format '{}': only delta and kafka are supported", format_));
  }
  if (path.empty()) {
    return tributary::Status::InvalidArgument(
        "a Delta write needs a table path: Save(path) or SaveAsTable(name)");
  }
  const DataFrameState& state = *ApiAccess::State(frame_);
  TRIBUTARY_RETURN_NOT_OK(state.error);
  delta::TableWriteOptions options;
  TRIBUTARY_ASSIGN_OR_RAISE(options.mode, ParseSaveMode(mode_));
  options.partition_by = partition_by_;
  TRIBUTARY_ASSIGN_OR_RAISE(options.data.parquet.threads,
                            ResolveThreadCount(state.session->config));
  std::optional<std::string> txn_app_id;
  std::optional<int64_t> txn_version;
  for (const auto& [key, value] : options_) {
    const std::string lowered = AsciiLower(key);
    if (lowered == "mergeschema") {
      TRIBUTARY_ASSIGN_OR_RAISE(options.merge_schema, formats::BooleanOption(key, value));
    } else if (lowered == "overwriteschema") {
      TRIBUTARY_ASSIGN_OR_RAISE(options.overwrite_schema, formats::BooleanOption(key, value));
    } else if (lowered == "txnappid") {
      txn_app_id = value;
    } else if (lowered == "txnversion") {
      int64_t version = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), version);
      if (error != std::errc{} || end != value.data() + value.size() || version < 0) {
        return tributary::Status::InvalidArgument(
            fmt::format("txnVersion '{}' is not a non-negative integer", value));
      }
      txn_version = version;
    } else if (lowered == "replacewhere") {
      TRIBUTARY_ASSIGN_OR_RAISE(options.replace_where, sql::ParseExpression(value));
    } else if (lowered.starts_with("delta.")) {
      options.properties[key] = value;
    }
  }
  if (txn_app_id.has_value() != txn_version.has_value()) {
    return tributary::Status::InvalidArgument("txnAppId and txnVersion must be given together");
  }
  if (txn_app_id) {
    options.txn = std::make_pair(*txn_app_id, *txn_version);
  }
  // The table's files are named below the root's storage path, not below a file URI (whose
  // percent-escapes would be decoded again in the partition directories' names).
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string root, storage::StoragePath(path));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(state));
  auto written =
      delta::WriteTable(*state.session->fs, root, state.plan->Schema(), batches, options);
  return written.status();
}

// Spark's Kafka batch write: every row a record, no path, and only the save modes that do not
// claim to replace or skip what a topic holds.
tributary::Status DataFrameWriter::SaveKafka(const std::string& path) {
  if (!path.empty()) {
    return tributary::Status::InvalidArgument(fmt::format(
        "a kafka write takes no path (got '{}'): give the topic option or a topic column", path));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const delta::SaveMode mode, ParseSaveMode(mode_));
  if (mode == delta::SaveMode::kOverwrite || mode == delta::SaveMode::kIgnore) {
    return tributary::Status::InvalidArgument(
        fmt::format("Save mode {} not allowed for Kafka. Allowed save modes are Append and "
                    "ErrorIfExists (default).",
                    mode_));
  }
  if (!partition_by_.empty()) {
    return tributary::Status::InvalidArgument("a kafka write cannot be partitioned by columns");
  }
  const DataFrameState& state = *ApiAccess::State(frame_);
  TRIBUTARY_RETURN_NOT_OK(state.error);
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(state));
  return streaming::WriteKafka(batches, options_).status();
}

tributary::Status DataFrameWriter::SaveAsTable(const std::string& name) {
  const DataFrameState& state = *ApiAccess::State(frame_);
  TRIBUTARY_RETURN_NOT_OK(state.error);
  TRIBUTARY_ASSIGN_OR_RAISE(
      std::string path,
      plan::DeltaTablePathForWrite(state.session->MakeCatalog(0), name, "SaveAsTable"));
  return Save(path);
}

}  // namespace tributary
