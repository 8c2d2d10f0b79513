#include "tributary/delta_table.h"

#include <fmt/format.h>

#include "api/api_state.h"
#include "delta/log_segment.h"
#include "plan/delta_commands.h"
#include "sql/parser.h"
#include "storage/local_path.h"

namespace tributary {

Result<DeltaTable> DeltaTable::ForPath(const Session& session, const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string local, storage::StoragePath(path));
  if (!delta::HasDeltaLog(*ApiAccess::State(session)->fs, local)) {
    return Status::NotFound(fmt::format("{} is not a Delta table (no _delta_log)", path));
  }
  return DeltaTable(session, local);
}

Result<DeltaTable> DeltaTable::ForName(const Session& session, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string path,
                            plan::TablePath(ApiAccess::State(session)->MakeCatalog(0), name));
  auto table = ForPath(session, path);
  if (!table.ok()) {
    return Status::NotFound(
        fmt::format("table '{}' not found in {}", name, session.WarehouseDirectory()));
  }
  table->name_ = name;
  return table;
}

DataFrame DeltaTable::ToDF() const {
  return session_.Read().Format("delta").Load(path_);
}

DataFrame DeltaTable::History(int64_t limit) const {
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::DescribeHistory(ApiAccess::State(session_)->MakeCatalog(0), path_,
                            limit > 0 ? std::optional<int64_t>(limit) : std::nullopt));
}

DataFrame DeltaTable::Detail() const {
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::DescribeDetail(ApiAccess::State(session_)->MakeCatalog(0), path_, name_));
}

DataFrame DeltaTable::Optimize(const std::string& partition_filter) const {
  auto run = [&]() -> Result<plan::LogicalPlanPtr> {
    expr::ExprPtr filter;
    if (!partition_filter.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(filter, sql::ParseExpression(partition_filter));
    }
    return plan::OptimizeTable(ApiAccess::State(session_)->MakeCatalog(0), path_, filter);
  };
  return MakeDataFrame(ApiAccess::State(session_), run());
}

DataFrame DeltaTable::Vacuum(double retention_hours) const {
  const auto& config = ApiAccess::State(session_)->config;
  auto check = config.find("spark.databricks.delta.retentionDurationCheck.enabled");
  const bool force = check != config.end() && check->second == "false";
  return MakeDataFrame(
      ApiAccess::State(session_),
      plan::VacuumTable(ApiAccess::State(session_)->MakeCatalog(0), path_, retention_hours,
                        /*dry_run=*/false, force));
}

}  // namespace tributary
