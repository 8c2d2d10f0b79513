// TextReadOptions: the options the line-oriented text readers (JSON, CSV) share, under Spark's
// and Auto Loader's names, and what both readers make of them. json::JsonReadOptions and
// csv::CsvReadOptions add their own.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/text/parse_mode.h"
#include "tributary/result.h"

namespace tributary::text {

class TemporalFormats;

/// Options every text reader reads the same way.
struct TextReadOptions {
  /// Spark `mode`: what to do with records that do not parse (or, without a rescued-data
  /// column, do not fit). Default: PERMISSIVE.
  ParseMode mode = ParseMode::kPermissive;
  /// Spark `columnNameOfCorruptRecord`. When set, the raw text of records that do not parse
  /// goes to this string column (added at the end of the output schema when the schema lacks
  /// it) instead of the rescued-data column. Default: "" (not set).
  std::string column_name_of_corrupt_record;
  /// Auto Loader `rescuedDataColumn`: the string column (added at the end of the output schema
  /// when the schema lacks it) collecting what does not fit the schema; "" disables it.
  /// Default: "_rescued_data".
  std::string rescued_data_column = "_rescued_data";
  /// Include "_file_path" in rescued objects
  /// (spark.databricks.sql.rescuedDataColumn.filePath.enabled). Default: true.
  bool rescued_data_file_path = true;
  /// Spark `multiLine`: JSON: each file is one JSON value (an object, or an array of objects);
  /// CSV: quoted fields may span lines. Default: false.
  bool multi_line = false;
  /// Spark `timestampFormat`: a Spark datetime pattern (expr/datetime_pattern.h) timestamp
  /// text must match, e.g. "dd/MM/yyyy HH:mm[:ss][XXX]"; "" reads any ISO-8601 text (Spark's
  /// CAST). Setting it turns on timestamp inference, which then infers text matching it.
  /// timestamp_ntz columns always read ISO-8601. A bad pattern fails Open. Default: "".
  std::string timestamp_format;
  /// Spark `dateFormat`: a datetime pattern date text must match; "" reads ISO-8601 dates.
  /// Setting it turns on date inference for text matching it (CSV: tried before timestamps,
  /// as Spark's prefersDate). Default: "".
  std::string date_format;
  /// Session time zone for zone-less timestamp text: "UTC", a fixed offset or a region id.
  /// Default: "UTC".
  std::string time_zone = "UTC";
  /// Rows per record batch. Default: 8192.
  int64_t batch_size = 8192;
  /// Spark `lineSep`: the byte that ends a line (one byte only). Default: '\n' (with "\r\n"
  /// also ending lines).
  char line_sep = '\n';

  /// Spark `inferTimestamp`: schema inference infers timestamp for ISO-8601 timestamp text.
  /// Default: false.
  bool infer_timestamp = false;
  /// Auto Loader `cloudFiles.schemaHints`, e.g. "a INT, b.c STRING" (formats/text/schema_hints.h),
  /// applied after inference. Default: "" (none).
  std::string schema_hints;
  /// Collect the names of top-level fields outside the schema in the reader's metrics
  /// (`unknown_fields`; CSV: header names, so it needs `header`). Auto Loader's schema
  /// evolution asks for them, so new columns are found without a second parse.
  /// Default: false.
  bool report_unknown_fields = false;
};

/// The checks every text reader makes of the shared options: the rescued-data and
/// corrupt-record columns differ. InvalidArgument prefixed with `reader` ("JSON reader").
Status ValidateTextReadOptions(const TextReadOptions& options, std::string_view reader);

/// The timestamp and date parsers of `options` (timestampFormat, dateFormat, timeZone);
/// errors prefixed with `reader`.
Result<TemporalFormats> MakeTemporalFormats(const TextReadOptions& options,
                                            std::string_view reader);

}  // namespace tributary::text
