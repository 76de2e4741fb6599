#include "broker/records/log_cleaner.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "broker/records/batch_rewriter.h"
#include "broker/logging.h"
#include "protocol/record_batch.h"
#include "storage/thread.h"

namespace rokka::broker {
namespace {

using protocol::RecordBatchView;

constexpr int64_t kReadChunkBytes = 1 << 20;

// The partition's batches from `from` to its end, as stored (slices pin their segments).
struct StoredBatches {
  std::vector<storage::LogSlice> slices;
  std::vector<RecordBatchView> views;
};

storage::Status read_from(const storage::Store& store, storage::PartitionId pid, int64_t from, int64_t next,
                          StoredBatches& out) {
  for (int64_t offset = from; offset < next;) {
    auto r = store.read(pid, offset, kReadChunkBytes);
    if (!r.ok()) return r.status();
    if (r->batches.empty()) break;
    for (auto& slice : r->batches) {
      RecordBatchView v;
      if (RecordBatchView::parse(slice.bytes, &v) != protocol::BatchCheck::kOk)
        return storage::Status::corruption("stored batch does not parse");
      offset = v.last_offset() + 1;
      out.views.push_back(v);
      out.slices.push_back(std::move(slice));
    }
  }
  return {};
}

std::string key_of(const protocol::Record& r) {
  return {reinterpret_cast<const char*>(r.key->data()), r.key->size()};
}

bool leaves_alone(const RecordBatchView& b) { return b.is_control() || b.is_transactional(); }

int64_t record_timestamp(const RecordBatchView& b, const protocol::Record& r) {
  return b.timestamp_type() == protocol::TimestampType::kLogAppendTime ? b.max_timestamp()
                                                                       : b.base_timestamp() + r.timestamp_delta;
}

// How many leading batches may be cleaned: never the newest (Kafka's active segment),
// nothing at or past the last stable offset, nothing younger than min.compaction.lag.ms.
size_t cleanable_count(const StoredBatches& all, const storage::PartitionOffsets& offs, const TopicSettings& s,
                       int64_t now) {
  size_t n = 0;
  for (; n < all.views.size(); ++n) {
    const RecordBatchView& b = all.views[n];
    if (b.last_offset() + 1 >= offs.next_offset || b.last_offset() >= offs.last_stable_offset) break;
    if (s.min_compaction_lag_ms > 0 && b.max_timestamp() > now - s.min_compaction_lag_ms) break;
  }
  return n;
}

}  // namespace

LogCleaner::LogCleaner(storage::Store& store, const TopicRegistry& topics, LogCleanerOptions options, StoreSlot slot)
    : store_(store), topics_(topics), options_(std::move(options)), slot_(slot) {}

LogCleaner::~LogCleaner() { stop(); }

int64_t LogCleaner::now_ms() const {
  if (options_.clock_ms) return options_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void LogCleaner::start() {
  thread_ = std::thread([this] {
    storage::name_this_thread("rokka-cleaner");
    run();
  });
}

void LogCleaner::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LogCleaner::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    run_pass();
    lock.lock();
    cv_.wait_for(lock, std::chrono::milliseconds(options_.backoff_ms), [this] { return stopping_; });
  }
}

void LogCleaner::run_pass() {
  for (const TopicPtr& topic : topics_.all()) {
    const TopicSettings& s = topic->settings;
    for (const PartitionLoc& loc : topic->partitions) {
      if (loc.slot != slot_) continue;  // another store's cleaner
      const storage::PartitionId pid = loc.pid;
      store_.set_retained(pid, s.compact && !s.delete_retention);
      if (!s.compact || !options_.enable) continue;
      if (options_.may_rewrite && !options_.may_rewrite()) continue;
      {
        std::lock_guard lock(mu_);
        if (stopping_) return;
      }
      if (!due(pid, s, now_ms())) continue;
      auto r = clean(pid, s);
      if (!r.ok()) {
        broker_log().warn("log cleaner: topic {} partition id {}: {}", topic->name, pid, r.status().to_string());
      } else if (r->rewritten) {
        broker_log().info("log cleaner: topic {} partition id {}: {} batches / {} records read, {} records dropped, "
                          "{} batches written",
                          topic->name, pid, r->batches_in, r->records_in, r->records_dropped, r->batches_out);
      }
    }
  }
}

LogCleaner::PartitionState& LogCleaner::state_for(storage::PartitionId pid, int64_t now) {
  return state_.try_emplace(pid, PartitionState{-1, 0, now}).first->second;
}

