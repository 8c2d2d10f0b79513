// Binding the clauses that reshape a FROM clause (parser_pivot.cc): LATERAL VIEW, PIVOT,
// UNPIVOT and TABLESAMPLE, each rewritten into plans the engine already runs.
//
// PIVOT is Spark's ResolvePivot as one aggregation: grouped by the input's columns that neither
// the aggregates nor the pivot columns read, each aggregate once per pivot value, its arguments
// wrapped in CASE WHEN pivot <=> value THEN arg END (so it sees only that value's rows; first and
// last ignore nulls, as Spark's rewrite makes them). Where every aggregate's type is one Spark
// pivots in two phases (PivotFirst: numbers and booleans), a value no row of the group has gives
// null, not the aggregate over no rows (count is null there, as in Spark).
//
// UNPIVOT is Spark's Expand: each row becomes one row per column set, the set's name and its
// values cast to the value columns' common types, through inline(array(named_struct(...))); with
// EXCLUDE NULLS (the default) rows whose values are all null are dropped.
//
// TABLESAMPLE (n ROWS) is a LIMIT, as Spark's; x PERCENT and BUCKET x OUT OF y keep each row
// with that probability, drawn from a hash of a random UUID per row, or with REPEATABLE (seed)
// from a hash of the seed and the row's values, so the same seed picks the same rows of the
// same data (rows with equal values are then kept or dropped together).

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "columnar/record_batch.h"
#include "common/ascii.h"
#include "expr/bound_expression.h"
#include "expr/coercion.h"
#include "expr/evaluator.h"
#include "plan/plan_builder.h"
#include "sql/binder_internal.h"

namespace tributary::sql::internal {
namespace {

using expr::ExprPtr;
using expr::Op;
using plan::LogicalPlanPtr;

bool PivotReadsColumn(const expr::BoundExpression& e) {
  return e.GetOp() == Op::kColumn ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const expr::BoundExprPtr& c) { return PivotReadsColumn(*c); });
}

void MarkPivotColumns(const expr::BoundExpression& e, std::vector<bool>* used) {
  if (e.GetOp() == Op::kColumn && e.Index() >= 0 && static_cast<size_t>(e.Index()) < used->size()) {
    (*used)[static_cast<size_t>(e.Index())] = true;
  }
  for (const expr::BoundExprPtr& child : e.Children()) {
    MarkPivotColumns(*child, used);
  }
}

// Marks the input columns `e` (unbound, aggregates allowed) reads: each column reference (or
// field path) in it resolved on its own. Lambda variables do not resolve and are skipped.
void MarkPivotReferencedColumns(const expr::Expression& e, const plan::LogicalPlan& input,
                                std::vector<bool>* used) {
  if (e.GetOp() == Op::kColumn || e.GetOp() == Op::kGetField) {
    auto bound = plan::Resolve(e, input);
    if (bound.ok()) {
      MarkPivotColumns(**bound, used);
      return;
    }
  }
  for (const ExprPtr& child : e.Children()) {
    MarkPivotReferencedColumns(*child, input, used);
  }
}

ExprPtr RebuildPivotNode(const expr::Expression& node, std::vector<ExprPtr> children) {
  return std::make_shared<expr::Expression>(node.GetOp(), std::move(children), node.Name(),
                                            node.Literal(), node.TargetType(), node.IsDistinct(),
                                            node.Window());
}

// Whether `type` is or holds a map (which neither compares nor hashes, as in Spark).
bool PivotContainsMap(const columnar::DataType& type) {
  switch (type.Id()) {
    case columnar::TypeId::kMap:
      return true;
    case columnar::TypeId::kArray:
      return PivotContainsMap(*type.ElementType());
    case columnar::TypeId::kStruct:
      return std::any_of(type.Fields().begin(), type.Fields().end(),
                         [](const columnar::Field& f) { return PivotContainsMap(*f.Type()); });
    default:
      return false;
  }
}

// The column of the group, as the aggregation reads it (the input's column `index`, exactly).
ExprPtr ExactInputColumn(const plan::LogicalPlan& input, int index) {
  return plan::ExactColumn(plan::ResolutionSchema(input)->FieldAt(index).Name());
}

class PivotBinder {
 public:
  PivotBinder(const Statement& statement, const PivotClause& pivot, LogicalPlanPtr input,
              const expr::EvalContext& eval)
      : statement_(statement), pivot_(pivot), input_(std::move(input)), eval_(eval) {}

