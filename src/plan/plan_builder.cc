#include "plan/plan_builder.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/ascii.h"
#include "common/closest_match.h"
#include "expr/aggregate_signatures.h"
#include "expr/backquoted_name.h"
#include "expr/coercion.h"
#include "plan/bound_rewrites.h"
#include "plan/plan_builder_internal.h"
#include "plan/qualified_access.h"

namespace tributary::plan {

namespace internal {

std::string InternalName(const LogicalPlan& plan, int index) {
  return fmt::format("{}#{}", plan.Schema()->FieldAt(index).Name(), index);
}

ExprPtr Rebuild(const expr::Expression& node, std::vector<ExprPtr> children) {
  return std::make_shared<expr::Expression>(node.GetOp(), std::move(children), node.Name(),
                                            node.Literal(), node.TargetType(), node.IsDistinct(),
                                            node.Window());
}

}  // namespace internal

using internal::InternalName;
using internal::PlanTimeWindow;
using internal::PlanWindows;
using internal::Rebuild;

namespace {

using expr::BoundExpression;
using expr::ContainsAggregate;
using expr::Expression;
using expr::Op;

std::string AvailableColumns(const LogicalPlan& plan) {
  std::string out;
  for (int i = 0; i < plan.Schema()->NumFields(); ++i) {
    const std::string& qualifier = plan.Qualifiers()[static_cast<size_t>(i)];
    if (IsQualifiedAccessOnly(qualifier)) {
      continue;
    }
    out += out.empty() ? "" : ", ";
    if (!qualifier.empty()) {
      out += qualifier;
      out += '.';
    }
    out += plan.Schema()->FieldAt(i).Name();
  }
  return out;
}

// Indices of the columns named `name` (and qualified by `qualifier` when not null; columns
// reachable by qualified access only match only then).
std::vector<int> MatchColumns(const LogicalPlan& plan, const std::string* qualifier,
                              const std::string& name) {
  std::vector<int> matches;
  for (int i = 0; i < plan.Schema()->NumFields(); ++i) {
    if (!EqualsIgnoreAsciiCase(plan.Schema()->FieldAt(i).Name(), name)) {
      continue;
    }
    const std::string& column_qualifier = plan.Qualifiers()[static_cast<size_t>(i)];
    if (qualifier == nullptr
            ? IsQualifiedAccessOnly(column_qualifier)
            : !EqualsIgnoreAsciiCase(QualifierName(column_qualifier), *qualifier)) {
      continue;
    }
    matches.push_back(i);
  }
  return matches;
}

Result<int> UniqueColumn(const LogicalPlan& plan, const std::string* qualifier,
                         const std::string& name) {
  std::vector<int> matches = MatchColumns(plan, qualifier, name);
  const std::string shown = qualifier != nullptr ? *qualifier + "." + name : name;
  if (matches.empty()) {
    const std::string written =
        qualifier != nullptr
            ? fmt::format("{}.{}", expr::BackquotedName(*qualifier), expr::BackquotedName(name))
            : expr::BackquotedName(name);
    // Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION: the input's columns, closest first by name, as
    // `qualifier`.`name`; columns the planner adds for itself are not offered.
    std::vector<std::string_view> names;
    std::vector<std::string> quoted;
    for (int i = 0; i < plan.Schema()->NumFields(); ++i) {
      const std::string& field = plan.Schema()->FieldAt(i).Name();
      if (field.starts_with("__") || field.find('#') != std::string::npos) {
        continue;
      }
      const std::string_view q = QualifierName(plan.Qualifiers()[static_cast<size_t>(i)]);
      names.emplace_back(field);
      quoted.push_back(
          q.empty() ? expr::BackquotedName(field)
                    : fmt::format("{}.{}", expr::BackquotedName(q), expr::BackquotedName(field)));
    }
    std::string suggestions;
    for (size_t at : OrderedBySimilarity(name, names, /*limit=*/5)) {
      suggestions += suggestions.empty() ? "" : ", ";
      suggestions += quoted[at];
    }
    if (suggestions.empty()) {
      return Status::InvalidArgument(fmt::format(
          "[UNRESOLVED_COLUMN.WITHOUT_SUGGESTION] A column, variable, or function parameter "
          "with name {} cannot be resolved.",
          written));
    }
    return Status::InvalidArgument(fmt::format(
        "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with "
        "name {} cannot be resolved. Did you mean one of the following? [{}].",
        written, suggestions));
  }
  if (matches.size() > 1) {
    std::string candidates;
    for (int index : matches) {
      const std::string_view q = QualifierName(plan.Qualifiers()[static_cast<size_t>(index)]);
      candidates += candidates.empty() ? "" : ", ";
      if (!q.empty()) {
        candidates += q;
        candidates += '.';
      }
      candidates += name;
    }
    return Status::InvalidArgument(
        fmt::format("column reference '{}' is ambiguous: it could be any of [{}]; qualify it",
                    shown, candidates));
  }
  return matches.front();
}

bool IsQualifier(const LogicalPlan& plan, const std::string& name) {
  return std::any_of(plan.Qualifiers().begin(), plan.Qualifiers().end(), [&](const std::string& q) {
    return !q.empty() && EqualsIgnoreAsciiCase(QualifierName(q), name);
  });
}

// Replaces user column names by internal names of `plan`'s columns.
Result<ExprPtr> RewriteColumns(const ExprPtr& e, const LogicalPlan& plan) {
  if (e->GetOp() == Op::kColumn) {
    // Already an internal name (from a `*` expansion or a rewrite of ours): keep it.
    const size_t hash = e->Name().rfind('#');
    if (hash != std::string::npos) {
      int index = -1;
      const std::string_view digits = std::string_view(e->Name()).substr(hash + 1);
      const auto [end, error] =
          std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (error == std::errc{} && end == digits.data() + digits.size() && index >= 0 &&
          index < plan.Schema()->NumFields() && InternalName(plan, index) == e->Name()) {
        return e;
      }
    }
    if (e->Name() == "*") {
      return Status::InvalidArgument("'*' is only allowed as a SELECT item or in count(*)");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(int index, UniqueColumn(plan, nullptr, e->Name()));
    return ExactColumn(InternalName(plan, index));
  }
  // A column named current_date or current_timestamp shadows the niladic function, as Spark
  // resolves the bare word as a column first (LiteralFunctionResolution only when none).
  if (e->GetOp() == Op::kFunction && e->Children().empty() &&
      (EqualsIgnoreAsciiCase(e->Name(), "current_date") ||
       EqualsIgnoreAsciiCase(e->Name(), "current_timestamp")) &&
      MatchColumns(plan, nullptr, e->Name()).size() == 1) {
    return ExactColumn(InternalName(plan, MatchColumns(plan, nullptr, e->Name()).front()));
  }
  if (e->GetOp() == Op::kGetField && e->Child(0)->GetOp() == Op::kColumn) {
    const std::string& head = e->Child(0)->Name();
    // `t.x` where t qualifies a column x wins over field x of a struct column t.
    if (IsQualifier(plan, head) && !MatchColumns(plan, &head, e->Name()).empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(int index, UniqueColumn(plan, &head, e->Name()));
      return ExactColumn(InternalName(plan, index));
    }
    if (!IsQualifier(plan, head) && MatchColumns(plan, nullptr, head).empty()) {
      // Neither a qualifier nor a column: Spark names the whole path `t`.`x` as unresolved.
      return UniqueColumn(plan, &head, e->Name()).status();
    }
  }
  std::vector<ExprPtr> children;
  children.reserve(e->Children().size());
  for (const ExprPtr& child : e->Children()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr rewritten, RewriteColumns(child, plan));
    children.push_back(std::move(rewritten));
  }
  return Rebuild(*e, std::move(children));
}

bool IsColumnPath(const Expression& e) {
  return e.GetOp() == Op::kColumn || (e.GetOp() == Op::kGetField && IsColumnPath(*e.Child(0)));
}

}  // namespace

ExprPtr ExactColumn(const std::string& name) {
  return expr::Col(expr::BackquotedName(name));
}

SchemaPtr ResolutionSchema(const LogicalPlan& plan) {
  std::vector<columnar::Field> fields;
  fields.reserve(static_cast<size_t>(plan.Schema()->NumFields()));
  for (int i = 0; i < plan.Schema()->NumFields(); ++i) {
    fields.push_back(plan.Schema()->FieldAt(i).WithName(InternalName(plan, i)));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

BoundExprPtr ColumnRef(const LogicalPlan& plan, int index) {
  return std::make_shared<BoundExpression>(Op::kColumn, plan.Schema()->FieldAt(index).Type(),
                                           std::vector<BoundExprPtr>{}, index, expr::Scalar::Null(),
                                           InternalName(plan, index));
}

std::string DerivedName(const Expression& e) {
  if (e.GetOp() == Op::kColumn || e.GetOp() == Op::kGetField) {
    return e.Name();
  }
  if (e.GetOp() == Op::kFunction && e.Name() == "session_window") {
    // Spark's SessionWindowing names the column so.
    return e.Name();
  }
  return expr::PrettyName(e);
}

Result<BoundExprPtr> Resolve(const Expression& e, const LogicalPlan& input) {
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr rewritten,
                            RewriteColumns(std::make_shared<Expression>(e), input));
  auto bound = expr::Bind(*rewritten, *ResolutionSchema(input));
  if (!bound.ok()) {
    return bound.status().WithContext(fmt::format("in '{}'", e.SqlText()));
  }
  return bound;
}

LogicalPlanPtr Scan(ScanSource source, const std::string& qualifier, bool streaming) {
  std::vector<int> columns(static_cast<size_t>(source.schema->NumFields()));
  for (size_t i = 0; i < columns.size(); ++i) {
    columns[i] = static_cast<int>(i);
  }
  return std::make_shared<ScanNode>(std::move(source), std::move(columns), qualifier, nullptr,
                                    streaming);
}

namespace {

// `plan` with the hidden column `name` of the scan below it appended to its output, carried up
// through filters, sorts, limits and projections (Spark's metadata columns propagate the
// same way); null when there is no such column to reach.
LogicalPlanPtr AddHiddenColumn(const LogicalPlanPtr& plan, const std::string& name) {
  switch (plan->Kind()) {
    case PlanKind::kScan: {
      const auto& scan = plan->As<ScanNode>();
      const ScanSource& source = scan.Source();
      const int num_fields = source.schema->NumFields();
      for (size_t hidden = 0; hidden < source.hidden_columns.size(); ++hidden) {
        if (!EqualsIgnoreAsciiCase(source.hidden_columns[hidden].Name(), name)) {
          continue;
        }
        const int index = num_fields + static_cast<int>(hidden);
        std::vector<int> columns = scan.Columns();
        columns.push_back(index);
        const std::string qualifier = plan->Qualifiers().empty() ? "" : plan->Qualifiers().front();
        return std::make_shared<ScanNode>(source, std::move(columns), qualifier,
                                          scan.PushedFilter(), plan->IsStreaming());
      }
      return nullptr;
    }
    case PlanKind::kFilter:
    case PlanKind::kSort:
    case PlanKind::kLimit:
    case PlanKind::kWatermark: {
      LogicalPlanPtr input = AddHiddenColumn(plan->Inputs()[0], name);
      return input == nullptr ? nullptr : plan->WithInputs({std::move(input)});
    }
    case PlanKind::kProject: {
      LogicalPlanPtr input = AddHiddenColumn(plan->Inputs()[0], name);
      if (input == nullptr) {
        return nullptr;
      }
      const auto& project = plan->As<ProjectNode>();
      std::vector<BoundExprPtr> expressions = project.Expressions();
      std::vector<std::string> names;
      for (const columnar::Field& field : plan->Schema()->Fields()) {
        names.push_back(field.Name());
      }
      std::vector<std::string> qualifiers = plan->Qualifiers();
      const int added = input->Schema()->NumFields() - 1;
      expressions.push_back(ColumnRef(*input, added));
      names.push_back(input->Schema()->FieldAt(added).Name());
      qualifiers.push_back(input->Qualifiers()[static_cast<size_t>(added)]);
      return std::make_shared<ProjectNode>(std::move(input), std::move(expressions),
                                           std::move(names), std::move(qualifiers));
    }
    default:
      return nullptr;
  }
}

// The unqualified column names `e` refers to (the root of a field path).
void ReferencedNames(const Expression& e, std::vector<std::string>* names) {
  if (e.GetOp() == Op::kColumn) {
    names->push_back(e.Name());
    return;
  }
  for (const ExprPtr& child : e.Children()) {
    ReferencedNames(*child, names);
  }
}

// `input` with the hidden columns that `exprs` name and `input`'s output lacks (a file scan's
// `_metadata`) appended; `input` itself when there are none.
LogicalPlanPtr WithReferencedHiddenColumns(LogicalPlanPtr input,
                                           const std::vector<const Expression*>& exprs) {
  std::vector<std::string> names;
  for (const Expression* e : exprs) {
    if (e != nullptr) {
      ReferencedNames(*e, &names);
    }
  }
  for (const std::string& name : names) {
    if (name == "*" || name.find('#') != std::string::npos ||
        !MatchColumns(*input, nullptr, name).empty()) {
      continue;
    }
    if (LogicalPlanPtr with = AddHiddenColumn(input, name)) {
      input = std::move(with);
    }
  }
  return input;
}

// The first `count` columns of `plan` (dropping hidden columns a filter or sort needed).
LogicalPlanPtr FirstColumns(LogicalPlanPtr plan, int count) {
  if (plan->Schema()->NumFields() == count) {
    return plan;
  }
  std::vector<BoundExprPtr> expressions;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (int i = 0; i < count; ++i) {
    expressions.push_back(ColumnRef(*plan, i));
    names.push_back(plan->Schema()->FieldAt(i).Name());
    qualifiers.push_back(plan->Qualifiers()[static_cast<size_t>(i)]);
  }
  return std::make_shared<ProjectNode>(std::move(plan), std::move(expressions), std::move(names),
                                       std::move(qualifiers));
}

}  // namespace

Result<LogicalPlanPtr> Filter(LogicalPlanPtr input, const ExprPtr& condition) {
  if (ContainsAggregate(*condition)) {
    return Status::InvalidArgument(fmt::format(
        "aggregate functions are not allowed in WHERE: '{}' (use HAVING)", condition->ToString()));
  }
  const int visible = input->Schema()->NumFields();
  input = WithReferencedHiddenColumns(std::move(input), {condition.get()});
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*condition, *input));
  if (bound->Type()->Id() != columnar::TypeId::kBoolean &&
      bound->Type()->Id() != columnar::TypeId::kNull) {
    return Status::InvalidArgument(fmt::format("filter condition '{}' is of type {}, not boolean",
                                               condition->ToString(), bound->Type()->ToString()));
  }
  return FirstColumns(std::make_shared<FilterNode>(std::move(input), std::move(bound)), visible);
}

