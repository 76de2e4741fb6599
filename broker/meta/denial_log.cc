#include "broker/meta/denial_log.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace rokka::broker {

std::string_view acl_operation_name(AclOperation op) {
  switch (op) {
    case AclOperation::kAll: return "All";
    case AclOperation::kRead: return "Read";
    case AclOperation::kWrite: return "Write";
    case AclOperation::kCreate: return "Create";
    case AclOperation::kDelete: return "Delete";
    case AclOperation::kAlter: return "Alter";
    case AclOperation::kDescribe: return "Describe";
    case AclOperation::kClusterAction: return "ClusterAction";
    case AclOperation::kDescribeConfigs: return "DescribeConfigs";
    case AclOperation::kAlterConfigs: return "AlterConfigs";
    case AclOperation::kIdempotentWrite: return "IdempotentWrite";
    case AclOperation::kCreateTokens: return "CreateTokens";
    case AclOperation::kDescribeTokens: return "DescribeTokens";
    default: return "Unknown";
  }
}

std::string_view resource_type_name(ResourceType type) {
  switch (type) {
    case ResourceType::kTopic: return "Topic";
    case ResourceType::kGroup: return "Group";
    case ResourceType::kCluster: return "Cluster";
    case ResourceType::kTransactionalId: return "TransactionalId";
    case ResourceType::kDelegationToken: return "DelegationToken";
    case ResourceType::kUser: return "User";
    default: return "Unknown";
  }
}

DenialLog::DenialLog(Options options) : options_(std::move(options)) {
  if (!options_.emit) options_.emit = [](const std::string& line) { spdlog::info("{}", line); };
}

int64_t DenialLog::now() const {
  if (options_.clock_ms) return options_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void DenialLog::prune(int64_t t) {
  for (auto it = seen_.begin(); it != seen_.end();) {
    // A key quiet for a whole interval with nothing suppressed has nothing left to report.
    if (t - it->second.logged_ms >= options_.interval_ms && it->second.suppressed == 0) it = seen_.erase(it);
    else ++it;
  }
}

void DenialLog::denied(std::string_view principal, std::string_view host, AclOperation op, ResourceType type,
                       std::string_view name) {
  const int64_t t = now();
  int64_t since = 0;      // refusals of this key not logged since its last line
  int64_t overflow = -1;  // >= 0: log the summary of unremembered keys instead
  {
    std::lock_guard lock(mu_);
    auto it = seen_.find(std::forward_as_tuple(principal, host, op, type, name));
    if (it != seen_.end()) {
      if (t - it->second.logged_ms < options_.interval_ms) {
        ++it->second.suppressed;
        return;
      }
      since = it->second.suppressed;
      it->second = Seen{t, 0};
    } else {
      if (seen_.size() >= options_.max_keys) prune(t);
      if (seen_.size() < options_.max_keys) {
        seen_.emplace(Key(principal, host, op, type, name), Seen{t, 0});
      } else {
        ++overflow_;
        if (overflow_logged_ms_ != INT64_MIN && t - overflow_logged_ms_ < options_.interval_ms) return;
        overflow = overflow_;
        overflow_ = 0;
        overflow_logged_ms_ = t;
      }
    }
  }
  if (overflow >= 0) {
    return options_.emit("authorization denied: " + std::to_string(overflow) +
                         " refusals of principals and resources too many to list one by one");
  }
  std::string line = "authorization denied: principal=" + std::string(principal) + " host=" + std::string(host) +
                     " operation=" + std::string(acl_operation_name(op)) + " resource=" +
                     std::string(resource_type_name(type)) + ":" + std::string(name);
  if (since > 0) line += " (refused " + std::to_string(since) + " more times since its last line)";
  options_.emit(line);
}

}  // namespace rokka::broker
