// The Parquet writer. The file it writes (apache/parquet-format README.md, "File Format",
// "Column chunks", "Data Pages"; field ids as in src/main/thrift/parquet.thrift):
//
//   file          = magic row-group* footer
//   magic         = "PAR1"
//   row-group     = column-chunk{one per leaf column, in schema order}
//   column-chunk  = [dictionary-page] data-page+
//   dictionary-page = PageHeader{type DICTIONARY_PAGE, dictionary_page_header{num_values,
//                     encoding PLAIN}} compressed(PLAIN values)
//   data-page     = PageHeader{type DATA_PAGE, data_page_header{num_values = level entries,
//                   encoding PLAIN | RLE_DICTIONARY, levels RLE}} compressed(page-body)
//   page-body     = [rep-levels] [def-levels] values          (data page v1)
//   rep-levels    = uint32le(byte length) rle-hybrid(bit width of max repetition level)
//                                              present when the max repetition level is > 0
//   def-levels    = likewise for the max definition level
//   values        = PLAIN: fixed-width little-endian values back to back; BOOLEAN bit-packed
//                   LSB first; BYTE_ARRAY uint32le(length) bytes; FIXED_LEN_BYTE_ARRAY the bytes
//                 | RLE_DICTIONARY: uint8(bit width) rle-hybrid(dictionary indexes)
//   footer        = FileMetaData(compact protocol) uint32le(its length) magic
//
// rle-hybrid is Encodings.md's "Run Length Encoding / Bit-Packing Hybrid" without a length
// prefix. Only non-null values are stored; definition and repetition levels carry nulls and
// nesting (README.md, "Nested Encoding", the Dremel scheme).
//
// Statistics follow parquet.thrift's ColumnOrder TYPE_ORDER, written for every leaf: signed
// order for INT32/INT64 and decimals (a FIXED_LEN_BYTE_ARRAY decimal's bounds are its
// big-endian two's complement bytes), unsigned bytewise order for BYTE_ARRAY, false < true for
// BOOLEAN; floats ignore NaN (no bounds when every value is NaN), and a zero minimum is written
// as -0.0 and a zero maximum as +0.0 so that readers applying the "+0 min / -0 max" rules
// stay correct.

#include "formats/parquet/writer.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <span>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "columnar/decimal.h"
#include "common/crash_point.h"
#include "formats/parquet/column_statistics.h"
#include "formats/parquet/dictionary_encoder.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/plain_encoding.h"
#include "formats/parquet/rle_encoding.h"
#include "formats/parquet/shredding.h"
#include "formats/parquet/writer_schema.h"

namespace tributary::parquet {
namespace {

using columnar::Column;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Int128;
using columnar::TypeId;

constexpr std::string_view kMagic = "PAR1";
// Level entries per slice: pages end at slice boundaries, moved to the next record start.
constexpr int64_t kSliceEntries = 4096;
// Rows shredded at a time, so the row group byte limit is checked this often.
constexpr int64_t kMaxPieceRows = 65536;
// Rows below which a piece's columns are encoded on the calling thread: starting threads costs
// more than such a piece's encoding (a streaming micro-batch of a few rows).
constexpr int64_t kMinParallelPieceRows = 8192;

// ---------------------------------------------------------------------------------------------
// Physical values: gathering from columns (the dictionary is in dictionary_encoder.h, the
// statistics in column_statistics.h, PLAIN encoding in plain_encoding.h).
//
// Value types: uint8_t BOOLEAN, int32_t INT32, int64_t INT64, float FLOAT, double DOUBLE,
// std::string_view BYTE_ARRAY, Int128 FIXED_LEN_BYTE_ARRAY (decimals only).

template <typename Dst, typename Src>
void GatherFixed(const Src* src, const Shredded& s, int64_t vb, int64_t ve, Dst* out) {
  if (s.identity) {
    const Src* p = src + s.first_row + vb;
    for (int64_t i = 0; i < ve - vb; ++i) {
      // An int8_t Src is a number, not a character: widening it must keep its sign.
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): see above
      out[i] = static_cast<Dst>(p[i]);
    }
  } else {
    const int64_t* idx = s.value_index.data() + vb;
    for (int64_t i = 0; i < ve - vb; ++i) {
      // NOLINTNEXTLINE(bugprone-signed-char-misuse): int8_t values keep their sign, as above
      out[i] = static_cast<Dst>(src[idx[i]]);
    }
  }
}

template <typename T>
void Gather(const Shredded& s, int64_t vb, int64_t ve, std::vector<T>* out) {
  out->resize(static_cast<size_t>(ve - vb));
  if (ve == vb) {
    return;
  }
  const Column& c = *s.leaf;
  T* dst = out->data();
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (s.identity) {
      for (int64_t i = 0; i < ve - vb; ++i) {
        dst[i] = c.BytesAt(s.first_row + vb + i);
      }
    } else {
      const int64_t* idx = s.value_index.data() + vb;
      for (int64_t i = 0; i < ve - vb; ++i) {
        dst[i] = c.BytesAt(idx[i]);
      }
    }
  } else {
    switch (c.Type()->Id()) {
      case TypeId::kBoolean:
        GatherFixed(c.Values<uint8_t>(), s, vb, ve, dst);
        break;
      case TypeId::kInt8:
        GatherFixed(c.Values<int8_t>(), s, vb, ve, dst);
        break;
      case TypeId::kInt16:
        GatherFixed(c.Values<int16_t>(), s, vb, ve, dst);
        break;
      case TypeId::kInt32:
      case TypeId::kDate:
        GatherFixed(c.Values<int32_t>(), s, vb, ve, dst);
        break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        GatherFixed(c.Values<int64_t>(), s, vb, ve, dst);
        break;
      case TypeId::kFloat32:
        GatherFixed(c.Values<float>(), s, vb, ve, dst);
        break;
      case TypeId::kFloat64:
        GatherFixed(c.Values<double>(), s, vb, ve, dst);
        break;
      case TypeId::kDecimal:
        GatherFixed(c.Values<Int128>(), s, vb, ve, dst);
        break;
      default:
        break;
    }
  }
}

