#include "tributary/session.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "api/api_state.h"
#include "common/ascii.h"
#include "common/thread_count.h"
#include "delta/log_segment.h"
#include "delta/table_writes.h"
#include "formats/reader_options.h"
#include "plan/delta_commands.h"
#include "plan/plan_builder.h"
#include "plan/table_info.h"
#include "plan/warehouse_catalog.h"
#include "sql/binder.h"
#include "sql/parser.h"
#include "storage/local_path.h"
#include "storage/uri_file_system.h"
#include "streaming/kafka_batch_scan.h"
#include "tributary/pipeline.h"

namespace tributary {

Session::Builder& Session::Builder::Warehouse(std::string directory) {
  warehouse_ = std::move(directory);
  return *this;
}

Session::Builder& Session::Builder::TimeZone(std::string zone) {
  time_zone_ = std::move(zone);
  return *this;
}

Session::Builder& Session::Builder::Config(const std::string& key, const std::string& value) {
  config_[key] = value;
  return *this;
}

Result<std::shared_ptr<Session>> Session::Builder::Build() {
  auto state = std::make_shared<SessionState>();
  // Every path's scheme picks its store; the fs.s3a.* settings configure S3.
  state->fs = std::make_shared<storage::UriFileSystem>(config_);
  state->config = config_;
  std::string warehouse = warehouse_;
  if (warehouse.empty()) {
    const char* env = std::getenv("TRIBUTARY_WAREHOUSE");
    warehouse = env != nullptr && *env != '\0' ? env : "warehouse";
  }
  auto warehouse_path = storage::StoragePath(warehouse);
  if (!warehouse_path.ok()) {
    return warehouse_path.status().WithContext("warehouse");
  }
  state->warehouse = std::move(*warehouse_path);
  std::string zone = time_zone_;
  if (auto it = config_.find("spark.sql.session.timeZone"); zone.empty() && it != config_.end()) {
    zone = it->second;
  }
  if (zone.empty()) {
    const char* env = std::getenv("TZ");
    zone = env != nullptr && *env != '\0' ? env : "UTC";
  }
  auto parsed = expr::TimeZone::Make(zone);
  if (!parsed.ok()) {
    return parsed.status().WithContext("session time zone");
  }
  state->time_zone = std::move(*parsed);
  state->time_zone_name = zone;
  state->initial_config = state->config;
  state->initial_time_zone_name = zone;
  return ApiAccess::MakeSharedSession(std::move(state));
}

Session::Session(std::shared_ptr<SessionState> state) : state_(std::move(state)) {}

DataFrameReader Session::Read() const {
  return ApiAccess::MakeDataFrameReader(state_);
}

DataFrame Session::Table(const std::string& name) const {
  return Read().Table(name);
}

namespace {

// Runs `plan` and writes its rows to the table at `path`.
Result<delta::TableWriteResult> WritePlan(const std::shared_ptr<SessionState>& session,
                                          const plan::LogicalPlanPtr& plan, const std::string& path,
                                          const delta::TableWriteOptions& options) {
  DataFrameState frame;
  frame.session = session;
  frame.plan = plan;
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(frame));
  delta::TableWriteOptions threaded = options;
  TRIBUTARY_ASSIGN_OR_RAISE(threaded.data.parquet.threads, ResolveThreadCount(session->config));
  return delta::WriteTable(*session->fs, path, plan->Schema(), batches, threaded);
}

// The dotted name of a table reference that is not a path.
std::string NameOf(const sql::TableName& table) {
  std::string name;
  for (const std::string& part : table.parts) {
    name += name.empty() ? part : "." + part;
  }
  return name;
}

// A location as the catalog keeps it: the storage path (storage::StoragePath: a file URI's
// path, an s3:// URI as given, other schemes refused) made absolute, so any working directory finds
// it, and normalized lexically (symbolic links stay: the entry names what the user gave, as Spark's
// qualified location does).
Result<std::string> AbsoluteLocation(const std::string& location) {
  if (location.empty()) {
    return Status::InvalidArgument("LOCATION '': give the table's directory");
  }
  Result<std::string> absolute = storage::AbsolutePath(location);
  if (!absolute.ok()) {
    return absolute.status().WithContext(fmt::format("LOCATION '{}'", location));
  }
  return absolute;
}

// Whether locations `a` and `b` name one directory (storage::CanonicalPath: "file:///x",
// "/x/" and "/y/../x" do).
Result<bool> SameLocation(const std::string& a, const std::string& b) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string first, storage::CanonicalPath(a));
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string second, storage::CanonicalPath(b));
  return first == second;
}

