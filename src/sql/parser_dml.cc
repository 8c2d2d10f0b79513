// The SQL parser's row-level statements: DELETE, UPDATE and MERGE INTO (Delta's grammar), and
// the CDC flow of pipelines, `[CREATE FLOW name AS] AUTO CDC INTO ...` (also spelled APPLY
// CHANGES INTO, Databricks' grammar). The class is in parser_internal.h; the grammar in
// parser.h.

#include <fmt/format.h>

#include "common/ascii.h"
#include "sql/parser_internal.h"

namespace tributary::sql::internal {

// DELETE FROM table [[AS] alias] [WHERE expr].
Result<StatementBody> Parser::ParseDelete() {
  Next();
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
  Delete statement;
  TRIBUTARY_ASSIGN_OR_RAISE(statement.table, ParseTableName(false));
  TRIBUTARY_ASSIGN_OR_RAISE(statement.alias, OptionalAlias());
  if (AcceptKeyword("WHERE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.where, ParseExpr());
  }
  return statement;
}

// UPDATE table [[AS] alias] SET assignment {"," assignment} [WHERE expr]. SET is not reserved:
// right after the table it starts the SET list rather than being an alias.
Result<StatementBody> Parser::ParseUpdate() {
  Next();
  Update statement;
  TRIBUTARY_ASSIGN_OR_RAISE(statement.table, ParseTableName(false));
  if (!Peek().IsKeyword("SET")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.alias, OptionalAlias());
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("SET"));
  TRIBUTARY_ASSIGN_OR_RAISE(statement.assignments, ParseAssignments());
  if (AcceptKeyword("WHERE")) {
    TRIBUTARY_ASSIGN_OR_RAISE(statement.where, ParseExpr());
  }
  return statement;
}

// A target column as written: name {"." name}, each part quoted where SQL needs it.
Result<std::string> Parser::ParseColumnPath() {
  std::string path;
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string part, Identifier("a column name", !path.empty()));
    path += path.empty() ? "" : ".";
    path += QuoteIdentifier(part);
  } while (AcceptOperator("."));
  return path;
}

// A value of SET or VALUES: an expression; DEFAULT (a column default) is refused, since Delta
// tables here have no column defaults.
Result<ExprPtr> Parser::ParseAssignedValue() {
  const Token& first = Peek();
  if (first.IsKeyword("DEFAULT") &&
      (Peek(1).kind == TokenKind::kEnd || Peek(1).IsOperator(",") || Peek(1).IsOperator(")") ||
       Peek(1).IsOperator(";") || Peek(1).IsKeyword("WHERE") || Peek(1).IsKeyword("WHEN"))) {
    return ErrorAt(first, "DEFAULT is not supported: the table's columns have no defaults");
  }
  return ParseExpr();
}

// column = value {"," column = value}.
Result<std::vector<Assignment>> Parser::ParseAssignments() {
  std::vector<Assignment> assignments;
  do {
    Assignment assignment;
    assignment.position = Peek().position;
    TRIBUTARY_ASSIGN_OR_RAISE(assignment.column, ParseColumnPath());
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("="));
    TRIBUTARY_ASSIGN_OR_RAISE(assignment.value, ParseAssignedValue());
    assignments.push_back(std::move(assignment));
  } while (AcceptOperator(","));
  return assignments;
}

