// Column chunk decoding (apache/parquet-format README.md "Column chunks", "Data Pages";
// Encodings.md). A chunk is
//
//   chunk        = [dictionary-page] *data-page
//   page         = PageHeader (thrift compact) body(compressed_page_size bytes)
//   data page v1 = compress( [rep-levels] [def-levels] values )
//                  levels: 4-byte LE length, then the RLE/bit-packed hybrid (RLE encoding)
//   data page v2 = rep-levels def-levels compress?( values )
//                  levels: RLE/bit-packed hybrid without length; lengths are in the header
//
// Values of a page are decoded into physical form (fixed-width bytes, or offsets plus bytes, or
// dictionary indexes) once, then each Read converts the slice it takes into the leaf's
// tributary type.

#include "formats/parquet/column_chunk_reader.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "columnar/calendar.h"
#include "columnar/column_builder.h"
#include "columnar/decimal.h"
#include "columnar/take.h"
#include "formats/parquet/byte_stream_split.h"
#include "formats/parquet/compression.h"
#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/rle_encoding.h"

namespace tributary::parquet {

using columnar::Buffer;
using columnar::BufferPtr;
using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Int128;
using columnar::MemoryPool;
using columnar::TypeId;

namespace {

// Values of a page before conversion: fixed-width bytes, or offsets into bytes.
struct PhysicalValues {
  int64_t count = 0;
  int width = 0;                 // bytes per value for fixed-width physical types
  std::string fixed;             // count * width bytes, when decoding had to produce them
  std::string_view fixed_view;   // the fixed-width bytes: `fixed`, or the page itself (PLAIN)
  std::vector<int64_t> offsets;  // BYTE_ARRAY: count + 1 offsets into the bytes
  std::string bytes;             // the bytes, when a decoder produced them as a string
  std::string_view plain_page;   // or PLAIN's page: value i follows i + 1 four-byte lengths

