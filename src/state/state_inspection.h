// What a checkpoint's state holds, for `tributary state`: the operators, their partitions and
// sizes, and the rows of one version decoded with the operator's schemas (as Spark 4.0's state
// data source shows them).

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::state {

/// One state partition of an operator.
struct StatePartitionSummary {
  int32_t partition_id = 0;
  /// Keys of the committed version; nullopt when no file of that version is in the checkpoint.
  std::optional<int64_t> num_rows;
  /// Changelogs and snapshots in the checkpoint, and their bytes.
  int64_t num_files = 0;
  int64_t file_bytes = 0;
};

/// One stateful operator.
struct StateOperatorSummary {
  int64_t operator_id = 0;
  /// From the operator's metadata; empty without one.
  std::string operator_name;
  int32_t num_partitions = 0;
  std::vector<StatePartitionSummary> partitions;
};

/// The state of a checkpoint.
struct CheckpointStateSummary {
  /// The newest batch in commits/; nullopt when none committed.
  std::optional<int64_t> last_committed_batch;
  /// The state version of that batch (batch B commits version B+1); 0 without one.
  int64_t committed_version = 0;
  std::vector<StateOperatorSummary> operators;
};

/// The newest batch id in `<checkpoint>/commits/`; nullopt when there is none.
Result<std::optional<int64_t>> LastCommittedBatch(storage::FileSystem* fs,
                                                  const std::string& checkpoint);

/// The operators under `<checkpoint>/state/`, by id, and their partitions at the committed
/// version. NotFound when the checkpoint does not exist.
Result<CheckpointStateSummary> SummarizeCheckpointState(storage::FileSystem* fs,
                                                        const std::string& checkpoint);

/// Calls `emit` with every row of version `version` of operator `operator_id`, partition by
/// partition in key order, as one JSON object per row:
/// `{"key":{...},"value":{...},"partition_id":p}` (canonical JSON, columns named by the
/// operator's key and value schemas). Builds each partition in a temporary local RocksDB that
/// is deleted afterwards. NotFound when the operator has no metadata (its rows cannot be
/// decoded) or a file the version needs is missing.
Status ReadStateRows(storage::FileSystem* fs, const std::string& checkpoint, int64_t operator_id,
                     int64_t version,
                     const std::function<Status(std::string_view json_line)>& emit);

}  // namespace tributary::state