  Result<LogicalPlanPtr> Bind() {
    const int columns = input_->Schema()->NumFields();
    std::vector<bool> used(static_cast<size_t>(columns), false);
    std::vector<columnar::DataTypePtr> pivot_types;
    for (const ExprPtr& column : pivot_.columns) {
      auto bound = plan::Resolve(*column, *input_);
      if (!bound.ok()) {
        return StatusAt(statement_, bound.status(), *column);
      }
      if (PivotContainsMap(*(*bound)->Type())) {
        return StatusAt(statement_,
                        Status::InvalidArgument(fmt::format(
                            "[INCOMPARABLE_PIVOT_COLUMN] Invalid pivot column {}. Pivot columns "
                            "must be comparable.",
                            QuotedName(*column))),
                        *column);
      }
      pivot_types.push_back((*bound)->Type());
      MarkPivotColumns(**bound, &used);
    }
    for (const PivotAggregate& aggregate : pivot_.aggregates) {
      TRIBUTARY_RETURN_NOT_OK(CheckAggregate(*aggregate.expr));
      MarkPivotReferencedColumns(*aggregate.expr, *input_, &used);
    }
    // The types of the aggregates decide between Spark's two plans (see the top of the file).
    bool two_phase = true;
    for (const PivotAggregate& aggregate : pivot_.aggregates) {
      auto probe = plan::Aggregate(input_, {}, {{aggregate.expr, "probe"}}, nullptr);
      if (!probe.ok()) {
        return StatusAt(statement_, probe.status(), *aggregate.expr);
      }
      two_phase = two_phase && PivotsInTwoPhases(*(*probe)->Schema()->FieldAt(0).Type());
    }
    std::vector<ExprPtr> keys;
    std::vector<plan::NamedExpr> items;
    for (int i = 0; i < columns; ++i) {
      if (!used[static_cast<size_t>(i)]) {
        keys.push_back(ExactInputColumn(*input_, i));
        items.push_back({keys.back(), input_->Schema()->FieldAt(i).Name()});
      }
    }
    for (const PivotValue& value : pivot_.values) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr condition, ValueCondition(value, pivot_types));
      TRIBUTARY_ASSIGN_OR_RAISE(std::string value_name, ValueName(value));
      for (const PivotAggregate& aggregate : pivot_.aggregates) {
        ExprPtr filtered = FilteredAggregate(aggregate.expr, condition);
        if (two_phase) {
          const ExprPtr seen = expr::Call(
              Op::kGreater,
              {expr::Function(
                   "count",
                   {expr::CaseWhen({{condition, expr::Lit(expr::Scalar::Int32(1))}}, nullptr)}),
               expr::Lit(expr::Scalar::Int64(0))});
          filtered = expr::CaseWhen({{seen, filtered}}, nullptr);
        }
        std::string name = value_name;
        if (pivot_.aggregates.size() > 1) {
          name += fmt::format("_{}", aggregate.alias.empty() ? plan::DerivedName(*aggregate.expr)
                                                             : aggregate.alias);
        }
        items.push_back({std::move(filtered), std::move(name)});
      }
    }
    auto aggregated = plan::Aggregate(input_, keys, items, nullptr);
    if (!aggregated.ok()) {
      return StatusAt(statement_, aggregated.status(), pivot_.position);
    }
    return aggregated;
  }

 private:
  // Spark's PivotFirst.supportsDataType.
  static bool PivotsInTwoPhases(const columnar::DataType& type) {
    switch (type.Id()) {
      case columnar::TypeId::kBoolean:
      case columnar::TypeId::kInt8:
      case columnar::TypeId::kInt16:
      case columnar::TypeId::kInt32:
      case columnar::TypeId::kInt64:
      case columnar::TypeId::kFloat32:
      case columnar::TypeId::kFloat64:
      case columnar::TypeId::kDecimal:
        return true;
      default:
        return false;
    }
  }

  static std::string QuotedName(const expr::Expression& column) {
    return fmt::format("`{}`", column.ToString());
  }

  // Spark's checkValidAggregateExpression: a column outside every aggregate call is an error.
  Status CheckAggregate(const expr::Expression& e) const {
    if (e.GetOp() == Op::kFunction && expr::IsAggregateFunctionName(e.Name())) {
      return Status::OK();
    }
    if (e.GetOp() == Op::kColumn || e.GetOp() == Op::kGetField) {
      return StatusAt(statement_,
                      Status::InvalidArgument(fmt::format(
                          "Aggregate expression required for pivot, but '{}' did not appear in "
                          "any aggregate function.",
                          e.ToString())),
                      e);
    }
    for (const ExprPtr& child : e.Children()) {
      TRIBUTARY_RETURN_NOT_OK(CheckAggregate(*child));
    }
    return Status::OK();
  }

  // `aggregate` with each aggregate call fed only the rows where `condition` holds.
  static ExprPtr FilteredAggregate(const ExprPtr& e, const ExprPtr& condition) {
    const auto when = [&](ExprPtr value) {
      return expr::CaseWhen({{condition, std::move(value)}}, nullptr);
    };
    if (e->GetOp() == Op::kFunction && expr::IsAggregateFunctionName(e->Name())) {
      std::vector<ExprPtr> args = e->Children();
      const std::string name = AsciiLower(e->Name());
      if (args.empty()) {
        args.push_back(when(expr::Lit(expr::Scalar::Int32(1))));
      } else if (name == "first" || name == "last" || name == "first_value" ||
                 name == "last_value" || name == "any_value") {
        args = {when(args[0]), expr::Lit(expr::Scalar::Boolean(true))};
      } else {
        for (size_t i = 0; i < args.size(); ++i) {
          if (i == 0 || ReadsColumns(*args[i])) {
            args[i] = when(std::move(args[i]));
          }
        }
      }
      return RebuildPivotNode(*e, std::move(args));
    }
    if (e->Children().empty()) {
      return e;
    }
    std::vector<ExprPtr> children;
    for (const ExprPtr& child : e->Children()) {
      children.push_back(FilteredAggregate(child, condition));
    }
    return RebuildPivotNode(*e, std::move(children));
  }

  static bool ReadsColumns(const expr::Expression& e) {
    return e.GetOp() == Op::kColumn || e.GetOp() == Op::kGetField ||
           std::any_of(e.Children().begin(), e.Children().end(),
                       [](const ExprPtr& child) { return ReadsColumns(*child); });
  }

  Status TypeMismatch(const PivotValue& value, const ExprPtr& part,
                      const columnar::DataType& pivot_type,
                      const columnar::DataType& value_type) const {
    auto text = ConstantText(part);
    return StatusAt(
        statement_,
        Status::InvalidArgument(fmt::format(
            "[PIVOT_VALUE_DATA_TYPE_MISMATCH] Invalid pivot value '{}': value data "
            "type {} does not match pivot column data type {}.",
            text.ok() ? *text : part->ToString(), value_type.ToString(), pivot_type.ToString())),
        *value.value);
  }

  // `column <=> CAST(value AS column's type)`; a struct value `(v1, v2)` against a struct
  // column compares field by field.
  Result<ExprPtr> Match(const PivotValue& value, const ExprPtr& column,
                        const columnar::DataTypePtr& type, const ExprPtr& part) const {
    const bool tuple = part->GetOp() == Op::kFunction && AsciiLower(part->Name()) == "struct";
    if (type->Id() == columnar::TypeId::kStruct && tuple &&
        part->Children().size() == type->Fields().size()) {
      ExprPtr all;
      for (size_t i = 0; i < type->Fields().size(); ++i) {
        const columnar::Field& field = type->Fields()[i];
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr equal, Match(value, expr::GetField(column, field.Name()),
                                                       field.Type(), part->Child(i)));
        all = all == nullptr ? equal : expr::And(all, equal);
      }
      return all;
    }
    auto bound = plan::Resolve(*part, *input_);
    if (!bound.ok()) {
      return StatusAt(statement_, bound.status(), *part);
    }
    if (PivotReadsColumn(**bound)) {
      return StatusAt(statement_,
                      Status::InvalidArgument(fmt::format(
                          "[NON_LITERAL_PIVOT_VALUES] Literal expressions required for pivot "
                          "values, found \"{}\".",
                          part->ToString())),
                      *part);
    }
    if (!expr::CanCast(*(*bound)->Type(), *type)) {
      return TypeMismatch(value, part, *type, *(*bound)->Type());
    }
    ExprPtr cast = (*bound)->Type()->Equals(*type) ? part : expr::Cast(part, type);
    if (type->Id() == columnar::TypeId::kArray || type->Id() == columnar::TypeId::kStruct) {
      // Arrays and structs do not compare here: their JSON texts do, equal exactly when the
      // values are (same type on both sides, nulls as absent fields).
      const auto json = [](ExprPtr e) {
        return expr::Function(
            "to_json",
            {expr::Function("named_struct", {expr::Lit(expr::Scalar::String("v")), std::move(e)})});
      };
      return expr::Call(Op::kEqual, {json(column), json(std::move(cast))});
    }
    return expr::Call(Op::kNullSafeEqual, {column, std::move(cast)});
  }

  Result<ExprPtr> ValueCondition(const PivotValue& value,
                                 const std::vector<columnar::DataTypePtr>& types) const {
    if (!pivot_.tuple) {
      return Match(value, pivot_.columns[0], types[0], value.value);
    }
    const expr::Expression& tuple = *value.value;
    const bool is_tuple = tuple.GetOp() == Op::kFunction && AsciiLower(tuple.Name()) == "struct";
    if (!is_tuple || tuple.Children().size() != pivot_.columns.size()) {
      std::string pivot_type = "struct<";
      for (size_t i = 0; i < pivot_.columns.size(); ++i) {
        pivot_type += fmt::format("{}{}:{}", i > 0 ? "," : "",
                                  plan::DerivedName(*pivot_.columns[i]), types[i]->ToString());
      }
      auto bound = plan::Resolve(tuple, *input_);
      const std::string value_type = bound.ok() ? (*bound)->Type()->ToString() : "unknown";
      auto text = ConstantText(value.value);
      return StatusAt(statement_,
                      Status::InvalidArgument(fmt::format(
                          "[PIVOT_VALUE_DATA_TYPE_MISMATCH] Invalid pivot value '{}': value data "
                          "type {} does not match pivot column data type {}>.",
                          text.ok() ? *text : tuple.ToString(), value_type, pivot_type)),
                      tuple);
    }
    ExprPtr all;
    for (size_t i = 0; i < pivot_.columns.size(); ++i) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr equal,
                                Match(value, pivot_.columns[i], types[i], tuple.Child(i)));
      all = all == nullptr ? equal : expr::And(all, equal);
    }
    return all;
  }

  // The value as Spark names its column: CAST(value AS STRING), `{a, b}` for a tuple.
  Result<std::string> ConstantText(const ExprPtr& value) const {
    if (value->GetOp() == Op::kFunction && AsciiLower(value->Name()) == "struct") {
      std::string out = "{";
      for (size_t i = 0; i < value->Children().size(); ++i) {
        TRIBUTARY_ASSIGN_OR_RAISE(std::string part, ConstantText(value->Child(i)));
        out += fmt::format("{}{}", i > 0 ? ", " : "", part);
      }
      out += '}';
      return out;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        expr::Scalar text, ConstantValue(*expr::Cast(value, columnar::DataType::String()), eval_));
    return text.IsNull() ? std::string("null") : text.BytesValue();
  }

  Result<std::string> ValueName(const PivotValue& value) const {
    if (!value.alias.empty()) {
      return value.alias;
    }
    auto text = ConstantText(value.value);
    if (!text.ok()) {
      return StatusAt(statement_, text.status(), *value.value);
    }
    return text;
  }

  const Statement& statement_;
  const PivotClause& pivot_;
  LogicalPlanPtr input_;
  const expr::EvalContext& eval_;
};

