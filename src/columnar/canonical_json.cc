#include "columnar/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/calendar_interval.h"
#include "columnar/decimal.h"

namespace tributary::columnar {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not valid.
size_t Utf8SequenceLength(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  if (c < 0x80) {
    return 1;
  }
  size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || len > n) {
    return 0;
  }
  std::string_view sequence(reinterpret_cast<const char*>(s), len);
  return IsValidUtf8(sequence) ? len : 0;
}

// Turns shortest scientific digits ("1.2345e+02") into Python repr form ("123.45").
void AppendReprFromScientific(std::string_view sci, std::string* out) {
  std::string_view mantissa = sci;
  int exponent = 0;
  if (auto e = sci.find('e'); e != std::string_view::npos) {
    mantissa = sci.substr(0, e);
    std::string_view exp_text = sci.substr(e + 1);
    if (!exp_text.empty() && exp_text[0] == '+') {
      exp_text.remove_prefix(1);
    }
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  }
  bool negative = false;
  if (!mantissa.empty() && mantissa[0] == '-') {
    negative = true;
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') {
      digits.push_back(c);
    }
  }
  if (negative) {
    out->push_back('-');
  }
  if (exponent >= -4 && exponent < 16) {
    // Fixed notation with at least one fraction digit, as Python's repr.
    if (exponent < 0) {
      *out += "0.";
      out->append(static_cast<size_t>(-exponent - 1), '0');
      *out += digits;
    } else if (static_cast<int>(digits.size()) <= exponent + 1) {
      *out += digits;
      out->append(static_cast<size_t>(exponent + 1) - digits.size(), '0');
      *out += ".0";
    } else {
      out->append(digits, 0, static_cast<size_t>(exponent) + 1);
      out->push_back('.');
      out->append(digits, static_cast<size_t>(exponent) + 1, std::string::npos);
    }
    return;
  }
  out->push_back(digits[0]);
  if (digits.size() > 1) {
    out->push_back('.');
    out->append(digits, 1, std::string::npos);
  }
  fmt::format_to(std::back_inserter(*out), "e{}{:02}", exponent < 0 ? '-' : '+',
                 std::abs(exponent));
}

void AppendMapEntries(const Column& column, int64_t row, std::string* out) {
  const int64_t begin = column.Offsets()[row];
  const int64_t end = column.Offsets()[row + 1];
  std::vector<std::string> entries;
  entries.reserve(static_cast<size_t>(end - begin));
  for (int64_t i = begin; i < end; ++i) {
    std::string entry = "{\"key\":";
    AppendCanonicalJsonValue(*column.Child(0), i, &entry);
    entry += ",\"value\":";
    AppendCanonicalJsonValue(*column.Child(1), i, &entry);
    entry.push_back('}');
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end());
  out->push_back('[');
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) {
      out->push_back(',');
    }
    *out += entries[i];
  }
  out->push_back(']');
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s + i, n - i);
      if (len == 0) {
        *out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        ++i;
      } else {
        out->append(text.data() + i, len);
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(kHexDigits[c >> 4]);
          out->push_back(kHexDigits[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

void AppendJsonDouble(double value, bool as_float32, std::string* out) {
  if (std::isnan(value)) {
    *out += "\"NaN\"";
    return;
  }
  if (std::isinf(value)) {
    *out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    return;
  }
  char buffer[64];
  std::to_chars_result result =
      as_float32
          ? std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(value),
                          std::chars_format::scientific)
          : std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  AppendReprFromScientific(std::string_view(buffer, static_cast<size_t>(result.ptr - buffer)), out);
}

void AppendCanonicalJsonValue(const Column& column, int64_t row, std::string* out) {
  if (column.IsNull(row)) {
    *out += "null";
    return;
  }
  const DataType& type = *column.Type();
  switch (type.Id()) {
    case TypeId::kNull:
      *out += "null";
      return;
    case TypeId::kBoolean:
      *out += column.Values<uint8_t>()[row] ? "true" : "false";
      return;
    case TypeId::kInt8:
      fmt::format_to(std::back_inserter(*out), "{}", column.Values<int8_t>()[row]);
      return;
    case TypeId::kInt16:
      fmt::format_to(std::back_inserter(*out), "{}", column.Values<int16_t>()[row]);
      return;
    case TypeId::kInt32:
      fmt::format_to(std::back_inserter(*out), "{}", column.Values<int32_t>()[row]);
      return;
    case TypeId::kInt64:
      fmt::format_to(std::back_inserter(*out), "{}", column.Values<int64_t>()[row]);
      return;
    case TypeId::kFloat32:
      AppendJsonDouble(column.Values<float>()[row], true, out);
      return;
    case TypeId::kFloat64:
      AppendJsonDouble(column.Values<double>()[row], false, out);
      return;
    case TypeId::kDecimal:
      out->push_back('"');
      AppendDecimal(column.Values<Int128>()[row], type.Scale(), out);
      out->push_back('"');
      return;
    case TypeId::kString:
      AppendJsonString(column.BytesAt(row), out);
      return;
    case TypeId::kBinary: {
      out->push_back('"');
      for (unsigned char c : column.BytesAt(row)) {
        out->push_back(kHexDigits[c >> 4]);
        out->push_back(kHexDigits[c & 15]);
      }
      out->push_back('"');
      return;
    }
    case TypeId::kDate:
      out->push_back('"');
      AppendDate(column.Values<int32_t>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      out->push_back('"');
      AppendTimestampIso(column.Values<int64_t>()[row], type.Id() == TypeId::kTimestamp, out);
      out->push_back('"');
      return;
    case TypeId::kDayTimeInterval:
      out->push_back('"');
      AppendDayTimeInterval(column.Values<int64_t>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kYearMonthInterval:
      out->push_back('"');
      AppendYearMonthInterval(column.Values<int32_t>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kCalendarInterval:
      out->push_back('"');
      AppendCalendarInterval(column.Values<CalendarInterval>()[row], out);
      out->push_back('"');
      return;
    case TypeId::kStruct: {
      out->push_back('{');
      for (int i = 0; i < column.NumChildren(); ++i) {
        if (i > 0) {
          out->push_back(',');
        }
        AppendJsonString(type.Fields()[static_cast<size_t>(i)].Name(), out);
        out->push_back(':');
        AppendCanonicalJsonValue(*column.Child(i), row, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kArray: {
      out->push_back('[');
      const int64_t begin = column.Offsets()[row];
      const int64_t end = column.Offsets()[row + 1];
      for (int64_t i = begin; i < end; ++i) {
        if (i > begin) {
          out->push_back(',');
        }
        AppendCanonicalJsonValue(*column.Child(0), i, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap:
      AppendMapEntries(column, row, out);
      return;
  }
}

void AppendCanonicalJsonRow(const RecordBatch& batch, int64_t row, std::string* out) {
  out->push_back('{');
  for (int i = 0; i < batch.NumColumns(); ++i) {
    if (i > 0) {
      out->push_back(',');
    }
    AppendJsonString(batch.Schema()->FieldAt(i).Name(), out);
    out->push_back(':');
    AppendCanonicalJsonValue(*batch.ColumnAt(i), row, out);
  }
  out->push_back('}');
}

std::vector<std::string> CanonicalJsonRows(const RecordBatch& batch) {
  std::vector<std::string> rows;
  rows.reserve(static_cast<size_t>(batch.NumRows()));
  for (int64_t row = 0; row < batch.NumRows(); ++row) {
    std::string line;
    AppendCanonicalJsonRow(batch, row, &line);
    rows.push_back(std::move(line));
  }
  return rows;
}

}  // namespace tributary::columnar
