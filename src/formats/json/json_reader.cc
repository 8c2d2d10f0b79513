#include "formats/json/json_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "expr/temporal_parsing.h"
#include "expr/time_zone.h"
#include "formats/json/json_error_position.h"
#include "formats/json/json_value_text.h"
#include "formats/json/lenient_json.h"
#include "formats/json/record_shape.h"
#include "formats/text/input_stream.h"
#include "formats/text/line_reader.h"
#include "formats/text/rescued_data.h"
#include "formats/text/schema_inference.h"
#include "formats/text/temporal_formats.h"
#include "formats/text/text_reader_factory.h"
#include "formats/text/value_conversion.h"

namespace tributary::json {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;
using simdjson::dom::element;
using simdjson::dom::element_type;
using text::ParseMode;

static_assert(text::kLinePadding >= simdjson::SIMDJSON_PADDING);

// The decoding plan of one type of the schema, mirroring it. Struct nodes keep a name index and
// a per-record "seen" mark per field (a generation number, so nothing is cleared per record).
struct TypeNode {
  TypeId id = TypeId::kNull;
  int precision = 0;
  int scale = 0;
  std::vector<TypeNode> children;

  // Struct only.
  std::vector<std::string> names;
  std::unordered_map<std::string_view, int> index;
  std::vector<uint32_t> seen;
  uint32_t generation = 0;
  int next_hint = 0;

  static TypeNode Make(const DataType& type) {
    TypeNode node;
    node.id = type.Id();
    node.precision = type.Precision();
    node.scale = type.Scale();
    switch (type.Id()) {
      case TypeId::kStruct:
        for (const Field& field : type.Fields()) {
          node.children.push_back(Make(*field.Type()));
          node.names.push_back(field.Name());
        }
        node.BuildIndex();
        break;
      case TypeId::kArray:
        node.children.push_back(Make(*type.ElementType()));
        break;
      case TypeId::kMap:
        node.children.push_back(Make(*type.KeyType()));
        node.children.push_back(Make(*type.ValueType()));
        break;
      default:
        break;
    }
    return node;
  }

  void BuildIndex() {
    index.clear();
    for (size_t i = 0; i < names.size(); ++i) {
      index.emplace(names[i], static_cast<int>(i));
    }
    seen.assign(names.size(), 0);
  }

  // Starts a record: every field unseen.
  uint32_t Begin() {
    next_hint = 0;
    if (++generation == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      generation = 1;
    }
    return generation;
  }

  // The index of the field named exactly `key`, or -1. Fields usually arrive in schema order,
  // so the one after the last match is tried first.
  int Find(std::string_view key) {
    const int n = static_cast<int>(names.size());
    if (next_hint < n && names[static_cast<size_t>(next_hint)] == key) {
      return next_hint++;
    }
    auto it = index.find(key);
    if (it == index.end()) {
      return -1;
    }
    next_hint = it->second + 1;
    return it->second;
  }
};

bool HasDecimal(const DataType& type) {
  if (type.Id() == TypeId::kDecimal) {
    return true;
  }
  for (const Field& field : type.Fields()) {
    if (HasDecimal(*field.Type())) {
      return true;
    }
  }
  return (type.ElementType() != nullptr && HasDecimal(*type.ElementType())) ||
         (type.ValueType() != nullptr && HasDecimal(*type.ValueType()));
}

bool FloatSpecial(std::string_view text, double* out) {
  if (text == "NaN" || text == "+NaN" || text == "-NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "Infinity" || text == "+Infinity" || text == "INF" || text == "+INF") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Infinity" || text == "-INF") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

int Base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '+' || c == '-') {
    return 62;
  }
  if (c == '/' || c == '_') {
    return 63;
  }
  return -1;
}

// Standard or URL-safe base64, padding optional. False on any other character.
bool DecodeBase64(std::string_view text, std::string* out) {
  out->clear();
  uint32_t bits = 0;
  int count = 0;
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '=') {
    --end;
  }
  if (text.size() - end > 2) {
    return false;
  }
  for (size_t i = 0; i < end; ++i) {
    const int v = Base64Value(static_cast<unsigned char>(text[i]));
    if (v < 0) {
      return false;
    }
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out->push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return count < 6;
}

// The initial line buffer: the whole input when it is small, else chunks of 4 MiB.
size_t LineBufferSize(int64_t size_hint) {
  constexpr int64_t kChunk = int64_t{4} << 20;
  return static_cast<size_t>(size_hint < 0 ? kChunk
                                           : std::clamp<int64_t>(size_hint + 1, 256, kChunk));
}

class JsonReaderImpl final : public JsonReader {
 public:
  // `size_hint` is the input's size when known (it bounds the line buffer), else -1.
  JsonReaderImpl(std::string path, std::unique_ptr<text::InputStream> input, int64_t size_hint,
                 columnar::SchemaPtr output_schema, const JsonReadOptions& options,
                 text::TemporalFormats temporal, columnar::MemoryPool* pool)
      : path_(std::move(path)),
        size_hint_(size_hint),
        output_schema_(std::move(output_schema)),
        options_(options),
        temporal_(std::move(temporal)),
        pool_(pool),
        lines_(std::move(input), LineBufferSize(size_hint),
               text::LineOptions{options.line_sep, static_cast<size_t>(options.max_record_bytes)}),
        record_sink_(text::RecordSinkOptions::Of("JSON", path_, options), &metrics_) {}

  Status Init(const columnar::Schema& data_schema, const std::vector<std::string>& columns);

  const columnar::SchemaPtr& OutputSchema() const override { return output_schema_; }
  const JsonReadMetrics& Metrics() const override { return metrics_; }
  Result<columnar::RecordBatchPtr> Next() override;