// CREATE TABLE ... USING parquet | json | csv [AS SELECT], as Spark's data source tables: the
// rows (if any) written as files of the table's folder, then the catalog entry the binder made
// (plan/warehouse_catalog.h), put-if-absent, so the table exists only once its files do.
Result<plan::LogicalPlanPtr> RunCreateFileTable(const std::shared_ptr<SessionState>& session,
                                                const sql::BoundStatement& bound) {
  const sql::CreateTable& create = bound.create;
  const plan::TableEntry& entry = bound.file_table;
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr empty, plan::CountsPlan({}, "CREATE TABLE"));
  const plan::Catalog catalog = session->MakeCatalog(0);
  const std::string name = NameOf(create.table);
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> existing,
                            plan::ReadTableEntry(catalog, name));
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string managed, plan::ManagedTablePath(catalog, name));
  if (existing || delta::HasDeltaLog(*session->fs, managed)) {
    if (create.if_not_exists) {
      return empty;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const plan::QualifiedName qualified,
                              plan::QualifyTableName(catalog, name));
    return Status::AlreadyExists(fmt::format(
        "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{}`.`{}` because it "
        "already exists. Choose a different name, drop or rename the existing object, or add "
        "the IF NOT EXISTS clause to tolerate pre-existing objects.",
        qualified.schema, qualified.table));
  }
  if (entry.managed) {
    // Spark refuses a managed table whose folder is taken (files left by something else).
    Result<std::vector<storage::FileInfo>> taken = session->fs->List(entry.location, {});
    if (taken.ok() && !taken->empty()) {
      return Status::AlreadyExists(fmt::format(
          "[LOCATION_ALREADY_EXISTS] Cannot name the managed table as {}, as its associated "
          "location '{}' already exists. Please pick a different table name, or remove the "
          "existing location first.",
          name, entry.location));
    }
  }
  if (bound.plan != nullptr) {
    DataFrameState frame;
    frame.session = session;
    frame.plan = bound.plan;
    TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(frame));
    TRIBUTARY_ASSIGN_OR_RAISE(const int threads, ResolveThreadCount(session->config));
    TRIBUTARY_RETURN_NOT_OK(plan::WriteFileTable(*session->fs, entry, batches, /*overwrite=*/false,
                                                 threads, session->time_zone)
                                .status());
  } else if (entry.managed) {
    TRIBUTARY_RETURN_NOT_OK(session->fs->CreateDir(entry.location));
  }
  TRIBUTARY_RETURN_NOT_OK(plan::WriteTableEntry(catalog, name, entry));
  return empty;
}

// CREATE TABLE [AS SELECT]: nothing to return, as Spark. With LOCATION and a name, the table
// is external: its files are at the location, and the name is registered in the warehouse's
// catalog (plan::RegisterExternalTable) as Spark's metastore registers it; without columns or
// a query, an existing Delta table at the location is registered as it is.
Result<plan::LogicalPlanPtr> RunCreateTable(const std::shared_ptr<SessionState>& session,
                                            const sql::BoundStatement& bound) {
  // The binder has refused other providers, and binds streaming tables to another kind.
  const sql::CreateTable& create = bound.create;
  if (plan::IsFileTableProvider(create.provider)) {
    return RunCreateFileTable(session, bound);
  }
  if (!create.table.IsPath()) {
    const plan::Catalog catalog = session->MakeCatalog(0);
    TRIBUTARY_ASSIGN_OR_RAISE(const plan::QualifiedName qualified,
                              plan::QualifyTableName(catalog, NameOf(create.table)));
    TRIBUTARY_ASSIGN_OR_RAISE(const bool schema_exists,
                              plan::SchemaExists(catalog, qualified.schema));
    if (!schema_exists) {
      return plan::SchemaNotFoundError(qualified.schema);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                              plan::ReadTableEntry(catalog, NameOf(create.table)));
    if (entry && entry->IsFileTable()) {
      if (create.if_not_exists) {
        return plan::CountsPlan({}, "CREATE TABLE");
      }
      return Status::AlreadyExists(fmt::format(
          "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `{}`.`{}` because it "
          "already exists (a {} table)",
          qualified.schema, qualified.table, entry->provider));
    }
  }
  const bool exists = delta::HasDeltaLog(*session->fs, bound.path);
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr empty, plan::CountsPlan({}, "CREATE TABLE"));
  const bool external = !create.location.empty() && !create.table.IsPath();
  bool registered = false;
  if (external) {
    const plan::Catalog catalog = session->MakeCatalog(0);
    const std::string name = NameOf(create.table);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> location,
                              plan::ExternalTableLocation(catalog, name));
    TRIBUTARY_ASSIGN_OR_RAISE(std::string managed, plan::ManagedTablePath(catalog, name));
    if (location) {
      TRIBUTARY_ASSIGN_OR_RAISE(registered, SameLocation(*location, bound.path));
    }
    if (!registered && (location || delta::HasDeltaLog(*session->fs, managed))) {
      if (create.if_not_exists) {
        return empty;
      }
      return Status::AlreadyExists(
          fmt::format("table {} already exists at {}", name, location ? *location : managed));
    }
    if (!registered && exists && bound.plan == nullptr &&
        (bound.schema == nullptr || create.if_not_exists)) {
      TRIBUTARY_ASSIGN_OR_RAISE(const std::string absolute, AbsoluteLocation(bound.path));
      TRIBUTARY_RETURN_NOT_OK(plan::RegisterExternalTable(catalog, name, absolute));
      return empty;
    }
  }
  if (exists && create.if_not_exists) {
    return empty;
  }
  if (exists && !create.or_replace) {
    return Status::AlreadyExists(fmt::format(
        "table {} already exists (use IF NOT EXISTS or CREATE OR REPLACE)", bound.path));
  }
  if (bound.plan == nullptr && bound.schema == nullptr) {
    return Status::InvalidArgument(fmt::format(
        "CREATE TABLE {}: give columns or AS query (there is no Delta table at {} to register)",
        create.table.ToString(), bound.path));
  }
  delta::TableWriteOptions options;
  options.mode = exists ? delta::SaveMode::kOverwrite : delta::SaveMode::kErrorIfExists;
  options.overwrite_schema = exists;
  options.partition_by = create.partition_by;
  for (const auto& [key, value] : create.properties) {
    options.properties[key] = value;
  }
  plan::LogicalPlanPtr rows = bound.plan;
  if (rows == nullptr) {
    // No AS query: an empty table with the declared columns.
    std::vector<columnar::ColumnPtr> columns;
    for (const columnar::Field& field : bound.schema->Fields()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, columnar::Column::MakeAllNull(field.Type(), 0));
      columns.push_back(std::move(column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto no_rows,
                              columnar::RecordBatch::Make(bound.schema, 0, std::move(columns)));
    rows = plan::ValuesPlan(no_rows, "no rows");
  }
  TRIBUTARY_RETURN_NOT_OK(WritePlan(session, rows, bound.path, options).status());
  if (external && !registered) {
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string absolute, AbsoluteLocation(bound.path));
    TRIBUTARY_RETURN_NOT_OK(
        plan::RegisterExternalTable(session->MakeCatalog(0), NameOf(create.table), absolute));
  }
  return empty;
}

