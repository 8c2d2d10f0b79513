#include "tributary/column.h"

#include <limits>

#include <fmt/format.h>

#include "api/api_access.h"
#include "columnar/sql_type_parser.h"
#include "expr/expression.h"
#include "sql/parser.h"

namespace tributary {

namespace {

using expr::ExprPtr;
using expr::Op;

// A column over `e`, carrying the first build error of the columns it was made from.
Column Wrap(ExprPtr e, std::initializer_list<const Column*> from = {}) {
  Column out = ApiAccess::MakeColumn(std::move(e));
  for (const Column* source : from) {
    if (!source->Error().empty()) {
      return ApiAccess::WithError(out, source->Error());
    }
  }
  return out;
}

Column Wrap(ExprPtr e, const std::vector<Column>& from) {
  Column out = ApiAccess::MakeColumn(std::move(e));
  for (const Column& source : from) {
    if (!source.Error().empty()) {
      return ApiAccess::WithError(out, source.Error());
    }
  }
  return out;
}

std::vector<ExprPtr> Exprs(const std::vector<Column>& columns) {
  std::vector<ExprPtr> out;
  out.reserve(columns.size());
  for (const Column& c : columns) {
    out.push_back(ApiAccess::Expr(c));
  }
  return out;
}

}  // namespace

Column::Column(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& Column::Error() const {
  return impl_->error;
}

Column Column::WithError(std::string error) const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->error = std::move(error);
  return Column(std::move(impl));
}

Column Column::WithOrder(bool ascending, bool nulls_first) const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->ascending = ascending;
  impl->nulls_first = nulls_first;
  return Column(std::move(impl));
}

Column Column::CastTo(std::string_view type, bool try_cast) const {
  auto parsed = columnar::ParseSqlType(type);
  if (!parsed.ok()) {
    return WithError("Cast: " + parsed.status().ToString());
  }
  const ExprPtr& e = impl_->expr;
  return Wrap(try_cast ? expr::TryCast(e, *parsed) : expr::Cast(e, *parsed), {this});
}

Column Column::Alias(std::string name) const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->alias = std::move(name);
  return Column(std::move(impl));
}

Column Column::Cast(std::string_view type) const {
  return CastTo(type, false);
}
Column Column::TryCast(std::string_view type) const {
  return CastTo(type, true);
}
Column Column::IsNull() const {
  return Wrap(expr::IsNull(impl_->expr), {this});
}
Column Column::IsNotNull() const {
  return Wrap(expr::IsNotNull(impl_->expr), {this});
}
Column Column::IsIn(const std::vector<Column>& values) const {
  Column out = Wrap(expr::In(impl_->expr, Exprs(values)), values);
  return impl_->error.empty() ? out : out.WithError(impl_->error);
}
Column Column::Between(const Column& low, const Column& high) const {
  return Wrap(expr::Between(impl_->expr, ApiAccess::Expr(low), ApiAccess::Expr(high)),
              {this, &low, &high});
}
Column Column::Like(std::string_view pattern) const {
  return Wrap(expr::Function("like", {impl_->expr, ApiAccess::Expr(tributary::Lit(pattern))}),
              {this});
}
Column Column::RLike(std::string_view regex) const {
  return Wrap(expr::Function("rlike", {impl_->expr, ApiAccess::Expr(tributary::Lit(regex))}),
              {this});
}
Column Column::GetField(std::string_view name) const {
  return Wrap(expr::GetField(impl_->expr, std::string(name)), {this});
}
Column Column::operator[](const Column& key) const {
  return Wrap(expr::Subscript(impl_->expr, ApiAccess::Expr(key)), {this, &key});
}

Column Column::Asc() const {
  return WithOrder(/*ascending=*/true, /*nulls_first=*/true);
}
Column Column::AscNullsLast() const {
  return WithOrder(/*ascending=*/true, /*nulls_first=*/false);
}
Column Column::Desc() const {
  return WithOrder(/*ascending=*/false, /*nulls_first=*/false);
}
Column Column::DescNullsFirst() const {
  return WithOrder(/*ascending=*/false, /*nulls_first=*/true);
}

