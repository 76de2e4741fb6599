// TxnMarkerSender: where a transaction coordinator's markers go in cluster mode. Partitions
// this broker leads get them from write_txn_markers (broker/records/txn_markers.h); for each other
// broker leading some, one WriteTxnMarkers request (Kafka's TransactionMarkerChannelManager)
// through the InterBrokerClient (the inter-broker listener, secured as it is). A partition whose broker is down, or
// a request that fails, is tried again every `retry` until written, until its topic is gone,
// or until stop(): a coordinator never completes a transaction with a marker missing.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>

#include "coordinator/txn_types.h"
#include "storage/store.h"

namespace rokka::broker {

class ClusterLink;
class InterBrokerClient;
class TopicRegistry;

class TxnMarkerSender {
 public:
  TxnMarkerSender(boost::asio::any_io_executor ex, const TopicRegistry& topics,
                  ClusterLink& cluster, InterBrokerClient& peers)
      : ex_(std::move(ex)), topics_(topics), cluster_(cluster), peers_(peers) {}

  // Calls `done` once every partition's marker is written (or its topic is gone), or with
  // kShutdown after stop().
  void write(coordinator::MarkerRequest request, std::function<void(storage::Status)> done);
  void stop() { stopped_ = true; }

  std::chrono::milliseconds retry{500};

 private:
  boost::asio::awaitable<void> run(coordinator::MarkerRequest request, std::function<void(storage::Status)> done);
  // Sends the markers of `partitions` to `broker`; returns those still to write.
  boost::asio::awaitable<std::vector<coordinator::TopicPartition>> send(const coordinator::MarkerRequest& marker,
                                                                        int32_t broker,
                                                                        std::vector<coordinator::TopicPartition> partitions);

  boost::asio::any_io_executor ex_;
  const TopicRegistry& topics_;
  ClusterLink& cluster_;
  InterBrokerClient& peers_;
  std::atomic<bool> stopped_{false};
};

}  // namespace rokka::broker
