// JSON functions: get_json_object(json, path), from_json(json, schema), to_json(value),
// json_array_length(json), json_object_keys(json) and json_tuple_field(json, key), the column
// the planner makes of each key of the json_tuple generator.
//
// JSON text is parsed with simdjson's DOM parser, one parser per batch. Like Spark, malformed
// JSON is not an error: get_json_object returns null, from_json returns null (the record is
// unreadable as a whole) and a value that does not fit its field's type becomes null.
//
// get_json_object paths (Spark's subset of JSONPath):
//   path  = "$" *step
//   step  = "." name | "['" name "']" | "[" digits "]" | "[*]"
// A string result is returned without quotes, anything else as minified JSON; with [*] the
// matches form a JSON array (a single match is returned alone, as Spark does).
//
// to_json writes struct fields in order leaving out null ones (Spark's ignoreNullFields),
// maps as objects, dates as "yyyy-MM-dd", timestamps as "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" in the
// session zone, binary as base64, NaN and infinities as strings.

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "columnar/calendar.h"
#include "columnar/canonical_json.h"
#include "common/ascii.h"
#include "expr/datetime_pattern.h"
#include "expr/function_kernels.h"
#include "expr/interval_text.h"
#include "expr/temporal_parsing.h"

namespace tributary::expr {

namespace {

using simdjson::dom::element;

// ---- get_json_object ---------------------------------------------------------------------

struct PathStep {
  enum class Kind : uint8_t { kField, kIndex, kWildcard } kind;
  std::string name;
  size_t index = 0;
};

// The steps of a Spark JSON path, or nullopt when it is not one (the result is then null).
std::optional<std::vector<PathStep>> ParseJsonPath(std::string_view path) {
  if (path.empty() || path[0] != '$') {
    return std::nullopt;
  }
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = ++i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') {
        ++end;
      }
      if (end == i) {
        return std::nullopt;
      }
      if (path.substr(i, end - i) == "*") {
        steps.push_back({PathStep::Kind::kWildcard, {}, 0});
      } else {
        steps.push_back({PathStep::Kind::kField, std::string(path.substr(i, end - i)), 0});
      }
      i = end;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      const std::string_view inside = path.substr(i + 1, close - i - 1);
      if (inside == "*") {
        steps.push_back({PathStep::Kind::kWildcard, {}, 0});
      } else if (inside.size() >= 2 && inside.front() == '\'' && inside.back() == '\'') {
        steps.push_back(
            {PathStep::Kind::kField, std::string(inside.substr(1, inside.size() - 2)), 0});
      } else {
        size_t index = 0;
        if (inside.empty()) {
          return std::nullopt;
        }
        for (char c : inside) {
          if (c < '0' || c > '9' || index > (SIZE_MAX - 9) / 10) {
            return std::nullopt;
          }
          index = index * 10 + static_cast<size_t>(c - '0');
        }
        steps.push_back({PathStep::Kind::kIndex, {}, index});
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

void CollectMatches(element value, const std::vector<PathStep>& steps, size_t step,
                    std::vector<element>* out) {
  if (step == steps.size()) {
    out->push_back(value);
    return;
  }
  const PathStep& s = steps[step];
  switch (s.kind) {
    case PathStep::Kind::kField: {
      simdjson::dom::object object;
      element child;
      if (value.get(object) == simdjson::SUCCESS &&
          object.at_key(s.name).get(child) == simdjson::SUCCESS) {
        CollectMatches(child, steps, step + 1, out);
      }
      return;
    }
    case PathStep::Kind::kIndex: {
      simdjson::dom::array array;
      element child;
      if (value.get(array) == simdjson::SUCCESS &&
          array.at(s.index).get(child) == simdjson::SUCCESS) {
        CollectMatches(child, steps, step + 1, out);
      }
      return;
    }
    case PathStep::Kind::kWildcard: {
      simdjson::dom::array array;
      if (value.get(array) == simdjson::SUCCESS) {
        for (element child : array) {
          CollectMatches(child, steps, step + 1, out);
        }
      }
      return;
    }
  }
}

void AppendJsonResult(element value, std::string* out) {
  std::string_view text;
  if (value.get(text) == simdjson::SUCCESS) {
    out->append(text);
  } else {
    out->append(simdjson::minify(value));
  }
}

class GetJsonObjectFunction final : public EagerFunction {
 public:
  explicit GetJsonObjectFunction(std::optional<std::vector<PathStep>> constant_path)
      : constant_path_(std::move(constant_path)) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    simdjson::dom::parser parser;
    return BuildBytes(call.Type(), args, context.pool, [&](int64_t i, std::string* out) {
      const std::optional<std::vector<PathStep>> row_path =
          constant_path_ ? std::nullopt : ParseJsonPath(args[1]->BytesAt(i));
      const auto& path = constant_path_ ? constant_path_ : row_path;
      if (!path) {
        return false;
      }
      const std::string_view json = args[0]->BytesAt(i);
      element root;
      if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS) {
        return false;
      }
      std::vector<element> matches;
      CollectMatches(root, *path, 0, &matches);
      bool wildcard = false;
      for (const PathStep& step : *path) {
        wildcard = wildcard || step.kind == PathStep::Kind::kWildcard;
      }
      if (matches.empty()) {
        return false;
      }
      if (!wildcard || matches.size() == 1) {
        if (matches[0].is_null()) {
          return false;
        }
        AppendJsonResult(matches[0], out);
        return true;
      }
      out->push_back('[');
      for (size_t k = 0; k < matches.size(); ++k) {
        out->append(k > 0 ? "," : "");
        out->append(simdjson::minify(matches[k]));
      }
      out->push_back(']');
      return true;
    });
  }