  // The first byte of byte array i.
  const char* ValueData(int64_t i) const {
    const int64_t from = offsets[static_cast<size_t>(i)];
    return plain_page.empty() ? bytes.data() + from : plain_page.data() + 4 * (i + 1) + from;
  }
};

// Converted values assembled into one column's buffers: the slices of pages one Read takes go
// straight into buffers sized from its entry count, so no page becomes a column of its own.
struct ValueSink {
  std::unique_ptr<Buffer> values;   // fixed-width values, or the bytes of byte arrays
  std::unique_ptr<Buffer> offsets;  // byte arrays: allocated + 1 offsets, the first 0
  int64_t capacity = 0;             // values the request may hold (its entries)
  int64_t allocated = 0;            // values the buffers have room for, at most capacity
  int64_t length = 0;               // values appended
  int64_t byte_length = 0;          // bytes appended (byte arrays)
};

int FixedWidth(const SchemaNode& leaf) {
  switch (leaf.physical_type) {
    case PhysicalType::kBoolean:
      return 1;  // unpacked to one byte per value
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return leaf.type_length;
    case PhysicalType::kByteArray:
      return 0;
  }
  return 0;
}

// Byte arrays read as they are: offsets plus bytes.
bool IsByteArrayIdentity(const SchemaNode& leaf) {
  return leaf.physical_type == PhysicalType::kByteArray &&
         leaf.conversion == LeafConversion::kIdentity;
}

// Bytes per converted value of a fixed-width leaf (at least one, as the buffers were sized).
int OutputWidth(const SchemaNode& leaf) {
  return std::max(leaf.type->ByteWidth(), 1);
}

int32_t LoadLe32(const char* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Decodes a column chunk page by page. A data page is decoded into its levels and physical
// values (or dictionary indexes) once; Read then converts the slice each request takes into
// that request's buffers, so a page may straddle two requests.
// Points fixed_view at `fixed` when a decoder produced the bytes, and gives byte arrays their
// leading offset when a decoder produced none.
void NormalizePhysical(PhysicalValues* values) {
  if (values->fixed_view.empty()) {
    values->fixed_view = values->fixed;
  }
  if (values->width == 0 && values->offsets.empty()) {
    values->offsets.push_back(0);
  }
}

class ChunkDecoder {
 public:
  ChunkDecoder(const SchemaNode& leaf, ChunkLocation location, MemoryPool* pool)
      : leaf_(leaf), location_(std::move(location)), pool_(pool) {}

  // The chunk: `chunk_size` bytes of `file` from byte `chunk_offset`, read a page at a time.
  void Start(const storage::RandomAccessFile& file, int64_t chunk_offset, int64_t chunk_size,
             int64_t num_values, CompressionCodec codec) {
    file_ = &file;
    chunk_offset_ = chunk_offset;
    chunk_size_ = chunk_size;
    num_values_ = num_values;
    codec_ = codec;
    use_sink_ = Sinkable();
  }
  int64_t NumValues() const { return num_values_; }
  int64_t EntriesLeft() const { return num_values_ - entries_read_; }
  // The next `entries` level entries (at most EntriesLeft()).
  Result<LeafData> Read(int64_t entries);

  Result<ColumnPtr> DecodePlainColumn(std::string_view data, int64_t count) {
    PhysicalValues values;
    TRIBUTARY_RETURN_NOT_OK(DecodePlain(data, count, 0, &values));
    return Convert(values, 0);
  }

 private:
  // What the current data page's values were decoded into.
  enum class PageValues : uint8_t { kPhysical, kIndexes, kColumn };

  Status Fault(int64_t offset, std::string_view what) const {
    return Status::Corruption(fmt::format("{}: row group {}, column {}, byte {}: {}",
                                          location_.file, location_.row_group, location_.column,
                                          offset, what));
  }

  // Decodes the chunk's next page; a data page becomes the current page.
  Status LoadNextPage();
  Status DecodeDictionaryPage(const PageHeader& header, std::string_view page, int64_t offset);
  Status DecodeDataPage(const PageHeader& header, std::string_view page, int64_t offset,
                        int64_t values_left);
  Status DecodeLevels(std::string_view data, int16_t max_level, int64_t count, int64_t offset,
                      std::vector<int16_t>* out);
  Status DecodeValues(Encoding encoding, std::string_view data, int64_t count, int64_t offset);
  Status DecodePlain(std::string_view data, int64_t count, int64_t offset, PhysicalValues* out);
  Result<ColumnPtr> Convert(PhysicalValues& values, int64_t offset);
  // Whether the leaf's values can be assembled in a ValueSink: fixed-width types and byte
  // arrays read as they are; other conversions build a column per page.
  bool Sinkable() const;
  // Sizes the sink for the request's `capacity` values when the chunk could plausibly hold that
  // many (capacity comes from the footer), else for fewer: EnsureRoom grows it as pages prove
  // their values are there.
  Status StartSink(ValueSink* sink, int64_t capacity);
  Status EnsureRoom(ValueSink* sink, int64_t more);
  // Room for `more` bytes of `count` values; the first call sizes the bytes for the sink's whole
  // capacity at that rate (per level entry of the range being taken, for sink_).
  Status ReserveBytes(ValueSink* sink, int64_t more, int64_t count);
  // Converts values [begin, begin + count) of `values` onto the end of `sink`.
  Status ConvertInto(const PhysicalValues& values, int64_t begin, int64_t count, int64_t offset,
                     ValueSink* sink);
  Status GatherInto(std::span<const int32_t> indexes, ValueSink* sink);
  Result<ColumnPtr> FinishSink(ValueSink* sink);
  // Appends the current page's next `count` values (covering `entries` level entries) to the
  // request's values.
  Status TakeValues(int64_t count, int64_t entries);
  Result<std::string_view> Decompress(std::string_view compressed, int64_t uncompressed_size,
                                      int64_t offset);

  const SchemaNode& leaf_;
  const ChunkLocation location_;
  MemoryPool* pool_;
  CompressionCodec codec_ = CompressionCodec::kUncompressed;
  const storage::RandomAccessFile* file_ = nullptr;
  int64_t chunk_offset_ = 0;
  int64_t chunk_size_ = 0;
  int64_t pos_ = 0;  // of the next page header, from the chunk's start
  // The current page's header and body as read (only grown, so reads never zero it again).
  std::string page_bytes_;
  std::string scratch_;  // the current page decompressed (its values may point here)
  ColumnPtr dictionary_;
  int64_t num_values_ = 0;      // entries of the chunk, from its metadata
  int64_t entries_loaded_ = 0;  // entries of the data pages decoded so far
  int64_t entries_read_ = 0;    // entries handed out by Read
  bool use_sink_ = false;

  // The current data page.
  int64_t page_entries_ = 0;
  int64_t page_entry_ = 0;     // entries of it handed out
  int64_t page_value_ = 0;     // values of it handed out
  int64_t page_offset_ = 0;    // file byte of its body, for errors
  int64_t range_entries_ = 0;  // level entries of the slice being taken from it
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

Result<std::string_view> ChunkDecoder::Decompress(std::string_view compressed,
                                                  int64_t uncompressed_size, int64_t offset) {
  if (codec_ == CompressionCodec::kUncompressed) {
    if (static_cast<int64_t>(compressed.size()) != uncompressed_size) {
      return Fault(offset, fmt::format("uncompressed page of {} bytes claims {} bytes",
                                       compressed.size(), uncompressed_size));
    }
    return compressed;
  }
  // The declared size is checked against the body before the buffer is sized by it.
  Status st = CheckDecompressedSize(codec_, compressed, uncompressed_size);
  if (!st.ok()) {
    return Fault(offset, st.Message());
  }
  scratch_.resize(static_cast<size_t>(uncompressed_size));
  st = parquet::Decompress(
      codec_, compressed,
      std::span<uint8_t>(reinterpret_cast<uint8_t*>(scratch_.data()), scratch_.size()));
  if (!st.ok()) {
    return Fault(offset, st.Message());
  }
  return std::string_view(scratch_);
}

Status ChunkDecoder::DecodeLevels(std::string_view data, int16_t max_level, int64_t count,
                                  int64_t offset, std::vector<int16_t>* out) {
  const int bit_width = BitWidthOf(static_cast<uint64_t>(max_level));
  const int64_t held = RleBitPackedDecoder::CountValues(data, bit_width, count);
  if (held < count) {
    return Fault(offset, fmt::format("levels hold {} values, the page declares {}", held, count));
  }
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(count));
  auto decoder = RleBitPackedDecoder::Make(data, bit_width);
  if (!decoder.ok()) {
    return Fault(offset, decoder.status().Message());
  }
  Status st = decoder->GetBatch(out->data() + start, count);
  if (!st.ok()) {
    return Fault(offset, "levels: " + st.Message());
  }
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] > max_level) {
      return Fault(offset, fmt::format("level {} above the maximum {}", (*out)[i], max_level));
    }
  }
  return Status::OK();
}

