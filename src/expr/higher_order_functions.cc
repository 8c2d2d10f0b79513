// Higher-order functions: transform, filter, exists, forall, aggregate/reduce, zip_with,
// array_sort with a comparator, map_filter, transform_keys, transform_values, map_zip_with.
//
// A lambda body runs once per batch over the elements of all its rows: the elements (or map
// entries) of the valid rows become the rows of a batch whose columns are the enclosing
// columns the body reads (gathered to the row each element belongs to) followed by the lambda
// parameters. aggregate folds one element position at a time, over all rows at once.

#include "expr/higher_order_functions.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "columnar/take.h"
#include "common/ascii.h"
#include "expr/function_kernels.h"
#include "expr/nested_values.h"
#include "expr/row_gather.h"

namespace tributary::expr {

using columnar::Field;
using columnar::RecordBatch;
using columnar::Schema;
using columnar::TypeId;

namespace {

// A lambda body bound to a schema of its own: the enclosing columns it reads (children
// [first_captured, first_captured + num_captured) of the call), then its parameters.
struct BoundLambda {
  BoundExprPtr body;
  std::shared_ptr<const Schema> schema;
  size_t first_captured = 0;
  size_t num_captured = 0;
};

void CollectColumns(const BoundExpression& e, std::vector<int>* out) {
  if (e.GetOp() == Op::kColumn) {
    out->push_back(e.Index());
  }
  for (const BoundExprPtr& child : e.Children()) {
    CollectColumns(*child, out);
  }
}

BoundExprPtr Renumber(const BoundExprPtr& e, const std::vector<int>& index_of) {
  if (e->GetOp() == Op::kColumn) {
    return e->WithIndex(index_of[static_cast<size_t>(e->Index())]);
  }
  if (e->Children().empty()) {
    return e;
  }
  std::vector<BoundExprPtr> children;
  for (const BoundExprPtr& child : e->Children()) {
    children.push_back(Renumber(child, index_of));
  }
  return e->WithChildren(std::move(children));
}

// Binds `lambda` (argument `position` of `call`) with parameters of `param_types`, appending
// the enclosing columns its body reads to `children`.
Result<BoundLambda> BindLambda(const Expression& call, const Expression& lambda, int position,
                               const Schema& schema, const LambdaScope& scope,
                               const std::vector<DataTypePtr>& param_types,
                               std::vector<BoundExprPtr>* children) {
  if (lambda.GetOp() != Op::kLambda) {
    return CallError(call, fmt::format("argument {} must be a lambda function", position));
  }
  const size_t params = lambda.Children().size() - 1;
  if (params != param_types.size()) {
    return CallError(call, fmt::format("[INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH] A higher "
                                       "order function expects {} arguments, but got {}.",
                                       param_types.size(), params));
  }
  std::vector<Field> fields = schema.Fields();
  LambdaScope inner = scope;
  const int outer = schema.NumFields();
  for (size_t k = 0; k < params; ++k) {
    const std::string& name = lambda.Child(k + 1)->Name();
    for (size_t other = 0; other < k; ++other) {
      if (EqualsIgnoreAsciiCase(lambda.Child(other + 1)->Name(), name)) {
        return CallError(call, fmt::format("[INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES] "
                                           "The lambda function has duplicate arguments `{}`.",
                                           name));
      }
    }
    fields.emplace_back(name, param_types[k]);
    inner.emplace_back(name, outer + static_cast<int>(k));
  }
  const Schema extended(fields);
  TRIBUTARY_ASSIGN_OR_RAISE(auto body, BindInScope(*lambda.Child(0), extended, inner));
  std::vector<int> used;
  CollectColumns(*body, &used);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<int> index_of(fields.size(), -1);
  std::vector<Field> local;
  BoundLambda result;
  result.first_captured = children->size();
  for (int index : used) {
    if (index < outer) {
      const Field& field = fields[static_cast<size_t>(index)];
      index_of[static_cast<size_t>(index)] = static_cast<int>(local.size());
      local.push_back(field);
      children->push_back(
          MakeBound(Op::kColumn, field.Type(), {}, index, Scalar::Null(), field.Name()));
    }
  }
  result.num_captured = local.size();
  for (size_t k = 0; k < params; ++k) {
    index_of[static_cast<size_t>(outer) + k] = static_cast<int>(local.size());
    local.push_back(fields[static_cast<size_t>(outer) + k]);
  }
  result.body = Renumber(body, index_of);
  result.schema = std::make_shared<const Schema>(std::move(local));
  return result;
}

// The body of `lambda` over `rows` rows: the captured columns (among `args`, the call's
// evaluated children) taken at rows `parent`, then the parameter columns.
Result<ColumnPtr> RunLambda(const BoundLambda& lambda, const std::vector<ColumnPtr>& args,
                            std::span<const int64_t> parent, std::vector<ColumnPtr> params,
                            int64_t rows, const EvalContext& context) {
  std::vector<ColumnPtr> columns;
  for (size_t k = 0; k < lambda.num_captured; ++k) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto column, columnar::Take(*args[lambda.first_captured + k], parent, context.pool));
    columns.push_back(std::move(column));
  }
  for (ColumnPtr& param : params) {
    columns.push_back(std::move(param));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(lambda.schema, rows, std::move(columns)));
  return Evaluate(*lambda.body, *batch, context);
}

