// QuotaManager: measures each client's rates against the bounds ClientQuotas holds and
// says how long to throttle it, as Kafka's ClientQuotaManager, ClientRequestQuotaManager
// and ConnectionQuotas do.
//
// A rate is measured over `quota.window.num` samples of `quota.window.size.seconds`
// each (Kafka's Rate: the sum of the live samples over the elapsed window, which counts
// as at least samples - 1 whole windows). A client over its bound is throttled for
// (rate - bound) / bound * window, the time its rate needs to fall back to the bound;
// the request quota caps that at one window. The clients that share one rate are the
// entity the bound was found on (ClientQuotas::bound's `matched`): a user's quota is
// shared by all of that user's client ids, a default quota is per user or client id.
//
// controller_mutation_rate (KIP-599) is a token bucket instead: tokens (partitions
// created, added or deleted) accumulate at the bound per second up to a burst of
// bound * samples * window, starting full; a mutation takes its partitions out and may
// leave the bucket in debt; the throttle is the time the debt takes to be repaid.
//
// Threading: any thread. With no quota of a kind set, recording it takes no lock (an
// atomic check); otherwise one mutex per manager, held for a map lookup and a few
// additions. Rates idle for a whole window are dropped once the table grows past
// kMaxRates, so it stays bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/meta/client_quotas.h"

namespace rokka::broker {

// A rate over `samples` windows of `window_ms` each (Kafka's SampledStat + Rate).
class QuotaRate {
 public:
  QuotaRate(int samples, int64_t window_ms);
  void record(double value, int64_t now_ms);
  double per_second(int64_t now_ms);
  // The elapsed time the rate divides by, in ms.
  int64_t window_size_ms(int64_t now_ms) const;
  int64_t last_record_ms() const { return last_record_ms_; }

 private:
  void purge(int64_t now_ms);
  struct Sample {
    int64_t start_ms = 0;
    double value = 0;
  };
  int64_t window_ms_;
  std::vector<Sample> samples_;
  size_t current_ = 0;
  int64_t last_record_ms_ = 0;
};

struct QuotaWindow {
  int samples = 11;         // quota.window.num
  int64_t window_ms = 1000;  // quota.window.size.seconds
};

class QuotaManager {
 public:
  enum class Kind { kProduce, kFetch, kRequest, kConnection, kControllerMutation };
  QuotaManager(const ClientQuotas& quotas, QuotaWindow window);

  // Records a produce request's bytes; the throttle time in ms, 0 within the quota.
  int32_t record_produce(std::string_view user, std::string_view client_id, int64_t bytes);
  // Records a fetch response's bytes. Over the quota the bytes are taken back out (the
  // response goes out empty, as Kafka sends it) and the throttle time is returned.
  int32_t record_fetch(std::string_view user, std::string_view client_id, int64_t bytes);
  // The most bytes one fetch response may carry under the client's consumer_byte_rate:
  // the bound times (samples - 1) windows, as Kafka caps it; nullopt without a quota.
  std::optional<int64_t> fetch_max_bytes(std::string_view user, std::string_view client_id) const;
  // Records a request's handling time against request_percentage (percent of one
  // thread's time); the throttle time in ms, at most one window.
  int32_t record_request_time(std::string_view user, std::string_view client_id, std::chrono::nanoseconds took);
  // Whether some entity has request_percentage (no lock): the caller may skip
  // gathering what record_request_time needs.
  bool request_quota_set() const { return quotas_.any(kRequestPercentage); }
  // A new connection from `ip`: 0 (counted) or the ms until its rate is back within
  // connection_creation_rate (not counted: the connection is to be closed after that long).
  int32_t record_connection(std::string_view ip);

  // A topic mutation of `partitions` (CreateTopics, CreatePartitions, DeleteTopics)
  // against controller_mutation_rate. Strict (CreateTopics v6+, CreatePartitions v3+,
  // DeleteTopics v5+: the versions that can carry THROTTLING_QUOTA_EXCEEDED): refused
  // (false, nothing taken) while the client's bucket is in debt. Otherwise admitted
  // and taken out, whatever the debt it leaves.
  bool record_mutation(std::string_view user, std::string_view client_id, int64_t partitions, bool strict);
  // The ms until the client's bucket is out of debt (0: not in debt, or no quota).
  int32_t mutation_throttle_ms(std::string_view user, std::string_view client_id);

  // How many distinct rates are held (for tests and the bound).
  size_t rates() const;
  static constexpr size_t kMaxRates = 100000;

 private:
  // Records `value` on the rate of (kind, entity) and checks it against `bound`. Over it:
  // the throttle time; `unrecord_over` takes the value back out first.
  int32_t record(Kind kind, const QuotaEntity& entity, double bound, double value, bool unrecord_over,
                 int64_t max_throttle_ms);
  // record() on the rate the client shares for `key`, if it has a bound for it.
  int32_t record_client(Kind kind, std::string_view key, std::string_view user, std::string_view client_id,
                        double value, bool unrecord_over, int64_t max_throttle_ms);
  void sweep(int64_t now_ms);  // under mu_

  const ClientQuotas& quotas_;
  const QuotaWindow window_;
  mutable std::mutex mu_;
  std::map<std::pair<Kind, QuotaEntity>, QuotaRate> rates_;  // GUARDED_BY(mu_)
  struct TokenBucket {
    double tokens = 0;
    int64_t updated_ms = 0;
  };
  // The bucket of `entity` refilled to now at `rate`, created full. REQUIRES: mu_ held.
  TokenBucket& bucket(const QuotaEntity& entity, double rate, int64_t now_ms);
  std::map<QuotaEntity, TokenBucket> buckets_;  // GUARDED_BY(mu_): controller_mutation_rate
};

// "User:alice" -> "alice": the name Kafka's quotas match a user entity against.
std::string_view quota_user(std::string_view principal);

}  // namespace rokka::broker
