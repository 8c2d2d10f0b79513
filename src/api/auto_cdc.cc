// AUTO CDC flows: binding, the target, and the sink folding each micro-batch of change
// events into one MERGE (auto_cdc.h).

#include "api/auto_cdc.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "common/ascii.h"
#include "delta/log_segment.h"
#include "delta/table_writes.h"
#include "exec/row_key.h"
#include "plan/delta_dml.h"
#include "plan/plan_builder.h"
#include "sql/binder.h"
#include "sql/parser.h"
#include "storage/path.h"

namespace tributary {

namespace {

constexpr std::string_view kSequenceColumn = "__cdc_sequence";
constexpr std::string_view kDeleteColumn = "__cdc_delete";
constexpr std::string_view kStartAt = "__START_AT";
constexpr std::string_view kEndAt = "__END_AT";

using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;

// The names of `fields` a COLUMNS-style list keeps: the listed ones in list order, or with
// `except` every field but them in field order. Unknown names are errors.
Result<std::vector<std::string>> SelectColumns(const columnar::Schema& schema,
                                               const std::vector<std::string>& listed, bool except,
                                               std::string_view clause) {
  std::vector<int> indexes;
  for (const std::string& name : listed) {
    auto index = schema.FieldIndexIgnoreCase(name);
    if (!index.ok()) {
      return Status::InvalidArgument(fmt::format("{}: the source has no column {} (columns: {})",
                                                 clause, name, schema.ToString()));
    }
    indexes.push_back(*index);
  }
  std::vector<std::string> names;
  if (listed.empty() || except) {
    for (int i = 0; i < schema.NumFields(); ++i) {
      if (std::find(indexes.begin(), indexes.end(), i) == indexes.end()) {
        names.push_back(schema.FieldAt(i).Name());
      }
    }
  } else {
    for (int index : indexes) {
      names.push_back(schema.FieldAt(index).Name());
    }
  }
  return names;
}

Result<expr::ExprPtr> Parse(const std::string& text) {
  return sql::ParseExpression(text);
}

std::string Quoted(std::string_view qualifier, std::string_view name) {
  return fmt::format("{}.{}", qualifier, sql::QuoteIdentifier(name));
}

// The rows of `batches` as one column per field.
Result<std::vector<ColumnPtr>> ConcatenateBatches(
    const columnar::Schema& schema, const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<ColumnPtr> columns;
  for (int i = 0; i < schema.NumFields(); ++i) {
    std::vector<ColumnPtr> parts;
    parts.reserve(batches.size());
    for (const columnar::RecordBatchPtr& batch : batches) {
      parts.push_back(batch->ColumnAt(i));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, columnar::Concatenate(parts));
    columns.push_back(std::move(column));
  }
  return columns;
}

// What the flow's state holds for one key.
struct KeyState {
  std::string sequence;
  bool deleted = false;
  /// SCD type 2: the grouping-encoded tracked columns of the key's open row.
  std::string tracked;
};

// One row of the MERGE source: for each data column the event row its value comes from (-1:
// null), plus the per-row extras of the SCD type.
struct OutputRow {
  std::vector<int64_t> columns;
  /// SCD type 1.
  bool is_delete = false;
  /// SCD type 1 with IGNORE NULL UPDATES: the key was deleted before this upsert within the
  /// batch, so null columns stay null instead of keeping the target's values.
  bool reset = false;
  /// SCD type 2: event rows of the sequence values (-1: null).
  int64_t start_at = -1;
  int64_t end_at = -1;
  /// SCD type 2: true for the key's open row already in the target ("existing"); false for a
  /// history row to insert.
  bool existing = false;
  /// SCD type 2, existing rows: the untracked columns take this row's values.
  bool set_untracked = false;
};

class AutoCdcSink final : public streaming::Sink {
 public:
  AutoCdcSink(const SessionState& session, const sql::AutoCdc& cdc, AutoCdcFlowPlan flow)
      : fs_(session.fs),
        catalog_(session.MakeCatalog(0)),
        flow_(std::move(flow)),
        scd_type_(cdc.scd_type),
        ignore_null_updates_(cdc.ignore_null_updates),
        target_name_(cdc.target.ToString()) {
    const columnar::Schema& schema = *flow_.plan->Schema();
    num_data_ = schema.NumFields() - (cdc.apply_as_delete != nullptr ? 2 : 1);
    sequence_index_ = num_data_;
    delete_index_ = cdc.apply_as_delete != nullptr ? num_data_ + 1 : -1;
    for (const std::string& key : cdc.keys) {
      key_indexes_.push_back(*schema.FieldIndexIgnoreCase(key));
    }
    is_key_.assign(static_cast<size_t>(num_data_), false);
    for (int index : key_indexes_) {
      is_key_[static_cast<size_t>(index)] = true;
    }
    tracked_.assign(static_cast<size_t>(num_data_), true);
    if (!cdc.track_history.empty()) {
      const std::vector<std::string>& listed = cdc.track_history;
      for (int i = 0; i < num_data_; ++i) {
        const bool in_list =
            std::any_of(listed.begin(), listed.end(), [&](const std::string& name) {
              return EqualsIgnoreAsciiCase(name, schema.FieldAt(i).Name());
            });
        tracked_[static_cast<size_t>(i)] = cdc.track_history_except ? !in_list : in_list;
      }
    }
  }

