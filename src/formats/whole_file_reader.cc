#include "formats/whole_file_reader.h"

#include <utility>

#include <fmt/format.h>

namespace tributary::formats {

Result<std::unique_ptr<WholeFileReader>> WholeFileReader::Make(
    const columnar::SchemaPtr& schema, std::vector<columnar::ColumnPtr> columns, int64_t num_rows,
    const std::vector<std::string>& selected) {
  std::vector<columnar::Field> fields;
  std::vector<columnar::ColumnPtr> values;
  for (const std::string& name : selected) {
    const int index = schema->FieldIndex(name);
    if (index < 0) {
      return Status::InvalidArgument(
          fmt::format("file scan: no column '{}' among: {}", name, schema->ToString()));
    }
    fields.push_back(schema->FieldAt(index));
    values.push_back(columns[static_cast<size_t>(index)]);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      columnar::RecordBatchPtr batch,
      columnar::RecordBatch::Make(std::make_shared<columnar::Schema>(std::move(fields)), num_rows,
                                  std::move(values)));
  return std::unique_ptr<WholeFileReader>(new WholeFileReader(std::move(batch)));
}

WholeFileReader::WholeFileReader(columnar::RecordBatchPtr batch)
    : schema_(batch->Schema()), batch_(std::move(batch)) {}

Result<columnar::RecordBatchPtr> WholeFileReader::Next() {
  return std::exchange(batch_, nullptr);
}

}  // namespace tributary::formats
