// The SQL parser's queries and relations: SELECT, VALUES, UNION, WITH, ORDER BY and LIMIT; the
// FROM clause's tables, STREAM sources, subqueries, joins and table functions; and the limits
// on nesting depth and tree height every part of the parser checks (parser_internal.h).

#include <algorithm>

#include <fmt/format.h>

#include "common/ascii.h"
#include "sql/keywords.h"
#include "sql/parser_internal.h"

namespace tributary::sql::internal {

// ---- queries ----

// SELECT, WITH, VALUES, or "(" leading to one of them.
bool Parser::IsQueryStart(size_t ahead) const {
  size_t i = ahead;
  while (Peek(i).IsOperator("(")) {
    ++i;
  }
  const Token& token = Peek(i);
  return token.IsKeyword("SELECT") || token.IsKeyword("WITH") || token.IsKeyword("VALUES");
}

// A query wrapped as SELECT * FROM (query), so ORDER BY/LIMIT/WITH can apply on top of
// one that already has its own.
std::shared_ptr<Query> Parser::SelectStarFrom(RelationPtr from) {
  auto outer = std::make_shared<Query>();
  outer->position = from->position;
  outer->select.push_back(SelectItem{nullptr, "", {}, from->position, {}});
  outer->from = std::move(from);
  return outer;
}

std::shared_ptr<Query> Parser::WrapInSelect(QueryPtr inner) {
  auto relation = std::make_shared<Relation>();
  relation->kind = RelationKind::kSubquery;
  relation->position = inner->position;
  relation->subquery = inner;
  return SelectStarFrom(std::move(relation));
}

Result<OrderItem> Parser::ParseOrderItem() {
  OrderItem item;
  TRIBUTARY_ASSIGN_OR_RAISE(item.expr, ParseExpr());
  if (AcceptKeyword("DESC")) {
    item.ascending = false;
  } else {
    AcceptKeyword("ASC");
  }
  item.nulls_first = item.ascending;
  if (AcceptKeyword("NULLS")) {
    if (AcceptKeyword("FIRST")) {
      item.nulls_first = true;
    } else if (AcceptKeyword("LAST")) {
      item.nulls_first = false;
    } else {
      return Unexpected("FIRST or LAST", {"FIRST", "LAST"});
    }
  }
  return item;
}

Result<QueryPtr> Parser::ParseQuery() {
  DepthGuard guard(&depth_);
  TRIBUTARY_RETURN_NOT_OK(CheckDepth());
  const SourcePosition position = Peek().position;
  std::vector<CommonTableExpression> with;
  WithScope scope(&with_heights_);
  if (AcceptKeyword("WITH")) {
    do {
      CommonTableExpression cte;
      cte.position = Peek().position;
      TRIBUTARY_ASSIGN_OR_RAISE(cte.name, Identifier("a name for the WITH query"));
      if (Peek().IsOperator("(")) {
        TRIBUTARY_ASSIGN_OR_RAISE(cte.columns, ParenthesizedNames());
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
      TRIBUTARY_ASSIGN_OR_RAISE(cte.query, ParseQuery());
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      with_heights_.back()[AsciiLower(cte.name)] = QueryHeight(cte.query);
      with.push_back(std::move(cte));
    } while (AcceptOperator(","));
  }
  // `left op [ALL|DISTINCT] right` for the operator at the cursor, whose right side `term` parses.
  auto set_operation = [&](std::shared_ptr<Query> left, SetOperator set_operator,
                           const auto& term) -> Result<std::shared_ptr<Query>> {
    const Token& op = Next();
    auto set = std::make_shared<Query>();
    set->kind = QueryKind::kUnion;
    set->set_operator = set_operator;
    set->position = op.position;
    set->union_all = AcceptKeyword("ALL");
    if (!set->union_all) {
      AcceptKeyword("DISTINCT");
    }
    set->left = std::move(left);
    TRIBUTARY_ASSIGN_OR_RAISE(set->right, term());
    TRIBUTARY_RETURN_NOT_OK(CheckQueryHeight(set, op.position));
    return set;
  };
  // INTERSECT binds tighter than UNION and EXCEPT (Spark's grammar, as the SQL standard).
  auto intersect_term = [&]() -> Result<std::shared_ptr<Query>> {
    TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Query> term, ParseQueryTerm());
    while (Peek().IsKeyword("INTERSECT")) {
      TRIBUTARY_ASSIGN_OR_RAISE(term, set_operation(std::move(term), SetOperator::kIntersect,
                                                    [&] { return ParseQueryTerm(); }));
    }
    return term;
  };
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Query> query, intersect_term());
  while (Peek().IsKeyword("UNION") || Peek().IsKeyword("EXCEPT") || Peek().IsKeyword("MINUS")) {
    const SetOperator set_operator =
        Peek().IsKeyword("UNION") ? SetOperator::kUnion : SetOperator::kExcept;
    TRIBUTARY_ASSIGN_OR_RAISE(query, set_operation(std::move(query), set_operator, intersect_term));
  }
  const bool has_order = Peek().IsKeyword("ORDER");
  const bool has_limit = Peek().IsKeyword("LIMIT") || Peek().IsKeyword("OFFSET");
  if ((has_order || has_limit) &&
      (!query->order_by.empty() || query->limit != nullptr || query->offset != nullptr)) {
    query = WrapInSelect(std::move(query));
  }
  if (AcceptKeyword("ORDER")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
    if (AtAllKeyword()) {
      // ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]: ALL stands as a column for the binder.
      query->order_by_all = true;
      OrderItem item;
      item.expr = Track(expr::Col("`ALL`"), Next().position);
      if (AcceptKeyword("DESC")) {
        item.ascending = false;
      } else {
        AcceptKeyword("ASC");
      }
      item.nulls_first = item.ascending;
      if (AcceptKeyword("NULLS")) {
        if (AcceptKeyword("FIRST")) {
          item.nulls_first = true;
        } else if (AcceptKeyword("LAST")) {
          item.nulls_first = false;
        } else {
          return Unexpected("FIRST or LAST", {"FIRST", "LAST"});
        }
      }
      query->order_by.push_back(std::move(item));
      // `ORDER BY all, b` sorts by a column named all (Spark resolves ALL as one first).
      if (AcceptOperator(",")) {
        query->order_by_all = false;
        do {
          TRIBUTARY_ASSIGN_OR_RAISE(OrderItem next, ParseOrderItem());
          query->order_by.push_back(std::move(next));
        } while (AcceptOperator(","));
      }
    } else {
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(OrderItem item, ParseOrderItem());
        query->order_by.push_back(std::move(item));
      } while (AcceptOperator(","));
    }
  }
  if (AcceptKeyword("LIMIT")) {
    if (!AcceptKeyword("ALL")) {
      TRIBUTARY_ASSIGN_OR_RAISE(query->limit, ParseExpr());
    }
  }
  if (AcceptKeyword("OFFSET")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->offset, ParseExpr());
  }
  if (!with.empty()) {
    if (!query->with.empty()) {
      query = WrapInSelect(std::move(query));
    }
    query->with = std::move(with);
    query->position = position;
  }
  TRIBUTARY_RETURN_NOT_OK(CheckQueryHeight(query, position));
  return QueryPtr(std::move(query));
}

