// RecordBatch: equally long columns under a schema, the unit every operator passes on.

#pragma once

#include <memory>
#include <vector>

#include "columnar/column.h"
#include "columnar/schema.h"

namespace tributary::columnar {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

/// A schema plus one column per field, all of NumRows() rows. Immutable.
///
/// Thread-safety: immutable, safe to share between threads.
class RecordBatch {
 public:
  /// Checks the column count, each column's length and its type against the schema.
  static Result<RecordBatchPtr> Make(SchemaPtr schema, int64_t num_rows,
                                     std::vector<ColumnPtr> columns);

  const SchemaPtr& Schema() const { return schema_; }
  int64_t NumRows() const { return num_rows_; }
  int NumColumns() const { return static_cast<int>(columns_.size()); }
  const ColumnPtr& ColumnAt(int i) const { return columns_[static_cast<size_t>(i)]; }
  const std::vector<ColumnPtr>& Columns() const { return columns_; }
  /// The column named exactly `name`, or nullptr.
  ColumnPtr ColumnByName(const std::string& name) const;

  /// A batch of the columns at `indices`, in that order (no data is copied).
  Result<RecordBatchPtr> SelectColumns(const std::vector<int>& indices) const;

  /// Not for direct use: Make validates and builds batches.
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ColumnPtr> columns);

 private:
  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ColumnPtr> columns_;
};

}  // namespace tributary::columnar
