#include "plan/delta_commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/column_builder.h"
#include "delta/history.h"
#include "delta/maintenance.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::Field;

// Builds a one-batch result row by row: Append* per column in order, then EndRow.
class ResultBuilder {
 public:
  explicit ResultBuilder(std::vector<Field> fields)
      : schema_(std::make_shared<columnar::Schema>(std::move(fields))) {
    for (const Field& field : schema_->Fields()) {
      builders_.push_back(std::make_unique<ColumnBuilder>(field.Type()));
    }
  }
  ColumnBuilder& At(size_t i) { return *builders_[i]; }
  void EndRow() { ++rows_; }
  Result<columnar::RecordBatchPtr> Finish() {
    std::vector<columnar::ColumnPtr> columns;
    for (auto& builder : builders_) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder->Finish());
      columns.push_back(std::move(column));
    }
    return columnar::RecordBatch::Make(schema_, rows_, std::move(columns));
  }

 private:
  columnar::SchemaPtr schema_;
  std::vector<std::unique_ptr<ColumnBuilder>> builders_;
  int64_t rows_ = 0;
};

void AppendOptionalString(ColumnBuilder& builder, const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    builder.AppendNull();
  } else if (it->is_string()) {
    builder.AppendBytes(it->get<std::string>());
  } else {
    builder.AppendBytes(it->dump());
  }
}

Result<LogicalPlanPtr> Finish(ResultBuilder& builder, std::string description) {
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch, builder.Finish());
  return ValuesPlan(std::move(batch), std::move(description));
}

}  // namespace

LogicalPlanPtr ValuesPlan(columnar::RecordBatchPtr batch, std::string description) {
  ScanSource source;
  source.kind = ScanSource::Kind::kValues;
  source.schema = batch->Schema();
  source.description = std::move(description);
  source.batches.push_back(std::move(batch));
  return Scan(std::move(source), "");
}

Result<LogicalPlanPtr> CountsPlan(const std::vector<std::pair<std::string, int64_t>>& counts,
                                  std::string description) {
  std::vector<Field> fields;
  fields.reserve(counts.size());
  for (const auto& [name, value] : counts) {
    fields.emplace_back(name, DataType::Int64(), false);
  }
  ResultBuilder out(std::move(fields));
  if (!counts.empty()) {
    for (size_t i = 0; i < counts.size(); ++i) {
      out.At(i).AppendInt(counts[i].second);
    }
    out.EndRow();
  }
  return Finish(out, std::move(description));
}

Result<LogicalPlanPtr> DescribeHistory(const Catalog& catalog, const std::string& path,
                                       std::optional<int64_t> limit) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<delta::CommitEntry> commits,
                            delta::ReadHistory(*catalog.fs, path));
  ResultBuilder out(
      {Field("version", DataType::Int64(), false), Field("timestamp", DataType::Timestamp()),
       Field("operation", DataType::String()), Field("operationParameters", DataType::String()),
       Field("readVersion", DataType::Int64()), Field("isBlindAppend", DataType::Boolean()),
       Field("operationMetrics", DataType::Map(DataType::String(), DataType::String())),
       Field("engineInfo", DataType::String()), Field("userMetadata", DataType::String())});
  int64_t emitted = 0;
  for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
    if (limit.has_value() && emitted >= *limit) {
      break;
    }
    ++emitted;
    const delta::CommitEntry& commit = *it;
    nlohmann::json info = nlohmann::json::object();
    if (!commit.commit_info.empty()) {
      info = nlohmann::json::parse(commit.commit_info, nullptr, /*allow_exceptions=*/false);
      if (!info.is_object()) {
        info = nlohmann::json::object();
      }
    }
    out.At(0).AppendInt(commit.version);
    out.At(1).AppendInt(commit.timestamp_ms * 1000);
    if (commit.operation.empty()) {
      out.At(2).AppendNull();
    } else {
      out.At(2).AppendBytes(commit.operation);
    }
    if (commit.operation_parameters.empty()) {
      out.At(3).AppendNull();
    } else {
      out.At(3).AppendBytes(commit.operation_parameters);
    }
    if (auto rv = info.find("readVersion"); rv != info.end() && rv->is_number_integer()) {
      out.At(4).AppendInt(rv->get<int64_t>());
    } else {
      out.At(4).AppendNull();
    }
    if (auto blind = info.find("isBlindAppend"); blind != info.end() && blind->is_boolean()) {
      out.At(5).AppendBoolean(blind->get<bool>());
    } else {
      out.At(5).AppendNull();
    }
    // Delta writes every metric as a string ("numOutputRows": "3"); a number is kept as text.
    if (auto metrics = info.find("operationMetrics");
        metrics != info.end() && metrics->is_object()) {
      for (const auto& [key, value] : metrics->items()) {
        out.At(6).Child(0).AppendBytes(key);
        out.At(6).Child(1).AppendBytes(value.is_string() ? value.get<std::string>() : value.dump());
      }
      out.At(6).AppendMap();
    } else {
      out.At(6).AppendNull();
    }
    AppendOptionalString(out.At(7), info, "engineInfo");
    AppendOptionalString(out.At(8), info, "userMetadata");
    out.EndRow();
  }
  return Finish(out, fmt::format("history of {}", path));
}

