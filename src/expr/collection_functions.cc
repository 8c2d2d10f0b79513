// Nested values: arr[i] / m[k], element_at, try_element_at, get, size/cardinality/array_size,
// array(...), map(...), struct(...)/named_struct(...), array_contains; the array functions of
// Spark 3.4+ (array_append ... array_max, sort_array, slice, flatten, sequence, arrays_zip,
// shuffle, set operations); the map functions (map_keys ... map_concat). Higher-order
// functions with lambdas are in higher_order_functions.cc.
//
// ANSI semantics as Spark 4: an array index out of range is an error (INVALID_ARRAY_INDEX,
// INVALID_ARRAY_INDEX_IN_ELEMENT_AT), a missing map key gives null, size(NULL) is NULL, map
// keys may be neither null nor repeated (NULL_MAP_KEY, DUPLICATED_MAP_KEY).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <span>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/take.h"
#include "common/ascii.h"
#include "expr/function_kernels.h"
#include "expr/nested_values.h"
#include "expr/row_gather.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::Field;
using columnar::RecordBatch;
using columnar::TypeId;

namespace {

// Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH: the most elements an array may hold.
constexpr int64_t kMaxArrayElements = 2147483632;

// Whether row i of `a` equals row j of `b` (both valid, one orderable type).
bool SameValue(const Column& a, int64_t i, const Column& b, int64_t j) {
  const DataType& type = *a.Type();
  if (type.IsNested()) {
    return CompareValues(a, i, b, j) == 0;
  }
  if (type.IsBinaryLike()) {
    return a.BytesAt(i) == b.BytesAt(j);
  }
  if (type.Id() == TypeId::kFloat64) {
    return a.Values<double>()[i] == b.Values<double>()[j];
  }
  if (type.Id() == TypeId::kFloat32) {
    return a.Values<float>()[i] == b.Values<float>()[j];
  }
  const int width = type.ByteWidth();
  return width > 0 &&
         std::memcmp(a.ValuesBuffer()->data() + i * width, b.ValuesBuffer()->data() + j * width,
                     static_cast<size_t>(width)) == 0;
}

// Gathers one element per row (`element[i]` < 0: null) from the elements child.
Result<ColumnPtr> GatherElements(const DataTypePtr& type, const ColumnPtr& elements,
                                 const std::vector<int64_t>& element, MemoryPool* pool) {
  std::vector<int32_t> source(element.size());
  std::vector<int64_t> source_row(element.size());
  for (size_t i = 0; i < element.size(); ++i) {
    source[i] = element[i] < 0 ? -1 : 0;
    source_row[i] = element[i] < 0 ? 0 : element[i];
  }
  const ColumnPtr sources[] = {elements};
  return Interleave(type, sources, source, source_row, pool);
}

// How an index addresses an array element.
struct IndexRule {
  bool one_based;  // element_at: 1-based, negative counts from the end; else 0-based
  bool safe;       // try_element_at/get: out of range is null instead of an error
};

// Element positions for arr[index], get(arr, index), element_at and try_element_at.
Result<ColumnPtr> ArrayElement(const Column& array, const Column& index, IndexRule rule,
                               MemoryPool* pool) {
  const int64_t n = array.Length();
  const int64_t* offsets = array.Offsets();
  std::vector<int64_t> element(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    if (array.IsNull(i) || index.IsNull(i)) {
      continue;
    }
    const int64_t size = offsets[i + 1] - offsets[i];
    int64_t k = IntAt(index, i);
    if (rule.one_based) {
      // Index 0 fails try_element_at too, as Spark's ElementAt.
      if (k == 0) {
        return Status::InvalidArgument(fmt::format(
            "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 "
            "(the first element has index 1). (row {})",
            i));
      }
      k = k > 0 ? k - 1 : (k < 0 ? size + k : -1);
    }
    if (k < 0 || k >= size) {
      if (rule.safe) {
        continue;
      }
      const std::string_view error_class =
          rule.one_based ? "INVALID_ARRAY_INDEX_IN_ELEMENT_AT" : "INVALID_ARRAY_INDEX";
      const std::string_view alternative =
          rule.one_based ? "`try_element_at`" : "the SQL function `get()`";
      return Status::InvalidArgument(fmt::format(
          "[{}] The index {} is out of bounds. The array has {} elements. Use {} to tolerate "
          "accessing element at invalid index and return NULL instead. (row {})",
          error_class, IntAt(index, i), size, alternative, i));
    }
    element[static_cast<size_t>(i)] = offsets[i] + k;
  }
  return GatherElements(array.Type()->ElementType(), array.Child(0), element, pool);
}

Result<ColumnPtr> MapValue(const Column& map, const Column& key, MemoryPool* pool) {
  const int64_t n = map.Length();
  const int64_t* offsets = map.Offsets();
  const Column& keys = *map.Child(0);
  std::vector<int64_t> element(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i) {
    if (map.IsNull(i) || key.IsNull(i)) {
      continue;
    }
    for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
      if (keys.IsValid(j) && SameValue(keys, j, key, i)) {
        element[static_cast<size_t>(i)] = j;
        break;
      }
    }
  }
  return GatherElements(map.Type()->ValueType(), map.Child(1), element, pool);
}

class ElementAtFunction final : public EagerFunction {
 public:
  explicit ElementAtFunction(IndexRule rule) : rule_(rule) {}
  Result<ColumnPtr> Compute(const BoundExpression&, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    if (args[0]->Type()->Id() == TypeId::kMap) {
      return MapValue(*args[0], *args[1], context.pool);
    }
    return ArrayElement(*args[0], *args[1], rule_, context.pool);
  }

 private:
  IndexRule rule_;
};

// element_at/try_element_at (1-based, arrays or maps) and get (0-based, arrays, null when
// out of range).
Result<BoundExprPtr> BindElementAt(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  const DataType& type = *args[0]->Type();
  const IndexRule rule{call.Name() != "get", call.Name() != "element_at"};
  if (call.Name() == "get" && type.Id() != TypeId::kArray) {
    return CallError(call, "needs an array, got " + type.ToString());
  }
  if (type.Id() == TypeId::kArray) {
    if (!args[1]->Type()->IsInteger() && args[1]->Type()->Id() != TypeId::kNull) {
      return CallError(call, "the index must be an integer, got " + args[1]->Type()->ToString());
    }
    DataTypePtr result = type.ElementType();
    return MakeFunctionCall(call.Name(), std::move(result),
                            {std::move(args[0]), CastTo(std::move(args[1]), DataType::Int32())},
                            std::make_shared<const ElementAtFunction>(rule));
  }
  if (type.Id() == TypeId::kMap) {
    DataTypePtr key_type = ComparisonType(type.KeyType(), args[1]->Type());
    if (key_type == nullptr || !key_type->SameShape(*type.KeyType())) {
      return CallError(call, "the key must be of type " + type.KeyType()->ToString() + ", got " +
                                 args[1]->Type()->ToString());
    }
    DataTypePtr result = type.ValueType();
    return MakeFunctionCall(call.Name(), std::move(result),
                            {std::move(args[0]), CastTo(std::move(args[1]), type.KeyType())},
                            std::make_shared<const ElementAtFunction>(rule));
  }
  return CallError(call, "needs an array or a map, got " + type.ToString());
}

