#include "formats/text/record_sink.h"

#include <string_view>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

namespace tributary::text {

RecordSinkOptions RecordSinkOptions::Of(std::string_view format, std::string path,
                                        const TextReadOptions& options) {
  RecordSinkOptions out;
  out.format = format;
  out.path = std::move(path);
  out.mode = options.mode;
  out.rescue = !options.rescued_data_column.empty();
  out.corrupt_column_set = !options.column_name_of_corrupt_record.empty();
  out.rescued_file_path = options.rescued_data_file_path;
  out.rescued_column = options.rescued_data_column;
  out.corrupt_column = options.column_name_of_corrupt_record;
  return out;
}

bool RecordSink::IsSpecialColumn(const std::string& name) const {
  return (options_.rescue && name == options_.rescued_column) ||
         (options_.corrupt_column_set && name == options_.corrupt_column);
}

std::vector<columnar::Field> RecordSink::DataFields(const columnar::Schema& schema) const {
  std::vector<columnar::Field> fields;
  for (const columnar::Field& field : schema.Fields()) {
    if (!IsSpecialColumn(field.Name())) {
      fields.push_back(field);
    }
  }
  return fields;
}

Result<std::vector<DataColumnSink>> RecordSink::MakeColumns(const columnar::Schema& output,
                                                            const std::vector<std::string>& columns,
                                                            columnar::MemoryPool* pool) {
  std::vector<int> indices;
  if (columns.empty()) {
    for (int i = 0; i < output.NumFields(); ++i) {
      indices.push_back(i);
    }
  } else {
    for (const std::string& name : columns) {
      const int i = output.FieldIndex(name);
      if (i < 0) {
        return Status::InvalidArgument(fmt::format("{} reader of {}: no column '{}' in schema [{}]",
                                                   options_.format, options_.path, name,
                                                   output.ToString()));
      }
      indices.push_back(i);
    }
  }
  std::vector<columnar::Field> projected;
  std::vector<DataColumnSink> data;
  std::unordered_set<std::string_view> data_names;
  for (int i : indices) {
    const columnar::Field& field = output.FieldAt(i);
    projected.push_back(field);
    builders_.push_back(std::make_unique<columnar::ColumnBuilder>(field.Type(), pool));
    columnar::ColumnBuilder* builder = builders_.back().get();
    if (options_.rescue && field.Name() == options_.rescued_column) {
      rescued_sink_ = builder;
    } else if (options_.corrupt_column_set && field.Name() == options_.corrupt_column) {
      corrupt_sink_ = builder;
    } else {
      if (!data_names.insert(field.Name()).second) {
        return Status::InvalidArgument(fmt::format("{} reader of {}: column '{}' selected twice",
                                                   options_.format, options_.path, field.Name()));
      }
      data.push_back(DataColumnSink{field.Name(), builder});
      data_.push_back(builder);
    }
  }
  schema_ = std::make_shared<const columnar::Schema>(std::move(projected));
  return data;
}

void RecordSink::ReserveRowsLikeSoFar(int64_t rows) {
  for (auto& builder : builders_) {
    builder->ReserveRowsLikeSoFar(rows);
  }
}

Result<columnar::RecordBatchPtr> RecordSink::FinishBatch() {
  std::vector<columnar::ColumnPtr> columns;
  columns.reserve(builders_.size());
  for (auto& builder : builders_) {
    auto column = builder->Finish();
    if (!column.ok()) {
      return column.status().WithContext("reading " + options_.path);
    }
    columns.push_back(column.MoveValueUnsafe());
  }
  return columnar::RecordBatch::Make(schema_, batch_rows_, std::move(columns));
}

void RecordSink::Account(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWritten:
      ++counts_->num_rows_written;
      ++batch_rows_;
      break;
    case Outcome::kRescued:
      ++counts_->num_rows_rescued;
      ++batch_rows_;
      break;
    case Outcome::kDropped:
      ++counts_->num_rows_dropped;
      break;
  }
}

void RecordSink::AppendSpecialColumns(bool rescued, std::string_view corrupt_text) {
  if (rescued_sink_ != nullptr) {
    if (rescued) {
      rescued_sink_->AppendBytes(
          rescued_.Finish(options_.rescued_file_path ? std::string_view(options_.path) : ""));
    } else {
      rescued_sink_->AppendNull();
    }
  }
  if (corrupt_sink_ != nullptr) {
    if (corrupt_text.data() != nullptr) {
      // Keep the column valid UTF-8: invalid bytes become U+FFFD.
      scratch_.clear();
      AppendValidUtf8(corrupt_text, &scratch_);
      corrupt_sink_->AppendBytes(scratch_);
    } else {
      corrupt_sink_->AppendNull();
    }
  }
}

void RecordSink::Finish(bool fits, std::string_view raw) {
  const bool rescued = options_.rescue && !rescued_.Empty();
  // Without a rescued-data column Spark puts the whole record into the corrupt-record column.
  const bool to_corrupt = !options_.rescue && !fits && options_.corrupt_column_set;
  AppendSpecialColumns(rescued, to_corrupt ? raw : std::string_view());
  Account(rescued || !fits ? Outcome::kRescued : Outcome::kWritten);
}

Status RecordSink::Unfit(const Line& where) {
  if (options_.mode == ParseMode::kFailFast) {
    return Malformed(where, "a value does not fit its column's type");
  }
  Account(Outcome::kDropped);
  return Status::OK();
}

Status RecordSink::Corrupt(std::string_view raw, const Line& where, std::string_view reason) {
  ++counts_->num_corrupt_records;
  switch (options_.mode) {
    case ParseMode::kFailFast:
      return Malformed(where, reason);
    case ParseMode::kDropMalformed:
      Account(Outcome::kDropped);
      return Status::OK();
    case ParseMode::kPermissive:
      break;
  }
  for (columnar::ColumnBuilder* sink : data_) {
    if (sink != nullptr) {
      sink->AppendNull();
    }
  }
  rescued_.Clear();
  if (options_.rescue && !options_.corrupt_column_set) {
    scratch_.clear();
    AppendValidUtf8(raw, &scratch_);
    rescued_.AddString(kCorruptRecordKey, scratch_);
  }
  AppendSpecialColumns(!rescued_.Empty(), options_.corrupt_column_set ? raw : std::string_view());
  Account(Outcome::kRescued);
  return Status::OK();
}

Status RecordSink::Malformed(const Line& where, std::string_view reason) const {
  return Status::Corruption(fmt::format("malformed {} record in {} at line {} (byte offset {}): {}",
                                        options_.format, options_.path, where.number, where.offset,
                                        reason));
}

}  // namespace tributary::text
