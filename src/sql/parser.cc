// The SQL parser's entry points (parser.h), its token, name and error helpers, and the
// statements: CREATE [STREAMING] TABLE, INSERT, DESCRIBE, SHOW, EXPLAIN, SET, RESET, USE,
// OPTIMIZE, VACUUM, DROP TABLE. Queries and relations are in parser_queries.cc, expressions and
// types in parser_expressions.cc, DELETE, UPDATE, MERGE and AUTO CDC in parser_dml.cc; the class is
// in parser_internal.h.

#include "sql/parser.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/closest_match.h"
#include "sql/keywords.h"
#include "sql/parser_internal.h"

namespace tributary::sql {
namespace internal {

bool OneOf(std::string_view word, std::initializer_list<std::string_view> options) {
  return std::any_of(options.begin(), options.end(),
                     [&](std::string_view option) { return EqualsIgnoreAsciiCase(word, option); });
}

Result<std::vector<Statement>> Parser::Script() {
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

Result<ExprPtr> Parser::StandaloneExpression() {
  sources_ = std::make_shared<ExpressionSources>();
  allow_subqueries_ = false;
  TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr result, ParseExpr());
  if (!AtEnd()) {
    return Unexpected("the end of the expression");
  }
  return result;
}

// ---- tokens, names and errors ----

bool Parser::AcceptKeyword(std::string_view keyword) {
  if (Peek().IsKeyword(keyword)) {
    Next();
    return true;
  }
  return false;
}

bool Parser::AcceptOperator(std::string_view op) {
  if (Peek().IsOperator(op)) {
    Next();
    return true;
  }
  return false;
}

Status Parser::ExpectKeyword(std::string_view keyword) {
  if (AcceptKeyword(keyword)) {
    return Status::OK();
  }
  return Unexpected(keyword, {keyword});
}

Status Parser::ExpectOperator(std::string_view op) {
  if (AcceptOperator(op)) {
    return Status::OK();
  }
  return Unexpected(fmt::format("'{}'", op));
}

Status Parser::ErrorAt(const Token& token, std::string_view what) const {
  return SyntaxError(*source_, token.position, what);
}

// "expected <expected>, found <token>", with a "did you mean" when the token (or the word
// just read as an implicit alias, as in SELECT a FORM t) is a near miss of a keyword.
Status Parser::Unexpected(std::string_view expected,
                          const std::vector<std::string_view>& keywords) const {
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
bool Parser::AtIdentifier(bool after_as) const {
  const Token& token = Peek();
  return token.kind == TokenKind::kQuotedWord ||
         (token.kind == TokenKind::kWord && (after_as || !IsReservedWord(token.text)));
}

Result<std::string> Parser::Identifier(std::string_view what, bool after_as) {
  if (!AtIdentifier(after_as)) {
    return Unexpected(what);
  }
  return Next().text;
}

// [AS] alias; empty when there is none.
Result<std::string> Parser::OptionalAlias() {
  if (AcceptKeyword("AS")) {
    return Identifier("an alias", true);
  }
  // QUALIFY is not reserved (a column may be named so), but starts a clause after a table;
  // so does OFFSET when an expression follows it (`FROM t OFFSET 2`).
  const Token& after = Peek(1);
  const bool offset_clause =
      Peek().IsKeyword("OFFSET") &&
      (after.kind == TokenKind::kNumber || after.kind == TokenKind::kString ||
       after.IsOperator("(") || after.IsOperator("-") || after.IsOperator("+") ||
       (after.kind == TokenKind::kWord && (!IsReservedWord(after.text) || after.IsKeyword("CASE") ||
                                           after.IsKeyword("CAST") || after.IsKeyword("NULL"))));
  if (AtIdentifier() && !Peek().IsKeyword("QUALIFY") && !offset_clause) {
    last_implicit_alias_ = pos_;
    return Next().text;
  }
  return std::string();
}

Result<std::vector<std::string>> Parser::ParenthesizedNames(bool after_as) {
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
  std::vector<std::string> names;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string name, Identifier("a column name", after_as));
    names.push_back(std::move(name));
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  return names;
}

ExprPtr Parser::Track(ExprPtr node, const SourcePosition& position) {
  sources_->positions.emplace(node.get(), position);
  return node;
}

// ---- statements ----

Result<Statement> Parser::ParseOneStatement() {
  sources_ = std::make_shared<ExpressionSources>();
  allow_subqueries_ = true;
  Statement statement;
  statement.position = Peek().position;
  statement.source = source_;
  const Token& first = Peek();
  if (IsQueryStart(0)) {
    TRIBUTARY_ASSIGN_OR_RAISE(QueryPtr query, ParseQuery());
    statement.body = std::move(query);
  } else if ((first.IsKeyword("CREATE") || first.IsKeyword("DROP")) && IsSchemaWord(1)) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseSchemaCommand());
  } else if (first.IsKeyword("SHOW") &&
             (Peek(1).IsKeyword("SCHEMAS") || Peek(1).IsKeyword("DATABASES") ||
              Peek(1).IsKeyword("NAMESPACES"))) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseSchemaCommand());
  } else if (first.IsKeyword("CREATE") && Peek(1).IsKeyword("FLOW")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseAutoCdc());
  } else if (first.IsKeyword("CREATE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseCreate());
  } else if (first.IsKeyword("INSERT")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseInsert());
  } else if (first.IsKeyword("TRUNCATE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseTruncate());
  } else if (first.IsKeyword("DESCRIBE") || first.IsKeyword("DESC")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseDescribe());
  } else if (first.IsKeyword("SHOW") && !Peek(1).IsKeyword("TABLES")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseShowTableInfo());
  } else if (first.IsKeyword("SHOW")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseShowTables());
  } else if (first.IsKeyword("EXPLAIN")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseExplain());
  } else if (first.IsKeyword("SET")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseSet());
  } else if (first.IsKeyword("RESET")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseReset());
  } else if (first.IsKeyword("USE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseUse());
  } else if (first.IsKeyword("OPTIMIZE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseOptimize());
  } else if (first.IsKeyword("VACUUM")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseVacuum());
  } else if (first.IsKeyword("DROP")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseDropTable());
  } else if (first.IsKeyword("DELETE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseDelete());
  } else if (first.IsKeyword("UPDATE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseUpdate());
  } else if (first.IsKeyword("MERGE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseMerge());
  } else if (first.IsKeyword("AUTO") || first.IsKeyword("APPLY")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.body, ParseAutoCdc());
  } else {
    return Unexpected(
        "a statement (SELECT, WITH, VALUES, CREATE, INSERT, DELETE, UPDATE, MERGE, DESCRIBE, "
        "SHOW, OPTIMIZE, VACUUM, DROP or AUTO CDC)",
        kStatementKeywords);
  }
  statement.sources = sources_;
  return statement;
}

// table = name {"." name} | format "." `path` | 'path' (when `allow_string_path`).
Result<TableName> Parser::ParseTableName(bool allow_string_path) {
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

Result<std::string> Parser::StringLiteral(std::string_view what) {
  if (Peek().kind != TokenKind::kString) {
    return Unexpected(what);
  }
  std::string value = Next().text;
  while (Peek().kind == TokenKind::kString) {
    value += Next().text;
  }
  return value;
}

Result<StatementBody> Parser::ParseCreate() {
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
  const bool temporary =
      AcceptKeyword("GLOBAL") || Peek().IsKeyword("TEMPORARY") || Peek().IsKeyword("TEMP");
  if (temporary) {
    if (!AcceptKeyword("TEMPORARY") && !AcceptKeyword("TEMP")) {
      return Unexpected("TEMPORARY", {"TEMPORARY"});
    }
  }
  if ((temporary || Peek().IsKeyword("VIEW")) && !create.or_refresh) {
    return ParseCreateView(create.or_replace);
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
    } else if (!create.streaming && AcceptKeyword("OPTIONS")) {
      TRIBUTARY_ASSIGN_OR_RAISE(create.options, ParseProperties());
    } else {
      break;
    }
  }
  // A streaming table without AS query is the target of a flow (AUTO CDC INTO).
  if (AcceptKeyword("AS") || IsQueryStart(0)) {
    TRIBUTARY_ASSIGN_OR_RAISE(create.query, ParseQuery());
  }
  if (!AtEnd() && !Peek().IsOperator(";")) {
    return Unexpected(
        "a CREATE TABLE clause or the end of the statement",
        {"USING", "OPTIONS", "PARTITIONED", "LOCATION", "COMMENT", "TBLPROPERTIES", "AS"});
  }
  return create;
}

// "(" property {"," property} ")", property = key ["="] value.
Result<std::vector<std::pair<std::string, std::string>>> Parser::ParseProperties() {
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
      properties.emplace_back(std::move(key),
                              value.kind == TokenKind::kWord ? AsciiLower(value.text) : value.text);
      Next();
    } else {
      return Unexpected("a property value (string, number, TRUE or FALSE)");
    }
  } while (AcceptOperator(","));
  TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  return properties;
}

