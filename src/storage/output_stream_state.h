// The life of an OutputStream (storage/file_system.h), shared by the implementations: open until
// it is closed, aborted or fails, and the error every later call gets.

#pragma once

#include <cstdint>
#include <string_view>

#include "tributary/status.h"

namespace tributary::storage {

enum class OutputStreamState : int8_t { kOpen, kClosed, kAborted, kFailed };

/// OK for an open stream; else the InvalidArgument error of calling `operation` ("append to",
/// "close") on the stream for `path` in `state`.
Status CheckOutputStreamOpen(OutputStreamState state, std::string_view operation,
                             std::string_view path);

}  // namespace tributary::storage
