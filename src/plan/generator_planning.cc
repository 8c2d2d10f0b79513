// Generators (Spark's table-generating functions) planned over an input: explode, posexplode,
// inline, stack and json_tuple, with their _outer forms, for a SELECT list and for LATERAL VIEW.
// explode and posexplode are a GenerateNode over the collection; inline is one over the array
// of structs, each struct's fields projected as columns; stack(n, v...) is inline over an array
// of n structs built from the values (Spark's StackCoercion types: each column takes the type of
// its first non-null value and null values are cast to it); json_tuple needs no node, one row
// per input row.

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/ascii.h"
#include "expr/coercion.h"
#include "plan/plan_builder.h"

namespace tributary::plan {

namespace {

using expr::Expression;
using expr::Op;

Status GeneratorArgumentCountError(std::string_view name, size_t actual) {
  return Status::InvalidArgument(
      fmt::format("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `{}` requires > 1 parameters but the "
                  "actual number is {}.",
                  name, actual));
}

// stack(n, v1, ..., vk) as `array(named_struct('col0', ..., 'colm', ...), ...)`: n structs of
// ceil(k / n) values each, the missing last values null.
Result<ExprPtr> StackRows(const Expression& call, const LogicalPlan& input) {
  const std::vector<ExprPtr>& args = call.Children();
  if (args.size() < 2) {
    return GeneratorArgumentCountError("stack", args.size());
  }
  const Expression& count = *args[0];
  if (count.GetOp() != Op::kLiteral || count.Literal().IsNull() ||
      count.Literal().Type()->Id() != columnar::TypeId::kInt32) {
    return Status::InvalidArgument(fmt::format(
        "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"{}\" due to data type "
        "mismatch: the first parameter of stack requires a constant INT (the number of rows), "
        "not \"{}\".",
        call.ToString(), count.ToString()));
  }
  const int64_t rows = count.Literal().IntValue();
  if (rows <= 0) {
    return Status::InvalidArgument(
        fmt::format("stack needs a positive number of rows, not {}: '{}'", rows, call.SqlText()));
  }
  const size_t values = args.size() - 1;
  const size_t fields =
      static_cast<size_t>(std::ceil(static_cast<double>(values) / static_cast<double>(rows)));
  std::vector<columnar::DataTypePtr> types(values);
  for (size_t i = 0; i < values; ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*args[i + 1], input));
    types[i] = bound->Type();
  }
  std::vector<columnar::DataTypePtr> column_types(fields, columnar::DataType::Null());
  for (size_t j = 0; j < fields; ++j) {
    for (size_t i = j; i < values; i += fields) {
      if (types[i]->Id() != columnar::TypeId::kNull) {
        column_types[j] = types[i];
        break;
      }
    }
    for (size_t i = j; i < values; i += fields) {
      if (types[i]->Id() != columnar::TypeId::kNull && !types[i]->Equals(*column_types[j])) {
        return Status::InvalidArgument(fmt::format(
            "[DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES] Cannot resolve \"{}\" due to data type "
            "mismatch: The data type of the column ({}) do not have the same type: \"{}\" ({}) "
            "<> \"{}\" ({}).",
            call.ToString(), j, AsciiUpper(column_types[j]->ToString()), j + 1,
            AsciiUpper(types[i]->ToString()), i + 1));
      }
    }
  }
  std::vector<ExprPtr> structs;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<ExprPtr> named;
    for (size_t j = 0; j < fields; ++j) {
      const size_t i = static_cast<size_t>(r) * fields + j;
      ExprPtr value = i < values ? args[i + 1] : expr::Lit(expr::Scalar::Null(column_types[j]));
      if (i < values && types[i]->Id() == columnar::TypeId::kNull &&
          column_types[j]->Id() != columnar::TypeId::kNull) {
        value = expr::Cast(std::move(value), column_types[j]);
      }
      named.push_back(expr::Lit(expr::Scalar::String(fmt::format("col{}", j))));
      named.push_back(std::move(value));
    }
    structs.push_back(expr::Function("named_struct", std::move(named)));
  }
  return expr::Function("array", std::move(structs));
}

bool ContainsGeneratorCall(const Expression& e) {
  return (e.GetOp() == Op::kFunction && expr::IsGeneratorFunctionName(e.Name())) ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return ContainsGeneratorCall(*child); });
}

}  // namespace

