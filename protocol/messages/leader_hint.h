// The current-leader hint (KIP-951) that Produce v10+ and Fetch v12+ responses carry for a
// partition answered NOT_LEADER_OR_FOLLOWER (Fetch also FENCED_LEADER_EPOCH): the leader as
// this broker knows it, and how to reach it, so the client goes there without a Metadata
// round trip. Both are tagged fields, written only when they differ from their defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rokka::protocol {

struct LeaderIdAndEpoch {
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;

  bool is_default() const { return leader_id == -1 && leader_epoch == -1; }

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.leader_id);
    s.i32(m.leader_epoch);
    s.tags();
  }
};

struct NodeEndpoint {
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;

  template <class M, class S>
  static void fields(M& m, S& s) {
    s.i32(m.node_id);
    s.str(m.host);
    s.i32(m.port);
    s.nstr(m.rack);
    s.tags();
  }
};

}  // namespace rokka::protocol
