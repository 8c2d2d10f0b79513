#include "storage/fault_injection_file_system.h"

#include <functional>
#include <mutex>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace tributary::storage {

namespace {

/// The epoch argument of an operation on the file system itself, valid in any epoch.
constexpr int64_t kCurrentEpoch = -1;

}  // namespace

// Outside the anonymous namespace: FaultSchedule (declared in the header, so not file-local)
// holds one.
enum class FaultKind : int8_t { kNone, kFail, kTear };

/// Counts writes, fires the armed fault and tracks crashes. Each crash starts a new epoch; files
/// and streams remember the epoch they were opened in and die with it.
class FaultSchedule {
 public:
  /// Runs the write `apply` to `path` by something opened in `epoch` (or kCurrentEpoch), unless
  /// the armed fault fires on it. `leave_partial`, when given, leaves what a crash before the
  /// write took effect leaves.
  Status RunWrite(std::string_view path, int64_t epoch, const std::function<Status()>& apply,
                  const std::function<Status()>& leave_partial) {
    FaultKind kind = FaultKind::kNone;
    int64_t write_number = 0;
    bool retryable = false;
    TornWriteOutcome outcome = TornWriteOutcome::kNotApplied;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      TRIBUTARY_RETURN_NOT_OK(CheckAliveLocked(path, epoch));
      write_number = ++write_count_;
      if (write_number == fault_at_) {
        kind = fault_kind_;
        retryable = fault_retryable_;
        outcome = fault_outcome_;
        fault_at_ = 0;
        if (kind == FaultKind::kTear) {
          CrashLocked();
        }
      }
    }
    switch (kind) {
      case FaultKind::kNone:
        return apply();
      case FaultKind::kFail:
        return Status::IOError(
            fmt::format("injected I/O error in write #{} to '{}'", write_number, path), retryable);
      case FaultKind::kTear:
        break;
    }
    Status partial;
    if (outcome == TornWriteOutcome::kApplied) {
      partial = apply();
    } else if (leave_partial) {
      partial = leave_partial();
    }
    if (!partial.ok() && !partial.IsAlreadyExists()) {
      return partial.WithContext(
          fmt::format("simulated crash during write #{} to '{}'", write_number, path));
    }
    return Status::IOError(
        fmt::format("simulated crash during write #{} to '{}'", write_number, path));
  }

  /// OK when something opened in `epoch` may still be used.
  Status CheckAlive(std::string_view path, int64_t epoch) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return CheckAliveLocked(path, epoch);
  }

  int64_t Epoch() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return epoch_;
  }

  int64_t WriteCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return write_count_;
  }

  void ArmWriteFault(int64_t n, FaultKind kind, bool retryable, TornWriteOutcome outcome) {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_at_ = n >= 1 ? write_count_ + n : 0;
    fault_kind_ = kind;
    fault_retryable_ = retryable;
    fault_outcome_ = outcome;
  }

  void ArmLostRace(std::string winning_data) {
    std::lock_guard<std::mutex> lock(mutex_);
    winning_data_ = std::move(winning_data);
  }

  /// The data a competing writer publishes before the next put-if-absent, once.
  std::optional<std::string> TakeLostRace() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<std::string> data = std::move(winning_data_);
    winning_data_.reset();
    return data;
  }

  void ClearFaults() {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_at_ = 0;
    winning_data_.reset();
  }

  void Crash() {
    std::lock_guard<std::mutex> lock(mutex_);
    CrashLocked();
  }

  bool IsCrashed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return crashed_;
  }

  void Restart() {
    std::lock_guard<std::mutex> lock(mutex_);
    crashed_ = false;
  }

  /// A nonce for the staging files torn writes leave; distinct per call.
  uint64_t NextNonce() {
    std::lock_guard<std::mutex> lock(mutex_);
    return 0xfa017ed000000000ULL + ++nonces_;
  }

 private:
  Status CheckAliveLocked(std::string_view path, int64_t epoch) const {
    if (crashed_) {
      return Status::IOError(
          fmt::format("cannot access '{}': the file system is down after a simulated crash", path));
    }
    if (epoch != kCurrentEpoch && epoch != epoch_) {
      return Status::IOError(
          fmt::format("cannot access '{}': it was opened before a simulated crash", path));
    }
    return Status::OK();
  }

  void CrashLocked() {
    if (!crashed_) {
      crashed_ = true;
      ++epoch_;
    }
  }

  mutable std::mutex mutex_;
  int64_t write_count_ = 0;
  /// The write number the armed fault fires at; 0 when none is armed.
  int64_t fault_at_ = 0;
  FaultKind fault_kind_ = FaultKind::kNone;
  bool fault_retryable_ = false;
  TornWriteOutcome fault_outcome_ = TornWriteOutcome::kNotApplied;
  std::optional<std::string> winning_data_;
  bool crashed_ = false;
  int64_t epoch_ = 0;
  uint64_t nonces_ = 0;
};

