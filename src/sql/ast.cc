#include "sql/ast.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "expr/backquoted_name.h"
#include "sql/keywords.h"
#include "sql/parser.h"

namespace tributary::sql {
namespace {

std::string QuoteString(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out + "'";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    out += out.empty() ? "" : ", ";
    out += QuoteIdentifier(name);
  }
  return out;
}

std::string WithAlias(const std::string& text, const std::string& alias) {
  return alias.empty() ? text : text + " AS " + QuoteIdentifier(alias);
}

// Expressions print through Expression::ToString; subquery placeholders print as their calls
// (in_subquery(a)), since their queries live beside the tree.
class Printer {
 public:
  std::string Expr(const expr::ExprPtr& node) const { return node->ToString(); }

  std::string Exprs(const std::vector<expr::ExprPtr>& nodes) const {
    std::string out;
    for (const expr::ExprPtr& node : nodes) {
      out += out.empty() ? "" : ", ";
      out += Expr(node);
    }
    return out;
  }

  std::string Relation(const sql::Relation& relation) const {
    std::string out;
    switch (relation.kind) {
      case RelationKind::kTable:
        out = relation.table.ToString();
        if (relation.version_as_of.has_value()) {
          out += fmt::format(" VERSION AS OF {}", *relation.version_as_of);
        }
        if (relation.timestamp_as_of != nullptr) {
          out += " TIMESTAMP AS OF " + Expr(relation.timestamp_as_of);
        }
        break;
      case RelationKind::kTableFunction: {
        out = relation.function_name + "(";
        for (size_t i = 0; i < relation.arguments.size(); ++i) {
          const TableFunctionArgument& argument = relation.arguments[i];
          out += i > 0 ? ", " : "";
          out += argument.name.empty() ? "" : QuoteIdentifier(argument.name) + " => ";
          out += Expr(argument.value);
        }
        out += ")";
        break;
      }
      case RelationKind::kSubquery:
        out = fmt::format("{}({})", relation.lateral ? "LATERAL " : "", Query(*relation.subquery));
        break;
      case RelationKind::kJoin:
        out = fmt::format("({} {}{} JOIN {}", Relation(*relation.left),
                          relation.natural ? "NATURAL " : "", JoinKindName(relation.join_kind),
                          Relation(*relation.right));
        if (relation.condition != nullptr) {
          out += " ON " + Expr(relation.condition);
        }
        if (!relation.using_columns.empty()) {
          out += " USING (" + JoinNames(relation.using_columns) + ")";
        }
        return out + ")";
      case RelationKind::kLateralView:
      case RelationKind::kPivot:
      case RelationKind::kUnpivot:
        return FromClauseExtension(relation);
    }
    if (relation.sample.has_value()) {
      out += " TABLESAMPLE (" + relation.sample->text + ")";
      if (relation.sample->seed.has_value()) {
        out += fmt::format(" REPEATABLE ({})", *relation.sample->seed);
      }
    }
    if (relation.watermark.has_value()) {
      const WatermarkClause& watermark = *relation.watermark;
      out += " WATERMARK " + Expr(watermark.event_time);
      out += watermark.name.empty() ? "" : " AS " + QuoteIdentifier(watermark.name);
      out += " DELAY OF " + watermark.delay_text;
    }
    return WithAlias(relation.stream ? "STREAM " + out : out, relation.alias);
  }

  // LATERAL VIEW, PIVOT and UNPIVOT after the FROM clause `relation.left`.
  std::string FromClauseExtension(const sql::Relation& relation) const {
    std::string out = Relation(*relation.left);
    if (relation.lateral_view != nullptr) {
      const LateralViewClause& view = *relation.lateral_view;
      out += fmt::format(" LATERAL VIEW {}{} {}", view.outer ? "OUTER " : "", Expr(view.generator),
                         QuoteIdentifier(view.table_alias));
      if (!view.column_aliases.empty()) {
        out += " AS " + JoinNames(view.column_aliases);
      }
      return out;
    }
    if (relation.pivot != nullptr) {
      const PivotClause& pivot = *relation.pivot;
      out += " PIVOT (";
      for (size_t i = 0; i < pivot.aggregates.size(); ++i) {
        out += (i > 0 ? ", " : "") +
               WithAlias(Expr(pivot.aggregates[i].expr), pivot.aggregates[i].alias);
      }
      const std::string columns = Exprs(pivot.columns);
      out += " FOR " + (pivot.tuple ? "(" + columns + ")" : columns) + " IN (";
      for (size_t i = 0; i < pivot.values.size(); ++i) {
        out += (i > 0 ? ", " : "") + WithAlias(Expr(pivot.values[i].value), pivot.values[i].alias);
      }
      return WithAlias(out + "))", relation.alias);
    }
    const UnpivotClause& unpivot = *relation.unpivot;
    out += unpivot.include_nulls ? " UNPIVOT INCLUDE NULLS (" : " UNPIVOT (";
    const bool multi = unpivot.value_columns.size() > 1;
    const std::string values = JoinNames(unpivot.value_columns);
    out += (multi ? "(" + values + ")" : values) + " FOR " + QuoteIdentifier(unpivot.name_column) +
           " IN (";
    for (size_t i = 0; i < unpivot.sets.size(); ++i) {
      const std::string columns = Exprs(unpivot.sets[i].columns);
      out += (i > 0 ? ", " : "") +
             WithAlias(multi ? "(" + columns + ")" : columns, unpivot.sets[i].alias);
    }
    return WithAlias(out + "))", relation.alias);
  }

