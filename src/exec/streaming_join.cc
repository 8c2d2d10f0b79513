// State of a stream-stream join: the rows of both sides, in the store of their join key's
// partition (StablePartition of the grouping-encoded join key, so the rows of both sides that
// can match live together), as Spark's SymmetricHashJoinStateManager keeps them
// (keyToNumValues + keyWithIndexToValue, format version 2 with the matched flag):
//   count entry  key   = side: u8 (0 left, 1 right)  kind: u8 (0)  join key
//                value = format: u8 (kStateFormatVersion, 1)  count: grouping-encoded bigint
//                        (u8 1, i64 native order)
//   row entry    key   = side: u8  kind: u8 (1)  join key  index: u64 big-endian
//                value = format: u8 (1)  matched: u8 (0 or 1)  row: the side's input columns,
//                        values-encoded (exec/row_key.h EncodeValues: floats keep their bits)
//   rows entry   key   = u8 (2)
//                value = format: u8 (1)  rows: grouping-encoded bigint: the partition's row
//                        entries of both sides (absent when none), the state rows progress shows
// `join key` is the side's key columns grouping-encoded (exec/row_key.h); both sides' keys
// have the same types, so equal keys are equal bytes. A key's rows have the indices
// 0..count-1; removing one moves the last into its place (swap-last), so the indices stay
// dense. Grouping-encoded keys of one type list are prefix-free, so in byte order the entries
// of one side are its count entries, then its row entries grouped by key in index order.
// `matched` is 1 once the row joined with a row of the other side; it is kept up to date for
// the sides that read it (outer sides, and left semi's left side), elsewhere it records only
// whether the row matched when it arrived.

#include "exec/streaming_join.h"

#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include "columnar/take.h"
#include "exec/hash_join.h"
#include "exec/stateful_rows.h"

namespace tributary::exec {

using columnar::Column;

namespace {

constexpr char kCountEntry = 0;
constexpr char kRowEntry = 1;
// The one key of the rows entry.
constexpr std::string_view kRowsEntryKey = "\x02";
// Side, kind.
constexpr size_t kEntryPrefixSize = 2;
constexpr size_t kIndexSize = sizeof(uint64_t);
// Format, valid flag, count.
constexpr size_t kCountValueSize = 2 + sizeof(int64_t);
// Format, matched.
constexpr size_t kRowValueHeaderSize = 2;

void CountEntryKey(int side, std::string_view key, std::string* out) {
  out->assign(1, static_cast<char>(side));
  out->push_back(kCountEntry);
  out->append(key);
}

void RowEntryKey(int side, std::string_view key, uint64_t index, std::string* out) {
  out->assign(1, static_cast<char>(side));
  out->push_back(kRowEntry);
  out->append(key);
  for (int shift = 56; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((index >> shift) & 0xff));
  }
}

// A count entry's or the rows entry's value.
std::string CountValue(int64_t count) {
  std::string value(kCountValueSize, '\0');
  value[0] = kStateFormatVersion;
  value[1] = 1;
  std::memcpy(value.data() + 2, &count, sizeof(count));
  return value;
}

// The count in the value of `entry` in `store` (0 when absent).
Result<int64_t> ReadCountEntry(StateStore& store, std::string_view entry) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> value, store.Get(entry));
  if (!value) {
    return 0;
  }
  if (value->size() != kCountValueSize || (*value)[0] != kStateFormatVersion || (*value)[1] != 1) {
    return Status::Corruption(fmt::format(
        "stream-stream join count entry of {} bytes is not format 1 with a count", value->size()));
  }
  int64_t count = 0;
  std::memcpy(&count, value->data() + 2, sizeof(count));
  if (count < 0) {
    return Status::Corruption(fmt::format("stream-stream join count entry holds {}", count));
  }
  return count;
}

// The number of rows `side` holds for `key` in `store` (0 when none).
Result<int64_t> ReadCount(StateStore& store, int side, std::string_view key, std::string* scratch) {
  CountEntryKey(side, key, scratch);
  return ReadCountEntry(store, *scratch);
}

Status CheckRowValue(std::string_view value) {
  if (value.size() < kRowValueHeaderSize || value[0] != kStateFormatVersion ||
      static_cast<uint8_t>(value[1]) > 1) {
    return Status::Corruption(
        fmt::format("stream-stream join row entry of {} bytes is not format 1 with a matched flag",
                    value.size()));
  }
  return Status::OK();
}

