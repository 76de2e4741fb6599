// StoreImpl: the Store facade's implementation. Internal to storage/.
//
// One writer thread (store_writer.cc) owns every mutation: offsets, the
// LogAppendTime + CRC fix-up, CommitLog append, ConsumeQueue units, idempotence,
// group commit, checkpoints and retention. The fdatasyncs that no acknowledgement
// waits for -- the periodic log flush of async mode (log.flush.interval.ms) and a
// checkpoint's syncs and file write -- run on a flusher thread (flusher.h),
// so appends never stall behind them. Callers queue work and return; reads
// (store.cc) run on the caller's thread against published state.
// Recovery at open: recover() (recovery.h).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <optional>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

#include "storage/commit_log.h"
#include "storage/consume_queue.h"
#include "storage/dir_lock.h"
#include "storage/flusher.h"
#include "storage/index_file.h"
#include "storage/meta_journal.h"
#include "storage/partition_table.h"
#include "storage/store.h"
#include "storage/store_state.h"

namespace rokka::storage {

class StoreImpl final : public Store, public MetaStore {
 public:
  explicit StoreImpl(StoreOptions options);
  ~StoreImpl() override;
  Status start();  // open files, recover, start the writer

  // Store
  void create_partitions(uint32_t count, std::function<void(Result<std::vector<PartitionId>>)> done) override;
  void delete_partition(PartitionId partition, StatusCallback done) override;
  void append(std::vector<AppendRequest> requests, AppendCallback done) override;
  Result<ReadResult> read(PartitionId partition, int64_t offset, int64_t max_bytes) const override;
  Result<PartitionOffsets> offsets(PartitionId partition) const override;
  Result<TimestampOffset> lookup_timestamp(PartitionId partition, int64_t ts) const override;
  Result<TimestampOffset> max_timestamp(PartitionId partition) const override;
  void delete_records(PartitionId partition, int64_t offset, std::function<void(Result<int64_t>)> done) override;
  void rewrite(RewriteRequest request, StatusCallback done) override;
  void set_retained(PartitionId partition, bool retained) override;
  MetaStore& meta() override { return *this; }
  void set_append_listener(std::function<void(std::span<const PartitionId>)> listener) override;
  Status close() override;

  // MetaStore
  void write(std::vector<Mutation> batch, StatusCallback done) override;
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override;

 private:
  struct AppendOp {
    std::vector<AppendRequest> requests;
    std::vector<Status> checked;  // caller-thread validation, per request
    AppendCallback done;
  };
  struct CreateOp {
    uint32_t count;
    std::function<void(Result<std::vector<PartitionId>>)> done;
  };
  struct DeleteOp {
    PartitionId partition;
    StatusCallback done;
  };
  struct DeleteRecordsOp {
    PartitionId partition;
    int64_t offset;
    std::function<void(Result<int64_t>)> done;
  };
  struct MetaOp {
    std::vector<Mutation> batch;
    StatusCallback done;
  };
  struct RewriteOp {
    RewriteRequest request;
    StatusCallback done;
  };
  using Op = std::variant<AppendOp, CreateOp, DeleteOp, DeleteRecordsOp, MetaOp, RewriteOp>;
  // A rewrite whose entries are staged in this group: its units are swapped in after
  // the group's bytes are readable (apply_rewrites).
  struct StagedRewrite {
    PartitionId partition;
    int64_t first, last;  // replaced ordinals [first, last)
    std::vector<format::QueueUnit> units;
    StatusCallback done;
  };
  using Completion = std::function<void(const Status& durable)>;
  using Clock = std::chrono::steady_clock;

  // ---- any thread ----
  void submit(Op op);
  int64_t first_unit_for(const ConsumeQueue& q, const ConsumeQueue::Units& v, int64_t offset) const;
  int64_t now_ms() const { return options_.clock_ms(); }

  // ---- writer thread (store_writer.cc) ----
  void run();
  void process(std::vector<Op>& ops);
  void handle(AppendOp& op);
  void handle(CreateOp& op);
  void handle(DeleteOp& op);
  void handle(DeleteRecordsOp& op);
  void handle(MetaOp& op);
  void handle(RewriteOp& op);
  Status stage_rewrite(RewriteOp& op);
  Result<format::QueueUnit> append_rewritten(PartitionId id, std::span<const std::byte> batch, int64_t now);
  void apply_rewrites(const Status& durable);
  LogPosition retained_limit() const;  // the oldest entry a retained partition uses
  Result<AppendInfo> append_one(const AppendRequest& req, int64_t now);
  Status end_group();
  void run_timers();
  Clock::time_point next_deadline() const;
  // Snapshot now, syncs and file write on the flusher; `after` runs once it is durable
  // (or with the failure).
  Status checkpoint(std::vector<StatusCallback> after = {});
  Status checkpoint_now();  // everything inline (clean shutdown)
  Status enforce_retention();
  Status shutdown_cleanly();
  void enter_read_only(const Status& cause);
  Status write_meta(const std::vector<Mutation>& batch, bool must_sync);
  void fail_all(std::vector<Op>& ops, const Status& s);

  StoreOptions options_;
  FileSystem* fs_;
  std::unique_ptr<DirLock> dir_lock_;  // until close(), else until the files close (declared before them)
  std::unique_ptr<CommitLog> log_;
  std::unique_ptr<IndexFiles> index_;
  std::unique_ptr<MetaJournal> journal_;
  PartitionTable partitions_;
  std::unique_ptr<StoreState> state_;  // the above, from start()

  // queue (guarded by mu_)
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Op> queue_;
  bool stopping_ = false;
  bool abandon_ = false;
  std::thread writer_;
  Status close_status_;
  bool closed_ = false;

  // writer state
  std::atomic<bool> read_only_{false};
  Status read_only_cause_;
  PartitionId next_partition_ = 0;
  std::vector<Completion> completions_;
  std::vector<PartitionId> grown_;
  bool meta_written_ = false, meta_must_sync_ = false;
  int64_t unflushed_messages_ = 0;
  LogPosition checkpoint_pos_;
  bool changed_since_checkpoint_ = false;
  Clock::time_point next_flush_, next_checkpoint_, next_retention_;
  std::function<void(std::span<const PartitionId>)> listener_;
  std::vector<StagedRewrite> staged_rewrites_;
  // Rewrites swapped in whose checkpoint is not durable yet: the previous checkpoint
  // still names the replaced entries, so retention deletes nothing meanwhile.
  std::atomic<int> rewrites_in_flight_{0};

  std::unique_ptr<Flusher> flusher_;  // from start(), after recovery
};

}  // namespace rokka::storage
