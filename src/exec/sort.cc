#include "exec/sort.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/row_key.h"

namespace tributary::exec {

SortOperator::SortOperator(std::shared_ptr<const SortNode> node, OperatorPtr input,
                           const ExecContext& context)
    : node_(std::move(node)), input_(std::move(input)), context_(context) {}

Result<std::vector<ColumnPtr>> SortOperator::Augment(const columnar::RecordBatch& batch) const {
  std::vector<ColumnPtr> columns = batch.Columns();
  for (const SortKey& key : node_->Keys()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                              expr::Evaluate(*key.expression, batch, context_.eval));
    columns.push_back(std::move(column));
  }
  return columns;
}

std::vector<int64_t> SortOperator::Order(const std::vector<ColumnPtr>& columns, int64_t rows,
                                         int64_t keep) const {
  const size_t first_key = columns.size() - node_->Keys().size();
  std::vector<OrderingDirection> directions;
  for (const SortKey& key : node_->Keys()) {
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
    parts.reserve(pieces.size());
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
  const int64_t keep = node_->Limit().value_or(INT64_MAX);
  if (keep <= 0) {
    return Status::OK();
  }
  std::vector<std::vector<ColumnPtr>> pieces;
  int64_t pending_rows = 0;
  // Top-N merges kept rows back down to `keep` whenever they pass this many (a limit past
  // INT64_MAX / 2, as Show(n) of every row asks, never merges: 2 * keep would overflow).
  const int64_t merge_at =
      !node_->Limit() || keep > INT64_MAX / 2 ? INT64_MAX : std::max(2 * keep, kTargetBatchRows);
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
  merged.resize(merged.size() - node_->Keys().size());
  state_.sorted_rows = merged.front()->Length();
  state_.sorted = std::move(merged);
  return Status::OK();
}

Result<RecordBatchPtr> SortOperator::Next() {
  if (!state_.consumed) {
    state_.consumed = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("sort"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                            NextSlice(OutputSchema(), state_.sorted, state_.sorted_rows,
                                      &state_.emitted_rows, context_.eval.pool));
  if (batch == nullptr) {
    state_.sorted.clear();
  }
  return batch;
}

}  // namespace tributary::exec
