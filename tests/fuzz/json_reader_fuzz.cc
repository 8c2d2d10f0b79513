// libFuzzer harness: arbitrary bytes as an NDJSON (and, for inputs starting with 'M', a
// multiLine) file, read against a schema with every type. Inputs starting with 'L' turn on
// every lenient-JSON option and a small max_record_bytes; inputs starting with 'T' use their
// first line as the timestampFormat and dateFormat patterns (which may be rejected, never
// crash) and format a few instants with it. Reading may fail only in FAILFAST
// mode and never crashes, hangs or trips a sanitizer; every record is accounted for and every
// string column holds valid UTF-8.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "expr/datetime_pattern.h"
#include "formats/json/json_reader.h"
#include "formats/text/schema_hints.h"

namespace {

tributary::columnar::SchemaPtr FuzzSchema() {
  static const tributary::columnar::SchemaPtr schema = [] {
    auto hints = tributary::text::ParseSchemaHints(
        "b BOOLEAN, i TINYINT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,3), s STRING, "
        "bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
        "st STRUCT<x:INT,y:ARRAY<STRING>>, a ARRAY<STRUCT<k:DOUBLE>>, m MAP<STRING,BIGINT>");
    return *tributary::text::ApplySchemaHints(tributary::columnar::Schema({}), *hints);
  }();
  return schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tributary::json::JsonReader;
  using tributary::json::JsonReadOptions;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  JsonReadOptions options;
  options.batch_size = 7;
  options.max_nesting_depth = 64;
  options.multi_line = !input.empty() && input[0] == 'M';
  if (!input.empty() && input[0] == 'C') {
    options.column_name_of_corrupt_record = "_corrupt_record";
    options.rescued_data_column = "";
  }
  if (!input.empty() && input[0] == 'L') {
    options.allow_unquoted_field_names = options.allow_comments =
        options.allow_backslash_escaping_any_character = options.allow_unquoted_control_chars =
            options.allow_numeric_leading_zeros = true;
    options.max_record_bytes = 256;
  }
  bool pattern = false;
  if (!input.empty() && input[0] == 'T') {
    const std::string_view first = input.substr(1, input.find('\n') - 1);
    options.timestamp_format = options.date_format = std::string(first);
    auto compiled = tributary::expr::DateTimePattern::Compile(first);
    if (compiled.ok()) {
      pattern = true;
      std::string out;
      for (int64_t micros : {int64_t{0}, int64_t{-62135596800000000}, int64_t{253402300799999999},
                             int64_t{1709251199123456}}) {
        compiled->Format(micros, tributary::expr::TimeZone(), &out);
      }
    }
  }
  auto reader = JsonReader::Make("fuzz.json", input, FuzzSchema(), options);
  if (!reader.ok()) {
    if (!pattern && input[0] == 'T') {
      return 0;  // a pattern Compile rejects is rejected by Make too
    }
    std::abort();
  }
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) {
      std::abort();  // PERMISSIVE never fails on bad input
    }
    if (*batch == nullptr) {
      break;
    }
    for (const auto& column : (*batch)->Columns()) {
      if (!column->ValidateFull().ok()) {
        std::abort();
      }
    }
  }
  const auto& m = (*reader)->Metrics();
  if (m.num_records != m.num_rows_written + m.num_rows_rescued + m.num_rows_dropped ||
      m.num_rows_dropped != 0) {
    std::abort();
  }
  return 0;
}