class SizeFunction final : public EagerFunction {
 public:
  Result<ColumnPtr> Compute(const BoundExpression&, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& input = *args[0];
    const int64_t n = input.Length();
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(n * 4, context.pool));
    auto* out = reinterpret_cast<int32_t*>(values->mutable_data());
    if (input.Type()->Id() != TypeId::kNull) {
      const int64_t* offsets = input.Offsets();
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<int32_t>(offsets[i + 1] - offsets[i]);
      }
      return Column::Make(DataType::Int32(), n, input.ValidityBuffer(), std::move(values));
    }
    return Column::MakeAllNull(DataType::Int32(), n, context.pool);
  }
};

Result<BoundExprPtr> BindSize(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const TypeId id = args[0]->Type()->Id();
  if (call.Name() == "array_size" && id == TypeId::kMap) {
    return CallError(call, "needs an array, got " + args[0]->Type()->ToString());
  }
  if (id != TypeId::kArray && id != TypeId::kMap && id != TypeId::kNull) {
    return CallError(call, "needs an array or a map, got " + args[0]->Type()->ToString());
  }
  return MakeFunctionCall(call.Name(), DataType::Int32(), std::move(args),
                          std::make_shared<const SizeFunction>());
}

// The name a user gave a column: the planner resolves columns under internal names
// "<name>#<n>" (unique per plan), which struct field names must not show.
std::string SourceName(const std::string& name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string::npos || hash + 1 == name.size() ||
      name.find_first_not_of("0123456789", hash + 1) != std::string::npos) {
    return name;
  }
  return name.substr(0, hash);
}

// array(...): one array per row of the argument values (array() is empty in every row).
class ArrayFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const RecordBatch& batch,
                             const EvalContext& context) const override {
    std::vector<ColumnPtr> args;
    for (const BoundExprPtr& child : call.Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(*child, batch, context));
      args.push_back(std::move(column));
    }
    ColumnBuilder builder(call.Type(), context.pool);
    for (int64_t i = 0; i < batch.NumRows(); ++i) {
      for (const ColumnPtr& arg : args) {
        AppendValueFrom(*arg, i, &builder.Child(0));
      }
      builder.AppendArray();
    }
    return builder.Finish();
  }
};

std::vector<DataTypePtr> TypesOf(const std::vector<BoundExprPtr>& args, size_t first, size_t step) {
  std::vector<DataTypePtr> types;
  for (size_t i = first; i < args.size(); i += step) {
    types.push_back(args[i]->Type());
  }
  return types;
}

Result<BoundExprPtr> BindArray(const Expression& call, std::vector<BoundExprPtr> args) {
  DataTypePtr element = CommonType(TypesOf(args, 0, 1));
  if (element == nullptr) {
    return CallError(call, "the elements have no common type");
  }
  if (element->Id() == TypeId::kNull) {
    element = DataType::Null();
  }
  for (auto& arg : args) {
    arg = CastTo(std::move(arg), element);
  }
  return MakeFunctionCall(call.Name(), DataType::Array(element), std::move(args),
                          std::make_shared<const ArrayFunction>());
}

class MapFunction final : public EagerFunction {
 public:
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const int64_t n = args[0]->Length();
    ColumnBuilder builder(call.Type(), context.pool);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < args.size(); k += 2) {
        if (args[k]->IsNull(i)) {
          return Status::InvalidArgument(
              fmt::format("row {}: a map key cannot be null (key {})", i, k / 2 + 1));
        }
        for (size_t earlier = 0; earlier < k; earlier += 2) {
          if (SameValue(*args[earlier], i, *args[k], i)) {
            return Status::InvalidArgument(fmt::format("row {}: duplicate map key (keys {} and {})",
                                                       i, earlier / 2 + 1, k / 2 + 1));
          }
        }
        AppendValueFrom(*args[k], i, &builder.Child(0));
        AppendValueFrom(*args[k + 1], i, &builder.Child(1));
      }
      builder.AppendMap();
    }
    return builder.Finish();
  }
};

// map() with no arguments: an empty map in every row.
class EmptyMapFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const RecordBatch& batch,
                             const EvalContext& context) const override {
    ColumnBuilder builder(call.Type(), context.pool);
    for (int64_t i = 0; i < batch.NumRows(); ++i) {
      builder.AppendMap();
    }
    return builder.Finish();
  }
};

Result<BoundExprPtr> BindMap(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty()) {
    // map() is an empty map of null keys and values, as Spark 3+.
    return MakeFunctionCall(call.Name(), DataType::Map(DataType::Null(), DataType::Null()), {},
                            std::make_shared<const EmptyMapFunction>());
  }
  if (args.size() % 2 != 0) {
    return CallError(call, "map needs key, value pairs");
  }
  DataTypePtr key = CommonType(TypesOf(args, 0, 2));
  DataTypePtr value = CommonType(TypesOf(args, 1, 2));
  if (key == nullptr || value == nullptr) {
    return CallError(call, "the keys or the values have no common type");
  }
  if (!IsOrderable(*key) || key->Id() == TypeId::kNull) {
    // Spark's checkForMapKeyType: any key type but one that is or contains a map.
    return CallError(call, "map keys cannot be or contain maps, got " + key->ToString());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    args[i] = CastTo(std::move(args[i]), i % 2 == 0 ? key : value);
  }
  return MakeFunctionCall(call.Name(), DataType::Map(key, value), std::move(args),
                          std::make_shared<const MapFunction>());
}

// struct(...) and named_struct(...): the argument columns become the fields as they are.
class StructFunction final : public ScalarFunction {
 public:
  Result<ColumnPtr> Evaluate(const BoundExpression& call, const RecordBatch& batch,
                             const EvalContext& context) const override {
    std::vector<ColumnPtr> fields;
    for (size_t i = 0; i < call.Children().size(); ++i) {
      if (call.Name() == "named_struct" && i % 2 == 0) {
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(call.Child(i), batch, context));
      fields.push_back(std::move(column));
    }
    return Column::Make(call.Type(), batch.NumRows(), nullptr, nullptr, nullptr, std::move(fields));
  }
};

Result<BoundExprPtr> BindStruct(const Expression& call, std::vector<BoundExprPtr> args) {
  std::vector<Field> fields;
  if (call.Name() == "named_struct") {
    if (args.empty() || args.size() % 2 != 0) {
      return CallError(call, "named_struct needs name, value pairs");
    }
    for (size_t i = 0; i < args.size(); i += 2) {
      const BoundExpression& name = *args[i];
      if (name.GetOp() != Op::kLiteral || name.Type()->Id() != TypeId::kString ||
          name.Literal().IsNull()) {
        return CallError(call,
                         fmt::format("field name {} must be a string literal", name.ToString()));
      }
      fields.emplace_back(name.Literal().BytesValue(), args[i + 1]->Type());
    }
  } else {
    if (args.empty()) {
      return CallError(call, "struct needs at least one field");
    }
    for (size_t i = 0; i < args.size(); ++i) {
      // Spark names a field after a column or struct field reference, else col1, col2, ...
      const Expression& source = *call.Child(i);
      const bool named = source.GetOp() == Op::kColumn || source.GetOp() == Op::kGetField;
      fields.emplace_back(named ? SourceName(args[i]->Name()) : fmt::format("col{}", i + 1),
                          args[i]->Type());
    }
  }
  return MakeFunctionCall(call.Name(), DataType::Struct(std::move(fields)), std::move(args),
                          std::make_shared<const StructFunction>());
}

