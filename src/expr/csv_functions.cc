// CSV functions: from_csv(text, schema[, options]), to_csv(struct[, options]) and the
// inference behind schema_of_csv(text[, options]), after Spark's CSV data source defaults.
//
// A record is one line split on the delimiter (`sep`/`delimiter`, Default: ','):
//   record = field *(delimiter field)
//   field  = plain | '"' *(char | '\' char | '""') '"'
// An empty field (Spark's `nullValue`, Default: "") is null. from_csv reads the fields in order
// into the schema's fields (missing ones are null, extra ones ignored); a value that does not
// fit is null (PERMISSIVE) or an error (FAILFAST). to_csv writes struct fields in order, quoting
// a value that holds the delimiter, a quote or a line break (quotes inside escaped with '\').

#include "expr/csv_functions.h"

#include <charconv>
#include <optional>

#include "columnar/calendar.h"
#include "common/ascii.h"
#include "expr/datetime_pattern.h"
#include "expr/function_kernels.h"
#include "expr/interval_text.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

// Spark's CSV options as from_csv and to_csv use them.
struct CsvOptions {
  char delimiter = ',';
  bool fail_fast = false;
  std::string null_value;
  std::optional<DateTimePattern> timestamp_format;  // null: CAST's parsing on read
  std::optional<DateTimePattern> date_format;
};

Result<CsvOptions> ParseCsvOptions(const Options& options) {
  CsvOptions out;
  for (const auto& [key, value] : options) {
    const std::string name = AsciiLower(key);
    if (name == "sep" || name == "delimiter") {
      if (value.size() != 1) {
        return Status::InvalidArgument(
            fmt::format("the CSV delimiter must be one character, got '{}'", value));
      }
      out.delimiter = value[0];
    } else if (name == "mode") {
      const std::string mode = AsciiUpper(value);
      if (mode != "PERMISSIVE" && mode != "FAILFAST") {
        return Status::InvalidArgument(fmt::format(
            "from_csv() doesn't support the {} mode. Acceptable modes are PERMISSIVE and "
            "FAILFAST.",
            value));
      }
      out.fail_fast = mode == "FAILFAST";
    } else if (name == "nullvalue") {
      out.null_value = value;
    } else if (name == "timestampformat" || name == "dateformat") {
      TRIBUTARY_ASSIGN_OR_RAISE(auto pattern, DateTimePattern::Compile(value));
      (name == "dateformat" ? out.date_format : out.timestamp_format) = std::move(pattern);
    }
  }
  return out;
}

// The fields of one record; a quoted field's text is unquoted. `quoted[i]` tells whether
// field i was quoted (a quoted empty field is an empty string, not null).
void SplitCsv(std::string_view line, char delimiter, std::vector<std::string>* fields,
              std::vector<bool>* quoted) {
  fields->clear();
  quoted->clear();
  size_t i = 0;
  while (true) {
    std::string field;
    bool was_quoted = false;
    if (i < line.size() && line[i] == '"') {
      was_quoted = true;
      ++i;
      while (i < line.size()) {
        if (line[i] == '\\' && i + 1 < line.size()) {
          field.push_back(line[i + 1]);
          i += 2;
        } else if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field.push_back('"');
          i += 2;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          field.push_back(line[i++]);
        }
      }
      while (i < line.size() && line[i] != delimiter) {
        field.push_back(line[i++]);
      }
    } else {
      const size_t end = std::min(line.find(delimiter, i), line.size());
      field.assign(line.substr(i, end - i));
      i = end;
    }
    fields->push_back(std::move(field));
    quoted->push_back(was_quoted);
    if (i >= line.size()) {
      return;
    }
    ++i;  // the delimiter
  }
}

// Appends `text` read as the builder's type; false (and nothing appended) when it does not fit.
bool AppendCsvValue(std::string_view text, const CsvOptions& options, const TimeZone& zone,
                    columnar::ColumnBuilder* builder) {
  const DataType& type = *builder->Type();
  switch (type.Id()) {
    case TypeId::kString:
      builder->AppendBytes(text);
      return true;
    case TypeId::kBoolean: {
      const std::string lower = AsciiLower(text);
      if (lower != "true" && lower != "false") {
        return false;
      }
      builder->AppendBoolean(lower == "true");
      return true;
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t v = 0;
      const int bits = type.ByteWidth() * 8;
      if (!ParseInt64(text, &v) ||
          (bits < 64 && (v < -(int64_t{1} << (bits - 1)) || v >= (int64_t{1} << (bits - 1))))) {
        return false;
      }
      builder->AppendInt(v);
      return true;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      // Java's parseDouble, which Spark uses, ignores surrounding blanks.
      double v = 0;
      if (!ParseDouble(TrimBlanks(text), &v)) {
        return false;
      }
      builder->AppendDouble(v);
      return true;
    }
    case TypeId::kDecimal: {
      columnar::Int128 unscaled = 0;
      if (!ParseDecimal(text, type.Precision(), type.Scale(), &unscaled)) {
        return false;
      }
      builder->AppendDecimal(unscaled);
      return true;
    }
    case TypeId::kDate: {
      int32_t days = 0;
      const bool ok = options.date_format ? options.date_format->ParseDate(text, &days)
                                          : ParseDate(text, &days);
      if (ok) {
        builder->AppendInt(days);
      }
      return ok;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      int64_t micros = 0;
      const bool ntz = type.Id() == TypeId::kTimestampNtz;
      const bool ok = options.timestamp_format
                          ? options.timestamp_format->ParseTimestamp(text, zone, ntz, &micros)
                          : ParseTimestamp(text, zone, ntz, &micros);
      if (ok) {
        builder->AppendInt(micros);
      }
      return ok;
    }
    case TypeId::kYearMonthInterval: {
      int32_t months = 0;
      const bool ok = ParseYearMonthIntervalText(text, &months);
      if (ok) {
        builder->AppendInt(months);
      }
      return ok;
    }
    default:
      return false;
  }
}

