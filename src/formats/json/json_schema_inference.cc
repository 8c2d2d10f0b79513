// JSON schema inference (Spark's JsonInferSchema): one pass over a sample of records that
// widens a mutable tree of what each path held, then turns the tree into a schema.

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "expr/temporal_parsing.h"
#include "formats/json/json_reader.h"
#include "formats/json/json_value_text.h"
#include "formats/json/lenient_json.h"
#include "formats/json/record_shape.h"
#include "formats/text/input_stream.h"
#include "formats/text/line_reader.h"
#include "formats/text/schema_hints.h"
#include "formats/text/schema_inference.h"
#include "formats/text/temporal_formats.h"

namespace tributary::json {
namespace {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using simdjson::dom::element;
using simdjson::dom::element_type;

// What one path of the records held: the widened type of its scalars, and whether it held
// objects (with their fields) or arrays (with their elements). Mixed kinds widen to string.
struct InferNode {
  DataTypePtr scalar;
  bool object = false;
  // Fields in order of first appearance (sorted by name only when the schema is made).
  std::vector<std::pair<std::string, std::unique_ptr<InferNode>>> fields;
  std::unique_ptr<InferNode> element;

  // The child for field `key`, created on first sight. Records of one shape list their fields
  // in the same order, so the field after the last one found is tried first: most lookups are
  // one comparison, where a search by name compared several keys per field.
  InferNode& Field(std::string_view key) {
    if (next_field_ < fields.size() && fields[next_field_].first == key) {
      return *fields[next_field_++].second;
    }
    auto it = index_.find(key);
    if (it == index_.end()) {
      it = index_.emplace(std::string(key), fields.size()).first;
      fields.emplace_back(std::string(key), std::make_unique<InferNode>());
    }
    next_field_ = it->second + 1;
    return *fields[it->second].second;
  }

 private:
  size_t next_field_ = 0;
  std::map<std::string, size_t, std::less<>> index_;
};

// Java BigDecimal's precision and scale of a JSON number's text ("1.50": 3 and 2, "1e3": 1 and
// -3, "0.001": 1 and 3); false when it is not one.
bool DecimalShape(std::string_view text, int* precision, int* scale) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    ++i;
  }
  int digits = 0;
  int fraction = 0;
  bool seen_point = false;
  bool leading = true;
  bool any = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      any = true;
      fraction += seen_point ? 1 : 0;
      if (leading && c == '0') {
        continue;
      }
      leading = false;
      ++digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    if (!expr::ParseInt64(text.substr(i + 1), &exponent) || exponent > 1000 || exponent < -1000) {
      return false;
    }
    i = text.size();
  }
  if (!any || i != text.size()) {
    return false;
  }
  *precision = std::max(digits, 1);
  *scale = fraction - static_cast<int>(exponent);
  return true;
}

// prefersDecimal for a fractional number: decimal(max(p, s), s) when that fits 38 digits (a
// negative scale is folded into the precision), else double, as Spark's JsonInferSchema.
DataTypePtr DecimalOrDouble(std::string_view text) {
  int precision = 0;
  int scale = 0;
  if (DecimalShape(text, &precision, &scale)) {
    if (scale < 0) {
      precision -= scale;
      scale = 0;
    }
    auto type = DataType::Decimal(std::max(precision, scale), scale);
    if (type.ok()) {
      return *type;
    }
  }
  return DataType::Float64();
}

// prefersDecimal for a string: decimal(p, s) of its text when valid, else nullptr.
DataTypePtr DecimalOfString(std::string_view text) {
  int precision = 0;
  int scale = 0;
  if (!DecimalShape(text, &precision, &scale) || scale < 0 || scale > precision) {
    return nullptr;
  }
  auto type = DataType::Decimal(precision, scale);
  return type.ok() ? *type : nullptr;
}

class Inferrer {
 public:
  Inferrer(const JsonReadOptions& options, text::TemporalFormats temporal)
      : infer_timestamp_(options.infer_timestamp || !options.timestamp_format.empty()),
        infer_date_(!options.date_format.empty()),
        temporal_(std::move(temporal)),
        lenient_(LenientOptionsOf(options)),
        prefers_decimal_(options.prefers_decimal),
        line_sep_(options.line_sep),
        max_record_bytes_(static_cast<size_t>(options.max_record_bytes)) {}

