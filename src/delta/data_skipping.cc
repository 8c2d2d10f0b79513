#include "delta/data_skipping.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "delta/stats_parsed.h"
#include "expr/backquoted_name.h"

namespace tributary::delta {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;
using expr::Expression;
using expr::ExprPtr;
using expr::Op;
using nlohmann::json;

namespace {

std::string MinName(const std::string& column) {
  return "__min." + column;
}
std::string MaxName(const std::string& column) {
  return "__max." + column;
}
std::string NullsName(const std::string& column) {
  return "__nulls." + column;
}
constexpr const char* kNumRecords = "__numRecords";

bool SupportsMinMax(const DataType& type) {
  return type.IsNumeric() || type.Id() == TypeId::kDate || type.Id() == TypeId::kTimestamp ||
         type.Id() == TypeId::kTimestampNtz || type.Id() == TypeId::kString;
}

// Rewrites `e` into an expression over partition columns and stats columns that is true (or
// null) whenever a file may hold a matching row. `stats_columns` collects the data columns
// whose statistics the rewrite uses.
class Rewriter {
 public:
  Rewriter(const columnar::Schema& schema, const std::vector<std::string>& partitions)
      : schema_(schema), partitions_(partitions) {}

  std::vector<std::string> stats_columns;

  ExprPtr Rewrite(const ExprPtr& e) {
    switch (e->GetOp()) {
      case Op::kAnd:
        return expr::And(Rewrite(e->Child(0)), Rewrite(e->Child(1)));
      case Op::kOr:
        return expr::Or(Rewrite(e->Child(0)), Rewrite(e->Child(1)));
      case Op::kIsNull:
      case Op::kIsNotNull:
        if (IsPartitionExpr(*e)) {
          return e;
        }
        if (auto column = DataColumn(e->Child(0))) {
          Use(*column);
          return e->GetOp() == Op::kIsNull
                     ? expr::Call(Op::kGreater, {expr::Col(Quoted(NullsName(*column))),
                                                 expr::Lit(expr::Scalar::Int64(0))})
                     : expr::Call(Op::kLess,
                                  {expr::Col(Quoted(NullsName(*column))), expr::Col(kNumRecords)});
        }
        return True();
      case Op::kEqual:
      case Op::kNotEqual:
      case Op::kLess:
      case Op::kLessEqual:
      case Op::kGreater:
      case Op::kGreaterEqual:
        return RewriteComparison(e);
      case Op::kIn:
      case Op::kBetween:
      case Op::kNot:
      default:
        return IsPartitionExpr(*e) ? e : True();
    }
  }

 private:
  static ExprPtr True() { return expr::Lit(expr::Scalar::Boolean(true)); }
  static std::string Quoted(const std::string& name) { return expr::BackquotedName(name); }

  bool IsPartition(const std::string& name) const {
    return std::find(partitions_.begin(), partitions_.end(), name) != partitions_.end();
  }
  // Whether `e` references only partition columns and literals.
  bool IsPartitionExpr(const Expression& e) const {
    if (e.GetOp() == Op::kColumn) {
      return IsPartition(e.Name());
    }
    if (e.GetOp() == Op::kGetField) {
      return false;
    }
    for (const ExprPtr& child : e.Children()) {
      if (!IsPartitionExpr(*child)) {
        return false;
      }
    }
    return true;
  }
  // The name of a top-level data column with min/max statistics, when `e` is one.
  std::optional<std::string> DataColumn(const ExprPtr& e) const {
    if (e->GetOp() != Op::kColumn || IsPartition(e->Name())) {
      return std::nullopt;
    }
    const int index = schema_.FieldIndex(e->Name());
    if (index < 0 || !SupportsMinMax(*schema_.FieldAt(index).Type())) {
      return std::nullopt;
    }
    return e->Name();
  }
  void Use(const std::string& column) {
    if (std::find(stats_columns.begin(), stats_columns.end(), column) == stats_columns.end()) {
      stats_columns.push_back(column);
    }
  }

