// Reads one column chunk of one row group: its pages, levels and values. The pieces, as
// parquet-cpp has them: page_reader.h reads and decompresses the pages, level_decoder.h decodes
// their levels, value_decoder.h their values into physical form, type_conversion.h converts
// those into the leaf's tributary type; ColumnChunkReader puts them together and hands out
// level entries in requests of any size.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/page_reader.h"
#include "formats/parquet/reader_schema.h"
#include "storage/file_system.h"

namespace tributary::parquet {

/// The decoded contents of one leaf column chunk.
struct LeafData {
  /// One entry per level pair (a value, a null, or an empty/null list at some level).
  int64_t num_entries = 0;
  /// Definition levels; empty when the leaf's max definition level is 0 (all present).
  std::vector<int16_t> def_levels;
  /// Repetition levels; empty when the leaf's max repetition level is 0 (flat).
  std::vector<int16_t> rep_levels;
  /// The non-null values, in order, already in the leaf's tributary type.
  columnar::ColumnPtr values;
};

/// Decodes one column chunk page by page, handing out its level entries in requests of any
/// size: a page that straddles two requests is decoded once and its remaining entries (levels,
/// values, position in its dictionary indexes) kept for the next request. Pages are read from
/// the file as they are needed, and only the page being handed out is kept (read and decoded).
///
/// Reads through `file`, which must outlive the reader. Thread-safety: one thread at a time.
class ColumnChunkReader {
 public:
  /// Checks the metadata of `chunk` for `leaf` (type, codec, byte range, value count); pages
  /// are read and decoded by Read. Errors as ReadColumnChunk's.
  static Result<std::unique_ptr<ColumnChunkReader>> Open(const storage::RandomAccessFile& file,
                                                         const ColumnChunk& chunk,
                                                         const SchemaNode& leaf,
                                                         const ChunkLocation& location,
                                                         columnar::MemoryPool* pool);
  ~ColumnChunkReader();
  ColumnChunkReader(const ColumnChunkReader&) = delete;
  ColumnChunkReader& operator=(const ColumnChunkReader&) = delete;

  /// Level entries of the chunk (its metadata's num_values), and those not yet read.
  int64_t NumEntries() const;
  int64_t EntriesLeft() const;
  /// The next `entries` level entries (0..EntriesLeft()), decoding pages as needed; their
  /// values in buffers of their own. Corruption errors as ReadColumnChunk's, for the pages
  /// decoded by this call.
  Result<LeafData> Read(int64_t entries);

  class Decoder;

 private:
  explicit ColumnChunkReader(std::unique_ptr<Decoder> decoder);
  std::unique_ptr<Decoder> decoder_;
};

/// Reads and decodes every page of `chunk` for `leaf`. Corruption errors name the file, row
/// group, column and byte offset of the fault (page header sizes past the chunk, bad dictionary
/// indexes, level runs past the page, decompression failures, invalid UTF-8).
Result<LeafData> ReadColumnChunk(const storage::RandomAccessFile& file, const ColumnChunk& chunk,
                                 const SchemaNode& leaf, const ChunkLocation& location,
                                 columnar::MemoryPool* pool);

/// Decodes `count` PLAIN-encoded values of `leaf` (a dictionary page, or a statistic) into its
/// tributary type.
Result<columnar::ColumnPtr> DecodePlainValues(const SchemaNode& leaf, std::string_view data,
                                              int64_t count, const ChunkLocation& location,
                                              columnar::MemoryPool* pool);

}  // namespace tributary::parquet