Result<LogicalPlanPtr> DescribeDetail(const Catalog& catalog, const std::string& path,
                                      const std::string& name) {
  auto loaded = delta::Snapshot::Load(*catalog.fs, path);
  if (!loaded.ok()) {
    return loaded.status().WithContext(fmt::format("DESCRIBE DETAIL {}", path));
  }
  const delta::Snapshot& snapshot = **loaded;
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<delta::CommitEntry> commits,
                            delta::ReadHistory(*catalog.fs, path));
  ResultBuilder out(
      {Field("format", DataType::String()), Field("id", DataType::String()),
       Field("name", DataType::String()), Field("description", DataType::String()),
       Field("location", DataType::String()), Field("createdAt", DataType::Timestamp()),
       Field("lastModified", DataType::Timestamp()),
       Field("partitionColumns", DataType::Array(DataType::String())),
       Field("numFiles", DataType::Int64()), Field("sizeInBytes", DataType::Int64()),
       Field("properties", DataType::Map(DataType::String(), DataType::String())),
       Field("minReaderVersion", DataType::Int32()), Field("minWriterVersion", DataType::Int32()),
       Field("tableFeatures", DataType::Array(DataType::String()))});
  const delta::Metadata& metadata = snapshot.GetMetadata();
  const delta::Protocol& protocol = snapshot.GetProtocol();
  out.At(0).AppendBytes("delta");
  out.At(1).AppendBytes(metadata.id);
  if (name.empty()) {
    out.At(2).AppendNull();
  } else {
    out.At(2).AppendBytes(name);
  }
  out.At(3).AppendNull();
  out.At(4).AppendBytes(path);
  if (metadata.created_time) {
    out.At(5).AppendInt(*metadata.created_time * 1000);
  } else {
    out.At(5).AppendNull();
  }
  int64_t last_modified = 0;
  for (const delta::CommitEntry& commit : commits) {
    if (commit.version == snapshot.Version()) {
      last_modified = commit.timestamp_ms;
    }
  }
  out.At(6).AppendInt(last_modified * 1000);
  for (const std::string& column : metadata.partition_columns) {
    out.At(7).Child(0).AppendBytes(column);
  }
  out.At(7).AppendArray();
  int64_t size = 0;
  for (const delta::AddFile& add : snapshot.Files()) {
    size += add.size;
  }
  out.At(8).AppendInt(static_cast<int64_t>(snapshot.Files().size()));
  out.At(9).AppendInt(size);
  for (const auto& [key, value] : metadata.configuration) {
    out.At(10).Child(0).AppendBytes(key);
    out.At(10).Child(1).AppendBytes(value);
  }
  out.At(10).AppendMap();
  out.At(11).AppendInt(protocol.min_reader_version);
  out.At(12).AppendInt(protocol.min_writer_version);
  std::vector<std::string> features;
  for (const auto* list : {&protocol.reader_features, &protocol.writer_features}) {
    if (list->has_value()) {
      for (const std::string& feature : **list) {
        if (std::find(features.begin(), features.end(), feature) == features.end()) {
          features.push_back(feature);
        }
      }
    }
  }
  std::sort(features.begin(), features.end());
  for (const std::string& feature : features) {
    out.At(13).Child(0).AppendBytes(feature);
  }
  out.At(13).AppendArray();
  out.EndRow();
  return Finish(out, fmt::format("detail of {}", path));
}

