#include "cluster/producer_id_blocks.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <limits>

#include "cluster/log.h"
#include "cluster/records.h"
#include "wire/random_id.h"

namespace rokka::cluster {

namespace asio = boost::asio;

asio::awaitable<Result<ProducerIdBlock>> ProducerIdBlocks::allocate(int max_attempts) {
  const std::string key = keys_.producer_id_block();
  Status last = Status::io_error("producer id block: no attempt");
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    if (attempt > 0) {  // a short random pause, so that competing brokers do not collide again
      asio::steady_timer pause(client_->executor(), std::chrono::milliseconds(wire::random_u64() % (5 + 5 * std::min(attempt, 10))));
      co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    RangeRequest read{.key = key};
    auto current = co_await client_->range(std::move(read));
    if (!current.ok()) {
      last = current.status();
      continue;
    }
    int64_t next = 0;
    Compare unchanged = Compare::absent(key);
    if (!current->kvs.empty()) {
      auto rec = decode_producer_id_block(current->kvs[0].value);
      if (!rec.ok()) co_return rec.status();
      next = rec->next;
      unchanged = Compare::modified_at(key, current->kvs[0].mod_revision);
    }
    if (next > std::numeric_limits<int64_t>::max() - kBlockSize) co_return Status::out_of_range("producer ids exhausted");
    const std::string nonce = std::to_string(wire::random_u64());
    Txn cas{{unchanged}, {PutRequest{key, encode_producer_id_block({next + kBlockSize, broker_id_, nonce})}}, {}};
    auto r = co_await client_->txn(std::move(cas));
    if (r.ok() && r->succeeded) co_return ProducerIdBlock{next, next + kBlockSize};
    if (r.ok()) {
      ++conflicts_;
      continue;
    }
    // Outcome unknown: did our write land? Only our nonce says so.
    last = r.status();
    RangeRequest check{.key = key};
    auto after = co_await client_->range(std::move(check));
    if (after.ok() && !after->kvs.empty()) {
      auto rec = decode_producer_id_block(after->kvs[0].value);
      if (rec.ok() && rec->nonce == nonce && rec->broker == broker_id_) {
        co_return ProducerIdBlock{rec->next - kBlockSize, rec->next};
      }
    }
    log().warn("producer id block: attempt abandoned: error={}", last.to_string());
  }
  co_return last;
}

}  // namespace rokka::cluster
