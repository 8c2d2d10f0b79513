#include "columnar/sql_type_parser.h"

#include <cctype>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/ascii.h"

namespace tributary::columnar {

SqlTypeParser::SqlTypeParser(std::string_view text) : text_(text) {}

bool SqlTypeParser::AtEnd() {
  SkipSpaces();
  return pos_ >= text_.size();
}

bool SqlTypeParser::TryConsume(char c) {
  SkipSpaces();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

Status SqlTypeParser::Expect(char c) {
  if (!TryConsume(c)) {
    return Error(fmt::format("expected '{}'", c));
  }
  return Status::OK();
}

Status SqlTypeParser::Error(std::string_view what) const {
  return Status::InvalidArgument(
      fmt::format("{} at offset {} of type text '{}'", what, pos_, text_));
}

// A bare word ([A-Za-z0-9_]+) or a `quoted` identifier (`` doubles a back-quote).
Result<std::string> SqlTypeParser::Name() {
  SkipSpaces();
  std::string name;
  if (pos_ < text_.size() && text_[pos_] == '`') {
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) {
        return Error("unterminated `quoted` name");
      }
      if (text_[pos_] == '`') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '`') {
          name.push_back('`');
          pos_ += 2;
          continue;
        }
        ++pos_;
        return name;
      }
      name.push_back(text_[pos_++]);
    }
  }
  while (pos_ < text_.size() &&
         (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
    name.push_back(text_[pos_++]);
  }
  if (name.empty()) {
    return Error("expected a name");
  }
  return name;
}

Result<int> SqlTypeParser::Integer() {
  SkipSpaces();
  int value = 0;
  const size_t start = pos_;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) &&
         pos_ - start < 9) {
    value = value * 10 + (text_[pos_++] - '0');
  }
  if (pos_ == start) {
    return Error("expected a number");
  }
  return value;
}

// array<array<...>> recurses once per level: past kMaxNesting levels the text is refused
// before the stack runs out (a CAST, a from_json schema or schemaHints of any depth).
Result<DataTypePtr> SqlTypeParser::Type() {
  static constexpr int kMaxNesting = 200;
  if (nesting_ >= kMaxNesting) {
    return Error(fmt::format("type nested more than {} levels deep", kMaxNesting));
  }
  ++nesting_;
  Result<DataTypePtr> type = TypeAtThisLevel();
  --nesting_;
  return type;
}

Result<DataTypePtr> SqlTypeParser::TypeAtThisLevel() {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string word, Name());
  static const std::pair<const char*, DataTypePtr (*)()> kPrimitives[] = {
      {"boolean", &DataType::Boolean},
      {"tinyint", &DataType::Int8},
      {"byte", &DataType::Int8},
      {"smallint", &DataType::Int16},
      {"short", &DataType::Int16},
      {"int", &DataType::Int32},
      {"integer", &DataType::Int32},
      {"bigint", &DataType::Int64},
      {"long", &DataType::Int64},
      {"float", &DataType::Float32},
      {"real", &DataType::Float32},
      {"double", &DataType::Float64},
      {"string", &DataType::String},
      {"binary", &DataType::Binary},
      {"date", &DataType::Date},
      {"timestamp", &DataType::Timestamp},
      {"timestamp_ltz", &DataType::Timestamp},
      {"timestamp_ntz", &DataType::TimestampNtz},
      {"void", &DataType::Null},
  };
  for (const auto& [name, make] : kPrimitives) {
    if (EqualsIgnoreAsciiCase(word, name)) {
      return make();
    }
  }
  if (EqualsIgnoreAsciiCase(word, "interval")) {
    return IntervalType();
  }
  if (EqualsIgnoreAsciiCase(word, "varchar") || EqualsIgnoreAsciiCase(word, "char")) {
    TRIBUTARY_RETURN_NOT_OK(Expect('('));
    TRIBUTARY_RETURN_NOT_OK(Integer().status());
    TRIBUTARY_RETURN_NOT_OK(Expect(')'));
    return DataType::String();
  }
  if (EqualsIgnoreAsciiCase(word, "decimal") || EqualsIgnoreAsciiCase(word, "dec") ||
      EqualsIgnoreAsciiCase(word, "numeric")) {
    int precision = 10;
    int scale = 0;
    if (TryConsume('(')) {
      TRIBUTARY_ASSIGN_OR_RAISE(precision, Integer());
      if (TryConsume(',')) {
        TRIBUTARY_ASSIGN_OR_RAISE(scale, Integer());
      }
      TRIBUTARY_RETURN_NOT_OK(Expect(')'));
    }
    auto type = DataType::Decimal(precision, scale);
    if (!type.ok()) {
      return Error(type.status().Message());
    }
    return type;
  }
  if (EqualsIgnoreAsciiCase(word, "array")) {
    TRIBUTARY_RETURN_NOT_OK(Expect('<'));
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr element, Type());
    TRIBUTARY_RETURN_NOT_OK(Expect('>'));
    return DataType::Array(std::move(element));
  }
  if (EqualsIgnoreAsciiCase(word, "map")) {
    TRIBUTARY_RETURN_NOT_OK(Expect('<'));
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr key, Type());
    TRIBUTARY_RETURN_NOT_OK(Expect(','));
    TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr value, Type());
    TRIBUTARY_RETURN_NOT_OK(Expect('>'));
    return DataType::Map(std::move(key), std::move(value));
  }
  if (EqualsIgnoreAsciiCase(word, "struct")) {
    TRIBUTARY_RETURN_NOT_OK(Expect('<'));
    std::vector<Field> fields;
    if (!TryConsume('>')) {
      do {
        TRIBUTARY_ASSIGN_OR_RAISE(std::string name, Name());
        TryConsume(':');
        TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, Type());
        TRIBUTARY_ASSIGN_OR_RAISE(bool nullable, MemberSuffix());
        fields.emplace_back(std::move(name), std::move(type), nullable);
      } while (TryConsume(','));
      TRIBUTARY_RETURN_NOT_OK(Expect('>'));
    }
    return DataType::Struct(std::move(fields));
  }
  return Status::InvalidArgument(fmt::format("unknown type '{}' at offset {} of type text '{}'",
                                             word, pos_ - word.size(), text_));
}