 private:
  // Converts `value` for `node`. With kAppend, appends exactly one value (null where it does
  // not fit) to `*builder`; without, only checks. Returns whether everything fit.
  template <bool kAppend>
  bool Convert(TypeNode& node, element value, ColumnBuilder* builder);
  template <bool kAppend>
  bool ConvertStruct(TypeNode& node, simdjson::dom::object object, ColumnBuilder* builder);
  template <bool kAppend>
  bool ConvertLeafString(TypeNode& node, std::string_view text, ColumnBuilder* builder);

  // Decodes one record (a parsed object) into the builders, or drops or fails it.
  Status DecodeRecord(simdjson::dom::object object, const text::Line& line);
  // Handles a record that does not parse: `reason` is simdjson's or ours.
  Status CorruptRecord(std::string_view raw, const text::Line& line, std::string_view reason);
  // Remembers `key`, a top-level field outside the schema, once. Only records with unknown
  // fields get here, and a file has few distinct ones, so a linear search is enough.
  void NoteUnknownField(std::string_view key) {
    std::vector<std::string>& names = metrics_.unknown_fields;
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      names.emplace_back(key);
    }
  }
  Status ParseAndDecode(const text::Line& line);
  // The fast path for records of the last shape (record_shape.h): decodes `line` when it is
  // of that shape and every value fits its column as Convert takes it; else does nothing and
  // returns false, leaving the line to ParseAndDecode.
  bool DecodeShapedRecord(const text::Line& line);
  // Learns the shape of `object` for DecodeShapedRecord when every key, nested ones too, is a
  // field of the schema and every nested value has a column of its kind.
  void LearnShape(simdjson::dom::object object);
  // Resolves the sinks of shape `i` into resolved_sinks_ (ResolveShapeMembers): whether the
  // fast path can take it.
  bool ResolveShape(int i);
  // LearnShape's targets of the members of object node `node`, whose fields are `type`'s,
  // built by `builder` (the record: nullptr, its columns are top_builders_).
  bool ResolveShapeMembers(size_t node, TypeNode& type, ColumnBuilder* builder);
  bool ResolveShapeValue(size_t node, TypeNode& type, ColumnBuilder* sink);
  // Whether the values of shape node `node` from `value` on fit their columns; moves `value`
  // past them. A timestamp's value is parsed here, once, and kept as kInt64.
  bool CheckShapeValues(size_t node, ShapeValue*& value);
  // Appends the values of shape node `node` from `value` on; moves `value` past them.
  void AppendShapeValues(size_t node, const ShapeValue*& value);
  Status DecodeMultiLine();
  // Decodes the pending objects of a top-level array until the batch is full.
  Status DrainPending();
  // Sizes the builders for the rest of the batch: batch_size rows, or fewer when the rest of the
  // file (at the bytes per row of the `batch_bytes` read so far) holds fewer.
  void ReserveRestOfBatch(int64_t batch_bytes);

  // Appends `value` as JSON (for a string column or the rescued-data column): the numbers the
  // parser read as zeros in place of out-of-range ones (overflow_) as their text. Call before
  // the value's numbers are passed.
  void AppendValueJson(element value, std::string* out) {
    if (overflow_.ordinals.empty()) {
      AppendElementJson(value, out);
      return;
    }
    const size_t first = number_ordinal_;
    AppendElementJson(value, out, [&](size_t k) -> std::string_view {
      const size_t ordinal = first + k;
      return overflow_.Contains(ordinal) && ordinal < number_tokens_.size()
                 ? number_tokens_[ordinal]
                 : std::string_view();
    });
  }
  // Convert for a number beyond int64/uint64/double whose text is `text`: as Spark's Jackson
  // reads it, a double or float column gets its value (Infinity for 1e400), a decimal or string
  // column its text; any other column rescues it.
  template <bool kAppend>
  bool ConvertOverflowNumber(TypeNode& node, std::string_view text, ColumnBuilder* builder);

  // The text of the next number of the document (with exact_numbers_).
  std::string_view NextNumberText() {
    return number_ordinal_ < number_tokens_.size() ? number_tokens_[number_ordinal_++]
                                                   : std::string_view();
  }
  // Passes over a value the decoder does not visit (counting its numbers).
  void SkipValue(element value) {
    if (track_numbers_) {
      number_ordinal_ += CountNumbers(value);
    }
  }
  // As SkipValue for a value Convert has seen but not descended into.
  void SkipChildren(element value, element_type type) {
    if (type == element_type::OBJECT || type == element_type::ARRAY) {
      SkipValue(value);
    }
  }

  std::string TooLong() const {
    return fmt::format("the record is longer than max_record_bytes ({} bytes)",
                       options_.max_record_bytes);
  }

  // The line and file offset of byte `offset` of the record `line` (multiLine: of the
  // document, whose lines doc_lines_ maps back to the file).
  text::Line PositionOf(const text::Line& line, size_t offset) const {
    text::Line where = line;
    if (!options_.multi_line || doc_lines_.empty()) {
      where.offset += static_cast<int64_t>(std::min(offset, line.text.size()));
      return where;
    }
    auto next = std::upper_bound(doc_lines_.begin(), doc_lines_.end(), offset,
                                 [](size_t o, const DocLine& l) { return o < l.doc_offset; });
    const DocLine& in = *(next - 1);
    where.number = in.line.number;
    where.offset = in.line.offset + static_cast<int64_t>(offset - in.doc_offset);
    return where;
  }

  // Rows decoded into a batch before the builders are sized from them.
  static constexpr int64_t kRowsBeforeReserve = 64;

  const std::string path_;
  const int64_t size_hint_;
  columnar::SchemaPtr output_schema_;
  const JsonReadOptions options_;
  const text::TemporalFormats temporal_;
  columnar::MemoryPool* const pool_;

  simdjson::dom::parser parser_;
  text::LineReader lines_;
  bool multi_line_done_ = false;
  // Objects of a top-level array still to decode (the parser's document stays alive until
  // they are done, so no other record is parsed meanwhile).
  std::optional<simdjson::dom::array::iterator> pending_next_;
  std::optional<simdjson::dom::array::iterator> pending_end_;
  text::Line pending_line_;
  std::string document_;
  // multiLine: where each line of the file starts in document_.
  struct DocLine {
    size_t doc_offset;
    text::Line line;
  };
  std::vector<DocLine> doc_lines_;
  JsonReadMetrics metrics_;

  // Top-level data fields (the schema minus the special columns) and, per field, its output
  // builder or null when not projected.
  TypeNode top_;
  std::vector<ColumnBuilder*> top_builders_;
  std::vector<int> projected_fields_;
  // Modes, special columns and accounting.
  text::RecordSink record_sink_;
  bool rescue_ = false;

  const LenientJsonOptions lenient_ = LenientOptionsOf(options_);
  // With decimal columns, numbers are read from their text, not through double: the number
  // tokens of the parsed document in order, and how many of them the decoder has passed
  // (simdjson's DOM visits values in document order; skipped values are counted too).
  bool exact_numbers_ = false;
  // Whether the current record's numbers are counted: exact_numbers_, or numbers of the record
  // were out of range (overflow_), whose texts then replace the zeros the parser read.
  bool track_numbers_ = false;
  OverflowNumbers overflow_;
  std::vector<std::string_view> number_tokens_;
  size_t number_ordinal_ = 0;
  // The strict rewrite of the last lenient record.
  std::string rewritten_;

  // The last shapes (record_shape.h) and, per shape node, where its values go: the column's
  // type and builder (no builder: a column not projected, whose values are passed over) and,
  // for an object, the fields of its struct the shape lacks (null in each of its records).
  // ShapeSinks::absent: the projected columns the shape lacks, null in each of its records;
  // `usable` is false for a shape the fast path cannot take (an unknown field, a nested value
  // for a string column), kept so that its records go to the DOM without being learned again.
  struct ShapeTarget {
    TypeNode* node = nullptr;
    ColumnBuilder* sink = nullptr;
    std::vector<ColumnBuilder*> absent;
  };
  struct ShapeSinks {
    std::vector<ShapeTarget> targets;
    std::vector<ColumnBuilder*> absent;
    bool usable = false;
  };
  RecordShapeCache shapes_;
  std::array<ShapeSinks, RecordShapeCache::kCapacity> shape_sinks_;
  // The sinks of a shape being learned or merged, before they replace its slot's.
  ShapeSinks resolved_sinks_;
  // The shape the Resolve, Check and Append helpers work on, and its sinks.
  const RecordShape* shape_ = nullptr;
  ShapeSinks* sinks_ = nullptr;
  // Whether the last line DecodeShapedRecord tried was of a known shape (a value of it did not
  // fit): the DOM path then teaches no shape again.
  bool shape_matched_ = false;
  std::vector<ShapeValue> shape_values_;

  std::string scratch_;
  std::string bytes_scratch_;
};

