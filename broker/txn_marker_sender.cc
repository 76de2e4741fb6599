#include "broker/txn_marker_sender.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <map>

#include "broker/async.h"
#include "broker/cluster_link.h"
#include "broker/logging.h"
#include "broker/topic_registry.h"
#include "broker/txn_markers.h"
#include "protocol/header.h"
#include "protocol/messages/write_txn_markers.h"

namespace rokka::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using coordinator::TopicPartition;

namespace {

constexpr auto kRequestTimeout = std::chrono::seconds(10);
constexpr int16_t kVersion = 1;
constexpr uint32_t kMaxResponseBytes = 16u << 20;

// The listener of `broker` to send to: a PLAINTEXT one named as this broker's first
// listener, else its first PLAINTEXT one.
const cluster::Listener* peer_listener(const ClusterBroker& broker, const BrokerConfig& config) {
  const cluster::Listener* any = nullptr;
  for (const auto& l : broker.listeners) {
    if (l.security_protocol != "PLAINTEXT") continue;
    if (!config.listeners.empty() && l.name == config.listeners.front().name) return &l;
    if (any == nullptr) any = &l;
  }
  return any;
}

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
          [&](std::function<void(storage::Status)> cb) { write_txn_markers(store_, topics_, mine, std::move(cb)); });
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
  const auto picture = cluster_.picture();
  auto it = picture->brokers.find(broker);
  const cluster::Listener* to = it == picture->brokers.end() ? nullptr : peer_listener(it->second, config_);
  if (to == nullptr) {
    broker_log().warn("transaction markers: broker {} has no PLAINTEXT listener to send them to", broker);
    co_return partitions;
  }

  // The request: one marker, its partitions grouped by topic.
  protocol::WriteTxnMarkersRequest req;
  auto& m = req.markers.emplace_back();
  m.producer_id = marker.producer_id;
  m.producer_epoch = marker.producer_epoch;
  m.transaction_result = marker.commit;
  std::map<std::string_view, std::vector<int32_t>> by_topic;
  for (const auto& tp : partitions) by_topic[tp.topic].push_back(tp.partition);
  for (auto& [topic, indexes] : by_topic) m.topics.push_back({topic, indexes});
  protocol::Writer w;
  auto mark = w.reserve_int32();
  protocol::RequestHeader h;
  h.api_key = static_cast<int16_t>(protocol::ApiKey::kWriteTxnMarkers);
  h.api_version = kVersion;
  h.correlation_id = ++correlation_;
  h.client_id = "rokka-broker-" + std::to_string(cluster_.self());
  protocol::encode_request_header(w, h);
  protocol::encode(req, w, kVersion);
  w.patch_length(mark);
  const std::vector<std::byte> frame = std::move(w).take();

  std::vector<std::byte> body;
  std::string failure;
  try {
    asio::ip::tcp::resolver resolver(ex_);
    asio::ip::tcp::socket socket(ex_);
    asio::steady_timer deadline(ex_, kRequestTimeout);
    auto exchange = [&]() -> asio::awaitable<void> {
      auto endpoints = co_await resolver.async_resolve(to->host, std::to_string(to->port), asio::use_awaitable);
      co_await asio::async_connect(socket, endpoints, asio::use_awaitable);
      co_await asio::async_write(socket, asio::buffer(frame), asio::use_awaitable);
      std::array<uint8_t, 4> size{};
      co_await asio::async_read(socket, asio::buffer(size), asio::use_awaitable);
      const uint32_t n = uint32_t{size[0]} << 24 | uint32_t{size[1]} << 16 | uint32_t{size[2]} << 8 | size[3];
      if (n > kMaxResponseBytes) throw std::runtime_error("response of " + std::to_string(n) + " bytes");
      body.resize(n);
      co_await asio::async_read(socket, asio::buffer(body), asio::use_awaitable);
    };
    auto outcome = co_await (exchange() || deadline.async_wait(asio::use_awaitable));
    if (outcome.index() == 1) failure = "no answer within " + std::to_string(kRequestTimeout.count()) + " s";
  } catch (const std::exception& e) {
    failure = e.what();
  }
  protocol::WriteTxnMarkersResponse resp;
  if (failure.empty()) {
    protocol::Reader r(body);
    int32_t cid = 0;
    if (!protocol::decode_response_header(r, protocol::ApiKey::kWriteTxnMarkers, kVersion, cid) ||
        cid != h.correlation_id || !protocol::decode(resp, protocol::Bytes(body).subspan(r.position()), kVersion))
      failure = "the answer does not decode";
  }
  if (!failure.empty()) {
    broker_log().warn("transaction markers not sent: broker={} address={}:{} error={}", broker, to->host, to->port,
                      failure);
    co_return partitions;
  }
  // Partitions whose answer is an error are tried again (a new leader, or the same one later).
  std::vector<TopicPartition> rest;
  std::map<std::pair<std::string_view, int32_t>, bool> written;
  for (const auto& mr : resp.markers)
    for (const auto& t : mr.topics)
      for (const auto& p : t.partitions) {
        if (p.error_code == 0 || p.error_code == protocol::to_int(protocol::ErrorCode::kUnknownTopicOrPartition))
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