namespace {

bool IsStarExpression(const Expression& e) {
  return e.Name() == "*" && (e.GetOp() == Op::kColumn ||
                             (e.GetOp() == Op::kGetField && e.Child(0)->GetOp() == Op::kColumn));
}

// The items `*`, `t.*` (a table's columns) or `s.*` (the fields of a struct column s, as
// Spark's UnresolvedStar expands a struct) stand for. `display`: columns by their names as the
// user sees them (for naming an output column), not by internal name.
Result<std::vector<NamedExpr>> StarItems(const LogicalPlan& input, const Expression& e, int visible,
                                         bool display = false) {
  const auto column = [&input, display](int i) -> ExprPtr {
    if (display) {
      return std::make_shared<const Expression>(Op::kColumn, std::vector<ExprPtr>{},
                                                input.Schema()->FieldAt(i).Name(),
                                                expr::Scalar::Null(), nullptr);
    }
    return ExactColumn(InternalName(input, i));
  };
  std::vector<NamedExpr> out;
  const bool qualified_star = e.GetOp() == Op::kGetField;
  // `t.*` also takes the columns reachable only as `t.x` (a USING join's keys), first, as
  // Spark puts a side's hidden join keys before its other columns; `*` never does.
  for (const bool qualified_access_only : {true, false}) {
    if (qualified_access_only && !qualified_star) {
      continue;
    }
    // Hidden columns added for other items are not part of `*`.
    for (int i = 0; i < visible; ++i) {
      const std::string& qualifier = input.Qualifiers()[static_cast<size_t>(i)];
      if (IsQualifiedAccessOnly(qualifier) != qualified_access_only ||
          (qualified_star &&
           !EqualsIgnoreAsciiCase(QualifierName(qualifier), e.Child(0)->Name()))) {
        continue;
      }
      out.push_back({column(i), input.Schema()->FieldAt(i).Name()});
    }
  }
  if (qualified_star && out.empty()) {
    const std::string& name = e.Child(0)->Name();
    const std::vector<int> columns = MatchColumns(input, nullptr, name);
    if (columns.size() == 1 &&
        input.Schema()->FieldAt(columns[0]).Type()->Id() == columnar::TypeId::kStruct) {
      // The user's own reference: RewriteColumns resolves its fields as it resolves s.f.
      const ExprPtr& base = e.Child(0);
      for (const columnar::Field& field : input.Schema()->FieldAt(columns[0]).Type()->Fields()) {
        out.push_back({expr::GetField(base, field.Name()), field.Name()});
      }
      return out;
    }
    return Status::InvalidArgument(fmt::format("'{}.*': no table or alias named '{}'", name, name));
  }
  return out;
}

// `e` with star arguments of function calls (struct(t.*), count(DISTINCT *), hash(s.*))
// replaced by the columns or fields they stand for; named_struct's ('*', star) pairs become
// one (name, value) pair each. count(*) alone is no star argument: it counts rows.
Result<ExprPtr> ExpandStarArguments(const ExprPtr& e, const LogicalPlan& input, int visible,
                                    bool display) {
  if (e->Children().empty() || e->Window() != nullptr) {
    return e;
  }
  const bool call = e->GetOp() == Op::kFunction;
  const bool named_struct = call && e->Name() == "named_struct";
  const bool counts_rows = e->Name() == "count" && e->Children().size() == 1 && !e->IsDistinct() &&
                           e->Child(0)->GetOp() == Op::kColumn && e->Child(0)->Name() == "*";
  bool changed = false;
  std::vector<ExprPtr> children;
  for (size_t i = 0; i < e->Children().size(); ++i) {
    const ExprPtr& child = e->Child(i);
    const bool pair_star = named_struct && i % 2 == 0 && i + 1 < e->Children().size() &&
                           IsStarExpression(*e->Child(i + 1));
    if (pair_star || (call && !counts_rows && !named_struct && IsStarExpression(*child))) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          std::vector<NamedExpr> items,
          StarItems(input, pair_star ? *e->Child(i + 1) : *child, visible, display));
      for (NamedExpr& item : items) {
        if (pair_star) {
          children.push_back(expr::Lit(expr::Scalar::String(item.alias)));
        }
        children.push_back(std::move(item.expr));
      }
      i += pair_star ? 1 : 0;
      changed = true;
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr expanded,
                              ExpandStarArguments(child, input, visible, display));
    changed = changed || expanded != child;
    children.push_back(std::move(expanded));
  }
  if (!changed) {
    return e;
  }
  return std::make_shared<const Expression>(e->GetOp(), std::move(children), e->Name(),
                                            e->Literal(), e->TargetType(), e->IsDistinct(),
                                            e->Window());
}