// The elements (or map entries) of the valid rows of an array or map column, in order.
struct Flattened {
  std::vector<int64_t> position;  // of each element in the column's children
  std::vector<int64_t> parent;    // the row of each element
  std::vector<int64_t> offsets;   // rows + 1: each row's elements in `position`
  std::vector<uint8_t> valid;     // per row
  bool identity = true;           // position[k] == k for every child row

  int64_t Size() const { return static_cast<int64_t>(position.size()); }
  int64_t RowSize(int64_t i) const {
    return offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)];
  }
};

Flattened Flatten(const Column& list) {
  Flattened out;
  const int64_t n = list.Length();
  out.offsets.reserve(static_cast<size_t>(n) + 1);
  out.offsets.push_back(0);
  out.valid.reserve(static_cast<size_t>(n));
  const int64_t* offsets = n > 0 ? list.Offsets() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = list.IsValid(i);
    out.valid.push_back(valid ? 1 : 0);
    if (valid) {
      for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
        out.identity = out.identity && j == out.Size();
        out.position.push_back(j);
        out.parent.push_back(i);
      }
    }
    out.offsets.push_back(out.Size());
  }
  out.identity = out.identity && out.Size() == list.Child(0)->Length();
  return out;
}

// Child `child` of the flattened column, one row per element.
Result<ColumnPtr> ChildAt(const Flattened& flat, const Column& list, int child, MemoryPool* pool) {
  if (flat.identity) {
    return list.Child(child);
  }
  return columnar::Take(*list.Child(child), flat.position, pool);
}

// The 0-based index of each element in its array (int32), for `(x, i) -> ...`.
Result<ColumnPtr> ElementIndexes(const Flattened& flat, MemoryPool* pool) {
  const int64_t total = flat.Size();
  TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Buffer::Allocate(total * 4, pool));
  auto* out = reinterpret_cast<int32_t*>(values->mutable_data());
  for (size_t i = 0; i + 1 < flat.offsets.size(); ++i) {
    for (int64_t k = flat.offsets[i]; k < flat.offsets[i + 1]; ++k) {
      out[k] = static_cast<int32_t>(k - flat.offsets[i]);
    }
  }
  return Column::Make(DataType::Int32(), total, nullptr, std::move(values));
}

// Whether row k of the boolean column is true (null counts as false).
bool IsTrue(const Column& column, int64_t k) {
  return column.IsValid(k) && column.Values<uint8_t>()[k] != 0;
}

// The parameter columns of an array lambda: the elements, and their indexes when it takes two.
Result<std::vector<ColumnPtr>> ElementParams(const Flattened& flat, const Column& array,
                                             const BoundLambda& lambda, MemoryPool* pool) {
  std::vector<ColumnPtr> params;
  TRIBUTARY_ASSIGN_OR_RAISE(auto elements, ChildAt(flat, array, 0, pool));
  params.push_back(std::move(elements));
  if (static_cast<size_t>(lambda.schema->NumFields()) - lambda.num_captured == 2) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto indexes, ElementIndexes(flat, pool));
    params.push_back(std::move(indexes));
  }
  return params;
}

// A higher-order function: `compute(args, context)` over the evaluated children (the regular
// arguments, then the lambdas' captured columns).
class HigherOrderFunction final : public EagerFunction {
 public:
  using Kernel = std::function<Result<ColumnPtr>(
      const BoundExpression& call, const std::vector<ColumnPtr>& args, const EvalContext& context)>;
  explicit HigherOrderFunction(Kernel kernel) : kernel_(std::move(kernel)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return kernel_(call, args, context);
  }

 private:
  Kernel kernel_;
};

BoundExprPtr MakeCall(const Expression& call, DataTypePtr type, std::vector<BoundExprPtr> children,
                      HigherOrderFunction::Kernel kernel) {
  return MakeFunctionCall(call.Name(), std::move(type), std::move(children),
                          std::make_shared<const HigherOrderFunction>(std::move(kernel)));
}

// How many parameters the lambda argument `i` of `call` declares (0 when not a lambda).
size_t LambdaArity(const Expression& call, size_t i) {
  const Expression& arg = *call.Child(i);
  return arg.GetOp() == Op::kLambda ? arg.Children().size() - 1 : 0;
}

