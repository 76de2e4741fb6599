// Parsing JSON that came over the network (etcd answers, values other brokers wrote):
// one object, at most kMaxNesting deep, valid UTF-8, parsed by rapidjson's iterative parser
// (no recursion). The caller has capped the size.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "storage/status.h"

namespace rokka::cluster {

inline constexpr int kMaxJsonNesting = 32;  // etcd's answers nest 6 deep at most (txn > range > kvs > kv)

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// The text `fn(writer)` writes.
template <typename Fn>
std::string write_json(Fn&& fn) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  fn(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// `what` names the input in the kMalformed message.
storage::Result<rapidjson::Document> parse_json_object(std::string_view text, std::string_view what);

}  // namespace rokka::cluster