// INSERT INTO/OVERWRITE: Databricks' metrics row (num_affected_rows, num_inserted_rows).
Result<plan::LogicalPlanPtr> RunInsert(const std::shared_ptr<SessionState>& session,
                                       const sql::BoundStatement& bound) {
  const auto metrics = [&](int64_t rows) {
    return bound.insert.truncate
               ? plan::CountsPlan({}, "TRUNCATE TABLE")
               : plan::CountsPlan({{"num_affected_rows", rows}, {"num_inserted_rows", rows}},
                                  "INSERT");
  };
  if (!bound.insert.table.IsPath()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        std::optional<plan::TableEntry> entry,
        plan::ReadTableEntry(session->MakeCatalog(0), NameOf(bound.insert.table)));
    if (entry && entry->IsFileTable()) {
      DataFrameState frame;
      frame.session = session;
      frame.plan = bound.plan;
      TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(frame));
      TRIBUTARY_ASSIGN_OR_RAISE(const int threads, ResolveThreadCount(session->config));
      TRIBUTARY_ASSIGN_OR_RAISE(
          const int64_t rows,
          plan::WriteFileTable(*session->fs, *entry, batches, bound.insert.overwrite, threads,
                               session->time_zone));
      return metrics(rows);
    }
  }
  if (!delta::HasDeltaLog(*session->fs, bound.path)) {
    return Status::NotFound(fmt::format("INSERT: no table at {}", bound.path));
  }
  delta::TableWriteOptions options;
  options.mode = bound.insert.overwrite ? delta::SaveMode::kOverwrite : delta::SaveMode::kAppend;
  TRIBUTARY_ASSIGN_OR_RAISE(options.data.parquet.threads, ResolveThreadCount(session->config));
  DataFrameState frame;
  frame.session = session;
  frame.plan = bound.plan;
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ExecuteDataFrame(frame));
  int64_t rows = 0;
  for (const auto& batch : batches) {
    rows += batch->NumRows();
  }
  TRIBUTARY_RETURN_NOT_OK(
      delta::WriteTable(*session->fs, bound.path, bound.plan->Schema(), batches, options).status());
  return metrics(rows);
}

// CREATE [OR REPLACE] TEMPORARY VIEW: the session keeps the view's plan under its name.
Result<plan::LogicalPlanPtr> RunCreateView(const std::shared_ptr<SessionState>& session,
                                           const sql::BoundStatement& bound) {
  const sql::CreateView& view = bound.create_view;
  const std::string key = AsciiLower(view.name);
  std::lock_guard<std::mutex> lock(session->views_mutex);
  if (session->views.contains(key) && !view.or_replace) {
    if (view.if_not_exists) {
      return plan::CountsPlan({}, "CREATE VIEW");
    }
    return Status::AlreadyExists(fmt::format(
        "[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create the temporary view `{}` because it "
        "already exists",
        view.name));
  }
  session->views[key] = bound.plan;
  return plan::CountsPlan({}, "CREATE VIEW");
}