  // Types are shared singletons: an equal pointer is the same type, and the common case (the
  // type the path already has) touches no reference count.
  void AddScalar(InferNode& node, const DataTypePtr& type) {
    if (node.scalar == nullptr) {
      node.scalar = type;
    } else if (node.scalar != type) {
      node.scalar = text::WidenInferredTypes(node.scalar, type);
    }
  }

  void AddString(InferNode& node, std::string_view text) {
    DataTypePtr decimal;
    if (prefers_decimal_ && (decimal = DecimalOfString(text)) != nullptr) {
      AddScalar(node, decimal);
    } else if (infer_timestamp_ && temporal_.IsTimestamp(text)) {
      AddScalar(node, DataType::Timestamp());
    } else if (infer_date_ && temporal_.IsDate(text)) {
      AddScalar(node, DataType::Date());
    } else {
      AddScalar(node, string_);
    }
  }

  void Add(InferNode& node, element value) {
    switch (value.type()) {
      case element_type::NULL_VALUE:
        AddScalar(node, null_);
        return;
      case element_type::BOOL:
        AddScalar(node, boolean_);
        return;
      case element_type::INT64: {
        const std::string_view text = NextNumberText();
        if (Overflowed()) {
          // Out of range (replaced by 0 to parse): as Spark infers a BIG_INTEGER or a huge float.
          const bool integer = text.find_first_of(".eE") == std::string_view::npos;
          AddScalar(node, integer || prefers_decimal_ ? DecimalOrDouble(text) : float64_);
          return;
        }
        AddScalar(node, int64_);
        return;
      }
      case element_type::UINT64:
        NextNumberText();
        AddScalar(node, DataType::Decimal(20, 0).ValueOrDie());
        return;
      case element_type::DOUBLE:
        if (prefers_decimal_) {
          AddScalar(node, DecimalOrDouble(NextNumberText()));
        } else {
          AddScalar(node, float64_);
        }
        return;
      case element_type::STRING:
        AddString(node, value.get_string().value_unsafe());
        return;
      case element_type::OBJECT:
        AddObject(node, value.get_object().value_unsafe());
        return;
      case element_type::ARRAY:
        if (node.element == nullptr) {
          node.element = std::make_unique<InferNode>();
        }
        for (element item : simdjson::dom::array(value.get_array().value_unsafe())) {
          Add(*node.element, item);
        }
        return;
    }
  }

  void AddObject(InferNode& node, simdjson::dom::object object) {
    node.object = true;
    for (auto it = object.begin(), end = object.end(); it != end; ++it) {
      Add(node.Field(it.key()), it.value());
    }
  }

  // The type of everything `node` held, before FinalizeInferredType.
  static DataTypePtr TypeOf(const InferNode& node) {
    DataTypePtr type = node.scalar;
    const auto widen = [&type](const DataTypePtr& other) {
      type = type == nullptr ? other : text::WidenInferredTypes(type, other);
    };
    if (node.object) {
      widen(DataType::Struct(FieldsOf(node)));
    }
    if (node.element != nullptr) {
      DataTypePtr element = TypeOf(*node.element);
      widen(DataType::Array(element == nullptr ? DataType::Null() : element));
    }
    return type == nullptr ? DataType::Null() : type;
  }

