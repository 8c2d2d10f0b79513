// Compact-protocol decoding and encoding of Parquet's metadata structs, following
// apache/parquet-format src/main/thrift/parquet.thrift field by field (ids as in that file).
// Unknown fields and union members are skipped, as Thrift's forward-compatibility rules ask.

#include "formats/parquet/metadata.h"

#include <functional>

#include <fmt/format.h>

#include "formats/parquet/thrift_compact.h"

namespace tributary::parquet {
namespace {

using FieldFn = std::function<Status(int16_t id, CompactType type, bool* handled)>;

Status ReadStruct(CompactReader& r, const FieldFn& on_field) {
  TRIBUTARY_RETURN_NOT_OK(r.BeginStruct());
  while (true) {
    int16_t id = 0;
    CompactType type = CompactType::kStop;
    TRIBUTARY_RETURN_NOT_OK(r.ReadFieldHeader(&id, &type));
    if (type == CompactType::kStop) {
      break;
    }
    bool handled = false;
    TRIBUTARY_RETURN_NOT_OK(on_field(id, type, &handled));
    if (!handled) {
      TRIBUTARY_RETURN_NOT_OK(r.Skip(type));
    }
  }
  r.EndStruct();
  return Status::OK();
}

Status WireTypeMismatch(const CompactReader& r, std::string_view field, CompactType got) {
  return Status::Corruption(fmt::format("thrift: field {} has wire type {} at byte {}", field,
                                        static_cast<int>(got), r.Position()));
}

// Reads field `name` of the expected wire type into `out`.
Status ReadI32Field(CompactReader& r, CompactType type, std::string_view name, int32_t* out) {
  if (type != CompactType::kI32) {
    return WireTypeMismatch(r, name, type);
  }
  return r.ReadI32(out);
}
Status ReadI64Field(CompactReader& r, CompactType type, std::string_view name, int64_t* out) {
  if (type != CompactType::kI64) {
    return WireTypeMismatch(r, name, type);
  }
  return r.ReadI64(out);
}
Status ReadBinaryField(CompactReader& r, CompactType type, std::string_view name,
                       std::string* out) {
  if (type != CompactType::kBinary) {
    return WireTypeMismatch(r, name, type);
  }
  return r.ReadBinary(out);
}
template <typename T>
Status ReadOptionalI32(CompactReader& r, CompactType type, std::string_view name,
                       std::optional<T>* out) {
  int32_t value = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, name, &value));
  *out = static_cast<T>(value);
  return Status::OK();
}

Status ReadList(CompactReader& r, CompactType type, std::string_view name,
                const std::function<Status(CompactType element_type)>& on_element) {
  if (type != CompactType::kList && type != CompactType::kSet) {
    return WireTypeMismatch(r, name, type);
  }
  CompactType element_type = CompactType::kStop;
  int32_t size = 0;
  TRIBUTARY_RETURN_NOT_OK(r.ReadListHeader(&element_type, &size));
  for (int32_t i = 0; i < size; ++i) {
    TRIBUTARY_RETURN_NOT_OK(on_element(element_type));
  }
  return Status::OK();
}

Status ExpectStruct(const CompactReader& r, CompactType type, std::string_view name) {
  return type == CompactType::kStruct ? Status::OK() : WireTypeMismatch(r, name, type);
}

Status Missing(const CompactReader& r, std::string_view field) {
  return Status::Corruption(fmt::format(
      "thrift: required field {} missing (struct ends at byte {})", field, r.Position()));
}

