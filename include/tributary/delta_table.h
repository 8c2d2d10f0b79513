// DeltaTable: table-level operations, as delta-spark's io.delta.tables.DeltaTable.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tributary/dataframe.h"
#include "tributary/session.h"

namespace tributary {

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

  const std::string& Path() const { return path_; }

 private:
  DeltaTable(Session session, std::string path)
      : session_(std::move(session)), path_(std::move(path)) {}
  Session session_;
  std::string path_;
  std::string name_;
};

}  // namespace tributary
