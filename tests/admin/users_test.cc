// rokka-admin users against build/rokka: a SCRAM user made with `users alter` works at
// once for a librdkafka client over SASL_SSL, rokka-admin itself authenticates over
// SASL_SSL with SCRAM (and PLAIN), a wrong password and a deleted user are refused, and
// the mistakes a user makes get the documented exit codes.
#include <gtest/gtest.h>

#include <array>
#include <boost/asio.hpp>
#include <filesystem>
#include <thread>
#include <fstream>

#include "tests/admin/admin_cli.h"
#include "tests/security/test_pki.h"
#include "tests/testutil/kafka_clients.h"
#include "tests/testutil/rokka_process.h"
#include "tests/testutil/temp_dir.h"

namespace rokka {
namespace {

using security::testing::make_cert;
using security::testing::TestCert;
using security::testing::write_file;
using testutil::admin;

class AdminUsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "data");
    const TestCert ca = make_cert({{"CN", "users-test-ca"}}, nullptr, true);
    const TestCert broker = make_cert({{"CN", "localhost"}}, &ca, false);
    ca_file_ = write_file((dir_ / "ca.pem").string(), ca.cert_pem());
    const std::string keystore = write_file((dir_ / "broker.pem").string(), broker.key_pem() + broker.cert_pem());
    broker_ = std::make_unique<testutil::RokkaProcess>(
        dir_ / "data",
        testutil::RokkaProcess::Overrides{
            {"listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0"},
            {"ssl.keystore.type", "PEM"},
            {"ssl.keystore.location", keystore},
            {"listener.name.sasl_ssl.sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN"},
            {"listener.name.sasl_ssl.plain.sasl.jaas.config",
             "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";"},
            {"num.partitions", "1"},
        });
    broker_->start();
    ASSERT_NE(broker_->port("SASL_SSL"), 0);
  }
  void TearDown() override {
    if (HasFailure()) ADD_FAILURE() << "broker log (tail):\n" << broker_->log_tail(20000);
  }

  std::string sasl_ssl() const { return "127.0.0.1:" + std::to_string(broker_->port("SASL_SSL")); }
  // A --command-config file for SASL_SSL as `user` with `mechanism`.
  std::string config(const std::string& name, const std::string& mechanism, const std::string& user,
                     const std::string& password) const {
    return write_file((dir_ / name).string(), "security.protocol=SASL_SSL\nssl.ca.location=" + ca_file_ +
                                                  "\nsasl.mechanism=" + mechanism + "\nsasl.username=" + user +
                                                  "\nsasl.password=" + password + "\n");
  }
  // rokka-admin over SASL_SSL with the config `file`.
  testutil::AdminRun secure(const std::string& file, std::vector<std::string> args) const {
    args.insert(args.begin(), {"--command-config", file});
    return admin(sasl_ssl(), args);
  }

  testutil::TempDir dir_;
  std::string ca_file_;
  std::unique_ptr<testutil::RokkaProcess> broker_;
};