Result<LogicalPlanPtr> BindUnpivot(const Statement& statement, const UnpivotClause& unpivot,
                                   LogicalPlanPtr input) {
  const size_t width = unpivot.value_columns.size();
  std::string sizes;
  bool sizes_match = true;
  for (const UnpivotClause::ColumnSet& set : unpivot.sets) {
    sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", set.columns.size());
    sizes_match = sizes_match && set.columns.size() == width;
  }
  if (!sizes_match) {
    return StatusAt(statement,
                    Status::InvalidArgument(fmt::format(
                        "[UNPIVOT_VALUE_SIZE_MISMATCH] All unpivot value columns must have the "
                        "same size as there are value column names ({}); the column sets have "
                        "{}.",
                        width, sizes)),
                    unpivot.position);
  }
  const int columns = input->Schema()->NumFields();
  std::vector<bool> used(static_cast<size_t>(columns), false);
  // Per value column, the type of each set's column there.
  std::vector<std::vector<columnar::DataTypePtr>> types(width);
  for (const UnpivotClause::ColumnSet& set : unpivot.sets) {
    for (size_t j = 0; j < width; ++j) {
      auto bound = plan::Resolve(*set.columns[j], *input);
      if (!bound.ok()) {
        return StatusAt(statement, bound.status(), *set.columns[j]);
      }
      MarkPivotColumns(**bound, &used);
      types[j].push_back((*bound)->Type());
    }
  }
  std::vector<columnar::DataTypePtr> common(width);
  for (size_t j = 0; j < width; ++j) {
    common[j] = expr::CommonType(types[j]);
    if (common[j] == nullptr) {
      std::string listed;
      for (const columnar::DataTypePtr& type : types[j]) {
        listed += fmt::format("{}{}", listed.empty() ? "" : ", ", AsciiUpper(type->ToString()));
      }
      return StatusAt(statement,
                      Status::InvalidArgument(fmt::format(
                          "[UNPIVOT_VALUE_DATA_TYPE_MISMATCH] Unpivot value columns must share a "
                          "least common type, some types do not: [{}].",
                          listed)),
                      unpivot.position);
    }
  }
  std::vector<ExprPtr> rows;
  for (size_t s = 0; s < unpivot.sets.size(); ++s) {
    const UnpivotClause::ColumnSet& set = unpivot.sets[s];
    std::string name = set.alias;
    if (name.empty()) {
      for (const ExprPtr& column : set.columns) {
        name += fmt::format("{}{}", name.empty() ? "" : "_", plan::DerivedName(*column));
      }
    }
    std::vector<ExprPtr> fields = {expr::Lit(expr::Scalar::String("n")),
                                   expr::Lit(expr::Scalar::String(name))};
    for (size_t j = 0; j < width; ++j) {
      fields.push_back(expr::Lit(expr::Scalar::String(fmt::format("v{}", j))));
      fields.push_back(types[j][s]->Equals(*common[j]) ? set.columns[j]
                                                       : expr::Cast(set.columns[j], common[j]));
    }
    rows.push_back(expr::Function("named_struct", std::move(fields)));
  }
  std::vector<std::string> names = {unpivot.name_column};
  names.insert(names.end(), unpivot.value_columns.begin(), unpivot.value_columns.end());
  const ExprPtr generator = expr::Function("inline", {expr::Function("array", std::move(rows))});
  auto generated = plan::Generate(input, *generator, false, names, "");
  if (!generated.ok()) {
    return StatusAt(statement, generated.status(), unpivot.position);
  }
  LogicalPlanPtr plan = *std::move(generated);
  if (!unpivot.include_nulls) {
    ExprPtr any_value;
    for (size_t j = 0; j < width; ++j) {
      ExprPtr present = expr::IsNotNull(ExactInputColumn(*plan, columns + 1 + static_cast<int>(j)));
      any_value = any_value == nullptr ? present : expr::Or(any_value, present);
    }
    auto filtered = plan::Filter(plan, any_value);
    if (!filtered.ok()) {
      return StatusAt(statement, filtered.status(), unpivot.position);
    }
    plan = *std::move(filtered);
  }
  std::vector<plan::NamedExpr> items;
  for (int i = 0; i < plan->Schema()->NumFields(); ++i) {
    if (i >= columns || !used[static_cast<size_t>(i)]) {
      items.push_back({ExactInputColumn(*plan, i), plan->Schema()->FieldAt(i).Name()});
    }
  }
  auto projected = plan::Select(plan, items);
  return projected.ok() ? projected : StatusAt(statement, projected.status(), unpivot.position);
}

}  // namespace

