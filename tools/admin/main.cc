// rokka-admin: a command-line admin client for Rokka (and any Kafka cluster) on
// librdkafka's Admin API. Usage and exit codes: docs/rokka-admin.md.
#include "tools/admin/commands.h"

int main(int argc, char** argv) {
  using namespace rokka::admin;
  const Command root{.name = "rokka-admin",
                     .summary = "Administer a Rokka (or Kafka) cluster through librdkafka.",
                     .description = "Exit codes: 0 ok, 1 a Kafka request (or an item in it) failed, 2 usage error.",
                     .subcommands = {topics_command(), groups_command(), acls_command(), cluster_command(),
                                     produce_command(), consume_command(), users_command()}};
  return run(root, argc, argv);
}