 private:
  std::optional<std::vector<PathStep>> constant_path_;
};

Result<BoundExprPtr> BindGetJsonObject(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  std::optional<std::vector<PathStep>> path;
  if (args[1]->GetOp() == Op::kLiteral && !args[1]->Literal().IsNull()) {
    path = ParseJsonPath(args[1]->Literal().BytesValue());
    if (!path) {
      return CallError(call, "invalid JSON path " + args[1]->Literal().ToString() +
                                 " (supported: $, .name, ['name'], [index], [*])");
    }
  }
  return MakeFunctionCall(call.Name(), DataType::String(), std::move(args),
                          std::make_shared<const GetJsonObjectFunction>(std::move(path)));
}

// ---- json_tuple ------------------------------------------------------------------------------

// One column of json_tuple(json, k0, k1, ...): the planner turns the generator into one
// json_tuple_field(json, k) per key, named c0, c1, ... as Spark names them. The value of the
// top-level field `key`: a string without quotes, anything else as minified JSON; null for a
// missing field, a JSON null, a null key, or text that is not a JSON object.
Result<BoundExprPtr> BindJsonTupleField(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  for (const BoundExprPtr& arg : args) {
    const TypeId id = arg->Type()->Id();
    if (id != TypeId::kString && id != TypeId::kNull) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.NON_STRING_TYPE] all arguments of "
                                         "the function json_tuple must be strings, got {}",
                                         AsciiUpper(arg->Type()->ToString())));
    }
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a, MemoryPool* pool) {
        simdjson::dom::parser parser;
        return BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view json = a[0]->BytesAt(i);
          simdjson::dom::object object;
          element value;
          if (parser.parse(json.data(), json.size()).get(object) != simdjson::SUCCESS ||
              object.at_key(a[1]->BytesAt(i)).get(value) != simdjson::SUCCESS || value.is_null()) {
            return false;
          }
          AppendJsonResult(value, out);
          return true;
        });
      }));
}

// ---- from_json -----------------------------------------------------------------------------

// How from_json reads values: the session (its time zone) and the `timestampFormat` and
// `dateFormat` options (null: Spark's default parsing, as CAST does).
struct JsonConversion {
  const EvalContext& context;
  const DateTimePattern* timestamp_format = nullptr;
  const DateTimePattern* date_format = nullptr;
};

// Appends the JSON `value` converted to the builder's type; null where it does not fit, which
// sets `*mismatch` (when given).
void AppendJson(element value, const JsonConversion& conversion, columnar::ColumnBuilder* builder,
                bool* mismatch = nullptr);

// A null where a value did not fit.
void AppendMisfit(columnar::ColumnBuilder* builder, bool* mismatch) {
  builder->AppendNull();
  if (mismatch != nullptr) {
    *mismatch = true;
  }
}

