#include "formats/text/parse_mode.h"

#include <strings.h>

#include <string>

namespace tributary::text {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Result<ParseMode> ParseModeFromString(std::string_view text) {
  for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    if (EqualsIgnoreCase(text, ParseModeName(mode))) {
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
