// The writer's Parquet schema (LogicalTypes.md): each tributary type maps to one physical type
// and annotation, with the matching ConvertedType where one exists:
//   boolean BOOLEAN; int8/16/32/64 INT32/INT32/INT32/INT64 + INTEGER(bits, signed) and INT_n;
//   float FLOAT; double DOUBLE; decimal(p,s) INT32 (p <= 9), INT64 (p <= 18), else
//   FIXED_LEN_BYTE_ARRAY of the fewest bytes holding 10^p - 1, big-endian two's complement,
//   + DECIMAL(p,s) (as Spark writes them); string BYTE_ARRAY + STRING/UTF8; binary BYTE_ARRAY;
//   date INT32 + DATE; timestamp INT64 + TIMESTAMP(isAdjustedToUTC=true, MICROS) and
//   TIMESTAMP_MICROS; timestamp_ntz INT64 + TIMESTAMP(isAdjustedToUTC=false, MICROS), no
//   ConvertedType (TIMESTAMP_MICROS means UTC-adjusted); null INT32 + UNKNOWN, always optional;
//   struct a group; array "<name> (LIST) { repeated group list { <element> element } }";
//   map "<name> (MAP) { repeated group key_value { required <key> key; <value> value } }".

#include "formats/parquet/writer_schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "columnar/decimal.h"

