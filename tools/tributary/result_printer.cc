#include "result_printer.h"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "tributary/row.h"

namespace tributary::tools {

namespace {

// A value as the shell shows it: null, or its text.
struct PrintedCell {
  bool is_null = false;
  std::string text;
};

// The text of row `row`'s column `c`, of SQL type `type`: timestamps in the session time zone
// as Spark's CAST(... AS STRING) writes them, everything else as Row::GetString.
Result<PrintedCell> CellOfRow(const Row& row, int c, std::string_view type,
                              const expr::TimeZone& zone) {
  if (row.IsNull(c)) {
    return PrintedCell{true, {}};
  }
  PrintedCell cell;
  if (type == "timestamp" || type == "timestamp_ntz") {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t micros, row.GetLong(c));
    columnar::AppendTimestampSpark(type == "timestamp" ? zone.LocalFromUtc(micros) : micros,
                                   &cell.text);
    return cell;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(cell.text, row.GetString(c));
  return cell;
}

bool IsNumericType(std::string_view type) {
  return type == "tinyint" || type == "smallint" || type == "int" || type == "bigint" ||
         type == "float" || type == "double" || type.starts_with("decimal");
}

// Control characters as escapes (a newline would break the grid and an escape byte would drive
// the terminal), as Spark's show() escapes them.
std::string EscapeControlCharacters(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
      continue;
    }
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\a':
        out += "\\a";
        break;
      default:
        out += fmt::format("\\x{:02x}", byte);
        break;
    }
  }
  return out;
}