Status ChunkDecoder::DecodePlain(std::string_view data, int64_t count, int64_t offset,
                                 PhysicalValues* out) {
  out->count = count;
  if (leaf_.physical_type == PhysicalType::kBoolean) {
    if (static_cast<int64_t>(data.size()) * 8 < count) {
      return Fault(offset, fmt::format("{} PLAIN booleans need {} bytes, page has {}", count,
                                       (count + 7) / 8, data.size()));
    }
    out->width = 1;
    out->fixed.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      out->fixed[static_cast<size_t>(i)] =
          static_cast<char>((data[static_cast<size_t>(i >> 3)] >> (i & 7)) & 1);
    }
    return Status::OK();
  }
  if (leaf_.physical_type == PhysicalType::kByteArray) {
    if (count > static_cast<int64_t>(data.size()) / 4) {
      return Fault(offset, fmt::format("{} PLAIN byte arrays need at least {} bytes, page has {}",
                                       count, count * 4, data.size()));
    }
    // Checks every length and computes the offsets; ConvertInto copies the bytes.
    out->offsets.resize(static_cast<size_t>(count) + 1);
    out->offsets[0] = 0;
    size_t pos = 0;
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (data.size() - pos < 4) {
        return Fault(offset + static_cast<int64_t>(pos),
                     fmt::format("PLAIN byte array {} of {}: length runs past the page", i, count));
      }
      const int32_t length = LoadLe32(data.data() + pos);
      pos += 4;
      if (length < 0 || static_cast<size_t>(length) > data.size() - pos) {
        return Fault(offset + static_cast<int64_t>(pos),
                     fmt::format("PLAIN byte array {} of {} claims {} bytes, {} left", i, count,
                                 length, data.size() - pos));
      }
      pos += static_cast<size_t>(length);
      total += length;
      out->offsets[static_cast<size_t>(i) + 1] = total;
    }
    out->plain_page = data;  // copied once, by ConvertInto, into the column's bytes
    return Status::OK();
  }
  out->width = FixedWidth(leaf_);
  const int64_t needed = count * out->width;
  if (static_cast<int64_t>(data.size()) < needed) {
    return Fault(offset, fmt::format("{} PLAIN values need {} bytes, page has {}", count, needed,
                                     data.size()));
  }
  out->fixed_view = data.substr(0, static_cast<size_t>(needed));  // no copy: read in place
  return Status::OK();
}