// The side's rows `rows` (values-encoded, checked against `types`) decoded into a batch.
Result<RecordBatchPtr> DecodeRows(const SchemaPtr& schema, std::span<const DataTypePtr> types,
                                  std::span<const std::string_view> rows, MemoryPool* pool) {
  for (const std::string_view row : rows) {
    TRIBUTARY_RETURN_NOT_OK(ValidateGroupingKey(types, row));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns, DecodeGroupingKeys(types, rows, pool));
  return columnar::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

}  // namespace

StreamingJoinOperator::StreamingJoinOperator(std::shared_ptr<const StreamingJoinNode> node,
                                             OperatorPtr left, OperatorPtr right,
                                             const ExecContext& context)
    : node_(std::move(node)),
      left_(std::move(left)),
      right_(std::move(right)),
      context_(context),
      runtime_(node_->Runtime().get()),
      pair_schema_(ConcatSchemas(*left_->OutputSchema(), *right_->OutputSchema())),
      side_schemas_{left_->OutputSchema(), right_->OutputSchema()} {}

bool StreamingJoinOperator::OuterSide(int side) const {
  const JoinType type = node_->Type();
  return type == JoinType::kFull ||
         (side == 0 ? type == JoinType::kLeft : type == JoinType::kRight);
}

Status StreamingJoinOperator::Start() {
  switch (node_->Type()) {
    case JoinType::kInner:
    case JoinType::kLeft:
    case JoinType::kRight:
    case JoinType::kFull:
    case JoinType::kLeftSemi:
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("a stream-stream join cannot be {}", JoinTypeName(node_->Type())));
  }
  if (runtime_ == nullptr || runtime_->partitions.empty()) {
    return Status::InvalidArgument("no state partitions for this batch");
  }
  state_.row_delta.assign(runtime_->partitions.size(), 0);
  const std::vector<expr::BoundExprPtr>& left_keys = node_->LeftKeys();
  const std::vector<expr::BoundExprPtr>& right_keys = node_->RightKeys();
  if (left_keys.size() != right_keys.size() || left_keys.empty()) {
    return Status::InvalidArgument(fmt::format("{} left keys but {} right keys (at least one)",
                                               left_keys.size(), right_keys.size()));
  }
  for (size_t k = 0; k < left_keys.size(); ++k) {
    if (!left_keys[k]->Type()->SameShape(*right_keys[k]->Type())) {
      return Status::InvalidArgument(fmt::format(
          "key {} = {} compares {} with {}", left_keys[k]->ToString(), right_keys[k]->ToString(),
          left_keys[k]->Type()->ToString(), right_keys[k]->Type()->ToString()));
    }
    key_types_.push_back(left_keys[k]->Type());
  }
  for (size_t side = 0; side < 2; ++side) {
    const columnar::Schema& schema = *side_schemas_[side];
    for (int c = 0; c < schema.NumFields(); ++c) {
      side_types_[side].push_back(schema.FieldAt(c).Type());
    }
    const auto check_column = [&](int column) -> Status {
      if (column < 0 || column >= schema.NumFields()) {
        return Status::InvalidArgument(fmt::format("no input column #{} on the {} side", column,
                                                   side == 0 ? "left" : "right"));
      }
      return CheckEventTimeType(*schema.FieldAt(column).Type(), schema.FieldAt(column).Name());
    };
    if (const std::optional<int>& late = node_->LateEventTimeColumns()[side]) {
      TRIBUTARY_RETURN_NOT_OK(check_column(*late));
    }
    const JoinStateEviction& eviction = node_->Eviction()[side];
    if (eviction.kind == JoinStateEviction::Kind::kValue) {
      TRIBUTARY_RETURN_NOT_OK(check_column(eviction.column));
    } else if (eviction.kind == JoinStateEviction::Kind::kKey) {
      if (eviction.column < 0 || static_cast<size_t>(eviction.column) >= key_types_.size()) {
        return Status::InvalidArgument(fmt::format("no join key #{}", eviction.column));
      }
      TRIBUTARY_RETURN_NOT_OK(CheckEventTimeType(
          *key_types_[static_cast<size_t>(eviction.column)],
          (side == 0 ? left_keys : right_keys)[static_cast<size_t>(eviction.column)]->ToString()));
    }
  }
  return TakeCache();
}