namespace {

// `filter` as column = 'value' pairs joined by AND (what OPTIMIZE's partition filter takes).
Status EqualityConjuncts(const expr::Expression& filter, std::map<std::string, std::string>* out) {
  if (filter.GetOp() == expr::Op::kAnd) {
    TRIBUTARY_RETURN_NOT_OK(EqualityConjuncts(*filter.Child(0), out));
    return EqualityConjuncts(*filter.Child(1), out);
  }
  if (filter.GetOp() == expr::Op::kEqual) {
    const expr::Expression* column = filter.Child(0).get();
    const expr::Expression* literal = filter.Child(1).get();
    if (column->GetOp() == expr::Op::kLiteral) {
      std::swap(column, literal);
    }
    if (column->GetOp() == expr::Op::kColumn && literal->GetOp() == expr::Op::kLiteral &&
        !literal->Literal().IsNull()) {
      const expr::Scalar& value = literal->Literal();
      (*out)[column->Name()] =
          value.Type()->Id() == columnar::TypeId::kString ? value.BytesValue() : value.ToString();
      return Status::OK();
    }
  }
  return Status::InvalidArgument(fmt::format(
      "OPTIMIZE ... WHERE takes partition column = value conditions joined by AND, not '{}'",
      filter.ToString()));
}

}  // namespace

Result<LogicalPlanPtr> OptimizeTable(const Catalog& catalog, const std::string& path,
                                     const expr::ExprPtr& partition_filter) {
  delta::OptimizeOptions options;
  if (partition_filter != nullptr) {
    TRIBUTARY_RETURN_NOT_OK(EqualityConjuncts(*partition_filter, &options.partition_filter));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(delta::OptimizeResult result,
                            delta::Optimize(*catalog.fs, path, options));
  ResultBuilder out({Field("path", DataType::String()), Field("version", DataType::Int64()),
                     Field("numFilesAdded", DataType::Int64()),
                     Field("numFilesRemoved", DataType::Int64()),
                     Field("numRows", DataType::Int64())});
  out.At(0).AppendBytes(path);
  if (result.version < 0) {
    out.At(1).AppendNull();
  } else {
    out.At(1).AppendInt(result.version);
  }
  out.At(2).AppendInt(result.files_added);
  out.At(3).AppendInt(result.files_removed);
  out.At(4).AppendInt(result.rows);
  out.EndRow();
  return Finish(out, fmt::format("optimize of {}", path));
}

Result<LogicalPlanPtr> VacuumTable(const Catalog& catalog, const std::string& path,
                                   std::optional<double> retention_hours, bool dry_run,
                                   bool force) {
  delta::VacuumOptions options;
  if (retention_hours.has_value()) {
    if (*retention_hours < 0) {
      return Status::InvalidArgument(fmt::format(
          "VACUUM RETAIN {} HOURS: the retention must not be negative", *retention_hours));
    }
    options.retention_hours = static_cast<int64_t>(*retention_hours);
  }
  options.dry_run = dry_run;
  options.force = force;
  TRIBUTARY_ASSIGN_OR_RAISE(delta::VacuumResult result, delta::Vacuum(*catalog.fs, path, options));
  ResultBuilder out({Field("path", DataType::String())});
  for (const std::string& file : result.files) {
    out.At(0).AppendBytes(fmt::format("{}/{}", path, file));
    out.EndRow();
  }
  return Finish(out, fmt::format("vacuum of {}", path));
}

}  // namespace tributary::plan
