// JsonReader: newline-delimited (and, with multiLine, whole-file) JSON into record batches for a
// given schema, with Spark's JSON data source semantics and Auto Loader's rescued-data column.
//
// Records. Without multiLine every line is one record; lines end at "\n" (a "\r" before it is
// dropped), a UTF-8 byte order mark at the start of the file is skipped and whitespace-only
// lines are skipped and counted. A line holding a JSON array of objects gives one record per
// object (as Spark does). With multiLine the whole file is one JSON value: an object is one
// record, an array of objects one record per element.
//
// Values. A field goes to the column of the same name (exact match). JSON null is null.
// boolean <- true/false; integers <- JSON integers in range; float/double <- any JSON number,
// and the strings "NaN", "+NaN", "-NaN", "Infinity", "+Infinity", "-Infinity", "INF", "+INF",
// "-INF"; decimal(p,s) <- numbers and numeric strings, rounded half up, that fit p digits;
// string <- strings as they are, and any other value as its JSON text (as Spark does);
// binary <- base64 strings; date <- strings (Spark CAST rules, or `dateFormat`); timestamp <-
// ISO-8601 strings with or without a zone (or text matching `timestampFormat`; zone-less text is
// in `time_zone`) and integers as seconds since the epoch; timestamp_ntz <- strings; struct <-
// objects; array <- arrays; map (string keys) <- objects. Anything else does not fit.
//
// What does not fit (see formats/text/rescued_data.h for the rescued column's text):
//   * a field whose value does not fit its column's type (anywhere inside it): the column gets
//     null where the value did not fit and the field's whole JSON value is rescued;
//   * a field not in the schema, a field whose name differs from a schema field only in case,
//     a repeated field (the first one is kept), or such a field anywhere inside a struct: the
//     (top-level) field is rescued;
//   * a record that does not parse at all (truncated, junk, invalid UTF-8, nested deeper than
//     `max_nesting_depth`, not an object): all data columns are null and the raw text goes to
//     the corrupt-record column when `column_name_of_corrupt_record` is set, else into the
//     rescued-data column under "_corrupt_record".
// Without a rescued-data column, unknown fields are ignored and a value that does not fit
// makes the record malformed for the parse mode (PERMISSIVE keeps it with that column null
// and its raw text in the corrupt-record column, if set).
//
// FAILFAST errors name the file, line and byte offset where a record stops being valid JSON
// (inside a multiLine document too). Not yet supported: map keys other than string.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "formats/file_reader.h"
#include "formats/text/parse_mode.h"
#include "formats/text/record_sink.h"
#include "formats/text/text_read_options.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::json {

/// Options of the JSON reader and of JSON schema inference, under Spark's and Auto Loader's
/// names.
struct JsonReadOptions : text::TextReadOptions {
  /// Longest record (a line, or with multiLine the whole file) in bytes. A longer one is a
  /// malformed record named by file and line (its first max_record_bytes bytes are what the
  /// rescued or corrupt-record column gets); the rest is skipped without being buffered, so
  /// memory stays bounded. Default: 128 MiB.
  int64_t max_record_bytes = int64_t{128} << 20;

  // Spark's lenient JSON, beyond strict RFC 8259. Records that simdjson rejects are rewritten
  // into strict JSON according to these and parsed again; valid JSON never pays for them.

  /// Spark `allowNonNumericNumbers`: unquoted NaN, Infinity, +Infinity, -Infinity, INF, +INF
  /// and -INF, read by float and double columns (other columns see the strings "NaN",
  /// "Infinity", "-Infinity"). Default: true.
  bool allow_non_numeric_numbers = true;
  /// Spark `allowSingleQuotes`: 'single-quoted' strings and field names. Default: true.
  bool allow_single_quotes = true;
  /// Spark `allowUnquotedFieldNames`: {name: 1}. Default: false.
  bool allow_unquoted_field_names = false;
  /// Spark `allowComments`: /* */ and // comments. Default: false.
  bool allow_comments = false;
  /// Spark `allowBackslashEscapingAnyCharacter`: "\q" reads as "q". Default: false.
  bool allow_backslash_escaping_any_character = false;
  /// Spark `allowUnquotedControlChars`: raw control characters inside strings. Default: false.
  bool allow_unquoted_control_chars = false;
  /// Spark `allowNumericLeadingZeros`: 007 reads as 7. Default: false.
  bool allow_numeric_leading_zeros = false;

  /// Deepest nesting of arrays and objects a record may have; deeper records do not parse.
  /// Default: 1000.
  int max_nesting_depth = 1000;