// Expands `*` and `t.*` items into one item per column, and star arguments of calls.
Result<std::vector<NamedExpr>> ExpandStars(const LogicalPlan& input,
                                           const std::vector<NamedExpr>& items, int visible) {
  std::vector<NamedExpr> out;
  for (const NamedExpr& item : items) {
    if (!IsStarExpression(*item.expr)) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr expanded,
                                ExpandStarArguments(item.expr, input, visible, false));
      std::string alias = item.alias;
      if (alias.empty() && expanded != item.expr) {
        // Named after the columns a star stood for, as written: struct(a, b), not a#0.
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr shown,
                                  ExpandStarArguments(item.expr, input, visible, true));
        alias = DerivedName(*shown);
      }
      out.push_back({std::move(expanded), std::move(alias)});
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<NamedExpr> expanded,
                              StarItems(input, *item.expr, visible));
    out.insert(out.end(), expanded.begin(), expanded.end());
  }
  return out;
}

// The qualifier of a plain column reference item (kept through projections, as Spark keeps
// attribute qualifiers), else "".
std::string PassThroughQualifier(const BoundExpression& bound, const LogicalPlan& input) {
  // A selected qualified-access-only column becomes a normal one (Spark's SPARK-42084).
  return bound.GetOp() == Op::kColumn
             ? std::string(QualifierName(input.Qualifiers()[static_cast<size_t>(bound.Index())]))
             : std::string{};
}

}  // namespace

namespace {

bool IsGeneratorCall(const Expression& e) {
  return e.GetOp() == Op::kFunction && expr::IsGeneratorFunctionName(e.Name());
}

bool ContainsGenerator(const Expression& e) {
  return IsGeneratorCall(e) ||
         std::any_of(e.Children().begin(), e.Children().end(),
                     [](const ExprPtr& child) { return ContainsGenerator(*child); });
}

// The SELECT list with its one generator item turned into the generator's plan (Generate) under
// it: the item becomes references to the generated columns.
Result<LogicalPlanPtr> SelectWithGenerator(LogicalPlanPtr input, std::vector<NamedExpr> items,
                                           size_t generator) {
  const int first = input->Schema()->NumFields();
  const std::string& alias = items[generator].alias;
  std::vector<std::string> names;
  if (!alias.empty()) {
    names.push_back(alias);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr node,
                            Generate(input, *items[generator].expr, false, names, ""));
  std::vector<NamedExpr> rewritten;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != generator) {
      rewritten.push_back(items[i]);
      continue;
    }
    for (int g = first; g < node->Schema()->NumFields(); ++g) {
      rewritten.push_back({ExactColumn(InternalName(*node, g)), node->Schema()->FieldAt(g).Name()});
    }
  }
  return Select(node, rewritten);
}

}  // namespace

namespace {

std::vector<const Expression*> ItemExpressions(const std::vector<NamedExpr>& items) {
  std::vector<const Expression*> exprs;
  exprs.reserve(items.size());
  for (const NamedExpr& item : items) {
    exprs.push_back(item.expr.get());
  }
  return exprs;
}

}  // namespace

Result<LogicalPlanPtr> Select(LogicalPlanPtr input, const std::vector<NamedExpr>& original_items) {
  const int visible = input->Schema()->NumFields();
  input = WithReferencedHiddenColumns(std::move(input), ItemExpressions(original_items));
  std::vector<NamedExpr> items = original_items;
  std::vector<ExprPtr*> windowed;
  windowed.reserve(items.size());
  for (NamedExpr& item : items) {
    windowed.push_back(&item.expr);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(input, PlanTimeWindow(std::move(input), windowed));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<NamedExpr> expanded, ExpandStars(*input, items, visible));
  std::optional<size_t> generator;
  for (size_t i = 0; i < expanded.size(); ++i) {
    const Expression& e = *expanded[i].expr;
    if (IsGeneratorCall(e)) {
      if (generator.has_value()) {
        return Status::InvalidArgument(
            fmt::format("only one generator is allowed per SELECT: '{}' and '{}'",
                        expanded[*generator].expr->ToString(), e.ToString()));
      }
      generator = i;
    } else if (ContainsGenerator(e)) {
      return Status::InvalidArgument(
          fmt::format("generators are not supported nested in expressions: '{}'", e.SqlText()));
    }
  }
  if (generator.has_value()) {
    return SelectWithGenerator(std::move(input), std::move(expanded), *generator);
  }
  for (const NamedExpr& item : expanded) {
    if (ContainsAggregate(*item.expr)) {
      return Aggregate(std::move(input), {}, expanded, nullptr);
    }
  }
  // Window calls become columns of a window node below the projection; names stay the calls'.
  const std::vector<NamedExpr> named = expanded;
  std::vector<ExprPtr*> windowed_items;
  windowed_items.reserve(expanded.size());
  for (NamedExpr& item : expanded) {
    windowed_items.push_back(&item.expr);
  }
  const LogicalPlan* below = input.get();
  TRIBUTARY_ASSIGN_OR_RAISE(
      input, PlanWindows(std::move(input), windowed_items,
                         [below](const Expression& e) { return Resolve(e, *below); }));
  std::vector<BoundExprPtr> bound;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (size_t i = 0; i < expanded.size(); ++i) {
    const NamedExpr& item = expanded[i];
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr b, Resolve(*item.expr, *input));
    names.push_back(item.alias.empty() ? DerivedName(*named[i].expr) : item.alias);
    // A column passed through keeps its qualifier (also under its own name, as `*` names
    // it), so `t.x` still resolves above the projection.
    const bool same_name =
        item.alias.empty() ||
        (b->GetOp() == Op::kColumn && input->Schema()->FieldAt(b->Index()).Name() == item.alias);
    qualifiers.push_back(same_name ? PassThroughQualifier(*b, *input) : std::string{});
    bound.push_back(std::move(b));
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(std::move(input), std::move(bound),
                                                      std::move(names), std::move(qualifiers)));
}