Result<std::shared_ptr<Query>> Parser::ParseQueryTerm() {
  if (AcceptOperator("(")) {
    TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr inner, ParseQuery());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return std::make_shared<Query>(*inner);
  }
  if (Peek().IsKeyword("VALUES")) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Query> values, ParseValues());
    // Spark's inline table takes an alias as a query too (`CREATE VIEW v AS VALUES (1, 'a')
    // AS t(x, y)`): SELECT * FROM the aliased rows.
    auto relation = std::make_shared<Relation>();
    relation->kind = RelationKind::kSubquery;
    relation->position = values->position;
    relation->subquery = values;
    TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
    if (relation->alias.empty()) {
      return values;
    }
    return SelectStarFrom(std::move(relation));
  }
  if (!Peek().IsKeyword("SELECT")) {
    return Unexpected("SELECT, VALUES or '('", {"SELECT", "VALUES", "WITH"});
  }
  return ParseSelect();
}

Result<std::shared_ptr<Query>> Parser::ParseValues() {
  auto query = std::make_shared<Query>();
  query->kind = QueryKind::kValues;
  query->position = Next().position;
  do {
    std::vector<ExprPtr> row;
    if (AcceptOperator("(")) {
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
        row.push_back(std::move(value));
        // Spark accepts `1 AS one` in an inline table's row; the table's columns are named by
        // the alias after VALUES (or col1, col2, ...), so the name is read and dropped.
        if (AcceptKeyword("AS")) {
          TRIBUTARY_RETURN_NOT_OK(Identifier("a name", true).status());
        }
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
      row.push_back(std::move(value));
    }
    if (!query->rows.empty() && row.size() != query->rows.front().size()) {
      return ErrorAt(tokens_[pos_ - 1],
                     fmt::format("VALUES rows must have the same number of values: this row "
                                 "has {}, the first has {}",
                                 row.size(), query->rows.front().size()));
    }
    query->rows.push_back(std::move(row));
  } while (AcceptOperator(","));
  return query;
}

// How many tokens a `name {"." name} "." "*"` star starts here (0 when it is not one).
size_t Parser::QualifiedStarLength() const {
  size_t i = 0;
  while (Peek(i).kind == TokenKind::kWord || Peek(i).kind == TokenKind::kQuotedWord) {
    if (!Peek(i + 1).IsOperator(".")) {
      return 0;
    }
    if (Peek(i + 2).IsOperator("*")) {
      return i + 3;
    }
    i += 2;
  }
  return 0;
}

namespace {
Status RequireNoWindowReferences(const Query& query);
}  // namespace

