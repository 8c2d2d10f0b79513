// Reads the actions of checkpoint files (PROTOCOL.md "Checkpoints"): classic and multi-part
// Parquet checkpoints, and V2 checkpoints (JSON or Parquet top file plus Parquet sidecars).

#pragma once

#include <string>
#include <vector>

#include "delta/actions.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// The actions of one checkpoint file, sidecars not yet followed.
Result<std::vector<Action>> ReadCheckpointFile(storage::FileSystem& fs, const std::string& path);

}  // namespace tributary::delta