void AppendJsonValue(element value, const JsonConversion& conversion,
                     columnar::ColumnBuilder* builder, bool* mismatch) {
  const DataType& type = *builder->Type();
  switch (type.Id()) {
    case TypeId::kBoolean: {
      bool b = false;
      value.get(b) == simdjson::SUCCESS ? builder->AppendBoolean(b)
                                        : AppendMisfit(builder, mismatch);
      return;
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t v = 0;
      const int bits = type.ByteWidth() * 8;
      const bool fits =
          value.get(v) == simdjson::SUCCESS &&
          (bits == 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1))));
      fits ? builder->AppendInt(v) : AppendMisfit(builder, mismatch);
      return;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double v = 0;
      std::string_view text;
      // A number, or the strings Spark reads as NaN and the infinities.
      const bool fits = value.get(v) == simdjson::SUCCESS ||
                        (value.get(text) == simdjson::SUCCESS && ParseDouble(text, &v) &&
                         (text == "NaN" || text.find("Infinity") != std::string_view::npos));
      if (fits) {
        builder->AppendDouble(v);
      } else {
        AppendMisfit(builder, mismatch);
      }
      return;
    }
    case TypeId::kDecimal: {
      Int128 unscaled = 0;
      const bool number = value.is_number();
      number&& ParseDecimal(simdjson::minify(value), type.Precision(), type.Scale(), &unscaled)
          ? builder->AppendDecimal(unscaled)
          : AppendMisfit(builder, mismatch);
      return;
    }
    case TypeId::kString: {
      std::string_view text;
      if (value.get(text) == simdjson::SUCCESS) {
        builder->AppendBytes(text);
      } else {
        builder->AppendBytes(simdjson::minify(value));
      }
      return;
    }
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      std::string_view text;
      int32_t days = 0;
      int64_t micros = 0;
      if (value.get(text) != simdjson::SUCCESS) {
        AppendMisfit(builder, mismatch);
      } else if (type.Id() == TypeId::kDate) {
        const bool ok = conversion.date_format != nullptr
                            ? conversion.date_format->ParseDate(text, &days)
                            : ParseDate(text, &days);
        ok ? builder->AppendInt(days) : AppendMisfit(builder, mismatch);
      } else {
        const TimeZone& zone = conversion.context.session_time_zone;
        const bool ntz = type.Id() == TypeId::kTimestampNtz;
        const bool ok = conversion.timestamp_format != nullptr
                            ? conversion.timestamp_format->ParseTimestamp(text, zone, ntz, &micros)
                            : ParseTimestamp(text, zone, ntz, &micros);
        ok ? builder->AppendInt(micros) : AppendMisfit(builder, mismatch);
      }
      return;
    }
    case TypeId::kYearMonthInterval: {
      // The text to_json writes (INTERVAL '1-2' YEAR TO MONTH) or "[+|-]y-m", as Spark's
      // JacksonParser casts a string to the interval.
      std::string_view text;
      int32_t months = 0;
      if (value.get(text) == simdjson::SUCCESS && ParseYearMonthIntervalText(text, &months)) {
        builder->AppendInt(months);
      } else {
        AppendMisfit(builder, mismatch);
      }
      return;
    }
    case TypeId::kStruct: {
      simdjson::dom::object object;
      if (value.get(object) != simdjson::SUCCESS) {
        AppendMisfit(builder, mismatch);
        return;
      }
      for (size_t f = 0; f < type.Fields().size(); ++f) {
        element field;
        auto& child = builder->Child(static_cast<int>(f));
        if (object.at_key(type.Fields()[f].Name()).get(field) == simdjson::SUCCESS) {
          AppendJson(field, conversion, &child, mismatch);
        } else {
          child.AppendNull();
        }
      }
      builder->AppendStruct();
      return;
    }
    case TypeId::kArray: {
      simdjson::dom::array array;
      if (value.get(array) != simdjson::SUCCESS) {
        AppendMisfit(builder, mismatch);
        return;
      }
      for (element item : array) {
        AppendJson(item, conversion, &builder->Child(0), mismatch);
      }
      builder->AppendArray();
      return;
    }
    case TypeId::kMap: {
      simdjson::dom::object object;
      if (value.get(object) != simdjson::SUCCESS) {
        AppendMisfit(builder, mismatch);
        return;
      }
      for (auto [key, item] : object) {
        builder->Child(0).AppendBytes(key);
        AppendJson(item, conversion, &builder->Child(1), mismatch);
      }
      builder->AppendMap();
      return;
    }
    default:
      AppendMisfit(builder, mismatch);
      return;
  }
}

