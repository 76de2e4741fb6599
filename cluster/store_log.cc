#include "cluster/store_log.h"

#include <utility>

#include "storage/format.h"
#include "storage/replication.h"

namespace rokka::cluster {

StoreLog::StoreLog(std::shared_ptr<storage::Store> store, int64_t max_append_bytes)
    : store_(std::move(store)), max_entry_bytes_(max_append_bytes + storage::format::kEntryHeaderSize) {}

int64_t StoreLog::log_begin() const { return store_->log_begin(); }
int64_t StoreLog::log_end() const { return store_->log_end(); }
int64_t StoreLog::durable_end() const { return store_->durable_end(); }
std::vector<EpochStart> StoreLog::epochs() const { return store_->epochs(); }

storage::Result<storage::LogSlice> StoreLog::read_log(int64_t from, int64_t max_bytes) const {
  return store_->read_log(from, max_bytes);
}

void StoreLog::append_replicated(int64_t from, std::span<const std::byte> bytes, storage::StatusCallback done) {
  // The Store copies `bytes` before it returns; `done` runs on its writer thread (or, for a
  // refusal, here), and the stream's callback only posts the Status to its executor.
  store_->append_replicated(from, bytes, std::move(done));
}

void StoreLog::truncate_to(int64_t position, storage::StatusCallback done) {
  store_->truncate_to(position, std::move(done));
}

void StoreLog::set_confirmed(int64_t position) { store_->set_confirmed(position); }

void StoreLog::set_append_notifier(std::function<void()> notify) {
  if (!notify) return store_->set_log_listener(nullptr);
  store_->set_log_listener([notify = std::move(notify)](int64_t) { notify(); });
}

void StoreLog::bootstrap_snapshot(std::function<void(storage::Result<LogSnapshot>)> done) {
  store_->bootstrap_snapshot([done = std::move(done)](storage::Result<storage::Store::BootstrapSnapshot> snap) {
    if (!snap.ok()) return done(snap.status());
    done(LogSnapshot{snap->begin, storage::replication::encode_snapshot(*snap)});  // on the writer, as the scan
  });
}

void StoreLog::reset_to(int64_t begin, std::span<const std::byte> bytes, storage::StatusCallback done) {
  auto snap = storage::replication::decode_snapshot(bytes);
  if (!snap.ok()) return done(snap.status());
  if (snap->begin != begin)
    return done(storage::Status::invalid_argument("snapshot begins at " + std::to_string(snap->begin) + ", not " +
                                                  std::to_string(begin)));
  store_->reset_to(std::move(*snap), std::move(done));
}

}  // namespace rokka::cluster
