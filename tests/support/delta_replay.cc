#include "support/delta_replay.h"

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>
#include <roaring/roaring.h>

#include "support/duckdb_oracle.h"

namespace tributary::testing {
namespace {

constexpr std::string_view kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
// PROTOCOL.md "Deletion Vector Format": the bitmap bytes start with this little-endian magic.
constexpr uint32_t kRoaringBitmapArrayMagic = 1681511377;

std::string SqlString(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') {
      out += '\'';
    }
  }
  return out + "'";
}

std::string Identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

// Log paths are URIs: percent-decoded, and an absolute file: URI loses its scheme.
Result<std::string> DataFilePath(const std::string& root, const std::string& uri) {
  std::string decoded;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      decoded += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += uri[i];
    }
  }
  if (decoded.starts_with("file://")) {
    return decoded.substr(7);
  }
  if (decoded.starts_with("file:")) {
    return decoded.substr(5);
  }
  if (decoded.find("://") != std::string::npos) {
    return Status::NotImplemented("replay reads local tables only: " + uri);
  }
  if (decoded.starts_with("/")) {
    return decoded;
  }
  return root + "/" + decoded;
}

Result<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IOError("cannot open " + path);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

uint32_t BigEndian32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  }
  return value;
}

uint64_t LittleEndian(const std::string& bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = width; i > 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[at + i - 1]);
  }
  return value;
}

// The bitmap bytes: magic, then RoaringTreemap's portable layout (bucket count as int64, per
// bucket its high 32 bits as uint32 and a 32-bit portable RoaringBitmap), all little-endian.
Result<std::vector<uint64_t>> DecodeBitmap(const std::string& bytes) {
  if (bytes.size() < 12 || LittleEndian(bytes, 0, 4) != kRoaringBitmapArrayMagic) {
    return Status::Corruption("deletion vector bitmap without the magic number");
  }
  const uint64_t buckets = LittleEndian(bytes, 4, 8);
  size_t at = 12;
  std::vector<uint64_t> rows;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    if (at + 4 > bytes.size()) {
      return Status::Corruption("deletion vector bitmap ends inside bucket key");
    }
    const uint64_t high = LittleEndian(bytes, at, 4);
    at += 4;
    roaring_bitmap_t* bitmap =
        roaring_bitmap_portable_deserialize_safe(bytes.data() + at, bytes.size() - at);
    if (bitmap == nullptr) {
      return Status::Corruption("CRoaring cannot read deletion vector bucket " +
                                std::to_string(bucket));
    }
    at += roaring_bitmap_portable_size_in_bytes(bitmap);
    std::vector<uint32_t> low(roaring_bitmap_get_cardinality(bitmap));
    roaring_bitmap_to_uint32_array(bitmap, low.data());
    roaring_bitmap_free(bitmap);
    for (uint32_t value : low) {
      rows.push_back((high << 32) | value);
    }
  }
  if (at != bytes.size()) {
    return Status::Corruption("deletion vector bitmap has trailing bytes");
  }
  return rows;
}

std::string UuidText(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out += '-';
    }
    out += kHex[static_cast<uint8_t>(bytes[i]) >> 4];
    out += kHex[static_cast<uint8_t>(bytes[i]) & 15];
  }
  return out;
}

// The Delta type name of a partition column as DuckDB's type, for casting its string value.
Result<std::string> DuckDbType(const std::string& delta_type) {
  static const std::map<std::string, std::string> kTypes = {{"string", "VARCHAR"},
                                                            {"long", "BIGINT"},
                                                            {"integer", "INTEGER"},
                                                            {"short", "SMALLINT"},
                                                            {"byte", "TINYINT"},
                                                            {"float", "FLOAT"},
                                                            {"double", "DOUBLE"},
                                                            {"boolean", "BOOLEAN"},
                                                            {"date", "DATE"},
                                                            {"timestamp", "TIMESTAMPTZ"},
                                                            {"timestamp_ntz", "TIMESTAMP"},
                                                            {"binary", "BLOB"}};
  if (auto it = kTypes.find(delta_type); it != kTypes.end()) {
    return it->second;
  }
  if (delta_type.starts_with("decimal")) {
    return "DECIMAL" + delta_type.substr(7);
  }
  return Status::NotImplemented("replay: partition column of type " + delta_type);
}

