// libFuzzer harness: arbitrary text through every CAST from string (ANSI and try_cast), then
// back to string and through the canonical JSON printer. Nothing may crash or trip a sanitizer;
// try_cast must never fail, and ANSI CAST may fail only with InvalidArgument.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "expr/kernels.h"

namespace {

using tributary::columnar::DataType;
using tributary::columnar::DataTypePtr;

const std::vector<DataTypePtr>& Targets() {
  static const std::vector<DataTypePtr> targets = {DataType::Boolean(),
                                                   DataType::Int8(),
                                                   DataType::Int32(),
                                                   DataType::Int64(),
                                                   DataType::Float32(),
                                                   DataType::Float64(),
                                                   DataType::Decimal(38, 10).ValueOrDie(),
                                                   DataType::Decimal(5, 2).ValueOrDie(),
                                                   DataType::Date(),
                                                   DataType::Timestamp(),
                                                   DataType::TimestampNtz(),
                                                   DataType::Binary()};
  return targets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tributary;  // NOLINT(google-build-using-namespace): harness entry point
  // Each input line is one row, so one run exercises several values and null handling.
  std::string_view text(reinterpret_cast<const char*>(data), size);
  columnar::ColumnBuilder builder(DataType::String());
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(start, end - start);
    if (line == "NULL") {
      builder.AppendNull();
    } else {
      builder.AppendBytes(line);
    }
    start = end + 1;
  }
  auto input = builder.Finish();
  if (!input.ok()) {
    std::abort();
  }
  expr::EvalContext context;
  for (const DataTypePtr& target : Targets()) {
    auto safe = expr::CastKernel(**input, target, /*safe=*/true, context);
    if (!safe.ok()) {
      std::abort();
    }
    auto strict = expr::CastKernel(**input, target, /*safe=*/false, context);
    if (!strict.ok() && !strict.status().IsInvalidArgument()) {
      std::abort();
    }
    auto back = expr::CastKernel(**safe, DataType::String(), false, context);
    if (!back.ok()) {
      std::abort();
    }
    std::string json;
    for (int64_t i = 0; i < (*safe)->Length(); ++i) {
      columnar::AppendCanonicalJsonValue(**safe, i, &json);
    }
  }
  return 0;
}