Result<expr::Scalar> ConstantValue(const expr::Expression& e, const expr::EvalContext& eval) {
  auto schema = std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{});
  TRIBUTARY_ASSIGN_OR_RAISE(expr::BoundExprPtr bound, expr::Bind(e, *schema));
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch,
                            columnar::RecordBatch::Make(schema, 1, {}));
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, expr::Evaluate(*bound, *batch, eval));
  if (column->IsNull(0)) {
    return expr::Scalar::Null(column->Type());
  }
  if (column->Type()->Id() == columnar::TypeId::kString) {
    return expr::Scalar::String(std::string(column->BytesAt(0)));
  }
  if (column->Type()->Id() == columnar::TypeId::kInt32) {
    return expr::Scalar::Int32(column->Values<int32_t>()[0]);
  }
  if (column->Type()->Id() == columnar::TypeId::kInt64) {
    return expr::Scalar::Int64(column->Values<int64_t>()[0]);
  }
  return Status::InvalidArgument(fmt::format("'{}' is not a constant of a simple type: {}",
                                             e.ToString(), column->Type()->ToString()));
}

Result<LogicalPlanPtr> BindFromClauseExtension(const Statement& statement, const Relation& relation,
                                               LogicalPlanPtr input,
                                               const expr::EvalContext& eval) {
  Result<LogicalPlanPtr> bound = Status::Internal("not a FROM clause extension");
  if (relation.lateral_view != nullptr) {
    const LateralViewClause& view = *relation.lateral_view;
    bound = plan::Generate(std::move(input), *view.generator, view.outer, view.column_aliases,
                           view.table_alias);
    if (!bound.ok()) {
      return StatusAt(statement, bound.status(), *view.generator);
    }
    return bound;
  }
  if (relation.pivot != nullptr) {
    bound = PivotBinder(statement, *relation.pivot, std::move(input), eval).Bind();
  } else if (relation.unpivot != nullptr) {
    bound = BindUnpivot(statement, *relation.unpivot, std::move(input));
  }
  TRIBUTARY_RETURN_NOT_OK(bound.status());
  if (relation.alias.empty()) {
    return bound;
  }
  return (*bound)->WithAlias(relation.alias);
}