Result<nlohmann::json> ParseLine(const std::string& line) {
  nlohmann::json value = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Status::Internal("replay: unreadable oracle line " + line);
  }
  return value;
}

}  // namespace

Result<std::string> DecodeZ85(const std::string& text) {
  if (text.size() % 5 != 0) {
    return Status::InvalidArgument("Z85 text length is not a multiple of 5: " + text);
  }
  std::string out;
  for (size_t at = 0; at < text.size(); at += 5) {
    uint64_t value = 0;
    for (size_t i = 0; i < 5; ++i) {
      const size_t digit = kZ85Alphabet.find(text[at + i]);
      if (digit == std::string_view::npos) {
        return Status::InvalidArgument("not a Z85 character in " + text);
      }
      value = value * 85 + digit;
    }
    if (value > 0xFFFFFFFFULL) {
      return Status::InvalidArgument("Z85 group out of range in " + text);
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
      out += static_cast<char>((value >> shift) & 0xFF);
    }
  }
  return out;
}

Result<std::vector<uint64_t>> ReadDeletionVectorRows(const std::string& root,
                                                     const ReplayDeletionVector& dv) {
  std::string bitmap;
  if (dv.storage_type == "i") {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string decoded, DecodeZ85(dv.path_or_inline_dv));
    if (decoded.size() < static_cast<size_t>(dv.size_in_bytes)) {
      return Status::Corruption("inline deletion vector shorter than sizeInBytes");
    }
    bitmap = decoded.substr(0, static_cast<size_t>(dv.size_in_bytes));
  } else {
    std::string file;
    if (dv.storage_type == "u") {
      const std::string& text = dv.path_or_inline_dv;
      if (text.size() < 20) {
        return Status::Corruption("'u' deletion vector path too short: " + text);
      }
      const std::string prefix = text.substr(0, text.size() - 20);
      TRIBUTARY_ASSIGN_OR_RAISE(std::string uuid, DecodeZ85(text.substr(text.size() - 20)));
      file = root + "/" + (prefix.empty() ? "" : prefix + "/") + "deletion_vector_" +
             UuidText(uuid) + ".bin";
    } else if (dv.storage_type == "p") {
      TRIBUTARY_ASSIGN_OR_RAISE(file, DataFilePath(root, dv.path_or_inline_dv));
    } else {
      return Status::Corruption("unknown deletion vector storage type " + dv.storage_type);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string bytes, ReadFileBytes(file));
    const auto offset = static_cast<size_t>(dv.offset);
    const auto size = static_cast<size_t>(dv.size_in_bytes);
    if (bytes.empty() || bytes[0] != 1) {
      return Status::Corruption(file + ": deletion vector file without version byte 1");
    }
    if (offset + 4 + size + 4 > bytes.size()) {
      return Status::Corruption(file + ": deletion vector runs past the end of the file");
    }
    if (BigEndian32(bytes, offset) != size) {
      return Status::Corruption(file + ": size prefix " +
                                std::to_string(BigEndian32(bytes, offset)) +
                                " differs from sizeInBytes " + std::to_string(size));
    }
    bitmap = bytes.substr(offset + 4, size);
    const uLong crc =
        crc32(0L, reinterpret_cast<const Bytef*>(bitmap.data()), static_cast<uInt>(bitmap.size()));
    if (BigEndian32(bytes, offset + 4 + size) != static_cast<uint32_t>(crc)) {
      return Status::Corruption(file + ": deletion vector checksum mismatch");
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<uint64_t> rows, DecodeBitmap(bitmap));
  if (static_cast<int64_t>(rows.size()) != dv.cardinality) {
    return Status::Corruption("deletion vector holds " + std::to_string(rows.size()) +
                              " rows, cardinality says " + std::to_string(dv.cardinality));
  }
  return rows;
}

