// StoreWriter: the store's writer thread and the state only it touches.
//
// The writer is the only code that mutates the CommitLog, the ConsumeQueues, producer
// and transaction state and the MetaJournal (StoreState). It drains the whole queue,
// applies it, makes it durable with one flush (group commit), publishes, then
// completes every request. It sleeps on the queue until work arrives or a timer
// (async flush, checkpoint, retention) is due: no polling. The fdatasyncs no ack
// waits for go to its Flusher.
//
// Following an operation: the Store facade (store.cc) turns each write call into one
// of the op structs below and calls submit(). run() takes the whole queue at once, and
// process() hands each op to the handle() overload for its type (std::visit), all in
// store_writer.cc:
//
//   call                        op               handler
//   Store::append               AppendOp         handle(AppendOp&)  -> append_one() per batch
//   Store::create_partitions    CreateOp         handle(CreateOp&)
//   Store::delete_partition     DeleteOp         handle(DeleteOp&)
//   Store::delete_records       DeleteRecordsOp  handle(DeleteRecordsOp&)
//   MetaStore::write            MetaOp           handle(MetaOp&)
//   Store::rewrite              RewriteOp        handle(RewriteOp&) -> stage_rewrite(); apply_rewrites()
//   Store::active_producers     ProducersOp      handle(ProducersOp&)  (a read of the writer's state)
//   Store::set_role             SetRoleOp        handle(SetRoleOp&)
//   Store::append_replicated    AppendReplicatedOp  handle(AppendReplicatedOp&) -> apply_piece() per entry
//   Store::truncate_to          TruncateOp       handle(TruncateOp&)
//   Store::bootstrap_snapshot   SnapshotOp       handle(SnapshotOp&)  (a read of the writer's state)
//   Store::reset_to             ResetOp          handle(ResetOp&) -> reset_store()
//
// Roles (types.h): in kFollower and kFenced the write ops above complete with
// kNotLeader; in kLeader append_one() stamps the epoch into each batch and
// write_meta() logs every meta write as an RKM1 entry before the journal, and a
// rewrite logs its RKW1 commit after its RKR1 entries. kSingle does none of that.
//
// A handler applies its op and queues a completion; process() then ends the group
// (end_group: the flush in sync mode), publishes, and runs the completions with the
// group's outcome, on the writer thread. An op submitted after close(), or still
// queued when the writer is destroyed without close(), completes with kShutdown.
//
// Threading: submit(), set_append_listener(), set_log_listener() and close() may be
// called from any thread; they touch only queue_, the listeners (each behind its own
// mutex) and the close state. Every other member is the writer thread's: set before the thread
// starts, then touched by no other thread (the Flusher's callbacks touch only
// rewrites_in_flight_, an atomic).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <variant>
#include <vector>

#include "storage/count_histogram.h"
#include "storage/flusher.h"
#include "storage/replication.h"
#include "storage/store_state.h"

namespace rokka::storage {

// ---- the operations (see the table above) ----
struct AppendOp {
  std::vector<AppendRequest> requests;
  std::vector<Status> checked;  // the caller thread's batch checks, per request
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
  std::vector<MetaStore::Mutation> batch;
  StatusCallback done;
};
struct RewriteOp {
  Store::RewriteRequest request;
  StatusCallback done;
};
struct ProducersOp {  // reads the writer's producer state; writes nothing
  PartitionId partition;
  Store::ProducersCallback done;
};
struct SetRoleOp {
  Role role;
  int32_t epoch;
  StatusCallback done;
};
struct AppendReplicatedOp {
  int64_t from;
  std::vector<std::byte> bytes;              // the caller's bytes, copied
  std::vector<replication::Piece> pieces;    // checked views into `bytes` (replication::split)
  StatusCallback done;
};
struct TruncateOp {
  int64_t position;
  StatusCallback done;
};
struct SnapshotOp {
  Store::SnapshotCallback done;
};
struct ResetOp {
  Store::BootstrapSnapshot snapshot;
  StatusCallback done;
};
struct ConfirmOp {  // Store::set_confirmed
  int64_t position;
  StatusCallback done;  // unused (null): fail_op's shape
};
using WriterOp = std::variant<AppendOp, CreateOp, DeleteOp, DeleteRecordsOp, MetaOp, RewriteOp, ProducersOp, SetRoleOp,
                              AppendReplicatedOp, TruncateOp, ConfirmOp, SnapshotOp, ResetOp>;

// The writer's inbox: callers push, the writer takes everything queued at once.
class OpQueue {
 public:
  // Queues `op`; false once the queue is closed: `op` is left to the caller then.
  bool push(WriterOp&& op);
  enum class State { kOpen, kClosed, kAbandoned };
  // Writer: waits until an op is queued, the queue closes or `deadline` passes, then
  // moves every queued op into `out` (empty on entry).
  State take(std::vector<WriterOp>& out, std::chrono::steady_clock::time_point deadline);
  bool empty() const;
  // No more pushes. `abandon`: the writer fails what is queued instead of applying it.
  void close(bool abandon);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WriterOp> ops_;  // GUARDED_BY(mu_)
  bool closed_ = false;        // GUARDED_BY(mu_)
  bool abandoned_ = false;     // GUARDED_BY(mu_)
};

// Completes `op` at once with `s` (kShutdown after close, or a failure).
void fail_op(WriterOp& op, const Status& s);

class StoreWriter {
 public:
  using Listener = std::function<void(std::span<const PartitionId>)>;
  using LogListener = std::function<void(int64_t readable_end)>;
  struct Start {                     // from recover()
    PartitionId next_partition = 0;  // the next id create_partitions hands out
    LogPosition checkpoint_pos;      // the log the newest durable checkpoint covers
    int64_t confirmed = -1;          // the checkpoint's C (high watermarks restored with it), or -1
    int64_t state_at = 0;            // l/state_at (a re-bootstrap's E), or 0
  };

