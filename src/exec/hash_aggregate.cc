#include "exec/hash_aggregate.h"

#include <fmt/format.h>

#include "columnar/canonical_json.h"

namespace tributary::exec {

HashAggregateOperator::HashAggregateOperator(std::shared_ptr<const HashAggregateNode> node,
                                             OperatorPtr input, const ExecContext& context)
    : node_(std::move(node)), input_(std::move(input)), context_(context), state_(context.pool) {}

std::string HashAggregateOperator::DescribeGroup(int32_t group) const {
  return DescribeGroupingKey(node_->Keys(), state_.groups.KeyOf(group));
}

std::string DescribeGroupingKey(const std::vector<expr::BoundExprPtr>& keys,
                                std::string_view encoded) {
  if (keys.empty()) {
    return "()";
  }
  std::vector<DataTypePtr> types;
  types.reserve(keys.size());
  for (const expr::BoundExprPtr& key : keys) {
    types.push_back(key->Type());
  }
  const std::string_view key_bytes[] = {encoded};
  auto columns = DecodeGroupingKeys(types, key_bytes, columnar::DefaultMemoryPool());
  if (!columns.ok()) {
    return "(?)";
  }
  std::string out = "(";
  for (size_t k = 0; k < keys.size(); ++k) {
    out += (k > 0 ? ", " : "") + keys[k]->ToString() + "=";
    columnar::AppendCanonicalJsonValue(*(*columns)[k], 0, &out);
  }
  return out + ")";
}

Status HashAggregateOperator::Consume() {
  const std::vector<expr::BoundExprPtr>& keys = node_->Keys();
  const std::vector<AggregateCall>& aggregates = node_->Aggregates();
  const columnar::Schema& schema = *node_->Schema();
  std::vector<size_t> value_arguments(aggregates.size());
  for (size_t a = 0; a < aggregates.size(); ++a) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto accumulator,
                              MakeAccumulator(aggregates[a], context_.pool, &value_arguments[a]));
    state_.accumulators.push_back(std::move(accumulator));
  }
  const GroupNamer namer = [this](int32_t group) {
    return DescribeGroup(group);
  };
  EncodedKeys encoded;
  std::vector<int32_t> group_ids;
  std::vector<ColumnPtr> key_columns;
  std::vector<ColumnPtr> arguments;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, input_->Next());
    if (batch == nullptr) {
      break;
    }
    const int64_t rows = batch->NumRows();
    if (rows == 0) {
      continue;
    }
    key_columns.clear();
    for (const expr::BoundExprPtr& key : keys) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, expr::Evaluate(*key, *batch, context_.eval));
      key_columns.push_back(std::move(column));
    }
    EncodeGroupingKeys(key_columns, rows, &encoded);
    group_ids.resize(static_cast<size_t>(rows));
    TRIBUTARY_RETURN_NOT_OK(state_.groups.FindOrInsert(encoded, group_ids.data()));
    for (size_t a = 0; a < aggregates.size(); ++a) {
      Accumulator& accumulator = *state_.accumulators[a];
      TRIBUTARY_RETURN_NOT_OK(accumulator.Resize(state_.groups.NumGroups()));
      arguments.clear();
      for (size_t i = 0; i < value_arguments[a]; ++i) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            ColumnPtr column, expr::Evaluate(*aggregates[a].arguments[i], *batch, context_.eval));
        arguments.push_back(std::move(column));
      }
      TRIBUTARY_RETURN_NOT_OK(
          accumulator.Update(arguments, group_ids.data(), rows, namer)
              .WithContext(fmt::format("computing {}", aggregates[a].function)));
    }
  }
  if (keys.empty() && state_.groups.NumGroups() == 0) {
    // SQL: an aggregate without GROUP BY returns one row even over no input.
    EncodeGroupingKeys({}, 1, &encoded);
    int32_t group = 0;
    TRIBUTARY_RETURN_NOT_OK(state_.groups.FindOrInsert(encoded, &group));
  }
  const int64_t num_groups = state_.groups.NumGroups();
  std::vector<DataTypePtr> key_types;
  for (size_t k = 0; k < keys.size(); ++k) {
    key_types.push_back(schema.FieldAt(static_cast<int>(k)).Type());
  }
  std::vector<std::string_view> key_bytes(static_cast<size_t>(num_groups));
  for (int64_t g = 0; g < num_groups; ++g) {
    key_bytes[static_cast<size_t>(g)] = state_.groups.KeyOf(g);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(state_.result_columns,
                            DecodeGroupingKeys(key_types, key_bytes, context_.eval.pool));
  for (size_t a = 0; a < state_.accumulators.size(); ++a) {
    TRIBUTARY_RETURN_NOT_OK(state_.accumulators[a]->Resize(num_groups));
    const DataTypePtr& type = schema.FieldAt(static_cast<int>(keys.size() + a)).Type();
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, state_.accumulators[a]->Finish(
                                                    num_groups, type, namer, context_.eval.pool));
    state_.result_columns.push_back(std::move(column));
  }
  state_.result_rows = num_groups;
  state_.accumulators.clear();
  return Status::OK();
}

Result<RecordBatchPtr> HashAggregateOperator::Next() {
  if (!state_.consumed) {
    state_.consumed = true;
    TRIBUTARY_RETURN_NOT_OK(Consume().WithContext("hash aggregate"));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                            NextSlice(node_->Schema(), state_.result_columns, state_.result_rows,
                                      &state_.emitted_rows, context_.eval.pool));
  if (batch == nullptr) {
    state_.result_columns.clear();
  }
  return batch;
}

}  // namespace tributary::exec