Result<plan::LogicalPlanPtr> RunDropView(const std::shared_ptr<SessionState>& session,
                                         const sql::BoundStatement& bound) {
  std::lock_guard<std::mutex> lock(session->views_mutex);
  if (session->views.erase(AsciiLower(bound.drop_view.name)) == 0 && !bound.drop_view.if_exists) {
    return Status::NotFound(fmt::format(
        "[TABLE_OR_VIEW_NOT_FOUND] The table or view `{}` cannot be found", bound.drop_view.name));
  }
  return plan::CountsPlan({}, "DROP VIEW");
}

Result<plan::LogicalPlanPtr> RunDropTable(const std::shared_ptr<SessionState>& session,
                                          const sql::BoundStatement& bound) {
  if (!bound.drop.table.IsPath()) {
    const plan::Catalog catalog = session->MakeCatalog(0);
    const std::string name = NameOf(bound.drop.table);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                              plan::ReadTableEntry(catalog, name));
    if (entry && entry->managed) {
      // A managed data source table: the entry first, so the name never points at half-deleted
      // files, then the folder.
      TRIBUTARY_RETURN_NOT_OK(plan::DeleteTableEntry(catalog, name));
      Status deleted = session->fs->DeleteDir(entry->location, /*recursive=*/true);
      if (!deleted.ok() && !deleted.IsNotFound()) {
        return deleted.WithContext(fmt::format("DROP TABLE {}", name));
      }
      return plan::CountsPlan({}, "DROP TABLE");
    }
    // An external table: forget the name, keep the files (Spark's DROP of an external table).
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> location,
                              plan::ExternalTableLocation(catalog, name));
    if (location) {
      TRIBUTARY_RETURN_NOT_OK(plan::UnregisterExternalTable(catalog, name));
      return plan::CountsPlan({}, "DROP TABLE");
    }
  }
  if (!delta::HasDeltaLog(*session->fs, bound.path)) {
    if (bound.drop.if_exists) {
      return plan::CountsPlan({}, "DROP TABLE");
    }
    return Status::NotFound(fmt::format("DROP TABLE: no table at {}", bound.path));
  }
  TRIBUTARY_RETURN_NOT_OK(session->fs->DeleteDir(bound.path, /*recursive=*/true));
  return plan::CountsPlan({}, "DROP TABLE");
}

// CREATE STREAMING TABLE, as Databricks SQL: create the table if needed, then refresh it once
// (available-now) as a one-table pipeline, which binds it with its checkpoint. An existing
// table is refreshed only with OR REFRESH, left alone with IF NOT EXISTS.
Result<plan::LogicalPlanPtr> RunStreamingTable(const std::shared_ptr<SessionState>& session,
                                               const sql::CreateTable& create,
                                               const std::string& text) {
  TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr done,
                            plan::CountsPlan({}, "CREATE STREAMING TABLE"));
  if (!create.table.IsPath()) {
    // A data source table cannot take a stream's writes (Delta commits) in its folder.
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                              plan::ReadTableEntry(session->MakeCatalog(0), NameOf(create.table)));
    if (entry && entry->IsFileTable()) {
      return Status::NotImplemented(fmt::format(
          "CREATE STREAMING TABLE {}: {} is a {} table; streaming writes go to Delta tables only",
          create.table.ToString(), create.table.ToString(), entry->provider));
    }
  }
  if (!create.or_refresh && !create.table.IsPath() && create.table.parts.size() == 1) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string path,
                              plan::TablePath(session->MakeCatalog(0), create.table.parts[0]));
    if (delta::HasDeltaLog(*session->fs, path)) {
      if (create.if_not_exists) {
        return done;
      }
      return Status::AlreadyExists(
          fmt::format("table {} already exists; CREATE OR REFRESH STREAMING TABLE refreshes it",
                      create.table.ToString()));
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Pipeline> pipeline,
                            Pipeline::Parse(ApiAccess::MakeSharedSession(session), text));
  TRIBUTARY_RETURN_NOT_OK(pipeline->Run());
  return done;
}

// DELETE, UPDATE and MERGE, run as Delta runs them (plan/delta_dml.h): the result row
// Databricks shows (num_affected_rows, ...).
Result<plan::LogicalPlanPtr> RunRowChanges(const plan::Catalog& catalog,
                                           const sql::BoundStatement& bound,
                                           const plan::DmlOptions& options) {
  if (bound.kind == sql::BoundKind::kDelete) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        plan::DmlResult result,
        plan::DeleteFromTable(catalog, bound.path, bound.target_alias, bound.condition, options));
    return plan::DmlResultPlan("DELETE", result);
  }
  if (bound.kind == sql::BoundKind::kUpdate) {
    TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlResult result,
                              plan::UpdateTable(catalog, bound.path, bound.target_alias,
                                                bound.assignments, bound.condition, options));
    return plan::DmlResultPlan("UPDATE", result);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlResult result,
                            plan::MergeIntoTable(catalog, bound.merge, options));
  return plan::DmlResultPlan("MERGE", result);
}