namespace {

/// Publishes the armed competitor's data at `path` before a put-if-absent, if one is armed.
Status PublishCompetitor(FileSystem& base, FaultSchedule& schedule, const std::string& path) {
  std::optional<std::string> winning_data = schedule.TakeLostRace();
  if (!winning_data) {
    return Status::OK();
  }
  Status status = base.WriteFile(path, *winning_data, WriteMode::kPutIfAbsent);
  return status.IsAlreadyExists() ? Status::OK() : status;
}

class FaultInjectionRandomAccessFile final : public RandomAccessFile {
 public:
  FaultInjectionRandomAccessFile(std::shared_ptr<FaultSchedule> schedule, int64_t epoch,
                                 std::unique_ptr<RandomAccessFile> inner)
      : schedule_(std::move(schedule)), epoch_(epoch), inner_(std::move(inner)) {}

  const std::string& Path() const override { return inner_->Path(); }

  Result<int64_t> Size() const override {
    TRIBUTARY_RETURN_NOT_OK(schedule_->CheckAlive(Path(), epoch_));
    return inner_->Size();
  }

  Status ReadInto(int64_t offset, std::span<char> out) const override {
    TRIBUTARY_RETURN_NOT_OK(schedule_->CheckAlive(Path(), epoch_));
    return inner_->ReadInto(offset, out);
  }

 private:
  std::shared_ptr<FaultSchedule> schedule_;
  int64_t epoch_;
  std::unique_ptr<RandomAccessFile> inner_;
};

class FaultInjectionOutputStream final : public OutputStream {
 public:
  FaultInjectionOutputStream(std::shared_ptr<FileSystem> base,
                             std::shared_ptr<FaultSchedule> schedule, int64_t epoch, WriteMode mode,
                             std::unique_ptr<OutputStream> inner)
      : base_(std::move(base)),
        schedule_(std::move(schedule)),
        epoch_(epoch),
        mode_(mode),
        inner_(std::move(inner)) {}

  const std::string& Path() const override { return inner_->Path(); }

  int64_t Position() const override { return inner_->Position(); }

  Status Append(std::string_view data) override {
    Status status = schedule_->RunWrite(
        Path(), epoch_, [&] { return inner_->Append(data); }, nullptr);
    return DieUnlessOk(std::move(status));
  }

  Status Close() override {
    if (closed_) {
      return Status::OK();
    }
    Status status = schedule_->RunWrite(
        Path(), epoch_,
        [&] {
          if (mode_ == WriteMode::kPutIfAbsent) {
            TRIBUTARY_RETURN_NOT_OK(PublishCompetitor(*base_, *schedule_, Path()));
          }
          return inner_->Close();
        },
        nullptr);
    closed_ = status.ok();
    return DieUnlessOk(std::move(status));
  }

  Status Abort() override { return inner_->Abort(); }

 private:
  /// A failed write kills the stream, as a failure of the real one does; a torn Close that was
  /// applied stays published, since Abort does nothing on a closed stream.
  Status DieUnlessOk(Status status) {
    if (!status.ok()) {
      TRIBUTARY_RETURN_NOT_OK(inner_->Abort());
    }
    return status;
  }

  std::shared_ptr<FileSystem> base_;
  std::shared_ptr<FaultSchedule> schedule_;
  int64_t epoch_;
  WriteMode mode_;
  std::unique_ptr<OutputStream> inner_;
  bool closed_ = false;
};

}  // namespace

