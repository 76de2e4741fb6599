// Runs build/rokka-admin as a child process and reads what it printed the way a user
// or a script would: its exit code, its JSON document (parsed with rapidjson), or its
// tables (cells found by the columns' positions under their headings).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil/temp_dir.h"

namespace rokka::testutil {

struct AdminRun {
  int exit_code = -1;
  std::string out;
  std::string err;

  // The one JSON document on stdout (a parse failure fails the test).
  rapidjson::Document json() const {
    rapidjson::Document doc;
    doc.Parse(out.c_str());
    EXPECT_FALSE(doc.HasParseError()) << "not one JSON document: " << out;
    if (doc.HasParseError()) doc.Parse("{}");
    return doc;
  }
  std::string describe() const { return "exit " + std::to_string(exit_code) + "\nstdout:\n" + out + "stderr:\n" + err; }
};

// Runs rokka-admin with `args` (and `input` on stdin); kills it after 60 s.
inline AdminRun run_admin(const std::vector<std::string>& args, const std::string& input = "") {
  TempDir dir;
  const std::string in_path = dir / "in", out_path = dir / "out", err_path = dir / "err";
  std::ofstream(in_path) << input;
  std::vector<std::string> argv_s = {ROKKA_ADMIN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open(in_path.c_str(), O_RDONLY), 0);
    ::dup2(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  AdminRun run;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "rokka-admin did not finish in 60 s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto slurp = [](const std::string& path) {
    std::stringstream ss;
    ss << std::ifstream(path).rdbuf();
    return ss.str();
  };
  run.out = slurp(out_path);
  run.err = slurp(err_path);
  return run;
}

// rokka-admin against `bootstrap`.
inline AdminRun admin(const std::string& bootstrap, std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), {"--bootstrap-server", bootstrap});
  return run_admin(args, input);
}

// The tables of rokka-admin's text output: a heading line (when there are several
// parts), a line of column names, then rows; a cell spans from its column's start to
// the next column's. Key/value lines before the tables go to fields.
struct TextOutput {
  using Row = std::map<std::string, std::string>;
  std::map<std::string, std::string> fields;
  std::map<std::string, std::vector<Row>> tables;  // "" names the only table of a one-table output
};

inline TextOutput parse_text(const std::string& text) {
  std::vector<std::vector<std::string>> blocks(1);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      blocks.emplace_back();
    } else {
      blocks.back().push_back(line);
    }
  }
  const auto trim = [](std::string s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
  };
  TextOutput out;
  for (size_t b = 0; b < blocks.size(); ++b) {
    auto& lines = blocks[b];
    if (lines.empty()) continue;
    std::string name;
    if (lines.size() >= 2 && lines[0].find(' ') == std::string::npos) {  // a heading
      name = lines[0];
      lines.erase(lines.begin());
    } else if (b == 0 && blocks.size() > 1) {  // key/value fields
      for (const std::string& l : lines) {
        const size_t gap = l.find("  ");
        out.fields[l.substr(0, gap)] = gap == std::string::npos ? "" : trim(l.substr(gap));
      }
      continue;
    }
    std::vector<std::pair<std::string, size_t>> columns;  // name, start
    const std::string& header = lines[0];
    for (size_t i = 0; i < header.size();) {
      const size_t start = header.find_first_not_of(' ', i);
      if (start == std::string::npos) break;
      const size_t end = std::min(header.find("  ", start), header.size());
      columns.emplace_back(header.substr(start, end - start), start);
      i = end;
    }
    auto& rows = out.tables[name];
    for (size_t r = 1; r < lines.size(); ++r) {
      TextOutput::Row row;
      for (size_t c = 0; c < columns.size(); ++c) {
        const size_t start = columns[c].second;
        const size_t end = c + 1 < columns.size() ? columns[c + 1].second : std::string::npos;
        row[columns[c].first] = start < lines[r].size() ? trim(lines[r].substr(start, end - start)) : "";
      }
      rows.push_back(std::move(row));
    }
  }
  return out;
}

// The JSON array member `name` of `doc`'s object (empty-array stand-in if missing).
inline const rapidjson::Value& array_of(const rapidjson::Value& doc, const char* name) {
  static const rapidjson::Value kEmpty(rapidjson::kArrayType);
  if (!doc.IsObject() || !doc.HasMember(name) || !doc[name].IsArray()) {
    ADD_FAILURE() << "no array '" << name << "'";
    return kEmpty;
  }
  return doc[name];
}

// The first element of `array` whose member `key` is the string `value`, or nullptr.
inline const rapidjson::Value* find_by(const rapidjson::Value& array, const char* key, const std::string& value) {
  for (const auto& item : array.GetArray())
    if (item.HasMember(key) && item[key].IsString() && value == item[key].GetString()) return &item;
  return nullptr;
}

}  // namespace rokka::testutil
