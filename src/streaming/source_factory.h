// Streaming sources by format name: the one place where ReadStream().Format(...) and SQL's
// STREAM read_files(...) / STREAM table turn a format, a path and options into a source, so an
// option means the same in each.

#pragma once

#include <map>
#include <memory>
#include <string>

#include "columnar/schema.h"
#include "expr/evaluator.h"
#include "formats/reader_options.h"
#include "storage/file_system.h"
#include "streaming/source.h"

namespace tributary::streaming {

struct SourceRequest {
  /// "json", "csv", "parquet", "delta", "rate" (any case).
  std::string format;
  /// A directory of files or a Delta table root; empty for "rate".
  std::string path;
  /// Spark's option names.
  formats::OptionMap options;
  /// The schema the user gave; null to infer (where the source can).
  columnar::SchemaPtr schema;
  storage::FileSystem* fs = nullptr;
  expr::EvalContext eval;
  std::map<std::string, std::string> session_config;
};

/// The source `request` names. InvalidArgument for an unknown format (with the known ones), a
/// bad option, or a path with a URI scheme other than file:// (storage/local_path.h); NotFound
/// for a Delta table that does not exist.
Result<std::shared_ptr<const SourceDefinition>> DefineSource(const SourceRequest& request);

}  // namespace tributary::streaming