Status JsonReaderImpl::Init(const columnar::Schema& data_schema,
                            const std::vector<std::string>& columns) {
  rescue_ = record_sink_.Rescue();
  if (parser_.allocate(simdjson::dom::MINIMAL_DOCUMENT_CAPACITY,
                       static_cast<size_t>(options_.max_nesting_depth)) != simdjson::SUCCESS) {
    return Status::Internal("cannot allocate the JSON parser");
  }

  const std::vector<Field> data_fields = record_sink_.DataFields(data_schema);
  for (const Field& field : data_fields) {
    std::vector<const DataType*> stack = {field.Type().get()};
    while (!stack.empty()) {
      const DataType* type = stack.back();
      stack.pop_back();
      if (type->Id() == TypeId::kMap && type->KeyType()->Id() != TypeId::kString) {
        return Status::NotImplemented(fmt::format(
            "JSON reader: map keys of type {} (column '{}'): only string keys are supported",
            type->KeyType()->ToString(), field.Name()));
      }
      for (const Field& child : type->Fields()) {
        stack.push_back(child.Type().get());
      }
      if (type->ElementType() != nullptr) {
        stack.push_back(type->ElementType().get());
      }
      if (type->ValueType() != nullptr) {
        stack.push_back(type->ValueType().get());
      }
    }
  }
  top_ = TypeNode::Make(*DataType::Struct(data_fields));
  for (const Field& field : data_fields) {
    exact_numbers_ |= HasDecimal(*field.Type());
  }
  top_builders_.assign(data_fields.size(), nullptr);

  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<text::DataColumnSink> data,
                            record_sink_.MakeColumns(*output_schema_, columns, pool_));
  for (const text::DataColumnSink& sink : data) {
    const int data_index = top_.Find(sink.name);
    top_.next_hint = 0;
    if (data_index < 0) {
      return Status::Internal("projected column missing from the data schema");
    }
    top_builders_[static_cast<size_t>(data_index)] = sink.builder;
    projected_fields_.push_back(data_index);
  }
  output_schema_ = record_sink_.OutputSchema();
  return Status::OK();
}

// Whether the JSON integer `v` fits a column of integer type `id` (else it is rescued).
bool IntegerFits(TypeId id, int64_t v) {
  switch (id) {
    case TypeId::kInt8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case TypeId::kInt16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case TypeId::kInt32:
      return v >= INT32_MIN && v <= INT32_MAX;
    default:
      return true;
  }
}

