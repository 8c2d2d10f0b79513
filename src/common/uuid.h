// Random identifiers: table ids, data file names, transaction ids.

#pragma once

#include <string>

namespace tributary {

/// A random version-4 UUID in its 36-character text form. Each thread draws from its own
/// generator seeded from std::random_device and the process id, so concurrent writers (threads
/// or forked processes) never share a sequence.
std::string NewUuid();

}  // namespace tributary