void AppendJson(element value, const JsonConversion& conversion, columnar::ColumnBuilder* builder,
                bool* mismatch) {
  if (value.is_null()) {
    builder->AppendNull();
    return;
  }
  AppendJsonValue(value, conversion, builder, mismatch);
}

// from_json's options (Spark's `mode` and `columnNameOfCorruptRecord`, and Auto Loader's
// `rescuedDataColumn`), resolved against the result struct's fields.
struct FromJsonOptions {
  bool fail_fast = false;
  int corrupt_index = -1;  // the string field taking a malformed record's text, or -1
  int rescued_index = -1;  // the rescued-data field, or -1
  std::optional<DateTimePattern> timestamp_format;  // `timestampFormat`
  std::optional<DateTimePattern> date_format;       // `dateFormat`
  bool Plain() const { return !fail_fast && corrupt_index < 0 && rescued_index < 0; }
};

class FromJsonFunction final : public EagerFunction {
 public:
  explicit FromJsonFunction(FromJsonOptions options) : options_(std::move(options)) {}

  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    simdjson::dom::parser parser;
    const Column& json = *args[0];
    const JsonConversion conversion{
        context, options_.timestamp_format ? &*options_.timestamp_format : nullptr,
        options_.date_format ? &*options_.date_format : nullptr};
    columnar::ColumnBuilder builder(call.Type(), context.pool);
    const DataType& type = *call.Type();
    // An array or map schema: a value that does not fit makes the whole row null (Spark
    // fails the record), so those rows are marked and nulled once the column is built.
    std::vector<int64_t> failed_rows;
    std::string rescued;
    for (int64_t i = 0; i < json.Length(); ++i) {
      if (json.IsNull(i)) {
        builder.AppendNull();
        continue;
      }
      element root;
      const std::string_view text = json.BytesAt(i);
      const bool parsed = parser.parse(text.data(), text.size()).get(root) == simdjson::SUCCESS;
      if (type.Id() != TypeId::kStruct) {
        bool mismatch = !parsed;
        if (!parsed) {
          builder.AppendNull();
        } else if (type.Id() == TypeId::kArray && type.ElementType()->Id() == TypeId::kStruct &&
                   root.is_object()) {
          // One object read as an array of structs is that array of one, as Spark reads it.
          AppendJson(root, conversion, &builder.Child(0), &mismatch);
          builder.AppendArray();
        } else {
          AppendJson(root, conversion, &builder, &mismatch);
        }
        if (mismatch && options_.fail_fast) {
          return MalformedError(text);
        }
        if (mismatch && parsed) {
          failed_rows.push_back(i);
        }
        continue;
      }
      if (options_.Plain()) {
        parsed ? AppendJson(root, conversion, &builder) : builder.AppendNull();
        continue;
      }
      simdjson::dom::object object;
      if (!parsed || root.get(object) != simdjson::SUCCESS) {
        TRIBUTARY_RETURN_NOT_OK(AppendMalformed(text, &builder));
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(AppendRecord(object, text, conversion, &builder, &rescued));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr result, builder.Finish());
    if (failed_rows.empty()) {
      return result;
    }
    const int64_t n = result->Length();
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), context.pool));
    uint8_t* valid = validity->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      columnar::SetBitTo(valid, i, result->IsValid(i));
    }
    for (int64_t row : failed_rows) {
      columnar::SetBitTo(valid, row, false);
    }
    return Column::Make(result->Type(), n, std::move(validity), result->ValuesBuffer(),
                        result->OffsetsBuffer(), result->Children());
  }

 private:
  // A record that is not a JSON object: FAILFAST's error, else every field null but the
  // corrupt-record field (the text) or, without one, the rescued-data field.
  Status AppendMalformed(std::string_view text, columnar::ColumnBuilder* builder) const {
    if (options_.fail_fast) {
      return MalformedError(text);
    }
    const DataType& type = *builder->Type();
    for (size_t f = 0; f < type.Fields().size(); ++f) {
      columnar::ColumnBuilder& child = builder->Child(static_cast<int>(f));
      if (static_cast<int>(f) == options_.corrupt_index) {
        child.AppendBytes(text);
      } else if (static_cast<int>(f) == options_.rescued_index && options_.corrupt_index < 0) {
        std::string rescued = "{";
        columnar::AppendJsonString("_corrupt_record", &rescued);
        rescued += ':';
        columnar::AppendJsonString(text, &rescued);
        rescued += '}';
        child.AppendBytes(rescued);
      } else {
        child.AppendNull();
      }
    }
    builder->AppendStruct();
    return Status::OK();
  }

  // An object: each data field converted; with a rescued-data field, the fields outside the
  // schema and those whose value does not fit go there as JSON; without one, a value that does
  // not fit makes the record malformed (FAILFAST's error, or its text in the corrupt-record
  // field while the fields that fit keep their values, as Spark's PERMISSIVE mode).
  Status AppendRecord(const simdjson::dom::object& object, std::string_view text,
                      const JsonConversion& conversion, columnar::ColumnBuilder* builder,
                      std::string* rescued) const {
    const DataType& type = *builder->Type();
    const auto& fields = type.Fields();
    rescued->clear();
    auto rescue = [&](std::string_view name, element value) {
      *rescued += rescued->empty() ? '{' : ',';
      columnar::AppendJsonString(name, rescued);
      *rescued += ':';
      *rescued += simdjson::minify(value);
    };
    bool malformed = false;
    for (size_t f = 0; f < fields.size(); ++f) {
      const int index = static_cast<int>(f);
      if (index == options_.corrupt_index || index == options_.rescued_index) {
        continue;
      }
      columnar::ColumnBuilder& child = builder->Child(index);
      element value;
      if (object.at_key(fields[f].Name()).get(value) != simdjson::SUCCESS) {
        child.AppendNull();
        continue;
      }
      bool mismatch = false;
      AppendJson(value, conversion, &child, &mismatch);
      if (mismatch && options_.rescued_index >= 0) {
        rescue(fields[f].Name(), value);
      } else if (mismatch) {
        malformed = true;
      }
    }
    if (options_.rescued_index >= 0) {
      // Fields the schema does not have by exact name (a name differing only in case
      // included), as Auto Loader rescues them.
      for (const simdjson::dom::key_value_pair member : object) {
        const std::string_view key = member.key;
        const element value = member.value;
        const auto field = std::find_if(fields.begin(), fields.end(),
                                        [&](const auto& f) { return f.Name() == key; });
        const auto position = static_cast<int>(field - fields.begin());
        if (field == fields.end() || position == options_.rescued_index ||
            position == options_.corrupt_index) {
          rescue(key, value);
        }
      }
    }
    if (malformed && options_.fail_fast) {
      return MalformedError(text);
    }
    if (options_.corrupt_index >= 0) {
      columnar::ColumnBuilder& corrupt = builder->Child(options_.corrupt_index);
      malformed ? corrupt.AppendBytes(text) : corrupt.AppendNull();
    }
    if (options_.rescued_index >= 0) {
      columnar::ColumnBuilder& column = builder->Child(options_.rescued_index);
      if (rescued->empty()) {
        column.AppendNull();
      } else {
        *rescued += '}';
        column.AppendBytes(*rescued);
      }
    }
    builder->AppendStruct();
    return Status::OK();
  }

  static Status MalformedError(std::string_view text) {
    constexpr size_t kShown = 200;
    return Status::InvalidArgument(fmt::format(
        "Malformed records are detected in record parsing: {}{}. Parse Mode: FAILFAST. To "
        "process malformed records as null result, try setting the option 'mode' as "
        "'PERMISSIVE'.",
        text.substr(0, kShown), text.size() > kShown ? "..." : ""));
  }

  FromJsonOptions options_;
};

