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

/// Encodes `bytes` (a length that is a multiple of 4) as Z85 text, 5 characters per 4 bytes.
std::string EncodeZ85(std::string_view bytes);

/// The serialized deletion vector bitmap of `rows` (ascending, no duplicates): magic
/// 1681511377 (little-endian), then RoaringBitmap's 64-bit portable format.
std::string SerializeDeletedRows(const std::vector<uint64_t>& rows);

/// Writes the deletion vectors `row_sets` (each ascending, without duplicates, not empty) as
/// one new file `<table_root>/deletion_vector_<uuid>.bin` and returns their descriptors in
/// order. Always storage type 'u' (no random prefix), even for tiny vectors: one rule every
/// reader (Spark, delta-kernel, delta-rs) handles, and a log that stays small. The file is
/// published atomically and is unreferenced until a commit names it.
Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectors(
    storage::FileSystem& fs, const std::string& table_root,
    const std::vector<std::vector<uint64_t>>& row_sets);

/// The deleted row indexes of a file, ascending. Reads the DV file for storage types 'u' and
/// 'p', decodes inline ones ('i'); checks the size, checksum and magic. Corruption names the
/// DV file and offset.
Result<std::vector<uint64_t>> LoadDeletedRows(storage::FileSystem& fs,
                                              const std::string& table_root,
                                              const DeletionVectorDescriptor& dv);

}  // namespace tributary::delta