Status ReadStatistics(CompactReader& r, Statistics* out) {
  return ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadBinaryField(r, type, "Statistics.max", &out->max.emplace());
      case 2:
        return ReadBinaryField(r, type, "Statistics.min", &out->min.emplace());
      case 3:
        return ReadI64Field(r, type, "Statistics.null_count", &out->null_count.emplace());
      case 4:
        return ReadI64Field(r, type, "Statistics.distinct_count", &out->distinct_count.emplace());
      case 5:
        return ReadBinaryField(r, type, "Statistics.max_value", &out->max_value.emplace());
      case 6:
        return ReadBinaryField(r, type, "Statistics.min_value", &out->min_value.emplace());
      case 7:
        return r.ReadBool(type, &out->is_max_value_exact.emplace());
      case 8:
        return r.ReadBool(type, &out->is_min_value_exact.emplace());
      case 9:
        return ReadI64Field(r, type, "Statistics.nan_count", &out->nan_count.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
}

Status ReadTimeUnit(CompactReader& r, TimeUnit* unit) {
  return ReadStruct(r, [&](int16_t id, CompactType, bool* handled) -> Status {
    if (id >= 1 && id <= 3) {
      *unit = static_cast<TimeUnit>(id);
    }
    *handled = false;  // the member is an empty struct: skip it
    return Status::OK();
  });
}

Status ReadLogicalType(CompactReader& r, LogicalType* out) {
  return ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "LogicalType"));
    *handled = true;
    switch (id) {
      case 5:
        out->kind = LogicalType::Kind::kDecimal;
        return ReadStruct(r, [&](int16_t fid, CompactType ftype, bool* fh) -> Status {
          *fh = true;
          if (fid == 1) {
            return ReadI32Field(r, ftype, "DecimalType.scale", &out->scale);
          }
          if (fid == 2) {
            return ReadI32Field(r, ftype, "DecimalType.precision", &out->precision);
          }
          *fh = false;
          return Status::OK();
        });
      case 7:
      case 8:
        out->kind = id == 7 ? LogicalType::Kind::kTime : LogicalType::Kind::kTimestamp;
        return ReadStruct(r, [&](int16_t fid, CompactType ftype, bool* fh) -> Status {
          *fh = true;
          if (fid == 1) {
            return r.ReadBool(ftype, &out->is_adjusted_to_utc);
          }
          if (fid == 2) {
            TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, ftype, "TimestampType.unit"));
            return ReadTimeUnit(r, &out->unit);
          }
          *fh = false;
          return Status::OK();
        });
      case 10:
        out->kind = LogicalType::Kind::kInteger;
        return ReadStruct(r, [&](int16_t fid, CompactType ftype, bool* fh) -> Status {
          *fh = true;
          if (fid == 1) {
            int8_t width = 0;
            if (ftype != CompactType::kByte) {
              return WireTypeMismatch(r, "IntType.bitWidth", ftype);
            }
            TRIBUTARY_RETURN_NOT_OK(r.ReadI8(&width));
            out->bit_width = width;
            return Status::OK();
          }
          if (fid == 2) {
            return r.ReadBool(ftype, &out->is_signed);
          }
          *fh = false;
          return Status::OK();
        });
      default:
        out->kind =
            (id >= 1 && id <= 18) ? static_cast<LogicalType::Kind>(id) : LogicalType::Kind::kOther;
        *handled = false;  // members without fields we use: skip the struct
        return Status::OK();
    }
  });
}

Status ReadSchemaElement(CompactReader& r, SchemaElement* out) {
  bool has_name = false;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        return ReadOptionalI32(r, type, "SchemaElement.type", &out->type);
      case 2:
        return ReadOptionalI32(r, type, "SchemaElement.type_length", &out->type_length);
      case 3:
        return ReadOptionalI32(r, type, "SchemaElement.repetition_type", &out->repetition_type);
      case 4:
        has_name = true;
        return ReadBinaryField(r, type, "SchemaElement.name", &out->name);
      case 5:
        return ReadOptionalI32(r, type, "SchemaElement.num_children", &out->num_children);
      case 6:
        return ReadOptionalI32(r, type, "SchemaElement.converted_type", &out->converted_type);
      case 7:
        return ReadOptionalI32(r, type, "SchemaElement.scale", &out->scale);
      case 8:
        return ReadOptionalI32(r, type, "SchemaElement.precision", &out->precision);
      case 9:
        return ReadOptionalI32(r, type, "SchemaElement.field_id", &out->field_id);
      case 10:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "SchemaElement.logicalType"));
        return ReadLogicalType(r, &out->logical_type.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  return has_name ? Status::OK() : Missing(r, "SchemaElement.name");
}

Status ReadKeyValue(CompactReader& r, KeyValue* out) {
  bool has_key = false;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    if (id == 1) {
      has_key = true;
      return ReadBinaryField(r, type, "KeyValue.key", &out->key);
    }
    if (id == 2) {
      return ReadBinaryField(r, type, "KeyValue.value", &out->value.emplace());
    }
    *handled = false;
    return Status::OK();
  }));
  return has_key ? Status::OK() : Missing(r, "KeyValue.key");
}

