#include "sql/binder.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/record_batch.h"
#include "common/ascii.h"
#include "common/closest_match.h"
#include "expr/backquoted_name.h"
#include "plan/delta_commands.h"
#include "plan/plan_builder.h"
#include "plan/table_info.h"
#include "sql/binder_internal.h"
#include "sql/parser.h"
#include "storage/file_system.h"
#include "storage/local_path.h"
#include "streaming/kafka_batch_scan.h"
#include "streaming/source_factory.h"
#include "streaming/stream_execution.h"

namespace tributary::sql {
namespace internal {

namespace {

// A column path as Spark's errors write it: `t`.`x`.
std::string BackquotedPath(const expr::Expression& node) {
  if (node.GetOp() == expr::Op::kGetField) {
    return fmt::format("{}.{}", BackquotedPath(*node.Child(0)), expr::BackquotedName(node.Name()));
  }
  return expr::BackquotedName(node.Name());
}

}  // namespace

const expr::Expression* QuotedColumn(const std::string& message, const expr::Expression& node) {
  if ((node.GetOp() == expr::Op::kColumn ||
       (node.GetOp() == expr::Op::kGetField && (node.Child(0)->GetOp() == expr::Op::kColumn ||
                                                node.Child(0)->GetOp() == expr::Op::kGetField))) &&
      (message.find(fmt::format("'{}'", node.SqlText())) != std::string::npos ||
       message.find(fmt::format("'{}'", node.Name())) != std::string::npos ||
       message.find(fmt::format("name {} cannot", BackquotedPath(node))) != std::string::npos)) {
    // A path points at its first part, where its text starts.
    const expr::Expression* head = &node;
    while (head->GetOp() == expr::Op::kGetField) {
      head = head->Child(0).get();
    }
    return head;
  }
  for (const expr::ExprPtr& child : node.Children()) {
    if (const expr::Expression* found = QuotedColumn(message, *child)) {
      return found;
    }
  }
  return nullptr;
}

Status StatusAt(const Statement& statement, const Status& status, const SourcePosition& position) {
  return Status(status.Code(), statement.ErrorAt(position, status.Message()).Message(),
                status.IsRetryable());
}

Status StatusAt(const Statement& statement, const Status& status, const expr::Expression& node) {
  const expr::Expression* quoted = QuotedColumn(status.Message(), node);
  const SourcePosition at = statement.sources != nullptr
                                ? statement.sources->PositionOf(quoted != nullptr ? *quoted : node)
                                : SourcePosition{0, 0, 0};
  return StatusAt(statement, status, at.line == 0 ? statement.position : at);
}

}  // namespace internal
namespace {

using expr::ContainsAggregate;
using expr::ExprPtr;
using expr::Op;
using plan::LogicalPlanPtr;

// A literal's value as reader options spell it: strings as they are, others as SQL prints them.
std::string OptionText(const expr::Scalar& value) {
  return value.Type()->Id() == columnar::TypeId::kString ? value.BytesValue() : value.ToString();
}

// Whether `e` calls a function whose value differs per evaluation (rand, uuid, ...).
bool CallsRandomFunction(const expr::Expression& e) {
  if (e.GetOp() == Op::kFunction) {
    const std::string name = AsciiLower(e.Name());
    if (name == "rand" || name == "randn" || name == "random" || name == "uniform" ||
        name == "randstr" || name == "uuid" || name == "shuffle") {
      return true;
    }
  }
  return std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return CallsRandomFunction(*child); });
}

// Whether `name` matches a field ignoring case (several matches count: the plan reports them).
bool HasField(const columnar::Schema& schema, const std::string& name) {
  auto index = schema.FieldIndexIgnoreCase(name);
  return !index.ok() || *index >= 0;
}

