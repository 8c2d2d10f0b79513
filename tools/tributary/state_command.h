// `tributary state CHECKPOINT [--operator N [--batch B]]`: what a streaming query remembers.

#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "tributary/status.h"

namespace tributary::tools {

struct StateCommandOptions {
  /// The query's checkpoint location.
  std::string checkpoint;
  /// With it, print the rows of this operator's state instead of the listing.
  std::optional<int64_t> operator_id;
  /// The batch whose state to print (version batch + 1); default: the last committed batch.
  std::optional<int64_t> batch;
};

/// Without an operator: the last committed batch, then per stateful operator its id, name and
/// partitions, with the rows and the bytes of state files of each. With one: the rows of its
/// state after `batch` as JSON lines, `{"key":{...},"value":{...},"partition_id":p}`, as
/// Spark 4.0's state data source shows them.
Status StateCommand(const StateCommandOptions& options, std::ostream& out);

}  // namespace tributary::tools
