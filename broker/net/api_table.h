// The supported APIs: the single source of truth for dispatch, version checks and
// the ApiVersions response (STYLE.md §a.2, §a.4).
#pragma once

#include <span>

#include "broker/net/request_context.h"
#include "protocol/api_keys.h"

namespace rokka::broker {

// When the connection may start reading and running the next request.
enum class Dispatch {
  kOnCompletion,  // after this one's response is ready: strict order, as Kafka
  kImmediately,   // at once (reads with no ordering effect, e.g. a long-polling Fetch)
  kByHandler,     // when the handler calls ctx.dispatched() (Produce: once its appends are queued)
};

struct ApiEntry {
  protocol::ApiKey key;
  int16_t min_version;
  int16_t max_version;
  Handler handle;
  Dispatch dispatch = Dispatch::kOnCompletion;
};

std::span<const ApiEntry> api_table();
const ApiEntry* find_api(int16_t api_key);  // nullptr when not served

}  // namespace rokka::broker
