#include "exec/sort.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/row_key.h"

namespace tributary::exec {

SortOperator::SortOperator(OperatorPtr input, std::vector<SortKey> keys, const ExecContext& context,
                           std::optional<int64_t> limit)
    : input_(std::move(input)), keys_(std::move(keys)), context_(context), limit_(limit) {}

Result<std::vector<ColumnPtr>> SortOperator::Augment(const columnar::RecordBatch& batch) const {
  std::vector<ColumnPtr> columns = batch.Columns();
  for (const SortKey& key : keys_) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                              expr::Evaluate(*key.expression, batch, context_.eval));
    columns.push_back(std::move(column));
  }
  return columns;
}

std::vector<int64_t> SortOperator::Order(const std::vector<ColumnPtr>& columns, int64_t rows,
                                         int64_t keep) const {
  const size_t first_key = columns.size() - keys_.size();
  std::vector<OrderingDirection> directions;
  for (const SortKey& key : keys_) {
    directions.push_back({key.ascending, key.nulls_first});
  }
  EncodedKeys encoded;
  EncodeOrderingKeys(std::span<const ColumnPtr>(columns).subspan(first_key), directions, rows,
                     &encoded);
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  if (keep < rows) {
    // Ties broken by input position: the same rows, in the same order, a stable sort gives.
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t a, int64_t b) {
      const int c = encoded.Key(a).compare(encoded.Key(b));
      return c < 0 || (c == 0 && a < b);
    });
    order.resize(static_cast<size_t>(keep));
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return encoded.Key(a) < encoded.Key(b); });
  }
  return order;
}

Result<std::vector<ColumnPtr>> SortOperator::Merge(
    const std::vector<std::vector<ColumnPtr>>& pieces, int64_t keep) const {
  std::vector<ColumnPtr> all;
  const size_t width = pieces.front().size();
  for (size_t c = 0; c < width; ++c) {
    std::vector<ColumnPtr> parts;
    for (const std::vector<ColumnPtr>& piece : pieces) {
      parts.push_back(piece[c]);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Concatenate(parts, context_.pool));
    all.push_back(std::move(column));
  }
  const int64_t rows = all.front()->Length();
  const std::vector<int64_t> order = Order(all, rows, std::min(keep, rows));
  std::vector<ColumnPtr> out;
  for (const ColumnPtr& column : all) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken, columnar::Take(*column, order, context_.pool));
    out.push_back(std::move(taken));
  }
  return out;
}

Status SortOperator::Consume() {
  const int64_t keep = limit_.value_or(INT64_MAX);
  if (keep <= 0) {
    return Status::OK();
  }
  std::vector<std::vector<ColumnPtr>> pieces;
  int64_t pending_rows = 0;
  // Top-N merges kept rows back down to `keep` whenever they pass this many (a limit past
  // INT64_MAX / 2, as Show(n) of every row asks, never merges: 2 * keep would overflow).
  const int64_t merge_at =
      !limit_ || keep > INT64_MAX / 2 ? INT64_MAX : std::max(2 * keep, kTargetBatchRows);
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    const int64_t rows = batch->NumRows();
    if (rows == 0) {
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns, Augment(*batch));
    if (rows > keep) {
      TRIBUTARY_ASSIGN_OR_RAISE(columns, Merge({columns}, keep));
    }
    pending_rows += std::min(rows, keep);
    pieces.push_back(std::move(columns));
    if (pending_rows > merge_at) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> merged, Merge(pieces, keep));
      pieces.clear();
      pending_rows = merged.front()->Length();
      pieces.push_back(std::move(merged));
    }
  }
  if (pieces.empty()) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> merged, Merge(pieces, keep));
  merged.resize(merged.size() - keys_.size());
  sorted_rows_ = merged.front()->Length();
  sorted_ = std::move(merged);
  return Status::OK();
}

Result<RecordBatchPtr> SortOperator::Next() {
  if (!consumed_) {
    consumed_ = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("sort"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, NextSlice(OutputSchema(), sorted_, sorted_rows_,
                                                            &emitted_rows_, context_.eval.pool));
  if (batch == nullptr) {
    sorted_.clear();
  }
  return batch;
}

std::string SortOperator::ToString() const {
  std::string out = limit_ ? "TopN(" : "Sort(";
  for (size_t k = 0; k < keys_.size(); ++k) {
    const SortKey& key = keys_[k];
    out += (k > 0 ? ", " : "") + key.expression->ToString() + (key.ascending ? " ASC" : " DESC") +
           (key.nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  if (limit_) {
    out += fmt::format(", limit={}", *limit_);
  }
  return out + ")";
}

}  // namespace tributary::exec
