// The SQL parser's one class, shared by the files that define its parts (private to src/sql;
// parser.h is the interface):
//   parser.cc              entry points, token helpers, names and aliases, the statements
//   parser_queries.cc      queries (SELECT, VALUES, UNION, WITH), FROM relations, joins, table
//                          functions, and the nesting and height limits
//   parser_expressions.cc  scalar expressions and types
//   parser_dml.cc          DELETE, UPDATE, MERGE INTO and the AUTO CDC flow
// The grammar is in parser.h.

#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sql/ast.h"
#include "sql/keywords.h"
#include "sql/lexer.h"
#include "tributary/result.h"

namespace tributary::sql::internal {

using expr::ExprPtr;
using expr::Op;
using expr::Scalar;

/// Whether `word` is one of `options`, ignoring ASCII case.
bool OneOf(std::string_view word, std::initializer_list<std::string_view> options);

/// The statement being built: its expression side tables and whether subqueries are allowed.
/// One Parser reads one text; its methods are recursive descent, one per grammar rule.
class Parser {
 public:
  Parser(std::shared_ptr<const std::string> source, std::vector<Token> tokens)
      : source_(std::move(source)), tokens_(std::move(tokens)) {}

  Result<std::vector<Statement>> Script();
  Result<ExprPtr> StandaloneExpression();

