#include "formats/csv/csv_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "common/ascii.h"
#include "expr/temporal_parsing.h"
#include "expr/time_zone.h"
#include "formats/text/input_stream.h"
#include "formats/text/line_reader.h"
#include "formats/text/rescued_data.h"
#include "formats/text/schema_hints.h"
#include "formats/text/schema_inference.h"
#include "formats/text/temporal_formats.h"
#include "formats/text/text_reader_factory.h"
#include "formats/text/value_conversion.h"

namespace tributary::csv {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;

// One field of a record: its text (unescaped) and whether it was quoted.
struct Token {
  std::string_view text;
  bool quoted = false;
};

enum class TokenizeResult : int8_t {
  kOk,
  // The record ends inside a quoted field.
  kOpenQuote,
  // Text follows a closing quote before the separator.
  kMalformed,
  // A field is longer than maxCharsPerColumn.
  kFieldTooLong,
};

// Splits `record` into tokens. Unescaped quoted text is written to `storage`, which is
// reserved up front so the views into it stay valid.
TokenizeResult Tokenize(std::string_view record, const CsvReadOptions& options,
                        std::vector<Token>* tokens, std::string* storage) {
  tokens->clear();
  storage->clear();
  storage->reserve(record.size());
  const char sep = options.sep;
  const char quote = options.quote;
  const char escape = options.escape;
  const size_t n = record.size();
  size_t i = 0;
  while (true) {
    if (quote != '\0' && i < n && record[i] == quote) {
      ++i;
      const size_t start = storage->size();
      bool closed = false;
      while (i < n) {
        const char c = record[i];
        if (c == escape && escape != quote && i + 1 < n &&
            (record[i + 1] == quote || record[i + 1] == escape)) {
          storage->push_back(record[i + 1]);
          i += 2;
        } else if (c == quote) {
          if (i + 1 < n && record[i + 1] == quote) {
            storage->push_back(quote);
            i += 2;
          } else {
            closed = true;
            ++i;
            break;
          }
        } else {
          storage->push_back(c);
          ++i;
        }
      }
      if (!closed) {
        return TokenizeResult::kOpenQuote;
      }
      tokens->push_back({std::string_view(storage->data() + start, storage->size() - start), true});
      if (i == n) {
        return TokenizeResult::kOk;
      }
      if (record[i] != sep) {
        return TokenizeResult::kMalformed;
      }
      ++i;
      continue;
    }
    const void* found = i < n ? std::memchr(record.data() + i, sep, n - i) : nullptr;
    if (found == nullptr) {
      tokens->push_back({record.substr(i), false});
      return TokenizeResult::kOk;
    }
    const size_t stop = static_cast<size_t>(static_cast<const char*>(found) - record.data());
    tokens->push_back({record.substr(i, stop - i), false});
    i = stop + 1;
  }
}

// Reads records (lines, or with multiLine lines joined while a quote is open) and tokenizes
// them.
class RecordReader {
 public:
  RecordReader(std::unique_ptr<text::InputStream> input, const CsvReadOptions& options,
               int64_t size_hint)
      : lines_(std::move(input),
               size_hint < 0
                   ? size_t{4} << 20
                   : static_cast<size_t>(std::clamp<int64_t>(size_hint + 1, 256, int64_t{4} << 20)),
               text::LineOptions{options.line_sep, MaxLineLength(options)}),
        options_(options) {}

  // With maxCharsPerColumn, a line longer than every field of a record could be is cut (and
  // its record is then malformed), so one line never buffers without bound.
  static size_t MaxLineLength(const CsvReadOptions& options) {
    return options.max_chars_per_column > 0
               ? static_cast<size_t>(options.max_chars_per_column) * 64 + (size_t{1} << 20)
               : 0;
  }