class ArrayContainsFunction final : public EagerFunction {
 public:
  Result<ColumnPtr> Compute(const BoundExpression&, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    const Column& array = *args[0];
    const Column& value = *args[1];
    const int64_t n = array.Length();
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(n, context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto validity,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), context.pool));
    uint8_t* out = values->mutable_data();
    uint8_t* valid = validity->mutable_data();
    const int64_t* offsets = array.Offsets();
    const Column& elements = *array.Child(0);
    for (int64_t i = 0; i < n; ++i) {
      if (array.IsNull(i) || value.IsNull(i)) {
        continue;
      }
      bool found = false;
      bool saw_null = false;
      for (int64_t j = offsets[i]; j < offsets[i + 1] && !found; ++j) {
        if (elements.IsNull(j)) {
          saw_null = true;
        } else {
          found = SameValue(elements, j, value, i);
        }
      }
      // Not found among values that include a null: unknown, as Spark.
      columnar::SetBitTo(valid, i, found || !saw_null);
      out[i] = static_cast<uint8_t>(found);
    }
    return Column::Make(DataType::Boolean(), n, std::move(validity), std::move(values));
  }
};

Result<BoundExprPtr> BindArrayContains(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  if (args[0]->Type()->Id() != TypeId::kArray) {
    return CallError(call, "needs an array, got " + args[0]->Type()->ToString());
  }
  const DataTypePtr element = args[0]->Type()->ElementType();
  DataTypePtr common = ComparisonType(element, args[1]->Type());
  if (common == nullptr || !IsOrderable(*common)) {
    return CallError(call, fmt::format("cannot look for {} in {}", args[1]->Type()->ToString(),
                                       args[0]->Type()->ToString()));
  }
  if (common->Id() == TypeId::kNull) {
    common = DataType::Boolean();
  }
  BoundExprPtr array = std::move(args[0]);
  if (!common->SameShape(*element)) {
    array = CastTo(std::move(array), DataType::Array(common));
  }
  return MakeFunctionCall(call.Name(), DataType::Boolean(),
                          {std::move(array), CastTo(std::move(args[1]), common)},
                          std::make_shared<const ArrayContainsFunction>());
}

// map_keys/map_values: the map's offsets over its keys or values child, no copy.
class MapPartFunction final : public EagerFunction {
 public:
  explicit MapPartFunction(int child) : child_(child) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext&) const override {
    const Column& map = *args[0];
    return Column::Make(call.Type(), map.Length(), map.ValidityBuffer(), nullptr,
                        map.OffsetsBuffer(), {map.Child(child_)});
  }

 private:
  int child_;
};

Result<BoundExprPtr> BindMapPart(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const DataType& type = *args[0]->Type();
  if (type.Id() != TypeId::kMap) {
    return CallError(call, "needs a map, got " + type.ToString());
  }
  const bool keys = call.Name() == "map_keys";
  DataTypePtr result = keys ? DataType::Array(type.KeyType(), false)
                            : DataType::Array(type.ValueType(), type.ContainsNull());
  return MakeFunctionCall(call.Name(), std::move(result), std::move(args),
                          std::make_shared<const MapPartFunction>(keys ? 0 : 1));
}

// ---- array functions of Spark 3.4+ (array_append ... array_max) ----

template <typename T>
int ThreeWay(T x, T y) {
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Spark's ordering of floating point: NaN above every number and equal to itself, -0.0 = 0.0.
int CompareFloating(double x, double y) {
  const bool x_nan = std::isnan(x);
  const bool y_nan = std::isnan(y);
  if (x_nan || y_nan) {
    return x_nan == y_nan ? 0 : (x_nan ? 1 : -1);
  }
  return ThreeWay(x, y);
}

// Casts an integer (or NULL) argument to int32, as Spark's implicit cast to IntegerType.
Status RequireInt(const Expression& call, BoundExprPtr* arg, int position) {
  const DataType& type = *(*arg)->Type();
  if (!type.IsInteger() && type.Id() != TypeId::kNull) {
    return CallError(
        call, fmt::format("argument {} must be an integer, got {}", position, type.ToString()));
  }
  *arg = CastTo(std::move(*arg), DataType::Int32());
  return Status::OK();
}

// The common element type of an array and a value (array_append, array_remove, ...), with
// both arguments cast to it.
Status CoerceArrayAndElement(const Expression& call, BoundExprPtr* array, BoundExprPtr* value) {
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, *array, 1));
  const DataTypePtr& element = (*array)->Type()->ElementType();
  const DataTypePtr types[] = {element, (*value)->Type()};
  DataTypePtr common = CommonType(types);
  if (common == nullptr) {
    return CallError(call, fmt::format("cannot use {} as an element of {}",
                                       (*value)->Type()->ToString(), (*array)->Type()->ToString()));
  }
  if (!common->SameShape(*element)) {
    *array = CastTo(std::move(*array), DataType::Array(common));
  }
  *value = CastTo(std::move(*value), common);
  return Status::OK();
}

// Two or more arrays cast to one element type (array_union, arrays of flatten's siblings...).
Status CoerceArrays(const Expression& call, std::vector<BoundExprPtr>* args) {
  std::vector<DataTypePtr> elements;
  for (size_t i = 0; i < args->size(); ++i) {
    TRIBUTARY_RETURN_NOT_OK(RequireArray(call, (*args)[i], static_cast<int>(i) + 1));
    elements.push_back((*args)[i]->Type()->ElementType());
  }
  DataTypePtr common = CommonType(elements);
  if (common == nullptr) {
    return CallError(call, "the arrays' elements have no common type");
  }
  for (auto& arg : *args) {
    if (!arg->Type()->ElementType()->SameShape(*common)) {
      arg = CastTo(std::move(arg), DataType::Array(common));
    }
  }
  return Status::OK();
}

// array_append(arr, v) / array_prepend(arr, v): v (which may be null) added at the end or the
// front; a null array gives null.
Result<BoundExprPtr> BindArrayAppend(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArrayAndElement(call, &args[0], &args[1]));
  const bool prepend = call.Name() == "array_prepend";
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([prepend](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                       MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& array = *a[0];
        ArrayAssembler out(array.Length());
        for (int64_t i = 0; i < array.Length(); ++i) {
          if (array.IsNull(i)) {
            out.NullRow();
            continue;
          }
          if (prepend) {
            out.Add(1, i);
          }
          for (int64_t j = array.Offsets()[i]; j < array.Offsets()[i + 1]; ++j) {
            out.Add(0, j);
          }
          if (!prepend) {
            out.Add(1, i);
          }
          out.EndRow();
        }
        const ColumnPtr sources[] = {array.Child(0), a[1]};
        return out.Finish(c.Type(), sources, pool);
      }));
}

Status IndexOfZero(std::string_view) {
  return Status::InvalidArgument(
      "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 (the "
      "first element has index 1).");
}

