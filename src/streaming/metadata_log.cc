#include "streaming/metadata_log.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "storage/path.h"

namespace tributary::streaming {

std::optional<int64_t> ParseLogBatchId(std::string_view file_name) {
  int64_t id = 0;
  const char* end = file_name.data() + file_name.size();
  const auto [stop, error] = std::from_chars(file_name.data(), end, id);
  if (file_name.empty() || error != std::errc() || stop != end || id < 0) {
    return std::nullopt;
  }
  return id;
}

Result<std::vector<int64_t>> ListLogBatchIds(storage::FileSystem& fs, const std::string& dir) {
  auto entries = fs.List(dir, {});
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) {
      return std::vector<int64_t>{};
    }
    return entries.status().WithContext(fmt::format("listing log {}", dir));
  }
  std::vector<int64_t> ids;
  for (const storage::FileInfo& entry : *entries) {
    if (entry.is_directory) {
      continue;
    }
    if (std::optional<int64_t> id = ParseLogBatchId(storage::BaseName(entry.path))) {
      ids.push_back(*id);
    }
  }
  // Listings sort by name: "10" comes before "9".
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::string_view> SplitLogLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) {
      break;
    }
    text.remove_prefix(end + 1);
  }
  return lines;
}

Status CheckLogVersion(const std::vector<std::string_view>& lines, const std::string& path) {
  if (lines.empty() || lines[0] != "v1") {
    return Status::Corruption(fmt::format(
        "{} line 1: expected log version \"v1\", found \"{}\" (written by a newer version?)", path,
        lines.empty() ? "" : std::string(lines[0])));
  }
  return Status::OK();
}

Result<std::optional<std::string>> PinLogLine(
    storage::FileSystem& fs, const std::string& path, std::string_view what,
    const std::function<Result<std::optional<std::string>>()>& compute) {
  Result<std::string> text = fs.ReadFile(path);
  if (!text.ok() && text.status().IsNotFound()) {
    TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<std::string> line, compute());
    if (!line.has_value()) {
      return std::optional<std::string>();
    }
    Status written = fs.WriteFile(path, "v1\n" + *line, storage::WriteMode::kPutIfAbsent);
    if (!written.ok() && !written.IsAlreadyExists()) {
      return written.WithContext(fmt::format("pinning {} in {}", what, path));
    }
    text = fs.ReadFile(path);
  }
  TRIBUTARY_RETURN_NOT_OK(text.status());
  const std::vector<std::string_view> lines = SplitLogLines(*text);
  TRIBUTARY_RETURN_NOT_OK(CheckLogVersion(lines, path));
  if (lines.size() < 2) {
    return Status::Corruption(fmt::format("{} line 2: expected {}", path, what));
  }
  return std::optional<std::string>(std::string(lines[1]));
}

Result<nlohmann::json> ParseLogJson(std::string_view text, const std::string& path, int line) {
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Status::Corruption(fmt::format("{} line {}: not valid JSON: {}", path, line, text));
  }
  return value;
}

}  // namespace tributary::streaming
