// rokka-admin consume: read records for a quick check, kcat-style: chosen partitions
// from an offset, a count, exit at the end, kcat's format tokens.
#include <algorithm>
#include <csignal>
#include <iostream>
#include <set>

#include "tools/admin/cli.h"
#include "tools/admin/commands.h"
#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

using Message = Owned<rd_kafka_message_t, rd_kafka_message_destroy>;

// beginning, end, N, or -N (N before the end).
int64_t parse_start(const std::string& text) {
  if (text == "beginning") return RD_KAFKA_OFFSET_BEGINNING;
  if (text == "end") return RD_KAFKA_OFFSET_END;
  const int64_t n = parse_int64(text, "--offset");
  return n < 0 ? RD_KAFKA_OFFSET_TAIL(-n) : n;
}

std::optional<std::string> key_of(const rd_kafka_message_t& m) {
  if (m.key == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(m.key), m.key_len);
}
std::optional<std::string> value_of(const rd_kafka_message_t& m) {
  if (m.payload == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(m.payload), m.len);
}
std::vector<std::pair<std::string, std::optional<std::string>>> headers_of(const rd_kafka_message_t& m) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  rd_kafka_headers_t* h = nullptr;
  if (rd_kafka_message_headers(&m, &h) != RD_KAFKA_RESP_ERR_NO_ERROR) return out;
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  for (size_t i = 0; rd_kafka_header_get_all(h, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i)
    out.emplace_back(
        name, value ? std::optional<std::string>(std::string(static_cast<const char*>(value), size)) : std::nullopt);
  return out;
}

// kcat's -f tokens: %t topic, %p partition, %o offset, %k key, %K key size, %s value,
// %S value size, %h headers (k=v,...), %T timestamp (ms); \n, \t, \\ and %% escapes.
std::string format_message(const std::string& format, const rd_kafka_message_t& m) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if ((c != '%' && c != '\\') || i + 1 == format.size()) {
      out += c;
      continue;
    }
    const char t = format[++i];
    if (c == '\\') {
      out += t == 'n' ? '\n' : t == 't' ? '\t' : t;
      continue;
    }
    switch (t) {
      case 't': out += rd_kafka_topic_name(m.rkt); break;
      case 'p': out += std::to_string(m.partition); break;
      case 'o': out += std::to_string(m.offset); break;
      case 'k': out += key_of(m).value_or(""); break;
      case 'K': out += m.key ? std::to_string(m.key_len) : "-1"; break;
      case 's': out += value_of(m).value_or(""); break;
      case 'S': out += m.payload ? std::to_string(m.len) : "-1"; break;
      case 'T': out += std::to_string(rd_kafka_message_timestamp(&m, nullptr)); break;
      case 'h': {
        std::string joined;
        for (const auto& [k, v] : headers_of(m)) joined += (joined.empty() ? "" : ",") + k + "=" + v.value_or("");
        out += joined;
        break;
      }
      case '%': out += '%'; break;
      default:
        out += '%';
        out += t;
        break;  // check_format() refused these
    }
  }
  return out;
}

void check_format(const std::string& format) {
  for (size_t i = 0; i + 1 < format.size(); ++i) {
    if (format[i] == '\\') {
      ++i;
    } else if (format[i] == '%') {
      const char t = format[++i];
      if (std::string_view("tpokKsShT%").find(t) == std::string_view::npos)
        throw UsageError(std::string("--format: unknown token %") + t);
    }
  }
}

// A message as JSON wants it: payloads that are not UTF-8 are base64 ("encoding").
std::vector<Value> message_row(const rd_kafka_message_t& m) {
  const auto key = key_of(m);
  const auto value = value_of(m);
  const auto headers = headers_of(m);
  bool text = (!key || valid_utf8(*key)) && (!value || valid_utf8(*value));
  for (const auto& [_, v] : headers) text = text && (!v || valid_utf8(*v));
  const auto encode = [&](const std::optional<std::string>& s) -> Value {
    if (!s) return nullptr;
    return text ? *s : base64(*s);
  };
  Value::List header_list;
  for (const auto& [k, v] : headers) header_list.push_back(Value::Object{{"key", k}, {"value", encode(v)}});
  return {m.partition,
          m.offset,
          rd_kafka_message_timestamp(&m, nullptr),
          encode(key),
          encode(value),
          header_list,
          text ? "utf8" : "base64"};
}

