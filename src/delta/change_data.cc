// The change data feed: _change_data/ files written by DML commits, and reading a table's
// changes version by version as Delta's CDCReader does.
//
//   change data file = "_change_data/" *( column "=" value "/" ) "cdc-" n5 "-" uuid ".c000."
//                      codec ".parquet"   ; the table's data columns + _change_type
//   per version v:  cdc actions present -> the cdc files' rows (their _change_type)
//                   else dataChange adds -> "insert", dataChange removes -> "delete"
//                   (no dataChange action: no rows, e.g. OPTIMIZE)

#include "delta/change_data.h"

#include <utility>

#include <fmt/format.h>

#include "delta/table_properties.h"
#include "storage/path.h"

namespace tributary::delta {

using columnar::DataType;
using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

namespace {

constexpr std::string_view kChangeDataDir = "_change_data";

}  // namespace

bool ChangeDataFeedEnabled(const Metadata& metadata) {
  return BooleanProperty(metadata, "delta.enableChangeDataFeed", false);
}

SchemaPtr ChangeFeedSchema(const Schema& table_schema) {
  std::vector<Field> fields = table_schema.Fields();
  fields.emplace_back(std::string(kChangeTypeColumn), DataType::String());
  fields.emplace_back(std::string(kCommitVersionColumn), DataType::Int64());
  fields.emplace_back(std::string(kCommitTimestampColumn), DataType::Timestamp());
  return std::make_shared<const Schema>(std::move(fields));
}

Result<std::vector<AddCdcFile>> WriteChangeDataFiles(
    storage::FileSystem& fs, const std::string& table_root, const SchemaPtr& schema,
    const std::vector<std::string>& partition_columns,
    const std::vector<columnar::RecordBatchPtr>& change_rows, const DataWriteOptions& options) {
  std::vector<Field> fields = schema->Fields();
  fields.emplace_back(std::string(kChangeTypeColumn), DataType::String());
  auto file_schema = std::make_shared<const Schema>(std::move(fields));
  DataWriteOptions file_options = options;
  file_options.file_prefix = "cdc";
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer,
      DataFileWriter::Make(fs, storage::JoinPath(table_root, std::string(kChangeDataDir)),
                           file_schema, partition_columns, std::move(file_options)));
  for (const auto& batch : change_rows) {
    TRIBUTARY_RETURN_NOT_OK(writer->Append(batch));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<AddFile> written, writer->Finish());
  std::vector<AddCdcFile> cdc_files;
  cdc_files.reserve(written.size());
  for (AddFile& add : written) {
    AddCdcFile cdc;
    cdc.path = fmt::format("{}/{}", kChangeDataDir, add.path);
    cdc.partition_values = std::move(add.partition_values);
    cdc.size = add.size;
    cdc.data_change = false;
    cdc_files.push_back(std::move(cdc));
  }
  return cdc_files;
}

Result<std::vector<columnar::RecordBatchPtr>> ReadChanges(storage::FileSystem& fs,
                                                          const std::string& table_root,
                                                          int64_t start_version,
                                                          std::optional<int64_t> end_version,
                                                          const ChangeReadOptions& options) {
  (void)fs;
  (void)options;
  (void)end_version;
  return Status::NotImplemented(
      fmt::format("{}: reading the change data feed from version {} is not implemented yet",
                  table_root, start_version));
}

}  // namespace tributary::delta
