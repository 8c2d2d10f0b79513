#include "formats/reader_options.h"

#include <charconv>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::formats {

namespace {

Result<char> CharOption(std::string_view key, const std::string& value) {
  // Spark accepts one character, "\t" spelled out, and "" (off) for quote/comment.
  if (value.empty()) {
    return '\0';
  }
  if (value == "\\t") {
    return '\t';
  }
  if (value.size() == 1) {
    return value[0];
  }
  return Status::InvalidArgument(
      fmt::format("option '{}' must be a single character, got '{}'", key, value));
}

// Spark's lineSep: one character ("\n", "\r" spelled out too); the readers split on one byte.
Result<char> LineSeparator(const std::string& value) {
  if (value == "\\n") {
    return '\n';
  }
  if (value == "\\r") {
    return '\r';
  }
  if (value.size() == 1) {
    return value[0];
  }
  return Status::NotImplemented(
      fmt::format("option 'lineSep' = '{}': only a single-byte separator is supported", value));
}

Result<int64_t> IntegerOption(std::string_view key, const std::string& value) {
  int64_t out = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (error != std::errc{} || end != value.data() + value.size()) {
    return Status::InvalidArgument(
        fmt::format("option '{}' must be an integer, got '{}'", key, value));
  }
  return out;
}

}  // namespace

const std::string* FindOption(const OptionMap& options, std::string_view key) {
  const std::string wanted = AsciiLower(key);
  for (const auto& [name, value] : options) {
    std::string lowered = AsciiLower(name);
    if (lowered.starts_with("cloudfiles.")) {
      lowered = lowered.substr(11);
    }
    if (lowered == wanted) {
      return &value;
    }
  }
  return nullptr;
}

Result<bool> BooleanOption(std::string_view key, const std::string& value) {
  const std::string lowered = AsciiLower(value);
  if (lowered == "true") {
    return true;
  }
  if (lowered == "false") {
    return false;
  }
  return Status::InvalidArgument(
      fmt::format("option '{}' must be true or false, got '{}'", key, value));
}

namespace {

Status SetBool(const OptionMap& options, std::string_view key, bool* field) {
  if (const std::string* v = FindOption(options, key)) {
    TRIBUTARY_ASSIGN_OR_RAISE(*field, BooleanOption(key, *v));
  }
  return Status::OK();
}

void SetString(const OptionMap& options, std::string_view key, std::string* field) {
  if (const std::string* v = FindOption(options, key)) {
    *field = *v;
  }
}

// The options every text reader reads alike (text::TextReadOptions).
Status TextOptionsFromMap(const OptionMap& options, OptionDefaults defaults,
                          text::TextReadOptions* out) {
  if (defaults == OptionDefaults::kSparkReader) {
    out->rescued_data_column.clear();
  }
  if (const std::string* v = FindOption(options, "mode")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out->mode, text::ParseModeFromString(*v));
  }
  SetString(options, "columnNameOfCorruptRecord", &out->column_name_of_corrupt_record);
  SetString(options, "rescuedDataColumn", &out->rescued_data_column);
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "multiLine", &out->multi_line));
  SetString(options, "timestampFormat", &out->timestamp_format);
  SetString(options, "dateFormat", &out->date_format);
  SetString(options, "timeZone", &out->time_zone);
  if (const std::string* v = FindOption(options, "lineSep")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out->line_sep, LineSeparator(*v));
  }
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "inferTimestamp", &out->infer_timestamp));
  SetString(options, "schemaHints", &out->schema_hints);
  return Status::OK();
}

}  // namespace

Result<json::JsonReadOptions> JsonOptionsFromMap(const OptionMap& options,
                                                 OptionDefaults defaults) {
  json::JsonReadOptions out;
  out.infer_column_types = defaults != OptionDefaults::kAutoLoader;
  TRIBUTARY_RETURN_NOT_OK(TextOptionsFromMap(options, defaults, &out));
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "inferColumnTypes", &out.infer_column_types));
  for (const auto& [key, field] : std::initializer_list<std::pair<const char*, bool*>>{
           {"allowNonNumericNumbers", &out.allow_non_numeric_numbers},
           {"allowSingleQuotes", &out.allow_single_quotes},
           {"allowUnquotedFieldNames", &out.allow_unquoted_field_names},
           {"allowComments", &out.allow_comments},
           {"allowBackslashEscapingAnyCharacter", &out.allow_backslash_escaping_any_character},
           {"allowUnquotedControlChars", &out.allow_unquoted_control_chars},
           {"allowNumericLeadingZeros", &out.allow_numeric_leading_zeros},
           {"prefersDecimal", &out.prefers_decimal}}) {
    TRIBUTARY_RETURN_NOT_OK(SetBool(options, key, field));
  }
  if (const std::string* v = FindOption(options, "primitivesAsString")) {
    TRIBUTARY_ASSIGN_OR_RAISE(bool strings, BooleanOption("primitivesAsString", *v));
    out.infer_column_types = !strings;
  }
  if (const std::string* v = FindOption(options, "schemaInference.sampleSize.numBytes")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.sample_size_bytes, IntegerOption("sampleSize.numBytes", *v));
  }
  if (const std::string* v = FindOption(options, "schemaInference.sampleSize.numFiles")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.sample_size_files, IntegerOption("sampleSize.numFiles", *v));
  }
  return out;
}

