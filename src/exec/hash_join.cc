#include "exec/hash_join.h"

#include <fmt/format.h>

#include "columnar/take.h"

namespace tributary::exec {

using columnar::Column;

SchemaPtr ConcatSchemas(const columnar::Schema& left, const columnar::Schema& right) {
  std::vector<columnar::Field> fields = left.Fields();
  fields.insert(fields.end(), right.Fields().begin(), right.Fields().end());
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

Result<std::vector<ColumnPtr>> EvaluateAll(const std::vector<expr::BoundExprPtr>& expressions,
                                           const columnar::RecordBatch& batch,
                                           const expr::EvalContext& context) {
  std::vector<ColumnPtr> columns;
  for (const expr::BoundExprPtr& expression : expressions) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*expression, batch, context));
    columns.push_back(std::move(column));
  }
  return columns;
}

Status EvaluateJoinResidual(const expr::BoundExpression& residual, const SchemaPtr& pair_schema,
                            const columnar::RecordBatch& left, std::span<const int64_t> left_rows,
                            const columnar::RecordBatch& right, std::span<const int64_t> right_rows,
                            const expr::EvalContext& context, std::vector<uint8_t>* passes) {
  std::vector<ColumnPtr> columns;
  for (const ColumnPtr& column : left.Columns()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken, columnar::Take(*column, left_rows, context.pool));
    columns.push_back(std::move(taken));
  }
  for (const ColumnPtr& column : right.Columns()) {
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken, columnar::Take(*column, right_rows, context.pool));
    columns.push_back(std::move(taken));
  }
  const auto rows = static_cast<int64_t>(left_rows.size());
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr pairs,
                            columnar::RecordBatch::Make(pair_schema, rows, std::move(columns)));
  TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr mask, expr::Evaluate(residual, *pairs, context));
  const uint8_t* values = mask->Values<uint8_t>();
  passes->resize(left_rows.size());
  for (int64_t i = 0; i < rows; ++i) {
    (*passes)[static_cast<size_t>(i)] = (values[i] != 0 && mask->IsValid(i)) ? 1 : 0;
  }
  return Status::OK();
}

JoinBuildSide::JoinBuildSide(std::shared_ptr<const HashJoinNode> node, OperatorPtr right,
                             const ExecContext& context)
    : table(context.pool),
      heads(context.pool),
      tails(context.pool),
      integer_index(context.pool),
      next(context.pool),
      node_(std::move(node)),
      right_(std::move(right)),
      context_(context) {}

Status JoinBuildSide::Build() {
  std::lock_guard lock(mutex_);
  if (!built_) {
    built_ = true;
    status_ = BuildOnce().WithContext("hash join build side");
  }
  return status_;
}

Status JoinBuildSide::BuildOnce() {
  if (node_->LeftKeys().size() != node_->RightKeys().size()) {
    return Status::InvalidArgument(fmt::format("hash join: {} left keys but {} right keys",
                                               node_->LeftKeys().size(),
                                               node_->RightKeys().size()));
  }
  for (size_t k = 0; k < node_->LeftKeys().size(); ++k) {
    if (!node_->LeftKeys()[k]->Type()->SameShape(*node_->RightKeys()[k]->Type())) {
      return Status::InvalidArgument(fmt::format(
          "hash join: key {} = {} compares {} with {}", node_->LeftKeys()[k]->ToString(),
          node_->RightKeys()[k]->ToString(), node_->LeftKeys()[k]->Type()->ToString(),
          node_->RightKeys()[k]->Type()->ToString()));
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, Drain(*right_));
  const columnar::Schema& right_schema = *right_->OutputSchema();
  int64_t rows = 0;
  for (const RecordBatchPtr& batch : batches) {
    rows += batch->NumRows();
  }
  std::vector<ColumnPtr> columns;
  for (int c = 0; c < right_schema.NumFields(); ++c) {
    if (batches.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          ColumnPtr empty, Column::MakeAllNull(right_schema.FieldAt(c).Type(), 0, context_.pool));
      columns.push_back(std::move(empty));
      continue;
    }
    std::vector<ColumnPtr> pieces;
    pieces.reserve(batches.size());
    for (const RecordBatchPtr& batch : batches) {
      pieces.push_back(batch->ColumnAt(c));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Concatenate(pieces, context_.pool));
    columns.push_back(std::move(column));
  }
  batches.clear();
  TRIBUTARY_ASSIGN_OR_RAISE(
      right_rows, columnar::RecordBatch::Make(right_->OutputSchema(), rows, std::move(columns)));
  TRIBUTARY_RETURN_NOT_OK(next.Resize(rows));
  if (rows == 0) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys,
                            EvaluateAll(node_->RightKeys(), *right_rows, context_.eval));
  by_value = keys.size() == 1 && IntegerKeyIndex::Supports(*keys[0]->Type());
  if (by_value) {
    TRIBUTARY_RETURN_NOT_OK(integer_index.Build(*keys[0], next.data()));
    unique_keys = integer_index.UniqueKeys();
    return Status::OK();
  }
  EncodedKeys encoded;
  EncodeGroupingKeys(keys, rows, &encoded);
  std::vector<int32_t> groups(static_cast<size_t>(rows));
  // Rows with a null key are inserted too: a probe never looks a null key up, so they stay
  // unmatched, which is what right and full joins output them as.
  TRIBUTARY_RETURN_NOT_OK(table.Reserve(rows));
  TRIBUTARY_RETURN_NOT_OK(table.FindOrInsert(encoded, groups.data()));
  TRIBUTARY_RETURN_NOT_OK(heads.Resize(table.NumGroups()));
  TRIBUTARY_RETURN_NOT_OK(tails.Resize(table.NumGroups()));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t g = groups[static_cast<size_t>(r)];
    if (tails[g] == 0) {
      heads[g] = r + 1;
    } else {
      next[tails[g] - 1] = r + 1;
    }
    tails[g] = r + 1;
  }
  unique_keys = table.NumGroups() == rows;
  return Status::OK();
}