  Result<int64_t> AddBatch(const streaming::MicroBatch& batch) override {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<columnar::RecordBatchPtr> batches, batch.Collect());
    const columnar::Schema& schema = *flow_.plan->Schema();
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<ColumnPtr> columns, ConcatenateBatches(schema, batches));
    const int64_t num_rows = columns.empty() ? 0 : columns[0]->Length();
    if (num_rows == 0) {
      return 0;
    }
    TRIBUTARY_RETURN_NOT_OK(Validate(columns, batch.batch_id));

    std::vector<ColumnPtr> key_columns;
    for (int index : key_indexes_) {
      key_columns.push_back(columns[static_cast<size_t>(index)]);
    }
    exec::EncodedKeys keys;
    exec::EncodeGroupingKeys(key_columns, num_rows, &keys);
    exec::EncodedKeys sequences;
    const std::vector<exec::OrderingDirection> ascending(1);
    exec::EncodeOrderingKeys(std::span(&columns[static_cast<size_t>(sequence_index_)], 1),
                             ascending, num_rows, &sequences);
    exec::EncodedKeys tracked;
    if (scd_type_ == 2) {
      std::vector<ColumnPtr> tracked_columns;
      for (int i = 0; i < num_data_; ++i) {
        if (tracked_[static_cast<size_t>(i)] && !is_key_[static_cast<size_t>(i)]) {
          tracked_columns.push_back(columns[static_cast<size_t>(i)]);
        }
      }
      exec::EncodeGroupingKeys(tracked_columns, num_rows, &tracked);
    }

    // Each key's events in sequence order (ties in arrival order).
    std::unordered_map<std::string_view, std::vector<int64_t>> groups;
    std::vector<std::string_view> key_order;
    for (int64_t row = 0; row < num_rows; ++row) {
      auto [it, inserted] = groups.try_emplace(keys.Key(row));
      if (inserted) {
        key_order.push_back(keys.Key(row));
      }
      it->second.push_back(row);
    }
    for (auto& [key, rows] : groups) {
      std::stable_sort(rows.begin(), rows.end(),
                       [&](int64_t a, int64_t b) { return sequences.Key(a) < sequences.Key(b); });
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto state, LoadState(batch, groups));