// EXPLAIN: one row, column plan, with DataFrame::Explain's sections as Spark's modes choose
// them: the physical plan; EXTENDED all four (the binder resolves names as it builds the plan,
// so the parsed plan is the analyzed one); COST the optimized and physical plans. FORMATTED
// prints as the default mode.
Result<plan::LogicalPlanPtr> RunExplain(const std::shared_ptr<SessionState>& session,
                                        const sql::BoundStatement& bound) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string all, MakeDataFrame(session, bound.plan).Explain());
  constexpr std::string_view kAnalyzed = "== Analyzed Logical Plan ==\n";
  constexpr std::string_view kOptimized = "== Optimized Logical Plan ==\n";
  constexpr std::string_view kPhysical = "== Physical Plan ==\n";
  const size_t optimized_at = all.find(kOptimized);
  const size_t physical_at = all.find(kPhysical);
  if (all.rfind(kAnalyzed, 0) != 0 || optimized_at == std::string::npos ||
      physical_at == std::string::npos) {
    return Status::Internal("EXPLAIN: the plan text has no Analyzed, Optimized and Physical parts");
  }
  const std::string analyzed = all.substr(kAnalyzed.size(), optimized_at - kAnalyzed.size());
  const std::string optimized =
      all.substr(optimized_at + kOptimized.size(), physical_at - optimized_at - kOptimized.size());
  const std::string physical = all.substr(physical_at + kPhysical.size());
  std::string columns;
  for (const columnar::Field& field : bound.plan->Schema()->Fields()) {
    columns += fmt::format("{}{}: {}", columns.empty() ? "" : ", ", field.Name(),
                           field.Type()->ToString());
  }
  std::string text;
  switch (bound.explain.mode) {
    case sql::ExplainMode::kExtended:
      text = fmt::format(
          "== Parsed Logical Plan ==\n{}\n== Analyzed Logical Plan ==\n{}\n{}\n"
          "== Optimized Logical Plan ==\n{}\n== Physical Plan ==\n{}\n",
          analyzed, columns, analyzed, optimized, physical);
      break;
    case sql::ExplainMode::kCost:
      text = fmt::format("== Optimized Logical Plan ==\n{}\n== Physical Plan ==\n{}\n", optimized,
                         physical);
      break;
    case sql::ExplainMode::kSimple:
    case sql::ExplainMode::kFormatted:
      text = fmt::format("== Physical Plan ==\n{}\n", physical);
      break;
  }
  return plan::StringRowsPlan({"plan"}, {{text}}, "EXPLAIN");
}

// Values SET shows for settings the session has not been given (Spark's defaults).
std::string DefaultSetting(const SessionState& session, const std::string& key) {
  if (key == "spark.sql.session.timeZone") {
    return session.time_zone_name;
  }
  if (key == "spark.sql.shuffle.partitions") {
    return "200";
  }
  if (key == "spark.sql.ansi.enabled") {
    return "true";
  }
  return "<undefined>";
}

// Makes the session's time zone follow spark.sql.session.timeZone (the builder's zone when the
// setting is gone).
Status ApplyTimeZone(SessionState* session) {
  auto it = session->config.find("spark.sql.session.timeZone");
  const std::string zone =
      it != session->config.end() ? it->second : session->initial_time_zone_name;
  TRIBUTARY_ASSIGN_OR_RAISE(expr::TimeZone parsed, expr::TimeZone::Make(zone));
  session->time_zone = std::move(parsed);
  session->time_zone_name = zone;
  return Status::OK();
}

// SET lists the settings (key, value), shows one, or changes one; a value is checked before it
// is kept (a time zone, a thread count), so a bad SET leaves the session as it was.
Result<plan::LogicalPlanPtr> RunSet(const std::shared_ptr<SessionState>& session,
                                    const sql::SetConfig& set) {
  std::vector<std::vector<std::string>> rows;
  if (set.key == "-v" && !set.value) {
    return Status::NotImplemented("SET -v (every setting with its meaning) is not supported");
  }
  if (!set.key) {
    for (const auto& [key, value] : session->config) {
      rows.push_back({key, value});
    }
  } else if (!set.value) {
    auto it = session->config.find(*set.key);
    rows.push_back(
        {*set.key, it != session->config.end() ? it->second : DefaultSetting(*session, *set.key)});
  } else {
    std::map<std::string, std::string> changed = session->config;
    changed[*set.key] = *set.value;
    if (*set.key == kThreadsConfigKey) {
      TRIBUTARY_RETURN_NOT_OK(ResolveThreadCount(changed).status());
    }
    if (*set.key == "spark.sql.session.timeZone") {
      auto zone = expr::TimeZone::Make(*set.value);
      if (!zone.ok()) {
        return Status::InvalidArgument(fmt::format(
            "[INVALID_CONF_VALUE.TIME_ZONE] The value '{}' in the config "
            "\"spark.sql.session.timeZone\" is invalid. Cannot resolve the given timezone.",
            *set.value));
      }
    }
    if (*set.key == "spark.sql.shuffle.partitions") {
      int64_t number = 0;
      const std::string& text = *set.value;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc{} || end != text.data() + text.size() || number <= 0) {
        return Status::InvalidArgument(fmt::format(
            "[INVALID_CONF_VALUE] The value '{}' in the config \"spark.sql.shuffle.partitions\" "
            "is invalid. The value must be a positive integer.",
            text));
      }
    }
    session->config = std::move(changed);
    TRIBUTARY_RETURN_NOT_OK(ApplyTimeZone(session.get()));
    rows.push_back({*set.key, *set.value});
  }
  return plan::StringRowsPlan({"key", "value"}, rows, "SET");
}