Result<csv::CsvReadOptions> CsvOptionsFromMap(const OptionMap& options, OptionDefaults defaults) {
  csv::CsvReadOptions out;
  // Spark's batch CSV reader reads strings unless inferSchema; read_files infers types.
  out.infer_schema = defaults == OptionDefaults::kReadFiles;
  TRIBUTARY_RETURN_NOT_OK(TextOptionsFromMap(options, defaults, &out));
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "header", &out.header));
  for (const char* key : {"sep", "delimiter"}) {
    if (const std::string* v = FindOption(options, key)) {
      TRIBUTARY_ASSIGN_OR_RAISE(out.sep, CharOption(key, *v));
    }
  }
  if (const std::string* v = FindOption(options, "quote")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.quote, CharOption("quote", *v));
  }
  if (const std::string* v = FindOption(options, "escape")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.escape, CharOption("escape", *v));
  }
  if (const std::string* v = FindOption(options, "comment")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.comment, CharOption("comment", *v));
  }
  SetString(options, "nullValue", &out.null_value);
  SetString(options, "emptyValue", &out.empty_value);
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "enforceSchema", &out.enforce_schema));
  if (const std::string* v = FindOption(options, "maxCharsPerColumn")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.max_chars_per_column, IntegerOption("maxCharsPerColumn", *v));
  }
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "inferSchema", &out.infer_schema));
  TRIBUTARY_RETURN_NOT_OK(SetBool(options, "inferColumnTypes", &out.infer_schema));
  return out;
}

ReaderOptionKeys ReaderOptionKeysOf(std::string_view format) {
  // Keep `known` in step with JsonOptionsFromMap and CsvOptionsFromMap above.
  const std::string name = AsciiLower(format);
  if (name == "json") {
    return {{"mode",
             "columnNameOfCorruptRecord",
             "rescuedDataColumn",
             "multiLine",
             "timestampFormat",
             "dateFormat",
             "timeZone",
             "inferColumnTypes",
             "inferTimestamp",
             "schemaHints",
             "allowNonNumericNumbers",
             "allowSingleQuotes",
             "allowUnquotedFieldNames",
             "allowComments",
             "allowBackslashEscapingAnyCharacter",
             "allowUnquotedControlChars",
             "allowNumericLeadingZeros",
             "prefersDecimal",
             "lineSep",
             "primitivesAsString",
             "schemaInference.sampleSize.numBytes",
             "schemaInference.sampleSize.numFiles"},
            {"encoding", "charset", "samplingRatio", "dropFieldIfAllNull", "locale",
             "timestampNTZFormat", "enableDateTimeParsingFallback", "singleVariantColumn",
             "readerCaseSensitive"}};
  }
  if (name == "csv") {
    return {
        {"header",
         "sep",
         "delimiter",
         "quote",
         "escape",
         "comment",
         "multiLine",
         "nullValue",
         "emptyValue",
         "enforceSchema",
         "mode",
         "columnNameOfCorruptRecord",
         "rescuedDataColumn",
         "timestampFormat",
         "dateFormat",
         "timeZone",
         "lineSep",
         "maxCharsPerColumn",
         "inferSchema",
         "inferColumnTypes",
         "inferTimestamp",
         "schemaHints"},
        {"encoding", "charset", "ignoreLeadingWhiteSpace", "ignoreTrailingWhiteSpace", "nanValue",
         "positiveInf", "negativeInf", "maxColumns", "unescapedQuoteHandling", "samplingRatio",
         "charToEscapeQuoteEscaping", "locale", "preferDate", "timestampNTZFormat",
         "enableDateTimeParsingFallback", "singleVariantColumn", "readerCaseSensitive"}};
  }
  if (name == "parquet") {
    return {{}, {"mergeSchema", "datetimeRebaseMode", "int96RebaseMode"}};
  }
  if (name == "text") {
    return {{"wholeText"}, {"lineSep", "encoding"}};
  }
  return {};
}

}  // namespace tributary::formats
