// The SQL parser: hand-written recursive descent over the lexer's tokens into ast.h.
//
// Statements (keywords in any case; [..] optional, {..} repeated, | alternatives):
//
//   script     = [statement] { ";" [statement] }
//   statement  = query
//              | CREATE [OR REPLACE] TABLE [IF NOT EXISTS] table [ "(" column {"," column} ")" ]
//                  { USING word | PARTITIONED BY "(" name {"," name} ")" | LOCATION 'path'
//                  | COMMENT 'text' | TBLPROPERTIES "(" property {"," property} ")"
//                  | OPTIONS "(" property {"," property} ")" }
//                  [ [AS] query ]
//              | CREATE [OR REFRESH] STREAMING TABLE table [ "(" column {"," column} ")" ]
//                  { PARTITIONED BY ... | COMMENT ... | TBLPROPERTIES ... } [AS query]
//                                                        ; no query: a flow's target
//              | INSERT (INTO | OVERWRITE) [TABLE] table [ "(" name {"," name} ")" ] query
//              | (DESCRIBE | DESC) [TABLE | DETAIL | HISTORY] table [LIMIT n]   ; LIMIT: HISTORY
//              | SHOW TABLES [(IN | FROM) name] [[LIKE] 'pattern']
//              | CREATE (SCHEMA | DATABASE | NAMESPACE) [IF NOT EXISTS] name {"." name}
//                  { COMMENT 'text' | LOCATION 'path' | WITH (DBPROPERTIES | PROPERTIES)
//                  "(" property {"," property} ")" }
//              | DROP (SCHEMA | DATABASE | NAMESPACE) [IF EXISTS] name {"." name}
//                  [RESTRICT | CASCADE]
//              | SHOW (SCHEMAS | DATABASES | NAMESPACES) [[LIKE] 'pattern']
//              | OPTIMIZE table [WHERE expr]
//              | VACUUM table [RETAIN number HOURS] [DRY RUN]
//              | DROP TABLE [IF EXISTS] table
//              | DELETE FROM table [[AS] alias] [WHERE expr]
//              | UPDATE table [[AS] alias] SET assign {"," assign} [WHERE expr]
//              | MERGE [WITH SCHEMA EVOLUTION] INTO table [[AS] alias] USING primary ON expr
//                  when {when}       ; of each kind only the last `when` may omit AND expr
//              | [CREATE FLOW name AS] (AUTO CDC | APPLY CHANGES) INTO table FROM primary
//                  KEYS "(" name {"," name} ")" { IGNORE NULL UPDATES | APPLY AS DELETE WHEN
//                  expr | APPLY AS TRUNCATE WHEN expr | SEQUENCE BY expr | COLUMNS columns
//                  | STORED AS SCD TYPE (1 | 2) | TRACK HISTORY ON columns }
//                                                        ; SEQUENCE BY required, each once
//   table      = name {"." name} | format "." `path`      ; format: delta parquet json csv
//              | 'path'                                  ; a Delta table by path, where a
//                                                        ; statement names an existing table
//   column     = name type [NOT NULL] [COMMENT 'text']
//   assign     = name {"." name} "=" expr
//   when       = WHEN MATCHED [AND expr] THEN (DELETE | UPDATE SET "*" | UPDATE SET assign {...})
//              | WHEN NOT MATCHED [BY TARGET] [AND expr] THEN (INSERT "*"
//                  | INSERT "(" name {"," name} ")" VALUES "(" expr {"," expr} ")")
//              | WHEN NOT MATCHED BY SOURCE [AND expr] THEN (DELETE | UPDATE SET assign {...})
//   columns    = name {"," name} | "(" name {"," name} ")" | "*" EXCEPT "(" name {"," name} ")"
//   property   = (string | name {"." name}) ["="] (string | number | TRUE | FALSE)
//   query      = [WITH name AS "(" query ")" {"," ...}] term {UNION [ALL | DISTINCT] term}
//                [ORDER BY order {"," order}] [LIMIT (expr | ALL)]
//   term       = SELECT [DISTINCT | ALL] item {"," item} [FROM relation {"," relation}]
//                [WHERE expr] [GROUP BY expr {"," expr}] [HAVING expr]
//              | VALUES row {"," row}  | "(" query ")"
//   item       = "*" | name {"." name} "." "*" | expr [[AS] alias]
//   order      = expr [ASC | DESC] [NULLS (FIRST | LAST)]
//   relation   = primary { join }
//   join       = [INNER | CROSS | LEFT [OUTER | SEMI | ANTI] | RIGHT [OUTER] | FULL [OUTER]
//                | SEMI | ANTI] JOIN primary [ON expr | USING "(" name {"," name} ")"]
//   primary    = [STREAM] (table | "(" table ")" | name "(" [arg {"," arg}] ")")
//                  [VERSION AS OF integer | TIMESTAMP AS OF expr] [watermark] [[AS] alias]
//              | "(" query ")" [watermark] [[AS] alias] | "(" relation ")"
//   arg        = name "=>" expr | expr
//   watermark  = WATERMARK expr [AS name] DELAY OF INTERVAL ...   ; Databricks' clause
//
// Expressions, loosest first (Spark's precedence):
//   OR;  AND;  NOT, !, EXISTS;  predicates ([NOT] BETWEEN, [NOT] IN, [NOT] LIKE | RLIKE |
//   REGEXP | ILIKE [ESCAPE 'c'], IS [NOT] NULL | TRUE | FALSE | DISTINCT FROM);
//   comparisons (= == <> != < <= > >= <=>);  |;  ^;  &;  + - ||;  * / % DIV;  unary - + ~;
//   postfix . [] ::;  primaries (literals, typed literals DATE TIMESTAMP TIMESTAMP_NTZ
//   TIMESTAMP_LTZ INTERVAL X'..', CASE, CAST, TRY_CAST, function calls with DISTINCT and
//   count(*), EXTRACT(field FROM e), CURRENT_DATE/CURRENT_TIMESTAMP, (expr), (a, b) structs,
//   scalar subqueries, names).
//
// Operators without an expr::Op are calls of Spark's function for them: || concat, DIV div,
// & | ^ ~ as the functions Spark registers under those names, LIKE like, RLIKE/REGEXP
// rlike, ILIKE ilike, IS [NOT] DISTINCT FROM (NOT) <=>, IS TRUE  x <=> true.

#pragma once

#include <string_view>
#include <vector>

#include "sql/ast.h"
#include "tributary/result.h"

namespace tributary::sql {

/// Parses every statement of `text` (separated by ';'; empty statements are skipped). Errors
/// are InvalidArgument with line, column, the source line and a caret (lexer.h SyntaxError).
Result<std::vector<Statement>> ParseScript(std::string_view text);

/// Parses exactly one statement (a trailing ';' is allowed).
Result<Statement> ParseStatement(std::string_view text);

/// Parses one scalar expression ("a + 1", "status = 'active'"), as DataFrame selectExpr and
/// filter strings do. Subqueries are refused.
Result<expr::ExprPtr> ParseExpression(std::string_view text);

}  // namespace tributary::sql
