// The rescued-data column (Auto Loader's `rescuedDataColumn`): what a record held that does not
// fit the schema, as one JSON object string per row.
//
//   rescued  = "{" [ member *( "," member ) ] [ [ "," ] file-member ] "}"
//   member   = json-string ":" json-value     ; a field that is unknown, differs from a schema
//                                             ; field only in case, is duplicated, or has a
//                                             ; value that does not fit its column's type
//            | "\"_corrupt_record\"" ":" json-string  ; the raw text of a record that does
//                                             ; not parse at all (tributary's addition)
//   file-member = "\"_file_path\"" ":" json-string
//
// Text that is not valid UTF-8 is kept with each invalid byte replaced by U+FFFD, so the
// column always holds valid UTF-8.

#pragma once

#include <string>
#include <string_view>

namespace tributary::text {

/// The key under which the raw text of an unparseable record is rescued.
inline constexpr std::string_view kCorruptRecordKey = "_corrupt_record";
/// The key holding the source file's path in every rescued object.
inline constexpr std::string_view kFilePathKey = "_file_path";

/// Builds one rescued-data JSON object. Reused across rows; appends only.
///
/// Thread-safety: none.
class RescuedRecord {
 public:
  /// Starts a new, empty object.
  void Clear() {
    text_.clear();
    empty_ = true;
  }
  bool Empty() const { return empty_; }

  /// Adds `"name": <value_json>`; `value_json` must already be JSON text.
  void AddJson(std::string_view name, std::string_view value_json);
  /// Adds `"name": "<text>"`, escaping `text` as a JSON string.
  void AddString(std::string_view name, std::string_view text);
  /// The buffer a caller appends a value's JSON to after AddKey; for serializers that write
  /// straight into the record.
  std::string* AddKey(std::string_view name);

  /// Closes the object with `_file_path` (left out when `file_path` is empty) and returns its
  /// text (valid until the next Clear).
  std::string_view Finish(std::string_view file_path);

 private:
  std::string text_;
  bool empty_ = true;
};

/// Appends `text`, replacing each byte that is not part of well-formed UTF-8 by U+FFFD.
void AppendValidUtf8(std::string_view text, std::string* out);

}  // namespace tributary::text
