// Reader options as users spell them: Spark's DataFrameReader `.option(key, value)` names and
// Auto Loader's (`cloudFiles.` prefix optional), case-insensitive keys, string values.
// DataFrameReader, SQL read_files(...) and the file stream sources all go through here, so an
// option means the same everywhere.

#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/csv/csv_reader.h"
#include "formats/json/json_reader.h"

namespace tributary::formats {

/// Options keyed by name; keys compare ignoring case, as Spark's CaseInsensitiveMap.
using OptionMap = std::map<std::string, std::string>;

/// Which defaults apply before the options: Spark's batch readers infer types and add no
/// rescued-data column; Databricks' read_files and Auto Loader (`cloudFiles`) add
/// `_rescued_data`, and Auto Loader reads every inferred leaf as a string unless
/// `cloudFiles.inferColumnTypes` is true.
enum class OptionDefaults : uint8_t { kSparkReader, kReadFiles, kAutoLoader };

/// JSON reader options from `options` over `defaults`. Unknown keys are ignored, as Spark
/// does (sources share one option map); a known key with a bad value is an InvalidArgument
/// naming the key and value.
Result<json::JsonReadOptions> JsonOptionsFromMap(const OptionMap& options, OptionDefaults defaults);
/// CSV reader options, likewise.
Result<csv::CsvReadOptions> CsvOptionsFromMap(const OptionMap& options, OptionDefaults defaults);

/// The option keys of a format's reader, for callers that refuse unknown keys (the streaming
/// sources): `known` are the keys the functions here (and the text reader's wholeText) read;
/// `not_supported` are keys Spark's reader takes that tributary does not implement yet. Keys as
/// Spark spells them; callers compare them ignoring case.
struct ReaderOptionKeys {
  std::vector<std::string_view> known;
  std::vector<std::string_view> not_supported;
};
/// The keys of "json", "csv", "parquet", "text" or "binaryfile" (any case); none for others.
ReaderOptionKeys ReaderOptionKeysOf(std::string_view format);

/// The value of `key` (ignoring case, with or without a "cloudFiles." prefix), or nullptr.
const std::string* FindOption(const OptionMap& options, std::string_view key);
/// "true"/"false" (any case) of option `key`; InvalidArgument naming it otherwise.
Result<bool> BooleanOption(std::string_view key, const std::string& value);

}  // namespace tributary::formats