Result<LogicalPlanPtr> Generate(LogicalPlanPtr input, const expr::Expression& call, bool outer,
                                const std::vector<std::string>& names,
                                const std::string& qualifier) {
  std::string name = AsciiLower(call.Name());
  if (call.GetOp() != Op::kFunction || !expr::IsGeneratorFunctionName(name)) {
    return Status::InvalidArgument(fmt::format(
        "[UNSUPPORTED_GENERATOR.NOT_GENERATOR] The generator is not supported: `{}` is expected "
        "to be a generator.",
        call.GetOp() == Op::kFunction ? name : call.ToString()));
  }
  for (const ExprPtr& argument : call.Children()) {
    if (ContainsGeneratorCall(*argument)) {
      return Status::InvalidArgument(fmt::format(
          "[UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS] The generator is not supported: nested "
          "in expressions \"{}\".",
          call.ToString()));
    }
  }
  if (name.ends_with("_outer")) {
    outer = true;
    name.resize(name.size() - std::string_view("_outer").size());
  }
  const int first = input->Schema()->NumFields();
  LogicalPlanPtr below = input;
  std::vector<BoundExprPtr> generated;
  std::vector<std::string> generated_names;
  if (name == "json_tuple") {
    // One row per input row: a string column c<i> per key, each the key's field (Spark's
    // JsonTuple).
    if (call.Children().size() < 2) {
      return GeneratorArgumentCountError("json_tuple", call.Children().size());
    }
    for (const ExprPtr& argument : call.Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*argument, *input));
      if (bound->Type()->Id() != columnar::TypeId::kString) {
        return Status::InvalidArgument(fmt::format(
            "[DATATYPE_MISMATCH.NON_STRING_TYPE] Cannot resolve \"{}\" due to data type "
            "mismatch: all arguments of the function `json_tuple` must be strings.",
            call.ToString()));
      }
    }
    for (size_t k = 1; k < call.Children().size(); ++k) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          BoundExprPtr field,
          Resolve(*expr::Function("json_tuple_field", {call.Child(0), call.Child(k)}), *input));
      generated.push_back(std::move(field));
      generated_names.push_back(fmt::format("c{}", k - 1));
    }
  } else if (name == "explode" || name == "posexplode") {
    if (call.Children().size() != 1) {
      return Status::InvalidArgument(
          fmt::format("{} takes one array or map argument: '{}'", name, call.SqlText()));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr collection, Resolve(*call.Child(0), *input));
    const columnar::DataType& type = *collection->Type();
    if (type.Id() != columnar::TypeId::kArray && type.Id() != columnar::TypeId::kMap) {
      return Status::InvalidArgument(fmt::format(
          "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"{}\" due to data type "
          "mismatch: {} takes an array or a map, not {}.",
          call.ToString(), name, type.ToString()));
    }
    exec::GenerateSpec spec;
    spec.collection = collection;
    spec.outer = outer;
    spec.with_position = name == "posexplode";
    std::vector<columnar::Field> fields;
    if (spec.with_position) {
      fields.emplace_back("pos", columnar::DataType::Int32(), spec.outer);
    }
    if (type.Id() == columnar::TypeId::kArray) {
      fields.emplace_back("col", type.ElementType(), true);
    } else {
      fields.emplace_back("key", type.KeyType(), spec.outer);
      fields.emplace_back("value", type.ValueType(), true);
    }
    for (const columnar::Field& field : fields) {
      generated_names.push_back(field.Name());
    }
    below = std::make_shared<GenerateNode>(input, std::move(spec), std::move(fields));
    for (size_t g = 0; g < generated_names.size(); ++g) {
      generated.push_back(ColumnRef(*below, first + static_cast<int>(g)));
    }
  } else if (name == "inline" || name == "stack") {
    ExprPtr array;
    if (name == "stack") {
      TRIBUTARY_ASSIGN_OR_RAISE(array, StackRows(call, *input));
    } else if (call.Children().size() != 1) {
      return Status::InvalidArgument(
          fmt::format("inline takes one array of structs: '{}'", call.SqlText()));
    } else {
      array = call.Child(0);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr collection, Resolve(*array, *input));
    const columnar::DataType& type = *collection->Type();
    if (type.Id() != columnar::TypeId::kArray ||
        type.ElementType()->Id() != columnar::TypeId::kStruct) {
      return Status::InvalidArgument(fmt::format(
          "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve \"{}\" due to data type "
          "mismatch: the first parameter requires the \"ARRAY<STRUCT>\" type, however \"{}\" has "
          "the type \"{}\".",
          call.ToString(), call.Child(0)->ToString(), AsciiUpper(type.ToString())));
    }
    exec::GenerateSpec spec;
    spec.collection = collection;
    spec.outer = outer;
    const columnar::DataTypePtr element = type.ElementType();
    below = std::make_shared<GenerateNode>(
        input, std::move(spec),
        std::vector<columnar::Field>{columnar::Field("col", element, true)});
    // Each field by its position (names may repeat), bound directly over the struct column.
    const BoundExprPtr row = ColumnRef(*below, first);
    for (size_t f = 0; f < element->Fields().size(); ++f) {
      const columnar::Field& field = element->Fields()[f];
      generated.push_back(expr::MakeBound(Op::kGetField, field.Type(), {row}, static_cast<int>(f),
                                          expr::Scalar::Null(), field.Name()));
      generated_names.push_back(field.Name());
    }
  } else {
    return Status::NotImplemented(fmt::format("generator {} is not supported", name));
  }
  if (!names.empty() && names.size() != generated_names.size()) {
    std::string listed;
    for (const std::string& alias : names) {
      listed += fmt::format("{}{}", listed.empty() ? "" : ",", alias);
    }
    return Status::InvalidArgument(fmt::format(
        "[UDTF_ALIAS_NUMBER_MISMATCH] The number of aliases supplied in the AS clause does not "
        "match the number of columns output by the UDTF. Expected {} aliases, but got {}.",
        generated_names.size(), listed));
  }
  std::vector<BoundExprPtr> expressions;
  std::vector<std::string> out_names;
  std::vector<std::string> qualifiers;
  for (int i = 0; i < first; ++i) {
    expressions.push_back(ColumnRef(*below, i));
    out_names.push_back(input->Schema()->FieldAt(i).Name());
    qualifiers.push_back(input->Qualifiers()[static_cast<size_t>(i)]);
  }
  for (size_t g = 0; g < generated.size(); ++g) {
    expressions.push_back(std::move(generated[g]));
    out_names.push_back(names.empty() ? generated_names[g] : names[g]);
    qualifiers.push_back(qualifier);
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(std::move(below), std::move(expressions),
                                                      out_names, std::move(qualifiers)));
}

}  // namespace tributary::plan