// MERGE [WITH SCHEMA EVOLUTION] INTO table [[AS] alias] USING source ON expr clause {clause}.
Result<StatementBody> Parser::ParseMerge() {
  Next();
  Merge merge;
  if (AcceptKeyword("WITH")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("SCHEMA"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EVOLUTION"));
    merge.with_schema_evolution = true;
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("INTO"));
  TRIBUTARY_ASSIGN_OR_RAISE(merge.target, ParseTableName(false));
  TRIBUTARY_ASSIGN_OR_RAISE(merge.target_alias, OptionalAlias());
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("USING"));
  TRIBUTARY_ASSIGN_OR_RAISE(merge.source, ParsePrimaryRelation());
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("ON"));
  TRIBUTARY_ASSIGN_OR_RAISE(merge.on, ParseExpr());
  if (!Peek().IsKeyword("WHEN")) {
    return Unexpected("WHEN (a MERGE needs at least one WHEN clause)", {"WHEN"});
  }
  while (Peek().IsKeyword("WHEN")) {
    TRIBUTARY_ASSIGN_OR_RAISE(MergeClause clause, ParseMergeClause());
    merge.clauses.push_back(std::move(clause));
  }
  // As Spark's parser: of each kind, only the last clause may omit its condition (a clause
  // after an unconditional one of its kind could never act).
  for (size_t i = 0; i < merge.clauses.size(); ++i) {
    const MergeClause& clause = merge.clauses[i];
    if (clause.condition != nullptr) {
      continue;
    }
    for (size_t j = i + 1; j < merge.clauses.size(); ++j) {
      if (merge.clauses[j].match == clause.match) {
        const std::string_view kind = clause.match == MergeMatch::kMatched ? "MATCHED"
                                      : clause.match == MergeMatch::kNotMatchedByTarget
                                          ? "NOT MATCHED [BY TARGET]"
                                          : "NOT MATCHED BY SOURCE";
        return SyntaxError(
            *source_, clause.position,
            fmt::format("when there is more than one WHEN {0} clause in a MERGE statement, only "
                        "the last WHEN {0} clause can omit the condition",
                        kind));
      }
    }
  }
  return merge;
}

// WHEN [NOT] MATCHED [BY (TARGET | SOURCE)] [AND expr] THEN action, where action is
//   MATCHED:                DELETE | UPDATE SET * | UPDATE SET assignments
//   NOT MATCHED [BY TARGET]: INSERT * | INSERT "(" name {"," name} ")" VALUES "(" expr {...} ")"
//   NOT MATCHED BY SOURCE:  DELETE | UPDATE SET assignments
Result<MergeClause> Parser::ParseMergeClause() {
  MergeClause clause;
  clause.position = Next().position;
  if (AcceptKeyword("NOT")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("MATCHED"));
    clause.match = MergeMatch::kNotMatchedByTarget;
    if (AcceptKeyword("BY")) {
      if (AcceptKeyword("SOURCE")) {
        clause.match = MergeMatch::kNotMatchedBySource;
      } else if (!AcceptKeyword("TARGET")) {
        return Unexpected("TARGET or SOURCE", {"TARGET", "SOURCE"});
      }
    }
  } else {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("MATCHED"));
  }
  if (AcceptKeyword("AND")) {
    TRIBUTARY_ASSIGN_OR_RAISE(clause.condition, ParseExpr());
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("THEN"));
  if (clause.match == MergeMatch::kNotMatchedByTarget) {
    if (!AcceptKeyword("INSERT")) {
      return Unexpected("INSERT (a WHEN NOT MATCHED clause inserts source rows)", {"INSERT"});
    }
    if (AcceptOperator("*")) {
      if (Peek().IsKeyword("EXCEPT")) {
        return ErrorAt(Peek(), "INSERT * EXCEPT (...) is not supported; list the columns");
      }
      clause.action = MergeAction::kInsertAll;
      return clause;
    }
    clause.action = MergeAction::kInsert;
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    std::vector<std::pair<std::string, SourcePosition>> columns;
    do {
      const SourcePosition at = Peek().position;
      TRIBUTARY_ASSIGN_OR_RAISE(std::string column, ParseColumnPath());
      columns.emplace_back(std::move(column), at);
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    const Token& values = Peek();
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("VALUES"));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator("("));
    std::vector<ExprPtr> exprs;
    do {
      TRIBUTARY_ASSIGN_OR_RAISE(ExprPtr value, ParseAssignedValue());
      exprs.push_back(std::move(value));
    } while (AcceptOperator(","));
    TRIBUTARY_RETURN_NOT_OK(ExpectOperator(")"));
    if (exprs.size() != columns.size()) {
      return ErrorAt(values, fmt::format("INSERT lists {} columns but {} values", columns.size(),
                                         exprs.size()));
    }
    for (size_t i = 0; i < columns.size(); ++i) {
      clause.assignments.push_back({std::move(columns[i].first), exprs[i], columns[i].second});
    }
    return clause;
  }
  if (AcceptKeyword("DELETE")) {
    clause.action = MergeAction::kDelete;
    return clause;
  }
  if (!AcceptKeyword("UPDATE")) {
    return Unexpected(
        fmt::format("UPDATE or DELETE (a WHEN {} clause changes target rows)",
                    clause.match == MergeMatch::kMatched ? "MATCHED" : "NOT MATCHED BY SOURCE"),
        {"UPDATE", "DELETE"});
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("SET"));
  if (Peek().IsOperator("*")) {
    if (clause.match == MergeMatch::kNotMatchedBySource) {
      return ErrorAt(Peek(),
                     "UPDATE SET * is not allowed in WHEN NOT MATCHED BY SOURCE (there is no "
                     "source row to take the values from)");
    }
    Next();
    if (Peek().IsKeyword("EXCEPT")) {
      return ErrorAt(Peek(), "UPDATE SET * EXCEPT (...) is not supported; list the columns");
    }
    clause.action = MergeAction::kUpdateAll;
    return clause;
  }
  clause.action = MergeAction::kUpdate;
  TRIBUTARY_ASSIGN_OR_RAISE(clause.assignments, ParseAssignments());
  return clause;
}

