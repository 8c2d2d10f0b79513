#include "formats/text/text_read_options.h"

#include <fmt/format.h>

#include "formats/text/temporal_formats.h"

namespace tributary::text {

Status ValidateTextReadOptions(const TextReadOptions& options, std::string_view reader) {
  if (!options.rescued_data_column.empty() &&
      options.rescued_data_column == options.column_name_of_corrupt_record) {
    return Status::InvalidArgument(
        fmt::format("{}: rescuedDataColumn and columnNameOfCorruptRecord are both '{}'", reader,
                    options.rescued_data_column));
  }
  return Status::OK();
}

Result<TemporalFormats> MakeTemporalFormats(const TextReadOptions& options,
                                            std::string_view reader) {
  return TemporalFormats::Make(options.timestamp_format, options.date_format, options.time_zone,
                               reader);
}

}  // namespace tributary::text
