#include "columnar/show_string.h"

#include <algorithm>

#include "columnar/canonical_json.h"

namespace tributary::columnar {

std::string ShowCellText(const Column& column, int64_t row) {
  if (column.IsNull(row)) {
    return "NULL";
  }
  if (column.Type()->Id() == TypeId::kString || column.Type()->Id() == TypeId::kBinary) {
    return std::string(column.BytesAt(row));
  }
  std::string out;
  AppendCanonicalJsonValue(column, row, &out);
  // Canonical JSON quotes strings (decimals, dates, timestamps): show them bare.
  if (out.size() >= 2 && out.front() == '"' && out.back() == '"') {
    out = out.substr(1, out.size() - 2);
  }
  return out;
}

void AppendShowString(const std::vector<std::string>& names,
                      const std::vector<RecordBatchPtr>& rows, int64_t num_rows, bool truncate,
                      std::string* out) {
  size_t total = 0;
  for (const RecordBatchPtr& batch : rows) {
    total += static_cast<size_t>(batch->NumRows());
  }
  const size_t shown = std::min(total, static_cast<size_t>(num_rows));
  std::vector<std::vector<std::string>> cells;
  for (const RecordBatchPtr& batch : rows) {
    for (int64_t r = 0; r < batch->NumRows() && cells.size() < shown; ++r) {
      std::vector<std::string> line;
      for (int c = 0; c < batch->NumColumns(); ++c) {
        std::string text = ShowCellText(*batch->ColumnAt(c), r);
        if (truncate && text.size() > 20) {
          text = text.substr(0, 17) + "...";
        }
        line.push_back(std::move(text));
      }
      cells.push_back(std::move(line));
    }
  }
  std::vector<size_t> widths;
  widths.reserve(names.size());
  for (const std::string& name : names) {
    widths.push_back(std::max<size_t>(3, name.size()));
  }
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) {
      widths[c] = std::max(widths[c], line[c].size());
    }
  }
  std::string separator = "+";
  for (size_t width : widths) {
    separator += std::string(width, '-') + "+";
  }
  separator += '\n';
  const auto append_line = [&](const std::vector<std::string>& values) {
    out->push_back('|');
    for (size_t c = 0; c < values.size(); ++c) {
      // Spark right-aligns cells when truncating, left-aligns otherwise.
      const std::string pad(widths[c] - values[c].size(), ' ');
      *out += truncate ? pad + values[c] : values[c] + pad;
      out->push_back('|');
    }
    out->push_back('\n');
  };
  *out += separator;
  append_line(names);
  *out += separator;
  for (const auto& line : cells) {
    append_line(line);
  }
  *out += separator;
  if (total > shown) {
    *out +=
        "only showing top " + std::to_string(num_rows) + " row" + (num_rows == 1 ? "" : "s") + '\n';
  }
}

}  // namespace tributary::columnar