Column Column::Over(const WindowSpec& window) const {
  const expr::Expression& call = *impl_->expr;
  if (call.GetOp() != expr::Op::kFunction) {
    return WithError(fmt::format(
        "over() applies to a window or aggregate function call, not to '{}'", call.ToString()));
  }
  expr::WindowSpec spec;
  std::vector<ExprPtr> keys;
  std::vector<Column> sources = {*this};
  for (const Column& key : window.partition_by_) {
    keys.push_back(key.impl_->expr);
    sources.push_back(key);
  }
  spec.num_partition_keys = keys.size();
  for (const Column& key : window.order_by_) {
    keys.push_back(key.impl_->expr);
    spec.order.push_back({key.impl_->ascending, key.impl_->nulls_first});
    sources.push_back(key);
  }
  if (window.has_frame_) {
    spec.has_frame = true;
    spec.frame_type =
        window.rows_ ? expr::WindowSpec::FrameType::kRows : expr::WindowSpec::FrameType::kRange;
    const bool rows = window.rows_;
    auto bound = [rows](int64_t offset) {
      expr::WindowFrameBound out;
      using Kind = expr::WindowFrameBound::Kind;
      if (offset == WindowSpec::kUnboundedPreceding) {
        out.kind = Kind::kUnboundedPreceding;
      } else if (offset == WindowSpec::kUnboundedFollowing) {
        out.kind = Kind::kUnboundedFollowing;
      } else if (offset == 0) {
        out.kind = Kind::kCurrentRow;
      } else {
        out.kind = offset < 0 ? Kind::kPreceding : Kind::kFollowing;
        const int64_t distance = offset < 0 ? -offset : offset;
        // As Spark's WindowSpec.rowsBetween: a ROWS offset within int's range is an int
        // literal (the frame type SQL's ROWS takes); RANGE offsets stay bigint.
        out.offset = rows && distance <= std::numeric_limits<int32_t>::max()
                         ? expr::Scalar::Int32(static_cast<int32_t>(distance))
                         : expr::Scalar::Int64(distance);
      }
      return out;
    };
    spec.start = bound(window.start_);
    spec.end = bound(window.end_);
  }
  Column out = Wrap(expr::WindowCall(call.Name(), call.Children(), call.IsDistinct(),
                                     std::move(keys), std::move(spec)),
                    sources);
  return impl_->alias.empty() ? out : out.Alias(impl_->alias);
}

Column Column::Over() const {
  return Over(WindowSpec());
}

WindowSpec WindowSpec::PartitionBy(std::vector<Column> columns) const {
  WindowSpec out = *this;
  out.partition_by_ = std::move(columns);
  return out;
}

WindowSpec WindowSpec::OrderBy(std::vector<Column> columns) const {
  WindowSpec out = *this;
  out.order_by_ = std::move(columns);
  return out;
}

WindowSpec WindowSpec::RowsBetween(int64_t start, int64_t end) const {
  WindowSpec out = *this;
  out.has_frame_ = true;
  out.rows_ = true;
  out.start_ = start;
  out.end_ = end;
  return out;
}

WindowSpec WindowSpec::RangeBetween(int64_t start, int64_t end) const {
  WindowSpec out = RowsBetween(start, end);
  out.rows_ = false;
  return out;
}

Column RowNumber() {
  return CallFunction("row_number", {});
}
Column Rank() {
  return CallFunction("rank", {});
}
Column DenseRank() {
  return CallFunction("dense_rank", {});
}
Column PercentRank() {
  return CallFunction("percent_rank", {});
}
Column CumeDist() {
  return CallFunction("cume_dist", {});
}
Column Ntile(int32_t buckets) {
  return CallFunction("ntile", {Lit(buckets)});
}
Column Lag(const Column& column, int32_t offset) {
  return CallFunction("lag", {column, Lit(offset)});
}
Column Lag(const Column& column, int32_t offset, const Column& default_value) {
  return CallFunction("lag", {column, Lit(offset), default_value});
}
Column Lead(const Column& column, int32_t offset) {
  return CallFunction("lead", {column, Lit(offset)});
}
Column Lead(const Column& column, int32_t offset, const Column& default_value) {
  return CallFunction("lead", {column, Lit(offset), default_value});
}

std::string Column::ToString() const {
  return impl_->expr->ToString();
}

Column Col(std::string_view name) {
  return Wrap(expr::Col(name));
}
Column Lit(bool value) {
  return Wrap(expr::Lit(expr::Scalar::Boolean(value)));
}
Column Lit(int32_t value) {
  return Wrap(expr::Lit(expr::Scalar::Int32(value)));
}
Column Lit(int64_t value) {
  return Wrap(expr::Lit(expr::Scalar::Int64(value)));
}
Column Lit(double value) {
  return Wrap(expr::Lit(expr::Scalar::Float64(value)));
}
Column Lit(std::string_view value) {
  return Wrap(expr::Lit(expr::Scalar::String(std::string(value))));
}
Column Lit(const char* value) {
  return Lit(std::string_view(value));
}
Column LitNull() {
  return Wrap(expr::Lit(expr::Scalar::Null()));
}
Column Expr(std::string_view sql) {
  auto parsed = sql::ParseExpression(sql);
  if (!parsed.ok()) {
    return ApiAccess::WithError(Wrap(expr::Lit(expr::Scalar::Null())),
                                "Expr: " + parsed.status().ToString());
  }
  return Wrap(*parsed);
}