 private:
  // ---- tokens, names, errors (parser.cc) ----

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) {
      ++pos_;
    }
    return token;
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd; }

  bool AcceptKeyword(std::string_view keyword);
  bool AcceptOperator(std::string_view op);
  Status ExpectKeyword(std::string_view keyword);
  Status ExpectOperator(std::string_view op);
  Status ErrorAt(const Token& token, std::string_view what) const;
  Status Unexpected(std::string_view expected,
                    const std::vector<std::string_view>& keywords = kClauseKeywords) const;
  bool AtIdentifier(bool after_as = false) const;
  Result<std::string> Identifier(std::string_view what = "a name", bool after_as = false);
  Result<std::string> OptionalAlias();
  /// `(a, b, ...)`; `after_as`: keywords are names too (Spark's `generator(...) AS (x, y)`).
  Result<std::vector<std::string>> ParenthesizedNames(bool after_as = false);
  ExprPtr Track(ExprPtr node, const SourcePosition& position);
  Result<std::string> StringLiteral(std::string_view what);
  Result<int64_t> NonNegativeInteger(std::string_view what);
  std::string_view TextFrom(const Token& first) const;
  static bool Failed(const std::vector<bool>& failed, size_t at);
  static void MarkFailed(std::vector<bool>* failed, size_t at);

  // ---- statements (parser.cc) ----

  Result<Statement> ParseOneStatement();
  Result<TableName> ParseTableName(bool allow_string_path);
  Result<StatementBody> ParseCreate();
  Result<StatementBody> ParseCreateView(bool or_replace);
  Result<std::vector<std::pair<std::string, std::string>>> ParseProperties();
  Result<StatementBody> ParseInsert();
  Result<StatementBody> ParseTruncate();
  bool KindWordFollowedByTable() const;
  Result<StatementBody> ParseDescribe();
  Result<StatementBody> ParseShowTables();
  Result<StatementBody> ParseShowTableInfo();
  Result<StatementBody> ParseExplain();
  Result<StatementBody> ParseSet();
  Result<StatementBody> ParseReset();
  Result<StatementBody> ParseUse();
  std::string RestOfStatement(size_t from, size_t to) const;
  Result<StatementBody> ParseOptimize();
  Result<StatementBody> ParseVacuum();
  Result<StatementBody> ParseDropTable();
  bool IsSchemaWord(size_t ahead) const;
  Result<StatementBody> ParseSchemaCommand();

  // ---- row-level changes and CDC flows (parser_dml.cc) ----

  Result<StatementBody> ParseDelete();
  Result<StatementBody> ParseUpdate();
  Result<std::string> ParseColumnPath();
  Result<ExprPtr> ParseAssignedValue();
  Result<std::vector<Assignment>> ParseAssignments();
  Result<StatementBody> ParseMerge();
  Result<MergeClause> ParseMergeClause();
  Result<StatementBody> ParseAutoCdc();
  Status ParseFlowColumns(std::vector<std::string>* columns, bool* except);

  // ---- queries and relations (parser_queries.cc) ----

  bool IsQueryStart(size_t ahead) const;
  /// SELECT * FROM `from`.
  static std::shared_ptr<Query> SelectStarFrom(RelationPtr from);
  static std::shared_ptr<Query> WrapInSelect(QueryPtr inner);
  Result<QueryPtr> ParseQuery();
  Result<std::shared_ptr<Query>> ParseQueryTerm();
  Result<std::shared_ptr<Query>> ParseValues();
  size_t QualifiedStarLength() const;
  Result<std::shared_ptr<Query>> ParseSelect();
  /// One `expr [ASC|DESC] [NULLS FIRST|LAST]` of ORDER BY (queries and OVER clauses).
  Result<OrderItem> ParseOrderItem();
  /// Whether the cursor is at the ALL of GROUP BY ALL / ORDER BY ALL.
  bool AtAllKeyword() const;
  bool AtSetQuantifierAll() const;
  /// The GROUP BY list after GROUP BY: ALL, expressions, ROLLUP, CUBE, GROUPING SETS.
  Status ParseGroupBy(Query* query);
  /// One grouping element inside `within` (ROLLUP, CUBE or GROUPING SETS): `expr` or
  /// `(expr, ...)`; `()` only in GROUPING SETS.
  Result<std::vector<ExprPtr>> ParseGroupingItem(std::string_view within);
  std::pair<JoinKind, size_t> PeekJoin() const;
  Result<RelationPtr> ParseRelation();
  Result<RelationPtr> ParsePrimaryRelation();
  /// [AS] alias [(column, ...)] after a relation.
  Status RelationAlias(Relation* relation);
  bool AtWatermarkClause() const;
  Status ParseWatermarkClause(Relation* relation);

  // ---- LATERAL VIEW, PIVOT, UNPIVOT and TABLESAMPLE (parser_pivot.cc) ----

  /// Whether the cursor is at PIVOT (, UNPIVOT ( or TABLESAMPLE (, which are not reserved and
  /// so must not be read as a FROM item's alias.
  bool AtFromClauseExtension() const;
  /// The LATERAL VIEWs, then PIVOT or UNPIVOT, after the FROM clause's relations (Spark's
  /// fromClause), each wrapping `*from`.
  Status ParseFromClauseExtensions(RelationPtr* from);
  Result<std::shared_ptr<const LateralViewClause>> ParseLateralView();
  Result<std::shared_ptr<const PivotClause>> ParsePivot();
  Result<std::shared_ptr<const UnpivotClause>> ParseUnpivot();
  /// TABLESAMPLE (...) [REPEATABLE (seed)] after a FROM item; nothing when absent.
  Status ParseTableSample(Relation* relation);
  /// A LATERAL that does not start LATERAL VIEW: a clear error at it.
  Status RejectLateralSubquery() const;

  // ---- nesting and height limits (parser_queries.cc) ----

  // Nesting ((((a)))), - - - a, NOT NOT a and subqueries recurses; past kMaxDepth levels the
  // statement is refused rather than risking the stack (a level is up to ~15 frames).
  static constexpr int kMaxDepth = 200;
  class DepthGuard {
   public:
    explicit DepthGuard(int* depth) : depth_(depth) { ++*depth_; }
    ~DepthGuard() { --*depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    int* depth_;
  };
  // A query's scope of WITH names (with_heights_), for as long as the query is parsed.
  class WithScope {
   public:
    explicit WithScope(std::vector<std::unordered_map<std::string, int>>* scopes)
        : scopes_(scopes) {
      scopes_->emplace_back();
    }
    ~WithScope() { scopes_->pop_back(); }
    WithScope(const WithScope&) = delete;
    WithScope& operator=(const WithScope&) = delete;

   private:
    std::vector<std::unordered_map<std::string, int>>* scopes_;
  };

  // Chains recurse nowhere here (a + b + c is a loop) but build trees one level deeper per
  // operator, and every pass after parsing walks them recursively: binding, planning,
  // optimizing, evaluating, even freeing the tree. So the height of what is built (expressions,
  // set operations, joins, subqueries, all counted together) is checked as it grows, and past
  // kMaxHeight the statement is refused before anything deeper exists. 1000 is DuckDB's
  // max_expression_depth; under it every statement runs in 1 MiB of stack (measured in release).
  static constexpr int kMaxHeight = 1000;

  Status CheckDepth() const;
  int Height(const ExprPtr& node);
  Status TooDeep(const SourcePosition& at, std::string_view what) const;
  Result<ExprPtr> CheckHeight(ExprPtr node, const SourcePosition& at);
  int QueryHeight(const QueryPtr& query);
  static int OwnLevels(const Query& q);
  int RelationHeight(const RelationPtr& relation);
  Status CheckQueryHeight(const QueryPtr& query, const SourcePosition& at);
  Status CheckRelationHeight(const RelationPtr& relation, const SourcePosition& at);

  // ---- types and expressions (parser_expressions.cc) ----

  Result<columnar::DataTypePtr> ParseType();
  Result<ExprPtr> ParseExpr();
  Result<ExprPtr> ParseOr();
  Result<ExprPtr> ParseAnd();
  Result<ExprPtr> ParseNot();
  Result<ExprPtr> SubqueryCall(std::string_view name, std::vector<ExprPtr> args, const Token& at);
  Result<ExprPtr> ParsePredicate();
  Result<ExprPtr> ParseLikeQuantified(ExprPtr value, const Token& op, const Token* negated);
  Result<ExprPtr> ParseComparison();
  Result<ExprPtr> ParseFunctionOperator(std::string_view symbol, std::string_view name,
                                        Result<ExprPtr> (Parser::*next_level)());
  Result<ExprPtr> ParseBitOr();
  Result<ExprPtr> ParseBitXor();
  Result<ExprPtr> ParseBitAnd();
  Result<ExprPtr> ParseShift();
  Result<ExprPtr> ParseAdditive();
  Result<ExprPtr> ParseMultiplicative();
  Result<ExprPtr> ParseUnary();
  Result<ExprPtr> ParsePostfix();
  template <typename T>
  Result<T> LiteralOrError(Result<T> result, const Token& at);
  Result<ExprPtr> IntervalLiteral(const Token& keyword);
  Result<ExprPtr> ParsePrimary();
  Result<ExprPtr> ParsePrimaryUntracked();
  Result<ExprPtr> Parenthesized();
  Result<ExprPtr> CaseExpression();
  Result<ExprPtr> FunctionCall();
  Result<std::optional<ExprPtr>> KeywordArgumentCall();
  Status WithinGroup(const Token& name, bool distinct, std::vector<ExprPtr>* args);
  /// A function argument: a lambda (`x -> body`, `(x, y) -> body`) or an expression.
  Result<ExprPtr> LambdaOrExpr();
  /// A star argument (`*`, `(*)`, `t.*`, `s.*` of a struct s) ending at `,` or `)`, consumed:
  /// Col("*") or GetField(path, "*"), which the planner expands into the columns or fields.
  /// Null, consuming nothing, at anything else.
  ExprPtr StarArgument();
  /// `OVER (PARTITION BY ... ORDER BY ... frame)` after `name(args)`: the window call.
  Result<ExprPtr> WindowClause(const Token& name, std::vector<ExprPtr> args, bool distinct);
  /// The inside of an OVER (...) or of a WINDOW clause's definition, up to the `)`.
  Status WindowSpecification(expr::WindowSpec* spec, std::vector<ExprPtr>* keys);
  /// `WINDOW w AS (...), ...` after HAVING: OVER w calls of the query's SELECT list and
  /// QUALIFY take the named specification.
  Status ParseNamedWindows(Query* query);
  Result<expr::WindowFrameBound> FrameBound();
  static Result<columnar::DataTypePtr> FromJsonSchema(const std::string& text);
  /// schema_of_json('...'): the inferred type of the JSON value as Spark's SQL type text.
  static Result<std::string> SchemaOfJson(
      const std::string& json, const std::vector<std::pair<std::string, std::string>>& options);

  std::shared_ptr<const std::string> source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  // Token positions where parsing a parenthesized subquery already failed (memoized so that
  // backtracking stays linear in the input).
  std::vector<bool> failed_relation_subquery_;
  std::vector<bool> failed_scalar_subquery_;
  // Index of the token last read as an alias without AS (SIZE_MAX: none).
  size_t last_implicit_alias_ = std::numeric_limits<size_t>::max();
  std::shared_ptr<ExpressionSources> sources_;
  bool allow_subqueries_ = true;
  // Current recursion depth (DepthGuard).
  int depth_ = 0;
  // The heights of the WITH queries in scope by lowercase name, innermost scope last.
  std::vector<std::unordered_map<std::string, int>> with_heights_;
  // Memoized heights (Height, QueryHeight, RelationHeight), each with its node.
  std::unordered_map<const expr::Expression*, std::pair<ExprPtr, int>> expr_heights_;
  std::unordered_map<const Query*, std::pair<QueryPtr, int>> query_heights_;
  std::unordered_map<const Relation*, std::pair<RelationPtr, int>> relation_heights_;
};

}  // namespace tributary::sql::internal
