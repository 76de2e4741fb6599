// A process's threads by the name the kernel shows for them (/proc/PID/task/*/comm),
// for tests of how the broker names its threads.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace rokka::testutil {

// name -> thread id, one entry per thread (names may repeat).
inline std::multimap<std::string, pid_t> threads_by_name(pid_t pid = ::getpid()) {
  std::multimap<std::string, pid_t> out;
  const auto dir = std::filesystem::path("/proc") / std::to_string(pid) / "task";
  for (const auto& task : std::filesystem::directory_iterator(dir)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) out.emplace(name, static_cast<pid_t>(std::stol(task.path().filename().string())));
  }
  return out;
}

// A thread names itself once it runs: waits (up to 10 s) until every name in `names` is
// there rather than race the threads' start, and returns what it saw last.
inline std::multimap<std::string, pid_t> threads_once_named(pid_t pid, const std::vector<std::string>& names) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    auto threads = threads_by_name(pid);
    bool all = true;
    for (const auto& name : names) all = all && threads.count(name) > 0;
    if (all || std::chrono::steady_clock::now() >= deadline) return threads;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace rokka::testutil
