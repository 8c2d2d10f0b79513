#include "tributary/session.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "api/api_state.h"
#include "common/ascii.h"
#include "plan/plan_builder.h"
#include "storage/local_file_system.h"

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
  state->fs = std::make_shared<storage::LocalFileSystem>();
  state->config = config_;
  std::string warehouse = warehouse_;
  if (warehouse.empty()) {
    const char* env = std::getenv("TRIBUTARY_WAREHOUSE");
    warehouse = env != nullptr && *env != '\0' ? env : "warehouse";
  }
  state->warehouse = warehouse;
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
  return std::make_shared<Session>(std::move(state));
}

Session::Session(std::shared_ptr<SessionState> state) : state_(std::move(state)) {}

DataFrameReader Session::Read() const {
  return DataFrameReader(state_);
}

DataFrame Session::Table(const std::string& name) const {
  return Read().Table(name);
}

DataFrame Session::Sql(const std::string& statement) const {
  // Wired to the SQL binder (src/sql) as soon as it lands; until then a clear error.
  return MakeDataFrame(state_, Status::NotImplemented(fmt::format(
                                   "Session::Sql is not available yet: '{}'", statement)));
}

Result<std::vector<std::string>> Session::ListTables() const {
  storage::ListOptions options;
  auto entries = state_->fs->List(state_->warehouse, options);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) {
      return std::vector<std::string>{};
    }
    return entries.status();
  }
  std::vector<std::string> names;
  for (const storage::FileInfo& entry : *entries) {
    if (!entry.is_directory) {
      continue;
    }
    auto log = state_->fs->GetFileInfo(entry.path + "/_delta_log");
    if (log.ok() && log->is_directory) {
      names.emplace_back(entry.path.substr(entry.path.find_last_of('/') + 1));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
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

}  // namespace

DataFrame DataFrameReader::Load(const std::string& path) const {
  const plan::Catalog catalog = session_->MakeCatalog(0);
  auto load = [&]() -> Result<plan::LogicalPlanPtr> {
    if (format_ == "delta") {
      if (!schema_.empty()) {
        return Status::InvalidArgument("a Delta table has its own schema; do not give one");
      }
      TRIBUTARY_ASSIGN_OR_RAISE(plan::TimeTravel travel, TimeTravelOptions(options_));
      return plan::ScanDeltaTable(catalog, path, travel, "");
    }
    columnar::SchemaPtr schema;
    if (!schema_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(schema, plan::ParseSchemaDdl(schema_));
    }
    return plan::ScanFiles(catalog, format_, path, options_, schema,
                           formats::OptionDefaults::kSparkReader, "");
  };
  return MakeDataFrame(session_, load());
}

DataFrame DataFrameReader::Table(const std::string& name) const {
  const plan::Catalog catalog = session_->MakeCatalog(0);
  auto load = [&]() -> Result<plan::LogicalPlanPtr> {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string path, plan::TablePath(catalog, name));
    TRIBUTARY_ASSIGN_OR_RAISE(plan::TimeTravel travel, TimeTravelOptions(options_));
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
