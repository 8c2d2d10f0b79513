#include "formats/text/parse_mode.h"

#include <string>

#include "common/ascii.h"

namespace tributary::text {

Result<ParseMode> ParseModeFromString(std::string_view text) {
  for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    if (EqualsIgnoreAsciiCase(text, ParseModeName(mode))) {
      return mode;
    }
  }
  return Status::InvalidArgument("unknown parse mode '" + std::string(text) +
                                 "': expected PERMISSIVE, DROPMALFORMED or FAILFAST");
}

std::string_view ParseModeName(ParseMode mode) {
  switch (mode) {
    case ParseMode::kPermissive:
      return "PERMISSIVE";
    case ParseMode::kDropMalformed:
      return "DROPMALFORMED";
    case ParseMode::kFailFast:
      return "FAILFAST";
  }
  return "PERMISSIVE";
}

}  // namespace tributary::text
