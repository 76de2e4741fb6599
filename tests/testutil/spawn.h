// Starts a program as a child process with its stdout and stderr appended to a log file:
// the one fork/exec the tests' process fixtures (build/rokka, etcd, Prometheus) share.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace rokka::testutil {

struct SpawnOptions {
  bool die_with_parent = false;  // SIGKILL the child when the test process dies (PR_SET_PDEATHSIG)
};

// args[0] is the program's path. Returns the child's pid; throws if fork fails. A child
// whose exec fails exits with 127.
inline pid_t spawn_logged(std::vector<std::string> args, const std::string& log_path, SpawnOptions options = {}) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid > 0) return pid;
  if (options.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace rokka::testutil