    std::vector<OutputRow> output;
    std::vector<std::pair<std::string_view, KeyState>> new_state;
    const ColumnPtr delete_column =
        delete_index_ >= 0 ? columns[static_cast<size_t>(delete_index_)] : nullptr;
    auto is_delete = [&](int64_t row) {
      return delete_column != nullptr && delete_column->IsValid(row) &&
             delete_column->Values<uint8_t>()[row] != 0;
    };
    for (std::string_view key : key_order) {
      const std::vector<int64_t>& rows = groups[key];
      auto known = state.find(key);
      const KeyState* before = known == state.end() ? nullptr : &known->second;
      // Events no newer than the key's latest change nothing.
      auto first_new = rows.begin();
      if (before != nullptr) {
        first_new = std::find_if(rows.begin(), rows.end(), [&](int64_t row) {
          return sequences.Key(row) > std::string_view(before->sequence);
        });
      }
      if (first_new == rows.end()) {
        continue;
      }
      const std::span<const int64_t> events(&*first_new,
                                            static_cast<size_t>(rows.end() - first_new));
      KeyState after;
      after.sequence = std::string(sequences.Key(events.back()));
      if (scd_type_ == 1) {
        FoldType1(events, DataColumns(columns), is_delete, &output, &after);
      } else {
        FoldType2(events, before, tracked, is_delete, &output, &after);
      }
      new_state.emplace_back(key, std::move(after));
    }
    if (new_state.empty()) {
      return 0;
    }
    plan::DmlOptions options;
    options.txn = std::make_pair(batch.query_id, batch.batch_id);
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr source, MergeSource(columns, output));
    TRIBUTARY_ASSIGN_OR_RAISE(plan::MergeSpec spec, TargetMerge(source));
    auto merged = plan::MergeIntoTable(catalog_, spec, options);
    if (!merged.ok()) {
      return merged.status().WithContext(
          fmt::format("AUTO CDC into {}, batch {}", target_name_, batch.batch_id));
    }
    TRIBUTARY_RETURN_NOT_OK(SaveState(new_state, options));
    int64_t written = 0;
    for (const char* metric :
         {"numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"}) {
      if (auto it = merged->metrics.find(metric); it != merged->metrics.end()) {
        written += it->second;
      }
    }
    return written;
  }

  std::string Description() const override {
    return fmt::format("AutoCdcSink[{}]", flow_.target_path);
  }

 private:
  // The data columns (for IGNORE NULL UPDATES' per-column choice).
  std::span<const ColumnPtr> DataColumns(const std::vector<ColumnPtr>& columns) const {
    return {columns.data(), static_cast<size_t>(num_data_)};
  }

  // Databricks' AUTOCDC_MICROBATCH_VALIDATION: keys and sequences are never null.
  Status Validate(const std::vector<ColumnPtr>& columns, int64_t batch_id) const {
    const columnar::Schema& schema = *flow_.plan->Schema();
    std::vector<std::string> null_keys;
    for (int index : key_indexes_) {
      const int64_t nulls = columns[static_cast<size_t>(index)]->NullCount();
      if (nulls > 0) {
        null_keys.push_back(fmt::format("{}: {}", schema.FieldAt(index).Name(), nulls));
      }
    }
    const std::string prefix = fmt::format(
        "AUTOCDC_MICROBATCH_VALIDATION: AutoCDC flow on table {} in batch {} failed "
        "microbatch validation.",
        target_name_, batch_id);
    if (!null_keys.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{} NULL_KEY: The microbatch contains rows with null values in the following key "
          "column(s): {}. All rows must have non-null values for every key column.",
          prefix, fmt::join(null_keys, ", ")));
    }
    const int64_t null_sequences = columns[static_cast<size_t>(sequence_index_)]->NullCount();
    if (null_sequences > 0) {
      return Status::InvalidArgument(fmt::format(
          "{} NULL_SEQUENCE: The microbatch contains {} row(s) with a null sequencing value. "
          "All rows must have a non-null sequencing value.",
          prefix, null_sequences));
    }
    return Status::OK();
  }

  // The state of the keys in `groups` (others are not kept in memory).
  Result<std::unordered_map<std::string_view, KeyState>> LoadState(
      const streaming::MicroBatch& batch,
      const std::unordered_map<std::string_view, std::vector<int64_t>>& groups) const {
    std::unordered_map<std::string_view, KeyState> state;
    if (!delta::HasDeltaLog(*fs_, flow_.state_path)) {
      return state;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(plan::LogicalPlanPtr scan,
                              plan::ScanDeltaTable(catalog_, flow_.state_path, {}, ""));
    streaming::MicroBatch read = batch;
    read.plan = std::move(scan);
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<columnar::RecordBatchPtr> batches, read.Collect());
    for (const columnar::RecordBatchPtr& part : batches) {
      const ColumnPtr& key = part->ColumnAt(0);
      const ColumnPtr& sequence = part->ColumnAt(1);
      const ColumnPtr& deleted = part->ColumnAt(2);
      const ColumnPtr& tracked = part->ColumnAt(3);
      for (int64_t row = 0; row < part->NumRows(); ++row) {
        auto group = groups.find(key->BytesAt(row));
        if (group == groups.end()) {
          continue;
        }
        KeyState& entry = state[group->first];
        entry.sequence = std::string(sequence->BytesAt(row));
        entry.deleted = deleted->IsValid(row) && deleted->Values<uint8_t>()[row] != 0;
        if (tracked->IsValid(row)) {
          entry.tracked = std::string(tracked->BytesAt(row));
        }
      }
    }
    return state;
  }

  // SCD type 1: the last event wins; with IGNORE NULL UPDATES each column takes the latest
  // non-null value since the last delete.
  template <typename IsDelete>
  void FoldType1(std::span<const int64_t> events, std::span<const ColumnPtr> data,
                 const IsDelete& is_delete, std::vector<OutputRow>* output, KeyState* after) const {
    const int64_t last = events.back();
    OutputRow row;
    row.columns.assign(static_cast<size_t>(num_data_), last);
    after->deleted = is_delete(last);
    row.is_delete = after->deleted;
    if (!row.is_delete && ignore_null_updates_) {
      size_t since = 0;
      for (size_t i = 0; i < events.size(); ++i) {
        if (is_delete(events[i])) {
          since = i + 1;
          row.reset = true;
        }
      }
      for (int column = 0; column < num_data_; ++column) {
        for (size_t i = events.size(); i > since; --i) {
          if (data[static_cast<size_t>(column)]->IsValid(events[i - 1])) {
            row.columns[static_cast<size_t>(column)] = events[i - 1];
            break;
          }
        }
      }
    }
    output->push_back(std::move(row));
  }

  // SCD type 2: a new history row per change of the tracked columns; a change of untracked
  // columns only updates the open row in place; a delete closes the open row.
  template <typename IsDelete>
  void FoldType2(std::span<const int64_t> events, const KeyState* before,
                 const exec::EncodedKeys& tracked, const IsDelete& is_delete,
                 std::vector<OutputRow>* output, KeyState* after) const {
    bool open = before != nullptr && !before->deleted;
    std::string open_tracked = open ? before->tracked : std::string();
    // The open row: the target's (existing, index -1 until it is touched) or one this batch
    // inserts (its index in `output`).
    std::optional<size_t> existing;
    std::optional<size_t> inserted;
    auto existing_row = [&]() -> OutputRow& {
      if (!existing) {
        OutputRow row;
        row.columns.assign(static_cast<size_t>(num_data_), -1);
        for (int index : key_indexes_) {
          row.columns[static_cast<size_t>(index)] = events.front();
        }
        row.existing = true;
        existing = output->size();
        output->push_back(std::move(row));
      }
      return (*output)[*existing];
    };
    auto close = [&](int64_t at) {
      if (inserted) {
        (*output)[*inserted].end_at = at;
      } else {
        existing_row().end_at = at;
      }
      inserted.reset();
      open = false;
    };
    for (int64_t event : events) {
      if (is_delete(event)) {
        if (open) {
          close(event);
        }
        continue;
      }
      const std::string_view event_tracked = tracked.Key(event);
      if (open && event_tracked == open_tracked) {
        OutputRow& row = inserted ? (*output)[*inserted] : existing_row();
        for (int column = 0; column < num_data_; ++column) {
          if (!tracked_[static_cast<size_t>(column)]) {
            row.columns[static_cast<size_t>(column)] = event;
          }
        }
        row.set_untracked = true;
        continue;
      }
      if (open) {
        close(event);
      }
      OutputRow row;
      row.columns.assign(static_cast<size_t>(num_data_), event);
      row.start_at = event;
      inserted = output->size();
      output->push_back(std::move(row));
      open = true;
      open_tracked = std::string(event_tracked);
    }
    after->deleted = !open;
    after->tracked = open ? open_tracked : std::string();
  }

  // The MERGE source: the data columns, then the SCD type's extras.
  Result<columnar::RecordBatchPtr> MergeSource(const std::vector<ColumnPtr>& columns,
                                               const std::vector<OutputRow>& rows) const {
    const columnar::Schema& schema = *flow_.plan->Schema();
    std::vector<Field> fields;
    std::vector<ColumnPtr> out;
    std::vector<int64_t> indexes(rows.size());
    auto take = [&](const ColumnPtr& column, auto index_of) -> Status {
      for (size_t i = 0; i < rows.size(); ++i) {
        indexes[i] = index_of(rows[i]);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr taken,
                                exec::TakeOrNull(*column, indexes, columnar::DefaultMemoryPool()));
      out.push_back(std::move(taken));
      return Status::OK();
    };
    for (int column = 0; column < num_data_; ++column) {
      fields.push_back(schema.FieldAt(column));
      TRIBUTARY_RETURN_NOT_OK(take(
          columns[static_cast<size_t>(column)],
          [column](const OutputRow& row) { return row.columns[static_cast<size_t>(column)]; }));
    }
    auto flags = [&](std::string_view name, auto flag) -> Status {
      columnar::ColumnBuilder builder(DataType::Boolean());
      for (const OutputRow& row : rows) {
        builder.AppendBoolean(flag(row));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder.Finish());
      fields.emplace_back(std::string(name), DataType::Boolean(), false);
      out.push_back(std::move(column));
      return Status::OK();
    };
    if (scd_type_ == 1) {
      TRIBUTARY_RETURN_NOT_OK(
          flags("__cdc_is_delete", [](const OutputRow& row) { return row.is_delete; }));
      TRIBUTARY_RETURN_NOT_OK(flags("__cdc_reset", [](const OutputRow& row) { return row.reset; }));
    } else {
      const ColumnPtr& sequence = columns[static_cast<size_t>(sequence_index_)];
      fields.emplace_back(std::string(kStartAt), sequence->Type());
      TRIBUTARY_RETURN_NOT_OK(take(sequence, [](const OutputRow& row) { return row.start_at; }));
      fields.emplace_back(std::string(kEndAt), sequence->Type());
      TRIBUTARY_RETURN_NOT_OK(take(sequence, [](const OutputRow& row) { return row.end_at; }));
      TRIBUTARY_RETURN_NOT_OK(
          flags("__cdc_existing", [](const OutputRow& row) { return row.existing; }));
      TRIBUTARY_RETURN_NOT_OK(
          flags("__cdc_set_untracked", [](const OutputRow& row) { return row.set_untracked; }));
    }
    return columnar::RecordBatch::Make(std::make_shared<columnar::Schema>(std::move(fields)),
                                       static_cast<int64_t>(rows.size()), std::move(out));
  }

  static plan::LogicalPlanPtr ValuesScan(columnar::RecordBatchPtr batch,
                                         const std::string& qualifier) {
    plan::ScanSource values;
    values.kind = plan::ScanSource::Kind::kValues;
    values.schema = batch->Schema();
    values.batches.push_back(std::move(batch));
    values.description = "AUTO CDC changes";
    return plan::Scan(std::move(values), qualifier);
  }

  // MERGE INTO target t USING source s ON the keys (SCD type 2: and the open row).
  Result<plan::MergeSpec> TargetMerge(columnar::RecordBatchPtr source) const {
    const columnar::Schema& schema = *flow_.plan->Schema();
    plan::MergeSpec spec;
    spec.target_path = flow_.target_path;
    spec.target_alias = "t";
    spec.source = ValuesScan(std::move(source), "s");
    spec.source_alias = "s";
    std::vector<std::string> on;
    for (int index : key_indexes_) {
      const std::string& name = schema.FieldAt(index).Name();
      on.push_back(fmt::format("{} = {}", Quoted("t", name), Quoted("s", name)));
    }
    auto assign = [&](std::string column, const std::string& value) -> Result<plan::DmlAssignment> {
      TRIBUTARY_ASSIGN_OR_RAISE(expr::ExprPtr parsed, Parse(value));
      return plan::DmlAssignment{std::move(column), std::move(parsed)};
    };
    plan::MergeClause insert;
    insert.match = plan::MergeMatch::kNotMatchedByTarget;
    insert.action = plan::MergeAction::kInsert;
    for (int column = 0; column < num_data_; ++column) {
      const std::string& name = schema.FieldAt(column).Name();
      TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlAssignment value, assign(name, Quoted("s", name)));
      insert.assignments.push_back(std::move(value));
    }
    plan::MergeClause update;
    update.match = plan::MergeMatch::kMatched;
    update.action = plan::MergeAction::kUpdate;
    if (scd_type_ == 1) {
      plan::MergeClause remove;
      remove.match = plan::MergeMatch::kMatched;
      TRIBUTARY_ASSIGN_OR_RAISE(remove.condition, Parse("s.__cdc_is_delete"));
      remove.action = plan::MergeAction::kDelete;
      spec.clauses.push_back(std::move(remove));
      for (int column = 0; column < num_data_; ++column) {
        if (is_key_[static_cast<size_t>(column)]) {
          continue;
        }
        const std::string& name = schema.FieldAt(column).Name();
        const std::string value =
            ignore_null_updates_
                ? fmt::format("CASE WHEN s.__cdc_reset THEN {0} ELSE coalesce({0}, {1}) END",
                              Quoted("s", name), Quoted("t", name))
                : Quoted("s", name);
        TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlAssignment assignment, assign(name, value));
        update.assignments.push_back(std::move(assignment));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(insert.condition, Parse("NOT s.__cdc_is_delete"));
    } else {
      on.push_back(fmt::format("{} IS NULL", Quoted("t", kEndAt)));
      on.emplace_back("s.__cdc_existing");
      TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlAssignment end,
                                assign(std::string(kEndAt), Quoted("s", kEndAt)));
      update.assignments.push_back(std::move(end));
      for (int column = 0; column < num_data_; ++column) {
        if (tracked_[static_cast<size_t>(column)] || is_key_[static_cast<size_t>(column)]) {
          continue;
        }
        const std::string& name = schema.FieldAt(column).Name();
        TRIBUTARY_ASSIGN_OR_RAISE(
            plan::DmlAssignment assignment,
            assign(name, fmt::format("CASE WHEN s.__cdc_set_untracked THEN {} ELSE {} END",
                                     Quoted("s", name), Quoted("t", name))));
        update.assignments.push_back(std::move(assignment));
      }
      for (std::string_view name : {kStartAt, kEndAt}) {
        TRIBUTARY_ASSIGN_OR_RAISE(plan::DmlAssignment value,
                                  assign(std::string(name), Quoted("s", name)));
        insert.assignments.push_back(std::move(value));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(insert.condition, Parse("NOT s.__cdc_existing"));
    }
    if (!update.assignments.empty()) {
      spec.clauses.push_back(std::move(update));
    }
    spec.clauses.push_back(std::move(insert));
    TRIBUTARY_ASSIGN_OR_RAISE(spec.on, Parse(fmt::format("{}", fmt::join(on, " AND "))));
    return spec;
  }

  static columnar::SchemaPtr StateSchema() {
    return std::make_shared<columnar::Schema>(std::vector<Field>{
        Field("key", DataType::Binary(), false), Field("sequence", DataType::Binary(), false),
        Field("deleted", DataType::Boolean(), false), Field("tracked", DataType::Binary())});
  }

  // Upserts the keys' new state, with the same txn as the target's MERGE.
  Status SaveState(const std::vector<std::pair<std::string_view, KeyState>>& entries,
                   const plan::DmlOptions& options) const {
    const columnar::SchemaPtr schema = StateSchema();
    if (!delta::HasDeltaLog(*fs_, flow_.state_path)) {
      delta::TableWriteOptions write;
      write.mode = delta::SaveMode::kIgnore;
      write.operation = "CREATE TABLE";
      TRIBUTARY_RETURN_NOT_OK(
          delta::WriteTable(*fs_, flow_.state_path, schema, {}, write).status());
    }
    columnar::ColumnBuilder key(DataType::Binary());
    columnar::ColumnBuilder sequence(DataType::Binary());
    columnar::ColumnBuilder deleted(DataType::Boolean());
    columnar::ColumnBuilder tracked(DataType::Binary());
    for (const auto& [bytes, entry] : entries) {
      key.AppendBytes(bytes);
      sequence.AppendBytes(entry.sequence);
      deleted.AppendBoolean(entry.deleted);
      if (scd_type_ == 2 && !entry.deleted) {
        tracked.AppendBytes(entry.tracked);
      } else {
        tracked.AppendNull();
      }
    }
    std::vector<ColumnPtr> columns;
    for (columnar::ColumnBuilder* builder : {&key, &sequence, &deleted, &tracked}) {
      TRIBUTARY_ASSIGN_OR_RAISE(ColumnPtr column, builder->Finish());
      columns.push_back(std::move(column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        columnar::RecordBatchPtr rows,
        columnar::RecordBatch::Make(schema, static_cast<int64_t>(entries.size()),
                                    std::move(columns)));
    plan::MergeSpec spec;
    spec.target_path = flow_.state_path;
    spec.target_alias = "t";
    spec.source = ValuesScan(std::move(rows), "s");
    spec.source_alias = "s";
    TRIBUTARY_ASSIGN_OR_RAISE(spec.on, Parse("t.key = s.key"));
    plan::MergeClause update;
    update.match = plan::MergeMatch::kMatched;
    update.action = plan::MergeAction::kUpdateAll;
    plan::MergeClause insert;
    insert.match = plan::MergeMatch::kNotMatchedByTarget;
    insert.action = plan::MergeAction::kInsertAll;
    spec.clauses = {std::move(update), std::move(insert)};
    auto merged = plan::MergeIntoTable(catalog_, spec, options);
    if (!merged.ok()) {
      return merged.status().WithContext(
          fmt::format("AUTO CDC into {}: the flow's state {}", target_name_, flow_.state_path));
    }
    return Status::OK();
  }

  std::shared_ptr<storage::FileSystem> fs_;
  plan::Catalog catalog_;
  AutoCdcFlowPlan flow_;
  int scd_type_;
  bool ignore_null_updates_;
  std::string target_name_;
  /// Columns 0..num_data_-1 of the flow's plan are the target's data columns.
  int num_data_ = 0;
  int sequence_index_ = 0;
  int delete_index_ = -1;
  std::vector<int> key_indexes_;
  std::vector<bool> is_key_;
  /// Per data column: part of TRACK HISTORY ON (SCD type 2).
  std::vector<bool> tracked_;
};

}  // namespace

