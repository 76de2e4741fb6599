// Reader for the golden files written by tests/protocol/golden/gen.py.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/testutil/hex.h"

namespace rokka::protocol {

// One version and variant of a message: the frame, and every field's path and token.
struct GoldenCase {
  std::vector<std::byte> frame;
  std::vector<std::string> paths;
  std::vector<std::string> flat;

  // The token of the field at `path` ("Topics.1.Partitions.0.Index"); throws if absent.
  const std::string& at(const std::string& path) const {
    for (size_t i = 0; i < paths.size() && i < flat.size(); ++i) {
      if (paths[i] == path) return flat[i];
    }
    throw std::out_of_range("no golden field " + path);
  }
};

struct GoldenFile {
  std::map<std::pair<int, std::string>, GoldenCase> cases;  // (version, variant)

  static GoldenFile load(const std::string& message_name) {
    GoldenFile g;
    std::ifstream in(std::string(ROKKA_SOURCE_DIR) + "/tests/protocol/golden/" + message_name + ".golden");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream words(line);
      std::string version, variant, kind;
      words >> version >> variant >> kind;
      GoldenCase& c = g.cases[{std::stoi(version.substr(1)), variant}];
      std::vector<std::string> rest;
      for (std::string w; words >> w;) rest.push_back(w);
      if (kind == "frame") {
        c.frame = testutil::from_hex(rest.empty() ? "" : rest[0]);
      } else if (kind == "paths") {
        c.paths = rest;
      } else if (kind == "flat") {
        c.flat = rest;
      }
    }
    return g;
  }

  const GoldenCase* find(int version, const std::string& variant) const {
    auto it = cases.find({version, variant});
    return it == cases.end() ? nullptr : &it->second;
  }
  int min_version() const { return cases.empty() ? -1 : cases.begin()->first.first; }
  int max_version() const { return cases.empty() ? -1 : cases.rbegin()->first.first; }
};

}  // namespace rokka::protocol