// array_insert(arr, pos, v), Spark 3.4+: pos counts from 1, or from the end when negative (-1
// puts v last); a position past either end pads with nulls.
Result<BoundExprPtr> BindArrayInsert(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  // Spark widens the element and the value to their tightest common type only: no string
  // promotion, no decimal with a float or double.
  const DataType& array_element = *args[0]->Type()->ElementType();
  const DataType& inserted = *args[2]->Type();
  const auto is_string = [](const DataType& t) {
    return t.Id() == TypeId::kString;
  };
  const auto is_fraction = [](const DataType& t) {
    return t.Id() == TypeId::kFloat32 || t.Id() == TypeId::kFloat64;
  };
  const bool either_null = array_element.Id() == TypeId::kNull || inserted.Id() == TypeId::kNull;
  if (!either_null && (is_string(array_element) != is_string(inserted) ||
                       (array_element.Id() == TypeId::kDecimal && is_fraction(inserted)) ||
                       (inserted.Id() == TypeId::kDecimal && is_fraction(array_element)))) {
    return CallError(call, fmt::format("[DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES] Input to "
                                       "`array_insert` should have been \"ARRAY\" followed by a "
                                       "value with same element type, but it's [\"{}\", \"{}\"].",
                                       AsciiUpper(args[0]->Type()->ToString()),
                                       AsciiUpper(inserted.ToString())));
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArrayAndElement(call, &args[0], &args[2]));
  TRIBUTARY_RETURN_NOT_OK(RequireInt(call, &args[1], 2));
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& array = *a[0];
        const Column& position = *a[1];
        ArrayAssembler out(array.Length());
        for (int64_t i = 0; i < array.Length(); ++i) {
          if (array.IsNull(i) || position.IsNull(i)) {
            out.NullRow();
            continue;
          }
          const int64_t begin = array.Offsets()[i];
          const int64_t size = array.Offsets()[i + 1] - begin;
          const int64_t pos = IntAt(position, i);
          if (pos == 0) {
            return IndexOfZero("array_insert");
          }
          // Where v lands (0-based) and how many nulls pad between the elements and v.
          int64_t at;
          int64_t pad = 0;
          if (pos > 0) {
            at = std::min(pos - 1, size);
            pad = std::max<int64_t>(0, pos - 1 - size);
          } else {
            at = std::max<int64_t>(0, size + 1 + pos);
            pad = std::max<int64_t>(0, -pos - size - 1);
          }
          if (size + pad + 1 > kMaxArrayElements) {
            return Status::InvalidArgument(fmt::format(
                "[COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER] Can't create array with {} elements "
                "which exceeding the array size limit {}",
                size + pad + 1, kMaxArrayElements));
          }
          if (pos < 0 && pad > 0) {
            out.Add(1, i);
            for (int64_t k = 0; k < pad; ++k) {
              out.AddNull();
            }
            for (int64_t k = 0; k < size; ++k) {
              out.Add(0, begin + k);
            }
          } else {
            for (int64_t k = 0; k < at; ++k) {
              out.Add(0, begin + k);
            }
            for (int64_t k = 0; k < pad; ++k) {
              out.AddNull();
            }
            out.Add(1, i);
            for (int64_t k = at; k < size; ++k) {
              out.Add(0, begin + k);
            }
          }
          out.EndRow();
        }
        const ColumnPtr sources[] = {array.Child(0), a[2]};
        return out.Finish(c.Type(), sources, pool);
      }));
}

// A function of one array whose result picks elements of it: `pick(elements, begin, end,
// &positions)` fills the chosen element positions of one valid row or returns an error.
template <typename Pick>
std::shared_ptr<const ScalarFunction> PickElements(Pick pick) {
  return Lambda([pick](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                       MemoryPool* pool) -> Result<ColumnPtr> {
    const Column& array = *a[0];
    ArrayAssembler out(array.Length());
    std::vector<int64_t> positions;
    for (int64_t i = 0; i < array.Length(); ++i) {
      bool any_null = false;
      for (const ColumnPtr& arg : a) {
        any_null = any_null || arg->IsNull(i);
      }
      if (any_null) {
        out.NullRow();
        continue;
      }
      positions.clear();
      TRIBUTARY_RETURN_NOT_OK(pick(a, i, &positions));
      for (int64_t p : positions) {
        out.Add(0, p);
      }
      out.EndRow();
    }
    const ColumnPtr sources[] = {array.Child(0)};
    return out.Finish(c.Type(), sources, pool);
  });
}

// array_compact(arr): the non-null elements.
Result<BoundExprPtr> BindArrayCompact(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      PickElements([](const std::vector<ColumnPtr>& a, int64_t i, std::vector<int64_t>* out) {
        const Column& elements = *a[0]->Child(0);
        for (int64_t j = a[0]->Offsets()[i]; j < a[0]->Offsets()[i + 1]; ++j) {
          if (elements.IsValid(j)) {
            out->push_back(j);
          }
        }
        return Status::OK();
      }));
}

// Sorts element positions [begin, end) of `elements`: ascending or descending, nulls first or
// last; stable, as Spark's sort.
void SortPositions(const Column& elements, int64_t begin, int64_t end, bool ascending,
                   bool nulls_first, std::vector<int64_t>* out) {
  const size_t first = out->size();
  for (int64_t j = begin; j < end; ++j) {
    out->push_back(j);
  }
  std::stable_sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
                   [&](int64_t x, int64_t y) {
                     const bool x_null = elements.IsNull(x);
                     const bool y_null = elements.IsNull(y);
                     if (x_null || y_null) {
                       return x_null != y_null && (x_null == nulls_first);
                     }
                     const int c = CompareValues(elements, x, elements, y);
                     return ascending ? c < 0 : c > 0;
                   });
}

// sort_array(arr[, asc]): asc (a boolean literal, default true) sorts ascending with nulls
// first, descending with nulls last. array_sort(arr): ascending, nulls last.
Result<BoundExprPtr> BindSortArray(const Expression& call, std::vector<BoundExprPtr> args) {
  const bool sort_array = call.Name() == "sort_array";
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, sort_array ? 2 : 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  if (!IsOrderable(*args[0]->Type()->ElementType())) {
    return CallError(call,
                     "cannot sort elements of type " + args[0]->Type()->ElementType()->ToString());
  }
  bool ascending = true;
  if (args.size() == 2) {
    const BoundExpression& order = *args[1];
    // Spark's checks, in its order: the type, then a constant, then not null.
    if (order.Type()->Id() != TypeId::kBoolean && order.Type()->Id() != TypeId::kNull) {
      return CallError(call, fmt::format("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] The second "
                                         "parameter requires the \"BOOLEAN\" type, however \"{}\" "
                                         "has the type \"{}\".",
                                         order.ToString(), AsciiUpper(order.Type()->ToString())));
    }
    const bool null_literal =
        (order.GetOp() == Op::kLiteral && order.Literal().IsNull()) ||
        (order.GetOp() == Op::kCast && order.Child(0).GetOp() == Op::kLiteral &&
         order.Child(0).Literal().IsNull());
    if (order.GetOp() != Op::kLiteral && !null_literal) {
      return CallError(call,
                       "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] the input `ascendingOrder` "
                       "should be a foldable \"BOOLEAN\" expression");
    }
    if (null_literal) {
      // SortArray is NullIntolerant: a null order makes every result null (Spark's
      // array.sql: sort_array(array('b', 'd'), CAST(NULL AS BOOLEAN)) is NULL).
      return MakeBound(Op::kLiteral, args[0]->Type(), {}, -1, Scalar::Null(args[0]->Type()));
    }
    ascending = order.Literal().BoolValue();
    args.pop_back();
  }
  const bool nulls_first = sort_array && ascending;
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      PickElements([ascending, nulls_first](const std::vector<ColumnPtr>& a, int64_t i,
                                            std::vector<int64_t>* out) {
        SortPositions(*a[0]->Child(0), a[0]->Offsets()[i], a[0]->Offsets()[i + 1], ascending,
                      nulls_first, out);
        return Status::OK();
      }));
}