  std::string Query(const sql::Query& query) const {
    std::string out;
    if (!query.with.empty()) {
      out = "WITH ";
      for (size_t i = 0; i < query.with.size(); ++i) {
        std::string columns;
        for (const std::string& column : query.with[i].columns) {
          columns += (columns.empty() ? "(" : ", ") + QuoteIdentifier(column);
        }
        if (!columns.empty()) {
          columns += ")";
        }
        out += fmt::format("{}{}{} AS ({})", i > 0 ? ", " : "", QuoteIdentifier(query.with[i].name),
                           columns, Query(*query.with[i].query));
      }
      out += " ";
    }
    switch (query.kind) {
      case QueryKind::kSelect:
        out += query.distinct ? "SELECT DISTINCT " : "SELECT ";
        for (size_t i = 0; i < query.select.size(); ++i) {
          const SelectItem& item = query.select[i];
          out += i > 0 ? ", " : "";
          if (item.IsStar()) {
            for (const std::string& part : item.star_qualifier) {
              out += QuoteIdentifier(part) + ".";
            }
            out += "*";
          } else {
            out += item.aliases.empty()
                       ? WithAlias(Expr(item.expr), item.alias)
                       : fmt::format("{} AS ({})", Expr(item.expr), JoinNames(item.aliases));
          }
        }
        if (query.from != nullptr) {
          out += " FROM " + Relation(*query.from);
        }
        if (query.where != nullptr) {
          out += " WHERE " + Expr(query.where);
        }
        if (query.group_by_all) {
          out += " GROUP BY ALL";
        } else if (!query.grouping_sets.empty()) {
          out += " GROUP BY GROUPING SETS (";
          for (size_t i = 0; i < query.grouping_sets.size(); ++i) {
            std::vector<expr::ExprPtr> set;
            for (size_t key : query.grouping_sets[i]) {
              set.push_back(query.group_by[key]);
            }
            out += fmt::format("{}({})", i > 0 ? ", " : "", Exprs(set));
          }
          out += ")";
        } else if (!query.group_by.empty()) {
          out += " GROUP BY " + Exprs(query.group_by);
        }
        if (query.having != nullptr) {
          out += " HAVING " + Expr(query.having);
        }
        break;
      case QueryKind::kUnion:
        out += fmt::format("({}) {} {}({})", Query(*query.left),
                           query.set_operator == SetOperator::kIntersect ? "INTERSECT"
                           : query.set_operator == SetOperator::kExcept  ? "EXCEPT"
                                                                         : "UNION",
                           query.union_all ? "ALL " : "", Query(*query.right));
        break;
      case QueryKind::kValues:
        out += "VALUES ";
        for (size_t i = 0; i < query.rows.size(); ++i) {
          out += fmt::format("{}({})", i > 0 ? ", " : "", Exprs(query.rows[i]));
        }
        break;
    }
    for (size_t i = 0; i < query.order_by.size(); ++i) {
      const OrderItem& item = query.order_by[i];
      out += fmt::format("{}{} {} NULLS {}", i > 0 ? ", " : " ORDER BY ",
                         query.order_by_all ? std::string("ALL") : Expr(item.expr),
                         item.ascending ? "ASC" : "DESC", item.nulls_first ? "FIRST" : "LAST");
    }
    if (query.limit != nullptr) {
      out += " LIMIT " + Expr(query.limit);
    }
    if (query.offset != nullptr) {
      out += " OFFSET " + Expr(query.offset);
    }
    return out;
  }
};

std::string Assignments(const Printer& printer, const std::vector<Assignment>& assignments) {
  std::string out;
  for (const Assignment& assignment : assignments) {
    out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", assignment.column,
                       printer.Expr(assignment.value));
  }
  return out;
}

