// Real etcd members for the cluster tests: a child process `etcd` (Debian's etcd-server
// 3.4) on free loopback ports with its own data directory; start, stop, kill -9, SIGSTOP /
// SIGCONT, restart on the same data dir and ports. EtcdCluster starts 1 or 3 members.
// If `etcd` is not installed, etcd_installed() is false and the tests skip with the reason.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil/spawn.h"

namespace rokka::testutil {

// The etcd binary: $ROKKA_ETCD, else `etcd` on PATH; empty if there is none.
inline std::string etcd_binary() {
  if (const char* env = std::getenv("ROKKA_ETCD"); env && *env) return ::access(env, X_OK) == 0 ? env : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/etcd";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}
inline bool etcd_installed() { return !etcd_binary().empty(); }
inline constexpr const char* kEtcdMissing = "etcd is not installed (apt-get install etcd-server): cluster test not run";

// A loopback port nobody listens on right now (the kernel's choice for port 0), and
// not one this process handed out before (a member's client and peer ports differ).
// Another test process may still take it before etcd binds it: EtcdProcess::start_new
// and EtcdCluster::start then pick new ports.
inline uint16_t free_port() {
  static std::mutex mu;
  static std::set<uint16_t> given;
  for (;;) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("free_port failed");
    }
    ::close(fd);
    std::lock_guard lock(mu);
    if (given.insert(ntohs(addr.sin_port)).second) return ntohs(addr.sin_port);
  }
}