// True when column type `id` stores its values as T, so that Gather's copy can be skipped.
template <typename T>
bool StoredAs(TypeId id) {
  if constexpr (std::is_same_v<T, int32_t>) {
    return id == TypeId::kInt32 || id == TypeId::kDate;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return id == TypeId::kInt64 || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
  } else if constexpr (std::is_same_v<T, float>) {
    return id == TypeId::kFloat32;
  } else if constexpr (std::is_same_v<T, double>) {
    return id == TypeId::kFloat64;
  } else {
    return false;
  }
}

// Values [vb, ve) of the slice: the column's own memory when its rows are the values and hold
// T, else gathered into `scratch`.
template <typename T>
std::span<const T> ValuesOf(const Shredded& s, int64_t vb, int64_t ve, std::vector<T>* scratch) {
  if (s.identity && ve > vb && StoredAs<T>(s.leaf->Type()->Id())) {
    return std::span<const T>(s.leaf->Values<T>() + s.first_row + vb, static_cast<size_t>(ve - vb));
  }
  Gather<T>(s, vb, ve, scratch);
  return std::span<const T>(*scratch);
}

// ---------------------------------------------------------------------------------------------
// Column chunk writers.

// A page as it goes into the file: its header and its (compressed) body. A chunk keeps its
// pages apart until the row group is flushed, so no buffer grows (and copies) with the chunk.
struct EncodedPage {
  std::string header;
  std::string data;

  int64_t Size() const { return static_cast<int64_t>(header.size() + data.size()); }
};

// A finished column chunk: its pages (the dictionary page first when `has_dictionary`) and
// metadata without file offsets.
struct FinishedChunk {
  std::vector<EncodedPage> pages;
  bool has_dictionary = false;
  ColumnMetaData meta;
};

// The definition or repetition levels of the page being built. A page whose entries all have
// one level (a flat column without nulls) is kept as that level and a count, and encoded as one
// RLE run, instead of a vector filled and scanned per entry; the bytes are the same.
class PageLevels {
 public:
  int64_t Size() const { return materialized_ ? static_cast<int64_t>(levels_.size()) : count_; }

  void AppendRepeat(int16_t level, int64_t count) {
    if (!materialized_ && (count_ == 0 || level_ == level)) {
      level_ = level;
      count_ += count;
      return;
    }
    Materialize();
    levels_.insert(levels_.end(), static_cast<size_t>(count), level);
  }

  void Append(std::span<const int16_t> levels) {
    Materialize();
    levels_.insert(levels_.end(), levels.begin(), levels.end());
  }

  void Clear() {
    levels_.clear();
    count_ = 0;
    materialized_ = false;
  }

  // Appends the levels as uint32le(length) rle-hybrid.
  void AppendEncoded(int16_t max_level, std::string* body) const {
    const int width = BitWidthOf(static_cast<uint64_t>(max_level));
    const size_t prefix = body->size();
    body->append(4, '\0');
    if (materialized_) {
      AppendRleBitPacked(std::span<const int16_t>(levels_), width, body);
    } else {
      AppendRleBitPackedRepeat(static_cast<uint32_t>(level_), count_, width, body);
    }
    const auto length = static_cast<uint32_t>(body->size() - prefix - 4);
    std::memcpy(body->data() + prefix, &length, 4);
  }

 private:
  void Materialize() {
    if (!materialized_) {
      levels_.assign(static_cast<size_t>(count_), level_);
      materialized_ = true;
    }
  }

