// Column chunk decoding (apache/parquet-format README.md "Column chunks", "Data Pages"): the
// assembly of page_reader.h (pages, decompressed), level_decoder.h (levels), value_decoder.h
// (physical values or dictionary indexes) and type_conversion.h (tributary values).
//
// Values of a page are decoded into physical form (fixed-width bytes, or offsets plus bytes, or
// dictionary indexes) once, then each Read converts the slice it takes into the leaf's
// tributary type, into buffers sized for the request (a ValueSink); leaves whose conversion
// builds a column (fixed bytes as binary, UUIDs) convert each page into a column and take
// slices of it.

#include "formats/parquet/column_chunk_reader.h"

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "columnar/take.h"
#include "formats/parquet/level_decoder.h"
#include "formats/parquet/type_conversion.h"
#include "formats/parquet/value_decoder.h"

namespace tributary::parquet {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::MemoryPool;
using columnar::TypeId;

// Decodes a column chunk page by page. A data page is decoded into its levels and physical
// values (or dictionary indexes) once; Read then converts the slice each request takes into
// that request's buffers, so a page may straddle two requests.
class ColumnChunkReader::Decoder {
 public:
  // The chunk: `chunk_size` bytes of `file` from byte `chunk_offset`, read a page at a time.
  Decoder(const storage::RandomAccessFile& file, int64_t chunk_offset, int64_t chunk_size,
          int64_t num_values, CompressionCodec codec, const SchemaNode& leaf,
          ChunkLocation location, MemoryPool* pool)
      : leaf_(leaf),
        location_(std::move(location)),
        pool_(pool),
        pages_(file, chunk_offset, chunk_size, num_values, codec, location_),
        values_(leaf_, location_),
        converter_(leaf_, location_, pool_, chunk_size),
        num_values_(num_values),
        use_sink_(converter_.Sinkable()) {}
  int64_t NumValues() const { return num_values_; }
  int64_t EntriesLeft() const { return num_values_ - entries_read_; }
  // The next `entries` level entries (at most EntriesLeft()).
  Result<LeafData> Read(int64_t entries);

 private:
  // What the current data page's values were decoded into.
  enum class PageValues : uint8_t { kPhysical, kIndexes, kColumn };

  // Reads the chunk's next page; a data page becomes the current page.
  Status LoadNextPage();
  Status DecodeDictionaryPage();
  Status DecodeDataPage();
  Status DecodeValues(Encoding encoding, std::string_view data, int64_t count, int64_t offset);
  // Appends the current page's next `count` values (covering `entries` level entries) to the
  // request's values.
  Status TakeValues(int64_t count, int64_t entries);

  const SchemaNode& leaf_;
  const ChunkLocation location_;
  MemoryPool* pool_;
  PageReader pages_;
  const ValueDecoder values_;
  const ValueConverter converter_;
  Page page_;  // the page last read; the current page's values may point into it
  ColumnPtr dictionary_;
  const int64_t num_values_;  // entries of the chunk, from its metadata
  int64_t entries_read_ = 0;  // entries handed out by Read
  const bool use_sink_;

  // The current data page.
  int64_t page_entries_ = 0;
  int64_t page_entry_ = 0;   // entries of it handed out
  int64_t page_value_ = 0;   // values of it handed out
  int64_t page_offset_ = 0;  // file byte of its body, for errors
  std::vector<int16_t> page_defs_;
  std::vector<int16_t> page_reps_;
  PageValues page_kind_ = PageValues::kPhysical;
  PhysicalValues page_values_;
  std::vector<int32_t> page_indexes_;
  ColumnPtr page_column_;