TEST_F(AdminUsersTest, AUserMadeWithAlterWorksAtOnceAndStopsWhenDeleted) {
  auto run = admin(broker_->bootstrap(), {"users", "alter", "alice", "--password", "alice-secret", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_TRUE(run.json()["users"][0]["error"].IsNull());
  run = admin(broker_->bootstrap(),
              {"users", "alter", "bob", "--mechanism", "SCRAM-SHA-256", "--password", "b", "--iterations", "8192"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();

  // Described with mechanism and iterations, in the text table and the JSON.
  run = admin(broker_->bootstrap(), {"users", "describe"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  const auto rows = testutil::parse_text(run.out).tables[""];
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(rows[0].at("USER"), "alice");
  EXPECT_EQ(rows[0].at("MECHANISM"), "SCRAM-SHA-512");
  EXPECT_EQ(rows[0].at("ITERATIONS"), "4096");
  EXPECT_EQ(rows[1].at("ITERATIONS"), "8192");

  // A librdkafka producer authenticates as alice over SASL_SSL straight away.
  {
    testutil::TestProducer p(sasl_ssl(), {{"security.protocol", "SASL_SSL"},
                                          {"ssl.ca.location", ca_file_},
                                          {"sasl.mechanisms", "SCRAM-SHA-512"},
                                          {"sasl.username", "alice"},
                                          {"sasl.password", "alice-secret"},
                                          {"message.timeout.ms", "15000"}});
    ASSERT_EQ(p.produce("scram-users", 0, std::nullopt, "from alice"), RdKafka::ERR_NO_ERROR);
    const auto delivered = p.flush(std::chrono::seconds(60));
    ASSERT_EQ(delivered.size(), 1u);
    EXPECT_EQ(delivered[0].error, RdKafka::ERR_NO_ERROR);
  }

  // rokka-admin itself over SASL_SSL: as alice with SCRAM-SHA-512, as bob with SCRAM-SHA-256.
  const std::string as_alice = config("alice.properties", "SCRAM-SHA-512", "alice", "alice-secret");
  run = secure(as_alice, {"users", "describe", "alice", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(std::string(run.json()["users"][0]["mechanism"].GetString()), "SCRAM-SHA-512");
  run = secure(config("bob.properties", "SCRAM-SHA-256", "bob", "b"), {"users", "describe", "bob"});
  EXPECT_EQ(run.exit_code, 0) << run.describe();
  // A wrong password: Kafka's SASL_AUTHENTICATION_FAILED, exit 1.
  run = secure(config("wrong.properties", "SCRAM-SHA-512", "alice", "not-it"), {"users", "describe"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_NE(run.err.find("Authentication failed during authentication due to invalid credentials"), std::string::npos)
      << run.err;

  // Deleted (by the PLAIN admin over SASL_SSL): alice is refused at once.
  run = secure(config("admin.properties", "PLAIN", "admin", "admin-secret"),
               {"users", "delete", "alice", "--mechanism", "SCRAM-SHA-512"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  run = secure(as_alice, {"users", "describe"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  run = admin(broker_->bootstrap(), {"users", "describe", "alice", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.describe();
  EXPECT_EQ(std::string(run.json()["users"][0]["error"].GetString()), "RESOURCE_NOT_FOUND");
}

TEST_F(AdminUsersTest, MistakesGetTheUsageExitCode) {
  EXPECT_EQ(admin(broker_->bootstrap(), {"users", "alter", "carol"}).exit_code, 2) << "no --password";
  EXPECT_EQ(admin(broker_->bootstrap(), {"users", "alter", "carol", "--password", "p", "--mechanism", "MD5"}).exit_code,
            2);
  auto run = admin(broker_->bootstrap(), {"users", "alter", "carol", "--password", "p", "--iterations", "100"});
  EXPECT_EQ(run.exit_code, 2) << run.describe();
  EXPECT_NE(run.err.find("Too few iterations"), std::string::npos) << run.err;
  EXPECT_EQ(admin(broker_->bootstrap(), {"users", "delete"}).exit_code, 2) << "no user named";
  // Nothing was made by the refused commands.
  run = admin(broker_->bootstrap(), {"users", "describe", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.json()["users"].Size(), 0u);
}

// A "broker" that answers one request with `reply` and closes: rokka-admin's own
// connection (users) must turn a hostile response into exit 1, never a crash or a hang.
class OneReplyServer {
 public:
  explicit OneReplyServer(std::vector<unsigned char> reply)
      : acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}), reply_(std::move(reply)) {
    thread_ = std::thread([this] {
      boost::system::error_code ec;
      boost::asio::ip::tcp::socket s(io_);
      acceptor_.accept(s, ec);
      if (ec) return;
      std::array<unsigned char, 4> size{};
      boost::asio::read(s, boost::asio::buffer(size), ec);  // the request's size, then its bytes
      std::vector<unsigned char> request((size_t{size[0]} << 24) | (size_t{size[1]} << 16) | (size_t{size[2]} << 8) | size[3]);
      if (!ec) boost::asio::read(s, boost::asio::buffer(request), ec);
      boost::asio::write(s, boost::asio::buffer(reply_), ec);
      s.close(ec);
    });
  }
  ~OneReplyServer() {
    boost::system::error_code ec;
    acceptor_.close(ec);
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::vector<unsigned char> reply_;
  std::thread thread_;
};

TEST(AdminUsersHostileTest, OversizedTruncatedAndGarbledResponsesExitOne) {
  // Correlation id 1 (rokka-admin's first request), then what follows.
  const std::vector<std::vector<unsigned char>> replies = {
      {0x7f, 0xff, 0xff, 0xff},                    // a frame of 2 GiB: refused before allocating
      {0x00, 0x00, 0x00, 0x40, 0, 0, 0, 1, 0, 0},  // 64 bytes promised, 6 sent, then closed
      {0x00, 0x00, 0x00, 0x0a, 0, 0, 0, 1, 0, 0, 0, 0, 0x80, 0x00},  // a body that does not decode
      {0x00, 0x00, 0x00, 0x04, 0, 0, 0, 9},        // another correlation id
  };
  for (size_t i = 0; i < replies.size(); ++i) {
    OneReplyServer server(replies[i]);
    const auto run = admin(server.address(), {"--timeout", "5000", "users", "describe", "--json"});
    EXPECT_EQ(run.exit_code, 1) << "reply " << i << ": " << run.describe();
    EXPECT_TRUE(run.json()["error"].IsString()) << "reply " << i << ": " << run.describe();
  }
}

}  // namespace
}  // namespace rokka
