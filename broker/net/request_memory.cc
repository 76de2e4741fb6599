#include "broker/net/request_memory.h"

namespace rokka::broker {

RequestMemory::Grant::Grant(Grant&& o) noexcept : pool_(o.pool_), bytes_(o.bytes_) { o.pool_ = nullptr; }

RequestMemory::Grant& RequestMemory::Grant::operator=(Grant&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = o.pool_;
    bytes_ = o.bytes_;
    o.pool_ = nullptr;
  }
  return *this;
}

RequestMemory::Grant::~Grant() { reset(); }

void RequestMemory::Grant::absorb(Grant&& other) {
  if (!other.pool_) return;
  if (!pool_) {
    *this = std::move(other);
    return;
  }
  bytes_ += other.bytes_;
  other.pool_ = nullptr;
}

void RequestMemory::Grant::reset() {
  if (pool_) pool_->release(bytes_);
  pool_ = nullptr;
}

RequestMemory::Grant RequestMemory::acquire_or_notify(int64_t bytes, std::function<void()> wake) {
  std::lock_guard lock(mu_);
  if (capacity_ <= 0 || used_ < capacity_) {
    used_ += bytes;
    return Grant(this, bytes);
  }
  waiters_.push_back(std::move(wake));
  return Grant();
}

void RequestMemory::release(int64_t bytes) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard lock(mu_);
    used_ -= bytes;
    if (used_ < capacity_ || capacity_ <= 0) wake.swap(waiters_);
  }
  for (auto& w : wake) w();
}

int64_t RequestMemory::used() const {
  std::lock_guard lock(mu_);
  return used_;
}

}  // namespace rokka::broker
