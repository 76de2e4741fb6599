#include "coordinator/group_map.h"

namespace rokka::coordinator {

const Group* GroupMap::find(std::string_view group_id) const {
  auto it = groups_.find(std::string(group_id));
  return it == groups_.end() ? nullptr : it->second.get();
}

Group* GroupMap::live(const std::string& group_id, uint64_t incarnation) {
  Group* group = find(group_id);
  return group != nullptr && group->incarnation() == incarnation ? group : nullptr;
}

Group& GroupMap::create(const std::string& group_id, GroupState initial, int64_t now_ms) {
  auto group = std::make_unique<Group>(group_id, initial, now_ms, next_incarnation_++);
  return *(groups_[group_id] = std::move(group));
}

void GroupMap::erase(const std::string& group_id) { groups_.erase(group_id); }

std::vector<Group*> GroupMap::snapshot() {
  std::vector<Group*> all;
  all.reserve(groups_.size());
  for (auto& [id, group] : groups_) all.push_back(group.get());
  return all;
}

}  // namespace rokka::coordinator