Status ReadKeyValues(CompactReader& r, CompactType type, std::vector<KeyValue>* out) {
  return ReadList(r, type, "key_value_metadata", [&](CompactType element) -> Status {
    TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, element, "KeyValue"));
    return ReadKeyValue(r, &out->emplace_back());
  });
}

Status ReadColumnMetaData(CompactReader& r, ColumnMetaData* out) {
  uint32_t seen = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    if (id >= 1 && id <= 9) {
      seen |= 1u << id;
    }
    switch (id) {
      case 1: {
        int32_t value = 0;
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "ColumnMetaData.type", &value));
        out->type = static_cast<PhysicalType>(value);
        return Status::OK();
      }
      case 2:
        return ReadList(r, type, "ColumnMetaData.encodings", [&](CompactType element) -> Status {
          int32_t value = 0;
          TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, element, "ColumnMetaData.encodings", &value));
          out->encodings.push_back(static_cast<Encoding>(value));
          return Status::OK();
        });
      case 3:
        return ReadList(r, type, "ColumnMetaData.path_in_schema",
                        [&](CompactType element) -> Status {
                          return ReadBinaryField(r, element, "ColumnMetaData.path_in_schema",
                                                 &out->path_in_schema.emplace_back());
                        });
      case 4:
        return ReadI32Field(r, type, "ColumnMetaData.codec", &out->codec);
      case 5:
        return ReadI64Field(r, type, "ColumnMetaData.num_values", &out->num_values);
      case 6:
        return ReadI64Field(r, type, "ColumnMetaData.total_uncompressed_size",
                            &out->total_uncompressed_size);
      case 7:
        return ReadI64Field(r, type, "ColumnMetaData.total_compressed_size",
                            &out->total_compressed_size);
      case 8:
        return ReadKeyValues(r, type, &out->key_value_metadata);
      case 9:
        return ReadI64Field(r, type, "ColumnMetaData.data_page_offset", &out->data_page_offset);
      case 10:
        return ReadI64Field(r, type, "ColumnMetaData.index_page_offset",
                            &out->index_page_offset.emplace());
      case 11:
        return ReadI64Field(r, type, "ColumnMetaData.dictionary_page_offset",
                            &out->dictionary_page_offset.emplace());
      case 12:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "ColumnMetaData.statistics"));
        return ReadStatistics(r, &out->statistics.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  // type, encodings, path_in_schema, codec, num_values, sizes, data_page_offset are required.
  constexpr uint32_t kRequired = 0b1011111110;  // fields 1-7 and 9
  if ((seen & kRequired) != kRequired) {
    return Missing(r, "of ColumnMetaData (type, encodings, path, codec, counts or offsets)");
  }
  return Status::OK();
}

Status ReadRowGroup(CompactReader& r, RowGroup* out, bool* encrypted) {
  bool has_columns = false;
  bool has_rows = false;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    switch (id) {
      case 1:
        has_columns = true;
        return ReadList(r, type, "RowGroup.columns", [&](CompactType element) -> Status {
          TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, element, "ColumnChunk"));
          ColumnChunk& chunk = out->columns.emplace_back();
          return ReadStruct(r, [&](int16_t cid, CompactType ctype, bool* ch) -> Status {
            *ch = true;
            switch (cid) {
              case 1:
                return ReadBinaryField(r, ctype, "ColumnChunk.file_path",
                                       &chunk.file_path.emplace());
              case 2:
                return ReadI64Field(r, ctype, "ColumnChunk.file_offset", &chunk.file_offset);
              case 3:
                TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, ctype, "ColumnChunk.meta_data"));
                return ReadColumnMetaData(r, &chunk.meta_data.emplace());
              case 8:
              case 9:
                *encrypted = true;
                *ch = false;
                return Status::OK();
              default:
                *ch = false;
                return Status::OK();
            }
          });
        });
      case 2:
        return ReadI64Field(r, type, "RowGroup.total_byte_size", &out->total_byte_size);
      case 3:
        has_rows = true;
        return ReadI64Field(r, type, "RowGroup.num_rows", &out->num_rows);
      case 5:
        return ReadI64Field(r, type, "RowGroup.file_offset", &out->file_offset.emplace());
      case 6:
        return ReadI64Field(r, type, "RowGroup.total_compressed_size",
                            &out->total_compressed_size.emplace());
      case 7: {
        if (type != CompactType::kI16) {
          return WireTypeMismatch(r, "RowGroup.ordinal", type);
        }
        return r.ReadI16(&out->ordinal.emplace());
      }
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  if (!has_columns || !has_rows) {
    return Missing(r, has_columns ? "RowGroup.num_rows" : "RowGroup.columns");
  }
  return Status::OK();
}