std::string MergeClauseText(const Printer& printer, const MergeClause& clause) {
  std::string out = clause.match == MergeMatch::kMatched ? "WHEN MATCHED"
                    : clause.match == MergeMatch::kNotMatchedByTarget
                        ? "WHEN NOT MATCHED"
                        : "WHEN NOT MATCHED BY SOURCE";
  out += clause.condition ? " AND " + printer.Expr(clause.condition) : "";
  out += " THEN ";
  switch (clause.action) {
    case MergeAction::kUpdate:
      return out + "UPDATE SET " + Assignments(printer, clause.assignments);
    case MergeAction::kUpdateAll:
      return out + "UPDATE SET *";
    case MergeAction::kDelete:
      return out + "DELETE";
    case MergeAction::kInsertAll:
      return out + "INSERT *";
    case MergeAction::kInsert: {
      std::string columns;
      std::string values;
      for (const Assignment& assignment : clause.assignments) {
        columns += columns.empty() ? "" : ", ";
        columns += assignment.column;
        values += values.empty() ? "" : ", ";
        values += printer.Expr(assignment.value);
      }
      return out + fmt::format("INSERT ({}) VALUES ({})", columns, values);
    }
  }
  return out;
}

// COLUMNS / TRACK HISTORY ON lists: `a, b` or `* EXCEPT (a, b)`.
std::string FlowColumns(const std::vector<std::string>& columns, bool except) {
  return except ? "* EXCEPT (" + JoinNames(columns) + ")" : JoinNames(columns);
}

std::string Properties(const std::vector<std::pair<std::string, std::string>>& properties) {
  std::string out;
  for (const auto& [key, value] : properties) {
    out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", QuoteString(key), QuoteString(value));
  }
  return out;
}

}  // namespace

std::string QuoteIdentifier(std::string_view name) {
  bool plain = !name.empty();
  for (char c : name) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  }
  return plain && !IsReservedWord(name) ? std::string(name) : expr::BackquotedName(name);
}

SourcePosition ExpressionSources::PositionOf(const expr::Expression& node) const {
  auto it = positions.find(&node);
  return it == positions.end() ? SourcePosition{0, 0, 0} : it->second;
}

std::string TableName::ToString() const {
  if (IsPath()) {
    return format + ".`" + path + "`";
  }
  std::string out;
  for (const std::string& part : parts) {
    out += out.empty() ? "" : ".";
    out += QuoteIdentifier(part);
  }
  return out;
}

std::string_view JoinKindName(JoinKind kind) {
  switch (kind) {
    case JoinKind::kInner:
      return "INNER";
    case JoinKind::kLeft:
      return "LEFT";
    case JoinKind::kRight:
      return "RIGHT";
    case JoinKind::kFull:
      return "FULL";
    case JoinKind::kCross:
      return "CROSS";
    case JoinKind::kLeftSemi:
      return "LEFT SEMI";
    case JoinKind::kLeftAnti:
      return "LEFT ANTI";
  }
  return "?";
}

Status Statement::ErrorAt(const SourcePosition& at, std::string_view what) const {
  return SyntaxError(source ? std::string_view(*source) : std::string_view(), at, what);
}

Status Statement::ErrorAt(const expr::Expression& node, std::string_view what) const {
  SourcePosition at = sources ? sources->PositionOf(node) : SourcePosition{0, 0, 0};
  return ErrorAt(at.line == 0 ? position : at, what);
}

std::string ToString(const Query& query) {
  return Printer().Query(query);
}

std::string ToString(const Relation& relation) {
  return Printer().Relation(relation);
}

