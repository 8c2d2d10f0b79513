// Row-level DML on Delta tables: DELETE, UPDATE and MERGE INTO, as Delta Lake runs them.
// Candidate files are chosen by partition pruning and data skipping on the target's
// conditions, their live rows are read with their file row indexes, conditions and
// assignments are evaluated with the query engine, and the result is committed through
// delta::CommitRowChanges (deletion vectors or copy-on-write; change data when the table has
// the change data feed enabled). Every function runs eagerly, as Spark runs commands.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "expr/expression.h"
#include "plan/data_sources.h"
#include "plan/logical_plan.h"

namespace tributary::plan {

/// Settings every DML statement takes from the session.
struct DmlOptions {
  /// Idempotent writes: Delta's spark.databricks.delta.write.txnAppId / txnVersion session
  /// settings (as foreachBatch uses them). A table that already holds this application version
  /// is left as it is and the metrics are all zero.
  std::optional<std::pair<std::string, int64_t>> txn;
  /// spark.databricks.delta.schema.autoMerge.enabled: MERGE evolves the target's schema as
  /// WITH SCHEMA EVOLUTION does.
  bool auto_merge = false;
};

/// `column = value`: a target column (a top-level name, or a dotted path into a struct) and an
/// unbound expression over the target (and, in MERGE, the source) columns.
struct DmlAssignment {
  std::string column;
  expr::ExprPtr value;
};

/// What a DML statement did: Delta's operation metrics (as in commitInfo.operationMetrics)
/// and the version committed (-1 when nothing was committed).
struct DmlResult {
  int64_t version = -1;
  std::map<std::string, int64_t> metrics;
};

/// DELETE FROM <path> [WHERE condition] (null: every row). `alias` is the target's alias
/// (columns may be qualified with it); empty when none.
Result<DmlResult> DeleteFromTable(const Catalog& catalog, const std::string& path,
                                  const std::string& alias, const expr::ExprPtr& condition,
                                  const DmlOptions& options = {});

/// UPDATE <path> SET assignments [WHERE condition].
Result<DmlResult> UpdateTable(const Catalog& catalog, const std::string& path,
                              const std::string& alias,
                              const std::vector<DmlAssignment>& assignments,
                              const expr::ExprPtr& condition, const DmlOptions& options = {});

enum class MergeMatch : uint8_t { kMatched, kNotMatchedByTarget, kNotMatchedBySource };
enum class MergeAction : uint8_t { kUpdate, kUpdateAll, kDelete, kInsert, kInsertAll };

/// One WHEN clause of MERGE. kMatched and kNotMatchedBySource take kUpdate/kUpdateAll (all:
/// only kMatched)/kDelete; kNotMatchedByTarget takes kInsert/kInsertAll.
struct MergeClause {
  MergeMatch match = MergeMatch::kMatched;
  /// `AND condition`; null when none.
  expr::ExprPtr condition;
  MergeAction action = MergeAction::kUpdate;
  /// kUpdate: SET assignments; kInsert: the inserted columns and values (columns not listed
  /// are null).
  std::vector<DmlAssignment> assignments;
};

struct MergeSpec {
  /// The target table's root and alias (empty: none).
  std::string target_path;
  std::string target_alias;
  /// The source rows and alias (empty: none).
  LogicalPlanPtr source;
  std::string source_alias;
  /// ON condition over both sides.
  expr::ExprPtr on;
  /// In order: the first clause of a kind whose condition holds acts.
  std::vector<MergeClause> clauses;
  /// WITH SCHEMA EVOLUTION.
  bool schema_evolution = false;
};

/// MERGE INTO, as Delta: Delta's error (InvalidArgument naming DELTA_MULTIPLE_SOURCE_ROW_
/// MATCHING_TARGET_ROW_IN_MERGE) when several source rows match one target row that an
/// UPDATE or DELETE clause would change.
Result<DmlResult> MergeIntoTable(const Catalog& catalog, const MergeSpec& spec,
                                 const DmlOptions& options = {});

/// The result row a SQL statement shows: DELETE and UPDATE num_affected_rows; MERGE
/// num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows (Databricks).
Result<LogicalPlanPtr> DmlResultPlan(std::string_view operation, const DmlResult& result);

}  // namespace tributary::plan