Result<std::shared_ptr<Query>> Parser::ParseSelect() {
  auto query = std::make_shared<Query>();
  query->position = Next().position;
  if (AcceptKeyword("DISTINCT")) {
    query->distinct = true;
  } else if (AtSetQuantifierAll()) {
    Next();
  }
  do {
    SelectItem item;
    item.position = Peek().position;
    if (AcceptOperator("*")) {
      query->select.push_back(std::move(item));
      continue;
    }
    if (const size_t length = QualifiedStarLength(); length > 0) {
      for (size_t i = 0; i + 2 < length; i += 2) {
        item.star_qualifier.push_back(Peek(i).text);
      }
      pos_ += length;
      query->select.push_back(std::move(item));
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(item.expr, ParseExpr());
    if (Peek().IsKeyword("AS") && Peek(1).IsOperator("(")) {
      Next();
      // Spark's identifierList: keywords are names there (AS (null, null) names columns
      // `null`), as anywhere Spark's default keyword mode reads an identifier.
      TRIBUTARY_ASSIGN_OR_RAISE(item.aliases, ParenthesizedNames(/*after_as=*/true));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(item.alias, OptionalAlias());
    }
    query->select.push_back(std::move(item));
  } while (AcceptOperator(","));
  if (AcceptKeyword("FROM")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->from, ParseRelation());
    while (Peek().IsOperator(",")) {
      const SourcePosition position = Next().position;
      TRIBUTARY_ASSIGN_OR_RAISE(RelationPtr right, ParseRelation());
      auto join = std::make_shared<Relation>();
      join->kind = RelationKind::kJoin;
      join->position = position;
      join->join_kind = JoinKind::kCross;
      join->left = std::move(query->from);
      join->right = std::move(right);
      TRIBUTARY_RETURN_NOT_OK(CheckRelationHeight(join, position));
      query->from = std::move(join);
    }
    TRIBUTARY_RETURN_NOT_OK(ParseFromClauseExtensions(&query->from));
  }
  if (AcceptKeyword("WHERE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->where, ParseExpr());
  }
  if (AcceptKeyword("GROUP")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
    TRIBUTARY_RETURN_NOT_OK(ParseGroupBy(query.get()));
  }
  if (AcceptKeyword("HAVING")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->having, ParseExpr());
  }
  // Databricks writes QUALIFY before or after the WINDOW clause; both are accepted.
  if (AcceptKeyword("QUALIFY")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->qualify, ParseExpr());
  }
  if (AcceptKeyword("WINDOW")) {
    TRIBUTARY_RETURN_NOT_OK(ParseNamedWindows(query.get()));
  } else {
    TRIBUTARY_RETURN_NOT_OK(RequireNoWindowReferences(*query));
  }
  if (query->qualify == nullptr && AcceptKeyword("QUALIFY")) {
    TRIBUTARY_ASSIGN_OR_RAISE(query->qualify, ParseExpr());
  }
  return query;
}

// ALL is not reserved (Spark's default keyword mode): `SELECT all, x` and `count(all)` read a
// column named all. It is the set quantifier only where an expression follows it.
bool Parser::AtSetQuantifierAll() const {
  if (!Peek().IsKeyword("ALL")) {
    return false;
  }
  const Token& next = Peek(1);
  if (next.kind == TokenKind::kWord) {
    return !next.IsKeyword("FROM") && !next.IsKeyword("AS") && !IsReservedWord(next.text);
  }
  return next.kind == TokenKind::kQuotedWord || next.kind == TokenKind::kString ||
         next.kind == TokenKind::kNumber || next.IsOperator("(") || next.IsOperator("*") ||
         next.IsOperator("-");
}

bool Parser::AtAllKeyword() const {
  if (!Peek().IsKeyword("ALL")) {
    return false;
  }
  const Token& next = Peek(1);
  return next.kind == TokenKind::kEnd || next.IsOperator(")") || next.IsOperator(";") ||
         next.kind == TokenKind::kWord;
}

Result<std::vector<ExprPtr>> Parser::ParseGroupingItem(std::string_view within) {
  std::vector<ExprPtr> item;
  if (Peek().IsOperator("(")) {
    const size_t save = pos_;
    Next();
    if (AcceptOperator(")")) {
      if (within != "GROUPING SETS") {
        return ErrorAt(tokens_[save],
                       fmt::format("Empty set in {} grouping sets is not supported.", within));
      }
      return item;
    }
    bool tuple = true;
    do {
      auto e = ParseExpr();
      if (!e.ok()) {
        tuple = false;
        break;
      }
      item.push_back(*std::move(e));
    } while (AcceptOperator(","));
    // `(a + b) * 2` is one expression that starts with a parenthesis, not a group.
    if (tuple && AcceptOperator(")") && (Peek().IsOperator(",") || Peek().IsOperator(")"))) {
      return item;
    }
    pos_ = save;
    item.clear();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr e, ParseExpr());
  item.push_back(std::move(e));
  return item;
}

