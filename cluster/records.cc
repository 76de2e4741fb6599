#include "cluster/records.h"

#include <algorithm>

#include "cluster/base64.h"
#include "cluster/json_util.h"
#include "cluster/keys.h"

namespace rokka::cluster {
namespace {

namespace rj = rapidjson;
using Writer = JsonWriter;
using storage::Status;

void write_string(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rj::SizeType>(s.size())); }

Status bad(std::string_view what) { return Status::malformed(std::string(what)); }

const rj::Value* member(const rj::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}
bool get_string(const rj::Value& obj, const char* name, std::string& out) {
  const rj::Value* v = member(obj, name);
  if (v == nullptr || !v->IsString()) return false;
  out.assign(v->GetString(), v->GetStringLength());
  return true;
}

// An absent or null member reads as absent.
const rj::Value* optional_member(const rj::Value& obj, const char* name) {
  const rj::Value* v = member(obj, name);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

bool int32_at_least(const rj::Value* v, int32_t min) { return v != nullptr && v->IsInt() && v->GetInt() >= min; }
bool int64_at_least(const rj::Value* v, int64_t min) { return v != nullptr && v->IsInt64() && v->GetInt64() >= min; }

// A list of broker ids: an array of at most kMaxGroupMembers ints >= 0, none twice. The count is
// checked before anything is copied.
bool read_ids(const rj::Value* v, std::vector<int32_t>& out) {
  if (v == nullptr || !v->IsArray() || v->Size() > kMaxGroupMembers) return false;
  out.reserve(v->Size());
  for (const auto& id : v->GetArray()) {
    if (!id.IsInt() || id.GetInt() < 0 || std::find(out.begin(), out.end(), id.GetInt()) != out.end()) return false;
    out.push_back(id.GetInt());
  }
  return true;
}

void write_ids(Writer& w, const std::vector<int32_t>& ids) {
  w.StartArray();
  for (const int32_t id : ids) w.Int(id);
  w.EndArray();
}

// A one-value JSON text that is not an object (a bare string or number); an operator's deep
// array still parses without recursion.
bool parse_bare_value(std::string_view text, rj::Document& d) {
  d.Parse<rj::kParseIterativeFlag | rj::kParseValidateEncodingFlag>(text.data(), text.size());
  return !d.HasParseError();
}

// True if `text` is one JSON value (the placement is written verbatim into the record).
bool placement_is_json(const std::string& text) {
  auto doc = parse_json_object("{\"p\":" + text + "}", "placement");
  return doc.ok() && doc->MemberCount() == 1;  // "1,\"q\":2" is not one value
}

}  // namespace

std::string encode_broker_registration(const BrokerRegistration& reg) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("listeners");
    w.StartArray();
    for (const Listener& l : reg.listeners) {
      w.StartObject();
      w.Key("name");
      write_string(w, l.name);
      w.Key("host");
      write_string(w, l.host);
      w.Key("port");
      w.Int(l.port);
      w.Key("security_protocol");
      write_string(w, l.security_protocol);
      w.EndObject();
    }
    w.EndArray();
    w.Key("rack");
    if (reg.rack) write_string(w, *reg.rack);
    else w.Null();
    w.Key("incarnation");
    write_string(w, reg.incarnation);
    if (reg.replication) {
      w.Key("replication");
      w.StartObject();
      w.Key("host");
      write_string(w, reg.replication->host);
      w.Key("port");
      w.Int(reg.replication->port);
      w.EndObject();
    }
    if (!reg.groups.empty()) {
      w.Key("groups");
      w.StartObject();
      for (const auto& [name, hint] : reg.groups) {
        w.Key(name.data(), static_cast<rj::SizeType>(name.size()));
        w.StartObject();
        w.Key("last_epoch");
        w.Int(hint.last_epoch);
        w.Key("log_end");
        w.Int64(hint.log_end);
        w.EndObject();
      }
      w.EndObject();
    }
    w.EndObject();
  });
}

