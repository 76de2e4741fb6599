#include "cluster/placement.h"

#include <algorithm>
#include <climits>

#include "cluster/json_util.h"

namespace rokka::cluster {
namespace {

namespace rj = rapidjson;
using storage::Result;
using storage::Status;

constexpr int32_t kMaxShards = 1000;

void write_placement(JsonWriter& w, const Placement& p) {
  w.StartObject();
  if (p.replicated()) {
    w.Key("group_ranges");
    w.StartArray();
    for (const PlacementGroupRange& r : p.group_ranges) {
      w.StartObject();
      w.Key("first");
      w.Int(r.first);
      w.Key("start");
      w.Int(r.start);
      w.Key("groups");
      w.StartArray();
      for (const std::string& g : r.groups) w.String(g.data(), static_cast<rj::SizeType>(g.size()));
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return;
  }
  w.Key("ranges");
  w.StartArray();
  for (const PlacementRange& r : p.ranges) {
    w.StartObject();
    w.Key("first");
    w.Int(r.first);
    w.Key("start");
    w.Int(r.start);
    w.Key("brokers");
    w.StartArray();
    for (int32_t b : r.brokers) w.Int(b);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// A replication group's name as rokka.replication.groups allows it: [a-z0-9_-]{1,32}.
bool group_name_ok(const rj::Value& v) {
  if (!v.IsString() || v.GetStringLength() == 0 || v.GetStringLength() > 32) return false;
  const std::string_view name(v.GetString(), v.GetStringLength());
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; });
}

// The group form's ranges, checked as the broker form's.
Result<Placement> read_group_ranges(const rj::Value& ranges_value, int32_t partitions) {
  auto bad = [](std::string_view what) { return Status::malformed("placement: " + std::string(what)); };
  if (!ranges_value.IsArray() || ranges_value.Empty()) return bad("group_ranges");
  const auto& ranges = ranges_value.GetArray();
  if (ranges.Size() > static_cast<rj::SizeType>(partitions)) return bad("more group ranges than partitions");
  Placement p;
  p.group_ranges.reserve(ranges.Size());
  for (const rj::Value& r : ranges) {
    if (!r.IsObject()) return bad("group range");
    auto first = r.FindMember("first");
    auto start = r.FindMember("start");
    auto groups = r.FindMember("groups");
    if (first == r.MemberEnd() || !first->value.IsInt() || start == r.MemberEnd() || !start->value.IsInt() ||
        groups == r.MemberEnd() || !groups->value.IsArray())
      return bad("group range fields");
    PlacementGroupRange out;
    out.first = first->value.GetInt();
    out.start = start->value.GetInt();
    if (p.group_ranges.empty() ? out.first != 0 : out.first <= p.group_ranges.back().first)
      return bad("group ranges out of order");
    if (out.first >= partitions) return bad("group range past the last partition");
    if (out.start < 0) return bad("negative start");
    const auto& names = groups->value.GetArray();
    if (names.Empty() || names.Size() > kMaxPlacementGroups) return bad("group count");
    out.groups.reserve(names.Size());
    for (const rj::Value& name : names) {
      if (!group_name_ok(name)) return bad("group name");
      out.groups.emplace_back(name.GetString(), name.GetStringLength());
    }
    p.group_ranges.push_back(std::move(out));
  }
  return p;
}

Result<Placement> read_placement(const rj::Value& v, int32_t partitions) {
  auto bad = [](std::string_view what) { return Status::malformed("placement: " + std::string(what)); };
  if (!v.IsObject()) return bad("not an object");
  auto it = v.FindMember("ranges");
  if (auto g = v.FindMember("group_ranges"); g != v.MemberEnd()) {
    if (it != v.MemberEnd()) return bad("both ranges and group_ranges");
    return read_group_ranges(g->value, partitions);
  }
  if (it == v.MemberEnd() || !it->value.IsArray() || it->value.Empty()) return bad("ranges");
  const auto& ranges = it->value.GetArray();
  if (ranges.Size() > static_cast<rj::SizeType>(partitions)) return bad("more ranges than partitions");
  Placement p;
  p.ranges.reserve(ranges.Size());
  for (const rj::Value& r : ranges) {
    if (!r.IsObject()) return bad("range");
    auto first = r.FindMember("first");
    auto start = r.FindMember("start");
    auto brokers = r.FindMember("brokers");
    if (first == r.MemberEnd() || !first->value.IsInt() || start == r.MemberEnd() || !start->value.IsInt() ||
        brokers == r.MemberEnd() || !brokers->value.IsArray())
      return bad("range fields");
    PlacementRange out;
    out.first = first->value.GetInt();
    out.start = start->value.GetInt();
    const int32_t expected_first = p.ranges.empty() ? 0 : p.ranges.back().first + 1;
    if (p.ranges.empty() ? out.first != 0 : out.first < expected_first) return bad("ranges out of order");
    if (out.first >= partitions) return bad("range past the last partition");
    if (out.start < 0) return bad("negative start");
    const auto& ids = brokers->value.GetArray();
    if (ids.Empty() || ids.Size() > kMaxPlacementBrokers) return bad("broker count");
    out.brokers.reserve(ids.Size());
    for (const rj::Value& id : ids) {
      if (!id.IsInt() || id.GetInt() < 0) return bad("broker id");
      out.brokers.push_back(id.GetInt());
    }
    p.ranges.push_back(std::move(out));
  }
  return p;
}

}  // namespace

void Placement::add_round_robin(int32_t first, std::vector<int32_t> brokers, int32_t start) {
  const auto n = static_cast<int32_t>(brokers.size());
  ranges.push_back({first, n == 0 ? 0 : ((start % n) + n) % n, std::move(brokers)});
}

std::vector<int32_t> Placement::leaders(int32_t partitions) const {
  std::vector<int32_t> out(static_cast<size_t>(std::max(partitions, 0)), -1);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const PlacementRange& r = ranges[i];
    const int32_t end = i + 1 < ranges.size() ? std::min(ranges[i + 1].first, partitions) : partitions;
    const auto n = static_cast<int64_t>(r.brokers.size());
    for (int32_t p = r.first; p < end; ++p)
      out[static_cast<size_t>(p)] = r.brokers[static_cast<size_t>((int64_t{r.start} + p - r.first) % n)];
  }
  return out;
}

std::vector<std::string> Placement::groups(int32_t partitions) const {
  std::vector<std::string> out(static_cast<size_t>(std::max(partitions, 0)));
  for (size_t i = 0; i < group_ranges.size(); ++i) {
    const PlacementGroupRange& r = group_ranges[i];
    const int32_t end = i + 1 < group_ranges.size() ? std::min(group_ranges[i + 1].first, partitions) : partitions;
    const auto n = static_cast<int64_t>(r.groups.size());
    for (int32_t p = r.first; p < end; ++p)
      out[static_cast<size_t>(p)] = r.groups[static_cast<size_t>((int64_t{r.start} + p - r.first) % n)];
  }
  return out;
}

std::string encode_placement(const Placement& p) {
  return write_json([&](JsonWriter& w) { write_placement(w, p); });
}

Result<Placement> decode_placement(std::string_view json, int32_t partitions) {
  if (partitions < 1) return Status::malformed("placement: no partitions");
  auto doc = parse_json_object(json, "placement");
  if (!doc.ok()) return doc.status();
  return read_placement(*doc, partitions);
}

std::string encode_coordinators(const CoordinatorsRecord& rec) {
  return write_json([&](JsonWriter& w) {
    w.StartObject();
    w.Key("shards");
    w.Int(rec.shards);
    if (rec.on_groups()) {
      w.Key("groups");
      w.StartArray();
      for (const std::string& g : rec.groups) w.String(g.data(), static_cast<rj::SizeType>(g.size()));
      w.EndArray();
    } else {
      w.Key("placement");
      write_placement(w, rec.placement);
    }
    w.EndObject();
  });
}

Result<CoordinatorsRecord> decode_coordinators(std::string_view json) {
  auto doc = parse_json_object(json, "coordinators");
  if (!doc.ok()) return doc.status();
  auto shards = doc->FindMember("shards");
  auto placement = doc->FindMember("placement");
  auto groups = doc->FindMember("groups");
  if (shards == doc->MemberEnd() || !shards->value.IsInt() || shards->value.GetInt() < 1 ||
      shards->value.GetInt() > kMaxShards)
    return Status::malformed("coordinators: shards");
  CoordinatorsRecord rec;
  rec.shards = shards->value.GetInt();
  if ((placement == doc->MemberEnd()) == (groups == doc->MemberEnd()))
    return Status::malformed("coordinators: one of placement and groups");
  if (groups != doc->MemberEnd()) {
    if (!groups->value.IsArray() || groups->value.Empty() ||
        groups->value.Size() > std::min<rj::SizeType>(static_cast<rj::SizeType>(rec.shards), kMaxPlacementGroups))
      return Status::malformed("coordinators: group count");
    rec.groups.reserve(groups->value.Size());
    for (const rj::Value& name : groups->value.GetArray()) {
      if (!group_name_ok(name)) return Status::malformed("coordinators: group name");
      rec.groups.emplace_back(name.GetString(), name.GetStringLength());
    }
    return rec;
  }
  auto p = read_placement(placement->value, rec.shards);
  if (!p.ok()) return p.status();
  if (p->replicated()) return Status::malformed("coordinators: placed on groups");
  rec.placement = std::move(p).value();
  return rec;
}

int32_t coordinator_shard(std::string_view key, int32_t shards) {
  int32_t h = 0;
  for (unsigned char c : key) h = static_cast<int32_t>(31u * static_cast<uint32_t>(h) + c);
  // Kafka's Utils.abs: Integer.MIN_VALUE maps to 0.
  const int32_t positive = h == INT32_MIN ? 0 : (h < 0 ? -h : h);
  return positive % shards;
}

}  // namespace rokka::cluster