template <bool kAppend>
bool JsonReaderImpl::ConvertOverflowNumber(TypeNode& node, std::string_view text,
                                           ColumnBuilder* builder) {
  switch (node.id) {
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      if constexpr (kAppend) {
        builder->AppendDouble(std::strtod(std::string(text).c_str(), nullptr));
      }
      return true;
    case TypeId::kDecimal:
      return ConvertLeafString<kAppend>(node, text, builder);
    case TypeId::kString:
      if constexpr (kAppend) {
        builder->AppendBytes(text);
      }
      return true;
    default:
      if constexpr (kAppend) {
        builder->AppendNull();
      }
      return false;
  }
}

template <bool kAppend>
bool JsonReaderImpl::ConvertLeafString(TypeNode& node, std::string_view text,
                                       ColumnBuilder* builder) {
  switch (node.id) {
    case TypeId::kString:
      if constexpr (kAppend) {
        builder->AppendBytes(text);
      }
      return true;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double value;
      if (FloatSpecial(text, &value)) {
        if constexpr (kAppend) {
          builder->AppendDouble(value);
        }
        return true;
      }
      break;
    }
    case TypeId::kBinary:
      if (DecodeBase64(text, &bytes_scratch_)) {
        if constexpr (kAppend) {
          builder->AppendBytes(bytes_scratch_);
        }
        return true;
      }
      break;
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kYearMonthInterval:
      if (text::ConvertTextValue<kAppend>(node.id, node.precision, node.scale, text, temporal_,
                                          builder)) {
        return true;
      }
      break;
    default:
      break;
  }
  if constexpr (kAppend) {
    builder->AppendNull();
  }
  return false;
}

template <bool kAppend>
bool JsonReaderImpl::ConvertStruct(TypeNode& node, simdjson::dom::object object,
                                   ColumnBuilder* builder) {
  const uint32_t generation = node.Begin();
  bool fits = true;
  for (auto it = object.begin(), end = object.end(); it != end; ++it) {
    const element value = it.value();
    const int i = node.Find(it.key());
    if (i < 0 || node.seen[static_cast<size_t>(i)] == generation) {
      // Unknown and repeated nested fields are rescued with their top-level field; without a
      // rescued-data column they are ignored, as Spark does.
      fits &= !rescue_;
      SkipValue(value);
      continue;
    }
    node.seen[static_cast<size_t>(i)] = generation;
    fits &= Convert<kAppend>(node.children[static_cast<size_t>(i)], value,
                             kAppend ? &builder->Child(i) : nullptr);
  }
  if constexpr (kAppend) {
    for (size_t i = 0; i < node.seen.size(); ++i) {
      if (node.seen[i] != generation) {
        builder->Child(static_cast<int>(i)).AppendNull();
      }
    }
    builder->AppendStruct();
  }
  return fits;
}

template <bool kAppend>
bool JsonReaderImpl::Convert(TypeNode& node, element value, ColumnBuilder* builder) {
  const element_type type = value.type();
  std::string_view number_text;
  if (track_numbers_ && (type == element_type::INT64 || type == element_type::UINT64 ||
                         type == element_type::DOUBLE)) {
    number_text = NextNumberText();
    if (!overflow_.ordinals.empty() && overflow_.Contains(number_ordinal_ - 1)) {
      return ConvertOverflowNumber<kAppend>(node, number_text, builder);
    }
  }
  if (type == element_type::NULL_VALUE) {
    if constexpr (kAppend) {
      builder->AppendNull();
    }
    return true;
  }
  switch (node.id) {
    case TypeId::kBoolean:
      if (type == element_type::BOOL) {
        if constexpr (kAppend) {
          builder->AppendBoolean(value.get_bool().value_unsafe());
        }
        return true;
      }
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (type == element_type::INT64) {
        const int64_t v = value.get_int64().value_unsafe();
        if (IntegerFits(node.id, v)) {
          if constexpr (kAppend) {
            builder->AppendInt(v);
          }
          return true;
        }
      }
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double v;
      if (type == element_type::DOUBLE) {
        v = value.get_double().value_unsafe();
      } else if (type == element_type::INT64) {
        v = static_cast<double>(value.get_int64().value_unsafe());
      } else if (type == element_type::UINT64) {
        v = static_cast<double>(value.get_uint64().value_unsafe());
      } else if (type == element_type::STRING) {
        return ConvertLeafString<kAppend>(node, value.get_string().value_unsafe(), builder);
      } else {
        break;
      }
      if constexpr (kAppend) {
        builder->AppendDouble(v);
      }
      return true;
    }
    case TypeId::kDecimal: {
      if (!number_text.empty()) {
        return ConvertLeafString<kAppend>(node, number_text, builder);
      }
      if (type == element_type::STRING) {
        return ConvertLeafString<kAppend>(node, value.get_string().value_unsafe(), builder);
      }
      char digits[32];
      char* end = digits + sizeof(digits);
      if (type == element_type::INT64) {
        end = std::to_chars(digits, end, value.get_int64().value_unsafe()).ptr;
      } else if (type == element_type::UINT64) {
        end = std::to_chars(digits, end, value.get_uint64().value_unsafe()).ptr;
      } else if (type == element_type::DOUBLE) {
        end = std::to_chars(digits, end, value.get_double().value_unsafe()).ptr;
      } else {
        break;
      }
      return ConvertLeafString<kAppend>(
          node, std::string_view(digits, static_cast<size_t>(end - digits)), builder);
    }
    case TypeId::kString:
      if (type == element_type::STRING) {
        if constexpr (kAppend) {
          builder->AppendBytes(value.get_string().value_unsafe());
        }
        return true;
      }
      if constexpr (kAppend) {
        scratch_.clear();
        // A number's own text was taken above; only objects and arrays hold numbers to come.
        if (type == element_type::OBJECT || type == element_type::ARRAY) {
          AppendValueJson(value, &scratch_);
        } else {
          AppendElementJson(value, &scratch_);
        }
        builder->AppendBytes(scratch_);
      }
      SkipChildren(value, type);
      return true;
    case TypeId::kBinary:
    case TypeId::kDate:
    case TypeId::kTimestampNtz:
      if (type == element_type::STRING) {
        return ConvertLeafString<kAppend>(node, value.get_string().value_unsafe(), builder);
      }
      break;
    case TypeId::kTimestamp:
      if (type == element_type::STRING) {
        return ConvertLeafString<kAppend>(node, value.get_string().value_unsafe(), builder);
      }
      if (type == element_type::INT64) {
        const int64_t seconds = value.get_int64().value_unsafe();
        int64_t micros;
        if (!__builtin_mul_overflow(seconds, int64_t{1'000'000}, &micros)) {
          if constexpr (kAppend) {
            builder->AppendInt(micros);
          }
          return true;
        }
      }
      break;
    case TypeId::kStruct:
      if (type == element_type::OBJECT) {
        return ConvertStruct<kAppend>(node, value.get_object().value_unsafe(), builder);
      }
      break;
    case TypeId::kArray:
      if (type == element_type::ARRAY) {
        bool fits = true;
        TypeNode& element_node = node.children[0];
        for (element item : simdjson::dom::array(value.get_array().value_unsafe())) {
          fits &= Convert<kAppend>(element_node, item, kAppend ? &builder->Child(0) : nullptr);
        }
        if constexpr (kAppend) {
          builder->AppendArray();
        }
        return fits;
      }
      break;
    case TypeId::kMap:
      if (type == element_type::OBJECT) {
        bool fits = true;
        TypeNode& value_node = node.children[1];
        for (simdjson::dom::key_value_pair member :
             simdjson::dom::object(value.get_object().value_unsafe())) {
          if constexpr (kAppend) {
            builder->Child(0).AppendBytes(member.key);
          }
          fits &=
              Convert<kAppend>(value_node, member.value, kAppend ? &builder->Child(1) : nullptr);
        }
        if constexpr (kAppend) {
          builder->AppendMap();
        }
        return fits;
      }
      break;
    default:
      break;
  }
  SkipChildren(value, type);
  if constexpr (kAppend) {
    builder->AppendNull();
  }
  return false;
}

