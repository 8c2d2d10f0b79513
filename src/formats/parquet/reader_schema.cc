#include "formats/parquet/reader_schema.h"

#include <fmt/format.h>

namespace tributary::parquet {

using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;

namespace {

using Kind = LogicalType::Kind;

bool Is(const SchemaElement& e, Kind kind, ConvertedType converted) {
  return (e.logical_type && e.logical_type->kind == kind) ||
         (e.converted_type && *e.converted_type == converted);
}

Result<DataTypePtr> DecimalType(const SchemaElement& e) {
  int precision = e.precision.value_or(0);
  int scale = e.scale.value_or(0);
  if (e.logical_type && e.logical_type->kind == Kind::kDecimal) {
    precision = e.logical_type->precision;
    scale = e.logical_type->scale;
  }
  auto type = DataType::Decimal(precision, scale);
  if (!type.ok()) {
    return Status::NotImplemented(
        fmt::format("column '{}': decimal({},{}) is outside what tributary supports", e.name,
                    precision, scale));
  }
  return type;
}

// The tributary type of a leaf and how its physical values convert.
Status MapLeaf(const SchemaElement& e, SchemaNode* node) {
  if (!e.type) {
    return Status::Corruption(
        fmt::format("schema element '{}' has neither type nor children", e.name));
  }
  node->physical_type = *e.type;
  node->type_length = e.type_length.value_or(0);
  const LogicalType* logical = e.logical_type ? &*e.logical_type : nullptr;
  const bool is_decimal = Is(e, Kind::kDecimal, ConvertedType::kDecimal);
  auto set = [&](DataTypePtr type, LeafConversion conversion) {
    node->type = std::move(type);
    node->conversion = conversion;
    return Status::OK();
  };
  switch (*e.type) {
    case PhysicalType::kBoolean:
      return set(DataType::Boolean(), LeafConversion::kIdentity);
    case PhysicalType::kInt32: {
      if (is_decimal) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto type, DecimalType(e));
        return set(type, LeafConversion::kInt32ToDecimal);
      }
      if (Is(e, Kind::kDate, ConvertedType::kDate)) {
        return set(DataType::Date(), LeafConversion::kIdentity);
      }
      int bits = 32;
      bool is_signed = true;
      if (logical && logical->kind == Kind::kInteger) {
        bits = logical->bit_width;
        is_signed = logical->is_signed;
      } else if (e.converted_type) {
        switch (*e.converted_type) {
          case ConvertedType::kInt8:
            bits = 8;
            break;
          case ConvertedType::kInt16:
            bits = 16;
            break;
          case ConvertedType::kUint8:
            bits = 8;
            is_signed = false;
            break;
          case ConvertedType::kUint16:
            bits = 16;
            is_signed = false;
            break;
          case ConvertedType::kUint32:
            is_signed = false;
            break;
          default:
            break;
        }
      }
      // Unsigned types widen to the next signed type, as Spark reads them.
      if (bits == 8) {
        return is_signed ? set(DataType::Int8(), LeafConversion::kInt32ToInt8)
                         : set(DataType::Int16(), LeafConversion::kInt32ToInt16);
      }
      if (bits == 16) {
        return is_signed ? set(DataType::Int16(), LeafConversion::kInt32ToInt16)
                         : set(DataType::Int32(), LeafConversion::kIdentity);
      }
      return is_signed ? set(DataType::Int32(), LeafConversion::kIdentity)
                       : set(DataType::Int64(), LeafConversion::kUint32ToInt64);
    }
    case PhysicalType::kInt64: {
      if (is_decimal) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto type, DecimalType(e));
        return set(type, LeafConversion::kInt64ToDecimal);
      }
      if (logical && logical->kind == Kind::kTimestamp) {
        auto type = logical->is_adjusted_to_utc ? DataType::Timestamp() : DataType::TimestampNtz();
        switch (logical->unit) {
          case TimeUnit::kMillis:
            return set(type, LeafConversion::kMillisToMicros);
          case TimeUnit::kNanos:
            return set(type, LeafConversion::kNanosToMicros);
          default:
            return set(type, LeafConversion::kIdentity);
        }
      }
      // Only without a logical type do the legacy converted types mean UTC timestamps.
      if (!logical && e.converted_type == ConvertedType::kTimestampMillis) {
        return set(DataType::Timestamp(), LeafConversion::kMillisToMicros);
      }
      if (!logical && e.converted_type == ConvertedType::kTimestampMicros) {
        return set(DataType::Timestamp(), LeafConversion::kIdentity);
      }
      const bool is_unsigned =
          (logical && logical->kind == Kind::kInteger && !logical->is_signed) ||
          (!logical && e.converted_type == ConvertedType::kUint64);
      if (is_unsigned) {
        return set(DataType::Decimal(20, 0).ValueOrDie(), LeafConversion::kUint64ToDecimal);
      }
      return set(DataType::Int64(), LeafConversion::kIdentity);
    }
    case PhysicalType::kInt96:
      return set(DataType::Timestamp(), LeafConversion::kInt96ToTimestamp);
    case PhysicalType::kFloat:
      return set(DataType::Float32(), LeafConversion::kIdentity);
    case PhysicalType::kDouble:
      return set(DataType::Float64(), LeafConversion::kIdentity);
    case PhysicalType::kByteArray:
      if (is_decimal) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto type, DecimalType(e));
        return set(type, LeafConversion::kBytesToDecimal);
      }
      if (Is(e, Kind::kString, ConvertedType::kUtf8) || Is(e, Kind::kEnum, ConvertedType::kEnum) ||
          Is(e, Kind::kJson, ConvertedType::kJson)) {
        return set(DataType::String(), LeafConversion::kIdentity);
      }
      return set(DataType::Binary(), LeafConversion::kIdentity);
    case PhysicalType::kFixedLenByteArray:
      if (node->type_length <= 0) {
        return Status::Corruption(fmt::format("FIXED_LEN_BYTE_ARRAY column '{}' has type_length {}",
                                              e.name, node->type_length));
      }
      if (is_decimal) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto type, DecimalType(e));
        return set(type, LeafConversion::kBytesToDecimal);
      }
      if (logical && logical->kind == Kind::kFloat16 && node->type_length == 2) {
        return set(DataType::Float32(), LeafConversion::kFloat16ToFloat);
      }
      if (logical && logical->kind == Kind::kUuid && node->type_length == 16) {
        return set(DataType::String(), LeafConversion::kUuidToString);
      }
      return set(DataType::Binary(), LeafConversion::kFixedToBinary);
  }
  return Status::Corruption(fmt::format("schema element '{}' has unknown physical type {}", e.name,
                                        static_cast<int>(*e.type)));
}