// RESET: the settings the session was built with (one, or all).
Result<plan::LogicalPlanPtr> RunReset(const std::shared_ptr<SessionState>& session,
                                      const sql::ResetConfig& reset) {
  if (!reset.key) {
    session->config = session->initial_config;
  } else if (auto it = session->initial_config.find(*reset.key);
             it != session->initial_config.end()) {
    session->config[*reset.key] = it->second;
  } else {
    session->config.erase(*reset.key);
  }
  TRIBUTARY_RETURN_NOT_OK(ApplyTimeZone(session.get()));
  return plan::CountsPlan({}, "RESET");
}

// CREATE SCHEMA [IF NOT EXISTS] and DROP SCHEMA [IF EXISTS] [CASCADE]: the schema's folder in
// the warehouse (plan/warehouse_catalog.h). Dropping the current schema returns the session to
// `default`.
Result<plan::LogicalPlanPtr> RunSchemaCommand(const std::shared_ptr<SessionState>& session,
                                              const sql::SchemaCommand& command) {
  const plan::Catalog catalog = session->MakeCatalog(0);
  const std::string& schema = command.parts.at(0);
  if (command.kind == sql::SchemaCommandKind::kCreate) {
    Status created = plan::CreateSchema(catalog, schema);
    if (!created.ok() && !(created.IsAlreadyExists() && command.if_not_exists)) {
      return created;
    }
    return plan::CountsPlan({}, "CREATE SCHEMA");
  }
  Status dropped = plan::DropSchema(catalog, schema, command.cascade);
  if (!dropped.ok() && !(dropped.IsNotFound() && command.if_exists)) {
    return dropped;
  }
  if (dropped.ok() && session->current_schema == schema) {
    session->current_schema = std::string(plan::kDefaultSchema);
  }
  return plan::CountsPlan({}, "DROP SCHEMA");
}

// SHOW VIEWS: the session's temporary views (namespace empty, as Spark shows local temporary
// views), by name.
Result<plan::LogicalPlanPtr> RunShowViews(const std::shared_ptr<SessionState>& session,
                                          const sql::ShowTableInfo& show) {
  std::vector<std::vector<std::string>> rows;
  {
    std::lock_guard<std::mutex> lock(session->views_mutex);
    for (const auto& [name, view] : session->views) {
      if (show.pattern.empty() || sql::MatchesShowPattern(show.pattern, name)) {
        rows.push_back({"", name, "true"});
      }
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      plan::LogicalPlanPtr strings,
      plan::StringRowsPlan({"namespace", "viewName", "isTemporary"}, rows, "SHOW VIEWS"));
  return plan::WithColumn(strings, "isTemporary",
                          expr::Cast(expr::Col("isTemporary"), columnar::DataType::Boolean()));
}

}  // namespace

Result<plan::DmlOptions> DmlOptionsFromConfig(const std::map<std::string, std::string>& config) {
  constexpr std::string_view kAppId = "spark.databricks.delta.write.txnAppId";
  constexpr std::string_view kVersion = "spark.databricks.delta.write.txnVersion";
  constexpr std::string_view kAutoMerge = "spark.databricks.delta.schema.autoMerge.enabled";
  plan::DmlOptions options;
  const auto app_id = config.find(std::string(kAppId));
  const auto version = config.find(std::string(kVersion));
  if ((app_id == config.end()) != (version == config.end())) {
    return Status::InvalidArgument(fmt::format(
        "Invalid options for idempotent Dataframe writes: Both {} and {} must be specified for "
        "idempotent Delta writes",
        kAppId, kVersion));
  }
  if (app_id != config.end()) {
    int64_t number = 0;
    const std::string& text = version->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc{} || end != text.data() + text.size() || number < 0) {
      return Status::InvalidArgument(
          fmt::format("{} must be a non-negative integer, got '{}'", kVersion, text));
    }
    options.txn = std::make_pair(app_id->second, number);
  }
  if (const auto it = config.find(std::string(kAutoMerge)); it != config.end()) {
    TRIBUTARY_ASSIGN_OR_RAISE(options.auto_merge, formats::BooleanOption(kAutoMerge, it->second));
  }
  return options;
}

