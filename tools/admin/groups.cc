// rokka-admin groups: list, describe (members, assignments, lag), reset-offsets, delete.
#include <algorithm>
#include <iostream>
#include <set>

#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

using GroupOffsetsRequest = Owned<rd_kafka_ListConsumerGroupOffsets_t, rd_kafka_ListConsumerGroupOffsets_destroy>;
using AlterOffsetsRequest = Owned<rd_kafka_AlterConsumerGroupOffsets_t, rd_kafka_AlterConsumerGroupOffsets_destroy>;
using DeleteGroup = Owned<rd_kafka_DeleteGroup_t, rd_kafka_DeleteGroup_destroy>;

std::string state_name(rd_kafka_consumer_group_state_t state) { return rd_kafka_consumer_group_state_name(state); }

rd_kafka_consumer_group_state_t parse_state(const std::string& text) {
  for (int s = 0; s < RD_KAFKA_CONSUMER_GROUP_STATE__CNT; ++s) {
    const auto state = static_cast<rd_kafka_consumer_group_state_t>(s);
    if (normalized_name(state_name(state)) == normalized_name(text)) return state;
  }
  throw UsageError("--state: unknown group state '" + text +
                   "' (Stable, Empty, PreparingRebalance, CompletingRebalance, Dead)");
}

std::string partition_name(const TopicPartition& tp) { return tp.topic + ":" + std::to_string(tp.partition); }

struct Member {
  std::string consumer_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string host;
  std::vector<TopicPartition> assignment;
};

struct GroupDescription {
  std::string group;
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string error_message;
  rd_kafka_consumer_group_state_t state = RD_KAFKA_CONSUMER_GROUP_STATE_UNKNOWN;
  std::string assignor;
  std::optional<int32_t> coordinator;
  std::vector<Member> members;
};

std::vector<TopicPartition> to_partitions(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  for (int i = 0; list != nullptr && i < list->cnt; ++i)
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  std::sort(out.begin(), out.end());
  return out;
}

// DescribeConsumerGroups.
std::vector<GroupDescription> describe_groups(const Client& client, const std::vector<std::string>& groups) {
  std::vector<const char*> ids;
  for (const auto& g : groups) ids.push_back(g.c_str());
  rd_kafka_DescribeConsumerGroups(client.handle(), ids.data(), ids.size(),
                                  client.admin_options(RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS).get(), client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT, "DescribeConsumerGroups");
  size_t n = 0;
  const rd_kafka_ConsumerGroupDescription_t** result =
      rd_kafka_DescribeConsumerGroups_result_groups(rd_kafka_event_DescribeConsumerGroups_result(ev.get()), &n);
  std::vector<GroupDescription> out;
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_ConsumerGroupDescription_t* g = result[i];
    GroupDescription d;
    d.group = rd_kafka_ConsumerGroupDescription_group_id(g);
    if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(g)) {
      d.error = rd_kafka_error_code(e);
      d.error_message = rd_kafka_error_string(e);
    }
    d.state = rd_kafka_ConsumerGroupDescription_state(g);
    if (const char* a = rd_kafka_ConsumerGroupDescription_partition_assignor(g)) d.assignor = a;
    if (const rd_kafka_Node_t* node = rd_kafka_ConsumerGroupDescription_coordinator(g))
      d.coordinator = rd_kafka_Node_id(node);
    for (size_t m = 0; m < rd_kafka_ConsumerGroupDescription_member_count(g); ++m) {
      const rd_kafka_MemberDescription_t* md = rd_kafka_ConsumerGroupDescription_member(g, m);
      Member member{rd_kafka_MemberDescription_consumer_id(md),
                    std::nullopt,
                    rd_kafka_MemberDescription_client_id(md),
                    rd_kafka_MemberDescription_host(md),
                    {}};
      if (const char* instance = rd_kafka_MemberDescription_group_instance_id(md)) member.group_instance_id = instance;
      if (const rd_kafka_MemberAssignment_t* a = rd_kafka_MemberDescription_assignment(md))
        member.assignment = to_partitions(rd_kafka_MemberAssignment_partitions(a));
      d.members.push_back(std::move(member));
    }
    out.push_back(std::move(d));
  }
  return out;
}

