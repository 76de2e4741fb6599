// rokka-admin produce: write records for a quick check, kcat-style (one record per
// stdin line, or --value), with a key, headers and a partition.
#include <iostream>
#include <map>

#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

using Headers = Owned<rd_kafka_headers_t, rd_kafka_headers_destroy>;

struct Record {
  std::optional<std::string> key;
  std::string value;
};

// What delivery reports said, per partition.
struct Deliveries {
  struct Partition {
    int64_t records = 0;
    int64_t first_offset = -1;
    int64_t last_offset = -1;
  };
  std::map<int32_t, Partition> partitions;
  std::map<rd_kafka_resp_err_t, int64_t> failures;
  int64_t reported = 0;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto& d = *static_cast<Deliveries*>(opaque);
  ++d.reported;
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++d.failures[m->err];
    return;
  }
  Deliveries::Partition& p = d.partitions[m->partition];
  ++p.records;
  if (p.first_offset < 0 || m->offset < p.first_offset) p.first_offset = m->offset;
  p.last_offset = std::max(p.last_offset, m->offset);
}

std::vector<Record> read_records(const Invocation& inv) {
  std::optional<std::string> key;
  if (inv.has("key")) key = inv.get<std::string>("key");
  const std::string delimiter = inv.has("key-delimiter") ? inv.get<std::string>("key-delimiter") : "";
  if (inv.has("key-delimiter") && delimiter.empty()) throw UsageError("--key-delimiter must not be empty");
  std::vector<std::string> values = inv.list("value");
  if (values.empty()) {
    for (std::string line; std::getline(std::cin, line);) values.push_back(line);
  }
  std::vector<Record> out;
  for (std::string& v : values) {
    if (delimiter.empty()) {
      out.push_back({key, std::move(v)});
      continue;
    }
    const size_t at = v.find(delimiter);
    if (at == std::string::npos) throw UsageError("record '" + v + "' has no key delimiter '" + delimiter + "'");
    out.push_back({v.substr(0, at), v.substr(at + delimiter.size())});
  }
  return out;
}

Headers make_headers(const std::vector<std::pair<std::string, std::string>>& headers) {
  Headers h(rd_kafka_headers_new(headers.size()));
  for (const auto& [k, v] : headers)
    rd_kafka_header_add(h.get(), k.data(), static_cast<ssize_t>(k.size()), v.data(), static_cast<ssize_t>(v.size()));
  return h;
}

int run_produce(const Invocation& inv) {
  const std::string& topic = inv.words()[0];
  const int32_t partition = inv.get<int32_t>("partition");
  std::vector<std::pair<std::string, std::string>> headers;
  for (const std::string& kv : inv.list("header")) headers.push_back(parse_key_value(kv, "--header"));
  const std::vector<Record> records = read_records(inv);

  Deliveries deliveries;
  Client client(inv.client(), RD_KAFKA_PRODUCER, {{"linger.ms", "5"}}, [&](rd_kafka_conf_t* conf) {
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, &deliveries);
  });
  for (const Record& r : records) {
    const void* key = r.key ? r.key->data() : nullptr;  // the macros below cast without parentheses
    const size_t key_size = r.key ? r.key->size() : 0;
    while (true) {
      Headers h = make_headers(headers);
      const rd_kafka_resp_err_t err = rd_kafka_producev(
          client.handle(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE(const_cast<char*>(r.value.data()), r.value.size()),
          RD_KAFKA_V_KEY(key, key_size), RD_KAFKA_V_HEADERS(h.get()), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        (void)h.release();  // the message owns its headers now
        break;
      }
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {  // refused at once (an unknown partition): no report comes
        ++deliveries.failures[err];
        ++deliveries.reported;
        break;
      }
      rd_kafka_poll(client.handle(), 100);
    }
    rd_kafka_poll(client.handle(), 0);
  }
  rd_kafka_flush(client.handle(), client.timeout_ms());
  const int64_t undelivered = static_cast<int64_t>(records.size()) - deliveries.reported;
  if (undelivered > 0) deliveries.failures[RD_KAFKA_RESP_ERR__TIMED_OUT] += undelivered;

  Document doc;
  doc.set("topic", topic);
  int64_t failed = 0;
  for (const auto& [err, n] : deliveries.failures) {
    failed += n;
    item_error(std::to_string(n) + " record(s)", err);
  }
  doc.set("failed", failed);
  Table& t = doc.table("produced", {"partition", "records", "first_offset", "last_offset"});
  for (const auto& [p, d] : deliveries.partitions) t.add({p, d.records, d.first_offset, d.last_offset});
  inv.print(doc);
  return exit_code(failed != 0);
}

}  // namespace

Command produce_command() {
  using Strings = std::vector<std::string>;
  return {.name = "produce",
          .summary = "write records: one per stdin line, or --value (librdkafka producer)",
          .words = "TOPIC",
          .min_words = 1,
          .max_words = 1,
          .options =
              [](po::options_description_easy_init& add) {
                add("value", po::value<Strings>()->composing()->value_name("TEXT"),
                    "a record's value (repeatable); without it, each stdin line is a record");
                add("key,k", po::value<std::string>()->value_name("KEY"), "the key of every record");
                add("key-delimiter,K", po::value<std::string>()->value_name("DELIM"),
                    "split each record at the first DELIM into key and value (as kcat -K)");
                add("header,H", po::value<Strings>()->composing()->value_name("KEY=VALUE"),
                    "a header on every record (repeatable)");
                add("partition,p", po::value<int32_t>()->default_value(RD_KAFKA_PARTITION_UA)->value_name("N"),
                    "the partition (-1: librdkafka's partitioner, by key)");
              },
          .description =
              "Waits for every delivery report (acks=all) and prints, per partition, how many\n"
              "records landed and at which offsets.",
          .run = run_produce};
}

}  // namespace rokka::admin