Result<AutoCdcFlowPlan> BindAutoCdcFlow(const SessionState& session,
                                        const sql::Statement& statement,
                                        const std::string& checkpoint) {
  const auto* found = std::get_if<sql::AutoCdc>(&statement.body);
  if (found == nullptr) {
    return Status::InvalidArgument("not an AUTO CDC flow");
  }
  const sql::AutoCdc& cdc = *found;
  const std::string flow = fmt::format("AUTO CDC INTO {}", cdc.target.ToString());
  if (cdc.apply_as_truncate != nullptr) {
    return Status::NotImplemented(fmt::format("{}: APPLY AS TRUNCATE WHEN", flow));
  }
  if (cdc.ignore_null_updates && cdc.scd_type == 2) {
    return Status::NotImplemented(
        fmt::format("{}: IGNORE NULL UPDATES with STORED AS SCD TYPE 2", flow));
  }
  if (cdc.scd_type != 1 && cdc.scd_type != 2) {
    return Status::InvalidArgument(fmt::format("{}: SCD TYPE {} (1 or 2)", flow, cdc.scd_type));
  }
  // The binder checks the names and binds the source (a stream) and the target's root.
  const plan::Catalog catalog = session.MakeCatalog(0);
  TRIBUTARY_ASSIGN_OR_RAISE(sql::BoundStatement bound,
                            sql::Bind(statement, catalog, session.config, checkpoint));
  const columnar::Schema& source = *bound.plan->Schema();

  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> kept,
                            SelectColumns(source, cdc.columns, cdc.columns_except, "COLUMNS"));
  std::vector<plan::NamedExpr> items;
  items.reserve(kept.size() + 2);
  for (const std::string& name : kept) {
    items.push_back({plan::ExactColumn(name), name});
  }
  items.push_back({cdc.sequence_by, std::string(kSequenceColumn)});
  if (cdc.apply_as_delete != nullptr) {
    items.push_back({cdc.apply_as_delete, std::string(kDeleteColumn)});
  }
  auto projected = plan::Select(bound.plan, items);
  if (!projected.ok()) {
    return projected.status().WithContext(flow);
  }
  AutoCdcFlowPlan result;
  result.cdc = cdc;
  result.plan = *std::move(projected);
  const columnar::Schema& schema = *result.plan->Schema();
  const DataType& sequence_type = *schema.FieldAt(static_cast<int>(kept.size())).Type();
  if (sequence_type.Id() == columnar::TypeId::kMap) {
    return Status::InvalidArgument(
        fmt::format("{}: NON_ORDERABLE_SEQUENCE: the sequencing column has non-orderable type {}",
                    flow, sequence_type.ToString()));
  }
  if (cdc.apply_as_delete != nullptr &&
      schema.FieldAt(static_cast<int>(kept.size()) + 1).Type()->Id() !=
          columnar::TypeId::kBoolean) {
    return Status::InvalidArgument(
        fmt::format("{}: APPLY AS DELETE WHEN needs a BOOLEAN, not {}", flow,
                    schema.FieldAt(static_cast<int>(kept.size()) + 1).Type()->ToString()));
  }
  std::vector<Field> fields(schema.Fields().begin(),
                            schema.Fields().begin() + static_cast<std::ptrdiff_t>(kept.size()));
  if (cdc.scd_type == 2) {
    const columnar::DataTypePtr& type = schema.FieldAt(static_cast<int>(kept.size())).Type();
    fields.emplace_back(std::string(kStartAt), type);
    fields.emplace_back(std::string(kEndAt), type);
  }
  result.target_schema = std::make_shared<columnar::Schema>(std::move(fields));
  result.target_path = bound.path;
  result.state_path = storage::JoinPath(checkpoint, "cdc_state");
  return result;
}

Result<bool> CreateAutoCdcTarget(const SessionState& session, const AutoCdcFlowPlan& flow,
                                 const std::map<std::string, std::string>& properties,
                                 const std::string& operation) {
  if (delta::HasDeltaLog(*session.fs, flow.target_path)) {
    return false;
  }
  delta::TableWriteOptions write;
  write.mode = delta::SaveMode::kIgnore;
  write.operation = operation;
  write.properties.insert(properties.begin(), properties.end());
  TRIBUTARY_RETURN_NOT_OK(
      delta::WriteTable(*session.fs, flow.target_path, flow.target_schema, {}, write).status());
  return true;
}

std::unique_ptr<streaming::Sink> MakeAutoCdcSink(const SessionState& session,
                                                 const AutoCdcFlowPlan& flow) {
  return std::make_unique<AutoCdcSink>(session, flow.cdc, flow);
}

}  // namespace tributary
