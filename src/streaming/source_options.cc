#include "streaming/source_options.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/closest_match.h"

namespace tributary::streaming {

namespace {

constexpr std::string_view kCloudFilesPrefix = "cloudfiles.";

void Append(std::vector<std::string_view>& to, const std::vector<std::string_view>& keys) {
  to.insert(to.end(), keys.begin(), keys.end());
}

bool ContainsIgnoringCase(const std::vector<std::string_view>& keys, std::string_view key) {
  for (std::string_view candidate : keys) {
    if (EqualsIgnoreAsciiCase(candidate, key)) {
      return true;
    }
  }
  return false;
}

}  // namespace

SourceOptionKeys FileSourceOptionKeys(std::string_view format) {
  // Spark's FileStreamOptions; the generic file source options below are Spark's too, but this
  // source does not apply them yet (Auto Loader does).
  SourceOptionKeys keys{
      {"maxFilesPerTrigger", "maxBytesPerTrigger", "latestFirst", "maxFileAge", "fileNameOnly"},
      {"cleanSource", "sourceArchiveDir", "maxCachedFiles", "discardCachedInputRatio",
       "pathGlobFilter", "recursiveFileLookup", "modifiedBefore", "modifiedAfter",
       "ignoreCorruptFiles", "ignoreMissingFiles", "basePath"}};
  const formats::ReaderOptionKeys reader = formats::ReaderOptionKeysOf(format);
  Append(keys.known, reader.known);
  Append(keys.not_supported, reader.not_supported);
  return keys;
}

SourceOptionKeys CloudFilesOptionKeys(std::string_view format) {
  // CloudFilesOptionsFromMap, DefineCloudFilesSchema and the readers' keys; Auto Loader's
  // notification-mode plumbing for cloud queues and its listing switches are refused by name.
  SourceOptionKeys keys{{"format",
                         "schemaLocation",
                         "inferColumnTypes",
                         "schemaHints",
                         "schemaEvolutionMode",
                         "rescuedDataColumn",
                         "partitionColumns",
                         "maxFilesPerTrigger",
                         "maxBytesPerTrigger",
                         "includeExistingFiles",
                         "allowOverwrites",
                         "maxFileAge",
                         "pathGlobFilter",
                         "modifiedAfter",
                         "modifiedBefore",
                         "useNotifications",
                         "queueUrl",
                         "region",
                         "backfillInterval",
                         "cleanSource",
                         "cleanSource.moveDestination",
                         "cleanSource.retentionDuration",
                         "ignoreMissingFiles",
                         "ignoreCorruptFiles",
                         "validateOptions",
                         "schemaInference.sampleSize.numBytes",
                         "schemaInference.sampleSize.numFiles"},
                        {"useIncrementalListing",
                         "useStrictGlobber",
                         "useManagedFileEvents",
                         "fetchParallelism",
                         "pathRewrites",
                         "resourceTag",
                         "roleArn",
                         "roleExternalId",
                         "roleSessionName",
                         "stsEndpoint",
                         "subscriptionId",
                         "tenantId",
                         "clientId",
                         "clientSecret",
                         "connectionString",
                         "resourceGroup",
                         "queueName",
                         "projectId",
                         "subscription",
                         "restrictNotificationSetupToSameAWSAccountId",
                         "recursiveFileLookup"}};
  const formats::ReaderOptionKeys reader = formats::ReaderOptionKeysOf(format);
  Append(keys.known, reader.known);
  Append(keys.not_supported, reader.not_supported);
  return keys;
}

SourceOptionKeys DeltaSourceOptionKeys() {
  // DeltaSourceOptions::FromMap; event-time ordering of the initial snapshot and schema
  // tracking are Delta's and not implemented yet.
  return {
      {"maxFilesPerTrigger", "maxBytesPerTrigger", "startingVersion", "startingTimestamp",
       "ignoreDeletes", "ignoreChanges", "skipChangeCommits", "failOnDataLoss", "readChangeFeed",
       "readChangeData"},
      {"withEventTimeOrder", "schemaTrackingLocation", "schemaLocation", "excludeRegex",
       "ignoreFileDeletion", "endingVersion", "endingTimestamp", "allowSourceColumnRenameAndDrop",
       "allowSourceColumnRename", "allowSourceColumnDrop", "allowSourceColumnTypeChange",
       "streamingSourceTrackingId", "versionAsOf", "timestampAsOf"},
      /*allow_cloud_files_prefix=*/false};
}

SourceOptionKeys RateSourceOptionKeys() {
  return {{"rowsPerSecond", "rampUpTime", "numPartitions"}, {}, /*allow_cloud_files_prefix=*/false};
}

Status ValidateSourceOptions(const formats::OptionMap& options, std::string_view source,
                             const SourceOptionKeys& keys) {
  for (const auto& [key, value] : options) {
    std::string_view bare = key;
    std::string_view prefix;
    if (keys.allow_cloud_files_prefix && AsciiLower(key).starts_with(kCloudFilesPrefix)) {
      prefix = std::string_view(key).substr(0, kCloudFilesPrefix.size());
      bare.remove_prefix(kCloudFilesPrefix.size());
    }
    if (ContainsIgnoringCase(keys.known, bare)) {
      continue;
    }
    if (ContainsIgnoringCase(keys.not_supported, bare)) {
      return Status::NotImplemented(fmt::format(
          "option '{}' of {} is not supported yet (remove it; tributary would ignore it)", key,
          source));
    }
    std::vector<std::string_view> candidates = keys.known;
    Append(candidates, keys.not_supported);
    const std::string_view match = ClosestMatch(bare, candidates);
    std::string message = fmt::format("unknown option '{}' for {}", key, source);
    if (!match.empty()) {
      message += fmt::format("; did you mean '{}{}'?", prefix, match);
    }
    return Status::InvalidArgument(std::move(message));
  }
  return Status::OK();
}

}  // namespace tributary::streaming
