// TransactionService: the TransactionCoordinator on the GroupService's strand, for the
// broker's handlers. One awaitable call per Kafka API, plus the Produce check.
//
// Contract
//  - Threading: the coordinator, its state and its one system timer live on the strand
//    of the GroupService given (so transactional offsets reach the GroupCoordinator by
//    direct calls). Every operation may be awaited from any executor: it hops onto the
//    strand and resumes the caller ON THE CALLER'S OWN EXECUTOR. Arguments by value.
//  - When operations complete: init_producer_id, add_partitions, add_offsets and
//    txn_offset_commit once their record is durable; end_txn once the transaction is
//    complete (markers and offsets durable, see TransactionCoordinator); errors at once.
//  - Start-up: start() reads the "x/" records on a helper thread, then installs them on
//    the strand; until then the APIs answer kCoordinatorLoadInProgress.
//  - Shutdown: stop() (any thread, returns at once) answers waiting EndTxn requests with
//    kCoordinatorNotAvailable, cancels the timer and refuses later calls. Destroy in the
//    order of GroupService: stop(), drain the io_context, Store::close(), then this
//    service, then the GroupService.
//  - GCC 12 pitfall (see group_service.h): build arguments in named variables, never as
//    braced temporaries inside the co_await expression.
#pragma once

#include <boost/asio.hpp>
#include <functional>
#include <string>
#include <vector>

#include "coordinator/clock.h"
#include "coordinator/group_service.h"
#include "coordinator/strand_host.h"
#include "coordinator/transaction_coordinator.h"
#include "coordinator/txn_types.h"
#include "storage/meta_store.h"

namespace rokka::coordinator {

class TransactionService {
 public:
  // `groups` and `meta` must outlive the service. `clock_ms` defaults to the system clock.
  TransactionService(GroupService& groups, storage::MetaStore& meta, TxnCoordinatorOptions options,
                     TransactionCoordinator::AllocateProducerId allocate,
                     TransactionCoordinator::WriteMarkers write_markers, TransactionCoordinator::Clock clock_ms = {});
  ~TransactionService();
  TransactionService(const TransactionService&) = delete;
  TransactionService& operator=(const TransactionService&) = delete;

  void start();
  void stop();

  asio::awaitable<InitProducerIdResult> init_producer_id(InitProducerIdArgs args);
  asio::awaitable<TxnError> add_partitions(ProducerRef producer, std::vector<TopicPartition> partitions);
  asio::awaitable<TxnError> add_offsets(ProducerRef producer, std::string group_id);
  asio::awaitable<TxnOffsetCommitResult> txn_offset_commit(TxnOffsetCommitArgs args);
  asio::awaitable<TxnError> end_txn(ProducerRef producer, bool commit);
  // DescribeTransactions and ListTransactions: a snapshot taken on the strand.
  asio::awaitable<std::vector<TxnDescription>> describe(std::vector<std::string> transactional_ids);
  asio::awaitable<TxnListResult> list(TxnListFilter filter);

  // Produce of transactional batches: on the strand, TransactionCoordinator::check_produce
  // and then, in the same strand turn, `then(error)` -- where the caller queues its
  // append when the error is kNone, so a later EndTxn's markers land after it. `then`
  // runs on the strand: it must only queue work and hand results over, never block.
  void check_produce(ProducerRef producer, std::vector<TopicPartition> partitions,
                     std::function<void(TxnError)> then);
  // Whether the start-up load is installed (/readyz). On the strand only.
  bool loaded() const { return core_.loaded(); }

 private:
  storage::MetaStore& meta_;
  TransactionCoordinator::Clock clock_;
  TransactionCoordinator core_;
  StrandHost<TransactionCoordinator> host_;  // after core_: destroyed first
};

}  // namespace rokka::coordinator
