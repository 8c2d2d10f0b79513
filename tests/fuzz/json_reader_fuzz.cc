// libFuzzer harness: arbitrary bytes as an NDJSON (and, for inputs starting with 'M', a
// multiLine) file, read against a schema with every type. Reading may fail only in FAILFAST
// mode and never crashes, hangs or trips a sanitizer; every record is accounted for and every
// string column holds valid UTF-8.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

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
  auto reader = JsonReader::Make("fuzz.json", input, FuzzSchema(), options);
  if (!reader.ok()) {
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
