#include "broker/records/confirmed_meta.h"

#include "cluster/replication_server.h"

namespace rokka::broker {

ConfirmedMeta::ConfirmedMeta(storage::MetaStore& inner, std::function<int64_t()> log_end, WaitersFn waiters,
                             std::chrono::milliseconds timeout)
    : inner_(inner), log_end_(std::move(log_end)), waiters_(std::move(waiters)), timeout_(timeout) {}

std::shared_ptr<cluster::ConfirmWaiters> ConfirmedMeta::waiters_of(std::shared_ptr<cluster::ReplicationServer> server) {
  if (!server) return nullptr;
  cluster::ConfirmWaiters* waiters = &server->waiters();
  return {std::move(server), waiters};
}

void ConfirmedMeta::write(std::vector<Mutation> batch, storage::StatusCallback done) {
  inner_.write(std::move(batch), [this, done = std::move(done)](storage::Status s) mutable {
    if (!s.ok()) return done(std::move(s));
    // Read after the write answered: the end of its entry, or later (a wait a little longer
    // than needed, never shorter).
    const int64_t end = log_end_();
    const std::shared_ptr<cluster::ConfirmWaiters> waiters = waiters_();
    if (!waiters)
      return done(storage::Status(storage::StatusCode::kNotLeader,
                                  "meta write not confirmed: this broker does not lead the group"));
    waiters->add(end, cluster::ConfirmWaiters::Clock::now() + timeout_,
                 [done = std::move(done)](cluster::ConfirmOutcome o) {
                   if (o.ok()) return done(storage::Status());
                   done(storage::Status(storage::StatusCode::kNotLeader,
                                        std::string("meta write not confirmed: ") +
                                            cluster::confirm_outcome_name(o.kind) + ": " + o.reason));
                 });
  });
}

}  // namespace rokka::broker
