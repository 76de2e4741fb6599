#include "protocol/messages/produce.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <tuple>

#include "broker/coordinators.h"
#include "broker/net/async.h"
#include "broker/error_mapping.h"
#include "broker/handlers/authorize.h"
#include "broker/handlers/handler_util.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/produce_acks.h"
#include "broker/handlers/routing.h"
#include "broker/link/cluster_link.h"
#include "broker/link/group_member.h"
#include "broker/metrics.h"
#include "broker/net/quota_manager.h"
#include "broker/logging.h"
#include "cluster/replication_server.h"
#include "coordinator/transaction_service.h"
#include "protocol/legacy_records.h"
#include "protocol/record_batch.h"
#include "protocol/record_validator.h"
#include "storage/crc32c.h"
#include "storage/store.h"

namespace rokka::broker {

using protocol::ErrorCode;
using protocol::ProduceRequest;
using protocol::ProduceResponse;

namespace {

// A Produce with a transactional id carries transactional batches of one producer;
// a transactional batch needs a transactional id (else its transaction could never
// be closed). Returns why the batch is refused, or "".
std::string check_transactional(const protocol::RecordBatchView& batch, const std::optional<std::string_view>& txn_id,
                                std::optional<coordinator::ProducerRef>& producer) {
  if (!txn_id) return batch.is_transactional() ? "transactional batch without a transactional id" : "";
  if (!batch.is_transactional()) return "non-transactional batch with a transactional id";
  if (!producer) producer = coordinator::ProducerRef{std::string(*txn_id), batch.producer_id(), batch.producer_epoch()};
  if (batch.producer_id() != producer->producer_id || batch.producer_epoch() != producer->producer_epoch)
    return "batches of different producers";
  return "";
}

using AppendResults = std::vector<storage::Result<storage::AppendInfo>>;

// The transaction coordinator checks the producer's transaction and, in the same strand
// turn, the appends are queued: a later EndTxn's markers land behind them. `done` once
// stored, or at once with no results after setting *refused to the coordinator's error.
// `refused` must stay valid until `done` runs.
void append_transactional(Services& svc, coordinator::ProducerRef producer,
                          std::vector<coordinator::TopicPartition> partitions, std::vector<StoreSlot> slots,
                          std::vector<storage::AppendRequest> appends, coordinator::TxnError* refused,
                          std::function<void(AppendResults)> done) {
  const StoreSet* stores = &svc.stores;
  std::shared_ptr<CoordinatorPair> coord = svc.coordinators.current();
  coordinator::TransactionService& txns = coord->txns();
  txns.check_produce(std::move(producer), std::move(partitions),
                          [coord = std::move(coord), stores, slots = std::move(slots), appends = std::move(appends),
                           refused, done](coordinator::TxnError e) mutable {
                            *refused = e;
                            if (e != coordinator::TxnError::kNone) return done({});
                            stores->append(slots, std::move(appends), std::move(done));
                          });
}

// Decompressed legacy messages one Produce partition may expand to.
constexpr size_t kMaxUpconvertedBytes = 64u << 20;

// The batch to store for one partition's records: checked as they are (v3+), or
// converted from the pre-0.11 message format into a v2 batch kept in `converted`
// (v0-v2; Kafka 3.x up-converts the same way, its log holding only v2 batches).
protocol::BatchCheck batch_to_store(const protocol::Records& records, int16_t v,
                                    std::deque<std::vector<std::byte>>& converted, protocol::RecordBatchView* out) {
  const protocol::Bytes bytes = records.data.value_or(protocol::Bytes{});
  if (v >= 3) return protocol::check_produce_records(bytes, v, out);
  auto& batch = converted.emplace_back();
  const auto check = protocol::upconvert_message_set(bytes, kMaxUpconvertedBytes, batch);
  if (check != protocol::BatchCheck::kOk) return check;
  protocol::RecordBatchView view;
  if (protocol::RecordBatchView::parse(batch, &view) != protocol::BatchCheck::kOk) {
    return protocol::BatchCheck::kLengthBeyondData;  // cannot happen: we built it
  }
  storage::seal_batch_crc(batch);
  *out = view;
  return check;
}

// Why Kafka's log validator refuses a batch: its error, message and (key and
// timestamp rules) the refused records.
struct Refusal {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
  std::vector<ProduceResponse::BatchIndexAndErrorMessage> record_errors;
  bool refused() const { return code != ErrorCode::kNone; }
};

// Kafka checks a batch's CRC before its validator looks at the header rules or the
// records: a batch damaged on the way is CORRUPT_MESSAGE (clients retry it), whatever
// else then looks wrong. The store checks the CRC of every batch it is given; here
// it is computed only for a batch about to be refused, or about to be changed.
Refusal refuse(const protocol::RecordBatchView& batch, ErrorCode code, std::string message) {
  if (!storage::batch_crc_ok(batch.bytes())) return {ErrorCode::kCorruptMessage, "batch CRC mismatch", {}};
  return {code, std::move(message), {}};
}

// Kafka's log validator on one produced batch, before it is stored: the header rules,
// then every record, walked once (protocol/record_validator.h) under the topic's key
// rule (compacted) and timestamp bounds (CreateTime). A CreateTime batch whose
// MaxTimestamp is not its records' largest timestamp gets that value written in place
// (in bytes this handler owns: the request frame, or an up-converted batch) and a new
// CRC, once the client's CRC is verified, as Kafka does; the store stamps LogAppendTime.
Refusal validate_batch(const protocol::RecordBatchView& batch, const TopicSettings& settings, int64_t now_ms) {
  if (const auto rule = batch.check_produced(); rule != protocol::BatchCheck::kOk)
    return refuse(batch, protocol::kafka_error(rule), protocol::batch_check_name(rule));
  thread_local protocol::RecordValidator validator;  // one per network thread: its buffers are reused
  protocol::RecordPolicy policy;
  policy.keys_required = settings.compact;
  policy.check_timestamps = settings.timestamp_type == storage::TimestampType::kCreateTime;
  policy.now_ms = now_ms;
  policy.timestamp_before_max_ms = settings.timestamp_before_max_ms;
  policy.timestamp_after_max_ms = settings.timestamp_after_max_ms;
  const protocol::RecordCheck check = validator.validate(batch, policy);
  if (check == protocol::RecordCheck::kRecordErrors) {
    const auto errors = validator.record_errors();
    Refusal r = refuse(batch, protocol::kafka_error(check, errors),
                       std::to_string(errors.size()) + " of " + std::to_string(batch.records_count()) +
                           " records refused, the first: " + protocol::describe(errors.front(), policy));
    if (r.code == ErrorCode::kCorruptMessage) return r;
    for (const protocol::RecordError& e : errors) r.record_errors.push_back({e.index, protocol::describe(e, policy)});
    return r;
  }
  if (check != protocol::RecordCheck::kOk)
    return refuse(batch, protocol::kafka_error(check, {}), validator.describe(check, batch.compression()));
  if (policy.check_timestamps && validator.max_timestamp() != batch.max_timestamp()) {
    if (!storage::batch_crc_ok(batch.bytes())) return {ErrorCode::kCorruptMessage, "batch CRC mismatch", {}};
    const protocol::Bytes bytes = batch.bytes();
    const std::span<std::byte> owned(const_cast<std::byte*>(bytes.data()), bytes.size());
    protocol::set_max_timestamp(owned, validator.max_timestamp());
    storage::seal_batch_crc(owned);
  }
  return {};
}

// Kafka's broker gathers a request's partitions into maps keyed by topic-partition
// (KafkaApis.handleProduceRequest), so a partition named twice is appended once, with the
// batch of its last mention, and answered once; the response holds one entry per topic
// name. `skip` marks the earlier mentions (in request order, flattened over the topics),
// `topic_entry` maps each request topic to its response entry, `entry_partitions` counts
// what each entry will hold.
struct AnswerPlan {
  std::vector<char> skip;
  std::vector<size_t> topic_entry;
  std::vector<std::string_view> entry_names;
  std::vector<size_t> entry_partitions;
};

AnswerPlan plan_answers(const ProduceRequest& req) {
  AnswerPlan plan;
  struct Mention {
    std::string_view topic;
    int32_t partition;
    size_t at;  // flattened position
  };
  // Each request topic's first mention of its name, by sorting (a request to many partitions
  // names many topics: no map node per topic).
  const size_t topics = req.topic_data.size();
  std::vector<size_t> by_name(topics), first_of(topics);
  for (size_t ti = 0; ti < topics; ++ti) by_name[ti] = ti;
  std::sort(by_name.begin(), by_name.end(), [&](size_t a, size_t b) {
    return std::tie(req.topic_data[a].name, a) < std::tie(req.topic_data[b].name, b);
  });
  for (size_t i = 0; i < topics; ++i) {
    const bool same = i > 0 && req.topic_data[by_name[i]].name == req.topic_data[by_name[i - 1]].name;
    first_of[by_name[i]] = same ? first_of[by_name[i - 1]] : by_name[i];
  }
  std::vector<Mention> mentions;
  plan.topic_entry.resize(topics);
  for (size_t ti = 0; ti < topics; ++ti) {
    const auto& t = req.topic_data[ti];
    if (first_of[ti] == ti) {
      plan.topic_entry[ti] = plan.entry_names.size();
      plan.entry_names.push_back(t.name);
      plan.entry_partitions.push_back(0);
    } else {
      plan.topic_entry[ti] = plan.topic_entry[first_of[ti]];
    }
    for (const auto& p : t.partition_data) mentions.push_back({t.name, p.index, mentions.size()});
  }
  plan.skip.assign(mentions.size(), 0);
  std::sort(mentions.begin(), mentions.end(), [](const Mention& a, const Mention& b) {
    return std::tie(a.topic, a.partition, a.at) < std::tie(b.topic, b.partition, b.at);
  });
  for (size_t i = 0; i + 1 < mentions.size(); ++i) {
    if (mentions[i].topic == mentions[i + 1].topic && mentions[i].partition == mentions[i + 1].partition)
      plan.skip[mentions[i].at] = 1;  // a later mention of the same partition wins
  }
  size_t at = 0;
  for (size_t ti = 0; ti < req.topic_data.size(); ++ti) {
    for (size_t pi = 0; pi < req.topic_data[ti].partition_data.size(); ++pi, ++at) {
      if (!plan.skip[at]) ++plan.entry_partitions[plan.topic_entry[ti]];
    }
  }
  return plan;
}

// The in-sync set's size of the replication group whose store is at `slot`, as the cluster
// view has the group's state (0 without one).
size_t group_in_sync(const Services& svc, StoreSlot slot) {
  if (svc.cluster == nullptr || slot >= svc.stores.size()) return 0;
  const auto snap = svc.cluster->view();
  const cluster::GroupInfo* group = snap ? snap->group(svc.stores.entries()[slot].name) : nullptr;
  return group != nullptr && group->state ? group->state->sss.size() : 0;
}

// This broker's lead of the replication groups a request writes to, looked up once per store
// other than the root: whether it is a replication group's store (else, as a store of the tests'
// or before cluster mode, it is written as the root store is), the server while this broker
// leads the group (acks=all waits on its ConfirmWaiters; nullptr: it does not lead it) and the
// group's in-sync set size before the append.
class GroupLeads {
 public:
  struct Lead {
    StoreSlot slot = kRootSlot;
    bool replicated = false;
    std::shared_ptr<cluster::ReplicationServer> server;
    size_t in_sync = 0;
  };
  const Lead& of(const Services& svc, StoreSlot slot) {
    for (const Lead& l : leads_) {
      if (l.slot == slot) return l;
    }
    Lead& l = leads_.emplace_back();
    l.slot = slot;
    GroupMember* member = svc.cluster != nullptr ? svc.cluster->member_of(slot) : nullptr;
    if (member == nullptr) return l;
    l.replicated = true;
    l.server = member->server();
    l.in_sync = group_in_sync(svc, slot);
    return l;
  }
  const std::vector<Lead>& all() const { return leads_; }
  bool any_replicated() const {
    return std::any_of(leads_.begin(), leads_.end(), [](const Lead& l) { return l.replicated; });
  }

