// Parquet's file and page metadata (apache/parquet-format src/main/thrift/parquet.thrift) as
// plain structs, with their compact-protocol decoding and encoding. Fields tributary does not
// use (encryption, bloom filters, page indexes, size statistics) are skipped when read and
// never written.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::parquet {

/// parquet.thrift `Type`.
enum class PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

/// parquet.thrift `ConvertedType` (legacy annotations).
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

/// parquet.thrift `Encoding`.
enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

/// parquet.thrift `PageType`.
enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class TimeUnit : int32_t { kMillis = 1, kMicros = 2, kNanos = 3 };

/// parquet.thrift `LogicalType` (a union: `kind` says which member is set).
struct LogicalType {
  enum class Kind : int32_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
    kOther = 0,  // a member this reader does not know
  };
  Kind kind = Kind::kOther;
  int32_t scale = 0;                  // kDecimal
  int32_t precision = 0;              // kDecimal
  bool is_adjusted_to_utc = false;    // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMicros;  // kTime, kTimestamp
  int32_t bit_width = 0;              // kInteger
  bool is_signed = true;              // kInteger
};

struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
};

struct Statistics {
  std::optional<std::string> max;  // deprecated, signed order
  std::optional<std::string> min;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  std::optional<int64_t> nan_count;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;  // parquet.thrift CompressionCodec
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
};

/// parquet.thrift `ColumnOrder` union member: 1 TYPE_ORDER, 2 IEEE_754_TOTAL_ORDER,
/// 3 INT96_TIMESTAMP_ORDER, 0 unknown.
using ColumnOrder = int32_t;

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  std::vector<ColumnOrder> column_orders;
  /// Set when the footer says the file is encrypted (this reader then refuses it).
  bool encrypted = false;
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
};

/// Decodes a serialized FileMetaData (the footer between the data and the trailing length).
/// Corruption names the byte offset within `bytes` and the struct being read.
Result<FileMetaData> DecodeFileMetaData(std::string_view bytes);
/// Decodes the PageHeader at the start of `bytes`; `*header_size` receives its length.
Result<PageHeader> DecodePageHeader(std::string_view bytes, int64_t* header_size);

/// Appends the compact-protocol encoding.
void EncodeFileMetaData(const FileMetaData& metadata, std::string* out);
void EncodePageHeader(const PageHeader& header, std::string* out);

/// Names for messages and `tributary parquet meta`: "INT64", "RLE_DICTIONARY", "SNAPPY".
std::string_view PhysicalTypeName(PhysicalType type);
std::string_view EncodingName(Encoding encoding);
std::string_view CodecName(int32_t codec);

}  // namespace tributary::parquet
