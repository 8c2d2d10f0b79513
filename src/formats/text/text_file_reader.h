// Spark's text source: a file's lines (or, with wholeText, the whole file) as rows of one string
// column `value`.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/schema.h"
#include "formats/file_reader.h"
#include "storage/file_system.h"

namespace tributary::text {

/// The text source's schema: `value` string.
columnar::SchemaPtr TextFileSchema();

/// Reads the file at `path` on `fs`: one row per line, lines ending at "\n", "\r\n" or "\r"
/// (Spark's default separators; no row after a final separator), or with `whole_text` one row
/// holding the whole file. `columns` selects columns of TextFileSchema() by name.
Result<std::unique_ptr<formats::FileReader>> OpenTextFile(storage::FileSystem& fs,
                                                          const std::string& path, bool whole_text,
                                                          const std::vector<std::string>& columns,
                                                          columnar::MemoryPool* pool);

}  // namespace tributary::text
