// How the broker's own threads present themselves to the kernel.
//
// name_this_thread: the name `top -H`, `ps -L`, perf and gdb show for the calling
// thread (the kernel keeps 15 characters). Every long-lived broker thread is named
// rokka-<role>, so an operator can tell the writer from a network thread at a glance.
//
// batch_scheduling: puts the calling thread in SCHED_BATCH. It keeps its fair share
// of the CPU, but waking it no longer preempts the thread that is running. The
// store's writer takes it: a network thread that hands it an append goes on reading
// and answering requests for the rest of its pass instead of being switched out at
// once (bench/ab.sh, e2e at 25,000-100,000 msgs/s: p50 lower in 11 of 12 rounds, p99 within
// the spread; README, Performance). No privilege is needed; if the kernel refuses, nothing changes.
#pragma once

#include <thread>
#include <utility>

namespace rokka::storage {

void name_this_thread(const char* name);
void batch_scheduling();

// A thread that names itself `name`, then runs `body`.
template <typename F>
std::thread start_named_thread(const char* name, F body) {
  return std::thread([name, body = std::move(body)]() mutable {
    name_this_thread(name);
    body();
  });
}

}  // namespace rokka::storage