Result<plan::LogicalPlanPtr> RunStatement(const std::shared_ptr<SessionState>& session,
                                          const sql::Statement& statement,
                                          const std::string& text) {
  if (const auto* create = std::get_if<sql::CreateTable>(&statement.body);
      create != nullptr && create->streaming) {
    return RunStreamingTable(session, *create, text);
  }
  const plan::Catalog catalog = session->MakeCatalog(NowMicros());
  TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound,
                            sql::Bind(statement, catalog, session->config));
  switch (bound.kind) {
    case sql::BoundKind::kQuery:
      return bound.plan;
    case sql::BoundKind::kCreateTable:
      return RunCreateTable(session, bound);
    case sql::BoundKind::kInsert:
      return RunInsert(session, bound);
    case sql::BoundKind::kDropTable:
      return RunDropTable(session, bound);
    case sql::BoundKind::kCreateView:
      return RunCreateView(session, bound);
    case sql::BoundKind::kDropView:
      return RunDropView(session, bound);
    case sql::BoundKind::kCreateStreamingTable:
      return RunStreamingTable(session, bound.create, text);
    case sql::BoundKind::kExplain:
      return RunExplain(session, bound);
    case sql::BoundKind::kSetConfig:
      return RunSet(session, bound.set_config);
    case sql::BoundKind::kResetConfig:
      return RunReset(session, bound.reset_config);
    case sql::BoundKind::kUse:
      session->current_schema = bound.schema_command.parts.at(0);
      return plan::CountsPlan({}, "USE");
    case sql::BoundKind::kCreateSchema:
    case sql::BoundKind::kDropSchema:
      return RunSchemaCommand(session, bound.schema_command);
    case sql::BoundKind::kShowViews:
      return RunShowViews(session, bound.show);
    case sql::BoundKind::kDelete:
    case sql::BoundKind::kUpdate:
    case sql::BoundKind::kMerge: {
      TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlOptions options, DmlOptionsFromConfig(session->config));
      Result<plan::LogicalPlanPtr> result = RunRowChanges(catalog, bound, options);
      if (!result.ok()) {
        return sql::PlaceCommandError(statement, bound, result.status());
      }
      return result;
    }
    case sql::BoundKind::kAutoCdc:
      return Status::InvalidArgument(fmt::format(
          "AUTO CDC INTO {} is a flow of a pipeline: put it in a pipeline file after CREATE OR "
          "REFRESH STREAMING TABLE {}; and run the file (tributary run)",
          bound.auto_cdc.target.ToString(), bound.auto_cdc.target.ToString()));
    case sql::BoundKind::kOptimize:
    case sql::BoundKind::kVacuum: {
      Result<plan::LogicalPlanPtr> result =
          bound.kind == sql::BoundKind::kOptimize
              ? plan::OptimizeTable(catalog, bound.path, bound.optimize.where)
              : plan::VacuumTable(catalog, bound.path, bound.vacuum.retain_hours,
                                  bound.vacuum.dry_run, /*force=*/false);
      if (!result.ok()) {
        return sql::PlaceCommandError(statement, bound, result.status());
      }
      return result;
    }
  }
  return Status::Internal("unknown statement kind");
}

DataFrame Session::Sql(const std::string& statement) const {
  auto run = [&]() -> Result<plan::LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(sql::Statement parsed, sql::ParseStatement(statement));
    return RunStatement(state_, parsed, statement);
  };
  return MakeDataFrame(state_, run());
}

Result<std::vector<std::string>> Session::ListTables() const {
  const plan::Catalog catalog = state_->MakeCatalog(0);
  return plan::ListSchemaTables(catalog, catalog.current_schema);
}

const std::string& Session::WarehouseDirectory() const {
  return state_->warehouse;
}
const std::string& Session::TimeZoneName() const {
  return state_->time_zone_name;
}

DataFrameReader::DataFrameReader(std::shared_ptr<SessionState> session)
    : session_(std::move(session)) {}

DataFrameReader& DataFrameReader::Format(std::string_view format) {
  format_ = AsciiLower(format);
  return *this;
}

DataFrameReader& DataFrameReader::Option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}

DataFrameReader& DataFrameReader::Options(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) {
    options_[key] = value;
  }
  return *this;
}

DataFrameReader& DataFrameReader::Schema(std::string ddl) {
  schema_ = std::move(ddl);
  return *this;
}