Result<StatementBody> Parser::ParseInsert() {
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

// TRUNCATE TABLE name: every row removed, as Spark's TRUNCATE TABLE. It is INSERT OVERWRITE of
// no rows (a Delta commit removing every file; a file table's files deleted).
Result<StatementBody> Parser::ParseTruncate() {
  Next();
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLE"));
  Insert insert;
  insert.overwrite = true;
  insert.truncate = true;
  TRIBUTARY_ASSIGN_OR_RAISE(insert.table, ParseTableName(false));
  auto from = std::make_shared<Relation>();
  from->kind = RelationKind::kTable;
  from->position = insert.table.position;
  from->table = insert.table;
  auto query = std::make_shared<Query>();
  query->position = insert.table.position;
  query->select.emplace_back();
  query->from = std::move(from);
  query->where = expr::Lit(expr::Scalar::Boolean(false));
  insert.query = std::move(query);
  return insert;
}

// Whether the word after DESCRIBE is a kind (HISTORY t) rather than the table (DESCRIBE
// history).
bool Parser::KindWordFollowedByTable() const {
  const Token& after = Peek(1);
  return after.kind == TokenKind::kWord || after.kind == TokenKind::kQuotedWord ||
         after.kind == TokenKind::kString;
}

Result<StatementBody> Parser::ParseDescribe() {
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
  if (describe.kind == DescribeKind::kTable &&
      (Peek().IsKeyword("EXTENDED") || Peek().IsKeyword("FORMATTED")) &&
      KindWordFollowedByTable()) {
    Next();
    describe.extended = true;
  }
  // DESCRIBE [QUERY] query: the columns of the query's result.
  if (describe.kind == DescribeKind::kTable && !describe.extended &&
      (IsQueryStart(0) || (Peek().IsKeyword("QUERY") && IsQueryStart(1)))) {
    AcceptKeyword("QUERY");
    TRIBUTARY_ASSIGN_OR_RAISE(describe.query, ParseQuery());
    return describe;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(describe.table, ParseTableName(describe.kind != DescribeKind::kTable));
  if (describe.kind == DescribeKind::kHistory && AcceptKeyword("LIMIT")) {
    TRIBUTARY_ASSIGN_OR_RAISE(describe.limit, NonNegativeInteger("the history limit"));
  }
  return describe;
}

Result<int64_t> Parser::NonNegativeInteger(std::string_view what) {
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

Result<StatementBody> Parser::ParseShowTables() {
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

// SHOW COLUMNS | TBLPROPERTIES | CREATE TABLE | VIEWS (SHOW TABLES is ParseShowTables).
Result<StatementBody> Parser::ParseShowTableInfo() {
  Next();
  ShowTableInfo show;
  if (AcceptKeyword("COLUMNS")) {
    if (!AcceptKeyword("IN") && !AcceptKeyword("FROM")) {
      return Unexpected("IN or FROM", {"IN", "FROM"});
    }
    TRIBUTARY_ASSIGN_OR_RAISE(show.table, ParseTableName(false));
    if (AcceptKeyword("IN") || AcceptKeyword("FROM")) {
      TRIBUTARY_ASSIGN_OR_RAISE(show.database, Identifier("a database name"));
    }
  } else if (AcceptKeyword("TBLPROPERTIES")) {
    show.kind = ShowKind::kTblProperties;
    TRIBUTARY_ASSIGN_OR_RAISE(show.table, ParseTableName(false));
    if (AcceptOperator("(")) {
      if (Peek().kind == TokenKind::kString) {
        show.key = Next().text;
      } else {
        do {
          TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a property key", true));
          show.key += show.key.empty() ? part : "." + part;
        } while (AcceptOperator("."));
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    }
  } else if (AcceptKeyword("CREATE")) {
    show.kind = ShowKind::kCreateTable;
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    TRIBUTARY_ASSIGN_OR_RAISE(show.table, ParseTableName(false));
    if (AcceptKeyword("AS")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("SERDE"));
    }
  } else if (AcceptKeyword("VIEWS")) {
    show.kind = ShowKind::kViews;
    if (AcceptKeyword("IN") || AcceptKeyword("FROM")) {
      TRIBUTARY_ASSIGN_OR_RAISE(show.database, Identifier("a database name"));
    }
    AcceptKeyword("LIKE");
    if (Peek().kind == TokenKind::kString) {
      show.pattern = Next().text;
    }
  } else {
    return Unexpected("TABLES, VIEWS, COLUMNS, TBLPROPERTIES or CREATE TABLE",
                      {"TABLES", "VIEWS", "COLUMNS", "TBLPROPERTIES", "CREATE"});
  }
  return show;
}

Result<StatementBody> Parser::ParseExplain() {
  Next();
  Explain explain;
  if (AcceptKeyword("EXTENDED")) {
    explain.mode = ExplainMode::kExtended;
  } else if (AcceptKeyword("FORMATTED")) {
    explain.mode = ExplainMode::kFormatted;
  } else if (AcceptKeyword("COST")) {
    explain.mode = ExplainMode::kCost;
  } else if (Peek().IsKeyword("CODEGEN") || Peek().IsKeyword("LOGICAL")) {
    return ErrorAt(Peek(), fmt::format("EXPLAIN {} is not supported", Peek().text));
  }
  if (!IsQueryStart(0)) {
    return Unexpected("a query after EXPLAIN", {"SELECT", "VALUES", "WITH"});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(explain.query, ParseQuery());
  return explain;
}

// The source text of tokens [from, to), trimmed; empty when the range is. One back-quoted
// word stands for its text (Spark's SET `key` = `value`).
std::string Parser::RestOfStatement(size_t from, size_t to) const {
  if (from >= to) {
    return std::string();
  }
  if (to == from + 1 && tokens_[from].kind == TokenKind::kQuotedWord) {
    return tokens_[from].text;
  }
  const Token& first = tokens_[from];
  const Token& last = tokens_[to - 1];
  return std::string(std::string_view(*source_).substr(
      first.position.offset, last.position.offset + last.length - first.position.offset));
}

// Spark reads SET's key and value as raw text (SparkSqlParser's `SET .*?`), so a key may hold
// any characters but '=' and a value runs to the end of the statement.
Result<StatementBody> Parser::ParseSet() {
  Next();
  SetConfig set;
  if (Peek().IsKeyword("TIME") && Peek(1).IsKeyword("ZONE")) {
    Next();
    Next();
    set.key = "spark.sql.session.timeZone";
    if (AcceptKeyword("LOCAL")) {
      const char* env = std::getenv("TZ");
      set.value = env != nullptr && *env != '\0' ? env : "UTC";
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(set.value, StringLiteral("a time zone string or LOCAL"));
    }
    return set;
  }
  const size_t start = pos_;
  size_t end = pos_;
  while (!AtEnd() && !Peek().IsOperator(";") && !Peek().IsOperator("=")) {
    Next();
    ++end;
  }
  if (start == end && !Peek().IsOperator("=")) {
    return set;
  }
  set.key = RestOfStatement(start, end);
  if (set.key->empty()) {
    return ErrorAt(Peek(), "SET needs a key before '='");
  }
  if (AcceptOperator("=")) {
    const size_t value_start = pos_;
    while (!AtEnd() && !Peek().IsOperator(";")) {
      Next();
    }
    set.value = RestOfStatement(value_start, pos_);
  }
  return set;
}

Result<StatementBody> Parser::ParseReset() {
  Next();
  ResetConfig reset;
  const size_t start = pos_;
  while (!AtEnd() && !Peek().IsOperator(";")) {
    Next();
  }
  if (pos_ > start) {
    reset.key = RestOfStatement(start, pos_);
  }
  return reset;
}

Result<StatementBody> Parser::ParseUse() {
  Next();
  if (!AcceptKeyword("DATABASE") && !AcceptKeyword("SCHEMA")) {
    AcceptKeyword("NAMESPACE");
  }
  Use use;
  use.position = Peek().position;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a database name"));
    use.parts.push_back(std::move(part));
  } while (AcceptOperator("."));
  return use;
}

Result<StatementBody> Parser::ParseOptimize() {
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

Result<StatementBody> Parser::ParseVacuum() {
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

Result<StatementBody> Parser::ParseCreateView(bool or_replace) {
  CreateView view;
  view.or_replace = or_replace;
  view.position = Peek().position;
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("VIEW"));
  if (AcceptKeyword("IF")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NOT"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    view.if_not_exists = true;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(view.name, Identifier("a view name"));
  if (AcceptOperator("(")) {
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string column, Identifier("a column name"));
      if (AcceptKeyword("COMMENT")) {
        TRIBUTARY_RETURN_NOT_OK(StringLiteral("a comment string").status());
      }
      view.columns.push_back(std::move(column));
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
  TRIBUTARY_ASSIGN_OR_RAISE(view.query, ParseQuery());
  return view;
}

Result<StatementBody> Parser::ParseDropTable() {
  Next();
  if (AcceptKeyword("VIEW")) {
    DropView drop;
    drop.position = Peek().position;
    if (AcceptKeyword("IF")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      drop.if_exists = true;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(drop.name, Identifier("a view name"));
    return drop;
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TABLE"));
  DropTable drop;
  if (AcceptKeyword("IF")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    drop.if_exists = true;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(drop.table, ParseTableName(false));
  return drop;
}

bool Parser::IsSchemaWord(size_t ahead) const {
  const Token& word = Peek(ahead);
  return word.IsKeyword("SCHEMA") || word.IsKeyword("DATABASE") || word.IsKeyword("NAMESPACE");
}

// CREATE schema-word [IF NOT EXISTS] name {COMMENT 'text' | LOCATION 'path' |
// WITH (DBPROPERTIES | PROPERTIES) properties}; DROP schema-word [IF EXISTS] name
// [RESTRICT | CASCADE]; SHOW (SCHEMAS | DATABASES | NAMESPACES) [[LIKE] 'pattern'].
Result<StatementBody> Parser::ParseSchemaCommand() {
  SchemaCommand command;
  command.position = Peek().position;
  const Token& verb = Next();
  if (verb.IsKeyword("SHOW")) {
    Next();
    command.kind = SchemaCommandKind::kShow;
    AcceptKeyword("LIKE");
    if (Peek().kind == TokenKind::kString) {
      command.pattern = Next().text;
    }
    return command;
  }
  command.kind = verb.IsKeyword("CREATE") ? SchemaCommandKind::kCreate : SchemaCommandKind::kDrop;
  Next();
  if (AcceptKeyword("IF")) {
    if (command.kind == SchemaCommandKind::kCreate) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NOT"));
      command.if_not_exists = true;
    } else {
      command.if_exists = true;
    }
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
  }
  command.position = Peek().position;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a schema name"));
    command.parts.push_back(std::move(part));
  } while (AcceptOperator("."));
  if (command.kind == SchemaCommandKind::kDrop) {
    if (AcceptKeyword("CASCADE")) {
      command.cascade = true;
    } else {
      AcceptKeyword("RESTRICT");
    }
    return command;
  }
  while (true) {
    if (AcceptKeyword("COMMENT")) {
      TRIBUTARY_RETURN_NOT_OK(StringLiteral("a comment string").status());
    } else if (AcceptKeyword("LOCATION")) {
      TRIBUTARY_ASSIGN_OR_RAISE(command.location, StringLiteral("a location string"));
    } else if (AcceptKeyword("WITH")) {
      if (!AcceptKeyword("DBPROPERTIES") && !AcceptKeyword("PROPERTIES")) {
        return Unexpected("DBPROPERTIES or PROPERTIES", {"DBPROPERTIES", "PROPERTIES"});
      }
      TRIBUTARY_RETURN_NOT_OK(ParseProperties().status());
    } else {
      return command;
    }
  }
}

// The source text from `first` through the last token read.
std::string_view Parser::TextFrom(const Token& first) const {
  const Token& last = tokens_[pos_ - 1];
  return std::string_view(*source_).substr(
      first.position.offset, last.position.offset + last.length - first.position.offset);
}

bool Parser::Failed(const std::vector<bool>& failed, size_t at) {
  return at < failed.size() && failed[at];
}

void Parser::MarkFailed(std::vector<bool>* failed, size_t at) {
  if (failed->size() <= at) {
    failed->resize(at + 1, false);
  }
  (*failed)[at] = true;
}

}  // namespace internal

Result<std::vector<Statement>> ParseScript(std::string_view text) {
  auto source = std::make_shared<const std::string>(text);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(*source));
  return internal::Parser(std::move(source), std::move(tokens)).Script();
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
  return internal::Parser(std::move(source), std::move(tokens)).StandaloneExpression();
}

}  // namespace tributary::sql
