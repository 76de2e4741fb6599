// Small text helpers shared by the commands: parsing what the user typed (numbers,
// key=value pairs, topic:partitions, datetimes) and making bytes printable.
// Parsers throw UsageError (exit code 2) with the offending text.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rokka::admin {

// The command line is wrong: exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int64_t parse_int64(std::string_view text, std::string_view what);
int32_t parse_int32(std::string_view text, std::string_view what);

// "key=value" (the value may contain '=').
std::pair<std::string, std::string> parse_key_value(std::string_view text, std::string_view what);

std::vector<std::string> split(std::string_view text, char separator);

// "topic" (every partition: nullopt) or "topic:0,2,5".
struct TopicSpec {
  std::string topic;
  std::optional<std::vector<int32_t>> partitions;
};
TopicSpec parse_topic_spec(std::string_view text);

// Milliseconds since the epoch from "2024-05-01T12:00:00[.123][Z|+02:00]" (no zone:
// local time, as Kafka's tools read it) or from a plain integer of milliseconds.
int64_t parse_datetime_ms(std::string_view text);

// Upper-case with '-' and '_' removed: "describe-configs", "DescribeConfigs" and
// "DESCRIBE_CONFIGS" all read as DESCRIBECONFIGS.
std::string normalized_name(std::string_view text);

bool valid_utf8(std::string_view bytes);
std::string to_valid_utf8(std::string_view bytes);  // invalid sequences become U+FFFD
std::string base64(std::string_view bytes);

}  // namespace rokka::admin
