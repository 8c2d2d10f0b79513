#include "plan/table_info.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "common/ascii.h"
#include "delta/snapshot.h"
#include "plan/delta_commands.h"

namespace tributary::plan {

namespace {

using columnar::DataType;
using columnar::DataTypePtr;

using Rows = std::vector<std::vector<std::string>>;

}  // namespace

Result<LogicalPlanPtr> StringRowsPlan(const std::vector<std::string>& names,
                                      const std::vector<std::vector<std::string>>& rows,
                                      std::string description) {
  std::vector<columnar::Field> fields;
  std::vector<columnar::ColumnPtr> columns;
  for (size_t c = 0; c < names.size(); ++c) {
    fields.emplace_back(names[c], DataType::String());
    columnar::ColumnBuilder builder(DataType::String());
    for (const std::vector<std::string>& row : rows) {
      builder.AppendBytes(row[c]);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder.Finish());
    columns.push_back(std::move(column));
  }
  auto schema = std::make_shared<const columnar::Schema>(std::move(fields));
  TRIBUTARY_ASSIGN_OR_RAISE(
      columnar::RecordBatchPtr batch,
      columnar::RecordBatch::Make(std::move(schema), static_cast<int64_t>(rows.size()),
                                  std::move(columns)));
  return ValuesPlan(std::move(batch), std::move(description));
}

namespace {

struct LoadedTable {
  std::shared_ptr<const delta::Snapshot> snapshot;
  columnar::SchemaPtr schema;
};

// The latest snapshot, and the columns a query of the table sees (ScanDeltaTable's schema, so
// that DESCRIBE agrees with SELECT *).
Result<LoadedTable> Load(const Catalog& catalog, const TableInfoTarget& table) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to read tables from");
  }
  LoadedTable loaded;
  TRIBUTARY_ASSIGN_OR_RAISE(LogicalPlanPtr scan, ScanDeltaTable(catalog, table.path, {}, ""));
  loaded.schema = scan->Schema();
  auto snapshot = delta::Snapshot::Load(*catalog.fs, table.path);
  if (!snapshot.ok()) {
    return snapshot.status().WithContext(fmt::format("table {}", table.name));
  }
  loaded.snapshot = *std::move(snapshot);
  return loaded;
}

std::string Comment(const columnar::Field& field) {
  const std::string* comment = field.MetadataValue("comment");
  return comment != nullptr ? *comment : std::string();
}

// Delta's Snapshot.getProperties: the configuration, the protocol versions and, with table
// features, delta.feature.<name> = supported; sorted by key as Spark prints them.
std::map<std::string, std::string> TableProperties(const delta::Snapshot& snapshot) {
  std::map<std::string, std::string> properties;
  for (const auto& [key, value] : snapshot.GetMetadata().configuration) {
    if (key != "path") {
      properties[key] = value;
    }
  }
  const delta::Protocol& protocol = snapshot.GetProtocol();
  properties["delta.minReaderVersion"] = std::to_string(protocol.min_reader_version);
  properties["delta.minWriterVersion"] = std::to_string(protocol.min_writer_version);
  for (const auto* features : {&protocol.reader_features, &protocol.writer_features}) {
    if (features->has_value()) {
      for (const std::string& feature : **features) {
        properties["delta.feature." + feature] = "supported";
      }
    }
  }
  return properties;
}

// A location as Spark prints a qualified path: file:/abs for a local directory.
std::string LocationText(const std::string& path) {
  return !path.empty() && path[0] == '/' ? "file:" + path : path;
}

// Spark's quoteIfNeeded: back-quoted unless the name is letters, digits and '_'.
std::string QuoteIfNeeded(const std::string& name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (plain) {
    return name;
  }
  std::string out = "`";
  for (char c : name) {
    out += c == '`' ? "``" : std::string(1, c);
  }
  return out + "`";
}

std::string EscapeSingleQuoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// "(\n  a,\n  b)\n" as Spark's concatByMultiLines.
std::string MultiLines(const std::vector<std::string>& items) {
  std::string out = "(\n  ";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i > 0 ? ",\n  " : "") + items[i];
  }
  return out + ")\n";
}

}  // namespace

