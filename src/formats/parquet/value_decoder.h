// Values of a page into their physical form (Encodings.md): PLAIN, RLE booleans,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, and the
// dictionary indexes of PLAIN_DICTIONARY / RLE_DICTIONARY pages:
//
//   dictionary indexes = uint8(bit width) rle-hybrid(indexes)
//
// The physical values are converted into the leaf's tributary type by type_conversion.h.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/parquet/metadata.h"
#include "formats/parquet/page_reader.h"
#include "formats/parquet/reader_schema.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// Values of a page before conversion: fixed-width bytes, or offsets into bytes.
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

  // Points fixed_view at `fixed` when a decoder produced the bytes, and gives byte arrays their
  // leading offset when a decoder produced none.
  void Normalize() {
    if (fixed_view.empty()) {
      fixed_view = fixed;
    }
    if (width == 0 && offsets.empty()) {
      offsets.push_back(0);
    }
  }
};

/// Bytes per physical value of `leaf` (BOOLEAN unpacked to one byte); 0 for BYTE_ARRAY.
int FixedWidth(const SchemaNode& leaf);

/// Decodes the values of one leaf's pages into PhysicalValues. The values may point into the
/// page (PLAIN), which must outlive them. Corruption errors name `location` and the file byte
/// `offset` of the page body; an encoding the reader does not know is NotImplemented.
class ValueDecoder {
 public:
  ValueDecoder(const SchemaNode& leaf, const ChunkLocation& location)
      : leaf_(leaf), location_(location) {}

  /// `count` PLAIN values from the start of `data`.
  [[nodiscard]] Status DecodePlain(std::string_view data, int64_t count, int64_t offset,
                                   PhysicalValues* out) const;

  /// `count` values of `data` in `encoding`, which is not a dictionary encoding.
  [[nodiscard]] Status Decode(Encoding encoding, std::string_view data, int64_t count,
                              int64_t offset, PhysicalValues* out) const;

  /// The `count` dictionary indexes of a non-empty dictionary-encoded page `data`, each checked
  /// to be below `dictionary_size`.
  [[nodiscard]] Status DecodeIndexes(std::string_view data, int64_t count, int64_t dictionary_size,
                                     int64_t offset, std::vector<int32_t>* out) const;

 private:
  const SchemaNode& leaf_;
  const ChunkLocation& location_;
};

}  // namespace tributary::parquet
