// FaultInjectionFileSystem: a FileSystem wrapper for tests that fails, tears and crashes writes
// on request, so every layer can prove it survives what real storage does (RocksDB's
// FaultInjectionTestFS). Deterministic: faults fire at numbered writes, never on a timer.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/file_system.h"
#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// The fault schedule and crash state a FaultInjectionFileSystem shares with the files and
/// streams it opened. Defined in fault_injection_file_system.cc.
class FaultSchedule;

/// What a torn write leaves behind. Both are states a crash of the real process can leave.
enum class TornWriteOutcome : int8_t {
  /// The crash came before the write took effect. A torn WriteFile leaves a staging file
  /// holding the first half of its data (List hides it); the target is as it was.
  kNotApplied,
  /// The crash came after the write took effect, before it could report success.
  kApplied,
};

/// Wraps a FileSystem and injects faults into its writes.
///
/// Writes are numbered from 1 in the order they start: each mutating FileSystem call
/// (CreateDir, DeleteFile, DeleteDir, Rename, WriteFile, OpenOutputStream) and each
/// OutputStream::Append and Close is one write; reads and Abort are not. A test first runs its
/// scenario clean to learn WriteCount(), then repeats it with a fault at every write number.
///
/// A crash (Crash(), or a torn write) takes the file system down: every later operation,
/// reads included, fails with a non-retryable IOError, as would a dead process. Restart() brings
/// it back as after a power loss: files and streams opened before the crash stay dead, so data
/// appended to an unclosed stream is dropped, never published; everything that returned OK is
/// kept, since it was durable (guarantee 4 of storage/file_system.h).
///
/// Thread-safety: all methods may be called concurrently; the schedule is guarded by a mutex
/// and the wrapped file system must itself be thread-safe.
class FaultInjectionFileSystem final : public FileSystem {
 public:
  /// Wraps `base`, which holds the files; no fault is armed.
  explicit FaultInjectionFileSystem(std::shared_ptr<FileSystem> base);
  ~FaultInjectionFileSystem() override;
  FaultInjectionFileSystem(const FaultInjectionFileSystem&) = delete;
  FaultInjectionFileSystem& operator=(const FaultInjectionFileSystem&) = delete;

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

  /// The wrapped file system, to inspect or prepare files behind the injector's back.
  const std::shared_ptr<FileSystem>& Base() const;

  /// Writes started so far, faulted ones included, refused ones (while crashed) excluded.
  int64_t WriteCount() const;

  /// The `n`-th write from now (n >= 1) fails with an IOError, `retryable` or not, without
  /// taking effect. Replaces any armed write fault.
  void FailNthWrite(int64_t n, bool retryable);

  /// The `n`-th write from now (n >= 1) is torn by a crash: it leaves `outcome`, returns an
  /// IOError and the file system is crashed until Restart(). Replaces any armed write fault.
  void TearNthWrite(int64_t n, TornWriteOutcome outcome);

  /// The next put-if-absent (WriteFile, or Close of a stream, in WriteMode::kPutIfAbsent) loses a
  /// race: just before it, a competing writer publishes `winning_data` at its path, so it fails
  /// with AlreadyExists and the winner's file is what readers see.
  void LoseNextPutIfAbsent(std::string winning_data);

  /// Disarms the write fault and the lost race, if armed.
  void ClearFaults();

  /// Crashes now: a crash point. Every later operation fails until Restart().
  void Crash();

  /// Whether the file system is down after a crash.
  bool IsCrashed() const;

  /// Comes back after a crash as after a power loss; see the class comment. Armed faults stay.
  void Restart();

 private:
  std::shared_ptr<FileSystem> base_;
  std::shared_ptr<FaultSchedule> schedule_;
};

}  // namespace tributary::storage
