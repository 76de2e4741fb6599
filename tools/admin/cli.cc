#include "tools/admin/cli.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "tools/admin/text.h"

namespace rokka::admin {

namespace {

constexpr const char* kProgram = "rokka-admin";
constexpr unsigned kHelpWidth = 100;  // --help lines

po::options_description global_options(ClientOptions& client, bool& json) {
  po::options_description d("Global options", kHelpWidth, kHelpWidth / 2);
  d.add_options()("bootstrap-server,b",
                  po::value(&client.bootstrap)->default_value(client.bootstrap)->value_name("HOST:PORT"),
                  "broker(s) to connect to (comma-separated)")(
      "command-config", po::value(&client.command_config)->value_name("FILE"),
      "client properties file (key=value lines) passed to librdkafka, e.g. security settings")(
      "json", po::bool_switch(&json), "print one JSON document instead of tables")(
      "timeout", po::value(&client.timeout_ms)->default_value(client.timeout_ms)->value_name("MS"),
      "request timeout in milliseconds")("verbose,v", po::bool_switch(&client.verbose),
                                         "show librdkafka's log on stderr")("help,h", "show help");
  return d;
}

// Global options that take a value as the next word (the walk down the tree skips it).
bool takes_value(const std::string& arg) {
  static const std::set<std::string> kWithValue = {"-b", "--bootstrap-server", "--command-config", "--timeout"};
  return kWithValue.count(arg) != 0;
}

const Command* child(const Command& group, const std::string& name) {
  for (const Command& c : group.subcommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::string path_of(const std::vector<const Command*>& path) {
  std::string out = kProgram;
  for (size_t i = 1; i < path.size(); ++i) out += " " + path[i]->name;
  return out;
}

void print_group_help(std::ostream& out, const std::vector<const Command*>& path) {
  const Command& group = *path.back();
  out << "Usage: " << path_of(path) << " COMMAND [options]\n\n" << group.summary << "\n\nCommands:\n";
  size_t width = 0;
  for (const Command& c : group.subcommands) width = std::max(width, c.name.size());
  for (const Command& c : group.subcommands)
    out << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << c.summary << "\n";
  if (!group.description.empty()) out << "\n" << group.description << "\n";
  out << "\nRun '" << path_of(path) << " COMMAND --help' for a command's options.\n";
}

void print_leaf_help(std::ostream& out, const std::vector<const Command*>& path, const po::options_description& own,
                     const po::options_description& global) {
  const Command& leaf = *path.back();
  out << "Usage: " << path_of(path) << (leaf.words.empty() ? "" : " " + leaf.words) << " [options]\n\n"
      << leaf.summary << "\n";
  if (!leaf.description.empty()) out << "\n" << leaf.description << "\n";
  if (!own.options().empty()) out << "\n" << own;
  out << "\n" << global;
}

// The leaf's own options (the global ones are added beside them).
po::options_description own_options(const Command& leaf) {
  po::options_description d("Options", kHelpWidth, kHelpWidth / 2);
  if (leaf.options) {
    auto init = d.add_options();
    leaf.options(init);
  }
  return d;
}

}  // namespace

Value item_error(const std::string& item, rd_kafka_resp_err_t err, const char* message) {
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return nullptr;
  std::cerr << kProgram << ": " << item << ": " << error_name(err) << ": "
            << (message != nullptr && *message != '\0' ? message : rd_kafka_err2str(err)) << "\n";
  return error_name(err);
}

void Invocation::print(const Document& doc) const { doc.print(std::cout, format_); }

int run(const Command& root, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<const Command*> path = {&root};
  bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                    std::find(args.begin(), args.end(), "-h") != args.end();
  const auto usage_failure = [&](const std::string& what) {
    std::cerr << kProgram << ": " << what << "\nRun '" << path_of(path) << " --help' for usage.\n";
    if (json) print_json_error(std::cout, "USAGE", what);
    return kExitUsage;
  };
  try {
    // Walk down the tree: the first bare words name the command.
    for (size_t i = 0; i < args.size() && !path.back()->subcommands.empty();) {
      const std::string& a = args[i];
      if (a == "--") break;
      if (!a.empty() && a[0] == '-') {
        i += takes_value(a) ? 2 : 1;
        continue;
      }
      const Command* next = child(*path.back(), a);
      if (next == nullptr) throw UsageError("unknown command '" + a + "' for '" + path_of(path) + "'");
      path.push_back(next);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    }
    const Command& command = *path.back();
    if (!command.subcommands.empty()) {
      if (help) {
        print_group_help(std::cout, path);
        return kExitOk;
      }
      throw UsageError(path.size() == 1 ? "no command given" : "'" + path_of(path) + "' needs a command");
    }

    ClientOptions client;
    const po::options_description own = own_options(command);
    const po::options_description global = global_options(client, json);
    po::options_description hidden;
    hidden.add_options()("words", po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(own).add(global).add(hidden);
    po::positional_options_description positional;
    positional.add("words", -1);
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      print_leaf_help(std::cout, path, own, global);
      return kExitOk;
    }
    po::notify(vm);
    std::vector<std::string> words;
    if (vm.count("words")) words = vm["words"].as<std::vector<std::string>>();
    if (command.words.empty() && !words.empty()) throw UsageError("unexpected argument '" + words[0] + "'");
    if (words.size() < command.min_words) throw UsageError("missing " + command.words);
    if (command.max_words != 0 && words.size() > command.max_words)
      throw UsageError("too many arguments (expected " + command.words + ")");
    if (client.timeout_ms <= 0) throw UsageError("--timeout must be positive");
    return command.run(Invocation(client, json ? Format::kJson : Format::kText, std::move(vm), std::move(words)));
  } catch (const po::error& e) {
    return usage_failure(e.what());
  } catch (const UsageError& e) {
    return usage_failure(e.what());
  } catch (const KafkaError& e) {
    std::cerr << kProgram << ": " << e.what() << "\n";
    if (json) print_json_error(std::cout, error_name(e.code()), e.what());
    return kExitKafkaError;
  } catch (const std::exception& e) {  // not expected: still one line and a failure, not an abort
    std::cerr << kProgram << ": " << e.what() << "\n";
    if (json) print_json_error(std::cout, "INTERNAL", e.what());
    return kExitKafkaError;
  }
}

}  // namespace rokka::admin