std::string ToString(const Statement& statement) {
  const Printer printer;
  struct Visitor {
    const Printer& printer;

    std::string operator()(const QueryPtr& query) const { return printer.Query(*query); }
    std::string operator()(const CreateTable& create) const {
      std::string out = "CREATE ";
      out += create.or_replace ? "OR REPLACE " : "";
      out += create.or_refresh ? "OR REFRESH " : "";
      out += create.streaming ? "STREAMING TABLE " : "TABLE ";
      out += create.if_not_exists ? "IF NOT EXISTS " : "";
      out += create.table.ToString();
      if (!create.columns.empty()) {
        out += " (";
        for (size_t i = 0; i < create.columns.size(); ++i) {
          const ColumnDefinition& column = create.columns[i];
          out += fmt::format("{}{} {}{}", i > 0 ? ", " : "", QuoteIdentifier(column.name),
                             column.type->ToString(), column.nullable ? "" : " NOT NULL");
          out += column.comment.empty() ? "" : " COMMENT " + QuoteString(column.comment);
        }
        out += ")";
      }
      out += create.provider.empty() ? "" : " USING " + create.provider;
      if (!create.options.empty()) {
        out += " OPTIONS (" + Properties(create.options) + ")";
      }
      if (!create.partition_by.empty()) {
        out += " PARTITIONED BY (" + JoinNames(create.partition_by) + ")";
      }
      out += create.location.empty() ? "" : " LOCATION " + QuoteString(create.location);
      out += create.comment.empty() ? "" : " COMMENT " + QuoteString(create.comment);
      if (!create.properties.empty()) {
        out += " TBLPROPERTIES (" + Properties(create.properties) + ")";
      }
      return create.query ? out + " AS " + printer.Query(*create.query) : out;
    }
    std::string operator()(const Insert& insert) const {
      std::string out = fmt::format("INSERT {} {}", insert.overwrite ? "OVERWRITE" : "INTO",
                                    insert.table.ToString());
      if (!insert.columns.empty()) {
        out += " (" + JoinNames(insert.columns) + ")";
      }
      return out + " " + printer.Query(*insert.query);
    }
    std::string operator()(const Describe& describe) const {
      if (describe.query != nullptr) {
        return "DESCRIBE QUERY " + printer.Query(*describe.query);
      }
      const char* kind = describe.kind == DescribeKind::kHistory  ? "HISTORY"
                         : describe.kind == DescribeKind::kDetail ? "DETAIL"
                                                                  : "TABLE";
      std::string out = fmt::format("DESCRIBE {} {}{}", kind, describe.extended ? "EXTENDED " : "",
                                    describe.table.ToString());
      return describe.limit ? out + fmt::format(" LIMIT {}", *describe.limit) : out;
    }
    std::string operator()(const Explain& explain) const {
      const char* mode = explain.mode == ExplainMode::kExtended    ? "EXTENDED "
                         : explain.mode == ExplainMode::kFormatted ? "FORMATTED "
                         : explain.mode == ExplainMode::kCost      ? "COST "
                                                                   : "";
      return fmt::format("EXPLAIN {}{}", mode, printer.Query(*explain.query));
    }
    std::string operator()(const SetConfig& set) const {
      std::string out = "SET";
      out += set.key ? " " + *set.key : "";
      return set.value ? out + " = " + *set.value : out;
    }
    std::string operator()(const ResetConfig& reset) const {
      return reset.key ? "RESET " + *reset.key : "RESET";
    }
    std::string operator()(const Use& use) const {
      std::string out = "USE ";
      for (size_t i = 0; i < use.parts.size(); ++i) {
        if (i > 0) {
          out += '.';
        }
        out += QuoteIdentifier(use.parts[i]);
      }
      return out;
    }
    std::string operator()(const ShowTableInfo& show) const {
      switch (show.kind) {
        case ShowKind::kColumns: {
          std::string out = "SHOW COLUMNS IN " + show.table.ToString();
          return show.database.empty() ? out : out + " IN " + QuoteIdentifier(show.database);
        }
        case ShowKind::kTblProperties:
          return "SHOW TBLPROPERTIES " + show.table.ToString() +
                 (show.key.empty() ? "" : " (" + QuoteString(show.key) + ")");
        case ShowKind::kCreateTable:
          return "SHOW CREATE TABLE " + show.table.ToString();
        case ShowKind::kViews:
          break;
      }
      std::string out = "SHOW VIEWS";
      out += show.database.empty() ? "" : " IN " + QuoteIdentifier(show.database);
      return show.pattern.empty() ? out : out + " LIKE " + QuoteString(show.pattern);
    }
    std::string operator()(const SchemaCommand& command) const {
      std::string name;
      for (const std::string& part : command.parts) {
        if (!name.empty()) {
          name += '.';
        }
        name += QuoteIdentifier(part);
      }
      switch (command.kind) {
        case SchemaCommandKind::kCreate:
          return fmt::format(
              "CREATE SCHEMA {}{}{}", command.if_not_exists ? "IF NOT EXISTS " : "", name,
              command.location.empty() ? "" : " LOCATION " + QuoteString(command.location));
        case SchemaCommandKind::kDrop:
          return fmt::format("DROP SCHEMA {}{}{}", command.if_exists ? "IF EXISTS " : "", name,
                             command.cascade ? " CASCADE" : "");
        case SchemaCommandKind::kShow:
          break;
      }
      return command.pattern.empty() ? "SHOW SCHEMAS"
                                     : "SHOW SCHEMAS LIKE " + QuoteString(command.pattern);
    }
    std::string operator()(const ShowTables& show) const {
      std::string out = "SHOW TABLES";
      out += show.database.empty() ? "" : " IN " + QuoteIdentifier(show.database);
      return show.pattern.empty() ? out : out + " LIKE " + QuoteString(show.pattern);
    }
    std::string operator()(const Optimize& optimize) const {
      std::string out = "OPTIMIZE " + optimize.table.ToString();
      return optimize.where ? out + " WHERE " + printer.Expr(optimize.where) : out;
    }
    std::string operator()(const Vacuum& vacuum) const {
      std::string out = "VACUUM " + vacuum.table.ToString();
      if (vacuum.retain_hours.has_value()) {
        out += fmt::format(" RETAIN {} HOURS", *vacuum.retain_hours);
      }
      return vacuum.dry_run ? out + " DRY RUN" : out;
    }
    std::string operator()(const CreateView& view) const {
      std::string out =
          fmt::format("CREATE {}TEMPORARY VIEW {}{}", view.or_replace ? "OR REPLACE " : "",
                      view.if_not_exists ? "IF NOT EXISTS " : "", QuoteIdentifier(view.name));
      if (!view.columns.empty()) {
        std::vector<std::string> names;
        names.reserve(view.columns.size());
        for (const std::string& column : view.columns) {
          names.push_back(QuoteIdentifier(column));
        }
        out += fmt::format(" ({})", fmt::join(names, ", "));
      }
      return out + " AS " + printer.Query(*view.query);
    }
    std::string operator()(const DropView& drop) const {
      return fmt::format("DROP VIEW {}{}", drop.if_exists ? "IF EXISTS " : "",
                         QuoteIdentifier(drop.name));
    }
    std::string operator()(const DropTable& drop) const {
      return fmt::format("DROP TABLE {}{}", drop.if_exists ? "IF EXISTS " : "",
                         drop.table.ToString());
    }
    std::string operator()(const Delete& statement) const {
      std::string out = WithAlias("DELETE FROM " + statement.table.ToString(), statement.alias);
      return statement.where ? out + " WHERE " + printer.Expr(statement.where) : out;
    }
    std::string operator()(const Update& statement) const {
      std::string out = WithAlias("UPDATE " + statement.table.ToString(), statement.alias);
      out += " SET " + Assignments(printer, statement.assignments);
      return statement.where ? out + " WHERE " + printer.Expr(statement.where) : out;
    }
    std::string operator()(const Merge& merge) const {
      std::string out =
          merge.with_schema_evolution ? "MERGE WITH SCHEMA EVOLUTION INTO " : "MERGE INTO ";
      out += WithAlias(merge.target.ToString(), merge.target_alias);
      out += " USING " + printer.Relation(*merge.source) + " ON " + printer.Expr(merge.on);
      for (const MergeClause& clause : merge.clauses) {
        out += ' ';
        out += MergeClauseText(printer, clause);
      }
      return out;
    }
    std::string operator()(const AutoCdc& flow) const {
      std::string out =
          flow.flow_name.empty() ? "" : "CREATE FLOW " + QuoteIdentifier(flow.flow_name) + " AS ";
      out += fmt::format("AUTO CDC INTO {} FROM {} KEYS ({})", flow.target.ToString(),
                         printer.Relation(*flow.source), JoinNames(flow.keys));
      out += flow.ignore_null_updates ? " IGNORE NULL UPDATES" : "";
      if (flow.apply_as_delete != nullptr) {
        out += " APPLY AS DELETE WHEN " + printer.Expr(flow.apply_as_delete);
      }
      if (flow.apply_as_truncate != nullptr) {
        out += " APPLY AS TRUNCATE WHEN " + printer.Expr(flow.apply_as_truncate);
      }
      out += " SEQUENCE BY " + printer.Expr(flow.sequence_by);
      if (!flow.columns.empty()) {
        out += " COLUMNS " + FlowColumns(flow.columns, flow.columns_except);
      }
      out += fmt::format(" STORED AS SCD TYPE {}", flow.scd_type);
      if (!flow.track_history.empty()) {
        out += " TRACK HISTORY ON " + FlowColumns(flow.track_history, flow.track_history_except);
      }
      return out;
    }
  };
  return std::visit(Visitor{printer}, statement.body);
}

}  // namespace tributary::sql