int run_consume(const Invocation& inv) {
  const std::string& topic = inv.words()[0];
  const int64_t start =
      inv.has("from-beginning") ? RD_KAFKA_OFFSET_BEGINNING : parse_start(inv.get<std::string>("offset"));
  const int64_t count = inv.has("count") ? inv.get<int64_t>("count") : -1;
  const bool exit_at_end = inv.has("exit");
  const std::string format = inv.get<std::string>("format");
  check_format(format);

  // librdkafka's assign() wants a group id; this consumer never joins it nor commits.
  Client client(inv.client(), RD_KAFKA_CONSUMER,
                {{"group.id", "rokka-admin-consume"},
                 {"enable.partition.eof", exit_at_end ? "true" : "false"},
                 {"enable.auto.commit", "false"},
                 {"fetch.wait.max.ms", "100"}});
  rd_kafka_poll_set_consumer(client.handle());
  const Metadata md = client.metadata();
  std::vector<int32_t> partitions;
  for (const std::string& p : inv.list("partition")) partitions.push_back(parse_int32(p, "--partition"));
  const std::vector<int32_t> existing = Client::partitions_of(*md, topic);
  if (partitions.empty()) partitions = existing;
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (int32_t p : partitions) {
    if (std::find(existing.begin(), existing.end(), p) == existing.end())
      throw KafkaError(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "partition " + topic + ":" + std::to_string(p));
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = start;
  }
  if (const rd_kafka_resp_err_t e = rd_kafka_assign(client.handle(), list.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw KafkaError(e, "assign");

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  Document doc;
  doc.set("topic", topic);
  Table& messages = doc.table("messages", {"partition", "offset", "timestamp", "key", "value", "headers", "encoding"});
  std::set<int32_t> at_end;
  int64_t received = 0;
  std::optional<KafkaError> failure;
  while (!g_stop && (count < 0 || received < count) && !(exit_at_end && at_end.size() == partitions.size())) {
    Message m(rd_kafka_consumer_poll(client.handle(), 100));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end.insert(m->partition);
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      failure.emplace(m->err, "consume " + topic + ":" + std::to_string(m->partition));
      break;
    }
    at_end.erase(m->partition);
    ++received;
    if (inv.json()) {
      messages.add(message_row(*m));
    } else {
      std::cout << format_message(format, *m) << std::flush;
    }
  }
  rd_kafka_consumer_close(client.handle());
  if (failure) throw *failure;  // with --json, the one document is the error
  if (inv.json()) inv.print(doc);
  return kExitOk;
}

}  // namespace

Command consume_command() {
  using Strings = std::vector<std::string>;
  return {.name = "consume",
          .summary = "read records from chosen partitions (librdkafka consumer, no group)",
          .words = "TOPIC",
          .min_words = 1,
          .max_words = 1,
          .options =
              [](po::options_description_easy_init& add) {
                add("partition,p", po::value<Strings>()->composing()->value_name("N"),
                    "a partition to read (repeatable; default: all)");
                add("offset,o", po::value<std::string>()->default_value("end")->value_name("WHERE"),
                    "where to start: beginning, end, N, or -N (N records before the end)");
                add("from-beginning", "same as --offset beginning");
                add("count,c", po::value<int64_t>()->value_name("N"), "stop after N records");
                add("exit,e", "stop when every partition has been read to its end");
                add("format,f", po::value<std::string>()->default_value("%s\\n")->value_name("FMT"),
                    "kcat's tokens: %t topic, %p partition, %o offset, %k key, %K key size, %s value, "
                    "%S value size, %h headers, %T timestamp; \\n \\t");
              },
          .description =
              "Without --count or --exit it reads until interrupted (Ctrl-C). With --json the\n"
              "records are printed as one document when it stops; keys, values and header values\n"
              "that are not UTF-8 are base64 (the record's encoding says which).",
          .run = run_consume};
}

}  // namespace rokka::admin
