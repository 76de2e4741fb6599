// Runs the real broker binary (build/rokka) as a child process on a free loopback
// port with its own data directory: start, graceful stop, kill -9, restart.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/testutil/spawn.h"

namespace rokka::testutil {

class RokkaProcess {
 public:
  using Overrides = std::vector<std::pair<std::string, std::string>>;

  // `data_dir` must exist; the broker's log goes to data_dir/../<name>.log.
  RokkaProcess(std::filesystem::path data_dir, Overrides overrides = {})
      : data_dir_(std::move(data_dir)), overrides_(std::move(overrides)) {
    log_path_ = data_dir_.string() + ".log";
  }
  ~RokkaProcess() { kill9(); }

  // Starts the broker and waits until it listens. The first start picks a free
  // port; later starts reuse it, so clients' bootstrap addresses stay valid.
  void start(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    if (pid_ > 0) throw std::runtime_error("already running");
    const auto log_offset = std::filesystem::exists(log_path_) ? std::filesystem::file_size(log_path_) : 0;
    // The HTTP endpoints on a free port (rokka.http.listeners in `overrides` wins), so that
    // brokers of tests running at once do not contend for the default 127.0.0.1:9644.
    std::vector<std::string> args = {ROKKA_BINARY, "--override",
                                     "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port_), "--override",
                                     "log.dirs=" + data_dir_.string(), "--override", "rokka.http.listeners=127.0.0.1:0"};
    for (const auto& [k, v] : overrides_) {
      args.push_back("--override");
      args.push_back(k + "=" + v);
    }
    pid_ = spawn_logged(std::move(args), log_path_);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    static const std::regex kListening(R"(listening: address=[0-9.]+:([0-9]+) listener=(\S+))");
    // Every listener of a `listeners` override logs its port (the default has one).
    size_t expected = 1;
    for (const auto& [k, v] : overrides_) {
      if (k != "listeners") continue;
      expected = 0;
      for (size_t at = v.find("://"); at != std::string::npos; at = v.find("://", at + 3)) ++expected;
    }
    static const std::regex kHttp(R"(http serving: address=[0-9.]+:([0-9]+))");
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        // How it ended (an exit code, or the signal of a crash) and the log's end, long enough
        // to reach back past the configuration dump to whatever came before the exit.
        const std::string how = WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                                  : "signal " + std::to_string(WTERMSIG(status)) +
                                                        (WCOREDUMP(status) ? " (core dumped)" : "");
        throw std::runtime_error("rokka exited during start-up (" + how + "); log: " + log_tail(12000));
      }
      std::ifstream in(log_path_);
      in.seekg(static_cast<std::streamoff>(log_offset));
      std::stringstream ss;
      ss << in.rdbuf();
      std::smatch m;
      const std::string text = ss.str();
      std::vector<std::pair<std::string, uint16_t>> ports;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), kListening); it != std::sregex_iterator(); ++it)
        ports.emplace_back((*it)[2], static_cast<uint16_t>(std::stoi((*it)[1])));
      if (!ports.empty() && ports.size() >= expected) {
        listener_ports_ = ports;
        port_ = ports.front().second;
        http_port_ = std::regex_search(text, m, kHttp) ? static_cast<uint16_t>(std::stoi(m[1])) : 0;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill9();
    throw std::runtime_error("rokka did not start listening; log: " + log_tail());
  }

  // SIGTERM and wait: the graceful path. Returns the exit status (0 = clean).
  int stop(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill9();
    return -2;
  }

  // SIGKILL: a crash at an arbitrary moment.
  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  bool running() const { return pid_ > 0; }
  // True once the process has exited by itself (reaps it).
  bool has_exited() {
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) pid_ = -1;
    return pid_ <= 0;
  }
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }  // the first listener's
  // The port a named listener bound (0 if none has that name).
  uint16_t port(std::string_view listener) const {
    for (const auto& [name, p] : listener_ports_)
      if (name == listener) return p;
    return 0;
  }
  uint16_t http_port() const { return http_port_; }  // 0 when the HTTP endpoints are off
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& log_path() const { return log_path_; }

  std::string log_tail(size_t bytes = 4000) const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    return s.size() > bytes ? s.substr(s.size() - bytes) : s;
  }

 private:
  std::filesystem::path data_dir_;
  Overrides overrides_;
  std::string log_path_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  uint16_t http_port_ = 0;
  std::vector<std::pair<std::string, uint16_t>> listener_ports_;
};

}  // namespace rokka::testutil