  // The fields of `node`, sorted by name (Spark's JSON inference sorts them).
  static std::vector<Field> FieldsOf(const InferNode& node) {
    std::vector<const std::pair<std::string, std::unique_ptr<InferNode>>*> sorted;
    sorted.reserve(node.fields.size());
    for (const auto& field : node.fields) {
      sorted.push_back(&field);
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    std::vector<Field> fields;
    fields.reserve(sorted.size());
    for (const auto* field : sorted) {
      fields.emplace_back(field->first, TypeOf(*field->second));
    }
    return fields;
  }

  // Adds the records of one file; returns the bytes sampled.
  Result<int64_t> AddFile(simdjson::dom::parser& parser, std::unique_ptr<text::InputStream> input,
                          bool multi_line, InferNode& root) {
    text::LineReader lines(std::move(input), size_t{4} << 20,
                           text::LineOptions{line_sep_, max_record_bytes_});
    text::Line line;
    std::string document;
    bool too_long = false;
    while (lines.Next(&line)) {
      if (multi_line) {
        // A document past max_record_bytes is skipped, as the reader rejects it.
        too_long |= line.truncated || document.size() + line.text.size() + 1 > max_record_bytes_;
        if (!too_long) {
          document.append(line.text);
          document.push_back('\n');
        }
      } else if (!line.truncated && !text::IsBlank(line.text) && !AddShapedRecord(line.text)) {
        AddRecord(parser, line.text, root);
      }
    }
    TRIBUTARY_RETURN_NOT_OK(lines.status());
    if (multi_line && !too_long) {
      const size_t size = document.size();
      document.append(text::kLinePadding, ' ');
      AddRecord(parser, std::string_view(document.data(), size), root);
    }
    return lines.Position();
  }

 private:
  void AddRecord(simdjson::dom::parser& parser, std::string_view text, InferNode& root) {
    element value;
    std::string_view parsed;
    if (ParseJsonRecord(parser, text, lenient_, &rewritten_, &value, &parsed, &overflow_) !=
        simdjson::SUCCESS) {
      return;
    }
    number_ordinal_ = 0;
    if (prefers_decimal_ || !overflow_.ordinals.empty()) {
      LexJsonNumbers(parsed, &number_tokens_);
    } else {
      number_tokens_.clear();
    }
    if (value.type() == element_type::OBJECT) {
      AddObject(root, value.get_object().value_unsafe());
      LearnShape(value.get_object().value_unsafe(), root);
    } else if (value.type() == element_type::ARRAY) {
      for (element item : simdjson::dom::array(value.get_array().value_unsafe())) {
        if (item.type() == element_type::OBJECT) {
          AddObject(root, item.get_object().value_unsafe());
        }
      }
    }
  }

  // The shapes of the last records (see record_shape.h) and the node of each of their nodes.
  // Not used with prefersDecimal, whose numbers are typed by their text.
  void LearnShape(simdjson::dom::object object, InferNode& root) {
    if (prefers_decimal_) {
      return;
    }
    // The record was added to the nodes just before: every node of a shape merged from its
    // shape and the last one exists already.
    int learned = shapes_.MergeIntoLast(object);
    if (learned < 0) {
      learned = shapes_.Learn(object);
    }
    if (learned < 0) {
      return;
    }
    shape_ = &shapes_.Shape(learned);
    nodes_ = &shape_nodes_[static_cast<size_t>(learned)];
    nodes_->assign(shape_->NumNodes(), nullptr);
    (*nodes_)[0] = &root;
    ResolveShapeNodes(0);
  }

  // The nodes below shape node `node`, as Add reaches them. The record was added just before,
  // so each exists already.
  void ResolveShapeNodes(size_t node) {
    InferNode& infer = *(*nodes_)[node];
    switch (shape_->Kind(node)) {
      case RecordShape::NodeKind::kScalar:
        return;
      case RecordShape::NodeKind::kObject: {
        size_t member = node + 1;
        for (uint32_t k = 0; k < shape_->NumMembers(node); ++k, member = shape_->Next(member)) {
          (*nodes_)[member] = &infer.Field(shape_->Key(member));
          ResolveShapeNodes(member);
        }
        return;
      }
      case RecordShape::NodeKind::kArray:
        if (infer.element == nullptr) {
          infer.element = std::make_unique<InferNode>();
        }
        (*nodes_)[node + 1] = infer.element.get();
        ResolveShapeNodes(node + 1);
        return;
    }
  }

  // Adds a line of the learned shape without parsing it into a DOM: each value goes to its
  // node as Add would add it. False (nothing added) when the line is not of it.
  bool AddShapedRecord(std::string_view text) {
    const int matched = shapes_.Match(text, /*parse_doubles=*/false, &shape_values_);
    if (matched < 0) {
      return false;
    }
    shape_ = &shapes_.Shape(matched);
    nodes_ = &shape_nodes_[static_cast<size_t>(matched)];
    const ShapeValue* value = shape_values_.data();
    AddShapeValues(0, value);
    return true;
  }

  // Adds the values of shape node `node` from `value` on; moves `value` past them.
  void AddShapeValues(size_t node, const ShapeValue*& value) {
    InferNode& infer = *(*nodes_)[node];
    const ShapeValue& v = *value++;
    switch (v.kind) {
      case ShapeValueKind::kAbsent:
        return;  // a field the record does not have adds nothing
      case ShapeValueKind::kNull:
        AddScalar(infer, null_);
        return;
      case ShapeValueKind::kBool:
        AddScalar(infer, boolean_);
        return;
      case ShapeValueKind::kInt64:
        AddScalar(infer, int64_);
        return;
      case ShapeValueKind::kDouble:
        AddScalar(infer, float64_);
        return;
      case ShapeValueKind::kString:
        AddString(infer, v.text);
        return;
      case ShapeValueKind::kObject: {
        infer.object = true;
        size_t member = node + 1;
        for (uint32_t k = 0; k < shape_->NumMembers(node); ++k, member = shape_->Next(member)) {
          AddShapeValues(member, value);
        }
        return;
      }
      case ShapeValueKind::kArray:
        for (uint32_t e = 0; e < v.count; ++e) {
          AddShapeValues(node + 1, value);
        }
        return;
    }
  }

  RecordShapeCache shapes_;
  std::array<std::vector<InferNode*>, RecordShapeCache::kCapacity> shape_nodes_;
  // The shape AddShapeValues and ResolveShapeNodes work on, and its nodes.
  const RecordShape* shape_ = nullptr;
  std::vector<InferNode*>* nodes_ = nullptr;
  std::vector<ShapeValue> shape_values_;

  const DataTypePtr null_ = DataType::Null();
  const DataTypePtr boolean_ = DataType::Boolean();
  const DataTypePtr int64_ = DataType::Int64();
  const DataTypePtr float64_ = DataType::Float64();
  const DataTypePtr string_ = DataType::String();
  const bool infer_timestamp_;
  const bool infer_date_;
  const text::TemporalFormats temporal_;
  const LenientJsonOptions lenient_;
  std::string rewritten_;
  // Numbers of the record beyond int64, uint64 and double, read as 0 by the parser.
  OverflowNumbers overflow_;
  // With prefersDecimal or overflow_: the number tokens of the record, in the order Add visits
  // them.
  const bool prefers_decimal_;
  const char line_sep_;
  const size_t max_record_bytes_;
  std::vector<std::string_view> number_tokens_;
  size_t number_ordinal_ = 0;

  std::string_view NextNumberText() {
    return number_ordinal_ < number_tokens_.size() ? number_tokens_[number_ordinal_++]
                                                   : std::string_view();
  }
  // Whether the number NextNumberText just returned was out of range.
  bool Overflowed() const {
    return !overflow_.ordinals.empty() && number_ordinal_ > 0 &&
           overflow_.Contains(number_ordinal_ - 1);
  }
};

Result<columnar::SchemaPtr> FinishSchema(const InferNode& root, const JsonReadOptions& options) {
  std::vector<Field> fields;
  for (const Field& field : Inferrer::FieldsOf(root)) {
    DataTypePtr type = text::FinalizeInferredType(field.Type());
    if (!options.infer_column_types) {
      type = text::LeavesAsString(type);
    }
    fields.push_back(field.WithType(std::move(type)));
  }
  columnar::Schema schema(std::move(fields));
  TRIBUTARY_ASSIGN_OR_RAISE(auto hints, text::ParseSchemaHints(options.schema_hints));
  return text::ApplySchemaHints(schema, hints);
}

// Sets up the parser and the inferrer for `options`.
Result<Inferrer> MakeInferrer(simdjson::dom::parser& parser, const JsonReadOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(
      text::TemporalFormats temporal,
      text::TemporalFormats::Make(options.timestamp_format, options.date_format, options.time_zone,
                                  "JSON inference"));
  if (options.max_nesting_depth <= 0 ||
      parser.allocate(simdjson::dom::MINIMAL_DOCUMENT_CAPACITY,
                      static_cast<size_t>(options.max_nesting_depth)) != simdjson::SUCCESS) {
    return Status::InvalidArgument("JSON inference: cannot set up a parser for max_nesting_depth " +
                                   std::to_string(options.max_nesting_depth));
  }
  return Inferrer(options, std::move(temporal));
}

// Adds what `from` held to `into`, as if `into`'s records had been followed by `from`'s: the
// tree a pass over both would have built, since widening neither depends on the order of the
// types nor on how they are grouped, and fields are sorted when the schema is made.
void MergeInto(InferNode& into, const InferNode& from) {
  if (from.scalar != nullptr) {
    into.scalar = into.scalar == nullptr || into.scalar == from.scalar
                      ? from.scalar
                      : text::WidenInferredTypes(into.scalar, from.scalar);
  }
  into.object = into.object || from.object;
  for (const auto& [key, child] : from.fields) {
    MergeInto(into.Field(key), *child);
  }
  if (from.element != nullptr) {
    if (into.element == nullptr) {
      into.element = std::make_unique<InferNode>();
    }
    MergeInto(*into.element, *from.element);
  }
}

// InferJsonSchema over `paths` (at most the sample's file count) on `threads` workers: each
// file is inferred into a tree of its own by the next free worker, and the trees are merged in
// file order. The sample ends where a serial pass ends it, at the first file whose predecessors
// sampled sample_size_bytes: a worker takes no file past the end once the files before it are
// known, and an error is the one a serial pass meets first.
Result<columnar::SchemaPtr> InferFilesInParallel(storage::FileSystem& fs,
                                                 std::span<const std::string> paths,
                                                 const JsonReadOptions& options, int threads) {
  struct FileResult {
    InferNode root;
    Result<int64_t> sampled = Status::Internal("not inferred");
    bool done = false;
  };
  std::vector<FileResult> results(paths.size());
  std::mutex mutex;
  size_t next = 0;            // the next file a worker takes
  size_t end = paths.size();  // files from here on are past the sample
  size_t known = 0;           // files [0, known) are done
  int64_t known_bytes = 0;    // what they sampled
  const auto work = [&] {
    simdjson::dom::parser parser;
    std::unique_lock lock(mutex);
    while (next < end) {
      const size_t index = next++;
      FileResult& result = results[index];
      lock.unlock();
      // An inferrer of its own per file: the shapes it caches point into the tree they were
      // resolved against, which is this file's.
      if (Result<Inferrer> inferrer = MakeInferrer(parser, options); !inferrer.ok()) {
        result.sampled = inferrer.status();
      } else if (auto input = text::InputStream::Open(fs, paths[index]); !input.ok()) {
        result.sampled = input.status();
      } else {
        result.sampled =
            inferrer->AddFile(parser, std::move(*input), options.multi_line, result.root);
      }
      lock.lock();
      result.done = true;
      while (known < end && results[known].done) {
        const FileResult& known_result = results[known++];
        if (!known_result.sampled.ok()) {
          end = known;  // a serial pass stops at the first error
          break;
        }
        known_bytes += *known_result.sampled;
        if (known_bytes >= options.sample_size_bytes) {
          end = known;
          break;
        }
      }
    }
  };
  const size_t workers = std::min(paths.size(), static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t i = 1; i < workers; ++i) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread& worker : pool) {
    worker.join();
  }
  InferNode root;
  for (size_t file = 0; file < end; ++file) {
    TRIBUTARY_RETURN_NOT_OK(results[file].sampled.status());
    MergeInto(root, results[file].root);
  }
  return FinishSchema(root, options);
}

}  // namespace