Result<LogicalPlanPtr> BindTableSample(const Statement& statement, const TableSampleClause& sample,
                                       LogicalPlanPtr input, const expr::EvalContext& eval) {
  if (sample.method == TableSampleClause::Method::kRows) {
    auto rows = ConstantValue(*sample.rows, eval);
    if (!rows.ok() || rows->IsNull() ||
        (rows->Type()->Id() != columnar::TypeId::kInt32 &&
         rows->Type()->Id() != columnar::TypeId::kInt64)) {
      return StatusAt(statement,
                      Status::InvalidArgument(fmt::format(
                          "[INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE] The limit like expression "
                          "\"{}\" is invalid. The limit expression must be integer type, but got "
                          "\"{}\".",
                          sample.rows->ToString(),
                          rows.ok() ? AsciiUpper(rows->Type()->ToString()) : "a non-constant")),
                      *sample.rows);
    }
    if (rows->IntValue() < 0) {
      return StatusAt(statement,
                      Status::InvalidArgument(fmt::format(
                          "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The limit like expression "
                          "\"{}\" is invalid. The limit expression must be equal to or greater "
                          "than 0, but got {}.",
                          sample.rows->ToString(), rows->IntValue())),
                      *sample.rows);
    }
    return plan::Limit(std::move(input), rows->IntValue());
  }
  if (sample.fraction >= 1.0) {
    return input;
  }
  // A draw in [0, 1e6) per row, kept below fraction * 1e6.
  constexpr int64_t kResolution = 1000000;
  std::vector<ExprPtr> hashed;
  if (sample.seed.has_value()) {
    hashed.push_back(expr::Lit(expr::Scalar::Int64(*sample.seed)));
    for (int i = 0; i < input->Schema()->NumFields(); ++i) {
      if (!PivotContainsMap(*input->Schema()->FieldAt(i).Type())) {
        hashed.push_back(ExactInputColumn(*input, i));
      }
    }
  } else {
    hashed.push_back(expr::Function("uuid", {}));
  }
  // Not pmod, which evaluates its argument more than once (uuid() would differ each time).
  const ExprPtr draw = expr::Call(
      Op::kRemainder,
      {expr::Function("&", {expr::Function("xxhash64", std::move(hashed)),
                            expr::Lit(expr::Scalar::Int64(std::numeric_limits<int64_t>::max()))}),
       expr::Lit(expr::Scalar::Int64(kResolution))});
  const auto threshold = static_cast<int64_t>(sample.fraction * static_cast<double>(kResolution));
  auto filtered = plan::Filter(
      std::move(input), expr::Call(Op::kLess, {draw, expr::Lit(expr::Scalar::Int64(threshold))}));
  return filtered.ok() ? filtered : StatusAt(statement, filtered.status(), sample.position);
}

Result<bool> BindMultiAliasGenerator(const Statement& statement,
                                     const std::vector<SelectItem>& select, LogicalPlanPtr* input,
                                     std::vector<plan::NamedExpr>* items) {
  const auto multi = std::find_if(select.begin(), select.end(),
                                  [](const SelectItem& item) { return !item.aliases.empty(); });
  if (multi == select.end()) {
    return false;
  }
  const expr::Expression& call = *multi->expr;
  if (call.GetOp() != Op::kFunction || !expr::IsGeneratorFunctionName(call.Name())) {
    std::string names;
    for (const std::string& name : multi->aliases) {
      names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
    }
    return StatusAt(statement,
                    Status::InvalidArgument(fmt::format(
                        "[MULTI_ALIAS_WITHOUT_GENERATOR] Multi part aliasing ({}) is not "
                        "supported with {} as it is not a generator function.",
                        names, call.ToString())),
                    call);
  }
  for (const SelectItem& item : select) {
    if (&item != &*multi && !item.IsStar() && item.expr->GetOp() == Op::kFunction &&
        expr::IsGeneratorFunctionName(item.expr->Name())) {
      return StatusAt(statement,
                      Status::InvalidArgument(
                          fmt::format("only one generator is allowed per SELECT: '{}' and '{}'",
                                      call.ToString(), item.expr->ToString())),
                      *item.expr);
    }
  }
  const LogicalPlanPtr before = *input;
  const int first = before->Schema()->NumFields();
  auto generated = plan::Generate(before, call, false, multi->aliases, "");
  if (!generated.ok()) {
    return StatusAt(statement, generated.status(), call);
  }
  const plan::LogicalPlan& over = **generated;
  for (const SelectItem& item : select) {
    if (&item == &*multi) {
      for (int g = first; g < over.Schema()->NumFields(); ++g) {
        items->push_back({ExactInputColumn(over, g), over.Schema()->FieldAt(g).Name()});
      }
    } else if (item.IsStar()) {
      bool any = false;
      for (int i = 0; i < first; ++i) {
        if (!item.star_qualifier.empty() &&
            !EqualsIgnoreAsciiCase(before->Qualifiers()[static_cast<size_t>(i)],
                                   item.star_qualifier.back())) {
          continue;
        }
        any = true;
        items->push_back({ExactInputColumn(over, i), over.Schema()->FieldAt(i).Name()});
      }
      if (!any) {
        return StatusAt(statement,
                        Status::InvalidArgument(fmt::format(
                            "'{0}.*': no table or alias named '{0}'", item.star_qualifier.back())),
                        item.position);
      }
    } else {
      items->push_back({item.expr, item.alias});
    }
  }
  *input = *std::move(generated);
  return true;
}

