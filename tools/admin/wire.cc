#include "tools/admin/wire.h"

#include <openssl/rand.h>
#include <openssl/ssl.h>

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <cctype>
#include <chrono>

#include "protocol/header.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "security/base64.h"
#include "security/scram_crypto.h"
#include "security/scram_messages.h"
#include "tools/admin/text.h"

namespace rokka::admin {
namespace asio = boost::asio;
namespace {

constexpr uint32_t kMaxResponseBytes = 64u << 20;

std::string setting(const std::map<std::string, std::string>& props, const std::string& key,
                    const std::string& fallback = "") {
  auto it = props.find(key);
  return it == props.end() ? fallback : it->second;
}

[[noreturn]] void transport_error(const std::string& what) { throw KafkaError(RD_KAFKA_RESP_ERR__TRANSPORT, what); }

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string random_nonce() {
  std::array<unsigned char, 24> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) transport_error("SCRAM: no random bytes");
  return security::base64_encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

}  // namespace

// Runs the operation `start(handler)` begins for at most the timeout: its error, or
// timed_out (the socket is closed then; the caller throws, so the connection is not
// used again and the handler, which points at this frame, never runs).
template <typename Start>
boost::system::error_code WireConnection::run(Start start) {
  boost::system::error_code ec = asio::error::timed_out;
  bool done = false;
  io_.restart();
  start([&](boost::system::error_code e, auto&&...) {
    ec = e;
    done = true;
  });
  io_.run_for(std::chrono::milliseconds(timeout_ms_));
  if (!done) {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }
  return ec;
}

WireConnection::WireConnection(const ClientOptions& options) : socket_(io_), timeout_ms_(options.timeout_ms) {
  const std::map<std::string, std::string> props =
      options.command_config.empty() ? std::map<std::string, std::string>{} : read_properties(options.command_config);
  const std::string protocol = upper(setting(props, "security.protocol", "PLAINTEXT"));
  if (protocol != "PLAINTEXT" && protocol != "SSL" && protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL")
    throw UsageError("security.protocol: '" + protocol + "' is not PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");

  // The first bootstrap server.
  std::string first = options.bootstrap.substr(0, options.bootstrap.find(','));
  for (const char* prefix : {"PLAINTEXT://", "SSL://", "SASL_PLAINTEXT://", "SASL_SSL://"})
    if (upper(first).rfind(prefix, 0) == 0) first = first.substr(std::string_view(prefix).size());
  const size_t colon = first.rfind(':');
  if (colon == std::string::npos) throw UsageError("--bootstrap-server: expected HOST:PORT, got '" + first + "'");
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(io_);
  const auto endpoints = resolver.resolve(first.substr(0, colon), first.substr(colon + 1), ec);
  if (ec) transport_error("cannot resolve " + first + ": " + ec.message());
  ec = run([&](auto handler) { asio::async_connect(socket_, endpoints, handler); });
  if (ec) transport_error("cannot connect to " + first + ": " + ec.message());
  socket_.set_option(asio::ip::tcp::no_delay(true));

  if (protocol == "SSL" || protocol == "SASL_SSL") {
    tls_ctx_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX* ctx = tls_ctx_->native_handle();
    const std::string ca = setting(props, "ssl.ca.location");
    if (ca.empty() ? SSL_CTX_set_default_verify_paths(ctx) != 1 : SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1)
      throw UsageError("ssl.ca.location: cannot read '" + ca + "'");
    const std::string cert = setting(props, "ssl.certificate.location"), key = setting(props, "ssl.key.location");
    if (!cert.empty() && SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1)
      throw UsageError("ssl.certificate.location: cannot read '" + cert + "'");
    if (!key.empty()) {
      const std::string password = setting(props, "ssl.key.password");
      if (!password.empty()) tls_ctx_->set_password_callback([password](size_t, auto) { return password; });
      if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1)
        throw UsageError("ssl.key.location: cannot read '" + key + "'");
    }
    const bool verify = setting(props, "enable.ssl.certificate.verification", "true") != "false";
    SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
    tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls_ctx_);
    const std::string host = first.substr(0, colon);
    SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str());
    if (verify) SSL_set1_host(tls_->native_handle(), host.c_str());
    ec = run([&](auto handler) { tls_->async_handshake(asio::ssl::stream_base::client, handler); });
    if (ec) transport_error("TLS handshake with " + first + " failed: " + ec.message());
  }
  if (protocol == "SASL_PLAINTEXT" || protocol == "SASL_SSL") {
    std::string mechanism = upper(setting(props, "sasl.mechanism", setting(props, "sasl.mechanisms", "GSSAPI")));
    authenticate(mechanism, setting(props, "sasl.username"), setting(props, "sasl.password"));
  }
}

WireConnection::~WireConnection() = default;

void WireConnection::write_all(const std::vector<std::byte>& bytes) {
  const auto ec = run([&](auto handler) {
    if (tls_) {
      asio::async_write(*tls_, asio::buffer(bytes), handler);
    } else {
      asio::async_write(socket_, asio::buffer(bytes), handler);
    }
  });
  if (ec) transport_error("send failed: " + ec.message());
}