  std::vector<int16_t> levels_;
  // While !materialized_: the page holds count_ entries of level_.
  int16_t level_ = 0;
  int64_t count_ = 0;
  bool materialized_ = false;
};

struct ChunkConfig {
  CompressionCodec codec = CompressionCodec::kSnappy;
  int compression_level = kDefaultCompressionLevel;
  int64_t page_size_bytes = 0;
  int64_t page_value_limit = 0;
  int64_t dictionary_page_size_limit = 0;
  bool enable_dictionary = true;
};

// Writes the pages of one leaf column for one row group. The level and page machinery lives
// here; the typed part (values, dictionary, statistics) in TypedChunkWriter.
class ChunkWriter {
 public:
  ChunkWriter(const LeafInfo& leaf, const ChunkConfig& config) : leaf_(leaf), config_(config) {}
  virtual ~ChunkWriter() = default;
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Appends a shredded piece, finishing pages as they fill.
  virtual Status Append(const Shredded& s) = 0;
  // Finishes the chunk and starts a new, empty one.
  virtual Status Finish(FinishedChunk* out) = 0;
  // Bytes the chunk would take if finished now (about).
  virtual int64_t EstimatedBytes() const = 0;
  // Bounds and null count of the finished chunks.
  virtual LeafStatistics FileStatistics() const = 0;

 protected:
  // Copies the levels of entries [b, e) into the page; returns how many are values.
  int64_t AppendLevels(const Shredded& s, int64_t b, int64_t e) {
    if (leaf_.max_rep > 0) {
      page_rep_.Append(std::span<const int16_t>(s.rep).subspan(static_cast<size_t>(b),
                                                               static_cast<size_t>(e - b)));
    }
    int64_t values = e - b;
    if (leaf_.max_def > 0 && s.uniform_def >= 0) {
      page_def_.AppendRepeat(s.uniform_def, e - b);
      values = s.uniform_def == leaf_.max_def ? e - b : 0;
    } else if (leaf_.max_def > 0) {
      page_def_.Append(std::span<const int16_t>(s.def).subspan(static_cast<size_t>(b),
                                                               static_cast<size_t>(e - b)));
      values = 0;
      const int16_t* d = s.def.data();
      const int16_t max_def = leaf_.max_def;
      for (int64_t i = b; i < e; ++i) {
        values += d[i] == max_def;
      }
    }
    page_entries_ += e - b;
    chunk_nulls_ += (e - b) - values;
    return values;
  }

  int64_t LevelBytesEstimate() const { return (page_def_.Size() + page_rep_.Size()) / 4; }

  // Starts the page body with the page's levels.
  void BeginPageBody() {
    body_.clear();
    if (leaf_.max_rep > 0) {
      page_rep_.AppendEncoded(leaf_.max_rep, &body_);
    }
    if (leaf_.max_def > 0) {
      page_def_.AppendEncoded(leaf_.max_def, &body_);
    }
  }

  // Compresses the page body, the concatenation of `pieces`, and returns it with its header.
  Result<EncodedPage> EncodePage(PageHeader header, std::span<const std::string_view> pieces) {
    size_t body_size = 0;
    for (const std::string_view piece : pieces) {
      body_size += piece.size();
    }
    if (body_size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument(
          fmt::format("parquet writer: a page of column {} exceeds 2 GiB",
                      fmt::join(leaf_.path_in_schema, ".")));
    }
    // Into a reused buffer first: a codec wants room for its worst case, which a fresh string
    // per page would zero-fill and fault in every time.
    size_t compressed_size = 0;
    TRIBUTARY_RETURN_NOT_OK(
        CompressPieces(config_.codec, pieces, &compressed_, &compressed_size,
                       config_.compression_level)
            .WithContext(fmt::format("parquet writer: compressing a page of column {}",
                                     fmt::join(leaf_.path_in_schema, "."))));
    EncodedPage page;
    page.data.assign(compressed_.data(), compressed_size);
    if (page.data.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument(
          fmt::format("parquet writer: a page of column {} exceeds 2 GiB",
                      fmt::join(leaf_.path_in_schema, ".")));
    }
    header.uncompressed_page_size = static_cast<int32_t>(body_size);
    header.compressed_page_size = static_cast<int32_t>(page.data.size());
    EncodePageHeader(header, &page.header);
    const auto header_size = static_cast<int64_t>(page.header.size());
    chunk_uncompressed_ += header_size + static_cast<int64_t>(body_size);
    chunk_compressed_ += header_size + static_cast<int64_t>(page.data.size());
    return page;
  }