// `e` with each column reference that resolves in the lateral subquery's FROM item `inner`
// read from there in the join of the outer row and `inner` (whose columns start at `offset`,
// named `name#index` as plan::ResolutionSchema names them): the inner scope wins over the outer
// row's columns of the same name, as Spark resolves a correlated subquery.
ExprPtr PreferLateralColumns(const ExprPtr& e, const plan::LogicalPlan& inner, int offset) {
  if (e->GetOp() == Op::kColumn || e->GetOp() == Op::kGetField) {
    auto bound = plan::Resolve(*e, inner);
    if (bound.ok() && (*bound)->GetOp() == Op::kColumn) {
      const int index = (*bound)->Index();
      return plan::ExactColumn(
          fmt::format("{}#{}", inner.Schema()->FieldAt(index).Name(), offset + index));
    }
  }
  if (e->Children().empty()) {
    return e;
  }
  std::vector<ExprPtr> children;
  for (const ExprPtr& child : e->Children()) {
    children.push_back(PreferLateralColumns(child, inner, offset));
  }
  return RebuildPivotNode(*e, std::move(children));
}

namespace {

// A lateral join's output: `joined` projected to `expressions` (the left side's columns first,
// then the subquery's), the subquery's columns renamed by the alias's column list when it has
// one, and the join's ON condition applied above.
Result<LogicalPlanPtr> LateralOutput(const Statement& statement, const Relation& join,
                                     const Relation& right, LogicalPlanPtr joined,
                                     std::vector<expr::BoundExprPtr> expressions,
                                     std::vector<std::string> names,
                                     std::vector<std::string> qualifiers, int left_columns) {
  if (!right.column_aliases.empty()) {
    const size_t produced = names.size() - static_cast<size_t>(left_columns);
    if (produced != right.column_aliases.size()) {
      return StatusAt(statement,
                      Status::InvalidArgument(fmt::format(
                          "number of column aliases does not match number of columns: {} has {} "
                          "columns, {} aliases",
                          right.alias, produced, right.column_aliases.size())),
                      right.position);
    }
    std::copy(right.column_aliases.begin(), right.column_aliases.end(),
              names.begin() + left_columns);
  }
  LogicalPlanPtr projected = std::make_shared<plan::ProjectNode>(
      std::move(joined), std::move(expressions), names, std::move(qualifiers));
  if (join.condition == nullptr) {
    return projected;
  }
  auto filtered = plan::Filter(std::move(projected), join.condition);
  return filtered.ok() ? filtered : StatusAt(statement, filtered.status(), *join.condition);
}

}  // namespace

