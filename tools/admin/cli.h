// rokka-admin's command line: a tree of commands ("topics" > "create"), each leaf with
// its own Boost.Program_options description, plus the global options every command
// takes. run() walks argv down the tree, parses the leaf's options, runs it and turns
// failures into the documented exit codes.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

#include "tools/admin/client.h"
#include "tools/admin/output.h"

namespace rokka::admin {

namespace po = boost::program_options;

// Exit codes (docs/rokka-admin.md).
constexpr int kExitOk = 0;
constexpr int kExitKafkaError = 1;  // a request failed, or some item in it did
constexpr int kExitUsage = 2;       // the command line (or --command-config) is wrong

// What a leaf command gets: the global options and its own parsed options.
class Invocation {
 public:
  Invocation(ClientOptions client, Format format, po::variables_map vm, std::vector<std::string> words)
      : client_(std::move(client)), format_(format), vm_(std::move(vm)), words_(std::move(words)) {}

  const ClientOptions& client() const { return client_; }
  Format format() const { return format_; }
  bool json() const { return format_ == Format::kJson; }
  // The bare words after the command (topic names, group ids).
  const std::vector<std::string>& words() const { return words_; }

  bool has(const char* name) const { return vm_.count(name) != 0; }
  template <typename T>
  T get(const char* name) const {
    return vm_[name].as<T>();
  }
  // A repeatable string option; empty when not given.
  std::vector<std::string> list(const char* name) const {
    return has(name) ? get<std::vector<std::string>>(name) : std::vector<std::string>{};
  }

  // Prints `doc` in the chosen format on stdout.
  void print(const Document& doc) const;

 private:
  ClientOptions client_;
  Format format_;
  po::variables_map vm_;
  std::vector<std::string> words_;
};

struct Command {
  std::string name;
  std::string summary;  // one line, for the parent's --help
  // A leaf: its bare words (e.g. "TOPIC..."; empty: none), its options, a longer
  // description for its --help, and what it does (returns an exit code).
  std::string words;
  size_t min_words = 0;
  size_t max_words = 0;  // 0 with words set: any number
  std::function<void(po::options_description_easy_init&)> options;
  std::string description;
  std::function<int(const Invocation&)> run;
  // A group ("topics"): its subcommands.
  std::vector<Command> subcommands;
};

// Parses argv[1..] against the tree under `root`, runs the command, returns its exit code.
int run(const Command& root, int argc, char** argv);

// A command that printed per-item results (a table with an error column) exits 1 when
// any item failed, 0 otherwise.
inline int exit_code(bool any_failed) { return any_failed ? kExitKafkaError : kExitOk; }

// The error cell of a per-item table: null on success, else Kafka's error name (and
// "rokka-admin: ITEM: message" on stderr).
Value item_error(const std::string& item, rd_kafka_resp_err_t err, const char* message = nullptr);

}  // namespace rokka::admin