HashJoinOperator::HashJoinOperator(std::shared_ptr<const HashJoinNode> node, OperatorPtr left,
                                   OperatorPtr right, const ExecContext& context)
    : HashJoinOperator(node, std::move(left),
                       std::make_shared<JoinBuildSide>(node, std::move(right), context), context) {}

HashJoinOperator::HashJoinOperator(std::shared_ptr<const HashJoinNode> node, OperatorPtr left,
                                   std::shared_ptr<JoinBuildSide> build, const ExecContext& context)
    : node_(std::move(node)),
      left_(std::move(left)),
      build_(std::move(build)),
      pair_schema_(ConcatSchemas(*left_->OutputSchema(), *build_->Right().OutputSchema())),
      context_(context),
      state_(context.pool) {}

Status HashJoinOperator::StartLeftBatch(RecordBatchPtr batch) {
  const int64_t rows = batch->NumRows();
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys,
                            EvaluateAll(node_->LeftKeys(), *batch, context_.eval));
  state_.probe_heads.resize(static_cast<size_t>(rows));
  if (build_->right_rows->NumRows() == 0) {
    std::fill(state_.probe_heads.begin(), state_.probe_heads.end(), 0);
  } else if (build_->by_value) {
    build_->integer_index.Lookup(*keys[0], state_.probe_heads.data());
  } else {
    EncodeGroupingKeys(keys, rows, &state_.probe_keys);
    state_.probe_groups.resize(static_cast<size_t>(rows));
    build_->table.Find(state_.probe_keys, /*skip_nulls=*/true, state_.probe_groups.data());
    for (size_t i = 0; i < state_.probe_heads.size(); ++i) {
      const int32_t g = state_.probe_groups[i];
      state_.probe_heads[i] = g < 0 ? 0 : build_->heads[g];
    }
  }
  state_.left_matched.assign(static_cast<size_t>(rows), 0);
  state_.probe_row = 0;
  state_.chain = 0;
  state_.probe = std::move(batch);
  return Status::OK();
}

void HashJoinOperator::ProbeChunkWithoutResidual() {
  const int64_t rows = state_.probe->NumRows();
  const bool left_only = LeftOnly();
  const bool marks_left = left_only || KeepsUnmatchedLeft();
  const bool marks_right = KeepsUnmatchedRight();
  const bool unique_keys = build_->unique_keys;
  const int64_t* heads = state_.probe_heads.data();
  const int64_t* next = build_->next.data();
  std::vector<int64_t>& out_left = state_.out_left;
  std::vector<int64_t>& out_right = state_.out_right;
  int64_t row = state_.probe_row;
  int64_t chain = state_.chain;
  while (row < rows && static_cast<int64_t>(out_left.size()) < kTargetBatchRows) {
    if (chain == 0) {
      chain = heads[row];
      if (chain == 0) {
        ++row;
        continue;
      }
      if (marks_left) {
        state_.left_matched[static_cast<size_t>(row)] = 1;
      }
      if (left_only) {
        chain = 0;
        ++row;
        continue;
      }
    }
    const int64_t r = chain - 1;
    out_left.push_back(row);
    out_right.push_back(r);
    if (marks_right) {
      state_.right_matched[r] = 1;
    }
    chain = unique_keys ? 0 : next[r];
    if (chain == 0) {
      ++row;
    }
  }
  state_.probe_row = row;
  state_.chain = chain;
}