// GROUP BY: ALL, or a list of elements, each a list of grouping sets: an expression is one set
// of itself, ROLLUP(a, b) the sets (a, b), (a), (), CUBE(a, b) every subset, GROUPING SETS the
// sets listed. The query's grouping sets are the cross product of its elements' (Spark's
// GroupingAnalytics); `a, b WITH ROLLUP|CUBE` is ROLLUP|CUBE(a, b).
Status Parser::ParseGroupBy(Query* query) {
  if (AtAllKeyword()) {
    query->group_by_all = true;
    query->group_by.push_back(Track(expr::Col("`ALL`"), Next().position));
    return Status::OK();
  }
  using Set = std::vector<ExprPtr>;
  auto rollup = [](const std::vector<Set>& items) {
    std::vector<Set> sets;
    for (size_t n = items.size() + 1; n-- > 0;) {
      Set set;
      for (size_t i = 0; i < n; ++i) {
        set.insert(set.end(), items[i].begin(), items[i].end());
      }
      sets.push_back(std::move(set));
    }
    return sets;
  };
  // Spark's order: the sets with the first item, then those without it, recursively.
  auto cube = [](const std::vector<Set>& items) {
    std::vector<Set> sets = {Set{}};
    for (size_t i = items.size(); i-- > 0;) {
      std::vector<Set> with;
      for (const Set& rest : sets) {
        Set set = items[i];
        set.insert(set.end(), rest.begin(), rest.end());
        with.push_back(std::move(set));
      }
      with.insert(with.end(), sets.begin(), sets.end());
      sets = std::move(with);
    }
    return sets;
  };
  auto grouping_sets = [&]() -> Result<std::vector<Set>> {
    Next();
    Next();
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    std::vector<Set> sets;
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(Set set, ParseGroupingItem("GROUPING SETS"));
      sets.push_back(std::move(set));
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return sets;
  };
  std::vector<std::vector<Set>> elements;
  bool analytics = false;
  do {
    const bool is_rollup = Peek().IsKeyword("ROLLUP") && Peek(1).IsOperator("(");
    const bool is_cube = Peek().IsKeyword("CUBE") && Peek(1).IsOperator("(");
    if (is_rollup || is_cube) {
      Next();
      Next();
      std::vector<Set> items;
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(Set item, ParseGroupingItem(is_rollup ? "ROLLUP" : "CUBE"));
        items.push_back(std::move(item));
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      elements.push_back(is_rollup ? rollup(items) : cube(items));
      analytics = true;
    } else if (Peek().IsKeyword("GROUPING") && Peek(1).IsKeyword("SETS")) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Set> sets, grouping_sets());
      elements.push_back(std::move(sets));
      analytics = true;
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr key, ParseExpr());
      elements.push_back({Set{std::move(key)}});
    }
  } while (AcceptOperator(","));
  // Hive's `GROUP BY a, b GROUPING SETS (...)`: the list names the grouping columns (in
  // grouping_id's order), the sets alone say how to group.
  std::vector<ExprPtr> columns;
  if (Peek().IsKeyword("GROUPING") && Peek(1).IsKeyword("SETS")) {
    if (analytics) {
      return ErrorAt(Peek(), "GROUPING SETS after a GROUP BY list takes a plain list");
    }
    for (std::vector<Set>& element : elements) {
      columns.push_back(std::move(element.front().front()));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Set> sets, grouping_sets());
    elements = {std::move(sets)};
    analytics = true;
  }
  if (Peek().IsKeyword("WITH") && (Peek(1).IsKeyword("ROLLUP") || Peek(1).IsKeyword("CUBE"))) {
    if (analytics) {
      return ErrorAt(Peek(), "WITH ROLLUP and WITH CUBE take a plain GROUP BY list");
    }
    Next();
    std::vector<Set> items;
    items.reserve(elements.size());
    for (std::vector<Set>& element : elements) {
      items.push_back(std::move(element.front()));
    }
    elements = {Next().IsKeyword("ROLLUP") ? rollup(items) : cube(items)};
    analytics = true;
  }
  if (!analytics) {
    for (std::vector<Set>& element : elements) {
      query->group_by.push_back(std::move(element.front().front()));
    }
    return Status::OK();
  }
  std::vector<Set> product = {Set{}};
  for (const std::vector<Set>& element : elements) {
    std::vector<Set> next;
    for (const Set& prefix : product) {
      for (const Set& set : element) {
        Set combined = prefix;
        combined.insert(combined.end(), set.begin(), set.end());
        next.push_back(std::move(combined));
      }
    }
    product = std::move(next);
  }
  // Each grouping expression once (by its text), the sets as indices into them.
  std::vector<std::string> texts;
  for (const ExprPtr& e : columns) {
    if (std::find(texts.begin(), texts.end(), e->ToString()) == texts.end()) {
      texts.push_back(e->ToString());
      query->group_by.push_back(e);
    }
  }
  for (const Set& set : product) {
    std::vector<size_t> indices;
    for (const ExprPtr& e : set) {
      const std::string text = e->ToString();
      size_t index = std::find(texts.begin(), texts.end(), text) - texts.begin();
      if (index == texts.size()) {
        texts.push_back(text);
        query->group_by.push_back(e);
      }
      if (std::find(indices.begin(), indices.end(), index) == indices.end()) {
        indices.push_back(index);
      }
    }
    query->grouping_sets.push_back(std::move(indices));
  }
  return Status::OK();
}

