// Binding of the warehouse catalog statements: CREATE / DROP / SHOW SCHEMAS, and what
// CREATE TABLE ... USING parquet | json | csv, reads of data source tables and the row-level
// commands they refuse need from the catalog (plan/warehouse_catalog.h). As everywhere in the
// binder, nothing is changed here: CREATE and DROP SCHEMA are bound to kinds the session runs.

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/ascii.h"
#include "plan/plan_builder.h"
#include "plan/table_info.h"
#include "sql/binder_internal.h"
#include "storage/local_path.h"

namespace tributary::sql::internal {

namespace {

std::string CatalogDottedName(const TableName& table) {
  std::string name;
  for (const std::string& part : table.parts) {
    name += name.empty() ? part : "." + part;
  }
  return name;
}

}  // namespace

// The schema that SCHEMA/DATABASE statements name: `s` or `spark_catalog.s`, lowercased.
Result<std::string> SchemaOfNamespace(const Statement& statement,
                                      const std::vector<std::string>& parts,
                                      const SourcePosition& position) {
  if (parts.size() == 2 && EqualsIgnoreAsciiCase(parts[0], "spark_catalog")) {
    return AsciiLower(parts[1]);
  }
  if (parts.size() != 1) {
    std::string name;
    for (const std::string& part : parts) {
      if (!name.empty()) {
        name += '.';
      }
      name += part;
    }
    return StatusAt(statement,
                    Status::InvalidArgument(fmt::format(
                        "[REQUIRES_SINGLE_PART_NAMESPACE] spark_catalog requires a single-part "
                        "namespace, but got `{}`.",
                        name)),
                    position);
  }
  return AsciiLower(parts[0]);
}

std::string SparkTableName(const plan::Catalog& catalog, const TableName& table) {
  Result<plan::QualifiedName> qualified = plan::QualifyTableName(catalog, CatalogDottedName(table));
  if (!qualified.ok()) {
    return fmt::format("`{}`", CatalogDottedName(table));
  }
  return fmt::format("`spark_catalog`.`{}`.`{}`", qualified->schema, qualified->table);
}

Result<std::optional<plan::TableEntry>> FileTableOf(const Statement& statement,
                                                    const plan::Catalog& catalog,
                                                    const TableName& table) {
  if (table.IsPath()) {
    return std::optional<plan::TableEntry>();
  }
  Result<std::optional<plan::TableEntry>> entry =
      plan::ReadTableEntry(catalog, CatalogDottedName(table));
  if (!entry.ok()) {
    return StatusAt(statement, entry.status(), table.position);
  }
  if (!entry->has_value() || !(*entry)->IsFileTable()) {
    return std::optional<plan::TableEntry>();
  }
  return entry;
}

Status CheckNotFileTable(const Statement& statement, const plan::Catalog& catalog,
                         const TableName& table, std::string_view operation) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<plan::TableEntry> entry,
                            FileTableOf(statement, catalog, table));
  if (!entry) {
    return Status::OK();
  }
  return StatusAt(
      statement,
      Status::NotImplemented(fmt::format(
          "[UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table {} does not "
          "support {}. Please check the current catalog and namespace to make sure the qualified "
          "table name is expected, and also check the catalog implementation which is configured "
          "by \"spark.sql.catalog\". ({} is a {} table; only Delta tables support it.)",
          SparkTableName(catalog, table), operation, CatalogDottedName(table), entry->provider)),
      table.position);
}

Status CheckCreateProvider(const Statement& statement, const CreateTable& create) {
  const std::string& provider = create.provider;
  if (provider.empty() || provider == "delta" || plan::IsFileTableProvider(provider)) {
    return Status::OK();
  }
  if (provider == "orc" || provider == "hive" || provider == "avro" || provider == "text") {
    return StatusAt(statement,
                    Status::NotImplemented(fmt::format(
                        "CREATE TABLE ... USING {}: {} tables are not supported; use delta, "
                        "parquet, json or csv",
                        provider,
                        provider == "hive"   ? "Hive SerDe"
                        : provider == "orc"  ? "ORC"
                        : provider == "avro" ? "Avro"
                                             : "text")),
                    create.table.position);
  }
  return StatusAt(statement,
                  Status::InvalidArgument(fmt::format(
                      "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: {}. Make sure the "
                      "provider name is correct and the package is properly registered and "
                      "compatible with your Spark version.",
                      provider)),
                  create.table.position);
}