Status HashJoinOperator::ProbeChunk() {
  if (node_->Residual() == nullptr) {
    ProbeChunkWithoutResidual();
    return Status::OK();
  }
  const int64_t rows = state_.probe->NumRows();
  std::vector<int64_t> candidate_left;
  std::vector<int64_t> candidate_right;
  while (state_.probe_row < rows &&
         static_cast<int64_t>(candidate_left.size()) < kTargetBatchRows) {
    if (state_.chain == 0) {
      state_.chain = state_.probe_heads[static_cast<size_t>(state_.probe_row)];
      if (state_.chain == 0) {
        ++state_.probe_row;
        continue;
      }
    }
    const int64_t r = state_.chain - 1;
    candidate_left.push_back(state_.probe_row);
    candidate_right.push_back(r);
    state_.chain = build_->next[r];
    if (state_.chain == 0) {
      ++state_.probe_row;
    }
  }
  if (candidate_left.empty()) {
    return Status::OK();
  }
  std::vector<uint8_t> passes;
  TRIBUTARY_RETURN_NOT_OK(EvaluateJoinResidual(*node_->Residual(), pair_schema_, *state_.probe,
                                               candidate_left, *build_->right_rows, candidate_right,
                                               context_.eval, &passes));
  const bool marks_right = KeepsUnmatchedRight();
  for (size_t i = 0; i < passes.size(); ++i) {
    if (passes[i] == 0) {
      continue;
    }
    state_.left_matched[static_cast<size_t>(candidate_left[i])] = 1;
    if (marks_right) {
      state_.right_matched[candidate_right[i]] = 1;
    }
    if (!LeftOnly()) {
      state_.out_left.push_back(candidate_left[i]);
      state_.out_right.push_back(candidate_right[i]);
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> HashJoinOperator::EmitPairs() {
  const auto n = static_cast<int64_t>(state_.out_left.size());
  std::vector<ColumnPtr> columns;
  const columnar::Schema& left_schema = *left_->OutputSchema();
  for (int c = 0; c < left_schema.NumFields(); ++c) {
    ColumnPtr column;
    if (state_.probe == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          column, Column::MakeAllNull(left_schema.FieldAt(c).Type(), n, context_.eval.pool));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(
          column, TakeOrNull(*state_.probe->ColumnAt(c), state_.out_left, context_.eval.pool));
    }
    columns.push_back(std::move(column));
  }
  if (!LeftOnly()) {
    for (const ColumnPtr& build_column : build_->right_rows->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                                TakeOrNull(*build_column, state_.out_right, context_.eval.pool));
      columns.push_back(std::move(column));
    }
  }
  state_.out_left.clear();
  state_.out_right.clear();
  return columnar::RecordBatch::Make(node_->Schema(), n, std::move(columns));
}

Result<RecordBatchPtr> HashJoinOperator::Next() {
  if (!state_.built) {
    state_.built = true;
    TRIBUTARY_RETURN_NOT_OK(build_->Build());
    if (KeepsUnmatchedRight()) {
      TRIBUTARY_RETURN_NOT_OK(state_.right_matched.Resize(build_->right_rows->NumRows()));
    }
  }
  while (!state_.left_done) {
    if (state_.probe == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, left_->Next());
      if (batch == nullptr) {
        state_.left_done = true;
        break;
      }
      if (batch->NumRows() == 0) {
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(StartLeftBatch(std::move(batch)));
    }
    TRIBUTARY_RETURN_NOT_OK(ProbeChunk());
    const int64_t rows = state_.probe->NumRows();
    const bool finished = state_.probe_row >= rows;
    if (finished) {
      const bool keep_matched = node_->Type() == JoinType::kLeftSemi;
      const bool keep_unmatched = node_->Type() == JoinType::kLeftAnti || KeepsUnmatchedLeft();
      for (int64_t i = 0; i < rows; ++i) {
        const bool matched = state_.left_matched[static_cast<size_t>(i)] != 0;
        if ((matched && keep_matched) || (!matched && keep_unmatched)) {
          state_.out_left.push_back(i);
          state_.out_right.push_back(-1);
        }
      }
    }
    if (!state_.out_left.empty() &&
        (finished || static_cast<int64_t>(state_.out_left.size()) >= kTargetBatchRows)) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr out, EmitPairs());
      if (finished) {
        state_.probe = nullptr;
      }
      return out;
    }
    if (finished) {
      state_.probe = nullptr;
    }
  }
  if (KeepsUnmatchedRight()) {
    const int64_t build_rows = build_->right_rows->NumRows();
    while (state_.unmatched_right_cursor < build_rows &&
           static_cast<int64_t>(state_.out_right.size()) < kTargetBatchRows) {
      if (state_.right_matched[state_.unmatched_right_cursor] == 0) {
        state_.out_left.push_back(-1);
        state_.out_right.push_back(state_.unmatched_right_cursor);
      }
      ++state_.unmatched_right_cursor;
    }
    if (!state_.out_right.empty()) {
      return EmitPairs();
    }
  }
  return RecordBatchPtr{};
}

}  // namespace tributary::exec
