// The Parquet schema of a file as a tree of nodes with their definition and repetition levels
// and tributary types (LogicalTypes.md, including the backward-compatibility rules for lists
// and maps that older Spark, parquet-mr and Hive wrote).

#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "formats/parquet/metadata.h"

namespace tributary::parquet {

/// How a leaf's physical values become tributary values.
enum class LeafConversion : uint8_t {
  kIdentity,  // same bytes: boolean, int32, int64, float, double, date, strings, binary
  kInt32ToInt8,
  kInt32ToInt16,
  kUint32ToInt64,    // UINT_32 read as bigint
  kUint64ToDecimal,  // UINT_64 read as decimal(20,0)
  kInt32ToDecimal,
  kInt64ToDecimal,
  kBytesToDecimal,  // FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY, big-endian two's complement
  kInt96ToTimestamp,
  kMillisToMicros,
  kNanosToMicros,
  kFixedToBinary,  // FIXED_LEN_BYTE_ARRAY without a decimal annotation
  kFloat16ToFloat,
  kUuidToString,
};

/// One node of the schema tree.
struct SchemaNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };

  Kind kind = Kind::kLeaf;
  std::string name;
  columnar::DataTypePtr type;
  /// Optional (nullable) node.
  bool nullable = true;
  /// Definition level at which this node is non-null, and its repetition level.
  int16_t def_level = 0;
  int16_t rep_level = 0;
  /// kList/kMap: levels of the repeated node whose entries are the elements.
  int16_t repeated_def_level = 0;
  int16_t repeated_rep_level = 0;
  /// kStruct: the fields; kList: [element]; kMap: [key, value].
  std::vector<std::unique_ptr<SchemaNode>> children;
  /// Leaf columns (indices into the row groups' column chunks) below or at this node.
  std::vector<int> leaves;

  /// kLeaf only.
  int leaf_index = -1;
  PhysicalType physical_type = PhysicalType::kBoolean;
  int32_t type_length = 0;
  LeafConversion conversion = LeafConversion::kIdentity;
  /// Dotted path, for messages.
  std::string path;
  /// The Parquet field id, when the writer set one (Delta column mapping in id mode).
  std::optional<int32_t> field_id;
};

/// The file's schema as a tree (the root is a struct of the top-level fields) and as a
/// tributary schema.
struct FileSchema {
  std::unique_ptr<SchemaNode> root;
  columnar::SchemaPtr schema;
  /// Leaf nodes by leaf index.
  std::vector<const SchemaNode*> leaves;
};

/// Builds the tree from the flattened schema of a footer. Corruption names the element that
/// is inconsistent (child counts past the end, a leaf without a type, a list without a repeated
/// child); NotImplemented names an annotation tributary cannot represent.
Result<FileSchema> BuildFileSchema(const FileMetaData& metadata);

}  // namespace tributary::parquet
