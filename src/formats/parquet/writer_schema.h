// The Parquet schema the writer makes of a tributary schema (writer_schema.cc has the type
// mapping), and how each leaf column is reached in a record batch.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "formats/parquet/metadata.h"
#include "tributary/result.h"

namespace tributary::parquet {

// One step from a column to the next one down the path to a leaf.
struct PathNode {
  // Child of the previous node's column (unused for the first node).
  int child = 0;
  // The previous node is an array or map: its offsets introduce a repeated level.
  bool repeated_before = false;
  // This node is optional: it adds a definition level.
  bool nullable = false;
};

// A leaf (primitive) column of the Parquet schema and how to reach it in a record batch.
struct LeafInfo {
  int top_index = 0;
  std::vector<PathNode> nodes;
  std::vector<std::string> path_in_schema;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  columnar::DataTypePtr type;
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;
};

/// The file schema of a writer: the flattened elements (root first) and the leaves in schema
/// order.
struct WriterSchema {
  std::vector<SchemaElement> elements;
  std::vector<LeafInfo> leaves;
};

/// The Parquet schema of `schema`. InvalidArgument names a column Parquet cannot store (a
/// struct without fields, a non-nullable void column).
Result<WriterSchema> ConvertWriterSchema(const columnar::Schema& schema);

}  // namespace tributary::parquet