// Columns on a terminal: one per UTF-8 code point (continuation bytes take none).
size_t DisplayWidth(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

// `text` cut to `width` columns, ending in "..." when it was longer.
std::string FitToWidth(const std::string& text, size_t width) {
  if (DisplayWidth(text) <= width) {
    return text;
  }
  const size_t keep = width > 3 ? width - 3 : 0;
  size_t seen = 0;
  size_t end = 0;
  for (; end < text.size(); ++end) {
    if ((static_cast<unsigned char>(text[end]) & 0xc0) != 0x80) {
      if (seen == keep) {
        break;
      }
      ++seen;
    }
  }
  return text.substr(0, end) + std::string(std::min<size_t>(width, 3), '.');
}

std::string Pad(const std::string& text, size_t width, bool right_align) {
  const size_t shown = DisplayWidth(text);
  const std::string padding(width > shown ? width - shown : 0, ' ');
  return right_align ? padding + text : text + padding;
}

std::string Plural(size_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

// Below this width a column is not cut further: the middle columns are left out instead.
constexpr size_t kNarrowestCutColumn = 16;

// The grid: a header of names and types, the rows (or the first and last of them around a
// "..." row), and a footer naming what was left out.
void PrintTable(const std::vector<std::string>& names, const std::vector<std::string>& types,
                const std::vector<std::vector<PrintedCell>>& cells, const PrintOptions& options,
                std::ostream& out) {
  const size_t total_rows = cells.size();
  size_t head = total_rows;
  size_t tail = 0;
  if (options.max_rows >= 0 && total_rows > static_cast<size_t>(options.max_rows)) {
    tail = static_cast<size_t>(options.max_rows) / 2;
    head = static_cast<size_t>(options.max_rows) - tail;
  }
  const bool rows_cut = head + tail < total_rows;
  std::vector<const std::vector<PrintedCell>*> shown_rows;
  for (size_t r = 0; r < total_rows; ++r) {
    if (r < head || r >= total_rows - tail) {
      shown_rows.push_back(&cells[r]);
    }
  }
  const size_t num_columns = names.size();
  std::vector<std::vector<std::string>> texts;
  texts.reserve(shown_rows.size());
  for (const auto* row : shown_rows) {
    std::vector<std::string> line;
    line.reserve(num_columns);
    for (const PrintedCell& cell : *row) {
      line.push_back(cell.is_null ? "NULL" : EscapeControlCharacters(cell.text));
    }
    texts.push_back(std::move(line));
  }
  std::vector<size_t> widths(num_columns);
  std::vector<bool> right_align(num_columns);
  for (size_t c = 0; c < num_columns; ++c) {
    widths[c] = std::max(
        {DisplayWidth(names[c]), DisplayWidth(types[c]), rows_cut ? size_t{3} : size_t{0}});
    for (const auto& line : texts) {
      widths[c] = std::max(widths[c], DisplayWidth(line[c]));
    }
    right_align[c] = IsNumericType(types[c]);
  }
  // The columns shown: the first `left` and the last `right`, with a "..." column between them
  // when some were left out.
  size_t left = num_columns;
  size_t right = 0;
  const auto line_width = [&] {
    size_t width = 1;
    for (size_t c = 0; c < num_columns; ++c) {
      if (c < left || c >= num_columns - right) {
        width += widths[c] + 3;
      }
    }
    return width + (left + right < num_columns ? 6 : 0);
  };
  if (options.max_width > 0) {
    const auto limit = static_cast<size_t>(options.max_width);
    while (line_width() > limit) {
      auto widest = std::max_element(widths.begin(), widths.end());
      if (*widest <= kNarrowestCutColumn) {
        break;
      }
      --*widest;
    }
    // Columns leave from the middle, so the first and the last ones stay.
    right = num_columns / 2;
    left = num_columns - right;
    while (line_width() > limit && left + right > 1) {
      if (left > right) {
        --left;
      } else {
        --right;
      }
    }
  }
  const bool columns_cut = left + right < num_columns;
  std::vector<size_t> shown_columns;
  bool values_cut = false;
  for (size_t c = 0; c < num_columns; ++c) {
    if (c < left || c >= num_columns - right) {
      shown_columns.push_back(c);
      values_cut = values_cut || DisplayWidth(names[c]) > widths[c] ||
                   DisplayWidth(types[c]) > widths[c] ||
                   std::any_of(texts.begin(), texts.end(),
                               [&](const auto& line) { return DisplayWidth(line[c]) > widths[c]; });
    }
  }
  std::string separator = "+";
  for (size_t i = 0; i < shown_columns.size(); ++i) {
    if (columns_cut && i == left) {
      separator += "-----+";
    }
    separator += std::string(widths[shown_columns[i]] + 2, '-') + "+";
  }
  if (columns_cut && left == shown_columns.size()) {
    separator += "-----+";
  }
  const auto print_line = [&](const std::vector<std::string>& values, bool header) {
    std::string line = "|";
    for (size_t i = 0; i < shown_columns.size(); ++i) {
      if (columns_cut && i == left) {
        line += header ? "     |" : " ... |";
      }
      const size_t c = shown_columns[i];
      line += ' ' + Pad(FitToWidth(values[c], widths[c]), widths[c], right_align[c]) + " |";
    }
    if (columns_cut && left == shown_columns.size()) {
      line += header ? "     |" : " ... |";
    }
    out << line << '\n';
  };
  out << separator << '\n';
  print_line(names, true);
  print_line(types, true);
  out << separator << '\n';
  for (size_t r = 0; r < texts.size(); ++r) {
    if (rows_cut && r == head) {
      print_line(std::vector<std::string>(num_columns, "..."), false);
    }
    print_line(texts[r], false);
  }
  if (rows_cut && texts.size() == head) {
    print_line(std::vector<std::string>(num_columns, "..."), false);
  }
  out << separator << '\n';
  if (rows_cut || columns_cut) {
    std::string footer = Plural(total_rows, "row");
    if (rows_cut) {
      footer += fmt::format(" ({} shown)", head + tail);
    }
    if (columns_cut) {
      footer += fmt::format("  {} ({} shown)", Plural(num_columns, "column"), left + right);
    }
    out << footer << '\n';
  }
  if (values_cut) {
    out << fmt::format("(values cut to fit {} columns: .mode line shows them whole)\n",
                       options.max_width);
  }
}

std::string CsvField(const PrintedCell& cell) {
  if (cell.is_null) {
    return "";
  }
  // An empty string is quoted so that it differs from NULL, the empty unquoted field.
  if (!cell.text.empty() && cell.text.find_first_of(",\"\n\r") == std::string::npos) {
    return cell.text;
  }
  std::string out = "\"";
  for (const char c : cell.text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

void PrintCsv(const std::vector<std::string>& names,
              const std::vector<std::vector<PrintedCell>>& cells, std::ostream& out) {
  for (size_t c = 0; c < names.size(); ++c) {
    out << (c > 0 ? "," : "") << CsvField(PrintedCell{false, names[c]});
  }
  out << '\n';
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) {
      out << (c > 0 ? "," : "") << CsvField(row[c]);
    }
    out << '\n';
  }
}

std::string MarkdownText(const PrintedCell& cell) {
  if (cell.is_null) {
    return "NULL";
  }
  std::string out;
  for (const char c : EscapeControlCharacters(cell.text)) {
    if (c == '|') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

void PrintMarkdown(const std::vector<std::string>& names, const std::vector<std::string>& types,
                   const std::vector<std::vector<PrintedCell>>& cells, std::ostream& out) {
  std::vector<std::vector<std::string>> texts;
  texts.reserve(cells.size() + 1);
  std::vector<std::string> header;
  header.reserve(names.size());
  for (const std::string& name : names) {
    header.push_back(MarkdownText(PrintedCell{false, name}));
  }
  texts.push_back(std::move(header));
  for (const auto& row : cells) {
    std::vector<std::string> line;
    line.reserve(row.size());
    for (const PrintedCell& cell : row) {
      line.push_back(MarkdownText(cell));
    }
    texts.push_back(std::move(line));
  }
  std::vector<size_t> widths(names.size(), 3);
  for (const auto& line : texts) {
    for (size_t c = 0; c < line.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(line[c]));
    }
  }
  for (size_t r = 0; r < texts.size(); ++r) {
    std::string line = "|";
    for (size_t c = 0; c < names.size(); ++c) {
      line += ' ' + Pad(texts[r][c], widths[c], r > 0 && IsNumericType(types[c])) + " |";
    }
    out << line << '\n';
    if (r == 0) {
      std::string rule = "|";
      for (size_t c = 0; c < names.size(); ++c) {
        rule += IsNumericType(types[c]) ? std::string(widths[c] + 1, '-') + ":|"
                                        : std::string(widths[c] + 2, '-') + "|";
      }
      out << rule << '\n';
    }
  }
}

void PrintLines(const std::vector<std::string>& names,
                const std::vector<std::vector<PrintedCell>>& cells, std::ostream& out) {
  size_t name_width = 0;
  for (const std::string& name : names) {
    name_width = std::max(name_width, DisplayWidth(name));
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    if (r > 0) {
      out << '\n';
    }
    for (size_t c = 0; c < names.size(); ++c) {
      const PrintedCell& cell = cells[r][c];
      out << Pad(names[c], name_width, true) << " = "
          << (cell.is_null ? "NULL" : EscapeControlCharacters(cell.text)) << '\n';
    }
  }
}

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (const OutputFormat format : {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv,
                                    OutputFormat::kMarkdown, OutputFormat::kLine}) {
    if (name == OutputFormatName(format)) {
      return format;
    }
  }
  return Status::InvalidArgument(
      fmt::format("unknown format '{}': use table, json, csv, markdown or line", name));
}

std::string_view OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kMarkdown:
      return "markdown";
    case OutputFormat::kLine:
      return "line";
  }
  return "table";
}