Status ReadDataPageHeader(CompactReader& r, DataPageHeader* out) {
  uint32_t seen = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    int32_t value = 0;
    switch (id) {
      case 1:
        seen |= 1;
        return ReadI32Field(r, type, "DataPageHeader.num_values", &out->num_values);
      case 2:
        seen |= 2;
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "DataPageHeader.encoding", &value));
        out->encoding = static_cast<Encoding>(value);
        return Status::OK();
      case 3:
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "DataPageHeader.dl_encoding", &value));
        out->definition_level_encoding = static_cast<Encoding>(value);
        return Status::OK();
      case 4:
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "DataPageHeader.rl_encoding", &value));
        out->repetition_level_encoding = static_cast<Encoding>(value);
        return Status::OK();
      case 5:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "DataPageHeader.statistics"));
        return ReadStatistics(r, &out->statistics.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  return seen == 3 ? Status::OK() : Missing(r, "DataPageHeader.num_values/encoding");
}

Status ReadDataPageHeaderV2(CompactReader& r, DataPageHeaderV2* out) {
  uint32_t seen = 0;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    if (id >= 1 && id <= 6) {
      seen |= 1u << id;
    }
    int32_t value = 0;
    switch (id) {
      case 1:
        return ReadI32Field(r, type, "DataPageHeaderV2.num_values", &out->num_values);
      case 2:
        return ReadI32Field(r, type, "DataPageHeaderV2.num_nulls", &out->num_nulls);
      case 3:
        return ReadI32Field(r, type, "DataPageHeaderV2.num_rows", &out->num_rows);
      case 4:
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "DataPageHeaderV2.encoding", &value));
        out->encoding = static_cast<Encoding>(value);
        return Status::OK();
      case 5:
        return ReadI32Field(r, type, "DataPageHeaderV2.definition_levels_byte_length",
                            &out->definition_levels_byte_length);
      case 6:
        return ReadI32Field(r, type, "DataPageHeaderV2.repetition_levels_byte_length",
                            &out->repetition_levels_byte_length);
      case 7:
        return r.ReadBool(type, &out->is_compressed);
      case 8:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "DataPageHeaderV2.statistics"));
        return ReadStatistics(r, &out->statistics.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  return seen == 0b1111110 ? Status::OK() : Missing(r, "of DataPageHeaderV2");
}

Status ReadDictionaryPageHeader(CompactReader& r, DictionaryPageHeader* out) {
  bool has_count = false;
  TRIBUTARY_RETURN_NOT_OK(ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    int32_t value = 0;
    switch (id) {
      case 1:
        has_count = true;
        return ReadI32Field(r, type, "DictionaryPageHeader.num_values", &out->num_values);
      case 2:
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "DictionaryPageHeader.encoding", &value));
        out->encoding = static_cast<Encoding>(value);
        return Status::OK();
      case 3:
        return r.ReadBool(type, &out->is_sorted.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  }));
  return has_count ? Status::OK() : Missing(r, "DictionaryPageHeader.num_values");
}

// Encoding side.

void WriteStatistics(CompactWriter& w, const Statistics& s) {
  w.BeginStruct();
  if (s.max) {
    w.WriteBinaryField(1, *s.max);
  }
  if (s.min) {
    w.WriteBinaryField(2, *s.min);
  }
  if (s.null_count) {
    w.WriteI64Field(3, *s.null_count);
  }
  if (s.distinct_count) {
    w.WriteI64Field(4, *s.distinct_count);
  }
  if (s.max_value) {
    w.WriteBinaryField(5, *s.max_value);
  }
  if (s.min_value) {
    w.WriteBinaryField(6, *s.min_value);
  }
  if (s.is_max_value_exact) {
    w.WriteBoolField(7, *s.is_max_value_exact);
  }
  if (s.is_min_value_exact) {
    w.WriteBoolField(8, *s.is_min_value_exact);
  }
  if (s.nan_count) {
    w.WriteI64Field(9, *s.nan_count);
  }
  w.EndStruct();
}

void WriteEmptyStructField(CompactWriter& w, int16_t id) {
  w.WriteFieldHeader(id, CompactType::kStruct);
  w.BeginStruct();
  w.EndStruct();
}

