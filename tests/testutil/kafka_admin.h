// librdkafka's Admin API (C) for tests, blocking: create topics, list, describe and
// delete consumer groups, delete and read committed offsets. Each call waits for its
// result event and returns plain values.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace rokka::testutil {

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

inline PartitionList partition_list(const std::string& topic, const std::vector<int32_t>& partitions) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (int32_t p : partitions) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  return list;
}

class KafkaAdmin {
 public:
  struct ListedGroup {
    std::string group_id;
    rd_kafka_consumer_group_state_t state = RD_KAFKA_CONSUMER_GROUP_STATE_UNKNOWN;
    bool simple = false;
  };
  struct DescribedMember {
    std::string member_id;
    std::string client_id;
    std::optional<std::string> group_instance_id;
    std::set<int32_t> partitions;  // its assignment (one topic in these tests)
  };
  struct DescribedGroup {
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_consumer_group_state_t state = RD_KAFKA_CONSUMER_GROUP_STATE_UNKNOWN;
    std::string assignor;
    std::vector<DescribedMember> members;
  };
  // A committed offset as OffsetFetch returns it; offset -1001 (RD_KAFKA_OFFSET_INVALID) if none.
  struct Committed {
    int64_t offset = RD_KAFKA_OFFSET_INVALID;
    std::string metadata;
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  };

