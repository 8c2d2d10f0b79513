#include "exec/hash_join.h"

#include <fmt/format.h>

#include "columnar/take.h"

namespace tributary::exec {

using columnar::Column;

namespace {

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

}  // namespace

std::string_view JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left_outer";
    case JoinType::kRight:
      return "right_outer";
    case JoinType::kFull:
      return "full_outer";
    case JoinType::kLeftSemi:
      return "left_semi";
    case JoinType::kLeftAnti:
      return "left_anti";
    case JoinType::kCross:
      return "cross";
  }
  return "?";
}

HashJoinOperator::HashJoinOperator(OperatorPtr left, OperatorPtr right, JoinType type,
                                   std::vector<expr::BoundExprPtr> left_keys,
                                   std::vector<expr::BoundExprPtr> right_keys,
                                   expr::BoundExprPtr residual, SchemaPtr output_schema,
                                   const ExecContext& context)
    : left_(std::move(left)),
      right_(std::move(right)),
      type_(type),
      left_keys_(std::move(left_keys)),
      right_keys_(std::move(right_keys)),
      residual_(std::move(residual)),
      schema_(std::move(output_schema)),
      pair_schema_(ConcatSchemas(*left_->OutputSchema(), *right_->OutputSchema())),
      context_(context),
      table_(context.pool),
      heads_(context.pool),
      tails_(context.pool),
      next_(context.pool),
      right_matched_(context.pool) {}

Status HashJoinOperator::Build() {
  if (left_keys_.size() != right_keys_.size()) {
    return Status::InvalidArgument(fmt::format("hash join: {} left keys but {} right keys",
                                               left_keys_.size(), right_keys_.size()));
  }
  for (size_t k = 0; k < left_keys_.size(); ++k) {
    if (!left_keys_[k]->Type()->SameShape(*right_keys_[k]->Type())) {
      return Status::InvalidArgument(
          fmt::format("hash join: key {} = {} compares {} with {}", left_keys_[k]->ToString(),
                      right_keys_[k]->ToString(), left_keys_[k]->Type()->ToString(),
                      right_keys_[k]->Type()->ToString()));
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
    for (const RecordBatchPtr& batch : batches) {
      pieces.push_back(batch->ColumnAt(c));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Concatenate(pieces, context_.pool));
    columns.push_back(std::move(column));
  }
  batches.clear();
  TRIBUTARY_ASSIGN_OR_RAISE(
      build_, columnar::RecordBatch::Make(right_->OutputSchema(), rows, std::move(columns)));
  TRIBUTARY_RETURN_NOT_OK(next_.Resize(rows));
  TRIBUTARY_RETURN_NOT_OK(right_matched_.Resize(rows));
  if (rows == 0) {
    return Status::OK();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys,
                            EvaluateAll(right_keys_, *build_, context_.eval));
  EncodedKeys encoded;
  EncodeGroupingKeys(keys, rows, &encoded);
  std::vector<int32_t> groups(static_cast<size_t>(rows));
  // Rows with a null key are inserted too: a probe never looks a null key up, so they stay
  // unmatched, which is what right and full joins output them as.
  TRIBUTARY_RETURN_NOT_OK(table_.Reserve(rows));
  TRIBUTARY_RETURN_NOT_OK(table_.FindOrInsert(encoded, groups.data()));
  TRIBUTARY_RETURN_NOT_OK(heads_.Resize(table_.NumGroups()));
  TRIBUTARY_RETURN_NOT_OK(tails_.Resize(table_.NumGroups()));
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t g = groups[static_cast<size_t>(r)];
    if (tails_[g] == 0) {
      heads_[g] = r + 1;
    } else {
      next_[tails_[g] - 1] = r + 1;
    }
    tails_[g] = r + 1;
  }
  return Status::OK();
}

Status HashJoinOperator::StartLeftBatch(RecordBatchPtr batch) {
  const int64_t rows = batch->NumRows();
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys,
                            EvaluateAll(left_keys_, *batch, context_.eval));
  EncodeGroupingKeys(keys, rows, &probe_keys_);
  probe_groups_.resize(static_cast<size_t>(rows));
  table_.Find(probe_keys_, /*skip_nulls=*/true, probe_groups_.data());
  left_matched_.assign(static_cast<size_t>(rows), 0);
  probe_row_ = 0;
  chain_ = 0;
  probe_ = std::move(batch);
  return Status::OK();
}

