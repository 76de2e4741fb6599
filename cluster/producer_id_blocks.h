// ProducerIdBlocks: hands out blocks of 1000 producer ids from <root>/producer_id_block, a
// compare-and-swap on the key's mod_revision, so that no id is ever given to two brokers
// (as Kafka's /latest_producer_id_block). A CAS whose answer was lost is settled by reading
// the key again: the record names its writer and carries the attempt's nonce. An attempt that
// cannot be settled is abandoned; its block, if it was written, is skipped, never reused.
//
// Threading: the client's executor.
#pragma once

#include <cstdint>
#include <memory>

#include "cluster/etcd_client.h"
#include "cluster/keys.h"

namespace rokka::cluster {

struct ProducerIdBlock {
  int64_t first = 0;  // the block is [first, end)
  int64_t end = 0;
};

class ProducerIdBlocks {
 public:
  static constexpr int64_t kBlockSize = 1000;

  ProducerIdBlocks(std::shared_ptr<EtcdClient> client, Keys keys, int32_t broker_id)
      : client_(std::move(client)), keys_(std::move(keys)), broker_id_(broker_id) {}

  // A fresh block. Contention with other brokers is retried (up to `max_attempts` CASes);
  // kIoError if etcd stays unavailable, kMalformed if the key holds something else.
  boost::asio::awaitable<Result<ProducerIdBlock>> allocate(int max_attempts = 100);

  uint64_t conflicts() const { return conflicts_; }  // CASes lost to another writer

 private:
  std::shared_ptr<EtcdClient> client_;
  Keys keys_;
  int32_t broker_id_;
  uint64_t conflicts_ = 0;
};

}  // namespace rokka::cluster