  // Starts the flusher and the writer thread. The objects in `state` outlive this one.
  StoreWriter(const StoreState& state, Start start);
  // Without close(): like a crash. Queued ops fail with kShutdown; nothing more is
  // flushed or checkpointed and the abort marker stays.
  ~StoreWriter();
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // ---- any thread ----
  void submit(WriterOp op);
  // Called on the writer thread after appended data becomes readable, with the
  // partitions that grew, before their acks.
  void set_append_listener(Listener listener);
  // Called on the writer thread with the log's readable end whenever it moved
  // (Store::set_log_listener). Empty: none.
  void set_log_listener(LogListener listener);
  // Called on the writer thread after replicated meta writes were applied
  // (Store::set_replicated_meta_listener). Empty: none.
  void set_replicated_meta_listener(std::function<void()> listener);
  // Applies what is queued, then flushes, checkpoints and removes the abort marker,
  // and stops both threads. A later call returns the first one's result.
  Status close();
  // One observation per group that appended entries and ended without a storage failure (as
  // StoreStats says); read from any thread.
  const CountHistogram& group_commit_records() const { return group_commit_records_; }
  const CountHistogram& group_commit_bytes() const { return group_commit_bytes_; }
  // Any thread: whether the role is a replicated one (reads are bounded by high watermarks).
  bool replicated() const { return replicated_.load(std::memory_order_acquire); }
  // Any thread: Store::confirmed_position().
  int64_t confirmed_position() const { return confirmed_published_.load(std::memory_order_acquire); }

 private:
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

  // ---- writer thread: everything below ----
  void run();
  Clock::time_point next_deadline() const;
  void process(std::vector<WriterOp>& ops);
  void handle(AppendOp& op);
  void handle(CreateOp& op);
  void handle(DeleteOp& op);
  void handle(DeleteRecordsOp& op);
  void handle(MetaOp& op);
  void handle(RewriteOp& op);
  void handle(ProducersOp& op);
  void handle(SetRoleOp& op);
  void handle(AppendReplicatedOp& op);
  void handle(TruncateOp& op);
  void handle(ConfirmOp& op);
  void handle(SnapshotOp& op);
  void handle(ResetOp& op);
  Status reset_store(const Store::BootstrapSnapshot& snapshot);
  void change_role(Role role);     // role_, replicated_, and the high watermark queue
  void confirm_groups();           // pops the groups at or below confirmed_, moves high watermarks
  bool takes_writes() const { return role_ == Role::kSingle || role_ == Role::kLeader; }
  // The status of a write refused in this role, or ok.
  Status role_refusal() const {
    return takes_writes() ? Status() : Status::not_leader("store is not its group's leader");
  }
  Status apply_replicated(const AppendReplicatedOp& op);
  Status apply_piece(const replication::Piece& piece);
  Status apply_replicated_meta(std::span<const std::byte> payload);
  bool apply_store_records(std::vector<MetaStore::Mutation>& batch, bool undo);
  std::vector<MetaStore::Mutation> meta_undo(LogPosition from, LogPosition end) const;
  Status truncate_log(int64_t position, StatusCallback& done);
  void forget_partition(Partition& p);  // a deleted partition's in-memory state
  int32_t last_epoch() const;           // -1 when none
  // An RKM1 / RKW1 entry (kLeader); a failure to write it makes the store read-only.
  Status append_payload_entry(uint32_t magic, PartitionId partition, uint32_t count,
                              std::span<const std::byte> payload);
  Result<AppendInfo> append_one(const AppendRequest& req, int64_t now);
  // Starts loading the state append_one() reads for each of `requests` at once: with batches
  // for many partitions each one's state is a cache miss, and this way the misses overlap.
  void prefetch_partitions(std::span<const AppendRequest> requests) const;
  Status stage_rewrite(RewriteOp& op);
  Result<format::QueueUnit> append_rewritten(PartitionId id, std::span<const std::byte> batch, int64_t now);
  void apply_rewrites(const Status& durable);
  void notify_log_listener();  // the log listener, if the readable end moved since it last heard
  Status write_meta(const std::vector<MetaStore::Mutation>& batch, bool must_sync);
  Status end_group();
  void run_timers();
  // Snapshot now, syncs and file write on the flusher; `after` runs once it is durable
  // (or with the failure).
  Status checkpoint(std::vector<StatusCallback> after = {});
  Status checkpoint_now();  // everything inline (clean shutdown)
  Status enforce_retention();
  LogPosition retained_limit() const;  // the oldest entry a retained partition uses
  Status shutdown_cleanly();
  void enter_read_only(const Status& cause);
  Status read_only_status() const { return Status::read_only(read_only_cause_.to_string()); }
  StoreState state() const { return {options_, log_, index_, journal_, partitions_}; }