Status StreamingJoinOperator::TakeCache() {
  bool rebuild = false;
  cache_ = TakeStateCache(*runtime_, runtime_->join_cache, &rebuild);
  if (!rebuild) {
    return Status::OK();
  }
  for (size_t p = 0; p < runtime_->partitions.size() && cache_ != nullptr; ++p) {
    auto& keys = cache_->partitions[p];
    // A key's row entries arrive together, in index order.
    auto current = keys.end();
    TRIBUTARY_RETURN_NOT_OK(runtime_->partitions[p]->ForEach([&](std::string_view entry,
                                                                 std::string_view value) {
      if (cache_ == nullptr || entry.size() < kEntryPrefixSize + kIndexSize ||
          entry[1] != kRowEntry || static_cast<uint8_t>(entry[0]) > 1) {
        return Status::OK();
      }
      TRIBUTARY_RETURN_NOT_OK(CheckRowValue(value));
      const auto side = static_cast<size_t>(static_cast<uint8_t>(entry[0]));
      const std::string_view key =
          entry.substr(kEntryPrefixSize, entry.size() - kEntryPrefixSize - kIndexSize);
      if (current == keys.end() || current->first != key) {
        bool inserted = false;
        std::tie(current, inserted) = keys.try_emplace(std::string(key));
        if (inserted) {
          cache_->bytes += static_cast<int64_t>(key.size()) + JoinStateCache::kKeyOverhead;
        }
      }
      uint64_t index = 0;
      for (size_t b = entry.size() - kIndexSize; b < entry.size(); ++b) {
        index = (index << 8) | static_cast<uint8_t>(entry[b]);
      }
      std::vector<std::string>& rows = current->second[side];
      if (index != rows.size()) {
        return Status::Corruption(fmt::format(
            "stream-stream join state holds row {} of a key after {} rows", index, rows.size()));
      }
      rows.emplace_back(value);
      cache_->bytes += static_cast<int64_t>(value.size()) + JoinStateCache::kRowOverhead;
      DropStateCacheIfTooLarge(&cache_);
      return Status::OK();
    }));
  }
  return Status::OK();
}

Status StreamingJoinOperator::QueueRows(const columnar::RecordBatch* left,
                                        std::span<const int64_t> left_rows,
                                        const columnar::RecordBatch* right,
                                        std::span<const int64_t> right_rows) {
  const auto rows = static_cast<int64_t>(left == nullptr ? right_rows.size() : left_rows.size());
  if (rows == 0) {
    return Status::OK();
  }
  std::vector<ColumnPtr> columns;
  const auto append_side = [&](int side, const columnar::RecordBatch* batch,
                               std::span<const int64_t> indices) -> Status {
    for (size_t c = 0; c < side_types_[side].size(); ++c) {
      ColumnPtr column;
      if (batch == nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            column, Column::MakeAllNull(side_types_[side][c], rows, context_.eval.pool));
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(
            column, columnar::Take(*batch->Columns()[c], indices, context_.eval.pool));
      }
      columns.push_back(std::move(column));
    }
    return Status::OK();
  };
  TRIBUTARY_RETURN_NOT_OK(append_side(0, left, left_rows));
  if (node_->Type() != JoinType::kLeftSemi) {
    TRIBUTARY_RETURN_NOT_OK(append_side(1, right, right_rows));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr out,
                            columnar::RecordBatch::Make(node_->Schema(), rows, std::move(columns)));
  state_.pending.push_back(std::move(out));
  return Status::OK();
}

