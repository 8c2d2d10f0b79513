// Parquet file layout (apache/parquet-format README.md "File Format"):
//
//   file   = "PAR1" *column-chunk footer
//   footer = FileMetaData(thrift compact) length(4-byte LE) "PAR1"
//
// Nested values are reassembled from each leaf's definition and repetition levels (the Dremel
// encoding, README.md "Nested Encoding"): every instance of a node, present, null or empty,
// owns a run of level entries in each leaf below it. Assembly walks the tree top-down, tracking
// for every leaf where each instance's run starts.

#include "formats/parquet/reader.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <type_traits>

#include <fmt/format.h>

#include "columnar/take.h"
#include "formats/parquet/column_chunk_reader.h"

namespace tributary::parquet {

using columnar::Buffer;
using columnar::BufferPtr;
using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;

namespace {

constexpr int64_t kFooterTail = 8;  // footer length + "PAR1"

// For each leaf being assembled: where each instance of the current node starts in the leaf's
// level entries, plus one past the last entry.
struct LeafSlots {
  int leaf = 0;
  std::vector<int64_t> starts;
};
using SlotMap = std::vector<LeafSlots>;

class Assembler {
 public:
  Assembler(const std::vector<LeafData>& data, const std::vector<const SchemaNode*>& leaves,
            columnar::MemoryPool* pool)
      : data_(data), leaves_(leaves), pool_(pool), value_index_(data.size()) {}

  Result<ColumnPtr> Build(const SchemaNode& node, const SlotMap& slots, const std::set<int>& keep) {
    switch (node.kind) {
      case SchemaNode::Kind::kLeaf:
        return BuildLeaf(node, slots.front());
      case SchemaNode::Kind::kStruct:
        return BuildStruct(node, slots, keep);
      case SchemaNode::Kind::kList:
      case SchemaNode::Kind::kMap:
        return BuildRepeated(node, slots, keep);
    }
    return Status::Internal("unknown schema node kind");
  }

 private:
  int16_t Def(int leaf, int64_t entry) const {
    const LeafData& d = data_[static_cast<size_t>(leaf)];
    return d.def_levels.empty() ? leaves_[static_cast<size_t>(leaf)]->def_level
                                : d.def_levels[static_cast<size_t>(entry)];
  }
  int16_t Rep(int leaf, int64_t entry) const {
    const LeafData& d = data_[static_cast<size_t>(leaf)];
    return d.rep_levels.empty() ? 0 : d.rep_levels[static_cast<size_t>(entry)];
  }

  // Validity of a nullable node from the first entry of each instance in one leaf.
  Result<BufferPtr> Validity(const SchemaNode& node, const LeafSlots& slots) {
    const int64_t n = static_cast<int64_t>(slots.starts.size()) - 1;
    if (!node.nullable) {
      return BufferPtr();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(n), pool_));
    bool any_null = false;
    for (int64_t k = 0; k < n; ++k) {
      const bool valid = Def(slots.leaf, slots.starts[static_cast<size_t>(k)]) >= node.def_level;
      columnar::SetBitTo(bits->mutable_data(), k, valid);
      any_null |= !valid;
    }
    return any_null ? BufferPtr(std::move(bits)) : BufferPtr();
  }

  const std::vector<int64_t>& ValueIndex(int leaf) {
    std::vector<int64_t>& index = value_index_[static_cast<size_t>(leaf)];
    const LeafData& d = data_[static_cast<size_t>(leaf)];
    if (index.empty() && d.num_entries > 0) {
      index.resize(static_cast<size_t>(d.num_entries));
      const int16_t max_def = leaves_[static_cast<size_t>(leaf)]->def_level;
      int64_t count = 0;
      for (int64_t e = 0; e < d.num_entries; ++e) {
        index[static_cast<size_t>(e)] = count;
        count += Def(leaf, e) == max_def;
      }
    }
    return index;
  }