namespace {

// Rewrites expressions over an aggregation's input into expressions over its output: grouping
// expressions become key columns, aggregate calls become aggregate columns (registered here).
class AggregateRewriter {
 public:
  /// `grouping_sets`: whether the aggregation's output has, after the keys, Spark's
  /// spark_grouping_id and a grouping-set position column (GROUPING SETS, ROLLUP, CUBE).
  AggregateRewriter(const LogicalPlan& input, std::vector<BoundExprPtr> keys,
                    std::vector<std::string> key_names, bool grouping_sets = false)
      : input_(input),
        keys_(std::move(keys)),
        key_names_(std::move(key_names)),
        grouping_sets_(grouping_sets),
        key_columns_(keys_.size() + (grouping_sets ? 2 : 0)) {
    for (const BoundExprPtr& key : keys_) {
      key_texts_.push_back(key->ToString());
    }
  }

  Result<ExprPtr> Rewrite(const ExprPtr& e) {
    if (e->GetOp() == Op::kFunction && (e->Name() == "grouping" || e->Name() == "grouping_id")) {
      return RewriteGrouping(*e);
    }
    // Hive's virtual column grouping__id: grouping_id(), unless the input has such a column.
    if (e->GetOp() == Op::kColumn && EqualsIgnoreAsciiCase(e->Name(), "grouping__id") &&
        !Resolve(*e, input_).ok()) {
      return RewriteGrouping(*expr::Function("grouping_id", {}));
    }
    if (e->GetOp() == Op::kFunction && expr::IsAggregateFunctionName(e->Name())) {
      return RegisterAggregate(*e);
    }
    if (!ContainsAggregate(*e) && e->GetOp() != Op::kLiteral) {
      auto bound = Resolve(*e, input_);
      if (bound.ok()) {
        if (std::optional<ExprPtr> key = KeyOrFieldOfKey(**bound)) {
          return *key;
        }
      }
      if (IsColumnPath(*e)) {
        if (!bound.ok()) {
          return bound.status();
        }
        return Status::InvalidArgument(fmt::format(
            "[MISSING_AGGREGATION] The non-aggregating expression \"{0}\" is based on columns "
            "which are not participating in the GROUP BY clause. Add the columns or the "
            "expression to the GROUP BY, aggregate the expression, or use \"any_value({0})\" if "
            "you do not care which of the values within a group is returned.",
            e->ToString()));
      }
    }
    std::vector<ExprPtr> children;
    for (const ExprPtr& child : e->Children()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr rewritten, Rewrite(child));
      children.push_back(std::move(rewritten));
    }
    return Rebuild(*e, std::move(children));
  }

  const std::vector<exec::AggregateCall>& Calls() const { return calls_; }
  const std::vector<columnar::Field>& CallFields() const { return call_fields_; }

 private:
  /// The key column `bound` is, or a field path into a struct key (Spark reads
  /// `window.start` of GROUP BY window(...), a field of a grouped struct column).
  std::optional<ExprPtr> KeyOrFieldOfKey(const expr::BoundExpression& bound) const {
    const std::string text = bound.ToString();
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (key_texts_[k] == text) {
        return ExactColumn(fmt::format("{}#{}", key_names_[k], k));
      }
    }
    if (bound.GetOp() != Op::kGetField) {
      return std::nullopt;
    }
    std::optional<ExprPtr> base = KeyOrFieldOfKey(bound.Child(0));
    if (!base) {
      return std::nullopt;
    }
    return expr::GetField(std::move(*base), bound.Name());
  }

  Result<ExprPtr> RegisterAggregate(const Expression& call) {
    exec::AggregateCall bound_call;
    bound_call.function = call.Name();
    bound_call.distinct = call.IsDistinct();
    std::vector<columnar::DataTypePtr> types;
    std::vector<const ExprPtr*> arguments;
    for (const ExprPtr& argument : call.Children()) {
      if (ContainsAggregate(*argument)) {
        return Status::InvalidArgument(
            fmt::format("aggregate function calls may not be nested: '{}'", call.SqlText()));
      }
      // count(*) arrives as count(<*>): no argument.
      if (argument->GetOp() == Op::kColumn && argument->Name() == "*") {
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*argument, input_));
      types.push_back(bound->Type());
      arguments.push_back(&argument);
      bound_call.arguments.push_back(std::move(bound));
    }
    const std::vector<columnar::DataTypePtr> casts =
        expr::AggregateArgumentCasts(call.Name(), types);
    for (size_t i = 0; i < casts.size(); ++i) {
      if (casts[i] != nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(bound_call.arguments[i],
                                  Resolve(*expr::Cast(*arguments[i], casts[i]), input_));
        types[i] = casts[i];
      }
    }
    std::string text = call.Name() + (call.IsDistinct() ? "(DISTINCT " : "(");
    for (size_t i = 0; i < bound_call.arguments.size(); ++i) {
      text += (i > 0 ? ", " : "") + bound_call.arguments[i]->ToString();
    }
    text += ")";
    const size_t index =
        std::find(call_texts_.begin(), call_texts_.end(), text) - call_texts_.begin();
    if (index == call_texts_.size()) {
      auto type = expr::AggregateResultType(call.Name(), types, call.IsDistinct());
      if (!type.ok()) {
        return type.status().WithContext(fmt::format("in '{}'", call.SqlText()));
      }
      const bool nullable = call.Name() != "count" && call.Name() != "count_if" &&
                            call.Name() != "approx_count_distinct";
      const std::string name = call.ToString();
      call_fields_.emplace_back(name, *type, nullable);
      call_names_.push_back(name);
      call_texts_.push_back(text);
      calls_.push_back(std::move(bound_call));
    }
    return ExactColumn(fmt::format("{}#{}", call_names_[index], key_columns_ + index));
  }

  // grouping(key): whether the row's grouping set leaves `key` out (1) or not (0), a tinyint;
  // grouping_id() or grouping_id(every key in order): the spark_grouping_id, a bigint with a
  // bit per key, the first key's the most significant, set when the key is left out.
  Result<ExprPtr> RewriteGrouping(const Expression& call) {
    if (!grouping_sets_) {
      return Status::InvalidArgument(
          "[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with "
          "GroupingSets/Cube/Rollup.");
    }
    ExprPtr id = ExactColumn(fmt::format("spark_grouping_id#{}", keys_.size()));
    const std::string key_list = fmt::format("{}", fmt::join(key_names_, ","));
    std::vector<size_t> indices;
    std::string argument_list;
    for (const ExprPtr& argument : call.Children()) {
      if (!argument_list.empty()) {
        argument_list += ',';
      }
      argument_list += argument->ToString();
      auto bound = Resolve(*argument, input_);
      size_t k = keys_.size();
      if (bound.ok()) {
        k = std::find(key_texts_.begin(), key_texts_.end(), (*bound)->ToString()) -
            key_texts_.begin();
      }
      indices.push_back(k);
    }
    if (call.Name() == "grouping_id") {
      for (size_t i = 0; i < indices.size(); ++i) {
        if (indices.size() != keys_.size() || indices[i] != i) {
          return Status::InvalidArgument(
              fmt::format("[GROUPING_ID_COLUMN_MISMATCH] Columns of grouping_id ({}) does not "
                          "match grouping columns ({}).",
                          argument_list, key_list));
        }
      }
      return id;
    }
    if (indices.size() != 1) {
      return Status::InvalidArgument(fmt::format(
          "[WRONG_NUM_ARGS] The `grouping` requires 1 parameters but the actual number is {}.",
          indices.size()));
    }
    if (indices.front() == keys_.size()) {
      return Status::InvalidArgument(fmt::format(
          "[GROUPING_COLUMN_MISMATCH] Column of grouping ({}) can't be found in grouping "
          "columns {}.",
          argument_list, key_list));
    }
    const int shift = static_cast<int>(keys_.size() - 1 - indices.front());
    ExprPtr bit = expr::Call(
        Op::kRemainder, {expr::Function("shiftright", {id, expr::Lit(expr::Scalar::Int32(shift))}),
                         expr::Lit(expr::Scalar::Int64(2))});
    return expr::Cast(std::move(bit), columnar::DataType::Int8());
  }

  const LogicalPlan& input_;
  std::vector<BoundExprPtr> keys_;
  std::vector<std::string> key_names_;
  bool grouping_sets_;
  size_t key_columns_;
  std::vector<std::string> key_texts_;
  std::vector<exec::AggregateCall> calls_;
  std::vector<std::string> call_names_;
  std::vector<std::string> call_texts_;
  std::vector<columnar::Field> call_fields_;
};

}  // namespace

