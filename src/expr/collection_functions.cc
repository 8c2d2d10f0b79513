// Nested values: arr[i] / m[k], element_at, try_element_at, get, size/cardinality,
// array(...), map(...), struct(...)/named_struct(...), array_contains, map_keys, map_values.
//
// ANSI semantics as Spark 3.4+: an array index out of range is an error (INVALID_ARRAY_INDEX),
// a missing map key gives null, size(NULL) is NULL, map keys may be neither null nor repeated.

#include <cstring>

#include <fmt/format.h>

#include "expr/function_kernels.h"
#include "expr/row_gather.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::Field;
using columnar::RecordBatch;
using columnar::TypeId;

namespace {

// Whether row i of `a` equals row j of `b` (both valid, one primitive type).
bool SameValue(const Column& a, int64_t i, const Column& b, int64_t j) {
  const DataType& type = *a.Type();
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
      if (k == 0 && !rule.safe) {
        return Status::InvalidArgument(
            fmt::format("row {}: element_at index 0 is invalid: SQL array indices start at 1", i));
      }
      k = k > 0 ? k - 1 : (k < 0 ? size + k : -1);
    }
    if (k < 0 || k >= size) {
      if (rule.safe) {
        continue;
      }
      return Status::InvalidArgument(
          fmt::format("row {}: array index {} is out of bounds for an array of {} elements", i,
                      IntAt(index, i), size));
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
  if (id != TypeId::kArray && id != TypeId::kMap && id != TypeId::kNull) {
    return CallError(call, "needs an array or a map, got " + args[0]->Type()->ToString());
  }
  return MakeFunctionCall(call.Name(), DataType::Int32(), std::move(args),
                          std::make_shared<const SizeFunction>());
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

Result<BoundExprPtr> BindMap(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty() || args.size() % 2 != 0) {
    return CallError(call, "map needs key, value pairs");
  }
  DataTypePtr key = CommonType(TypesOf(args, 0, 2));
  DataTypePtr value = CommonType(TypesOf(args, 1, 2));
  if (key == nullptr || value == nullptr) {
    return CallError(call, "the keys or the values have no common type");
  }
  if (key->IsNested() || key->Id() == TypeId::kNull) {
    return CallError(call, "map keys must be of a primitive type, got " + key->ToString());
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
      fields.emplace_back(named ? args[i]->Name() : fmt::format("col{}", i + 1), args[i]->Type());
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
  if (common == nullptr || common->IsNested()) {
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

}  // namespace

Result<ColumnPtr> SubscriptKernel(const Column& base, const Column& key, MemoryPool* pool) {
  if (base.Type()->Id() == TypeId::kMap) {
    return MapValue(base, key, pool);
  }
  return ArrayElement(base, key, IndexRule{false, false}, pool);
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
                               {"map_values", BindMapPart}});
}

}  // namespace tributary::expr