  ExprPtr RewriteComparison(const ExprPtr& e) {
    if (IsPartitionExpr(*e)) {
      return e;
    }
    ExprPtr left = e->Child(0);
    ExprPtr right = e->Child(1);
    Op op = e->GetOp();
    if (left->GetOp() == Op::kLiteral && right->GetOp() == Op::kColumn) {
      std::swap(left, right);
      op = op == Op::kLess           ? Op::kGreater
           : op == Op::kLessEqual    ? Op::kGreaterEqual
           : op == Op::kGreater      ? Op::kLess
           : op == Op::kGreaterEqual ? Op::kLessEqual
                                     : op;
    }
    auto column = DataColumn(left);
    if (!column || right->GetOp() != Op::kLiteral || right->Literal().IsNull()) {
      return True();
    }
    Use(*column);
    // A comparison with null is never true: a file whose values are all null cannot match.
    ExprPtr not_all_null =
        expr::Call(Op::kLess, {expr::Col(Quoted(NullsName(*column))), expr::Col(kNumRecords)});
    return expr::And(Bounds(op, *column, right), not_all_null);
  }

  static ExprPtr Bounds(Op op, const std::string& column, const ExprPtr& right) {
    ExprPtr min = expr::Col(Quoted(MinName(column)));
    ExprPtr max = expr::Col(Quoted(MaxName(column)));
    switch (op) {
      case Op::kEqual:
        return expr::And(expr::Call(Op::kLessEqual, {min, right}),
                         expr::Call(Op::kGreaterEqual, {max, right}));
      case Op::kNotEqual:
        return expr::Not(
            expr::And(expr::Call(Op::kEqual, {min, right}), expr::Call(Op::kEqual, {max, right})));
      case Op::kLess:
        return expr::Call(Op::kLess, {min, right});
      case Op::kLessEqual:
        return expr::Call(Op::kLessEqual, {min, right});
      case Op::kGreater:
        return expr::Call(Op::kGreater, {max, right});
      default:
        return expr::Call(Op::kGreaterEqual, {max, right});
    }
  }

  const columnar::Schema& schema_;
  const std::vector<std::string>& partitions_;
};

std::optional<std::string> StatText(const json& stats, const char* section,
                                    const std::string& column) {
  auto it = stats.find(section);
  if (it == stats.end() || !it->is_object()) {
    return std::nullopt;
  }
  auto value = it->find(column);
  if (value == it->end() || value->is_null() || value->is_object()) {
    return std::nullopt;
  }
  return value->is_string() ? value->get<std::string>() : value->dump();
}

}  // namespace

Result<std::vector<const AddFile*>> PruneFiles(const Snapshot& snapshot,
                                               const Expression& predicate,
                                               const expr::EvalContext& context) {
  const columnar::Schema& schema = *snapshot.Schema();
  const auto& partitions = snapshot.GetMetadata().partition_columns;
  // Binding the original predicate first reports unknown columns and type errors to the caller.
  TRIBUTARY_RETURN_NOT_OK(expr::Bind(predicate, schema).status());
  Rewriter rewriter(schema, partitions);
  ExprPtr skipping = rewriter.Rewrite(std::make_shared<const Expression>(predicate));
  const auto& files = snapshot.Files();
  const auto n = static_cast<int64_t>(files.size());
  std::vector<Field> fields;
  std::vector<ColumnPtr> columns;
  for (const std::string& name : partitions) {
    const int index = schema.FieldIndex(name);
    if (index < 0) {
      continue;
    }
    std::vector<std::optional<std::string>> texts;
    for (const AddFile& add : files) {
      auto it = add.partition_values.find(name);
      texts.push_back(it == add.partition_values.end() || (it->second && it->second->empty())
                          ? std::nullopt
                          : it->second);
    }
    const DataTypePtr& type = schema.FieldAt(index).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, ColumnFromTexts(texts, type, context));
    fields.emplace_back(name, type);
    columns.push_back(std::move(column));
  }
  std::vector<json> stats;
  stats.reserve(files.size());
  for (const AddFile& add : files) {
    stats.push_back(add.stats ? json::parse(*add.stats, nullptr, false) : json());
  }
  {
    std::vector<std::optional<std::string>> records;
    records.reserve(stats.size());
    for (const json& s : stats) {
      records.push_back(s.is_object() && s.contains("numRecords")
                            ? std::optional<std::string>(s["numRecords"].dump())
                            : std::nullopt);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, ColumnFromTexts(records, DataType::Int64(), context));
    fields.emplace_back(kNumRecords, DataType::Int64());
    columns.push_back(std::move(column));
  }
  for (const std::string& name : rewriter.stats_columns) {
    const DataTypePtr& type = schema.FieldAt(schema.FieldIndex(name)).Type();
    std::vector<std::optional<std::string>> mins;
    std::vector<std::optional<std::string>> maxs;
    std::vector<std::optional<std::string>> nulls;
    for (const json& s : stats) {
      const bool ok = s.is_object();
      mins.push_back(ok ? StatText(s, "minValues", name) : std::nullopt);
      maxs.push_back(ok ? StatText(s, "maxValues", name) : std::nullopt);
      nulls.push_back(ok ? StatText(s, "nullCount", name) : std::nullopt);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto min, ColumnFromTexts(mins, type, context));
    TRIBUTARY_ASSIGN_OR_RAISE(auto max, ColumnFromTexts(maxs, type, context));
    if (type->Id() == TypeId::kTimestamp || type->Id() == TypeId::kTimestampNtz) {
      // Timestamp statistics are cut to milliseconds: widen the max to stay an upper bound.
      TRIBUTARY_ASSIGN_OR_RAISE(auto widened, columnar::Buffer::Allocate(n * 8, context.pool));
      const int64_t* in = max->Values<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        widened->MutableDataAs<int64_t>()[i] = in[i] > INT64_MAX - 999 ? in[i] : in[i] + 999;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(max, Column::Make(type, n, max->ValidityBuffer(),
                                                  columnar::BufferPtr(std::move(widened))));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto null_count, ColumnFromTexts(nulls, DataType::Int64(), context));
    fields.emplace_back(MinName(name), type);
    columns.push_back(std::move(min));
    fields.emplace_back(MaxName(name), type);
    columns.push_back(std::move(max));
    fields.emplace_back(NullsName(name), DataType::Int64());
    columns.push_back(std::move(null_count));
  }
  auto metadata_schema = std::make_shared<const columnar::Schema>(std::move(fields));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batch,
                            columnar::RecordBatch::Make(metadata_schema, n, std::move(columns)));
  TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*skipping, *metadata_schema));
  TRIBUTARY_ASSIGN_OR_RAISE(auto mask, expr::Evaluate(*bound, *batch, context));
  std::vector<const AddFile*> kept;
  for (int64_t i = 0; i < n; ++i) {
    // Null means the metadata cannot tell: keep the file.
    if (mask->IsNull(i) || mask->Values<uint8_t>()[i] != 0) {
      kept.push_back(&files[static_cast<size_t>(i)]);
    }
  }
  return kept;
}

