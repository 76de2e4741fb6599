#include "broker/link/inter_broker_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <optional>

#include "broker/config/config_schema.h"
#include "broker/link/cluster_link.h"
#include "broker/net/listener_security.h"
#include "protocol/error_code.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "security/jaas_config.h"
#include "security/sasl_client.h"
#include "security/tls_context.h"

namespace rokka::broker {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using asio::ip::tcp;

namespace {

constexpr auto kRequestTimeout = std::chrono::seconds(10);
constexpr uint32_t kMaxResponseBytes = 16u << 20;
constexpr int16_t kSaslHandshakeVersion = 1;     // then SaslAuthenticate frames (KIP-152)
constexpr int16_t kSaslAuthenticateVersion = 2;

bool uses_tls(std::string_view protocol) { return protocol == "SSL" || protocol == "SASL_SSL"; }
bool uses_sasl(std::string_view protocol) { return protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL"; }

// The SASL mechanism and credentials the broker logs in with on its listener `settings`.
struct SaslLogin {
  std::string mechanism, username, password;
};
storage::Result<SaslLogin> sasl_login(const security::ConfigMap& settings, const std::string& listener) {
  SaslLogin login;
  login.mechanism =
      std::string(security::config_value(settings, cfg::kSaslMechanismInterBrokerProtocol.name).value_or("GSSAPI"));
  auto bad = [&](const std::string& why) {
    return storage::Status::invalid_argument("listener " + listener + " for inter-broker requests: " + why);
  };
  const auto jaas = security::mechanism_value(settings, login.mechanism, cfg::kSaslJaasConfig.name);
  if (!jaas)
    return bad("sasl.mechanism.inter.broker.protocol=" + login.mechanism + " but no " +
               security::ascii_lower(login.mechanism) + ".sasl.jaas.config with the broker's username and password");
  auto module = security::parse_server_jaas_config(*jaas);
  if (!module.ok()) return bad(module.error().message());
  if (const std::string* u = module->option("username")) login.username = *u;
  if (const std::string* p = module->option("password")) login.password = *p;
  auto client = security::SaslClient::create(login.mechanism, login.username, login.password);
  if (!client.ok())
    return bad(client.error().message() + " (sasl.mechanism.inter.broker.protocol, and username/password in " +
               security::ascii_lower(login.mechanism) + ".sasl.jaas.config)");
  return login;
}

}  // namespace

storage::Result<size_t> inter_broker_listener(const BrokerConfig& config) {
  const auto& ls = config.listeners;
  if (!config.inter_broker_listener_name.empty()) {
    for (size_t i = 0; i < ls.size(); ++i)
      if (ls[i].name == config.inter_broker_listener_name) return i;
    return storage::Status::invalid_argument("inter.broker.listener.name=" + config.inter_broker_listener_name +
                                             " is not one of the listeners");
  }
  const std::string& protocol = config.security_inter_broker_protocol;
  for (size_t i = 0; i < ls.size(); ++i)
    if (ls[i].name == protocol) return i;
  for (size_t i = 0; i < ls.size(); ++i)
    if (ls[i].security_protocol == protocol) return i;
  return storage::Status::invalid_argument("no listener for the brokers' requests to each other: no listener is named "
                                           "or uses security.inter.broker.protocol=" + protocol +
                                           "; set inter.broker.listener.name");
}

struct InterBrokerClient::Connection {
  Connection(asio::any_io_executor ex, std::shared_ptr<asio::ssl::context> ctx)
      : tls_ctx(std::move(ctx)), socket(ex) {
    if (tls_ctx) tls.emplace(ex, *tls_ctx);
  }
  tcp::socket& tcp_socket() { return tls ? tls->next_layer() : socket; }
  template <class Buffer>
  asio::awaitable<void> write(const Buffer& b) {
    if (tls) {
      co_await asio::async_write(*tls, b, asio::use_awaitable);
    } else {
      co_await asio::async_write(socket, b, asio::use_awaitable);
    }
  }
  template <class Buffer>
  asio::awaitable<void> read(const Buffer& b) {
    if (tls) {
      co_await asio::async_read(*tls, b, asio::use_awaitable);
    } else {
      co_await asio::async_read(socket, b, asio::use_awaitable);
    }
  }