Status ChunkDecoder::DecodeValues(Encoding encoding, std::string_view data, int64_t count,
                                  int64_t offset) {
  page_values_ = PhysicalValues();
  PhysicalValues& values = page_values_;
  values.count = count;
  values.width = FixedWidth(leaf_);
  page_kind_ = use_sink_ ? PageValues::kPhysical : PageValues::kColumn;
  page_column_.reset();
  switch (encoding) {
    case Encoding::kPlain:
      TRIBUTARY_RETURN_NOT_OK(DecodePlain(data, count, offset, &values));
      break;
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary: {
      if (dictionary_ == nullptr) {
        return Fault(offset, "dictionary-encoded page without a dictionary page");
      }
      page_indexes_.clear();
      if (data.empty()) {
        if (count != 0) {
          return Fault(offset, "dictionary indexes missing");
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
      const int bit_width = static_cast<uint8_t>(data[0]);
      auto decoder = RleBitPackedDecoder::Make(data.substr(1), bit_width);
      if (!decoder.ok()) {
        return Fault(offset, decoder.status().Message());
      }
      const int64_t held = RleBitPackedDecoder::CountValues(data.substr(1), bit_width, count);
      if (held < count) {
        return Fault(offset + 1,
                     fmt::format("dictionary indexes hold {} values, the page {}", held, count));
      }
      std::vector<int32_t>& indexes = page_indexes_;
      indexes.resize(static_cast<size_t>(count));
      Status st = decoder->GetBatch(indexes.data(), count);
      if (!st.ok()) {
        return Fault(offset + 1, "dictionary indexes: " + st.Message());
      }
      const int64_t size = dictionary_->Length();
      for (size_t i = 0; i < indexes.size(); ++i) {
        if (indexes[i] < 0 || indexes[i] >= size) {
          return Fault(offset, fmt::format("dictionary index {} of value {} is outside the "
                                           "dictionary of {} entries",
                                           indexes[i], i, size));
        }
      }
      if (use_sink_) {
        page_kind_ = PageValues::kIndexes;
        return Status::OK();
      }
      std::vector<int64_t> rows(indexes.begin(), indexes.end());
      TRIBUTARY_ASSIGN_OR_RAISE(page_column_, columnar::Take(*dictionary_, rows, pool_));
      return Status::OK();
    }
    case Encoding::kRle: {
      if (leaf_.physical_type != PhysicalType::kBoolean) {
        return Fault(offset, "RLE values on a non-boolean column");
      }
      if (data.size() < 4) {
        return Fault(offset, "RLE booleans without their length");
      }
      const int32_t length = LoadLe32(data.data());
      if (length < 0 || static_cast<size_t>(length) > data.size() - 4) {
        return Fault(offset, fmt::format("RLE booleans claim {} bytes, page has {}", length,
                                         data.size() - 4));
      }
      const std::string_view runs = data.substr(4, static_cast<size_t>(length));
      const int64_t held = RleBitPackedDecoder::CountValues(runs, 1, count);
      if (held < count) {
        return Fault(offset + 4,
                     fmt::format("RLE booleans hold {} values, the page {}", held, count));
      }
      auto decoder = RleBitPackedDecoder::Make(runs, 1);
      if (!decoder.ok()) {
        return Fault(offset, decoder.status().Message());
      }
      values.fixed.resize(static_cast<size_t>(count));
      Status st = decoder->GetBatch(reinterpret_cast<uint8_t*>(values.fixed.data()), count);
      if (!st.ok()) {
        return Fault(offset + 4, "RLE booleans: " + st.Message());
      }
      break;
    }
    case Encoding::kDeltaBinaryPacked: {
      Status st;
      // The stream's own count is checked before the page's count sizes the values.
      auto check_count = [&](int64_t declared) {
        return declared >= count
                   ? Status::OK()
                   : Status::Corruption(fmt::format("the stream declares {} values, the page {}",
                                                    declared, count));
      };
      if (leaf_.physical_type == PhysicalType::kInt32) {
        auto decoder = DeltaBinaryPackedDecoder<int32_t>::Make(data);
        st = decoder.ok() ? check_count(decoder->TotalValueCount()) : decoder.status();
        if (st.ok()) {
          values.fixed.resize(static_cast<size_t>(count) * 4);
          st = decoder->GetBatch(reinterpret_cast<int32_t*>(values.fixed.data()), count);
        }
      } else if (leaf_.physical_type == PhysicalType::kInt64) {
        auto decoder = DeltaBinaryPackedDecoder<int64_t>::Make(data);
        st = decoder.ok() ? check_count(decoder->TotalValueCount()) : decoder.status();
        if (st.ok()) {
          values.fixed.resize(static_cast<size_t>(count) * 8);
          st = decoder->GetBatch(reinterpret_cast<int64_t*>(values.fixed.data()), count);
        }
      } else {
        return Fault(offset, "DELTA_BINARY_PACKED on a column that is not INT32 or INT64");
      }
      if (!st.ok()) {
        return Fault(offset, "DELTA_BINARY_PACKED: " + st.Message());
      }
      break;
    }
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray: {
      if (leaf_.physical_type != PhysicalType::kByteArray &&
          leaf_.physical_type != PhysicalType::kFixedLenByteArray) {
        return Fault(offset, "delta byte-array encoding on a non-byte-array column");
      }
      Status st = encoding == Encoding::kDeltaLengthByteArray
                      ? DecodeDeltaLengthByteArray(data, count, &values.offsets, &values.bytes)
                      : DecodeDeltaByteArray(data, count, &values.offsets, &values.bytes);
      if (!st.ok()) {
        return Fault(offset, st.Message());
      }
      if (leaf_.physical_type == PhysicalType::kFixedLenByteArray) {
        // Fixed-width values through a variable-width encoding: every length must match.
        for (int64_t i = 0; i < count; ++i) {
          if (values.offsets[static_cast<size_t>(i) + 1] - values.offsets[static_cast<size_t>(i)] !=
              leaf_.type_length) {
            return Fault(offset,
                         fmt::format("value {} is not {} bytes long", i, leaf_.type_length));
          }
        }
        values.fixed = values.bytes.substr(static_cast<size_t>(values.offsets[0]));
        values.offsets.clear();
      }
      break;
    }
    case Encoding::kByteStreamSplit: {
      if (values.width <= 0 || leaf_.physical_type == PhysicalType::kBoolean ||
          leaf_.physical_type == PhysicalType::kInt96) {
        return Fault(offset, "BYTE_STREAM_SPLIT on a column without a fixed width");
      }
      if (count > static_cast<int64_t>(data.size()) / values.width) {
        return Fault(offset, fmt::format("{} BYTE_STREAM_SPLIT values need {} bytes, page has {}",
                                         count, count * values.width, data.size()));
      }
      values.fixed.resize(static_cast<size_t>(count * values.width));
      Status st = DecodeByteStreamSplit(data, values.width, count,
                                        reinterpret_cast<uint8_t*>(values.fixed.data()));
      if (!st.ok()) {
        return Fault(offset, "BYTE_STREAM_SPLIT: " + st.Message());
      }
      break;
    }
    default:
      return Status::NotImplemented(fmt::format(
          "{}: row group {}, column {}: encoding {} ({})", location_.file, location_.row_group,
          location_.column, EncodingName(encoding), static_cast<int>(encoding)));
  }
  NormalizePhysical(&values);
  if (!use_sink_) {
    TRIBUTARY_ASSIGN_OR_RAISE(page_column_, Convert(values, offset));
  }
  return Status::OK();
}

// Big-endian two's complement of 1..16 bytes to Int128.
bool BigEndianToInt128(const char* p, int64_t length, Int128* out) {
  if (length > 16 || length <= 0) {
    // Longer encodings are allowed if the extra bytes are sign extension.
    if (length <= 0) {
      *out = 0;
      return length == 0;
    }
    const char sign = (p[0] & 0x80) ? static_cast<char>(0xFF) : 0;
    for (int64_t i = 0; i < length - 16; ++i) {
      if (p[i] != sign) {
        return false;
      }
    }
    p += length - 16;
    length = 16;
  }
  unsigned __int128 value =
      (static_cast<uint8_t>(p[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (int64_t i = 0; i < length; ++i) {
    value = (value << 8) | static_cast<uint8_t>(p[i]);
  }
  *out = static_cast<Int128>(value);
  return true;
}

Status ChunkDecoder::ConvertInto(const PhysicalValues& values, int64_t begin, int64_t count,
                                 int64_t offset, ValueSink* sink) {
  const int64_t n = count;
  const columnar::DataTypePtr& type = leaf_.type;
  if (n > sink->capacity - sink->length || begin + n > values.count) {
    return Status::Internal(fmt::format(
        "column {}: values {}..{} of a page of {} into {} of {} slots", location_.column, begin,
        begin + n, values.count, sink->length + n, sink->capacity));
  }
  TRIBUTARY_RETURN_NOT_OK(EnsureRoom(sink, n));
  if (IsByteArrayIdentity(leaf_)) {
    // The range's offsets; they address the page's bytes (or the PLAIN page, see ValueData).
    const int64_t* offs = values.offsets.data() + begin;
    const int64_t base = offs[0];
    const int64_t range_bytes = offs[n] - base;
    TRIBUTARY_RETURN_NOT_OK(ReserveBytes(sink, range_bytes, n));
    char* out = reinterpret_cast<char*>(sink->values->mutable_data()) + sink->byte_length;
    if (!values.plain_page.empty()) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + (offs[i] - base), values.ValueData(begin + i),
                    static_cast<size_t>(offs[i + 1] - offs[i]));
      }
    } else if (range_bytes > 0) {
      std::memcpy(out, values.bytes.data() + base, static_cast<size_t>(range_bytes));
    }
    // The range's values as the offsets address them.
    const char* data = out - base;
    if (type->Id() == TypeId::kString) {
      // One pass over the range's bytes; if it is valid, each value is valid unless a character
      // straddles two values, i.e. some value starts with a continuation byte.
      bool valid = columnar::IsValidUtf8(std::string_view(out, static_cast<size_t>(range_bytes)));
      for (int64_t i = 0; valid && i < n; ++i) {
        if (offs[i + 1] > offs[i] && (static_cast<uint8_t>(data[offs[i]]) & 0xC0) == 0x80) {
          valid = false;
        }
      }
      if (!valid) {
        for (int64_t i = 0; i < n; ++i) {
          if (!columnar::IsValidUtf8(
                  std::string_view(data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])))) {
            return Fault(offset, fmt::format("value {} of the page is not valid UTF-8", begin + i));
          }
        }
      }
    }
    int64_t* offsets = sink->offsets->MutableDataAs<int64_t>() + sink->length;
    const int64_t shift = sink->byte_length - base;
    for (int64_t i = 1; i <= n; ++i) {
      offsets[i] = offs[i] + shift;
    }
    sink->length += n;
    sink->byte_length += range_bytes;
    return Status::OK();
  }
  const int width = values.width;
  const char* in = values.fixed_view.data() + begin * width;
  // Every byte of the n values is written by the conversion below.
  uint8_t* const out = sink->values->mutable_data() + sink->length * OutputWidth(leaf_);
  auto fail = [&](int64_t i, std::string_view what) {
    return Fault(offset, fmt::format("value {}: {}", begin + i, what));
  };
  switch (leaf_.conversion) {
    case LeafConversion::kIdentity:
      if (type->ByteWidth() != width) {
        return Status::Internal(fmt::format("column {}: {} from physical width {}",
                                            location_.column, type->ToString(), width));
      }
      std::memcpy(out, in, static_cast<size_t>(n * width));
      break;
    case LeafConversion::kInt32ToInt8:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int8_t*>(out)[i] = static_cast<int8_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kInt32ToInt16:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int16_t*>(out)[i] = static_cast<int16_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kUint32ToInt64:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<int64_t*>(out)[i] = static_cast<uint32_t>(LoadLe32(in + i * 4));
      }
      break;
    case LeafConversion::kUint64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<Int128*>(out)[i] = static_cast<Int128>(v);
      }
      break;
    case LeafConversion::kInt32ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        reinterpret_cast<Int128*>(out)[i] = LoadLe32(in + i * 4);
      }
      break;
    case LeafConversion::kInt64ToDecimal:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<Int128*>(out)[i] = v;
      }
      break;
    case LeafConversion::kBytesToDecimal: {
      const bool fixed = leaf_.physical_type == PhysicalType::kFixedLenByteArray;
      for (int64_t i = 0; i < n; ++i) {
        const auto v = static_cast<size_t>(begin + i);
        const char* p = fixed ? in + i * width : values.ValueData(begin + i);
        const int64_t length = fixed ? width : values.offsets[v + 1] - values.offsets[v];
        Int128 value = 0;
        if (!BigEndianToInt128(p, length, &value) ||
            !columnar::FitsPrecision(value, type->Precision())) {
          return fail(i, fmt::format("does not fit {}", type->ToString()));
        }
        reinterpret_cast<Int128*>(out)[i] = value;
      }
      break;
    }
    case LeafConversion::kInt96ToTimestamp:
      // INT96: 8 bytes nanoseconds of the day, then 4 bytes Julian day number, little-endian.
      for (int64_t i = 0; i < n; ++i) {
        int64_t nanos;
        std::memcpy(&nanos, in + i * 12, 8);
        const int64_t julian_day = LoadLe32(in + i * 12 + 8);
        constexpr int64_t kJulianDayOfEpoch = 2440588;
        int64_t micros = 0;
        if (__builtin_mul_overflow(julian_day - kJulianDayOfEpoch, columnar::kMicrosPerDay,
                                   &micros) ||
            __builtin_add_overflow(micros, nanos / 1000, &micros)) {
          return fail(i, "INT96 timestamp out of range");
        }
        reinterpret_cast<int64_t*>(out)[i] = micros;
      }
      break;
    case LeafConversion::kMillisToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        if (__builtin_mul_overflow(v, int64_t{1000}, &reinterpret_cast<int64_t*>(out)[i])) {
          return fail(i, "millisecond timestamp out of range");
        }
      }
      break;
    case LeafConversion::kNanosToMicros:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, in + i * 8, 8);
        reinterpret_cast<int64_t*>(out)[i] = columnar::FloorDiv(v, 1000);
      }
      break;
    case LeafConversion::kFixedToBinary:
    case LeafConversion::kUuidToString:
      return Status::Internal(
          fmt::format("column {}: {} is built per page", location_.column, type->ToString()));
    case LeafConversion::kFloat16ToFloat:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, in + i * 2, 2);
        const uint32_t sign = (h & 0x8000u) << 16;
        const uint32_t exponent = (h >> 10) & 0x1F;
        const uint32_t mantissa = h & 0x3FF;
        float f;
        if (exponent == 0) {
          f = std::ldexp(static_cast<float>(mantissa), -24);
        } else if (exponent == 31) {
          f = mantissa ? std::numeric_limits<float>::quiet_NaN()
                       : std::numeric_limits<float>::infinity();
        } else {
          f = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
        }
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        bits |= sign;
        std::memcpy(&reinterpret_cast<float*>(out)[i], &bits, 4);
      }
      break;
  }
  if (leaf_.physical_type == PhysicalType::kBoolean) {
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<uint8_t>(in[i]) > 1) {
        return fail(i, "boolean that is neither 0 nor 1");
      }
    }
  }
  sink->length += n;
  return Status::OK();
}

