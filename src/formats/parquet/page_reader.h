// Reads the pages of one column chunk (apache/parquet-format README.md "Column chunks", "Data
// Pages"): page headers, their declared sizes checked against the chunk, and decompression.
//
//   chunk        = [dictionary-page] *data-page
//   page         = PageHeader (thrift compact) body(compressed_page_size bytes)
//   data page v1 = compress( [rep-levels] [def-levels] values )
//   data page v2 = rep-levels def-levels compress?( values )
//
// What a page holds is decoded by level_decoder.h (levels), value_decoder.h (values) and
// type_conversion.h (values into tributary types); column_chunk_reader.h puts them together.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/parquet/compression.h"
#include "formats/parquet/metadata.h"
#include "storage/file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// Where a chunk sits, for error messages: "file.parquet, row group 2, column a.b".
struct ChunkLocation {
  std::string file;
  int row_group = 0;
  std::string column;

  /// Corruption naming the chunk and the file byte `offset` of the fault.
  Status Fault(int64_t offset, std::string_view what) const;
};

/// One page of a column chunk, decompressed. Its views point into the PageReader that read it
/// and stay valid until its next call to Next.
struct Page {
  /// kDictionaryPage, kDataPage, kDataPageV2, or another type, which carries nothing read.
  PageType type = PageType::kDataPage;
  /// Level entries of a data page; values of a dictionary page.
  int64_t num_values = 0;
  /// The values' encoding (data pages).
  Encoding encoding = Encoding::kPlain;
  /// Data page v1: the levels' encodings; its levels precede the values in `data`.
  Encoding rep_level_encoding = Encoding::kRle;
  Encoding def_level_encoding = Encoding::kRle;
  /// Data page v1: the whole body (levels, then values). Data page v2: the values.
  /// Dictionary page: its PLAIN values.
  std::string_view data;
  /// Data page v2: the levels (RLE/bit-packed hybrid without a length prefix).
  std::string_view rep_levels;
  std::string_view def_levels;
  /// File byte of the page body, which errors name.
  int64_t offset = 0;
};

/// Reads a column chunk's pages one at a time, holding only the page last read. Checks every
/// declared size (header, body, levels, decompressed size) against the bytes there are before
/// it sizes a buffer by it, and that the data pages hold no more level entries than the chunk's
/// metadata declares.
///
/// Reads through `file`, which must outlive the reader. Thread-safety: one thread at a time.
class PageReader {
 public:
  /// The chunk: `chunk_size` bytes of `file` from byte `chunk_offset`, holding `num_values`
  /// level entries in pages compressed with `codec`.
  PageReader(const storage::RandomAccessFile& file, int64_t chunk_offset, int64_t chunk_size,
             int64_t num_values, CompressionCodec codec, ChunkLocation location);

  /// Reads the next page into `*page`. Corruption (naming the byte) when the chunk ends before
  /// its level entries do, a header does not decode or claims more bytes than the chunk has, a
  /// chunk has a second dictionary page, or a body does not decompress to its declared size.
  Status Next(Page* page);

  int64_t ChunkSize() const { return chunk_size_; }
  const ChunkLocation& Location() const { return location_; }

 private:
  Result<std::string_view> Decompress(std::string_view compressed, int64_t uncompressed_size,
                                      int64_t offset);
  Status ReadDictionaryPage(const PageHeader& header, std::string_view body, int64_t offset,
                            Page* page);
  Status ReadDataPage(const PageHeader& header, std::string_view body, int64_t offset, Page* page);

  const storage::RandomAccessFile& file_;
  const int64_t chunk_offset_;
  const int64_t chunk_size_;
  const int64_t num_values_;  // level entries of the chunk, from its metadata
  const CompressionCodec codec_;
  const ChunkLocation location_;
  int64_t pos_ = 0;              // of the next page header, from the chunk's start
  int64_t entries_loaded_ = 0;   // level entries of the data pages read so far
  bool has_dictionary_ = false;  // a dictionary page was read
  // The current page's header and body as read (only grown, so reads never zero it again).
  std::string page_bytes_;
  std::string scratch_;  // the current page decompressed (its values may point here)
};

}  // namespace tributary::parquet
