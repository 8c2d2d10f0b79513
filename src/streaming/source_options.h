// Which option keys each streaming source takes, and the check that refuses the others: a typo
// such as `cloudFiles.formatt` or `inferColumnTyp` is an error naming the closest key, not a
// silently ignored option (Auto Loader's cloudFiles.validateOptions, for every source).

#pragma once

#include <string_view>
#include <vector>

#include "formats/reader_options.h"
#include "tributary/status.h"

namespace tributary::streaming {

/// The option keys of one streaming source.
struct SourceOptionKeys {
  /// Keys the source reads, as Spark and Databricks spell them.
  std::vector<std::string_view> known;
  /// Keys Spark or Databricks accept for this kind of source that tributary does not implement
  /// yet: refused by name rather than ignored.
  std::vector<std::string_view> not_supported;
  /// Whether a key may carry Auto Loader's "cloudFiles." prefix (as formats::FindOption
  /// allows). Default: true.
  bool allow_cloud_files_prefix = true;
};

/// The keys of the file stream source of `format` (json, csv, parquet): its own and its reader's.
SourceOptionKeys FileSourceOptionKeys(std::string_view format);
/// The keys of the Auto Loader source reading `format` (cloudFiles.format): its own and its
/// reader's.
SourceOptionKeys CloudFilesOptionKeys(std::string_view format);
/// The keys of the Delta table source.
SourceOptionKeys DeltaSourceOptionKeys();
/// The keys of the rate source.
SourceOptionKeys RateSourceOptionKeys();

/// OK when every key of `options` is one of `keys.known` (ignoring case, and the "cloudFiles."
/// prefix where allowed). NotImplemented naming a key of `keys.not_supported`;
/// InvalidArgument naming an unknown key, with the closest known key as a "did you mean", and
/// `source` (e.g. "the cloudFiles source") in both.
Status ValidateSourceOptions(const formats::OptionMap& options, std::string_view source,
                             const SourceOptionKeys& keys);

}  // namespace tributary::streaming