// The schema of CREATE TABLE's column list; null when there is none.
columnar::SchemaPtr DeclaredSchema(const std::vector<ColumnDefinition>& columns) {
  if (columns.empty()) {
    return nullptr;
  }
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (const ColumnDefinition& column : columns) {
    fields.emplace_back(column.name, column.type, column.nullable);
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

// A 1-based ordinal when `e` is an integer literal (GROUP BY 1, ORDER BY 2).
std::optional<int64_t> Ordinal(const expr::Expression& e) {
  if (e.GetOp() != Op::kLiteral || e.Literal().IsNull()) {
    return std::nullopt;
  }
  const columnar::TypeId id = e.Literal().Type()->Id();
  if (id != columnar::TypeId::kInt32 && id != columnar::TypeId::kInt64) {
    return std::nullopt;
  }
  return e.Literal().IntValue();
}

// The position of `e` in `statement`'s text, `fallback` when the parser recorded none.
SourcePosition PositionIn(const Statement& statement, const expr::Expression& e,
                          const SourcePosition& fallback) {
  const SourcePosition at =
      statement.sources ? statement.sources->PositionOf(e) : SourcePosition{0, 0, 0};
  return at.line == 0 ? fallback : at;
}

using internal::QuotedColumn;
using internal::StatusAt;

class Binder : public internal::QueryBinder {
 public:
  Binder(const Statement& statement, const plan::Catalog& catalog,
         const std::map<std::string, std::string>& session_config,
         const std::string& stream_checkpoint)
      : statement_(statement),
        catalog_(catalog),
        session_config_(session_config),
        stream_checkpoint_(stream_checkpoint),
        subqueries_(internal::SubqueryRewriter::Make(statement, this)) {}

  Status At(const Status& status, const SourcePosition& position) const {
    return StatusAt(statement_, status, position);
  }
  Status At(const Status& status, const expr::Expression& node) const {
    return StatusAt(statement_, status, node);
  }

  // Subquery placeholders are recognised here so they fail with a clear message.
  Status CheckNoSubquery(const ExprPtr& e) const override {
    if (e == nullptr || statement_.sources == nullptr) {
      return Status::OK();
    }
    if (statement_.sources->subqueries.count(e.get()) > 0) {
      return At(Status::NotImplemented(
                    "only [NOT] EXISTS and [NOT] IN subqueries in WHERE and SELECT and scalar "
                    "subqueries in SELECT, WHERE and HAVING are supported"),
                *e);
    }
    for (const ExprPtr& child : e->Children()) {
      TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(child));
    }
    return Status::OK();
  }

  Result<LogicalPlanPtr> Query(const sql::Query& query) {
    scopes_.emplace_back();
    auto result = QueryInScope(query);
    scopes_.pop_back();
    return result;
  }

  // The storage path of a table path or LOCATION as written (storage::StoragePath: a file
  // URI's path, percent-decoded; an s3:// URI normalized), so that the names of the table's files
  // are joined to a path, not to a URI.
  Result<std::string> LocalTablePath(const std::string& path,
                                     const SourcePosition& position) const {
    Result<std::string> local = storage::StoragePath(path);
    if (!local.ok()) {
      return At(local.status(), position);
    }
    return local;
  }

  Result<std::string> TablePath(const TableName& table) const override {
    if (table.IsPath()) {
      if (table.format != "delta") {
        return At(
            Status::InvalidArgument(fmt::format(
                "{} is not a Delta table; only delta.`path` names a table here", table.ToString())),
            table.position);
      }
      return LocalTablePath(table.path, table.position);
    }
    std::string name;
    for (const std::string& part : table.parts) {
      name += name.empty() ? part : "." + part;
    }
    auto path = plan::TablePath(catalog_, name);
    if (!path.ok()) {
      return At(path.status(), table.position);
    }
    return path;
  }

  Result<LogicalPlanPtr> BindQuery(const sql::Query& query) override { return Query(query); }
  Result<LogicalPlanPtr> BindFromItem(const sql::Relation& relation) override {
    return Relation(relation);
  }
  void PushScope() override { scopes_.emplace_back(); }
  void PopScope() override { scopes_.pop_back(); }

  Result<LogicalPlanPtr> BindQueryOverDomain(const sql::Query& query,
                                             const internal::OuterDomain& domain) override {
    const internal::OuterDomain* outer = std::exchange(domain_, &domain);
    auto plan = Query(query);
    domain_ = outer;
    return plan;
  }

  // `rewrite()` with no outer domain in effect: the subqueries of a query bound over a domain
  // are bound in their own scope (their correlation is with that query).
  template <typename Rewrite>
  auto OutsideDomain(const Rewrite& rewrite) {
    const internal::OuterDomain* outer = std::exchange(domain_, nullptr);
    auto result = rewrite();
    domain_ = outer;
    return result;
  }

  Result<LogicalPlanPtr> BindRelation(const sql::Relation& relation, bool streams) override {
    streams_allowed_ = streams;
    auto plan = Relation(relation);
    streams_allowed_ = false;
    return plan;
  }

  Result<LogicalPlanPtr> Relation(const sql::Relation& relation) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr plan, RelationWithoutWatermark(relation));
    if (relation.sample.has_value()) {
      TRIBUTARY_ASSIGN_OR_RAISE(plan, internal::BindTableSample(statement_, *relation.sample,
                                                                std::move(plan), catalog_.eval));
    }
    if (!relation.column_aliases.empty()) {
      int columns = plan->Schema()->NumFields();
      std::vector<std::string> aliases = relation.column_aliases;
      if (domain_ != nullptr && internal::CarriesDomain(*plan, *domain_)) {
        // The domain columns a correlated derived table carries keep their names.
        columns -= static_cast<int>(domain_->names.size());
        aliases.insert(aliases.end(), domain_->names.begin(), domain_->names.end());
      }
      if (static_cast<size_t>(columns) != relation.column_aliases.size()) {
        return At(Status::InvalidArgument(
                      fmt::format("number of column aliases does not match number of columns: {} "
                                  "has {} columns, {} aliases",
                                  relation.alias, columns, relation.column_aliases.size())),
                  relation.position);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(plan, plan::Rename(std::move(plan), aliases));
      plan = plan->WithAlias(relation.alias);
    }
    if (!relation.watermark.has_value()) {
      return plan;
    }
    return Watermark(std::move(plan), relation);
  }

  Result<LogicalPlanPtr> RelationWithoutWatermark(const sql::Relation& relation) {
    switch (relation.kind) {
      case RelationKind::kTable:
        return Table(relation);
      case RelationKind::kTableFunction:
        return TableFunction(relation);
      case RelationKind::kSubquery: {
        TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr sub, Query(*relation.subquery));
        return relation.alias.empty() ? sub : sub->WithAlias(relation.alias);
      }
      case RelationKind::kJoin:
        return Join(relation);
      case RelationKind::kLateralView:
      case RelationKind::kPivot:
      case RelationKind::kUnpivot: {
        TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr input, Relation(*relation.left));
        return internal::BindFromClauseExtension(statement_, relation, std::move(input),
                                                 catalog_.eval);
      }
    }
    return Status::Internal("unknown relation kind");
  }

  // WATERMARK event_time [AS name] DELAY OF interval: Spark's withWatermark on that column of
  // the relation. An expression (or a column renamed by AS) is first added as column `name`,
  // as Databricks' clause adds it, under the relation's qualifier.
  Result<LogicalPlanPtr> Watermark(LogicalPlanPtr plan, const sql::Relation& relation) {
    const WatermarkClause& clause = *relation.watermark;
    const expr::Expression& event_time = *clause.event_time;
    // The column as plan::Watermark reads a name: a path, quoted where needed.
    std::string column = event_time.ToString();
    if (!clause.name.empty() || event_time.GetOp() != Op::kColumn) {
      const std::string name = clause.name.empty() ? plan::DerivedName(event_time) : clause.name;
      column = QuoteIdentifier(name);
      auto added = plan::WithColumn(plan, name, clause.event_time);
      if (!added.ok()) {
        return At(added.status(), event_time);
      }
      plan = *added;
      const std::string qualifier =
          !relation.alias.empty() ? relation.alias
          : relation.kind == RelationKind::kTable && !relation.table.IsPath()
              ? relation.table.parts.back()
              : "";
      if (!qualifier.empty()) {
        plan = plan->WithAlias(qualifier);
      }
    }
    auto watermarked = plan::Watermark(std::move(plan), column, clause.delay->Literal().IntValue(),
                                       clause.delay_text);
    return watermarked.ok() ? watermarked : At(watermarked.status(), event_time);
  }

  Result<LogicalPlanPtr> Table(const sql::Relation& relation) {
    const TableName& table = relation.table;
    if (relation.stream) {
      return StreamTable(relation);
    }
    const std::string qualifier = !relation.alias.empty() ? relation.alias
                                  : table.IsPath()        ? ""
                                                          : table.parts.back();
    const bool time_travel =
        relation.version_as_of.has_value() || relation.timestamp_as_of != nullptr;
    if (!table.IsPath() && table.parts.size() == 1 && !time_travel) {
      const std::string key = AsciiLower(table.parts[0]);
      for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        if (auto it = scope->find(key); it != scope->end()) {
          return it->second->WithAlias(qualifier);
        }
      }
    }
    if (!table.IsPath() && table.parts.size() == 1 && !time_travel && catalog_.session_table) {
      if (LogicalPlanPtr session_table = catalog_.session_table(AsciiLower(table.parts[0]))) {
        return session_table->WithAlias(qualifier);
      }
    }
    if (table.IsPath() && table.format != "delta") {
      if (time_travel) {
        return At(Status::InvalidArgument("VERSION/TIMESTAMP AS OF needs a Delta table"),
                  relation.position);
      }
      auto scan = plan::ScanFiles(catalog_, table.format, table.path, {}, nullptr,
                                  formats::OptionDefaults::kSparkReader, qualifier);
      return scan.ok() ? scan : At(scan.status(), relation.position);
    }
    plan::TimeTravel travel;
    travel.version = relation.version_as_of;
    if (relation.timestamp_as_of != nullptr) {
      const expr::Expression& at = *relation.timestamp_as_of;
      if (at.GetOp() != Op::kLiteral || at.Literal().Type()->Id() != columnar::TypeId::kString) {
        return At(Status::InvalidArgument("TIMESTAMP AS OF takes a timestamp string"), at);
      }
      travel.timestamp = at.Literal().BytesValue();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string path, TablePath(table));
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> file_table,
                              internal::FileTableOf(statement_, catalog_, table));
    if (file_table) {
      if (time_travel) {
        return At(Status::InvalidArgument(
                      fmt::format("VERSION/TIMESTAMP AS OF needs a Delta table; {} is a {} table",
                                  table.ToString(), file_table->provider)),
                  relation.position);
      }
      auto scan = plan::ScanFileTable(catalog_, *file_table, qualifier);
      return scan.ok() ? scan : At(scan.status(), relation.position);
    }
    auto scan = plan::ScanDeltaTable(catalog_, path, travel, qualifier);
    return scan.ok() ? scan : At(scan.status(), relation.position);
  }

  // Spark's range([start,] end [, step [, numPartitions]]): one BIGINT column `id` from start
  // (default 0) up to end, exclusive, by step (default 1, may be negative). numPartitions only
  // shapes Spark's parallelism and is checked, not used.
  Result<LogicalPlanPtr> Range(const sql::Relation& relation) {
    const size_t count = relation.arguments.size();
    if (count < 1 || count > 4) {
      return At(Status::InvalidArgument(fmt::format(
                    "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `range` requires [1, 2, 3, 4] "
                    "parameters but the actual number is {}.",
                    count)),
                relation.position);
    }
    std::vector<int64_t> values;
    for (const TableFunctionArgument& argument : relation.arguments) {
      const expr::Expression* e = argument.value.get();
      const bool negative = e->GetOp() == Op::kNegate;
      if (negative) {
        e = e->Child(0).get();
      }
      std::optional<int64_t> value = Ordinal(*e);
      if (!argument.name.empty() || !value.has_value()) {
        return At(Status::InvalidArgument(
                      "range takes integer literals: range([start,] end [, step [, partitions]])"),
                  *argument.value);
      }
      values.push_back(negative ? -*value : *value);
    }
    const int64_t start = count == 1 ? 0 : values[0];
    const int64_t end = count == 1 ? values[0] : values[1];
    const int64_t step = count >= 3 ? values[2] : 1;
    if (step == 0) {
      return At(Status::InvalidArgument("[FAILED_FUNCTION_CALL] range: the step (0) must not be 0"),
                relation.position);
    }
    if (count == 4 && values[3] <= 0) {
      return At(Status::InvalidArgument(fmt::format(
                    "range: the number of partitions ({}) must be positive", values[3])),
                relation.position);
    }
    // Rows, in 128 bits: end - start may overflow 64.
    const __int128 span = static_cast<__int128>(end) - start;
    const __int128 rows =
        (span > 0) != (step > 0) || span == 0 ? 0 : (span + step + (step > 0 ? -1 : 1)) / step;
    constexpr __int128 kMaxRows = __int128{1} << 31;
    if (rows > kMaxRows) {
      return At(Status::NotImplemented(
                    "range of more than 2^31 rows: rows are materialized in memory here"),
                relation.position);
    }
    columnar::ColumnBuilder ids(columnar::DataType::Int64());
    ids.Reserve(static_cast<int64_t>(rows));
    for (int64_t i = 0; i < static_cast<int64_t>(rows); ++i) {
      ids.AppendInt(start + i * step);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, ids.Finish());
    auto schema = std::make_shared<const columnar::Schema>(
        std::vector<columnar::Field>{columnar::Field("id", columnar::DataType::Int64(), false)});
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::RecordBatchPtr batch,
        columnar::RecordBatch::Make(schema, static_cast<int64_t>(rows), {std::move(column)}));
    LogicalPlanPtr plan = plan::ValuesPlan(std::move(batch), "range");
    return relation.alias.empty() ? plan : plan->WithAlias(relation.alias);
  }

  // read_files('path', format => 'json', option => value, ...), as Databricks' table function.
  Result<LogicalPlanPtr> TableFunction(const sql::Relation& relation) {
    if (relation.function_name == "table_changes") {
      return internal::BindTableChanges(statement_, relation, catalog_, this);
    }
    if (relation.function_name == "read_kafka" || relation.function_name == "read_kinesis") {
      return MessageBus(relation);
    }
    if (relation.function_name == "range") {
      return Range(relation);
    }
    if (relation.function_name != "read_files") {
      const std::string_view match =
          ClosestMatch(relation.function_name,
                       {"read_files", "table_changes", "read_kafka", "read_kinesis", "range"});
      return At(Status::InvalidArgument(
                    fmt::format("unknown table function '{}'{}", relation.function_name,
                                match.empty() ? "" : fmt::format(" (did you mean {}?)", match))),
                relation.position);
    }
    std::string path;
    std::string format;
    columnar::SchemaPtr schema;
    formats::OptionMap options;
    for (size_t i = 0; i < relation.arguments.size(); ++i) {
      const TableFunctionArgument& argument = relation.arguments[i];
      const expr::Expression& value = *argument.value;
      if (value.GetOp() != Op::kLiteral || value.Literal().IsNull()) {
        return At(Status::InvalidArgument("read_files arguments must be literals"), value);
      }
      const std::string text = OptionText(value.Literal());
      if (argument.name.empty()) {
        if (i != 0) {
          return At(Status::InvalidArgument(
                        "read_files takes the path first, then only name => value options"),
                    value);
        }
        path = text;
      } else if (AsciiLower(argument.name) == "format") {
        format = AsciiLower(text);
      } else if (AsciiLower(argument.name) == "schema") {
        auto parsed = plan::ParseSchemaDdl(text);
        if (!parsed.ok()) {
          return At(parsed.status(), value);
        }
        schema = *parsed;
      } else {
        options[argument.name] = text;
      }
    }
    if (path.empty()) {
      return At(Status::InvalidArgument("read_files needs a path: read_files('/dir', ...)"),
                relation.position);
    }
    if (format.empty()) {
      return At(Status::InvalidArgument(
                    "read_files needs format => 'parquet' | 'json' | 'csv' (it is not guessed "
                    "from file names)"),
                relation.position);
    }
    if (relation.stream) {
      return StreamFiles(relation, format, path, std::move(options), std::move(schema));
    }
    auto scan = plan::ScanFiles(catalog_, format, path, options, std::move(schema),
                                formats::OptionDefaults::kReadFiles, relation.alias);
    return scan.ok() ? scan : At(scan.status(), relation.position);
  }

  // read_kafka(name => value, ...): with STREAM the Kafka source, else the records between
  // startingOffsets and endingOffsets read now, as Databricks' read_kafka. read_kinesis(...) is
  // a stream only, as Databricks'.
  Result<LogicalPlanPtr> MessageBus(const sql::Relation& relation) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto options, internal::MessageBusOptions(statement_, relation));
    const bool kafka = relation.function_name == "read_kafka";
    if (!relation.stream) {
      if (!kafka) {
        return At(Status::InvalidArgument(
                      "read_kinesis reads a stream: use it as STREAM read_kinesis(...) in the "
                      "query of a streaming table"),
                  relation.position);
      }
      auto scan = streaming::KafkaBatchScan(options, relation.alias);
      return scan.ok() ? scan : At(scan.status(), relation.position);
    }
    TRIBUTARY_RETURN_NOT_OK(CheckStreamAllowed(relation));
    streaming::SourceRequest request;
    request.format = kafka ? "kafka" : "kinesis";
    request.options = std::move(options);
    auto scan = DefineStream(std::move(request), relation.alias);
    return scan.ok() ? scan : At(scan.status(), relation.position);
  }

  // Streams may be read only by the query of a streaming table.
  Status CheckStreamAllowed(const sql::Relation& relation) const {
    if (streams_allowed_) {
      return Status::OK();
    }
    return At(Status::InvalidArgument(
                  "STREAM reads a source incrementally, which only the query of CREATE [OR "
                  "REFRESH] STREAMING TABLE ... AS can do; drop STREAM for a batch read"),
              relation.position);
  }

  // STREAM(name) / STREAM name / STREAM(delta.`path`): the Delta table as a stream source.
  Result<LogicalPlanPtr> StreamTable(const sql::Relation& relation) {
    TRIBUTARY_RETURN_NOT_OK(CheckStreamAllowed(relation));
    const TableName& table = relation.table;
    if (relation.version_as_of.has_value() || relation.timestamp_as_of != nullptr) {
      return At(Status::InvalidArgument(
                    "VERSION/TIMESTAMP AS OF does not apply to a STREAM (a stream reads the "
                    "table's initial snapshot, then every later commit)"),
                relation.position);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string path, TablePath(table));
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> file_table,
                              internal::FileTableOf(statement_, catalog_, table));
    if (file_table) {
      return At(Status::NotImplemented(fmt::format(
                    "STREAM({}): {} is a {} table, which cannot be read as a stream; read its "
                    "files with STREAM read_files('{}', format => '{}')",
                    table.ToString(), table.ToString(), file_table->provider, file_table->location,
                    file_table->provider)),
                relation.position);
    }
    streaming::SourceRequest request;
    request.format = "delta";
    request.path = path;
    const std::string qualifier = !relation.alias.empty() ? relation.alias
                                  : table.IsPath()        ? ""
                                                          : table.parts.back();
    auto scan = DefineStream(std::move(request), qualifier);
    if (!scan.ok() && scan.status().IsNotFound()) {
      return At(
          Status::NotFound(fmt::format("STREAM({}): no Delta table at {}", table.ToString(), path)),
          relation.position);
    }
    return scan.ok() ? scan : At(scan.status(), relation.position);
  }

  // STREAM read_files(...): an Auto Loader (cloudFiles) source over `path`, as Databricks'
  // streaming read_files is. In a streaming table its schema location is inside the table's
  // checkpoint, so the schema is inferred, stored and evolved without options.
  Result<LogicalPlanPtr> StreamFiles(const sql::Relation& relation, const std::string& format,
                                     const std::string& path, formats::OptionMap options,
                                     columnar::SchemaPtr schema) {
    TRIBUTARY_RETURN_NOT_OK(CheckStreamAllowed(relation));
    if (!stream_checkpoint_.empty() && formats::FindOption(options, "schemaLocation") == nullptr) {
      options["schemaLocation"] = fmt::format("{}/sources/{}", stream_checkpoint_, num_streams_);
    }
    options["cloudFiles.format"] = format;
    streaming::SourceRequest request;
    request.format = "cloudFiles";
    request.path = path;
    request.options = std::move(options);
    request.schema = std::move(schema);
    auto scan = DefineStream(std::move(request), relation.alias);
    return scan.ok() ? scan : At(scan.status(), relation.position);
  }

  Result<LogicalPlanPtr> DefineStream(streaming::SourceRequest request,
                                      const std::string& qualifier) {
    if (catalog_.fs == nullptr) {
      return Status::InvalidArgument("no file system to read streams from");
    }
    request.fs = catalog_.fs;
    request.eval = catalog_.eval;
    request.session_config = session_config_;
    ++num_streams_;
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, streaming::DefineSource(request));
    return streaming::StreamScan(std::move(definition), qualifier);
  }

  // CREATE [OR REFRESH] STREAMING TABLE name [PARTITIONED BY] [TBLPROPERTIES] AS query: the
  // warehouse table and the append-mode streaming plan that feeds it.
  Result<BoundStatement> CreateStreamingTable(const CreateTable& create) {
    BoundStatement bound;
    bound.kind = BoundKind::kCreateStreamingTable;
    bound.create = create;
    if (create.or_refresh && create.if_not_exists) {
      return At(Status::InvalidArgument(
                    "CREATE OR REFRESH STREAMING TABLE cannot take IF NOT EXISTS (use one)"),
                create.table.position);
    }
    if (create.query == nullptr) {
      // A flow's target (AUTO CDC INTO): the flow gives its rows, the columns (if declared)
      // its schema.
      TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(create.table));
      bound.schema = DeclaredSchema(create.columns);
      return bound;
    }
    if (!create.columns.empty()) {
      return At(Status::NotImplemented(
                    "a column list on CREATE STREAMING TABLE is not supported yet; the "
                    "query's columns are the table's"),
                create.columns.front().position);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(create.table));
    streams_allowed_ = true;
    auto plan = Query(*create.query);
    streams_allowed_ = false;
    TRIBUTARY_RETURN_NOT_OK(plan.status());
    if (!(*plan)->IsStreaming()) {
      return At(Status::InvalidArgument(fmt::format(
                    "the query of streaming table {} reads no stream; read its input with "
                    "STREAM read_files(...), STREAM read_kafka(...) or STREAM(table)",
                    create.table.ToString())),
                create.query->position);
    }
    Status streamable = streaming::CheckStreamingPlan(**plan);
    if (!streamable.ok()) {
      return At(streamable, create.query->position);
    }
    for (const std::string& column : create.partition_by) {
      if (!HasField(*(*plan)->Schema(), column)) {
        return At(Status::InvalidArgument(
                      fmt::format("PARTITIONED BY column '{}' is not a column of the query ({})",
                                  column, (*plan)->Schema()->ToString())),
                  create.table.position);
      }
    }
    bound.plan = *std::move(plan);
    return bound;
  }

  Result<LogicalPlanPtr> Join(const sql::Relation& relation) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr left, Relation(*relation.left));
    if (relation.right->lateral) {
      if (relation.natural || !relation.using_columns.empty()) {
        return At(Status::NotImplemented(fmt::format(
                      "[UNSUPPORTED_FEATURE.{}] The feature is not supported: {} with LATERAL "
                      "correlation.",
                      relation.natural ? "LATERAL_NATURAL_JOIN" : "LATERAL_JOIN_USING",
                      relation.natural ? "NATURAL join" : "JOIN USING")),
                  relation.right->position);
      }
      TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(relation.condition));
      auto lateral = internal::BindLateralJoin(
          statement_, relation, left, [this](const sql::Relation& from) { return Relation(from); });
      if (!lateral.ok() &&
          (lateral.status().IsNotImplemented() ||
           lateral.status().Message().find("UNRESOLVED_COLUMN") != std::string::npos)) {
        // Another shape (grouping, LIMIT, a derived table or nested LATERAL reading the outer
        // row): bound over the domain of the outer values it reads.
        auto over_domain = LateralOverDomain(relation, left);
        if (over_domain.ok() && *over_domain != nullptr) {
          return over_domain;
        }
      }
      return lateral;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr right, Relation(*relation.right));
    ExprPtr condition = relation.condition;
    if (domain_ != nullptr) {
      TRIBUTARY_RETURN_NOT_OK(JoinOverDomain(relation, &left, &right, &condition));
    }
    exec::JoinType type = exec::JoinType::kInner;
    switch (relation.join_kind) {
      case JoinKind::kInner:
        type = exec::JoinType::kInner;
        break;
      case JoinKind::kLeft:
        type = exec::JoinType::kLeft;
        break;
      case JoinKind::kRight:
        type = exec::JoinType::kRight;
        break;
      case JoinKind::kFull:
        type = exec::JoinType::kFull;
        break;
      case JoinKind::kCross:
        type = exec::JoinType::kCross;
        break;
      case JoinKind::kLeftSemi:
        type = exec::JoinType::kLeftSemi;
        break;
      case JoinKind::kLeftAnti:
        type = exec::JoinType::kLeftAnti;
        break;
    }
    if (relation.natural || !relation.using_columns.empty()) {
      const std::vector<std::string> columns =
          relation.natural ? plan::NaturalJoinColumns(*left, *right) : relation.using_columns;
      auto joined = plan::JoinUsing(std::move(left), std::move(right), type, columns,
                                    /*keep_side_keys=*/true);
      return joined.ok() ? joined : At(joined.status(), relation.position);
    }
    TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(condition));
    auto joined = plan::Join(std::move(left), std::move(right), type, condition);
    if (joined.ok()) {
      return joined;
    }
    return relation.condition ? At(joined.status(), *relation.condition)
                              : At(joined.status(), relation.position);
  }

  // The sides of a join inside a query bound over an outer domain (BindQueryOverDomain): a
  // condition reading outer columns joins the domain into the left side; when one side carries
  // the domain and the join keeps unmatched rows or only the left side's, the other side gets
  // it too; when both carry it, the rows join per domain row (null-safe equality of the domain
  // columns, the right side's renamed).
  Status JoinOverDomain(const sql::Relation& relation, LogicalPlanPtr* left, LogicalPlanPtr* right,
                        ExprPtr* condition) {
    const internal::OuterDomain& domain = *domain_;
    bool left_carries = internal::CarriesDomain(**left, domain);
    bool right_carries = internal::CarriesDomain(**right, domain);
    if (*condition != nullptr) {
      auto both = plan::Join(*left, *right, exec::JoinType::kCross, nullptr);
      bool reads = false;
      if (both.ok()) {
        *condition = internal::OuterReferencesToDomain(*condition, *both, domain,
                                                       statement_.sources.get(), &reads);
      }
      if (reads && !left_carries && !right_carries) {
        TRIBUTARY_ASSIGN_OR_RAISE(*left, WithDomain(*left));
        left_carries = true;
      }
    }
    if (!left_carries && !right_carries) {
      return Status::OK();
    }
    if (relation.natural || !relation.using_columns.empty()) {
      return At(Status::NotImplemented(
                    "a NATURAL or USING join inside a correlated scalar subquery that reads the "
                    "outer query"),
                relation.position);
    }
    const bool inner =
        relation.join_kind == JoinKind::kInner || relation.join_kind == JoinKind::kCross;
    if (!inner && !left_carries) {
      TRIBUTARY_ASSIGN_OR_RAISE(*left, WithDomain(*left));
      left_carries = true;
    }
    if (!inner && !right_carries) {
      TRIBUTARY_ASSIGN_OR_RAISE(*right, WithDomain(*right));
      right_carries = true;
    }
    if (left_carries && right_carries) {
      ExprPtr equal;
      TRIBUTARY_ASSIGN_OR_RAISE(
          *right, internal::RenameDomainColumns(*right, domain, ++domain_joins_, &equal));
      *condition = *condition == nullptr ? equal : expr::And(equal, *condition);
    }
    return Status::OK();
  }

  // `left JOIN LATERAL (query)` of any shape, decorrelated over the domain of the values of
  // `left` the query reads (Spark's DecorrelateInnerQuery): the query bound for every domain
  // row at once (BindQueryOverDomain), joined to `left` on null-safe equality of the domain
  // columns (a LEFT join keeps rows without any, the ON condition joins too), the domain
  // columns dropped. Null when the query reads no column of `left`.
  Result<LogicalPlanPtr> LateralOverDomain(const sql::Relation& join, LogicalPlanPtr left) {
    const sql::Relation& right = *join.right;
    const sql::Query& query = *right.subquery;
    std::vector<ExprPtr> references;
    internal::CollectQueryColumnReferences(query, statement_.sources.get(), &references);
    const int number = ++domain_joins_;
    internal::OuterDomain domain;
    std::vector<plan::NamedExpr> items;
    std::vector<std::string> keys;
    for (const ExprPtr& reference : references) {
      if (!plan::Select(left, {{reference, "__probe"}}).ok()) {
        continue;
      }
      const size_t i = domain.names.size();
      domain.outer.push_back(reference);
      domain.names.push_back(fmt::format("__outer_lateral_{}_{}", number, i));
      items.push_back({reference, domain.names.back()});
      // The outer value as a column of `left` (a name both sides have stays unambiguous).
      keys.push_back(fmt::format("__lateral_outer_{}_{}", number, i));
      TRIBUTARY_ASSIGN_OR_RAISE(left, plan::WithColumn(std::move(left), keys.back(), reference));
    }
    if (domain.outer.empty()) {
      return LogicalPlanPtr();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr values, plan::Select(left, items));
    TRIBUTARY_ASSIGN_OR_RAISE(domain.plan, plan::Distinct(std::move(values)));
    const internal::OuterDomain* outer = std::exchange(domain_, &domain);
    auto bound = Query(query);
    domain_ = outer;
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr rows, std::move(bound));
    if (!internal::CarriesDomain(*rows, domain)) {
      return LogicalPlanPtr();
    }
    std::vector<std::string> names;
    std::vector<std::string> produced;
    for (const columnar::Field& field : rows->Schema()->Fields()) {
      const auto found = std::find(domain.names.begin(), domain.names.end(), field.Name());
      if (found == domain.names.end()) {
        produced.push_back(field.Name());
        names.push_back(field.Name());
      } else {
        names.push_back(fmt::format("__lateral_key_{}_{}", number, found - domain.names.begin()));
      }
    }
    if (!right.column_aliases.empty()) {
      if (right.column_aliases.size() != produced.size()) {
        return LogicalPlanPtr();
      }
      size_t next = 0;
      for (std::string& name : names) {
        if (!internal::IsDomainColumnName(name) && name.rfind("__lateral_key_", 0) != 0) {
          name = right.column_aliases[next++];
        }
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(rows, plan::Rename(std::move(rows), names));
    if (!right.alias.empty()) {
      rows = rows->WithAlias(right.alias);
    }
    ExprPtr on;
    std::vector<std::string> drop = keys;
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string key = fmt::format("__lateral_key_{}_{}", number, i);
      drop.push_back(key);
      ExprPtr same =
          expr::Call(Op::kNullSafeEqual, {plan::ExactColumn(keys[i]), plan::ExactColumn(key)});
      on = on == nullptr ? same : expr::And(on, same);
    }
    if (join.condition != nullptr) {
      on = expr::And(on, join.condition);
    }
    auto joined = plan::Join(
        std::move(left), std::move(rows),
        join.join_kind == JoinKind::kLeft ? exec::JoinType::kLeft : exec::JoinType::kInner, on);
    if (!joined.ok()) {
      return At(joined.status(), right.position);
    }
    return plan::Drop(*std::move(joined), drop);
  }

  // `plan` cross-joined with the outer domain: its rows for every domain row.
  Result<LogicalPlanPtr> WithDomain(LogicalPlanPtr plan) const {
    return plan::Join(std::move(plan), domain_->plan, exec::JoinType::kCross, nullptr);
  }

  static Result<LogicalPlanPtr> OneRow() { return internal::OneRowPlan(); }

  // VALUES rows as one projection of the one-row plan per row, unioned (types widen to a
  // common one); columns col1, col2, ... as Spark names them.
  Result<LogicalPlanPtr> Values(const sql::Query& query) {
    std::vector<LogicalPlanPtr> rows;
    for (const std::vector<ExprPtr>& row : query.rows) {
      std::vector<plan::NamedExpr> items;
      for (size_t i = 0; i < row.size(); ++i) {
        TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(row[i]));
        if (expr::ContainsAggregate(*row[i]) || CallsRandomFunction(*row[i])) {
          // Spark's ResolveInlineTables evaluates the rows once: no aggregate, nothing random.
          return At(Status::InvalidArgument(fmt::format(
                        "[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Cannot "
                        "evaluate the expression {} in inline table definition.",
                        row[i]->ToString())),
                    *row[i]);
        }
        items.push_back({row[i], fmt::format("col{}", i + 1)});
      }
      TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr one, OneRow());
      auto projected = plan::Select(std::move(one), items);
      if (!projected.ok()) {
        return At(projected.status(), *row.front());
      }
      rows.push_back(*std::move(projected));
    }
    if (rows.size() == 1) {
      return rows.front();
    }
    auto unioned = plan::Union(std::move(rows), /*distinct=*/false);
    return unioned.ok() ? unioned : At(unioned.status(), query.position);
  }

  Result<LogicalPlanPtr> Select(const sql::Query& query) {
    LogicalPlanPtr input;
    if (query.from != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(input, Relation(*query.from));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(input, OneRow());
      // The window operator reads the row count from a column: give the row one, unseen.
      if (std::any_of(query.select.begin(), query.select.end(), [](const SelectItem& item) {
            return !item.IsStar() && expr::ContainsWindow(*item.expr);
          })) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            input, plan::Select(std::move(input),
                                {{expr::Lit(expr::Scalar::Boolean(true)), "__one_row"}}));
      }
    }
    if (domain_ != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::optional<sql::Query> over_domain,
                                SelectOverDomain(query, &input));
      if (over_domain.has_value()) {
        return SelectFrom(*over_domain, std::move(input));
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<sql::Query> rewritten, OutsideDomain([&] {
                                return subqueries_->ScalarSubqueries(query, &input);
                              }));
    return SelectFrom(rewritten.has_value() ? *rewritten : query, std::move(input));
  }

  // A SELECT inside a query bound over an outer domain (BindQueryOverDomain) that reads an
  // outer column or whose FROM (`*input`) carries the domain: the query to select from
  // `*input`, which gains the domain. Outer columns read the domain's; `*` skips the domain
  // columns, which follow the items (and group the rows when the query aggregates). A global
  // aggregate right-joins its rows with the domain on WHERE, so a domain row without rows still
  // has its one row (count 0, as per outer row). Nullopt for a SELECT that reads no outer
  // column: it is bound as usual.
  Result<std::optional<sql::Query>> SelectOverDomain(const sql::Query& query,
                                                     LogicalPlanPtr* input) {
    const internal::OuterDomain& domain = *domain_;
    sql::Query rewritten = query;
    bool reads = false;
    const auto to_domain = [&](const ExprPtr& e) {
      return internal::OuterReferencesToDomain(e, *input, domain, statement_.sources.get(), &reads);
    };
    rewritten.select.clear();
    for (const SelectItem& item : query.select) {
      if (!item.IsStar() || item.star_qualifier.size() > 1) {
        SelectItem copy = item;
        copy.expr = to_domain(item.expr);
        if (copy.alias.empty() && copy.expr != item.expr) {
          copy.alias = plan::DerivedName(*item.expr);
        }
        rewritten.select.push_back(std::move(copy));
        continue;
      }
      // `*` and `t.*` expand here, without the domain columns.
      const columnar::SchemaPtr resolution = plan::ResolutionSchema(**input);
      for (int i = 0; i < (*input)->Schema()->NumFields(); ++i) {
        const std::string& name = (*input)->Schema()->FieldAt(i).Name();
        if (internal::IsDomainColumnName(name) ||
            (!item.star_qualifier.empty() &&
             !EqualsIgnoreAsciiCase((*input)->Qualifiers()[static_cast<size_t>(i)],
                                    item.star_qualifier[0]))) {
          continue;
        }
        SelectItem column;
        column.expr = plan::ExactColumn(resolution->FieldAt(i).Name());
        column.alias = name;
        column.position = item.position;
        rewritten.select.push_back(std::move(column));
      }
    }
    rewritten.where = to_domain(query.where);
    rewritten.having = to_domain(query.having);
    for (ExprPtr& key : rewritten.group_by) {
      key = to_domain(key);
    }
    const bool carries = internal::CarriesDomain(**input, domain);
    if (!reads && !carries) {
      return std::optional<sql::Query>();
    }
    if (query.qualify != nullptr || !query.grouping_sets.empty() || query.group_by_all) {
      return At(Status::NotImplemented(
                    "QUALIFY, GROUPING SETS and GROUP BY ALL in a correlated scalar subquery "
                    "that reads the outer query"),
                query.position);
    }
    bool aggregates = query.having != nullptr || !query.group_by.empty();
    for (const SelectItem& item : rewritten.select) {
      aggregates = aggregates || ContainsAggregate(*item.expr);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<sql::Query> with_subqueries, OutsideDomain([&] {
                                return subqueries_->ScalarSubqueries(rewritten, input);
                              }));
    if (with_subqueries.has_value()) {
      rewritten = *std::move(with_subqueries);
    }
    if (aggregates && query.group_by.empty()) {
      // One row per domain row: the domain left-joined with the rows WHERE keeps.
      ExprPtr on;
      if (rewritten.where != nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            on, OutsideDomain([&] { return subqueries_->SubqueryJoins(rewritten.where, input); }));
        if (on != nullptr) {
          TRIBUTARY_ASSIGN_OR_RAISE(
              on, OutsideDomain([&] { return subqueries_->PredicateSubqueryValues(on, input); }));
          TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(on));
        }
        rewritten.where = nullptr;
      }
      const std::string matched = fmt::format("__outer_matched_{}", ++domain_joins_);
      TRIBUTARY_ASSIGN_OR_RAISE(
          LogicalPlanPtr rows,
          plan::WithColumn(*input, matched, expr::Lit(expr::Scalar::Boolean(true))));
      if (carries) {
        ExprPtr equal;
        TRIBUTARY_ASSIGN_OR_RAISE(
            rows, internal::RenameDomainColumns(std::move(rows), domain, ++domain_joins_, &equal));
        on = on == nullptr ? equal : expr::And(equal, on);
      }
      // The rows keep their column positions (the SELECT items may read them by position).
      auto joined = plan::Join(std::move(rows), domain.plan, exec::JoinType::kRight,
                               on != nullptr ? on : expr::Lit(expr::Scalar::Boolean(true)));
      if (!joined.ok()) {
        return on != nullptr ? At(joined.status(), *on) : At(joined.status(), query.position);
      }
      *input = *std::move(joined);
      const ExprPtr matched_column = plan::ExactColumn(matched);
      for (SelectItem& item : rewritten.select) {
        item.expr = internal::AggregatesOverMatchedRows(item.expr, matched_column);
      }
      if (rewritten.having != nullptr) {
        rewritten.having = internal::AggregatesOverMatchedRows(rewritten.having, matched_column);
      }
    } else if (!carries) {
      TRIBUTARY_ASSIGN_OR_RAISE(*input, WithDomain(*input));
    }
    for (const std::string& name : domain.names) {
      SelectItem column;
      column.expr = plan::ExactColumn(name);
      column.alias = name;
      column.position = query.position;
      rewritten.select.push_back(std::move(column));
      if (aggregates) {
        rewritten.group_by.push_back(plan::ExactColumn(name));
      }
    }
    return std::optional<sql::Query>(std::move(rewritten));
  }

  Result<LogicalPlanPtr> SelectFrom(const sql::Query& query, LogicalPlanPtr input) {
    if (query.where != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr rest, OutsideDomain([&] {
                                  return subqueries_->SubqueryJoins(query.where, &input);
                                }));
      if (rest != nullptr) {
        const int fields = input->Schema()->NumFields();
        TRIBUTARY_ASSIGN_OR_RAISE(rest, OutsideDomain([&] {
                                    return subqueries_->PredicateSubqueryValues(rest, &input);
                                  }));
        TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(rest));
        auto filtered = plan::Filter(std::move(input), rest);
        if (!filtered.ok()) {
          return At(filtered.status(), *rest);
        }
        input = *std::move(filtered);
        // The existence joins' columns served the filter only: `*` does not see them.
        std::vector<std::string> added;
        for (int i = fields; i < input->Schema()->NumFields(); ++i) {
          added.push_back(input->Schema()->FieldAt(i).Name());
        }
        if (!added.empty()) {
          TRIBUTARY_ASSIGN_OR_RAISE(input, plan::Drop(std::move(input), added));
        }
      }
    }
    std::vector<plan::NamedExpr> items;
    // `generator(...) AS (a, b)`: the generator is planned here, the items read its columns.
    TRIBUTARY_ASSIGN_OR_RAISE(
        const bool multi_alias,
        internal::BindMultiAliasGenerator(statement_, query.select, &input, &items));
    // GROUP BY GROUPING SETS (()) groups too, by no key.
    bool aggregates =
        query.having != nullptr || !query.group_by.empty() || !query.grouping_sets.empty();
    for (const SelectItem& item : query.select) {
      if (item.IsStar()) {
        std::string path;
        for (const std::string& part : item.star_qualifier) {
          path += QuoteIdentifier(part) + ".";
        }
        if (!multi_alias) {
          items.push_back({expr::Col(path + "*"), ""});
        }
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(item.expr));
      aggregates = aggregates || ContainsAggregate(*item.expr);
      if (!multi_alias) {
        items.push_back({item.expr, item.alias});
      }
    }
    // QUALIFY: the condition is computed as a hidden last item (window calls in it join the
    // SELECT list's window node), the rows filtered on it, and the item projected away.
    if (query.qualify != nullptr) {
      TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(query.qualify));
      items.push_back({QualifyWithAliases(query, query.qualify, *input), "__qualify"});
    }
    Result<LogicalPlanPtr> output = Status::Internal("unset");
    if (aggregates) {
      std::vector<ExprPtr> keys;
      if (query.group_by_all && !HasField(*input->Schema(), "all")) {
        TRIBUTARY_ASSIGN_OR_RAISE(keys, GroupByAllKeys(query, *input));
      } else {
        for (const ExprPtr& key : query.group_by) {
          TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr resolved, GroupKey(query, key, *input));
          keys.push_back(std::move(resolved));
        }
      }
      TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(query.having));
      // HAVING may name SELECT aliases (HAVING cnt > 1 over count(id) AS cnt), as Spark.
      const ExprPtr having =
          query.having != nullptr ? QualifyWithAliases(query, query.having, *input) : nullptr;
      output = plan::Aggregate(input, keys, items, having, query.grouping_sets);
    } else {
      output = plan::Select(input, items);
    }
    if (!output.ok()) {
      const expr::Expression* culprit = Culprit(query, output.status());
      return culprit != nullptr ? At(output.status(), *culprit)
                                : At(output.status(), query.position);
    }
    if (query.qualify != nullptr) {
      output = Qualified(*std::move(output));
      if (!output.ok()) {
        return At(output.status(), *query.qualify);
      }
    }
    if (query.distinct) {
      output = plan::Distinct(*std::move(output));
    }
    return output;
  }

  // QUALIFY's condition with each column name that is no input column but a SELECT alias
  // replaced by the aliased expression (QUALIFY rn = 1 over row_number() ... AS rn).
  static ExprPtr QualifyWithAliases(const sql::Query& query, const ExprPtr& e,
                                    const plan::LogicalPlan& input) {
    if (e->GetOp() == Op::kColumn && !HasField(*input.Schema(), e->Name())) {
      for (const SelectItem& item : query.select) {
        if (!item.alias.empty() && AsciiLower(item.alias) == AsciiLower(e->Name())) {
          return item.expr;
        }
      }
      return e;
    }
    std::vector<ExprPtr> children;
    bool changed = false;
    for (const ExprPtr& child : e->Children()) {
      children.push_back(QualifyWithAliases(query, child, input));
      changed = changed || children.back() != child;
    }
    if (!changed) {
      return e;
    }
    return std::make_shared<expr::Expression>(e->GetOp(), std::move(children), e->Name(),
                                              e->Literal(), e->TargetType(), e->IsDistinct(),
                                              e->Window());
  }

  // `plan`'s rows where its last column (QUALIFY's condition) holds, without that column.
  static Result<LogicalPlanPtr> Qualified(LogicalPlanPtr plan) {
    const columnar::SchemaPtr resolution = plan::ResolutionSchema(*plan);
    const int visible = resolution->NumFields() - 1;
    const std::string condition = resolution->FieldAt(visible).Name();
    TRIBUTARY_ASSIGN_OR_RAISE(plan, plan::Filter(std::move(plan), plan::ExactColumn(condition)));
    std::vector<plan::NamedExpr> items;
    items.reserve(static_cast<size_t>(visible));
    for (int i = 0; i < visible; ++i) {
      items.push_back(
          {plan::ExactColumn(resolution->FieldAt(i).Name()), plan->Schema()->FieldAt(i).Name()});
    }
    return plan::Select(std::move(plan), items);
  }

  // The SELECT item, HAVING or GROUP BY expression an error from the plan builder is about:
  // the first whose text, or a column of which, the message quotes.
  const expr::Expression* Culprit(const sql::Query& query, const Status& status) const {
    std::vector<const expr::Expression*> candidates;
    for (const SelectItem& item : query.select) {
      if (!item.IsStar()) {
        candidates.push_back(item.expr.get());
      }
    }
    if (query.having != nullptr) {
      candidates.push_back(query.having.get());
    }
    for (const ExprPtr& key : query.group_by) {
      candidates.push_back(key.get());
    }
    for (const expr::Expression* candidate : candidates) {
      if (const expr::Expression* column = QuotedColumn(status.Message(), *candidate)) {
        return column;
      }
    }
    for (const expr::Expression* candidate : candidates) {
      if (status.Message().find(candidate->SqlText()) != std::string::npos) {
        return candidate;
      }
    }
    return nullptr;
  }

  SourcePosition PositionOf(const expr::Expression& e, const SourcePosition& fallback) const {
    return PositionIn(statement_, e, fallback);
  }

  // GROUP BY ALL's keys (Spark's ResolveGroupByAll): every SELECT item without an aggregate
  // call (a star: every input column). An item that mixes an aggregate with columns outside it
  // leaves the grouping ambiguous, an error as Spark's.
  Result<std::vector<ExprPtr>> GroupByAllKeys(const sql::Query& query,
                                              const plan::LogicalPlan& input) const {
    std::vector<ExprPtr> keys;
    for (const SelectItem& item : query.select) {
      if (item.IsStar()) {
        if (!item.star_qualifier.empty()) {
          return At(Status::NotImplemented("GROUP BY ALL over a qualified star (t.*)"),
                    item.position);
        }
        const columnar::SchemaPtr resolution = plan::ResolutionSchema(input);
        for (int c = 0; c < input.Schema()->NumFields(); ++c) {
          keys.push_back(plan::ExactColumn(resolution->FieldAt(c).Name()));
        }
        continue;
      }
      if (!ContainsAggregate(*item.expr)) {
        keys.push_back(item.expr);
      } else if (ColumnOutsideAggregate(*item.expr)) {
        return At(Status::InvalidArgument(
                      "[UNRESOLVED_ALL_IN_GROUP_BY] Cannot infer grouping columns for GROUP BY "
                      "ALL based on the select clause. Please explicitly specify the grouping "
                      "columns."),
                  *query.group_by.front());
      }
    }
    return keys;
  }

  static bool ColumnOutsideAggregate(const expr::Expression& e) {
    if (e.GetOp() == Op::kFunction && expr::IsAggregateFunctionName(e.Name())) {
      return false;
    }
    if (e.GetOp() == Op::kColumn) {
      return true;
    }
    const auto& children = e.Children();
    return std::any_of(children.begin(), children.end(),
                       [](const ExprPtr& child) { return ColumnOutsideAggregate(*child); });
  }

  // GROUP BY key: an ordinal or an alias of the SELECT list becomes that item's expression
  // (Spark's groupByOrdinal and groupByAliases), unless the alias is also an input column.
  Result<ExprPtr> GroupKey(const sql::Query& query, const ExprPtr& key,
                           const plan::LogicalPlan& input) const {
    // A negative number is no position: Spark reads -1 as a minus applied to 1, a constant.
    if (std::optional<int64_t> ordinal = Ordinal(*key); ordinal && *ordinal >= 0) {
      if (*ordinal < 1 || *ordinal > static_cast<int64_t>(query.select.size()) ||
          query.select[static_cast<size_t>(*ordinal - 1)].IsStar()) {
        return At(Status::InvalidArgument(
                      fmt::format("GROUP BY position {} is not in the select list (1 to {})",
                                  *ordinal, query.select.size())),
                  *key);
      }
      return query.select[static_cast<size_t>(*ordinal - 1)].expr;
    }
    if (key->GetOp() == Op::kColumn && !HasField(*input.Schema(), key->Name())) {
      for (const SelectItem& item : query.select) {
        if (!item.alias.empty() && AsciiLower(item.alias) == AsciiLower(key->Name())) {
          return item.expr;
        }
      }
    }
    // An alias inside a key (`GROUP BY col1 % abc`) stands for its expression as well, when
    // that has no aggregate.
    return internal::RewriteExpression(key, [&](const ExprPtr& e) -> ExprPtr {
      if (e->GetOp() != Op::kColumn || HasField(*input.Schema(), e->Name())) {
        return nullptr;
      }
      for (const SelectItem& item : query.select) {
        if (!item.IsStar() && !item.alias.empty() &&
            AsciiLower(item.alias) == AsciiLower(e->Name()) && !ContainsAggregate(*item.expr)) {
          return item.expr;
        }
      }
      return nullptr;
    });
  }

  // ORDER BY an aggregate the SELECT list does not compute (`SELECT a FROM t GROUP BY a ORDER
  // BY sum(b)`): Spark computes it in the aggregation as a hidden column. Here the query gains
  // one SELECT item per such aggregate, sorts by it and drops it again; null when no ORDER BY
  // item needs this.
  Result<LogicalPlanPtr> OrderByHiddenAggregates(const sql::Query& query) {
    if (query.kind != QueryKind::kSelect || query.distinct || query.order_by_all ||
        std::any_of(query.select.begin(), query.select.end(),
                    [](const SelectItem& s) { return s.IsStar(); })) {
      return LogicalPlanPtr();
    }
    // grouping(), grouping_id() and Hive's grouping__id are computed by the aggregation too.
    std::function<bool(const expr::Expression&)> aggregation_value =
        [&](const expr::Expression& e) {
          if ((e.GetOp() == Op::kFunction &&
               (e.Name() == "grouping" || e.Name() == "grouping_id")) ||
              (e.GetOp() == Op::kColumn && EqualsIgnoreAsciiCase(e.Name(), "grouping__id"))) {
            return true;
          }
          return std::any_of(e.Children().begin(), e.Children().end(),
                             [&](const ExprPtr& child) { return aggregation_value(*child); });
        };
    return SortByHiddenItems(query, /*keep_with=*/true, "__order_by_", [&](const OrderItem& order) {
      return !Ordinal(*order.expr).has_value() &&
             (ContainsAggregate(*order.expr) ||
              (!query.grouping_sets.empty() && aggregation_value(*order.expr))) &&
             std::none_of(query.select.begin(), query.select.end(), [&](const SelectItem& s) {
               return s.expr->ToString() == order.expr->ToString();
             });
    });
  }

  // ORDER BY an expression over columns the SELECT list does not output (`SELECT c FROM t
  // ORDER BY a`, or a grouping column after GROUP BY): Spark resolves it against the FROM
  // clause (or the grouping keys) and sorts by a hidden column it projects away after the sort.
  // Here each such item becomes a hidden SELECT item, as for aggregates above; `plan` is the
  // query bound without them. Null when every ORDER BY item resolves against `plan`.
  Result<LogicalPlanPtr> OrderByHiddenColumns(const sql::Query& query, const LogicalPlanPtr& plan) {
    return SortByHiddenItems(
        query, /*keep_with=*/false, "__order_by_hidden_", [&](const OrderItem& order) {
          // A call the SELECT list computes sorts by that output column (below).
          if (Ordinal(*order.expr).has_value() || ContainsAggregate(*order.expr) ||
              (order.expr->GetOp() == Op::kFunction &&
               std::any_of(query.select.begin(), query.select.end(), [&](const SelectItem& s) {
                 return !s.IsStar() && s.expr->ToString() == order.expr->ToString();
               }))) {
            return false;
          }
          plan::SortItem probe;
          probe.expr = order.expr;
          auto sorted = plan::OrderBy(plan, {probe});
          return !sorted.ok() &&
                 (sorted.status().Message().find("UNRESOLVED_COLUMN") != std::string::npos ||
                  sorted.status().Message().find("is ambiguous") != std::string::npos);
        });
  }

  // `query` with each ORDER BY item `hide` picks computed as a hidden SELECT item named
  // `<prefix><n>`, sorted on and projected away after the sort; null when `hide` picks none.
  // `keep_with`: false when the query's WITH names are already in scope.
  Result<LogicalPlanPtr> SortByHiddenItems(const sql::Query& query, bool keep_with,
                                           std::string_view prefix,
                                           const std::function<bool(const OrderItem&)>& hide) {
    sql::Query rewritten = query;
    if (!keep_with) {
      rewritten.with.clear();
    }
    std::vector<std::string> hidden;
    for (OrderItem& order : rewritten.order_by) {
      if (!hide(order)) {
        continue;
      }
      SelectItem item;
      item.expr = order.expr;
      item.alias = fmt::format("{}{}", prefix, hidden.size());
      item.position = rewritten.position;
      order.expr = expr::Col(item.alias);
      hidden.push_back(item.alias);
      rewritten.select.push_back(std::move(item));
    }
    if (hidden.empty()) {
      return LogicalPlanPtr();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr plan, QueryInScope(rewritten));
    return plan::Drop(std::move(plan), hidden);
  }

  Result<LogicalPlanPtr> QueryInScope(const sql::Query& query) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr with_hidden_order, OrderByHiddenAggregates(query));
    if (with_hidden_order != nullptr) {
      return with_hidden_order;
    }
    for (const CommonTableExpression& cte : query.with) {
      TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr plan, Query(*cte.query));
      if (!cte.columns.empty()) {
        if (static_cast<size_t>(plan->Schema()->NumFields()) != cte.columns.size()) {
          return At(Status::InvalidArgument(fmt::format(
                        "[ASSIGNMENT_ARITY_MISMATCH] The number of columns of the WITH query {} "
                        "({}) does not match the number of column names ({})",
                        cte.name, plan->Schema()->NumFields(), cte.columns.size())),
                    cte.position);
        }
        TRIBUTARY_ASSIGN_OR_RAISE(plan, plan::Rename(std::move(plan), cte.columns));
      }
      scopes_.back()[AsciiLower(cte.name)] = plan->WithAlias(cte.name);
    }
    LogicalPlanPtr plan;
    switch (query.kind) {
      case QueryKind::kSelect: {
        TRIBUTARY_ASSIGN_OR_RAISE(plan, Select(query));
        break;
      }
      case QueryKind::kValues: {
        TRIBUTARY_ASSIGN_OR_RAISE(plan, Values(query));
        break;
      }
      case QueryKind::kUnion: {
        TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr left, Query(*query.left));
        TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr right, Query(*query.right));
        if (domain_ != nullptr && (internal::CarriesDomain(*left, *domain_) ||
                                   internal::CarriesDomain(*right, *domain_))) {
          // Per domain row: both sides carry the domain columns, last.
          if (!internal::CarriesDomain(*left, *domain_)) {
            TRIBUTARY_ASSIGN_OR_RAISE(left, WithDomain(std::move(left)));
          }
          if (!internal::CarriesDomain(*right, *domain_)) {
            TRIBUTARY_ASSIGN_OR_RAISE(right, WithDomain(std::move(right)));
          }
        }
        auto unioned = query.set_operator == SetOperator::kUnion
                           ? plan::Union({std::move(left), std::move(right)}, !query.union_all)
                           : plan::SetOperation(std::move(left), std::move(right),
                                                query.set_operator == SetOperator::kIntersect
                                                    ? plan::SetOperationKind::kIntersect
                                                    : plan::SetOperationKind::kExcept,
                                                query.union_all);
        if (!unioned.ok()) {
          return At(unioned.status(), query.position);
        }
        plan = *std::move(unioned);
        break;
      }
    }
    if (query.kind == QueryKind::kSelect && !query.distinct && !query.order_by_all &&
        !query.order_by.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr with_hidden, OrderByHiddenColumns(query, plan));
      if (with_hidden != nullptr) {
        return with_hidden;
      }
    }
    std::vector<OrderItem> order_by = query.order_by;
    if (query.order_by_all && !HasField(*plan->Schema(), "all")) {
      // ORDER BY ALL: every output column in order, each with the direction given.
      const OrderItem all = order_by.front();
      order_by.clear();
      for (int c = 0; c < plan->Schema()->NumFields(); ++c) {
        OrderItem item = all;
        item.expr = expr::Lit(expr::Scalar::Int64(c + 1));
        order_by.push_back(std::move(item));
      }
    }
    // The ORDER BY keys, for a LIMIT per outer domain row (LimitPerDomainRow).
    std::vector<plan::SortItem> ordered;
    if (!order_by.empty()) {
      std::vector<plan::SortItem> items;
      for (const OrderItem& order : order_by) {
        plan::SortItem item;
        item.expr = order.expr;
        item.ascending = order.ascending;
        item.nulls_first = order.nulls_first;
        std::optional<int64_t> ordinal = Ordinal(*order.expr);
        const bool has_star = std::any_of(query.select.begin(), query.select.end(),
                                          [](const SelectItem& s) { return s.IsStar(); });
        if (!ordinal.has_value() && query.kind == QueryKind::kSelect && !has_star &&
            order.expr->GetOp() == Op::kFunction) {
          // A call the SELECT list computes (sum(x), grouping(a)) sorts by that output column.
          for (size_t i = 0; i < query.select.size(); ++i) {
            if (!query.select[i].IsStar() &&
                query.select[i].expr->ToString() == order.expr->ToString()) {
              ordinal = static_cast<int64_t>(i + 1);
              break;
            }
          }
        }
        if (ordinal.has_value()) {
          const int columns = plan->Schema()->NumFields();
          if (*ordinal < 1 || *ordinal > columns) {
            return At(
                Status::InvalidArgument(fmt::format(
                    "ORDER BY position {} is not in the select list (1 to {})", *ordinal, columns)),
                *order.expr);
          }
          item.expr = expr::Col(
              QuoteIdentifier(plan->Schema()->FieldAt(static_cast<int>(*ordinal - 1)).Name()));
        }
        TRIBUTARY_RETURN_NOT_OK(CheckNoSubquery(item.expr));
        items.push_back(std::move(item));
      }
      ordered = items;
      auto sorted = plan::OrderBy(plan, items);
      if (!sorted.ok()) {
        return At(sorted.status(), *order_by.front().expr);
      }
      plan = *std::move(sorted);
    }
    if ((query.limit != nullptr || query.offset != nullptr) && domain_ != nullptr &&
        internal::CarriesDomain(*plan, *domain_)) {
      return LimitPerDomainRow(query, std::move(plan), ordered);
    }
    if (query.limit != nullptr || query.offset != nullptr) {
      int64_t offset = 0;
      if (query.offset != nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(offset, LimitLikeCount(*query.offset, "offset"));
      }
      // OFFSET without LIMIT keeps every row after the offset.
      int64_t count = std::numeric_limits<int64_t>::max() - offset;
      if (query.limit != nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(count, LimitLikeCount(*query.limit, "limit"));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(plan, plan::Limit(plan, count, offset));
    }
    return plan;
  }

  // LIMIT / OFFSET of a query bound over an outer domain whose rows carry the domain columns:
  // applied per domain row, as if the query ran once per outer row (Spark's rewrite of a
  // correlated LIMIT): the rows numbered within each domain row in the ORDER BY order
  // (`ordered`; any order without one) and filtered to the numbers offset+1 .. offset+count.
  Result<LogicalPlanPtr> LimitPerDomainRow(const sql::Query& query, LogicalPlanPtr plan,
                                           const std::vector<plan::SortItem>& ordered) {
    int64_t offset = 0;
    if (query.offset != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(offset, LimitLikeCount(*query.offset, "offset"));
    }
    int64_t count = std::numeric_limits<int64_t>::max() - offset;
    if (query.limit != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(count, LimitLikeCount(*query.limit, "limit"));
    }
    expr::WindowSpec spec;
    std::vector<ExprPtr> keys;
    for (const std::string& name : domain_->names) {
      keys.push_back(plan::ExactColumn(name));
    }
    spec.num_partition_keys = keys.size();
    for (const plan::SortItem& item : ordered) {
      keys.push_back(item.expr);
      spec.order.push_back({item.ascending, item.nulls_first.value_or(item.ascending)});
    }
    if (ordered.empty()) {
      // row_number needs an order: a domain column, constant within its partition.
      keys.push_back(plan::ExactColumn(domain_->names.front()));
      spec.order.emplace_back();
    }
    const std::string number = fmt::format("__outer_row_{}", ++domain_joins_);
    const columnar::SchemaPtr resolution = plan::ResolutionSchema(*plan);
    std::vector<plan::NamedExpr> items;
    items.reserve(static_cast<size_t>(plan->Schema()->NumFields()) + 1);
    for (int i = 0; i < plan->Schema()->NumFields(); ++i) {
      items.push_back(
          {plan::ExactColumn(resolution->FieldAt(i).Name()), plan->Schema()->FieldAt(i).Name()});
    }
    items.push_back(
        {expr::WindowCall("row_number", {}, false, std::move(keys), std::move(spec)), number});
    auto numbered = plan::Select(std::move(plan), items);
    if (numbered.ok()) {
      const ExprPtr row = plan::ExactColumn(number);
      ExprPtr keep = expr::Call(Op::kGreater, {row, expr::Lit(expr::Scalar::Int64(offset))});
      if (count < std::numeric_limits<int64_t>::max() - offset) {
        keep = expr::And(keep, expr::Call(Op::kLessEqual,
                                          {row, expr::Lit(expr::Scalar::Int64(offset + count))}));
      }
      numbered = plan::Filter(*std::move(numbered), keep);
    }
    if (numbered.ok()) {
      numbered = plan::Drop(*std::move(numbered), {number});
    }
    if (!numbered.ok()) {
      return query.limit != nullptr ? At(numbered.status(), *query.limit)
                                    : At(numbered.status(), *query.offset);
    }
    return numbered;
  }

  // The row count of LIMIT or OFFSET (`what`): Spark takes any foldable, non-null, non-negative
  // integer expression (`LIMIT 1 + 1`).
  Result<int64_t> LimitLikeCount(const expr::Expression& limit, std::string_view what) const {
    std::optional<int64_t> count = Ordinal(limit);
    if (!count.has_value()) {
      auto value = internal::ConstantValue(limit, catalog_.eval);
      if (!value.ok()) {
        return At(Status::InvalidArgument(fmt::format(
                      "[INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE] The limit like expression "
                      "\"{}\" is invalid. The {} expression must evaluate to a constant value.",
                      limit.ToString(), what)),
                  limit);
      }
      if (value->IsNull()) {
        return At(Status::InvalidArgument(fmt::format(
                      "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL] The limit like expression "
                      "\"{}\" is invalid. The evaluated {} expression must not be null.",
                      limit.ToString(), what)),
                  limit);
      }
      if (!value->Type()->IsInteger()) {
        return At(Status::InvalidArgument(fmt::format(
                      "[INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE] The limit like expression "
                      "\"{}\" is invalid. The {} expression must be integer type, but got "
                      "\"{}\".",
                      limit.ToString(), what, value->Type()->Sql())),
                  limit);
      }
      count = value->IntValue();
    }
    if (*count < 0) {
      return At(Status::InvalidArgument(fmt::format(
                    "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The limit like expression "
                    "\"{}\" is invalid. The {} expression must be equal to or greater than 0, "
                    "but got {}.",
                    limit.ToString(), what, *count)),
                limit);
    }
    return *count;
  }

  // INSERT rows in the table's column order and types: by position, or by the column list
  // (columns not listed are null), each cast to the table's type.
  Result<LogicalPlanPtr> InsertRows(const Insert& insert, const std::string& path) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> file_table,
                              internal::FileTableOf(statement_, catalog_, insert.table));
    auto target = file_table ? plan::ScanFileTable(catalog_, *file_table, "")
                             : plan::ScanDeltaTable(catalog_, path, {}, "");
    if (!target.ok()) {
      return At(target.status(), insert.table.position);
    }
    const columnar::Schema& table = *(*target)->Schema();
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr rows, Query(*insert.query));
    const size_t given =
        insert.columns.empty() ? static_cast<size_t>(table.NumFields()) : insert.columns.size();
    if (static_cast<size_t>(rows->Schema()->NumFields()) != given) {
      return At(Status::InvalidArgument(
                    fmt::format("INSERT into {} gives {} columns, the {} {}",
                                insert.table.ToString(), rows->Schema()->NumFields(),
                                insert.columns.empty() ? "table has" : "list names", given)),
                insert.query->position);
    }
    std::vector<std::string> positional;
    for (size_t i = 0; i < given; ++i) {
      positional.push_back(fmt::format("_insert_{}", i));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(rows, plan::Rename(rows, positional));
    std::vector<plan::NamedExpr> items;
    for (int c = 0; c < table.NumFields(); ++c) {
      const columnar::Field& field = table.FieldAt(c);
      std::optional<size_t> source;
      if (insert.columns.empty()) {
        source = static_cast<size_t>(c);
      } else {
        for (size_t i = 0; i < insert.columns.size(); ++i) {
          if (AsciiLower(insert.columns[i]) == AsciiLower(field.Name())) {
            source = i;
          }
        }
      }
      ExprPtr value = source.has_value() ? expr::Col(positional[*source])
                                         : expr::Lit(expr::Scalar::Null(field.Type()));
      items.push_back({expr::Cast(std::move(value), field.Type()), field.Name()});
    }
    for (const std::string& column : insert.columns) {
      if (!HasField(table, column)) {
        return At(Status::InvalidArgument(fmt::format("INSERT column '{}' is not a column of {}",
                                                      column, insert.table.ToString())),
                  insert.table.position);
      }
    }
    auto projected = plan::Select(rows, items);
    return projected.ok() ? projected : At(projected.status(), insert.query->position);
  }

  Result<BoundStatement> Statement() {
    BoundStatement bound;
    const StatementBody& body = statement_.body;
    if (const auto* query = std::get_if<QueryPtr>(&body)) {
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, Query(**query));
      return bound;
    }
    if (const auto* create = std::get_if<CreateTable>(&body)) {
      if (create->streaming) {
        return CreateStreamingTable(*create);
      }
      TRIBUTARY_RETURN_NOT_OK(internal::CheckCreateProvider(statement_, *create));
      bound.kind = BoundKind::kCreateTable;
      bound.create = *create;
      if (plan::IsFileTableProvider(create->provider)) {
        bound.schema = DeclaredSchema(create->columns);
        if (create->query != nullptr) {
          TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, Query(*create->query));
        }
        TRIBUTARY_ASSIGN_OR_RAISE(
            bound.file_table,
            internal::BindFileTableCreate(statement_, catalog_, *create, bound.schema, bound.plan));
        bound.path = bound.file_table.location;
        if (bound.plan != nullptr) {
          // The query's columns in the table's order (partition columns last).
          std::vector<plan::NamedExpr> items;
          for (const columnar::Field& field : bound.file_table.schema->Fields()) {
            items.push_back({plan::ExactColumn(field.Name()), field.Name()});
          }
          TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, plan::Select(bound.plan, items));
        }
        return bound;
      }
      if (!create->location.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(bound.path,
                                  LocalTablePath(create->location, statement_.position));
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(create->table));
      }
      bound.schema = DeclaredSchema(create->columns);
      if (create->query != nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, Query(*create->query));
      }
      return bound;
    }
    if (const auto* insert = std::get_if<Insert>(&body)) {
      bound.kind = BoundKind::kInsert;
      bound.insert = *insert;
      TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(insert->table));
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, InsertRows(*insert, bound.path));
      return bound;
    }
    if (const auto* view = std::get_if<CreateView>(&body)) {
      bound.kind = BoundKind::kCreateView;
      bound.create_view = *view;
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, Query(*view->query));
      if (!view->columns.empty()) {
        if (static_cast<size_t>(bound.plan->Schema()->NumFields()) != view->columns.size()) {
          return At(Status::InvalidArgument(fmt::format(
                        "CREATE VIEW {}: {} column names for a query of {} columns", view->name,
                        view->columns.size(), bound.plan->Schema()->NumFields())),
                    view->position);
        }
        TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, plan::Rename(bound.plan, view->columns));
      }
      return bound;
    }
    if (const auto* drop_view = std::get_if<DropView>(&body)) {
      bound.kind = BoundKind::kDropView;
      bound.drop_view = *drop_view;
      return bound;
    }
    if (const auto* drop = std::get_if<DropTable>(&body)) {
      bound.kind = BoundKind::kDropTable;
      bound.drop = *drop;
      TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(drop->table));
      return bound;
    }
    if (const auto* explain = std::get_if<Explain>(&body)) {
      bound.kind = BoundKind::kExplain;
      bound.explain = *explain;
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, Query(*explain->query));
      return bound;
    }
    if (const auto* describe = std::get_if<Describe>(&body); describe && describe->query) {
      TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr rows, Query(*describe->query));
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan,
                                plan::DescribeColumns(*rows->Schema(),
                                                      /*names_only=*/false, "DESCRIBE QUERY"));
      return bound;
    }
    if (internal::IsUtilityStatement(body)) {
      return internal::BindUtility(statement_, catalog_, this);
    }
    if (const auto* describe = std::get_if<Describe>(&body)) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string path, TablePath(describe->table));
      auto result =
          describe->kind == DescribeKind::kHistory
              ? plan::DescribeHistory(catalog_, path, describe->limit)
              : plan::DescribeDetail(
                    catalog_, path,
                    describe->table.IsPath() ? std::string() : describe->table.parts.back());
      if (!result.ok()) {
        return At(result.status(), describe->table.position);
      }
      bound.plan = *std::move(result);
      return bound;
    }
    if (const auto* show = std::get_if<ShowTables>(&body)) {
      TRIBUTARY_ASSIGN_OR_RAISE(bound.plan, internal::ShowTablesPlan(statement_, catalog_, *show));
      return bound;
    }
    if (const auto* command = std::get_if<SchemaCommand>(&body)) {
      return internal::BindSchemaCommand(statement_, catalog_, *command);
    }
    if (const auto* remove = std::get_if<Delete>(&body)) {
      TRIBUTARY_RETURN_NOT_OK(
          internal::CheckNotFileTable(statement_, catalog_, remove->table, "DELETE"));
    } else if (const auto* update = std::get_if<Update>(&body)) {
      TRIBUTARY_RETURN_NOT_OK(
          internal::CheckNotFileTable(statement_, catalog_, update->table, "UPDATE"));
    } else if (const auto* merge = std::get_if<Merge>(&body)) {
      TRIBUTARY_RETURN_NOT_OK(
          internal::CheckNotFileTable(statement_, catalog_, merge->target, "MERGE INTO TABLE"));
    }
    if (std::holds_alternative<Delete>(body) || std::holds_alternative<Update>(body) ||
        std::holds_alternative<Merge>(body) || std::holds_alternative<AutoCdc>(body)) {
      return internal::BindRowChanges(statement_, catalog_, session_config_, this);
    }
    if (const auto* optimize = std::get_if<Optimize>(&body)) {
      bound.kind = BoundKind::kOptimize;
      bound.optimize = *optimize;
      TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(optimize->table));
      return bound;
    }
    const Vacuum& vacuum = std::get<Vacuum>(body);
    bound.kind = BoundKind::kVacuum;
    bound.vacuum = vacuum;
    TRIBUTARY_ASSIGN_OR_RAISE(bound.path, TablePath(vacuum.table));
    return bound;
  }

 private:
  const sql::Statement& statement_;
  const plan::Catalog& catalog_;
  const std::map<std::string, std::string>& session_config_;
  const std::string& stream_checkpoint_;
  // Stream sources defined so far: the next one's number.
  int num_streams_ = 0;
  // Set while binding a streaming table's query: the only place STREAM sources may appear.
  bool streams_allowed_ = false;
  std::unique_ptr<internal::SubqueryRewriter> subqueries_;
  // WITH names visible here, innermost last (lowercase keys).
  std::vector<std::map<std::string, LogicalPlanPtr>> scopes_;
  // The outer domain of the correlated subquery being bound (BindQueryOverDomain), or null.
  const internal::OuterDomain* domain_ = nullptr;
  // Joins on domain columns so far (the renamed columns are numbered).
  int domain_joins_ = 0;
};

}  // namespace