// A retained partition's batches pin their segments: rewrite them now and then.
bool LogCleaner::copy_forward_due(const PartitionState& st, const TopicSettings& s, int64_t now) const {
  return !s.delete_retention && now - st.last_rewrite_ms >= options_.copy_forward_ms;
}

bool LogCleaner::due(storage::PartitionId pid, const TopicSettings& s, int64_t now) {
  auto offs = store_.offsets(pid);
  if (!offs.ok()) return false;
  const PartitionState& st = state_for(pid, now);
  if (copy_forward_due(st, s, now)) return true;
  StoredBatches dirty;
  if (!read_from(store_, pid, std::max(st.clean_end, offs->log_start_offset), offs->next_offset, dirty).ok())
    return false;
  if (dirty.views.size() < 2) return false;  // only the newest batch: nothing cleanable yet
  if (st.clean_end < 0) return true;
  if (now - dirty.views.front().max_timestamp() > s.max_compaction_lag_ms) return true;
  int64_t dirty_bytes = 0;
  for (const auto& v : dirty.views) dirty_bytes += static_cast<int64_t>(v.size());
  return static_cast<double>(dirty_bytes) >= s.min_cleanable_dirty_ratio * static_cast<double>(dirty_bytes + st.clean_bytes);
}

storage::Result<CleanStats> LogCleaner::clean(storage::PartitionId pid, const TopicSettings& s) {
  const int64_t now = now_ms();
  auto offs = store_.offsets(pid);
  if (!offs.ok()) return offs.status();
  StoredBatches all;
  if (auto st = read_from(store_, pid, offs->log_start_offset, offs->next_offset, all); !st.ok()) return st;
  const size_t n = cleanable_count(all, *offs, s, now);
  CleanStats stats;
  if (n == 0 || n >= all.views.size()) return stats;  // nothing cleanable, or the read ended early

  // Pass 1: each key's latest offset in the range; each producer's last batch anywhere.
  std::unordered_map<std::string, int64_t> latest;
  std::unordered_map<int64_t, size_t> last_of_producer;
  std::vector<std::byte> scratch;
  for (size_t i = 0; i < all.views.size(); ++i) {
    const RecordBatchView& b = all.views[i];
    if (b.has_producer_id()) last_of_producer[b.producer_id()] = i;
    if (i >= n || leaves_alone(b)) continue;
    ++stats.batches_in;
    const bool ok = for_each_batch_record(b, scratch, [&](const protocol::Record& r, int64_t offset) {
      ++stats.records_in;
      if (r.key) latest[key_of(r)] = offset;
    });
    if (!ok) broker_log().warn("log cleaner: partition id {} batch at {} does not decode: kept", pid, b.base_offset());
  }

  // Pass 2: rewrite each batch with the records that survive.
  std::vector<std::vector<std::byte>> rewritten;
  rewritten.reserve(n);
  std::vector<std::span<const std::byte>> out;
  bool changed = false;
  for (size_t i = 0; i < n; ++i) {
    const RecordBatchView& b = all.views[i];
    if (leaves_alone(b)) {
      out.push_back(b.bytes());
      continue;
    }
    auto keep = [&](const protocol::Record& r, int64_t offset) {
      if (!r.key) return true;
      auto it = latest.find(key_of(r));
      if (it != latest.end() && it->second != offset) return false;
      return r.value || now - record_timestamp(b, r) <= s.delete_retention_ms;
    };
    std::vector<std::byte> nb;
    if (rewrite_batch(b, keep, nb) != RewriteOutcome::kRewritten) {
      out.push_back(b.bytes());
      continue;
    }
    changed = true;
    RecordBatchView v;
    (void)RecordBatchView::parse(nb, &v);
    stats.records_dropped += b.records_count() - v.records_count();
    const bool producers_last = b.has_producer_id() && last_of_producer[b.producer_id()] == i;
    if (v.records_count() == 0 && !producers_last) continue;
    rewritten.push_back(std::move(nb));
    out.push_back(rewritten.back());
  }
  PartitionState& st = state_for(pid, now);
  const int64_t to = all.views[n].base_offset();
  if (changed || copy_forward_due(st, s, now)) {
    std::promise<storage::Status> done;
    store_.rewrite({pid, all.views[0].base_offset(), to, out}, [&](storage::Status r) { done.set_value(std::move(r)); });
    if (auto r = done.get_future().get(); !r.ok()) return r;
    stats.rewritten = true;
    stats.batches_out = static_cast<int64_t>(out.size());
    st.last_rewrite_ms = now;
  }
  st.clean_end = to;
  st.clean_bytes = 0;
  for (const auto& b : out) st.clean_bytes += static_cast<int64_t>(b.size());
  return stats;
}

}  // namespace rokka::broker
