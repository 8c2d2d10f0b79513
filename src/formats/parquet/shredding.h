// Dremel shredding (parquet-format README.md, "Nested Encoding"): a slice of rows of one
// top-level column into the definition and repetition levels of one leaf, and which rows of
// the leaf column hold its values.

#pragma once

#include <cstdint>
#include <vector>

#include "columnar/column.h"
#include "formats/parquet/writer_schema.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// The level entries of a slice of one leaf.
struct Shredded {
  // One entry per level entry; empty when the leaf's max level is 0, and `def` also when
  // `uniform_def` is set.
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  // Row of the leaf column for each value (entries at max_def), unless `identity`.
  std::vector<int64_t> value_index;
  // Values are the leaf column's rows first_row .. first_row + num_values - 1.
  bool identity = false;
  // When >= 0, every entry's definition level (a flat column without nulls, or of type void),
  // so that no per-entry vector is filled.
  int16_t uniform_def = -1;
  int64_t first_row = 0;
  int64_t num_entries = 0;
  int64_t num_values = 0;
  const columnar::Column* leaf = nullptr;
};

/// Shreds slices of columns, reusing its buffers between calls.
///
/// Thread-safety: one thread at a time.
class Shredder {
 public:
  /// Shreds rows [r0, r1) of `top` into `out` for `leaf`. InvalidArgument when a node the
  /// schema makes required holds a null.
  Status Shred(const columnar::Column& top, const LeafInfo& leaf, int64_t r0, int64_t r1,
               Shredded* out);

 private:
  static Status ShredFlat(const columnar::Column& col, const LeafInfo& leaf, int64_t r0, int64_t n,
                          Shredded* out);

  // Entries still reaching `col` (idx >= 0) become undefined where it is null; live entries of
  // an optional node gain a definition level. False when a required node holds a null.
  bool ApplyNullable(const columnar::Column& col, bool nullable);

  // Replaces each live entry by one entry per element of its list (or map) row; an empty list
  // keeps one undefined entry.
  void Expand(const columnar::Column& col, int16_t rep_level);

  std::vector<int16_t> def_, rep_, new_def_, new_rep_;
  std::vector<int64_t> idx_, new_idx_;
};

}  // namespace tributary::parquet
