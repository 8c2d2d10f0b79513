// `tributary parquet schema|meta|cat`: inspect Parquet files with tributary's own reader.

#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tributary/status.h"

namespace tributary::tools {

/// Prints the file's columns with their tributary types and Parquet annotations.
Status ParquetSchema(const std::string& path, std::ostream& out);
/// Prints row groups, column chunks, encodings, codecs, sizes and statistics.
Status ParquetMeta(const std::string& path, std::ostream& out);
/// Prints one canonical JSON object per row, typed by the file's own types; `columns` selects
/// columns or nested struct fields by dotted path.
Status ParquetCat(const std::string& path, const std::vector<std::string>& columns,
                  std::ostream& out);

}  // namespace tributary::tools
