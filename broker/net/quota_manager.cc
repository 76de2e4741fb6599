#include "broker/net/quota_manager.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace rokka::broker {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string_view quota_user(std::string_view principal) {
  const size_t colon = principal.find(':');
  return colon == std::string_view::npos ? principal : principal.substr(colon + 1);
}

QuotaRate::QuotaRate(int samples, int64_t window_ms)
    : window_ms_(std::max<int64_t>(window_ms, 1)), samples_(static_cast<size_t>(std::max(samples, 1))) {}

// A sample older than all the windows together holds nothing any more: it starts again.
void QuotaRate::purge(int64_t now_ms) {
  const int64_t expire_after = window_ms_ * static_cast<int64_t>(samples_.size());
  for (Sample& s : samples_)
    if (now_ms - s.start_ms >= expire_after) s = {now_ms, 0};
}

void QuotaRate::record(double value, int64_t now_ms) {
  if (last_record_ms_ == 0) {
    for (Sample& s : samples_) s = {now_ms, 0};
  } else if (now_ms - samples_[current_].start_ms >= window_ms_) {
    current_ = (current_ + 1) % samples_.size();
    samples_[current_] = {now_ms, 0};
  }
  samples_[current_].value += value;
  last_record_ms_ = now_ms;
}

int64_t QuotaRate::window_size_ms(int64_t now_ms) const {
  int64_t oldest = now_ms;
  for (const Sample& s : samples_) oldest = std::min(oldest, s.start_ms);
  int64_t elapsed = now_ms - oldest;
  const int64_t full = elapsed / window_ms_;
  const int64_t at_least = static_cast<int64_t>(samples_.size()) - 1;
  if (full < at_least) elapsed += (at_least - full) * window_ms_;
  return std::max<int64_t>(elapsed, 1);
}

double QuotaRate::per_second(int64_t now_ms) {
  purge(now_ms);
  double total = 0;
  for (const Sample& s : samples_) total += s.value;
  return total / (static_cast<double>(window_size_ms(now_ms)) / 1000.0);
}

QuotaManager::QuotaManager(const ClientQuotas& quotas, QuotaWindow window) : quotas_(quotas), window_(window) {}

int32_t QuotaManager::record(Kind kind, const QuotaEntity& entity, double bound, double value, bool unrecord_over,
                             int64_t max_throttle_ms) {
  const int64_t now = now_ms();
  std::lock_guard lock(mu_);
  auto it = rates_.find({kind, entity});
  if (it == rates_.end()) {
    if (rates_.size() >= kMaxRates) sweep(now);
    it = rates_.emplace(std::pair{kind, entity}, QuotaRate(window_.samples, window_.window_ms)).first;
  }
  QuotaRate& rate = it->second;
  rate.record(value, now);
  const double observed = rate.per_second(now);
  if (observed <= bound) return 0;
  if (unrecord_over) rate.record(-value, now);
  const double throttle = (observed - bound) / bound * static_cast<double>(rate.window_size_ms(now));
  return static_cast<int32_t>(std::clamp<double>(std::round(throttle), 1, static_cast<double>(max_throttle_ms)));
}

void QuotaManager::sweep(int64_t now_ms) {
  const int64_t idle = window_.window_ms * window_.samples;
  std::erase_if(rates_, [&](const auto& entry) { return now_ms - entry.second.last_record_ms() > idle; });
  // A bucket idle that long has refilled to its burst: dropping it changes nothing.
  std::erase_if(buckets_, [&](const auto& entry) { return now_ms - entry.second.updated_ms > idle; });
}

QuotaManager::TokenBucket& QuotaManager::bucket(const QuotaEntity& entity, double rate, int64_t now_ms) {
  const double burst = rate * static_cast<double>(window_.samples) * static_cast<double>(window_.window_ms) / 1000.0;
  auto it = buckets_.find(entity);
  if (it == buckets_.end()) {
    if (buckets_.size() >= kMaxRates) sweep(now_ms);
    it = buckets_.emplace(entity, TokenBucket{burst, now_ms}).first;
  }
  TokenBucket& b = it->second;
  b.tokens = std::min(burst, b.tokens + rate * static_cast<double>(now_ms - b.updated_ms) / 1000.0);
  b.updated_ms = now_ms;
  return b;
}

