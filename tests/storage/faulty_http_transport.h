// An HttpTransport for tests that injects the network's failures into real requests: throttling,
// server errors and answers S3 gives, connections dropped before a request is sent, and responses
// lost after the server acted on the request.

#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "storage/s3_client.h"

namespace tributary::storage {

/// What the faulty transport does with one request it matches.
enum class Fault : int8_t {
  /// Answers 503 SlowDown without sending the request.
  kSlowDown,
  /// Answers 500 InternalError without sending the request.
  kInternalError,
  /// Answers 412 PreconditionFailed without sending the request, as S3 may answer a retried
  /// CompleteMultipartUpload with If-None-Match once the first attempt completed it.
  kPreconditionFailed,
  /// Answers 404 NoSuchUpload without sending the request: a retried CompleteMultipartUpload
  /// whose upload the first attempt completed.
  kNoSuchUpload,
  /// Fails as a reset connection would, without sending the request.
  kDropConnection,
  /// Sends the request, then fails as if the connection dropped before the response came.
  kLoseResponse,
};

/// Wraps the curl transport; each request whose method and URL match the next armed fault
/// suffers it. Counts the requests that reached the server.
class FaultyTransport final : public HttpTransport {
 public:
  FaultyTransport() : base_(MakeCurlHttpTransport(2000, 30000).ValueOrDie()) {}

  /// The next `times` requests with `method` whose URL contains `url_part` suffer `fault`.
  void Arm(const std::string& method, const std::string& url_part, Fault fault, int times = 1) {
    std::lock_guard lock(mutex_);
    for (int i = 0; i < times; ++i) {
      faults_.push_back({method, url_part, fault});
    }
  }

  int ArmedFaults() const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(faults_.size());
  }

  int Delivered() const { return delivered_.load(); }

  /// Requests whose URL contains `url_part` wait until `count` of them are in flight at once
  /// (or 60 s pass), which proves the client sends them concurrently. Call before any such
  /// request.
  void Rendezvous(const std::string& url_part, int count) {
    std::lock_guard lock(mutex_);
    rendezvous_url_part_ = url_part;
    rendezvous_count_ = count;
  }

  /// The most requests held by Rendezvous that were in flight at once.
  int MostConcurrent() const {
    std::lock_guard lock(mutex_);
    return most_concurrent_;
  }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::optional<Fault> fault;
    {
      std::lock_guard lock(mutex_);
      for (auto it = faults_.begin(); it != faults_.end(); ++it) {
        if (it->method == request.method && request.url.find(it->url_part) != std::string::npos) {
          fault = it->fault;
          faults_.erase(it);
          break;
        }
      }
    }
    switch (fault.value_or(Fault::kLoseResponse)) {
      case Fault::kSlowDown:
        return ErrorResponse(503, "SlowDown", "Please reduce your request rate.");
      case Fault::kInternalError:
        return ErrorResponse(500, "InternalError", "We encountered an internal error.");
      case Fault::kPreconditionFailed:
        return ErrorResponse(412, "PreconditionFailed",
                             "At least one of the preconditions "
                             "you specified did not hold");
      case Fault::kNoSuchUpload:
        return ErrorResponse(404, "NoSuchUpload", "The specified upload does not exist.");
      case Fault::kDropConnection:
        return Status::IOError("Connection reset by peer (injected)", /*retryable=*/true);
      case Fault::kLoseResponse:
        break;
    }
    ++delivered_;
    const bool held = request.url.find(rendezvous_url_part_) != std::string::npos;
    if (held) {
      WaitForRendezvous();
    }
    Result<HttpResponse> response = base_->Send(request);
    if (held) {
      std::lock_guard lock(mutex_);
      --held_in_flight_;
    }
    if (fault == Fault::kLoseResponse) {
      return Status::IOError("Connection reset by peer after sending (injected)",
                             /*retryable=*/true);
    }
    return response;
  }

 private:
  void WaitForRendezvous() {
    std::unique_lock lock(mutex_);
    ++held_in_flight_;
    most_concurrent_ = std::max(most_concurrent_, held_in_flight_);
    rendezvous_met_ = rendezvous_met_ || held_in_flight_ >= rendezvous_count_;
    rendezvous_changed_.notify_all();
    rendezvous_changed_.wait_for(lock, std::chrono::seconds(60), [&] { return rendezvous_met_; });
  }

  static HttpResponse ErrorResponse(int status, std::string_view code, std::string_view message) {
    HttpResponse response;
    response.status = status;
    response.body =
        fmt::format("<Error><Code>{}</Code><Message>{}</Message></Error>", code, message);
    return response;
  }

  struct ArmedFault {
    std::string method;
    std::string url_part;
    Fault fault;
  };

  std::shared_ptr<HttpTransport> base_;
  mutable std::mutex mutex_;
  std::vector<ArmedFault> faults_;
  std::atomic<int> delivered_{0};
  /// Never in a URL until Rendezvous sets it.
  std::string rendezvous_url_part_ = "\n";
  int rendezvous_count_ = 0;
  bool rendezvous_met_ = false;
  int held_in_flight_ = 0;
  int most_concurrent_ = 0;
  std::condition_variable rendezvous_changed_;
};

}  // namespace tributary::storage