  const StoreOptions& options_;
  CommitLog& log_;
  IndexFiles& index_;
  MetaJournal& journal_;
  PartitionTable& partitions_;
  Flusher flusher_;

  bool read_only_ = false;  // after a storage failure: every later write fails
  Role role_ = Role::kSingle;
  int32_t epoch_ = -1;      // the epoch led (kLeader) or last set
  // The epoch this store wrote the start of (set_role(kLeader, E)) and has led since, fenced
  // perhaps but never a follower nor cut: the one epoch a kFenced store may lead again. -1: none.
  int32_t led_epoch_ = -1;
  // Replicated roles: the groups not confirmed yet, oldest first (their log end and the
  // next offsets of the partitions they grew), the confirmed position, and the partitions
  // whose high watermark moved in the current process() round.
  struct UnconfirmedGroup {
    int64_t end;
    std::vector<std::pair<PartitionId, int64_t>> next;
  };
  std::deque<UnconfirmedGroup> unconfirmed_;
  int64_t confirmed_ = 0;
  // A re-bootstrap's E (l/state_at): replicated entries below it put index units but apply
  // no producer, transaction or meta state (the snapshot held it); lowered by a cut.
  int64_t state_at_ = 0;
  // The checkpoint's C until the first change into a replicated role uses it (with the
  // high watermarks recovery restored); -1 when none or used.
  int64_t restored_confirmed_ = -1;
  // What checkpoints persist as C: -1 (none) in kSingle unless a restored one waits.
  int64_t confirmed_to_persist() const { return role_ != Role::kSingle ? confirmed_ : restored_confirmed_; }
  void publish_confirmed() {
    confirmed_published_.store(role_ != Role::kSingle ? confirmed_ : std::max<int64_t>(0, restored_confirmed_),
                               std::memory_order_release);
  }
  std::vector<PartitionId> hw_moved_;
  Status read_only_cause_;
  PartitionId next_partition_;
  std::vector<Completion> completions_;  // of the current group
  std::vector<PartitionId> grown_;       // partitions that grew in the current group
  int64_t group_records_ = 0, group_bytes_ = 0;  // appended by append_one in the current group
  bool meta_written_ = false, meta_must_sync_ = false;
  int64_t unflushed_messages_ = 0;
  bool meta_replicated_ = false;  // replicated meta applied since the meta listener last ran
  int64_t notified_end_ = -1;  // the readable end the log listener was last called with
  LogPosition checkpoint_pos_;
  bool changed_since_checkpoint_ = false;
  Clock::time_point next_flush_, next_checkpoint_, next_retention_;
  std::vector<StagedRewrite> staged_rewrites_;
  // Rewrites swapped in whose checkpoint is not durable yet: the previous checkpoint
  // still names the replaced entries, so retention deletes nothing meanwhile.
  // Decremented on the flusher thread.
  std::atomic<int> rewrites_in_flight_{0};
  Status close_status_;  // shutdown_cleanly()'s result; read by close() after the join

  // ---- shared with callers ----
  CountHistogram group_commit_records_{1};     // bounds 1 .. 32768 records
  CountHistogram group_commit_bytes_{1024};    // bounds 1 KiB .. 32 MiB
  std::atomic<bool> replicated_{false};         // role_ is kLeader, kFollower or kFenced
  std::atomic<int64_t> confirmed_published_{0};  // confirmed_position()
  OpQueue queue_;
  mutable std::mutex listener_mu_;
  Listener listener_;  // GUARDED_BY(listener_mu_)
  LogListener log_listener_;  // GUARDED_BY(listener_mu_)
  std::atomic<bool> has_log_listener_{false};  // the writer's check, without the lock
  std::function<void()> meta_listener_;  // GUARDED_BY(listener_mu_)
  std::mutex close_mu_;
  bool closed_ = false;  // GUARDED_BY(close_mu_)
  std::thread thread_;   // last: starts once every member above exists
};

}  // namespace rokka::storage
