// A replication group's decisions, as pure functions of what the cluster view shows (no I/O):
// who leads first (bootstrap), who leads after a failure (elect), the SSS changes of the leader
// (shrink, expand), and the guarded etcd txns that write them. docs/cluster.md ("Replication
// groups in etcd") states the rules; the controller and the group leader of the broker
// (issue 24, plan stages S5b and S8) call them and send the txns.
//
// Epochs. Every new leader (or going offline) takes a new group epoch, above the cluster-wide
// counter (<root>/epoch), the group's current epoch and every epoch a live member published;
// the txn writes the counter with it, comparing the counter's mod_revision, so two elections
// can never hand out the same epoch and epochs only grow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/etcd_types.h"
#include "cluster/keys.h"
#include "cluster/records.h"

namespace rokka::cluster {

struct ClusterSnapshot;

// A registered (live) broker as the decisions see it.
struct LiveMember {
  int64_t broker_epoch = 0;       // its registration's create_revision
  std::optional<GroupHint> hint;  // what it published for this group when it registered
};
using LiveMembers = std::map<int32_t, LiveMember>;  // by broker id

// The registered brokers of `snap`, with their hints for `group`.
LiveMembers live_members(const ClusterSnapshot& snap, std::string_view group);

// True if the state names a leader that is registered with the broker epoch it was named with.
// A leader that restarted (a new registration) is not alive for this: it never resumes an epoch.
bool leader_alive(const GroupState& state, const LiveMembers& live);

// The epoch of the next leader: one above `counter`, `current` and every live member's
// published last epoch. kOutOfRange when that would pass INT32_MAX.
Result<int32_t> next_epoch(std::optional<int32_t> counter, int32_t current, const LiveMembers& live);

// The first state of a group that has none. The leader is the live member whose published
// hint is the most advanced (last epoch, then log end), ties broken by spec order; a member
// that published no hint for the group has not opened its group store and is not a candidate.
// SSS = {leader}: the others join when they have caught up (expand). kNotFound: no candidate.
Result<GroupState> bootstrap(const GroupSpec& spec, const LiveMembers& live, std::optional<int32_t> counter);

// The next state of a group whose leader may have failed, or nullopt when nothing changes (its
// leader is alive, or the group is offline and still nobody can lead it).
//  - Clean (Kafka's rule): the first live SSS member in spec order, the failed leader's new
//    incarnation last (only when no other SSS member is live). SSS = the live members of the
//    old SSS, without the failed leader unless it is the one elected. Every SSS member holds
//    every acknowledged write, so any of them may lead without loss.
//  - No live SSS member: with `unclean_allowed`, the live member with the most advanced hint
//    (as bootstrap), SSS = {it} (acknowledged writes may be lost). Otherwise the group goes
//    offline: leader kNoLeader, the SSS kept, so that the first of its members to come back
//    leads.
// A changed leader (offline included) takes next_epoch(); a changed SSS bumps sss_version.
Result<std::optional<GroupState>> elect(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                        bool unclean_allowed, std::optional<int32_t> counter);

// An election an operator asks for (Kafka's ElectLeaders, on a group's partitions: moving the
// group's leader moves every partition of the group).
struct AskedElection {
  enum class Kind {
    kElect,         // write `next`
    kNotNeeded,     // the leader asked for already leads (Kafka's ELECTION_NOT_NEEDED)
    kNotAvailable,  // nobody the election type allows can lead (PREFERRED_LEADER_NOT_AVAILABLE,
                    // ELIGIBLE_LEADERS_NOT_AVAILABLE)
  };
  Kind kind = Kind::kNotNeeded;
  GroupState next;  // kElect
  std::string why;  // kNotNeeded, kNotAvailable: for the response's message
};

// PREFERRED: the spec's first member leads, if it is in the SSS and registered. With the
// current leader alive, the new state has the same SSS, the preferred member as leader and a new
// epoch (every SSS member holds every acknowledged write, so nothing acknowledged is lost). With
// the leader failed it is elect()'s clean answer when that answer is the preferred member (so a
// restarted leader's new incarnation is not preferred over a live SSS member, as in elect()).
Result<AskedElection> preferred_election(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                         std::optional<int32_t> counter);
// UNCLEAN: kNotNeeded while the leader lives; else elect()'s answer with `unclean_allowed` when it
// names a leader (a live SSS member, or, with unclean_allowed and none alive, the live member with
// the most advanced hint); else kNotAvailable.
Result<AskedElection> unclean_election(const GroupSpec& spec, const GroupState& state, const LiveMembers& live,
                                       bool unclean_allowed, std::optional<int32_t> counter);

// The leader's SSS changes: `member` leaves (it fell behind) or joins (it caught up). Same
// leader and epoch, sss_version + 1. kInvalidArgument: no leader, the leader itself leaving,
// a member not in the SSS leaving, one already in it joining, or the SSS full.
Result<GroupState> shrink(const GroupState& state, int32_t member);
Result<GroupState> expand(const GroupState& state, int32_t member);

// The mod_revisions a decision was made on (0 = the key was absent).
struct SeenRevisions {
  int64_t state = 0;    // <root>/groups/<g>/state
  int64_t counter = 0;  // <root>/epoch
};

// The controller's write of a new state (bootstrap or election): applies only while
// `controller_epoch` is the controller's (controller_guard), the state and the counter are
// as seen; it puts the state and the counter = next.epoch. A txn that does not succeed
// changed nothing: re-read and decide again.
Txn election_txn(const Keys& keys, int64_t controller_epoch, std::string_view group, const GroupState& next,
                 SeenRevisions seen);

// The group leader's write of an SSS change: applies only while next.leader's registration is
// the one of next.leader_broker_epoch (its lease lives) and the state is as seen (so its epoch
// is still the leader's). A txn that does not succeed means the state moved: re-read; a newer
// epoch means this leader was replaced. kInvalidArgument: `next` names no leader with a broker
// epoch (without one the guard would hold exactly when the leader is not registered).
Result<Txn> sss_change_txn(const Keys& keys, std::string_view group, const GroupState& next, int64_t seen_state);

// Writes the spec if the group has none (bootstrap from configuration); else reads it back, so
// the caller sees etcd's value when it differs (etcd wins).
Txn create_spec_txn(const Keys& keys, std::string_view group, const GroupSpec& spec);

}  // namespace rokka::cluster
