// Regular expressions that clients send (ListTransactions' TransactionalIdPattern,
// ConsumerGroupHeartbeat's SubscribedTopicRegex): RE2 syntax, as Kafka's RE2/J, matching
// the whole name. A pattern longer than a Kafka string can be (32767 bytes) is refused
// before it is compiled; RE2 compiles in linear time and memory bounded by max_mem, and
// matches without backtracking or recursion, so no pattern can exhaust the stack or hang.
#pragma once

#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rokka::broker {

inline constexpr size_t kMaxClientRegexBytes = 32767;
inline constexpr int64_t kClientRegexMaxMem = 8 << 20;

// The compiled pattern, or null when it does not compile or is too long (`error` says why).
inline std::unique_ptr<re2::RE2> compile_client_regex(std::string_view pattern, std::string* error = nullptr) {
  if (pattern.size() > kMaxClientRegexBytes) {
    if (error) *error = "pattern too long";
    return nullptr;
  }
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kClientRegexMaxMem);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    if (error) *error = re->error();
    return nullptr;
  }
  return re;
}

}  // namespace rokka::broker
