// Spark's CSV functions over one line of text: from_csv, to_csv and schema_of_csv.

#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/data_type.h"
#include "tributary/result.h"

namespace tributary::expr {

/// Spark's schema_of_csv: the struct type of the one CSV record `text`, fields _c0, _c1, ...
/// each INT, BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP or STRING (the first that reads every
/// value, as Spark's CSVInferSchema tries them). `options` are Spark's CSV options as name and
/// value pairs (`sep`/`delimiter` is used, the rest have no effect here).
Result<columnar::DataTypePtr> InferCsvSchema(
    std::string_view text, const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace tributary::expr