  // Emits the current page's body (levels already in body_) as a data page.
  // `values` follows body_ in the page body without being copied into it.
  Status EmitDataPage(Encoding encoding, std::string_view values) {
    PageHeader header;
    header.type = PageType::kDataPage;
    DataPageHeader& d = header.data_page_header.emplace();
    d.num_values = static_cast<int32_t>(page_entries_);
    d.encoding = encoding;
    d.definition_level_encoding = Encoding::kRle;
    d.repetition_level_encoding = Encoding::kRle;
    const std::string_view pieces[] = {body_, values};
    TRIBUTARY_ASSIGN_OR_RAISE(EncodedPage page, EncodePage(std::move(header), pieces));
    pages_bytes_ += page.Size();
    pages_.push_back(std::move(page));
    if (encoding == Encoding::kPlain) {
      used_plain_ = true;
    } else {
      used_dictionary_ = true;
    }
    chunk_entries_ += page_entries_;
    page_entries_ = 0;
    page_def_.Clear();
    page_rep_.Clear();
    return Status::OK();
  }

  // Builds the chunk's metadata, moves out its pages and resets the chunk state.
  Status FinishChunk(const std::string& dictionary_body, int32_t dictionary_size, Statistics stats,
                     FinishedChunk* out) {
    out->pages.clear();
    out->has_dictionary = used_dictionary_;
    if (used_dictionary_) {
      PageHeader header;
      header.type = PageType::kDictionaryPage;
      DictionaryPageHeader& d = header.dictionary_page_header.emplace();
      d.num_values = dictionary_size;
      d.encoding = Encoding::kPlain;
      const std::string_view pieces[] = {dictionary_body};
      TRIBUTARY_ASSIGN_OR_RAISE(EncodedPage page, EncodePage(std::move(header), pieces));
      out->pages.push_back(std::move(page));
    }
    ColumnMetaData& m = out->meta;
    m = ColumnMetaData{};
    m.type = leaf_.physical;
    if (used_dictionary_ || used_plain_ || chunk_entries_ == 0) {
      m.encodings.push_back(Encoding::kPlain);
    }
    if (leaf_.max_def > 0 || leaf_.max_rep > 0) {
      m.encodings.push_back(Encoding::kRle);
    }
    if (used_dictionary_) {
      m.encodings.push_back(Encoding::kRleDictionary);
    }
    m.path_in_schema = leaf_.path_in_schema;
    m.codec = CompressionCodecToThrift(config_.codec);
    m.num_values = chunk_entries_;
    m.total_uncompressed_size = chunk_uncompressed_;
    m.total_compressed_size = chunk_compressed_;
    stats.null_count = chunk_nulls_;
    m.statistics = std::move(stats);
    file_nulls_ += chunk_nulls_;
    std::move(pages_.begin(), pages_.end(), std::back_inserter(out->pages));
    pages_.clear();
    pages_bytes_ = 0;
    chunk_entries_ = 0;
    chunk_nulls_ = 0;
    chunk_uncompressed_ = 0;
    chunk_compressed_ = 0;
    used_dictionary_ = false;
    used_plain_ = false;
    return Status::OK();
  }

  const LeafInfo& leaf_;
  const ChunkConfig& config_;
  PageLevels page_def_;
  PageLevels page_rep_;
  int64_t page_entries_ = 0;
  std::string body_;
  std::string compressed_;
  std::vector<EncodedPage> pages_;
  int64_t pages_bytes_ = 0;
  int64_t chunk_entries_ = 0;
  int64_t chunk_nulls_ = 0;
  int64_t file_nulls_ = 0;
  int64_t chunk_uncompressed_ = 0;
  int64_t chunk_compressed_ = 0;
  bool used_dictionary_ = false;
  bool used_plain_ = false;
};

template <typename T>
class TypedChunkWriter final : public ChunkWriter {
 public:
  static constexpr bool kIsBoolean = std::is_same_v<T, uint8_t>;

  TypedChunkWriter(const LeafInfo& leaf, const ChunkConfig& config)
      : ChunkWriter(leaf, config), dictionary_(leaf.type_length) {
    ResetChunk();
  }

  Status Append(const Shredded& s) override {
    const int64_t n = s.num_entries;
    int64_t e = 0;
    int64_t v = 0;
    while (e < n) {
      int64_t end = std::min({n, e + kSliceEntries,
                              e + std::max<int64_t>(1, config_.page_value_limit - page_entries_)});
      if (leaf_.max_rep > 0) {
        while (end < n && s.rep[static_cast<size_t>(end)] != 0) {
          ++end;
        }
      }
      const int64_t nv = AppendLevels(s, e, end);
      const std::span<const T> values = ValuesOf<T>(s, v, v + nv, &scratch_);
      bool dictionary_full = false;
      if (dictionary_mode_) {
        if (!used_dictionary_) {
          first_page_plain_bytes_ += PlainSize(values);
        }
        // The bounds depend on the set of values only: the dictionary's new entries are all
        // that can move them, which saves comparing every repeated (string) value.
        const int32_t known = dictionary_.Size();
        dictionary_.Encode(values, &page_indexes_);
        dictionary_.ValuesSince(known, &new_values_);
        bounds_.Update(std::span<const T>(new_values_));
        dictionary_full = dictionary_.PlainBytes() > config_.dictionary_page_size_limit;
      } else {
        bounds_.Update(values);
        AppendPlain<T>(values, leaf_.type_length, &page_values_);
      }
      e = end;
      v += nv;
      if (dictionary_full) {
        TRIBUTARY_RETURN_NOT_OK(FinishPage());
        dictionary_mode_ = false;
      } else if (PageBytesEstimate() >= config_.page_size_bytes ||
                 page_entries_ >= config_.page_value_limit) {
        if (dictionary_mode_ && !used_dictionary_) {
          AbandonDictionaryIfLarger();
        }
        TRIBUTARY_RETURN_NOT_OK(FinishPage());
      }
    }
    return Status::OK();
  }

