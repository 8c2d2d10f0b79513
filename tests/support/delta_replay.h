// An independent replay of a Delta table, for tests that check what tributary wrote: DuckDB
// reads the _delta_log commit JSON and decides the live files (newest action per logical file,
// the key being path plus deletion vector id, PROTOCOL.md "Action Reconciliation"); deletion
// vectors are decoded here from the bytes on disk (own Z85, the DV file layout of PROTOCOL.md
// "Deletion Vector Format", bitmaps through CRoaring's portable format), not through
// src/delta; DuckDB reads the live Parquet files with file_row_number and drops deleted rows.
//
// Limits: commit JSON only (no checkpoints: every commit file from version 0 must be there),
// no column mapping, and every column of the schema must be in at least one live file.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary::testing {

/// Decodes Z85 text (ZeroMQ RFC 32; length a multiple of 5) into bytes.
Result<std::string> DecodeZ85(const std::string& text);

/// A deletion vector descriptor as the log writes it.
struct ReplayDeletionVector {
  std::string storage_type;
  std::string path_or_inline_dv;
  int64_t offset = 0;
  int64_t size_in_bytes = 0;
  int64_t cardinality = 0;
};

/// The deleted row indexes of `dv` of a file in table `root`, ascending. Reads the DV file
/// ('u' and 'p') at its offset, checks the size prefix, the CRC-32 and the magic number, and
/// that the bitmap holds `cardinality` rows.
Result<std::vector<uint64_t>> ReadDeletionVectorRows(const std::string& root,
                                                     const ReplayDeletionVector& dv);

/// One live data file of the replayed version.
struct ReplayFile {
  /// As the log holds it (a relative URI path or an absolute URI).
  std::string path;
  std::optional<ReplayDeletionVector> deletion_vector;
};

struct ReplayedTable {
  /// The version replayed (the newest commit at or below the one asked for).
  int64_t version = -1;
  std::vector<ReplayFile> files;
  /// Canonical JSON lines (columns in the table schema's order), sorted.
  std::vector<std::string> rows;
};

/// Replays table `root` at each of `versions` (each: the newest commit at or below it), with
/// two DuckDB processes in all.
Result<std::vector<ReplayedTable>> ReplayDeltaVersions(const std::string& root,
                                                       const std::vector<int64_t>& versions);

/// The change data feed of each of `versions` (exactly that commit) read independently: the
/// commit's cdc files when it has any, else its added files as inserts. Per version, canonical
/// JSON lines of the schema's columns then "_change_type", sorted.
Result<std::vector<std::vector<std::string>>> ReplayChangeFeed(
    const std::string& root, const std::vector<int64_t>& versions);

/// Replays table `root` at `version` (default: the newest commit).
Result<ReplayedTable> ReplayDeltaTable(const std::string& root,
                                       std::optional<int64_t> version = std::nullopt);

}  // namespace tributary::testing
