// How the JSON and CSV readers' Make (over text in memory) and Open (over a file) build a
// reader: the same checks in the same order, then the reader's hidden implementation.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/memory_pool.h"
#include "columnar/schema.h"
#include "formats/text/input_stream.h"
#include "formats/text/temporal_formats.h"
#include "formats/text/text_read_options.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::text {

/// The input of Make: a copy of `data` (which need not outlive the reader), named by the
/// reader's path.
inline auto CopiedInput(std::string_view data) {
  return [data](const std::string& path) -> Result<SizedInput> {
    return SizedInput{InputStream::FromString(path, std::string(data), InputCompression::kNone),
                      static_cast<int64_t>(data.size())};
  };
}

/// The input of Open: the file at the reader's path on `fs`, which must outlive the reader.
inline auto FileInput(storage::FileSystem& fs) {
  return [&fs](const std::string& path) {
    return OpenSizedInput(fs, path);
  };
}

/// Builds a `Reader` as its `Impl`: checks `options` (`output_schema` of `schema`, then the
/// timestamp and date formats; errors prefixed with `reader_name`) before `open_input(path)`
/// opens the input, so a bad option fails before any I/O; then Impl::Init projects `columns`.
template <typename Reader, typename Impl, typename Options, typename OpenInput>
Result<std::unique_ptr<Reader>> MakeTextReader(
    std::string path, OpenInput open_input, const columnar::SchemaPtr& schema,
    const Options& options, const std::vector<std::string>& columns, columnar::MemoryPool* pool,
    Result<columnar::SchemaPtr> (*output_schema)(const columnar::Schema&, const Options&),
    std::string_view reader_name) {
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr output, output_schema(*schema, options));
  TRIBUTARY_ASSIGN_OR_RAISE(TemporalFormats temporal, MakeTemporalFormats(options, reader_name));
  TRIBUTARY_ASSIGN_OR_RAISE(SizedInput input, open_input(path));
  auto reader = std::make_unique<Impl>(std::move(path), std::move(input.stream), input.size_hint,
                                       std::move(output), options, std::move(temporal), pool);
  TRIBUTARY_RETURN_NOT_OK(reader->Init(*schema, columns));
  return std::unique_ptr<Reader>(std::move(reader));
}

}  // namespace tributary::text