namespace {

// DESCRIBE [EXTENDED] of a data source table: its catalog entry's columns and provider.
Result<LogicalPlanPtr> DescribeFileTable(const TableInfoTarget& table, bool extended) {
  const TableEntry& entry = *table.file_table;
  Rows rows;
  for (const columnar::Field& field : entry.schema->Fields()) {
    rows.push_back({field.Name(), field.Type()->ToString(), Comment(field)});
  }
  if (!entry.partition_columns.empty()) {
    rows.push_back({"# Partition Information", "", ""});
    rows.push_back({"# col_name", "data_type", "comment"});
    for (const std::string& column : entry.partition_columns) {
      Result<int> index = entry.schema->FieldIndexIgnoreCase(column);
      if (index.ok() && *index >= 0) {
        const columnar::Field& field = entry.schema->FieldAt(*index);
        rows.push_back({field.Name(), field.Type()->ToString(), Comment(field)});
      }
    }
  }
  if (extended) {
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    rows.push_back({"Name", table.name, ""});
    rows.push_back({"Type", entry.managed ? "MANAGED" : "EXTERNAL", ""});
    rows.push_back({"Provider", entry.provider, ""});
    rows.push_back({"Location", LocationText(entry.location), ""});
  }
  return StringRowsPlan({"col_name", "data_type", "comment"}, rows, "DESCRIBE " + table.name);
}

}  // namespace

Result<LogicalPlanPtr> DescribeTableInfo(const Catalog& catalog, const TableInfoTarget& table,
                                         bool extended) {
  if (table.file_table != nullptr) {
    return DescribeFileTable(table, extended);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LoadedTable loaded, Load(catalog, table));
  Rows rows;
  for (const columnar::Field& field : loaded.schema->Fields()) {
    rows.push_back({field.Name(), field.Type()->ToString(), Comment(field)});
  }
  if (extended) {
    const delta::Metadata& metadata = loaded.snapshot->GetMetadata();
    if (!metadata.partition_columns.empty()) {
      rows.push_back({"# Partition Information", "", ""});
      rows.push_back({"# col_name", "data_type", "comment"});
      for (const std::string& column : metadata.partition_columns) {
        const int index = loaded.schema->FieldIndex(column);
        if (index >= 0) {
          const columnar::Field& field = loaded.schema->FieldAt(index);
          rows.push_back({field.Name(), field.Type()->ToString(), Comment(field)});
        }
      }
    }
    rows.push_back({"", "", ""});
    rows.push_back({"# Detailed Table Information", "", ""});
    rows.push_back({"Name", table.name, ""});
    if (metadata.description.has_value()) {
      rows.push_back({"Comment", *metadata.description, ""});
    }
    rows.push_back({"Location", LocationText(table.path), ""});
    rows.push_back({"Provider", "delta", ""});
    std::string properties;
    for (const auto& [key, value] : TableProperties(*loaded.snapshot)) {
      properties += fmt::format("{}{}={}", properties.empty() ? "" : ",", key, value);
    }
    rows.push_back({"Table Properties", "[" + properties + "]", ""});
  }
  return StringRowsPlan({"col_name", "data_type", "comment"}, rows, "DESCRIBE " + table.name);
}

Result<LogicalPlanPtr> DescribeColumns(const columnar::Schema& schema, bool names_only,
                                       std::string description) {
  Rows rows;
  for (const columnar::Field& field : schema.Fields()) {
    if (names_only) {
      rows.push_back({field.Name()});
    } else {
      rows.push_back({field.Name(), field.Type()->ToString(), Comment(field)});
    }
  }
  return names_only
             ? StringRowsPlan({"col_name"}, rows, std::move(description))
             : StringRowsPlan({"col_name", "data_type", "comment"}, rows, std::move(description));
}

Result<LogicalPlanPtr> ShowColumns(const Catalog& catalog, const TableInfoTarget& table) {
  if (table.file_table != nullptr) {
    return DescribeColumns(*table.file_table->schema, /*names_only=*/true,
                           "SHOW COLUMNS " + table.name);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LoadedTable loaded, Load(catalog, table));
  Rows rows;
  for (const columnar::Field& field : loaded.schema->Fields()) {
    rows.push_back({field.Name()});
  }
  return StringRowsPlan({"col_name"}, rows, "SHOW COLUMNS " + table.name);
}

