#include "broker/coordinators.h"

#include <boost/asio/post.hpp>

#include "broker/link/group_member.h"
#include "broker/logging.h"

namespace rokka::broker {
namespace {

// How long a coordinator's write waits for the group's C before it fails (the client retries
// at the coordinator it looks up again): Kafka's offsets.commit.timeout.ms default.
constexpr std::chrono::milliseconds kConfirmTimeout{5000};

// The MetaStore a pair's services write to: each write counted in flight until answered.
class CountedMeta final : public storage::MetaStore {
 public:
  CountedMeta(storage::MetaStore& inner, std::shared_ptr<InFlight> in) : inner_(inner), in_(std::move(in)) {}
  void write(std::vector<Mutation> batch, storage::StatusCallback done) override {
    inner_.write(std::move(batch), tracked(in_, std::move(done)));
  }
  std::vector<std::pair<std::string, std::string>> scan(std::string_view prefix) const override {
    return inner_.scan(prefix);
  }

 private:
  storage::MetaStore& inner_;
  std::shared_ptr<InFlight> in_;
};

// A pair is destroyed on its strand, behind whatever its services queued there; once the
// strands run no more, at once.
struct PairDeleter {
  std::shared_ptr<std::atomic<bool>> strands_stopped;
  void operator()(CoordinatorPair* p) const {
    if (strands_stopped->load()) {
      delete p;
      return;
    }
    boost::asio::post(p->groups().strand(), [p] { delete p; });
  }
};

}  // namespace

void InFlight::enter() {
  std::lock_guard lock(mu_);
  ++count_;
}

void InFlight::leave() {
  std::shared_ptr<CoordinatorPair> released;
  {
    std::lock_guard lock(mu_);
    if (--count_ == 0 && retired_) released = std::move(hold_);
  }
  // `released` may be the last reference: the pair's deleter runs here, outside the lock.
}

void InFlight::retire(std::shared_ptr<CoordinatorPair> pair) {
  std::lock_guard lock(mu_);
  retired_ = true;
  if (count_ > 0) hold_ = std::move(pair);
}

Coordinators::Coordinators(Build build, storage::MetaStore& root_meta, bool on_groups)
    : build_(std::move(build)), on_groups_(on_groups) {
  auto pair = std::make_unique<CoordinatorPair>();
  pair->serving_ = !on_groups;
  current_.store(make_pair(std::move(pair), root_meta));
  if (on_groups) {  // the stand-in: never started, stopped
    current()->txns().stop();
    current()->groups().stop();
  }
}

Coordinators::~Coordinators() {
  strands_stopped();
  current_.store(nullptr);
}

std::shared_ptr<CoordinatorPair> Coordinators::make_pair(std::unique_ptr<CoordinatorPair> pair,
                                                         storage::MetaStore& meta) {
  pair->counted_ = std::make_unique<CountedMeta>(meta, pair->in_flight_);
  Built built = build_(*pair->counted_, pair->in_flight_);
  pair->groups_ = std::move(built.groups);
  pair->txns_ = std::move(built.txns);
  return std::shared_ptr<CoordinatorPair>(pair.release(), PairDeleter{strands_stopped_});
}

void Coordinators::start() {
  if (on_groups_) return;
  const auto pair = current();
  pair->groups().start();  // loads offsets and groups; group APIs answer LOAD_IN_PROGRESS meanwhile
  pair->txns().start();    // loads transactions; resumes those caught between Prepare and Complete
}

void Coordinators::install(std::shared_ptr<CoordinatorPair> next) {
  std::shared_ptr<CoordinatorPair> old = current_.exchange(std::move(next), std::memory_order_acq_rel);
  if (!old->serving()) return;  // the stand-in stays stopped; it goes with its last holder
  old->txns().stop();    // waiting EndTxn requests get COORDINATOR_NOT_AVAILABLE
  old->groups().stop();  // parked joins and syncs get COORDINATOR_NOT_AVAILABLE
  broker_log().info("coordinators of replication group {} epoch {} stopped", old->group(), old->epoch());
  const std::shared_ptr<InFlight> in = old->in_flight_;
  in->retire(std::move(old));
}

void Coordinators::on_role(GroupMember& member) {
  if (!on_groups_) return;
  std::lock_guard lock(mu_);
  if (stopped_) return;
  const auto cur = current();
  const int32_t epoch = member.leading_epoch();
  std::shared_ptr<cluster::ReplicationServer> server = member.server();
  if (member.role() == GroupRole::kLeader && epoch >= 0 && server) {
    if (cur->serving() && cur->group() == member.group() && cur->epoch() == epoch) return;
    auto pair = std::make_unique<CoordinatorPair>();
    pair->group_ = member.group();
    pair->epoch_ = epoch;
    storage::Store& store = member.store();
    // Confirmed on this lead's server only: a later lead has a pair of its own.
    pair->confirmed_ = std::make_unique<ConfirmedMeta>(
        store.meta(), [&store] { return store.log_end(); },
        [weak = member.weak_from_this(), server] {
          const auto m = weak.lock();
          return m && m->server() == server ? ConfirmedMeta::waiters_of(server) : nullptr;
        },
        kConfirmTimeout);
    ConfirmedMeta& confirmed = *pair->confirmed_;
    std::shared_ptr<CoordinatorPair> next = make_pair(std::move(pair), confirmed);
    next->groups().start();  // loads what replication brought; LOAD_IN_PROGRESS meanwhile
    next->txns().start();    // finishes the transactions caught between Prepare and Complete
    broker_log().info("coordinators of replication group {} epoch {} loading", member.group(), epoch);
    install(std::move(next));
    return;
  }
  if (cur->serving() && cur->group() == member.group()) {
    auto stand_in = std::make_unique<CoordinatorPair>();
    stand_in->serving_ = false;
    std::shared_ptr<CoordinatorPair> next = make_pair(std::move(stand_in), member.store().meta());
    next->txns().stop();
    next->groups().stop();
    install(std::move(next));
  }
}

void Coordinators::stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  const auto cur = current();
  cur->txns().stop();    // waiting EndTxn requests get COORDINATOR_NOT_AVAILABLE
  cur->groups().stop();  // parked joins and syncs get COORDINATOR_NOT_AVAILABLE
}

}  // namespace rokka::broker