void WireConnection::read_exact(void* data, size_t size) {
  const auto ec = run([&](auto handler) {
    if (tls_) {
      asio::async_read(*tls_, asio::buffer(data, size), handler);
    } else {
      asio::async_read(socket_, asio::buffer(data, size), handler);
    }
  });
  if (ec == asio::error::timed_out) transport_error("no response within " + std::to_string(timeout_ms_) + " ms");
  if (ec) transport_error("connection closed by the broker: " + ec.message());
}

std::vector<std::byte> WireConnection::exchange(protocol::ApiKey key, int16_t version,
                                                const std::vector<std::byte>& body) {
  protocol::Writer w;
  const auto mark = w.reserve_int32();
  protocol::RequestHeader h;
  h.api_key = static_cast<int16_t>(key);
  h.api_version = version;
  h.correlation_id = ++correlation_id_;
  h.client_id = "rokka-admin";
  protocol::encode_request_header(w, h);
  w.write_raw(body);
  w.patch_length(mark);
  write_all(std::move(w).take());

  std::array<unsigned char, 4> size_bytes{};
  read_exact(size_bytes.data(), size_bytes.size());
  const uint32_t size = uint32_t{size_bytes[0]} << 24 | uint32_t{size_bytes[1]} << 16 | uint32_t{size_bytes[2]} << 8 |
                        uint32_t{size_bytes[3]};
  if (size > kMaxResponseBytes) transport_error("a response of " + std::to_string(size) + " bytes: refused");
  std::vector<std::byte> frame(size);
  read_exact(frame.data(), frame.size());
  protocol::Reader r(frame);
  int32_t cid = 0;
  if (!protocol::decode_response_header(r, key, version, cid) || cid != correlation_id_)
    throw KafkaError(RD_KAFKA_RESP_ERR__BAD_MSG, std::string(protocol::api_name(key)) + " response header");
  body_offset_ = r.position();
  return frame;
}

std::string WireConnection::sasl_round(const std::string& bytes) {
  protocol::SaslAuthenticateRequest req;
  req.auth_bytes = protocol::Bytes(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  const auto resp = call<protocol::SaslAuthenticateResponse>(req, 1);
  if (resp.error_code != protocol::ErrorCode::kNone)
    throw KafkaError(static_cast<rd_kafka_resp_err_t>(resp.error_code),
                     "SASL authentication failed" + (resp.error_message ? ": " + *resp.error_message : std::string()));
  return {reinterpret_cast<const char*>(resp.auth_bytes.data()), resp.auth_bytes.size()};
}

void WireConnection::authenticate(const std::string& mechanism, const std::string& user, const std::string& password) {
  const auto scram = security::scram_mechanism_from_name(mechanism);
  if (mechanism != "PLAIN" && !scram)
    throw UsageError("sasl.mechanism: rokka-admin users authenticates with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, not " +
                     mechanism);
  protocol::SaslHandshakeRequest hs;
  hs.mechanism = mechanism;
  const auto handshake = call<protocol::SaslHandshakeResponse>(hs, 1);
  if (handshake.error_code != protocol::ErrorCode::kNone)
    throw KafkaError(static_cast<rd_kafka_resp_err_t>(handshake.error_code), "SaslHandshake " + mechanism);
  if (!scram) {
    sasl_round(std::string(1, '\0') + user + std::string(1, '\0') + password);
    return;
  }
  // RFC 5802: client-first, server-first, client-final (with the proof), server-final.
  const security::ScramHash hash = security::scram_hash(*scram);
  const std::string nonce = random_nonce();
  const std::string client_first = security::ClientFirstMessage::format(user, nonce);
  const std::string bare = client_first.substr(3);  // after the gs2 header "n,,"
  const std::string server_first = sasl_round(client_first);
  auto first = security::ServerFirstMessage::parse(server_first);
  if (!first.ok()) throw KafkaError(RD_KAFKA_RESP_ERR__AUTHENTICATION, "SCRAM server-first: " + first.error().message());
  if (!first->nonce.starts_with(nonce) || first->nonce.size() == nonce.size())
    throw KafkaError(RD_KAFKA_RESP_ERR__AUTHENTICATION, "SCRAM: the broker's nonce does not extend ours");
  if (first->iterations < security::kScramMinIterations)
    throw KafkaError(RD_KAFKA_RESP_ERR__AUTHENTICATION, "SCRAM: too few iterations from the broker");
  const std::string salted = security::scram_salted_password(hash, password, first->salt, first->iterations);
  const std::string client_key = security::scram_client_key(hash, salted);
  const std::string without_proof = security::ClientFinalMessage::format_without_proof("n,,", first->nonce);
  const std::string auth_message = security::scram_auth_message(bare, server_first, without_proof);
  const std::string proof = security::scram_xor(
      client_key, security::scram_hmac(hash, security::scram_digest(hash, client_key), auth_message));
  const std::string server_final = sasl_round(security::ClientFinalMessage::format(without_proof, proof));
  auto final_msg = security::ServerFinalMessage::parse(server_final);
  const std::string expected = security::scram_hmac(hash, security::scram_server_key(hash, salted), auth_message);
  if (!final_msg.ok() || final_msg->error || !security::constant_time_equal(final_msg->signature, expected))
    throw KafkaError(RD_KAFKA_RESP_ERR__AUTHENTICATION, "SCRAM: the broker's signature does not match");
}

}  // namespace rokka::admin
