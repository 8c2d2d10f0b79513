#include "run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "common/thread_count.h"
#include "streaming/trigger_text.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"

namespace tributary::tools {
namespace {

// The signal that asked for a stop (0: none), and the pipe its handler writes to so the
// watcher thread wakes up (write is async-signal-safe; a mutex or condition variable is not).
std::atomic<int> g_stop_signal{0};
int g_wake_pipe[2] = {-1, -1};

// How long a stop request waits for the streams to end their current batches. A batch blocked
// in I/O that never returns (a dead network mount, a device) would otherwise keep the process
// alive forever; the process then ends without it, and the next run redoes that batch from the
// checkpoint (exactly once, as after a crash).
constexpr std::chrono::seconds kStopGracePeriod{10};

// For tests only: the environment variable TRIBUTARY_STOP_GRACE_SECONDS=<n> (an integer, 0 to
// 3600) sets the grace period, so that a test of a blocked run need not wait 10 s. A malformed
// value is reported on stderr and the default applies.
std::chrono::seconds StopGracePeriod() {
  const char* text = std::getenv("TRIBUTARY_STOP_GRACE_SECONDS");
  if (text == nullptr) {
    return kStopGracePeriod;
  }
  const std::string_view value(text);
  int64_t seconds = -1;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc{} || end != value.data() + value.size() || seconds < 0 || seconds > 3600) {
    std::cerr << fmt::format(
        "tributary run: ignoring TRIBUTARY_STOP_GRACE_SECONDS='{}' (not an integer from 0 to "
        "3600); the stop grace period is {} s\n",
        value, kStopGracePeriod.count());
    return kStopGracePeriod;
  }
  return std::chrono::seconds(seconds);
}

// Ends the process as `signal` would have without a handler, after saying why.
[[noreturn]] void ExitAfterStopTimeout(int signal, std::chrono::seconds grace_period) {
  std::cerr << fmt::format(
                   "tributary run: the streams did not stop within {} s of {} (blocked in I/O?); "
                   "exiting without finishing the current batches, which the next run redoes "
                   "from the checkpoints\n",
                   grace_period.count(), signal == SIGINT ? "SIGINT" : "SIGTERM")
            << std::flush;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
  std::_Exit(128 + signal);
}

extern "C" void OnStopSignal(int signal) {
  // The interrupted code may be between a failed call and its read of errno.
  const int saved_errno = errno;
  g_stop_signal.store(signal);
  // A second Ctrl-C ends the process the default way.
  std::signal(signal, SIG_DFL);
  const char byte = 's';
  [[maybe_unused]] const ssize_t written = write(g_wake_pipe[1], &byte, 1);
  errno = saved_errno;
}

// Installs the handlers and a thread that stops `pipeline` when one fires; the destructor
// wakes the thread, joins it and puts the default handlers back.
class StopOnSignal {
 public:
  static Result<std::unique_ptr<StopOnSignal>> Install(Pipeline& pipeline) {
    if (pipe2(g_wake_pipe, O_CLOEXEC) != 0) {
      return Status::IOError("creating the pipe that wakes the signal watcher");
    }
    g_stop_signal.store(0);
    std::signal(SIGINT, OnStopSignal);
    std::signal(SIGTERM, OnStopSignal);
    return std::unique_ptr<StopOnSignal>(new StopOnSignal(pipeline));
  }

  ~StopOnSignal() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const char byte = 'q';
    [[maybe_unused]] const ssize_t written = write(g_wake_pipe[1], &byte, 1);
    watcher_.join();
    if (stopper_.joinable()) {
      stopper_.join();
    }
    close(g_wake_pipe[0]);
    close(g_wake_pipe[1]);
    g_wake_pipe[0] = g_wake_pipe[1] = -1;
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// The signal that stopped the run, 0 when none.
  int Signal() const { return g_stop_signal.load(); }

 private:
  // The watcher asks the pipeline to stop on a separate thread: StreamExecution::Stop joins a
  // query thread that may be blocked in I/O, and the grace period must run regardless.
  explicit StopOnSignal(Pipeline& pipeline)
      : watcher_([this, &pipeline] {
          char byte = 0;
          while (read(g_wake_pipe[0], &byte, 1) < 0 && errno == EINTR) {
          }
          if (byte != 's') {
            return;
          }
          stopper_ = std::thread([&pipeline] { pipeline.Stop(); });
          // The run ends (the destructor writes 'q') or the grace period does.
          const std::chrono::seconds grace_period = StopGracePeriod();
          const auto deadline = std::chrono::steady_clock::now() + grace_period;
          while (true) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
              ExitAfterStopTimeout(g_stop_signal.load(), grace_period);
            }
            pollfd wake{g_wake_pipe[0], POLLIN, 0};
            const int ready = poll(&wake, 1, static_cast<int>(left.count()));
            if (ready > 0 && read(g_wake_pipe[0], &byte, 1) == 1 && byte == 'q') {
              return;
            }
          }
        }) {}

  /// Set by the watcher (before the destructor joins it) when a signal asked for a stop.
  std::thread stopper_;
  std::thread watcher_;
};

// The table an event is about; scaled out, a Kafka table's streams are one per share of its
// partitions, and the share is named.
std::string StreamOf(const PipelineEvent& event) {
  return event.share.has_value() ? fmt::format("{} (share {})", event.table, *event.share)
                                 : event.table;
}