// The partitions of the one group in a ListConsumerGroupOffsets or AlterConsumerGroupOffsets
// result; the group's error throws.
const rd_kafka_topic_partition_list_t* only_group_partitions(const rd_kafka_group_result_t** result, size_t n,
                                                             const std::string& what) {
  if (n != 1) throw KafkaError(RD_KAFKA_RESP_ERR__BAD_MSG, what + ": expected one group in the result");
  if (const rd_kafka_error_t* e = rd_kafka_group_result_error(result[0]))
    throw KafkaError(rd_kafka_error_code(e), what + ": " + rd_kafka_error_string(e));
  return rd_kafka_group_result_partitions(result[0]);
}

// ListConsumerGroupOffsets: every offset `group` has committed.
std::map<TopicPartition, int64_t> committed_offsets(const Client& client, const std::string& group) {
  GroupOffsetsRequest request(rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr));
  rd_kafka_ListConsumerGroupOffsets_t* raw[] = {request.get()};
  rd_kafka_ListConsumerGroupOffsets(
      client.handle(), raw, 1, client.admin_options(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS).get(), client.queue());
  const std::string what = "ListConsumerGroupOffsets " + group;
  const Event ev = client.wait(RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT, what);
  size_t n = 0;
  const rd_kafka_group_result_t** result =
      rd_kafka_ListConsumerGroupOffsets_result_groups(rd_kafka_event_ListConsumerGroupOffsets_result(ev.get()), &n);
  std::map<TopicPartition, int64_t> out;
  const rd_kafka_topic_partition_list_t* list = only_group_partitions(result, n, what);
  for (int i = 0; list != nullptr && i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR && tp.offset >= 0) out[{tp.topic, tp.partition}] = tp.offset;
  }
  return out;
}

int run_list(const Invocation& inv) {
  Client client(inv.client());
  AdminOptions options = client.admin_options(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS);
  std::vector<rd_kafka_consumer_group_state_t> states;
  for (const std::string& s : inv.list("state")) states.push_back(parse_state(s));
  if (!states.empty()) {
    if (rd_kafka_error_t* e =
            rd_kafka_AdminOptions_set_match_consumer_group_states(options.get(), states.data(), states.size())) {
      const std::string what = rd_kafka_error_string(e);
      rd_kafka_error_destroy(e);
      throw UsageError("--state: " + what);
    }
  }
  rd_kafka_ListConsumerGroups(client.handle(), options.get(), client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT, "ListConsumerGroups");
  const rd_kafka_ListConsumerGroups_result_t* result = rd_kafka_event_ListConsumerGroups_result(ev.get());
  size_t n_errors = 0;
  const rd_kafka_error_t** errors = rd_kafka_ListConsumerGroups_result_errors(result, &n_errors);
  for (size_t i = 0; i < n_errors; ++i)
    item_error("ListConsumerGroups", rd_kafka_error_code(errors[i]), rd_kafka_error_string(errors[i]));
  size_t n = 0;
  const rd_kafka_ConsumerGroupListing_t** groups = rd_kafka_ListConsumerGroups_result_valid(result, &n);
  std::vector<std::vector<Value>> rows;
  for (size_t i = 0; i < n; ++i) {
    rows.push_back({rd_kafka_ConsumerGroupListing_group_id(groups[i]),
                    state_name(rd_kafka_ConsumerGroupListing_state(groups[i])),
                    rd_kafka_ConsumerGroupListing_is_simple_consumer_group(groups[i]) != 0});
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return to_text(a[0]) < to_text(b[0]); });
  Document doc;
  Table& t = doc.table("groups", {"group", "state", "simple"});
  for (auto& row : rows) t.add(std::move(row));
  inv.print(doc);
  return exit_code(n_errors != 0);
}

