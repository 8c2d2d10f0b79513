// Spark's binaryFile source: one row per file with its path, modification time, length and
// content.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/schema.h"
#include "formats/file_reader.h"
#include "storage/file_system.h"

namespace tributary::formats {

/// The binaryFile source's schema: path string, modificationTime timestamp, length bigint,
/// content binary.
columnar::SchemaPtr BinaryFileSchema();

/// Reads the file at `path` on `fs` whole into its one row; `columns` selects columns of
/// BinaryFileSchema() by name.
Result<std::unique_ptr<FileReader>> OpenBinaryFile(storage::FileSystem& fs, const std::string& path,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool);

}  // namespace tributary::formats
