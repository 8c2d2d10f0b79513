// Parquet checkpoints hold one action per row, each action type in its own struct column
// (PROTOCOL.md "Checkpoint Schema"): add, remove, metaData, protocol, txn, domainMetadata,
// checkpointMetadata, sidecar. Only the fields replay needs are decoded: add.stats_parsed
// (typed statistics, PROTOCOL.md "Checkpoint Schema") is preferred to the JSON string in
// add.stats when a row has it; partitionValues_parsed is skipped (partitionValues is required).

#include "delta/checkpoint_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "delta/stats_parsed.h"
#include "formats/parquet/reader.h"

namespace tributary::delta {
namespace {

// Rows converted to actions at a time: an Action is large (every action type's fields), so a
// checkpoint's rows are never all held as actions at once.
constexpr int64_t kActionsPerVisit = 4096;

using columnar::Column;
using columnar::ColumnPtr;
using columnar::TypeId;

// Child `name` of a struct column, or nullptr.
const Column* ChildOf(const Column* column, const std::string& name) {
  if (column == nullptr || column->Type()->Id() != TypeId::kStruct) {
    return nullptr;
  }
  const int index = column->Type()->FieldIndex(name);
  return index < 0 ? nullptr : column->Child(index).get();
}

bool Present(const Column* column, int64_t row) {
  return column != nullptr && column->IsValid(row);
}

std::optional<std::string> GetString(const Column* column, int64_t row) {
  if (!Present(column, row) || !column->Type()->IsBinaryLike()) {
    return std::nullopt;
  }
  return std::string(column->BytesAt(row));
}

std::optional<int64_t> GetInt(const Column* column, int64_t row) {
  if (!Present(column, row)) {
    return std::nullopt;
  }
  switch (column->Type()->Id()) {
    case TypeId::kInt8:
      return column->Values<int8_t>()[row];
    case TypeId::kInt16:
      return column->Values<int16_t>()[row];
    case TypeId::kInt32:
      return column->Values<int32_t>()[row];
    case TypeId::kInt64:
      return column->Values<int64_t>()[row];
    default:
      return std::nullopt;
  }
}

std::optional<bool> GetBool(const Column* column, int64_t row) {
  if (!Present(column, row) || column->Type()->Id() != TypeId::kBoolean) {
    return std::nullopt;
  }
  return column->Values<uint8_t>()[row] != 0;
}

// A map<string,string> cell as (key, value-or-null) pairs.
std::vector<std::pair<std::string, std::optional<std::string>>> GetMap(const Column* column,
                                                                       int64_t row) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  if (!Present(column, row) || column->Type()->Id() != TypeId::kMap) {
    return out;
  }
  const Column* keys = column->Child(0).get();
  const Column* values = column->Child(1).get();
  for (int64_t i = column->Offsets()[row]; i < column->Offsets()[row + 1]; ++i) {
    if (auto key = GetString(keys, i)) {
      out.emplace_back(*key, GetString(values, i));
    }
  }
  return out;
}

std::vector<std::string> GetStringList(const Column* column, int64_t row) {
  std::vector<std::string> out;
  if (!Present(column, row) || column->Type()->Id() != TypeId::kArray) {
    return out;
  }
  for (int64_t i = column->Offsets()[row]; i < column->Offsets()[row + 1]; ++i) {
    if (auto value = GetString(column->Child(0).get(), i)) {
      out.push_back(*value);
    }
  }
  return out;
}

std::optional<DeletionVectorDescriptor> GetDeletionVector(const Column* column, int64_t row) {
  if (!Present(column, row)) {
    return std::nullopt;
  }
  DeletionVectorDescriptor dv;
  dv.storage_type = GetString(ChildOf(column, "storageType"), row).value_or("");
  dv.path_or_inline_dv = GetString(ChildOf(column, "pathOrInlineDv"), row).value_or("");
  if (auto offset = GetInt(ChildOf(column, "offset"), row)) {
    dv.offset = static_cast<int32_t>(*offset);
  }
  dv.size_in_bytes = static_cast<int32_t>(GetInt(ChildOf(column, "sizeInBytes"), row).value_or(0));
  dv.cardinality = GetInt(ChildOf(column, "cardinality"), row).value_or(0);
  return dv;
}

PartitionValues GetPartitionValues(const Column* column, int64_t row) {
  PartitionValues out;
  for (auto& [key, value] : GetMap(column, row)) {
    out[key] = value;
  }
  return out;
}

// Appends the actions of rows [begin, end) of `batch` to `out`.
Status ToActions(const columnar::RecordBatch& batch, const std::string& path, int64_t begin,
                 int64_t end, std::vector<Action>* out) {
  const Column* add = batch.ColumnByName("add").get();
  const Column* remove = batch.ColumnByName("remove").get();
  const Column* metadata = batch.ColumnByName("metaData").get();
  const Column* protocol = batch.ColumnByName("protocol").get();
  const Column* txn = batch.ColumnByName("txn").get();
  const Column* domain = batch.ColumnByName("domainMetadata").get();
  const Column* checkpoint_metadata = batch.ColumnByName("checkpointMetadata").get();
  const Column* sidecar = batch.ColumnByName("sidecar").get();
  for (int64_t row = begin; row < end; ++row) {
    Action action;
    if (Present(add, row)) {
      AddFile& a = action.add.emplace();
      auto raw_path = GetString(ChildOf(add, "path"), row);
      if (!raw_path) {
        return Status::Corruption(fmt::format("{}: row {}: add without a path", path, row));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(a.path, DecodeUriPath(*raw_path));
      a.partition_values = GetPartitionValues(ChildOf(add, "partitionValues"), row);
      a.size = GetInt(ChildOf(add, "size"), row).value_or(0);
      a.modification_time = GetInt(ChildOf(add, "modificationTime"), row).value_or(0);
      a.data_change = GetBool(ChildOf(add, "dataChange"), row).value_or(false);
      const Column* stats_parsed = ChildOf(add, "stats_parsed");
      a.stats = stats_parsed != nullptr ? StatsJsonFromParsed(*stats_parsed, row) : std::nullopt;
      if (!a.stats) {
        a.stats = GetString(ChildOf(add, "stats"), row);
      }
      for (auto& [key, value] : GetMap(ChildOf(add, "tags"), row)) {
        if (value) {
          a.tags[key] = *value;
        }
      }
      a.deletion_vector = GetDeletionVector(ChildOf(add, "deletionVector"), row);
      a.base_row_id = GetInt(ChildOf(add, "baseRowId"), row);
      a.default_row_commit_version = GetInt(ChildOf(add, "defaultRowCommitVersion"), row);
    } else if (Present(remove, row)) {
      RemoveFile& r = action.remove.emplace();
      auto raw_path = GetString(ChildOf(remove, "path"), row);
      if (!raw_path) {
        return Status::Corruption(fmt::format("{}: row {}: remove without a path", path, row));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(r.path, DecodeUriPath(*raw_path));
      r.deletion_timestamp = GetInt(ChildOf(remove, "deletionTimestamp"), row);
      r.data_change = GetBool(ChildOf(remove, "dataChange"), row).value_or(false);
      r.deletion_vector = GetDeletionVector(ChildOf(remove, "deletionVector"), row);
    } else if (Present(metadata, row)) {
      Metadata& m = action.metadata.emplace();
      m.id = GetString(ChildOf(metadata, "id"), row).value_or("");
      m.name = GetString(ChildOf(metadata, "name"), row);
      m.description = GetString(ChildOf(metadata, "description"), row);
      const Column* format = ChildOf(metadata, "format");
      m.format_provider = GetString(ChildOf(format, "provider"), row).value_or("parquet");
      auto schema = GetString(ChildOf(metadata, "schemaString"), row);
      if (!schema) {
        return Status::Corruption(
            fmt::format("{}: row {}: metaData without schemaString", path, row));
      }
      m.schema_string = *schema;
      m.partition_columns = GetStringList(ChildOf(metadata, "partitionColumns"), row);
      for (auto& [key, value] : GetMap(ChildOf(metadata, "configuration"), row)) {
        if (value) {
          m.configuration[key] = *value;
        }
      }
      m.created_time = GetInt(ChildOf(metadata, "createdTime"), row);
    } else if (Present(protocol, row)) {
      Protocol& p = action.protocol.emplace();
      p.min_reader_version =
          static_cast<int32_t>(GetInt(ChildOf(protocol, "minReaderVersion"), row).value_or(1));
      p.min_writer_version =
          static_cast<int32_t>(GetInt(ChildOf(protocol, "minWriterVersion"), row).value_or(2));
      if (Present(ChildOf(protocol, "readerFeatures"), row)) {
        p.reader_features = GetStringList(ChildOf(protocol, "readerFeatures"), row);
      }
      if (Present(ChildOf(protocol, "writerFeatures"), row)) {
        p.writer_features = GetStringList(ChildOf(protocol, "writerFeatures"), row);
      }
    } else if (Present(txn, row)) {
      Txn& t = action.txn.emplace();
      t.app_id = GetString(ChildOf(txn, "appId"), row).value_or("");
      t.version = GetInt(ChildOf(txn, "version"), row).value_or(0);
      t.last_updated = GetInt(ChildOf(txn, "lastUpdated"), row);
    } else if (Present(domain, row)) {
      DomainMetadata& d = action.domain_metadata.emplace();
      d.domain = GetString(ChildOf(domain, "domain"), row).value_or("");
      d.configuration = GetString(ChildOf(domain, "configuration"), row).value_or("");
      d.removed = GetBool(ChildOf(domain, "removed"), row).value_or(false);
    } else if (Present(sidecar, row)) {
      Sidecar& s = action.sidecar.emplace();
      s.path = GetString(ChildOf(sidecar, "path"), row).value_or("");
      s.size_in_bytes = GetInt(ChildOf(sidecar, "sizeInBytes"), row).value_or(0);
      s.modification_time = GetInt(ChildOf(sidecar, "modificationTime"), row).value_or(0);
    } else if (Present(checkpoint_metadata, row)) {
      action.checkpoint_metadata = true;
    } else {
      continue;
    }
    out->push_back(std::move(action));
  }
  return Status::OK();
}

// The leaf paths replay needs, limited to those the file has.
std::vector<std::string> WantedColumns(const parquet::ParquetFileReader& reader) {
  static const std::vector<std::string> kWanted = {"add.path",
                                                   "add.partitionValues",
                                                   "add.size",
                                                   "add.modificationTime",
                                                   "add.dataChange",
                                                   "add.stats",
                                                   "add.stats_parsed",
                                                   "add.tags",
                                                   "add.deletionVector",
                                                   "add.baseRowId",
                                                   "add.defaultRowCommitVersion",
                                                   "remove.path",
                                                   "remove.deletionTimestamp",
                                                   "remove.dataChange",
                                                   "remove.deletionVector",
                                                   "metaData",
                                                   "protocol",
                                                   "txn",
                                                   "domainMetadata",
                                                   "checkpointMetadata",
                                                   "sidecar"};
  std::vector<std::string> out;
  const auto& top = reader.Tree().root->children;
  for (const std::string& path : kWanted) {
    const size_t dot = path.find('.');
    const std::string head = path.substr(0, dot);
    for (const auto& node : top) {
      if (node->name != head) {
        continue;
      }
      if (dot == std::string::npos) {
        out.push_back(path);
        break;
      }
      const std::string field = path.substr(dot + 1);
      for (const auto& child : node->children) {
        if (child->name == field) {
          out.push_back(path);
        }
      }
    }
  }
  return out;
}

}  // namespace

Status ReadCheckpointFile(storage::FileSystem& fs, const std::string& path,
                          const std::function<Status(std::vector<Action>&)>& visit) {
  std::vector<Action> actions;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(path));
    TRIBUTARY_ASSIGN_OR_RAISE(actions, ParseCommit(text, path));
    return visit(actions);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::Open(fs, path));
  const std::vector<std::string> columns = WantedColumns(*reader);
  if (columns.empty()) {
    return Status::OK();
  }
  for (int g = 0; g < reader->NumRowGroups(); ++g) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->ReadRowGroup(g, columns));
    for (int64_t begin = 0; begin < batch->NumRows(); begin += kActionsPerVisit) {
      const int64_t end = std::min(batch->NumRows(), begin + kActionsPerVisit);
      actions.clear();
      TRIBUTARY_RETURN_NOT_OK(ToActions(*batch, path, begin, end, &actions));
      TRIBUTARY_RETURN_NOT_OK(visit(actions));
    }
  }
  return Status::OK();
}

}  // namespace tributary::delta