void WriteLogicalType(CompactWriter& w, const LogicalType& t) {
  w.BeginStruct();
  const auto id = static_cast<int16_t>(t.kind);
  switch (t.kind) {
    case LogicalType::Kind::kDecimal:
      w.WriteFieldHeader(id, CompactType::kStruct);
      w.BeginStruct();
      w.WriteI32Field(1, t.scale);
      w.WriteI32Field(2, t.precision);
      w.EndStruct();
      break;
    case LogicalType::Kind::kTime:
    case LogicalType::Kind::kTimestamp:
      w.WriteFieldHeader(id, CompactType::kStruct);
      w.BeginStruct();
      w.WriteBoolField(1, t.is_adjusted_to_utc);
      w.WriteFieldHeader(2, CompactType::kStruct);
      w.BeginStruct();
      WriteEmptyStructField(w, static_cast<int16_t>(t.unit));
      w.EndStruct();
      w.EndStruct();
      break;
    case LogicalType::Kind::kInteger: {
      w.WriteFieldHeader(id, CompactType::kStruct);
      w.BeginStruct();
      w.WriteFieldHeader(1, CompactType::kByte);
      w.WriteI8(static_cast<int8_t>(t.bit_width));
      w.WriteBoolField(2, t.is_signed);
      w.EndStruct();
      break;
    }
    case LogicalType::Kind::kOther:
      break;
    default:
      WriteEmptyStructField(w, id);
      break;
  }
  w.EndStruct();
}

void WriteKeyValues(CompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  w.WriteFieldHeader(id, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, static_cast<int32_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    w.BeginStruct();
    w.WriteBinaryField(1, kv.key);
    if (kv.value) {
      w.WriteBinaryField(2, *kv.value);
    }
    w.EndStruct();
  }
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(std::string_view bytes) {
  CompactReader r(bytes);
  FileMetaData out;
  uint32_t seen = 0;
  Status st = ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    if (id >= 1 && id <= 4) {
      seen |= 1u << id;
    }
    switch (id) {
      case 1:
        return ReadI32Field(r, type, "FileMetaData.version", &out.version);
      case 2:
        return ReadList(r, type, "FileMetaData.schema", [&](CompactType element) -> Status {
          TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, element, "SchemaElement"));
          return ReadSchemaElement(r, &out.schema.emplace_back());
        });
      case 3:
        return ReadI64Field(r, type, "FileMetaData.num_rows", &out.num_rows);
      case 4:
        return ReadList(r, type, "FileMetaData.row_groups", [&](CompactType element) -> Status {
          TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, element, "RowGroup"));
          return ReadRowGroup(r, &out.row_groups.emplace_back(), &out.encrypted);
        });
      case 5:
        return ReadKeyValues(r, type, &out.key_value_metadata);
      case 6:
        return ReadBinaryField(r, type, "FileMetaData.created_by", &out.created_by.emplace());
      case 7:
        return ReadList(r, type, "FileMetaData.column_orders", [&](CompactType element) -> Status {
          TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, element, "ColumnOrder"));
          ColumnOrder& order = out.column_orders.emplace_back(0);
          return ReadStruct(r, [&](int16_t oid, CompactType, bool* oh) -> Status {
            order = oid;
            *oh = false;
            return Status::OK();
          });
        });
      case 8:
      case 9:
        out.encrypted = true;
        *handled = false;
        return Status::OK();
      default:
        *handled = false;
        return Status::OK();
    }
  });
  TRIBUTARY_RETURN_NOT_OK(st.WithContext("decoding FileMetaData"));
  if (seen != 0b11110) {
    return Missing(r, "of FileMetaData (version, schema, num_rows or row_groups)")
        .WithContext("decoding FileMetaData");
  }
  return out;
}