  Status Finish(FinishedChunk* out) override {
    TRIBUTARY_RETURN_NOT_OK(FinishPage());
    Statistics stats;
    bounds_.Fill(leaf_.type_length, &stats);
    std::string dictionary_body;
    if (used_dictionary_) {
      dictionary_body = dictionary_.PlainPage();
    }
    TRIBUTARY_RETURN_NOT_OK(
        FinishChunk(dictionary_body, dictionary_.Size(), std::move(stats), out));
    file_bounds_.MergeFrom(bounds_);
    ResetChunk();
    return Status::OK();
  }

  LeafStatistics FileStatistics() const override {
    LeafStatistics out;
    out.column = leaf_.top_index;
    out.path = leaf_.path_in_schema;
    out.null_count = file_nulls_;
    file_bounds_.FillExact(leaf_.type_length, &out);
    return out;
  }

  int64_t EstimatedBytes() const override {
    return pages_bytes_ + PageBytesEstimate() +
           (dictionary_mode_ || used_dictionary_ ? dictionary_.PlainBytes() : 0);
  }

 private:
  // Bytes `values` take PLAIN-encoded.
  int64_t PlainSize(std::span<const T> values) const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      int64_t bytes = 4 * static_cast<int64_t>(values.size());
      for (const std::string_view value : values) {
        bytes += static_cast<int64_t>(value.size());
      }
      return bytes;
    } else if constexpr (std::is_same_v<T, Int128>) {
      return static_cast<int64_t>(values.size()) * leaf_.type_length;
    } else {
      return static_cast<int64_t>(values.size() * sizeof(T));
    }
  }

  // Called when the chunk's first page has filled while dictionary-encoded: when the dictionary
  // plus the page's indexes take at least as many bytes as the page's values PLAIN, the
  // dictionary does not pay (a column of mostly distinct values), so the page is re-encoded
  // PLAIN and the chunk goes on without a dictionary, which also spares hashing every value.
  // This is parquet-mr's check on the first page (FallbackValuesWriter, "isCompressionSatisfying").
  // A chunk that ends before its first page fills keeps its dictionary.
  void AbandonDictionaryIfLarger() {
    if (dictionary_.Size() == 0) {
      return;
    }
    const int width = std::max(1, BitWidthOf(static_cast<uint64_t>(dictionary_.Size() - 1)));
    const int64_t indexes_bytes = (static_cast<int64_t>(page_indexes_.size()) * width + 7) / 8 + 1;
    if (dictionary_.PlainBytes() + indexes_bytes < first_page_plain_bytes_) {
      return;
    }
    dictionary_.AppendPlainOf(std::span<const int32_t>(page_indexes_), &page_values_);
    page_indexes_.clear();
    dictionary_.Clear();
    dictionary_mode_ = false;
  }

  void ResetChunk() {
    dictionary_mode_ =
        config_.enable_dictionary && !kIsBoolean && leaf_.type->Id() != TypeId::kNull;
    first_page_plain_bytes_ = 0;
    dictionary_.Clear();
    bounds_.Clear();
    page_values_.clear();
    page_indexes_.clear();
  }

  int64_t PageBytesEstimate() const {
    int64_t values = static_cast<int64_t>(page_values_.size());
    if (!page_indexes_.empty()) {
      const int width = std::max(1, BitWidthOf(static_cast<uint64_t>(dictionary_.Size())));
      values = static_cast<int64_t>(page_indexes_.size()) * width / 8 + 1;
    }
    if constexpr (kIsBoolean) {
      values /= 8;
    }
    return values + LevelBytesEstimate();
  }

  Status FinishPage() {
    if (page_entries_ == 0) {
      return Status::OK();
    }
    BeginPageBody();
    // A page of only nulls in dictionary mode before any value is PLAIN: without values it
    // needs no dictionary.
    const bool dictionary_page = dictionary_mode_ && dictionary_.Size() > 0;
    // PLAIN values stay in page_values_, which follows the levels in the page body.
    std::string_view plain_values;
    if (dictionary_page) {
      const int width = std::max(1, BitWidthOf(static_cast<uint64_t>(dictionary_.Size() - 1)));
      body_.push_back(static_cast<char>(width));
      AppendRleBitPacked(std::span<const int32_t>(page_indexes_), width, &body_);
    } else if constexpr (kIsBoolean) {
      EncodePlainBoolean(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(page_values_.data()),
                                   page_values_.size()),
          &body_);
    } else {
      plain_values = page_values_;
    }
    Status emitted =
        EmitDataPage(dictionary_page ? Encoding::kRleDictionary : Encoding::kPlain, plain_values);
    page_values_.clear();
    page_indexes_.clear();
    return emitted;
  }

  DictionaryEncoder<T> dictionary_;
  ValueBounds<T> bounds_;
  ValueBounds<T> file_bounds_;
  bool dictionary_mode_ = true;
  // PLAIN size of the values of the chunk's pages so far while none was dictionary-encoded.
  int64_t first_page_plain_bytes_ = 0;
  std::vector<T> scratch_;
  std::vector<T> new_values_;
  std::string page_values_;
  std::vector<int32_t> page_indexes_;
};