// from_json's options after the schema: name and value string literals in turn (the SQL layer
// flattens map('mode', 'FAILFAST', ...) into them). Names ignore case; options of Spark's JSON
// reader that only tune parsing or inference are accepted and have no effect here.
Result<FromJsonOptions> FromJsonOptionsOf(const Expression& call,
                                          const std::vector<BoundExprPtr>& args,
                                          DataTypePtr* type) {
  FromJsonOptions options;
  if (args.size() % 2 != 0) {
    return CallError(call, "the options must be name, value pairs: map('mode', 'FAILFAST')");
  }
  std::string corrupt_column = "_corrupt_record";
  std::string rescued_column;
  for (size_t i = 2; i < args.size(); i += 2) {
    for (size_t k = i; k < i + 2; ++k) {
      if (args[k]->GetOp() != Op::kLiteral || args[k]->Literal().IsNull() ||
          args[k]->Type()->Id() != TypeId::kString) {
        return CallError(call, "the options must be a map of string literals");
      }
    }
    const std::string name = AsciiLower(args[i]->Literal().BytesValue());
    const std::string& value = args[i + 1]->Literal().BytesValue();
    if (name == "mode") {
      const std::string mode = AsciiUpper(value);
      if (mode == "FAILFAST") {
        options.fail_fast = true;
      } else if (mode != "PERMISSIVE") {
        return CallError(call, fmt::format("from_json() doesn't support the {} mode. Acceptable "
                                           "modes are PERMISSIVE and FAILFAST.",
                                           value));
      }
    } else if (name == "timestampformat" || name == "dateformat") {
      auto pattern = DateTimePattern::Compile(value);
      if (!pattern.ok()) {
        return CallError(call, fmt::format("invalid {} '{}': {}", args[i]->Literal().BytesValue(),
                                           value, pattern.status().Message()));
      }
      (name == "dateformat" ? options.date_format : options.timestamp_format) = std::move(*pattern);
    } else if (name == "columnnameofcorruptrecord") {
      corrupt_column = value;
    } else if (name == "rescueddatacolumn") {
      rescued_column = value;
    }
  }
  if ((*type)->Id() != TypeId::kStruct) {
    if (!rescued_column.empty()) {
      return CallError(call, "rescuedDataColumn needs a struct schema, got " + (*type)->ToString());
    }
    return options;
  }
  std::vector<columnar::Field> fields = (*type)->Fields();
  auto find = [&](const std::string& name) {
    for (size_t f = 0; f < fields.size(); ++f) {
      if (fields[f].Name() == name) {
        return static_cast<int>(f);
      }
    }
    return -1;
  };
  options.corrupt_index = find(corrupt_column);
  if (options.corrupt_index >= 0 &&
      fields[static_cast<size_t>(options.corrupt_index)].Type()->Id() != TypeId::kString) {
    return CallError(
        call, fmt::format("the corrupt record field '{}' must be a string, got {}", corrupt_column,
                          fields[static_cast<size_t>(options.corrupt_index)].Type()->ToString()));
  }
  if (!rescued_column.empty()) {
    if (rescued_column == corrupt_column && options.corrupt_index >= 0) {
      return CallError(call, fmt::format("the rescued data column '{}' cannot also be the corrupt "
                                         "record column",
                                         rescued_column));
    }
    options.rescued_index = find(rescued_column);
    if (options.rescued_index < 0) {
      // As Auto Loader: the rescued-data column comes after the schema's fields.
      fields.emplace_back(rescued_column, DataType::String());
      options.rescued_index = static_cast<int>(fields.size()) - 1;
      *type = DataType::Struct(std::move(fields));
    } else if (fields[static_cast<size_t>(options.rescued_index)].Type()->Id() != TypeId::kString) {
      return CallError(
          call, fmt::format("the rescued data column '{}' must be a string", rescued_column));
    }
  }
  return options;
}