Status StreamingJoinOperator::JoinBatch(int side, RecordBatchPtr batch) {
  const int other = 1 - side;
  const bool left_semi = node_->Type() == JoinType::kLeftSemi;
  StatefulOperatorRuntime& runtime = *runtime_;

  // Late rows go first, before they touch any state (Spark's applyRemovingRowsOlderThanWatermark).
  if (const std::optional<int>& late_column = node_->LateEventTimeColumns()[side]) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        batch, DropLateRows(std::move(batch), *late_column, runtime, context_.eval.pool));
  }
  const int64_t rows = batch->NumRows();
  if (rows == 0) {
    return Status::OK();
  }

  // The batch's join keys, and its distinct keys: the other side's state is read once per key.
  TRIBUTARY_ASSIGN_OR_RAISE(
      std::vector<ColumnPtr> key_columns,
      EvaluateAll(side == 0 ? node_->LeftKeys() : node_->RightKeys(), *batch, context_.eval));
  EncodedKeys keys;
  EncodeGroupingKeys(key_columns, rows, &keys);
  GroupTable distinct(context_.pool);
  std::vector<int32_t> group_of(static_cast<size_t>(rows));
  TRIBUTARY_RETURN_NOT_OK(distinct.FindOrInsert(keys, group_of.data()));
  const auto groups = static_cast<size_t>(distinct.NumGroups());
  std::vector<int64_t> first_row(groups, -1);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t& first = first_row[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
    if (first < 0) {
      first = i;
    }
  }

  // The other side's rows of each distinct key (a NULL in the key never matches): their
  // values, and where each group's rows begin among them.
  // `fetched` points into the cache, or into `read` when the rows come from the stores.
  std::vector<std::string> read;
  std::vector<std::string*> fetched;
  std::vector<int64_t> fetched_index;
  std::vector<size_t> group_begin(groups + 1, 0);
  std::string entry_key;
  for (size_t g = 0; g < groups; ++g) {
    group_begin[g] = cache_ != nullptr ? fetched.size() : read.size();
    if (keys.has_null[static_cast<size_t>(first_row[g])] != 0) {
      continue;
    }
    const std::string_view key = distinct.KeyOf(static_cast<int64_t>(g));
    if (cache_ != nullptr) {
      auto& cached = cache_->partitions[PartitionIndex(key)];
      const auto found = cached.find(key);
      if (found == cached.end()) {
        continue;
      }
      std::vector<std::string>& other_rows = found->second[static_cast<size_t>(other)];
      for (size_t index = 0; index < other_rows.size(); ++index) {
        fetched.push_back(&other_rows[index]);
        fetched_index.push_back(static_cast<int64_t>(index));
      }
      continue;
    }
    StateStore& store = PartitionOfKey(runtime, key);
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t count, ReadCount(store, other, key, &entry_key));
    for (int64_t index = 0; index < count; ++index) {
      RowEntryKey(other, key, static_cast<uint64_t>(index), &entry_key);
      TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> value, store.Get(entry_key));
      if (!value) {
        return Status::Corruption(
            fmt::format("stream-stream join state lacks row {} of a key holding {}", index, count));
      }
      TRIBUTARY_RETURN_NOT_OK(CheckRowValue(*value));
      read.push_back(std::move(*value));
      fetched_index.push_back(index);
    }
  }
  if (cache_ == nullptr) {
    for (std::string& value : read) {
      fetched.push_back(&value);
    }
  }
  group_begin[groups] = fetched.size();
  std::vector<std::string_view> fetched_rows;
  std::vector<uint8_t> state_matched;
  fetched_rows.reserve(fetched.size());
  state_matched.reserve(fetched.size());
  for (const std::string* value : fetched) {
    fetched_rows.push_back(std::string_view(*value).substr(kRowValueHeaderSize));
    state_matched.push_back(static_cast<uint8_t>((*value)[1]));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      RecordBatchPtr state_rows,
      DecodeRows(side_schemas_[other], side_types_[other], fetched_rows, context_.eval.pool));
  std::vector<uint8_t> flag_changed(fetched.size(), 0);

  // Candidate pairs (this row, state row) with equal keys, a chunk at a time, filtered by the
  // residual. Left semi's right side skips left rows already matched (each is emitted once).
  std::vector<uint8_t> this_matched(static_cast<size_t>(rows), 0);
  const bool semi_right = left_semi && side == 1;
  std::vector<int64_t> candidate_this;
  std::vector<int64_t> candidate_state;
  std::vector<uint8_t> passes;
  std::vector<int64_t> out_this;
  std::vector<int64_t> out_state;
  const auto flush = [&]() -> Status {
    if (candidate_this.empty()) {
      return Status::OK();
    }
    passes.assign(candidate_this.size(), 1);
    if (node_->Residual() != nullptr) {
      if (side == 0) {
        TRIBUTARY_RETURN_NOT_OK(EvaluateJoinResidual(*node_->Residual(), pair_schema_, *batch,
                                                     candidate_this, *state_rows, candidate_state,
                                                     context_.eval, &passes));
      } else {
        TRIBUTARY_RETURN_NOT_OK(EvaluateJoinResidual(*node_->Residual(), pair_schema_, *state_rows,
                                                     candidate_state, *batch, candidate_this,
                                                     context_.eval, &passes));
      }
    }
    out_this.clear();
    out_state.clear();
    for (size_t p = 0; p < passes.size(); ++p) {
      if (passes[p] == 0) {
        continue;
      }
      const auto i = static_cast<size_t>(candidate_this[p]);
      const auto j = static_cast<size_t>(candidate_state[p]);
      this_matched[i] = 1;
      const bool first_match = state_matched[j] == 0;
      if (first_match) {
        state_matched[j] = 1;
        flag_changed[j] = 1;
      }
      if (semi_right) {
        if (first_match) {
          out_state.push_back(candidate_state[p]);
        }
      } else if (!left_semi) {
        out_this.push_back(candidate_this[p]);
        out_state.push_back(candidate_state[p]);
      }
    }
    candidate_this.clear();
    candidate_state.clear();
    if (semi_right) {
      return QueueRows(state_rows.get(), out_state, nullptr, {});
    }
    if (left_semi) {
      return Status::OK();
    }
    return side == 0 ? QueueRows(batch.get(), out_this, state_rows.get(), out_state)
                     : QueueRows(state_rows.get(), out_state, batch.get(), out_this);
  };
  for (int64_t i = 0; i < rows; ++i) {
    const auto g = static_cast<size_t>(group_of[static_cast<size_t>(i)]);
    for (size_t j = group_begin[g]; j < group_begin[g + 1]; ++j) {
      if (semi_right && state_matched[j] != 0) {
        continue;
      }
      candidate_this.push_back(i);
      candidate_state.push_back(static_cast<int64_t>(j));
      if (static_cast<int64_t>(candidate_this.size()) >= kTargetBatchRows) {
        TRIBUTARY_RETURN_NOT_OK(flush());
      }
    }
  }
  TRIBUTARY_RETURN_NOT_OK(flush());
  if (left_semi && side == 0) {
    out_this.clear();
    for (int64_t i = 0; i < rows; ++i) {
      if (this_matched[static_cast<size_t>(i)] != 0) {
        out_this.push_back(i);
      }
    }
    TRIBUTARY_RETURN_NOT_OK(QueueRows(batch.get(), out_this, nullptr, {}));
  }

  // The other side's rows that matched for the first time, where their flag is read later.
  if (OuterSide(other) || (left_semi && other == 0)) {
    for (size_t g = 0; g < groups; ++g) {
      for (size_t j = group_begin[g]; j < group_begin[g + 1]; ++j) {
        if (flag_changed[j] == 0) {
          continue;
        }
        const std::string_view key = distinct.KeyOf(static_cast<int64_t>(g));
        (*fetched[j])[1] = 1;
        RowEntryKey(other, key, static_cast<uint64_t>(fetched_index[j]), &entry_key);
        TRIBUTARY_RETURN_NOT_OK(
            PartitionOfKey(runtime, key).PutKnown(entry_key, *fetched[j], /*exists=*/true));
      }
    }
  }

  // This batch's rows into this side's state (Spark 4.0's rule, SPARK-49829): a left row is
  // stored even at or below the left state watermark, since this batch's right rows have not
  // met it yet (eviction removes it at the end of the batch, emitting it if unmatched); a right
  // row has met every left row it can, so it is stored only when it stays, or when it is an
  // unmatched row of an outer right side that eviction must emit. A row whose key has a NULL
  // never matches: it is kept only where unmatched rows are output. Left semi does not keep a
  // left row that matched: it was emitted, and is never emitted again.
  std::vector<uint8_t> leaves_now;
  if (const std::optional<int64_t>& watermark = runtime.join_state_watermark_micros[side];
      side == 1 && watermark && node_->Eviction()[side].kind != JoinStateEviction::Kind::kNone) {
    const JoinStateEviction& eviction = node_->Eviction()[side];
    const Column& event_time = eviction.kind == JoinStateEviction::Kind::kKey
                                   ? *key_columns[static_cast<size_t>(eviction.column)]
                                   : *batch->Columns()[static_cast<size_t>(eviction.column)];
    MarkLateRows(event_time, *watermark, &leaves_now);
  }
  EncodedKeys values;
  EncodeValues(batch->Columns(), rows, &values);
  // Per group: the count of this side's rows of the key before the batch, then the next index.
  std::vector<int64_t> stored_count(groups, -1);
  std::vector<int64_t> next_index(groups, -1);
  // Per group: this side's cached rows of the key.
  std::vector<std::vector<std::string>*> cached_rows(cache_ != nullptr ? groups : 0, nullptr);
  std::string value;
  for (int64_t i = 0; i < rows; ++i) {
    const auto r = static_cast<size_t>(i);
    const bool matched = this_matched[r] != 0;
    if ((keys.has_null[r] != 0 && !OuterSide(side)) || (left_semi && side == 0 && matched) ||
        (!leaves_now.empty() && leaves_now[r] != 0 && (matched || !OuterSide(side)))) {
      continue;
    }
    const auto g = static_cast<size_t>(group_of[r]);
    const std::string_view key = distinct.KeyOf(static_cast<int64_t>(g));
    const size_t partition = PartitionIndex(key);
    StateStore& store = *runtime.partitions[partition];
    if (next_index[g] < 0) {
      if (cache_ != nullptr) {
        auto& cached = cache_->partitions[partition];
        auto found = cached.find(key);
        if (found == cached.end()) {
          found = cached.try_emplace(std::string(key)).first;
          cache_->bytes += static_cast<int64_t>(key.size()) + JoinStateCache::kKeyOverhead;
        }
        cached_rows[g] = &found->second[static_cast<size_t>(side)];
        stored_count[g] = static_cast<int64_t>(cached_rows[g]->size());
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(stored_count[g], ReadCount(store, side, key, &entry_key));
      }
      next_index[g] = stored_count[g];
    }
    value.assign(1, kStateFormatVersion);
    value.push_back(matched ? 1 : 0);
    value.append(values.Key(i));
    RowEntryKey(side, key, static_cast<uint64_t>(next_index[g]), &entry_key);
    TRIBUTARY_RETURN_NOT_OK(store.PutKnown(entry_key, value, /*exists=*/false));
    if (cache_ != nullptr) {
      cache_->bytes += static_cast<int64_t>(value.size()) + JoinStateCache::kRowOverhead;
      cached_rows[g]->push_back(value);
    }
    ++next_index[g];
    ++state_.row_delta[partition];
    ++runtime.metrics.num_rows_updated;
  }
  for (size_t g = 0; g < groups; ++g) {
    if (next_index[g] < 0) {
      continue;
    }
    const std::string_view key = distinct.KeyOf(static_cast<int64_t>(g));
    CountEntryKey(side, key, &entry_key);
    TRIBUTARY_RETURN_NOT_OK(
        PartitionOfKey(runtime, key)
            .PutKnown(entry_key, CountValue(next_index[g]), /*exists=*/stored_count[g] > 0));
  }
  DropStateCacheIfTooLarge(&cache_);
  return Status::OK();
}