namespace {

// The SQL that lists version `version`'s live files, and the one that finds its schema.
std::pair<std::string, std::string> LogQueries(const std::string& root,
                                               std::optional<int64_t> version) {
  const std::string scoped =
      "WITH lines AS (SELECT CAST(regexp_extract(filename, '(\\d{20})\\.json$', 1) AS BIGINT) "
      "AS version, json FROM read_ndjson_objects(" +
      SqlString(root + "/_delta_log/*.json") +
      ", filename=true) WHERE regexp_matches(filename, '/\\d{20}\\.json$')), scoped AS (SELECT * "
      "FROM lines" +
      (version ? " WHERE version <= " + std::to_string(*version) : std::string()) + ") ";
  // Newest action per logical file (path, deletion vector id) decides whether it is live.
  std::string files_sql =
      scoped +
      ", events AS (SELECT version, true AS live, json_extract(json, '$.add') AS action FROM "
      "scoped WHERE json_extract(json, '$.add') IS NOT NULL UNION ALL SELECT version, false, "
      "json_extract(json, '$.remove') FROM scoped WHERE json_extract(json, '$.remove') IS NOT "
      "NULL), keyed AS (SELECT version, live, action, json_extract_string(action, '$.path') || "
      "'|' || coalesce(json_extract_string(action, '$.deletionVector.storageType') || "
      "json_extract_string(action, '$.deletionVector.pathOrInlineDv') || '@' || "
      "coalesce(json_extract_string(action, '$.deletionVector.offset'), ''), '') AS k FROM "
      "events), latest AS (SELECT k, arg_max(live, version) AS live, arg_max(action, version) "
      "AS action FROM keyed GROUP BY k) SELECT json_extract_string(action, '$.path') AS path, "
      "CAST(json_extract(action, '$.partitionValues') AS VARCHAR) AS pv, "
      "CAST(json_extract(action, '$.deletionVector') AS VARCHAR) AS dv FROM latest WHERE live "
      "ORDER BY path, dv";
  std::string metadata_sql =
      scoped +
      "SELECT (SELECT max(version) FROM scoped) AS version, json_extract_string(json, "
      "'$.metaData.schemaString') AS schema, CAST(json_extract(json, "
      "'$.metaData.partitionColumns') AS VARCHAR) AS partition_columns, "
      "json_extract_string(json, '$.metaData.configuration.\"delta.columnMapping.mode\"') AS "
      "mapping FROM scoped WHERE json_extract(json, '$.metaData') IS NOT NULL ORDER BY version "
      "DESC LIMIT 1";
  return {std::move(files_sql), std::move(metadata_sql)};
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

// From the live files and metadata of one version: `table`'s version and files, and the SQL
// that reads its rows (empty when there are no files).
// `extra_column`, when given, is one more select item after the schema's columns.
Result<std::string> PlanDataQuery(const std::string& root, const std::vector<std::string>& files,
                                  const std::vector<std::string>& metadata_rows,
                                  ReplayedTable* table, const std::string& extra_column = "") {
  if (metadata_rows.size() != 1) {
    return Status::Corruption("replay: no metaData action in " + root);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json metadata, ParseLine(metadata_rows[0]));
  table->version = metadata["version"].get<int64_t>();
  if (metadata["mapping"].is_string() && metadata["mapping"].get<std::string>() != "none") {
    return Status::NotImplemented("replay: column mapping");
  }
  const nlohmann::json schema = nlohmann::json::parse(metadata["schema"].get<std::string>());
  const nlohmann::json partition_columns =
      nlohmann::json::parse(metadata["partition_columns"].get<std::string>());
  std::map<std::string, std::string> partition_types;
  for (const auto& field : schema["fields"]) {
    for (const auto& column : partition_columns) {
      if (column == field["name"]) {
        TRIBUTARY_ASSIGN_OR_RAISE(partition_types[column.get<std::string>()],
                                  DuckDbType(field["type"].get<std::string>()));
      }
    }
  }

  // Per live file: its path for DuckDB, its partition values and its deleted rows.
  std::vector<std::string> file_list;
  std::vector<std::string> partition_rows;
  std::vector<std::string> deleted_rows;
  for (const std::string& line : files) {
    TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json entry, ParseLine(line));
    ReplayFile file;
    file.path = entry["path"].get<std::string>();
    TRIBUTARY_ASSIGN_OR_RAISE(std::string local, DataFilePath(root, file.path));
    file_list.push_back(SqlString(local));
    std::string values = "(" + SqlString(local);
    const nlohmann::json pv = entry["pv"].is_string()
                                  ? nlohmann::json::parse(entry["pv"].get<std::string>())
                                  : nlohmann::json::object();
    for (const auto& column : partition_columns) {
      const auto it = pv.find(column.get<std::string>());
      values += ", ";
      values += it == pv.end() || it->is_null() ? "NULL" : SqlString(it->get<std::string>());
    }
    partition_rows.push_back(values + ")");
    if (entry["dv"].is_string()) {
      const nlohmann::json dv = nlohmann::json::parse(entry["dv"].get<std::string>());
      if (!dv.is_null()) {
        ReplayDeletionVector descriptor;
        descriptor.storage_type = dv["storageType"].get<std::string>();
        descriptor.path_or_inline_dv = dv["pathOrInlineDv"].get<std::string>();
        descriptor.offset = dv.value("offset", int64_t{0});
        descriptor.size_in_bytes = dv["sizeInBytes"].get<int64_t>();
        descriptor.cardinality = dv["cardinality"].get<int64_t>();
        TRIBUTARY_ASSIGN_OR_RAISE(std::vector<uint64_t> rows,
                                  ReadDeletionVectorRows(root, descriptor));
        for (uint64_t row : rows) {
          deleted_rows.push_back("(" + SqlString(local) + ", " + std::to_string(row) + ")");
        }
        file.deletion_vector = descriptor;
      }
    }
    table->files.push_back(std::move(file));
  }
  if (table->files.empty()) {
    return std::string();
  }
  std::string pv_columns = "f";
  std::vector<std::string> select;
  for (const auto& field : schema["fields"]) {
    const std::string name = field["name"].get<std::string>();
    if (const auto it = partition_types.find(name); it != partition_types.end()) {
      const std::string alias = "pv_" + std::to_string(select.size());
      pv_columns += ", " + alias;
      select.push_back("CAST(pv." + alias + " AS " + it->second + ") AS " + Identifier(name));
    } else {
      select.push_back("d." + Identifier(name));
    }
  }
  if (!extra_column.empty()) {
    select.push_back(extra_column);
  }
  std::string data_sql =
      "WITH pv(" + pv_columns + ") AS (VALUES " + JoinComma(partition_rows) + ")";
  if (!deleted_rows.empty()) {
    data_sql += ", del(f, r) AS (VALUES " + JoinComma(deleted_rows) + ")";
  }
  data_sql += " SELECT " + JoinComma(select) + " FROM read_parquet([" + JoinComma(file_list) +
              "], union_by_name=true, filename=true, file_row_number=true, "
              "hive_partitioning=false) AS d JOIN pv ON d.filename = pv.f";
  if (!deleted_rows.empty()) {
    data_sql +=
        " WHERE NOT EXISTS (SELECT 1 FROM del WHERE del.f = d.filename AND del.r = "
        "d.file_row_number)";
  }
  return data_sql;
}

// Runs the non-empty queries of `data_sql` in one DuckDB process; each one's rows, sorted, go
// to the same index of `rows` (an empty query leaves its entry empty).
Status RunSortedQueries(std::vector<std::string> data_sql,
                        std::vector<std::vector<std::string>*> rows) {
  std::vector<std::string> queries;
  std::vector<std::vector<std::string>*> targets;
  for (size_t i = 0; i < data_sql.size(); ++i) {
    if (!data_sql[i].empty()) {
      queries.push_back(std::move(data_sql[i]));
      targets.push_back(rows[i]);
    }
  }
  if (queries.empty()) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto data, OracleQueryMany(queries));
  for (size_t j = 0; j < data.size(); ++j) {
    TRIBUTARY_RETURN_NOT_OK(data[j].status());
    *targets[j] = *std::move(data[j]);
    std::sort(targets[j]->begin(), targets[j]->end());
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<ReplayedTable>> ReplayDeltaVersions(const std::string& root,
                                                       const std::vector<int64_t>& versions) {
  std::vector<std::string> log_sql;
  for (int64_t version : versions) {
    auto [files_sql, metadata_sql] = LogQueries(root, version);
    log_sql.push_back(std::move(files_sql));
    log_sql.push_back(std::move(metadata_sql));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto log, OracleQueryMany(log_sql));
  std::vector<ReplayedTable> tables(versions.size());
  std::vector<std::string> data_sql(versions.size());
  std::vector<std::vector<std::string>*> rows;
  for (size_t i = 0; i < versions.size(); ++i) {
    TRIBUTARY_RETURN_NOT_OK(log[2 * i].status());
    TRIBUTARY_RETURN_NOT_OK(log[2 * i + 1].status());
    TRIBUTARY_ASSIGN_OR_RAISE(data_sql[i],
                              PlanDataQuery(root, *log[2 * i], *log[2 * i + 1], &tables[i]));
    rows.push_back(&tables[i].rows);
  }
  TRIBUTARY_RETURN_NOT_OK(RunSortedQueries(std::move(data_sql), std::move(rows)));
  return tables;
}

Result<std::vector<std::vector<std::string>>> ReplayChangeFeed(
    const std::string& root, const std::vector<int64_t>& versions) {
  std::vector<std::string> log_sql;
  for (int64_t version : versions) {
    const std::string lines =
        "WITH lines AS (SELECT CAST(regexp_extract(filename, '(\\d{20})\\.json$', 1) AS BIGINT) "
        "AS version, json FROM read_ndjson_objects(" +
        SqlString(root + "/_delta_log/*.json") +
        ", filename=true) WHERE regexp_matches(filename, '/\\d{20}\\.json$')), one_commit AS "
        "(SELECT "
        "json FROM lines WHERE version = " +
        std::to_string(version) + ") ";
    log_sql.push_back(lines +
                      "SELECT json_extract_string(json, '$.cdc.path') AS path, "
                      "CAST(json_extract(json, '$.cdc.partitionValues') AS VARCHAR) AS pv FROM "
                      "one_commit WHERE json_extract(json, '$.cdc') IS NOT NULL ORDER BY path");
    log_sql.push_back(lines +
                      "SELECT json_extract_string(json, '$.add.path') AS path, "
                      "CAST(json_extract(json, '$.add.partitionValues') AS VARCHAR) AS pv, "
                      "CAST(json_extract(json, '$.add.deletionVector') AS VARCHAR) AS dv FROM "
                      "one_commit WHERE json_extract(json, '$.add') IS NOT NULL AND "
                      "json_extract_string(json, '$.add.dataChange') = 'true' ORDER BY path");
    log_sql.push_back(LogQueries(root, version).second);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto log, OracleQueryMany(log_sql));
  std::vector<std::vector<std::string>> changes(versions.size());
  std::vector<std::string> data_sql(versions.size());
  std::vector<std::vector<std::string>*> rows;
  for (size_t i = 0; i < versions.size(); ++i) {
    for (size_t j = 0; j < 3; ++j) {
      TRIBUTARY_RETURN_NOT_OK(log[3 * i + j].status());
    }
    ReplayedTable table;
    const std::vector<std::string>& cdc = *log[3 * i];
    // A commit with cdc files has its changes in them; one without (an append) changes by its
    // added files, every row an insert (PROTOCOL.md "Change Data Files").
    TRIBUTARY_ASSIGN_OR_RAISE(
        data_sql[i], cdc.empty()
                         ? PlanDataQuery(root, *log[3 * i + 1], *log[3 * i + 2], &table,
                                         "'insert' AS _change_type")
                         : PlanDataQuery(root, cdc, *log[3 * i + 2], &table, "d._change_type"));
    rows.push_back(&changes[i]);
  }
  TRIBUTARY_RETURN_NOT_OK(RunSortedQueries(std::move(data_sql), std::move(rows)));
  return changes;
}

Result<ReplayedTable> ReplayDeltaTable(const std::string& root, std::optional<int64_t> version) {
  // Without a version: the newest commit (the log has no commit at or below INT64_MAX newer).
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto tables,
      ReplayDeltaVersions(root, {version.value_or(std::numeric_limits<int64_t>::max())}));
  return std::move(tables[0]);
}

}  // namespace tributary::testing
