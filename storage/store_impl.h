// StoreImpl: the Store facade's implementation. Internal to storage/.
//
// A small facade over the classes that own their thread's state:
//   recover()    storage/recovery.h      opens the files and rebuilds the state, before
//                                        any thread starts
//   StoreWriter  storage/store_writer.h  the writer thread: every mutation, group
//                                        commit, checkpoints, retention; owns the
//                                        Flusher (storage/flusher.h)
//   StoreState   storage/store_state.h   the objects they share, owned here
// The write calls check what they can on the caller's thread (a batch's header and
// CRC) and submit an op to the writer; the reads (store.cc) run on the caller's
// thread against the published state and never wait for the writer.
#pragma once

#include <memory>

#include "storage/commit_log.h"
#include "storage/consume_queue.h"
#include "storage/dir_lock.h"
#include "storage/index_file.h"
#include "storage/meta_journal.h"
#include "storage/partition_table.h"
#include "storage/store.h"
#include "storage/store_writer.h"

namespace rokka::storage {

class StoreImpl final : public Store, public MetaStore {
 public:
  explicit StoreImpl(StoreOptions options);
  ~StoreImpl() override = default;
  Status start();  // lock the directory, recover, start the writer

  // Store: the write calls submit an op (store_writer.h); the reads run here.
  void create_partitions(uint32_t count, std::function<void(Result<std::vector<PartitionId>>)> done) override;
  void delete_partition(PartitionId partition, StatusCallback done) override;
  void append(std::vector<AppendRequest> requests, AppendCallback done) override;
  Result<ReadResult> read(PartitionId partition, int64_t offset, int64_t max_bytes) const override;
  Result<PartitionOffsets> offsets(PartitionId partition) const override;
  Result<TimestampOffset> lookup_timestamp(PartitionId partition, int64_t ts) const override;
  Result<TimestampOffset> max_timestamp(PartitionId partition) const override;
  Result<int64_t> partition_bytes(PartitionId partition) const override;
  Result<EpochEndOffset> epoch_end_offset(PartitionId partition, int32_t leader_epoch) const override;
  void active_producers(PartitionId partition, ProducersCallback done) override;
  void delete_records(PartitionId partition, int64_t offset, std::function<void(Result<int64_t>)> done) override;
  void rewrite(RewriteRequest request, StatusCallback done) override;
  void set_retained(PartitionId partition, bool retained) override;
  MetaStore& meta() override { return *this; }
  void set_append_listener(std::function<void(std::span<const PartitionId>)> listener) override;
  void set_log_listener(std::function<void(int64_t)> listener) override;
  void set_replicated_meta_listener(std::function<void()> listener) override;
  StoreStats stats() const override;
  Status close() override;

  // Replication
  int64_t log_begin() const override { return log_->first_position().value; }
  int64_t log_end() const override { return log_->readable_end().value; }
  int64_t durable_end() const override { return log_->synced_end().value; }
  std::vector<EpochStart> epochs() const override;
  Result<LogSlice> read_log(int64_t from, int64_t max_bytes) const override {
    return log_->read_entries({from}, max_bytes);
  }
  void append_replicated(int64_t from, std::span<const std::byte> bytes, StatusCallback done) override;
  void truncate_to(int64_t position, StatusCallback done) override;
  void bootstrap_snapshot(SnapshotCallback done) override;
  void reset_to(BootstrapSnapshot snapshot, StatusCallback done) override;
  void set_role(Role role, int32_t epoch, StatusCallback done) override;
  void set_confirmed(int64_t position) override;
  int64_t confirmed_position() const override { return writer_->confirmed_position(); }

  // MetaStore
  void write(std::vector<Mutation> batch, StatusCallback done) override;
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override;

 private:
  int64_t first_unit_for(const ConsumeQueue& q, const ConsumeQueue::Units& v, int64_t offset) const;

  StoreOptions options_;               // fs and clock_ms set
  std::unique_ptr<DirLock> dir_lock_;  // until close(), else until the files close (declared before them)
  std::unique_ptr<CommitLog> log_;
  std::unique_ptr<IndexFiles> index_;
  std::unique_ptr<MetaJournal> journal_;
  PartitionTable partitions_;
  std::unique_ptr<StoreWriter> writer_;  // last: stops before the objects above go
};

}  // namespace rokka::storage
