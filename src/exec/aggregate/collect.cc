// collect_list/collect_set's serialized state (Accumulator::SerializeState):
//   count: u32, then count values, each grouping-encoded with floats' bits kept (exec/row_key.h
//   EncodeValues), in collection order
// (collect_set: the distinct values, which are also what it has seen).

#include <string>
#include <unordered_map>

#include "columnar/take.h"
#include "exec/aggregate/accumulators.h"

namespace tributary::exec::aggregate {

namespace {

class CollectAccumulator final : public Accumulator {
 public:
  CollectAccumulator(bool set, DataTypePtr element, MemoryPool* pool)
      : set_(set),
        element_(std::move(element)),
        pool_(pool),
        heads_(pool),
        tails_(pool),
        next_(pool),
        seen_values_(pool) {}
  Status Resize(int64_t groups) override {
    TRIBUTARY_RETURN_NOT_OK(heads_.Resize(groups));
    return tails_.Resize(groups);
  }
  Status Update(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows,
                const GroupNamer&) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    return Append(args, groups, rows);
  }
  Result<ColumnPtr> Finish(int64_t groups, const DataTypePtr& type, const GroupNamer&,
                           MemoryPool* pool) override {
    TRIBUTARY_RETURN_NOT_OK(CommitRestored());
    TRIBUTARY_ASSIGN_OR_RAISE(auto offsets, Buffer::Allocate((groups + 1) * 8, pool));
    int64_t* out_offsets = offsets->MutableDataAs<int64_t>();
    std::vector<int64_t> order;
    order.reserve(static_cast<size_t>(stored_));
    for (int64_t g = 0; g < groups; ++g) {
      out_offsets[g] = static_cast<int64_t>(order.size());
      for (int64_t p = heads_[g]; p != 0; p = next_[p - 1]) {
        order.push_back(p - 1);
      }
    }
    out_offsets[groups] = static_cast<int64_t>(order.size());
    ColumnPtr elements;
    if (chunks_.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(elements, Column::MakeAllNull(type->ElementType(), 0, pool));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool));
      TRIBUTARY_ASSIGN_OR_RAISE(elements, columnar::Take(*all, order, pool));
    }
    return Column::Make(type, groups, nullptr, nullptr, std::move(offsets), {elements});
  }
  Status SerializeState(int32_t group, std::string* out) const override {
    if (auto restored = restored_.find(group); restored != restored_.end()) {
      out->append(restored->second);
      return Status::OK();
    }
    if (!encoded_values_) {
      // Every stored value encoded at once: the operator saves every group of a batch.
      encoded_values_.emplace();
      if (!chunks_.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr all, columnar::Concatenate(chunks_, pool_));
        const ColumnPtr columns[] = {all};
        EncodeValues(columns, all->Length(), &*encoded_values_);
      }
    }
    const size_t count_at = out->size();
    uint32_t count = 0;
    AppendRaw(out, count);
    for (int64_t p = heads_[group]; p != 0; p = next_[p - 1]) {
      out->append(encoded_values_->Key(p - 1));
      ++count;
    }
    std::memcpy(out->data() + count_at, &count, sizeof(count));
    return Status::OK();
  }
  Status DeserializeState(int32_t group, std::string_view bytes) override {
    StateReader reader(bytes, set_ ? "collect_set state" : "collect_list state");
    uint32_t count = 0;
    TRIBUTARY_RETURN_NOT_OK(reader.Read(&count));
    for (uint32_t k = 0; k < count; ++k) {
      std::string_view value;
      TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*element_, &value));
    }
    TRIBUTARY_RETURN_NOT_OK(reader.Finish());
    if (count > 0) {
      restored_[group] = std::string(bytes);
    }
    return Status::OK();
  }

 private:
  // Appends the valid values of `args[0]` (collect_set: those new to their group) to their
  // groups' lists.
  Status Append(std::span<const ColumnPtr> args, const int32_t* groups, int64_t rows) {
    encoded_values_.reset();
    const Column& arg = *args[0];
    std::vector<int64_t> selected;
    if (set_) {
      TRIBUTARY_ASSIGN_OR_RAISE(selected, FirstOccurrences(seen_values_, args, rows, groups, true));
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        if (arg.IsValid(i)) {
          selected.push_back(i);
        }
      }
    }
    if (selected.empty()) {
      return Status::OK();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr chunk, columnar::Take(arg, selected, pool_));
    TRIBUTARY_RETURN_NOT_OK(next_.Resize(stored_ + chunk->Length()));
    for (size_t k = 0; k < selected.size(); ++k) {
      const int32_t g = groups[selected[k]];
      const int64_t position = stored_ + static_cast<int64_t>(k) + 1;
      if (tails_[g] == 0) {
        heads_[g] = position;
      } else {
        next_[tails_[g] - 1] = position;
      }
      tails_[g] = position;
    }
    stored_ += chunk->Length();
    chunks_.push_back(std::move(chunk));
    return Status::OK();
  }

  // Appends the values DeserializeState kept as bytes to their groups, decoded in one go (in
  // their saved order, before anything this batch adds).
  Status CommitRestored() {
    if (restored_.empty()) {
      return Status::OK();
    }
    std::vector<std::string_view> values;
    std::vector<int32_t> groups;
    for (const auto& [group, bytes] : restored_) {
      StateReader reader(std::string_view(bytes).substr(sizeof(uint32_t)), "collect state");
      while (!reader.Rest().empty()) {
        std::string_view value;
        TRIBUTARY_RETURN_NOT_OK(reader.ReadGroupingValue(*element_, &value));
        values.push_back(value);
        groups.push_back(group);
      }
    }
    const DataTypePtr types[] = {element_};
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns,
                              DecodeGroupingKeys(types, values, pool_));
    TRIBUTARY_RETURN_NOT_OK(Append(columns, groups.data(), static_cast<int64_t>(groups.size())));
    restored_.clear();
    return Status::OK();
  }

  bool set_;
  DataTypePtr element_;
  MemoryPool* pool_;
  PoolArray<int64_t> heads_;  // first stored position + 1 per group; 0: none
  PoolArray<int64_t> tails_;
  PoolArray<int64_t> next_;  // per stored value: the next of its group + 1
  GroupTable seen_values_;   // collect_set: (group, value) pairs seen
  std::vector<ColumnPtr> chunks_;
  int64_t stored_ = 0;
  // Saved states of restored groups not yet appended (SerializeState's bytes), by group.
  std::unordered_map<int32_t, std::string> restored_;
  // SerializeState's encoding of every stored value; reset when values are added.
  mutable std::optional<EncodedKeys> encoded_values_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeCollectAccumulator(bool set, DataTypePtr element,
                                                    MemoryPool* pool) {
  return std::make_unique<CollectAccumulator>(set, std::move(element), pool);
}

}  // namespace tributary::exec::aggregate
