// GroupCoordinator, part 3: the hooks the TransactionCoordinator uses for transactional
// offset commits (TxnOffsetCommit). Offsets a transaction stages live in its
// transaction record until it ends; here they are only validated, reported as unstable
// and, when the transaction commits, committed like any other offsets.
#include <utility>

#include "coordinator/group_coordinator.h"
#include "coordinator/log.h"

namespace rokka::coordinator {

GroupError GroupCoordinator::check_txn_offset_commit(const std::string& group_id, int32_t generation_id,
                                                     const std::string& member_id,
                                                     const std::optional<std::string>& group_instance_id) const {
  if (GroupError e = check_group_status(group_id, false); e != GroupError::kNone) return e;
  const bool identified = generation_id >= 0 || !member_id.empty() || group_instance_id;
  const Group* group = find_group(group_id);
  if (group == nullptr) return identified ? GroupError::kUnknownMemberId : GroupError::kNone;
  if (group->is(GroupState::kDead)) return GroupError::kCoordinatorNotAvailable;
  // Unlike OffsetCommit, a non-empty group accepts anonymous transactional commits: the
  // protocol carried no member id before TxnOffsetCommit v3.
  if (!identified) return GroupError::kNone;
  if (GroupError e = validate_member(*group, member_id, group_instance_id); e != GroupError::kNone) return e;
  return generation_id == group->generation_id() ? GroupError::kNone : GroupError::kIllegalGeneration;
}

void GroupCoordinator::stage_txn_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
  if (partitions.empty()) return;
  auto& staged = txn_staged_[group_id];
  for (const TopicPartition& tp : partitions) ++staged[tp];
}

void GroupCoordinator::release_txn_offsets(const std::string& group_id, const std::vector<TopicPartition>& partitions) {
  auto git = txn_staged_.find(group_id);
  if (git == txn_staged_.end()) return;
  for (const TopicPartition& tp : partitions) {
    auto it = git->second.find(tp);
    if (it != git->second.end() && --it->second == 0) git->second.erase(it);
  }
  if (git->second.empty()) txn_staged_.erase(git);
}

bool GroupCoordinator::has_txn_staged(const std::string& group_id, const TopicPartition& tp) const {
  auto git = txn_staged_.find(group_id);
  return git != txn_staged_.end() && git->second.count(tp) != 0;
}

void GroupCoordinator::commit_txn_offsets(const std::string& group_id,
                                          std::vector<std::pair<TopicPartition, CommittedOffset>> offsets,
                                          DurableCallback done) {
  if (groups_.find(group_id) == nullptr) create_group(group_id, GroupState::kEmpty);
  const size_t count = offsets.size();
  offsets_.commit(group_id, std::move(offsets), [group_id, count, done = std::move(done)](storage::Status status) {
    if (!status.ok()) log().warn("transactional offsets not stored: group={} error={}", group_id, status.to_string());
    SPDLOG_LOGGER_DEBUG(&log(), "transactional offsets committed: group={} partitions={}", group_id, count);
    done(std::move(status));
  });
}

void GroupCoordinator::when_loaded(std::function<void()> fn) {
  if (loaded_) return fn();
  on_loaded_.push_back(std::move(fn));
}

}  // namespace rokka::coordinator