namespace {

// Spark's Expand for GROUPING SETS: per set, the input's columns, then each key (null when the
// set leaves it out), the set's spark_grouping_id and its position (so that a set listed twice
// keeps its duplicate groups). The aggregation groups by the columns after the input's; its
// aggregate calls read the input's columns at their own indices.
Result<LogicalPlanPtr> ExpandGroupingSets(const LogicalPlanPtr& input,
                                          const std::vector<BoundExprPtr>& keys,
                                          const std::vector<std::vector<size_t>>& sets) {
  const int columns = input->Schema()->NumFields();
  const SchemaPtr resolution = ResolutionSchema(*input);
  std::vector<std::vector<BoundExprPtr>> projections;
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(columns) + keys.size() + 2);
  for (int c = 0; c < columns; ++c) {
    names.push_back(input->Schema()->FieldAt(c).Name());
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    names.push_back(fmt::format("__grouping_key{}", k));
  }
  names.emplace_back("spark_grouping_id");
  names.emplace_back("__grouping_set");
  for (size_t p = 0; p < sets.size(); ++p) {
    std::vector<BoundExprPtr> expressions;
    expressions.reserve(names.size());
    for (int c = 0; c < columns; ++c) {
      expressions.push_back(ColumnRef(*input, c));
    }
    int64_t id = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
      const bool kept = std::find(sets[p].begin(), sets[p].end(), k) != sets[p].end();
      if (kept) {
        expressions.push_back(keys[k]);
      } else {
        id |= int64_t{1} << (keys.size() - 1 - k);
        TRIBUTARY_ASSIGN_OR_RAISE(
            BoundExprPtr null,
            expr::Bind(*expr::Lit(expr::Scalar::Null(keys[k]->Type())), *resolution));
        expressions.push_back(std::move(null));
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr id_literal,
                              expr::Bind(*expr::Lit(expr::Scalar::Int64(id)), *resolution));
    TRIBUTARY_ASSIGN_OR_RAISE(
        BoundExprPtr position,
        expr::Bind(*expr::Lit(expr::Scalar::Int32(static_cast<int32_t>(p))), *resolution));
    expressions.push_back(std::move(id_literal));
    expressions.push_back(std::move(position));
    projections.push_back(std::move(expressions));
  }
  std::vector<std::string> qualifiers = input->Qualifiers();
  qualifiers.resize(names.size());
  return LogicalPlanPtr(
      std::make_shared<ExpandNode>(input, std::move(projections), names, std::move(qualifiers)));
}

// GROUPING SETS over aggregates that merge (exec::MergingFunction): the input aggregated once by
// all keys, the few resulting rows expanded per set (ExpandGroupingSets) and merged per set, so the
// input is read and hashed once instead of once per set. `fields` is the result's schema: the
// keys, spark_grouping_id, the set's position, then `calls`. Null when a call does not merge.
Result<LogicalPlanPtr> PreAggregatedGroupingSets(const LogicalPlanPtr& input,
                                                 const std::vector<BoundExprPtr>& keys,
                                                 const std::vector<std::vector<size_t>>& sets,
                                                 const std::vector<exec::AggregateCall>& calls,
                                                 const std::vector<columnar::Field>& call_fields,
                                                 std::vector<columnar::Field> fields) {
  std::vector<std::string> merges;
  for (size_t i = 0; i < calls.size(); ++i) {
    merges.push_back(exec::MergingFunction(calls[i], *call_fields[i].Type()));
    if (merges.back().empty()) {
      return LogicalPlanPtr();
    }
  }
  std::vector<columnar::Field> partial_fields;
  for (size_t k = 0; k < keys.size(); ++k) {
    partial_fields.push_back(fields[k]);
  }
  partial_fields.insert(partial_fields.end(), call_fields.begin(), call_fields.end());
  LogicalPlanPtr partial = std::make_shared<AggregateNode>(
      input, keys, calls, std::make_shared<columnar::Schema>(std::move(partial_fields)));
  std::vector<BoundExprPtr> partial_keys;
  for (size_t k = 0; k < keys.size(); ++k) {
    partial_keys.push_back(ColumnRef(*partial, static_cast<int>(k)));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr expanded,
                            ExpandGroupingSets(partial, partial_keys, sets));
  const int partial_columns = partial->Schema()->NumFields();
  std::vector<BoundExprPtr> grouped_keys;
  for (size_t k = 0; k < keys.size() + 2; ++k) {
    grouped_keys.push_back(ColumnRef(*expanded, partial_columns + static_cast<int>(k)));
  }
  std::vector<exec::AggregateCall> merging;
  for (size_t i = 0; i < calls.size(); ++i) {
    exec::AggregateCall merge;
    merge.function = merges[i];
    merge.arguments = {ColumnRef(*expanded, static_cast<int>(keys.size() + i))};
    merging.push_back(std::move(merge));
  }
  fields.insert(fields.end(), call_fields.begin(), call_fields.end());
  return LogicalPlanPtr(
      std::make_shared<AggregateNode>(expanded, std::move(grouped_keys), std::move(merging),
                                      std::make_shared<columnar::Schema>(std::move(fields))));
}

}  // namespace

Result<LogicalPlanPtr> Aggregate(LogicalPlanPtr input, const std::vector<ExprPtr>& original_keys,
                                 const std::vector<NamedExpr>& original_items,
                                 const ExprPtr& original_having,
                                 const std::vector<std::vector<size_t>>& grouping_sets) {
  const int visible = input->Schema()->NumFields();
  std::vector<const Expression*> referencing = ItemExpressions(original_items);
  for (const ExprPtr& key : original_keys) {
    referencing.push_back(key.get());
  }
  referencing.push_back(original_having.get());
  input = WithReferencedHiddenColumns(std::move(input), referencing);
  std::vector<ExprPtr> keys = original_keys;
  std::vector<NamedExpr> items = original_items;
  ExprPtr having = original_having;
  std::vector<ExprPtr*> windowed = {&having};
  for (ExprPtr& key : keys) {
    windowed.push_back(&key);
  }
  for (NamedExpr& item : items) {
    windowed.push_back(&item.expr);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(input, PlanTimeWindow(std::move(input), windowed));
  std::vector<BoundExprPtr> bound_keys;
  std::vector<std::string> key_names;
  std::vector<columnar::Field> fields;
  for (const ExprPtr& key : keys) {
    if (ContainsAggregate(*key)) {
      return Status::InvalidArgument(
          fmt::format("aggregate functions are not allowed in GROUP BY: '{}'", key->ToString()));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*key, *input));
    key_names.push_back(DerivedName(*key));
    fields.emplace_back(key_names.back(), bound->Type(), true);
    bound_keys.push_back(std::move(bound));
  }
  LogicalPlanPtr grouped = input;
  std::vector<BoundExprPtr> grouped_keys = bound_keys;
  if (!grouping_sets.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(grouped, ExpandGroupingSets(input, bound_keys, grouping_sets));
    grouped_keys.clear();
    for (size_t k = 0; k < bound_keys.size() + 2; ++k) {
      grouped_keys.push_back(
          ColumnRef(*grouped, input->Schema()->NumFields() + static_cast<int>(k)));
    }
    fields.emplace_back("spark_grouping_id", columnar::DataType::Int64(), false);
    fields.emplace_back("__grouping_set", columnar::DataType::Int32(), false);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<NamedExpr> expanded, ExpandStars(*input, items, visible));
  AggregateRewriter rewriter(*input, bound_keys, key_names, !grouping_sets.empty());
  std::vector<ExprPtr> rewritten_items;
  for (const NamedExpr& item : expanded) {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr rewritten, rewriter.Rewrite(item.expr));
    rewritten_items.push_back(std::move(rewritten));
  }
  ExprPtr rewritten_having;
  if (having != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(rewritten_having, rewriter.Rewrite(having));
  }
  LogicalPlanPtr aggregate;
  // A stream keeps one aggregation (its state); batches take the two-step form.
  if (!grouping_sets.empty() && !input->IsStreaming()) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        aggregate, PreAggregatedGroupingSets(input, bound_keys, grouping_sets, rewriter.Calls(),
                                             rewriter.CallFields(), fields));
  }
  if (aggregate == nullptr) {
    for (const columnar::Field& field : rewriter.CallFields()) {
      fields.push_back(field);
    }
    aggregate =
        std::make_shared<AggregateNode>(grouped, grouped_keys, rewriter.Calls(),
                                        std::make_shared<columnar::Schema>(std::move(fields)));
  }
  const SchemaPtr resolution = ResolutionSchema(*aggregate);
  LogicalPlanPtr current = aggregate;
  if (rewritten_having != nullptr) {
    auto condition = expr::Bind(*rewritten_having, *resolution);
    if (!condition.ok()) {
      return condition.status().WithContext(fmt::format("in HAVING '{}'", having->ToString()));
    }
    current = std::make_shared<FilterNode>(current, std::move(*condition));
  }
  std::vector<ExprPtr*> windowed_items;
  windowed_items.reserve(rewritten_items.size());
  for (ExprPtr& item : rewritten_items) {
    windowed_items.push_back(&item);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      current, PlanWindows(current, windowed_items, [&resolution](const Expression& e) {
        return expr::Bind(e, *resolution);
      }));
  const SchemaPtr output_resolution = ResolutionSchema(*current);
  std::vector<BoundExprPtr> outputs;
  std::vector<std::string> names;
  for (size_t i = 0; i < expanded.size(); ++i) {
    auto bound = expr::Bind(*rewritten_items[i], *output_resolution);
    if (!bound.ok()) {
      return bound.status().WithContext(fmt::format("in '{}'", expanded[i].expr->SqlText()));
    }
    outputs.push_back(std::move(*bound));
    names.push_back(expanded[i].alias.empty() ? DerivedName(*expanded[i].expr) : expanded[i].alias);
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(current, std::move(outputs), std::move(names),
                                                      std::vector<std::string>(names.size())));
}

