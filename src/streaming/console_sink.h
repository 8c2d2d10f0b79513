// The console sink (format "console"): each micro-batch printed as Spark's ConsoleSink prints
// it, a "Batch: n" banner and then show()'s table.

#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "streaming/sink.h"

namespace tributary::streaming {

/// Prints every batch to `out` (which must outlive the sink): at most `num_rows` rows, cells cut
/// to 20 characters when `truncate`. Prints re-run batches again, as Spark's does.
class ConsoleSink final : public Sink {
 public:
  ConsoleSink(std::ostream& out, int64_t num_rows, bool truncate);

  Result<int64_t> AddBatch(const MicroBatch& batch) override;
  std::string Description() const override;

 private:
  std::ostream& out_;
  int64_t num_rows_;
  bool truncate_;
};

}  // namespace tributary::streaming
