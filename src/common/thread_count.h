// How many threads a command uses: --threads N, else TRIBUTARY_THREADS, else every core.

#pragma once

#include <map>
#include <string>

#include "tributary/result.h"

namespace tributary {

/// Name of the environment variable that sets the default thread count.
inline constexpr const char* kThreadsEnvVar = "TRIBUTARY_THREADS";

/// The thread count to use. `requested` > 0 wins (a --threads flag); 0 means "not given", then
/// TRIBUTARY_THREADS applies when set, then std::thread::hardware_concurrency() (at least 1).
/// A negative `requested` or a TRIBUTARY_THREADS that is not a positive integer is an
/// InvalidArgument error naming the value.
Result<int> ResolveThreadCount(int requested);

/// Name of the session setting with a query's thread count (Session::Builder::Config, or the
/// CLI's --threads and --conf).
inline constexpr const char* kThreadsConfigKey = "tributary.threads";

/// The thread count of a session whose settings are `config`: tributary.threads when set (an
/// InvalidArgument error naming the setting unless it is a positive integer), else as
/// ResolveThreadCount(0).
Result<int> ResolveThreadCount(const std::map<std::string, std::string>& config);

}  // namespace tributary
