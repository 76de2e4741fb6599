#include "broker/config/config_schema.h"

#include <algorithm>

namespace rokka::broker::cfg {
namespace {

// The topic rows close the table.
constexpr size_t kFirstTopicRow = [] {
  size_t i = 0;
  while (i < std::size(schema::kRows) && !schema::kRows[i].topic()) ++i;
  return i;
}();
static_assert(std::all_of(kSchema.begin() + kFirstTopicRow, kSchema.end(), [](const Row& r) { return r.topic(); }),
              "broker rows first, then topic rows");

}  // namespace

std::span<const Row> topic_keys() { return kSchema.subspan(kFirstTopicRow); }

const Row* find_broker_key(std::string_view name) {
  for (const Row& r : kSchema.first(kFirstTopicRow))
    if (r.name == name) return &r;
  return nullptr;
}

const Row* find_topic_key(std::string_view name) {
  for (const Row& r : topic_keys())
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace rokka::broker::cfg