Status JsonReaderImpl::DecodeRecord(simdjson::dom::object object, const text::Line& line) {
  record_sink_.Begin();
  if (record_sink_.CheckBeforeAppend()) {
    // Without a rescued-data column a value that does not fit makes the record malformed: find
    // out before appending anything, so a dropped record leaves no trace.
    const uint32_t generation = top_.Begin();
    const size_t first_number = number_ordinal_;
    bool fits = true;
    for (simdjson::dom::key_value_pair member : object) {
      const int i = top_.Find(member.key);
      if (i < 0 || top_.seen[static_cast<size_t>(i)] == generation ||
          top_builders_[static_cast<size_t>(i)] == nullptr) {
        SkipValue(member.value);
        continue;
      }
      top_.seen[static_cast<size_t>(i)] = generation;
      fits &= Convert<false>(top_.children[static_cast<size_t>(i)], member.value, nullptr);
    }
    if (!fits) {
      return record_sink_.Unfit(line);
    }
    number_ordinal_ = first_number;
  }

  const uint32_t generation = top_.Begin();
  bool fits = true;
  text::RescuedRecord& rescued = record_sink_.Rescued();
  // Iterators, not key_value_pair copies: building the pair on the stack and reading it back
  // stalled store forwarding on every field (the hottest spot of the benchmark).
  for (auto it = object.begin(), end = object.end(); it != end; ++it) {
    const std::string_view key = it.key();
    const element value = it.value();
    const int i = top_.Find(key);
    if (i < 0 || top_.seen[static_cast<size_t>(i)] == generation) {
      if (rescue_) {
        AppendValueJson(value, rescued.AddKey(key));
      }
      SkipValue(value);
      if (i < 0 && options_.report_unknown_fields) {
        NoteUnknownField(key);
      }
      continue;
    }
    top_.seen[static_cast<size_t>(i)] = generation;
    ColumnBuilder* builder = top_builders_[static_cast<size_t>(i)];
    if (builder == nullptr) {
      SkipValue(value);
      continue;
    }
    const size_t first_number = number_ordinal_;
    if (!Convert<true>(top_.children[static_cast<size_t>(i)], value, builder)) {
      fits = false;
      if (rescue_) {
        const size_t after = number_ordinal_;
        number_ordinal_ = first_number;
        AppendValueJson(value, rescued.AddKey(key));
        number_ordinal_ = after;
      }
    }
  }
  for (int i : projected_fields_) {
    if (top_.seen[static_cast<size_t>(i)] != generation) {
      top_builders_[static_cast<size_t>(i)]->AppendNull();
    }
  }
  record_sink_.Finish(fits, line.text);
  return Status::OK();
}

