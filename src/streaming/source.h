// Sources of a streaming query: what the micro-batch engine asks for new data.
//
// A query's plan names each source by a SourceDefinition (a plan::StreamingRelation: format,
// path, options, schema). When the query starts, the engine opens one Source per definition,
// numbered in plan order as Spark numbers them (`sources/<n>/` in the checkpoint), and for each
// micro-batch asks every source for its latest offset, writes those offsets to the offset log
// (write-ahead), then asks for the rows between the previous batch's offsets and the new ones.
//
// Offsets are JSON text, stored verbatim as one line of `offsets/<batchId>`; only the source
// that wrote an offset interprets it. A source must be replayable: GetBatch with the same range
// returns the same rows after a restart, which is what makes recovery exact.

#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "columnar/schema.h"
#include "expr/evaluator.h"
#include "plan/logical_plan.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// A source position: JSON text such as {"logOffset":3} or {"reservoirVersion":7,"index":-1}.
using Offset = std::string;

/// What a source may use when it opens.
struct SourceContext {
  storage::FileSystem* fs = nullptr;
  /// The query's checkpoint root.
  std::string checkpoint_location;
  /// `<checkpoint>/sources/<n>`: the source's own metadata (file lists per batch, pinned start
  /// positions). Created by the engine before Open.
  std::string metadata_dir;
  /// `<checkpoint local dir>/sources/<n>` (Checkpoint::SourceLocalDir): a local directory for
  /// the source's caches (RocksDB), which are rebuilt from metadata_dir when it is lost.
  /// Created by the engine before Open.
  std::string local_dir;
  /// Index of the source in the query (n above).
  int source_index = 0;
  /// Session time zone and clock.
  expr::EvalContext eval;
  /// Session settings (spark.* and tributary.* keys).
  std::map<std::string, std::string> session_config;
};

/// One opened source of a running query. Thread-safety: called from the query's thread only.
class Source {
 public:
  virtual ~Source() = default;

  /// The newest offset a batch starting after `start` (nullopt: the very beginning) may read
  /// up to. With `respect_limits` the source caps it by its rate limits (maxFilesPerTrigger,
  /// maxBytesPerTrigger, rowsPerSecond...); without, everything present is included (Trigger
  /// once). nullopt when the source has no data at all; a value equal to `start` means no new
  /// data. A schema change (schema_change.h) when the source's schema grew, after recording what
  /// a restart needs.
  virtual Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                                     bool respect_limits) = 0;

  /// Trigger.AvailableNow: pins the end to the data present now; LatestOffset never goes past
  /// it afterwards, so the query stops once it has caught up.
  virtual Status PrepareForTriggerAvailableNow() = 0;

  /// The rows in (start, end], as a scan source whose schema is the definition's schema (a
  /// kFiles, kDelta or kValues source). Deterministic in (start, end).
  virtual Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                            const Offset& end) = 0;

  /// Everything up to `end` is in the sink: the source may forget what it kept for replays
  /// before it (old file lists, in-memory rows) and act on committed files (cleanSource).
  virtual Status Commit(const Offset& end) {
    (void)end;
    return Status::OK();
  }

  /// Extra progress metrics ("numFilesOutstanding", ...), as Spark's source `metrics` map.
  virtual std::map<std::string, std::string> Metrics() const { return {}; }
};

/// A streaming source as a query names it; opened once per query run.
///
/// Thread-safety: immutable after construction.
class SourceDefinition : public plan::StreamingRelation {
 public:
  /// The schema of the rows the source produces (every batch has it).
  virtual columnar::SchemaPtr Schema() const = 0;
  /// Columns produced only when a query names them (a file source's `_metadata`;
  /// plan::ScanSource::hidden_columns). Default: none.
  virtual std::vector<columnar::Field> HiddenColumns() const { return {}; }
  /// A stable identity used to check that a checkpoint belongs to this query: the format and
  /// path, not the options or schema (schema evolution is not a new query).
  virtual std::string Identity() const = 0;
  virtual Result<std::unique_ptr<Source>> Open(const SourceContext& context) const = 0;
  /// True when the source reads only a share of its input chosen by the session (the Kafka
  /// source's tributary.kafka.processIndex), so that several processes run its query, one
  /// share each, as a pipeline scaled out. Default: false (every run reads everything).
  virtual bool ReadsSessionShare() const { return false; }
};

/// A streaming scan of `definition`, its columns qualified by `qualifier`.
plan::LogicalPlanPtr StreamScan(std::shared_ptr<const SourceDefinition> definition,
                                const std::string& qualifier = "");

}  // namespace tributary::streaming