Status RequireType(const Expression& call, const BoundExprPtr& arg, TypeId id, int position) {
  if (arg->Type()->Id() != id) {
    return CallError(
        call, fmt::format("argument {} must be {}, got {}", position,
                          id == TypeId::kArray ? "an array" : "a map", arg->Type()->ToString()));
  }
  return Status::OK();
}

Status RequireBooleanBody(const Expression& call, BoundLambda* lambda) {
  const TypeId id = lambda->body->Type()->Id();
  if (id == TypeId::kNull) {
    lambda->body = CastTo(std::move(lambda->body), DataType::Boolean());
  } else if (id != TypeId::kBoolean) {
    return CallError(
        call, "the lambda function must return a boolean, got " + lambda->body->Type()->ToString());
  }
  return Status::OK();
}

// transform(arr, x -> f) / transform(arr, (x, i) -> f).
Result<BoundExprPtr> BindTransform(const Expression& call, std::vector<BoundExprPtr> args,
                                   const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  std::vector<DataTypePtr> types = {args[0]->Type()->ElementType()};
  if (LambdaArity(call, 1) == 2) {
    types.push_back(DataType::Int32());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto lambda,
                            BindLambda(call, *call.Child(1), 2, schema, scope, types, &args));
  DataTypePtr type = DataType::Array(lambda.body->Type());
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda](const BoundExpression& c, const std::vector<ColumnPtr>& a,
               const EvalContext& context) -> Result<ColumnPtr> {
        const Flattened flat = Flatten(*a[0]);
        TRIBUTARY_ASSIGN_OR_RAISE(auto params, ElementParams(flat, *a[0], lambda, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto values, RunLambda(lambda, a, flat.parent, std::move(params),
                                                         flat.Size(), context));
        return MakeListColumn(c.Type(), flat.offsets, flat.valid, {std::move(values)},
                              context.pool);
      });
}

// filter(arr, x -> cond) / filter(arr, (x, i) -> cond): the elements where cond is true.
Result<BoundExprPtr> BindFilter(const Expression& call, std::vector<BoundExprPtr> args,
                                const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  std::vector<DataTypePtr> types = {args[0]->Type()->ElementType()};
  if (LambdaArity(call, 1) == 2) {
    types.push_back(DataType::Int32());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto lambda,
                            BindLambda(call, *call.Child(1), 2, schema, scope, types, &args));
  TRIBUTARY_RETURN_NOT_OK(RequireBooleanBody(call, &lambda));
  DataTypePtr type = args[0]->Type();
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda](const BoundExpression& c, const std::vector<ColumnPtr>& a,
               const EvalContext& context) -> Result<ColumnPtr> {
        const Flattened flat = Flatten(*a[0]);
        TRIBUTARY_ASSIGN_OR_RAISE(auto params, ElementParams(flat, *a[0], lambda, context.pool));
        const ColumnPtr elements = params[0];
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto keep, RunLambda(lambda, a, flat.parent, std::move(params), flat.Size(), context));
        std::vector<int64_t> kept;
        std::vector<int64_t> offsets = {0};
        for (size_t i = 0; i + 1 < flat.offsets.size(); ++i) {
          for (int64_t k = flat.offsets[i]; k < flat.offsets[i + 1]; ++k) {
            if (IsTrue(*keep, k)) {
              kept.push_back(k);
            }
          }
          offsets.push_back(static_cast<int64_t>(kept.size()));
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Take(*elements, kept, context.pool));
        return MakeListColumn(c.Type(), offsets, flat.valid, {std::move(values)}, context.pool);
      });
}

