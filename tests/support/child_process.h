// Child processes for tests that run tributary's programs (the CLI, stream_driver) and kill
// them: the arguments and environment given, stdout and stderr captured in files, and the way
// the child ended (its exit status, or the signal that ended it).

#pragma once

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace tributary::testing {

/// How a child ended, and what it wrote.
struct ChildResult {
  bool killed_by_sigkill = false;
  /// Exit status when it exited; -1 when a signal ended it.
  int exit_code = -1;
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;

  /// "exited with status N; stderr: ..." or "died of signal N; stderr: ...".
  std::string Describe() const {
    if (exit_code >= 0) {
      return "exited with status " + std::to_string(exit_code) + "; stderr: " + stderr_text;
    }
    return "died of signal " + std::to_string(signal) + "; stderr: " + stderr_text;
  }
};

struct ChildOptions {
  /// argv: the program's path first.
  std::vector<std::string> args;
  /// Changes to the inherited environment: a value sets the variable, nullopt removes it.
  std::map<std::string, std::optional<std::string>> environment;
  /// Files that get the child's stdout and stderr (created or truncated); empty: /dev/null.
  std::string stdout_path;
  std::string stderr_path;
  /// When > 0, the child is killed with SIGKILL once it has run this long.
  int64_t kill_after_ms = 0;
};

/// Reaps child `pid` into `*status`, waiting for its exit through a pidfd (poll wakes when it
/// ends, no polling loop); after `kill_after` it is SIGKILLed and reaped. `kill_after` guards
/// against a hang only.
inline void ReapChild(pid_t pid, std::chrono::milliseconds kill_after, int* status) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd ended{pidfd, POLLIN, 0};
    const auto deadline = std::chrono::steady_clock::now() + kill_after;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      const int ready = left.count() > 0 ? ::poll(&ended, 1, static_cast<int>(left.count())) : 0;
      if (ready < 0 && errno == EINTR) {
        continue;
      }
      if (ready <= 0) {
        ::kill(pid, SIGKILL);
      }
      break;
    }
    ::close(pidfd);
  } else {
    ::kill(pid, SIGKILL);  // no pidfd (kernel before 5.3): no way to wait with a bound
  }
  while (::waitpid(pid, status, 0) == -1 && errno == EINTR) {
  }
}

/// A child being run: its pid, or (pid -1) why it could not be started.
struct StartedChild {
  pid_t pid = -1;
  ChildResult failure;
};

/// Starts the child without waiting for it (FinishChild waits). A child that cannot be started
/// has pid -1 and exit status 127 with the reason in failure.stderr_text.
inline StartedChild StartChild(const ChildOptions& options) {
  StartedChild started;
  if (options.args.empty()) {
    started.failure.exit_code = 127;
    started.failure.stderr_text = "no program given";
    return started;
  }
  std::vector<std::string> args = options.args;
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view text(*variable);
    const std::string name(text.substr(0, text.find('=')));
    if (!options.environment.contains(name)) {
      environment.emplace_back(text);
    }
  }
  for (const auto& [name, value] : options.environment) {
    if (value.has_value()) {
      environment.push_back(name + "=" + *value);
    }
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (std::string& variable : environment) {
    envp.push_back(variable.data());
  }
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string& out = options.stdout_path;
  const std::string& err = options.stderr_path;
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.empty() ? "/dev/null" : out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.empty() ? "/dev/null" : err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    started.failure.exit_code = 127;
    started.failure.stderr_text = "cannot start " + args[0] + ": " + std::strerror(spawned);
    return started;
  }
  started.pid = pid;
  return started;
}

/// Waits for the child StartChild started with `options` to end (or to the kill) and returns
/// how it ended.
inline ChildResult FinishChild(pid_t pid, const ChildOptions& options) {
  const auto read_text = [](const std::string& path) {
    if (path.empty()) {
      return std::string();
    }
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  ChildResult result;
  int status = 0;
  if (options.kill_after_ms > 0) {
    ReapChild(pid, std::chrono::milliseconds(options.kill_after_ms), &status);
  } else {
    while (::waitpid(pid, &status, 0) == -1 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.killed_by_sigkill = result.signal == SIGKILL;
  }
  result.stdout_text = read_text(options.stdout_path);
  result.stderr_text = read_text(options.stderr_path);
  return result;
}

/// Runs the child to its end (or to the kill) and returns how it ended. A child that cannot be
/// started is reported as exit status 127 with the reason in stderr_text.
inline ChildResult RunChild(const ChildOptions& options) {
  const StartedChild started = StartChild(options);
  return started.pid < 0 ? started.failure : FinishChild(started.pid, options);
}

/// Waits until the file `path` exists (inotify reports its creation in its directory) or
/// `ended()` is true (the process that would create it has ended); `bound` guards against a
/// hang only, the outcome never depends on how long this takes. True when the file exists.
/// What a test uses to wait for a child stopped at TRIBUTARY_PAUSE_AT (<pause file>.reached).
inline bool WaitForFile(const std::string& path, const std::function<bool()>& ended,
                        std::chrono::seconds bound = std::chrono::minutes(2)) {
  const int watch = inotify_init1(IN_CLOEXEC);
  if (watch >= 0) {
    inotify_add_watch(watch, std::filesystem::path(path).parent_path().c_str(),
                      IN_CREATE | IN_MOVED_TO);
  }
  const auto give_up = std::chrono::steady_clock::now() + bound;
  while (!std::filesystem::exists(path) && !ended() && std::chrono::steady_clock::now() < give_up) {
    pollfd event{watch, POLLIN, 0};
    if (::poll(&event, 1, /*timeout_ms=*/100) > 0) {
      char buffer[4096];
      (void)::read(watch, buffer, sizeof(buffer));  // drained; the loop re-checks the file
    }
  }
  if (watch >= 0) {
    ::close(watch);
  }
  return std::filesystem::exists(path);
}

}  // namespace tributary::testing
