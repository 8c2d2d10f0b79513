// Writes classic single-file Parquet checkpoints of a snapshot and the `_last_checkpoint` hint
// (PROTOCOL.md "Checkpoints", "Checkpoint Specs", "Last Checkpoint File"). checkpoint_writer.cc
// documents the file layout.

#pragma once

#include <cstdint>

#include "delta/snapshot.h"
#include "delta/table_properties.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::delta {

/// Writes `_delta_log/<version, 20 digits>.checkpoint.parquet` for `snapshot` in the schema
/// Spark writes (one action per row, one nullable struct column per action type), then replaces
/// `_delta_log/_last_checkpoint` with {"version","size","sizeInBytes","numOfAddFiles"} unless
/// it already names a newer version. Returns the checkpoint's version.
///
/// The checkpoint holds protocol, metaData, one txn per appId (lastUpdated null: the snapshot
/// keeps only the version), live domain metadata, the live add actions and the tombstones
/// younger than delta.deletedFileRetentionDuration (so VACUUM keeps their files), paths
/// URI-encoded again as Spark writes them (Hadoop Path.toUri quoting). Each add carries its
/// stats as the JSON string (unless delta.checkpoint.writeStatsAsJson is false) and typed in
/// stats_parsed and partitionValues_parsed (unless delta.checkpoint.writeStatsAsStruct is
/// false), as Spark does by default. Tables with the
/// v2Checkpoint writer feature also get the one checkpointMetadata row a V2 checkpoint needs.
///
/// The checkpoint is published with put-if-absent; losing the race to a concurrent writer of
/// the same version is success (both wrote the same actions). `_last_checkpoint` is read,
/// compared and replaced without a lock: two checkpointers racing on it can leave the older
/// version there, which readers tolerate because the file is only a hint.
///
/// Errors: IOError from `fs`, InvalidArgument when a value cannot be written (named with the
/// checkpoint path and version).
///
/// Thread-safety: the snapshot is only read; concurrent calls are safe as far as `fs` is.
Result<int64_t> WriteCheckpoint(storage::FileSystem& fs, const Snapshot& snapshot);

/// Whether a commit producing `snapshot` should be followed by a checkpoint: its version is
/// positive and a multiple of `delta.checkpointInterval` (Default: kDefaultCheckpointInterval).
bool ShouldCheckpoint(const Snapshot& snapshot);

}  // namespace tributary::delta
