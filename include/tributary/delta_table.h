// DeltaTable: table-level operations, as delta-spark's io.delta.tables.DeltaTable, and the
// row-level DML it offers: Delete, Update and Merge (DeltaMergeBuilder), run eagerly as
// delta-spark runs them.
//
//   auto table = DeltaTable::ForPath(session, "/data/customers")->As("t");
//   table.Merge(updates.As("s"), "t.id = s.id")
//       .WhenMatched().UpdateAll()
//       .WhenNotMatched().InsertAll()
//       .Execute();

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {

class DeltaMergeBuilder;

/// Thread-safety: safe to share; each call reads the latest table version.
class DeltaTable {
 public:
  /// The table at `path`; NotFound when there is none.
  static Result<DeltaTable> ForPath(const Session& session, const std::string& path);
  /// The session's table `name`.
  static Result<DeltaTable> ForName(const Session& session, const std::string& name);

  /// The table's current rows.
  DataFrame ToDF() const;
  /// One row per commit, newest first (version, timestamp, operation, operationParameters,
  /// readVersion, isBlindAppend, ...), as DESCRIBE HISTORY; at most `limit` rows when > 0.
  DataFrame History(int64_t limit = 0) const;
  /// One row: format, id, name, location, createdAt, lastModified, partitionColumns,
  /// numFiles, sizeInBytes, properties, minReaderVersion, minWriterVersion (DESCRIBE DETAIL).
  DataFrame Detail() const;
  /// OPTIMIZE (bin-packing), optionally only partitions matching `partition_filter` (a SQL
  /// condition over partition columns). Returns the metrics row.
  DataFrame Optimize(const std::string& partition_filter = "") const;
  /// VACUUM with `retention_hours` (default 168; below that needs
  /// spark.databricks.delta.retentionDurationCheck.enabled=false in the session config).
  /// Returns the deleted paths.
  DataFrame Vacuum(double retention_hours = 168) const;

  /// This table with its columns qualified by `alias` in DML conditions and values (`t.id`).
  DeltaTable As(const std::string& alias) const;

  /// DELETE FROM the table [WHERE condition] (a SQL condition, or a Column). Returns the
  /// num_affected_rows row. The session settings spark.databricks.delta.write.txnAppId and
  /// txnVersion make the statement idempotent (as for every DML call below).
  Result<DataFrame> Delete() const;
  Result<DataFrame> Delete(const std::string& condition) const;
  Result<DataFrame> Delete(const Column& condition) const;
  /// UPDATE the table SET column = value [WHERE condition]; values are Columns (Update) or
  /// SQL expressions (UpdateExpr), cast to the column's type as Spark's store assignment.
  /// Returns the num_affected_rows row.
  Result<DataFrame> Update(const std::map<std::string, Column>& set) const;
  Result<DataFrame> Update(const Column& condition, const std::map<std::string, Column>& set) const;
  Result<DataFrame> UpdateExpr(const std::map<std::string, std::string>& set) const;
  Result<DataFrame> UpdateExpr(const std::string& condition,
                               const std::map<std::string, std::string>& set) const;
  /// MERGE INTO the table USING `source` ON `condition`: add WHEN clauses on the builder, then
  /// Execute(). Name the source's columns through its alias (DataFrame::Alias).
  DeltaMergeBuilder Merge(const DataFrame& source, const std::string& condition) const;
  DeltaMergeBuilder Merge(const DataFrame& source, const Column& condition) const;

  const std::string& Path() const { return path_; }

 private:
  DeltaTable(Session session, std::string path)
      : session_(std::move(session)), path_(std::move(path)) {}
  Result<DataFrame> RunDelete(const Column& condition, bool has_condition) const;
  Result<DataFrame> RunUpdate(const Column* condition,
                              const std::map<std::string, Column>& set) const;

  Session session_;
  std::string path_;
  std::string name_;
  std::string alias_;
};

class DeltaMergeMatchedActionBuilder;
class DeltaMergeNotMatchedActionBuilder;
class DeltaMergeNotMatchedBySourceActionBuilder;

/// A MERGE being described, as delta-spark's DeltaMergeBuilder: WHEN clauses in order (the
/// first of a kind whose condition holds acts; every clause of a kind but the last needs a
/// condition), then Execute(). Each call returns a new builder; builders are values.
class DeltaMergeBuilder {
 public:
  /// WHEN MATCHED [AND condition]: update or delete the matched target row.
  DeltaMergeMatchedActionBuilder WhenMatched() const;
  DeltaMergeMatchedActionBuilder WhenMatched(const std::string& condition) const;
  DeltaMergeMatchedActionBuilder WhenMatched(const Column& condition) const;
  /// WHEN NOT MATCHED [BY TARGET] [AND condition]: insert the source row.
  DeltaMergeNotMatchedActionBuilder WhenNotMatched() const;
  DeltaMergeNotMatchedActionBuilder WhenNotMatched(const std::string& condition) const;
  DeltaMergeNotMatchedActionBuilder WhenNotMatched(const Column& condition) const;
  /// WHEN NOT MATCHED BY SOURCE [AND condition]: update or delete a target row no source row
  /// matched.
  DeltaMergeNotMatchedBySourceActionBuilder WhenNotMatchedBySource() const;
  DeltaMergeNotMatchedBySourceActionBuilder WhenNotMatchedBySource(
      const std::string& condition) const;
  DeltaMergeNotMatchedBySourceActionBuilder WhenNotMatchedBySource(const Column& condition) const;
  /// Adds the source's new columns that UpdateAll/InsertAll write to the target's schema
  /// (also on with the session setting spark.databricks.delta.schema.autoMerge.enabled).
  DeltaMergeBuilder WithSchemaEvolution() const;

  /// Runs the merge. Returns the row num_affected_rows, num_updated_rows, num_deleted_rows,
  /// num_inserted_rows; InvalidArgument naming
  /// DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE when several source rows would
  /// change one target row.
  Result<DataFrame> Execute() const;

  struct State;

 private:
  friend class DeltaTable;
  friend class DeltaMergeMatchedActionBuilder;
  friend class DeltaMergeNotMatchedActionBuilder;
  friend class DeltaMergeNotMatchedBySourceActionBuilder;
  explicit DeltaMergeBuilder(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  /// This builder with one more clause (plan::MergeMatch `match`, plan::MergeAction `action`);
  /// an error in the clause's parts becomes Execute's error.
  DeltaMergeBuilder AddClause(uint8_t match, uint8_t action, const Column& condition,
                              bool has_condition,
                              const Result<std::map<std::string, Column>>& values) const;
  std::shared_ptr<const State> state_;
};

/// The action of a WHEN MATCHED clause.
class DeltaMergeMatchedActionBuilder {
 public:
  DeltaMergeBuilder Update(const std::map<std::string, Column>& set) const;
  DeltaMergeBuilder UpdateExpr(const std::map<std::string, std::string>& set) const;
  /// UPDATE SET *: every target column from the source column of its name.
  DeltaMergeBuilder UpdateAll() const;
  DeltaMergeBuilder Delete() const;

 private:
  friend class DeltaMergeBuilder;
  DeltaMergeMatchedActionBuilder(DeltaMergeBuilder merge, Column condition, bool has_condition)
      : merge_(std::move(merge)), condition_(std::move(condition)), has_condition_(has_condition) {}
  DeltaMergeBuilder merge_;
  Column condition_;
  bool has_condition_;
};

/// The action of a WHEN NOT MATCHED clause.
class DeltaMergeNotMatchedActionBuilder {
 public:
  /// INSERT (columns) VALUES (values): target columns not given are null.
  DeltaMergeBuilder Insert(const std::map<std::string, Column>& values) const;
  DeltaMergeBuilder InsertExpr(const std::map<std::string, std::string>& values) const;
  /// INSERT *: every target column from the source column of its name.
  DeltaMergeBuilder InsertAll() const;

 private:
  friend class DeltaMergeBuilder;
  DeltaMergeNotMatchedActionBuilder(DeltaMergeBuilder merge, Column condition, bool has_condition)
      : merge_(std::move(merge)), condition_(std::move(condition)), has_condition_(has_condition) {}
  DeltaMergeBuilder merge_;
  Column condition_;
  bool has_condition_;
};

/// The action of a WHEN NOT MATCHED BY SOURCE clause.
class DeltaMergeNotMatchedBySourceActionBuilder {
 public:
  DeltaMergeBuilder Update(const std::map<std::string, Column>& set) const;
  DeltaMergeBuilder UpdateExpr(const std::map<std::string, std::string>& set) const;
  DeltaMergeBuilder Delete() const;

 private:
  friend class DeltaMergeBuilder;
  DeltaMergeNotMatchedBySourceActionBuilder(DeltaMergeBuilder merge, Column condition,
                                            bool has_condition)
      : merge_(std::move(merge)), condition_(std::move(condition)), has_condition_(has_condition) {}
  DeltaMergeBuilder merge_;
  Column condition_;
  bool has_condition_;
};

}  // namespace tributary