int run_describe(const Invocation& inv) {
  Client client(inv.client());
  const std::vector<GroupDescription> groups = describe_groups(client, inv.words());
  Document doc;
  Table& summary = doc.table("groups", {"group", "state", "assignor", "coordinator", "members", "error"});
  Table& members = doc.table(
      "members", {"group", "consumer_id", "group_instance_id", "client_id", "host", "partitions", "assignment"});
  Table& offsets = doc.table("offsets", {"group", "topic", "partition", "current_offset", "log_end_offset", "lag",
                                         "consumer_id", "host", "client_id"});
  bool failed = false;
  for (const GroupDescription& g : groups) {
    failed |= g.error != RD_KAFKA_RESP_ERR_NO_ERROR;
    summary.add({g.group, state_name(g.state), g.assignor, g.coordinator, g.members.size(),
                 item_error("group " + g.group, g.error, g.error_message.c_str())});
    if (g.error != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    // Each partition the group has an offset for or a member owns: committed vs log end.
    std::map<TopicPartition, const Member*> owner;
    for (const Member& m : g.members) {
      Value::List assignment;
      for (const TopicPartition& tp : m.assignment) {
        owner[tp] = &m;
        assignment.push_back(partition_name(tp));
      }
      members.add({g.group, m.consumer_id, m.group_instance_id, m.client_id, m.host, m.assignment.size(), assignment});
    }
    const std::map<TopicPartition, int64_t> committed = committed_offsets(client, g.group);
    std::set<TopicPartition> partitions;
    for (const auto& [tp, _] : committed) partitions.insert(tp);
    for (const auto& [tp, _] : owner) partitions.insert(tp);
    const auto log_end = client.offsets_at({partitions.begin(), partitions.end()}, RD_KAFKA_OFFSET_END);
    for (const TopicPartition& tp : partitions) {
      const Value current = lookup(committed, tp);
      const Value end = lookup(log_end, tp);
      Value lag = nullptr;
      if (!current.is_null() && !end.is_null()) lag = std::get<int64_t>(end.data) - std::get<int64_t>(current.data);
      const auto o = owner.find(tp);
      const Member* m = o == owner.end() ? nullptr : o->second;
      offsets.add({g.group, tp.topic, tp.partition, current, end, lag, m ? Value(m->consumer_id) : Value(nullptr),
                   m ? Value(m->host) : Value(nullptr), m ? Value(m->client_id) : Value(nullptr)});
    }
  }
  inv.print(doc);
  return exit_code(failed);
}

// The reset target named on the command line.
struct ResetTarget {
  enum Kind { kEarliest, kLatest, kDatetime, kOffset, kShift } kind = kEarliest;
  int64_t value = 0;  // ms (datetime), offset, or shift
};

ResetTarget parse_target(const Invocation& inv) {
  std::vector<ResetTarget> given;
  if (inv.has("to-earliest")) given.push_back({ResetTarget::kEarliest});
  if (inv.has("to-latest")) given.push_back({ResetTarget::kLatest});
  if (inv.has("to-datetime"))
    given.push_back({ResetTarget::kDatetime, parse_datetime_ms(inv.get<std::string>("to-datetime"))});
  if (inv.has("to-offset")) given.push_back({ResetTarget::kOffset, inv.get<int64_t>("to-offset")});
  if (inv.has("shift-by")) given.push_back({ResetTarget::kShift, inv.get<int64_t>("shift-by")});
  if (given.size() != 1)
    throw UsageError("give exactly one of --to-earliest, --to-latest, --to-datetime, --to-offset, --shift-by");
  return given[0];
}

// The partitions to reset: those named by --topic, or all the group has offsets for.
std::vector<TopicPartition> reset_scope(const Invocation& inv, const Client& client,
                                        const std::map<TopicPartition, int64_t>& committed) {
  const std::vector<std::string> topics = inv.list("topic");
  if (topics.empty() == !inv.has("all-topics")) throw UsageError("give --topic TOPIC[:P,P...] or --all-topics");
  std::set<TopicPartition> out;
  if (inv.has("all-topics")) {
    for (const auto& [tp, _] : committed) out.insert(tp);
  } else {
    const Metadata md = client.metadata();
    for (const std::string& word : topics) {
      const TopicSpec spec = parse_topic_spec(word);
      const std::vector<int32_t> existing = Client::partitions_of(*md, spec.topic);
      for (int32_t p : spec.partitions.value_or(existing)) {
        if (std::find(existing.begin(), existing.end(), p) == existing.end())
          throw KafkaError(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "partition " + partition_name({spec.topic, p}));
        out.insert({spec.topic, p});
      }
    }
  }
  return {out.begin(), out.end()};
}

std::map<TopicPartition, int64_t> new_offsets(const Client& client, const ResetTarget& target,
                                              const std::vector<TopicPartition>& partitions,
                                              const std::map<TopicPartition, int64_t>& committed) {
  const auto need = [&](const std::map<TopicPartition, int64_t>& found, const TopicPartition& tp) {
    const auto it = found.find(tp);
    if (it == found.end()) throw KafkaError(RD_KAFKA_RESP_ERR__FAIL, "ListOffsets " + partition_name(tp) + " failed");
    return it->second;
  };
  const auto earliest = client.offsets_at(partitions, RD_KAFKA_OFFSET_BEGINNING);
  const auto latest = client.offsets_at(partitions, RD_KAFKA_OFFSET_END);
  std::map<TopicPartition, int64_t> at_time;
  if (target.kind == ResetTarget::kDatetime) at_time = client.offsets_at(partitions, target.value);
  std::map<TopicPartition, int64_t> out;
  for (const TopicPartition& tp : partitions) {
    const int64_t low = need(earliest, tp);
    const int64_t high = need(latest, tp);
    int64_t offset = 0;
    switch (target.kind) {
      case ResetTarget::kEarliest: offset = low; break;
      case ResetTarget::kLatest: offset = high; break;
      case ResetTarget::kDatetime: {
        const int64_t found = need(at_time, tp);
        offset = found < 0 ? high : found;  // no record at or after the time: the log end
        break;
      }
      case ResetTarget::kOffset: offset = target.value; break;
      case ResetTarget::kShift: {
        const auto it = committed.find(tp);
        if (it == committed.end())
          throw KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG,
                           "cannot shift " + partition_name(tp) + ": the group has no committed offset there");
        offset = it->second + target.value;
        break;
      }
    }
    out[tp] = std::clamp(offset, low, high);  // as Kafka's tool does, out-of-range targets go to the nearest end
  }
  return out;
}

