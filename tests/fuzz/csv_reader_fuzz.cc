// libFuzzer harness: arbitrary bytes as a CSV file, read with options picked by the first byte
// against a schema of every flat type. PERMISSIVE reading never fails on bad input, never
// crashes or trips a sanitizer, accounts for every record and keeps strings valid UTF-8.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/csv/csv_reader.h"
#include "formats/text/schema_hints.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tributary::csv::CsvReader;
  using tributary::csv::CsvReadOptions;
  static const auto schema = *tributary::text::ApplySchemaHints(
      tributary::columnar::Schema({}),
      *tributary::text::ParseSchemaHints("b BOOLEAN, i INT, d DOUBLE, dec DECIMAL(9,3), "
                                         "s STRING, dt DATE, ts TIMESTAMP"));
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const uint8_t flags = size > 0 ? data[0] : 0;
  CsvReadOptions options;
  options.batch_size = 5;
  options.header = (flags & 1) != 0;
  options.multi_line = (flags & 2) != 0;
  options.enforce_schema = (flags & 4) == 0;
  options.comment = (flags & 8) != 0 ? '#' : '\0';
  options.null_value = (flags & 16) != 0 ? "NA" : "";
  if ((flags & 32) != 0) {
    options.rescued_data_column = "";
    options.column_name_of_corrupt_record = "_corrupt_record";
  }
  auto reader = CsvReader::Make("fuzz.csv", input, schema, options);
  if (!reader.ok()) {
    std::abort();
  }
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) {
      // Only a header that does not parse is an error in PERMISSIVE mode.
      return 0;
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
  if (m.num_records != m.num_rows_written + m.num_rows_rescued + m.num_rows_dropped) {
    std::abort();
  }
  return 0;
}