  std::shared_ptr<asio::ssl::context> tls_ctx;
  tcp::socket socket;  // unused with TLS (the stream has its own)
  std::optional<asio::ssl::stream<tcp::socket>> tls;
  std::string host;
  int32_t port = -1;
  bool open = false;
};

InterBrokerClient::InterBrokerClient(asio::any_io_executor ex, const BrokerConfig& config,
                                     const ListenerSecurityTable& security, const ClusterLink& cluster, size_t listener)
    : ex_(std::move(ex)),
      config_(config),
      security_(security),
      cluster_(cluster),
      listener_index_(listener),
      listener_(config.listeners.at(listener)),
      client_id_("rokka-broker-" + std::to_string(config.broker_id)) {}

InterBrokerClient::~InterBrokerClient() = default;

storage::Result<std::unique_ptr<InterBrokerClient>> InterBrokerClient::create(asio::any_io_executor ex,
                                                                              const BrokerConfig& config,
                                                                              const ListenerSecurityTable& security,
                                                                              const ClusterLink& cluster) {
  auto index = inter_broker_listener(config);
  if (!index.ok()) return index.status();
  const Listener& l = config.listeners[*index];
  // Checked against server.properties' settings (the listeners' table is built when they listen).
  const security::ConfigMap settings = security::listener_config(config.security_settings, l.name);
  if (uses_tls(l.security_protocol)) {
    auto ctx = security::build_tls_client_context(settings);
    if (!ctx.ok())
      return storage::Status::invalid_argument("listener " + l.name + " for inter-broker requests: " +
                                               ctx.error().message());
  }
  if (uses_sasl(l.security_protocol))
    if (auto login = sasl_login(settings, l.name); !login.ok()) return login.status();
  return std::unique_ptr<InterBrokerClient>(new InterBrokerClient(std::move(ex), config, security, cluster, *index));
}

asio::awaitable<std::string> InterBrokerClient::open(Connection& c, const std::string& host, int32_t port) {
  tcp::resolver resolver(ex_);
  auto endpoints = co_await resolver.async_resolve(host, std::to_string(port), asio::use_awaitable);
  co_await asio::async_connect(c.tcp_socket(), endpoints, asio::use_awaitable);
  c.tcp_socket().set_option(tcp::no_delay(true));
  c.host = host;
  c.port = port;
  if (c.tls) {
    const security::Status expected = security::expect_tls_peer(c.tls->native_handle(), host,
                                                                 security_.settings(listener_index_));
    if (!expected.ok()) co_return expected.message();
    co_await c.tls->async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
  }
  if (uses_sasl(listener_.security_protocol)) {
    std::string failed = co_await authenticate(c);
    if (!failed.empty()) co_return failed;
  }
  c.open = true;
  co_return std::string();
}

asio::awaitable<std::string> InterBrokerClient::authenticate(Connection& c) {
  auto login = sasl_login(security_.settings(listener_index_), listener_.name);
  if (!login.ok()) co_return login.status().to_string();
  auto client = security::SaslClient::create(login->mechanism, login->username, login->password);
  if (!client.ok()) co_return client.error().message();

  auto roundtrip = [&](std::vector<std::byte> frame, protocol::ApiKey key, int16_t version,
                       std::vector<std::byte>& body) -> asio::awaitable<std::string> {
    co_await c.write(asio::buffer(frame));
    std::array<uint8_t, 4> size{};
    co_await c.read(asio::buffer(size));
    const uint32_t n = uint32_t{size[0]} << 24 | uint32_t{size[1]} << 16 | uint32_t{size[2]} << 8 | size[3];
    if (n > kMaxResponseBytes) co_return "an answer of " + std::to_string(n) + " bytes";
    body.resize(n);
    co_await c.read(asio::buffer(body));
    protocol::Reader r(body);
    int32_t cid = 0;
    if (!protocol::decode_response_header(r, key, version, cid)) co_return std::string("the answer does not decode");
    body.erase(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(r.position()));
    co_return std::string();
  };

  protocol::SaslHandshakeRequest hs;
  hs.mechanism = login->mechanism;
  std::vector<std::byte> body;
  std::string failed = co_await roundtrip(frame_of(hs, kSaslHandshakeVersion), hs.kApiKey, kSaslHandshakeVersion, body);
  if (!failed.empty()) co_return failed;
  protocol::SaslHandshakeResponse hs_resp;
  if (!protocol::decode(hs_resp, protocol::Bytes(body), kSaslHandshakeVersion)) co_return "SaslHandshake: no answer";
  if (hs_resp.error_code != protocol::ErrorCode::kNone)
    co_return "SaslHandshake " + login->mechanism + ": error " + std::to_string(protocol::to_int(hs_resp.error_code)) +
        " (the peer's listener does not enable it)";

  std::optional<std::string> next = client->initial();
  while (next) {
    protocol::SaslAuthenticateRequest auth;
    auth.auth_bytes = protocol::Bytes(reinterpret_cast<const std::byte*>(next->data()), next->size());
    failed = co_await roundtrip(frame_of(auth, kSaslAuthenticateVersion), auth.kApiKey, kSaslAuthenticateVersion, body);
    if (!failed.empty()) co_return failed;
    protocol::SaslAuthenticateResponse resp;
    if (!protocol::decode(resp, protocol::Bytes(body), kSaslAuthenticateVersion)) co_return "SaslAuthenticate: no answer";
    if (resp.error_code != protocol::ErrorCode::kNone)
      co_return "SASL " + login->mechanism + " as " + login->username + " refused: " +
          resp.error_message.value_or(std::to_string(protocol::to_int(resp.error_code)));
    auto answer = client->respond(
        std::string_view(reinterpret_cast<const char*>(resp.auth_bytes.data()), resp.auth_bytes.size()));
    if (!answer.ok()) co_return answer.error().message();
    next = std::move(*answer);
  }
  co_return std::string();
}

asio::awaitable<std::string> InterBrokerClient::exchange(int32_t broker, std::vector<std::byte> frame,
                                                         protocol::ApiKey key, int16_t version,
                                                         std::vector<std::byte>& body) {
  const auto picture = cluster_.picture();
  auto it = picture->brokers.find(broker);
  const cluster::Listener* to = it == picture->brokers.end() ? nullptr : it->second.listener(listener_.name);
  if (to == nullptr) co_return "broker " + std::to_string(broker) + " has no listener " + listener_.name;

  // The kept connection if it is free and still goes to that address, else a new one.
  std::unique_ptr<Connection> c;
  if (auto kept = idle_.find(broker); kept != idle_.end()) {
    c = std::move(kept->second);
    idle_.erase(kept);
    if (c->host != to->host || c->port != to->port) c.reset();
  }
  if (!c) {
    std::shared_ptr<asio::ssl::context> tls;
    if (uses_tls(listener_.security_protocol)) {
      auto ctx = security::build_tls_client_context(security_.settings(listener_index_));
      if (!ctx.ok()) co_return ctx.error().message();
      tls = std::move(ctx).value();
    }
    c = std::make_unique<Connection>(ex_, std::move(tls));
  }

  std::string failure;
  // The frame's correlation id: after its size, API key and version.
  const int32_t correlation = static_cast<int32_t>(uint32_t(frame.at(8)) << 24 | uint32_t(frame.at(9)) << 16 |
                                                   uint32_t(frame.at(10)) << 8 | uint32_t(frame.at(11)));
  try {
    asio::steady_timer deadline(ex_, kRequestTimeout);
    auto run = [&]() -> asio::awaitable<void> {
      if (!c->open) {
        failure = co_await open(*c, to->host, to->port);
        if (!failure.empty()) co_return;
      }
      co_await c->write(asio::buffer(frame));
      std::array<uint8_t, 4> size{};
      co_await c->read(asio::buffer(size));
      const uint32_t n = uint32_t{size[0]} << 24 | uint32_t{size[1]} << 16 | uint32_t{size[2]} << 8 | size[3];
      if (n > kMaxResponseBytes) {
        failure = "an answer of " + std::to_string(n) + " bytes";
        co_return;
      }
      body.resize(n);
      co_await c->read(asio::buffer(body));
    };
    auto outcome = co_await (run() || deadline.async_wait(asio::use_awaitable));
    if (outcome.index() == 1) failure = "no answer within " + std::to_string(kRequestTimeout.count()) + " s";
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (failure.empty()) {
    protocol::Reader r(body);
    int32_t cid = 0;
    if (!protocol::decode_response_header(r, key, version, cid) || cid != correlation) {
      failure = "the answer does not decode";
    } else {
      body.erase(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(r.position()));
    }
  }
  if (!failure.empty()) co_return "broker " + std::to_string(broker) + " at " + to->host + ":" +
                                  std::to_string(to->port) + " (" + listener_.name + "): " + failure;
  if (!idle_.count(broker)) idle_[broker] = std::move(c);  // kept for the next request
  co_return std::string();
}

}  // namespace rokka::broker