  Result<ColumnPtr> BuildLeaf(const SchemaNode& node, const LeafSlots& slots) {
    const LeafData& d = data_[static_cast<size_t>(slots.leaf)];
    const int64_t n = static_cast<int64_t>(slots.starts.size()) - 1;
    const bool identity = n == d.num_entries && d.rep_levels.empty();
    if (identity && d.def_levels.empty()) {
      return d.values;  // flat, required: the values are the column
    }
    if (identity && d.values->Length() == n) {
      return d.values;  // flat and optional, but no value is null in this row group
    }
    if (identity && d.values->Type()->ByteWidth() > 0) {
      return ScatterFlat(node, d, n);
    }
    const std::vector<int64_t>& value_index = ValueIndex(slots.leaf);
    std::vector<int64_t> rows(static_cast<size_t>(n), 0);
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(n), pool_));
    int64_t present = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t e = slots.starts[static_cast<size_t>(k)];
      const bool valid = Def(slots.leaf, e) >= node.def_level;
      if (valid) {
        rows[static_cast<size_t>(k)] = value_index[static_cast<size_t>(e)];
        ++present;
      }
      columnar::SetBitTo(bits->mutable_data(), k, valid);
    }
    if (present == 0) {
      return Column::MakeAllNull(node.type, n, pool_);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto gathered, columnar::Take(*d.values, rows, pool_));
    return Column::Make(gathered->Type(), n, present == n ? nullptr : BufferPtr(std::move(bits)),
                        gathered->ValuesBuffer(), gathered->OffsetsBuffer());
  }

  // A flat optional fixed-width leaf: values placed at the rows whose definition level says
  // present, in one sequential pass (no index vector, no gather).
  Result<ColumnPtr> ScatterFlat(const SchemaNode& node, const LeafData& d, int64_t n) {
    const int width = d.values->Type()->ByteWidth();
    // Every slot is written below: a present value, or zeros under a null.
    TRIBUTARY_ASSIGN_OR_RAISE(auto values, Buffer::AllocateUninitialized(n * width, pool_));
    TRIBUTARY_ASSIGN_OR_RAISE(auto bits, Buffer::Allocate(columnar::BitmapBytes(n), pool_));
    const uint8_t* in = d.values->ValuesBuffer()->data();
    uint8_t* out = values->mutable_data();
    uint8_t* valid_bits = bits->mutable_data();
    const int16_t* defs = d.def_levels.data();
    const int16_t present_level = node.def_level;
    auto scatter = [&](auto width_constant) {
      constexpr int kWidth = decltype(width_constant)::value;
      int64_t next = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (defs[k] >= present_level) {
          std::memcpy(out + k * kWidth, in + next * kWidth, kWidth);
          ++next;
          columnar::SetBit(valid_bits, k);
        } else {
          std::memset(out + k * kWidth, 0, kWidth);
        }
      }
    };
    switch (width) {
      case 1:
        scatter(std::integral_constant<int, 1>());
        break;
      case 2:
        scatter(std::integral_constant<int, 2>());
        break;
      case 4:
        scatter(std::integral_constant<int, 4>());
        break;
      case 8:
        scatter(std::integral_constant<int, 8>());
        break;
      default:
        scatter(std::integral_constant<int, 16>());
        break;
    }
    return Column::Make(node.type, n, BufferPtr(std::move(bits)), BufferPtr(std::move(values)));
  }

  static SlotMap Restrict(const SlotMap& slots, const SchemaNode& child) {
    SlotMap out;
    for (const LeafSlots& s : slots) {
      if (std::find(child.leaves.begin(), child.leaves.end(), s.leaf) != child.leaves.end()) {
        out.push_back(s);
      }
    }
    return out;
  }

  Result<ColumnPtr> BuildStruct(const SchemaNode& node, const SlotMap& slots,
                                const std::set<int>& keep) {
    const int64_t n = static_cast<int64_t>(slots.front().starts.size()) - 1;
    std::vector<Field> fields;
    std::vector<ColumnPtr> children;
    for (const auto& child : node.children) {
      SlotMap child_slots = Restrict(slots, *child);
      if (child_slots.empty()) {
        continue;  // projected away
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, Build(*child, child_slots, keep));
      fields.emplace_back(child->name, column->Type(), child->nullable);
      children.push_back(std::move(column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, Validity(node, slots.front()));
    return Column::Make(DataType::Struct(std::move(fields)), n, std::move(validity), nullptr,
                        nullptr, std::move(children));
  }

  Result<ColumnPtr> BuildRepeated(const SchemaNode& node, const SlotMap& slots,
                                  const std::set<int>& keep) {
    const int64_t n = static_cast<int64_t>(slots.front().starts.size()) - 1;
    SlotMap element_slots;
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((n + 1) * 8, pool_));
    int64_t* offs = offsets->MutableDataAs<int64_t>();
    for (size_t l = 0; l < slots.size(); ++l) {
      const LeafSlots& s = slots[l];
      LeafSlots out{s.leaf, {}};
      offs[0] = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t begin = s.starts[static_cast<size_t>(k)];
        const int64_t end = s.starts[static_cast<size_t>(k) + 1];
        for (int64_t e = begin; e < end; ++e) {
          if (Def(s.leaf, e) >= node.repeated_def_level &&
              (e == begin || Rep(s.leaf, e) <= node.repeated_rep_level)) {
            out.starts.push_back(e);
          }
        }
        if (l == 0) {
          offs[k + 1] = static_cast<int64_t>(out.starts.size());
        }
      }
      out.starts.push_back(s.starts.back());
      element_slots.push_back(std::move(out));
    }
    // Every leaf must see the same number of elements, or the levels contradict each other.
    for (const LeafSlots& s : element_slots) {
      if (s.starts.size() != element_slots.front().starts.size()) {
        return Status::Corruption(
            fmt::format("column {}: leaves disagree on the number of elements ({} and {})",
                        node.path, element_slots.front().starts.size() - 1, s.starts.size() - 1));
      }
    }
    std::vector<ColumnPtr> children;
    for (const auto& child : node.children) {
      SlotMap child_slots = Restrict(element_slots, *child);
      if (child_slots.empty()) {
        return Status::InvalidArgument(fmt::format(
            "column {}: projecting part of a {} is not supported; select the whole column",
            node.path, node.kind == SchemaNode::Kind::kMap ? "map" : "list"));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, Build(*child, child_slots, keep));
      children.push_back(std::move(column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(BufferPtr validity, Validity(node, slots.front()));
    const bool element_nullable = node.children[node.children.size() - 1]->nullable;
    auto type = node.kind == SchemaNode::Kind::kMap
                    ? DataType::Map(children[0]->Type(), children[1]->Type(), element_nullable)
                    : DataType::Array(children[0]->Type(), element_nullable);
    return Column::Make(std::move(type), n, std::move(validity), nullptr,
                        BufferPtr(std::move(offsets)), std::move(children));
  }

  const std::vector<LeafData>& data_;
  const std::vector<const SchemaNode*>& leaves_;
  columnar::MemoryPool* pool_;
  std::vector<std::vector<int64_t>> value_index_;
};

// A requested output column: a top-level node and the leaves kept below it.
struct Selection {
  const SchemaNode* node;
  std::set<int> keep;
};

Result<std::vector<Selection>> Select(const FileSchema& schema, const std::string& file,
                                      const std::vector<std::string>& columns) {
  std::vector<Selection> out;
  if (columns.empty()) {
    for (const auto& child : schema.root->children) {
      out.push_back({child.get(), std::set<int>(child->leaves.begin(), child->leaves.end())});
    }
    return out;
  }
  for (const std::string& path : columns) {
    const SchemaNode* node = schema.root.get();
    const SchemaNode* top = nullptr;
    size_t start = 0;
    while (start <= path.size()) {
      const size_t dot = path.find('.', start);
      const std::string part =
          path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      const SchemaNode* next = nullptr;
      if (node->kind == SchemaNode::Kind::kStruct) {
        for (const auto& child : node->children) {
          if (child->name == part) {
            next = child.get();
          }
        }
      }
      if (next == nullptr) {
        std::string available;
        for (const auto& child : schema.root->children) {
          available += available.empty() ? "" : ", ";
          available += child->name;
        }
        return Status::InvalidArgument(
            fmt::format("{}: no column '{}' (at '{}'); columns: {}", file, path, part, available));
      }
      node = next;
      if (top == nullptr) {
        top = node;
      }
      if (dot == std::string::npos) {
        break;
      }
      start = dot + 1;
    }
    auto existing =
        std::find_if(out.begin(), out.end(), [&](const Selection& s) { return s.node == top; });
    if (existing == out.end()) {
      out.push_back({top, {}});
      existing = out.end() - 1;
    }
    existing->keep.insert(node->leaves.begin(), node->leaves.end());
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<storage::RandomAccessFile> file, columnar::MemoryPool* pool) {
  const std::string& path = file->Path();
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t size, file->Size());
  if (size < 4 + kFooterTail) {
    return Status::Corruption(
        fmt::format("{}: {} bytes is too short for a Parquet file", path, size));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string head, file->ReadAt(0, 4));
  TRIBUTARY_ASSIGN_OR_RAISE(std::string tail, file->ReadAt(size - kFooterTail, kFooterTail));
  if (head != "PAR1" || tail.substr(4) != "PAR1") {
    if (head == "PARE" || tail.substr(4) == "PARE") {
      return Status::NotImplemented(
          fmt::format("{}: encrypted Parquet files are not supported", path));
    }
    return Status::Corruption(fmt::format(
        "{}: not a Parquet file: magic at byte 0 and byte {} is not \"PAR1\"", path, size - 4));
  }
  uint32_t footer_length;
  std::memcpy(&footer_length, tail.data(), 4);
  if (static_cast<int64_t>(footer_length) > size - 4 - kFooterTail) {
    return Status::Corruption(
        fmt::format("{}: footer length {} at byte {} runs past the start of the {}-byte file", path,
                    footer_length, size - kFooterTail, size));
  }
  const int64_t footer_offset = size - kFooterTail - footer_length;
  TRIBUTARY_ASSIGN_OR_RAISE(std::string footer, file->ReadAt(footer_offset, footer_length));
  auto metadata = DecodeFileMetaData(footer);
  if (!metadata.ok()) {
    return metadata.status().WithContext(fmt::format("{}: footer at byte {}", path, footer_offset));
  }
  if (metadata->encrypted) {
    return Status::NotImplemented(
        fmt::format("{}: encrypted Parquet files are not supported", path));
  }
  auto schema = BuildFileSchema(*metadata);
  if (!schema.ok()) {
    return schema.status().WithContext(path);
  }
  const size_t num_leaves = schema->leaves.size();
  for (size_t g = 0; g < metadata->row_groups.size(); ++g) {
    if (metadata->row_groups[g].columns.size() != num_leaves) {
      return Status::Corruption(
          fmt::format("{}: row group {} has {} column chunks, the schema "
                      "has {} leaf columns",
                      path, g, metadata->row_groups[g].columns.size(), num_leaves));
    }
    if (metadata->row_groups[g].num_rows < 0) {
      return Status::Corruption(
          fmt::format("{}: row group {} has {} rows", path, g, metadata->row_groups[g].num_rows));
    }
  }
  return std::unique_ptr<ParquetFileReader>(new ParquetFileReader(
      std::move(file), metadata.MoveValueUnsafe(), schema.MoveValueUnsafe(), pool));
}

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(storage::FileSystem& fs,
                                                                   const std::string& path,
                                                                   columnar::MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs.OpenForRead(path));
  return Open(std::shared_ptr<storage::RandomAccessFile>(std::move(file)), pool);
}

class RowGroupReader::Impl {
 public:
  Impl(const FileSchema& schema, std::string path, int index, std::vector<Selection> selections,
       std::vector<std::unique_ptr<ColumnChunkReader>> chunks, int64_t num_rows, int64_t max_rows,
       bool whole, columnar::MemoryPool* pool)
      : schema_(schema),
        path_(std::move(path)),
        index_(index),
        selections_(std::move(selections)),
        chunks_(std::move(chunks)),
        num_rows_(num_rows),
        max_rows_(max_rows),
        whole_(whole),
        pool_(pool) {}

  int64_t NumRows() const { return num_rows_; }
  int64_t RowsLeft() const { return num_rows_ - rows_read_; }
  bool Bounded() const { return !whole_; }

  Result<columnar::RecordBatchPtr> Next() {
    if (RowsLeft() == 0) {
      return columnar::RecordBatchPtr();
    }
    return Read(whole_ ? RowsLeft() : std::min(max_rows_, RowsLeft()));
  }

  // The next `rows` rows as one batch (all of them when a selected leaf is repeated).
  Result<columnar::RecordBatchPtr> Read(int64_t rows) {
    std::vector<LeafData> data(schema_.leaves.size());
    std::vector<Field> fields;
    std::vector<ColumnPtr> output;
    Assembler assembler(data, schema_.leaves, pool_);
    for (const Selection& selection : selections_) {
      SlotMap slots;
      for (int leaf : selection.keep) {
        const SchemaNode& node = *schema_.leaves[static_cast<size_t>(leaf)];
        ColumnChunkReader& chunk = *chunks_[static_cast<size_t>(leaf)];
        LeafData& d = data[static_cast<size_t>(leaf)];
        TRIBUTARY_ASSIGN_OR_RAISE(d, chunk.Read(whole_ ? chunk.EntriesLeft() : rows));
        LeafSlots leaf_slots{leaf, {}};
        if (d.rep_levels.empty()) {
          leaf_slots.starts.resize(static_cast<size_t>(d.num_entries));
          std::iota(leaf_slots.starts.begin(), leaf_slots.starts.end(), int64_t{0});
        } else {
          for (int64_t e = 0; e < d.num_entries; ++e) {
            if (d.rep_levels[static_cast<size_t>(e)] == 0) {
              leaf_slots.starts.push_back(e);
            }
          }
        }
        if (static_cast<int64_t>(leaf_slots.starts.size()) != rows) {
          return Status::Corruption(
              fmt::format("{}: row group {}, column {}: {} rows, the row "
                          "group says {}",
                          path_, index_, node.path, leaf_slots.starts.size(), num_rows_));
        }
        leaf_slots.starts.push_back(d.num_entries);
        slots.push_back(std::move(leaf_slots));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto column,
                                assembler.Build(*selection.node, slots, selection.keep));
      fields.emplace_back(selection.node->name, column->Type(), selection.node->nullable);
      output.push_back(std::move(column));
    }
    rows_read_ += rows;
    // Every batch of a selection has the same types; the schema is made once.
    if (schema_out_ == nullptr) {
      schema_out_ = std::make_shared<const columnar::Schema>(std::move(fields));
    }
    return columnar::RecordBatch::Make(schema_out_, rows, std::move(output));
  }

 private:
  const FileSchema& schema_;
  const std::string path_;
  const int index_;
  const std::vector<Selection> selections_;
  // Per leaf of the file: its chunk's reader when selected, else null.
  std::vector<std::unique_ptr<ColumnChunkReader>> chunks_;
  const int64_t num_rows_;
  const int64_t max_rows_;
  // A selected leaf is repeated: rows are not cut into batches (see reader.h).
  const bool whole_;
  columnar::MemoryPool* pool_;
  int64_t rows_read_ = 0;
  columnar::SchemaPtr schema_out_;
};

RowGroupReader::RowGroupReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RowGroupReader::~RowGroupReader() = default;

int64_t RowGroupReader::NumRows() const {
  return impl_->NumRows();
}

int64_t RowGroupReader::RowsLeft() const {
  return impl_->RowsLeft();
}

bool RowGroupReader::Bounded() const {
  return impl_->Bounded();
}

Result<columnar::RecordBatchPtr> RowGroupReader::Next() {
  return impl_->Next();
}

Result<columnar::RecordBatchPtr> RowGroupReader::ReadRest() {
  return impl_->Read(impl_->RowsLeft());
}

Result<std::unique_ptr<RowGroupReader>> ParquetFileReader::OpenRowGroup(
    int index, const std::vector<std::string>& columns, int64_t max_rows) const {
  if (index < 0 || index >= NumRowGroups()) {
    return Status::InvalidArgument(fmt::format("{}: row group {} out of range 0..{}", file_->Path(),
                                               index, NumRowGroups() - 1));
  }
  if (max_rows <= 0) {
    return Status::InvalidArgument(
        fmt::format("{}: batches of {} rows; at least one is needed", file_->Path(), max_rows));
  }
  const RowGroup& group = metadata_.row_groups[static_cast<size_t>(index)];
  TRIBUTARY_ASSIGN_OR_RAISE(auto selections, Select(schema_, file_->Path(), columns));
  std::vector<std::unique_ptr<ColumnChunkReader>> chunks(schema_.leaves.size());
  bool whole = false;
  for (const Selection& selection : selections) {
    for (int leaf : selection.keep) {
      const SchemaNode& node = *schema_.leaves[static_cast<size_t>(leaf)];
      ChunkLocation location{file_->Path(), index, node.path};
      TRIBUTARY_ASSIGN_OR_RAISE(
          chunks[static_cast<size_t>(leaf)],
          ColumnChunkReader::Open(*file_, group.columns[static_cast<size_t>(leaf)], node, location,
                                  pool_));
      if (node.rep_level > 0) {
        whole = true;
      } else if (chunks[static_cast<size_t>(leaf)]->NumEntries() != group.num_rows) {
        // A flat leaf has one level entry per row.
        return Status::Corruption(fmt::format(
            "{}: row group {}, column {}: {} rows, the row group says {}", file_->Path(), index,
            node.path, chunks[static_cast<size_t>(leaf)]->NumEntries(), group.num_rows));
      }
    }
  }
  return std::make_unique<RowGroupReader>(std::make_unique<RowGroupReader::Impl>(
      schema_, file_->Path(), index, std::move(selections), std::move(chunks), group.num_rows,
      max_rows, whole, pool_));
}

Result<columnar::RecordBatchPtr> ParquetFileReader::ReadRowGroup(
    int index, const std::vector<std::string>& columns) const {
  TRIBUTARY_ASSIGN_OR_RAISE(auto group, OpenRowGroup(index, columns, kDefaultBatchRows));
  return group->ReadRest();
}

Result<ColumnStatistics> ParquetFileReader::RowGroupStatistics(int index,
                                                               const std::string& path) const {
  if (index < 0 || index >= NumRowGroups()) {
    return Status::InvalidArgument(
        fmt::format("{}: row group {} out of range", file_->Path(), index));
  }
  const SchemaNode* leaf = nullptr;
  for (const SchemaNode* candidate : schema_.leaves) {
    if (candidate->path == path) {
      leaf = candidate;
    }
  }
  if (leaf == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no leaf column '{}'", file_->Path(), path));
  }
  const ColumnChunk& chunk = metadata_.row_groups[static_cast<size_t>(index)]
                                 .columns[static_cast<size_t>(leaf->leaf_index)];
  ColumnStatistics out;
  if (!chunk.meta_data || !chunk.meta_data->statistics) {
    return out;
  }
  const Statistics& stats = *chunk.meta_data->statistics;
  out.null_count = stats.null_count;
  // Only min_value/max_value follow the column's sort order; the legacy min/max are signed and
  // only trustworthy where signed order is the type's order.
  const bool legacy_ok = leaf->physical_type != PhysicalType::kByteArray &&
                         leaf->physical_type != PhysicalType::kFixedLenByteArray &&
                         leaf->conversion != LeafConversion::kUint32ToInt64 &&
                         leaf->conversion != LeafConversion::kUint64ToDecimal;
  const std::optional<std::string>& min = stats.min_value ? stats.min_value
                                          : legacy_ok     ? stats.min
                                                          : std::nullopt;
  const std::optional<std::string>& max = stats.max_value ? stats.max_value
                                          : legacy_ok     ? stats.max
                                                          : std::nullopt;
  // A statistic is one PLAIN value without the BYTE_ARRAY length prefix.
  ChunkLocation location{file_->Path(), index, path};
  auto decode = [&](const std::string& bytes) -> Result<ColumnPtr> {
    std::string plain;
    if (leaf->physical_type == PhysicalType::kByteArray) {
      const auto length = static_cast<uint32_t>(bytes.size());
      plain.append(reinterpret_cast<const char*>(&length), 4);
    }
    plain += bytes;
    return DecodePlainValues(*leaf, plain, 1, location, pool_);
  };
  if (min) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.min, decode(*min));
  }
  if (max) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.max, decode(*max));
  }
  return out;
}

}  // namespace tributary::parquet
