#include "broker/link/txn_marker_sender.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>

#include "broker/net/async.h"
#include "broker/link/cluster_link.h"
#include "broker/link/inter_broker_client.h"
#include "broker/logging.h"
#include "broker/meta/topic_registry.h"
#include "broker/records/txn_markers.h"
#include "protocol/messages/write_txn_markers.h"

namespace rokka::broker {
namespace asio = boost::asio;
using coordinator::TopicPartition;

namespace {

constexpr int16_t kVersion = 1;

}  // namespace

void TxnMarkerSender::write(coordinator::MarkerRequest request, std::function<void(storage::Status)> done) {
  asio::co_spawn(ex_, run(std::move(request), std::move(done)), asio::detached);
}

asio::awaitable<void> TxnMarkerSender::run(coordinator::MarkerRequest request,
                                           std::function<void(storage::Status)> done) {
  std::vector<TopicPartition> remaining = std::move(request.partitions);
  for (int attempt = 0; !stopped_; ++attempt) {
    std::vector<TopicPartition> local, later;
    std::map<int32_t, std::vector<TopicPartition>> remote;
    const auto picture = cluster_.picture();
    for (TopicPartition& tp : remaining) {
      const TopicPtr t = topics_.find(tp.topic);
      if (!t || tp.partition < 0 || static_cast<size_t>(tp.partition) >= t->leaders.size()) continue;  // gone
      const int32_t leader = t->leaders[static_cast<size_t>(tp.partition)];
      if (leader == cluster_.self()) {
        local.push_back(std::move(tp));
      } else if (picture->live(leader)) {
        remote[leader].push_back(std::move(tp));
      } else {
        later.push_back(std::move(tp));  // its broker is down: wait for it
      }
    }
    if (!local.empty()) {
      coordinator::MarkerRequest mine{request.producer_id, request.producer_epoch, request.commit, local};
      const storage::Status s = co_await await_callback<storage::Status>(
          [&](std::function<void(storage::Status)> cb) {
            write_txn_markers(topics_, mine, std::move(cb),
                              [link = &cluster_](StoreSlot slot) { return link->confirm_waiters(slot); });
          });
      if (!s.ok()) {
        broker_log().warn("transaction markers not written here: producer_id={} error={}", request.producer_id,
                          s.to_string());
        later.insert(later.end(), local.begin(), local.end());
      }
    }
    for (auto& [broker, partitions] : remote) {
      auto rest = co_await send(request, broker, std::move(partitions));
      later.insert(later.end(), rest.begin(), rest.end());
    }
    if (later.empty()) {
      done({});
      co_return;
    }
    if (attempt % 20 == 0)
      broker_log().warn("transaction markers still to write: producer_id={} partitions={} attempt={}",
                        request.producer_id, later.size(), attempt + 1);
    remaining = std::move(later);
    asio::steady_timer wait(ex_, retry);
    co_await wait.async_wait(asio::use_awaitable);
  }
  done(storage::Status::shutdown("the broker is stopping"));
}

asio::awaitable<std::vector<TopicPartition>> TxnMarkerSender::send(const coordinator::MarkerRequest& marker,
                                                                   int32_t broker,
                                                                   std::vector<TopicPartition> partitions) {
  // The request: one marker, its partitions grouped by topic.
  protocol::WriteTxnMarkersRequest req;
  auto& m = req.markers.emplace_back();
  m.producer_id = marker.producer_id;
  m.producer_epoch = marker.producer_epoch;
  m.transaction_result = marker.commit;
  std::map<std::string_view, std::vector<int32_t>> by_topic;
  for (const auto& tp : partitions) by_topic[tp.topic].push_back(tp.partition);
  for (auto& [topic, indexes] : by_topic) m.topics.push_back({topic, indexes});
  protocol::WriteTxnMarkersResponse resp;
  const std::string failure = co_await peers_.call(broker, req, kVersion, resp);
  if (!failure.empty()) {
    broker_log().warn("transaction markers not sent: {}", failure);
    co_return partitions;
  }
  // Partitions whose answer is an error are tried again (a new leader, or the same one later).
  std::vector<TopicPartition> rest;
  std::map<std::pair<std::string_view, int32_t>, bool> written;
  for (const auto& mr : resp.markers)
    for (const auto& t : mr.topics)
      for (const auto& p : t.partitions) {
        if (p.error_code == protocol::ErrorCode::kNone || p.error_code == protocol::ErrorCode::kUnknownTopicOrPartition)
          written[{t.name, p.partition_index}] = true;
        else
          broker_log().warn("transaction marker refused: broker={} topic={} partition={} error={}", broker, t.name,
                            p.partition_index, p.error_code);
      }
  for (auto& tp : partitions)
    if (!written.count({tp.topic, tp.partition})) rest.push_back(std::move(tp));
  co_return rest;
}

}  // namespace rokka::broker
