// AUTO CDC flows (Databricks' `AUTO CDC INTO` / `APPLY CHANGES INTO`): a stream of change
// events applied to a Delta table by key, each micro-batch one MERGE.
//
// Per key, the event with the highest SEQUENCE BY value wins, whether events arrive out of
// order within a micro-batch or across micro-batches: an event no newer than what the key
// last saw (an upsert or a delete) changes nothing. That needs the sequence of deleted keys
// after their rows are gone (tombstones); Databricks keeps them in a hidden table, and so does
// this flow: the flow's state, a Delta table at <checkpoint>/cdc_state, holds per key seen
// (grouping-encoded key bytes) the order-encoded sequence of its latest event, whether that
// event deleted it, and (SCD type 2) the encoded tracked columns of its open row. Tombstones
// are kept for good (no tombstone expiry yet).
//
// Each micro-batch: the events' keys and sequences are checked (non-null, as Databricks'
// AUTOCDC_MICROBATCH_VALIDATION), events no newer than the state are dropped, each key's
// remaining events are folded in sequence order (SCD type 1: the last one, with IGNORE NULL
// UPDATES taking each column's latest non-null value; SCD type 2: one history row per change
// of the tracked columns, __START_AT/__END_AT of the SEQUENCE BY type), and the result is
// applied with plan::MergeIntoTable, first to the target, then to the state, both with
// txn(appId = the flow's query id, version = batch id). A batch re-run after a crash is then a
// no-op on a table that already has it; the state is written last, so a re-run folds against
// the same state as the first run did and computes the same MERGE.
//
// Late events in SCD type 2 (older than the key's latest) are dropped, not inserted into the
// middle of the history as Databricks does.

#pragma once

#include <map>
#include <memory>
#include <string>

#include "api/api_state.h"
#include "plan/logical_plan.h"
#include "sql/ast.h"
#include "streaming/sink.h"

namespace tributary {

/// A flow bound against the session: what its stream reads and where it writes.
struct AutoCdcFlowPlan {
  sql::AutoCdc cdc;
  /// The source stream with the target's columns (COLUMNS applied), then the sequence value
  /// `__cdc_sequence` and whether the event is a delete `__cdc_delete`.
  plan::LogicalPlanPtr plan;
  /// The target table's root.
  std::string target_path;
  /// The target's columns: the kept source columns (+ __START_AT, __END_AT for SCD type 2).
  columnar::SchemaPtr target_schema;
  /// <checkpoint>/cdc_state.
  std::string state_path;
};

/// Binds `statement`, an AUTO CDC flow, with the stream's checkpoint `checkpoint`.
/// InvalidArgument for keys or columns the source does not have or a SEQUENCE BY of a type
/// that does not order; NotImplemented for APPLY AS TRUNCATE and for IGNORE NULL UPDATES with
/// SCD type 2.
Result<AutoCdcFlowPlan> BindAutoCdcFlow(const SessionState& session,
                                        const sql::Statement& statement,
                                        const std::string& checkpoint);

/// Creates the target as an empty Delta table of `flow.target_schema` with table properties
/// `properties` unless a table is there; true when it created one.
Result<bool> CreateAutoCdcTarget(const SessionState& session, const AutoCdcFlowPlan& flow,
                                 const std::map<std::string, std::string>& properties,
                                 const std::string& operation);

/// The sink applying each micro-batch of `flow.plan` to the target (see the file comment).
std::unique_ptr<streaming::Sink> MakeAutoCdcSink(const SessionState& session,
                                                 const AutoCdcFlowPlan& flow);

}  // namespace tributary