Result<BrokerRegistration> decode_broker_registration(std::string_view text) {
  auto doc = parse_json_object(text, "broker registration");
  if (!doc.ok()) return doc.status();
  BrokerRegistration reg;
  const rj::Value* listeners = member(*doc, "listeners");
  if (listeners == nullptr || !listeners->IsArray() || listeners->Size() > kMaxListeners) {
    return bad("broker registration: listeners");
  }
  for (const auto& l : listeners->GetArray()) {
    Listener out;
    const rj::Value* port = l.IsObject() ? member(l, "port") : nullptr;
    if (!l.IsObject() || !get_string(l, "name", out.name) || !get_string(l, "host", out.host) ||
        !get_string(l, "security_protocol", out.security_protocol) || port == nullptr || !port->IsInt() ||
        port->GetInt() < 0 || port->GetInt() > 65535 || out.name.empty() || out.host.empty()) {
      return bad("broker registration: listener");
    }
    out.port = port->GetInt();
    reg.listeners.push_back(std::move(out));
  }
  if (const rj::Value* rack = member(*doc, "rack"); rack != nullptr && !rack->IsNull()) {
    if (!rack->IsString()) return bad("broker registration: rack");
    reg.rack.emplace(rack->GetString(), rack->GetStringLength());
  }
  if (!get_string(*doc, "incarnation", reg.incarnation)) return bad("broker registration: incarnation");
  if (const rj::Value* repl = optional_member(*doc, "replication")) {
    ReplicationEndpoint ep;
    const rj::Value* port = repl->IsObject() ? member(*repl, "port") : nullptr;
    if (!repl->IsObject() || !get_string(*repl, "host", ep.host) || ep.host.empty() || !int32_at_least(port, 1) ||
        port->GetInt() > 65535) {
      return bad("broker registration: replication");
    }
    ep.port = port->GetInt();
    reg.replication = std::move(ep);
  }
  if (const rj::Value* groups = optional_member(*doc, "groups")) {
    if (!groups->IsObject() || groups->MemberCount() > kMaxGroupHints) return bad("broker registration: groups");
    for (const auto& g : groups->GetObject()) {
      const std::string_view name(g.name.GetString(), g.name.GetStringLength());
      const rj::Value* last_epoch = g.value.IsObject() ? member(g.value, "last_epoch") : nullptr;
      const rj::Value* log_end = g.value.IsObject() ? member(g.value, "log_end") : nullptr;
      if (!valid_group_name(name) || !int32_at_least(last_epoch, -1) || !int64_at_least(log_end, 0)) {
        return bad("broker registration: group hint");
      }
      if (!reg.groups.emplace(std::string(name), GroupHint{last_epoch->GetInt(), log_end->GetInt64()}).second) {
        return bad("broker registration: group named twice");
      }
    }
  }
  return reg;
}

std::string encode_controller(int32_t broker_id) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("broker");
    w.Int(broker_id);
    w.EndObject();
  });
}

Result<int32_t> decode_controller(std::string_view text) {
  auto doc = parse_json_object(text, "controller");
  if (!doc.ok()) return doc.status();
  const rj::Value* b = member(*doc, "broker");
  if (b == nullptr || !b->IsInt() || b->GetInt() < 0) return bad("controller: broker");
  return b->GetInt();
}

std::string encode_cluster_id(std::string_view id) {
  return write_json([&](Writer& w) { write_string(w, id); });
}

Result<std::string> decode_cluster_id(std::string_view text) {
  rj::Document d;  // a bare JSON string; an operator's deep array still parses without recursion
  d.Parse<rj::kParseIterativeFlag | rj::kParseValidateEncodingFlag>(text.data(), text.size());
  if (d.HasParseError() || !d.IsString() || d.GetStringLength() == 0) return bad("cluster id");
  return std::string(d.GetString(), d.GetStringLength());
}

std::string encode_topic(const TopicRecord& topic) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("id");
    write_string(w, topic.id);
    w.Key("partitions");
    w.Int(topic.partitions);
    w.Key("placement");
    if (placement_is_json(topic.placement)) w.RawValue(topic.placement.data(), topic.placement.size(), rj::kObjectType);
    else w.Null();
    w.Key("configs");
    w.StartObject();
    for (const auto& [k, v] : topic.configs) {
      w.Key(k.data(), static_cast<rj::SizeType>(k.size()));
      write_string(w, v);
    }
    w.EndObject();
    w.EndObject();
  });
}

Result<TopicRecord> decode_topic(std::string_view text) {
  auto doc = parse_json_object(text, "topic");
  if (!doc.ok()) return doc.status();
  TopicRecord t;
  if (!get_string(*doc, "id", t.id)) return bad("topic: id");
  const rj::Value* p = member(*doc, "partitions");
  if (p == nullptr || !p->IsInt() || p->GetInt() < 1 || p->GetInt() > kMaxPartitions) return bad("topic: partitions");
  t.partitions = p->GetInt();
  if (const rj::Value* placement = member(*doc, "placement")) {
    rj::StringBuffer buf;
    Writer w(buf);
    placement->Accept(w);  // depth is bounded by parse_json_object
    t.placement.assign(buf.GetString(), buf.GetSize());
  }
  if (const rj::Value* configs = member(*doc, "configs")) {
    if (!configs->IsObject()) return bad("topic: configs");
    for (const auto& m : configs->GetObject()) {
      if (!m.value.IsString()) return bad("topic: config value");
      t.configs.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                        std::string(m.value.GetString(), m.value.GetStringLength()));
    }
  }
  return t;
}