// Prints pipeline events: a line each, and on a terminal a progress bar below them that the
// next line replaces.
class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, bool bar) : out_(out), bar_(bar) {}

  void Print(const PipelineEvent& event) {
    std::lock_guard lock(mutex_);
    ClearBar();
    const std::string stream = StreamOf(event);
    switch (event.kind) {
      case PipelineEvent::Kind::kTableCreated:
        out_ << fmt::format("{}: created ({})\n", event.table, event.message);
        break;
      case PipelineEvent::Kind::kStreamStarted:
        out_ << fmt::format("{}: stream started ({})\n", stream, event.message);
        break;
      case PipelineEvent::Kind::kBatch:
        PrintBatch(event);
        break;
      case PipelineEvent::Kind::kSchemaRestart:
        out_ << fmt::format("{}: the schema changed; restarting the stream with it ({})\n", stream,
                            event.message);
        break;
      case PipelineEvent::Kind::kStreamFinished:
        out_ << fmt::format("{}: stream finished\n", stream);
        break;
      case PipelineEvent::Kind::kShare:
        out_ << fmt::format("{}: {}\n", stream, event.message);
        break;
    }
    out_ << std::flush;
  }

  void Finish() {
    std::lock_guard lock(mutex_);
    ClearBar();
    out_ << std::flush;
  }

 private:
  void PrintBatch(const PipelineEvent& event) {
    const StreamingQueryProgress& progress = *event.progress;
    std::string line = fmt::format("{}: batch {}: {} rows read, {} written in {} ms",
                                   StreamOf(event), progress.batch_id, progress.num_input_rows,
                                   progress.sink.num_output_rows, progress.batch_duration);
    // Stateful streams: the watermark the batch used and the rows their state holds.
    if (auto watermark = progress.event_time.find("watermark");
        watermark != progress.event_time.end()) {
      line += fmt::format(", watermark {}", watermark->second);
    }
    if (!progress.state_operators.empty()) {
      int64_t state_rows = 0;
      int64_t dropped = 0;
      bool unbounded = false;
      for (const StateOperatorProgress& state : progress.state_operators) {
        state_rows += state.num_rows_total;
        dropped += state.num_rows_dropped_by_watermark;
        unbounded = unbounded || state.custom_metrics.contains("stateGrowsWithoutBound");
      }
      line += fmt::format(", {} state rows", state_rows);
      if (unbounded) {
        line += " (growing without bound: no watermark evicts them)";
      }
      if (dropped > 0) {
        line += fmt::format(", {} late rows dropped", dropped);
      }
    }
    // Object store requests since the previous batch line: what the trigger interval costs.
    if (!progress.storage_requests.empty()) {
      auto count = [&](const char* key) {
        auto it = progress.storage_requests.find(key);
        return it == progress.storage_requests.end() ? int64_t{0} : it->second;
      };
      line += fmt::format(
          ", storage requests: {} LIST, {} GET, {} PUT, {} DELETE ({} B read, {} B "
          "written)",
          count("listRequests"), count("getRequests"), count("putRequests"),
          count("deleteRequests"), count("bytesRead"), count("bytesWritten"));
    }
    if (event.backlog.has_value() && !bar_) {
      line += fmt::format(" ({}/{} {})", event.backlog->done, event.backlog->total,
                          event.backlog->unit);
    }
    out_ << line << "\n";
    if (event.backlog.has_value() && bar_ && event.backlog->total > 0) {
      constexpr int kWidth = 30;
      const PipelineBacklog& backlog = *event.backlog;
      const int filled = static_cast<int>(kWidth * backlog.done / backlog.total);
      out_ << fmt::format("{} [{}{}] {}/{} {}", event.table, std::string(filled, '#'),
                          std::string(kWidth - filled, '.'), backlog.done, backlog.total,
                          backlog.unit);
      bar_shown_ = true;
    }
  }

  void ClearBar() {
    if (bar_shown_) {
      out_ << "\r\033[K";
      bar_shown_ = false;
    }
  }

  std::ostream& out_;
  const bool bar_;
  bool bar_shown_ = false;
  std::mutex mutex_;
};

}  // namespace

Status RunPipelineCommand(const RunCommandOptions& options, std::ostream& out, bool terminal) {
  PipelineOptions pipeline_options;
  TRIBUTARY_ASSIGN_OR_RAISE(pipeline_options.trigger, streaming::ParseTrigger(options.trigger));
  pipeline_options.checkpoint_root = options.checkpoint_root;
  Session::Builder builder;
  if (options.threads > 0) {
    builder.Config(kThreadsConfigKey, std::to_string(options.threads));
  }
  for (const std::string& setting : options.conf) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Status::InvalidArgument(fmt::format("--conf takes KEY=VALUE, not '{}'", setting));
    }
    builder.Config(setting.substr(0, equals), setting.substr(equals + 1));
  }
  if (!options.warehouse.empty()) {
    builder.Warehouse(options.warehouse);
  }
  if (!options.time_zone.empty()) {
    builder.TimeZone(options.time_zone);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session, builder.Build());
  TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Pipeline> pipeline,
                            Pipeline::ParseFile(session, options.file, pipeline_options));
  ProgressPrinter printer(
      out, terminal && pipeline_options.trigger.GetKind() == Trigger::Kind::kAvailableNow);
  pipeline->OnEvent([&printer](const PipelineEvent& event) { printer.Print(event); });
  out << fmt::format("pipeline {}: {} streaming table(s) in order: {}; warehouse {}\n",
                     options.file, pipeline->Tables().size(), fmt::join(pipeline->Tables(), ", "),
                     session->WarehouseDirectory())
      << std::flush;
  Status result;
  int signal = 0;
  {
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<StopOnSignal> stop_on_signal,
                              StopOnSignal::Install(*pipeline));
    result = pipeline->Run();
    signal = stop_on_signal->Signal();
  }
  printer.Finish();
  if (result.ok() && signal != 0) {
    out << fmt::format("stopped by {} after the current batches\n",
                       signal == SIGINT ? "SIGINT" : "SIGTERM");
  }
  return result;
}

}  // namespace tributary::tools
