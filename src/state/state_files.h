// The files a state partition keeps in the checkpoint: `<v>.changelog` (the writes that made
// version v) and `<v>.snapshot` (every key and value of version v). Both are written and read
// as streams, so a snapshot of a state larger than memory never sits in memory whole. The
// format is documented at the top of state_files.cc.

#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::state {

/// Which of the two files.
enum class StateFileKind : uint8_t { kChangelog, kSnapshot };

/// What a file's header records.
struct StateFileHeader {
  StateFileKind kind = StateFileKind::kChangelog;
  /// The state version the file makes (changelog) or holds (snapshot).
  int64_t version = 0;
  /// Keys of that version.
  int64_t num_keys = 0;
};

/// `<dir>/<version>.changelog` or `.snapshot`.
std::string StateFilePath(const std::string& dir, StateFileKind kind, int64_t version);
/// The kind and version of a file name "<v>.changelog" / "<v>.snapshot"; nullopt for others.
std::optional<StateFileHeader> ParseStateFileName(std::string_view name);

/// Writes one state file through an OutputStream that replaces the file atomically on Finish;
/// a writer destroyed before Finish publishes nothing. Snapshots are zstd-compressed.
class StateFileWriter {
 public:
  static Result<std::unique_ptr<StateFileWriter>> Open(storage::FileSystem* fs,
                                                       const std::string& path,
                                                       const StateFileHeader& header);
  ~StateFileWriter();
  StateFileWriter(const StateFileWriter&) = delete;
  StateFileWriter& operator=(const StateFileWriter&) = delete;

  Status Put(std::string_view key, std::string_view value);
  /// Only in changelogs.
  Status Delete(std::string_view key);
  /// Writes the trailer and publishes the file.
  Status Finish();
  /// Bytes written to the stream so far.
  int64_t BytesWritten() const;
  /// The checksum the trailer records; valid after Finish.
  uint32_t Checksum() const;

 private:
  class Impl;
  explicit StateFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One record of a state file.
struct StateFileRecord {
  bool is_delete = false;
  /// Views into the reader's buffer, valid until the next call of Next.
  std::string_view key;
  std::string_view value;
};

/// Reads one state file record by record. The checksum and the record count are checked when
/// Next reaches the end, so a caller applies what it read only after Next returned false.
class StateFileReader {
 public:
  /// NotFound naming `path` when it does not exist; Corruption naming it when its header is
  /// not one of a `kind` file of `version`.
  static Result<std::unique_ptr<StateFileReader>> Open(storage::FileSystem* fs,
                                                       const std::string& path, StateFileKind kind,
                                                       int64_t version);
  ~StateFileReader();
  StateFileReader(const StateFileReader&) = delete;
  StateFileReader& operator=(const StateFileReader&) = delete;

  const StateFileHeader& Header() const;
  /// The next record into `record`; false at the end of a file whose checksum and count
  /// matched. Corruption naming the file otherwise.
  Result<bool> Next(StateFileRecord* record);
  /// The checksum the trailer records (identifies the file's contents).
  uint32_t Checksum() const;

 private:
  class Impl;
  explicit StateFileReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The checksum a state file's trailer records, read from its last bytes only.
Result<uint32_t> ReadStateFileChecksum(storage::FileSystem* fs, const std::string& path);

}  // namespace tributary::state