namespace {

Result<plan::TimeTravel> TimeTravelOptions(const formats::OptionMap& options) {
  plan::TimeTravel travel;
  if (const std::string* v = formats::FindOption(options, "versionAsOf")) {
    int64_t version = 0;
    const auto [end, error] = std::from_chars(v->data(), v->data() + v->size(), version);
    if (error != std::errc{} || end != v->data() + v->size() || version < 0) {
      return Status::InvalidArgument(fmt::format("versionAsOf '{}' is not a version", *v));
    }
    travel.version = version;
  }
  if (const std::string* v = formats::FindOption(options, "timestampAsOf")) {
    travel.timestamp = *v;
  }
  return travel;
}

/// The change data feed read of a Delta load with readChangeFeed = true (Delta's option names
/// and errors), or nullopt when the option is absent or false.
Result<std::optional<plan::LogicalPlanPtr>> ChangeFeedScan(const plan::Catalog& catalog,
                                                           const std::string& path,
                                                           const formats::OptionMap& options) {
  const std::string* read = formats::FindOption(options, "readChangeFeed");
  if (read == nullptr) {
    read = formats::FindOption(options, "readChangeData");
  }
  if (read == nullptr) {
    return std::nullopt;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(bool enabled, formats::BooleanOption("readChangeFeed", *read));
  if (!enabled) {
    return std::nullopt;
  }
  auto bound = [&](const char* version_key, const char* timestamp_key,
                   const char* which) -> Result<std::optional<plan::TimeTravel>> {
    const std::string* version = formats::FindOption(options, version_key);
    const std::string* timestamp = formats::FindOption(options, timestamp_key);
    if (version != nullptr && timestamp != nullptr) {
      return Status::InvalidArgument(fmt::format(
          "Multiple {} arguments provided for CDC read. Please provide one of either '{}' or "
          "'{}'.",
          which, timestamp_key, version_key));
    }
    plan::TimeTravel travel;
    if (version != nullptr) {
      int64_t number = 0;
      const auto [end, error] =
          std::from_chars(version->data(), version->data() + version->size(), number);
      if (error != std::errc{} || end != version->data() + version->size() || number < 0) {
        return Status::InvalidArgument(
            fmt::format("{} '{}' is not a version", version_key, *version));
      }
      travel.version = number;
    } else if (timestamp != nullptr) {
      travel.timestamp = *timestamp;
    } else {
      return std::optional<plan::TimeTravel>{};
    }
    return std::optional<plan::TimeTravel>{travel};
  };
  TRIBUTARY_ASSIGN_OR_RAISE(auto start, bound("startingVersion", "startingTimestamp", "starting"));
  TRIBUTARY_ASSIGN_OR_RAISE(auto end, bound("endingVersion", "endingTimestamp", "ending"));
  if (!start) {
    return Status::InvalidArgument(
        "No startingVersion or startingTimestamp provided for CDC read.");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto scan, plan::ScanTableChanges(catalog, path, *start, end, ""));
  return std::optional<plan::LogicalPlanPtr>{std::move(scan)};
}

}  // namespace

DataFrame DataFrameReader::Load(const std::string& path) const {
  const plan::Catalog catalog = session_->MakeCatalog(0);
  auto load = [&]() -> Result<plan::LogicalPlanPtr> {
    if (format_ == "kafka") {
      // Spark's Kafka source: no path, and its own fixed schema.
      if (!path.empty()) {
        return Status::InvalidArgument(fmt::format(
            "a kafka read takes no path (got '{}'): name the topics with the subscribe, "
            "subscribePattern or assign option",
            path));
      }
      if (!schema_.empty()) {
        return Status::InvalidArgument(
            "Kafka source has a fixed schema and cannot be set with a custom one");
      }
      return streaming::KafkaBatchScan(options_, "");
    }
    if (path.empty()) {
      return Status::InvalidArgument(fmt::format("a {} read needs a path: Load(path)", format_));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string local, storage::StoragePath(path));
    if (format_ == "delta") {
      if (!schema_.empty()) {
        return Status::InvalidArgument("a Delta table has its own schema; do not give one");
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto changes, ChangeFeedScan(catalog, local, options_));
      if (changes) {
        return std::move(*changes);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(plan::TimeTravel travel, TimeTravelOptions(options_));
      return plan::ScanDeltaTable(catalog, local, travel, "");
    }
    columnar::SchemaPtr schema;
    if (!schema_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(schema, plan::ParseSchemaDdl(schema_));
    }
    return plan::ScanFiles(catalog, format_, local, options_, schema,
                           formats::OptionDefaults::kSparkReader, "");
  };
  return MakeDataFrame(session_, load());
}

DataFrame DataFrameReader::Table(const std::string& name) const {
  const plan::Catalog catalog = session_->MakeCatalog(0);
  auto load = [&]() -> Result<plan::LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(plan::TimeTravel travel, TimeTravelOptions(options_));
    if (!travel.version && !travel.timestamp) {
      if (plan::LogicalPlanPtr session_table = catalog.session_table(AsciiLower(name))) {
        return session_table->WithAlias(name);
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string path, plan::TablePath(catalog, name));
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                              plan::ReadTableEntry(catalog, name));
    if (entry && entry->IsFileTable()) {
      return plan::ScanFileTable(catalog, *entry, name);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto changes, ChangeFeedScan(catalog, path, options_));
    if (changes) {
      return std::move(*changes);
    }
    auto scan = plan::ScanDeltaTable(catalog, path, travel, name);
    if (!scan.ok() && scan.status().IsNotFound()) {
      return Status::NotFound(
          fmt::format("table or view '{}' not found in {}", name, catalog.warehouse));
    }
    return scan;
  };
  return MakeDataFrame(session_, load());
}

}  // namespace tributary