Result<plan::TableEntry> BindFileTableCreate(const Statement& statement,
                                             const plan::Catalog& catalog,
                                             const CreateTable& create,
                                             columnar::SchemaPtr declared,
                                             const plan::LogicalPlanPtr& query) {
  const auto at = [&](const Status& status) {
    return StatusAt(statement, status, create.table.position);
  };
  if (create.table.IsPath()) {
    return at(Status::InvalidArgument(fmt::format(
        "CREATE TABLE {} USING {}: name the table; a data source table is registered in the "
        "catalog by name",
        create.table.ToString(), create.provider)));
  }
  if (create.or_replace) {
    return at(Status::NotImplemented(fmt::format(
        "CREATE OR REPLACE TABLE ... USING {}: REPLACE TABLE is only supported with v2 tables "
        "(Delta tables)",
        create.provider)));
  }
  if (query != nullptr && declared != nullptr) {
    return at(Status::InvalidArgument(
        "Operation not allowed: Schema may not be specified in a Create Table As Select (CTAS) "
        "statement."));
  }
  const std::string name = CatalogDottedName(create.table);
  Result<plan::QualifiedName> qualified = plan::QualifyTableName(catalog, name);
  if (!qualified.ok()) {
    return at(qualified.status());
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const bool schema_exists,
                            plan::SchemaExists(catalog, qualified->schema));
  if (!schema_exists) {
    return at(plan::SchemaNotFoundError(qualified->schema));
  }
  plan::TableEntry entry;
  entry.name = create.table.parts.back();
  entry.provider = create.provider;
  for (const auto& [key, value] : create.options) {
    entry.options[key] = value;
  }
  entry.managed = create.location.empty();
  if (entry.managed) {
    Result<std::string> managed = plan::ManagedTablePath(catalog, name);
    if (!managed.ok()) {
      return at(managed.status());
    }
    entry.location = *managed;
  } else {
    Result<std::string> absolute = storage::AbsolutePath(create.location);
    if (!absolute.ok()) {
      return at(absolute.status().WithContext(fmt::format("LOCATION '{}'", create.location)));
    }
    entry.location = *absolute;
  }
  columnar::SchemaPtr schema = declared != nullptr ? declared
                               : query != nullptr  ? query->Schema()
                                                   : nullptr;
  std::vector<std::string> partition_columns = create.partition_by;
  if (schema == nullptr) {
    // CREATE TABLE t USING fmt LOCATION 'dir': the schema of the files already there, and
    // their `col=value` folders as partition columns unless PARTITIONED BY names them.
    if (entry.managed) {
      return at(Status::InvalidArgument(fmt::format(
          "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for {}. It must be specified "
          "manually: give the columns, AS query, or the LOCATION of existing files.",
          create.provider)));
    }
    Result<plan::LogicalPlanPtr> files =
        plan::ScanFiles(catalog, create.provider, entry.location, entry.options, nullptr,
                        formats::OptionDefaults::kSparkReader, "");
    if (!files.ok()) {
      return at(Status::InvalidArgument(fmt::format(
          "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for {} at {}. It must be specified "
          "manually. ({})",
          create.provider, entry.location, files.status().Message())));
    }
    schema = (*files)->Schema();
    if (partition_columns.empty() && catalog.fs != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> listed,
                                plan::ListDataFiles(*catalog.fs, entry.location));
      TRIBUTARY_ASSIGN_OR_RAISE(
          columnar::SchemaPtr discovered,
          plan::DiscoverPartitionColumns(entry.location, listed, /*infer_types=*/true,
                                         catalog.eval.session_time_zone));
      for (const columnar::Field& field : discovered->Fields()) {
        partition_columns.push_back(field.Name());
      }
    }
  }
  // Spark's order for a data source table: data columns, then partition columns as listed.
  std::vector<columnar::Field> data_fields;
  std::vector<columnar::Field> partition_fields;
  for (const std::string& column : partition_columns) {
    Result<int> index = schema->FieldIndexIgnoreCase(column);
    if (!index.ok() || *index < 0) {
      std::vector<std::string> names;
      for (const columnar::Field& field : schema->Fields()) {
        names.push_back(fmt::format("`{}`", field.Name()));
      }
      return at(Status::InvalidArgument(fmt::format(
          "[COLUMN_NOT_DEFINED_IN_TABLE] partition column `{}` is not defined in table {}, "
          "defined table columns are: {}.",
          column, SparkTableName(catalog, create.table), fmt::join(names, ", "))));
    }
    partition_fields.push_back(schema->FieldAt(*index));
    entry.partition_columns.push_back(schema->FieldAt(*index).Name());
  }
  for (const columnar::Field& field : schema->Fields()) {
    const bool partition = std::any_of(
        entry.partition_columns.begin(), entry.partition_columns.end(),
        [&](const std::string& column) { return EqualsIgnoreAsciiCase(column, field.Name()); });
    if (!partition) {
      // Files hold nulls whatever the declaration says, as Spark's data source tables do.
      data_fields.emplace_back(field.Name(), field.Type(), true);
    }
  }
  if (data_fields.empty()) {
    return at(Status::InvalidArgument(
        "[ALL_PARTITION_COLUMNS_NOT_ALLOWED] Cannot use all columns for partition columns."));
  }
  for (const columnar::Field& field : partition_fields) {
    data_fields.emplace_back(field.Name(), field.Type(), true);
  }
  entry.schema = std::make_shared<const columnar::Schema>(std::move(data_fields));
  return entry;
}

Result<BoundStatement> BindSchemaCommand(const Statement& statement, const plan::Catalog& catalog,
                                         const SchemaCommand& command) {
  BoundStatement bound;
  bound.schema_command = command;
  if (command.kind == SchemaCommandKind::kShow) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> schemas, plan::ListSchemas(catalog));
    std::vector<std::vector<std::string>> rows;
    for (const std::string& schema : schemas) {
      if (command.pattern.empty() || MatchesShowPattern(command.pattern, schema)) {
        rows.push_back({schema});
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(bound.plan,
                              plan::StringRowsPlan({"namespace"}, rows, "SHOW NAMESPACES"));
    return bound;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string schema,
                            SchemaOfNamespace(statement, command.parts, command.position));
  bound.schema_command.parts = {schema};
  if (!command.location.empty()) {
    return StatusAt(
        statement,
        Status::NotImplemented("CREATE SCHEMA ... LOCATION: a schema is a folder of the warehouse "
                               "(<warehouse>/<name>.db); give its tables a LOCATION instead"),
        command.position);
  }
  bound.kind = command.kind == SchemaCommandKind::kCreate ? BoundKind::kCreateSchema
                                                          : BoundKind::kDropSchema;
  return bound;
}

}  // namespace tributary::sql::internal