// INTERVAL unit [TO unit]: YEAR and MONTH make a year-month interval, DAY, HOUR, MINUTE and
// SECOND a day-time one, with Spark's start and end fields (INTERVAL HOUR TO SECOND); INTERVAL
// alone is the calendar interval type.
Result<DataTypePtr> SqlTypeParser::IntervalType() {
  static constexpr std::string_view kUnits[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
  auto unit_index = [](const std::string& name) {
    for (size_t i = 0; i < std::size(kUnits); ++i) {
      if (EqualsIgnoreAsciiCase(name, kUnits[i])) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  // INTERVAL without a unit is Spark's CalendarIntervalType.
  const size_t before_unit = pos_;
  SkipSpaces();
  if (pos_ >= text_.size() || std::isalpha(static_cast<unsigned char>(text_[pos_])) == 0) {
    pos_ = before_unit;
    return DataType::CalendarInterval();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string first_name, Name());
  const int first = unit_index(first_name);
  if (first < 0) {
    pos_ = before_unit;
    return DataType::CalendarInterval();
  }
  int last = first;
  const size_t before_to = pos_;
  SkipSpaces();
  if (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string word, Name());
    if (EqualsIgnoreAsciiCase(word, "to")) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string last_name, Name());
      last = unit_index(last_name);
      if (last < 0) {
        return Error(fmt::format("expected an interval unit after TO, got '{}'", last_name));
      }
    } else {
      pos_ = before_to;
    }
  } else {
    pos_ = before_to;
  }
  const bool year_month = first <= 1;
  if (last < first || (last <= 1) != year_month) {
    return Error(
        fmt::format("INTERVAL {} TO {} is not an interval type", kUnits[first], kUnits[last]));
  }
  return year_month ? DataType::YearMonthInterval(first, last)
                    : DataType::DayTimeInterval(first - 2, last - 2);
}

// [NOT NULL] [COMMENT 'text']: returns whether the member is nullable.
Result<bool> SqlTypeParser::MemberSuffix() {
  bool nullable = true;
  while (true) {
    const size_t save = pos_;
    SkipSpaces();
    if (pos_ >= text_.size() || !std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
      pos_ = save;
      return nullable;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string word, Name());
    if (EqualsIgnoreAsciiCase(word, "not")) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::string null_word, Name());
      if (!EqualsIgnoreAsciiCase(null_word, "null")) {
        return Error("expected NULL after NOT");
      }
      nullable = false;
    } else if (EqualsIgnoreAsciiCase(word, "comment")) {
      SkipSpaces();
      if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
        return Error("expected a quoted comment");
      }
      const char quote = text_[pos_++];
      while (pos_ < text_.size() && text_[pos_] != quote) {
        pos_ += text_[pos_] == '\\' ? 2 : 1;
      }
      if (pos_ >= text_.size()) {
        return Error("unterminated comment");
      }
      ++pos_;
    } else {
      pos_ = save;
      return nullable;
    }
  }
}

void SqlTypeParser::SkipSpaces() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
    ++pos_;
  }
}

Result<DataTypePtr> ParseSqlType(std::string_view text) {
  SqlTypeParser parser(text);
  TRIBUTARY_ASSIGN_OR_RAISE(DataTypePtr type, parser.Type());
  if (!parser.AtEnd()) {
    return parser.Error("unexpected text after the type");
  }
  return type;
}

}  // namespace tributary::columnar
