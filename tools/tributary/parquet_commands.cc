#include "parquet_commands.h"

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "formats/parquet/compression.h"
#include "formats/parquet/reader.h"
#include "storage/uri_file_system.h"

namespace tributary::tools {
namespace {

using parquet::ParquetFileReader;

Result<std::unique_ptr<ParquetFileReader>> OpenFile(const std::string& path) {
  storage::UriFileSystem fs;
  return ParquetFileReader::Open(fs, path);
}

void PrintNode(const parquet::SchemaNode& node, int depth, std::ostream& out) {
  std::string detail;
  if (node.kind == parquet::SchemaNode::Kind::kLeaf) {
    detail = fmt::format("  ({}{}, def {}, rep {})", parquet::PhysicalTypeName(node.physical_type),
                         node.type_length > 0 ? fmt::format("[{}]", node.type_length) : "",
                         node.def_level, node.rep_level);
  }
  out << fmt::format("{:{}}{}: {}{}{}\n", "", depth * 2, node.name, node.type->ToString(),
                     node.nullable ? "" : " not null", detail);
  for (const auto& child : node.children) {
    PrintNode(*child, depth + 1, out);
  }
}

std::string StatisticText(const columnar::ColumnPtr& column) {
  if (column == nullptr) {
    return "-";
  }
  std::string text;
  columnar::AppendCanonicalJsonValue(*column, 0, &text);
  return text;
}

}  // namespace

Status ParquetSchema(const std::string& path, std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, OpenFile(path));
  for (const auto& child : reader->Tree().root->children) {
    PrintNode(*child, 0, out);
  }
  return Status::OK();
}

Status ParquetMeta(const std::string& path, std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, OpenFile(path));
  const parquet::FileMetaData& md = reader->Metadata();
  out << fmt::format("file: {}\ncreated by: {}\nversion: {}\nrows: {}\nrow groups: {}\n", path,
                     md.created_by.value_or("-"), md.version, md.num_rows, md.row_groups.size());
  for (const auto& kv : md.key_value_metadata) {
    std::string value = kv.value.value_or("");
    if (value.size() > 120) {
      value = value.substr(0, 117) + "...";
    }
    out << fmt::format("key-value: {} = {}\n", kv.key, value);
  }
  for (int g = 0; g < reader->NumRowGroups(); ++g) {
    const parquet::RowGroup& group = md.row_groups[static_cast<size_t>(g)];
    out << fmt::format("row group {}: {} rows, {} bytes\n", g, group.num_rows,
                       group.total_byte_size);
    for (const parquet::SchemaNode* leaf : reader->Tree().leaves) {
      const parquet::ColumnChunk& chunk = group.columns[static_cast<size_t>(leaf->leaf_index)];
      if (!chunk.meta_data) {
        continue;
      }
      const parquet::ColumnMetaData& cmd = *chunk.meta_data;
      std::string encodings;
      for (parquet::Encoding e : cmd.encodings) {
        encodings += encodings.empty() ? "" : ",";
        encodings += parquet::EncodingName(e);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto stats, reader->RowGroupStatistics(g, leaf->path));
      out << fmt::format(
          "  {}: {} {} [{}] values {} compressed {} uncompressed {} min {} max {} nulls {}\n",
          leaf->path, parquet::PhysicalTypeName(cmd.type), parquet::CodecName(cmd.codec), encodings,
          cmd.num_values, cmd.total_compressed_size, cmd.total_uncompressed_size,
          StatisticText(stats.min), StatisticText(stats.max),
          stats.null_count ? std::to_string(*stats.null_count) : "-");
    }
  }
  return Status::OK();
}

Status ParquetCat(const std::string& path, const std::vector<std::string>& columns,
                  std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, OpenFile(path));
  std::string line;
  for (int g = 0; g < reader->NumRowGroups(); ++g) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->ReadRowGroup(g, columns));
    for (int64_t row = 0; row < batch->NumRows(); ++row) {
      line.clear();
      columnar::AppendCanonicalJsonRow(*batch, row, &line);
      line.push_back('\n');
      out << line;
    }
  }
  return Status::OK();
}

}  // namespace tributary::tools
