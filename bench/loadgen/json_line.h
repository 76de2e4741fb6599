// JsonLine: builds one flat JSON object, in insertion order, for the run's single output line.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rokka::bench {

class JsonLine {
 public:
  JsonLine& add(std::string_view key, std::string_view value) {
    begin(key);
    quote(value);
    return *this;
  }
  JsonLine& add(std::string_view key, const char* value) { return add(key, std::string_view(value)); }
  JsonLine& add(std::string_view key, int64_t value) {
    begin(key);
    out_ += std::to_string(value);
    return *this;
  }
  JsonLine& add(std::string_view key, uint64_t value) {
    begin(key);
    out_ += std::to_string(value);
    return *this;
  }
  JsonLine& add(std::string_view key, int value) { return add(key, static_cast<int64_t>(value)); }
  // Non-finite numbers (a rate over zero seconds) are written as null.
  JsonLine& add(std::string_view key, double value) {
    begin(key);
    if (!std::isfinite(value)) {
      out_ += "null";
      return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    out_ += buf;
    return *this;
  }

  std::string str() const { return out_ + "}"; }

 private:
  void begin(std::string_view key) {
    out_ += out_.size() == 1 ? "" : ",";
    quote(key);
    out_ += ':';
  }
  void quote(std::string_view s) {
    out_ += '"';
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }

  std::string out_ = "{";
};

}  // namespace rokka::bench