Result<std::function<bool(const PartitionValues&)>> PartitionPredicate(
    const columnar::Schema& schema, const std::vector<std::string>& partition_columns,
    const expr::ExprPtr& predicate, const expr::EvalContext& context) {
  std::vector<Field> fields;
  for (const std::string& name : partition_columns) {
    const int index = schema.FieldIndex(name);
    if (index >= 0) {
      fields.push_back(schema.FieldAt(index));
    }
  }
  auto partition_schema = std::make_shared<const columnar::Schema>(fields);
  auto bound = expr::Bind(*predicate, *partition_schema);
  if (!bound.ok()) {
    return Status::InvalidArgument(fmt::format(
        "the predicate {} must reference partition columns only ({}): {}", predicate->ToString(),
        fmt::join(partition_columns, ", "), bound.status().Message()));
  }
  auto evaluator = [partition_schema, bound = *bound,
                    context](const PartitionValues& values) -> bool {
    std::vector<ColumnPtr> columns;
    for (const Field& field : partition_schema->Fields()) {
      auto it = values.find(field.Name());
      std::vector<std::optional<std::string>> text = {
          it == values.end() || (it->second && it->second->empty()) ? std::nullopt : it->second};
      auto column = ColumnFromTexts(text, field.Type(), context);
      if (!column.ok()) {
        return true;  // unreadable value: assume it matches, the safe side for conflicts
      }
      columns.push_back(*column);
    }
    auto batch = columnar::RecordBatch::Make(partition_schema, 1, std::move(columns));
    if (!batch.ok()) {
      return true;
    }
    auto mask = expr::Evaluate(*bound, **batch, context);
    return !mask.ok() || ((*mask)->IsValid(0) && (*mask)->Values<uint8_t>()[0] != 0);
  };
  return std::function<bool(const PartitionValues&)>(evaluator);
}

}  // namespace tributary::delta
