#include "tools/admin/output.h"

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <stdexcept>

#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::OStreamWrapper>;

// A string JSON can carry: invalid UTF-8 sequences become U+FFFD (message payloads,
// which may be binary, are base64-encoded by consume before they get here).
std::string json_safe(const std::string& s) { return valid_utf8(s) ? s : to_valid_utf8(s); }

void write_key(JsonWriter& w, const std::string& key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void write_json(JsonWriter& w, const Value& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          w.Null();
        } else if constexpr (std::is_same_v<T, bool>) {
          w.Bool(x);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          w.Int64(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          const std::string s = json_safe(x);
          w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
        } else if constexpr (std::is_same_v<T, Value::List>) {
          w.StartArray();
          for (const Value& item : x) write_json(w, item);
          w.EndArray();
        } else {
          w.StartObject();
          for (const auto& [key, item] : x) {
            write_key(w, key);
            write_json(w, item);
          }
          w.EndObject();
        }
      },
      v.data);
}

// LOG-END-OFFSET for log_end_offset.
std::string heading(const std::string& name) {
  std::string out = name;
  for (char& c : out) c = c == '_' ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void print_rows(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << line << '\n';
  }
}

}  // namespace

void Table::add(std::vector<Value> row) {
  if (row.size() != columns.size()) throw std::logic_error("table " + name + ": row does not match its columns");
  rows.push_back(std::move(row));
}

void Document::set(const std::string& key, Value value) { fields_.emplace_back(key, std::move(value)); }

Table& Document::table(std::string name, std::vector<std::string> columns) {
  tables_.push_back(Table{std::move(name), std::move(columns), {}});
  return tables_.back();
}

std::string to_text(const Value& value) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "-";
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return std::to_string(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return x;
        } else if constexpr (std::is_same_v<T, Value::List>) {
          std::string joined;
          for (const Value& item : x) joined += (joined.empty() ? "" : ",") + to_text(item);
          return joined;
        } else {
          std::string joined;
          for (const auto& [key, item] : x) joined += (joined.empty() ? "" : ",") + key + "=" + to_text(item);
          return joined;
        }
      },
      value.data);
}

void Document::print(std::ostream& out, Format format) const {
  if (format == Format::kJson) {
    rapidjson::OStreamWrapper stream(out);
    JsonWriter w(stream);
    w.StartObject();
    for (const auto& [key, value] : fields_) {
      write_key(w, key);
      write_json(w, value);
    }
    for (const Table& t : tables_) {
      write_key(w, t.name);
      w.StartArray();
      for (const auto& row : t.rows) {
        w.StartObject();
        for (size_t i = 0; i < row.size(); ++i) {
          write_key(w, t.columns[i]);
          write_json(w, row[i]);
        }
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
    out << '\n';
    return;
  }
  const bool headings = (fields_.empty() ? 0 : 1) + tables_.size() > 1;
  bool first = true;
  if (!fields_.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [key, value] : fields_) rows.push_back({heading(key), to_text(value)});
    print_rows(out, rows);
    first = false;
  }
  for (const Table& t : tables_) {
    if (!first) out << '\n';
    first = false;
    if (headings) out << heading(t.name) << '\n';
    std::vector<std::vector<std::string>> rows;
    rows.emplace_back();
    for (const auto& c : t.columns) rows.back().push_back(heading(c));
    for (const auto& row : t.rows) {
      rows.emplace_back();
      for (const Value& v : row) rows.back().push_back(to_text(v));
    }
    print_rows(out, rows);
  }
}

void print_json_error(std::ostream& out, const std::string& name, const std::string& message) {
  Document doc;
  doc.set("error", name);
  doc.set("message", message);
  doc.print(out, Format::kJson);
}

}  // namespace rokka::admin
