// The SQL parser's clauses that reshape a FROM clause, as Spark's grammar places them:
//
//   fromClause  : FROM relation (',' relation)* lateralView* pivotClause? unpivotClause?
//   lateralView : LATERAL VIEW [OUTER] name '(' [expr (',' expr)*] ')' table [[AS] col (',' col)*]
//   pivotClause : PIVOT '(' expr [[AS] alias] (',' ...)* FOR (column | '(' column, ... ')')
//                 IN '(' expr [[AS] alias] (',' ...)* ')' ')' [[AS] alias]
//   unpivot     : UNPIVOT [(INCLUDE | EXCLUDE) NULLS] '(' (value | '(' value, ... ')') FOR name
//                 IN '(' (column | '(' column, ... ')') [[AS] alias] (',' ...)* ')' ')' [[AS]
//                 alias]
//   sample      : TABLESAMPLE '(' (['-'] number PERCENT | expr ROWS | BUCKET n OUT OF m) ')'
//                 [REPEATABLE '(' integer ')']        (after a FROM item, before its alias)
//
// PIVOT, UNPIVOT and TABLESAMPLE are not reserved words: they start their clause only when the
// parenthesis (or UNPIVOT's INCLUDE/EXCLUDE) follows, so they stay usable as names.

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "common/ascii.h"
#include "sql/keywords.h"
#include "sql/parser_internal.h"