// slice(arr, start, length): `length` elements from `start` (1-based, negative from the end).
Result<BoundExprPtr> BindSlice(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 3, 3));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  TRIBUTARY_RETURN_NOT_OK(RequireInt(call, &args[1], 2));
  TRIBUTARY_RETURN_NOT_OK(RequireInt(call, &args[2], 3));
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      PickElements([](const std::vector<ColumnPtr>& a, int64_t i, std::vector<int64_t>* out) {
        const int64_t begin = a[0]->Offsets()[i];
        const int64_t size = a[0]->Offsets()[i + 1] - begin;
        const int64_t start = IntAt(*a[1], i);
        const int64_t length = IntAt(*a[2], i);
        if (start == 0) {
          return Status::InvalidArgument(
              "[INVALID_PARAMETER_VALUE.START] The value of parameter(s) `start` in `slice` is "
              "invalid: Expects a positive or a negative value for `start`, but got 0.");
        }
        if (length < 0) {
          return Status::InvalidArgument(fmt::format(
              "[INVALID_PARAMETER_VALUE.LENGTH] The value of parameter(s) `length` in `slice` is "
              "invalid: Expects `length` greater than or equal to 0, but got {}.",
              length));
        }
        const int64_t from = start < 0 ? start + size : start - 1;
        if (from < 0 || from >= size) {
          return Status::OK();
        }
        for (int64_t k = from; k < std::min(size, from + length); ++k) {
          out->push_back(begin + k);
        }
        return Status::OK();
      }));
}

// flatten(arr of arrays): the inner arrays one after the other; null when the outer array or
// any inner array is null.
Result<BoundExprPtr> BindFlatten(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  if (args[0]->Type()->ElementType()->Id() != TypeId::kArray) {
    return CallError(call, "needs an array of arrays, got " + args[0]->Type()->ToString());
  }
  DataTypePtr type = args[0]->Type()->ElementType();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& outer = *a[0];
        const Column& inner = *outer.Child(0);
        ArrayAssembler out(outer.Length());
        for (int64_t i = 0; i < outer.Length(); ++i) {
          bool null = outer.IsNull(i);
          for (int64_t j = outer.Offsets()[i]; !null && j < outer.Offsets()[i + 1]; ++j) {
            null = inner.IsNull(j);
          }
          if (null) {
            out.NullRow();
            continue;
          }
          for (int64_t j = outer.Offsets()[i]; j < outer.Offsets()[i + 1]; ++j) {
            for (int64_t k = inner.Offsets()[j]; k < inner.Offsets()[j + 1]; ++k) {
              out.Add(0, k);
            }
          }
          out.EndRow();
        }
        const ColumnPtr sources[] = {inner.Child(0)};
        return out.Finish(c.Type(), sources, pool);
      }));
}

// sequence(start, stop[, step]) over integers (step default 1 or -1), dates (step a day-time
// interval of whole days, default 1 day) or timestamps (step a day-time interval).
Result<BoundExprPtr> BindSequence(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  const DataTypePtr bounds[] = {args[0]->Type(), args[1]->Type()};
  DataTypePtr type = CommonType(bounds);
  if (type == nullptr ||
      !(type->IsInteger() || type->Id() == TypeId::kDate || type->Id() == TypeId::kTimestamp ||
        type->Id() == TypeId::kTimestampNtz)) {
    return CallError(call, "start and stop must both be integers, dates or timestamps");
  }
  const bool integral = type->IsInteger();
  if (args.size() == 3) {
    const DataType& step = *args[2]->Type();
    if (integral ? !step.IsInteger() : step.Id() != TypeId::kDayTimeInterval) {
      return CallError(
          call, fmt::format("the step must be {}, got {}",
                            integral ? "an integer" : "a day-time interval", step.ToString()));
    }
    if (integral) {
      const DataTypePtr all[] = {type, args[2]->Type()};
      type = CommonType(all);
    }
  }
  for (size_t i = 0; i < 2; ++i) {
    args[i] = CastTo(std::move(args[i]), type);
  }
  if (integral && args.size() == 3) {
    args[2] = CastTo(std::move(args[2]), type);
  }
  const bool date = type->Id() == TypeId::kDate;
  return MakeFunctionCall(
      call.Name(), DataType::Array(type, false), std::move(args),
      Lambda([integral, date](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                              MemoryPool* pool) -> Result<ColumnPtr> {
        const int64_t n = a[0]->Length();
        ColumnBuilder builder(c.Type(), pool);
        for (int64_t i = 0; i < n; ++i) {
          bool any_null = false;
          for (const ColumnPtr& arg : a) {
            any_null = any_null || arg->IsNull(i);
          }
          if (any_null) {
            builder.AppendNull();
            continue;
          }
          const int64_t start = IntAt(*a[0], i);
          const int64_t stop = IntAt(*a[1], i);
          int64_t step = start <= stop ? 1 : -1;
          if (a.size() == 3) {
            step = IntAt(*a[2], i);
          } else if (!integral) {
            step = date ? step : step * columnar::kMicrosPerDay;
          }
          const int64_t raw_step = step;
          if (date && a.size() == 3) {
            if (step % columnar::kMicrosPerDay != 0) {
              return Status::InvalidArgument(
                  "sequence step must be an interval day to second of day granularity if start "
                  "and end values are dates");
            }
            step /= columnar::kMicrosPerDay;
          }
          if ((step > 0 && start > stop) || (step < 0 && start < stop) ||
              (step == 0 && start != stop)) {
            return Status::InvalidArgument(
                fmt::format("requirement failed: Illegal sequence boundaries: {} to {} by {}",
                            start, stop, raw_step));
          }
          const __int128 count = step == 0 ? 1 : (static_cast<__int128>(stop) - start) / step + 1;
          if (count > kMaxArrayElements) {
            return Status::InvalidArgument(fmt::format(
                "[COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER] Can't create array with {} elements "
                "which exceeding the array size limit {}",
                static_cast<int64_t>(count), kMaxArrayElements));
          }
          ColumnBuilder& elements = builder.Child(0);
          for (__int128 k = 0; k < count; ++k) {
            elements.AppendInt(static_cast<int64_t>(start + k * step));
          }
          builder.AppendArray();
        }
        return builder.Finish();
      }));
}

