// RecordSink: what the JSON and CSV readers do with each record once they know how it turned
// out: Spark's parse modes, the rescued-data and corrupt-record columns, and the accounting
// that makes every record written, rescued or dropped. The readers only decode values.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column_builder.h"
#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "formats/text/line_reader.h"
#include "formats/text/parse_mode.h"
#include "formats/text/rescued_data.h"
#include "formats/text/text_read_options.h"
#include "tributary/status.h"

namespace tributary::text {

/// The record counts every text reader keeps: num_records == num_rows_written +
/// num_rows_rescued + num_rows_dropped.
struct RecordCounts {
  /// Records seen.
  int64_t num_records = 0;
  /// Records output with everything fitting the schema.
  int64_t num_rows_written = 0;
  /// Records output with something that did not fit: rescued, in the corrupt-record column, or
  /// (with neither column) turned into nulls.
  int64_t num_rows_rescued = 0;
  /// Records dropped by DROPMALFORMED.
  int64_t num_rows_dropped = 0;
  /// Records that did not parse at all (a subset of the rescued and dropped ones).
  int64_t num_corrupt_records = 0;
};

/// How the special columns of a reader are configured.
struct RecordSinkOptions {
  /// "JSON" or "CSV", for messages.
  std::string_view format;
  /// The file, for messages and the rescued column's `_file_path`.
  std::string path;
  ParseMode mode = ParseMode::kPermissive;
  /// A rescued-data column is configured (whether or not it is projected).
  bool rescue = false;
  /// columnNameOfCorruptRecord is set (whether or not it is projected).
  bool corrupt_column_set = false;
  /// Add `_file_path` to rescued objects.
  bool rescued_file_path = true;
  /// The rescued-data column's name ("" when `rescue` is false).
  std::string rescued_column;
  /// The corrupt-record column's name ("" when `corrupt_column_set` is false).
  std::string corrupt_column;

  /// The options of a `format` reader of `path` with the shared text reader `options`.
  static RecordSinkOptions Of(std::string_view format, std::string path,
                              const TextReadOptions& options);
};

/// A projected data column of a reader's output: its name and the builder the reader appends
/// its values to.
struct DataColumnSink {
  std::string name;
  columnar::ColumnBuilder* builder = nullptr;
};

/// Owns the output columns and finishes records into them, counting them. The reader appends
/// the data columns of a decoded record itself, then calls Finish; a record that does not parse
/// goes to Corrupt, one that the check pass found not to fit (without a rescued-data column) to
/// Unfit.
///
/// Thread-safety: none.
class RecordSink {
 public:
  /// `counts` (the reader's metrics) must outlive the sink.
  RecordSink(RecordSinkOptions options, RecordCounts* counts)
      : options_(std::move(options)), counts_(counts) {}

  /// The data columns of `schema`: all but the rescued-data and corrupt-record columns.
  std::vector<columnar::Field> DataFields(const columnar::Schema& schema) const;
  /// Makes the output columns: a builder for each column of `output` named in `columns` (all of
  /// `output` when empty), in that order; the rescued-data and corrupt-record columns are
  /// filled here. Returns the other, data, columns in output order for the reader to fill.
  /// InvalidArgument naming the file for a name `output` lacks or a data column named twice.
  Result<std::vector<DataColumnSink>> MakeColumns(const columnar::Schema& output,
                                                  const std::vector<std::string>& columns,
                                                  columnar::MemoryPool* pool);
  /// The schema of the columns MakeColumns made.
  const columnar::SchemaPtr& OutputSchema() const { return schema_; }
  /// Reserves room for `rows` more rows in every output column (ColumnBuilder's
  /// ReserveRowsLikeSoFar).
  void ReserveRowsLikeSoFar(int64_t rows);
  /// The rows appended since StartBatch as a batch of OutputSchema(), the builders emptied for
  /// the next one; errors name the file.
  Result<columnar::RecordBatchPtr> FinishBatch();

  bool Rescue() const { return options_.rescue; }
  bool CorruptColumnSet() const { return options_.corrupt_column_set; }
  ParseMode Mode() const { return options_.mode; }
  /// Whether the reader must check a record before appending it: a value that does not fit
  /// then makes the whole record malformed (no rescued-data column, and not PERMISSIVE).
  bool CheckBeforeAppend() const {
    return !options_.rescue && options_.mode != ParseMode::kPermissive;
  }

  /// Starts a record: counts it and empties the rescued object.
  void Begin() {
    ++counts_->num_records;
    rescued_.Clear();
  }
  /// The rescued object of the current record, for the reader to add members to.
  RescuedRecord& Rescued() { return rescued_; }

  /// Ends a decoded record whose data columns are appended. `fits` is false when a value did
  /// not fit its column; `raw` is the record's text (for the corrupt-record column when there
  /// is no rescued-data column).
  void Finish(bool fits, std::string_view raw);
  /// A record the check pass found not to fit: a FAILFAST error naming `where`, or dropped.
  Status Unfit(const Line& where);
  /// A record that does not parse: FAILFAST error naming `where` and `reason`, DROPMALFORMED
  /// drop, or PERMISSIVE a row of nulls with `raw` in the corrupt-record or rescued column.
  Status Corrupt(std::string_view raw, const Line& where, std::string_view reason);

  /// Rows appended since StartBatch.
  int64_t BatchRows() const { return batch_rows_; }
  void StartBatch() { batch_rows_ = 0; }

  /// The FAILFAST error for a record at `where`.
  Status Malformed(const Line& where, std::string_view reason) const;

 private:
  enum class Outcome : int8_t { kWritten, kRescued, kDropped };
  void Account(Outcome outcome);
  bool IsSpecialColumn(const std::string& name) const;
  void AppendSpecialColumns(bool rescued, std::string_view corrupt_text);

  const RecordSinkOptions options_;
  RecordCounts* const counts_;
  columnar::SchemaPtr schema_;
  std::vector<std::unique_ptr<columnar::ColumnBuilder>> builders_;
  std::vector<columnar::ColumnBuilder*> data_;
  columnar::ColumnBuilder* rescued_sink_ = nullptr;
  columnar::ColumnBuilder* corrupt_sink_ = nullptr;
  RescuedRecord rescued_;
  std::string scratch_;
  int64_t batch_rows_ = 0;
};

}  // namespace tributary::text
