#include "broker/producer_ids.h"

#include <charconv>

#include "storage/meta_keys.h"

namespace rokka::broker {
namespace {
constexpr std::string_view kKey = "p/next_block";
static_assert(kKey.starts_with(storage::meta_prefix::kProducerIds));
}

storage::Status ProducerIds::load() {
  for (auto& [key, value] : meta_.scan(kKey)) {
    if (key != kKey) continue;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || v < 0) return storage::Status::corruption("bad producer id block: " + value);
    next_ = block_end_ = v;
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
  const int64_t end = block_end_ + kBlockSize;
  lock.unlock();
  reserve_block(end);
}

// Makes ids below `end` durable, then serves whoever waited.
void ProducerIds::reserve_block(int64_t end) {
  meta_.write({{std::string(kKey), std::to_string(end), false}}, [this, end](storage::Status s) {
    std::vector<std::pair<std::function<void(storage::Result<int64_t>)>, int64_t>> ready;
    bool again = false;
    {
      std::lock_guard lock(mu_);
      if (s.ok()) block_end_ = end;
      while (!waiting_.empty() && (!s.ok() || next_ < block_end_)) {
        ready.emplace_back(std::move(waiting_.front()), s.ok() ? next_++ : -1);
        waiting_.pop_front();
      }
      again = !waiting_.empty();
      reserving_ = again;
    }
    for (auto& [done, id] : ready) {
      if (s.ok()) {
        done(id);
      } else {
        done(s);
      }
    }
    if (again) reserve_block(end + kBlockSize);
  });
}

}  // namespace rokka::broker