class FromCsvFunction final : public EagerFunction {
 public:
  explicit FromCsvFunction(CsvOptions options) : options_(std::move(options)) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& text = *args[0];
    const DataType& type = *call.Type();
    columnar::ColumnBuilder builder(call.Type(), context.pool);
    std::vector<std::string> fields;
    std::vector<bool> quoted;
    for (int64_t i = 0; i < text.Length(); ++i) {
      if (text.IsNull(i)) {
        builder.AppendNull();
        continue;
      }
      SplitCsv(text.BytesAt(i), options_.delimiter, &fields, &quoted);
      for (size_t f = 0; f < type.Fields().size(); ++f) {
        columnar::ColumnBuilder& child = builder.Child(static_cast<int>(f));
        if (f >= fields.size() || (!quoted[f] && fields[f] == options_.null_value)) {
          child.AppendNull();
        } else if (!AppendCsvValue(fields[f], options_, context.session_time_zone, &child)) {
          if (options_.fail_fast) {
            return Status::InvalidArgument(fmt::format(
                "[MALFORMED_RECORD_IN_PARSING] Malformed records are detected in record "
                "parsing: {}. Parse Mode: FAILFAST. To process malformed records as null "
                "result, try setting the option 'mode' as 'PERMISSIVE'.",
                text.BytesAt(i)));
          }
          child.AppendNull();
        }
      }
      builder.AppendStruct();
    }
    return builder.Finish();
  }

 private:
  CsvOptions options_;
};

// The options after the leading arguments: name and value string literals in turn (the SQL
// layer flattens map('sep', '|', ...) into them).
Result<Options> LiteralOptions(const Expression& call, const std::vector<BoundExprPtr>& args,
                               size_t first) {
  Options options;
  for (size_t i = first; i + 1 < args.size(); i += 2) {
    for (size_t k = i; k < i + 2; ++k) {
      if (args[k]->GetOp() != Op::kLiteral || args[k]->Literal().IsNull() ||
          args[k]->Type()->Id() != TypeId::kString) {
        return CallError(call, "the options must be a map of string literals");
      }
    }
    options.emplace_back(args[i]->Literal().BytesValue(), args[i + 1]->Literal().BytesValue());
  }
  return options;
}

Result<BoundExprPtr> BindFromCsv(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.size() < 2 || args.size() % 2 != 0) {
    return CallError(call, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `from_csv` "
                                       "requires [2, 3] parameters but the actual number is {}.",
                                       args.size()));
  }
  const BoundExpression& schema = *args[1];
  if (schema.GetOp() != Op::kLiteral || !schema.Literal().IsNull() ||
      schema.Type()->Id() != TypeId::kStruct) {
    return CallError(call, fmt::format("[INVALID_SCHEMA] The expression \"{}\" is not a valid "
                                       "schema string.",
                                       schema.ToString()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(Options raw, LiteralOptions(call, args, 2));
  auto options = ParseCsvOptions(raw);
  if (!options.ok()) {
    return CallError(call, options.status().Message());
  }
  DataTypePtr type = schema.Type();
  args.resize(1);
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          std::make_shared<const FromCsvFunction>(std::move(*options)));
}

// ---- to_csv --------------------------------------------------------------------------------

class ToCsvFunction final : public EagerFunction {
 public:
  ToCsvFunction(char delimiter, std::string null_value, DateTimePattern timestamp_format,
                std::optional<DateTimePattern> date_format)
      : delimiter_(delimiter),
        null_value_(std::move(null_value)),
        timestamp_format_(std::move(timestamp_format)),
        date_format_(std::move(date_format)) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& value = *args[0];
    return BuildBytes(call.Type(), args, context.pool, [&](int64_t i, std::string* out) {
      std::string text;
      for (int f = 0; f < value.NumChildren(); ++f) {
        out->append(f > 0 ? std::string_view(&delimiter_, 1) : std::string_view());
        const Column& field = *value.Child(f);
        if (field.IsNull(i)) {
          out->append(null_value_);
          continue;
        }
        text.clear();
        FieldText(field, i, context, &text);
        AppendQuoted(text, out);
      }
      return true;
    });
  }

 private:
  void FieldText(const Column& field, int64_t i, const EvalContext& context,
                 std::string* text) const {
    const TypeId id = field.Type()->Id();
    if (id == TypeId::kTimestamp || id == TypeId::kTimestampNtz) {
      timestamp_format_.Format(field.Values<int64_t>()[i],
                               id == TypeId::kTimestamp ? context.session_time_zone : TimeZone(),
                               text);
      if (id == TypeId::kTimestampNtz && text->ends_with("Z")) {
        text->pop_back();
      }
    } else if (id == TypeId::kDate && date_format_) {
      date_format_->Format(field.Values<int32_t>()[i] * columnar::kMicrosPerDay, TimeZone(), text);
    } else {
      AppendCastString(field, i, context, text);
    }
  }

  void AppendQuoted(std::string_view text, std::string* out) const {
    const bool quote =
        text.find_first_of(std::string{delimiter_, '"', '\n', '\r'}) != std::string_view::npos ||
        (text.empty() && null_value_.empty());
    if (!quote) {
      out->append(text);
      return;
    }
    out->push_back('"');
    for (char c : text) {
      if (c == '"' || c == '\\') {
        out->push_back('\\');
      }
      out->push_back(c);
    }
    out->push_back('"');
  }

  char delimiter_;
  std::string null_value_;
  DateTimePattern timestamp_format_;
  std::optional<DateTimePattern> date_format_;
};