namespace {

struct NamedWindow {
  std::string name;
  expr::WindowSpec spec;
  std::vector<ExprPtr> keys;
};

// `e` with each OVER w call given w's definition; an unknown name is an error.
Result<ExprPtr> SubstituteNamedWindows(const ExprPtr& e, const std::vector<NamedWindow>& windows) {
  if (e == nullptr) {
    return e;
  }
  std::vector<ExprPtr> children;
  bool changed = false;
  for (const ExprPtr& child : e->Children()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr substituted, SubstituteNamedWindows(child, windows));
    changed = changed || substituted != child;
    children.push_back(std::move(substituted));
  }
  if (e->GetOp() == expr::Op::kWindow && !e->Window()->reference.empty()) {
    const std::string& reference = e->Window()->reference;
    auto found = std::find_if(windows.begin(), windows.end(), [&](const NamedWindow& w) {
      return EqualsIgnoreAsciiCase(w.name, reference);
    });
    if (found == windows.end()) {
      return Status::InvalidArgument(fmt::format(
          "[MISSING_WINDOW_SPECIFICATION] Window specification {} is not defined in the WINDOW "
          "clause",
          reference));
    }
    return expr::WindowCall(e->Name(), std::move(children), e->IsDistinct(), found->keys,
                            found->spec);
  }
  if (!changed) {
    return e;
  }
  return std::make_shared<expr::Expression>(e->GetOp(), std::move(children), e->Name(),
                                            e->Literal(), e->TargetType(), e->IsDistinct(),
                                            e->Window());
}

// Without a WINDOW clause every OVER w names a window nothing defines.
Status RequireNoWindowReferences(const Query& query) {
  for (const SelectItem& item : query.select) {
    TRIBUTARY_RETURN_NOT_OK(SubstituteNamedWindows(item.expr, {}).status());
  }
  return SubstituteNamedWindows(query.qualify, {}).status();
}

}  // namespace