Result<BoundExprPtr> BindFromJson(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.size() < 2) {
    TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  }
  const BoundExpression& schema = *args[1];
  if (schema.GetOp() != Op::kLiteral || !schema.Literal().IsNull() ||
      schema.Type()->Id() == TypeId::kNull || schema.Type()->Id() == TypeId::kString) {
    return CallError(call,
                     "the schema must be given as a type: build the call with "
                     "FromJson(json, type) (the SQL layer parses DDL text into it)");
  }
  DataTypePtr type = schema.Type();
  if (!type->IsNested()) {
    return CallError(call,
                     "the schema must be a struct, array or map type, got " + type->ToString());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(FromJsonOptions options, FromJsonOptionsOf(call, args, &type));
  args.resize(1);
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          std::make_shared<const FromJsonFunction>(std::move(options)));
}

// ---- to_json -------------------------------------------------------------------------------

void AppendBase64(std::string_view bytes, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back(kAlphabet[v & 63]);
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) {
      v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    }
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

class JsonWriter {
 public:
  JsonWriter(const EvalContext& context, const DateTimePattern& timestamp_format,
             const DateTimePattern* date_format)
      : context_(context), timestamp_format_(timestamp_format), date_format_(date_format) {}

  void Value(const Column& column, int64_t i, std::string* out) const {
    if (column.IsNull(i)) {
      out->append("null");
      return;
    }
    const DataType& type = *column.Type();
    switch (type.Id()) {
      case TypeId::kString:
        columnar::AppendJsonString(column.BytesAt(i), out);
        return;
      case TypeId::kBinary: {
        std::string encoded;
        AppendBase64(column.BytesAt(i), &encoded);
        columnar::AppendJsonString(encoded, out);
        return;
      }
      case TypeId::kDate: {
        std::string text;
        if (date_format_ != nullptr) {
          date_format_->Format(column.Values<int32_t>()[i] * columnar::kMicrosPerDay, TimeZone(),
                               &text);
        } else {
          AppendCastString(column, i, context_, &text);
        }
        columnar::AppendJsonString(text, out);
        return;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        std::string text;
        timestamp_format_.Format(
            column.Values<int64_t>()[i],
            type.Id() == TypeId::kTimestamp ? context_.session_time_zone : TimeZone(), &text);
        if (type.Id() == TypeId::kTimestampNtz && text.ends_with("Z")) {
          text.pop_back();
        }
        columnar::AppendJsonString(text, out);
        return;
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        const double v =
            type.Id() == TypeId::kFloat32 ? column.Values<float>()[i] : column.Values<double>()[i];
        std::string text;
        AppendCastString(column, i, context_, &text);
        if (v != v || v == std::numeric_limits<double>::infinity() ||
            v == -std::numeric_limits<double>::infinity()) {
          columnar::AppendJsonString(text, out);
        } else {
          out->append(text);
        }
        return;
      }
      case TypeId::kStruct: {
        out->push_back('{');
        bool first = true;
        for (size_t f = 0; f < type.Fields().size(); ++f) {
          const Column& field = *column.Child(static_cast<int>(f));
          if (field.IsNull(i)) {
            continue;
          }
          out->append(first ? "" : ",");
          first = false;
          columnar::AppendJsonString(type.Fields()[f].Name(), out);
          out->push_back(':');
          Value(field, i, out);
        }
        out->push_back('}');
        return;
      }
      case TypeId::kArray: {
        out->push_back('[');
        const int64_t* offsets = column.Offsets();
        for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
          out->append(j > offsets[i] ? "," : "");
          Value(*column.Child(0), j, out);
        }
        out->push_back(']');
        return;
      }
      case TypeId::kMap: {
        out->push_back('{');
        const int64_t* offsets = column.Offsets();
        for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
          out->append(j > offsets[i] ? "," : "");
          std::string key;
          AppendCastString(*column.Child(0), j, context_, &key);
          columnar::AppendJsonString(key, out);
          out->push_back(':');
          Value(*column.Child(1), j, out);
        }
        out->push_back('}');
        return;
      }
      default:  // booleans, integers, decimals, intervals: their CAST text is valid JSON
        AppendCastString(column, i, context_, out);
        if (type.Id() == TypeId::kDayTimeInterval || type.Id() == TypeId::kYearMonthInterval) {
          // An interval's text is not a JSON value: quote it.
          std::string text;
          AppendCastString(column, i, context_, &text);
          out->resize(out->size() - text.size());
          columnar::AppendJsonString(text, out);
        }
        return;
    }
  }

 private:
  const EvalContext& context_;
  const DateTimePattern& timestamp_format_;
  const DateTimePattern* date_format_;  // null: CAST's yyyy-MM-dd
};