Column operator+(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kAdd, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator-(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kSubtract, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator*(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kMultiply, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator/(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kDivide, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator%(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kRemainder, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator-(const Column& a) {
  return Wrap(expr::Call(Op::kNegate, {ApiAccess::Expr(a)}), {&a});
}
Column operator==(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kEqual, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator!=(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kNotEqual, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator<(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kLess, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator<=(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kLessEqual, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator>(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kGreater, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator>=(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kGreaterEqual, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}
Column operator&&(const Column& a, const Column& b) {
  return Wrap(expr::And(ApiAccess::Expr(a), ApiAccess::Expr(b)), {&a, &b});
}
Column operator||(const Column& a, const Column& b) {
  return Wrap(expr::Or(ApiAccess::Expr(a), ApiAccess::Expr(b)), {&a, &b});
}
Column operator!(const Column& a) {
  return Wrap(expr::Not(ApiAccess::Expr(a)), {&a});
}
Column EqNullSafe(const Column& a, const Column& b) {
  return Wrap(expr::Call(Op::kNullSafeEqual, {ApiAccess::Expr(a), ApiAccess::Expr(b)}), {&a, &b});
}

Column CallFunction(std::string_view name, const std::vector<Column>& arguments) {
  return Wrap(expr::Function(std::string(name), Exprs(arguments)), arguments);
}

CaseBuilder When(const Column& condition, const Column& value) {
  CaseBuilder builder;
  builder.branches_.emplace_back(condition, value);
  return builder;
}
CaseBuilder CaseBuilder::When(const Column& condition, const Column& value) const {
  CaseBuilder out = *this;
  out.branches_.emplace_back(condition, value);
  return out;
}
Column CaseBuilder::Build(const Column* otherwise) const {
  std::vector<std::pair<ExprPtr, ExprPtr>> branches;
  std::vector<Column> parts;
  for (const auto& [condition, result] : branches_) {
    branches.emplace_back(ApiAccess::Expr(condition), ApiAccess::Expr(result));
    parts.push_back(condition);
    parts.push_back(result);
  }
  if (otherwise != nullptr) {
    parts.push_back(*otherwise);
  }
  return Wrap(
      expr::CaseWhen(std::move(branches), otherwise ? ApiAccess::Expr(*otherwise) : nullptr),
      parts);
}
Column CaseBuilder::Otherwise(const Column& value) const {
  return Build(&value);
}
Column CaseBuilder::End() const {
  return Build(nullptr);
}

Column Count(const Column& column) {
  return CallFunction("count", {column});
}
Column Count() {
  return Wrap(expr::Function("count", {}));
}
Column CountDistinct(const std::vector<Column>& columns) {
  return Wrap(expr::Function("count", Exprs(columns), /*distinct=*/true), columns);
}
Column Sum(const Column& column) {
  return CallFunction("sum", {column});
}
Column Avg(const Column& column) {
  return CallFunction("avg", {column});
}
Column Min(const Column& column) {
  return CallFunction("min", {column});
}
Column Max(const Column& column) {
  return CallFunction("max", {column});
}
Column First(const Column& column, bool ignore_nulls) {
  return ignore_nulls ? CallFunction("first", {column, Lit(true)})
                      : CallFunction("first", {column});
}
Column Last(const Column& column, bool ignore_nulls) {
  return ignore_nulls ? CallFunction("last", {column, Lit(true)}) : CallFunction("last", {column});
}
Column CollectList(const Column& column) {
  return CallFunction("collect_list", {column});
}
Column CollectSet(const Column& column) {
  return CallFunction("collect_set", {column});
}
Column ApproxCountDistinct(const Column& column) {
  return CallFunction("approx_count_distinct", {column});
}
Column Lower(const Column& column) {
  return CallFunction("lower", {column});
}
Column Upper(const Column& column) {
  return CallFunction("upper", {column});
}
Column Length(const Column& column) {
  return CallFunction("length", {column});
}
Column Coalesce(const std::vector<Column>& columns) {
  return CallFunction("coalesce", columns);
}
Column ToDate(const Column& column) {
  return CallFunction("to_date", {column});
}
Column ToTimestamp(const Column& column) {
  return CallFunction("to_timestamp", {column});
}

Column Window(const Column& time_column, std::string_view window_duration) {
  return CallFunction("window", {time_column, Lit(window_duration)});
}

Column Window(const Column& time_column, std::string_view window_duration,
              std::string_view slide_duration, std::string_view start_time) {
  return CallFunction("window",
                      {time_column, Lit(window_duration), Lit(slide_duration), Lit(start_time)});
}

Column SessionWindow(const Column& time_column, std::string_view gap_duration) {
  return CallFunction("session_window", {time_column, Lit(gap_duration)});
}

Column SessionWindow(const Column& time_column, const Column& gap_duration) {
  return CallFunction("session_window", {time_column, gap_duration});
}

}  // namespace tributary