 private:
  std::vector<Lead> leads_;  // a request writes to few group stores (one per group)
};

}  // namespace

// GCC 12 reports asio's coroutine frame allocation of this handler as mismatched
// new/delete once the transactional branch is inlined (a false positive: asio pairs its
// own operator new/delete; see tests/coordinator/group_service_test.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
// Validates every partition's batch, queues the valid ones as ONE append per store,
// lets the connection start its next request (appends from later requests queue
// behind ours, so order per connection holds), then answers once the store has
// them (durable per store.flush.mode). One bad partition never fails the others.
boost::asio::awaitable<HandlerResult> handle_produce(RequestContext& ctx, ProduceRequest& req) {
  Services& svc = *ctx.services;
  const int16_t v = ctx.version();

  ProduceResponse resp;
  std::vector<storage::AppendRequest> appends;
  std::vector<StoreSlot> append_slots;  // each append's store
  std::vector<ProduceResponse::PartitionProduceResponse*> append_outs;
  struct Counted {
    size_t entry = 0;  // the topic's response entry
    int64_t bytes = 0, records = 0;
  };
  std::vector<Counted> counted;  // per append, for the metrics
  std::deque<std::vector<std::byte>> converted;  // v0-v2 batches, alive until appended
  bool any_error = false;
  const bool bad_acks = req.acks != 0 && req.acks != 1 && req.acks != -1;
  const bool transactional = req.transactional_id.has_value();
  const bool txn_id_denied =
      transactional && !authorized(ctx, AclOperation::kWrite, ResourceType::kTransactionalId, *req.transactional_id);
  std::optional<coordinator::ProducerRef> txn_producer;  // from the first batch
  std::vector<coordinator::TopicPartition> txn_partitions;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();

  LeaderHints leader_hints(ctx);
  GroupLeads group_leads;  // partitions of replication groups' stores (issue 24)
  const AnswerPlan plan = plan_answers(req);
  resp.responses.resize(plan.entry_names.size());
  for (size_t e = 0; e < plan.entry_names.size(); ++e) {
    resp.responses[e].name = std::string(plan.entry_names[e]);
    resp.responses[e].partition_responses.reserve(plan.entry_partitions[e]);  // no reallocation: append_outs
  }
  // One registry lookup and one authorization per topic, however often the request names it
  // (a request to many partitions names many topics: the lookups are a cost that grows with them).
  std::vector<TopicPtr> entry_topics(plan.entry_names.size());
  std::vector<char> entry_denied(plan.entry_names.size());
  for (size_t e = 0; e < plan.entry_names.size(); ++e) {
    entry_topics[e] = svc.topics.find(plan.entry_names[e]);
    entry_denied[e] = !authorized(ctx, AclOperation::kWrite, ResourceType::kTopic, plan.entry_names[e]);
  }
  size_t mention = 0;
  for (size_t ti = 0; ti < req.topic_data.size(); ++ti) {
    const auto& t = req.topic_data[ti];
    const size_t entry = plan.topic_entry[ti];
    auto& out_topic = resp.responses[entry];
    const TopicPtr& topic = entry_topics[entry];
    const bool topic_denied = entry_denied[entry] != 0;
    for (const auto& p : t.partition_data) {
      if (plan.skip[mention++]) continue;
      auto& out = out_topic.partition_responses.emplace_back();
      out.index = p.index;
      out.base_offset = -1;
      auto fail = [&](ErrorCode e, std::string message) {
        out.error_code = e;
        if (v >= 8) out.error_message = std::move(message);
        any_error = true;
      };
      if (bad_acks) {
        fail(ErrorCode::kInvalidRequiredAcks, "acks must be -1, 0 or 1");
        continue;
      }
      if (txn_id_denied) {
        fail(ErrorCode::kTransactionalIdAuthorizationFailed, "not authorized to write as this transactional id");
        continue;
      }
      if (topic_denied) {
        fail(ErrorCode::kTopicAuthorizationFailed, "not authorized to write to the topic");
        continue;
      }
      PartitionRef ref = resolve_led_partition(svc, true, topic, p.index);
      if (ref.error == ErrorCode::kNotLeaderOrFollower) {
        if (v >= 10) out.current_leader = leader_hints.hint(*topic, p.index);
        fail(ref.error, "this broker does not lead the partition");
        continue;
      }
      if (ref.error != ErrorCode::kNone) {
        fail(ref.error, "unknown topic or partition");
        continue;
      }
      if (const GroupLeads::Lead* lead = ref.slot != kRootSlot ? &group_leads.of(svc, ref.slot) : nullptr;
          lead != nullptr && lead->replicated) {  // a replicated topic: its group's leader takes the write
        if (!lead->server) {
          if (v >= 10) out.current_leader = leader_hints.hint(*topic, p.index);
          fail(ErrorCode::kNotLeaderOrFollower, "this broker does not lead the partition's replication group");
          continue;
        }
        const int32_t min_insync = topic->settings.min_insync_replicas;
        if (const ErrorCode e = check_in_sync_before_append(req.acks, lead->in_sync, min_insync); e != ErrorCode::kNone) {
          fail(e, "the in-sync set has " + std::to_string(lead->in_sync) + " replicas, min.insync.replicas is " +
                      std::to_string(min_insync));
          continue;
        }
      }
      protocol::RecordBatchView batch;
      const auto check = batch_to_store(p.records, v, converted, &batch);
      if (check != protocol::BatchCheck::kOk) {
        fail(protocol::kafka_error(check), protocol::batch_check_name(check));
        continue;
      }
      if (batch.size() > static_cast<size_t>(topic->settings.max_message_bytes)) {
        fail(ErrorCode::kMessageTooLarge, "record batch of " + std::to_string(batch.size()) +
                                              " bytes exceeds max.message.bytes=" +
                                              std::to_string(topic->settings.max_message_bytes));
        continue;
      }
      if (Refusal r = validate_batch(batch, topic->settings, now_ms); r.refused()) {
        if (v >= 8) out.record_errors = std::move(r.record_errors);
        fail(r.code, std::move(r.message));
        continue;
      }
      if (auto bad = check_transactional(batch, req.transactional_id, txn_producer); !bad.empty()) {
        fail(ErrorCode::kInvalidRecord, std::move(bad));
        continue;
      }
      // The batch lives in the request frame (or `converted`) this handler owns: stamp
      // our leader epoch in place (outside the CRC, as Kafka does). The CRC itself is
      // checked by Store::append on this thread.
      const protocol::Bytes bytes = batch.bytes();
      protocol::set_partition_leader_epoch({const_cast<std::byte*>(bytes.data()), bytes.size()}, kLeaderEpoch);
      appends.push_back({ref.pid, bytes, topic->settings.timestamp_type});
      append_slots.push_back(ref.slot);
      append_outs.push_back(&out);
      counted.push_back({entry, static_cast<int64_t>(bytes.size()), batch.records_count()});
      if (transactional) txn_partitions.push_back({std::string(t.name), p.index});
    }
  }

  using Results = std::vector<storage::Result<storage::AppendInfo>>;
  Results results;
  // acks=all on a group store waits for the group's confirmed position after the append.
  std::vector<StoreSlot> confirm_slots;
  if (req.acks == -1 && group_leads.any_replicated()) confirm_slots = append_slots;
  const auto append_start = std::chrono::steady_clock::now();
  // The coordinator checks that the transaction is open and queues these appends ahead of
  // its markers. In cluster mode, a transaction coordinated by another broker is not checked
  // (as in Kafka before KIP-890): its client finishes producing before EndTxn, and the
  // markers come back to this broker as WriteTxnMarkers.
  if (!appends.empty() && transactional && coordinates(svc, txn_producer->transactional_id)) {
    coordinator::TxnError refused = coordinator::TxnError::kNone;
    results = co_await await_callback<Results>([&](std::function<void(Results)> done) {
      append_transactional(svc, *txn_producer, std::move(txn_partitions), std::move(append_slots),
                           std::move(appends), &refused, std::move(done));
    });
    if (refused != coordinator::TxnError::kNone) {
      for (auto* out : append_outs) {
        out->error_code = to_kafka(refused, /*fenced_supported=*/false);
        if (v >= 8) out->error_message = std::string(coordinator::txn_error_name(refused));
      }
      any_error = true;
      append_outs.clear();
    }
  } else if (!appends.empty()) {
    results = co_await await_callback<Results>([&](std::function<void(Results)> done) {
      svc.stores.append(append_slots, std::move(appends), std::move(done));
      ctx.dispatched();  // queued: later requests on this connection append after ours
    });
  }
  ctx.dispatched();
  const auto append_took = std::chrono::steady_clock::now() - append_start;
  std::vector<Metrics::ProducedTopic> produced;  // the stored batches, summed per topic
  std::vector<size_t> produced_at(plan.entry_names.size(), SIZE_MAX);
  for (size_t i = 0; i < results.size(); ++i) {
    auto& out = *append_outs[i];
    if (results[i].ok()) {
      size_t& at = produced_at[counted[i].entry];
      if (at == SIZE_MAX) {
        at = produced.size();
        produced.push_back({plan.entry_names[counted[i].entry]});
      }
      produced[at].bytes += counted[i].bytes;
      produced[at].records += counted[i].records;
      out.base_offset = results[i]->base_offset;
      out.log_append_time_ms = results[i]->log_append_time;
      out.log_start_offset = results[i]->log_start_offset;
    } else {
      const auto& st = results[i].status();
      out.error_code = to_kafka(st);
      if (v >= 8) out.error_message = st.message();
      any_error = true;
      if (st.code() == storage::StatusCode::kIoError || st.code() == storage::StatusCode::kReadOnly)
        broker_log().error("append failed: error={}", st.to_string());
    }
  }
  if (svc.metrics && !produced.empty()) svc.metrics->produced(produced, append_took);

  // acks=all on a group store: answered once C covers the append (never before), by the
  // Produce's timeout_ms, with Kafka's errors (produce_acks.h). Each group's appends wait for
  // the end of the last of them; the waits run one after another under one deadline.
  const auto confirm_start = std::chrono::steady_clock::now();
  if (!confirm_slots.empty()) {
    const auto deadline = confirm_start + std::chrono::milliseconds(std::max<int32_t>(req.timeout_ms, 0));
    for (const GroupLeads::Lead& lead : group_leads.all()) {
      int64_t end = -1;
      for (size_t i = 0; i < results.size(); ++i) {
        if (confirm_slots[i] == lead.slot && results[i].ok()) end = std::max(end, results[i]->log_end);
      }
      if (!lead.replicated || !lead.server || end < 0) continue;  // not a group's, or nothing appended there
      const cluster::ConfirmOutcome outcome = co_await lead.server->waiters().wait(end, deadline);
      // The in-sync set C covered the append with (Kafka's ISR when the high watermark reached
      // it): a shrink below min.insync.replicas that let C move answers 20 at once.
      const size_t in_sync = outcome.in_sync;
      for (size_t i = 0; i < results.size(); ++i) {
        if (confirm_slots[i] != lead.slot || !results[i].ok()) continue;
        const int32_t min_insync = entry_topics[counted[i].entry]->settings.min_insync_replicas;
        const ErrorCode e = acks_all_answer(outcome.kind, in_sync, min_insync);
        if (e == ErrorCode::kNone) continue;
        auto& out = *append_outs[i];
        out.error_code = e;
        out.base_offset = -1;
        out.log_append_time_ms = -1;
        if (v >= 8) {
          out.error_message = outcome.ok() ? "confirmed by " + std::to_string(in_sync) +
                                                 " in-sync replicas, min.insync.replicas is " +
                                                 std::to_string(min_insync)
                                           : std::string(cluster::confirm_outcome_name(outcome.kind)) + ": " +
                                                 outcome.reason;
        }
        any_error = true;
      }
    }
  }
  const auto confirm_took = std::chrono::steady_clock::now() - confirm_start;

  // producer_byte_rate counts the whole request, as Kafka's does; the records are kept
  // either way, and the client is throttled after.
  const int32_t throttle = svc.quotas.record_produce(quota_user(ctx.principal), ctx.header.client_id.value_or(""),
                                                    static_cast<int64_t>(ctx.frame.size()));
  if (throttle > 0 && svc.metrics) svc.metrics->throttled(QuotaManager::Kind::kProduce, throttle);

  if (req.acks == 0) {
    // No response is sent for acks=0; Kafka closes the connection on an error so
    // the producer notices, and so do we.
    if (any_error) co_return storage::Status::invalid_argument("acks=0 produce failed");
    Response none;
    none.send = false;
    none.throttle_ms = throttle;  // muted all the same
    co_return none;
  }
  resp.throttle_time_ms = throttle;
  if (v >= 10) resp.node_endpoints = leader_hints.endpoints();
  Response out = make_response(resp, v);
  out.throttle_ms = throttle;
  out.waited = append_took + confirm_took;
  co_return out;
}

#pragma GCC diagnostic pop

}  // namespace rokka::broker