Status Parser::ParseNamedWindows(Query* query) {
  std::vector<NamedWindow> windows;
  do {
    NamedWindow window;
    TRIBUTARY_ASSIGN_OR_RAISE(window.name, Identifier("a window name"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
    const bool parenthesized_name =
        Peek().IsOperator("(") &&
        (Peek(1).kind == TokenKind::kWord || Peek(1).kind == TokenKind::kQuotedWord) &&
        Peek(2).IsOperator(")");
    if (parenthesized_name || Peek().kind == TokenKind::kWord ||
        Peek().kind == TokenKind::kQuotedWord) {
      // `w2 AS w1` or `w2 AS (w1)`: the definition of another window of this clause.
      if (parenthesized_name) {
        Next();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(window.spec.reference, Identifier("a window name"));
      if (parenthesized_name) {
        Next();
      }
    } else {
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
      TRIBUTARY_RETURN_NOT_OK(WindowSpecification(&window.spec, &window.keys));
    }
    windows.push_back(std::move(window));
  } while (AcceptOperator(","));
  // Resolve references between definitions; a chain longer than the clause is a cycle.
  for (NamedWindow& window : windows) {
    for (size_t hops = 0; !window.spec.reference.empty(); ++hops) {
      const std::string reference = window.spec.reference;
      auto found = std::find_if(windows.begin(), windows.end(), [&](const NamedWindow& w) {
        return EqualsIgnoreAsciiCase(w.name, reference);
      });
      if (found == windows.end() || hops > windows.size()) {
        return Status::InvalidArgument(
            fmt::format("Window specification {} is not defined in the WINDOW clause", reference));
      }
      window.spec = found->spec;
      window.keys = found->keys;
    }
  }
  for (SelectItem& item : query->select) {
    TRIBUTARY_ASSIGN_OR_RAISE(item.expr, SubstituteNamedWindows(item.expr, windows));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(query->qualify, SubstituteNamedWindows(query->qualify, windows));
  return Status::OK();
}

// ---- relations ----

// The join keywords at the cursor: the kind and how many tokens they take (0: no join).
std::pair<JoinKind, size_t> Parser::PeekJoin() const {
  size_t n = 0;
  JoinKind kind = JoinKind::kInner;
  if (Peek().IsKeyword("INNER")) {
    n = 1;
  } else if (Peek().IsKeyword("CROSS")) {
    kind = JoinKind::kCross;
    n = 1;
  } else if (Peek().IsKeyword("LEFT")) {
    kind = JoinKind::kLeft;
    n = 1;
    if (Peek(1).IsKeyword("OUTER")) {
      n = 2;
    } else if (Peek(1).IsKeyword("SEMI")) {
      kind = JoinKind::kLeftSemi;
      n = 2;
    } else if (Peek(1).IsKeyword("ANTI")) {
      kind = JoinKind::kLeftAnti;
      n = 2;
    }
  } else if (Peek().IsKeyword("RIGHT") || Peek().IsKeyword("FULL")) {
    kind = Peek().IsKeyword("RIGHT") ? JoinKind::kRight : JoinKind::kFull;
    n = Peek(1).IsKeyword("OUTER") ? 2 : 1;
  } else if (Peek().IsKeyword("SEMI")) {
    kind = JoinKind::kLeftSemi;
    n = 1;
  } else if (Peek().IsKeyword("ANTI")) {
    kind = JoinKind::kLeftAnti;
    n = 1;
  }
  if (Peek(n).IsKeyword("JOIN")) {
    return {kind, n + 1};
  }
  return {kind, 0};
}

Result<RelationPtr> Parser::ParseRelation() {
  TRIBUTARY_ASSIGN_OR_RAISE(RelationPtr left, ParsePrimaryRelation());
  while (true) {
    // `NATURAL join_type JOIN relation`, with no ON or USING (Spark's joinRelation).
    const bool natural = Peek().IsKeyword("NATURAL");
    if (natural) {
      Next();
    }
    const auto [kind, length] = PeekJoin();
    if (natural && length > 0 && kind == JoinKind::kCross) {
      return ErrorAt(Peek(),
                     "[INCOMPATIBLE_JOIN_TYPES] The join types NATURAL and CROSS are "
                     "incompatible.");
    }
    if (length == 0) {
      if (natural) {
        return Unexpected("JOIN", {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"});
      }
      if (Peek().IsKeyword("LEFT") || Peek().IsKeyword("RIGHT") || Peek().IsKeyword("FULL") ||
          Peek().IsKeyword("INNER") || Peek().IsKeyword("CROSS")) {
        pos_ += 1;
        if (Peek().IsKeyword("OUTER") || Peek().IsKeyword("SEMI") || Peek().IsKeyword("ANTI")) {
          pos_ += 1;
        }
        return Unexpected("JOIN", {"JOIN", "OUTER", "SEMI", "ANTI"});
      }
      return left;
    }
    auto join = std::make_shared<Relation>();
    join->kind = RelationKind::kJoin;
    join->position = Peek().position;
    join->join_kind = kind;
    join->natural = natural;
    pos_ += length;
    join->left = std::move(left);
    TRIBUTARY_ASSIGN_OR_RAISE(join->right, ParsePrimaryRelation());
    // A NATURAL join's columns come from the inputs: an ON or USING after it is left for the
    // caller to reject. Spark accepts `CROSS JOIN r ON c` as an inner join on c.
    if (!natural && AcceptKeyword("ON")) {
      TRIBUTARY_ASSIGN_OR_RAISE(join->condition, ParseExpr());
    } else if (!natural && Peek().IsKeyword("USING")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(join->using_columns, ParenthesizedNames());
    }
    TRIBUTARY_RETURN_NOT_OK(CheckRelationHeight(join, join->position));
    left = std::move(join);
  }
}

Result<RelationPtr> Parser::ParsePrimaryRelation() {
  DepthGuard guard(&depth_);
  TRIBUTARY_RETURN_NOT_OK(CheckDepth());
  auto relation = std::make_shared<Relation>();
  relation->position = Peek().position;
  if (Peek().IsKeyword("LATERAL")) {
    if (!Peek(1).IsOperator("(") || !IsQueryStart(2)) {
      return RejectLateralSubquery();
    }
    Next();
    relation->lateral = true;
    relation->position = Peek().position;
  }
  if (Peek().IsKeyword("STREAM") && Peek(1).kind != TokenKind::kEnd && !Peek(1).IsOperator(",") &&
      !Peek(1).IsOperator(")") && !Peek(1).IsOperator(";") && !IsReservedWord(Peek(1).text)) {
    Next();
    relation->stream = true;
    if (AcceptOperator("(")) {
      relation->kind = RelationKind::kTable;
      TRIBUTARY_ASSIGN_OR_RAISE(relation->table, ParseTableName(false));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      TRIBUTARY_RETURN_NOT_OK(ParseWatermarkClause(relation.get()));
      TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
      return RelationPtr(relation);
    }
  } else if (Peek().IsKeyword("VALUES")) {
    // An inline table: FROM VALUES (1, 'a'), (2, 'b') AS t(id, name).
    relation->kind = RelationKind::kSubquery;
    TRIBUTARY_ASSIGN_OR_RAISE(relation->subquery, ParseValues());
    TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
    return RelationPtr(relation);
  } else if (Peek().IsOperator("(")) {
    const size_t save = pos_;
    if (IsQueryStart(1) && !Failed(failed_relation_subquery_, save)) {
      Next();
      auto query = ParseQuery();
      if (query.ok() && AcceptOperator(")")) {
        relation->kind = RelationKind::kSubquery;
        relation->subquery = *std::move(query);
        TRIBUTARY_RETURN_NOT_OK(ParseTableSample(relation.get()));
        TRIBUTARY_RETURN_NOT_OK(ParseWatermarkClause(relation.get()));
        TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
        return RelationPtr(relation);
      }
      if (!tokens_[save + 1].IsOperator("(") || relation->lateral) {
        return query.ok() ? Unexpected("')'") : query.status();
      }
      // ((SELECT ...) t JOIN u ON ...): a parenthesized join. Remember the failed attempt:
      // retrying it from every enclosing '(' would take time exponential in the nesting.
      MarkFailed(&failed_relation_subquery_, save);
      pos_ = save;
    }
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(RelationPtr inner, ParseRelation());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    // `(a JOIN b ON ...) dst(w, x, y, z)`: an alias over a parenthesized join names its
    // columns, as a subquery SELECT * of the join would.
    TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
    if (relation->alias.empty()) {
      return inner;
    }
    relation->kind = RelationKind::kSubquery;
    relation->subquery = SelectStarFrom(std::move(inner));
    return RelationPtr(relation);
  }
  if ((Peek().kind == TokenKind::kWord || Peek().kind == TokenKind::kQuotedWord) &&
      Peek(1).IsOperator("(")) {
    relation->kind = RelationKind::kTableFunction;
    relation->function_name = AsciiLower(Next().text);
    Next();
    if (!AcceptOperator(")")) {
      do {
        TableFunctionArgument argument;
        if (AtIdentifier(true) && Peek(1).IsOperator("=>")) {
          argument.name = Next().text;
          Next();
        }
        TRIBUTARY_ASSIGN_OR_RAISE(argument.value, ParseExpr());
        relation->arguments.push_back(std::move(argument));
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    }
  } else {
    relation->kind = RelationKind::kTable;
    TRIBUTARY_ASSIGN_OR_RAISE(relation->table, ParseTableName(false));
    if (Peek().IsKeyword("VERSION") && Peek(1).IsKeyword("AS")) {
      Next();
      Next();
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("OF"));
      TRIBUTARY_ASSIGN_OR_RAISE(relation->version_as_of, NonNegativeInteger("VERSION AS OF"));
    } else if (Peek().IsKeyword("TIMESTAMP") && Peek(1).IsKeyword("AS")) {
      Next();
      Next();
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("OF"));
      TRIBUTARY_ASSIGN_OR_RAISE(relation->timestamp_as_of, ParseExpr());
    }
  }
  TRIBUTARY_RETURN_NOT_OK(ParseTableSample(relation.get()));
  TRIBUTARY_RETURN_NOT_OK(ParseWatermarkClause(relation.get()));
  TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
  return RelationPtr(relation);
}

Status Parser::RelationAlias(Relation* relation) {
  if (AtFromClauseExtension()) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(relation->alias, OptionalAlias());
  if (!relation->alias.empty() && Peek().IsOperator("(")) {
    TRIBUTARY_ASSIGN_OR_RAISE(relation->column_aliases, ParenthesizedNames());
  }
  return Status::OK();
}

// WATERMARK is not reserved (FROM t watermark keeps being t's alias): it starts the clause only
// when an event time follows it, a name or a function call.
bool Parser::AtWatermarkClause() const {
  if (!Peek().IsKeyword("WATERMARK")) {
    return false;
  }
  const Token& next = Peek(1);
  return next.kind == TokenKind::kQuotedWord ||
         (next.kind == TokenKind::kWord && (!IsReservedWord(next.text) || Peek(2).IsOperator("(")));
}

// WATERMARK event_time [AS name] DELAY OF INTERVAL ..., Databricks' clause between a FROM item
// and its alias; nothing when the cursor is not at one.
Status Parser::ParseWatermarkClause(Relation* relation) {
  if (!AtWatermarkClause()) {
    return Status::OK();
  }
  WatermarkClause clause;
  clause.position = Next().position;
  TRIBUTARY_ASSIGN_OR_RAISE(clause.event_time, ParseExpr());
  if (AcceptKeyword("AS")) {
    TRIBUTARY_ASSIGN_OR_RAISE(clause.name, Identifier("a name for the event time", true));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("DELAY"));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("OF"));
  const Token& interval = Peek();
  if (!interval.IsKeyword("INTERVAL")) {
    return Unexpected("an interval for the watermark delay (INTERVAL 10 MINUTES)", {"INTERVAL"});
  }
  Next();
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr delay, IntervalLiteral(interval));
  if (delay->Literal().Type()->Id() == columnar::TypeId::kYearMonthInterval) {
    // A month has no fixed length: a delay is a duration.
    return ErrorAt(interval, fmt::format("year-month intervals are not supported as a watermark "
                                         "delay: {}",
                                         TextFrom(interval)));
  }
  clause.delay = Track(std::move(delay), interval.position);
  clause.delay_text = std::string(TextFrom(interval));
  relation->watermark = std::move(clause);
  return Status::OK();
}

// ---- nesting and height limits ----

Status Parser::CheckDepth() const {
  if (depth_ > kMaxDepth) {
    return ErrorAt(Peek(), fmt::format("nested more than {} levels deep", kMaxDepth));
  }
  return Status::OK();
}

// The height of `node`'s tree (a leaf is 1; a subquery placeholder is above its query),
// memoized: every chain step asks for the new top only. Entries keep their nodes alive so an
// address is never reused for another node while parsing.
int Parser::Height(const ExprPtr& node) {
  if (auto found = expr_heights_.find(node.get()); found != expr_heights_.end()) {
    return found->second.second;
  }
  int below = 0;
  for (const ExprPtr& child : node->Children()) {
    below = std::max(below, Height(child));
  }
  if (auto sub = sources_->subqueries.find(node.get()); sub != sources_->subqueries.end()) {
    below = std::max(below, QueryHeight(sub->second));
  }
  expr_heights_.emplace(node.get(), std::make_pair(node, below + 1));
  return below + 1;
}

Status Parser::TooDeep(const SourcePosition& at, std::string_view what) const {
  const std::string_view hint = what == "expression"
                                    ? "split it up; a long chain of ORs can be an IN list"
                                    : "split it into several statements or tables";
  return SyntaxError(
      *source_, at,
      fmt::format("{} too deep: more than {} nested operations ({})", what, kMaxHeight, hint));
}

// `node`, or an error at `at` when its tree is higher than kMaxHeight.
Result<ExprPtr> Parser::CheckHeight(ExprPtr node, const SourcePosition& at) {
  if (Height(node) > kMaxHeight) {
    return TooDeep(at, "expression");
  }
  return node;
}

// A query's height (its plan nodes over the highest of its inputs, or its highest expression),
// memoized: CheckQueryHeight recomputes a query that grew after it was first measured.
int Parser::QueryHeight(const QueryPtr& query) {
  if (auto found = query_heights_.find(query.get()); found != query_heights_.end()) {
    return found->second.second;
  }
  const Query& q = *query;
  int below = 0;
  // An expression is as high as it is; the query around it is no level above it.
  int expressions = 0;
  auto expression = [&](const ExprPtr& e) {
    if (e != nullptr) {
      expressions = std::max(expressions, Height(e));
    }
  };
  for (const CommonTableExpression& cte : q.with) {
    below = std::max(below, QueryHeight(cte.query));
  }
  for (const SelectItem& item : q.select) {
    expression(item.expr);
  }
  if (q.from != nullptr) {
    below = std::max(below, RelationHeight(q.from));
  }
  expression(q.where);
  for (const ExprPtr& key : q.group_by) {
    expression(key);
  }
  expression(q.having);
  expression(q.qualify);
  if (q.left != nullptr) {
    below = std::max(below, QueryHeight(q.left));
  }
  if (q.right != nullptr) {
    below = std::max(below, QueryHeight(q.right));
  }
  for (const std::vector<ExprPtr>& row : q.rows) {
    for (const ExprPtr& value : row) {
      expression(value);
    }
  }
  for (const OrderItem& order : q.order_by) {
    expression(order.expr);
  }
  expression(q.limit);
  expression(q.offset);
  const int height = std::max(below + OwnLevels(q), expressions);
  query_heights_.emplace(query.get(), std::make_pair(query, height));
  return height;
}

// The plan nodes a query puts over its inputs, as the binder builds them: a projection or a
// union, a filter, an aggregation, DISTINCT's aggregation and projection (a UNION without
// ALL has them too), a sort, a limit; INTERSECT, EXCEPT and grouping sets build more.
int Parser::OwnLevels(const Query& q) {
  int levels = 1;
  if (q.distinct || (q.kind == QueryKind::kUnion && !q.union_all)) {
    levels += 2;
  }
  if (q.where != nullptr) {
    ++levels;
  }
  if (!q.group_by.empty() || q.having != nullptr) {
    ++levels;
  }
  // Grouping sets: a projection per set and their union below the aggregation.
  if (!q.grouping_sets.empty()) {
    levels += 2;
  }
  // INTERSECT and EXCEPT: tagging projections, a union, an aggregation with its filter and
  // projection, ALL's generate and projection, and the final projections (plan::SetOperation).
  if (q.kind == QueryKind::kUnion && q.set_operator != SetOperator::kUnion) {
    levels += 8;
  }
  // A window node, and QUALIFY's filter and projection.
  if (std::any_of(q.select.begin(), q.select.end(),
                  [](const SelectItem& item) {
                    return item.expr != nullptr && expr::ContainsWindow(*item.expr);
                  }) ||
      q.qualify != nullptr) {
    levels += q.qualify != nullptr ? 3 : 1;
  }
  if (!q.order_by.empty()) {
    ++levels;
  }
  if (q.limit != nullptr || q.offset != nullptr) {
    ++levels;
  }
  return levels;
}

// A relation's height: a table is 1 (a WITH name its query's height + 1), a join is above
// its sides, a subquery above its query.
int Parser::RelationHeight(const RelationPtr& relation) {
  if (auto found = relation_heights_.find(relation.get()); found != relation_heights_.end()) {
    return found->second.second;
  }
  const Relation& r = *relation;
  int below = 0;
  int expressions = 0;
  if (r.kind == RelationKind::kTable && r.table.parts.size() == 1) {
    // A WITH query's name stands for its plan, which the binder puts here.
    const std::string name = AsciiLower(r.table.parts[0]);
    for (auto scope = with_heights_.rbegin(); scope != with_heights_.rend(); ++scope) {
      if (auto found = scope->find(name); found != scope->end()) {
        below = found->second;
        break;
      }
    }
  }
  for (const TableFunctionArgument& argument : r.arguments) {
    expressions = std::max(expressions, Height(argument.value));
  }
  const ExprPtr event_time = r.watermark.has_value() ? r.watermark->event_time : nullptr;
  for (const ExprPtr& e : {r.condition, r.timestamp_as_of, event_time}) {
    if (e != nullptr) {
      expressions = std::max(expressions, Height(e));
    }
  }
  if (r.subquery != nullptr) {
    below = std::max(below, QueryHeight(r.subquery));
  }
  if (r.left != nullptr) {
    below = std::max(below, RelationHeight(r.left));
  }
  if (r.right != nullptr) {
    below = std::max(below, RelationHeight(r.right));
  }
  const int height = std::max(below + 1, expressions);
  relation_heights_.emplace(relation.get(), std::make_pair(relation, height));
  return height;
}

// `query` (complete: nothing is added to it later), or an error at `at` when too high.
Status Parser::CheckQueryHeight(const QueryPtr& query, const SourcePosition& at) {
  query_heights_.erase(query.get());
  if (QueryHeight(query) > kMaxHeight) {
    return TooDeep(at, "query");
  }
  return Status::OK();
}

Status Parser::CheckRelationHeight(const RelationPtr& relation, const SourcePosition& at) {
  if (RelationHeight(relation) > kMaxHeight) {
    return TooDeep(at, "query");
  }
  return Status::OK();
}

}  // namespace tributary::sql::internal
