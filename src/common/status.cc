#include "tributary/status.h"

#include <cstdio>
#include <cstdlib>

namespace tributary {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "Invalid argument";
    case StatusCode::kNotFound:
      return "Not found";
    case StatusCode::kAlreadyExists:
      return "Already exists";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kIOError:
      return "IO error";
    case StatusCode::kNotImplemented:
      return "Not implemented";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message, bool retryable) {
  if (code != StatusCode::kOk) {
    state_ = std::make_unique<State>(State{code, retryable, std::move(message), nullptr});
  }
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

Status Status::InvalidArgument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
Status Status::NotFound(std::string message) {
  return {StatusCode::kNotFound, std::move(message)};
}
Status Status::AlreadyExists(std::string message) {
  return {StatusCode::kAlreadyExists, std::move(message)};
}
Status Status::Conflict(std::string message) {
  return {StatusCode::kConflict, std::move(message)};
}
Status Status::Corruption(std::string message) {
  return {StatusCode::kCorruption, std::move(message)};
}
Status Status::IOError(std::string message, bool retryable) {
  return {StatusCode::kIOError, std::move(message), retryable};
}
Status Status::NotImplemented(std::string message) {
  return {StatusCode::kNotImplemented, std::move(message)};
}
Status Status::Cancelled(std::string message) {
  return {StatusCode::kCancelled, std::move(message)};
}
Status Status::Internal(std::string message) {
  return {StatusCode::kInternal, std::move(message)};
}

const std::string& Status::Message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) {
    return {};
  }
  std::string message(context);
  message += ": ";
  message += state_->message;
  Status out(state_->code, std::move(message), state_->retryable);
  out.state_->detail = state_->detail;
  return out;
}

Status Status::WithRetryable(bool retryable) const {
  if (ok()) {
    return {};
  }
  Status out(*this);
  out.state_->retryable = retryable;
  return out;
}

Status Status::WithDetail(std::shared_ptr<const StatusDetail> detail) const {
  if (ok()) {
    return {};
  }
  Status out(*this);
  out.state_->detail = std::move(detail);
  return out;
}

std::string Status::ToString() const {
  if (ok()) {
    return "OK";
  }
  std::string out(state_->detail ? state_->detail->Name() : StatusCodeName(state_->code));
  if (state_->retryable) {
    out += " (retryable)";
  }
  out += ": ";
  out += state_->message;
  return out;
}

void Status::Abort() const {
  if (!ok()) {
    std::fprintf(stderr, "tributary: fatal: %s\n", ToString().c_str());
    std::abort();
  }
}

std::ostream& operator<<(std::ostream& os, const Status& status) {
  return os << status.ToString();
}

}  // namespace tributary
