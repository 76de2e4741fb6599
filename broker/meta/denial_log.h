// DenialLog: the authorizer's record of refusals, for the operator who asks "why was
// this client refused?". Each (principal, host, operation, resource) refused is logged
// the first time, then at most once per interval with how many refusals it stood for
// meanwhile, so a client retrying a denied Produce in a loop costs one line a minute,
// not one per request. At most `max_keys` keys are remembered; beyond that, refusals are
// counted and summed up in one line per interval. Any thread (one mutex: denials are
// not the hot path).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "broker/meta/acl.h"

namespace rokka::broker {

std::string_view acl_operation_name(AclOperation op);  // Kafka's names: "Read", "Write", ...
std::string_view resource_type_name(ResourceType type);  // "Topic", "Group", "Cluster", ...

class DenialLog {
 public:
  struct Options {
    int64_t interval_ms = 60000;
    size_t max_keys = 10000;
    std::function<int64_t()> clock_ms;           // empty: steady clock
    std::function<void(const std::string&)> emit;  // empty: spdlog, at info
  };
  DenialLog() : DenialLog(Options{}) {}
  explicit DenialLog(Options options);

  void denied(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
              std::string_view name);

 private:
  using Key = std::tuple<std::string, std::string, AclOperation, ResourceType, std::string>;
  struct Seen {
    int64_t logged_ms = 0;
    int64_t suppressed = 0;  // refusals since logged_ms, not logged
  };
  int64_t now() const;
  void prune(int64_t now);  // REQUIRES: mu_ held

  Options options_;
  std::mutex mu_;
  std::map<Key, Seen, std::less<>> seen_;  // GUARDED_BY(mu_)
  int64_t overflow_ = 0;                   // GUARDED_BY(mu_): refusals of keys not remembered
  int64_t overflow_logged_ms_ = INT64_MIN;   // GUARDED_BY(mu_)
};

}  // namespace rokka::broker