Result<PageHeader> DecodePageHeader(std::string_view bytes, int64_t* header_size) {
  CompactReader r(bytes);
  PageHeader out;
  uint32_t seen = 0;
  Status st = ReadStruct(r, [&](int16_t id, CompactType type, bool* handled) -> Status {
    *handled = true;
    int32_t value = 0;
    switch (id) {
      case 1:
        seen |= 1;
        TRIBUTARY_RETURN_NOT_OK(ReadI32Field(r, type, "PageHeader.type", &value));
        out.type = static_cast<PageType>(value);
        return Status::OK();
      case 2:
        seen |= 2;
        return ReadI32Field(r, type, "PageHeader.uncompressed_page_size",
                            &out.uncompressed_page_size);
      case 3:
        seen |= 4;
        return ReadI32Field(r, type, "PageHeader.compressed_page_size", &out.compressed_page_size);
      case 4:
        return ReadI32Field(r, type, "PageHeader.crc", &out.crc.emplace());
      case 5:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "PageHeader.data_page_header"));
        return ReadDataPageHeader(r, &out.data_page_header.emplace());
      case 7:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "PageHeader.dictionary_page_header"));
        return ReadDictionaryPageHeader(r, &out.dictionary_page_header.emplace());
      case 8:
        TRIBUTARY_RETURN_NOT_OK(ExpectStruct(r, type, "PageHeader.data_page_header_v2"));
        return ReadDataPageHeaderV2(r, &out.data_page_header_v2.emplace());
      default:
        *handled = false;
        return Status::OK();
    }
  });
  TRIBUTARY_RETURN_NOT_OK(st.WithContext("decoding PageHeader"));
  if (seen != 7) {
    return Missing(r, "of PageHeader (type or sizes)").WithContext("decoding PageHeader");
  }
  if (out.uncompressed_page_size < 0 || out.compressed_page_size < 0) {
    return Status::Corruption(fmt::format("decoding PageHeader: negative page size ({}, {})",
                                          out.uncompressed_page_size, out.compressed_page_size));
  }
  *header_size = r.Position();
  return out;
}

void EncodePageHeader(const PageHeader& h, std::string* out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.WriteI32Field(1, static_cast<int32_t>(h.type));
  w.WriteI32Field(2, h.uncompressed_page_size);
  w.WriteI32Field(3, h.compressed_page_size);
  if (h.crc) {
    w.WriteI32Field(4, *h.crc);
  }
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.WriteFieldHeader(5, CompactType::kStruct);
    w.BeginStruct();
    w.WriteI32Field(1, d.num_values);
    w.WriteI32Field(2, static_cast<int32_t>(d.encoding));
    w.WriteI32Field(3, static_cast<int32_t>(d.definition_level_encoding));
    w.WriteI32Field(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) {
      w.WriteFieldHeader(5, CompactType::kStruct);
      WriteStatistics(w, *d.statistics);
    }
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.WriteFieldHeader(7, CompactType::kStruct);
    w.BeginStruct();
    w.WriteI32Field(1, d.num_values);
    w.WriteI32Field(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) {
      w.WriteBoolField(3, *d.is_sorted);
    }
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.WriteFieldHeader(8, CompactType::kStruct);
    w.BeginStruct();
    w.WriteI32Field(1, d.num_values);
    w.WriteI32Field(2, d.num_nulls);
    w.WriteI32Field(3, d.num_rows);
    w.WriteI32Field(4, static_cast<int32_t>(d.encoding));
    w.WriteI32Field(5, d.definition_levels_byte_length);
    w.WriteI32Field(6, d.repetition_levels_byte_length);
    w.WriteBoolField(7, d.is_compressed);
    if (d.statistics) {
      w.WriteFieldHeader(8, CompactType::kStruct);
      WriteStatistics(w, *d.statistics);
    }
    w.EndStruct();
  }
  w.EndStruct();
}