class ToJsonFunction final : public EagerFunction {
 public:
  ToJsonFunction(DateTimePattern timestamp_format, std::optional<DateTimePattern> date_format)
      : timestamp_format_(std::move(timestamp_format)), date_format_(std::move(date_format)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    JsonWriter writer(context, timestamp_format_, date_format_ ? &*date_format_ : nullptr);
    return BuildBytes(call.Type(), args, context.pool, [&](int64_t i, std::string* out) {
      writer.Value(*args[0], i, out);
      return true;
    });
  }

 private:
  DateTimePattern timestamp_format_;
  std::optional<DateTimePattern> date_format_;
};

// to_json(value[, options]): the SQL layer flattens map('timestampFormat', 'dd/MM/yyyy', ...)
// into name and value string literals after the value. Options other than the two formats
// (Spark's `pretty`, `ignoreNullFields`, ...) are accepted and have no effect.
Result<BoundExprPtr> BindToJson(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() || args.size() % 2 == 0) {
    return CallError(call, fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `to_json` "
                                       "requires [1, 2] parameters but the actual number is {}.",
                                       args.empty() ? 0 : 2));
  }
  if (!args[0]->Type()->IsNested()) {
    return CallError(call, "needs a struct, map or array, got " + args[0]->Type()->ToString());
  }
  std::string timestamp_pattern = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";
  std::optional<DateTimePattern> date_format;
  for (size_t i = 1; i < args.size(); i += 2) {
    for (size_t k = i; k < i + 2; ++k) {
      if (args[k]->GetOp() != Op::kLiteral || args[k]->Literal().IsNull() ||
          args[k]->Type()->Id() != TypeId::kString) {
        return CallError(call, "the options must be a map of string literals");
      }
    }
    const std::string name = AsciiLower(args[i]->Literal().BytesValue());
    const std::string& value = args[i + 1]->Literal().BytesValue();
    if (name == "timestampformat") {
      timestamp_pattern = value;
    } else if (name == "dateformat") {
      TRIBUTARY_ASSIGN_OR_RAISE(auto pattern, DateTimePattern::Compile(value));
      date_format = std::move(pattern);
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto format, DateTimePattern::Compile(timestamp_pattern));
  args.resize(1);
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      std::make_shared<const ToJsonFunction>(std::move(format), std::move(date_format)));
}