// arrays_zip(a1, ..., an): an array of structs whose field k holds the elements of ak, as long
// as the longest input (the shorter padded with nulls); null when any input is null. Fields are
// named after column references, else "0", "1", ... as Spark.
Result<BoundExprPtr> BindArraysZip(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1024));
  std::vector<Field> fields;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->Type()->Id() == TypeId::kNull) {
      // A NULL argument is a null array (the result is null), as Spark's implicit cast.
      args[i] = CastTo(std::move(args[i]), DataType::Array(DataType::Null()));
    }
    TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[i], static_cast<int>(i) + 1));
    const Expression& source = *call.Child(i);
    const bool named = source.GetOp() == Op::kColumn || source.GetOp() == Op::kGetField;
    fields.emplace_back(named ? SourceName(args[i]->Name()) : std::to_string(i),
                        args[i]->Type()->ElementType());
  }
  DataTypePtr type = DataType::Array(DataType::Struct(std::move(fields)), false);
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const int64_t n = a[0]->Length();
        const size_t m = a.size();
        std::vector<std::vector<int32_t>> source(m);
        std::vector<std::vector<int64_t>> row(m);
        std::vector<int64_t> offsets = {0};
        std::vector<uint8_t> valid;
        for (int64_t i = 0; i < n; ++i) {
          int64_t longest = 0;
          bool any_null = false;
          for (const ColumnPtr& arg : a) {
            any_null = any_null || arg->IsNull(i);
            if (!any_null) {
              longest = std::max(longest, arg->Offsets()[i + 1] - arg->Offsets()[i]);
            }
          }
          valid.push_back(any_null ? 0 : 1);
          if (any_null) {
            offsets.push_back(offsets.back());
            continue;
          }
          for (size_t k = 0; k < m; ++k) {
            const int64_t begin = a[k]->Offsets()[i];
            const int64_t size = a[k]->Offsets()[i + 1] - begin;
            for (int64_t e = 0; e < longest; ++e) {
              source[k].push_back(e < size ? 0 : -1);
              row[k].push_back(e < size ? begin + e : 0);
            }
          }
          offsets.push_back(offsets.back() + longest);
        }
        const DataTypePtr& element_type = c.Type()->ElementType();
        std::vector<ColumnPtr> columns;
        for (size_t k = 0; k < m; ++k) {
          const ColumnPtr sources[] = {a[k]->Child(0)};
          TRIBUTARY_ASSIGN_OR_RAISE(auto column, Interleave(element_type->Fields()[k].Type(),
                                                            sources, source[k], row[k], pool));
          columns.push_back(std::move(column));
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto structs, Column::Make(element_type, offsets.back(), nullptr,
                                                             nullptr, nullptr, std::move(columns)));
        return MakeListColumn(c.Type(), offsets, valid, {std::move(structs)}, pool);
      }));
}

// shuffle(arr): a random permutation of the elements (not deterministic, as Spark's).
Result<BoundExprPtr> BindShuffle(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(call.Name(), std::move(type), std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool* pool) -> Result<ColumnPtr> {
                            std::mt19937_64 random{std::random_device{}()};
                            const Column& array = *a[0];
                            ArrayAssembler out(array.Length());
                            std::vector<int64_t> positions;
                            for (int64_t i = 0; i < array.Length(); ++i) {
                              if (array.IsNull(i)) {
                                out.NullRow();
                                continue;
                              }
                              positions.clear();
                              for (int64_t j = array.Offsets()[i]; j < array.Offsets()[i + 1];
                                   ++j) {
                                positions.push_back(j);
                              }
                              std::shuffle(positions.begin(), positions.end(), random);
                              for (int64_t p : positions) {
                                out.Add(0, p);
                              }
                              out.EndRow();
                            }
                            const ColumnPtr sources[] = {array.Child(0)};
                            return out.Finish(c.Type(), sources, pool);
                          }));
}

// array_repeat(v, count): v repeated count times (none when count <= 0); null when count is.
Result<BoundExprPtr> BindArrayRepeat(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(RequireInt(call, &args[1], 2));
  DataTypePtr type = DataType::Array(args[0]->Type());
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& count = *a[1];
        ArrayAssembler out(count.Length());
        for (int64_t i = 0; i < count.Length(); ++i) {
          if (count.IsNull(i)) {
            out.NullRow();
            continue;
          }
          const int64_t times = IntAt(count, i);
          if (times > kMaxArrayElements) {
            return Status::InvalidArgument(fmt::format(
                "[COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER] Can't create array with {} elements "
                "which exceeding the array size limit {}",
                times, kMaxArrayElements));
          }
          for (int64_t k = 0; k < times; ++k) {
            out.Add(0, i);
          }
          out.EndRow();
        }
        const ColumnPtr sources[] = {a[0]};
        return out.Finish(c.Type(), sources, pool);
      }));
}

// array_position(arr, v): the 1-based position (bigint) of the first element equal to v, 0
// when there is none; null when either argument is.
Result<BoundExprPtr> BindArrayPosition(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArrayAndElement(call, &args[0], &args[1]));
  if (!IsOrderable(*args[1]->Type())) {
    return CallError(call, "cannot compare values of type " + args[1]->Type()->ToString());
  }
  return PerRowFixed<int64_t>(
      call, DataType::Int64(), std::move(args),
      [](const std::vector<ColumnPtr>& a, int64_t i) -> int64_t {
        const Column& elements = *a[0]->Child(0);
        const int64_t begin = a[0]->Offsets()[i];
        for (int64_t j = begin; j < a[0]->Offsets()[i + 1]; ++j) {
          if (elements.IsValid(j) && CompareValues(elements, j, *a[1], i) == 0) {
            return j - begin + 1;
          }
        }
        return 0;
      });
}

// array_remove(arr, v): the elements not equal to v (null elements stay); null when either
// argument is null.
Result<BoundExprPtr> BindArrayRemove(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArrayAndElement(call, &args[0], &args[1]));
  if (!IsOrderable(*args[1]->Type())) {
    return CallError(call, "cannot compare values of type " + args[1]->Type()->ToString());
  }
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      PickElements([](const std::vector<ColumnPtr>& a, int64_t i, std::vector<int64_t>* out) {
        const Column& elements = *a[0]->Child(0);
        for (int64_t j = a[0]->Offsets()[i]; j < a[0]->Offsets()[i + 1]; ++j) {
          if (elements.IsNull(j) || CompareValues(elements, j, *a[1], i) != 0) {
            out->push_back(j);
          }
        }
        return Status::OK();
      }));
}

// Appends to `out` the positions [begin, end) of `elements` whose value is not yet among
// `out`'s from `first` on (one null at most), keeping `keep(j)` ones only. Arrays are scanned
// linearly per element: SQL arrays are short, and this needs no hashing of nested values.
template <typename Keep>
void AppendDistinct(const Column& elements, int64_t begin, int64_t end, size_t first,
                    std::vector<int64_t>* out, Keep keep) {
  for (int64_t j = begin; j < end; ++j) {
    if (!keep(j)) {
      continue;
    }
    const bool seen =
        std::any_of(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
                    [&](int64_t k) { return CompareNullable(elements, k, elements, j) == 0; });
    if (!seen) {
      out->push_back(j);
    }
  }
}

