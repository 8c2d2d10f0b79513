// Deletion vectors (PROTOCOL.md "Deletion Vectors"): which rows of a data file are deleted.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// Decodes Z85 text (ZeroMQ RFC 32) whose length is a multiple of 5.
Result<std::string> DecodeZ85(std::string_view text);

/// The deleted row indexes of a file, ascending. Reads the DV file for storage types 'u' and
/// 'p', decodes inline ones ('i'); checks the size, checksum and magic. Corruption names the
/// DV file and offset.
Result<std::vector<uint64_t>> LoadDeletedRows(storage::FileSystem& fs,
                                              const std::string& table_root,
                                              const DeletionVectorDescriptor& dv);

}  // namespace tributary::delta
