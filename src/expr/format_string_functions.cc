// format_string/printf (Spark's FormatString over java.util.Formatter).

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "common/utf8.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"
#include "expr/string_helpers.h"

namespace tributary::expr {

using columnar::TypeId;

namespace {

// ---- format_string / printf: java.util.Formatter -------------------------------------------
//
// A specifier is %[index$][flags][width][.precision]conversion with the conversions Spark users
// meet: s S b B c d o x X f e E g G % n. Arguments are the values Spark hands to Java: strings,
// boxed numbers and booleans, dates as their day count and timestamps as microseconds; a null
// prints "null" (false for %b).

struct FormatSpec {
  std::string text;  // literal text (conversion == 0)
  char conversion = 0;
  int argument = -1;  // 0-based argument, -1 for %% and %n
  std::string flags;
  int width = -1;
  int precision = -1;
};

Result<std::vector<FormatSpec>> ParseFormat(std::string_view format) {
  std::vector<FormatSpec> specs;
  int ordinary = 0;
  int previous = -1;
  size_t i = 0;
  while (i < format.size()) {
    const size_t percent = format.find('%', i);
    if (percent != i) {
      FormatSpec literal;
      literal.text = std::string(format.substr(i, percent - i));
      specs.push_back(std::move(literal));
      if (percent == std::string_view::npos) {
        break;
      }
    }
    i = percent + 1;
    FormatSpec spec;
    auto digits = [&]() {
      int value = 0;
      size_t start = i;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        value = std::min(value * 10 + (format[i] - '0'), 1 << 24);
        ++i;
      }
      return i == start ? -1 : value;
    };
    const size_t start = i;
    int index = digits();
    if (index >= 0 && i < format.size() && format[i] == '$') {
      ++i;
      if (index == 0) {
        return Status::InvalidArgument(
            "[INVALID_PARAMETER_VALUE.ZERO_INDEX] The value of parameter(s) `strfmt` in "
            "`format_string` is invalid: expects %1$, %2$ and so on, but got %0$.");
      }
      spec.argument = index - 1;
    } else {
      i = start;
      index = -1;
    }
    while (i < format.size() &&
           std::string_view("-#+ 0,(<").find(format[i]) != std::string_view::npos) {
      spec.flags.push_back(format[i++]);
    }
    spec.width = digits();
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = digits();
      if (spec.precision < 0) {
        return Status::InvalidArgument(
            fmt::format("format_string: illegal precision in '{}'", format.substr(percent)));
      }
    }
    if (i >= format.size()) {
      return Status::InvalidArgument(fmt::format(
          "format_string: UnknownFormatConversionException: Conversion = '%' at the end of '{}'",
          format));
    }
    spec.conversion = format[i++];
    if (std::string_view("sSbBcdoxXfeEgG%n").find(spec.conversion) == std::string_view::npos) {
      return Status::InvalidArgument(fmt::format(
          "format_string: UnknownFormatConversionException: Conversion = '{}'", spec.conversion));
    }
    if (spec.conversion == '%' || spec.conversion == 'n') {
      spec.argument = -1;
    } else if (spec.flags.find('<') != std::string::npos) {
      if (previous < 0) {
        return Status::InvalidArgument(
            fmt::format("format_string: MissingFormatArgumentException: Format specifier '%{}'",
                        format.substr(percent + 1, i - percent - 1)));
      }
      spec.argument = previous;
    } else if (index < 0) {
      spec.argument = ordinary++;
    }
    if (spec.argument >= 0) {
      previous = spec.argument;
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

// The shortest decimal digits of finite |v| > 0 and the position of the decimal point: v =
// 0.<digits> * 10^point.
void ShortestDigits(double v, std::string* digits, int* point) {
  char buffer[64];
  const auto end =
      std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(v), std::chars_format::scientific)
          .ptr;
  const std::string_view text(buffer, static_cast<size_t>(end - buffer));
  const size_t e = text.find('e');
  digits->clear();
  for (const char c : text.substr(0, e)) {
    if (c != '.') {
      digits->push_back(c);
    }
  }
  int exponent = 0;
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                  exponent);
  *point = exponent + 1;
}

// `digits` (v = 0.<digits> * 10^point) rounded half up to `keep` leading digits.
void RoundDigits(std::string* digits, int* point, int keep) {
  if (keep < 0) {
    digits->clear();
    return;
  }
  if (static_cast<size_t>(keep) >= digits->size()) {
    return;
  }
  const bool up = (*digits)[static_cast<size_t>(keep)] >= '5';
  digits->resize(static_cast<size_t>(keep));
  if (!up) {
    return;
  }
  for (size_t k = digits->size(); k-- > 0;) {
    if ((*digits)[k] != '9') {
      ++(*digits)[k];
      return;
    }
    (*digits)[k] = '0';
  }
  digits->insert(digits->begin(), '1');
  ++*point;
}

std::string Grouped(std::string_view integer) {
  std::string out;
  for (size_t k = 0; k < integer.size(); ++k) {
    if (k > 0 && (integer.size() - k) % 3 == 0) {
      out.push_back(',');
    }
    out.push_back(integer[k]);
  }
  return out;
}

// Java's %f / %e of |v| with `precision` digits after the point.
std::string FixedText(double v, int precision, bool group) {
  std::string digits;
  int point = 0;
  if (v != 0) {
    ShortestDigits(v, &digits, &point);
    RoundDigits(&digits, &point, point + precision);
  }
  std::string integer;
  std::string fraction;
  for (int k = 0; k < point; ++k) {
    integer.push_back(static_cast<size_t>(k) < digits.size() ? digits[static_cast<size_t>(k)]
                                                             : '0');
  }
  if (integer.empty()) {
    integer.push_back('0');
  }
  for (int k = 0; k < precision; ++k) {
    const int at = point + k;
    fraction.push_back(
        at >= 0 && static_cast<size_t>(at) < digits.size() ? digits[static_cast<size_t>(at)] : '0');
  }
  std::string out = group ? Grouped(integer) : integer;
  if (precision > 0) {
    out.push_back('.');
    out += fraction;
  }
  return out;
}

std::string ScientificText(double v, int precision, bool upper) {
  std::string digits;
  int point = 1;
  if (v != 0) {
    ShortestDigits(v, &digits, &point);
    RoundDigits(&digits, &point, precision + 1);
  }
  digits.resize(static_cast<size_t>(precision) + 1, '0');
  std::string out(1, digits[0]);
  if (precision > 0) {
    out.push_back('.');
    out.append(digits, 1);
  }
  const int exponent = v == 0 ? 0 : point - 1;
  out += fmt::format("{}{}{:02}", upper ? 'E' : 'e', exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

// Pads `body` (after `sign`) to the spec's width: zeros between sign and digits with '0',
// spaces on the right with '-', else spaces on the left.
void AppendPadded(const FormatSpec& spec, std::string_view sign, std::string_view body,
                  std::string* out) {
  const int64_t length = NumChars(sign) + NumChars(body);
  const int64_t fill = spec.width > length ? spec.width - length : 0;
  const bool zero = spec.flags.find('0') != std::string::npos;
  const bool left = spec.flags.find('-') != std::string::npos;
  if (!left && !zero) {
    out->append(static_cast<size_t>(fill), ' ');
  }
  out->append(sign);
  if (zero && !left) {
    out->append(static_cast<size_t>(fill), '0');
  }
  out->append(body);
  if (left) {
    out->append(static_cast<size_t>(fill), ' ');
  }
}

std::string_view JavaClassName(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kBoolean:
      return "java.lang.Boolean";
    case TypeId::kInt8:
      return "java.lang.Byte";
    case TypeId::kInt16:
      return "java.lang.Short";
    case TypeId::kInt32:
    case TypeId::kDate:
      return "java.lang.Integer";
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return "java.lang.Long";
    case TypeId::kFloat32:
      return "java.lang.Float";
    case TypeId::kFloat64:
      return "java.lang.Double";
    case TypeId::kDecimal:
      return "org.apache.spark.sql.types.Decimal";
    case TypeId::kString:
      return "org.apache.spark.unsafe.types.UTF8String";
    default:
      return "java.lang.Object";
  }
}

bool IsJavaIntegral(const DataType& type) {
  return type.IsInteger() || type.Id() == TypeId::kDate || type.Id() == TypeId::kTimestamp ||
         type.Id() == TypeId::kTimestampNtz;
}

double DoubleAt(const Column& column, int64_t row) {
  return column.Type()->Id() == TypeId::kFloat32 ? column.Values<float>()[row]
                                                 : column.Values<double>()[row];
}

// Appends one conversion of `arg` (nullptr: no such argument was given) at `row`.
Status AppendConversion(const FormatSpec& spec, const Column* arg, int64_t row,
                        const EvalContext& context, std::string* out) {
  const char conversion = spec.conversion;
  const bool upper = conversion >= 'A' && conversion <= 'Z';
  const char lower = static_cast<char>(upper ? conversion + 32 : conversion);
  auto has = [&](char flag) {
    return spec.flags.find(flag) != std::string::npos;
  };
  std::string body;
  std::string sign;
  const bool null = arg->IsNull(row);
  auto mismatch = [&]() {
    return Status::InvalidArgument(
        fmt::format("format_string: IllegalFormatConversionException: {} != {}", conversion,
                    JavaClassName(*arg->Type())));
  };
  if (lower == 'b') {
    body = null ? "false"
           : arg->Type()->Id() == TypeId::kBoolean
               ? (arg->Values<uint8_t>()[row] != 0 ? "true" : "false")
               : "true";
  } else if (null) {
    body = "null";
  } else if (lower == 's') {
    const DataType& type = *arg->Type();
    if (type.Id() == TypeId::kString) {
      body.assign(arg->BytesAt(row));
    } else if (IsJavaIntegral(type)) {
      body = fmt::format("{}", IntAt(*arg, row));
    } else {
      AppendCastString(*arg, row, context, &body);
    }
  } else if (lower == 'c') {
    if (!arg->Type()->IsInteger()) {
      return mismatch();
    }
    AppendUtf8(static_cast<uint32_t>(IntAt(*arg, row)), &body);
  } else if (lower == 'd' || lower == 'o' || lower == 'x') {
    if (!IsJavaIntegral(*arg->Type())) {
      return mismatch();
    }
    const int64_t value = IntAt(*arg, row);
    if (lower == 'd') {
      const std::string digits = fmt::format(
          "{}", value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
      body = has(',') ? Grouped(digits) : digits;
      if (value < 0) {
        if (has('(')) {
          sign = "(";
          body.push_back(')');
        } else {
          sign = "-";
        }
      } else if (has('+')) {
        sign = "+";
      } else if (has(' ')) {
        sign = " ";
      }
    } else {
      // Java prints a negative value as its two's complement in the boxed type's width.
      int bits = 64;
      switch (arg->Type()->Id()) {
        case TypeId::kInt8:
          bits = 8;
          break;
        case TypeId::kInt16:
          bits = 16;
          break;
        case TypeId::kInt32:
        case TypeId::kDate:
          bits = 32;
          break;
        default:
          break;
      }
      auto bits_value = static_cast<uint64_t>(value);
      if (bits < 64) {
        bits_value &= (uint64_t{1} << bits) - 1;
      }
      body = lower == 'x' ? fmt::format("{:x}", bits_value) : fmt::format("{:o}", bits_value);
      if (has('#')) {
        sign = lower == 'x' ? "0x" : "0";
      }
    }
  } else {
    if (!arg->Type()->IsFloatingPoint()) {
      return mismatch();
    }
    const double value = DoubleAt(*arg, row);
    if (std::isnan(value)) {
      body = "NaN";
    } else if (std::isinf(value)) {
      body = "Infinity";
    } else {
      const int precision = spec.precision >= 0 ? spec.precision : 6;
      if (lower == 'f') {
        body = FixedText(value, precision, has(','));
      } else if (lower == 'e') {
        body = ScientificText(value, precision, false);
      } else {
        // %g: scientific unless 10^-4 <= the rounded value < 10^precision.
        const int significant = precision == 0 ? 1 : precision;
        std::string digits;
        int point = 1;
        if (value != 0) {
          ShortestDigits(value, &digits, &point);
          RoundDigits(&digits, &point, significant);
        }
        if (value != 0 && (point - 1 < -4 || point - 1 >= significant)) {
          body = ScientificText(value, significant - 1, false);
        } else {
          body = FixedText(value, std::max(significant - point, 0), has(','));
        }
      }
    }
    if (std::signbit(value) && !std::isnan(value)) {
      if (has('(')) {
        sign = "(";
        body.push_back(')');
      } else {
        sign = "-";
      }
    } else if (has('+') && !std::isnan(value)) {
      sign = "+";
    } else if (has(' ') && !std::isnan(value)) {
      sign = " ";
    }
    if (!std::isfinite(value)) {
      FormatSpec no_zero = spec;
      no_zero.flags.erase(std::remove(no_zero.flags.begin(), no_zero.flags.end(), '0'),
                          no_zero.flags.end());
      AppendPadded(no_zero, sign, body, out);
      return Status::OK();
    }
  }
  if ((lower == 's' || lower == 'b') && spec.precision >= 0) {
    body.resize(ByteOffsetOfChar(body, spec.precision));
  }
  if (upper) {
    MapChars(std::string(body), ToUpper, &body);
  }
  AppendPadded(spec, sign, body, out);
  return Status::OK();
}

// format_string(strfmt, obj, ...) / printf: null only when strfmt is.
Result<BoundExprPtr> BindFormatString(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, SIZE_MAX));
  args[0] = CastTo(std::move(args[0]), DataType::String());
  for (size_t k = 1; k < args.size(); ++k) {
    if (args[k]->Type()->IsNested()) {
      args[k] = CastTo(std::move(args[k]), DataType::String());
    }
  }
  std::optional<std::vector<FormatSpec>> constant;
  if (args[0]->GetOp() == Op::kLiteral && !args[0]->Literal().IsNull()) {
    auto parsed = ParseFormat(args[0]->Literal().BytesValue());
    if (!parsed.ok()) {
      return CallError(call, parsed.status().Message());
    }
    constant = std::move(*parsed);
  }
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([constant](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                        const EvalContext& context) -> Result<ColumnPtr> {
        Status status;
        const std::vector<ColumnPtr> format = {a[0]};
        auto result = BuildBytes(c.Type(), format, context.pool, [&](int64_t i, std::string* out) {
          std::vector<FormatSpec> parsed;
          if (!constant) {
            auto row_specs = ParseFormat(a[0]->BytesAt(i));
            if (!row_specs.ok()) {
              status = row_specs.status();
              return false;
            }
            parsed = std::move(*row_specs);
          }
          for (const FormatSpec& spec : constant ? *constant : parsed) {
            if (spec.conversion == 0) {
              out->append(spec.text);
            } else if (spec.conversion == '%') {
              AppendPadded(spec, "", "%", out);
            } else if (spec.conversion == 'n') {
              out->push_back('\n');
            } else if (static_cast<size_t>(spec.argument) + 1 >= a.size()) {
              status = Status::InvalidArgument(fmt::format(
                  "MissingFormatArgumentException: Format specifier '%{}{}{}'", spec.flags,
                  spec.width >= 0 ? fmt::format("{}", spec.width) : "", spec.conversion));
              return false;
            } else {
              status = AppendConversion(spec, a[static_cast<size_t>(spec.argument) + 1].get(), i,
                                        context, out);
              if (!status.ok()) {
                return false;
              }
            }
          }
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

}  // namespace

void AddFormatStringFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"format_string", BindFormatString}, {"printf", BindFormatString}});
}

}  // namespace tributary::expr
