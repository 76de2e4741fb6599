// The broker's own requests to the other brokers of its cluster (WriteTxnMarkers today), on
// the listener inter.broker.listener.name names (else the one named as
// security.inter.broker.protocol, PLAINTEXT by default, else the first of that protocol),
// secured as that listener is, the way Kafka's brokers reach each other:
//   - TLS (SSL, SASL_SSL): the peer's certificate must chain to the listener's truststore and,
//     unless ssl.endpoint.identification.algorithm is empty, name the host connected to; the
//     listener's keystore is presented when the peer asks for a certificate;
//   - SASL (SASL_PLAINTEXT, SASL_SSL): sasl.mechanism.inter.broker.protocol (PLAIN,
//     SCRAM-SHA-256 or SCRAM-SHA-512; Kafka's default GSSAPI is refused at start-up) with the
//     username and password options of the listener's <mechanism>.sasl.jaas.config entry.
// The peer answers as it answers any client: the principal needs CLUSTER_ACTION (a super user).
// One connection per peer, opened at first use and kept while it works; a request that finds it
// busy opens one of its own for that request.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "broker/config/config.h"
#include "protocol/codec.h"
#include "protocol/header.h"
#include "protocol/message.h"
#include "security/config_map.h"
#include "storage/status.h"

namespace rokka::broker {

class ClusterLink;
class ListenerSecurityTable;

// The index in config.listeners of the listener the brokers reach each other on, or an error
// naming the key to set.
storage::Result<size_t> inter_broker_listener(const BrokerConfig& config);

class InterBrokerClient {
 public:
  // Checks the settings (server.properties' and overrides) once: start-up fails on a listener that
  // does not exist, a SASL mechanism this client does not speak or one without a username, and TLS
  // settings that do not build. Connections read the listener's current settings.
  static storage::Result<std::unique_ptr<InterBrokerClient>> create(boost::asio::any_io_executor ex,
                                                                      const BrokerConfig& config,
                                                                      const ListenerSecurityTable& security,
                                                                      const ClusterLink& cluster);
  ~InterBrokerClient();

  // Sends `req` to broker `broker` and decodes its answer into `out`: empty on success, else
  // what failed (for the log; the caller retries).
  template <class Resp, class Req>
  boost::asio::awaitable<std::string> call(int32_t broker, const Req& req, int16_t version, Resp& out) {
    std::vector<std::byte> body;
    std::string failure = co_await exchange(broker, frame_of(req, version), Req::kApiKey, version, body);
    if (failure.empty() && !protocol::decode(out, protocol::Bytes(body), version)) failure = "the answer does not decode";
    co_return failure;
  }

  // The listener name requests go out on (the peer's listener of that name).
  const std::string& listener_name() const { return listener_.name; }

 private:
  struct Connection;
  InterBrokerClient(boost::asio::any_io_executor ex, const BrokerConfig& config, const ListenerSecurityTable& security,
                    const ClusterLink& cluster, size_t listener);

  template <class Req>
  std::vector<std::byte> frame_of(const Req& req, int16_t version) {
    protocol::Writer w;
    auto mark = w.reserve_int32();
    protocol::RequestHeader h;
    h.api_key = static_cast<int16_t>(Req::kApiKey);
    h.api_version = version;
    h.correlation_id = ++correlation_;
    h.client_id = client_id_;
    protocol::encode_request_header(w, h);
    protocol::encode(req, w, version);
    w.patch_length(mark);
    return std::move(w).take();
  }
  // Writes `frame` to the peer (connecting first if needed) and reads its answer: the body
  // after the response header into `body`. Empty on success, else what failed.
  boost::asio::awaitable<std::string> exchange(int32_t broker, std::vector<std::byte> frame, protocol::ApiKey key,
                                               int16_t version, std::vector<std::byte>& body);
  boost::asio::awaitable<std::string> open(Connection& c, const std::string& host, int32_t port);
  boost::asio::awaitable<std::string> authenticate(Connection& c);

  boost::asio::any_io_executor ex_;
  const BrokerConfig& config_;
  const ListenerSecurityTable& security_;
  const ClusterLink& cluster_;
  size_t listener_index_;
  Listener listener_;
  std::string client_id_;
  int32_t correlation_ = 0;
  std::map<int32_t, std::unique_ptr<Connection>> idle_;  // per peer; touched on ex_ only
};

}  // namespace rokka::broker