// ---- json_array_length, json_object_keys ----------------------------------------------------

// Spark's JSON functions take a string only (no implicit cast from numbers).
Status RequireJsonString(const Expression& call, const BoundExpression& arg) {
  const TypeId id = arg.Type()->Id();
  if (id == TypeId::kString || id == TypeId::kNull) {
    return Status::OK();
  }
  return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] The first "
                                     "parameter requires the \"STRING\" type, however \"{}\" has "
                                     "the type \"{}\".",
                                     arg.ToString(), AsciiUpper(arg.Type()->ToString())));
}

// The number of elements of a top-level JSON array; null for malformed JSON or another value.
Result<BoundExprPtr> BindJsonArrayLength(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireJsonString(call, *args[0]));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(
      call.Name(), DataType::Int32(), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        simdjson::dom::parser parser;
        columnar::ColumnBuilder builder(c.Type(), pool);
        const Column& json = *a[0];
        for (int64_t i = 0; i < json.Length(); ++i) {
          simdjson::dom::array array;
          const std::string_view text = json.IsNull(i) ? std::string_view() : json.BytesAt(i);
          if (json.IsNull(i) ||
              parser.parse(text.data(), text.size()).get(array) != simdjson::SUCCESS) {
            builder.AppendNull();
          } else {
            builder.AppendInt(static_cast<int64_t>(array.size()));
          }
        }
        return builder.Finish();
      }));
}

// The keys of a top-level JSON object in document order; null for malformed JSON or another
// value.
Result<BoundExprPtr> BindJsonObjectKeys(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireJsonString(call, *args[0]));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return MakeFunctionCall(
      call.Name(), DataType::Array(DataType::String()), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        simdjson::dom::parser parser;
        columnar::ColumnBuilder builder(c.Type(), pool);
        const Column& json = *a[0];
        for (int64_t i = 0; i < json.Length(); ++i) {
          simdjson::dom::object object;
          const std::string_view text = json.IsNull(i) ? std::string_view() : json.BytesAt(i);
          if (json.IsNull(i) ||
              parser.parse(text.data(), text.size()).get(object) != simdjson::SUCCESS) {
            builder.AppendNull();
            continue;
          }
          for (const simdjson::dom::key_value_pair member : object) {
            builder.Child(0).AppendBytes(member.key);
          }
          builder.AppendArray();
        }
        return builder.Finish();
      }));
}

}  // namespace

ExprPtr FromJson(ExprPtr json, DataTypePtr schema,
                 const std::vector<std::pair<std::string, std::string>>& options) {
  std::vector<ExprPtr> args = {std::move(json), Lit(Scalar::Null(std::move(schema)))};
  for (const auto& [name, value] : options) {
    args.push_back(Lit(Scalar::String(name)));
    args.push_back(Lit(Scalar::String(value)));
  }
  return Function("from_json", std::move(args));
}

void AddJsonFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"get_json_object", BindGetJsonObject},
                               {"from_json", BindFromJson},
                               {"to_json", BindToJson},
                               {"json_array_length", BindJsonArrayLength},
                               {"json_object_keys", BindJsonObjectKeys},
                               {"json_tuple_field", BindJsonTupleField}});
}

}  // namespace tributary::expr