// exists(arr, x -> cond): true when cond holds for some element, else null when it is null for
// some, else false; forall(arr, x -> cond) dually (Spark's three-valued logic).
Result<BoundExprPtr> BindExistsForall(const Expression& call, std::vector<BoundExprPtr> args,
                                      const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  TRIBUTARY_ASSIGN_OR_RAISE(auto lambda, BindLambda(call, *call.Child(1), 2, schema, scope,
                                                    {args[0]->Type()->ElementType()}, &args));
  TRIBUTARY_RETURN_NOT_OK(RequireBooleanBody(call, &lambda));
  // exists looks for a true element, forall for a false one.
  const uint8_t decisive = call.Name() == "exists" ? 1 : 0;
  return MakeCall(
      call, DataType::Boolean(), std::move(args),
      [lambda, decisive](const BoundExpression&, const std::vector<ColumnPtr>& a,
                         const EvalContext& context) -> Result<ColumnPtr> {
        const Flattened flat = Flatten(*a[0]);
        TRIBUTARY_ASSIGN_OR_RAISE(auto params, ElementParams(flat, *a[0], lambda, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto cond, RunLambda(lambda, a, flat.parent, std::move(params), flat.Size(), context));
        const int64_t n = a[0]->Length();
        ColumnBuilder out(DataType::Boolean(), context.pool);
        out.Reserve(n);
        for (int64_t i = 0; i < n; ++i) {
          if (flat.valid[static_cast<size_t>(i)] == 0) {
            out.AppendNull();
            continue;
          }
          bool decided = false;
          bool saw_null = false;
          for (int64_t k = flat.offsets[static_cast<size_t>(i)];
               k < flat.offsets[static_cast<size_t>(i) + 1] && !decided; ++k) {
            if (cond->IsNull(k)) {
              saw_null = true;
            } else {
              decided = cond->Values<uint8_t>()[k] == decisive;
            }
          }
          if (decided) {
            out.AppendBoolean(decisive != 0);
          } else if (saw_null) {
            out.AppendNull();
          } else {
            out.AppendBoolean(decisive == 0);
          }
        }
        return out.Finish();
      });
}

// Whether `a` and `b` have the same shape when struct field names are ignored (Spark's
// DataType.equalsStructurally).
bool SameShapeIgnoringFieldNames(const DataType& a, const DataType& b) {
  if (a.Id() != b.Id()) {
    return false;
  }
  switch (a.Id()) {
    case TypeId::kStruct: {
      if (a.Fields().size() != b.Fields().size()) {
        return false;
      }
      for (size_t i = 0; i < a.Fields().size(); ++i) {
        if (!SameShapeIgnoringFieldNames(*a.Fields()[i].Type(), *b.Fields()[i].Type())) {
          return false;
        }
      }
      return true;
    }
    case TypeId::kArray:
      return SameShapeIgnoringFieldNames(*a.ElementType(), *b.ElementType());
    case TypeId::kMap:
      return SameShapeIgnoringFieldNames(*a.KeyType(), *b.KeyType()) &&
             SameShapeIgnoringFieldNames(*a.ValueType(), *b.ValueType());
    default:
      return a.SameShape(b);
  }
}

// aggregate(arr, zero, (acc, x) -> merge[, acc -> finish]), also named reduce. The fold is
// sequential within an array, so it runs one element position at a time over all rows.
Result<BoundExprPtr> BindAggregate(const Expression& call, std::vector<BoundExprPtr> args,
                                   const Schema& schema, const LambdaScope& scope) {
  if (call.Children().size() != 3 && call.Children().size() != 4) {
    return CallError(call, fmt::format("takes 3 or 4 arguments, got {}", call.Children().size()));
  }
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  const DataTypePtr element = args[0]->Type()->ElementType();
  DataTypePtr acc_type = args[1]->Type();
  const size_t regular = args.size();
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto merge, BindLambda(call, *call.Child(2), 3, schema, scope, {acc_type, element}, &args));
  if (!merge.body->Type()->SameShape(*acc_type) &&
      SameShapeIgnoringFieldNames(*merge.body->Type(), *acc_type)) {
    // Spark compares the two structurally (equalsStructurally): `(acc.sum + x, acc.n + 1)`
    // fits a zero of `(0 AS sum, 0 AS n)`; the result keeps the zero's field names.
    merge.body = CastTo(std::move(merge.body), acc_type);
  } else if (!merge.body->Type()->SameShape(*acc_type)) {
    // The zero value widens to what merge returns (0 with a bigint merge), then merge is bound
    // again over that accumulator.
    const DataTypePtr both[] = {acc_type, merge.body->Type()};
    DataTypePtr common = CommonType(both);
    if (common == nullptr) {
      return CallError(call, fmt::format("merge returns {}, which does not fit the zero value's "
                                         "type {}",
                                         merge.body->Type()->ToString(), acc_type->ToString()));
    }
    acc_type = common;
    args[1] = CastTo(std::move(args[1]), acc_type);
    args.resize(regular);
    TRIBUTARY_ASSIGN_OR_RAISE(
        merge, BindLambda(call, *call.Child(2), 3, schema, scope, {acc_type, element}, &args));
    merge.body = CastTo(std::move(merge.body), acc_type);
  }
  std::optional<BoundLambda> finish;
  DataTypePtr type = acc_type;
  if (call.Children().size() == 4) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        finish, BindLambda(call, *call.Child(3), 4, schema, scope, {acc_type}, &args));
    type = finish->body->Type();
  }
  return MakeCall(
      call, std::move(type), std::move(args),
      [merge, finish](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                      const EvalContext& context) -> Result<ColumnPtr> {
        MemoryPool* pool = context.pool;
        const Column& array = *a[0];
        const int64_t n = array.Length();
        // The rows with a valid array, and the accumulator of each (starting at zero).
        std::vector<int64_t> rows;
        for (int64_t i = 0; i < n; ++i) {
          if (array.IsValid(i)) {
            rows.push_back(i);
          }
        }
        TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr acc, columnar::Take(*a[1], rows, pool));
        const DataTypePtr folded_type = acc->Type();
        const int64_t* offsets = array.Offsets();
        std::vector<int64_t> active;  // positions in `rows` whose array is longer than k
        for (size_t p = 0; p < rows.size(); ++p) {
          active.push_back(static_cast<int64_t>(p));
        }
        for (int64_t k = 0; !active.empty(); ++k) {
          std::vector<int64_t> still;
          for (int64_t p : active) {
            const int64_t i = rows[static_cast<size_t>(p)];
            if (offsets[i + 1] - offsets[i] > k) {
              still.push_back(p);
            }
          }
          active.swap(still);
          if (active.empty()) {
            break;
          }
          std::vector<int64_t> parent;
          std::vector<int64_t> at;
          for (int64_t p : active) {
            const int64_t i = rows[static_cast<size_t>(p)];
            parent.push_back(i);
            at.push_back(offsets[i] + k);
          }
          TRIBUTARY_ASSIGN_OR_RAISE(auto acc_now, columnar::Take(*acc, active, pool));
          TRIBUTARY_ASSIGN_OR_RAISE(auto x, columnar::Take(*array.Child(0), at, pool));
          const auto m = static_cast<int64_t>(active.size());
          TRIBUTARY_ASSIGN_OR_RAISE(
              auto merged,
              RunLambda(merge, a, parent, {std::move(acc_now), std::move(x)}, m, context));
          // The new accumulators of the active rows, the old ones of the others.
          std::vector<int32_t> source(rows.size(), 0);
          std::vector<int64_t> source_row(rows.size());
          for (size_t p = 0; p < rows.size(); ++p) {
            source_row[p] = static_cast<int64_t>(p);
          }
          for (size_t q = 0; q < active.size(); ++q) {
            source[static_cast<size_t>(active[q])] = 1;
            source_row[static_cast<size_t>(active[q])] = static_cast<int64_t>(q);
          }
          const ColumnPtr sources[] = {acc, merged};
          TRIBUTARY_ASSIGN_OR_RAISE(acc,
                                    Interleave(folded_type, sources, source, source_row, pool));
        }
        if (finish.has_value()) {
          TRIBUTARY_ASSIGN_OR_RAISE(
              acc, RunLambda(*finish, a, rows, {acc}, static_cast<int64_t>(rows.size()), context));
        }
        // Back to one value per input row, null where the array is.
        std::vector<int32_t> source(static_cast<size_t>(n), -1);
        std::vector<int64_t> source_row(static_cast<size_t>(n), 0);
        for (size_t p = 0; p < rows.size(); ++p) {
          source[static_cast<size_t>(rows[p])] = 0;
          source_row[static_cast<size_t>(rows[p])] = static_cast<int64_t>(p);
        }
        const ColumnPtr sources[] = {acc};
        return Interleave(c.Type(), sources, source, source_row, pool);
      });
}