  // The next record: false at the end (check status()). Skipped lines are counted.
  bool Next(TokenizeResult* result, text::Line* record, std::vector<Token>* tokens,
            CsvReadMetrics* metrics) {
    text::Line line;
    while (lines_.Next(&line)) {
      ++metrics->num_lines;
      if (line.text.empty() || (options_.comment != '\0' && line.text[0] == options_.comment)) {
        ++metrics->num_skipped_lines;
        continue;
      }
      *result = line.truncated ? TokenizeResult::kFieldTooLong
                               : Tokenize(line.text, options_, tokens, &storage_);
      if (*result != TokenizeResult::kOpenQuote || !options_.multi_line) {
        *record = line;
        return true;
      }
      // A quoted field spans lines: gather them into one record.
      joined_.assign(line.text);
      text::Line first = line;
      while (*result == TokenizeResult::kOpenQuote && lines_.Next(&line)) {
        ++metrics->num_lines;
        joined_.push_back('\n');
        joined_.append(line.text);
        if (line.truncated || (options_.max_chars_per_column > 0 &&
                               joined_.size() - first.text.size() >
                                   static_cast<size_t>(options_.max_chars_per_column))) {
          // The open quoted field already holds more than maxCharsPerColumn.
          *result = TokenizeResult::kFieldTooLong;
          break;
        }
        *result = Tokenize(joined_, options_, tokens, &storage_);
      }
      *record = first;
      record->text = joined_;
      return true;
    }
    return false;
  }
  const Status& status() const { return lines_.status(); }
  int64_t Position() const { return lines_.Position(); }

 private:
  text::LineReader lines_;
  const CsvReadOptions& options_;
  std::string storage_;
  std::string joined_;
};

// Spark compares the parsed text with nullValue whether quoted or not; only a quoted empty
// field is never null (it reads as emptyValue).
bool IsNull(const Token& token, const CsvReadOptions& options) {
  return token.text == options.null_value && !(token.quoted && token.text.empty());
}

// Converts one token for a column of `type`; with kAppend appends it (null when it does not
// parse). Returns whether it parsed.
template <bool kAppend>
bool Convert(const DataType& type, const Token& token, const CsvReadOptions& options,
             const text::TemporalFormats& temporal, ColumnBuilder* sink) {
  const TypeId id = type.Id();
  if (IsNull(token, options)) {
    if constexpr (kAppend) {
      sink->AppendNull();
    }
    return true;
  }
  std::string_view text = token.text;
  if (token.quoted && text.empty()) {
    if (id != TypeId::kString && id != TypeId::kBinary) {
      if constexpr (kAppend) {
        sink->AppendNull();
      }
      return true;
    }
    text = options.empty_value;
  }
  switch (id) {
    case TypeId::kString:
    case TypeId::kBinary:
      if constexpr (kAppend) {
        sink->AppendBytes(text);
      }
      return true;
    case TypeId::kBoolean:
      if (EqualsIgnoreAsciiCase(text, "true") || EqualsIgnoreAsciiCase(text, "false")) {
        if constexpr (kAppend) {
          sink->AppendBoolean(text.size() == 4);
        }
        return true;
      }
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t v;
      const int bits = type.ByteWidth() * 8;
      if (expr::ParseInt64(text, &v) &&
          (bits == 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1))))) {
        if constexpr (kAppend) {
          sink->AppendInt(v);
        }
        return true;
      }
      break;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double v;
      if (expr::ParseDouble(text, &v)) {
        if constexpr (kAppend) {
          sink->AppendDouble(v);
        }
        return true;
      }
      break;
    }
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kYearMonthInterval:
      if (text::ConvertTextValue<kAppend>(id, type.Precision(), type.Scale(), text, temporal,
                                          sink)) {
        return true;
      }
      break;
    default:
      break;
  }
  if constexpr (kAppend) {
    sink->AppendNull();
  }
  return false;
}

class CsvReaderImpl final : public CsvReader {
 public:
  CsvReaderImpl(std::string path, std::unique_ptr<text::InputStream> input, int64_t size_hint,
                columnar::SchemaPtr output_schema, const CsvReadOptions& options,
                text::TemporalFormats temporal, columnar::MemoryPool* pool)
      : path_(std::move(path)),
        options_(options),
        temporal_(std::move(temporal)),
        pool_(pool),
        output_schema_(std::move(output_schema)),
        records_(std::move(input), options_, size_hint),
        record_sink_(text::RecordSinkOptions::Of("CSV", path_, options), &metrics_) {}