// array_distinct(arr): the elements without repeats, first occurrences in order.
Result<BoundExprPtr> BindArrayDistinct(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  if (!IsOrderable(*args[0]->Type()->ElementType())) {
    return CallError(call,
                     "cannot compare values of type " + args[0]->Type()->ElementType()->ToString());
  }
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      PickElements([](const std::vector<ColumnPtr>& a, int64_t i, std::vector<int64_t>* out) {
        AppendDistinct(*a[0]->Child(0), a[0]->Offsets()[i], a[0]->Offsets()[i + 1], 0, out,
                       [](int64_t) { return true; });
        return Status::OK();
      }));
}

// array_union, array_intersect, array_except of two arrays: distinct elements, in the order of
// the first array (then the second's for a union); null when either array is null.
Result<BoundExprPtr> BindArraySetOperation(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArrays(call, &args));
  if (!IsOrderable(*args[0]->Type()->ElementType())) {
    return CallError(call,
                     "cannot compare values of type " + args[0]->Type()->ElementType()->ToString());
  }
  enum class SetOp { kUnion, kIntersect, kExcept };
  const SetOp op = call.Name() == "array_union"       ? SetOp::kUnion
                   : call.Name() == "array_intersect" ? SetOp::kIntersect
                                                      : SetOp::kExcept;
  DataTypePtr type = args[0]->Type();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([op](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                  MemoryPool* pool) -> Result<ColumnPtr> {
        // Both arrays' elements as one column, so positions of either compare with each other.
        const ColumnPtr both_parts[] = {a[0]->Child(0), a[1]->Child(0)};
        TRIBUTARY_ASSIGN_OR_RAISE(auto both, columnar::Concatenate(both_parts, pool));
        const int64_t shift = a[0]->Child(0)->Length();
        const Column& left = *a[0];
        const Column& right = *a[1];
        ArrayAssembler out(left.Length());
        std::vector<int64_t> positions;
        for (int64_t i = 0; i < left.Length(); ++i) {
          if (left.IsNull(i) || right.IsNull(i)) {
            out.NullRow();
            continue;
          }
          positions.clear();
          const int64_t r_begin = right.Offsets()[i] + shift;
          const int64_t r_end = right.Offsets()[i + 1] + shift;
          const auto in_right = [&](int64_t j) {
            for (int64_t k = r_begin; k < r_end; ++k) {
              if (CompareNullable(*both, k, *both, j) == 0) {
                return true;
              }
            }
            return false;
          };
          const int64_t l_begin = left.Offsets()[i];
          const int64_t l_end = left.Offsets()[i + 1];
          switch (op) {
            case SetOp::kUnion:
              AppendDistinct(*both, l_begin, l_end, 0, &positions, [](int64_t) { return true; });
              AppendDistinct(*both, r_begin, r_end, 0, &positions, [](int64_t) { return true; });
              break;
            case SetOp::kIntersect:
              AppendDistinct(*both, l_begin, l_end, 0, &positions, in_right);
              break;
            case SetOp::kExcept:
              AppendDistinct(*both, l_begin, l_end, 0, &positions,
                             [&](int64_t j) { return !in_right(j); });
              break;
          }
          for (int64_t p : positions) {
            out.Add(0, p);
          }
          out.EndRow();
        }
        const ColumnPtr sources[] = {both};
        return out.Finish(c.Type(), sources, pool);
      }));
}

// arrays_overlap(a, b): true when the arrays share a non-null element; otherwise null when
// both are non-empty and either holds a null, else false; null when either array is null.
Result<BoundExprPtr> BindArraysOverlap(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(CoerceArrays(call, &args));
  if (!IsOrderable(*args[0]->Type()->ElementType())) {
    return CallError(call,
                     "cannot compare values of type " + args[0]->Type()->ElementType()->ToString());
  }
  return MakeFunctionCall(
      call.Name(), DataType::Boolean(), std::move(args),
      Lambda([](const BoundExpression&, const std::vector<ColumnPtr>& a,
                MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& left = *a[0];
        const Column& right = *a[1];
        const Column& l = *left.Child(0);
        const Column& r = *right.Child(0);
        ColumnBuilder out(DataType::Boolean(), pool);
        out.Reserve(left.Length());
        for (int64_t i = 0; i < left.Length(); ++i) {
          if (left.IsNull(i) || right.IsNull(i)) {
            out.AppendNull();
            continue;
          }
          bool found = false;
          bool saw_null = false;
          for (int64_t p = left.Offsets()[i]; p < left.Offsets()[i + 1] && !found; ++p) {
            if (l.IsNull(p)) {
              saw_null = true;
              continue;
            }
            for (int64_t q = right.Offsets()[i]; q < right.Offsets()[i + 1] && !found; ++q) {
              if (r.IsNull(q)) {
                saw_null = true;
              } else {
                found = CompareValues(l, p, r, q) == 0;
              }
            }
          }
          const bool both_non_empty = left.Offsets()[i + 1] > left.Offsets()[i] &&
                                      right.Offsets()[i + 1] > right.Offsets()[i];
          if (!found && saw_null && both_non_empty) {
            out.AppendNull();
          } else {
            out.AppendBoolean(found);
          }
        }
        return out.Finish();
      }));
}

// array_join(arr, delimiter[, null_replacement]): the elements as strings joined by the
// delimiter; null elements are skipped, or replaced when a replacement is given.
Result<BoundExprPtr> BindArrayJoin(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  if (args[0]->Type()->ElementType()->IsNested()) {
    return CallError(call, "needs an array of strings, got " + args[0]->Type()->ToString());
  }
  args[0] = CastTo(std::move(args[0]), DataType::Array(DataType::String()));
  std::vector<BoundExprPtr> rest(std::make_move_iterator(args.begin() + 1),
                                 std::make_move_iterator(args.end()));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &rest, {DataType::String()}));
  for (size_t i = 0; i < rest.size(); ++i) {
    args[i + 1] = std::move(rest[i]);
  }
  return PerRowBytes(call, DataType::String(), std::move(args),
                     [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
                       const Column& elements = *a[0]->Child(0);
                       const std::string_view delimiter = a[1]->BytesAt(i);
                       bool first = true;
                       for (int64_t j = a[0]->Offsets()[i]; j < a[0]->Offsets()[i + 1]; ++j) {
                         if (elements.IsNull(j) && a.size() == 2) {
                           continue;
                         }
                         if (!first) {
                           out->append(delimiter);
                         }
                         first = false;
                         out->append(elements.IsNull(j) ? a[2]->BytesAt(i) : elements.BytesAt(j));
                       }
                       return true;
                     });
}

// array_max(arr) / array_min(arr): the greatest or least non-null element (NaN is the
// greatest double); null for an empty or all-null array.
Result<BoundExprPtr> BindArrayExtreme(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  if (!IsOrderable(*args[0]->Type()->ElementType())) {
    return CallError(call,
                     "cannot order values of type " + args[0]->Type()->ElementType()->ToString());
  }
  const int want = call.Name() == "array_max" ? 1 : -1;
  DataTypePtr type = args[0]->Type()->ElementType();
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([want](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        const Column& array = *a[0];
        const Column& elements = *array.Child(0);
        std::vector<int64_t> best(static_cast<size_t>(array.Length()), -1);
        for (int64_t i = 0; i < array.Length(); ++i) {
          if (array.IsNull(i)) {
            continue;
          }
          int64_t& b = best[static_cast<size_t>(i)];
          for (int64_t j = array.Offsets()[i]; j < array.Offsets()[i + 1]; ++j) {
            if (elements.IsValid(j) && (b < 0 || CompareValues(elements, j, elements, b) == want)) {
              b = j;
            }
          }
        }
        return GatherElements(c.Type(), array.Child(0), best, pool);
      }));
}

}  // namespace

