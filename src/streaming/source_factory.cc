#include "streaming/source_factory.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "streaming/cloud_files_source.h"
#include "streaming/delta_source.h"
#include "streaming/file_source.h"
#include "streaming/rate_source.h"

namespace tributary::streaming {

Result<std::shared_ptr<const SourceDefinition>> DefineSource(const SourceRequest& request) {
  const std::string format = AsciiLower(request.format);
  if (format == "json" || format == "csv" || format == "parquet") {
    if (request.path.empty()) {
      return Status::InvalidArgument(fmt::format("a {} stream needs a directory path", format));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto definition,
        FileSourceDefinition::Make(*request.fs, format, request.path, request.options,
                                   request.schema, request.session_config));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "cloudfiles") {
    if (request.path.empty()) {
      return Status::InvalidArgument("a cloudFiles stream needs a directory path");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto definition,
        CloudFilesSourceDefinition::Make(*request.fs, request.path, request.options, request.schema,
                                         request.session_config, request.eval));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "delta") {
    if (request.schema != nullptr) {
      return Status::InvalidArgument("a Delta table has its own schema; do not give one");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto definition, DeltaSourceDefinition::Make(*request.fs, request.path, request.options));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "rate") {
    if (request.schema != nullptr) {
      return Status::InvalidArgument("the rate source has a fixed schema; do not give one");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, RateSourceDefinition::Make(request.options));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  return Status::InvalidArgument(fmt::format(
      "unknown streaming source format '{}' (json, csv, parquet, cloudFiles, delta, rate)",
      request.format));
}

}  // namespace tributary::streaming