  Status Init(const columnar::Schema& data_schema, const std::vector<std::string>& columns);
  const columnar::SchemaPtr& OutputSchema() const override { return output_schema_; }
  const CsvReadMetrics& Metrics() const override { return metrics_; }
  Result<columnar::RecordBatchPtr> Next() override;

 private:
  Status ReadHeader();
  Status DecodeRecord(const text::Line& record);
  Status CorruptRecord(const text::Line& record, std::string_view reason);
  // Whether a token of the record is longer than maxCharsPerColumn.
  bool FieldTooLong() const {
    if (options_.max_chars_per_column <= 0) {
      return false;
    }
    for (const Token& token : tokens_) {
      if (token.text.size() > static_cast<size_t>(options_.max_chars_per_column)) {
        return true;
      }
    }
    return false;
  }
  // The rescue key of token i: its header name, else "_c<i>".
  std::string_view KeyOf(size_t i);
  // The data column token i goes to, or -1 (rescued or ignored).
  int TargetOf(size_t i) const {
    return i < targets_.size() ? targets_[i]
                               : (options_.enforce_schema || !options_.header
                                      ? (i < data_fields_.size() ? static_cast<int>(i) : -1)
                                      : -1);
  }

  const std::string path_;
  const CsvReadOptions options_;
  const text::TemporalFormats temporal_;
  columnar::MemoryPool* const pool_;
  columnar::SchemaPtr output_schema_;
  RecordReader records_;
  CsvReadMetrics metrics_;
  // Modes, special columns and accounting.
  text::RecordSink record_sink_;

  std::vector<Field> data_fields_;
  std::vector<ColumnBuilder*> data_sinks_;
  std::vector<int> targets_;
  std::vector<std::string> header_;
  bool header_read_ = false;
  bool rescue_ = false;

  std::vector<Token> tokens_;
  std::vector<uint8_t> filled_;
  std::string key_scratch_;
};

Status CsvReaderImpl::Init(const columnar::Schema& data_schema,
                           const std::vector<std::string>& columns) {
  rescue_ = record_sink_.Rescue();
  for (Field& field : record_sink_.DataFields(data_schema)) {
    if (field.Type()->IsNested()) {
      return Status::NotImplemented(
          fmt::format("CSV reader: column '{}' has nested type {}: CSV holds only flat columns",
                      field.Name(), field.Type()->ToString()));
    }
    data_fields_.push_back(std::move(field));
  }
  data_sinks_.assign(data_fields_.size(), nullptr);
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<text::DataColumnSink> data,
                            record_sink_.MakeColumns(*output_schema_, columns, pool_));
  for (const text::DataColumnSink& sink : data) {
    for (size_t d = 0; d < data_fields_.size(); ++d) {
      if (data_fields_[d].Name() == sink.name) {
        data_sinks_[d] = sink.builder;
      }
    }
  }
  output_schema_ = record_sink_.OutputSchema();
  filled_.assign(data_fields_.size(), 0);
  return Status::OK();
}

Status CsvReaderImpl::ReadHeader() {
  header_read_ = true;
  if (!options_.header) {
    return Status::OK();
  }
  TokenizeResult result;
  text::Line record;
  if (!records_.Next(&result, &record, &tokens_, &metrics_)) {
    return records_.status();
  }
  if (result != TokenizeResult::kOk) {
    return record_sink_.Malformed(record, "the header does not parse");
  }
  for (const Token& token : tokens_) {
    header_.emplace_back(token.text);
  }
  if (options_.report_unknown_fields) {
    for (const std::string& name : header_) {
      const bool known = std::any_of(data_fields_.begin(), data_fields_.end(),
                                     [&](const Field& field) { return field.Name() == name; });
      std::vector<std::string>& unknown = metrics_.unknown_fields;
      if (!known && !name.empty() &&
          std::find(unknown.begin(), unknown.end(), name) == unknown.end()) {
        unknown.push_back(name);
      }
    }
  }
  if (!options_.enforce_schema) {
    for (const std::string& name : header_) {
      int target = -1;
      for (size_t d = 0; d < data_fields_.size(); ++d) {
        if (data_fields_[d].Name() == name) {
          target = static_cast<int>(d);
          break;
        }
      }
      targets_.push_back(target);
    }
  }
  return Status::OK();
}