Status StreamingJoinOperator::Evict() {
  // What one side removes: its eviction, the key whose row entries are being gathered and
  // those entries, and the removed rows that never matched (outer sides emit them).
  struct SideEviction {
    bool active = false;
    bool by_key = false;
    size_t column = 0;
    int64_t watermark = 0;
    std::string key;
    std::vector<std::string> rows;
    std::vector<std::string> unmatched;
  };
  std::array<SideEviction, 2> sides;
  for (size_t side = 0; side < 2; ++side) {
    const JoinStateEviction& eviction = node_->Eviction()[side];
    const std::optional<int64_t>& watermark = runtime_->join_state_watermark_micros[side];
    sides[side].active = eviction.kind != JoinStateEviction::Kind::kNone && watermark.has_value();
    sides[side].by_key = eviction.kind == JoinStateEviction::Kind::kKey;
    sides[side].column = static_cast<size_t>(eviction.column);
    sides[side].watermark = watermark.value_or(0);
  }
  if (!sides[0].active && !sides[1].active) {
    return Status::OK();
  }
  std::string entry_key;
  for (size_t partition = 0; partition < runtime_->partitions.size(); ++partition) {
    StateStore& store = *runtime_->partitions[partition];
    // Removes what the watermark passed among the gathered rows of one key (swap-last: the
    // last row moves into a hole) and rewrites the moved rows, the tail and the count.
    // `rows` are the key's rows in index order (the cache's, changed in place, or gathered).
    const auto settle = [&](int side, std::string_view key,
                            std::vector<std::string>& rows) -> Status {
      SideEviction& eviction = sides[static_cast<size_t>(side)];
      if (rows.empty() || !eviction.active) {
        return Status::OK();
      }
      const size_t count = rows.size();
      if (eviction.by_key) {
        TRIBUTARY_ASSIGN_OR_RAISE(std::optional<int64_t> key_time,
                                  EventTimeInKey(key_types_, eviction.column, key));
        if (!key_time || *key_time > eviction.watermark) {
          return Status::OK();
        }
      }
      // origin[i]: the index the row now at i had before.
      std::vector<size_t> origin(count);
      for (size_t i = 0; i < count; ++i) {
        origin[i] = i;
      }
      const bool emits = OuterSide(side);
      size_t i = 0;
      while (i < rows.size()) {
        bool remove = eviction.by_key;
        if (!remove) {
          TRIBUTARY_ASSIGN_OR_RAISE(
              std::optional<int64_t> time,
              EventTimeInKey(side_types_[static_cast<size_t>(side)], eviction.column,
                             std::string_view(rows[i]).substr(kRowValueHeaderSize)));
          remove = time && *time <= eviction.watermark;
        }
        if (!remove) {
          ++i;
          continue;
        }
        if (emits && rows[i][1] == 0) {
          eviction.unmatched.push_back(rows[i].substr(kRowValueHeaderSize));
        }
        ++runtime_->metrics.num_rows_removed;
        --state_.row_delta[partition];
        if (cache_ != nullptr) {
          cache_->bytes -= static_cast<int64_t>(rows[i].size()) + JoinStateCache::kRowOverhead;
        }
        rows[i] = std::move(rows.back());
        origin[i] = origin[rows.size() - 1];
        rows.pop_back();
        origin.pop_back();
      }
      if (rows.size() < count) {
        for (size_t index = 0; index < rows.size(); ++index) {
          if (origin[index] != index) {
            RowEntryKey(side, key, index, &entry_key);
            TRIBUTARY_RETURN_NOT_OK(store.PutKnown(entry_key, rows[index], /*exists=*/true));
          }
        }
        for (size_t index = rows.size(); index < count; ++index) {
          RowEntryKey(side, key, index, &entry_key);
          TRIBUTARY_RETURN_NOT_OK(store.RemoveExisting(entry_key));
        }
        CountEntryKey(side, key, &entry_key);
        TRIBUTARY_RETURN_NOT_OK(
            rows.empty() ? store.RemoveExisting(entry_key)
                         : store.PutKnown(entry_key, CountValue(static_cast<int64_t>(rows.size())),
                                          /*exists=*/true));
      }
      return Status::OK();
    };
    if (cache_ != nullptr) {
      auto& keys = cache_->partitions[partition];
      for (auto it = keys.begin(); it != keys.end();) {
        JoinStateCache::KeyRows& rows = it->second;
        TRIBUTARY_RETURN_NOT_OK(settle(0, it->first, rows[0]));
        TRIBUTARY_RETURN_NOT_OK(settle(1, it->first, rows[1]));
        if (!rows[0].empty() || !rows[1].empty()) {
          ++it;
          continue;
        }
        cache_->bytes -= static_cast<int64_t>(it->first.size()) + JoinStateCache::kKeyOverhead;
        it = keys.erase(it);
      }
      continue;
    }
    // One pass over the partition: a key's row entries arrive together, in index order, so
    // each key is settled when the next begins (writes made meanwhile are not seen by it).
    TRIBUTARY_RETURN_NOT_OK(store.ForEach([&](std::string_view entry, std::string_view value) {
      if (entry.size() < kEntryPrefixSize + kIndexSize || entry[1] != kRowEntry ||
          static_cast<uint8_t>(entry[0]) > 1) {
        return Status::OK();
      }
      const int side = static_cast<uint8_t>(entry[0]);
      SideEviction& eviction = sides[static_cast<size_t>(side)];
      if (!eviction.active) {
        return Status::OK();
      }
      TRIBUTARY_RETURN_NOT_OK(CheckRowValue(value));
      const std::string_view join_key =
          entry.substr(kEntryPrefixSize, entry.size() - kEntryPrefixSize - kIndexSize);
      if (join_key != eviction.key) {
        TRIBUTARY_RETURN_NOT_OK(settle(side, eviction.key, eviction.rows));
        eviction.rows.clear();
        eviction.key.assign(join_key);
      }
      eviction.rows.emplace_back(value);
      return Status::OK();
    }));
    for (int side = 0; side < 2; ++side) {
      SideEviction& eviction = sides[static_cast<size_t>(side)];
      TRIBUTARY_RETURN_NOT_OK(settle(side, eviction.key, eviction.rows));
      eviction.rows.clear();
      eviction.key.clear();
    }
  }
  // The left side's unmatched rows, then the right side's, with NULLs for the other side.
  for (int side = 0; side < 2; ++side) {
    const std::vector<std::string>& unmatched = sides[static_cast<size_t>(side)].unmatched;
    for (size_t begin = 0; begin < unmatched.size();
         begin += static_cast<size_t>(kTargetBatchRows)) {
      const size_t end = std::min(unmatched.size(), begin + static_cast<size_t>(kTargetBatchRows));
      const std::vector<std::string_view> chunk(unmatched.begin() + static_cast<ptrdiff_t>(begin),
                                                unmatched.begin() + static_cast<ptrdiff_t>(end));
      TRIBUTARY_ASSIGN_OR_RAISE(
          RecordBatchPtr rows,
          DecodeRows(side_schemas_[static_cast<size_t>(side)],
                     side_types_[static_cast<size_t>(side)], chunk, context_.eval.pool));
      std::vector<int64_t> all(chunk.size());
      for (size_t r = 0; r < all.size(); ++r) {
        all[r] = static_cast<int64_t>(r);
      }
      TRIBUTARY_RETURN_NOT_OK(side == 0 ? QueueRows(rows.get(), all, nullptr, all)
                                        : QueueRows(nullptr, all, rows.get(), all));
    }
  }
  return Status::OK();
}