// zip_with(a, b, (x, y) -> f): f over the elements of a and b pairwise, as long as the longer
// array (the shorter's missing elements are null); null when either array is.
Result<BoundExprPtr> BindZipWith(const Expression& call, std::vector<BoundExprPtr> args,
                                 const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[1], TypeId::kArray, 2));
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto lambda,
      BindLambda(call, *call.Child(2), 3, schema, scope,
                 {args[0]->Type()->ElementType(), args[1]->Type()->ElementType()}, &args));
  DataTypePtr type = DataType::Array(lambda.body->Type());
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda](const BoundExpression& c, const std::vector<ColumnPtr>& a,
               const EvalContext& context) -> Result<ColumnPtr> {
        const Column& left = *a[0];
        const Column& right = *a[1];
        const int64_t n = left.Length();
        std::vector<int64_t> parent;
        std::vector<int64_t> offsets = {0};
        std::vector<uint8_t> valid;
        std::vector<int32_t> left_source;
        std::vector<int32_t> right_source;
        std::vector<int64_t> left_row;
        std::vector<int64_t> right_row;
        for (int64_t i = 0; i < n; ++i) {
          const bool is_valid = left.IsValid(i) && right.IsValid(i);
          valid.push_back(is_valid ? 1 : 0);
          if (is_valid) {
            const int64_t l_size = left.Offsets()[i + 1] - left.Offsets()[i];
            const int64_t r_size = right.Offsets()[i + 1] - right.Offsets()[i];
            for (int64_t k = 0; k < std::max(l_size, r_size); ++k) {
              parent.push_back(i);
              left_source.push_back(k < l_size ? 0 : -1);
              left_row.push_back(k < l_size ? left.Offsets()[i] + k : 0);
              right_source.push_back(k < r_size ? 0 : -1);
              right_row.push_back(k < r_size ? right.Offsets()[i] + k : 0);
            }
          }
          offsets.push_back(static_cast<int64_t>(parent.size()));
        }
        const ColumnPtr left_elements[] = {left.Child(0)};
        const ColumnPtr right_elements[] = {right.Child(0)};
        TRIBUTARY_ASSIGN_OR_RAISE(auto x, Interleave(left.Child(0)->Type(), left_elements,
                                                     left_source, left_row, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto y, Interleave(right.Child(0)->Type(), right_elements,
                                                     right_source, right_row, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                                  RunLambda(lambda, a, parent, {std::move(x), std::move(y)},
                                            static_cast<int64_t>(parent.size()), context));
        return MakeListColumn(c.Type(), offsets, valid, {std::move(values)}, context.pool);
      });
}

