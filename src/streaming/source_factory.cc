#include "streaming/source_factory.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "storage/local_path.h"
#include "streaming/cloud_files_source.h"
#include "streaming/delta_source.h"
#include "streaming/file_source.h"
#include "streaming/kafka_source.h"
#include "streaming/kinesis_source.h"
#include "streaming/rate_source.h"
#include "streaming/source_options.h"

namespace tributary::streaming {

namespace {

/// Auto Loader's cloudFiles.validateOptions (default true): the keys of its format's reader
/// (of every format while cloudFiles.format is missing, which is reported next) and its own.
Status ValidateCloudFilesOptions(const formats::OptionMap& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(const bool validate, BooleanOptionOr(options, "validateOptions", true));
  if (!validate) {
    return Status::OK();
  }
  constexpr std::string_view kSource = "the cloudFiles source";
  SourceOptionKeys keys;
  if (const std::string* format = formats::FindOption(options, "format")) {
    keys = CloudFilesOptionKeys(*format);
  } else {
    keys = CloudFilesOptionKeys("");
    for (std::string_view any_format : {"json", "csv", "parquet", "text"}) {
      const formats::ReaderOptionKeys reader = formats::ReaderOptionKeysOf(any_format);
      keys.known.insert(keys.known.end(), reader.known.begin(), reader.known.end());
    }
  }
  Status valid = ValidateSourceOptions(options, kSource, keys);
  if (valid.IsInvalidArgument()) {
    return Status::InvalidArgument(valid.Message() +
                                   " (cloudFiles.validateOptions = false turns this check off)");
  }
  return valid;
}

}  // namespace

Result<std::shared_ptr<const SourceDefinition>> DefineSource(const SourceRequest& given) {
  const std::string format = AsciiLower(given.format);
  SourceRequest request = given;
  if (!request.path.empty()) {
    // "file:///data/in" is the local /data/in; "s3://..." is refused here, not listed as an
    // empty (missing) directory.
    TRIBUTARY_ASSIGN_OR_RAISE(request.path, storage::StoragePath(given.path));
  }
  if (format == "json" || format == "csv" || format == "parquet") {
    TRIBUTARY_RETURN_NOT_OK(ValidateSourceOptions(request.options,
                                                  fmt::format("the {} file stream source", format),
                                                  FileSourceOptionKeys(format)));
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
    TRIBUTARY_RETURN_NOT_OK(ValidateCloudFilesOptions(request.options));
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
    TRIBUTARY_RETURN_NOT_OK(
        ValidateSourceOptions(request.options, "the Delta source", DeltaSourceOptionKeys()));
    if (request.schema != nullptr) {
      return Status::InvalidArgument("a Delta table has its own schema; do not give one");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto definition, DeltaSourceDefinition::Make(*request.fs, request.path, request.options));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "kafka") {
    if (request.schema != nullptr) {
      return Status::InvalidArgument("the Kafka source has a fixed schema; do not give one");
    }
    if (!request.path.empty()) {
      return Status::InvalidArgument(
          fmt::format("the Kafka source takes no path (got '{}'): name its topics with "
                      "subscribe, subscribePattern or assign",
                      given.path));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, KafkaSourceDefinition::Make(request.options));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "rate") {
    TRIBUTARY_RETURN_NOT_OK(
        ValidateSourceOptions(request.options, "the rate source", RateSourceOptionKeys()));
    if (request.schema != nullptr) {
      return Status::InvalidArgument("the rate source has a fixed schema; do not give one");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, RateSourceDefinition::Make(request.options));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  if (format == "kinesis") {
    if (request.schema != nullptr) {
      return Status::InvalidArgument("the Kinesis source has a fixed schema; do not give one");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto definition, KinesisSourceDefinition::Make(request.options, request.session_config));
    return std::shared_ptr<const SourceDefinition>(std::move(definition));
  }
  return Status::InvalidArgument(fmt::format(
      "unknown streaming source format '{}' (json, csv, parquet, cloudFiles, delta, rate)",
      request.format));
}

}  // namespace tributary::streaming