Status HashJoinOperator::ProbeChunk() {
  const int64_t rows = probe_->NumRows();
  std::vector<int64_t> candidate_left;
  std::vector<int64_t> candidate_right;
  const bool marks_only = LeftOnly() && residual_ == nullptr;
  while (probe_row_ < rows && static_cast<int64_t>(candidate_left.size()) < kTargetBatchRows) {
    if (chain_ == 0) {
      const int32_t g = probe_groups_[static_cast<size_t>(probe_row_)];
      if (g < 0) {
        ++probe_row_;
        continue;
      }
      if (marks_only) {
        left_matched_[static_cast<size_t>(probe_row_)] = 1;
        ++probe_row_;
        continue;
      }
      chain_ = heads_[g];
    }
    const int64_t r = chain_ - 1;
    candidate_left.push_back(probe_row_);
    candidate_right.push_back(r);
    chain_ = next_[r];
    if (chain_ == 0) {
      ++probe_row_;
    }
  }
  if (candidate_left.empty()) {
    return Status::OK();
  }
  std::vector<uint8_t> passes(candidate_left.size(), 1);
  if (residual_ != nullptr) {
    std::vector<ColumnPtr> columns;
    for (const ColumnPtr& column : probe_->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken,
                                columnar::Take(*column, candidate_left, context_.eval.pool));
      columns.push_back(std::move(taken));
    }
    for (const ColumnPtr& column : build_->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken,
                                columnar::Take(*column, candidate_right, context_.eval.pool));
      columns.push_back(std::move(taken));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        RecordBatchPtr pairs,
        columnar::RecordBatch::Make(pair_schema_, static_cast<int64_t>(candidate_left.size()),
                                    std::move(columns)));
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr mask, expr::Evaluate(*residual_, *pairs, context_.eval));
    const uint8_t* values = mask->Values<uint8_t>();
    for (size_t i = 0; i < passes.size(); ++i) {
      passes[i] = (values[i] != 0 && mask->IsValid(static_cast<int64_t>(i))) ? 1 : 0;
    }
  }
  const bool marks_right = KeepsUnmatchedRight();
  for (size_t i = 0; i < passes.size(); ++i) {
    if (passes[i] == 0) {
      continue;
    }
    left_matched_[static_cast<size_t>(candidate_left[i])] = 1;
    if (marks_right) {
      right_matched_[candidate_right[i]] = 1;
    }
    if (!LeftOnly()) {
      out_left_.push_back(candidate_left[i]);
      out_right_.push_back(candidate_right[i]);
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> HashJoinOperator::EmitPairs() {
  const auto n = static_cast<int64_t>(out_left_.size());
  std::vector<ColumnPtr> columns;
  const columnar::Schema& left_schema = *left_->OutputSchema();
  for (int c = 0; c < left_schema.NumFields(); ++c) {
    ColumnPtr column;
    if (probe_ == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          column, Column::MakeAllNull(left_schema.FieldAt(c).Type(), n, context_.eval.pool));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(column,
                                TakeOrNull(*probe_->ColumnAt(c), out_left_, context_.eval.pool));
    }
    columns.push_back(std::move(column));
  }
  if (!LeftOnly()) {
    for (const ColumnPtr& build_column : build_->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column,
                                TakeOrNull(*build_column, out_right_, context_.eval.pool));
      columns.push_back(std::move(column));
    }
  }
  out_left_.clear();
  out_right_.clear();
  return columnar::RecordBatch::Make(schema_, n, std::move(columns));
}

Result<RecordBatchPtr> HashJoinOperator::Next() {
  if (!built_) {
    built_ = true;
    TRIBUTARY_RETURN_NOT_OK(Build().WithContext("hash join build side"));
  }
  while (!left_done_) {
    if (probe_ == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, left_->Next());
      if (batch == nullptr) {
        left_done_ = true;
        break;
      }
      if (batch->NumRows() == 0) {
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(StartLeftBatch(std::move(batch)));
    }
    TRIBUTARY_RETURN_NOT_OK(ProbeChunk());
    const int64_t rows = probe_->NumRows();
    const bool finished = probe_row_ >= rows;
    if (finished) {
      const bool keep_matched = type_ == JoinType::kLeftSemi;
      const bool keep_unmatched = type_ == JoinType::kLeftAnti || KeepsUnmatchedLeft();
      for (int64_t i = 0; i < rows; ++i) {
        const bool matched = left_matched_[static_cast<size_t>(i)] != 0;
        if ((matched && keep_matched) || (!matched && keep_unmatched)) {
          out_left_.push_back(i);
          out_right_.push_back(-1);
        }
      }
    }
    if (!out_left_.empty() &&
        (finished || static_cast<int64_t>(out_left_.size()) >= kTargetBatchRows)) {
      TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr out, EmitPairs());
      if (finished) {
        probe_ = nullptr;
      }
      return out;
    }
    if (finished) {
      probe_ = nullptr;
    }
  }
  if (KeepsUnmatchedRight()) {
    const int64_t build_rows = build_->NumRows();
    while (unmatched_right_cursor_ < build_rows &&
           static_cast<int64_t>(out_right_.size()) < kTargetBatchRows) {
      if (right_matched_[unmatched_right_cursor_] == 0) {
        out_left_.push_back(-1);
        out_right_.push_back(unmatched_right_cursor_);
      }
      ++unmatched_right_cursor_;
    }
    if (!out_right_.empty()) {
      return EmitPairs();
    }
  }
  return RecordBatchPtr{};
}

std::string HashJoinOperator::ToString() const {
  std::string out = fmt::format("HashJoin({}", JoinTypeName(type_));
  if (!left_keys_.empty()) {
    out += ", keys=[";
    for (size_t k = 0; k < left_keys_.size(); ++k) {
      out += (k > 0 ? ", " : "") + left_keys_[k]->ToString() + " = " + right_keys_[k]->ToString();
    }
    out += "]";
  }
  if (residual_ != nullptr) {
    out += ", residual=" + residual_->ToString();
  }
  return out + ")";
}

}  // namespace tributary::exec