FaultInjectionFileSystem::FaultInjectionFileSystem(std::shared_ptr<FileSystem> base)
    : base_(std::move(base)), schedule_(std::make_shared<FaultSchedule>()) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFileSystem::OpenForRead(
    const std::string& path) {
  int64_t epoch = schedule_->Epoch();
  TRIBUTARY_RETURN_NOT_OK(schedule_->CheckAlive(path, epoch));
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<RandomAccessFile> inner, base_->OpenForRead(path));
  return std::unique_ptr<RandomAccessFile>(
      std::make_unique<FaultInjectionRandomAccessFile>(schedule_, epoch, std::move(inner)));
}

Result<FileInfo> FaultInjectionFileSystem::GetFileInfo(const std::string& path) {
  TRIBUTARY_RETURN_NOT_OK(schedule_->CheckAlive(path, kCurrentEpoch));
  return base_->GetFileInfo(path);
}

Result<std::vector<FileInfo>> FaultInjectionFileSystem::List(const std::string& dir,
                                                             const ListOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(schedule_->CheckAlive(dir, kCurrentEpoch));
  return base_->List(dir, options);
}

Status FaultInjectionFileSystem::CreateDir(const std::string& path) {
  return schedule_->RunWrite(
      path, kCurrentEpoch, [&] { return base_->CreateDir(path); }, nullptr);
}

Status FaultInjectionFileSystem::DeleteFile(const std::string& path) {
  return schedule_->RunWrite(
      path, kCurrentEpoch, [&] { return base_->DeleteFile(path); }, nullptr);
}

Status FaultInjectionFileSystem::DeleteDir(const std::string& path, bool recursive) {
  return schedule_->RunWrite(
      path, kCurrentEpoch, [&] { return base_->DeleteDir(path, recursive); }, nullptr);
}

Status FaultInjectionFileSystem::Rename(const std::string& src, const std::string& dst) {
  return schedule_->RunWrite(
      src, kCurrentEpoch, [&] { return base_->Rename(src, dst); }, nullptr);
}

Status FaultInjectionFileSystem::WriteFile(const std::string& path, std::string_view data,
                                           WriteMode mode) {
  return schedule_->RunWrite(
      path, kCurrentEpoch,
      [&] {
        if (mode == WriteMode::kPutIfAbsent) {
          TRIBUTARY_RETURN_NOT_OK(PublishCompetitor(*base_, *schedule_, path));
        }
        return base_->WriteFile(path, data, mode);
      },
      [&] {
        return base_->WriteFile(StagingPath(path, schedule_->NextNonce()),
                                data.substr(0, data.size() / 2), WriteMode::kReplace);
      });
}

Result<std::unique_ptr<OutputStream>> FaultInjectionFileSystem::OpenOutputStream(
    const std::string& path, WriteMode mode) {
  int64_t epoch = schedule_->Epoch();
  std::unique_ptr<OutputStream> inner;
  TRIBUTARY_RETURN_NOT_OK(schedule_->RunWrite(
      path, epoch,
      [&]() -> Status {
        TRIBUTARY_ASSIGN_OR_RAISE(inner, base_->OpenOutputStream(path, mode));
        return Status::OK();
      },
      nullptr));
  return std::unique_ptr<OutputStream>(std::make_unique<FaultInjectionOutputStream>(
      base_, schedule_, epoch, mode, std::move(inner)));
}

const std::shared_ptr<FileSystem>& FaultInjectionFileSystem::Base() const {
  return base_;
}

int64_t FaultInjectionFileSystem::WriteCount() const {
  return schedule_->WriteCount();
}

void FaultInjectionFileSystem::FailNthWrite(int64_t n, bool retryable) {
  schedule_->ArmWriteFault(n, FaultKind::kFail, retryable, TornWriteOutcome::kNotApplied);
}

void FaultInjectionFileSystem::TearNthWrite(int64_t n, TornWriteOutcome outcome) {
  schedule_->ArmWriteFault(n, FaultKind::kTear, false, outcome);
}

void FaultInjectionFileSystem::LoseNextPutIfAbsent(std::string winning_data) {
  schedule_->ArmLostRace(std::move(winning_data));
}

void FaultInjectionFileSystem::ClearFaults() {
  schedule_->ClearFaults();
}

void FaultInjectionFileSystem::Crash() {
  schedule_->Crash();
}

bool FaultInjectionFileSystem::IsCrashed() const {
  return schedule_->IsCrashed();
}

void FaultInjectionFileSystem::Restart() {
  schedule_->Restart();
}

}  // namespace tributary::storage