Result<LogicalPlanPtr> Join(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
                            const ExprPtr& condition) {
  if (condition == nullptr) {
    if (type != exec::JoinType::kCross && type != exec::JoinType::kInner) {
      // Spark: an outer, semi or anti join without a condition pairs every row (a cross join
      // that keeps unmatched rows, or tests whether the right side has any row).
      return Join(std::move(left), std::move(right), type, expr::Lit(expr::Scalar::Boolean(true)));
    }
    return LogicalPlanPtr(std::make_shared<JoinNode>(
        std::move(left), std::move(right),
        type == exec::JoinType::kInner ? exec::JoinType::kCross : type, std::vector<BoundExprPtr>{},
        std::vector<BoundExprPtr>{}, nullptr));
  }
  if (ContainsAggregate(*condition)) {
    return Status::InvalidArgument(fmt::format(
        "aggregate functions are not allowed in a join condition: '{}'", condition->ToString()));
  }
  // Resolve over left ++ right (a cross join's output has exactly those columns).
  const JoinNode both(left, right, exec::JoinType::kCross, {}, {}, nullptr);
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*condition, both));
  const int left_columns = left->Schema()->NumFields();
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(bound, &conjuncts);
  std::vector<BoundExprPtr> left_keys;
  std::vector<BoundExprPtr> right_keys;
  std::vector<BoundExprPtr> residual;
  for (const BoundExprPtr& conjunct : conjuncts) {
    if (conjunct->GetOp() == Op::kEqual) {
      const std::pair<int, int> a = ColumnRange(conjunct->Child(0));
      const std::pair<int, int> b = ColumnRange(conjunct->Child(1));
      const auto all_left = [&](std::pair<int, int> r) {
        return r.second >= 0 && r.second < left_columns;
      };
      const auto all_right = [&](std::pair<int, int> r) {
        return r.second >= 0 && r.first >= left_columns;
      };
      const bool same_type = conjunct->Child(0).Type()->Equals(*conjunct->Child(1).Type());
      if (same_type && all_left(a) && all_right(b)) {
        left_keys.push_back(conjunct->Children()[0]);
        right_keys.push_back(ShiftColumns(conjunct->Children()[1], -left_columns));
        continue;
      }
      if (same_type && all_right(a) && all_left(b)) {
        left_keys.push_back(conjunct->Children()[1]);
        right_keys.push_back(ShiftColumns(conjunct->Children()[0], -left_columns));
        continue;
      }
    }
    residual.push_back(conjunct);
  }
  if (type == exec::JoinType::kCross) {
    type = exec::JoinType::kInner;
  }
  return LogicalPlanPtr(std::make_shared<JoinNode>(std::move(left), std::move(right), type,
                                                   std::move(left_keys), std::move(right_keys),
                                                   Conjoin(residual)));
}

Result<LogicalPlanPtr> JoinUsing(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
                                 const std::vector<std::string>& columns, bool keep_side_keys) {
  if (columns.empty()) {
    // A NATURAL join of inputs without a common column: every pair of rows matches (Spark's
    // join without a condition, also for the outer kinds).
    const bool outer = type == exec::JoinType::kLeft || type == exec::JoinType::kRight ||
                       type == exec::JoinType::kFull;
    return Join(std::move(left), std::move(right), type,
                outer ? expr::Lit(expr::Scalar::Boolean(true)) : nullptr);
  }
  std::vector<int> left_indices;
  std::vector<int> right_indices;
  ExprPtr condition;
  const JoinNode both(left, right, exec::JoinType::kCross, {}, {}, nullptr);
  const int left_columns = left->Schema()->NumFields();
  for (const std::string& name : columns) {
    auto l = UniqueColumn(*left, nullptr, name);
    auto r = UniqueColumn(*right, nullptr, name);
    if (!l.ok() || !r.ok()) {
      return Status::InvalidArgument(fmt::format(
          "USING column '{}' must appear exactly once on each side of the join: left [{}], "
          "right [{}]",
          name, AvailableColumns(*left), AvailableColumns(*right)));
    }
    left_indices.push_back(*l);
    right_indices.push_back(*r);
    ExprPtr equal = expr::Call(Op::kEqual, {ExactColumn(InternalName(both, *l)),
                                            ExactColumn(InternalName(both, left_columns + *r))});
    condition = condition == nullptr ? equal : expr::And(condition, equal);
  }
  // Bind by internal names directly: the user's names may be ambiguous across the sides.
  auto bound = expr::Bind(*condition, *ResolutionSchema(both));
  TRIBUTARY_RETURN_NOT_OK(bound.status());
  std::vector<BoundExprPtr> left_keys;
  std::vector<BoundExprPtr> right_keys;
  std::vector<BoundExprPtr> residual;
  std::vector<BoundExprPtr> conjuncts;
  SplitConjuncts(*bound, &conjuncts);
  for (const BoundExprPtr& c : conjuncts) {
    if (c->Child(0).Type()->Equals(*c->Child(1).Type())) {
      left_keys.push_back(c->Children()[0]);
      right_keys.push_back(ShiftColumns(c->Children()[1], -left_columns));
    } else {
      residual.push_back(c);
    }
  }
  const exec::JoinType join_type = type == exec::JoinType::kCross ? exec::JoinType::kInner : type;
  LogicalPlanPtr joined = std::make_shared<JoinNode>(left, right, join_type, std::move(left_keys),
                                                     std::move(right_keys), Conjoin(residual));
  if (join_type == exec::JoinType::kLeftSemi || join_type == exec::JoinType::kLeftAnti) {
    return joined;
  }
  std::vector<BoundExprPtr> outputs;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (size_t i = 0; i < columns.size(); ++i) {
    BoundExprPtr l = ColumnRef(*joined, left_indices[i]);
    BoundExprPtr r = ColumnRef(*joined, left_columns + right_indices[i]);
    if (join_type == exec::JoinType::kFull) {
      ExprPtr merged = expr::Function(
          "coalesce", {ExactColumn(InternalName(*joined, left_indices[i])),
                       ExactColumn(InternalName(*joined, left_columns + right_indices[i]))});
      TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound_merged,
                                expr::Bind(*merged, *ResolutionSchema(*joined)));
      outputs.push_back(std::move(bound_merged));
    } else {
      outputs.push_back(join_type == exec::JoinType::kRight ? r : l);
    }
    // Spark's RIGHT join outputs the right side's key itself, under its own spelling.
    names.push_back(join_type == exec::JoinType::kRight
                        ? right->Schema()->FieldAt(right_indices[i]).Name()
                        : left->Schema()->FieldAt(left_indices[i]).Name());
    qualifiers.emplace_back();
  }
  for (int i = 0; i < left_columns; ++i) {
    if (std::find(left_indices.begin(), left_indices.end(), i) == left_indices.end()) {
      outputs.push_back(ColumnRef(*joined, i));
      names.push_back(left->Schema()->FieldAt(i).Name());
      qualifiers.push_back(left->Qualifiers()[static_cast<size_t>(i)]);
    }
  }
  for (int i = 0; i < right->Schema()->NumFields(); ++i) {
    if (std::find(right_indices.begin(), right_indices.end(), i) == right_indices.end()) {
      outputs.push_back(ColumnRef(*joined, left_columns + i));
      names.push_back(right->Schema()->FieldAt(i).Name());
      qualifiers.push_back(right->Qualifiers()[static_cast<size_t>(i)]);
    }
  }
  if (keep_side_keys) {
    // Each side's own keys stay reachable as `left.k` / `right.k` (null on the side an outer
    // join did not match), and part of `left.*` / `right.*`, as Spark's hidden join output.
    const auto keep = [&](const LogicalPlan& side, const std::vector<int>& indices, int offset) {
      for (int index : indices) {
        outputs.push_back(ColumnRef(*joined, offset + index));
        names.push_back(side.Schema()->FieldAt(index).Name());
        qualifiers.push_back(
            QualifiedAccessOnly(QualifierName(side.Qualifiers()[static_cast<size_t>(index)])));
      }
    };
    keep(*left, left_indices, 0);
    keep(*right, right_indices, left_columns);
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(joined, std::move(outputs), std::move(names),
                                                      std::move(qualifiers)));
}

