// LocalFileSystem: FileSystem over a POSIX file system (Linux), with the guarantees of
// storage/file_system.h.

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// FileSystem over the local disk. Paths are POSIX paths, absolute or relative to the working
/// directory, or file URIs ("file:///data"); a URI of any other scheme ("s3://...") is an
/// InvalidArgument error (storage/local_path.h), never a local name.
///
/// Whole-file writes and output streams stage their bytes in a staging file (StagingPath) in the
/// target's directory, fsync it, then publish it: kReplace with rename(2); kPutIfAbsent with
/// renameat2(RENAME_NOREPLACE), or link(2) where the file system lacks it (NFS). Either fails
/// with EEXIST when the target exists, in any process. The directory is fsynced after
/// publishing, and after every other change to it, before the operation returns. A failed fsync
/// is never retried: the write fails and its staging file is removed.
///
/// Thread-safety: stateless; every method may be called concurrently.
class LocalFileSystem final : public FileSystem {
 public:
  LocalFileSystem() = default;

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<FileInfo> GetFileInfo(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& dir, const ListOptions& options) override;
  Status CreateDir(const std::string& path) override;
  Status DeleteFile(const std::string& path) override;
  Status DeleteDir(const std::string& path, bool recursive) override;
  Status Rename(const std::string& src, const std::string& dst) override;
  Status WriteFile(const std::string& path, std::string_view data, WriteMode mode) override;
  Result<std::unique_ptr<OutputStream>> OpenOutputStream(const std::string& path,
                                                         WriteMode mode) override;
};

}  // namespace tributary::storage
