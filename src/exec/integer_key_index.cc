#include "exec/integer_key_index.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

namespace tributary::exec {

namespace {

using columnar::Column;
using columnar::TypeId;

// The direct layout is taken while key - min spans at most this many entries per build row
// (or kDirectFloor entries for small build sides): its array then costs at most four times
// what open addressing's two arrays at load 1/2 would.
constexpr uint64_t kDirectEntriesPerRow = 4;
constexpr uint64_t kDirectFloor = 4096;
constexpr int64_t kMinSlots = 16;

template <typename T>
void Widen(const Column& keys, std::vector<int64_t>* out) {
  const T* values = keys.Values<T>();
  out->resize(static_cast<size_t>(keys.Length()));
  std::copy(values, values + keys.Length(), out->begin());
}

// The keys as int64: the column's own values when they are 8 bytes wide, else widened into
// `scratch`. The values of null rows are whatever the buffer holds; callers check validity.
const int64_t* KeysAsInt64(const Column& keys, std::vector<int64_t>* scratch) {
  switch (keys.Type()->ByteWidth()) {
    case 1:
      Widen<int8_t>(keys, scratch);
      return scratch->data();
    case 2:
      Widen<int16_t>(keys, scratch);
      return scratch->data();
    case 4:
      Widen<int32_t>(keys, scratch);
      return scratch->data();
    default:
      return keys.Values<int64_t>();
  }
}

}  // namespace

bool IntegerKeyIndex::Supports(const columnar::DataType& type) {
  switch (type.Id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kYearMonthInterval:
      return true;
    default:
      return false;
  }
}

Status IntegerKeyIndex::Build(const Column& keys, int64_t* next) {
  const int64_t rows = keys.Length();
  direct_ = true;
  unique_keys_ = true;
  span_ = 0;
  if (keys.NullCount() == rows) {
    return Status::OK();  // nothing to index (and maybe no values buffer to read)
  }
  std::vector<int64_t> scratch;
  const int64_t* values = KeysAsInt64(keys, &scratch);
  const bool all_valid = keys.NullCount() == 0;
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = std::numeric_limits<int64_t>::min();
  int64_t valid = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (all_valid || keys.IsValid(r)) {
      min = std::min(min, values[r]);
      max = std::max(max, values[r]);
      ++valid;
    }
  }
  // Rows are visited last to first and each is put at the head of its key's chain, so chains
  // come out in build-row order without a tail per key.
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  const uint64_t direct_limit =
      std::max(kDirectFloor, kDirectEntriesPerRow * static_cast<uint64_t>(valid));
  if (range < direct_limit && rows < std::numeric_limits<int32_t>::max()) {
    min_ = min;
    span_ = range + 1;
    TRIBUTARY_RETURN_NOT_OK(heads_.Resize(static_cast<int64_t>(span_)));
    int32_t* heads = heads_.data();
    for (int64_t r = rows - 1; r >= 0; --r) {
      if (all_valid || keys.IsValid(r)) {
        const uint64_t entry = static_cast<uint64_t>(values[r]) - static_cast<uint64_t>(min_);
        next[r] = heads[entry];
        unique_keys_ = unique_keys_ && heads[entry] == 0;
        heads[entry] = static_cast<int32_t>(r + 1);
      }
    }
    return Status::OK();
  }
  direct_ = false;
  const int64_t slots =
      std::max(kMinSlots, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(valid) * 2)));
  mask_ = static_cast<uint64_t>(slots) - 1;
  shift_ = 64 - std::countr_zero(static_cast<uint64_t>(slots));
  TRIBUTARY_RETURN_NOT_OK(slots_.Resize(slots));
  Slot* table = slots_.data();
  for (int64_t r = rows - 1; r >= 0; --r) {
    if (!all_valid && keys.IsNull(r)) {
      continue;
    }
    const int64_t key = values[r];
    uint64_t slot = SlotOf(key);
    while (table[slot].head != 0 && table[slot].key != key) {
      slot = (slot + 1) & mask_;
    }
    next[r] = table[slot].head;
    unique_keys_ = unique_keys_ && table[slot].head == 0;
    table[slot] = {key, r + 1};
  }
  return Status::OK();
}

void IntegerKeyIndex::Lookup(const Column& keys, int64_t* heads) const {
  const int64_t rows = keys.Length();
  if (keys.NullCount() == rows || (direct_ && span_ == 0)) {
    std::fill(heads, heads + rows, 0);
    return;
  }
  std::vector<int64_t> scratch;
  const int64_t* values = KeysAsInt64(keys, &scratch);
  const bool all_valid = keys.NullCount() == 0;
  if (direct_) {
    const int32_t* table_heads = heads_.data();
    for (int64_t i = 0; i < rows; ++i) {
      const uint64_t entry = static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(min_);
      heads[i] = entry < span_ && (all_valid || keys.IsValid(i)) ? table_heads[entry] : 0;
    }
    return;
  }
  const Slot* table = slots_.data();
  for (int64_t i = 0; i < rows; ++i) {
    if (i + kPrefetchDistance < rows) {
      __builtin_prefetch(&table[SlotOf(values[i + kPrefetchDistance])]);
    }
    heads[i] = 0;
    if (!all_valid && keys.IsNull(i)) {
      continue;
    }
    const int64_t key = values[i];
    for (uint64_t slot = SlotOf(key); table[slot].head != 0; slot = (slot + 1) & mask_) {
      if (table[slot].key == key) {
        heads[i] = table[slot].head;
        break;
      }
    }
  }
}

}  // namespace tributary::exec