std::vector<std::string> NaturalJoinColumns(const LogicalPlan& left, const LogicalPlan& right) {
  std::vector<std::string> columns;
  for (int i = 0; i < left.Schema()->NumFields(); ++i) {
    const std::string& name = left.Schema()->FieldAt(i).Name();
    const bool seen = std::any_of(columns.begin(), columns.end(), [&](const std::string& c) {
      return EqualsIgnoreAsciiCase(c, name);
    });
    if (!seen && !MatchColumns(left, nullptr, name).empty() &&
        !MatchColumns(right, nullptr, name).empty()) {
      columns.push_back(name);
    }
  }
  return columns;
}

Result<LogicalPlanPtr> OrderBy(LogicalPlanPtr input, const std::vector<SortItem>& items) {
  const int visible = input->Schema()->NumFields();
  std::vector<const Expression*> referencing;
  referencing.reserve(items.size());
  for (const SortItem& item : items) {
    referencing.push_back(item.expr.get());
  }
  input = WithReferencedHiddenColumns(std::move(input), referencing);
  std::vector<exec::SortKey> keys;
  for (const SortItem& item : items) {
    TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr bound, Resolve(*item.expr, *input));
    exec::SortKey key;
    key.expression = std::move(bound);
    key.ascending = item.ascending;
    key.nulls_first = item.nulls_first.value_or(item.ascending);
    keys.push_back(std::move(key));
  }
  return FirstColumns(std::make_shared<SortNode>(std::move(input), std::move(keys), std::nullopt),
                      visible);
}

Result<LogicalPlanPtr> Limit(LogicalPlanPtr input, int64_t limit, int64_t offset) {
  if (limit < 0 || offset < 0) {
    return Status::InvalidArgument(
        fmt::format("LIMIT and OFFSET must not be negative (got {} and {})", limit, offset));
  }
  return LogicalPlanPtr(std::make_shared<LimitNode>(std::move(input), limit, offset));
}

namespace {

// `inputs` with each column cast to the common type of that column in all of them, as a set
// operation (`operation`: UNION, INTERSECT, EXCEPT) lines them up by position.
Result<std::vector<LogicalPlanPtr>> WidenSetInputs(std::vector<LogicalPlanPtr> inputs,
                                                   std::string_view operation) {
  // Spark's ordinal words in these messages: first, second, third, 4th, ...
  auto ordinal = [](size_t i) {
    static constexpr std::array<std::string_view, 3> kWords = {"first", "second", "third"};
    return i < kWords.size() ? std::string(kWords[i]) : fmt::format("{}th", i + 1);
  };
  const int columns = inputs.front()->Schema()->NumFields();
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i]->Schema()->NumFields() != columns) {
      return Status::InvalidArgument(fmt::format(
          "[NUM_COLUMNS_MISMATCH] {} can only be performed on inputs with the same number of "
          "columns, but the first input has {} columns and the {} input has {} columns.",
          operation, columns, ordinal(i), inputs[i]->Schema()->NumFields()));
    }
  }
  std::vector<columnar::DataTypePtr> types;
  for (int c = 0; c < columns; ++c) {
    std::vector<columnar::DataTypePtr> candidates;
    columnar::DataTypePtr common;
    for (size_t i = 0; i < inputs.size(); ++i) {
      candidates.push_back(inputs[i]->Schema()->FieldAt(c).Type());
      common = expr::CommonType(candidates);
      if (common == nullptr) {
        return Status::InvalidArgument(fmt::format(
            "[INCOMPATIBLE_COLUMN_TYPE] {} can only be performed on tables with compatible "
            "column types. The {} column of the {} table is \"{}\" type which is not "
            "compatible with \"{}\" at the same column of the first table.",
            operation, ordinal(static_cast<size_t>(c)), ordinal(i),
            AsciiUpper(candidates.back()->ToString()), AsciiUpper(candidates.front()->ToString())));
      }
    }
    types.push_back(std::move(common));
  }
  for (LogicalPlanPtr& input : inputs) {
    bool cast_needed = false;
    std::vector<BoundExprPtr> outputs;
    std::vector<std::string> names;
    for (int c = 0; c < columns; ++c) {
      BoundExprPtr ref = ColumnRef(*input, c);
      const columnar::DataType& common = *types[static_cast<size_t>(c)];
      // Widened interval fields (INTERVAL DAY with INTERVAL HOUR) relabel the column too.
      if (!ref->Type()->Equals(common) ||
          ref->Type()->IntervalStartField() != common.IntervalStartField() ||
          ref->Type()->IntervalEndField() != common.IntervalEndField()) {
        cast_needed = true;
        ref = expr::CastTo(ref, types[static_cast<size_t>(c)]);
      }
      outputs.push_back(std::move(ref));
      names.push_back(input->Schema()->FieldAt(c).Name());
    }
    if (cast_needed) {
      input = std::make_shared<ProjectNode>(input, std::move(outputs), std::move(names),
                                            std::vector<std::string>(static_cast<size_t>(columns)));
    }
  }
  return inputs;
}

}  // namespace

Result<LogicalPlanPtr> Union(std::vector<LogicalPlanPtr> inputs, bool distinct) {
  if (inputs.empty()) {
    return Status::InvalidArgument("UNION of no inputs");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(inputs, WidenSetInputs(std::move(inputs), "UNION"));
  LogicalPlanPtr all = std::make_shared<UnionNode>(std::move(inputs));
  return distinct ? Distinct(std::move(all)) : all;
}

// Both sides tagged with a count column each (1 on its own side, 0 on the other), unioned and
// grouped by every column: the hash aggregation matches rows as Spark's null-safe equality
// does, and the two sums are each row's multiplicity on either side. DISTINCT keeps the rows
// the counts admit; ALL then replicates each row min(l, r) or l - r times through explode
// (Spark's rewrite of INTERSECT/EXCEPT ALL through a replicating Generate).
Result<LogicalPlanPtr> SetOperation(LogicalPlanPtr left, LogicalPlanPtr right,
                                    SetOperationKind kind, bool all) {
  const std::string_view operation = kind == SetOperationKind::kIntersect
                                         ? (all ? "INTERSECT ALL" : "INTERSECT")
                                         : (all ? "EXCEPT ALL" : "EXCEPT");
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(left->Schema()->NumFields()));
  for (int c = 0; c < left->Schema()->NumFields(); ++c) {
    names.push_back(left->Schema()->FieldAt(c).Name());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<LogicalPlanPtr> sides,
                            WidenSetInputs({std::move(left), std::move(right)}, operation));
  const int columns = static_cast<int>(names.size());
  std::vector<ExprPtr> keys;
  keys.reserve(static_cast<size_t>(columns));
  for (int c = 0; c < columns; ++c) {
    keys.push_back(ExactColumn(fmt::format("__c{}", c)));
  }
  for (size_t side = 0; side < sides.size(); ++side) {
    const SchemaPtr resolution = ResolutionSchema(*sides[side]);
    std::vector<NamedExpr> items;
    items.reserve(static_cast<size_t>(columns) + 2);
    for (int c = 0; c < columns; ++c) {
      items.push_back({ExactColumn(resolution->FieldAt(c).Name()), fmt::format("__c{}", c)});
    }
    items.push_back({expr::Lit(expr::Scalar::Int64(side == 0 ? 1 : 0)), "__left"});
    items.push_back({expr::Lit(expr::Scalar::Int64(side == 0 ? 0 : 1)), "__right"});
    TRIBUTARY_ASSIGN_OR_RAISE(sides[side], Select(std::move(sides[side]), items));
  }
  LogicalPlanPtr tagged = std::make_shared<UnionNode>(std::move(sides));
  const ExprPtr left_count = expr::Function("sum", {ExactColumn("__left")});
  const ExprPtr right_count = expr::Function("sum", {ExactColumn("__right")});
  const ExprPtr zero = expr::Lit(expr::Scalar::Int64(0));
  ExprPtr copies;
  ExprPtr having;
  if (kind == SetOperationKind::kIntersect) {
    copies = expr::Function("least", {left_count, right_count});
    having = expr::And(expr::Call(Op::kGreater, {left_count, zero}),
                       expr::Call(Op::kGreater, {right_count, zero}));
  } else {
    copies = expr::Call(Op::kSubtract, {left_count, right_count});
    having = all ? expr::Call(Op::kGreater, {copies, zero})
                 : expr::And(expr::Call(Op::kGreater, {left_count, zero}),
                             expr::Call(Op::kEqual, {right_count, zero}));
  }
  std::vector<NamedExpr> items;
  items.reserve(static_cast<size_t>(columns) + 1);
  for (int c = 0; c < columns; ++c) {
    items.push_back({keys[static_cast<size_t>(c)], fmt::format("__c{}", c)});
  }
  if (all) {
    items.push_back({copies, "__copies"});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr grouped, Aggregate(tagged, keys, items, having));
  if (all) {
    items.pop_back();
    items.push_back(
        {expr::Function("explode", {expr::Function("sequence", {expr::Lit(expr::Scalar::Int64(1)),
                                                                ExactColumn("__copies")})}),
         "__copy"});
    TRIBUTARY_ASSIGN_OR_RAISE(grouped, Select(std::move(grouped), items));
  }
  return Rename(FirstColumns(std::move(grouped), columns), names);
}