std::string_view CsvReaderImpl::KeyOf(size_t i) {
  if (i < header_.size() && !header_[i].empty()) {
    return header_[i];
  }
  key_scratch_ = "_c" + std::to_string(i);
  return key_scratch_;
}

Status CsvReaderImpl::CorruptRecord(const text::Line& record, std::string_view reason) {
  return record_sink_.Corrupt(record.text, record, reason);
}

Status CsvReaderImpl::DecodeRecord(const text::Line& record) {
  if (record_sink_.CheckBeforeAppend()) {
    bool fits = true;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const int target = TargetOf(i);
      if (target >= 0 && data_sinks_[static_cast<size_t>(target)] != nullptr) {
        fits &= Convert<false>(*data_fields_[static_cast<size_t>(target)].Type(), tokens_[i],
                               options_, temporal_, nullptr);
      }
    }
    if (!fits) {
      return record_sink_.Unfit(record);
    }
  }
  std::fill(filled_.begin(), filled_.end(), 0);
  text::RescuedRecord& rescued = record_sink_.Rescued();
  bool fits = true;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const Token& token = tokens_[i];
    const int target = TargetOf(i);
    if (target < 0 || filled_[static_cast<size_t>(target)] != 0) {
      if (rescue_) {
        if (IsNull(token, options_)) {
          rescued.AddJson(KeyOf(i), "null");
        } else {
          rescued.AddString(KeyOf(i), token.text);
        }
      }
      continue;
    }
    filled_[static_cast<size_t>(target)] = 1;
    ColumnBuilder* sink = data_sinks_[static_cast<size_t>(target)];
    if (sink == nullptr) {
      continue;
    }
    if (!Convert<true>(*data_fields_[static_cast<size_t>(target)].Type(), token, options_,
                       temporal_, sink)) {
      fits = false;
      if (rescue_) {
        rescued.AddString(data_fields_[static_cast<size_t>(target)].Name(), token.text);
      }
    }
  }
  for (size_t d = 0; d < data_sinks_.size(); ++d) {
    if (filled_[d] == 0 && data_sinks_[d] != nullptr) {
      data_sinks_[d]->AppendNull();
    }
  }
  record_sink_.Finish(fits, record.text);
  return Status::OK();
}

Result<columnar::RecordBatchPtr> CsvReaderImpl::Next() {
  if (!header_read_) {
    TRIBUTARY_RETURN_NOT_OK(ReadHeader());
  }
  record_sink_.StartBatch();
  TokenizeResult result;
  text::Line record;
  while (record_sink_.BatchRows() < options_.batch_size &&
         records_.Next(&result, &record, &tokens_, &metrics_)) {
    record_sink_.Begin();
    if (result == TokenizeResult::kOpenQuote) {
      TRIBUTARY_RETURN_NOT_OK(CorruptRecord(record, "a quoted field is not closed"));
    } else if (result == TokenizeResult::kMalformed) {
      TRIBUTARY_RETURN_NOT_OK(CorruptRecord(record, "text follows a closing quote"));
    } else if (result == TokenizeResult::kFieldTooLong || FieldTooLong()) {
      TRIBUTARY_RETURN_NOT_OK(
          CorruptRecord(record, fmt::format("a field is longer than maxCharsPerColumn ({})",
                                            options_.max_chars_per_column)));
    } else if (!simdjson::validate_utf8(record.text.data(), record.text.size())) {
      TRIBUTARY_RETURN_NOT_OK(CorruptRecord(record, "the record is not valid UTF-8"));
    } else {
      TRIBUTARY_RETURN_NOT_OK(DecodeRecord(record));
    }
  }
  TRIBUTARY_RETURN_NOT_OK(records_.status());
  metrics_.num_bytes = records_.Position();
  if (record_sink_.BatchRows() == 0) {
    return nullptr;
  }
  return record_sink_.FinishBatch();
}

