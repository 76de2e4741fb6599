// What a command prints, built once and rendered either for a person (aligned tables)
// or for a script (one JSON document). A Document has top-level fields and named
// tables; in JSON a field is a member and a table an array of objects keyed by its
// column names, so both renderings carry the same values.
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace rokka::admin {

// One cell: null, a boolean, an integer, a string, a list (a partition's replicas) or
// an object (a record header).
struct Value {
  using List = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;
  std::variant<std::monostate, bool, int64_t, std::string, List, Object> data;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : data(b) {}
  template <std::integral T>
  requires(!std::same_as<T, bool>) Value(T v) : data(static_cast<int64_t>(v)) {}
  Value(std::string s) : data(std::move(s)) {}
  Value(const char* s) : data(std::string(s)) {}
  Value(List list) : data(std::move(list)) {}
  Value(Object object) : data(std::move(object)) {}
  template <typename T>
  Value(const std::optional<T>& v) {
    if (v) *this = Value(*v);
  }
  template <typename T>
  requires(!std::same_as<T, Value>) Value(const std::vector<T>& items) : data(List(items.begin(), items.end())) {}

  bool is_null() const { return std::holds_alternative<std::monostate>(data); }
};

// Rows of named columns. Column names are snake_case (JSON keys); a person sees them
// upper-case with dashes (LOG-END-OFFSET).
struct Table {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;

  void add(std::vector<Value> row);  // one value per column
};

enum class Format { kText, kJson };

class Document {
 public:
  void set(const std::string& key, Value value);
  // A new table, filled through the reference (valid as long as the document).
  Table& table(std::string name, std::vector<std::string> columns);

  // Text: fields as aligned "KEY  value" lines, then each table (with its name as a
  // heading when the document has more than one part). JSON: one object, one line.
  void print(std::ostream& out, Format format) const;

 private:
  std::vector<std::pair<std::string, Value>> fields_;
  std::deque<Table> tables_;  // a deque: table() references stay valid
};

// Writes {"error": NAME, "message": TEXT}: what --json prints when a command fails.
void print_json_error(std::ostream& out, const std::string& name, const std::string& message);

// The text a person sees for a value: null is "-", lists are comma-separated, objects
// are key=value pairs.
std::string to_text(const Value& value);

}  // namespace rokka::admin
