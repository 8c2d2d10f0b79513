// Result<T>: a value or the Status saying why there is none (Arrow's arrow::Result).

#pragma once

#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "tributary/status.h"

namespace tributary {

/// Either a T or a non-OK Status. Constructing one from an OK status is a bug and yields an
/// Internal error instead, so a Result never claims success without a value.
template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Status>, "use Status, not Result<Status>");

 public:
  // The constructors are implicit on purpose, as Arrow's: `return value;` and
  // `return Status::...;` are how a function returning Result<T> ends.
  // NOLINTBEGIN(google-explicit-constructor)
  Result(const Status& status) : storage_(status) { CheckNotOk(); }
  Result(Status&& status) : storage_(std::move(status)) { CheckNotOk(); }
  Result(const T& value) : storage_(value) {}
  Result(T&& value) : storage_(std::move(value)) {}
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, Result<T>>>>
  Result(U&& value) : storage_(std::in_place_index<1>, std::forward<U>(value)) {}
  // NOLINTEND(google-explicit-constructor)

  bool ok() const { return storage_.index() == 1; }

  /// The error; OK when a value is held.
  const Status& status() const& {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<0>(storage_);
  }

  const T& ValueOrDie() const& {
    DieUnlessOk();
    return std::get<1>(storage_);
  }
  T& ValueOrDie() & {
    DieUnlessOk();
    return std::get<1>(storage_);
  }
  T ValueOrDie() && {
    DieUnlessOk();
    return std::move(std::get<1>(storage_));
  }
  /// Moves the value out; the caller has checked ok().
  T MoveValueUnsafe() { return std::move(std::get<1>(storage_)); }

  T ValueOr(T alternative) const& { return ok() ? std::get<1>(storage_) : std::move(alternative); }

  const T& operator*() const& { return ValueOrDie(); }
  T& operator*() & { return ValueOrDie(); }
  const T* operator->() const { return &ValueOrDie(); }
  T* operator->() { return &ValueOrDie(); }

 private:
  void CheckNotOk() {
    if (std::get<0>(storage_).ok()) {
      storage_ = Status::Internal("Result constructed from an OK status without a value");
    }
  }
  void DieUnlessOk() const {
    if (!ok()) {
      std::get<0>(storage_).Abort();
    }
  }

  std::variant<Status, T> storage_;
};

namespace internal {
template <typename T>
const Status& GenericToStatus(const Result<T>& result) {
  return result.status();
}
}  // namespace internal

}  // namespace tributary

// `result_name` is a fresh identifier and `lhs` may be a declaration (`auto x`): neither can
// be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TRIBUTARY_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                                 \
  if (!result_name.ok()) {                                      \
    return result_name.status();                                \
  }                                                             \
  lhs = std::move(result_name).MoveValueUnsafe();
// NOLINTEND(bugprone-macro-parentheses)

/// Evaluates `rexpr` (a Result<T>); on error returns its status, else assigns the value to
/// `lhs`, which may be a declaration (`TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs.Open(path))`).
#define TRIBUTARY_ASSIGN_OR_RAISE(lhs, rexpr) \
  TRIBUTARY_ASSIGN_OR_RAISE_IMPL(TRIBUTARY_CONCAT(_tributary_result_, __COUNTER__), lhs, rexpr)
