#include "broker/config/config_schema.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace rokka::broker::cfg {
namespace {

// The rows of one kind stand together: broker keys, then topic keys, then group keys.
constexpr size_t first_of(uint8_t kind) {
  return static_cast<size_t>(std::find_if(kSchema.begin(), kSchema.end(), [&](const Row& r) { return r.kind() == kind; }) -
                             kSchema.begin());
}
constexpr size_t kFirstTopicRow = first_of(kTopic);
constexpr size_t kFirstGroupRow = first_of(kGroup);
static_assert(std::is_sorted(kSchema.begin(), kSchema.end(), [](const Row& a, const Row& b) { return a.kind() < b.kind(); }) &&
                  kFirstTopicRow < kFirstGroupRow,
              "broker rows first, then topic rows, then group rows");

// name -> row, for the rows of `rows`.
using Index = std::unordered_map<std::string_view, const Row*>;
Index index(std::span<const Row> rows) {
  Index out;
  for (const Row& r : rows) out.emplace(r.name, &r);
  return out;
}

const Row* find_in(const Index& index, std::string_view name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace

std::span<const Row> topic_keys() { return kSchema.subspan(kFirstTopicRow, kFirstGroupRow - kFirstTopicRow); }
std::span<const Row> group_keys() { return kSchema.subspan(kFirstGroupRow); }

const Row* find_broker_key(std::string_view name) {
  static const Index kIndex = index(kSchema.first(kFirstTopicRow));
  return find_in(kIndex, name);
}

const Row* find_topic_key(std::string_view name) {
  static const Index kIndex = index(topic_keys());
  return find_in(kIndex, name);
}

const Row* find_group_key(std::string_view name) {
  static const Index kIndex = index(group_keys());
  return find_in(kIndex, name);
}

const Row& synonym_of(const Row& key) {
  const Row* row = find_broker_key(key.synonym);
  if (row == nullptr) std::abort();  // tests/broker/config_schema_test.cc: every synonym is a broker key
  return *row;
}

}  // namespace rokka::broker::cfg
