// How `tributary sql` prints a result: the output formats of --format and `.mode`.

#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "expr/time_zone.h"
#include "tributary/dataframe.h"
#include "tributary/status.h"

namespace tributary::tools {

/// table: an aligned grid with each column's name and type; json: one canonical JSON object per
/// row; csv: RFC 4180 with a header; markdown: a GitHub table; line: one `name = value` line per
/// column, rows separated by a blank line (DuckDB's .mode line).
enum class OutputFormat : uint8_t { kTable, kJson, kCsv, kMarkdown, kLine };

/// The format named `name` (table, json, csv, markdown, line); InvalidArgument naming the
/// choices otherwise.
Result<OutputFormat> ParseOutputFormat(std::string_view name);
std::string_view OutputFormatName(OutputFormat format);

struct PrintOptions {
  OutputFormat format = OutputFormat::kTable;
  /// Table format: at most this many rows, the first and the last ones with a "..." row
  /// between them and a footer "N rows (M shown)"; -1 prints every row. Default: -1 (the
  /// interactive shell sets 40, as DuckDB's .maxrows).
  int64_t max_rows = -1;
  /// Table format: the width in characters to fit (long values are cut, then the middle
  /// columns left out, both noted in the footer); 0 fits nothing. Default: 0.
  int max_width = 0;
  /// The session time zone, in which timestamps are shown as Spark shows them
  /// ("2024-07-01 12:00:00"); json keeps canonical UTC text. Default: UTC.
  expr::TimeZone time_zone;
};

/// Runs `frame` and prints its rows in `options.format`. NULL is told apart from the empty
/// string in every format: NULL in table, markdown and line, an unquoted empty field against
/// "" in csv, null in json. A result without columns (CREATE, DROP) prints nothing.
Status PrintResult(const DataFrame& frame, const PrintOptions& options, std::ostream& out);

}  // namespace tributary::tools
