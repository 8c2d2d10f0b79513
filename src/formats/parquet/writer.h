// ParquetWriter: writes record batches of one schema as a Parquet file through an OutputStream,
// which publishes the file whole when the writer closes it (storage/file_system.h, guarantee 2).
//
// What it writes (writer.cc has the byte-level grammar): data page v1 with RLE levels, a PLAIN
// dictionary page plus RLE_DICTIONARY data pages per column chunk while the dictionary stays
// under its limit and PLAIN pages after that (PLAIN from the start when the chunk's first full
// page shows the dictionary does not pay), SNAPPY, ZSTD or no compression, column chunk
// statistics in each type's TYPE_ORDER, nested types as 3-level LIST and MAP groups.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "formats/parquet/compression.h"
#include "storage/file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// How ParquetWriter lays out and compresses a file.
struct ParquetWriterOptions {
  /// Page compression: kUncompressed, kSnappy, kZstd, kGzip, kLz4Raw or kBrotli (not the
  /// deprecated Hadoop-framed LZ4). Default: kSnappy (Spark's default).
  CompressionCodec codec = CompressionCodec::kSnappy;
  /// Codec level (zstd 1..22 and negative fast levels, gzip 0..9, brotli 0..11; snappy ignores
  /// it). Default: kDefaultCompressionLevel, the codec's own default (zstd 3, gzip 6; brotli 8,
  /// below its slow 11).
  int compression_level = kDefaultCompressionLevel;
  /// A row group is flushed once it holds this many rows. Default: 1,048,576.
  int64_t row_group_size_rows = int64_t{1} << 20;
  /// A row group is flushed once its encoded, compressed column chunks reach about this many
  /// bytes (checked between slices of at most 65,536 rows). Default: 128 MiB (parquet-mr's
  /// parquet.block.size).
  int64_t row_group_size_bytes = int64_t{128} << 20;
  /// A data page is finished once its encoded values and levels reach about this many bytes
  /// (checked every few thousand values, at record boundaries). Default: 1 MiB.
  int64_t page_size_bytes = int64_t{1} << 20;
  /// A data page is also finished once it holds this many level entries (rows, for a column
  /// outside lists and maps), at the next record start: pages of a few distinct values would
  /// otherwise hold a whole row group and need buffers that size. Default: 20,000 (parquet-mr's
  /// parquet.page.row.count.limit).
  int64_t page_value_limit = 20000;
  /// A column chunk falls back from dictionary to PLAIN encoding once its PLAIN-encoded
  /// dictionary exceeds this many bytes. Default: 1 MiB.
  int64_t dictionary_page_size_limit = int64_t{1} << 20;
  /// Dictionary-encode columns of every type except boolean. Default: true.
  bool enable_dictionary = true;
  /// Threads that encode and compress the columns of a batch at once (each column's pages on
  /// one thread, so the file's bytes do not depend on the count). Default: 1.
  int threads = 1;
  /// Written to FileMetaData.key_value_metadata in order. Default: none.
  std::vector<std::pair<std::string, std::string>> key_value_metadata;
  /// FileMetaData.created_by. Default: "tributary version 0.1.0".
  std::string created_by = "tributary version 0.1.0";
};

/// What a written file holds of one leaf (primitive) column, over all its row groups.
struct LeafStatistics {
  /// The top-level column of the writer's schema the leaf belongs to.
  int column = 0;
  /// The leaf's path_in_schema: one name for a primitive top-level column.
  std::vector<std::string> path;
  /// Level entries without a value: nulls at the leaf or at any optional level above it.
  int64_t null_count = 0;
  /// The least and greatest value in the leaf's TYPE_ORDER, PLAIN-encoded as footer statistics
  /// are (BOOLEAN one byte, FIXED_LEN_BYTE_ARRAY decimals big-endian), but exact: without the
  /// footer's rule that writes a zero minimum as -0.0 and a zero maximum as +0.0. Unset when
  /// the leaf holds no value other than NaN.
  std::optional<std::string> min;
  std::optional<std::string> max;
};

/// Writes a Parquet file from record batches. Write buffers rows and flushes a row group when
/// it is full; Close writes the rest and the footer, then closes the stream, which publishes
/// the file. On any error the stream is aborted (nothing is published) and the writer is dead:
/// later calls return that error again.
///
/// The writer owns the stream. Destroying a writer that was not closed aborts the stream.
///
/// Thread-safety: one thread at a time.
class ParquetWriter {
 public:
  /// A writer of `schema` onto `out`. InvalidArgument when the schema cannot be written as
  /// Parquet (no columns, an empty struct, duplicate names are allowed as Parquet allows them)
  /// or an option is out of range; the stream is aborted then.
  static Result<std::unique_ptr<ParquetWriter>> Open(std::unique_ptr<storage::OutputStream> out,
                                                     columnar::SchemaPtr schema,
                                                     ParquetWriterOptions options = {});
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  /// Appends the rows of `batch`, whose columns must have the writer schema's types (field
  /// names are not compared). InvalidArgument when a type differs or a non-nullable field,
  /// element or value holds a null.
  [[nodiscard]] Status Write(const columnar::RecordBatch& batch);

  /// Writes the buffered rows, the footer and "PAR1", then closes (publishes) the stream.
  /// Closing twice returns the first result.
  [[nodiscard]] Status Close();

  /// Rows written so far (buffered rows included).
  int64_t NumRows() const;
  /// Row groups flushed so far.
  int64_t NumRowGroups() const;
  /// Bytes appended to the stream so far (the file's size after a successful Close).
  int64_t BytesWritten() const;
  /// Statistics of every leaf column in schema order, computed while encoding (no second pass
  /// over the data). Complete after a successful Close; before it they cover the flushed row
  /// groups only.
  std::vector<LeafStatistics> FileStatistics() const;

  /// Not for direct use: Open builds writers.
  class Impl;
  explicit ParquetWriter(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

/// Writes `batches` of `schema` as one Parquet file at `path` on `fs`, with put-if-absent:
/// AlreadyExists when `path` exists, and then nothing is written. With `statistics`, sets it to
/// the file's ParquetWriter::FileStatistics().
[[nodiscard]] Status WriteParquetFile(storage::FileSystem& fs, const std::string& path,
                                      const std::vector<columnar::RecordBatchPtr>& batches,
                                      columnar::SchemaPtr schema, ParquetWriterOptions options = {},
                                      std::vector<LeafStatistics>* statistics = nullptr);

}  // namespace tributary::parquet