  explicit KafkaAdmin(const std::string& bootstrap) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(err);
    }
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    if (rk_ == nullptr) throw std::runtime_error(std::string("admin client: ") + err);
    queue_ = rd_kafka_queue_new(rk_);
  }
  ~KafkaAdmin() {
    rd_kafka_queue_destroy(queue_);
    rd_kafka_destroy(rk_);
  }
  KafkaAdmin(const KafkaAdmin&) = delete;
  KafkaAdmin& operator=(const KafkaAdmin&) = delete;

  rd_kafka_resp_err_t create_topic(const std::string& name, int partitions,
                                   const std::map<std::string, std::string>& configs = {}) {
    char err[512];
    rd_kafka_NewTopic_t* t = rd_kafka_NewTopic_new(name.c_str(), partitions, 1, err, sizeof(err));
    if (t == nullptr) throw std::runtime_error(err);
    for (const auto& [k, v] : configs) rd_kafka_NewTopic_set_config(t, k.c_str(), v.c_str());
    rd_kafka_CreateTopics(rk_, &t, 1, nullptr, queue_);
    rd_kafka_NewTopic_destroy(t);
    Event ev = wait(RD_KAFKA_EVENT_CREATETOPICS_RESULT);
    size_t n = 0;
    const rd_kafka_topic_result_t** r = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
    return n == 1 ? rd_kafka_topic_result_error(r[0]) : RD_KAFKA_RESP_ERR__FAIL;
  }

  rd_kafka_resp_err_t delete_topic(const std::string& name) {
    rd_kafka_DeleteTopic_t* t = rd_kafka_DeleteTopic_new(name.c_str());
    rd_kafka_DeleteTopics(rk_, &t, 1, nullptr, queue_);
    rd_kafka_DeleteTopic_destroy(t);
    Event ev = wait(RD_KAFKA_EVENT_DELETETOPICS_RESULT);
    size_t n = 0;
    const rd_kafka_topic_result_t** r = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &n);
    return n == 1 ? rd_kafka_topic_result_error(r[0]) : RD_KAFKA_RESP_ERR__FAIL;
  }

  // ListGroups; `states` empty lists every group.
  std::vector<ListedGroup> list_groups(const std::vector<rd_kafka_consumer_group_state_t>& states = {}) {
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk_, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS);
    if (!states.empty()) {
      if (rd_kafka_error_t* e = rd_kafka_AdminOptions_set_match_consumer_group_states(options, states.data(),
                                                                                        states.size())) {
        const std::string what = rd_kafka_error_string(e);
        rd_kafka_error_destroy(e);
        rd_kafka_AdminOptions_destroy(options);
        throw std::runtime_error(what);
      }
    }
    rd_kafka_ListConsumerGroups(rk_, options, queue_);
    rd_kafka_AdminOptions_destroy(options);
    Event ev = wait(RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT);
    const auto* result = rd_kafka_event_ListConsumerGroups_result(ev.get());
    size_t n_errors = 0;
    const rd_kafka_error_t** errors = rd_kafka_ListConsumerGroups_result_errors(result, &n_errors);
    if (n_errors != 0) throw std::runtime_error(std::string("ListConsumerGroups: ") + rd_kafka_error_string(errors[0]));
    size_t n = 0;
    const rd_kafka_ConsumerGroupListing_t** groups = rd_kafka_ListConsumerGroups_result_valid(result, &n);
    std::vector<ListedGroup> out;
    for (size_t i = 0; i < n; ++i) {
      out.push_back({rd_kafka_ConsumerGroupListing_group_id(groups[i]), rd_kafka_ConsumerGroupListing_state(groups[i]),
                     rd_kafka_ConsumerGroupListing_is_simple_consumer_group(groups[i]) != 0});
    }
    return out;
  }

  DescribedGroup describe_group(const std::string& group_id) {
    const char* ids[] = {group_id.c_str()};
    rd_kafka_DescribeConsumerGroups(rk_, ids, 1, nullptr, queue_);
    Event ev = wait(RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT);
    size_t n = 0;
    const rd_kafka_ConsumerGroupDescription_t** groups =
        rd_kafka_DescribeConsumerGroups_result_groups(rd_kafka_event_DescribeConsumerGroups_result(ev.get()), &n);
    if (n != 1) throw std::runtime_error("DescribeConsumerGroups: expected one group");
    const rd_kafka_ConsumerGroupDescription_t* g = groups[0];
    DescribedGroup out;
    if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(g)) out.error = rd_kafka_error_code(e);
    out.state = rd_kafka_ConsumerGroupDescription_state(g);
    if (const char* a = rd_kafka_ConsumerGroupDescription_partition_assignor(g)) out.assignor = a;
    for (size_t i = 0; i < rd_kafka_ConsumerGroupDescription_member_count(g); ++i) {
      const rd_kafka_MemberDescription_t* m = rd_kafka_ConsumerGroupDescription_member(g, i);
      DescribedMember dm;
      dm.member_id = rd_kafka_MemberDescription_consumer_id(m);
      dm.client_id = rd_kafka_MemberDescription_client_id(m);
      if (const char* instance = rd_kafka_MemberDescription_group_instance_id(m)) dm.group_instance_id = instance;
      const rd_kafka_topic_partition_list_t* parts =
          rd_kafka_MemberAssignment_partitions(rd_kafka_MemberDescription_assignment(m));
      for (int j = 0; parts != nullptr && j < parts->cnt; ++j) dm.partitions.insert(parts->elems[j].partition);
      out.members.push_back(std::move(dm));
    }
    return out;
  }

  rd_kafka_resp_err_t delete_group(const std::string& group_id) {
    rd_kafka_DeleteGroup_t* g = rd_kafka_DeleteGroup_new(group_id.c_str());
    rd_kafka_DeleteGroups(rk_, &g, 1, nullptr, queue_);
    rd_kafka_DeleteGroup_destroy(g);
    Event ev = wait(RD_KAFKA_EVENT_DELETEGROUPS_RESULT);
    size_t n = 0;
    const rd_kafka_group_result_t** r = rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev.get()), &n);
    if (n != 1) return RD_KAFKA_RESP_ERR__FAIL;
    const rd_kafka_error_t* e = rd_kafka_group_result_error(r[0]);
    return e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR;
  }

  // OffsetDelete: the group-level error and each partition's.
  std::pair<rd_kafka_resp_err_t, std::map<int32_t, rd_kafka_resp_err_t>> delete_offsets(
      const std::string& group_id, const std::string& topic, const std::vector<int32_t>& partitions) {
    PartitionList list = partition_list(topic, partitions);
    rd_kafka_DeleteConsumerGroupOffsets_t* d = rd_kafka_DeleteConsumerGroupOffsets_new(group_id.c_str(), list.get());
    rd_kafka_DeleteConsumerGroupOffsets(rk_, &d, 1, nullptr, queue_);
    rd_kafka_DeleteConsumerGroupOffsets_destroy(d);
    // librdkafka reports a group-level error (e.g. GROUP_ID_NOT_FOUND) as the request's.
    Event ev = wait(RD_KAFKA_EVENT_DELETECONSUMERGROUPOFFSETS_RESULT, /*request_error_throws=*/false);
    if (rd_kafka_resp_err_t e = rd_kafka_event_error(ev.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) return {e, {}};
    size_t n = 0;
    const rd_kafka_group_result_t** r = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
        rd_kafka_event_DeleteConsumerGroupOffsets_result(ev.get()), &n);
    if (n != 1) return {RD_KAFKA_RESP_ERR__FAIL, {}};
    const rd_kafka_error_t* e = rd_kafka_group_result_error(r[0]);
    std::map<int32_t, rd_kafka_resp_err_t> per_partition;
    if (const rd_kafka_topic_partition_list_t* parts = rd_kafka_group_result_partitions(r[0])) {
      for (int i = 0; i < parts->cnt; ++i) per_partition[parts->elems[i].partition] = parts->elems[i].err;
    }
    return {e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR, per_partition};
  }

 private:
  struct EventDeleter {
    void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
  };
  using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;

  // Waits for the result event of the request just sent; a request-level error throws
  // unless the caller handles it.
  Event wait(rd_kafka_event_type_t type, bool request_error_throws = true) {
    Event ev(rd_kafka_queue_poll(queue_, 30000));
    if (!ev) throw std::runtime_error("admin request timed out");
    if (rd_kafka_event_type(ev.get()) != type) throw std::runtime_error("unexpected admin event");
    if (request_error_throws && rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR)
      throw std::runtime_error(std::string("admin request failed: ") + rd_kafka_event_error_string(ev.get()));
    return ev;
  }

  rd_kafka_t* rk_ = nullptr;
  rd_kafka_queue_t* queue_ = nullptr;
};

