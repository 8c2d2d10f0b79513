// CsvReader: CSV files (RFC 4180 plus Spark's CSV data source options) into record batches for a
// given schema, with Spark's parse modes and Auto Loader's rescued-data column.
//
// Records. A record is one line ("\n", with a "\r" before it dropped), or with multiLine as many
// lines as a quoted field spans. Fields are separated by `sep`; a field starting with `quote`
// runs to the matching quote, inside which `escape` + quote and a doubled quote stand for a
// quote. Empty lines and lines starting with `comment` are skipped; a UTF-8 byte order mark at
// the start of the file is dropped. With `header` the first record names the columns.
//
// Columns. With `enforce_schema` (default) the i-th field goes to the i-th schema column; without
// it, fields go to the schema column named by their header. A field equal to `null_value`
// (quoted or not, as Spark compares them) is null; a quoted empty field is `empty_value`. Values
// are read as Spark's CSV source reads them: integers, floating point (also NaN, Inf, -Inf),
// decimal, boolean (true or false in any case), date and timestamp (ISO-8601 or the
// `dateFormat`/`timestampFormat` patterns, zone-less text in `time_zone`), string and binary as
// they are. Nested types are not supported (NotImplemented), as in Spark.
//
// What does not fit (see formats/text/rescued_data.h): a value that does not parse as its
// column's type (the column gets null), fields past the schema's columns and, without
// `enforce_schema`, columns the schema lacks or names only in other case, go to the rescued-data
// column under their header name (or "_c<index>" without a header). A record that does not
// parse (an unclosed quote, text after a closing quote, invalid UTF-8) gives a row of nulls with
// its raw text in the corrupt-record column when set, else in the rescued-data column under
// "_corrupt_record". Without a rescued-data column extra fields are ignored and an ill-typed
// value makes the record malformed for the parse mode, as Spark does. Missing trailing fields
// are null.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "formats/file_reader.h"
#include "formats/text/parse_mode.h"
#include "formats/text/record_sink.h"
#include "formats/text/text_read_options.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::csv {

/// Options of the CSV reader and of CSV schema inference, under Spark's and Auto Loader's names.
struct CsvReadOptions : text::TextReadOptions {
  /// Spark `header`: the first record holds column names. Default: false.
  bool header = false;
  /// Spark `sep` (`delimiter`): the field separator, one byte. Default: ",".
  char sep = ',';
  /// Spark `quote`: the quote character; '\0' turns quoting off. Default: '"'.
  char quote = '"';
  /// Spark `escape`: escapes a quote inside a quoted field. Default: '\\'.
  char escape = '\\';
  /// Spark `comment`: lines starting with this byte are skipped; '\0' turns it off.
  /// Default: '\0'.
  char comment = '\0';
  /// Spark `nullValue`: text read as null (a quoted empty field never is). Default: "".
  std::string null_value;
  /// Spark `emptyValue`: what a quoted empty field reads as. Default: "".
  std::string empty_value;
  /// Spark `enforceSchema`: map fields to columns by position, ignoring header names; when
  /// false, map them by header name. Default: true.
  bool enforce_schema = true;
  /// Spark `maxCharsPerColumn`: longest field in bytes; a record with a longer field is
  /// malformed (rescued, dropped or failed by the mode), and with multiLine a quoted field
  /// stops gathering lines past it, so memory stays bounded. -1 is unlimited. Default: -1.
  int64_t max_chars_per_column = -1;

  /// Spark `inferSchema` (Auto Loader `cloudFiles.inferColumnTypes`): infer int, bigint,
  /// double, boolean (and timestamp/date when asked); when false every column is a string.
  /// Default: false.
  bool infer_schema = false;
  /// Inference stops after this many records per file. Default: 1000000.
  int64_t sample_records = 1'000'000;
};

/// What a reader did with its input: num_records == num_rows_written + num_rows_rescued +
/// num_rows_dropped (text::RecordCounts; the header record is not counted as a record).
struct CsvReadMetrics : text::RecordCounts {
  /// Physical lines read.
  int64_t num_lines = 0;
  /// Empty and comment lines skipped.
  int64_t num_skipped_lines = 0;
  int64_t num_bytes = 0;
  /// With report_unknown_fields: the distinct header names no schema field has exactly, in
  /// header order.
  std::vector<std::string> unknown_fields;
};

/// Reads one CSV file into record batches.
///
/// Next: FAILFAST errors are Corruption naming the file, line number and byte offset.
///
/// Thread-safety: none; one reader per thread.
class CsvReader : public formats::FileReader {
 public:
  /// Reads `path` on `fs` (gzip/zstd by extension) with data schema `schema`; `columns` selects
  /// output columns by name, in that order (default: all of OutputSchema()).
  static Result<std::unique_ptr<CsvReader>> Open(
      storage::FileSystem& fs, const std::string& path, columnar::SchemaPtr schema,
      const CsvReadOptions& options, const std::vector<std::string>& columns = {},
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());

  /// As Open, over in-memory uncompressed contents `data` claiming to come from `path`.
  static Result<std::unique_ptr<CsvReader>> Make(
      std::string path, std::string_view data, columnar::SchemaPtr schema,
      const CsvReadOptions& options, const std::vector<std::string>& columns = {},
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());

  /// Counts so far.
  virtual const CsvReadMetrics& Metrics() const = 0;
  const std::vector<std::string>& UnknownFields() const final { return Metrics().unknown_fields; }
};

/// The full output schema: `schema` made nullable plus the corrupt-record and rescued-data
/// columns when set and missing.
Result<columnar::SchemaPtr> CsvOutputSchema(const columnar::Schema& schema,
                                            const CsvReadOptions& options);

/// Infers a schema from in-memory CSV files with Spark's CSVInferSchema rules: column names
/// from the header (else "_c0", "_c1", ...), types int -> bigint -> double, boolean, and
/// timestamp/date when asked, widened across records; anything else, or a column that is
/// always null, is string; every column string unless `infer_schema`; then `schema_hints`.
Result<columnar::SchemaPtr> InferCsvSchemaFromText(const std::vector<std::string_view>& files,
                                                   const CsvReadOptions& options);

/// InferCsvSchemaFromText over files on `fs` (gzip/zstd by extension).
Result<columnar::SchemaPtr> InferCsvSchema(storage::FileSystem& fs,
                                           const std::vector<std::string>& paths,
                                           const CsvReadOptions& options);

}  // namespace tributary::csv
