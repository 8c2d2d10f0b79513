// FlatRecordShape: a fast path for NDJSON whose records repeat one flat shape. Most files hold
// records with the same keys in the same order and scalar values only; once a record of that
// shape has been parsed (by simdjson's DOM), the next lines are matched against it byte by byte
// in one pass, without building a DOM. A line is accepted only when it is strict JSON that
// simdjson would parse into the same keys with the same values: the keys are byte-equal to the
// learned ones (no escapes), strings have no escapes or control characters (and valid UTF-8),
// numbers are short enough to be exact, and only whitespace follows the object. Anything else
// is left to the DOM path, so both paths read every line identically. Internal to formats/json.

#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tributary::json {

/// The kind of a scalar of a flat record, as simdjson's DOM would type it.
enum class FlatValueKind : uint8_t { kNull, kBool, kInt64, kDouble, kString };

/// One value of a matched line.
struct FlatValue {
  FlatValueKind kind = FlatValueKind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  /// kDouble: the value, when Match was asked for doubles (else 0).
  double double_value = 0;
  /// kString: the string's bytes (it has no escapes); kDouble: the number's text.
  std::string_view text;
};

/// The keys of the last flat record, and the matcher of lines against them.
///
/// Thread-safety: none.
class FlatRecordShape {
 public:
  /// Learns the shape of `object` when it is flat (scalar values only, at most kMaxKeys distinct
  /// keys that need no escaping); otherwise forgets any shape. Returns whether a shape is held.
  bool Learn(simdjson::dom::object object);
  /// Forgets the shape.
  void Clear() { quoted_keys_.clear(); }

  bool Empty() const { return quoted_keys_.empty(); }
  size_t NumKeys() const { return quoted_keys_.size(); }
  /// The k-th key, unquoted.
  std::string_view Key(size_t k) const {
    return std::string_view(quoted_keys_[k]).substr(1, quoted_keys_[k].size() - 2);
  }

  /// Matches `line` (followed by readable padding, as LineReader hands out) against the shape:
  /// true when it is exactly such a record, with values[k] the value of the k-th key
  /// (`values` holds NumKeys() entries). With `parse_doubles`, kDouble values carry their
  /// (correctly rounded) value. False leaves `values` unspecified.
  bool Match(std::string_view line, bool parse_doubles, FlatValue* values) const;

  /// Records with more keys than this take the DOM path.
  static constexpr size_t kMaxKeys = 64;

 private:
  // Each key with its quotes, as it must appear in the line.
  std::vector<std::string> quoted_keys_;
};

}  // namespace tributary::json