// array_sort(arr, (l, r) -> cmp): sorted by the comparator (negative: l first, 0: equal,
// positive: r first), stable. The comparator runs once over every pair of elements of each
// array, then each array is sorted with the results looked up.
Result<BoundExprPtr> BindArraySortWith(const Expression& call, std::vector<BoundExprPtr> args,
                                       const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kArray, 1));
  const DataTypePtr element = args[0]->Type()->ElementType();
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto lambda, BindLambda(call, *call.Child(1), 2, schema, scope, {element, element}, &args));
  if (!lambda.body->Type()->IsInteger()) {
    return CallError(
        call, "the comparator must return an integer, got " + lambda.body->Type()->ToString());
  }
  lambda.body = CastTo(std::move(lambda.body), DataType::Int64());
  DataTypePtr type = args[0]->Type();
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda](const BoundExpression& c, const std::vector<ColumnPtr>& a,
               const EvalContext& context) -> Result<ColumnPtr> {
        const Flattened flat = Flatten(*a[0]);
        TRIBUTARY_ASSIGN_OR_RAISE(auto elements, ChildAt(flat, *a[0], 0, context.pool));
        // Pair (p, q) of row i at pair_start[i] + (p - start) * size + (q - start).
        std::vector<int64_t> left;
        std::vector<int64_t> right;
        std::vector<int64_t> parent;
        std::vector<int64_t> pair_start;
        for (size_t i = 0; i + 1 < flat.offsets.size(); ++i) {
          pair_start.push_back(static_cast<int64_t>(left.size()));
          for (int64_t p = flat.offsets[i]; p < flat.offsets[i + 1]; ++p) {
            for (int64_t q = flat.offsets[i]; q < flat.offsets[i + 1]; ++q) {
              left.push_back(p);
              right.push_back(q);
              parent.push_back(static_cast<int64_t>(i));
            }
          }
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto l, columnar::Take(*elements, left, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto r, columnar::Take(*elements, right, context.pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto order,
                                  RunLambda(lambda, a, parent, {std::move(l), std::move(r)},
                                            static_cast<int64_t>(left.size()), context));
        for (int64_t k = 0; k < order->Length(); ++k) {
          if (order->IsNull(k)) {
            return Status::InvalidArgument(
                "[COMPARATOR_RETURNS_NULL] The comparator has returned a NULL for a comparison "
                "between two elements. It should return a positive integer for \"greater than\", "
                "0 for \"equal\" and a negative integer for \"less than\".");
          }
        }
        const int64_t* cmp = order->Values<int64_t>();
        std::vector<int64_t> sorted;
        sorted.reserve(static_cast<size_t>(flat.Size()));
        for (size_t i = 0; i + 1 < flat.offsets.size(); ++i) {
          const int64_t start = flat.offsets[i];
          const int64_t size = flat.offsets[i + 1] - start;
          const size_t first = sorted.size();
          for (int64_t p = start; p < start + size; ++p) {
            sorted.push_back(p);
          }
          std::stable_sort(sorted.begin() + static_cast<std::ptrdiff_t>(first), sorted.end(),
                           [&](int64_t p, int64_t q) {
                             return cmp[pair_start[i] + (p - start) * size + (q - start)] < 0;
                           });
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto values, columnar::Take(*elements, sorted, context.pool));
        return MakeListColumn(c.Type(), flat.offsets, flat.valid, {std::move(values)},
                              context.pool);
      });
}

