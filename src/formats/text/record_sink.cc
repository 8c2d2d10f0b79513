#include "formats/text/record_sink.h"

#include <fmt/format.h>

namespace tributary::text {

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