bool IsOrderable(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kMap:
      return false;
    case TypeId::kArray:
      return IsOrderable(*type.ElementType());
    case TypeId::kStruct:
      return std::all_of(type.Fields().begin(), type.Fields().end(),
                         [](const Field& f) { return IsOrderable(*f.Type()); });
    default:
      return true;
  }
}

int CompareNullable(const Column& a, int64_t i, const Column& b, int64_t j) {
  const bool a_null = a.IsNull(i);
  const bool b_null = b.IsNull(j);
  if (a_null || b_null) {
    return a_null == b_null ? 0 : (a_null ? -1 : 1);
  }
  return CompareValues(a, i, b, j);
}

int CompareValues(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (a.Type()->Id()) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBoolean:
      return ThreeWay(a.Values<uint8_t>()[i], b.Values<uint8_t>()[j]);
    case TypeId::kFloat32:
      return CompareFloating(a.Values<float>()[i], b.Values<float>()[j]);
    case TypeId::kFloat64:
      return CompareFloating(a.Values<double>()[i], b.Values<double>()[j]);
    case TypeId::kDecimal:
      return ThreeWay(a.Values<columnar::Int128>()[i], b.Values<columnar::Int128>()[j]);
    case TypeId::kString:
    case TypeId::kBinary: {
      const int c = a.BytesAt(i).compare(b.BytesAt(j));
      return ThreeWay(c, 0);
    }
    case TypeId::kStruct:
      for (int f = 0; f < a.NumChildren(); ++f) {
        if (const int c = CompareNullable(*a.Child(f), i, *b.Child(f), j); c != 0) {
          return c;
        }
      }
      return 0;
    case TypeId::kArray: {
      const int64_t a_begin = a.Offsets()[i];
      const int64_t a_size = a.Offsets()[i + 1] - a_begin;
      const int64_t b_begin = b.Offsets()[j];
      const int64_t b_size = b.Offsets()[j + 1] - b_begin;
      for (int64_t k = 0; k < std::min(a_size, b_size); ++k) {
        if (const int c = CompareNullable(*a.Child(0), a_begin + k, *b.Child(0), b_begin + k);
            c != 0) {
          return c;
        }
      }
      return ThreeWay(a_size, b_size);
    }
    default:
      return ThreeWay(IntAt(a, i), IntAt(b, j));
  }
}

Result<ColumnPtr> MakeListColumn(const DataTypePtr& type, const std::vector<int64_t>& offsets,
                                 const std::vector<uint8_t>& valid, std::vector<ColumnPtr> children,
                                 MemoryPool* pool) {
  const auto n = static_cast<int64_t>(valid.size());
  TRIBUTARY_ASSIGN_OR_RAISE(auto offsets_buffer, columnar::Buffer::Allocate((n + 1) * 8, pool));
  std::memcpy(offsets_buffer->mutable_data(), offsets.data(), static_cast<size_t>(n + 1) * 8);
  BufferPtr validity;
  if (std::find(valid.begin(), valid.end(), 0) != valid.end()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits,
                              columnar::Buffer::Allocate(columnar::BitmapBytes(n), pool));
    for (int64_t i = 0; i < n; ++i) {
      columnar::SetBitTo(bits->mutable_data(), i, valid[static_cast<size_t>(i)] != 0);
    }
    validity = std::move(bits);
  }
  return Column::Make(type, n, std::move(validity), nullptr, std::move(offsets_buffer),
                      std::move(children));
}

Status CheckMapKeys(const Column& keys, const std::vector<int64_t>& offsets,
                    const EvalContext& context) {
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    for (int64_t p = offsets[i]; p < offsets[i + 1]; ++p) {
      if (keys.IsNull(p)) {
        return Status::InvalidArgument("[NULL_MAP_KEY] Cannot use null as map key.");
      }
      for (int64_t q = offsets[i]; q < p; ++q) {
        if (CompareValues(keys, q, keys, p) == 0) {
          std::string text;
          AppendCastString(keys, p, context, &text);
          return Status::InvalidArgument(fmt::format(
              "[DUPLICATED_MAP_KEY] Duplicate map key {} was found, please check the input data.",
              text));
        }
      }
    }
  }
  return Status::OK();
}

Result<ColumnPtr> SubscriptKernel(const Column& base, const Column& key, MemoryPool* pool) {
  if (base.Type()->Id() == TypeId::kMap) {
    return MapValue(base, key, pool);
  }
  return ArrayElement(base, key, IndexRule{false, false}, pool);
}

Result<ColumnPtr> ArrayAssembler::Finish(const DataTypePtr& array_type,
                                         std::span<const ColumnPtr> sources,
                                         MemoryPool* pool) const {
  TRIBUTARY_ASSIGN_OR_RAISE(auto elements,
                            Interleave(array_type->ElementType(), sources, source_, row_, pool));
  return MakeListColumn(array_type, offsets_, valid_, {std::move(elements)}, pool);
}

Status RequireArray(const Expression& call, const BoundExprPtr& arg, int position) {
  if (arg->Type()->Id() != TypeId::kArray) {
    return CallError(call, fmt::format("argument {} must be an array, got {}", position,
                                       arg->Type()->ToString()));
  }
  return Status::OK();
}

void AddCollectionFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"element_at", BindElementAt},
                               {"try_element_at", BindElementAt},
                               {"get", BindElementAt},
                               {"size", BindSize},
                               {"cardinality", BindSize},
                               {"array", BindArray},
                               {"map", BindMap},
                               {"struct", BindStruct},
                               {"named_struct", BindStruct},
                               {"array_contains", BindArrayContains},
                               {"map_keys", BindMapPart},
                               {"map_values", BindMapPart},
                               {"array_size", BindSize},
                               {"array_append", BindArrayAppend},
                               {"array_prepend", BindArrayAppend},
                               {"array_insert", BindArrayInsert},
                               {"array_compact", BindArrayCompact},
                               {"sort_array", BindSortArray},
                               {"array_sort", BindSortArray},
                               {"slice", BindSlice},
                               {"flatten", BindFlatten},
                               {"sequence", BindSequence},
                               {"arrays_zip", BindArraysZip},
                               {"shuffle", BindShuffle},
                               {"array_repeat", BindArrayRepeat},
                               {"array_position", BindArrayPosition},
                               {"array_remove", BindArrayRemove},
                               {"array_distinct", BindArrayDistinct},
                               {"array_union", BindArraySetOperation},
                               {"array_intersect", BindArraySetOperation},
                               {"array_except", BindArraySetOperation},
                               {"array_join", BindArrayJoin},
                               {"array_max", BindArrayExtreme},
                               {"array_min", BindArrayExtreme},
                               {"arrays_overlap", BindArraysOverlap}});
}

}  // namespace tributary::expr