class TreeBuilder {
 public:
  explicit TreeBuilder(const std::vector<SchemaElement>& elements) : elements_(elements) {}

  // Builds the node for elements_[pos_] and its subtree; `def`/`rep` are the parent's levels.
  Result<std::unique_ptr<SchemaNode>> Build(int16_t def, int16_t rep, const std::string& prefix,
                                            int depth) {
    if (pos_ >= elements_.size()) {
      return Status::Corruption("schema: children counts run past the end of the schema list");
    }
    if (depth > 64) {
      return Status::Corruption("schema nested deeper than 64 levels");
    }
    const SchemaElement& e = elements_[pos_++];
    auto node = std::make_unique<SchemaNode>();
    node->name = e.name;
    node->path = prefix.empty() ? e.name : prefix + "." + e.name;
    node->field_id = e.field_id;
    const Repetition repetition = e.repetition_type.value_or(Repetition::kRequired);
    if (repetition == Repetition::kRepeated) {
      // An unannotated repeated field is a required list of that field.
      return BuildRepeated(e, def, rep, std::move(node), depth);
    }
    node->nullable = repetition == Repetition::kOptional;
    node->def_level = static_cast<int16_t>(def + (node->nullable ? 1 : 0));
    node->rep_level = rep;
    return BuildBody(e, std::move(node), depth);
  }

