// The build side of a hash join on one integer-like key column (integers, dates, timestamps,
// intervals), indexed by the key's value itself rather than by its grouping encoding: no
// encoded key bytes, no byte hash, and a lookup that compares one machine word.
//
// Two layouts, chosen per build side: when the keys span a range no wider than a small multiple
// of the row count (surrogate keys, dates, dense ids: the usual dimension table), a direct
// array indexed by key - min, so a lookup is one load; otherwise open addressing over the keys
// with linear probing and a multiplicative hash.

#pragma once

#include <cstdint>

#include "columnar/column.h"
#include "exec/row_key.h"

namespace tributary::exec {

/// Maps each distinct non-null key of a build column to its first build row, with the build
/// rows of one key chained in row order through `next` (the operator's array: next[r] = the
/// following row of r's key + 1, 0 at the end). Rows with a null key are left out: they never
/// match. Not thread-safe.
class IntegerKeyIndex {
 public:
  explicit IntegerKeyIndex(MemoryPool* pool) : heads_(pool), slots_(pool) {}

  /// Whether a key column of `type` can be indexed by value (one key column of such a type
  /// on both sides: the planner has coerced the pair to one type).
  static bool Supports(const columnar::DataType& type);

  /// Indexes the rows of `keys` (of a supported type); sets next[r] for every row r (next has
  /// keys.Length() entries). An error when the pool refuses memory.
  [[nodiscard]] Status Build(const columnar::Column& keys, int64_t* next);

  /// heads[i] = the first build row + 1 of row i's key of `keys` (same type as the build
  /// column), or 0 when the key is null or absent.
  void Lookup(const columnar::Column& keys, int64_t* heads) const;

  /// Whether no two build rows share a key (every chain is one row long).
  bool UniqueKeys() const { return unique_keys_; }

 private:
  // An open-addressing slot: key and head side by side, one cache line per probe.
  struct Slot {
    int64_t key;
    int64_t head;  // first build row + 1; 0: empty
  };

  // Direct layout: heads_[key - min_]; otherwise slots_.
  bool direct_ = false;
  bool unique_keys_ = true;
  int64_t min_ = 0;
  uint64_t span_ = 0;  // direct: number of entries
  uint64_t mask_ = 0;  // open addressing: slots - 1
  int shift_ = 0;      // open addressing: 64 - log2(slots)
  // The direct layout's first build row + 1 per key - min_, 0: none. Four bytes halve what a
  // lookup's random reads touch; a build side of 2^31 rows or more takes open addressing.
  PoolArray<int32_t> heads_;
  PoolArray<Slot> slots_;
  // Lookups prefetch this many rows ahead (open addressing; the direct array is small).
  static constexpr int64_t kPrefetchDistance = 16;

  uint64_t SlotOf(int64_t key) const {
    return (static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ULL) >> shift_;
  }
};

}  // namespace tributary::exec