// map_filter(m, (k, v) -> cond), transform_keys(m, (k, v) -> k2) and
// transform_values(m, (k, v) -> v2).
Result<BoundExprPtr> BindMapLambda(const Expression& call, std::vector<BoundExprPtr> args,
                                   const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kMap, 1));
  const DataType& map = *args[0]->Type();
  TRIBUTARY_ASSIGN_OR_RAISE(auto lambda, BindLambda(call, *call.Child(1), 2, schema, scope,
                                                    {map.KeyType(), map.ValueType()}, &args));
  enum class Kind { kFilter, kKeys, kValues };
  const Kind kind = call.Name() == "map_filter"       ? Kind::kFilter
                    : call.Name() == "transform_keys" ? Kind::kKeys
                                                      : Kind::kValues;
  DataTypePtr type = args[0]->Type();
  if (kind == Kind::kFilter) {
    TRIBUTARY_RETURN_NOT_OK(RequireBooleanBody(call, &lambda));
  } else if (kind == Kind::kKeys) {
    if (!IsOrderable(*lambda.body->Type()) || lambda.body->Type()->Id() == TypeId::kNull) {
      return CallError(call, "map keys cannot be of type " + lambda.body->Type()->ToString());
    }
    type = DataType::Map(lambda.body->Type(), map.ValueType(), map.ContainsNull());
  } else {
    type = DataType::Map(map.KeyType(), lambda.body->Type());
  }
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda, kind](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                     const EvalContext& context) -> Result<ColumnPtr> {
        MemoryPool* pool = context.pool;
        const Flattened flat = Flatten(*a[0]);
        TRIBUTARY_ASSIGN_OR_RAISE(auto keys, ChildAt(flat, *a[0], 0, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto values, ChildAt(flat, *a[0], 1, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto result, RunLambda(lambda, a, flat.parent, {keys, values}, flat.Size(), context));
        if (kind == Kind::kKeys) {
          TRIBUTARY_RETURN_NOT_OK(CheckMapKeys(*result, flat.offsets, context));
          return MakeListColumn(c.Type(), flat.offsets, flat.valid,
                                {std::move(result), std::move(values)}, pool);
        }
        if (kind == Kind::kValues) {
          return MakeListColumn(c.Type(), flat.offsets, flat.valid,
                                {std::move(keys), std::move(result)}, pool);
        }
        std::vector<int64_t> kept;
        std::vector<int64_t> offsets = {0};
        for (size_t i = 0; i + 1 < flat.offsets.size(); ++i) {
          for (int64_t k = flat.offsets[i]; k < flat.offsets[i + 1]; ++k) {
            if (IsTrue(*result, k)) {
              kept.push_back(k);
            }
          }
          offsets.push_back(static_cast<int64_t>(kept.size()));
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto kept_keys, columnar::Take(*keys, kept, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto kept_values, columnar::Take(*values, kept, pool));
        return MakeListColumn(c.Type(), offsets, flat.valid,
                              {std::move(kept_keys), std::move(kept_values)}, pool);
      });
}

// map_zip_with(m1, m2, (k, v1, v2) -> f): over the keys of m1 then those only in m2, with the
// value of each map (null where a map lacks the key); null when either map is.
Result<BoundExprPtr> BindMapZipWith(const Expression& call, std::vector<BoundExprPtr> args,
                                    const Schema& schema, const LambdaScope& scope) {
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[0], TypeId::kMap, 1));
  TRIBUTARY_RETURN_NOT_OK(RequireType(call, args[1], TypeId::kMap, 2));
  const DataTypePtr key_types[] = {args[0]->Type()->KeyType(), args[1]->Type()->KeyType()};
  DataTypePtr key = CommonType(key_types);
  if (key == nullptr) {
    return CallError(call, fmt::format("the maps' keys have no common type ({} and {})",
                                       key_types[0]->ToString(), key_types[1]->ToString()));
  }
  for (auto& arg : args) {
    const DataType& map = *arg->Type();
    if (!map.KeyType()->SameShape(*key)) {
      arg = CastTo(std::move(arg), DataType::Map(key, map.ValueType(), map.ContainsNull()));
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto lambda,
      BindLambda(call, *call.Child(2), 3, schema, scope,
                 {key, args[0]->Type()->ValueType(), args[1]->Type()->ValueType()}, &args));
  DataTypePtr type = DataType::Map(key, lambda.body->Type());
  return MakeCall(
      call, std::move(type), std::move(args),
      [lambda](const BoundExpression& c, const std::vector<ColumnPtr>& a,
               const EvalContext& context) -> Result<ColumnPtr> {
        MemoryPool* pool = context.pool;
        const Column& m1 = *a[0];
        const Column& m2 = *a[1];
        const Column& keys1 = *m1.Child(0);
        const Column& keys2 = *m2.Child(0);
        std::vector<int64_t> parent;
        std::vector<int64_t> offsets = {0};
        std::vector<uint8_t> valid;
        std::vector<int32_t> key_source;
        std::vector<int64_t> key_row;
        std::vector<int32_t> v1_source;
        std::vector<int64_t> v1_row;
        std::vector<int32_t> v2_source;
        std::vector<int64_t> v2_row;
        for (int64_t i = 0; i < m1.Length(); ++i) {
          const bool is_valid = m1.IsValid(i) && m2.IsValid(i);
          valid.push_back(is_valid ? 1 : 0);
          if (is_valid) {
            const int64_t b1 = m1.Offsets()[i];
            const int64_t e1 = m1.Offsets()[i + 1];
            const int64_t b2 = m2.Offsets()[i];
            const int64_t e2 = m2.Offsets()[i + 1];
            const auto find2 = [&](int64_t p) {
              for (int64_t q = b2; q < e2; ++q) {
                if (CompareValues(keys1, p, keys2, q) == 0) {
                  return q;
                }
              }
              return int64_t{-1};
            };
            for (int64_t p = b1; p < e1; ++p) {
              const int64_t q = find2(p);
              parent.push_back(i);
              key_source.push_back(0);
              key_row.push_back(p);
              v1_source.push_back(0);
              v1_row.push_back(p);
              v2_source.push_back(q < 0 ? -1 : 0);
              v2_row.push_back(q < 0 ? 0 : q);
            }
            for (int64_t q = b2; q < e2; ++q) {
              bool in_first = false;
              for (int64_t p = b1; p < e1 && !in_first; ++p) {
                in_first = CompareValues(keys1, p, keys2, q) == 0;
              }
              if (!in_first) {
                parent.push_back(i);
                key_source.push_back(1);
                key_row.push_back(q);
                v1_source.push_back(-1);
                v1_row.push_back(0);
                v2_source.push_back(0);
                v2_row.push_back(q);
              }
            }
          }
          offsets.push_back(static_cast<int64_t>(parent.size()));
        }
        const ColumnPtr key_sources[] = {m1.Child(0), m2.Child(0)};
        const ColumnPtr v1_sources[] = {m1.Child(1)};
        const ColumnPtr v2_sources[] = {m2.Child(1)};
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto keys, Interleave(m1.Child(0)->Type(), key_sources, key_source, key_row, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto v1, Interleave(m1.Child(1)->Type(), v1_sources, v1_source, v1_row, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto v2, Interleave(m2.Child(1)->Type(), v2_sources, v2_source, v2_row, pool));
        TRIBUTARY_ASSIGN_OR_RAISE(auto values,
                                  RunLambda(lambda, a, parent, {keys, std::move(v1), std::move(v2)},
                                            static_cast<int64_t>(parent.size()), context));
        return MakeListColumn(c.Type(), offsets, valid, {std::move(keys), std::move(values)}, pool);
      });
}

using HigherOrderBinder = Result<BoundExprPtr> (*)(const Expression& call,
                                                   std::vector<BoundExprPtr> args,
                                                   const Schema& schema, const LambdaScope& scope);

struct HigherOrderEntry {
  std::string_view name;
  HigherOrderBinder bind;
  size_t regular_args;  // before the lambdas
  size_t min_args;
  size_t max_args;
};

constexpr HigherOrderEntry kHigherOrderFunctions[] = {
    {"transform", BindTransform, 1, 2, 2},        {"filter", BindFilter, 1, 2, 2},
    {"exists", BindExistsForall, 1, 2, 2},        {"forall", BindExistsForall, 1, 2, 2},
    {"aggregate", BindAggregate, 2, 3, 4},        {"reduce", BindAggregate, 2, 3, 4},
    {"zip_with", BindZipWith, 2, 3, 3},           {"array_sort", BindArraySortWith, 1, 2, 2},
    {"map_filter", BindMapLambda, 1, 2, 2},       {"transform_keys", BindMapLambda, 1, 2, 2},
    {"transform_values", BindMapLambda, 1, 2, 2}, {"map_zip_with", BindMapZipWith, 2, 3, 3},
};

}  // namespace