void JsonReaderImpl::LearnShape(simdjson::dom::object object) {
  if (shape_matched_) {
    return;  // the shape is known; one of the line's values did not fit it
  }
  // The record's shape merged into the last one, when the merged shape is one the fast path
  // can take (a record with an unknown field would make it one it cannot); else a shape of
  // its own.
  const int merged = shapes_.MergeIntoLast(object);
  if (merged >= 0) {
    if (ResolveShape(merged)) {
      std::swap(shape_sinks_[static_cast<size_t>(merged)], resolved_sinks_);
      return;
    }
    shapes_.UndoMerge();
  }
  const int learned = shapes_.Learn(object);
  if (learned >= 0) {
    ResolveShape(learned);
    std::swap(shape_sinks_[static_cast<size_t>(learned)], resolved_sinks_);
  }
}

bool JsonReaderImpl::ResolveShape(int i) {
  shape_ = &shapes_.Shape(i);
  sinks_ = &resolved_sinks_;
  resolved_sinks_.targets.assign(shape_->NumNodes(), ShapeTarget{});
  resolved_sinks_.absent.clear();
  // Unknown fields are rescued or reported, and nested values meant for a string or map column
  // are read as such: the DOM path does that.
  resolved_sinks_.usable = ResolveShapeMembers(0, top_, nullptr);
  return resolved_sinks_.usable;
}

bool JsonReaderImpl::ResolveShapeMembers(size_t node, TypeNode& type, ColumnBuilder* builder) {
  std::vector<bool> present(type.names.size(), false);
  size_t member = node + 1;
  for (uint32_t k = 0; k < shape_->NumMembers(node); ++k, member = shape_->Next(member)) {
    const auto it = type.index.find(shape_->Key(member));
    if (it == type.index.end()) {
      return false;
    }
    const size_t i = static_cast<size_t>(it->second);
    present[i] = true;
    ColumnBuilder* sink = builder == nullptr ? top_builders_[i] : &builder->Child(it->second);
    if (!ResolveShapeValue(member, type.children[i], sink)) {
      return false;
    }
  }
  if (builder == nullptr) {
    for (int i : projected_fields_) {
      if (!present[static_cast<size_t>(i)]) {
        sinks_->absent.push_back(top_builders_[static_cast<size_t>(i)]);
      }
    }
    return true;
  }
  for (size_t i = 0; i < present.size(); ++i) {
    if (!present[i]) {
      sinks_->targets[node].absent.push_back(&builder->Child(static_cast<int>(i)));
    }
  }
  return true;
}

bool JsonReaderImpl::ResolveShapeValue(size_t node, TypeNode& type, ColumnBuilder* sink) {
  sinks_->targets[node].node = &type;
  sinks_->targets[node].sink = sink;
  if (sink == nullptr) {
    return true;  // not projected: every value below is passed over
  }
  switch (shape_->Kind(node)) {
    case RecordShape::NodeKind::kScalar:
      return true;  // whether a scalar fits is checked per value
    case RecordShape::NodeKind::kObject:
      return type.id == TypeId::kStruct && ResolveShapeMembers(node, type, sink);
    case RecordShape::NodeKind::kArray:
      return type.id == TypeId::kArray &&
             ResolveShapeValue(node + 1, type.children[0], &sink->Child(0));
  }
  return false;
}

// Whether Convert would take `value` for a column of type `id` without rescuing it (the cases
// DecodeShapedRecord appends itself; the rest go through the DOM path).
bool ShapeValueFits(TypeId id, const ShapeValue& value) {
  switch (value.kind) {
    case ShapeValueKind::kNull:
      return true;
    case ShapeValueKind::kBool:
      return id == TypeId::kBoolean;
    case ShapeValueKind::kInt64:
      switch (id) {
        case TypeId::kInt8:
        case TypeId::kInt16:
        case TypeId::kInt32:
          return IntegerFits(id, value.int_value);
        case TypeId::kInt64:
        case TypeId::kFloat32:
        case TypeId::kFloat64:
          return true;
        default:
          return false;
      }
    case ShapeValueKind::kDouble:
      return id == TypeId::kFloat32 || id == TypeId::kFloat64;
    case ShapeValueKind::kString:
      return id == TypeId::kString;
    case ShapeValueKind::kObject:
    case ShapeValueKind::kArray:
      return false;
    case ShapeValueKind::kAbsent:
      return true;
  }
  return false;
}

