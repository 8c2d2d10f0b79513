// What the public API objects share behind their opaque pointers (internal to src/api and the
// CLI): the session's settings and file system, and each DataFrame's plan or error.

#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/api_access.h"
#include "columnar/record_batch.h"
#include "plan/data_sources.h"
#include "plan/delta_dml.h"
#include "plan/logical_plan.h"
#include "storage/file_system.h"
#include "streaming/memory_sink.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"
#include "tributary/streaming_query.h"

namespace tributary {

namespace sql {
struct Statement;
}  // namespace sql

struct SessionState {
  std::shared_ptr<storage::FileSystem> fs;
  std::string warehouse;
  std::string time_zone_name;
  expr::TimeZone time_zone;
  /// Settings: the builder's, then SET changes them (RESET returns to `initial_config`).
  /// Statements of one session run one at a time; a SET is not synchronized with queries
  /// running on other threads.
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> initial_config;
  /// The builder's time zone, which RESET restores.
  std::string initial_time_zone_name;
  /// The schema unqualified table names are in (USE schema), lowercased. Default: "default".
  std::string current_schema = "default";

  /// Temporary views by lowercased name (CREATE TEMPORARY VIEW, createOrReplaceTempView):
  /// the view's plan, as bound when it was created. Guarded by `views_mutex`.
  mutable std::mutex views_mutex;
  std::map<std::string, plan::LogicalPlanPtr> views;
  /// Memory sink tables by lowercased query name, readable as session tables.
  std::shared_ptr<streaming::MemoryTables> memory_tables =
      std::make_shared<streaming::MemoryTables>();
  /// Guards `listeners`.
  mutable std::mutex streaming_mutex;
  std::vector<std::shared_ptr<StreamingQueryListener>> listeners;

  /// Name and path resolution for plans; `now_micros` is the query's current_timestamp.
  plan::Catalog MakeCatalog(int64_t now_micros) const;
};

struct DataFrameState {
  std::shared_ptr<SessionState> session;
  plan::LogicalPlanPtr plan;
  /// Not OK when a transformation failed; `plan` is then null.
  tributary::Status error;
};

/// A DataFrame over `plan` (or carrying `error`).
DataFrame MakeDataFrame(std::shared_ptr<SessionState> session, Result<plan::LogicalPlanPtr> plan);

/// Runs the parsed SQL `statement` (whose text is `text`) as Session::Sql does: commands run
/// now; a query's plan is returned.
Result<plan::LogicalPlanPtr> RunStatement(const std::shared_ptr<SessionState>& session,
                                          const sql::Statement& statement, const std::string& text);

/// The DML settings of a session's `config`: Delta's spark.databricks.delta.write.txnAppId and
/// txnVersion (both or neither: one alone is Delta's DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS
/// error) and spark.databricks.delta.schema.autoMerge.enabled.
Result<plan::DmlOptions> DmlOptionsFromConfig(const std::map<std::string, std::string>& config);

/// Optimizes and runs `frame`'s plan; the batches of its result.
Result<std::vector<columnar::RecordBatchPtr>> ExecuteDataFrame(const DataFrameState& frame);

/// The public schema description of an internal schema.
StructType ToStructType(const columnar::Schema& schema);

/// Rows of `batches` in order.
std::vector<Row> ToRows(const std::vector<columnar::RecordBatchPtr>& batches);

/// Microseconds since the epoch, now.
int64_t NowMicros();

}  // namespace tributary
