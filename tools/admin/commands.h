// rokka-admin's commands, one file each: the tree main() runs.
#pragma once

#include <map>

#include "tools/admin/cli.h"

namespace rokka::admin {

Command topics_command();   // topics.cc
Command groups_command();   // groups.cc
Command acls_command();     // acls.cc
Command cluster_command();  // cluster.cc
Command users_command();    // users.cc
Command produce_command();  // produce.cc
Command consume_command();  // consume.cc

// The offset found for `tp`, null if its look-up failed.
inline Value lookup(const std::map<TopicPartition, int64_t>& offsets, const TopicPartition& tp) {
  const auto it = offsets.find(tp);
  return it == offsets.end() ? Value(nullptr) : Value(it->second);
}

}  // namespace rokka::admin
