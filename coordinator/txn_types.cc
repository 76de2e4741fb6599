#include "coordinator/txn_types.h"

namespace rokka::coordinator {

std::string_view txn_state_name(TxnState state) {
  switch (state) {
    case TxnState::kEmpty: return "Empty";
    case TxnState::kOngoing: return "Ongoing";
    case TxnState::kPrepareCommit: return "PrepareCommit";
    case TxnState::kPrepareAbort: return "PrepareAbort";
    case TxnState::kCompleteCommit: return "CompleteCommit";
    case TxnState::kCompleteAbort: return "CompleteAbort";
    case TxnState::kDead: return "Dead";
    case TxnState::kPrepareEpochFence: return "PrepareEpochFence";
  }
  return "?";
}

std::optional<TxnState> txn_state_from_name(std::string_view name) {
  for (uint8_t i = 0; i <= static_cast<uint8_t>(TxnState::kPrepareEpochFence); ++i) {
    const auto state = static_cast<TxnState>(i);
    if (txn_state_name(state) == name) return state;
  }
  return std::nullopt;
}

std::string_view txn_error_name(TxnError error) {
  switch (error) {
    case TxnError::kNone: return "none";
    case TxnError::kCoordinatorLoadInProgress: return "coordinator_load_in_progress";
    case TxnError::kCoordinatorNotAvailable: return "coordinator_not_available";
    case TxnError::kStorageError: return "storage_error";
    case TxnError::kInvalidRequest: return "invalid_request";
    case TxnError::kInvalidTransactionTimeout: return "invalid_transaction_timeout";
    case TxnError::kConcurrentTransactions: return "concurrent_transactions";
    case TxnError::kProducerFenced: return "producer_fenced";
    case TxnError::kInvalidProducerIdMapping: return "invalid_producer_id_mapping";
    case TxnError::kInvalidTxnState: return "invalid_txn_state";
    case TxnError::kTransactionalIdNotFound: return "transactional_id_not_found";
  }
  return "?";
}

}  // namespace rokka::coordinator
