// Map functions: map_entries, map_from_arrays, map_from_entries, map_concat (map(...), map_keys
// and map_values are collection_functions.cc's, with the other constructors and accessors).
// ANSI semantics as Spark 4: map keys may be neither null nor repeated (NULL_MAP_KEY,
// DUPLICATED_MAP_KEY).

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "columnar/take.h"
#include "common/ascii.h"
#include "expr/function_kernels.h"
#include "expr/nested_values.h"
#include "expr/row_gather.h"

namespace tributary::expr {

using columnar::Field;
using columnar::TypeId;

namespace {

// map_entries(m): the entries as an array of struct<key, value>, sharing the map's buffers.
Result<BoundExprPtr> BindMapEntries(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  const DataType& map = *args[0]->Type();
  if (map.Id() != TypeId::kMap) {
    return CallError(call, "needs a map, got " + map.ToString());
  }
  DataTypePtr entry = DataType::Struct(
      {Field("key", map.KeyType(), false), Field("value", map.ValueType(), map.ContainsNull())});
  return MakeFunctionCall(call.Name(), DataType::Array(std::move(entry), false), std::move(args),
                          Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                                    MemoryPool*) -> Result<ColumnPtr> {
                            const Column& m = *a[0];
                            const DataTypePtr& entry_type = c.Type()->ElementType();
                            TRIBUTARY_ASSIGN_OR_RAISE(
                                auto entries,
                                Column::Make(entry_type, m.Child(0)->Length(), nullptr, nullptr,
                                             nullptr, {m.Child(0), m.Child(1)}));
                            return Column::Make(c.Type(), m.Length(), m.ValidityBuffer(), nullptr,
                                                m.OffsetsBuffer(), {std::move(entries)});
                          }));
}

// Builds a map column from per-row entries picked out of key and value source columns, after
// checking the keys as Spark's map builder does.
class MapAssembler {
 public:
  explicit MapAssembler(int64_t rows) : keys_(rows), values_(rows) {}
  void Add(int32_t key_source, int64_t key_row, int32_t value_source, int64_t value_row) {
    keys_.Add(key_source, key_row);
    values_.Add(value_source, value_row);
  }
  void EndRow() {
    keys_.EndRow();
    values_.EndRow();
  }
  void NullRow() {
    keys_.NullRow();
    values_.NullRow();
  }
  Result<ColumnPtr> Finish(const DataTypePtr& map_type, std::span<const ColumnPtr> key_sources,
                           std::span<const ColumnPtr> value_sources,
                           const EvalContext& context) const {
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto keys, keys_.Finish(DataType::Array(map_type->KeyType()), key_sources, context.pool));
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, values_.Finish(DataType::Array(map_type->ValueType()),
                                                          value_sources, context.pool));
    const int64_t n = keys->Length();
    std::vector<int64_t> offsets(keys->Offsets(), keys->Offsets() + n + 1);
    TRIBUTARY_RETURN_NOT_OK(CheckMapKeys(*keys->Child(0), offsets, context));
    return Column::Make(map_type, n, keys->ValidityBuffer(), nullptr, keys->OffsetsBuffer(),
                        {keys->Child(0), values->Child(0)});
  }

 private:
  ArrayAssembler keys_;
  ArrayAssembler values_;
};

// map_from_arrays(keys, values): a map pairing the arrays' elements; null when either is.
Result<BoundExprPtr> BindMapFromArrays(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[1], 2));
  const DataTypePtr& key = args[0]->Type()->ElementType();
  if (!IsOrderable(*key) || key->Id() == TypeId::kNull) {
    return CallError(call, "map keys cannot be of type " + key->ToString());
  }
  DataTypePtr type = DataType::Map(key, args[1]->Type()->ElementType());
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) -> Result<ColumnPtr> {
        const Column& keys = *a[0];
        const Column& values = *a[1];
        MapAssembler out(keys.Length());
        for (int64_t i = 0; i < keys.Length(); ++i) {
          if (keys.IsNull(i) || values.IsNull(i)) {
            out.NullRow();
            continue;
          }
          const int64_t size = keys.Offsets()[i + 1] - keys.Offsets()[i];
          if (size != values.Offsets()[i + 1] - values.Offsets()[i]) {
            return Status::InvalidArgument(
                "The key array and value array of MapData must have the same length.");
          }
          for (int64_t k = 0; k < size; ++k) {
            out.Add(0, keys.Offsets()[i] + k, 0, values.Offsets()[i] + k);
          }
          out.EndRow();
        }
        const ColumnPtr key_sources[] = {keys.Child(0)};
        const ColumnPtr value_sources[] = {values.Child(0)};
        return out.Finish(c.Type(), key_sources, value_sources, context);
      }));
}

