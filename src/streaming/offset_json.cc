#include "streaming/offset_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tributary::streaming {

Offset IntegerOffset(std::string_view key, int64_t value) {
  if (key.empty()) {
    return std::to_string(value);
  }
  return fmt::format("{{\"{}\":{}}}", key, value);
}

Result<int64_t> ParseIntegerOffset(const std::optional<Offset>& offset, std::string_view key,
                                   int64_t if_absent, std::string_view source) {
  if (!offset.has_value()) {
    return if_absent;
  }
  const nlohmann::json value = nlohmann::json::parse(*offset, nullptr, /*allow_exceptions=*/false);
  if (value.is_number_integer()) {
    return value.get<int64_t>();
  }
  if (!key.empty() && value.is_object()) {
    auto field = value.find(std::string(key));
    if (field != value.end() && field->is_number_integer()) {
      return field->get<int64_t>();
    }
  }
  return Status::InvalidArgument(
      fmt::format("{} offset {}: expected {}", source, *offset, IntegerOffset(key, 0)));
}

}  // namespace tributary::streaming
