// GroupMap: the coordinator's groups by id. Each group it makes gets a fresh incarnation,
// so a timer or a MetaStore completion that outlives its group (deleted, then made again
// under the same id) finds no live group instead of acting on the namesake.
//
// Not thread-safe: the coordinator's strand only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coordinator/group.h"

namespace rokka::coordinator {

class GroupMap {
 public:
  const Group* find(std::string_view group_id) const;
  Group* find(std::string_view group_id) {
    return const_cast<Group*>(static_cast<const GroupMap&>(*this).find(group_id));
  }
  // The group, if it is still the incarnation a timer or a write was made for.
  Group* live(const std::string& group_id, uint64_t incarnation);
  // REQUIRES: no group `group_id` yet.
  Group& create(const std::string& group_id, GroupState initial, int64_t now_ms);
  void erase(const std::string& group_id);
  size_t size() const { return groups_.size(); }

  // Calls fn(const Group&) for every group, in no particular order. A pass that edits
  // or erases groups goes over snapshot().
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const auto& [id, group] : groups_) fn(static_cast<const Group&>(*group));
  }
  // Every group as of now; erasing one leaves the others' pointers valid.
  std::vector<Group*> snapshot();

 private:
  std::unordered_map<std::string, std::unique_ptr<Group>> groups_;
  uint64_t next_incarnation_ = 1;
};

}  // namespace rokka::coordinator