bool QuotaManager::record_mutation(std::string_view user, std::string_view client_id, int64_t partitions,
                                   bool strict) {
  if (!quotas_.any(kControllerMutationRate)) return true;
  QuotaEntity entity;
  auto rate = quotas_.bound(kControllerMutationRate, user, client_id, &entity);
  if (!rate) return true;
  std::lock_guard lock(mu_);
  TokenBucket& b = bucket(entity, *rate, now_ms());
  if (strict && b.tokens < 0) return false;
  b.tokens -= static_cast<double>(partitions);
  return true;
}

int32_t QuotaManager::mutation_throttle_ms(std::string_view user, std::string_view client_id) {
  if (!quotas_.any(kControllerMutationRate)) return 0;
  QuotaEntity entity;
  auto rate = quotas_.bound(kControllerMutationRate, user, client_id, &entity);
  if (!rate) return 0;
  std::lock_guard lock(mu_);
  const TokenBucket& b = bucket(entity, *rate, now_ms());
  if (b.tokens >= 0) return 0;
  return static_cast<int32_t>(std::clamp<double>(std::ceil(-b.tokens / *rate * 1000.0), 1, INT32_MAX));
}

size_t QuotaManager::rates() const {
  std::lock_guard lock(mu_);
  return rates_.size();
}

namespace {
constexpr int64_t kNoCap = INT32_MAX;
}  // namespace

int32_t QuotaManager::record_client(Kind kind, std::string_view key, std::string_view user,
                                    std::string_view client_id, double value, bool unrecord_over,
                                    int64_t max_throttle_ms) {
  if (!quotas_.any(key)) return 0;
  QuotaEntity entity;
  auto bound = quotas_.bound(key, user, client_id, &entity);
  if (!bound) return 0;
  return record(kind, entity, *bound, value, unrecord_over, max_throttle_ms);
}

int32_t QuotaManager::record_produce(std::string_view user, std::string_view client_id, int64_t bytes) {
  return record_client(Kind::kProduce, kProducerByteRate, user, client_id, static_cast<double>(bytes), false, kNoCap);
}

int32_t QuotaManager::record_fetch(std::string_view user, std::string_view client_id, int64_t bytes) {
  return record_client(Kind::kFetch, kConsumerByteRate, user, client_id, static_cast<double>(bytes), true, kNoCap);
}

std::optional<int64_t> QuotaManager::fetch_max_bytes(std::string_view user, std::string_view client_id) const {
  if (!quotas_.any(kConsumerByteRate)) return std::nullopt;
  auto bound = quotas_.bound(kConsumerByteRate, user, client_id);
  if (!bound) return std::nullopt;
  const double window_s = static_cast<double>(window_.window_ms) / 1000.0;
  const double max = *bound * static_cast<double>(std::max(window_.samples - 1, 1)) * window_s;
  return static_cast<int64_t>(std::min(max, static_cast<double>(INT32_MAX)));
}

int32_t QuotaManager::record_request_time(std::string_view user, std::string_view client_id,
                                          std::chrono::nanoseconds took) {
  // Percent of one thread's second: 1 s of handling in one second is 100.
  const double percent_seconds = static_cast<double>(took.count()) * 100.0 / 1e9;
  return record_client(Kind::kRequest, kRequestPercentage, user, client_id, percent_seconds, false,
                       window_.window_ms);
}

int32_t QuotaManager::record_connection(std::string_view ip) {
  if (!quotas_.any(kConnectionCreationRate)) return 0;
  auto bound = quotas_.ip_bound(ip);
  if (!bound) return 0;
  return record(Kind::kConnection, QuotaEntity{{std::string(kQuotaIp), std::string(ip)}}, *bound, 1.0, true, kNoCap);
}

}  // namespace rokka::broker