Result<columnar::SchemaPtr> InferJsonSchema(storage::FileSystem& fs,
                                            const std::vector<std::string>& paths,
                                            const JsonReadOptions& options, int threads) {
  const size_t max_files =
      std::min(paths.size(), static_cast<size_t>(std::max<int64_t>(0, options.sample_size_files)));
  if (threads > 1 && max_files > 1) {
    return InferFilesInParallel(fs, {paths.data(), max_files}, options, threads);
  }
  simdjson::dom::parser parser;
  TRIBUTARY_ASSIGN_OR_RAISE(Inferrer inferrer, MakeInferrer(parser, options));
  InferNode root;
  int64_t bytes = 0;
  for (size_t file = 0; file < max_files && bytes < options.sample_size_bytes; ++file) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto input, text::InputStream::Open(fs, paths[file]));
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t sampled,
                              inferrer.AddFile(parser, std::move(input), options.multi_line, root));
    bytes += sampled;
  }
  return FinishSchema(root, options);
}

Result<columnar::SchemaPtr> InferJsonSchemaFromText(const std::vector<std::string_view>& files,
                                                    const JsonReadOptions& options) {
  simdjson::dom::parser parser;
  TRIBUTARY_ASSIGN_OR_RAISE(Inferrer inferrer, MakeInferrer(parser, options));
  InferNode root;
  for (std::string_view file : files) {
    TRIBUTARY_RETURN_NOT_OK(
        inferrer
            .AddFile(parser,
                     text::InputStream::FromBuffer("<memory>", file, text::InputCompression::kNone),
                     options.multi_line, root)
            .status());
  }
  return FinishSchema(root, options);
}

}  // namespace tributary::json
