#include "sql/parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "columnar/sql_type_parser.h"
#include "common/ascii.h"
#include "common/closest_match.h"
#include "formats/text/schema_hints.h"
#include "sql/keywords.h"
#include "sql/number_literal.h"

namespace tributary::sql {
namespace {

using expr::ExprPtr;
using expr::Op;
using expr::Scalar;

bool OneOf(std::string_view word, std::initializer_list<std::string_view> options) {
  return std::any_of(options.begin(), options.end(),
                     [&](std::string_view option) { return EqualsIgnoreAsciiCase(word, option); });
}

}  // namespace

namespace {

// The statement being built: its expression side tables and whether subqueries are allowed.
class Parser {
 public:
  Parser(std::shared_ptr<const std::string> source, std::vector<Token> tokens)
      : source_(std::move(source)), tokens_(std::move(tokens)) {}

  Result<std::vector<Statement>> Script() {
    std::vector<Statement> statements;
    while (true) {
      while (AcceptOperator(";")) {
      }
      if (AtEnd()) {
        return statements;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(Statement statement, ParseOneStatement());
      statements.push_back(std::move(statement));
      if (!AtEnd() && !Peek().IsOperator(";")) {
        return Unexpected("';' or the end of the statement");
      }
    }
  }

  Result<ExprPtr> StandaloneExpression() {
    sources_ = std::make_shared<ExpressionSources>();
    allow_subqueries_ = false;
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParseExpr());
    if (!AtEnd()) {
      return Unexpected("the end of the expression");
    }
    return result;
  }

 private:
  // ---- tokens ----

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

  bool AcceptKeyword(std::string_view keyword) {
    if (Peek().IsKeyword(keyword)) {
      Next();
      return true;
    }
    return false;
  }
  bool AcceptOperator(std::string_view op) {
    if (Peek().IsOperator(op)) {
      Next();
      return true;
    }
    return false;
  }
  Status ExpectKeyword(std::string_view keyword) {
    if (AcceptKeyword(keyword)) {
      return Status::OK();
    }
    return Unexpected(keyword, {keyword});
  }
  Status ExpectOperator(std::string_view op) {
    if (AcceptOperator(op)) {
      return Status::OK();
    }
    return Unexpected(fmt::format("'{}'", op));
  }

  Status ErrorAt(const Token& token, std::string_view what) const {
    return SyntaxError(*source_, token.position, what);
  }

  // "expected <expected>, found <token>", with a "did you mean" when the token (or the word
  // just read as an implicit alias, as in SELECT a FORM t) is a near miss of a keyword.
  Status Unexpected(std::string_view expected,
                    const std::vector<std::string_view>& keywords = kClauseKeywords) const {
    const Token& found = Peek();
    if (found.kind == TokenKind::kWord) {
      const std::string_view match = ClosestMatch(found.text, keywords);
      if (!match.empty()) {
        return ErrorAt(found, fmt::format("expected {}, found '{}' (did you mean {}?)", expected,
                                          found.text, match));
      }
    }
    if (last_implicit_alias_ + 1 == pos_ && pos_ > 0) {
      const Token& alias = tokens_[pos_ - 1];
      const std::string_view match = ClosestMatch(alias.text, kClauseKeywords);
      if (alias.kind == TokenKind::kWord && !match.empty()) {
        return ErrorAt(alias, fmt::format("unexpected '{}' (did you mean {}?)", alias.text, match));
      }
    }
    return ErrorAt(found, fmt::format("expected {}, found {}", expected, found.Describe()));
  }

  // A name: a back-quoted word, or a word that is not reserved (any word when `after_as`).
  bool AtIdentifier(bool after_as = false) const {
    const Token& token = Peek();
    return token.kind == TokenKind::kQuotedWord ||
           (token.kind == TokenKind::kWord && (after_as || !IsReservedWord(token.text)));
  }
  Result<std::string> Identifier(std::string_view what = "a name", bool after_as = false) {
    if (!AtIdentifier(after_as)) {
      return Unexpected(what);
    }
    return Next().text;
  }

  // [AS] alias; empty when there is none.
  Result<std::string> OptionalAlias() {
    if (AcceptKeyword("AS")) {
      return Identifier("an alias", true);
    }
    if (AtIdentifier()) {
      last_implicit_alias_ = pos_;
      return Next().text;
    }
    return std::string();
  }

  Result<std::vector<std::string>> ParenthesizedNames() {
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    std::vector<std::string> names;
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string name, Identifier("a column name"));
      names.push_back(std::move(name));
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return names;
  }

  ExprPtr Track(ExprPtr node, const SourcePosition& position) {
    sources_->positions.emplace(node.get(), position);
    return node;
  }

  // ---- statements ----