// One plain HTTP/1.0 request to 127.0.0.1:port; the whole answer (header and body), or "".
inline std::string http_request(uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  timeval tv{0, 500 * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

inline std::string http_post(uint16_t port, const std::string& path, const std::string& body) {
  return http_request(port, "POST " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                                "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

// True if a plain GET of http://127.0.0.1:port/health says {"health":"true"}.
inline bool etcd_healthy(uint16_t port) {
  return http_request(port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").find("\"health\":\"true\"") !=
         std::string::npos;
}

class EtcdProcess {
 public:
  EtcdProcess(std::filesystem::path data_dir, std::string name)
      : data_dir_(std::move(data_dir)), name_(std::move(name)), client_port_(free_port()), peer_port_(free_port()) {}
  ~EtcdProcess() { kill9(); }
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  const std::string& name() const { return name_; }
  uint16_t client_port() const { return client_port_; }
  std::string client_url() const { return "http://127.0.0.1:" + std::to_string(client_port_); }
  std::string peer_url() const { return "http://127.0.0.1:" + std::to_string(peer_port_); }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  std::string log_path() const { return data_dir_.string() + ".log"; }
  // What the last start() was given (a restart of a cluster member passes it again).
  const std::string& initial_cluster() const { return initial_cluster_; }

  // Starts the member; `initial_cluster` is "name=peer_url,..." (empty: just this one).
  void start(const std::string& initial_cluster = "") {
    if (pid_ > 0) throw std::runtime_error("etcd already running");
    const std::string cluster = initial_cluster.empty() ? name_ + "=" + peer_url() : initial_cluster;
    initial_cluster_ = cluster;
    std::vector<std::string> args = {etcd_binary(),
                                     "--name", name_,
                                     "--data-dir", data_dir_.string(),
                                     "--listen-client-urls", client_url(),
                                     "--advertise-client-urls", client_url(),
                                     "--listen-peer-urls", peer_url(),
                                     "--initial-advertise-peer-urls", peer_url(),
                                     "--initial-cluster", cluster,
                                     "--initial-cluster-state", "new",
                                     "--initial-cluster-token", "rokka-test",
                                     "--pre-vote=true",
                                     "--logger=zap"};
    // A crashed test leaves no etcd behind.
    pid_ = testutil::spawn_logged(std::move(args), log_path(), {.die_with_parent = true});
  }

  // The first start of a single member: on fresh ports, again on new ones while
  // another process turns out to hold one of them.
  void start_new() {
    for (int attempt = 1;; ++attempt) {
      start();
      if (wait_healthy_or_port_taken()) return;
      if (attempt == 5) throw std::runtime_error("etcd: its ports were taken 5 times; log: " + log_tail());
      reset_ports();
    }
  }

  // Waits until this member answers /health (it has a leader and serves).
  void wait_healthy(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    if (!wait_healthy_or_port_taken(timeout))
      throw std::runtime_error("etcd: a port is taken by another process; log: " + log_tail());
  }

  // False when a port turned out to be another process's: this member could not bind
  // it, or another test's etcd answers on it (that member's peer URL is not ours).
  bool wait_healthy_or_port_taken(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (exited()) {
        if (log_tail().find("address already in use") != std::string::npos) return false;
        throw std::runtime_error("etcd exited during start-up; log: " + log_tail());
      }
      if (etcd_healthy(client_port_)) {
        if (http_post(client_port_, "/v3/cluster/member/list", "{}").find(peer_url()) != std::string::npos) return true;
        return false;  // someone else's etcd
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("etcd not healthy in time; log: " + log_tail());
  }

  // Before a first start is tried again: stopped, no data, new ports.
  void reset_ports() {
    kill9();
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
    std::filesystem::remove(log_path(), ec);
    client_port_ = free_port();
    peer_port_ = free_port();
  }

  void stop() { signal_and_wait(SIGTERM); }
  void kill9() { signal_and_wait(SIGKILL); }
  // SIGSTOP is delivered asynchronously: on a busy machine one of etcd's threads can still
  // answer a request sent right after kill() returns. Returns once every thread shows as
  // stopped in /proc (or after 10 s).
  void pause() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGSTOP);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!all_threads_stopped() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void resume() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }

  std::string log_tail() const {
    std::ifstream in(log_path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string s = ss.str();
    return s.size() > 3000 ? s.substr(s.size() - 3000) : s;
  }

 private:
  bool all_threads_stopped() const {
    std::error_code ec;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid_) + "/task";
    bool any = false;
    for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
      std::ifstream in(task.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const auto close = stat.rfind(')');  // the state follows the command name's ')'
      if (close == std::string::npos || close + 2 >= stat.size()) continue;  // the thread just ended
      const char state = stat[close + 2];
      if (state != 'T' && state != 't') return false;
      any = true;
    }
    return any;
  }

  bool exited() {
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) pid_ = -1;
    return pid_ <= 0;
  }
  void signal_and_wait(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);  // a stopped process must run to die of SIGTERM
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::filesystem::path data_dir_;
  std::string name_;
  uint16_t client_port_;
  uint16_t peer_port_;
  pid_t pid_ = -1;
  std::string initial_cluster_;
};

// 1 or 3 members under `dir`, started together.
class EtcdCluster {
 public:
  EtcdCluster(const std::filesystem::path& dir, int members) {
    for (int i = 0; i < members; ++i) {
      members_.push_back(std::make_unique<EtcdProcess>(dir / ("etcd" + std::to_string(i)), "m" + std::to_string(i)));
    }
  }
  // On fresh ports; again on new ones while another process holds one of them.
  void start() {
    for (int attempt = 1;; ++attempt) {
      std::string initial;
      for (auto& m : members_) initial += (initial.empty() ? "" : ",") + m->name() + "=" + m->peer_url();
      for (auto& m : members_) m->start(initial);
      bool all = true;
      for (auto& m : members_) all = m->wait_healthy_or_port_taken() && all;
      if (all) return;
      if (attempt == 5) throw std::runtime_error("etcd cluster: its ports were taken 5 times");
      for (auto& m : members_) m->reset_ports();
    }
  }
  EtcdProcess& member(size_t i) { return *members_.at(i); }
  size_t size() const { return members_.size(); }
  // "http://127.0.0.1:a,http://127.0.0.1:b,..."
  std::string endpoints() const {
    std::string out;
    for (auto& m : members_) out += (out.empty() ? "" : ",") + m->client_url();
    return out;
  }

 private:
  std::vector<std::unique_ptr<EtcdProcess>> members_;
};

}  // namespace rokka::testutil