Result<RecordBatchPtr> StreamingJoinOperator::Next() {
  if (!state_.started) {
    state_.started = true;
    TRIBUTARY_RETURN_NOT_OK(Start().WithContext("stream-stream join"));
  }
  while (true) {
    if (state_.next_pending < state_.pending.size()) {
      RecordBatchPtr out = std::move(state_.pending[state_.next_pending++]);
      if (state_.next_pending == state_.pending.size()) {
        state_.pending.clear();
        state_.next_pending = 0;
      }
      return out;
    }
    if (state_.phase == Phase::kDone) {
      return RecordBatchPtr();
    }
    const int side = state_.phase == Phase::kLeft ? 0 : 1;
    TRIBUTARY_ASSIGN_OR_RAISE(RecordBatchPtr batch, (side == 0 ? left_ : right_)->Next());
    if (batch != nullptr) {
      const auto updates_start = std::chrono::steady_clock::now();
      TRIBUTARY_RETURN_NOT_OK(JoinBatch(side, std::move(batch)).WithContext("stream-stream join"));
      runtime_->metrics.all_updates_time_ms += MillisSince(updates_start);
      continue;
    }
    if (side == 0) {
      state_.phase = Phase::kRight;
      continue;
    }
    state_.phase = Phase::kDone;
    const auto removals_start = std::chrono::steady_clock::now();
    TRIBUTARY_RETURN_NOT_OK(Evict().WithContext("stream-stream join"));
    runtime_->metrics.all_removals_time_ms += MillisSince(removals_start);
    TRIBUTARY_RETURN_NOT_OK(FinishBatch().WithContext("stream-stream join"));
    if (cache_ != nullptr) {
      // What the stores hold once the streaming layer commits this batch.
      cache_->version = *runtime_->state_version + 1;
    }
  }
}