// map_from_entries(array of struct<k, v>): a map of the entries; null when the array or any
// entry is null.
Result<BoundExprPtr> BindMapFromEntries(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireArray(call, args[0], 1));
  const DataType& entry = *args[0]->Type()->ElementType();
  if (entry.Id() != TypeId::kStruct || entry.Fields().size() != 2) {
    return CallError(call,
                     "needs an array of two-field structs, got " + args[0]->Type()->ToString());
  }
  const DataTypePtr& key = entry.Fields()[0].Type();
  if (!IsOrderable(*key) || key->Id() == TypeId::kNull) {
    return CallError(call, "map keys cannot be of type " + key->ToString());
  }
  DataTypePtr type = DataType::Map(key, entry.Fields()[1].Type());
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) -> Result<ColumnPtr> {
        const Column& array = *a[0];
        const Column& entries = *array.Child(0);
        MapAssembler out(array.Length());
        for (int64_t i = 0; i < array.Length(); ++i) {
          bool null = array.IsNull(i);
          for (int64_t j = array.Offsets()[i]; !null && j < array.Offsets()[i + 1]; ++j) {
            null = entries.IsNull(j);
          }
          if (null) {
            out.NullRow();
            continue;
          }
          for (int64_t j = array.Offsets()[i]; j < array.Offsets()[i + 1]; ++j) {
            out.Add(0, j, 0, j);
          }
          out.EndRow();
        }
        const ColumnPtr key_sources[] = {entries.Child(0)};
        const ColumnPtr value_sources[] = {entries.Child(1)};
        return out.Finish(c.Type(), key_sources, value_sources, context);
      }));
}

// map_concat(m1, m2, ...): the entries of all maps (a repeated key is an error); null when any
// map is null.
Result<BoundExprPtr> BindMapConcat(const Expression& call, std::vector<BoundExprPtr> args) {
  if (args.empty()) {
    return MakeFunctionCall(call.Name(), DataType::Map(DataType::String(), DataType::String()), {},
                            Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>&,
                                      const EvalContext&) -> Result<ColumnPtr> {
                              return Column::MakeAllNull(c.Type(), 0);
                            }));
  }
  std::vector<DataTypePtr> keys;
  std::vector<DataTypePtr> values;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->Type()->Id() != TypeId::kMap) {
      return CallError(call, fmt::format("argument {} must be a map, got {}", i + 1,
                                         args[i]->Type()->ToString()));
    }
    keys.push_back(args[i]->Type()->KeyType());
    values.push_back(args[i]->Type()->ValueType());
  }
  DataTypePtr key = CommonType(keys);
  DataTypePtr value = CommonType(values);
  if (key == nullptr || value == nullptr) {
    return CallError(call, "the maps' keys or values have no common type");
  }
  DataTypePtr type = DataType::Map(key, value);
  for (auto& arg : args) {
    if (!arg->Type()->SameShape(*type)) {
      arg = CastTo(std::move(arg), type);
    }
  }
  return MakeFunctionCall(
      call.Name(), std::move(type), std::move(args),
      Lambda([](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                const EvalContext& context) -> Result<ColumnPtr> {
        const int64_t n = a[0]->Length();
        MapAssembler out(n);
        for (int64_t i = 0; i < n; ++i) {
          if (std::any_of(a.begin(), a.end(), [&](const ColumnPtr& m) { return m->IsNull(i); })) {
            out.NullRow();
            continue;
          }
          for (size_t m = 0; m < a.size(); ++m) {
            for (int64_t j = a[m]->Offsets()[i]; j < a[m]->Offsets()[i + 1]; ++j) {
              out.Add(static_cast<int32_t>(m), j, static_cast<int32_t>(m), j);
            }
          }
          out.EndRow();
        }
        std::vector<ColumnPtr> key_sources;
        std::vector<ColumnPtr> value_sources;
        for (const ColumnPtr& m : a) {
          key_sources.push_back(m->Child(0));
          value_sources.push_back(m->Child(1));
        }
        return out.Finish(c.Type(), key_sources, value_sources, context);
      }));
}

// map_contains_key(m, k): Spark's array_contains(map_keys(m), k).
Result<BoundExprPtr> BindMapContainsKey(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 2));
  if (args[0]->Type()->Id() != TypeId::kMap) {
    return CallError(call,
                     fmt::format("argument 1 must be a map, got {}", args[0]->Type()->ToString()));
  }
  // Spark widens the key and the probe without string promotion: a string against a number
  // (either way round) is MAP_FUNCTION_DIFF_TYPES.
  const columnar::DataType& key = *args[0]->Type()->KeyType();
  const columnar::DataType& probe = *args[1]->Type();
  if (probe.Id() != TypeId::kNull &&
      (key.Id() == TypeId::kString) != (probe.Id() == TypeId::kString)) {
    return CallError(
        call, fmt::format("[DATATYPE_MISMATCH.MAP_FUNCTION_DIFF_TYPES] Input to "
                          "`map_contains_key` should have been \"MAP\" followed by a "
                          "value with same key type, but it's [\"{}\", \"{}\"].",
                          AsciiUpper(args[0]->Type()->ToString()), AsciiUpper(probe.ToString())));
  }
  const std::vector<ExprPtr>& unbound = call.Children();
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr keys, BindAs("map_keys", {unbound[0]}, {args[0]}));
  return BindAs("array_contains", unbound, {std::move(keys), std::move(args[1])});
}

}  // namespace

void AddMapFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"map_contains_key", BindMapContainsKey},
                               {"map_entries", BindMapEntries},
                               {"map_from_arrays", BindMapFromArrays},
                               {"map_from_entries", BindMapFromEntries},
                               {"map_concat", BindMapConcat}});
}

}  // namespace tributary::expr