Status ValidateOptions(const CsvReadOptions& options) {
  if (options.batch_size <= 0) {
    return Status::InvalidArgument("CSV reader: batch_size must be positive");
  }
  if (options.max_chars_per_column == 0 || options.max_chars_per_column < -1) {
    return Status::InvalidArgument(
        fmt::format("CSV reader: maxCharsPerColumn must be positive or -1, got {}",
                    options.max_chars_per_column));
  }
  if (options.line_sep == '\0' || options.line_sep == options.sep ||
      (options.quote != '\0' && options.line_sep == options.quote)) {
    return Status::InvalidArgument("CSV reader: lineSep must differ from NUL, sep and quote");
  }
  if (options.sep == '\n' || options.sep == '\r' || options.sep == '\0' ||
      (options.quote != '\0' && options.sep == options.quote)) {
    return Status::InvalidArgument(
        fmt::format("CSV reader: separator byte {} is not usable",
                    static_cast<int>(static_cast<unsigned char>(options.sep))));
  }
  return text::ValidateTextReadOptions(options, "CSV reader");
}

Result<text::TemporalFormats> MakeTemporalFormats(const CsvReadOptions& options) {
  return text::MakeTemporalFormats(options, "CSV reader");
}

// Spark's CSVInferSchema for one value, or null for a null value.
DataTypePtr InferValue(const Token& token, const CsvReadOptions& options,
                       const text::TemporalFormats& temporal) {
  if (IsNull(token, options)) {
    return nullptr;
  }
  if (token.quoted && token.text.empty()) {
    return nullptr;
  }
  const std::string_view text = token.text;
  int64_t i;
  if (expr::ParseInt64(text, &i)) {
    return i >= INT32_MIN && i <= INT32_MAX ? DataType::Int32() : DataType::Int64();
  }
  double d;
  if (expr::ParseDouble(text, &d)) {
    return DataType::Float64();
  }
  if (EqualsIgnoreAsciiCase(text, "true") || EqualsIgnoreAsciiCase(text, "false")) {
    return DataType::Boolean();
  }
  // Dates first, as Spark's prefersDate: a text that matches both formats is a date.
  if (temporal.HasDateFormat() && temporal.IsDate(text)) {
    return DataType::Date();
  }
  if ((options.infer_timestamp || temporal.HasTimestampFormat()) && temporal.IsTimestamp(text)) {
    return DataType::Timestamp();
  }
  return DataType::String();
}

class CsvInferrer {
 public:
  CsvInferrer(const CsvReadOptions& options, text::TemporalFormats temporal)
      : options_(options), temporal_(std::move(temporal)) {}

  Status AddFile(std::unique_ptr<text::InputStream> input) {
    RecordReader records(std::move(input), options_, -1);
    CsvReadMetrics metrics;
    TokenizeResult result;
    text::Line record;
    std::vector<Token> tokens;
    bool first = true;
    int64_t sampled = 0;
    while (sampled < options_.sample_records && records.Next(&result, &record, &tokens, &metrics)) {
      if (result != TokenizeResult::kOk) {
        continue;
      }
      // As Spark's CSVDataSource: the first record of the input (the header, or the first
      // data record without one) fixes the columns; later records' extra values are not
      // columns, and their missing ones widen nothing.
      if (width_ < 0) {
        width_ = static_cast<int64_t>(tokens.size());
        types_.resize(tokens.size());
      }
      if (first && options_.header) {
        first = false;
        if (names_.empty()) {
          for (const Token& token : tokens) {
            names_.emplace_back(token.text);
          }
        }
        continue;
      }
      first = false;
      ++sampled;
      const size_t width = std::min(tokens.size(), types_.size());
      for (size_t i = 0; i < width; ++i) {
        DataTypePtr type = InferValue(tokens[i], options_, temporal_);
        if (type == nullptr) {
          continue;
        }
        types_[i] = types_[i] == nullptr || types_[i] == type
                        ? type
                        : text::WidenInferredTypes(types_[i], type);
      }
    }
    return records.status();
  }

