#include "broker/meta/producer_ids.h"

#include <tuple>

#include "broker/config/config.h"
#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {
constexpr std::string_view kKey = "p/next_block";
static_assert(kKey.starts_with(storage::meta_prefix::kProducerIds));
}

storage::Status ProducerIds::load() {
  for (auto& [key, value] : meta_.scan(kKey)) {
    if (key != kKey) continue;
    const std::optional<int64_t> v = parse_integer(value);
    if (!v || *v < 0) return storage::Status::corruption("bad producer id block: " + value);
    next_ = block_end_ = local_end_ = *v;
  }
  return {};
}

void ProducerIds::allocate(std::function<void(storage::Result<int64_t>)> done) {
  std::unique_lock lock(mu_);
  if (next_ < block_end_) {
    const int64_t id = next_++;
    lock.unlock();
    return done(id);
  }
  waiting_.push_back(std::move(done));
  if (reserving_) return;
  reserving_ = true;
  lock.unlock();
  reserve_block();
}

void ProducerIds::reserve_local(std::function<void(storage::Result<Block>)> done) {
  const int64_t end = local_end_ + kBlockSize;
  meta_.write({{std::string(kKey), std::to_string(end), false}}, [this, end, done](storage::Status s) {
    if (!s.ok()) return done(s);
    local_end_ = end;
    done(Block{end - kBlockSize, end});
  });
}

// Reserves a block, then serves whoever waited.
void ProducerIds::reserve_block() {
  auto served = [this](storage::Result<Block> block) {
    std::vector<std::pair<std::function<void(storage::Result<int64_t>)>, int64_t>> ready;
    bool again = false;
    {
      std::lock_guard lock(mu_);
      if (block.ok()) std::tie(next_, block_end_) = *block;
      while (!waiting_.empty() && (!block.ok() || next_ < block_end_)) {
        ready.emplace_back(std::move(waiting_.front()), block.ok() ? next_++ : -1);
        waiting_.pop_front();
      }
      again = !waiting_.empty();
      reserving_ = again;
    }
    for (auto& [done, id] : ready) {
      if (block.ok()) {
        done(id);
      } else {
        done(block.status());
      }
    }
    if (again) reserve_block();
  };
  if (source_) return source_(std::move(served));
  reserve_local(std::move(served));
}

}  // namespace rokka::broker