namespace tributary::parquet {
namespace {

using columnar::DataTypePtr;
using columnar::Int128;
using columnar::TypeId;

// Bytes of the FIXED_LEN_BYTE_ARRAY of a decimal(precision, _) (Spark's minBytesForPrecision).
int32_t DecimalFixedBytes(int precision) {
  for (int32_t n = 1; n < 16; ++n) {
    if ((Int128{1} << (8 * n - 1)) >= columnar::PowerOfTen(precision)) {
      return n;
    }
  }
  return 16;
}

LogicalType MakeLogical(LogicalType::Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

LogicalType IntegerLogical(int bits) {
  LogicalType t = MakeLogical(LogicalType::Kind::kInteger);
  t.bit_width = bits;
  t.is_signed = true;
  return t;
}

LogicalType TimestampLogical(bool utc) {
  LogicalType t = MakeLogical(LogicalType::Kind::kTimestamp);
  t.is_adjusted_to_utc = utc;
  t.unit = TimeUnit::kMicros;
  return t;
}

class SchemaConverter {
 public:
  std::vector<SchemaElement> elements;
  std::vector<LeafInfo> leaves;

  Status AddField(const std::string& name, const DataTypePtr& type, Repetition repetition,
                  std::vector<PathNode> nodes, std::vector<std::string> path, int16_t def,
                  int16_t rep, int top_index) {
    path.push_back(name);
    SchemaElement e;
    e.name = name;
    e.repetition_type = repetition;
    switch (type->Id()) {
      case TypeId::kStruct: {
        const auto& fields = type->Fields();
        if (fields.empty()) {
          return Status::InvalidArgument(fmt::format(
              "parquet writer: struct column {} has no fields, which Parquet cannot store",
              fmt::join(path, ".")));
        }
        e.num_children = static_cast<int32_t>(fields.size());
        elements.push_back(std::move(e));
        for (size_t i = 0; i < fields.size(); ++i) {
          const columnar::Field& f = fields[i];
          std::vector<PathNode> child_nodes = nodes;
          child_nodes.push_back({static_cast<int>(i), false, f.Nullable()});
          TRIBUTARY_RETURN_NOT_OK(AddField(
              f.Name(), f.Type(), f.Nullable() ? Repetition::kOptional : Repetition::kRequired,
              std::move(child_nodes), path, static_cast<int16_t>(def + (f.Nullable() ? 1 : 0)), rep,
              top_index));
        }
        return Status::OK();
      }
      case TypeId::kArray: {
        e.num_children = 1;
        e.converted_type = ConvertedType::kList;
        e.logical_type = MakeLogical(LogicalType::Kind::kList);
        elements.push_back(std::move(e));
        SchemaElement list;
        list.name = "list";
        list.repetition_type = Repetition::kRepeated;
        list.num_children = 1;
        elements.push_back(std::move(list));
        path.emplace_back("list");
        const bool element_nullable = type->ContainsNull();
        nodes.push_back({0, true, element_nullable});
        return AddField("element", type->ElementType(),
                        element_nullable ? Repetition::kOptional : Repetition::kRequired,
                        std::move(nodes), std::move(path),
                        static_cast<int16_t>(def + 1 + (element_nullable ? 1 : 0)),
                        static_cast<int16_t>(rep + 1), top_index);
      }
      case TypeId::kMap: {
        e.num_children = 1;
        e.converted_type = ConvertedType::kMap;
        e.logical_type = MakeLogical(LogicalType::Kind::kMap);
        elements.push_back(std::move(e));
        SchemaElement key_value;
        key_value.name = "key_value";
        key_value.repetition_type = Repetition::kRepeated;
        key_value.num_children = 2;
        elements.push_back(std::move(key_value));
        path.emplace_back("key_value");
        std::vector<PathNode> key_nodes = nodes;
        key_nodes.push_back({0, true, false});
        TRIBUTARY_RETURN_NOT_OK(AddField("key", type->KeyType(), Repetition::kRequired,
                                         std::move(key_nodes), path, static_cast<int16_t>(def + 1),
                                         static_cast<int16_t>(rep + 1), top_index));
        const bool value_nullable = type->ContainsNull();
        nodes.push_back({1, true, value_nullable});
        return AddField("value", type->ValueType(),
                        value_nullable ? Repetition::kOptional : Repetition::kRequired,
                        std::move(nodes), std::move(path),
                        static_cast<int16_t>(def + 1 + (value_nullable ? 1 : 0)),
                        static_cast<int16_t>(rep + 1), top_index);
      }
      default:
        break;
    }
    LeafInfo leaf;
    leaf.top_index = top_index;
    leaf.type = type;
    switch (type->Id()) {
      case TypeId::kNull:
        leaf.physical = PhysicalType::kInt32;
        e.logical_type = MakeLogical(LogicalType::Kind::kUnknown);
        if (repetition == Repetition::kRequired) {
          return Status::InvalidArgument(fmt::format(
              "parquet writer: column {} of type void must be nullable", fmt::join(path, ".")));
        }
        break;
      case TypeId::kBoolean:
        leaf.physical = PhysicalType::kBoolean;
        break;
      case TypeId::kInt8:
        leaf.physical = PhysicalType::kInt32;
        e.converted_type = ConvertedType::kInt8;
        e.logical_type = IntegerLogical(8);
        break;
      case TypeId::kInt16:
        leaf.physical = PhysicalType::kInt32;
        e.converted_type = ConvertedType::kInt16;
        e.logical_type = IntegerLogical(16);
        break;
      case TypeId::kInt32:
        leaf.physical = PhysicalType::kInt32;
        e.converted_type = ConvertedType::kInt32;
        e.logical_type = IntegerLogical(32);
        break;
      case TypeId::kInt64:
        leaf.physical = PhysicalType::kInt64;
        e.converted_type = ConvertedType::kInt64;
        e.logical_type = IntegerLogical(64);
        break;
      case TypeId::kFloat32:
        leaf.physical = PhysicalType::kFloat;
        break;
      case TypeId::kFloat64:
        leaf.physical = PhysicalType::kDouble;
        break;
      case TypeId::kDecimal: {
        const int p = type->Precision();
        if (p <= 9) {
          leaf.physical = PhysicalType::kInt32;
        } else if (p <= 18) {
          leaf.physical = PhysicalType::kInt64;
        } else {
          leaf.physical = PhysicalType::kFixedLenByteArray;
          leaf.type_length = DecimalFixedBytes(p);
          e.type_length = leaf.type_length;
        }
        e.converted_type = ConvertedType::kDecimal;
        e.scale = type->Scale();
        e.precision = p;
        LogicalType t = MakeLogical(LogicalType::Kind::kDecimal);
        t.scale = type->Scale();
        t.precision = p;
        e.logical_type = t;
        break;
      }
      case TypeId::kString:
        leaf.physical = PhysicalType::kByteArray;
        e.converted_type = ConvertedType::kUtf8;
        e.logical_type = MakeLogical(LogicalType::Kind::kString);
        break;
      case TypeId::kBinary:
        leaf.physical = PhysicalType::kByteArray;
        break;
      case TypeId::kDate:
        leaf.physical = PhysicalType::kInt32;
        e.converted_type = ConvertedType::kDate;
        e.logical_type = MakeLogical(LogicalType::Kind::kDate);
        break;
      case TypeId::kTimestamp:
        leaf.physical = PhysicalType::kInt64;
        e.converted_type = ConvertedType::kTimestampMicros;
        e.logical_type = TimestampLogical(true);
        break;
      case TypeId::kTimestampNtz:
        leaf.physical = PhysicalType::kInt64;
        e.logical_type = TimestampLogical(false);
        break;
      case TypeId::kDayTimeInterval:
      case TypeId::kYearMonthInterval:
      case TypeId::kCalendarInterval:
        // Spark's intervals have no Parquet type; Spark refuses them the same way.
        return Status::InvalidArgument(fmt::format(
            "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The Parquet datasource doesn't support the "
            "column `{}` of the type \"{}\"",
            fmt::join(path, "."), type->Sql()));
      default:
        return Status::Internal("parquet writer: unexpected nested type at a leaf");
    }
    e.type = leaf.physical;
    elements.push_back(std::move(e));
    leaf.nodes = std::move(nodes);
    leaf.path_in_schema = std::move(path);
    leaf.max_def = def;
    leaf.max_rep = rep;
    leaves.push_back(std::move(leaf));
    return Status::OK();
  }
};

}  // namespace

Result<WriterSchema> ConvertWriterSchema(const columnar::Schema& schema) {
  SchemaConverter converter;
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.NumFields();
  converter.elements.push_back(std::move(root));
  for (int i = 0; i < schema.NumFields(); ++i) {
    const columnar::Field& f = schema.FieldAt(i);
    TRIBUTARY_RETURN_NOT_OK(converter.AddField(
        f.Name(), f.Type(), f.Nullable() ? Repetition::kOptional : Repetition::kRequired,
        {PathNode{0, false, f.Nullable()}}, {}, static_cast<int16_t>(f.Nullable() ? 1 : 0), 0, i));
  }
  return WriterSchema{std::move(converter.elements), std::move(converter.leaves)};
}

}  // namespace tributary::parquet
