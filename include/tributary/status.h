// Status: the outcome of a fallible operation, with a code, a message and a retryable bit.
//
// Every fallible tributary function returns Status or Result<T> (tributary/result.h); no
// exception crosses a tributary function. An OK status holds no allocation.

#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace tributary {

/// What went wrong. Callers branch on the code, never on message text.
enum class StatusCode : int8_t {
  kOk = 0,
  /// The caller passed something invalid: bad option, type mismatch, malformed literal.
  kInvalidArgument,
  /// A file, table, column or version does not exist.
  kNotFound,
  /// A put-if-absent lost its race: the target already exists.
  kAlreadyExists,
  /// A concurrent commit conflicts with this transaction.
  kConflict,
  /// Stored data is damaged or violates its format: names the file and offset.
  kCorruption,
  /// The operating system or a remote store failed an I/O request.
  kIOError,
  /// A feature that tributary does not support (yet) was asked for.
  kNotImplemented,
  /// The operation was stopped on request.
  kCancelled,
  /// A bug: an invariant of tributary itself does not hold.
  kInternal,
};

/// The code's name as printed in messages, e.g. "Corruption".
std::string_view StatusCodeName(StatusCode code);

/// What a layer attaches to a Status so that its own callers can tell one failure from the
/// others of the same code without reading the message (Arrow's StatusDetail): streaming's
/// schema change (streaming/schema_change.h) is one. Callers test for their type with
/// dynamic_cast. Immutable; shared by the copies of the status.
class StatusDetail {
 public:
  virtual ~StatusDetail() = default;
  /// Printed by Status::ToString in place of the code's name.
  virtual std::string_view Name() const = 0;
};

/// The result of an operation that returns no value.
///
/// Thread-safety: a Status is a value; distinct objects may be used from distinct threads.
class [[nodiscard]] Status {
 public:
  /// An OK status.
  Status() noexcept = default;
  Status(StatusCode code, std::string message, bool retryable = false);
  ~Status() = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;

  static Status OK() { return {}; }
  static Status InvalidArgument(std::string message);
  static Status NotFound(std::string message);
  static Status AlreadyExists(std::string message);
  static Status Conflict(std::string message);
  static Status Corruption(std::string message);
  /// `retryable` marks a transient failure (timeout, throttling) that may succeed if repeated.
  static Status IOError(std::string message, bool retryable = false);
  static Status NotImplemented(std::string message);
  static Status Cancelled(std::string message);
  static Status Internal(std::string message);

  bool ok() const { return state_ == nullptr; }
  StatusCode Code() const { return state_ == nullptr ? StatusCode::kOk : state_->code; }
  /// The message without the code name; empty when OK.
  const std::string& Message() const;
  /// True when repeating the operation may succeed (RocksDB's retryable I/O errors).
  bool IsRetryable() const { return state_ != nullptr && state_->retryable; }

  bool IsInvalidArgument() const { return Code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return Code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return Code() == StatusCode::kAlreadyExists; }
  bool IsConflict() const { return Code() == StatusCode::kConflict; }
  bool IsCorruption() const { return Code() == StatusCode::kCorruption; }
  bool IsIOError() const { return Code() == StatusCode::kIOError; }
  bool IsNotImplemented() const { return Code() == StatusCode::kNotImplemented; }
  /// The detail attached by WithDetail; null when none (and when OK).
  const StatusDetail* Detail() const { return state_ == nullptr ? nullptr : state_->detail.get(); }

  /// A copy whose message is prefixed by `context` ("reading _delta_log/3.json: ...").
  /// OK stays OK.
  Status WithContext(std::string_view context) const;
  /// A copy with the retryable bit set to `retryable`. OK stays OK.
  Status WithRetryable(bool retryable) const;
  /// A copy carrying `detail` (WithContext and WithRetryable keep it). OK stays OK.
  Status WithDetail(std::shared_ptr<const StatusDetail> detail) const;

  /// "Corruption: <message>", or "OK"; a detail's name replaces the code's.
  std::string ToString() const;

  /// Aborts the process with the message when not OK. For tests, tools and examples only.
  void Abort() const;

 private:
  struct State {
    StatusCode code;
    bool retryable;
    std::string message;
    std::shared_ptr<const StatusDetail> detail;
  };
  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

namespace internal {
inline const Status& GenericToStatus(const Status& status) {
  return status;
}
}  // namespace internal

}  // namespace tributary

#define TRIBUTARY_CONCAT_IMPL(a, b) a##b
#define TRIBUTARY_CONCAT(a, b) TRIBUTARY_CONCAT_IMPL(a, b)

// `status_name` is a fresh identifier declared here, which cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TRIBUTARY_RETURN_NOT_OK_IMPL(status_name, expr)                               \
  do {                                                                                \
    ::tributary::Status status_name = ::tributary::internal::GenericToStatus((expr)); \
    if (!status_name.ok()) {                                                          \
      return status_name;                                                             \
    }                                                                                 \
  } while (false)
// NOLINTEND(bugprone-macro-parentheses)

/// Returns the status of `expr` (a Status or a Result) from the enclosing function when not OK.
#define TRIBUTARY_RETURN_NOT_OK(expr) \
  TRIBUTARY_RETURN_NOT_OK_IMPL(TRIBUTARY_CONCAT(_tributary_status_, __COUNTER__), expr)