// Whether Convert takes a JSON string for a column of type `id` through ConvertLeafString (the
// text parsed as the column's type: a timestamp, a date, a decimal, base64, NaN/Infinity).
bool ConvertsFromString(TypeId id) {
  switch (id) {
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
    case TypeId::kBinary:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

bool JsonReaderImpl::CheckShapeValues(size_t node, ShapeValue*& value) {
  ShapeValue& v = *value++;
  if (v.kind == ShapeValueKind::kAbsent) {
    return true;
  }
  if (v.kind == ShapeValueKind::kObject) {
    size_t member = node + 1;
    for (uint32_t k = 0; k < shape_->NumMembers(node); ++k, member = shape_->Next(member)) {
      if (!CheckShapeValues(member, value)) {
        return false;
      }
    }
    return true;
  }
  if (v.kind == ShapeValueKind::kArray) {
    for (uint32_t e = 0; e < v.count; ++e) {
      if (!CheckShapeValues(node + 1, value)) {
        return false;
      }
    }
    return true;
  }
  const ShapeTarget& target = sinks_->targets[node];
  if (target.sink == nullptr || ShapeValueFits(target.node->id, v)) {
    return true;
  }
  const TypeId id = target.node->id;
  if (v.kind != ShapeValueKind::kString || !ConvertsFromString(id)) {
    return false;
  }
  if (id == TypeId::kTimestamp || id == TypeId::kTimestampNtz) {
    if (!temporal_.ParseTimestamp(v.text, id == TypeId::kTimestampNtz, &v.int_value)) {
      return false;
    }
    v.kind = ShapeValueKind::kInt64;
    return true;
  }
  return ConvertLeafString<false>(*target.node, v.text, nullptr);
}

void JsonReaderImpl::AppendShapeValues(size_t node, const ShapeValue*& value) {
  const ShapeValue& v = *value++;
  const ShapeTarget& target = sinks_->targets[node];
  ColumnBuilder* sink = target.sink;
  switch (v.kind) {
    case ShapeValueKind::kObject: {
      size_t member = node + 1;
      for (uint32_t k = 0; k < shape_->NumMembers(node); ++k, member = shape_->Next(member)) {
        AppendShapeValues(member, value);
      }
      if (sink != nullptr) {
        for (ColumnBuilder* absent : target.absent) {
          absent->AppendNull();
        }
        sink->AppendStruct();
      }
      return;
    }
    case ShapeValueKind::kArray:
      for (uint32_t e = 0; e < v.count; ++e) {
        AppendShapeValues(node + 1, value);
      }
      if (sink != nullptr) {
        sink->AppendArray();
      }
      return;
    default:
      break;
  }
  if (sink == nullptr) {
    return;
  }
  const TypeId id = target.node->id;
  switch (v.kind) {
    case ShapeValueKind::kNull:
    case ShapeValueKind::kAbsent:
      sink->AppendNull();
      break;
    case ShapeValueKind::kBool:
      sink->AppendBoolean(v.bool_value);
      break;
    case ShapeValueKind::kInt64:
      if (id == TypeId::kFloat32 || id == TypeId::kFloat64) {
        sink->AppendDouble(static_cast<double>(v.int_value));
      } else {
        sink->AppendInt(v.int_value);
      }
      break;
    case ShapeValueKind::kDouble:
      sink->AppendDouble(v.double_value);
      break;
    case ShapeValueKind::kString:
      if (id == TypeId::kString) {
        sink->AppendBytes(v.text);
      } else {
        ConvertLeafString<true>(*target.node, v.text, sink);
      }
      break;
    case ShapeValueKind::kObject:
    case ShapeValueKind::kArray:
      break;
  }
}

bool JsonReaderImpl::DecodeShapedRecord(const text::Line& line) {
  const int matched = shapes_.Match(line.text, /*parse_doubles=*/true, &shape_values_);
  shape_matched_ = matched >= 0;
  if (!shape_matched_) {
    return false;
  }
  shape_ = &shapes_.Shape(matched);
  sinks_ = &shape_sinks_[static_cast<size_t>(matched)];
  if (!sinks_->usable) {
    return false;
  }
  // Every value is checked before anything is appended, so a line left to the DOM path has
  // appended nothing. Strings for typed columns are checked by the function Convert calls for
  // them.
  ShapeValue* checked = shape_values_.data() + 1;  // past the record's kObject
  size_t member = 1;
  for (uint32_t k = 0; k < shape_->NumMembers(0); ++k, member = shape_->Next(member)) {
    if (!CheckShapeValues(member, checked)) {
      return false;
    }
  }
  record_sink_.Begin();
  const ShapeValue* next = shape_values_.data() + 1;
  member = 1;
  for (uint32_t k = 0; k < shape_->NumMembers(0); ++k, member = shape_->Next(member)) {
    AppendShapeValues(member, next);
  }
  for (ColumnBuilder* sink : sinks_->absent) {
    sink->AppendNull();
  }
  record_sink_.Finish(/*fits=*/true, line.text);
  return true;
}

Status JsonReaderImpl::CorruptRecord(std::string_view raw, const text::Line& line,
                                     std::string_view reason) {
  record_sink_.Begin();
  return record_sink_.Corrupt(raw, line, reason);
}

Status JsonReaderImpl::ParseAndDecode(const text::Line& line) {
  element root;
  std::string_view parsed;
  const simdjson::error_code error =
      ParseJsonRecord(parser_, line.text, lenient_, &rewritten_, &root, &parsed, &overflow_);
  if (error != simdjson::SUCCESS) {
    // FAILFAST names where the text goes wrong: its line and byte offset in the file.
    const text::Line where =
        options_.mode == ParseMode::kFailFast
            ? PositionOf(line, JsonErrorOffset(line.text, options_.max_nesting_depth))
            : line;
    return CorruptRecord(line.text, where, simdjson::error_message(error));
  }
  track_numbers_ = exact_numbers_ || !overflow_.ordinals.empty();
  if (track_numbers_) {
    LexJsonNumbers(parsed, &number_tokens_);
    number_ordinal_ = 0;
  }
  if (root.type() == element_type::OBJECT) {
    if (!options_.multi_line) {
      LearnShape(root.get_object().value_unsafe());
    }
    return DecodeRecord(root.get_object().value_unsafe(), line);
  }
  if (root.type() == element_type::ARRAY) {
    simdjson::dom::array array = root.get_array().value_unsafe();
    for (element item : array) {
      if (item.type() != element_type::OBJECT) {
        return CorruptRecord(line.text, line, "an array element is not a JSON object");
      }
    }
    pending_next_ = array.begin();
    pending_end_ = array.end();
    pending_line_ = line;
    return DrainPending();
  }
  return CorruptRecord(line.text, line, "the record is not a JSON object");
}

Status JsonReaderImpl::DrainPending() {
  while (*pending_next_ != *pending_end_ && record_sink_.BatchRows() < options_.batch_size) {
    element item = **pending_next_;
    ++*pending_next_;
    TRIBUTARY_RETURN_NOT_OK(DecodeRecord(item.get_object().value_unsafe(), pending_line_));
  }
  if (*pending_next_ == *pending_end_) {
    pending_next_.reset();
    pending_end_.reset();
  }
  return Status::OK();
}

Status JsonReaderImpl::DecodeMultiLine() {
  multi_line_done_ = true;
  // The whole file is one document: gather its lines (counting them) back into one buffer.
  text::Line line;
  int64_t blank = 0;
  bool too_long = false;
  while (lines_.Next(&line)) {
    ++metrics_.num_lines;
    blank += text::IsBlank(line.text) ? 1 : 0;
    too_long |= line.truncated || document_.size() + line.text.size() + 1 >
                                      static_cast<size_t>(options_.max_record_bytes);
    if (too_long) {
      continue;  // counted, not kept: the document is malformed anyway
    }
    doc_lines_.push_back(DocLine{document_.size(), text::Line{{}, line.number, line.offset}});
    document_.append(line.text);
    document_.push_back('\n');
  }
  TRIBUTARY_RETURN_NOT_OK(lines_.status());
  metrics_.num_bytes = lines_.Position();
  if (too_long) {
    return CorruptRecord(document_, text::Line{document_, 1, 0}, TooLong());
  }
  if (blank == metrics_.num_lines) {
    metrics_.num_blank_lines = blank;
    return Status::OK();
  }
  const size_t size = document_.size();
  document_.append(text::kLinePadding, ' ');
  return ParseAndDecode(text::Line{std::string_view(document_.data(), size), 1, 0});
}

Result<columnar::RecordBatchPtr> JsonReaderImpl::Next() {
  record_sink_.StartBatch();
  if (pending_next_.has_value()) {
    TRIBUTARY_RETURN_NOT_OK(DrainPending());
  }
  if (options_.multi_line) {
    if (!multi_line_done_) {
      TRIBUTARY_RETURN_NOT_OK(DecodeMultiLine());
    }
  } else {
    text::Line line;
    const int64_t batch_start = lines_.Position();
    while (record_sink_.BatchRows() < options_.batch_size && lines_.Next(&line)) {
      ++metrics_.num_lines;
      if (record_sink_.BatchRows() == kRowsBeforeReserve) {
        ReserveRestOfBatch(lines_.Position() - batch_start);
      }
      if (line.truncated) {
        TRIBUTARY_RETURN_NOT_OK(CorruptRecord(line.text, line, TooLong()));
        continue;
      }
      if (DecodeShapedRecord(line)) {
        continue;
      }
      if (text::IsBlank(line.text)) {
        ++metrics_.num_blank_lines;
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(ParseAndDecode(line));
    }
    TRIBUTARY_RETURN_NOT_OK(lines_.status());
    metrics_.num_bytes = lines_.Position();
  }
  if (record_sink_.BatchRows() == 0) {
    // Reading stops early only on a full batch, so an empty one means the input has ended.
    return nullptr;
  }
  return record_sink_.FinishBatch();
}

void JsonReaderImpl::ReserveRestOfBatch(int64_t batch_bytes) {
  const int64_t rows = record_sink_.BatchRows();
  int64_t rest = options_.batch_size - rows;
  if (size_hint_ >= 0 && batch_bytes > 0) {
    const int64_t bytes_left = std::max<int64_t>(size_hint_ - lines_.Position(), 0);
    rest = std::min(rest, bytes_left / std::max<int64_t>(batch_bytes / rows, 1) + 1);
  } else {
    // Compressed input has no size to bound a large batch_size by: reserve a bounded step.
    rest = std::min(rest, rows * kRowsBeforeReserve);
  }
  record_sink_.ReserveRowsLikeSoFar(rest);
}

Status ValidateOptions(const JsonReadOptions& options) {
  if (options.batch_size <= 0) {
    return Status::InvalidArgument(
        fmt::format("JSON reader: batch_size must be positive, got {}", options.batch_size));
  }
  if (options.max_record_bytes <= 0) {
    return Status::InvalidArgument(fmt::format(
        "JSON reader: max_record_bytes must be positive, got {}", options.max_record_bytes));
  }
  if (options.line_sep == '\0' || options.line_sep == '"') {
    return Status::InvalidArgument("JSON reader: lineSep must not be NUL or '\"'");
  }
  if (options.max_nesting_depth <= 0) {
    return Status::InvalidArgument(fmt::format(
        "JSON reader: max_nesting_depth must be positive, got {}", options.max_nesting_depth));
  }
  return text::ValidateTextReadOptions(options, "JSON reader");
}

}  // namespace

Result<columnar::SchemaPtr> JsonOutputSchema(const columnar::Schema& schema,
                                             const JsonReadOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(ValidateOptions(options));
  return text::TextReaderOutputSchema(schema, options.column_name_of_corrupt_record,
                                      options.rescued_data_column, "JSON reader");
}

Result<std::unique_ptr<JsonReader>> JsonReader::Make(std::string path, std::string_view data,
                                                     columnar::SchemaPtr schema,
                                                     const JsonReadOptions& options,
                                                     const std::vector<std::string>& columns,
                                                     columnar::MemoryPool* pool) {
  return text::MakeTextReader<JsonReader, JsonReaderImpl>(std::move(path), text::CopiedInput(data),
                                                          schema, options, columns, pool,
                                                          JsonOutputSchema, "JSON reader");
}

Result<std::unique_ptr<JsonReader>> JsonReader::Open(storage::FileSystem& fs,
                                                     const std::string& path,
                                                     columnar::SchemaPtr schema,
                                                     const JsonReadOptions& options,
                                                     const std::vector<std::string>& columns,
                                                     columnar::MemoryPool* pool) {
  return text::MakeTextReader<JsonReader, JsonReaderImpl>(
      path, text::FileInput(fs), schema, options, columns, pool, JsonOutputSchema, "JSON reader");
}

}  // namespace tributary::json
