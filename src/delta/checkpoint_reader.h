// Reads the actions of checkpoint files (PROTOCOL.md "Checkpoints"): classic and multi-part
// Parquet checkpoints, and V2 checkpoints (JSON or Parquet top file plus Parquet sidecars).

#pragma once

#include <functional>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// Reads the actions of one checkpoint file (sidecars not followed) and hands them to `visit` a
/// slice at a time, in file order, so that memory holds one slice of actions (a few thousand)
/// besides the decoded row group; `visit` may move from the actions. The first error of
/// reading, decoding or `visit` stops the read and is returned.
Status ReadCheckpointFile(storage::FileSystem& fs, const std::string& path,
                          const std::function<Status(std::vector<Action>&)>& visit);

}  // namespace tributary::delta