  // The request being filled.
  ValueSink sink_;
  std::vector<ColumnPtr> pieces_;  // when the values cannot go to sink_
};

Status ColumnChunkReader::Decoder::DecodeValues(Encoding encoding, std::string_view data,
                                                int64_t count, int64_t offset) {
  page_values_ = PhysicalValues();
  page_kind_ = use_sink_ ? PageValues::kPhysical : PageValues::kColumn;
  page_column_.reset();
  if (encoding == Encoding::kPlainDictionary || encoding == Encoding::kRleDictionary) {
    if (dictionary_ == nullptr) {
      return location_.Fault(offset, "dictionary-encoded page without a dictionary page");
    }
    page_indexes_.clear();
    if (data.empty()) {
      if (count != 0) {
        return location_.Fault(offset, "dictionary indexes missing");
      }
      if (use_sink_) {
        page_kind_ = PageValues::kIndexes;
        return Status::OK();
      }
      if (dictionary_->Type()->Id() == TypeId::kNull) {
        page_column_ = dictionary_;
        return Status::OK();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(page_column_,
                                columnar::Take(*dictionary_, std::span<const int64_t>(), pool_));
      return Status::OK();
    }
    TRIBUTARY_RETURN_NOT_OK(
        values_.DecodeIndexes(data, count, dictionary_->Length(), offset, &page_indexes_));
    const std::vector<int32_t>& indexes = page_indexes_;
    if (use_sink_) {
      page_kind_ = PageValues::kIndexes;
      return Status::OK();
    }
    std::vector<int64_t> rows(indexes.begin(), indexes.end());
    TRIBUTARY_ASSIGN_OR_RAISE(page_column_, columnar::Take(*dictionary_, rows, pool_));
    return Status::OK();
  }
  TRIBUTARY_RETURN_NOT_OK(values_.Decode(encoding, data, count, offset, &page_values_));
  if (!use_sink_) {
    TRIBUTARY_ASSIGN_OR_RAISE(page_column_, converter_.Convert(page_values_, offset));
  }
  return Status::OK();
}

Status ColumnChunkReader::Decoder::TakeValues(int64_t count, int64_t entries) {
  switch (page_kind_) {
    case PageValues::kPhysical:
      TRIBUTARY_RETURN_NOT_OK(
          converter_.ConvertInto(page_values_, page_value_, count, entries, page_offset_, &sink_));
      break;
    case PageValues::kIndexes:
      if (page_value_ + count > static_cast<int64_t>(page_indexes_.size())) {
        return Status::Internal(fmt::format("column {}: values {}..{} of a page of {} indexes",
                                            location_.column, page_value_, page_value_ + count,
                                            page_indexes_.size()));
      }
      TRIBUTARY_RETURN_NOT_OK(converter_.GatherInto(
          *dictionary_,
          std::span<const int32_t>(page_indexes_)
              .subspan(static_cast<size_t>(page_value_), static_cast<size_t>(count)),
          entries, &sink_));
      break;
    case PageValues::kColumn:
      if (page_value_ == 0 && count == page_column_->Length()) {
        pieces_.push_back(page_column_);
      } else if (count > 0) {
        std::vector<int64_t> rows(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
          rows[static_cast<size_t>(i)] = page_value_ + i;
        }
        TRIBUTARY_ASSIGN_OR_RAISE(auto piece, columnar::Take(*page_column_, rows, pool_));
        pieces_.push_back(std::move(piece));
      }
      break;
  }
  page_value_ += count;
  return Status::OK();
}

Status ColumnChunkReader::Decoder::DecodeDictionaryPage() {
  PhysicalValues values;
  TRIBUTARY_RETURN_NOT_OK(values_.DecodePlain(page_.data, page_.num_values, page_.offset, &values));
  TRIBUTARY_ASSIGN_OR_RAISE(dictionary_, converter_.Convert(values, page_.offset));
  return Status::OK();
}

Status ColumnChunkReader::Decoder::DecodeDataPage() {
  page_defs_.clear();
  page_reps_.clear();
  const int16_t max_def = leaf_.def_level;
  const int16_t max_rep = leaf_.rep_level;
  const int64_t num_values = page_.num_values;
  const int64_t offset = page_.offset;
  std::string_view values_data;
  if (page_.type == PageType::kDataPage) {
    size_t pos = 0;
    TRIBUTARY_RETURN_NOT_OK(DecodeDataPageV1Levels(page_.data, &pos, page_.rep_level_encoding,
                                                   max_rep, num_values, offset, location_,
                                                   &page_reps_));
    TRIBUTARY_RETURN_NOT_OK(DecodeDataPageV1Levels(page_.data, &pos, page_.def_level_encoding,
                                                   max_def, num_values, offset, location_,
                                                   &page_defs_));
    values_data = page_.data.substr(pos);
  } else {
    if (max_rep > 0) {
      TRIBUTARY_RETURN_NOT_OK(DecodeHybridLevels(page_.rep_levels, max_rep, num_values, offset,
                                                 location_, &page_reps_));
    }
    if (max_def > 0) {
      TRIBUTARY_RETURN_NOT_OK(DecodeHybridLevels(
          page_.def_levels, max_def, num_values,
          offset + static_cast<int64_t>(page_.rep_levels.size()), location_, &page_defs_));
    }
    values_data = page_.data;
  }
  // Values present in this page: entries at the maximum definition level.
  int64_t present = num_values;
  if (max_def > 0) {
    present = 0;
    const int16_t* defs = page_defs_.data();
    for (int64_t i = 0; i < num_values; ++i) {
      present += defs[i] == max_def;
    }
  }
  TRIBUTARY_RETURN_NOT_OK(DecodeValues(page_.encoding, values_data, present, offset));
  page_entries_ = num_values;
  page_entry_ = 0;
  page_value_ = 0;
  page_offset_ = offset;
  return Status::OK();
}

Status ColumnChunkReader::Decoder::LoadNextPage() {
  TRIBUTARY_RETURN_NOT_OK(pages_.Next(&page_));
  switch (page_.type) {
    case PageType::kDictionaryPage:
      return DecodeDictionaryPage();
    case PageType::kDataPage:
    case PageType::kDataPageV2:
      return DecodeDataPage();
    default:
      return Status::OK();  // index pages carry nothing we read
  }
}

Result<LeafData> ColumnChunkReader::Decoder::Read(int64_t entries) {
  if (entries < 0 || entries > EntriesLeft()) {
    return Status::Internal(fmt::format("column {}: {} entries asked of the {} left",
                                        location_.column, entries, EntriesLeft()));
  }
  LeafData out;
  sink_ = ValueSink();
  pieces_.clear();
  if (use_sink_) {
    TRIBUTARY_RETURN_NOT_OK(converter_.StartSink(&sink_, entries));
  }
  const int16_t max_def = leaf_.def_level;
  const int16_t max_rep = leaf_.rep_level;
  // `entries` comes from the footer: reserve no more than pages are likely to hold, and let the
  // levels grow as pages prove they are there.
  constexpr int64_t kMaxLevelReserve = int64_t{1} << 20;
  const auto reserve = static_cast<size_t>(std::min(entries, kMaxLevelReserve));
  if (max_def > 0) {
    out.def_levels.reserve(reserve);
  }
  if (max_rep > 0) {
    out.rep_levels.reserve(reserve);
  }
  while (out.num_entries < entries) {
    if (page_entry_ == page_entries_) {
      TRIBUTARY_RETURN_NOT_OK(LoadNextPage());
      continue;
    }
    const int64_t take = std::min(entries - out.num_entries, page_entries_ - page_entry_);
    const auto from = static_cast<size_t>(page_entry_);
    const auto to = from + static_cast<size_t>(take);
    int64_t present = take;
    if (max_def > 0) {
      present = 0;
      for (size_t i = from; i < to; ++i) {
        present += page_defs_[i] == max_def;
      }
      out.def_levels.insert(out.def_levels.end(), page_defs_.begin() + static_cast<ptrdiff_t>(from),
                            page_defs_.begin() + static_cast<ptrdiff_t>(to));
    }
    if (max_rep > 0) {
      out.rep_levels.insert(out.rep_levels.end(), page_reps_.begin() + static_cast<ptrdiff_t>(from),
                            page_reps_.begin() + static_cast<ptrdiff_t>(to));
    }
    TRIBUTARY_RETURN_NOT_OK(TakeValues(present, take));
    page_entry_ += take;
    out.num_entries += take;
  }
  entries_read_ += entries;
  if (entries == 0) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.values, Column::MakeAllNull(leaf_.type, 0, pool_));
  } else if (use_sink_) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.values, converter_.FinishSink(&sink_));
  } else if (pieces_.size() == 1) {
    out.values = std::move(pieces_.front());
  } else if (pieces_.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.values, Column::MakeAllNull(leaf_.type, 0, pool_));
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(out.values, columnar::Concatenate(pieces_, pool_));
  }
  pieces_.clear();
  return out;
}