  Result<Statement> ParseOneStatement() {
    sources_ = std::make_shared<ExpressionSources>();
    allow_subqueries_ = true;
    Statement statement;
    statement.position = Peek().position;
    statement.source = source_;
    const Token& first = Peek();
    if (IsQueryStart(0)) {
      TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr query, ParseQuery());
      statement.body = std::move(query);
    } else if (first.IsKeyword("CREATE")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseCreate());
    } else if (first.IsKeyword("INSERT")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseInsert());
    } else if (first.IsKeyword("DESCRIBE") || first.IsKeyword("DESC")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseDescribe());
    } else if (first.IsKeyword("SHOW")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseShowTables());
    } else if (first.IsKeyword("OPTIMIZE")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseOptimize());
    } else if (first.IsKeyword("VACUUM")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseVacuum());
    } else if (first.IsKeyword("DROP")) {
      TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseDropTable());
    } else {
      return Unexpected(
          "a statement (SELECT, WITH, VALUES, CREATE, INSERT, DESCRIBE, SHOW, "
          "OPTIMIZE, VACUUM or DROP)",
          kStatementKeywords);
    }
    statement.sources = sources_;
    return statement;
  }

  // table = name {"." name} | format "." `path` | 'path' (when `allow_string_path`).
  Result<TableName> ParseTableName(bool allow_string_path) {
    TableName table;
    table.position = Peek().position;
    if (allow_string_path && Peek().kind == TokenKind::kString) {
      table.format = "delta";
      table.path = Next().text;
      return table;
    }
    bool last_quoted = false;
    do {
      last_quoted = Peek().kind == TokenKind::kQuotedWord;
      TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a table name"));
      table.parts.push_back(std::move(part));
    } while (AcceptOperator("."));
    if (table.parts.size() == 2 && last_quoted &&
        OneOf(table.parts[0], {"delta", "parquet", "json", "csv"})) {
      table.format = AsciiLower(table.parts[0]);
      table.path = table.parts[1];
      table.parts.clear();
    }
    return table;
  }

  Result<std::string> StringLiteral(std::string_view what) {
    if (Peek().kind != TokenKind::kString) {
      return Unexpected(what);
    }
    std::string value = Next().text;
    while (Peek().kind == TokenKind::kString) {
      value += Next().text;
    }
    return value;
  }

  Result<StatementBody> ParseCreate() {
    Next();
    CreateTable create;
    if (AcceptKeyword("OR")) {
      if (AcceptKeyword("REPLACE")) {
        create.or_replace = true;
      } else if (AcceptKeyword("REFRESH")) {
        create.or_refresh = true;
      } else {
        return Unexpected("REPLACE or REFRESH", {"REPLACE", "REFRESH"});
      }
    }
    create.streaming = AcceptKeyword("STREAMING");
    if (create.or_refresh && !create.streaming) {
      return Unexpected("STREAMING (OR REFRESH goes with STREAMING TABLE)", {"STREAMING"});
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    if (AcceptKeyword("IF")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NOT"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      create.if_not_exists = true;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(create.table, ParseTableName(false));
    if (AcceptOperator("(")) {
      do {
        ColumnDefinition column;
        column.position = Peek().position;
        TRIBUTARY_ASSIGN_OR_RAISE(column.name, Identifier("a column name"));
        TRIBUTARY_ASSIGN_OR_RAISE(column.type, ParseType());
        while (true) {
          if (AcceptKeyword("NOT")) {
            TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NULL"));
            column.nullable = false;
          } else if (AcceptKeyword("COMMENT")) {
            TRIBUTARY_ASSIGN_OR_RAISE(column.comment, StringLiteral("a comment string"));
          } else {
            break;
          }
        }
        create.columns.push_back(std::move(column));
      } while (AcceptOperator(","));
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    }
    while (true) {
      if (!create.streaming && AcceptKeyword("USING")) {
        TRIBUTARY_ASSIGN_OR_RAISE(std::string provider, Identifier("a data source name"));
        create.provider = AsciiLower(provider);
      } else if (AcceptKeyword("PARTITIONED")) {
        TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
        TRIBUTARY_ASSIGN_OR_RAISE(create.partition_by, ParenthesizedNames());
      } else if (!create.streaming && AcceptKeyword("LOCATION")) {
        TRIBUTARY_ASSIGN_OR_RAISE(create.location, StringLiteral("a location string"));
      } else if (AcceptKeyword("COMMENT")) {
        TRIBUTARY_ASSIGN_OR_RAISE(create.comment, StringLiteral("a comment string"));
      } else if (AcceptKeyword("TBLPROPERTIES")) {
        TRIBUTARY_ASSIGN_OR_RAISE(create.properties, ParseProperties());
      } else {
        break;
      }
    }
    if (AcceptKeyword("AS") || IsQueryStart(0)) {
      TRIBUTARY_ASSIGN_OR_RAISE(create.query, ParseQuery());
    } else if (create.streaming) {
      return Unexpected("AS and the streaming query",
                        {"AS", "USING", "PARTITIONED", "COMMENT", "TBLPROPERTIES"});
    }
    if (!AtEnd() && !Peek().IsOperator(";")) {
      return Unexpected("a CREATE TABLE clause or the end of the statement",
                        {"USING", "PARTITIONED", "LOCATION", "COMMENT", "TBLPROPERTIES", "AS"});
    }
    return create;
  }

  // "(" property {"," property} ")", property = key ["="] value.
  Result<std::vector<std::pair<std::string, std::string>>> ParseProperties() {
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    std::vector<std::pair<std::string, std::string>> properties;
    do {
      std::string key;
      if (Peek().kind == TokenKind::kString) {
        key = Next().text;
      } else {
        do {
          TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a property key", true));
          key += key.empty() ? part : "." + part;
        } while (AcceptOperator("."));
      }
      AcceptOperator("=");
      const Token& value = Peek();
      if (value.kind == TokenKind::kString || value.kind == TokenKind::kNumber ||
          value.IsKeyword("TRUE") || value.IsKeyword("FALSE")) {
        properties.emplace_back(
            std::move(key), value.kind == TokenKind::kWord ? AsciiLower(value.text) : value.text);
        Next();
      } else {
        return Unexpected("a property value (string, number, TRUE or FALSE)");
      }
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return properties;
  }

  Result<StatementBody> ParseInsert() {
    Next();
    Insert insert;
    if (AcceptKeyword("OVERWRITE")) {
      insert.overwrite = true;
    } else if (!AcceptKeyword("INTO")) {
      return Unexpected("INTO or OVERWRITE", {"INTO", "OVERWRITE"});
    }
    AcceptKeyword("TABLE");
    TRIBUTARY_ASSIGN_OR_RAISE(insert.table, ParseTableName(false));
    if (Peek().IsOperator("(") && !IsQueryStart(1)) {
      TRIBUTARY_ASSIGN_OR_RAISE(insert.columns, ParenthesizedNames());
    }
    if (!IsQueryStart(0)) {
      return Unexpected("a query or VALUES", {"SELECT", "VALUES", "WITH"});
    }
    TRIBUTARY_ASSIGN_OR_RAISE(insert.query, ParseQuery());
    return insert;
  }

  // Whether the word after DESCRIBE is a kind (HISTORY t) rather than the table (DESCRIBE
  // history).
  bool KindWordFollowedByTable() const {
    const Token& after = Peek(1);
    return after.kind == TokenKind::kWord || after.kind == TokenKind::kQuotedWord ||
           after.kind == TokenKind::kString;
  }

  Result<StatementBody> ParseDescribe() {
    Next();
    Describe describe;
    if (Peek().IsKeyword("HISTORY") && KindWordFollowedByTable()) {
      Next();
      describe.kind = DescribeKind::kHistory;
    } else if (Peek().IsKeyword("DETAIL") && KindWordFollowedByTable()) {
      Next();
      describe.kind = DescribeKind::kDetail;
    } else if (Peek().IsKeyword("TABLE") && KindWordFollowedByTable()) {
      Next();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(describe.table,
                              ParseTableName(describe.kind != DescribeKind::kTable));
    if (describe.kind == DescribeKind::kHistory && AcceptKeyword("LIMIT")) {
      TRIBUTARY_ASSIGN_OR_RAISE(describe.limit, NonNegativeInteger("the history limit"));
    }
    return describe;
  }

  Result<int64_t> NonNegativeInteger(std::string_view what) {
    const Token& token = Peek();
    int64_t value = 0;
    if (token.kind != TokenKind::kNumber || token.number_kind != NumberKind::kInteger ||
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), value).ec !=
            std::errc()) {
      return Unexpected(fmt::format("an integer for {}", what));
    }
    Next();
    return value;
  }

  Result<StatementBody> ParseShowTables() {
    Next();
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLES"));
    ShowTables show;
    if (AcceptKeyword("IN") || AcceptKeyword("FROM")) {
      TRIBUTARY_ASSIGN_OR_RAISE(show.database, Identifier("a database name"));
    }
    AcceptKeyword("LIKE");
    if (Peek().kind == TokenKind::kString) {
      show.pattern = Next().text;
    }
    return show;
  }

  Result<StatementBody> ParseOptimize() {
    Next();
    Optimize optimize;
    TRIBUTARY_ASSIGN_OR_RAISE(optimize.table, ParseTableName(true));
    if (AcceptKeyword("WHERE")) {
      TRIBUTARY_ASSIGN_OR_RAISE(optimize.where, ParseExpr());
    }
    if (Peek().IsKeyword("ZORDER")) {
      return ErrorAt(Peek(), "OPTIMIZE ... ZORDER BY is not supported");
    }
    return optimize;
  }

  Result<StatementBody> ParseVacuum() {
    Next();
    Vacuum vacuum;
    TRIBUTARY_ASSIGN_OR_RAISE(vacuum.table, ParseTableName(true));
    if (AcceptKeyword("RETAIN")) {
      const Token& number = Peek();
      if (number.kind != TokenKind::kNumber || (number.number_kind != NumberKind::kInteger &&
                                                number.number_kind != NumberKind::kDecimal)) {
        return Unexpected("a number of hours");
      }
      vacuum.retain_hours = std::strtod(number.text.c_str(), nullptr);
      Next();
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("HOURS"));
    }
    if (AcceptKeyword("DRY")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("RUN"));
      vacuum.dry_run = true;
    }
    return vacuum;
  }

  Result<StatementBody> ParseDropTable() {
    Next();
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    DropTable drop;
    if (AcceptKeyword("IF")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      drop.if_exists = true;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(drop.table, ParseTableName(false));
    return drop;
  }

  // ---- types ----

  // A type is one word, then a balanced (...) for decimal/varchar/char or <...> for
  // array/map/struct; its text goes to the one Spark type parser (formats/text/schema_hints).
  Result<columnar::DataTypePtr> ParseType() {
    const Token& first = Peek();
    if (first.kind != TokenKind::kWord && first.kind != TokenKind::kQuotedWord) {
      return Unexpected("a type");
    }
    Next();
    const std::string_view open =
        OneOf(first.text, {"array", "map", "struct"})                         ? "<"
        : OneOf(first.text, {"decimal", "dec", "numeric", "varchar", "char"}) ? "("
                                                                              : "";
    if (!open.empty() && Peek().IsOperator(open)) {
      const std::string_view close = open == "<" ? ">" : ")";
      int depth = 0;
      do {
        const Token& token = Peek();
        if (token.kind == TokenKind::kEnd) {
          return ErrorAt(first, fmt::format("unterminated type: no '{}' closes it", close));
        }
        if (token.IsOperator(open)) {
          ++depth;
        } else if (token.IsOperator(close)) {
          --depth;
        }
        Next();
      } while (depth > 0);
    }
    const Token& last = tokens_[pos_ - 1];
    const std::string_view text = std::string_view(*source_).substr(
        first.position.offset, last.position.offset + last.length - first.position.offset);
    auto type = columnar::ParseSqlType(text);
    if (type.ok()) {
      return type;
    }
    const std::string_view match = ClosestMatch(first.text, kTypeNames);
    const bool known = std::any_of(kTypeNames.begin(), kTypeNames.end(), [&](std::string_view n) {
      return EqualsIgnoreAsciiCase(n, first.text);
    });
    if (!known && !match.empty()) {
      return ErrorAt(first, fmt::format("unknown type '{}' (did you mean {}?)", first.text, match));
    }
    return ErrorAt(first, type.status().Message());
  }

  // ---- queries ----

  // SELECT, WITH, VALUES, or "(" leading to one of them.
  bool IsQueryStart(size_t ahead) const {
    size_t i = ahead;
    while (Peek(i).IsOperator("(")) {
      ++i;
    }
    const Token& token = Peek(i);
    return token.IsKeyword("SELECT") || token.IsKeyword("WITH") || token.IsKeyword("VALUES");
  }

  // A query wrapped as SELECT * FROM (query), so ORDER BY/LIMIT/WITH can apply on top of
  // one that already has its own.
  static std::shared_ptr<Query> WrapInSelect(QueryPtr inner) {
    auto relation = std::make_shared<Relation>();
    relation->kind = RelationKind::kSubquery;
    relation->position = inner->position;
    relation->subquery = inner;
    auto outer = std::make_shared<Query>();
    outer->position = inner->position;
    outer->select.push_back(SelectItem{nullptr, "", {}, inner->position});
    outer->from = std::move(relation);
    return outer;
  }

  Result<QueryPtr> ParseQuery() {
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
        TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
        TRIBUTARY_ASSIGN_OR_RAISE(cte.query, ParseQuery());
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
        with_heights_.back()[AsciiLower(cte.name)] = QueryHeight(cte.query);
        with.push_back(std::move(cte));
      } while (AcceptOperator(","));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Query> query, ParseQueryTerm());
    while (true) {
      const Token& op = Peek();
      if (op.IsKeyword("EXCEPT") || op.IsKeyword("INTERSECT") || op.IsKeyword("MINUS")) {
        return ErrorAt(op, fmt::format("{} is not supported; only UNION is", AsciiUpper(op.text)));
      }
      if (!op.IsKeyword("UNION")) {
        break;
      }
      Next();
      auto set = std::make_shared<Query>();
      set->kind = QueryKind::kUnion;
      set->position = op.position;
      set->union_all = AcceptKeyword("ALL");
      if (!set->union_all) {
        AcceptKeyword("DISTINCT");
      }
      set->left = std::move(query);
      TRIBUTARY_ASSIGN_OR_RAISE(set->right, ParseQueryTerm());
      TRIBUTARY_RETURN_NOT_OK(CheckQueryHeight(set, op.position));
      query = std::move(set);
    }
    const bool has_order = Peek().IsKeyword("ORDER");
    const bool has_limit = Peek().IsKeyword("LIMIT");
    if ((has_order || has_limit) && (!query->order_by.empty() || query->limit != nullptr)) {
      query = WrapInSelect(std::move(query));
    }
    if (AcceptKeyword("ORDER")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
      do {
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
        query->order_by.push_back(std::move(item));
      } while (AcceptOperator(","));
    }
    if (AcceptKeyword("LIMIT")) {
      if (!AcceptKeyword("ALL")) {
        TRIBUTARY_ASSIGN_OR_RAISE(query->limit, ParseExpr());
      }
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

  Result<std::shared_ptr<Query>> ParseQueryTerm() {
    if (AcceptOperator("(")) {
      TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr inner, ParseQuery());
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      return std::make_shared<Query>(*inner);
    }
    if (Peek().IsKeyword("VALUES")) {
      return ParseValues();
    }
    if (!Peek().IsKeyword("SELECT")) {
      return Unexpected("SELECT, VALUES or '('", {"SELECT", "VALUES", "WITH"});
    }
    return ParseSelect();
  }

  Result<std::shared_ptr<Query>> ParseValues() {
    auto query = std::make_shared<Query>();
    query->kind = QueryKind::kValues;
    query->position = Next().position;
    do {
      std::vector<ExprPtr> row;
      if (AcceptOperator("(")) {
        do {
          TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
          row.push_back(std::move(value));
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
  size_t QualifiedStarLength() const {
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

  Result<std::shared_ptr<Query>> ParseSelect() {
    auto query = std::make_shared<Query>();
    query->position = Next().position;
    if (AcceptKeyword("DISTINCT")) {
      query->distinct = true;
    } else {
      AcceptKeyword("ALL");
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
      TRIBUTARY_ASSIGN_OR_RAISE(item.alias, OptionalAlias());
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
    }
    if (AcceptKeyword("WHERE")) {
      TRIBUTARY_ASSIGN_OR_RAISE(query->where, ParseExpr());
    }
    if (AcceptKeyword("GROUP")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr key, ParseExpr());
        query->group_by.push_back(std::move(key));
      } while (AcceptOperator(","));
    }
    if (AcceptKeyword("HAVING")) {
      TRIBUTARY_ASSIGN_OR_RAISE(query->having, ParseExpr());
    }
    return query;
  }

  // ---- relations ----

  // The join keywords at the cursor: the kind and how many tokens they take (0: no join).
  std::pair<JoinKind, size_t> PeekJoin() const {
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

  Result<RelationPtr> ParseRelation() {
    TRIBUTARY_ASSIGN_OR_RAISE(RelationPtr left, ParsePrimaryRelation());
    while (true) {
      if (Peek().IsKeyword("NATURAL")) {
        return ErrorAt(Peek(), "NATURAL JOIN is not supported; use JOIN ... USING (...)");
      }
      const auto [kind, length] = PeekJoin();
      if (length == 0) {
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
      pos_ += length;
      join->left = std::move(left);
      TRIBUTARY_ASSIGN_OR_RAISE(join->right, ParsePrimaryRelation());
      if (AcceptKeyword("ON")) {
        if (kind == JoinKind::kCross) {
          return ErrorAt(tokens_[pos_ - 1], "CROSS JOIN takes no ON condition");
        }
        TRIBUTARY_ASSIGN_OR_RAISE(join->condition, ParseExpr());
      } else if (Peek().IsKeyword("USING")) {
        if (kind == JoinKind::kCross) {
          return ErrorAt(Peek(), "CROSS JOIN takes no USING columns");
        }
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(join->using_columns, ParenthesizedNames());
      }
      TRIBUTARY_RETURN_NOT_OK(CheckRelationHeight(join, join->position));
      left = std::move(join);
    }
  }

  Result<RelationPtr> ParsePrimaryRelation() {
    DepthGuard guard(&depth_);
    TRIBUTARY_RETURN_NOT_OK(CheckDepth());
    auto relation = std::make_shared<Relation>();
    relation->position = Peek().position;
    if (Peek().IsKeyword("STREAM") && Peek(1).kind != TokenKind::kEnd && !Peek(1).IsOperator(",") &&
        !Peek(1).IsOperator(")") && !Peek(1).IsOperator(";") && !IsReservedWord(Peek(1).text)) {
      Next();
      relation->stream = true;
      if (AcceptOperator("(")) {
        relation->kind = RelationKind::kTable;
        TRIBUTARY_ASSIGN_OR_RAISE(relation->table, ParseTableName(false));
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
        TRIBUTARY_ASSIGN_OR_RAISE(relation->alias, OptionalAlias());
        return RelationPtr(relation);
      }
    } else if (Peek().IsOperator("(")) {
      const size_t save = pos_;
      if (IsQueryStart(1) && !Failed(failed_relation_subquery_, save)) {
        Next();
        auto query = ParseQuery();
        if (query.ok() && AcceptOperator(")")) {
          relation->kind = RelationKind::kSubquery;
          relation->subquery = *std::move(query);
          TRIBUTARY_ASSIGN_OR_RAISE(relation->alias, OptionalAlias());
          return RelationPtr(relation);
        }
        if (!tokens_[save + 1].IsOperator("(")) {
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
      return inner;
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
    TRIBUTARY_ASSIGN_OR_RAISE(relation->alias, OptionalAlias());
    return RelationPtr(relation);
  }

  // ---- expressions ----

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

  Status CheckDepth() const {
    if (depth_ > kMaxDepth) {
      return ErrorAt(Peek(), fmt::format("nested more than {} levels deep", kMaxDepth));
    }
    return Status::OK();
  }

  // Chains recurse nowhere here (a + b + c is a loop) but build trees one level deeper per
  // operator, and every pass after parsing walks them recursively: binding, planning,
  // optimizing, evaluating, even freeing the tree. So the height of what is built (expressions,
  // set operations, joins, subqueries, all counted together) is checked as it grows, and past
  // kMaxHeight the statement is refused before anything deeper exists. 1000 is DuckDB's
  // max_expression_depth; under it every statement runs in 1 MiB of stack (measured in release).
  static constexpr int kMaxHeight = 1000;

  // The height of `node`'s tree (a leaf is 1; a subquery placeholder is above its query),
  // memoized: every chain step asks for the new top only. Entries keep their nodes alive so an
  // address is never reused for another node while parsing.
  int Height(const ExprPtr& node) {
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

  Status TooDeep(const SourcePosition& at, std::string_view what) const {
    const std::string_view hint = what == "expression"
                                      ? "split it up; a long chain of ORs can be an IN list"
                                      : "split it into several statements or tables";
    return SyntaxError(
        *source_, at,
        fmt::format("{} too deep: more than {} nested operations ({})", what, kMaxHeight, hint));
  }

  // `node`, or an error at `at` when its tree is higher than kMaxHeight.
  Result<ExprPtr> CheckHeight(ExprPtr node, const SourcePosition& at) {
    if (Height(node) > kMaxHeight) {
      return TooDeep(at, "expression");
    }
    return node;
  }

  // A query's height (its plan nodes over the highest of its inputs, or its highest expression),
  // memoized: CheckQueryHeight recomputes a query that grew after it was first measured.
  int QueryHeight(const QueryPtr& query) {
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
    const int height = std::max(below + OwnLevels(q), expressions);
    query_heights_.emplace(query.get(), std::make_pair(query, height));
    return height;
  }

  // The plan nodes a query puts over its inputs, as the binder builds them: a projection or a
  // union, a filter, an aggregation, DISTINCT's aggregation and projection (a UNION without
  // ALL has them too), a sort, a limit.
  static int OwnLevels(const Query& q) {
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
    if (!q.order_by.empty()) {
      ++levels;
    }
    if (q.limit != nullptr) {
      ++levels;
    }
    return levels;
  }

  // A relation's height: a table is 1 (a WITH name its query's height + 1), a join is above
  // its sides, a subquery above its query.
  int RelationHeight(const RelationPtr& relation) {
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
    for (const ExprPtr& e : {r.condition, r.timestamp_as_of}) {
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
  Status CheckQueryHeight(const QueryPtr& query, const SourcePosition& at) {
    query_heights_.erase(query.get());
    if (QueryHeight(query) > kMaxHeight) {
      return TooDeep(at, "query");
    }
    return Status::OK();
  }
  Status CheckRelationHeight(const RelationPtr& relation, const SourcePosition& at) {
    if (RelationHeight(relation) > kMaxHeight) {
      return TooDeep(at, "query");
    }
    return Status::OK();
  }

  Result<ExprPtr> ParseExpr() {
    DepthGuard guard(&depth_);
    TRIBUTARY_RETURN_NOT_OK(CheckDepth());
    const SourcePosition position = Peek().position;
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParseOr());
    return CheckHeight(std::move(result), position);
  }

  Result<ExprPtr> ParseOr() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseAnd());
    while (Peek().IsKeyword("OR")) {
      const SourcePosition position = Next().position;
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseAnd());
      TRIBUTARY_ASSIGN_OR_RAISE(
          left,
          CheckHeight(Track(expr::Or(std::move(left), std::move(right)), position), position));
    }
    return left;
  }

  Result<ExprPtr> ParseAnd() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseNot());
    while (Peek().IsKeyword("AND")) {
      const SourcePosition position = Next().position;
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseNot());
      TRIBUTARY_ASSIGN_OR_RAISE(
          left,
          CheckHeight(Track(expr::And(std::move(left), std::move(right)), position), position));
    }
    return left;
  }

  Result<ExprPtr> ParseNot() {
    const Token& token = Peek();
    if (token.IsKeyword("NOT") || token.IsOperator("!")) {
      DepthGuard guard(&depth_);
      TRIBUTARY_RETURN_NOT_OK(CheckDepth());
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr operand, ParseNot());
      return Track(expr::Not(std::move(operand)), token.position);
    }
    if (token.IsKeyword("EXISTS") && Peek(1).IsOperator("(")) {
      Next();
      return SubqueryCall(kExistsFunction, {}, token);
    }
    return ParsePredicate();
  }

  // `(query)` after the cursor's "(" as a placeholder call `name(args)` (ast.h).
  Result<ExprPtr> SubqueryCall(std::string_view name, std::vector<ExprPtr> args, const Token& at) {
    if (!allow_subqueries_) {
      return ErrorAt(at, "subqueries are not allowed in a standalone expression");
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr query, ParseQuery());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    ExprPtr call = Track(expr::Function(std::string(name), std::move(args)), at.position);
    sources_->subqueries.emplace(call.get(), std::move(query));
    return call;
  }

  Result<ExprPtr> ParsePredicate() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseComparison());
    const Token& token = Peek();
    const bool negated =
        token.IsKeyword("NOT") &&
        (Peek(1).IsKeyword("BETWEEN") || Peek(1).IsKeyword("IN") || Peek(1).IsKeyword("LIKE") ||
         Peek(1).IsKeyword("RLIKE") || Peek(1).IsKeyword("REGEXP") || Peek(1).IsKeyword("ILIKE"));
    if (negated) {
      Next();
    }
    const Token& op = Peek();
    ExprPtr result;
    if (op.IsKeyword("BETWEEN")) {
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr low, ParseComparison());
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AND"));
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr high, ParseComparison());
      result = expr::Between(std::move(value), std::move(low), std::move(high));
    } else if (op.IsKeyword("IN")) {
      Next();
      if (IsQueryStart(1) && Peek().IsOperator("(")) {
        TRIBUTARY_ASSIGN_OR_RAISE(result, SubqueryCall(kInSubqueryFunction, {value}, op));
      } else {
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
        std::vector<ExprPtr> list;
        do {
          TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr item, ParseExpr());
          list.push_back(std::move(item));
        } while (AcceptOperator(","));
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
        result = expr::In(std::move(value), std::move(list));
      }
    } else if (op.IsKeyword("LIKE") || op.IsKeyword("ILIKE") || op.IsKeyword("RLIKE") ||
               op.IsKeyword("REGEXP")) {
      Next();
      if (Peek().IsKeyword("ANY") || Peek().IsKeyword("ALL") || Peek().IsKeyword("SOME")) {
        return ErrorAt(Peek(), fmt::format("{} {} is not supported", AsciiUpper(op.text),
                                           AsciiUpper(Peek().text)));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr pattern, ParseComparison());
      std::vector<ExprPtr> args = {std::move(value), std::move(pattern)};
      const bool is_like = op.IsKeyword("LIKE") || op.IsKeyword("ILIKE");
      if (is_like && Peek().IsKeyword("ESCAPE")) {
        const Token& escape = Next();
        TRIBUTARY_ASSIGN_OR_RAISE(std::string escape_char, StringLiteral("an escape string"));
        if (escape_char.size() != 1) {
          return ErrorAt(escape, "the ESCAPE string must be one character");
        }
        args.push_back(Track(expr::Lit(Scalar::String(escape_char)), escape.position));
      }
      const std::string name = op.IsKeyword("LIKE")    ? "like"
                               : op.IsKeyword("ILIKE") ? "ilike"
                                                       : "rlike";
      result = expr::Function(name, std::move(args));
    } else if (op.IsKeyword("IS") && !negated) {
      Next();
      const bool is_not = AcceptKeyword("NOT");
      if (AcceptKeyword("NULL")) {
        result = is_not ? expr::IsNotNull(std::move(value)) : expr::IsNull(std::move(value));
      } else if (Peek().IsKeyword("TRUE") || Peek().IsKeyword("FALSE")) {
        const Token& truth = Next();
        ExprPtr literal =
            Track(expr::Lit(Scalar::Boolean(truth.IsKeyword("TRUE"))), truth.position);
        result = expr::Call(Op::kNullSafeEqual, {std::move(value), std::move(literal)});
        if (is_not) {
          result = expr::Not(Track(std::move(result), op.position));
        }
      } else if (AcceptKeyword("DISTINCT")) {
        TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr other, ParseComparison());
        result = expr::Call(Op::kNullSafeEqual, {std::move(value), std::move(other)});
        if (!is_not) {
          result = expr::Not(Track(std::move(result), op.position));
        }
      } else {
        return Unexpected("NULL, TRUE, FALSE or DISTINCT FROM",
                          {"NULL", "TRUE", "FALSE", "DISTINCT"});
      }
    } else {
      return value;
    }
    result = Track(std::move(result), op.position);
    if (negated) {
      result = Track(expr::Not(std::move(result)), token.position);
    }
    return result;
  }

  // Left-associative binary levels, tightest last.
  Result<ExprPtr> ParseComparison() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseBitOr());
    while (true) {
      const Token& token = Peek();
      Op op = Op::kEqual;
      if (token.IsOperator("=") || token.IsOperator("==")) {
        op = Op::kEqual;
      } else if (token.IsOperator("<>") || token.IsOperator("!=")) {
        op = Op::kNotEqual;
      } else if (token.IsOperator("<")) {
        op = Op::kLess;
      } else if (token.IsOperator("<=")) {
        op = Op::kLessEqual;
      } else if (token.IsOperator(">")) {
        op = Op::kGreater;
      } else if (token.IsOperator(">=")) {
        op = Op::kGreaterEqual;
      } else if (token.IsOperator("<=>")) {
        op = Op::kNullSafeEqual;
      } else {
        return left;
      }
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseBitOr());
      TRIBUTARY_ASSIGN_OR_RAISE(
          left,
          CheckHeight(Track(expr::Call(op, {std::move(left), std::move(right)}), token.position),
                      token.position));
    }
  }

  // One level of operators that are function calls: `symbol` -> Function(`name`).
  Result<ExprPtr> ParseFunctionOperator(std::string_view symbol, std::string_view name,
                                        Result<ExprPtr> (Parser::*next_level)()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, (this->*next_level)());
    while (Peek().IsOperator(symbol)) {
      const SourcePosition position = Next().position;
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, (this->*next_level)());
      TRIBUTARY_ASSIGN_OR_RAISE(
          left,
          CheckHeight(Track(expr::Function(std::string(name), {std::move(left), std::move(right)}),
                            position),
                      position));
    }
    return left;
  }
  Result<ExprPtr> ParseBitOr() { return ParseFunctionOperator("|", "|", &Parser::ParseBitXor); }
  Result<ExprPtr> ParseBitXor() { return ParseFunctionOperator("^", "^", &Parser::ParseBitAnd); }
  Result<ExprPtr> ParseBitAnd() { return ParseFunctionOperator("&", "&", &Parser::ParseAdditive); }

  Result<ExprPtr> ParseAdditive() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseMultiplicative());
    while (true) {
      const Token& token = Peek();
      if (!token.IsOperator("+") && !token.IsOperator("-") && !token.IsOperator("||")) {
        return left;
      }
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseMultiplicative());
      left = token.IsOperator("||") ? expr::Function("concat", {std::move(left), std::move(right)})
                                    : expr::Call(token.IsOperator("+") ? Op::kAdd : Op::kSubtract,
                                                 {std::move(left), std::move(right)});
      TRIBUTARY_ASSIGN_OR_RAISE(
          left, CheckHeight(Track(std::move(left), token.position), token.position));
    }
  }

  Result<ExprPtr> ParseMultiplicative() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr left, ParseUnary());
    while (true) {
      const Token& token = Peek();
      if (!token.IsOperator("*") && !token.IsOperator("/") && !token.IsOperator("%") &&
          !token.IsKeyword("DIV")) {
        return left;
      }
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr right, ParseUnary());
      if (token.IsKeyword("DIV")) {
        left = expr::Function("div", {std::move(left), std::move(right)});
      } else {
        const Op op = token.IsOperator("*")   ? Op::kMultiply
                      : token.IsOperator("/") ? Op::kDivide
                                              : Op::kRemainder;
        left = expr::Call(op, {std::move(left), std::move(right)});
      }
      TRIBUTARY_ASSIGN_OR_RAISE(
          left, CheckHeight(Track(std::move(left), token.position), token.position));
    }
  }

  Result<ExprPtr> ParseUnary() {
    const Token& token = Peek();
    const bool negative_number = token.IsOperator("-") && Peek(1).kind == TokenKind::kNumber;
    if (!negative_number &&
        (token.IsOperator("-") || token.IsOperator("+") || token.IsOperator("~"))) {
      DepthGuard guard(&depth_);
      TRIBUTARY_RETURN_NOT_OK(CheckDepth());
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr operand, ParseUnary());
      if (token.IsOperator("+")) {
        return operand;
      }
      return Track(token.IsOperator("-") ? expr::Call(Op::kNegate, {std::move(operand)})
                                         : expr::Function("~", {std::move(operand)}),
                   token.position);
    }
    return ParsePostfix();
  }

  Result<ExprPtr> ParsePostfix() {
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParsePrimary());
    while (true) {
      const Token& token = Peek();
      if (token.IsOperator("[")) {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr key, ParseExpr());
        TRIBUTARY_RETURN_NOT_OK(ExpectOperator("]"));
        value = Track(expr::Subscript(std::move(value), std::move(key)), token.position);
      } else if (token.IsOperator(".") &&
                 (Peek(1).kind == TokenKind::kWord || Peek(1).kind == TokenKind::kQuotedWord)) {
        Next();
        value = Track(expr::GetField(std::move(value), Next().text), token.position);
      } else if (token.IsOperator("::")) {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(columnar::DataTypePtr type, ParseType());
        value = Track(expr::Cast(std::move(value), std::move(type)), token.position);
      } else {
        return value;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(value, CheckHeight(std::move(value), token.position));
    }
  }

  // The value of a literal function's Result, or a syntax error at `at` with its message.
  template <typename T>
  Result<T> LiteralOrError(Result<T> result, const Token& at) {
    if (!result.ok()) {
      return ErrorAt(at, result.status().Message());
    }
    return result;
  }

  // INTERVAL (value unit)+ | INTERVAL value unit TO unit | INTERVAL 'n unit ...'; a value is
  // a number, -number or a string. The text goes to expr's interval literal parser.
  Result<ExprPtr> IntervalLiteral(const Token& keyword) {
    std::vector<std::pair<std::string, std::string>> parts;
    while (true) {
      const bool minus = Peek().IsOperator("-");
      const Token& value = Peek(minus ? 1 : 0);
      const Token& unit = Peek(minus ? 2 : 1);
      if ((value.kind != TokenKind::kNumber && value.kind != TokenKind::kString) ||
          (minus && value.kind != TokenKind::kNumber) || !IsIntervalUnit(unit)) {
        break;
      }
      pos_ += minus ? 3 : 2;
      parts.emplace_back((minus ? "-" : "") + value.text, AsciiUpper(unit.text));
    }
    std::string value;
    std::string unit;
    if (parts.empty()) {
      if (Peek().kind != TokenKind::kString) {
        return Unexpected("an interval value and unit (INTERVAL '10' MINUTE)", kIntervalUnits);
      }
      value = Next().text;
    } else if (parts.size() == 1) {
      value = parts[0].first;
      unit = parts[0].second;
      if (AcceptKeyword("TO")) {
        if (!IsIntervalUnit(Peek())) {
          return Unexpected("an interval unit", kIntervalUnits);
        }
        unit += " TO " + AsciiUpper(Next().text);
      }
    } else {
      for (const auto& [part_value, part_unit] : parts) {
        value += fmt::format("{}{} {}", value.empty() ? "" : " ", part_value, part_unit);
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(Scalar interval,
                              LiteralOrError(expr::ParseIntervalLiteral(value, unit), keyword));
    return expr::Lit(std::move(interval));
  }

  Result<ExprPtr> ParsePrimary() {
    const Token& token = Peek();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParsePrimaryUntracked());
    if (sources_->positions.count(result.get()) == 0) {
      sources_->positions.emplace(result.get(), token.position);
    }
    return result;
  }

  Result<ExprPtr> ParsePrimaryUntracked() {
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kNumber:
        Next();
        return LiteralOrError(NumberLiteral(token), token);
      case TokenKind::kString: {
        TRIBUTARY_ASSIGN_OR_RAISE(std::string value, StringLiteral("a string"));
        return expr::Lit(Scalar::String(std::move(value)));
      }
      case TokenKind::kBinary: {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(Scalar value,
                                  LiteralOrError(expr::BinaryLiteral(token.text), token));
        return expr::Lit(std::move(value));
      }
      case TokenKind::kQuotedWord:
        Next();
        return expr::Col(QuoteIdentifier(token.text));
      case TokenKind::kOperator:
        if (token.IsOperator("(")) {
          return Parenthesized();
        }
        if (token.IsOperator("-") && Peek(1).kind == TokenKind::kNumber) {
          // -9223372036854775808 is one literal (a bigint), as Spark's grammar reads a
          // minus sign directly before a number.
          Next();
          const Token& number = Next();
          return LiteralOrError(NumberLiteral(number, /*negative=*/true), token);
        }
        return Unexpected("an expression");
      case TokenKind::kEnd:
        return Unexpected("an expression");
      case TokenKind::kWord:
        break;
    }
    const Token& after = Peek(1);
    if (token.IsKeyword("NULL")) {
      Next();
      return expr::Lit(Scalar::Null());
    }
    if (token.IsKeyword("TRUE") || token.IsKeyword("FALSE")) {
      Next();
      return expr::Lit(Scalar::Boolean(token.IsKeyword("TRUE")));
    }
    if (token.IsKeyword("CASE")) {
      return CaseExpression();
    }
    if ((token.IsKeyword("CAST") || token.IsKeyword("TRY_CAST")) && after.IsOperator("(")) {
      Next();
      Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseExpr());
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::DataTypePtr type, ParseType());
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      return token.IsKeyword("CAST") ? expr::Cast(std::move(value), std::move(type))
                                     : expr::TryCast(std::move(value), std::move(type));
    }
    if (after.kind == TokenKind::kString) {
      if (token.IsKeyword("DATE")) {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a date"));
        TRIBUTARY_ASSIGN_OR_RAISE(Scalar value, LiteralOrError(expr::DateLiteral(text), token));
        return expr::Lit(std::move(value));
      }
      if (token.IsKeyword("TIMESTAMP") || token.IsKeyword("TIMESTAMP_LTZ")) {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a timestamp"));
        return LiteralOrError(expr::TimestampLiteral(text), token);
      }
      if (token.IsKeyword("TIMESTAMP_NTZ")) {
        Next();
        TRIBUTARY_ASSIGN_OR_RAISE(std::string text, StringLiteral("a timestamp"));
        TRIBUTARY_ASSIGN_OR_RAISE(Scalar value,
                                  LiteralOrError(expr::TimestampNtzLiteral(text), token));
        return expr::Lit(std::move(value));
      }
    }
    if (token.IsKeyword("INTERVAL") &&
        (after.kind == TokenKind::kString || after.kind == TokenKind::kNumber ||
         after.IsOperator("-"))) {
      Next();
      return IntervalLiteral(token);
    }
    if ((token.IsKeyword("CURRENT_DATE") || token.IsKeyword("CURRENT_TIMESTAMP")) &&
        !after.IsOperator("(")) {
      Next();
      return expr::Function(AsciiLower(token.text), {});
    }
    if (token.IsKeyword("EXTRACT") && after.IsOperator("(")) {
      Next();
      Next();
      const Token& field = Peek();
      TRIBUTARY_ASSIGN_OR_RAISE(std::string field_name, Identifier("a field (YEAR, MONTH, ...)"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr source, ParseExpr());
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
      ExprPtr field_literal =
          Track(expr::Lit(Scalar::String(AsciiUpper(field_name))), field.position);
      return expr::Function("date_part", {std::move(field_literal), std::move(source)});
    }
    if (after.IsOperator("(") &&
        (!IsReservedWord(token.text) || token.IsKeyword("LEFT") || token.IsKeyword("RIGHT"))) {
      return FunctionCall();
    }
    if (IsReservedWord(token.text)) {
      return Unexpected("an expression");
    }
    Next();
    return expr::Col(QuoteIdentifier(token.text));
  }

  Result<ExprPtr> Parenthesized() {
    const Token& open = Peek();
    if (IsQueryStart(1) && !Failed(failed_scalar_subquery_, pos_)) {
      const size_t save = pos_;
      auto subquery = SubqueryCall(kScalarSubqueryFunction, {}, open);
      if (subquery.ok() || !tokens_[save + 1].IsOperator("(")) {
        return subquery;
      }
      // ((SELECT 1) + 1): an expression that starts with a subquery; remembered as above.
      MarkFailed(&failed_scalar_subquery_, save);
      pos_ = save;
    }
    Next();
    TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr first, ParseExpr());
    if (AcceptOperator(")")) {
      return first;
    }
    std::vector<ExprPtr> fields = {std::move(first)};
    while (AcceptOperator(",")) {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr field, ParseExpr());
      fields.push_back(std::move(field));
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    return expr::Function("struct", std::move(fields));
  }

  Result<ExprPtr> CaseExpression() {
    Next();
    ExprPtr operand;
    if (!Peek().IsKeyword("WHEN")) {
      TRIBUTARY_ASSIGN_OR_RAISE(operand, ParseExpr());
    }
    std::vector<std::pair<ExprPtr, ExprPtr>> branches;
    while (Peek().IsKeyword("WHEN")) {
      const Token& when = Next();
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr condition, ParseExpr());
      if (operand != nullptr) {
        condition = Track(expr::Call(Op::kEqual, {operand, std::move(condition)}), when.position);
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("THEN"));
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr then, ParseExpr());
      branches.emplace_back(std::move(condition), std::move(then));
    }
    if (branches.empty()) {
      return Unexpected("WHEN", {"WHEN"});
    }
    ExprPtr else_value;
    if (AcceptKeyword("ELSE")) {
      TRIBUTARY_ASSIGN_OR_RAISE(else_value, ParseExpr());
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("END"));
    return expr::CaseWhen(std::move(branches), std::move(else_value));
  }

  Result<ExprPtr> FunctionCall() {
    const Token& name = Next();
    Next();
    bool distinct = false;
    std::vector<ExprPtr> args;
    if (Peek().IsOperator("*") && Peek(1).IsOperator(")")) {
      if (!name.IsKeyword("count")) {
        return ErrorAt(Peek(), fmt::format("'*' is only an argument of count, not of {}",
                                           AsciiLower(name.text)));
      }
      Next();
    } else if (!Peek().IsOperator(")")) {
      if (AcceptKeyword("DISTINCT")) {
        distinct = true;
      } else {
        AcceptKeyword("ALL");
      }
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr arg, ParseExpr());
        args.push_back(std::move(arg));
      } while (AcceptOperator(","));
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    if (Peek().IsKeyword("OVER") || Peek().IsKeyword("FILTER")) {
      return ErrorAt(Peek(), fmt::format("{} after a function call is not supported",
                                         AsciiUpper(Peek().text)));
    }
    if (name.IsKeyword("from_json") && args.size() == 2 && args[1]->GetOp() == expr::Op::kLiteral &&
        !args[1]->Literal().IsNull() &&
        args[1]->Literal().Type()->Id() == columnar::TypeId::kString) {
      // from_json(json, 'a INT, b STRING' | 'struct<...>'): the schema text becomes the type.
      auto type = FromJsonSchema(args[1]->Literal().BytesValue());
      if (!type.ok()) {
        return ErrorAt(name, fmt::format("from_json schema: {}", type.status().Message()));
      }
      return expr::FromJson(std::move(args[0]), *type);
    }
    return expr::Function(name.text, std::move(args), distinct);
  }

  // A type name ("struct<a:int>", "array<string>") or a DDL column list ("a INT, b STRING").
  static Result<columnar::DataTypePtr> FromJsonSchema(const std::string& text) {
    auto type = columnar::ParseSqlType(text);
    if (type.ok()) {
      return type;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<text::SchemaHint> hints, text::ParseSchemaHints(text));
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr schema,
                              text::ApplySchemaHints(columnar::Schema({}), hints));
    return schema->AsStruct();
  }

  std::shared_ptr<const std::string> source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  // Token positions where parsing a parenthesized subquery already failed (memoized so that
  // backtracking stays linear in the input).
  std::vector<bool> failed_relation_subquery_;
  std::vector<bool> failed_scalar_subquery_;

  static bool Failed(const std::vector<bool>& failed, size_t at) {
    return at < failed.size() && failed[at];
  }
  static void MarkFailed(std::vector<bool>* failed, size_t at) {
    if (failed->size() <= at) {
      failed->resize(at + 1, false);
    }
    (*failed)[at] = true;
  }
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

}  // namespace

Result<std::vector<Statement>> ParseScript(std::string_view text) {
  auto source = std::make_shared<const std::string>(text);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(*source));
  return Parser(std::move(source), std::move(tokens)).Script();
}

Result<Statement> ParseStatement(std::string_view text) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Statement> statements, ParseScript(text));
  if (statements.size() != 1) {
    return Status::InvalidArgument(
        fmt::format("expected one SQL statement, found {}", statements.size()));
  }
  return std::move(statements.front());
}

Result<expr::ExprPtr> ParseExpression(std::string_view text) {
  auto source = std::make_shared<const std::string>(text);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(*source));
  return Parser(std::move(source), std::move(tokens)).StandaloneExpression();
}

}  // namespace tributary::sql
