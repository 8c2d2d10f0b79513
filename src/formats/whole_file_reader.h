// WholeFileReader: the FileReader of formats that read a file whole, into one batch, when it
// is opened (text, binaryFile).

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "formats/file_reader.h"

namespace tributary::formats {

/// Hands out one batch made when the file was read, then nullptr.
///
/// Thread-safety: none.
class WholeFileReader final : public FileReader {
 public:
  /// The reader of the `num_rows` rows `columns` (one per field of `schema`, the format's
  /// columns), selecting `selected` by name, in that order; InvalidArgument for a name
  /// `schema` lacks.
  static Result<std::unique_ptr<WholeFileReader>> Make(const columnar::SchemaPtr& schema,
                                                       std::vector<columnar::ColumnPtr> columns,
                                                       int64_t num_rows,
                                                       const std::vector<std::string>& selected);

  const columnar::SchemaPtr& OutputSchema() const override { return schema_; }
  Result<columnar::RecordBatchPtr> Next() override;
  const std::vector<std::string>& UnknownFields() const override { return unknown_fields_; }

 private:
  explicit WholeFileReader(columnar::RecordBatchPtr batch);

  columnar::SchemaPtr schema_;
  /// The file's rows, until Next returned them.
  columnar::RecordBatchPtr batch_;
  /// Always empty: the formats' schemas are fixed.
  std::vector<std::string> unknown_fields_;
};

}  // namespace tributary::formats