  Result<columnar::SchemaPtr> Finish() const {
    std::vector<Field> fields;
    const size_t count = types_.size();
    for (size_t i = 0; i < count; ++i) {
      std::string name =
          i < names_.size() && !names_[i].empty() ? names_[i] : "_c" + std::to_string(i);
      for (const Field& field : fields) {
        if (field.Name() == name) {
          name += std::to_string(i);  // Spark makes duplicate header names unique this way
          break;
        }
      }
      DataTypePtr type = i < types_.size() && types_[i] != nullptr ? types_[i] : DataType::String();
      if (!options_.infer_schema) {
        type = DataType::String();
      }
      fields.emplace_back(std::move(name), std::move(type));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto hints, text::ParseSchemaHints(options_.schema_hints));
    return text::ApplySchemaHints(columnar::Schema(std::move(fields)), hints);
  }

 private:
  const CsvReadOptions& options_;
  const text::TemporalFormats temporal_;
  std::vector<std::string> names_;
  // One per column: the first record's values (-1 until it is read).
  int64_t width_ = -1;
  std::vector<DataTypePtr> types_;
};

}  // namespace

Result<columnar::SchemaPtr> CsvOutputSchema(const columnar::Schema& schema,
                                            const CsvReadOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(ValidateOptions(options));
  return text::TextReaderOutputSchema(schema, options.column_name_of_corrupt_record,
                                      options.rescued_data_column, "CSV reader");
}

Result<std::unique_ptr<CsvReader>> CsvReader::Make(std::string path, std::string_view data,
                                                   columnar::SchemaPtr schema,
                                                   const CsvReadOptions& options,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool) {
  return text::MakeTextReader<CsvReader, CsvReaderImpl>(std::move(path), text::CopiedInput(data),
                                                        schema, options, columns, pool,
                                                        CsvOutputSchema, "CSV reader");
}

Result<std::unique_ptr<CsvReader>> CsvReader::Open(storage::FileSystem& fs, const std::string& path,
                                                   columnar::SchemaPtr schema,
                                                   const CsvReadOptions& options,
                                                   const std::vector<std::string>& columns,
                                                   columnar::MemoryPool* pool) {
  return text::MakeTextReader<CsvReader, CsvReaderImpl>(
      path, text::FileInput(fs), schema, options, columns, pool, CsvOutputSchema, "CSV reader");
}

Result<columnar::SchemaPtr> InferCsvSchemaFromText(const std::vector<std::string_view>& files,
                                                   const CsvReadOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(ValidateOptions(options));
  TRIBUTARY_ASSIGN_OR_RAISE(text::TemporalFormats temporal, MakeTemporalFormats(options));
  CsvInferrer inferrer(options, std::move(temporal));
  for (std::string_view file : files) {
    TRIBUTARY_RETURN_NOT_OK(inferrer.AddFile(
        text::InputStream::FromBuffer("<memory>", file, text::InputCompression::kNone)));
  }
  return inferrer.Finish();
}

Result<columnar::SchemaPtr> InferCsvSchema(storage::FileSystem& fs,
                                           const std::vector<std::string>& paths,
                                           const CsvReadOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(ValidateOptions(options));
  TRIBUTARY_ASSIGN_OR_RAISE(text::TemporalFormats temporal, MakeTemporalFormats(options));
  CsvInferrer inferrer(options, std::move(temporal));
  for (const std::string& path : paths) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto input, text::InputStream::Open(fs, path));
    TRIBUTARY_RETURN_NOT_OK(inferrer.AddFile(std::move(input)));
  }
  return inferrer.Finish();
}

}  // namespace tributary::csv