Result<BoundExprPtr> BindToCsv(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() || args.size() % 2 == 0) {
    return CallError(call, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `to_csv` "
                                       "requires [1, 2] parameters but the actual number is {}.",
                                       args.empty() ? 0 : 2));
  }
  const DataType& type = *args[0]->Type();
  if (type.Id() != TypeId::kStruct) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] The first "
                                       "parameter requires the \"STRUCT\" type, however \"{}\" "
                                       "has the type \"{}\".",
                                       args[0]->ToString(), AsciiUpper(type.ToString())));
  }
  for (const columnar::Field& field : type.Fields()) {
    if (field.Type()->IsNested()) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE] The input "
                                         "of `to_csv` can't be \"{}\" type data.",
                                         AsciiUpper(field.Type()->ToString())));
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(Options raw, LiteralOptions(call, args, 1));
  std::string timestamp_pattern = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";
  for (const auto& [key, value] : raw) {
    if (AsciiLower(key) == "timestampformat") {
      timestamp_pattern = value;
    }
  }
  auto options = ParseCsvOptions(raw);
  if (!options.ok()) {
    return CallError(call, options.status().Message());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto timestamp_format, DateTimePattern::Compile(timestamp_pattern));
  args.resize(1);
  return MakeFunctionCall(call.Name(), DataType::String(), std::move(args),
                          std::make_shared<const ToCsvFunction>(
                              options->delimiter, options->null_value, std::move(timestamp_format),
                              std::move(options->date_format)));
}

// The narrowest type reading `text`, in CSVInferSchema's order; null for an empty field.
DataTypePtr InferCsvField(std::string_view text) {
  if (text.empty()) {
    return nullptr;
  }
  int64_t integer = 0;
  if (ParseInt64(text, &integer)) {
    return integer >= INT32_MIN && integer <= INT32_MAX ? DataType::Int32() : DataType::Int64();
  }
  double real = 0;
  if (ParseDouble(text, &real)) {
    return DataType::Float64();
  }
  const std::string lower = AsciiLower(text);
  if (lower == "true" || lower == "false") {
    return DataType::Boolean();
  }
  int32_t days = 0;
  // A date only as yyyy-MM-dd exactly (Spark's default dateFormat, preferDate).
  if (text.size() == 10 && text[4] == '-' && text[7] == '-' && ParseDate(text, &days)) {
    return DataType::Date();
  }
  int64_t micros = 0;
  if (text.find(':') != std::string_view::npos &&
      ParseTimestamp(text, TimeZone(), /*ntz=*/false, &micros)) {
    return DataType::Timestamp();
  }
  return DataType::String();
}

}  // namespace

Result<columnar::DataTypePtr> InferCsvSchema(std::string_view text, const Options& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(CsvOptions csv, ParseCsvOptions(options));
  std::vector<std::string> fields;
  std::vector<bool> quoted;
  SplitCsv(text, csv.delimiter, &fields, &quoted);
  std::vector<columnar::Field> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    DataTypePtr type = InferCsvField(fields[i]);
    out.emplace_back(fmt::format("_c{}", i), type != nullptr ? type : DataType::String());
  }
  return DataType::Struct(std::move(out));
}

void AddCsvFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"from_csv", BindFromCsv}, {"to_csv", BindToCsv}});
}

}  // namespace tributary::expr