Result<ColumnPtr> ChunkDecoder::Convert(PhysicalValues& values, int64_t offset) {
  const int64_t n = values.count;
  NormalizePhysical(&values);
  if (leaf_.conversion == LeafConversion::kFixedToBinary ||
      leaf_.conversion == LeafConversion::kUuidToString) {
    if (values.fixed_view.empty()) {
      values.fixed_view = values.fixed;
    }
    const char* in = values.fixed_view.data();
    const int width = values.width;
    columnar::ColumnBuilder builder(leaf_.type, pool_);
    static constexpr char kHex[] = "0123456789abcdef";
    for (int64_t i = 0; i < n; ++i) {
      std::string_view value(in + i * width, static_cast<size_t>(width));
      if (leaf_.conversion == LeafConversion::kFixedToBinary) {
        builder.AppendBytes(value);
        continue;
      }
      std::string text;
      for (int b = 0; b < 16; ++b) {
        if (b == 4 || b == 6 || b == 8 || b == 10) {
          text.push_back('-');
        }
        text.push_back(kHex[static_cast<uint8_t>(value[static_cast<size_t>(b)]) >> 4]);
        text.push_back(kHex[static_cast<uint8_t>(value[static_cast<size_t>(b)]) & 15]);
      }
      builder.AppendBytes(text);
    }
    return builder.Finish();
  }
  ValueSink sink;
  TRIBUTARY_RETURN_NOT_OK(StartSink(&sink, n));
  TRIBUTARY_RETURN_NOT_OK(ConvertInto(values, 0, n, offset, &sink));
  return FinishSink(&sink);
}