std::string encode_producer_id_block(const ProducerIdBlockRecord& rec) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("next");
    w.Int64(rec.next);
    w.Key("broker");
    w.Int(rec.broker);
    w.Key("nonce");
    write_string(w, rec.nonce);
    w.EndObject();
  });
}

Result<ProducerIdBlockRecord> decode_producer_id_block(std::string_view text) {
  auto doc = parse_json_object(text, "producer id block");
  if (!doc.ok()) return doc.status();
  ProducerIdBlockRecord r;
  const rj::Value* next = member(*doc, "next");
  const rj::Value* broker = member(*doc, "broker");
  if (next == nullptr || !next->IsInt64() || next->GetInt64() < 0) return bad("producer id block: next");
  if (broker == nullptr || !broker->IsInt()) return bad("producer id block: broker");
  if (!get_string(*doc, "nonce", r.nonce)) return bad("producer id block: nonce");
  r.next = next->GetInt64();
  r.broker = broker->GetInt();
  return r;
}

std::string encode_group_spec(const GroupSpec& spec) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("members");
    write_ids(w, spec.members);
    w.EndObject();
  });
}

Result<GroupSpec> decode_group_spec(std::string_view text) {
  auto doc = parse_json_object(text, "group spec");
  if (!doc.ok()) return doc.status();
  GroupSpec spec;
  if (!read_ids(member(*doc, "members"), spec.members) || spec.members.empty()) return bad("group spec: members");
  return spec;
}

std::string encode_group_state(const GroupState& state) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("leader");
    w.Int(state.leader);
    w.Key("leader_broker_epoch");
    w.Int64(state.leader_broker_epoch);
    w.Key("epoch");
    w.Int(state.epoch);
    w.Key("sss");
    write_ids(w, state.sss);
    w.Key("sss_version");
    w.Int64(state.sss_version);
    w.EndObject();
  });
}

Result<GroupState> decode_group_state(std::string_view text) {
  auto doc = parse_json_object(text, "group state");
  if (!doc.ok()) return doc.status();
  GroupState st;
  const rj::Value* leader = member(*doc, "leader");
  const rj::Value* epoch = member(*doc, "epoch");
  if (!int32_at_least(leader, kNoLeader)) return bad("group state: leader");
  if (!int32_at_least(epoch, 0)) return bad("group state: epoch");
  if (!read_ids(member(*doc, "sss"), st.sss)) return bad("group state: sss");
  st.leader = leader->GetInt();
  st.epoch = epoch->GetInt();
  if (const rj::Value* be = optional_member(*doc, "leader_broker_epoch")) {
    if (!int64_at_least(be, 0)) return bad("group state: leader_broker_epoch");
    st.leader_broker_epoch = be->GetInt64();
  }
  if (const rj::Value* version = optional_member(*doc, "sss_version")) {
    if (!int64_at_least(version, 0)) return bad("group state: sss_version");
    st.sss_version = version->GetInt64();
  }
  if (st.leader != kNoLeader && std::find(st.sss.begin(), st.sss.end(), st.leader) == st.sss.end()) {
    return bad("group state: the leader is not in the sss");
  }
  return st;
}

std::string encode_epoch_counter(int32_t epoch) {
  return write_json([&](Writer& w) { w.Int(epoch); });
}

Result<int32_t> decode_epoch_counter(std::string_view text) {
  rj::Document d;
  if (!parse_bare_value(text, d) || !d.IsInt() || d.GetInt() < 0) return bad("epoch counter");
  return d.GetInt();
}

std::string encode_meta_value(std::string_view bytes) {
  return write_json([&](Writer& w) { write_string(w, base64_encode(bytes)); });
}

Result<std::string> decode_meta_value(std::string_view text) {
  rj::Document d;  // a bare JSON string
  d.Parse<rj::kParseIterativeFlag | rj::kParseValidateEncodingFlag>(text.data(), text.size());
  if (d.HasParseError() || !d.IsString()) return bad("shared broker state value: not a JSON string");
  auto bytes = base64_decode(std::string_view(d.GetString(), d.GetStringLength()));
  if (!bytes) return bad("shared broker state value: not base64");
  return std::move(*bytes);
}

}  // namespace rokka::cluster