// LATERAL (SELECT aggregates FROM r WHERE local AND inner = outer AND ...): one row per outer
// row, decorrelated as Spark does a correlated scalar subquery: `r` filtered by the local
// conjuncts and grouped by the inner sides of the equalities, left-joined to the outer rows on
// them; an outer row without a group gets the aggregates over no rows (count 0, the "count
// bug"), computed once over `r` filtered to nothing.
Result<LogicalPlanPtr> BindLateralAggregate(const Statement& statement, const Relation& join,
                                            LogicalPlanPtr left, LogicalPlanPtr from) {
  const Relation& right = *join.right;
  const Query& query = *right.subquery;
  const auto unsupported = [&]() {
    return StatusAt(statement,
                    Status::NotImplemented(
                        "a LATERAL subquery with aggregates is supported only when correlated "
                        "by equalities between its columns and the outer ones"),
                    right.position);
  };
  std::vector<ExprPtr> conjuncts;
  std::vector<ExprPtr> pending;
  if (query.where != nullptr) {
    pending.push_back(query.where);
  }
  while (!pending.empty()) {
    ExprPtr e = pending.back();
    pending.pop_back();
    if (e->GetOp() == Op::kAnd) {
      pending.push_back(e->Child(1));
      pending.push_back(e->Child(0));
    } else {
      conjuncts.push_back(std::move(e));
    }
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> keys;  // inner, outer
  for (const ExprPtr& conjunct : conjuncts) {
    auto filtered = plan::Filter(from, conjunct);
    if (filtered.ok()) {
      from = *std::move(filtered);
      continue;
    }
    if (conjunct->GetOp() != Op::kEqual) {
      return unsupported();
    }
    const bool left_inner = plan::Resolve(*conjunct->Child(0), *from).ok();
    const bool right_inner = plan::Resolve(*conjunct->Child(1), *from).ok();
    const ExprPtr& outer_side = left_inner ? conjunct->Child(1) : conjunct->Child(0);
    if (left_inner == right_inner || !plan::Resolve(*outer_side, *left).ok()) {
      return unsupported();
    }
    keys.emplace_back(left_inner ? conjunct->Child(0) : conjunct->Child(1), outer_side);
  }
  std::vector<ExprPtr> group;
  std::vector<plan::NamedExpr> items;
  std::vector<plan::NamedExpr> empty_items;
  for (size_t k = 0; k < keys.size(); ++k) {
    group.push_back(keys[k].first);
    items.push_back({keys[k].first, fmt::format("__lateral_key_{}", k)});
  }
  for (size_t i = 0; i < query.select.size(); ++i) {
    items.push_back({query.select[i].expr, fmt::format("__lateral_value_{}", i)});
    empty_items.push_back({query.select[i].expr, fmt::format("__lateral_empty_{}", i)});
  }
  auto grouped = plan::Aggregate(from, group, items, nullptr);
  if (!grouped.ok()) {
    return StatusAt(statement, grouped.status(), right.position);
  }
  LogicalPlanPtr joined;
  if (keys.empty()) {
    auto crossed = plan::Join(left, *std::move(grouped), exec::JoinType::kCross, nullptr);
    if (!crossed.ok()) {
      return StatusAt(statement, crossed.status(), right.position);
    }
    joined = *std::move(crossed);
  } else {
    ExprPtr on;
    for (size_t k = 0; k < keys.size(); ++k) {
      ExprPtr equal = expr::Call(
          Op::kEqual, {keys[k].second, plan::ExactColumn(fmt::format("__lateral_key_{}", k))});
      on = on == nullptr ? equal : expr::And(on, equal);
    }
    auto none = plan::Filter(from, expr::Lit(expr::Scalar::Boolean(false)));
    Result<LogicalPlanPtr> over_nothing = none.ok()
                                              ? plan::Aggregate(*none, {}, empty_items, nullptr)
                                              : Result<LogicalPlanPtr>(none.status());
    auto matched = plan::Join(left, *std::move(grouped), exec::JoinType::kLeft, on);
    if (!over_nothing.ok() || !matched.ok()) {
      return StatusAt(statement, matched.ok() ? over_nothing.status() : matched.status(),
                      right.position);
    }
    auto crossed =
        plan::Join(*std::move(matched), *std::move(over_nothing), exec::JoinType::kCross, nullptr);
    if (!crossed.ok()) {
      return StatusAt(statement, crossed.status(), right.position);
    }
    joined = *std::move(crossed);
  }
  const int left_columns = left->Schema()->NumFields();
  std::vector<expr::BoundExprPtr> expressions;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (int i = 0; i < left_columns; ++i) {
    expressions.push_back(plan::ColumnRef(*joined, i));
    names.push_back(left->Schema()->FieldAt(i).Name());
    qualifiers.push_back(left->Qualifiers()[static_cast<size_t>(i)]);
  }
  for (size_t i = 0; i < query.select.size(); ++i) {
    ExprPtr value = plan::ExactColumn(fmt::format("__lateral_value_{}", i));
    if (!keys.empty()) {
      value = expr::CaseWhen({{expr::IsNull(plan::ExactColumn("__lateral_key_0")),
                               plan::ExactColumn(fmt::format("__lateral_empty_{}", i))}},
                             value);
    }
    auto bound = plan::Resolve(*value, *joined);
    if (!bound.ok()) {
      return StatusAt(statement, bound.status(), *query.select[i].expr);
    }
    expressions.push_back(*std::move(bound));
    const SelectItem& item = query.select[i];
    names.push_back(item.alias.empty() ? plan::DerivedName(*item.expr) : item.alias);
    qualifiers.push_back(right.alias);
  }
  return LateralOutput(statement, join, right, std::move(joined), std::move(expressions),
                       std::move(names), std::move(qualifiers), left_columns);
}

Result<LogicalPlanPtr> BindLateralJoin(
    const Statement& statement, const Relation& join, LogicalPlanPtr left,
    const std::function<Result<LogicalPlanPtr>(const Relation&)>& bind_relation) {
  const Relation& right = *join.right;
  const Query& query = *right.subquery;
  if (join.join_kind != JoinKind::kInner && join.join_kind != JoinKind::kCross &&
      join.join_kind != JoinKind::kLeft) {
    return StatusAt(statement,
                    Status::InvalidArgument(fmt::format(
                        "[INVALID_LATERAL_JOIN_TYPE] The {} JOIN with LATERAL correlation is not "
                        "allowed because an OUTER subquery cannot correlate to its join partner. "
                        "Remove the LATERAL correlation or use an INNER JOIN, or LEFT OUTER JOIN "
                        "instead.",
                        JoinKindName(join.join_kind))),
                    join.position);
  }
  const bool outer = join.join_kind == JoinKind::kLeft;
  const bool global_aggregate =
      query.kind == QueryKind::kSelect && query.with.empty() && query.from != nullptr &&
      query.group_by.empty() && query.having == nullptr && query.qualify == nullptr &&
      query.limit == nullptr && query.offset == nullptr && !query.distinct &&
      query.order_by.empty() &&
      std::none_of(query.select.begin(), query.select.end(),
                   [](const SelectItem& item) {
                     return item.IsStar() || !item.aliases.empty() ||
                            expr::ContainsWindow(*item.expr);
                   }) &&
      std::any_of(query.select.begin(), query.select.end(),
                  [](const SelectItem& item) { return expr::ContainsAggregate(*item.expr); });
  if (global_aggregate && !(outer && join.condition != nullptr)) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr from, bind_relation(*query.from));
    return BindLateralAggregate(statement, join, std::move(left), std::move(from));
  }
  const auto computes = [](const SelectItem& item) {
    return !item.IsStar() &&
           (expr::ContainsAggregate(*item.expr) || expr::ContainsWindow(*item.expr) ||
            (!item.aliases.empty() && !expr::IsGeneratorFunctionName(item.expr->Name())));
  };
  const bool simple = query.kind == QueryKind::kSelect && query.with.empty() &&
                      query.group_by.empty() && query.having == nullptr &&
                      query.qualify == nullptr && query.limit == nullptr &&
                      query.offset == nullptr && !query.distinct && query.order_by.empty() &&
                      std::none_of(query.select.begin(), query.select.end(), computes);
  if (!simple || (outer && join.condition != nullptr)) {
    return StatusAt(statement,
                    Status::NotImplemented(
                        "LATERAL subqueries are supported as SELECT ... [FROM ...] [WHERE ...] "
                        "without grouping, window functions, DISTINCT, ORDER BY or LIMIT (an "
                        "aggregate only over all the rows, correlated by equalities), joined by "
                        "INNER, CROSS or LEFT JOIN (LEFT without ON)"),
                    right.position);
  }
  const int left_columns = left->Schema()->NumFields();
  LogicalPlanPtr joined = left;
  // Whether the subquery gave the row (LEFT JOIN): its marker column, or the FROM-less WHERE.
  ExprPtr present;
  const int right_first = left_columns;
  // The subquery's FROM item as filtered, whose names the SELECT list reads first.
  LogicalPlanPtr inner;
  int right_columns = 0;
  if (query.from != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr from, bind_relation(*query.from));
    right_columns = from->Schema()->NumFields();
    // Conjuncts that resolve inside the subquery filter it; the others read the outer row and
    // join on it.
    ExprPtr correlation;
    std::vector<ExprPtr> conjuncts;
    std::vector<ExprPtr> pending;
    if (query.where != nullptr) {
      pending.push_back(query.where);
    }
    while (!pending.empty()) {
      ExprPtr e = pending.back();
      pending.pop_back();
      if (e->GetOp() == Op::kAnd) {
        pending.push_back(e->Child(1));
        pending.push_back(e->Child(0));
        continue;
      }
      conjuncts.push_back(std::move(e));
    }
    for (const ExprPtr& conjunct : conjuncts) {
      auto filtered = plan::Filter(from, conjunct);
      if (filtered.ok()) {
        from = *std::move(filtered);
      } else if (filtered.status().Message().find("cannot resolve column") != std::string::npos ||
                 filtered.status().Message().find("UNRESOLVED_COLUMN") != std::string::npos) {
        const ExprPtr outer_read = PreferLateralColumns(conjunct, *from, left_columns);
        correlation = correlation == nullptr ? outer_read : expr::And(correlation, outer_read);
      } else {
        return StatusAt(statement, filtered.status(), *conjunct);
      }
    }
    if (outer) {
      auto marked = plan::WithColumn(from, "__lateral_row", expr::Lit(expr::Scalar::Boolean(true)));
      if (!marked.ok()) {
        return StatusAt(statement, marked.status(), right.position);
      }
      from = *std::move(marked);
    }
    const exec::JoinType type = outer                    ? exec::JoinType::kLeft
                                : correlation == nullptr ? exec::JoinType::kCross
                                                         : exec::JoinType::kInner;
    ExprPtr on = correlation;
    if (outer && on == nullptr) {
      on = expr::Lit(expr::Scalar::Boolean(true));
    }
    inner = from;
    auto both = plan::Join(left, std::move(from), type, on);
    if (!both.ok()) {
      return correlation != nullptr ? StatusAt(statement, both.status(), *correlation)
                                    : StatusAt(statement, both.status(), right.position);
    }
    joined = *std::move(both);
    if (outer) {
      present = expr::IsNotNull(ExactInputColumn(*joined, left_columns + right_columns));
    }
  } else if (query.where != nullptr) {
    if (outer) {
      present = query.where;
    } else {
      auto filtered = plan::Filter(joined, query.where);
      if (!filtered.ok()) {
        return StatusAt(statement, filtered.status(), *query.where);
      }
      joined = *std::move(filtered);
    }
  }
  std::vector<expr::BoundExprPtr> expressions;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (int i = 0; i < left_columns; ++i) {
    expressions.push_back(plan::ColumnRef(*joined, i));
    names.push_back(left->Schema()->FieldAt(i).Name());
    qualifiers.push_back(left->Qualifiers()[static_cast<size_t>(i)]);
  }
  const auto add = [&](const ExprPtr& e, std::string name) -> Status {
    const ExprPtr value = present == nullptr ? e : expr::CaseWhen({{present, e}}, nullptr);
    auto bound = plan::Resolve(*value, *joined);
    if (!bound.ok()) {
      return StatusAt(statement, bound.status(), *e);
    }
    expressions.push_back(*std::move(bound));
    names.push_back(std::move(name));
    qualifiers.push_back(right.alias);
    return Status::OK();
  };
  for (const SelectItem& item : query.select) {
    if (item.IsStar()) {
      for (int i = right_first; i < right_first + right_columns; ++i) {
        TRIBUTARY_RETURN_NOT_OK(
            add(ExactInputColumn(*joined, i), joined->Schema()->FieldAt(i).Name()));
      }
      continue;
    }
    const ExprPtr value =
        inner == nullptr ? item.expr : PreferLateralColumns(item.expr, *inner, left_columns);
    if (item.expr->GetOp() == Op::kFunction && expr::IsGeneratorFunctionName(item.expr->Name())) {
      // A generator's rows join each row (LEFT JOIN keeps a row it makes none for); the plan
      // keeps its columns where they are, so what is bound stays valid.
      const int before = joined->Schema()->NumFields();
      std::vector<std::string> generated_names = item.aliases;
      if (!item.alias.empty()) {
        generated_names.push_back(item.alias);
      }
      auto generated = plan::Generate(joined, *value, outer, generated_names, "");
      if (!generated.ok()) {
        return StatusAt(statement, generated.status(), *item.expr);
      }
      joined = *std::move(generated);
      for (int g = before; g < joined->Schema()->NumFields(); ++g) {
        TRIBUTARY_RETURN_NOT_OK(
            add(ExactInputColumn(*joined, g), joined->Schema()->FieldAt(g).Name()));
      }
      continue;
    }
    TRIBUTARY_RETURN_NOT_OK(
        add(value, item.alias.empty() ? plan::DerivedName(*item.expr) : item.alias));
  }
  return LateralOutput(statement, join, right, std::move(joined), std::move(expressions),
                       std::move(names), std::move(qualifiers), left_columns);
}

}  // namespace tributary::sql::internal
