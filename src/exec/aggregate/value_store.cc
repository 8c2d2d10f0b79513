#include <cstring>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

// Keys (group id, grouping key of the arguments) for DISTINCT and collect_set: a row is the
// first of its (group, value) when its id in a GroupTable of these keys is new.
void PrefixWithGroups(const EncodedKeys& keys, const int32_t* groups, EncodedKeys* out) {
  const int64_t rows = keys.NumRows();
  out->offsets.resize(static_cast<size_t>(rows) + 1);
  out->bytes.resize(keys.bytes.size() + static_cast<size_t>(rows) * 4);
  out->hashes.resize(static_cast<size_t>(rows));
  out->has_null = keys.has_null;
  out->offsets[0] = 0;
  uint8_t* bytes = out->bytes.data();
  for (int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<size_t>(i);
    const int64_t begin = out->offsets[r];
    std::memcpy(bytes + begin, &groups[i], 4);
    std::string_view key = keys.Key(i);
    if (!key.empty()) {
      std::memcpy(bytes + begin + 4, key.data(), key.size());
    }
    out->offsets[r + 1] = begin + 4 + static_cast<int64_t>(key.size());
    out->hashes[r] = HashBytes(bytes + begin, 4 + key.size());
  }
}

}  // namespace

Status FindOrInsertPairs(GroupTable& table, std::span<const ColumnPtr> args, int64_t rows,
                         const int32_t* groups, std::vector<int32_t>* ids,
                         std::vector<uint8_t>* has_null) {
  EncodedKeys keys;
  EncodeGroupingKeys(args, rows, &keys);
  EncodedKeys prefixed;
  PrefixWithGroups(keys, groups, &prefixed);
  ids->resize(static_cast<size_t>(rows));
  TRIBUTARY_RETURN_NOT_OK(table.FindOrInsert(prefixed, ids->data()));
  *has_null = std::move(keys.has_null);
  return Status::OK();
}

// Rows of `keys` that are the first of their (group, key) pair in `seen`.
Result<std::vector<int64_t>> FirstOccurrences(GroupTable& seen, std::span<const ColumnPtr> args,
                                              int64_t rows, const int32_t* groups,
                                              bool skip_nulls) {
  std::vector<int32_t> ids;
  std::vector<uint8_t> has_null;
  int64_t next_new = seen.NumGroups();
  TRIBUTARY_RETURN_NOT_OK(FindOrInsertPairs(seen, args, rows, groups, &ids, &has_null));
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < rows; ++i) {
    if (ids[static_cast<size_t>(i)] == next_new) {
      ++next_new;
      if (!skip_nulls || has_null[static_cast<size_t>(i)] == 0) {
        selected.push_back(i);
      }
    }
  }
  return selected;
}

Status StateReader::Need(size_t size) const {
  if (rest_.size() < size) {
    return Status::Corruption(
        fmt::format("{}: needs {} more bytes, {} left", what_, size, rest_.size()));
  }
  return Status::OK();
}

Status StateReader::ReadGroupingValue(const DataType& type, std::string_view* bytes) {
  Result<size_t> size = MeasureGroupingValue(type, rest_);
  if (!size.ok()) {
    return size.status().WithContext(what_);
  }
  return ReadBytes(*size, bytes);
}

Status StateReader::Finish() const {
  if (!rest_.empty()) {
    return Status::Corruption(fmt::format("{}: {} bytes left over", what_, rest_.size()));
  }
  return Status::OK();
}

Status ValueStore::Commit(const Column& column,
                          const std::vector<std::pair<int32_t, int64_t>>& pending) {
  if (pending.empty()) {
    return Status::OK();
  }
  std::vector<int64_t> rows;
  rows.reserve(pending.size());
  for (const auto& [group, row] : pending) {
    rows.push_back(row);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(column, rows, pool_));
  for (size_t k = 0; k < pending.size(); ++k) {
    refs_[pending[k].first] = stored_rows_ + static_cast<int64_t>(k) + 1;
  }
  stored_rows_ += chunk->Length();
  chunks_.push_back(std::move(chunk));
  if (stored_rows_ > 2 * refs_.size() + kTargetBatchRows) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr compact, Gather(refs_.size()));
    chunks_ = {compact};
    stored_rows_ = compact->Length();
    for (int64_t g = 0; g < refs_.size(); ++g) {
      refs_[g] = refs_[g] == 0 ? 0 : g + 1;
    }
  }
  return Status::OK();
}

Result<ColumnPtr> ValueStore::Gather(int64_t groups) const {
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool_));
  std::vector<int64_t> indices(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    indices[static_cast<size_t>(g)] = refs_[g] - 1;
  }
  return TakeOrNull(*all, indices, pool_);
}

}  // namespace tributary::exec::aggregate