// AlterConsumerGroupOffsets; each partition's error.
std::map<TopicPartition, rd_kafka_resp_err_t> alter_offsets(const Client& client, const std::string& group,
                                                            const std::map<TopicPartition, int64_t>& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, offset] : offsets)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition)->offset = offset;
  AlterOffsetsRequest request(rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get()));
  rd_kafka_AlterConsumerGroupOffsets_t* raw[] = {request.get()};
  rd_kafka_AlterConsumerGroupOffsets(
      client.handle(), raw, 1, client.admin_options(RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS).get(), client.queue());
  const std::string what = "AlterConsumerGroupOffsets " + group;
  const Event ev = client.wait(RD_KAFKA_EVENT_ALTERCONSUMERGROUPOFFSETS_RESULT, what);
  size_t n = 0;
  const rd_kafka_group_result_t** result =
      rd_kafka_AlterConsumerGroupOffsets_result_groups(rd_kafka_event_AlterConsumerGroupOffsets_result(ev.get()), &n);
  std::map<TopicPartition, rd_kafka_resp_err_t> errors;
  const rd_kafka_topic_partition_list_t* parts = only_group_partitions(result, n, what);
  for (int i = 0; parts != nullptr && i < parts->cnt; ++i)
    errors[{parts->elems[i].topic, parts->elems[i].partition}] = parts->elems[i].err;
  return errors;
}

int run_reset_offsets(const Invocation& inv) {
  const std::string& group = inv.words()[0];
  const ResetTarget target = parse_target(inv);
  if (inv.has("dry-run") && inv.has("execute")) throw UsageError("--dry-run and --execute exclude each other");
  const bool execute = inv.has("execute");
  Client client(inv.client());

  const std::vector<GroupDescription> described = describe_groups(client, {group});
  if (described.size() != 1) throw KafkaError(RD_KAFKA_RESP_ERR__BAD_MSG, "DescribeConsumerGroups " + group);
  const GroupDescription& g = described[0];
  if (g.error != RD_KAFKA_RESP_ERR_NO_ERROR && g.error != RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND)
    throw KafkaError(g.error, "DescribeConsumerGroups " + group + ": " + g.error_message);
  // Kafka resets only an inactive group: its members would overwrite the new offsets.
  if (g.state != RD_KAFKA_CONSUMER_GROUP_STATE_EMPTY && g.state != RD_KAFKA_CONSUMER_GROUP_STATE_DEAD)
    throw KafkaError(RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP, "group " + group + " is " + state_name(g.state) + " with " +
                                                            std::to_string(g.members.size()) +
                                                            " member(s): offsets can only be reset when it is Empty");

  const std::map<TopicPartition, int64_t> committed = committed_offsets(client, group);
  const std::vector<TopicPartition> partitions = reset_scope(inv, client, committed);
  const std::map<TopicPartition, int64_t> offsets = new_offsets(client, target, partitions, committed);
  std::map<TopicPartition, rd_kafka_resp_err_t> errors;
  if (execute && !offsets.empty()) errors = alter_offsets(client, group, offsets);

  Document doc;
  doc.set("group", group);
  doc.set("executed", execute);
  Table& t = doc.table("offsets", {"topic", "partition", "current_offset", "new_offset", "error"});
  bool failed = false;
  for (const auto& [tp, offset] : offsets) {
    const auto e = errors.find(tp);
    const rd_kafka_resp_err_t err = e == errors.end() ? RD_KAFKA_RESP_ERR_NO_ERROR : e->second;
    failed |= err != RD_KAFKA_RESP_ERR_NO_ERROR;
    t.add({tp.topic, tp.partition, lookup(committed, tp), offset, item_error(partition_name(tp), err)});
  }
  inv.print(doc);
  if (!execute && !inv.json()) std::cerr << "dry run: nothing committed (--execute applies these offsets)\n";
  return exit_code(failed);
}

