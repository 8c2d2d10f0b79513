#include "columnar/schema.h"

#include <strings.h>

#include <fmt/format.h>

namespace tributary::columnar {

Schema::Schema(std::vector<Field> fields, FieldMetadata metadata)
    : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

int Schema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].Name() == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Result<int> Schema::FieldIndexIgnoreCase(const std::string& name) const {
  int found = -1;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].Name().size() == name.size() &&
        strncasecmp(fields_[i].Name().c_str(), name.c_str(), name.size()) == 0) {
      if (found >= 0) {
        return Status::InvalidArgument(
            fmt::format("column reference '{}' is ambiguous: it matches '{}' and '{}'", name,
                        fields_[static_cast<size_t>(found)].Name(), fields_[i].Name()));
      }
      found = static_cast<int>(i);
    }
  }
  return found;
}

DataTypePtr Schema::AsStruct() const {
  return DataType::Struct(fields_);
}

bool Schema::Equals(const Schema& other) const {
  if (fields_.size() != other.fields_.size() || metadata_ != other.metadata_) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i])) {
      return false;
    }
  }
  return true;
}

std::string Schema::ToString() const {
  std::string out;
  for (const auto& field : fields_) {
    out += field.ToString();
    out += '\n';
  }
  return out;
}

}  // namespace tributary::columnar