// A consumer of `group` that never joins it (commits and OffsetFetch only); closed
// and destroyed by its deleter.
struct SimpleConsumerDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
using SimpleConsumer = std::unique_ptr<rd_kafka_t, SimpleConsumerDeleter>;

inline SimpleConsumer simple_consumer(const std::string& bootstrap, const std::string& group) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : {std::pair<const char*, std::string>{"bootstrap.servers", bootstrap},
                             {"group.id", group},
                             {"enable.auto.commit", "false"}}) {
    if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(err);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (rk == nullptr) throw std::runtime_error(err);
  return SimpleConsumer(rk);
}

// Committed offsets of `group` for `partitions` of `topic` (rd_kafka_committed, i.e.
// OffsetFetch), with their metadata.
inline std::map<int32_t, KafkaAdmin::Committed> committed_offsets(const std::string& bootstrap,
                                                                 const std::string& group, const std::string& topic,
                                                                 const std::vector<int32_t>& partitions) {
  SimpleConsumer rk = simple_consumer(bootstrap, group);
  PartitionList list = partition_list(topic, partitions);
  if (auto e = rd_kafka_committed(rk.get(), list.get(), 30000); e != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw std::runtime_error(std::string("committed: ") + rd_kafka_err2str(e));
  std::map<int32_t, KafkaAdmin::Committed> out;
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    out[tp.partition] = {tp.offset,
                         tp.metadata ? std::string(static_cast<const char*>(tp.metadata), tp.metadata_size) : "",
                         tp.err};
  }
  return out;
}

// Commits `offsets` (partition -> offset), each with `metadata`, as a simple consumer of
// `group`; returns the request's error or the first partition error.
inline rd_kafka_resp_err_t commit_offsets(const std::string& bootstrap, const std::string& group,
                                          const std::string& topic, const std::map<int32_t, int64_t>& offsets,
                                          const std::string& metadata) {
  SimpleConsumer rk = simple_consumer(bootstrap, group);
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [p, o] : offsets) {
    rd_kafka_topic_partition_t* tp = rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
    tp->offset = o;
    tp->metadata = std::malloc(metadata.size() + 1);  // freed by the list (free())
    std::memcpy(tp->metadata, metadata.data(), metadata.size());
    tp->metadata_size = metadata.size();
  }
  rd_kafka_resp_err_t e = rd_kafka_commit(rk.get(), list.get(), 0 /* synchronous */);
  for (int i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && i < list->cnt; ++i) e = list->elems[i].err;
  return e;
}

}  // namespace rokka::testutil