bool ChunkDecoder::Sinkable() const {
  if (leaf_.conversion == LeafConversion::kFixedToBinary ||
      leaf_.conversion == LeafConversion::kUuidToString) {
    return false;
  }
  return IsByteArrayIdentity(leaf_) || leaf_.type->ByteWidth() > 0;
}

Status ChunkDecoder::StartSink(ValueSink* sink, int64_t capacity) {
  // Bit-packed booleans and 1-bit dictionary indexes hold 8 values a byte; only RLE runs hold
  // more, and a request that large grows from here.
  constexpr int64_t kMinPlausibleValues = int64_t{1} << 16;
  constexpr int64_t kMaxValuesPerByte = 8;
  const int64_t plausible = std::max(kMinPlausibleValues, chunk_size_ * kMaxValuesPerByte);
  sink->capacity = capacity;
  sink->allocated = std::min(capacity, plausible);
  if (IsByteArrayIdentity(leaf_)) {
    TRIBUTARY_ASSIGN_OR_RAISE(sink->offsets,
                              Buffer::AllocateUninitialized((sink->allocated + 1) * 8, pool_));
    sink->offsets->MutableDataAs<int64_t>()[0] = 0;
    return Status::OK();  // the bytes are reserved as pages arrive
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      sink->values, Buffer::AllocateUninitialized(sink->allocated * OutputWidth(leaf_), pool_));
  return Status::OK();
}

Status ChunkDecoder::EnsureRoom(ValueSink* sink, int64_t more) {
  const int64_t needed = sink->length + more;
  if (needed <= sink->allocated) {
    return Status::OK();
  }
  sink->allocated = std::min(sink->capacity, std::max(needed, sink->allocated * 2));
  if (IsByteArrayIdentity(leaf_)) {
    return sink->offsets->ResizeUninitialized((sink->allocated + 1) * 8);
  }
  return sink->values->ResizeUninitialized(sink->allocated * OutputWidth(leaf_));
}

Status ChunkDecoder::ReserveBytes(ValueSink* sink, int64_t more, int64_t count) {
  const int64_t needed = sink->byte_length + more;
  if (sink->values == nullptr) {
    // The first slice's bytes per entry (nulls included) times the request's entries.
    int64_t expected = needed;
    const int64_t entries = sink == &sink_ ? range_entries_ : count;
    if (entries > 0 && sink->allocated > entries) {
      expected = static_cast<int64_t>(static_cast<double>(more) / static_cast<double>(entries) *
                                      static_cast<double>(sink->allocated));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(sink->values,
                              Buffer::AllocateUninitialized(std::max(needed, expected), pool_));
    return Status::OK();
  }
  if (needed > sink->values->size()) {
    return sink->values->ResizeUninitialized(needed);  // grows capacity geometrically
  }
  return Status::OK();
}

Status ChunkDecoder::GatherInto(std::span<const int32_t> indexes, ValueSink* sink) {
  const auto n = static_cast<int64_t>(indexes.size());
  if (n > sink->capacity - sink->length) {
    return Status::Internal(fmt::format("column {}: {} values past the {} the request holds",
                                        location_.column, sink->length + n, sink->capacity));
  }
  TRIBUTARY_RETURN_NOT_OK(EnsureRoom(sink, n));
  const Column& dictionary = *dictionary_;
  if (IsByteArrayIdentity(leaf_)) {
    const int64_t* from = dictionary.Offsets();
    int64_t total = 0;
    for (const int32_t index : indexes) {
      total += from[index + 1] - from[index];
    }
    TRIBUTARY_RETURN_NOT_OK(ReserveBytes(sink, total, n));
    const auto* bytes = dictionary.ValuesBuffer()->data();
    uint8_t* out = sink->values->mutable_data();
    int64_t* offsets = sink->offsets->MutableDataAs<int64_t>() + sink->length;
    int64_t end = sink->byte_length;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t index = indexes[static_cast<size_t>(i)];
      const int64_t length = from[index + 1] - from[index];
      std::memcpy(out + end, bytes + from[index], static_cast<size_t>(length));
      end += length;
      offsets[i + 1] = end;
    }
    sink->length += n;
    sink->byte_length = end;
    return Status::OK();
  }
  const int width = OutputWidth(leaf_);
  const uint8_t* in = dictionary.ValuesBuffer()->data();
  uint8_t* out = sink->values->mutable_data() + sink->length * width;
  auto gather = [&](auto width_constant) {
    constexpr int kWidth = decltype(width_constant)::value;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(out + i * kWidth, in + int64_t{indexes[static_cast<size_t>(i)]} * kWidth, kWidth);
    }
  };
  switch (width) {
    case 1:
      gather(std::integral_constant<int, 1>());
      break;
    case 4:
      gather(std::integral_constant<int, 4>());
      break;
    case 8:
      gather(std::integral_constant<int, 8>());
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + i * width, in + int64_t{indexes[static_cast<size_t>(i)]} * width,
                    static_cast<size_t>(width));
      }
      break;
  }
  sink->length += n;
  return Status::OK();
}