int run_delete(const Invocation& inv) {
  Client client(inv.client());
  std::vector<DeleteGroup> groups;
  std::vector<rd_kafka_DeleteGroup_t*> raw;
  for (const std::string& g : inv.words()) {
    groups.emplace_back(rd_kafka_DeleteGroup_new(g.c_str()));
    raw.push_back(groups.back().get());
  }
  rd_kafka_DeleteGroups(client.handle(), raw.data(), raw.size(),
                        client.admin_options(RD_KAFKA_ADMIN_OP_DELETEGROUPS).get(), client.queue());
  const Event ev = client.wait(RD_KAFKA_EVENT_DELETEGROUPS_RESULT, "DeleteGroups");
  size_t n = 0;
  const rd_kafka_group_result_t** result =
      rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev.get()), &n);
  Document doc;
  Table& t = doc.table("groups", {"group", "error"});
  bool failed = false;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = rd_kafka_group_result_name(result[i]);
    const rd_kafka_error_t* e = rd_kafka_group_result_error(result[i]);
    failed |= e != nullptr;
    t.add({name, e ? item_error("group " + name, rd_kafka_error_code(e), rd_kafka_error_string(e)) : Value(nullptr)});
  }
  inv.print(doc);
  return exit_code(failed);
}

}  // namespace

Command groups_command() {
  using Strings = std::vector<std::string>;
  Command list{.name = "list",
               .summary = "list consumer groups and their states (ListGroups)",
               .options =
                   [](po::options_description_easy_init& add) {
                     add("state", po::value<Strings>()->composing()->value_name("STATE"),
                         "only groups in this state (repeatable): Stable, Empty, PreparingRebalance, "
                         "CompletingRebalance, Dead");
                   },
               .run = run_list};
  Command describe{.name = "describe",
                   .summary = "members, assignments and lag per partition (DescribeGroups, OffsetFetch, ListOffsets)",
                   .words = "GROUP...",
                   .min_words = 1,
                   .description =
                       "Tables: groups (state, assignor, coordinator), members (with their assignment) and\n"
                       "offsets: per partition the committed offset, the log end offset (high watermark) and\n"
                       "the lag between them, with the member that owns the partition.",
                   .run = run_describe};
  Command reset{.name = "reset-offsets",
                .summary = "move a group's committed offsets (OffsetCommit); a dry run unless --execute",
                .words = "GROUP",
                .min_words = 1,
                .max_words = 1,
                .options =
                    [](po::options_description_easy_init& add) {
                      add("topic,t", po::value<Strings>()->composing()->value_name("TOPIC[:P,P...]"),
                          "the partitions to reset: all of TOPIC's, or those listed (repeatable)");
                      add("all-topics", "every partition the group has committed offsets for");
                      add("to-earliest", "to each partition's log start offset");
                      add("to-latest", "to each partition's log end offset");
                      add("to-datetime", po::value<std::string>()->value_name("DATETIME"),
                          "to the first offset at or after YYYY-MM-DDTHH:MM:SS[.sss][Z|+HH:MM] (no zone: local time) "
                          "or epoch milliseconds; the log end if there is none");
                      add("to-offset", po::value<int64_t>()->value_name("N"), "to offset N");
                      add("shift-by", po::value<int64_t>()->value_name("N"),
                          "by N from the committed offset (negative: back)");
                      add("dry-run", "show the new offsets without committing them (the default)");
                      add("execute", "commit the new offsets");
                    },
                .description =
                    "The group must be Empty (no members), as Kafka requires. Targets outside a partition's\n"
                    "[log start, log end] are clamped to the nearest end.",
                .run = run_reset_offsets};
  Command del{.name = "delete",
              .summary = "delete consumer groups and their offsets (DeleteGroups)",
              .words = "GROUP...",
              .min_words = 1,
              .run = run_delete};
  return {.name = "groups",
          .summary = "list, describe, reset and delete consumer groups",
          .subcommands = {list, describe, reset, del}};
}

}  // namespace rokka::admin