Result<LogicalPlanPtr> ShowTableProperties(const Catalog& catalog, const TableInfoTarget& table,
                                           const std::string& key) {
  std::map<std::string, std::string> properties;
  if (table.file_table == nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(LoadedTable loaded, Load(catalog, table));
    properties = TableProperties(*loaded.snapshot);
  }
  Rows rows;
  if (key.empty()) {
    for (const auto& [name, value] : properties) {
      rows.push_back({name, value});
    }
  } else if (auto it = properties.find(key); it != properties.end()) {
    rows.push_back({key, it->second});
  } else {
    rows.push_back({key, fmt::format("Table {} does not have property: {}", table.name, key)});
  }
  return StringRowsPlan({"key", "value"}, rows, "SHOW TBLPROPERTIES " + table.name);
}

namespace {

// SHOW CREATE TABLE of a data source table, in Spark's order: USING, OPTIONS, PARTITIONED BY,
// then LOCATION for an external table only.
Result<LogicalPlanPtr> ShowCreateFileTable(const TableInfoTarget& table) {
  const TableEntry& entry = *table.file_table;
  std::vector<std::string> columns;
  for (const columnar::Field& field : entry.schema->Fields()) {
    std::string column = QuoteIfNeeded(field.Name()) + " " + field.Type()->Sql();
    column += field.Nullable() ? "" : " NOT NULL";
    columns.push_back(std::move(column));
  }
  std::string text =
      "CREATE TABLE " + table.name + " " + MultiLines(columns) + "USING " + entry.provider + "\n";
  if (!entry.options.empty()) {
    std::vector<std::string> options;
    for (const auto& [key, value] : entry.options) {
      options.push_back(
          fmt::format("'{}' = '{}'", EscapeSingleQuoted(key), EscapeSingleQuoted(value)));
    }
    text += "OPTIONS " + MultiLines(options);
  }
  if (!entry.partition_columns.empty()) {
    std::string names;
    for (const std::string& column : entry.partition_columns) {
      if (!names.empty()) {
        names += ", ";
      }
      names += QuoteIfNeeded(column);
    }
    text += "PARTITIONED BY (" + names + ")\n";
  }
  if (!entry.managed) {
    text += "LOCATION '" + EscapeSingleQuoted(LocationText(entry.location)) + "'\n";
  }
  return StringRowsPlan({"createtab_stmt"}, {{text}}, "SHOW CREATE TABLE " + table.name);
}

}  // namespace

Result<LogicalPlanPtr> ShowCreateTable(const Catalog& catalog, const TableInfoTarget& table) {
  if (table.file_table != nullptr) {
    return ShowCreateFileTable(table);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(LoadedTable loaded, Load(catalog, table));
  const delta::Metadata& metadata = loaded.snapshot->GetMetadata();
  std::vector<std::string> columns;
  for (const columnar::Field& field : loaded.schema->Fields()) {
    std::string column = QuoteIfNeeded(field.Name()) + " " + field.Type()->Sql();
    column += field.Nullable() ? "" : " NOT NULL";
    const std::string comment = Comment(field);
    column += comment.empty() ? "" : " COMMENT '" + EscapeSingleQuoted(comment) + "'";
    columns.push_back(std::move(column));
  }
  std::string text = "CREATE TABLE " + table.name + " " + MultiLines(columns) + "USING delta\n";
  if (!metadata.partition_columns.empty()) {
    std::string names;
    for (const std::string& column : metadata.partition_columns) {
      names += (names.empty() ? "" : ", ") + QuoteIfNeeded(column);
    }
    text += "PARTITIONED BY (" + names + ")\n";
  }
  if (metadata.description.has_value()) {
    text += "COMMENT '" + EscapeSingleQuoted(*metadata.description) + "'\n";
  }
  text += "LOCATION '" + EscapeSingleQuoted(LocationText(table.path)) + "'\n";
  std::vector<std::string> properties;
  for (const auto& [key, value] : TableProperties(*loaded.snapshot)) {
    properties.push_back(
        fmt::format("'{}' = '{}'", EscapeSingleQuoted(key), EscapeSingleQuoted(value)));
  }
  text += "TBLPROPERTIES " + MultiLines(properties);
  return StringRowsPlan({"createtab_stmt"}, {{text}}, "SHOW CREATE TABLE " + table.name);
}

}  // namespace tributary::plan