Result<BoundExprPtr> BindHigherOrderCall(const Expression& call, const Schema& schema,
                                         const LambdaScope& scope) {
  const HigherOrderEntry* entry = nullptr;
  for (const HigherOrderEntry& candidate : kHigherOrderFunctions) {
    if (candidate.name == call.Name()) {
      entry = &candidate;
    }
  }
  if (entry == nullptr) {
    return CallError(call, "takes no lambda function arguments");
  }
  const size_t n = call.Children().size();
  if (n < entry->min_args || n > entry->max_args) {
    return CallError(call, entry->min_args == entry->max_args
                               ? fmt::format("takes {} arguments, got {}", entry->min_args, n)
                               : fmt::format("takes {} to {} arguments, got {}", entry->min_args,
                                             entry->max_args, n));
  }
  // The regular arguments, bound where the call is; lambdas are bound by each function, which
  // knows their parameter types.
  std::vector<BoundExprPtr> args;
  for (const ExprPtr& child : call.Children()) {
    if (child->GetOp() == Op::kLambda) {
      break;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, BindInScope(*child, schema, scope));
    args.push_back(std::move(bound));
  }
  for (size_t i = 0; i < n; ++i) {
    if ((call.Child(i)->GetOp() == Op::kLambda) != (i >= entry->regular_args)) {
      if (i < entry->regular_args) {
        return CallError(call, fmt::format("argument {} cannot be a lambda function", i + 1));
      }
      return CallError(call, fmt::format("argument {} must be a lambda function", i + 1));
    }
  }
  return entry->bind(call, std::move(args), schema, scope);
}

}  // namespace tributary::expr