size_t StreamingJoinOperator::PartitionIndex(std::string_view key) const {
  return static_cast<size_t>(
      StablePartition(key, static_cast<int32_t>(runtime_->partitions.size())));
}

Status StreamingJoinOperator::FinishBatch() {
  RecordStoreMetrics(*runtime_);
  // Spark's numRowsTotal counts the rows of both sides (keyWithIndexToValue's keys), not the
  // counts: the partitions' rows entries, kept up to date here.
  int64_t total = 0;
  const std::string rows_key(kRowsEntryKey);
  for (size_t partition = 0; partition < runtime_->partitions.size(); ++partition) {
    StateStore& store = *runtime_->partitions[partition];
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t rows, ReadCountEntry(store, rows_key));
    const int64_t delta = state_.row_delta[partition];
    if (delta != 0) {
      const bool existed = rows > 0;
      rows += delta;
      if (rows < 0) {
        return Status::Corruption(
            fmt::format("stream-stream join partition {} would hold {} rows", partition, rows));
      }
      TRIBUTARY_RETURN_NOT_OK(rows == 0 ? store.RemoveExisting(rows_key)
                                        : store.PutKnown(rows_key, CountValue(rows), existed));
    }
    total += rows;
  }
  runtime_->metrics.num_rows_total = total;
  return Status::OK();
}

}  // namespace tributary::exec
