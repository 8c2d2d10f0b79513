// What Spark's utility statements show of a Delta table: DESCRIBE [EXTENDED], SHOW COLUMNS,
// SHOW TBLPROPERTIES and SHOW CREATE TABLE. Each reads the table's latest snapshot when called
// and returns a scan of its result rows, in the columns and text Spark 4 prints for a Delta
// table (Spark's DescribeTableExec, ShowTablePropertiesExec and ShowCreateTableExec over
// Delta's DeltaTableV2 properties).

#pragma once

#include <string>
#include <vector>

#include "plan/data_sources.h"
#include "plan/warehouse_catalog.h"

namespace tributary::plan {

/// The table a statement names: its root and the name Spark prints for it
/// ("spark_catalog.default.t", or "delta.`/path`" for a path).
struct TableInfoTarget {
  std::string path;
  std::string name;
  /// A data source table's catalog entry (USING parquet | json | csv): its schema, provider
  /// and partition columns take the Delta log's place. Null for a Delta table.
  std::shared_ptr<const TableEntry> file_table;
};

/// A scan of one batch of string columns `names` holding `rows` (each row one value per name):
/// the result of a utility statement.
Result<LogicalPlanPtr> StringRowsPlan(const std::vector<std::string>& names,
                                      const std::vector<std::vector<std::string>>& rows,
                                      std::string description);

/// DESCRIBE TABLE: col_name, data_type, comment, one row per column. With `extended` (DESCRIBE
/// EXTENDED / FORMATTED), then the partition columns under "# Partition Information", an empty
/// row, "# Detailed Table Information" and the rows Name, Location, Provider, Table Properties.
Result<LogicalPlanPtr> DescribeTableInfo(const Catalog& catalog, const TableInfoTarget& table,
                                         bool extended);

/// DESCRIBE (col_name, data_type, comment) or, with `names_only`, SHOW COLUMNS (col_name) of
/// a temporary view's columns `schema`.
Result<LogicalPlanPtr> DescribeColumns(const columnar::Schema& schema, bool names_only,
                                       std::string description);

/// SHOW COLUMNS: col_name, one row per column.
Result<LogicalPlanPtr> ShowColumns(const Catalog& catalog, const TableInfoTarget& table);

/// SHOW TBLPROPERTIES: key, value rows sorted by key (the table configuration and Delta's
/// protocol properties); with `key`, that one row (Spark's "does not have property" text as
/// the value when the table has no such property).
Result<LogicalPlanPtr> ShowTableProperties(const Catalog& catalog, const TableInfoTarget& table,
                                           const std::string& key);

/// SHOW CREATE TABLE: createtab_stmt, the statement that makes the table again.
Result<LogicalPlanPtr> ShowCreateTable(const Catalog& catalog, const TableInfoTarget& table);

}  // namespace tributary::plan