namespace tributary::sql::internal {

bool Parser::AtFromClauseExtension() const {
  const Token& next = Peek(1);
  if (Peek().IsKeyword("PIVOT") || Peek().IsKeyword("TABLESAMPLE")) {
    return next.IsOperator("(");
  }
  if (Peek().IsKeyword("UNPIVOT")) {
    return next.IsOperator("(") ||
           ((next.IsKeyword("INCLUDE") || next.IsKeyword("EXCLUDE")) && Peek(2).IsKeyword("NULLS"));
  }
  return false;
}

Status Parser::RejectLateralSubquery() const {
  return ErrorAt(Peek(),
                 "LATERAL subqueries are not supported; use LATERAL VIEW with a generator, or a "
                 "join with a correlated condition");
}

Status Parser::ParseFromClauseExtensions(RelationPtr* from) {
  bool lateral = false;
  while (Peek().IsKeyword("LATERAL")) {
    if (!Peek(1).IsKeyword("VIEW")) {
      return RejectLateralSubquery();
    }
    auto relation = std::make_shared<Relation>();
    relation->kind = RelationKind::kLateralView;
    relation->position = Peek().position;
    TRIBUTARY_ASSIGN_OR_RAISE(relation->lateral_view, ParseLateralView());
    relation->left = std::move(*from);
    TRIBUTARY_RETURN_NOT_OK(CheckRelationHeight(relation, relation->position));
    *from = std::move(relation);
    lateral = true;
  }
  const bool pivot = Peek().IsKeyword("PIVOT") && Peek(1).IsOperator("(");
  if (!pivot && !AtFromClauseExtension()) {
    return Status::OK();
  }
  if (!pivot && !Peek().IsKeyword("UNPIVOT")) {
    return Status::OK();
  }
  if (lateral) {
    return ErrorAt(Peek(), fmt::format("[NOT_ALLOWED_IN_FROM.LATERAL_WITH_{0}] Not allowed in the "
                                       "FROM clause: LATERAL together with {0}.",
                                       pivot ? "PIVOT" : "UNPIVOT"));
  }
  auto relation = std::make_shared<Relation>();
  relation->position = Peek().position;
  if (pivot) {
    relation->kind = RelationKind::kPivot;
    TRIBUTARY_ASSIGN_OR_RAISE(relation->pivot, ParsePivot());
  } else {
    relation->kind = RelationKind::kUnpivot;
    TRIBUTARY_ASSIGN_OR_RAISE(relation->unpivot, ParseUnpivot());
  }
  TRIBUTARY_RETURN_NOT_OK(RelationAlias(relation.get()));
  if (pivot && Peek().IsKeyword("UNPIVOT")) {
    return ErrorAt(Peek(),
                   "[NOT_ALLOWED_IN_FROM.UNPIVOT_WITH_PIVOT] Not allowed in the FROM "
                   "clause: UNPIVOT together with PIVOT.");
  }
  relation->left = std::move(*from);
  TRIBUTARY_RETURN_NOT_OK(CheckRelationHeight(relation, relation->position));
  *from = std::move(relation);
  return Status::OK();
}

Result<std::shared_ptr<const LateralViewClause>> Parser::ParseLateralView() {
  auto view = std::make_shared<LateralViewClause>();
  view->position = Next().position;
  Next();
  view->outer = AcceptKeyword("OUTER");
  const Token& name = Peek();
  if (!(name.kind == TokenKind::kWord || name.kind == TokenKind::kQuotedWord) ||
      !Peek(1).IsOperator("(")) {
    return Unexpected("a generator call after LATERAL VIEW (explode(...), inline(...), ...)", {});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(view->generator, ParseExpr());
  if (view->generator->GetOp() != Op::kFunction) {
    return ErrorAt(name, "LATERAL VIEW takes a generator call such as explode(array)");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(view->table_alias,
                            Identifier("a table name for the LATERAL VIEW's columns"));
  // The column names: after AS, or bare names up to the next clause.
  const bool as = AcceptKeyword("AS");
  if (as || (AtIdentifier() && !Peek().IsKeyword("QUALIFY") && !AtFromClauseExtension())) {
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string column, Identifier("a column name", as));
      view->column_aliases.push_back(std::move(column));
    } while (AcceptOperator(","));
  }
  return std::shared_ptr<const LateralViewClause>(std::move(view));
}

Result<std::shared_ptr<const PivotClause>> Parser::ParsePivot() {
  auto pivot = std::make_shared<PivotClause>();
  pivot->position = Next().position;
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  // FOR is not reserved, so an alias without AS stops at it.
  auto alias = [&]() -> Result<std::string> {
    if (AcceptKeyword("AS")) {
      return Identifier("an alias", true);
    }
    if (AtIdentifier() && !Peek().IsKeyword("FOR")) {
      return Next().text;
    }
    return std::string();
  };
  do {
    PivotAggregate aggregate;
    TRIBUTARY_ASSIGN_OR_RAISE(aggregate.expr, ParseExpr());
    TRIBUTARY_ASSIGN_OR_RAISE(aggregate.alias, alias());
    pivot->aggregates.push_back(std::move(aggregate));
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FOR"));
  // A column is a name, or a dotted path; not an expression, whose parse would take the IN.
  auto column = [&]() -> Result<ExprPtr> {
    const Token& first = Peek();
    TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a pivot column"));
    std::string path = QuoteIdentifier(part);
    while (AcceptOperator(".")) {
      TRIBUTARY_ASSIGN_OR_RAISE(part, Identifier("a field name", true));
      path += fmt::format(".{}", QuoteIdentifier(part));
    }
    return Track(expr::Col(path), first.position);
  };
  if (AcceptOperator("(")) {
    pivot->tuple = true;
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr c, column());
      pivot->columns.push_back(std::move(c));
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr c, column());
    pivot->columns.push_back(std::move(c));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("IN"));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  do {
    PivotValue value;
    TRIBUTARY_ASSIGN_OR_RAISE(value.value, ParseExpr());
    TRIBUTARY_ASSIGN_OR_RAISE(value.alias, alias());
    pivot->values.push_back(std::move(value));
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  return std::shared_ptr<const PivotClause>(std::move(pivot));
}

Result<std::shared_ptr<const UnpivotClause>> Parser::ParseUnpivot() {
  auto unpivot = std::make_shared<UnpivotClause>();
  unpivot->position = Next().position;
  if (AcceptKeyword("INCLUDE")) {
    unpivot->include_nulls = true;
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NULLS"));
  } else if (AcceptKeyword("EXCLUDE")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NULLS"));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  if (Peek().IsOperator("(")) {
    TRIBUTARY_ASSIGN_OR_RAISE(unpivot->value_columns, ParenthesizedNames());
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string value, Identifier("a value column name"));
    unpivot->value_columns.push_back(std::move(value));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FOR"));
  TRIBUTARY_ASSIGN_OR_RAISE(unpivot->name_column, Identifier("a name column name"));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("IN"));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  auto column = [&]() -> Result<ExprPtr> {
    const Token& first = Peek();
    TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a column to unpivot"));
    std::string path = QuoteIdentifier(part);
    while (AcceptOperator(".")) {
      TRIBUTARY_ASSIGN_OR_RAISE(part, Identifier("a field name", true));
      path += fmt::format(".{}", QuoteIdentifier(part));
    }
    return Track(expr::Col(path), first.position);
  };
  do {
    UnpivotClause::ColumnSet set;
    set.position = Peek().position;
    if (AcceptOperator("(")) {
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr c, column());
        set.columns.push_back(std::move(c));
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr c, column());
      set.columns.push_back(std::move(c));
    }
    if (AcceptKeyword("AS")) {
      TRIBUTARY_ASSIGN_OR_RAISE(set.alias, Identifier("an alias", true));
    } else if (AtIdentifier()) {
      set.alias = Next().text;
    }
    unpivot->sets.push_back(std::move(set));
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  return std::shared_ptr<const UnpivotClause>(std::move(unpivot));
}