void EncodeFileMetaData(const FileMetaData& m, std::string* out) {
  CompactWriter w(out);
  w.BeginStruct();
  w.WriteI32Field(1, m.version);
  w.WriteFieldHeader(2, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, static_cast<int32_t>(m.schema.size()));
  for (const SchemaElement& e : m.schema) {
    w.BeginStruct();
    if (e.type) {
      w.WriteI32Field(1, static_cast<int32_t>(*e.type));
    }
    if (e.type_length) {
      w.WriteI32Field(2, *e.type_length);
    }
    if (e.repetition_type) {
      w.WriteI32Field(3, static_cast<int32_t>(*e.repetition_type));
    }
    w.WriteBinaryField(4, e.name);
    if (e.num_children) {
      w.WriteI32Field(5, *e.num_children);
    }
    if (e.converted_type) {
      w.WriteI32Field(6, static_cast<int32_t>(*e.converted_type));
    }
    if (e.scale) {
      w.WriteI32Field(7, *e.scale);
    }
    if (e.precision) {
      w.WriteI32Field(8, *e.precision);
    }
    if (e.field_id) {
      w.WriteI32Field(9, *e.field_id);
    }
    if (e.logical_type && e.logical_type->kind != LogicalType::Kind::kOther) {
      w.WriteFieldHeader(10, CompactType::kStruct);
      WriteLogicalType(w, *e.logical_type);
    }
    w.EndStruct();
  }
  w.WriteI64Field(3, m.num_rows);
  w.WriteFieldHeader(4, CompactType::kList);
  w.WriteListHeader(CompactType::kStruct, static_cast<int32_t>(m.row_groups.size()));
  for (const RowGroup& g : m.row_groups) {
    w.BeginStruct();
    w.WriteFieldHeader(1, CompactType::kList);
    w.WriteListHeader(CompactType::kStruct, static_cast<int32_t>(g.columns.size()));
    for (const ColumnChunk& c : g.columns) {
      w.BeginStruct();
      if (c.file_path) {
        w.WriteBinaryField(1, *c.file_path);
      }
      w.WriteI64Field(2, c.file_offset);
      if (c.meta_data) {
        const ColumnMetaData& md = *c.meta_data;
        w.WriteFieldHeader(3, CompactType::kStruct);
        w.BeginStruct();
        w.WriteI32Field(1, static_cast<int32_t>(md.type));
        w.WriteFieldHeader(2, CompactType::kList);
        w.WriteListHeader(CompactType::kI32, static_cast<int32_t>(md.encodings.size()));
        for (Encoding e : md.encodings) {
          w.WriteI32(static_cast<int32_t>(e));
        }
        w.WriteFieldHeader(3, CompactType::kList);
        w.WriteListHeader(CompactType::kBinary, static_cast<int32_t>(md.path_in_schema.size()));
        for (const std::string& p : md.path_in_schema) {
          w.WriteBinary(p);
        }
        w.WriteI32Field(4, md.codec);
        w.WriteI64Field(5, md.num_values);
        w.WriteI64Field(6, md.total_uncompressed_size);
        w.WriteI64Field(7, md.total_compressed_size);
        if (!md.key_value_metadata.empty()) {
          WriteKeyValues(w, 8, md.key_value_metadata);
        }
        w.WriteI64Field(9, md.data_page_offset);
        if (md.index_page_offset) {
          w.WriteI64Field(10, *md.index_page_offset);
        }
        if (md.dictionary_page_offset) {
          w.WriteI64Field(11, *md.dictionary_page_offset);
        }
        if (md.statistics) {
          w.WriteFieldHeader(12, CompactType::kStruct);
          WriteStatistics(w, *md.statistics);
        }
        w.EndStruct();
      }
      w.EndStruct();
    }
    w.WriteI64Field(2, g.total_byte_size);
    w.WriteI64Field(3, g.num_rows);
    if (g.file_offset) {
      w.WriteI64Field(5, *g.file_offset);
    }
    if (g.total_compressed_size) {
      w.WriteI64Field(6, *g.total_compressed_size);
    }
    if (g.ordinal) {
      w.WriteFieldHeader(7, CompactType::kI16);
      w.WriteI32(*g.ordinal);
    }
    w.EndStruct();
  }
  if (!m.key_value_metadata.empty()) {
    WriteKeyValues(w, 5, m.key_value_metadata);
  }
  if (m.created_by) {
    w.WriteBinaryField(6, *m.created_by);
  }
  if (!m.column_orders.empty()) {
    w.WriteFieldHeader(7, CompactType::kList);
    w.WriteListHeader(CompactType::kStruct, static_cast<int32_t>(m.column_orders.size()));
    for (ColumnOrder order : m.column_orders) {
      w.BeginStruct();
      WriteEmptyStructField(w, static_cast<int16_t>(order));
      w.EndStruct();
    }
  }
  w.EndStruct();
}

std::string_view PhysicalTypeName(PhysicalType type) {
  static constexpr std::string_view kNames[] = {
      "BOOLEAN", "INT32",  "INT64",      "INT96",
      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  const auto index = static_cast<size_t>(type);
  return index < std::size(kNames) ? kNames[index] : "UNKNOWN";
}

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

std::string_view CodecName(int32_t codec) {
  static constexpr std::string_view kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                                "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return codec >= 0 && codec < 8 ? kNames[codec] : "UNKNOWN";
}

}  // namespace tributary::parquet
