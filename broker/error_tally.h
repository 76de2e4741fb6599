// The error codes of a response, for the errors metric (broker/metrics.h): counted by
// make_response (broker/handlers/handler_util.h) from the response struct itself.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "protocol/error_code.h"

namespace rokka::broker {

// Non-zero error codes of one response, with how often each appears.
using ErrorTally = std::vector<std::pair<int16_t, int32_t>>;

// Counts the non-zero `error_code` fields of a response: its own, and those of the
// elements of its `topics`, `responses`, `results`, `groups`, `partitions` and
// `partition_responses` lists, at any depth (the shapes Kafka's responses use).
template <typename T>
void tally_errors(const T& m, ErrorTally& out) {
  if constexpr (requires { requires std::is_same_v<std::remove_cvref_t<decltype(m.error_code)>, protocol::ErrorCode>; }) {
    if (m.error_code != protocol::ErrorCode::kNone) {
      const int16_t e = protocol::to_int(m.error_code);
      bool found = false;
      for (auto& [code, n] : out)
        if (code == e) ++n, found = true;
      if (!found) out.emplace_back(e, 1);
    }
  }
  if constexpr (requires { m.topics.begin(); })
    for (const auto& e : m.topics) tally_errors(e, out);
  if constexpr (requires { m.responses.begin(); })
    for (const auto& e : m.responses) tally_errors(e, out);
  if constexpr (requires { m.results.begin(); })
    for (const auto& e : m.results) tally_errors(e, out);
  if constexpr (requires { m.groups.begin(); })
    for (const auto& e : m.groups) tally_errors(e, out);
  if constexpr (requires { m.partitions.begin(); })
    for (const auto& e : m.partitions) tally_errors(e, out);
  if constexpr (requires { m.partition_responses.begin(); })
    for (const auto& e : m.partition_responses) tally_errors(e, out);
}

}  // namespace rokka::broker