Status Parser::ParseTableSample(Relation* relation) {
  if (!(Peek().IsKeyword("TABLESAMPLE") && Peek(1).IsOperator("("))) {
    return Status::OK();
  }
  const Token& keyword = Next();
  Next();
  TableSampleClause sample;
  sample.position = keyword.position;
  if (Peek().IsOperator(")")) {
    return ErrorAt(keyword, "TABLESAMPLE does not accept empty inputs.");
  }
  // The fraction as Spark checks it: within [0, 1] up to its sampler's rounding epsilon.
  auto fraction = [&](double value) -> Status {
    constexpr double kEpsilon = 1e-6;
    if (!(value >= -kEpsilon && value <= 1.0 + kEpsilon)) {
      // As a Scala Double prints: 2.0, 1.01.
      std::string text = fmt::format("{}", value);
      if (text.find_first_of(".en") == std::string::npos) {
        text += ".0";
      }
      return ErrorAt(keyword,
                     fmt::format("Sampling fraction ({}) must be on interval [0, 1]", text));
    }
    sample.fraction = std::min(std::max(value, 0.0), 1.0);
    return Status::OK();
  };
  const size_t start = pos_;
  const bool negative =
      Peek().IsOperator("-") && Peek(1).kind == TokenKind::kNumber && Peek(2).IsKeyword("PERCENT");
  if (negative || (Peek().kind == TokenKind::kNumber && Peek(1).IsKeyword("PERCENT"))) {
    if (negative) {
      Next();
    }
    const Token& number = Next();
    if (number.number_kind != NumberKind::kInteger && number.number_kind != NumberKind::kDecimal) {
      return ErrorAt(number, "TABLESAMPLE takes an integer or decimal percentage");
    }
    Next();
    const double percent = std::strtod(number.text.c_str(), nullptr);
    sample.method = TableSampleClause::Method::kPercent;
    TRIBUTARY_RETURN_NOT_OK(fraction((negative ? -percent : percent) / 100.0));
  } else if (Peek().IsKeyword("BUCKET")) {
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t numerator, NonNegativeInteger("the bucket number"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("OUT"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("OF"));
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t denominator, NonNegativeInteger("the number of buckets"));
    if (Peek().IsKeyword("ON")) {
      const bool function = Peek(2).IsOperator("(");
      return ErrorAt(Peek(), fmt::format("TABLESAMPLE(BUCKET x OUT OF y ON {}) is not supported",
                                         function ? "function" : "colname"));
    }
    if (denominator == 0) {
      return ErrorAt(keyword, "TABLESAMPLE BUCKET x OUT OF 0: the number of buckets must be > 0");
    }
    sample.method = TableSampleClause::Method::kBucket;
    TRIBUTARY_RETURN_NOT_OK(
        fraction(static_cast<double>(numerator) / static_cast<double>(denominator)));
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(sample.rows, ParseExpr());
    if (!Peek().IsKeyword("ROWS")) {
      return Unexpected("ROWS or PERCENT", {"ROWS", "PERCENT"});
    }
    Next();
    sample.method = TableSampleClause::Method::kRows;
  }
  sample.text = RestOfStatement(start, pos_);
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  if (Peek().IsKeyword("REPEATABLE") && Peek(1).IsOperator("(")) {
    Next();
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(sample.seed, NonNegativeInteger("the REPEATABLE seed"));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  }
  relation->sample = std::move(sample);
  return Status::OK();
}

}  // namespace tributary::sql::internal