Result<ColumnPtr> ChunkDecoder::FinishSink(ValueSink* sink) {
  if (IsByteArrayIdentity(leaf_)) {
    if (sink->values == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(sink->values, Buffer::AllocateUninitialized(0, pool_));
    }
    TRIBUTARY_RETURN_NOT_OK(sink->values->ResizeUninitialized(sink->byte_length));
    TRIBUTARY_RETURN_NOT_OK(sink->offsets->ResizeUninitialized((sink->length + 1) * 8));
    return Column::Make(leaf_.type, sink->length, nullptr, BufferPtr(std::move(sink->values)),
                        BufferPtr(std::move(sink->offsets)));
  }
  TRIBUTARY_RETURN_NOT_OK(sink->values->ResizeUninitialized(sink->length * OutputWidth(leaf_)));
  return Column::Make(leaf_.type, sink->length, nullptr, BufferPtr(std::move(sink->values)));
}

Status ChunkDecoder::TakeValues(int64_t count, int64_t entries) {
  range_entries_ = entries;
  switch (page_kind_) {
    case PageValues::kPhysical:
      TRIBUTARY_RETURN_NOT_OK(ConvertInto(page_values_, page_value_, count, page_offset_, &sink_));
      break;
    case PageValues::kIndexes:
      if (page_value_ + count > static_cast<int64_t>(page_indexes_.size())) {
        return Status::Internal(fmt::format("column {}: values {}..{} of a page of {} indexes",
                                            location_.column, page_value_, page_value_ + count,
                                            page_indexes_.size()));
      }
      TRIBUTARY_RETURN_NOT_OK(
          GatherInto(std::span<const int32_t>(page_indexes_)
                         .subspan(static_cast<size_t>(page_value_), static_cast<size_t>(count)),
                     &sink_));
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

Status ChunkDecoder::DecodeDictionaryPage(const PageHeader& header, std::string_view page,
                                          int64_t offset) {
  if (dictionary_ != nullptr) {
    return Fault(offset, "second dictionary page in one column chunk");
  }
  const DictionaryPageHeader& dict = *header.dictionary_page_header;
  if (dict.num_values < 0) {
    return Fault(offset, fmt::format("dictionary of {} values", dict.num_values));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string_view data,
                            Decompress(page, header.uncompressed_page_size, offset));
  PhysicalValues values;
  TRIBUTARY_RETURN_NOT_OK(DecodePlain(data, dict.num_values, offset, &values));
  TRIBUTARY_ASSIGN_OR_RAISE(dictionary_, Convert(values, offset));
  return Status::OK();
}

Status ChunkDecoder::DecodeDataPage(const PageHeader& header, std::string_view page, int64_t offset,
                                    int64_t values_left) {
  page_defs_.clear();
  page_reps_.clear();
  const int16_t max_def = leaf_.def_level;
  const int16_t max_rep = leaf_.rep_level;
  int64_t num_values = 0;
  Encoding encoding;
  std::string_view values_data;
  if (header.type == PageType::kDataPage) {
    const DataPageHeader& data_header = *header.data_page_header;
    num_values = data_header.num_values;
    encoding = data_header.encoding;
    if (num_values < 0 || num_values > values_left) {
      return Fault(offset, fmt::format("data page of {} values where the chunk has {} left",
                                       num_values, values_left));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string_view data,
                              Decompress(page, header.uncompressed_page_size, offset));
    size_t pos = 0;
    auto read_levels = [&](int16_t max_level, Encoding level_encoding,
                           std::vector<int16_t>* out) -> Status {
      if (max_level == 0) {
        return Status::OK();
      }
      if (level_encoding == Encoding::kBitPacked) {
        // The deprecated BIT_PACKED levels of old writers: no length prefix, MSB first.
        const int bit_width = BitWidthOf(static_cast<uint64_t>(max_level));
        const int64_t size = LegacyBitPackedSize(bit_width, num_values);
        if (size > static_cast<int64_t>(data.size() - pos)) {
          return Fault(offset + static_cast<int64_t>(pos),
                       fmt::format("BIT_PACKED levels need {} bytes, page has {} left", size,
                                   data.size() - pos));
        }
        const size_t start = out->size();
        out->resize(start + static_cast<size_t>(num_values));
        Status st = DecodeLegacyBitPacked(data.substr(pos, static_cast<size_t>(size)), bit_width,
                                          num_values, out->data() + start);
        if (!st.ok()) {
          return Fault(offset + static_cast<int64_t>(pos), "levels: " + st.Message());
        }
        for (size_t i = start; i < out->size(); ++i) {
          if ((*out)[i] > max_level) {
            return Fault(offset + static_cast<int64_t>(pos),
                         fmt::format("level {} above the maximum {}", (*out)[i], max_level));
          }
        }
        pos += static_cast<size_t>(size);
        return Status::OK();
      }
      if (level_encoding != Encoding::kRle) {
        return Fault(offset + static_cast<int64_t>(pos),
                     fmt::format("levels encoded as {}, which is not a level encoding",
                                 EncodingName(level_encoding)));
      }
      if (data.size() - pos < 4) {
        return Fault(offset + static_cast<int64_t>(pos), "levels length runs past the page");
      }
      const int32_t length = LoadLe32(data.data() + pos);
      pos += 4;
      if (length < 0 || static_cast<size_t>(length) > data.size() - pos) {
        return Fault(
            offset + static_cast<int64_t>(pos),
            fmt::format("levels claim {} bytes, page has {} left", length, data.size() - pos));
      }
      TRIBUTARY_RETURN_NOT_OK(DecodeLevels(data.substr(pos, static_cast<size_t>(length)), max_level,
                                           num_values, offset + static_cast<int64_t>(pos), out));
      pos += static_cast<size_t>(length);
      return Status::OK();
    };
    TRIBUTARY_RETURN_NOT_OK(
        read_levels(max_rep, data_header.repetition_level_encoding, &page_reps_));
    TRIBUTARY_RETURN_NOT_OK(
        read_levels(max_def, data_header.definition_level_encoding, &page_defs_));
    values_data = data.substr(pos);
  } else {
    const DataPageHeaderV2& v2 = *header.data_page_header_v2;
    num_values = v2.num_values;
    encoding = v2.encoding;
    const int64_t rep_length = v2.repetition_levels_byte_length;
    const int64_t def_length = v2.definition_levels_byte_length;
    if (num_values < 0 || num_values > values_left || rep_length < 0 || def_length < 0 ||
        rep_length + def_length > static_cast<int64_t>(page.size()) ||
        rep_length + def_length > header.uncompressed_page_size) {
      return Fault(offset, fmt::format("data page v2 levels ({} + {} bytes) do not fit the page "
                                       "of {} bytes",
                                       rep_length, def_length, page.size()));
    }
    if (max_rep > 0) {
      TRIBUTARY_RETURN_NOT_OK(DecodeLevels(page.substr(0, static_cast<size_t>(rep_length)), max_rep,
                                           num_values, offset, &page_reps_));
    }
    if (max_def > 0) {
      TRIBUTARY_RETURN_NOT_OK(DecodeLevels(
          page.substr(static_cast<size_t>(rep_length), static_cast<size_t>(def_length)), max_def,
          num_values, offset + rep_length, &page_defs_));
    }
    std::string_view rest = page.substr(static_cast<size_t>(rep_length + def_length));
    const int64_t uncompressed = header.uncompressed_page_size - rep_length - def_length;
    if (v2.is_compressed) {
      TRIBUTARY_ASSIGN_OR_RAISE(values_data,
                                Decompress(rest, uncompressed, offset + rep_length + def_length));
    } else {
      values_data = rest;
    }
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
  TRIBUTARY_RETURN_NOT_OK(DecodeValues(encoding, values_data, present, offset));
  page_entries_ = num_values;
  page_entry_ = 0;
  page_value_ = 0;
  page_offset_ = offset;
  entries_loaded_ += num_values;
  return Status::OK();
}

Status ChunkDecoder::LoadNextPage() {
  const int64_t page_offset = chunk_offset_ + pos_;
  const int64_t left = chunk_size_ - pos_;
  if (left <= 0) {
    return Fault(page_offset, fmt::format("column chunk ends after {} of {} values",
                                          entries_loaded_, num_values_));
  }
  // The header's size is unknown until it decodes: read a window that holds most headers (and
  // small pages whole), and a larger one when it does not decode from what was read.
  constexpr int64_t kHeaderWindow = 4096;
  int64_t have = 0;
  int64_t header_size = 0;
  Result<PageHeader> header = Status::Corruption("no page header");
  for (int64_t window = std::min(left, kHeaderWindow);; window = std::min(left, window * 16)) {
    if (static_cast<int64_t>(page_bytes_.size()) < window) {
      page_bytes_.resize(static_cast<size_t>(window));
    }
    TRIBUTARY_RETURN_NOT_OK(file_->ReadInto(
        page_offset + have,
        std::span<char>(page_bytes_.data() + have, static_cast<size_t>(window - have))));
    have = window;
    header = DecodePageHeader(std::string_view(page_bytes_.data(), static_cast<size_t>(have)),
                              &header_size);
    if (header.ok() || have == left) {
      break;
    }
  }
  if (!header.ok()) {
    return Fault(page_offset, header.status().Message());
  }
  const int64_t body_size = header->compressed_page_size;
  if (body_size < 0 || body_size > left - header_size) {
    return Fault(page_offset, fmt::format("page header claims {} bytes but the column chunk "
                                          "has {} left",
                                          body_size, left - header_size));
  }
  const int64_t page_size = header_size + body_size;
  if (page_size > have) {
    if (static_cast<int64_t>(page_bytes_.size()) < page_size) {
      page_bytes_.resize(static_cast<size_t>(page_size));
    }
    TRIBUTARY_RETURN_NOT_OK(file_->ReadInto(
        page_offset + have,
        std::span<char>(page_bytes_.data() + have, static_cast<size_t>(page_size - have))));
  }
  std::string_view body(page_bytes_.data() + header_size, static_cast<size_t>(body_size));
  const int64_t body_offset = page_offset + header_size;
  pos_ += page_size;
  switch (header->type) {
    case PageType::kDictionaryPage:
      if (!header->dictionary_page_header) {
        return Fault(page_offset, "dictionary page without its header");
      }
      return DecodeDictionaryPage(*header, body, body_offset);
    case PageType::kDataPage:
      if (!header->data_page_header) {
        return Fault(page_offset, "data page without its header");
      }
      return DecodeDataPage(*header, body, body_offset, num_values_ - entries_loaded_);
    case PageType::kDataPageV2:
      if (!header->data_page_header_v2) {
        return Fault(page_offset, "data page v2 without its header");
      }
      return DecodeDataPage(*header, body, body_offset, num_values_ - entries_loaded_);
    default:
      return Status::OK();  // index pages carry nothing we read
  }
}

Result<LeafData> ChunkDecoder::Read(int64_t entries) {
  if (entries < 0 || entries > EntriesLeft()) {
    return Status::Internal(fmt::format("column {}: {} entries asked of the {} left",
                                        location_.column, entries, EntriesLeft()));
  }
  LeafData out;
  sink_ = ValueSink();
  pieces_.clear();
  if (use_sink_) {
    TRIBUTARY_RETURN_NOT_OK(StartSink(&sink_, entries));
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
    TRIBUTARY_ASSIGN_OR_RAISE(out.values, FinishSink(&sink_));
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

}  // namespace

Result<ColumnPtr> DecodePlainValues(const SchemaNode& leaf, std::string_view data, int64_t count,
                                    const ChunkLocation& location, MemoryPool* pool) {
  ChunkDecoder decoder(leaf, location, pool);
  return decoder.DecodePlainColumn(data, count);
}

class ColumnChunkReader::Decoder : public ChunkDecoder {
 public:
  using ChunkDecoder::ChunkDecoder;
};

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
  auto decoder = std::make_unique<Decoder>(leaf, location, pool);
  decoder->Start(file, start, md.total_compressed_size, md.num_values, *codec);
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