 private:
  // The node for `e` given its levels are already set in `node`.
  Result<std::unique_ptr<SchemaNode>> BuildBody(const SchemaElement& e,
                                                std::unique_ptr<SchemaNode> node, int depth) {
    const int num_children = e.num_children.value_or(0);
    if (num_children < 0) {
      return Status::Corruption(
          fmt::format("schema element '{}' has {} children", e.name, num_children));
    }
    if (!e.num_children || (num_children == 0 && e.type)) {
      node->kind = SchemaNode::Kind::kLeaf;
      TRIBUTARY_RETURN_NOT_OK(MapLeaf(e, node.get()));
      node->leaf_index = static_cast<int>(leaves_.size());
      node->leaves.push_back(node->leaf_index);
      leaves_.push_back(node.get());
      return node;
    }
    const bool is_list = Is(e, Kind::kList, ConvertedType::kList);
    const bool is_map = Is(e, Kind::kMap, ConvertedType::kMap) ||
                        (e.converted_type && *e.converted_type == ConvertedType::kMapKeyValue);
    if ((is_list || is_map) && num_children == 1) {
      return BuildAnnotatedRepeated(e, std::move(node), is_map, depth);
    }
    node->kind = SchemaNode::Kind::kStruct;
    std::vector<Field> fields;
    for (int i = 0; i < num_children; ++i) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto child,
                                Build(node->def_level, node->rep_level, node->path, depth + 1));
      fields.emplace_back(child->name, child->type, child->nullable);
      node->leaves.insert(node->leaves.end(), child->leaves.begin(), child->leaves.end());
      node->children.push_back(std::move(child));
    }
    node->type = DataType::Struct(std::move(fields));
    return node;
  }

  // A LIST- or MAP-annotated group whose only child is the repeated node.
  Result<std::unique_ptr<SchemaNode>> BuildAnnotatedRepeated(const SchemaElement& e,
                                                             std::unique_ptr<SchemaNode> node,
                                                             bool is_map, int depth) {
    if (pos_ >= elements_.size()) {
      return Status::Corruption(fmt::format("list '{}' has no repeated child", e.name));
    }
    const SchemaElement& repeated = elements_[pos_];
    if (repeated.repetition_type.value_or(Repetition::kRequired) != Repetition::kRepeated) {
      // Not a valid LIST/MAP; read it as the struct it is.
      node->kind = SchemaNode::Kind::kStruct;
      TRIBUTARY_ASSIGN_OR_RAISE(auto child,
                                Build(node->def_level, node->rep_level, node->path, depth + 1));
      node->leaves = child->leaves;
      node->type = DataType::Struct({Field(child->name, child->type, child->nullable)});
      node->children.push_back(std::move(child));
      return node;
    }
    node->repeated_def_level = static_cast<int16_t>(node->def_level + 1);
    node->repeated_rep_level = static_cast<int16_t>(node->rep_level + 1);
    const int repeated_children = repeated.num_children.value_or(0);
    if (is_map) {
      ++pos_;  // the repeated key_value group
      if (repeated_children != 2 && repeated_children != 1) {
        return Status::Corruption(
            fmt::format("map '{}' key_value group has {} children", e.name, repeated_children));
      }
      node->kind = SchemaNode::Kind::kMap;
      const std::string path = node->path + "." + repeated.name;
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto key, Build(node->repeated_def_level, node->repeated_rep_level, path, depth + 2));
      std::unique_ptr<SchemaNode> value;
      if (repeated_children == 2) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            value, Build(node->repeated_def_level, node->repeated_rep_level, path, depth + 2));
      }
      if (value == nullptr) {
        return Status::NotImplemented(fmt::format("map '{}' without values", e.name));
      }
      node->type = DataType::Map(key->type, value->type, value->nullable);
      node->leaves = key->leaves;
      node->leaves.insert(node->leaves.end(), value->leaves.begin(), value->leaves.end());
      node->children.push_back(std::move(key));
      node->children.push_back(std::move(value));
      return node;
    }
    node->kind = SchemaNode::Kind::kList;
    // LogicalTypes.md backward-compatibility rules: the repeated field is itself the element
    // when it is primitive, has several fields, or is named "array" or "<list>_tuple".
    const bool element_is_repeated = !repeated.num_children || repeated_children != 1 ||
                                     repeated.name == "array" || repeated.name == e.name + "_tuple";
    std::unique_ptr<SchemaNode> element;
    if (element_is_repeated) {
      const SchemaElement& r = elements_[pos_++];
      element = std::make_unique<SchemaNode>();
      element->name = "element";
      element->path = node->path + "." + r.name;
      element->field_id = r.field_id;
      element->nullable = false;
      element->def_level = node->repeated_def_level;
      element->rep_level = node->repeated_rep_level;
      TRIBUTARY_ASSIGN_OR_RAISE(element, BuildBody(r, std::move(element), depth + 1));
    } else {
      ++pos_;  // the repeated "list" group
      TRIBUTARY_ASSIGN_OR_RAISE(element, Build(node->repeated_def_level, node->repeated_rep_level,
                                               node->path + "." + repeated.name, depth + 2));
    }
    node->type = DataType::Array(element->type, element->nullable);
    node->leaves = element->leaves;
    node->children.push_back(std::move(element));
    return node;
  }

  // An unannotated repeated field: a required list whose elements are the field itself.
  Result<std::unique_ptr<SchemaNode>> BuildRepeated(const SchemaElement& e, int16_t def,
                                                    int16_t rep, std::unique_ptr<SchemaNode> node,
                                                    int depth) {
    node->kind = SchemaNode::Kind::kList;
    node->nullable = false;
    node->def_level = def;
    node->rep_level = rep;
    node->repeated_def_level = static_cast<int16_t>(def + 1);
    node->repeated_rep_level = static_cast<int16_t>(rep + 1);
    auto element = std::make_unique<SchemaNode>();
    element->name = "element";
    element->path = node->path;
    element->nullable = false;
    element->def_level = node->repeated_def_level;
    element->rep_level = node->repeated_rep_level;
    TRIBUTARY_ASSIGN_OR_RAISE(element, BuildBody(e, std::move(element), depth + 1));
    node->type = DataType::Array(element->type, false);
    node->leaves = element->leaves;
    node->children.push_back(std::move(element));
    return node;
  }

 public:
  std::vector<const SchemaNode*> leaves_;

 private:
  const std::vector<SchemaElement>& elements_;
  size_t pos_ = 1;  // element 0 is the root
};

}  // namespace

Result<FileSchema> BuildFileSchema(const FileMetaData& metadata) {
  if (metadata.schema.empty()) {
    return Status::Corruption("footer has an empty schema");
  }
  const SchemaElement& root_element = metadata.schema[0];
  const int num_fields = root_element.num_children.value_or(0);
  TreeBuilder builder(metadata.schema);
  FileSchema out;
  out.root = std::make_unique<SchemaNode>();
  out.root->kind = SchemaNode::Kind::kStruct;
  out.root->nullable = false;
  std::vector<Field> fields;
  for (int i = 0; i < num_fields; ++i) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto child, builder.Build(0, 0, "", 1));
    fields.emplace_back(child->name, child->type, child->nullable);
    out.root->leaves.insert(out.root->leaves.end(), child->leaves.begin(), child->leaves.end());
    out.root->children.push_back(std::move(child));
  }
  out.root->type = DataType::Struct(fields);
  out.schema = std::make_shared<const columnar::Schema>(std::move(fields));
  out.leaves = std::move(builder.leaves_);
  return out;
}

}  // namespace tributary::parquet