Status PrintResult(const DataFrame& frame, const PrintOptions& options, std::ostream& out) {
  TRIBUTARY_RETURN_NOT_OK(frame.Status());
  const StructType schema = frame.Schema();
  if (schema.fields.empty()) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<Row> rows, frame.Collect());
  if (options.format == OutputFormat::kJson) {
    for (const Row& row : rows) {
      out << row.ToJson() << '\n';
    }
    return Status::OK();
  }
  std::vector<std::string> names;
  std::vector<std::string> types;
  for (const StructField& field : schema.fields) {
    names.push_back(field.name);
    types.push_back(field.type);
  }
  std::vector<std::vector<PrintedCell>> cells;
  cells.reserve(rows.size());
  for (const Row& row : rows) {
    std::vector<PrintedCell> line;
    line.reserve(names.size());
    for (int c = 0; c < row.Size(); ++c) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          PrintedCell cell, CellOfRow(row, c, types[static_cast<size_t>(c)], options.time_zone));
      line.push_back(std::move(cell));
    }
    cells.push_back(std::move(line));
  }
  switch (options.format) {
    case OutputFormat::kTable:
      PrintTable(names, types, cells, options, out);
      break;
    case OutputFormat::kCsv:
      PrintCsv(names, cells, out);
      break;
    case OutputFormat::kMarkdown:
      PrintMarkdown(names, types, cells, out);
      break;
    case OutputFormat::kLine:
      PrintLines(names, cells, out);
      break;
    case OutputFormat::kJson:
      break;
  }
  return Status::OK();
}

}  // namespace tributary::tools
