// RecordShape: a fast path for NDJSON whose records repeat one shape. Most files hold records
// with the same keys in the same order, nested objects and arrays included; once a record of
// that shape has been parsed (by simdjson's DOM), the next lines are matched against it byte by
// byte in one pass, without building a DOM. A line is accepted only when it is strict JSON that
// simdjson would parse into the same keys with the same values: keys byte-equal to the learned
// ones (no escapes) in the learned order, strings without escapes or control characters (and
// valid UTF-8), numbers short enough to be exact, and only whitespace after the object. Any
// value may be null; an array may have any number of elements, each of the element shape
// learned from the first non-null element. A shape merged from records of several shapes
// (RecordShape::MergeFrom) has optional members, which a line may leave out. Anything else is
// left to the DOM path, so both paths read every line identically. Internal to formats/json.

#pragma once

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tributary::json {

/// The kind of a value of a matched line, as simdjson's DOM would type it.
/// kAbsent: an optional member the line leaves out (a null for a column, nothing for inference).
enum class ShapeValueKind : uint8_t {
  kNull,
  kBool,
  kInt64,
  kDouble,
  kString,
  kObject,
  kArray,
  kAbsent
};

/// One value of a matched line. Match writes the values in document order: an object is one
/// kObject value followed by its members' values (in the shape's key order); an array is one
/// kArray value with `count` followed by its elements' values; a null object or array is one
/// kNull value with nothing after it; an optional member the line leaves out is one kAbsent
/// value.
struct ShapeValue {
  ShapeValueKind kind = ShapeValueKind::kNull;
  bool bool_value = false;
  /// kArray: the number of elements.
  uint32_t count = 0;
  int64_t int_value = 0;
  /// kDouble: the value, when Match was asked for doubles (else 0).
  double double_value = 0;
  /// kString: the string's bytes (it has no escapes); kDouble: the number's text.
  std::string_view text;
};

/// The shape of the last record, and the matcher of lines against it.
///
/// The shape is a tree of nodes stored in pre-order: node 0 is the record (an object); an
/// object node's members follow it, each with its subtree; an array node's element subtree
/// follows it.
///
/// Thread-safety: none.
class RecordShape {
 public:
  enum class NodeKind : uint8_t { kScalar, kObject, kArray };

  /// Learns the shape of `object` (at most kMaxNodes nodes, kMaxDepth levels, keys that need
  /// no escaping, no key twice in an object, the elements of each array of one shape);
  /// otherwise forgets any shape. Returns whether a shape is held.
  bool Learn(simdjson::dom::object object);
  /// Learns the shape that both `old`'s records and `object` match: the members in one order,
  /// those of only one of them optional, nested objects and array elements merged the same
  /// way, a member that was only ever null taking the other's shape. False (and no shape) when
  /// there is none: members in another order, an object or array where a scalar was, past the
  /// limits of Learn, or `old` merged kMaxMerges times already (records whose keys are data,
  /// a new one in each, would otherwise grow one shape record by record).
  bool MergeFrom(const RecordShape& old, simdjson::dom::object object);
  /// Forgets the shape.
  void Clear() {
    nodes_.clear();
    keys_.clear();
  }

  bool Empty() const { return nodes_.empty(); }
  size_t NumNodes() const { return nodes_.size(); }
  NodeKind Kind(size_t node) const { return nodes_[node].kind; }
  /// An object node's number of members.
  uint32_t NumMembers(size_t node) const { return nodes_[node].num_members; }
  /// The node's key, unquoted (empty for the record and array elements).
  std::string_view Key(size_t node) const {
    const Node& n = nodes_[node];
    return n.key_size == 0 ? std::string_view()
                           : std::string_view(keys_).substr(n.key_offset + 1, n.key_size - 2);
  }
  /// The node after `node`'s subtree: an object member's next sibling.
  size_t Next(size_t node) const { return node + nodes_[node].subtree_size; }

  /// Matches `line` (followed by readable padding, as LineReader hands out) against the shape:
  /// true when it is exactly such a record, with `values` its values (see ShapeValue). With
  /// `parse_doubles`, kDouble values carry their (correctly rounded) value. False leaves
  /// `values` unspecified.
  bool Match(std::string_view line, bool parse_doubles, std::vector<ShapeValue>* values) const;

  /// Records with more nodes or deeper nesting than these take the DOM path.
  static constexpr size_t kMaxNodes = 256;
  static constexpr int kMaxDepth = 16;
  static constexpr int kMaxMerges = 8;

  /// The bytes of a line and the match's position in them (defined in record_shape.cc).
  struct Cursor;

 private:
  struct Node {
    NodeKind kind = NodeKind::kScalar;
    // An object member a line may leave out.
    bool optional = false;
    // A scalar learned from no value (a null, an array without elements): any shape merges
    // into it.
    bool placeholder = false;
    uint32_t num_members = 0;
    uint32_t subtree_size = 1;
    // The key with its quotes, as it must appear in the line: keys_[key_offset, +key_size).
    uint32_t key_offset = 0;
    uint32_t key_size = 0;
  };

  size_t AddNode(NodeKind kind, std::string_view key, bool optional);
  bool LearnObject(simdjson::dom::object object, std::string_view key, int depth);
  bool LearnValue(simdjson::dom::element value, std::string_view key, int depth);
  // The element shape of an array whose first non-null element is an object: the objects'
  // shapes merged (MergeFrom), appended.
  bool LearnObjectElements(simdjson::dom::array array, int depth);
  // MergeFrom's parts: the merged subtree of `old`'s node `node` and `value`, appended.
  bool MergeObject(const RecordShape& old, size_t node, simdjson::dom::object object,
                   std::string_view key, bool optional, int depth);
  bool MergeValue(const RecordShape& old, size_t node, simdjson::dom::element value,
                  std::string_view key, bool optional, int depth);
  void CopySubtree(const RecordShape& old, size_t node, bool optional);
  bool Conforms(simdjson::dom::element value, size_t node) const;
  bool MatchNode(Cursor& in, size_t node, bool parse_doubles,
                 std::vector<ShapeValue>* values) const;

  std::vector<Node> nodes_;
  // How many merges made this shape from a learned one.
  int merges_ = 0;
  // The quoted keys of all nodes, back to back: no allocation per learned record once warm.
  std::string keys_;
};

/// The shapes of the last few records of different shapes. Real logs mix a few (an `error`
/// object only on failures, a `user` object only when signed in): with one shape, every change
/// between them sent a line through the DOM and taught its shape again.
///
/// Thread-safety: none.
class RecordShapeCache {
 public:
  static constexpr int kCapacity = 4;

  /// Matches `line` against the shapes, the last one matched first (see RecordShape::Match):
  /// the index of the shape it matched, or -1.
  int Match(std::string_view line, bool parse_doubles, std::vector<ShapeValue>* values);
  /// Learns the shape of `object` in place of the least recently matched one: its index, or
  /// -1 when it is not a shape (RecordShape::Learn).
  int Learn(simdjson::dom::object object);
  /// Merges the shape of `object` into the last one matched (RecordShape::MergeFrom): its
  /// index, or -1 when they do not merge. Until the next Learn or MergeIntoLast, UndoMerge()
  /// puts the shape back as it was (for a user that cannot take the merged one).
  int MergeIntoLast(simdjson::dom::object object);
  void UndoMerge();
  const RecordShape& Shape(int i) const { return shapes_[static_cast<size_t>(i)]; }

 private:
  std::array<RecordShape, kCapacity> shapes_;
  // Where a shape is learned or merged before it replaces one; after a merge, the shape it
  // replaced (for UndoMerge).
  RecordShape spare_;
  int merged_ = -1;
  // When each shape was last matched or learned, in matches.
  std::array<uint64_t, kCapacity> last_used_{};
  uint64_t clock_ = 0;
  int last_ = -1;
};

}  // namespace tributary::json