Result<ColumnPtr> DecodePlainValues(const SchemaNode& leaf, std::string_view data, int64_t count,
                                    const ChunkLocation& location, MemoryPool* pool) {
  PhysicalValues values;
  TRIBUTARY_RETURN_NOT_OK(ValueDecoder(leaf, location).DecodePlain(data, count, 0, &values));
  // No chunk: the values are sized as a chunk of no bytes would have them.
  return ValueConverter(leaf, location, pool, /*chunk_size=*/0).Convert(values, 0);
}

ColumnChunkReader::ColumnChunkReader(std::unique_ptr<Decoder> decoder)
    : decoder_(std::move(decoder)) {}
ColumnChunkReader::~ColumnChunkReader() = default;

int64_t ColumnChunkReader::NumEntries() const {
  return decoder_->NumValues();
}

int64_t ColumnChunkReader::EntriesLeft() const {
  return decoder_->EntriesLeft();
}

Result<LeafData> ColumnChunkReader::Read(int64_t entries) {
  return decoder_->Read(entries);
}

Result<std::unique_ptr<ColumnChunkReader>> ColumnChunkReader::Open(
    const storage::RandomAccessFile& file, const ColumnChunk& chunk, const SchemaNode& leaf,
    const ChunkLocation& location, MemoryPool* pool) {
  if (!chunk.meta_data) {
    return Status::NotImplemented(
        fmt::format("{}: row group {}, column {}: column metadata stored outside the footer",
                    location.file, location.row_group, location.column));
  }
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != leaf.physical_type) {
    return Status::Corruption(
        fmt::format("{}: row group {}, column {}: chunk type {} but the "
                    "schema says {}",
                    location.file, location.row_group, location.column, PhysicalTypeName(md.type),
                    PhysicalTypeName(leaf.physical_type)));
  }
  auto codec = CompressionCodecFromThrift(md.codec);
  if (!codec.ok()) {
    return codec.status().WithContext(fmt::format("{}: row group {}, column {}", location.file,
                                                  location.row_group, location.column));
  }
  int64_t start = md.data_page_offset;
  if (md.dictionary_page_offset && *md.dictionary_page_offset > 0 &&
      *md.dictionary_page_offset < start) {
    start = *md.dictionary_page_offset;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t file_size, file.Size());
  if (start < 0 || md.total_compressed_size < 0 || start > file_size ||
      md.total_compressed_size > file_size - start) {
    return Status::Corruption(
        fmt::format("{}: row group {}, column {}: chunk at byte {} of {} "
                    "bytes runs past the end of the {}-byte file",
                    location.file, location.row_group, location.column, start,
                    md.total_compressed_size, file_size));
  }
  if (md.num_values < 0) {
    return Status::Corruption(fmt::format("{}: row group {}, column {}: {} values", location.file,
                                          location.row_group, location.column, md.num_values));
  }
  auto decoder = std::make_unique<Decoder>(file, start, md.total_compressed_size, md.num_values,
                                           *codec, leaf, location, pool);
  return std::unique_ptr<ColumnChunkReader>(new ColumnChunkReader(std::move(decoder)));
}

Result<LeafData> ReadColumnChunk(const storage::RandomAccessFile& file, const ColumnChunk& chunk,
                                 const SchemaNode& leaf, const ChunkLocation& location,
                                 MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                            ColumnChunkReader::Open(file, chunk, leaf, location, pool));
  return reader->Read(reader->NumEntries());
}

}  // namespace tributary::parquet
