// Commit files (PROTOCOL.md "Delta Log Entries"):
//
//   commit = *( action-object LF )          ; newline-delimited JSON, one action per line
//   action-object = "{" action-name ":" object "}"
//   action-name   = "protocol" | "metaData" | "add" | "remove" | "txn" | "domainMetadata"
//                 | "commitInfo" | "cdc" | "checkpointMetadata" | "sidecar" | <unknown: ignored>

#include "delta/actions.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ascii.h"

namespace tributary::delta {
namespace {

using nlohmann::json;

class Reader {
 public:
  Reader(const json& object, std::string_view location, std::string_view action)
      : object_(object), location_(location), action_(action) {}

  Status Fail(std::string_view field, std::string_view what) const {
    return Status::Corruption(fmt::format("{}: {}.{} {}", location_, action_, field, what));
  }

  const json* Find(const char* field) const {
    auto it = object_.find(field);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  Status String(const char* field, std::string* out, bool required = true) const {
    return Value(field, out, required);
  }
  Status OptionalString(const char* field, std::optional<std::string>* out) const {
    return Value(field, out, false);
  }
  template <typename T>
  Status Int(const char* field, T* out, bool required = true) const {
    return Value(field, out, required);
  }
  template <typename T>
  Status OptionalInt(const char* field, std::optional<T>* out) const {
    return Value(field, out, false);
  }
  Status Bool(const char* field, bool* out, bool required = true) const {
    return Value(field, out, required);
  }
  Status StringMap(const char* field, std::map<std::string, std::string>* out,
                   bool required = false) const {
    const json* value = nullptr;
    TRIBUTARY_RETURN_NOT_OK(Lookup(field, required, &json::is_object, "is not an object", &value));
    if (value == nullptr) {
      return Status::OK();
    }
    for (const auto& [key, v] : value->items()) {
      if (v.is_string()) {
        (*out)[key] = v.get<std::string>();
      } else if (!v.is_null()) {
        (*out)[key] = v.dump();
      }
    }
    return Status::OK();
  }
  Status Partitions(const char* field, PartitionValues* out, bool required) const {
    const json* value = nullptr;
    TRIBUTARY_RETURN_NOT_OK(Lookup(field, required, &json::is_object, "is not an object", &value));
    if (value == nullptr) {
      return Status::OK();
    }
    for (const auto& [key, v] : value->items()) {
      if (v.is_null()) {
        (*out)[key] = std::nullopt;
      } else if (v.is_string()) {
        (*out)[key] = v.get<std::string>();
      } else {
        return Fail(field, fmt::format("value of '{}' is not a string", key));
      }
    }
    return Status::OK();
  }
  Status StringList(const char* field, std::vector<std::string>* out, bool required) const {
    const json* value = nullptr;
    TRIBUTARY_RETURN_NOT_OK(Lookup(field, required, &json::is_array, "is not an array", &value));
    if (value == nullptr) {
      return Status::OK();
    }
    for (const auto& v : *value) {
      if (!v.is_string()) {
        return Fail(field, "holds a non-string");
      }
      out->push_back(v.get<std::string>());
    }
    return Status::OK();
  }
  Status DeletionVector(std::optional<DeletionVectorDescriptor>* out) const {
    const json* value = nullptr;
    TRIBUTARY_RETURN_NOT_OK(
        Lookup("deletionVector", false, &json::is_object, "is not an object", &value));
    if (value == nullptr) {
      return Status::OK();
    }
    Reader dv(*value, location_, "deletionVector");
    DeletionVectorDescriptor& d = out->emplace();
    TRIBUTARY_RETURN_NOT_OK(dv.String("storageType", &d.storage_type));
    TRIBUTARY_RETURN_NOT_OK(dv.String("pathOrInlineDv", &d.path_or_inline_dv));
    TRIBUTARY_RETURN_NOT_OK(dv.OptionalInt("offset", &d.offset));
    TRIBUTARY_RETURN_NOT_OK(dv.Int("sizeInBytes", &d.size_in_bytes));
    TRIBUTARY_RETURN_NOT_OK(dv.Int("cardinality", &d.cardinality));
    return Status::OK();
  }

 private:
  // Sets `*value` to `field` when it is present (not null) and `is_type`; else nullptr, and a
  // Corruption when it is of another type (`not_type` says what it is not) or missing and
  // `required`.
  template <typename IsType>
  Status Lookup(const char* field, bool required, IsType is_type, std::string_view not_type,
                const json** value) const {
    *value = Find(field);
    if (*value == nullptr) {
      return required ? Fail(field, "is missing") : Status::OK();
    }
    if (!((**value).*is_type)()) {
      *value = nullptr;
      return Fail(field, not_type);
    }
    return Status::OK();
  }
  // Reads `field` into `*out` (a string, bool or integer, or an optional of one) when present.
  template <typename T>
  Status Value(const char* field, T* out, bool required) const {
    using Wanted = typename OptionalValue<T>::Type;
    const json* value = nullptr;
    if constexpr (std::is_same_v<Wanted, std::string>) {
      TRIBUTARY_RETURN_NOT_OK(Lookup(field, required, &json::is_string, "is not a string", &value));
    } else if constexpr (std::is_same_v<Wanted, bool>) {
      TRIBUTARY_RETURN_NOT_OK(
          Lookup(field, required, &json::is_boolean, "is not a boolean", &value));
    } else {
      static_assert(std::is_integral_v<Wanted>);
      TRIBUTARY_RETURN_NOT_OK(
          Lookup(field, required, &json::is_number_integer, "is not an integer", &value));
    }
    if (value != nullptr) {
      *out = value->get<Wanted>();
    }
    return Status::OK();
  }
  template <typename T>
  struct OptionalValue {
    using Type = T;
  };
  template <typename T>
  struct OptionalValue<std::optional<T>> {
    using Type = T;
  };

  const json& object_;
  std::string_view location_;
  std::string_view action_;
};

Status ParsePath(const Reader& r, std::string* path) {
  std::string raw;
  TRIBUTARY_RETURN_NOT_OK(r.String("path", &raw));
  auto decoded = DecodeUriPath(raw);
  if (!decoded.ok()) {
    return r.Fail("path", decoded.status().Message());
  }
  *path = std::move(*decoded);
  return Status::OK();
}

// Whether the code point starting at `bytes[i]` (a UTF-8 lead byte >= 0x80) is one that
// java.net.URI quotes although it is not ASCII: a C1 control or a Unicode space separator.
// Sets `*length` to the sequence's length in bytes (1 for a malformed sequence).
bool IsQuotedNonAscii(std::string_view bytes, size_t i, size_t* length) {
  const auto lead = static_cast<unsigned char>(bytes[i]);
  const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n == 1 || i + n > bytes.size()) {
    *length = 1;
    return true;
  }
  uint32_t code_point = lead & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto next = static_cast<unsigned char>(bytes[i + k]);
    if ((next & 0xC0) != 0x80) {
      *length = 1;
      return true;
    }
    code_point = (code_point << 6) | (next & 0x3F);
  }
  *length = n;
  return (code_point >= 0x80 && code_point <= 0x9F) || code_point == 0xA0 || code_point == 0x1680 ||
         (code_point >= 0x2000 && code_point <= 0x200A) || code_point == 0x2028 ||
         code_point == 0x2029 || code_point == 0x202F || code_point == 0x205F ||
         code_point == 0x3000;
}

// Appends `path` percent-encoded as Hadoop's Path.toUri writes `add.path` (java.net.URI's
// quoting of a path component): ASCII letters and digits, "-_.!~*'()", ";:@&=+$," and '/' stay,
// and so do non-ASCII characters other than spaces and controls; every other byte becomes %XX
// with uppercase hex. DecodeUriPath is its inverse.
void AppendUriEncodedPath(std::string_view path, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  static constexpr std::string_view kKept = "-_.!~*'();:@&=+$,/";
  auto escape = [out](unsigned char byte) {
    out->push_back('%');
    out->push_back(kHex[byte >> 4]);
    out->push_back(kHex[byte & 0xF]);
  };
  out->reserve(out->size() + path.size());
  for (size_t i = 0; i < path.size();) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c < 0x80) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          kKept.find(static_cast<char>(c)) != std::string_view::npos) {
        out->push_back(static_cast<char>(c));
      } else {
        escape(c);
      }
      ++i;
      continue;
    }
    size_t length = 1;
    const bool quoted = IsQuotedNonAscii(path, i, &length);
    for (size_t k = 0; k < length; ++k) {
      if (quoted) {
        escape(static_cast<unsigned char>(path[i + k]));
      } else {
        out->push_back(path[i + k]);
      }
    }
    i += length;
  }
}

}  // namespace

