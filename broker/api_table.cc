#include "broker/api_table.h"

#include "broker/handlers/handlers.h"

namespace rokka::broker {
namespace {

using protocol::ApiKey;

constexpr ApiEntry kApis[] = {
    {ApiKey::kApiVersions, 0, 3, &handle_api_versions, Dispatch::kOnCompletion},
};

}  // namespace

std::span<const ApiEntry> api_table() { return kApis; }

const ApiEntry* find_api(int16_t api_key) {
  for (const ApiEntry& e : kApis)
    if (static_cast<int16_t>(e.key) == api_key) return &e;
  return nullptr;
}

}  // namespace rokka::broker