Result<LogicalPlanPtr> Distinct(LogicalPlanPtr input) {
  std::vector<BoundExprPtr> keys;
  keys.reserve(static_cast<size_t>(input->Schema()->NumFields()));
  for (int i = 0; i < input->Schema()->NumFields(); ++i) {
    keys.push_back(ColumnRef(*input, i));
  }
  std::vector<std::string> qualifiers = input->Qualifiers();
  auto node = std::make_shared<AggregateNode>(input, std::move(keys),
                                              std::vector<exec::AggregateCall>{}, input->Schema());
  // DISTINCT keeps the columns' qualifiers, unlike a GROUP BY's computed keys.
  std::vector<BoundExprPtr> outputs;
  std::vector<std::string> out_names;
  for (int i = 0; i < node->Schema()->NumFields(); ++i) {
    outputs.push_back(ColumnRef(*node, i));
    out_names.push_back(node->Schema()->FieldAt(i).Name());
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(node, std::move(outputs),
                                                      std::move(out_names), std::move(qualifiers)));
}

Result<LogicalPlanPtr> DropDuplicates(LogicalPlanPtr input, const std::vector<std::string>& names,
                                      bool within_watermark) {
  const columnar::Schema& schema = *input->Schema();
  std::vector<int> keys;
  if (names.empty()) {
    for (int i = 0; i < schema.NumFields(); ++i) {
      keys.push_back(i);
    }
  }
  for (const std::string& name : names) {
    bool found = false;
    for (int i = 0; i < schema.NumFields(); ++i) {
      if (EqualsIgnoreAsciiCase(schema.FieldAt(i).Name(), name)) {
        found = true;
        if (std::find(keys.begin(), keys.end(), i) == keys.end()) {
          keys.push_back(i);
        }
      }
    }
    if (!found) {
      std::string columns;
      for (int i = 0; i < schema.NumFields(); ++i) {
        columns += (i > 0 ? ", " : "") + schema.FieldAt(i).Name();
      }
      return Status::InvalidArgument(
          fmt::format("Cannot resolve column name \"{}\" among ({})", name, columns));
    }
  }
  return LogicalPlanPtr(
      std::make_shared<DeduplicateNode>(std::move(input), std::move(keys), within_watermark));
}

Result<LogicalPlanPtr> WithColumn(LogicalPlanPtr input, const std::string& name,
                                  const ExprPtr& original) {
  if (ContainsAggregate(*original)) {
    return Status::InvalidArgument(
        fmt::format("withColumn('{}'): aggregate functions need groupBy/agg", name));
  }
  const int visible = input->Schema()->NumFields();
  input = WithReferencedHiddenColumns(std::move(input), {original.get()});
  ExprPtr e = original;
  TRIBUTARY_ASSIGN_OR_RAISE(input, PlanTimeWindow(std::move(input), {&e}));
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr value, Resolve(*e, *input));
  std::vector<BoundExprPtr> outputs;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  bool replaced = false;
  for (int i = 0; i < visible; ++i) {
    const std::string& existing = input->Schema()->FieldAt(i).Name();
    if (EqualsIgnoreAsciiCase(existing, name)) {
      if (!replaced) {
        outputs.push_back(value);
        names.push_back(name);
        qualifiers.emplace_back();
        replaced = true;
      }
      continue;
    }
    outputs.push_back(ColumnRef(*input, i));
    names.push_back(existing);
    qualifiers.push_back(input->Qualifiers()[static_cast<size_t>(i)]);
  }
  if (!replaced) {
    outputs.push_back(std::move(value));
    names.push_back(name);
    qualifiers.emplace_back();
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(std::move(input), std::move(outputs),
                                                      std::move(names), std::move(qualifiers)));
}

Result<LogicalPlanPtr> Drop(LogicalPlanPtr input, const std::vector<std::string>& drop) {
  std::vector<BoundExprPtr> outputs;
  std::vector<std::string> names;
  std::vector<std::string> qualifiers;
  for (int i = 0; i < input->Schema()->NumFields(); ++i) {
    const std::string& existing = input->Schema()->FieldAt(i).Name();
    if (std::any_of(drop.begin(), drop.end(),
                    [&](const std::string& d) { return EqualsIgnoreAsciiCase(d, existing); })) {
      continue;
    }
    outputs.push_back(ColumnRef(*input, i));
    names.push_back(existing);
    qualifiers.push_back(input->Qualifiers()[static_cast<size_t>(i)]);
  }
  return LogicalPlanPtr(std::make_shared<ProjectNode>(std::move(input), std::move(outputs),
                                                      std::move(names), std::move(qualifiers)));
}

Result<LogicalPlanPtr> Rename(LogicalPlanPtr input, const std::vector<std::string>& new_names) {
  if (static_cast<int>(new_names.size()) != input->Schema()->NumFields()) {
    return Status::InvalidArgument(fmt::format("{} column names given for {} columns",
                                               new_names.size(), input->Schema()->NumFields()));
  }
  std::vector<BoundExprPtr> outputs;
  outputs.reserve(static_cast<size_t>(input->Schema()->NumFields()));
  for (int i = 0; i < input->Schema()->NumFields(); ++i) {
    outputs.push_back(ColumnRef(*input, i));
  }
  std::vector<std::string> qualifiers = input->Qualifiers();
  return LogicalPlanPtr(std::make_shared<ProjectNode>(std::move(input), std::move(outputs),
                                                      new_names, std::move(qualifiers)));
}

Result<LogicalPlanPtr> Watermark(LogicalPlanPtr input, const std::string& event_time,
                                 int64_t delay_micros, std::string_view delay_text) {
  if (delay_micros < 0) {
    return Status::InvalidArgument(
        fmt::format("delay threshold ({}) should not be negative.", delay_text));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(BoundExprPtr column, Resolve(*expr::Col(event_time), *input));
  const columnar::DataTypePtr& type = column->Type();
  bool on_timestamp = type->Id() == columnar::TypeId::kTimestamp;
  if (type->Id() == columnar::TypeId::kStruct) {
    for (const columnar::Field& field : type->Fields()) {
      on_timestamp = on_timestamp ||
                     (field.Name() == "end" && field.Type()->Id() == columnar::TypeId::kTimestamp);
    }
  }
  if (!on_timestamp) {
    return Status::InvalidArgument(fmt::format(
        "[EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE] The event time `{}` has the invalid type \"{}\", "
        "but expected \"TIMESTAMP\".",
        event_time, AsciiUpper(type->ToString())));
  }
  if (column->GetOp() != Op::kColumn) {
    return Status::InvalidArgument(fmt::format(
        "the event time of a watermark must be a top-level column, not the field `{}`; add it as "
        "a column first (withColumn)",
        event_time));
  }
  return LogicalPlanPtr(
      std::make_shared<WatermarkNode>(std::move(input), column->Index(), delay_micros));
}

}  // namespace tributary::plan
