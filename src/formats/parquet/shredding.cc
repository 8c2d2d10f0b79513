#include "formats/parquet/shredding.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tributary::parquet {

using columnar::Column;
using columnar::TypeId;

namespace {

Status NullInRequired(const LeafInfo& leaf, size_t node) {
  return Status::InvalidArgument(
      fmt::format("parquet writer: column {} holds a null where its type allows none (level {})",
                  fmt::join(leaf.path_in_schema, "."), node));
}

}  // namespace

// Shreds rows [r0, r1) of `top` into `out` for `leaf`.
Status Shredder::Shred(const Column& top, const LeafInfo& leaf, int64_t r0, int64_t r1,
                       Shredded* out) {
  const int64_t n = r1 - r0;
  out->def.clear();
  out->rep.clear();
  out->value_index.clear();
  out->identity = false;
  out->uniform_def = -1;
  if (leaf.nodes.size() == 1) {
    return ShredFlat(top, leaf, r0, n, out);
  }
  def_.assign(static_cast<size_t>(n), 0);
  rep_.assign(static_cast<size_t>(n), 0);
  idx_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    idx_[static_cast<size_t>(i)] = r0 + i;
  }
  const Column* col = &top;
  int16_t rep_level = 0;
  for (size_t k = 0; k < leaf.nodes.size(); ++k) {
    const PathNode& node = leaf.nodes[k];
    if (k > 0) {
      if (node.repeated_before) {
        ++rep_level;
        Expand(*col, rep_level);
      }
      col = col->Child(node.child).get();
    }
    if (!ApplyNullable(*col, node.nullable)) {
      return NullInRequired(leaf, k);
    }
  }
  out->leaf = col;
  out->num_entries = static_cast<int64_t>(idx_.size());
  if (leaf.max_def > 0) {
    out->def.assign(def_.begin(), def_.end());
  }
  if (leaf.max_rep > 0) {
    out->rep.assign(rep_.begin(), rep_.end());
  }
  out->value_index.reserve(idx_.size());
  for (int64_t i : idx_) {
    if (i >= 0) {
      out->value_index.push_back(i);
    }
  }
  out->num_values = static_cast<int64_t>(out->value_index.size());
  return Status::OK();
}

Status Shredder::ShredFlat(const Column& col, const LeafInfo& leaf, int64_t r0, int64_t n,
                           Shredded* out) {
  out->leaf = &col;
  out->num_entries = n;
  const uint8_t* bits = col.ValidityBits();
  const bool all_null = col.Type()->Id() == TypeId::kNull;
  if (!leaf.nodes[0].nullable) {
    if (bits != nullptr && col.NullCount() > 0) {
      int64_t valid = 0;
      for (int64_t i = 0; i < n; ++i) {
        valid += columnar::GetBit(bits, r0 + i);
      }
      if (valid != n) {
        return NullInRequired(leaf, 0);
      }
    }
    out->identity = true;
    out->first_row = r0;
    out->num_values = n;
    return Status::OK();
  }
  if (all_null) {
    out->uniform_def = 0;
    out->num_values = 0;
    out->identity = true;
    out->first_row = r0;
    return Status::OK();
  }
  if (bits == nullptr || col.NullCount() == 0) {
    out->uniform_def = 1;
    out->identity = true;
    out->first_row = r0;
    out->num_values = n;
    return Status::OK();
  }
  out->def.resize(static_cast<size_t>(n));
  int16_t* def = out->def.data();
  for (int64_t i = 0; i < n; ++i) {
    def[i] = static_cast<int16_t>(columnar::GetBit(bits, r0 + i));
  }
  out->value_index.resize(static_cast<size_t>(n));
  int64_t* idx = out->value_index.data();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    idx[count] = r0 + i;
    count += def[i];
  }
  out->value_index.resize(static_cast<size_t>(count));
  out->num_values = count;
  return Status::OK();
}

// Entries still reaching `col` (idx >= 0) become undefined where it is null; live entries of
// an optional node gain a definition level. False when a required node holds a null.
bool Shredder::ApplyNullable(const Column& col, bool nullable) {
  const size_t n = idx_.size();
  if (col.Type()->Id() == TypeId::kNull) {
    for (size_t i = 0; i < n; ++i) {
      if (idx_[i] >= 0) {
        if (!nullable) {
          return false;
        }
        idx_[i] = -1;
      }
    }
    return true;
  }
  const uint8_t* bits = col.NullCount() > 0 ? col.ValidityBits() : nullptr;
  if (bits == nullptr) {
    if (nullable) {
      for (size_t i = 0; i < n; ++i) {
        def_[i] = static_cast<int16_t>(def_[i] + (idx_[i] >= 0));
      }
    }
    return true;
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t row = idx_[i];
    if (row < 0) {
      continue;
    }
    if (columnar::GetBit(bits, row)) {
      def_[i] = static_cast<int16_t>(def_[i] + (nullable ? 1 : 0));
    } else {
      if (!nullable) {
        return false;
      }
      idx_[i] = -1;
    }
  }
  return true;
}

// Replaces each live entry by one entry per element of its list (or map) row; an empty list
// keeps one undefined entry.
void Shredder::Expand(const Column& col, int16_t rep_level) {
  const int64_t* offsets = col.Offsets();
  const size_t n = idx_.size();
  new_def_.clear();
  new_rep_.clear();
  new_idx_.clear();
  size_t estimate = n;
  if (n > 0) {
    int64_t lo = -1;
    int64_t hi = -1;
    for (size_t i = 0; i < n && lo < 0; ++i) {
      lo = idx_[i];
    }
    for (size_t i = n; i > 0 && hi < 0; --i) {
      hi = idx_[i - 1];
    }
    if (lo >= 0 && hi >= lo) {
      estimate += static_cast<size_t>(std::max<int64_t>(0, offsets[hi + 1] - offsets[lo]));
    }
  }
  new_def_.reserve(estimate);
  new_rep_.reserve(estimate);
  new_idx_.reserve(estimate);
  for (size_t i = 0; i < n; ++i) {
    const int64_t row = idx_[i];
    const int64_t begin = row >= 0 ? offsets[row] : 0;
    const int64_t end = row >= 0 ? offsets[row + 1] : 0;
    if (begin >= end) {
      new_def_.push_back(def_[i]);
      new_rep_.push_back(rep_[i]);
      new_idx_.push_back(-1);
      continue;
    }
    const auto d = static_cast<int16_t>(def_[i] + 1);
    new_def_.push_back(d);
    new_rep_.push_back(rep_[i]);
    new_idx_.push_back(begin);
    for (int64_t e = begin + 1; e < end; ++e) {
      new_def_.push_back(d);
      new_rep_.push_back(rep_level);
      new_idx_.push_back(e);
    }
  }
  def_.swap(new_def_);
  rep_.swap(new_rep_);
  idx_.swap(new_idx_);
}

}  // namespace tributary::parquet
