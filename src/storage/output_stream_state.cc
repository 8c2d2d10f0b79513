#include "storage/output_stream_state.h"

#include <fmt/format.h>

namespace tributary::storage {

Status CheckOutputStreamOpen(OutputStreamState state, std::string_view operation,
                             std::string_view path) {
  std::string_view reason;
  switch (state) {
    case OutputStreamState::kOpen:
      return Status::OK();
    case OutputStreamState::kClosed:
      reason = "it is closed";
      break;
    case OutputStreamState::kAborted:
      reason = "it was aborted";
      break;
    case OutputStreamState::kFailed:
      reason = "an earlier operation failed";
      break;
  }
  return Status::InvalidArgument(
      fmt::format("cannot {} output stream for '{}': {}", operation, path, reason));
}

}  // namespace tributary::storage