std::string EncodeUriPath(std::string_view path) {
  std::string out;
  AppendUriEncodedPath(path, &out);
  return out;
}

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline_dv;
  if (offset) {
    id += fmt::format("@{}", *offset);
  }
  return id;
}

Result<std::string> DecodeUriPath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%') {
      if (i + 2 >= path.size() || HexDigitValue(path[i + 1]) < 0 ||
          HexDigitValue(path[i + 2]) < 0) {
        return Status::Corruption(
            fmt::format("bad percent-escape at byte {} of path '{}'", i, path));
      }
      out.push_back(
          static_cast<char>(HexDigitValue(path[i + 1]) * 16 + HexDigitValue(path[i + 2])));
      i += 2;
    } else {
      out.push_back(path[i]);
    }
  }
  return out;
}

Result<Action> ParseAction(std::string_view line, std::string_view location) {
  json root = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Status::Corruption(fmt::format("{}: not a JSON object", location));
  }
  Action action;
  for (const auto& [name, body] : root.items()) {
    if (body.is_null()) {
      continue;
    }
    if (!body.is_object()) {
      return Status::Corruption(fmt::format("{}: action '{}' is not an object", location, name));
    }
    Reader r(body, location, name);
    if (name == "protocol") {
      Protocol& p = action.protocol.emplace();
      TRIBUTARY_RETURN_NOT_OK(r.Int("minReaderVersion", &p.min_reader_version));
      TRIBUTARY_RETURN_NOT_OK(r.Int("minWriterVersion", &p.min_writer_version));
      if (r.Find("readerFeatures") != nullptr) {
        TRIBUTARY_RETURN_NOT_OK(r.StringList("readerFeatures", &p.reader_features.emplace(), true));
      }
      if (r.Find("writerFeatures") != nullptr) {
        TRIBUTARY_RETURN_NOT_OK(r.StringList("writerFeatures", &p.writer_features.emplace(), true));
      }
    } else if (name == "metaData") {
      Metadata& m = action.metadata.emplace();
      TRIBUTARY_RETURN_NOT_OK(r.String("id", &m.id));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalString("name", &m.name));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalString("description", &m.description));
      if (const json* format = r.Find("format"); format != nullptr && format->is_object()) {
        Reader f(*format, location, "metaData.format");
        TRIBUTARY_RETURN_NOT_OK(f.String("provider", &m.format_provider, false));
        TRIBUTARY_RETURN_NOT_OK(f.StringMap("options", &m.format_options));
      }
      TRIBUTARY_RETURN_NOT_OK(r.String("schemaString", &m.schema_string));
      TRIBUTARY_RETURN_NOT_OK(r.StringList("partitionColumns", &m.partition_columns, false));
      TRIBUTARY_RETURN_NOT_OK(r.StringMap("configuration", &m.configuration));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("createdTime", &m.created_time));
    } else if (name == "add") {
      AddFile& a = action.add.emplace();
      TRIBUTARY_RETURN_NOT_OK(ParsePath(r, &a.path));
      TRIBUTARY_RETURN_NOT_OK(r.Partitions("partitionValues", &a.partition_values, true));
      TRIBUTARY_RETURN_NOT_OK(r.Int("size", &a.size));
      TRIBUTARY_RETURN_NOT_OK(r.Int("modificationTime", &a.modification_time, false));
      TRIBUTARY_RETURN_NOT_OK(r.Bool("dataChange", &a.data_change, false));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalString("stats", &a.stats));
      TRIBUTARY_RETURN_NOT_OK(r.StringMap("tags", &a.tags));
      TRIBUTARY_RETURN_NOT_OK(r.DeletionVector(&a.deletion_vector));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("baseRowId", &a.base_row_id));
      TRIBUTARY_RETURN_NOT_OK(
          r.OptionalInt("defaultRowCommitVersion", &a.default_row_commit_version));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalString("clusteringProvider", &a.clustering_provider));
    } else if (name == "remove") {
      RemoveFile& rm = action.remove.emplace();
      TRIBUTARY_RETURN_NOT_OK(ParsePath(r, &rm.path));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("deletionTimestamp", &rm.deletion_timestamp));
      TRIBUTARY_RETURN_NOT_OK(r.Bool("dataChange", &rm.data_change, false));
      TRIBUTARY_RETURN_NOT_OK(r.Partitions("partitionValues", &rm.partition_values, false));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("size", &rm.size));
      TRIBUTARY_RETURN_NOT_OK(r.DeletionVector(&rm.deletion_vector));
    } else if (name == "cdc") {
      AddCdcFile& c = action.cdc.emplace();
      TRIBUTARY_RETURN_NOT_OK(ParsePath(r, &c.path));
      TRIBUTARY_RETURN_NOT_OK(r.Partitions("partitionValues", &c.partition_values, true));
      TRIBUTARY_RETURN_NOT_OK(r.Int("size", &c.size));
      TRIBUTARY_RETURN_NOT_OK(r.Bool("dataChange", &c.data_change, false));
      TRIBUTARY_RETURN_NOT_OK(r.StringMap("tags", &c.tags));
    } else if (name == "txn") {
      Txn& t = action.txn.emplace();
      TRIBUTARY_RETURN_NOT_OK(r.String("appId", &t.app_id));
      TRIBUTARY_RETURN_NOT_OK(r.Int("version", &t.version));
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("lastUpdated", &t.last_updated));
    } else if (name == "domainMetadata") {
      DomainMetadata& d = action.domain_metadata.emplace();
      TRIBUTARY_RETURN_NOT_OK(r.String("domain", &d.domain));
      TRIBUTARY_RETURN_NOT_OK(r.String("configuration", &d.configuration, false));
      TRIBUTARY_RETURN_NOT_OK(r.Bool("removed", &d.removed, false));
    } else if (name == "sidecar") {
      Sidecar& s = action.sidecar.emplace();
      TRIBUTARY_RETURN_NOT_OK(r.String("path", &s.path));
      TRIBUTARY_RETURN_NOT_OK(r.Int("sizeInBytes", &s.size_in_bytes, false));
      TRIBUTARY_RETURN_NOT_OK(r.Int("modificationTime", &s.modification_time, false));
    } else if (name == "commitInfo") {
      action.commit_info = body.dump();
      std::optional<int64_t> ict;
      TRIBUTARY_RETURN_NOT_OK(r.OptionalInt("inCommitTimestamp", &ict));
      action.in_commit_timestamp = ict;
    } else if (name == "checkpointMetadata") {
      action.checkpoint_metadata = true;
    }
  }
  return action;
}

Result<std::vector<Action>> ParseCommit(std::string_view text, std::string_view location) {
  std::vector<Action> actions;
  size_t start = 0;
  int line = 1;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view content = text.substr(start, end - start);
    if (!content.empty() && content.back() == '\r') {
      content.remove_suffix(1);
    }
    if (content.find_first_not_of(" \t") != std::string_view::npos) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto action,
                                ParseAction(content, fmt::format("{} line {}", location, line)));
      actions.push_back(std::move(action));
    }
    start = end + 1;
    ++line;
  }
  return actions;
}

bool HasWriterFeature(const Protocol& protocol, std::string_view feature) {
  return protocol.writer_features &&
         std::find(protocol.writer_features->begin(), protocol.writer_features->end(), feature) !=
             protocol.writer_features->end();
}

}  // namespace tributary::delta