std::unique_ptr<ChunkWriter> MakeChunkWriter(const LeafInfo& leaf, const ChunkConfig& config) {
  switch (leaf.physical) {
    case PhysicalType::kBoolean:
      return std::make_unique<TypedChunkWriter<uint8_t>>(leaf, config);
    case PhysicalType::kInt32:
      return std::make_unique<TypedChunkWriter<int32_t>>(leaf, config);
    case PhysicalType::kInt64:
      return std::make_unique<TypedChunkWriter<int64_t>>(leaf, config);
    case PhysicalType::kFloat:
      return std::make_unique<TypedChunkWriter<float>>(leaf, config);
    case PhysicalType::kDouble:
      return std::make_unique<TypedChunkWriter<double>>(leaf, config);
    case PhysicalType::kByteArray:
      return std::make_unique<TypedChunkWriter<std::string_view>>(leaf, config);
    default:
      return std::make_unique<TypedChunkWriter<Int128>>(leaf, config);
  }
}

void AppendU32(uint32_t v, std::string* out) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

class ParquetWriter::Impl {
 public:
  Impl(std::unique_ptr<storage::OutputStream> out, columnar::SchemaPtr schema,
       ParquetWriterOptions options, WriterSchema converted)
      : out_(std::move(out)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        elements_(std::move(converted.elements)),
        leaves_(std::move(converted.leaves)) {
    config_.codec = options_.codec;
    config_.compression_level = options_.compression_level;
    config_.page_size_bytes = options_.page_size_bytes;
    config_.page_value_limit = options_.page_value_limit;
    config_.dictionary_page_size_limit = options_.dictionary_page_size_limit;
    config_.enable_dictionary = options_.enable_dictionary;
    writers_.reserve(leaves_.size());
    for (const LeafInfo& leaf : leaves_) {
      writers_.push_back(MakeChunkWriter(leaf, config_));
    }
  }

  ~Impl() {
    if (!closed_) {
      (void)out_->Abort();
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  Status Start() { return Fail(out_->Append(kMagic)); }

  Status Write(const columnar::RecordBatch& batch) {
    TRIBUTARY_RETURN_NOT_OK(CheckUsable());
    TRIBUTARY_RETURN_NOT_OK(Fail(CheckBatch(batch)));
    const int64_t rows = batch.NumRows();
    int64_t r = 0;
    while (r < rows) {
      const int64_t piece =
          std::min({rows - r, options_.row_group_size_rows - group_rows_, kMaxPieceRows});
      TRIBUTARY_RETURN_NOT_OK(Fail(AppendPiece(batch, r, r + piece)));
      r += piece;
      group_rows_ += piece;
      total_rows_ += piece;
      if (group_rows_ >= options_.row_group_size_rows ||
          GroupBytesEstimate() >= options_.row_group_size_bytes) {
        TRIBUTARY_RETURN_NOT_OK(Fail(FlushRowGroup()));
      }
    }
    return Status::OK();
  }

  Status Close() {
    if (closed_) {
      return close_status_;
    }
    TRIBUTARY_RETURN_NOT_OK(CheckUsable());
    close_status_ = Fail(CloseImpl());
    closed_ = true;
    return close_status_;
  }

  int64_t NumRows() const { return total_rows_; }
  int64_t NumRowGroups() const { return static_cast<int64_t>(row_groups_.size()); }
  int64_t BytesWritten() const { return out_->Position(); }
  std::vector<LeafStatistics> FileStatistics() const {
    std::vector<LeafStatistics> out;
    out.reserve(writers_.size());
    for (const auto& writer : writers_) {
      out.push_back(writer->FileStatistics());
    }
    return out;
  }

 private:
  Status CheckUsable() const {
    if (!error_.ok()) {
      return error_;
    }
    if (closed_) {
      return Status::InvalidArgument(
          fmt::format("parquet writer: {} is already closed", out_->Path()));
    }
    return Status::OK();
  }

  // Remembers the first error and aborts the stream.
  Status Fail(Status st) {
    if (!st.ok() && error_.ok()) {
      error_ = st;
      (void)out_->Abort();
    }
    return st;
  }

  Status CheckBatch(const columnar::RecordBatch& batch) const {
    if (batch.NumColumns() != schema_->NumFields()) {
      return Status::InvalidArgument(
          fmt::format("parquet writer: batch has {} columns, the schema of {} has {}",
                      batch.NumColumns(), out_->Path(), schema_->NumFields()));
    }
    for (int i = 0; i < batch.NumColumns(); ++i) {
      const DataType& want = *schema_->FieldAt(i).Type();
      const DataType& got = *batch.ColumnAt(i)->Type();
      if (!want.SameShape(got)) {
        return Status::InvalidArgument(
            fmt::format("parquet writer: column {} of the batch has type {}, {} expects {}",
                        schema_->FieldAt(i).Name(), got.ToString(), out_->Path(), want.ToString()));
      }
    }
    return Status::OK();
  }

  // Appends rows [begin, end) of `batch` to every column's chunk writer. A piece large enough
  // to be worth it is spread over the option's threads, a column at a time each (a column's
  // pages are made by one thread, in order, so the bytes are those of one thread); the error is
  // the first column's that failed.
  Status AppendPiece(const columnar::RecordBatch& batch, int64_t begin, int64_t end) {
    const size_t workers =
        std::min(leaves_.size(), static_cast<size_t>(std::max(1, options_.threads)));
    if (workers <= 1 || end - begin < kMinParallelPieceRows) {
      for (size_t i = 0; i < leaves_.size(); ++i) {
        TRIBUTARY_RETURN_NOT_OK(AppendLeaf(batch, i, begin, end, shredder_, shredded_));
      }
      return Status::OK();
    }
    std::vector<Status> statuses(leaves_.size());
    std::atomic<size_t> next{0};
    const auto work = [&](Shredder& shredder, Shredded& shredded) {
      for (size_t i = next++; i < leaves_.size(); i = next++) {
        statuses[i] = AppendLeaf(batch, i, begin, end, shredder, shredded);
      }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(workers - 1);
    for (size_t w = 1; w < workers; ++w) {
      helpers.emplace_back([&work] {
        Shredder shredder;
        Shredded shredded;
        work(shredder, shredded);
      });
    }
    work(shredder_, shredded_);
    for (std::thread& helper : helpers) {
      helper.join();
    }
    for (Status& status : statuses) {
      TRIBUTARY_RETURN_NOT_OK(status);
    }
    return Status::OK();
  }

  Status AppendLeaf(const columnar::RecordBatch& batch, size_t i, int64_t begin, int64_t end,
                    Shredder& shredder, Shredded& shredded) {
    const LeafInfo& leaf = leaves_[i];
    TRIBUTARY_RETURN_NOT_OK(
        shredder.Shred(*batch.ColumnAt(leaf.top_index), leaf, begin, end, &shredded)
            .WithContext(out_->Path()));
    return writers_[i]->Append(shredded);
  }

  int64_t GroupBytesEstimate() const {
    int64_t total = 0;
    for (const auto& w : writers_) {
      total += w->EstimatedBytes();
    }
    return total;
  }

  Status FlushRowGroup() {
    if (group_rows_ == 0) {
      return Status::OK();
    }
    RowGroup group;
    group.num_rows = group_rows_;
    group.file_offset = out_->Position();
    if (row_groups_.size() <= static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
      group.ordinal = static_cast<int16_t>(row_groups_.size());
    }
    int64_t uncompressed = 0;
    int64_t compressed = 0;
    for (auto& writer : writers_) {
      TRIBUTARY_RETURN_NOT_OK(writer->Finish(&chunk_));
      ColumnChunk cc;
      const int64_t start = out_->Position();
      cc.file_offset = start;
      ColumnMetaData meta = std::move(chunk_.meta);
      meta.data_page_offset = start;
      if (chunk_.has_dictionary) {
        meta.dictionary_page_offset = start;
        meta.data_page_offset += chunk_.pages.front().Size();
      }
      for (const EncodedPage& page : chunk_.pages) {
        TRIBUTARY_RETURN_NOT_OK(out_->Append(page.header));
        TRIBUTARY_RETURN_NOT_OK(out_->Append(page.data));
      }
      chunk_.pages.clear();
      uncompressed += meta.total_uncompressed_size;
      compressed += meta.total_compressed_size;
      cc.meta_data = std::move(meta);
      group.columns.push_back(std::move(cc));
    }
    group.total_byte_size = uncompressed;
    group.total_compressed_size = compressed;
    row_groups_.push_back(std::move(group));
    group_rows_ = 0;
    CrashPoint("parquet.mid_write");
    return Status::OK();
  }

  Status CloseImpl() {
    TRIBUTARY_RETURN_NOT_OK(FlushRowGroup());
    FileMetaData meta;
    meta.version = 2;
    meta.schema = elements_;
    meta.num_rows = total_rows_;
    meta.row_groups = std::move(row_groups_);
    for (const auto& [key, value] : options_.key_value_metadata) {
      meta.key_value_metadata.push_back({key, value});
    }
    meta.created_by = options_.created_by;
    meta.column_orders.assign(leaves_.size(), ColumnOrder{1});
    std::string footer;
    EncodeFileMetaData(meta, &footer);
    AppendU32(static_cast<uint32_t>(footer.size()), &footer);
    footer.append(kMagic);
    row_groups_ = std::move(meta.row_groups);
    TRIBUTARY_RETURN_NOT_OK(out_->Append(footer));
    return out_->Close();
  }

  std::unique_ptr<storage::OutputStream> out_;
  columnar::SchemaPtr schema_;
  ParquetWriterOptions options_;
  std::vector<SchemaElement> elements_;
  std::vector<LeafInfo> leaves_;
  ChunkConfig config_;
  std::vector<std::unique_ptr<ChunkWriter>> writers_;
  Shredder shredder_;
  Shredded shredded_;
  FinishedChunk chunk_;
  std::vector<RowGroup> row_groups_;
  int64_t group_rows_ = 0;
  int64_t total_rows_ = 0;
  Status error_;
  Status close_status_;
  bool closed_ = false;
};

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(
    std::unique_ptr<storage::OutputStream> out, columnar::SchemaPtr schema,
    ParquetWriterOptions options) {
  auto reject = [&](Status st) -> Status {
    (void)out->Abort();
    return st;
  };
  if (out == nullptr || schema == nullptr) {
    return Status::InvalidArgument("parquet writer: no output stream or schema");
  }
  if (options.codec == CompressionCodec::kLz4Hadoop) {
    return reject(Status::InvalidArgument(
        fmt::format("parquet writer: codec {} is not supported for writing {}",
                    CompressionCodecName(options.codec), out->Path())));
  }
  if (options.row_group_size_rows < 1 || options.row_group_size_bytes < 1 ||
      options.page_size_bytes < 1 || options.page_value_limit < 1 ||
      options.dictionary_page_size_limit < 0) {
    return reject(Status::InvalidArgument(
        fmt::format("parquet writer: row group, page and dictionary sizes must be positive ({})",
                    out->Path())));
  }
  if (schema->NumFields() == 0) {
    return reject(Status::InvalidArgument(
        fmt::format("parquet writer: schema of {} has no columns", out->Path())));
  }
  auto converted = ConvertWriterSchema(*schema);
  if (!converted.ok()) {
    return reject(converted.status().WithContext(out->Path()));
  }
  auto impl = std::make_unique<Impl>(std::move(out), std::move(schema), std::move(options),
                                     std::move(*converted));
  TRIBUTARY_RETURN_NOT_OK(impl->Start());
  return std::make_unique<ParquetWriter>(std::move(impl));
}

ParquetWriter::ParquetWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetWriter::~ParquetWriter() = default;

Status ParquetWriter::Write(const columnar::RecordBatch& batch) {
  return impl_->Write(batch);
}
Status ParquetWriter::Close() {
  return impl_->Close();
}
int64_t ParquetWriter::NumRows() const {
  return impl_->NumRows();
}
int64_t ParquetWriter::NumRowGroups() const {
  return impl_->NumRowGroups();
}
int64_t ParquetWriter::BytesWritten() const {
  return impl_->BytesWritten();
}
std::vector<LeafStatistics> ParquetWriter::FileStatistics() const {
  return impl_->FileStatistics();
}

Status WriteParquetFile(storage::FileSystem& fs, const std::string& path,
                        const std::vector<columnar::RecordBatchPtr>& batches,
                        columnar::SchemaPtr schema, ParquetWriterOptions options,
                        std::vector<LeafStatistics>* statistics) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, fs.OpenOutputStream(path, storage::WriteMode::kPutIfAbsent));
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer, ParquetWriter::Open(std::move(out), std::move(schema), std::move(options)));
  for (const auto& batch : batches) {
    TRIBUTARY_RETURN_NOT_OK(writer->Write(*batch));
  }
  TRIBUTARY_RETURN_NOT_OK(writer->Close());
  if (statistics != nullptr) {
    *statistics = writer->FileStatistics();
  }
  return Status::OK();
}

}  // namespace tributary::parquet
