// The transaction coordinator's vocabulary: states, errors, one transactional id's
// metadata (what is durable), and the arguments and answers of its operations.
// Plain structs: the broker translates protocol messages to and from these.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "coordinator/committed_offset.h"
#include "coordinator/group_error.h"

namespace rokka::coordinator {

// Kafka's TransactionState. kPrepareEpochFence is never stored: it is the moment an
// ongoing transaction is being fenced (InitProducerId or a timeout) before its abort.
enum class TxnState : uint8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// "Empty", "Ongoing", ...: Kafka's names (DescribeTransactions, logs).
std::string_view txn_state_name(TxnState state);
// The state Kafka names so (ListTransactions' filters); nullopt for an unknown name.
std::optional<TxnState> txn_state_from_name(std::string_view name);

// What the transaction coordinator answers, in its own words; broker/error_mapping.h
// maps each to the Kafka code named beside it.
enum class TxnError : uint8_t {
  kNone = 0,
  kCoordinatorLoadInProgress,  // COORDINATOR_LOAD_IN_PROGRESS (14): state not loaded yet
  kCoordinatorNotAvailable,    // COORDINATOR_NOT_AVAILABLE (15): shutting down
  kStorageError,               // NOT_COORDINATOR (16), as Kafka maps a failed transaction-log append
  kInvalidRequest,             // INVALID_REQUEST (42): empty transactional id
  kInvalidTransactionTimeout,  // INVALID_TRANSACTION_TIMEOUT (50): above transaction.max.timeout.ms
  kConcurrentTransactions,     // CONCURRENT_TRANSACTIONS (51): a transition is in progress; retry
  kProducerFenced,             // PRODUCER_FENCED (90); INVALID_PRODUCER_EPOCH (47) where the API
                               // version predates KIP-588 (and always for TxnOffsetCommit, Produce)
  kInvalidProducerIdMapping,   // INVALID_PRODUCER_ID_MAPPING (49): unknown id, or another producer id
  kInvalidTxnState,            // INVALID_TXN_STATE (48): the request does not fit the state
  kTransactionalIdNotFound,    // TRANSACTIONAL_ID_NOT_FOUND (105): DescribeTransactions of an unknown id
};

std::string_view txn_error_name(TxnError error);

struct TopicPartitionLess {
  bool operator()(const TopicPartition& a, const TopicPartition& b) const {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  }
};
using TopicPartitionSet = std::set<TopicPartition, TopicPartitionLess>;
using StagedOffsets = std::map<TopicPartition, CommittedOffset, TopicPartitionLess>;

// One transactional id, as stored in the MetaStore (coordinator/txn_records.h).
struct TxnMetadata {
  std::string transactional_id;
  int64_t producer_id = -1;
  int64_t last_producer_id = -1;   // before the last producer-id rotation (KIP-360)
  int16_t producer_epoch = -1;
  int16_t last_producer_epoch = -1;  // before the last epoch bump (KIP-360 retries)
  int32_t timeout_ms = 0;
  TxnState state = TxnState::kEmpty;
  TopicPartitionSet partitions;                 // data partitions in the transaction
  std::map<std::string, StagedOffsets> groups;  // groups in it, with the offsets staged for each
  int64_t start_ms = -1;                        // when the transaction began (Ongoing)
  int64_t update_ms = 0;
  bool operator==(const TxnMetadata&) const = default;
};

// ---- operations ----

struct InitProducerIdArgs {
  std::string transactional_id;
  int32_t transaction_timeout_ms = 0;
  // KIP-360 (v3+): the producer's current id and epoch, when it has one.
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};
struct InitProducerIdResult {
  TxnError error = TxnError::kNone;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

struct ProducerRef {  // who a transactional request claims to be
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

struct TxnOffsetCommitArgs {
  ProducerRef producer;
  std::string group_id;
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<std::pair<TopicPartition, CommittedOffset>> offsets;
};
// One error for the whole request (txn_error first, then group_error), or per
// partition (offset metadata too large), in request order.
struct TxnOffsetCommitResult {
  TxnError txn_error = TxnError::kNone;
  GroupError group_error = GroupError::kNone;
  std::vector<GroupError> partitions;
};

// Transaction markers to write: one control batch per partition, for one producer.
struct MarkerRequest {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool commit = false;
  std::vector<TopicPartition> partitions;
};

// DescribeTransactions: one id's metadata, or why there is none.
struct TxnDescription {
  TxnError error = TxnError::kNone;
  TxnMetadata meta;  // transactional_id always set
};

// ListTransactions: nullopt or an empty list matches everything; `longer_than_ms` < 0
// matches every duration, else only transactions that started more than that long ago.
struct TxnListFilter {
  std::optional<std::vector<TxnState>> states;  // an empty vector matches nothing
  std::vector<int64_t> producer_ids;
  int64_t longer_than_ms = -1;
};
struct TxnListResult {
  TxnError error = TxnError::kNone;
  std::vector<TxnMetadata> txns;  // ordered by transactional id
};

using TxnCallback = std::function<void(TxnError)>;

}  // namespace rokka::coordinator