  /// Auto Loader `cloudFiles.inferColumnTypes`: infer bigint/double/boolean/struct/array
  /// leaves; when false every inferred leaf is a string. Default: false.
  bool infer_column_types = false;
  /// Spark `prefersDecimal`: infer decimal(p,s) instead of double for fractional numbers, and
  /// for strings holding a decimal number, when p <= 38 (Java BigDecimal's precision and scale
  /// of the text: "1.50" is decimal(3,2)). Default: false.
  bool prefers_decimal = false;
  /// Inference reads files until this many bytes were sampled
  /// (cloudFiles.schemaInference.sampleSize.numBytes). Default: 50 GiB.
  int64_t sample_size_bytes = int64_t{50} << 30;
  /// Inference reads at most this many files (sampleSize.numFiles). Default: 1000.
  int64_t sample_size_files = 1000;
};

/// What a reader did with its input. Every record is accounted for:
/// num_records == num_rows_written + num_rows_rescued + num_rows_dropped (text::RecordCounts);
/// records are non-blank lines, plus one per extra object of a line or file holding an array.
struct JsonReadMetrics : text::RecordCounts {
  /// Physical lines read, blank ones included (multiLine: lines of the file).
  int64_t num_lines = 0;
  /// Whitespace-only lines skipped.
  int64_t num_blank_lines = 0;
  /// Bytes of (decompressed) input consumed.
  int64_t num_bytes = 0;
  /// With report_unknown_fields: the distinct top-level field names no schema field has
  /// exactly, in order of first appearance (names differing from a field only in case
  /// included).
  std::vector<std::string> unknown_fields;
};

/// Reads one JSON file into record batches. Open reads (and decompresses, by extension) the
/// file; Next decodes up to batch_size records at a time.
///
/// Next: FAILFAST errors are Corruption naming the file, line number and byte offset of the
/// record.
///
/// Thread-safety: none; one reader per thread.
class JsonReader : public formats::FileReader {
 public:
  /// Reads `path` on `fs` with data schema `schema` (fields are matched by name; the rescued
  /// and corrupt-record columns, when in it, are not read from the data). `columns` selects
  /// output columns by name, in that order; unselected fields are skipped, not decoded.
  /// Default: every column of OutputSchema(). InvalidArgument for bad options or unknown
  /// column names; NotImplemented for unsupported formats. Unselected schema fields are not
  /// checked either: their ill-typed values are not rescued (fields outside the schema are).
  static Result<std::unique_ptr<JsonReader>> Open(
      storage::FileSystem& fs, const std::string& path, columnar::SchemaPtr schema,
      const JsonReadOptions& options, const std::vector<std::string>& columns = {},
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());

  /// As Open, over `data` (uncompressed file contents) that claims to come from `path`.
  static Result<std::unique_ptr<JsonReader>> Make(
      std::string path, std::string_view data, columnar::SchemaPtr schema,
      const JsonReadOptions& options, const std::vector<std::string>& columns = {},
      columnar::MemoryPool* pool = columnar::DefaultMemoryPool());

  /// Counts so far.
  virtual const JsonReadMetrics& Metrics() const = 0;
  const std::vector<std::string>& UnknownFields() const final { return Metrics().unknown_fields; }
};

/// The full output schema for data schema `schema`: its fields made nullable, then the
/// corrupt-record column (when set and missing), then the rescued-data column (when enabled
/// and missing).
Result<columnar::SchemaPtr> JsonOutputSchema(const columnar::Schema& schema,
                                             const JsonReadOptions& options);

/// Infers a data schema from the files at `paths` (in order, until the sample size is
/// reached), with Spark's JSON inference rules (formats/text/schema_inference.h): fields sorted
/// by name, integers as bigint, fractions as double, null-only as string; every leaf string
/// unless `infer_column_types`; then `schema_hints` applied. Records that do not parse are
/// skipped; no corrupt-record or rescued-data column is added. With `threads` above one, files
/// are inferred on that many threads and merged in order: the same schema, and the same error.
Result<columnar::SchemaPtr> InferJsonSchema(storage::FileSystem& fs,
                                            const std::vector<std::string>& paths,
                                            const JsonReadOptions& options, int threads = 1);

/// InferJsonSchema over in-memory file contents.
Result<columnar::SchemaPtr> InferJsonSchemaFromText(const std::vector<std::string_view>& files,
                                                    const JsonReadOptions& options);

}  // namespace tributary::json