// [CREATE FLOW name AS] (AUTO CDC | APPLY CHANGES) INTO table FROM source KEYS "(" name {","
// name} ")" then, in any order and each at most once: IGNORE NULL UPDATES | APPLY AS DELETE
// WHEN expr | APPLY AS TRUNCATE WHEN expr | SEQUENCE BY expr (required) | COLUMNS columns |
// STORED AS SCD TYPE (1 | 2) | TRACK HISTORY ON columns; columns = name {"," name} | "*"
// EXCEPT "(" name {"," name} ")".
Result<StatementBody> Parser::ParseAutoCdc() {
  AutoCdc flow;
  if (AcceptKeyword("CREATE")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FLOW"));
    TRIBUTARY_ASSIGN_OR_RAISE(flow.flow_name, Identifier("a flow name"));
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
  }
  if (AcceptKeyword("AUTO")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("CDC"));
  } else if (AcceptKeyword("APPLY")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("CHANGES"));
  } else {
    return Unexpected("AUTO CDC or APPLY CHANGES", {"AUTO", "APPLY"});
  }
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("INTO"));
  TRIBUTARY_ASSIGN_OR_RAISE(flow.target, ParseTableName(false));
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("FROM"));
  TRIBUTARY_ASSIGN_OR_RAISE(flow.source, ParsePrimaryRelation());
  // KEYS is not reserved, so `FROM STREAM(src) KEYS (id)` read it as the source's alias: it is
  // the clause.
  // (The relation parser took `(id)` as the alias's column list.)
  if (!flow.source->alias.empty() && last_implicit_alias_ < pos_ &&
      tokens_[last_implicit_alias_].IsKeyword("KEYS") &&
      (last_implicit_alias_ + 1 == pos_ ? Peek().IsOperator("(")
                                        : !flow.source->column_aliases.empty())) {
    auto source = std::make_shared<Relation>(*flow.source);
    source->alias.clear();
    source->column_aliases.clear();
    flow.source = std::move(source);
    pos_ = last_implicit_alias_;
  }
  flow.keys_position = Peek().position;
  TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("KEYS"));
  TRIBUTARY_ASSIGN_OR_RAISE(flow.keys, ParenthesizedNames());
  bool has_ignore_nulls = false;
  bool has_columns = false;
  bool has_scd_type = false;
  bool has_track_history = false;
  const Token* scd_type_token = nullptr;
  const Token* track_history_token = nullptr;
  const Token* truncate_token = nullptr;
  auto once = [&](bool* seen, const Token& at, std::string_view clause) -> Status {
    if (*seen) {
      return ErrorAt(at, fmt::format("{} is given twice", clause));
    }
    *seen = true;
    return Status::OK();
  };
  const std::vector<std::string_view> flow_clauses = {"IGNORE",  "APPLY",  "SEQUENCE",
                                                      "COLUMNS", "STORED", "TRACK"};
  while (!AtEnd() && !Peek().IsOperator(";")) {
    const Token& at = Peek();
    if (AcceptKeyword("IGNORE")) {
      TRIBUTARY_RETURN_NOT_OK(once(&has_ignore_nulls, at, "IGNORE NULL UPDATES"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("NULL"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("UPDATES"));
      if (Peek().IsKeyword("ON")) {
        return ErrorAt(Peek(),
                       "IGNORE NULL UPDATES ON <columns> is not supported; IGNORE NULL "
                       "UPDATES applies to every column");
      }
      flow.ignore_null_updates = true;
    } else if (AcceptKeyword("APPLY")) {
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
      const Token& kind = Peek();
      ExprPtr* target = nullptr;
      if (AcceptKeyword("DELETE")) {
        target = &flow.apply_as_delete;
      } else if (AcceptKeyword("TRUNCATE")) {
        target = &flow.apply_as_truncate;
        truncate_token = &at;
      } else {
        return Unexpected("DELETE or TRUNCATE", {"DELETE", "TRUNCATE"});
      }
      if (*target != nullptr) {
        return ErrorAt(at, fmt::format("APPLY AS {} WHEN is given twice", AsciiUpper(kind.text)));
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("WHEN"));
      TRIBUTARY_ASSIGN_OR_RAISE(*target, ParseExpr());
    } else if (AcceptKeyword("SEQUENCE")) {
      if (flow.sequence_by != nullptr) {
        return ErrorAt(at, "SEQUENCE BY is given twice");
      }
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("BY"));
      TRIBUTARY_ASSIGN_OR_RAISE(flow.sequence_by, ParseExpr());
    } else if (AcceptKeyword("COLUMNS")) {
      TRIBUTARY_RETURN_NOT_OK(once(&has_columns, at, "COLUMNS"));
      flow.columns_position = at.position;
      TRIBUTARY_RETURN_NOT_OK(ParseFlowColumns(&flow.columns, &flow.columns_except));
    } else if (AcceptKeyword("STORED")) {
      TRIBUTARY_RETURN_NOT_OK(once(&has_scd_type, at, "STORED AS"));
      scd_type_token = &at;
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("AS"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("SCD"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("TYPE"));
      const Token& type = Peek();
      if (type.kind != TokenKind::kNumber || (type.text != "1" && type.text != "2")) {
        return Unexpected("SCD TYPE 1 or 2");
      }
      flow.scd_type = type.text == "1" ? 1 : 2;
      Next();
    } else if (AcceptKeyword("TRACK")) {
      TRIBUTARY_RETURN_NOT_OK(once(&has_track_history, at, "TRACK HISTORY ON"));
      track_history_token = &at;
      flow.track_history_position = at.position;
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("HISTORY"));
      TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("ON"));
      TRIBUTARY_RETURN_NOT_OK(ParseFlowColumns(&flow.track_history, &flow.track_history_except));
    } else {
      return Unexpected(
          "a flow clause (IGNORE NULL UPDATES, APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, "
          "SEQUENCE BY, COLUMNS, STORED AS SCD TYPE, TRACK HISTORY ON) or the end of the "
          "statement",
          flow_clauses);
    }
  }
  if (flow.sequence_by == nullptr) {
    return ErrorAt(Peek(), "AUTO CDC needs SEQUENCE BY <column>: the order of the change events");
  }
  if (track_history_token != nullptr && flow.scd_type != 2) {
    return ErrorAt(*track_history_token, "TRACK HISTORY ON needs STORED AS SCD TYPE 2");
  }
  if (truncate_token != nullptr && flow.scd_type != 1) {
    return ErrorAt(has_scd_type ? *scd_type_token : *truncate_token,
                   "APPLY AS TRUNCATE WHEN is supported only with SCD TYPE 1");
  }
  return flow;
}

// name {"," name} | "(" name {"," name} ")" | "*" EXCEPT "(" name {"," name} ")".
Status Parser::ParseFlowColumns(std::vector<std::string>* columns, bool* except) {
  if (AcceptOperator("*")) {
    TRIBUTARY_RETURN_NOT_OK(ExpectKeyword("EXCEPT"));
    TRIBUTARY_ASSIGN_OR_RAISE(*columns, ParenthesizedNames());
    *except = true;
    return Status::OK();
  }
  if (Peek().IsOperator("(")) {
    TRIBUTARY_ASSIGN_OR_RAISE(*columns, ParenthesizedNames());
    return Status::OK();
  }
  do {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string name, Identifier("a column name"));
    columns->push_back(std::move(name));
  } while (AcceptOperator(","));
  return Status::OK();
}

}  // namespace tributary::sql::internal
