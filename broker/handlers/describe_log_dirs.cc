#include "protocol/messages/describe_log_dirs.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/meta/topic_registry.h"
#include "broker/records/store_set.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;

// DescribeLogDirs: one log directory per store of the broker (broker/records/store_set.h:
// log.dirs for the root store, then each group store's), the size of each partition's
// stored batches in it, and (v4) the file system's total and usable bytes. A null topic
// list means every partition; named topics and partitions that do not exist are left out,
// as Kafka does. Needs CLUSTER DESCRIBE: without it the answer has no results and (v3+)
// CLUSTER_AUTHORIZATION_FAILED.
boost::asio::awaitable<HandlerResult> handle_describe_log_dirs(RequestContext& ctx, protocol::DescribeLogDirsRequest& req) {
  protocol::DescribeLogDirsResponse resp;
  if (!authorized_cluster(ctx, AclOperation::kDescribe)) {
    resp.error_code = ErrorCode::kClusterAuthorizationFailed;
    co_return make_response(resp, ctx.version());
  }
  const Services& svc = *ctx.services;

  // Which partitions: topic name -> indexes (empty set = all of the topic's).
  std::map<std::string, std::set<int32_t>, std::less<>> wanted;
  std::vector<TopicPtr> topics;
  if (!req.topics) {
    topics = svc.topics.all();
  } else {
    for (const auto& t : *req.topics) {
      auto& indexes = wanted[std::string(t.topic)];
      indexes.insert(t.partitions.begin(), t.partitions.end());
    }
    for (const auto& [name, indexes] : wanted)
      if (!indexes.empty())
        if (TopicPtr topic = svc.topics.find(name)) topics.push_back(std::move(topic));
  }
  std::sort(topics.begin(), topics.end(), [](const TopicPtr& a, const TopicPtr& b) { return a->name < b->name; });

  for (size_t slot = 0; slot < svc.stores.size(); ++slot) {
    const StoreSet::Entry& entry = svc.stores.entries()[slot];
    auto& dir = resp.results.emplace_back();
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(entry.dir, ec);
    dir.log_dir = (ec ? entry.dir : path).lexically_normal().string();
    const std::filesystem::space_info space = std::filesystem::space(dir.log_dir, ec);
    if (ec) {
      dir.error_code = ErrorCode::kKafkaStorageError;
      continue;
    }
    dir.total_bytes = static_cast<int64_t>(std::min<uintmax_t>(space.capacity, INT64_MAX));
    dir.usable_bytes = static_cast<int64_t>(std::min<uintmax_t>(space.available, INT64_MAX));

    for (const TopicPtr& topic : topics) {
      const auto it = wanted.find(topic->name);
      protocol::DescribeLogDirsResponse::DescribeLogDirsTopic out;
      out.name = topic->name;
      for (size_t i = 0; i < topic->partitions.size(); ++i) {
        const int32_t index = static_cast<int32_t>(i);
        if (static_cast<size_t>(topic->partitions[i].slot) != slot) continue;
        if (it != wanted.end() && !it->second.contains(index)) continue;
        const storage::Result<int64_t> bytes = entry.store->partition_bytes(topic->partitions[i].pid);
        if (!bytes.ok()) continue;  // deleted meanwhile
        out.partitions.push_back({index, *bytes, 0, false});
      }
      if (!out.partitions.empty()) dir.topics.push_back(std::move(out));
    }
  }
  co_return make_response(resp, ctx.version());
}

}  // namespace rokka::broker