Result<BoundStatement> Bind(const Statement& statement, const plan::Catalog& catalog,
                            const std::map<std::string, std::string>& session_config,
                            const std::string& stream_checkpoint) {
  return Binder(statement, catalog, session_config, stream_checkpoint).Statement();
}

Status PlaceCommandError(const Statement& statement, const BoundStatement& bound,
                         const Status& status) {
  if (bound.kind == BoundKind::kOptimize) {
    return bound.optimize.where ? StatusAt(statement, status, *bound.optimize.where)
                                : StatusAt(statement, status, bound.optimize.table.position);
  }
  if (bound.kind == BoundKind::kVacuum) {
    return StatusAt(statement, status, bound.vacuum.table.position);
  }
  if (bound.kind == BoundKind::kDelete || bound.kind == BoundKind::kUpdate ||
      bound.kind == BoundKind::kMerge) {
    return internal::PlaceRowChangeError(statement, bound, status);
  }
  return status;
}

Result<plan::LogicalPlanPtr> BindQuery(const Statement& statement, const Query& query,
                                       const plan::Catalog& catalog) {
  const std::map<std::string, std::string> no_settings;
  const std::string no_checkpoint;
  return Binder(statement, catalog, no_settings, no_checkpoint).Query(query);
}

}  // namespace tributary::sql
