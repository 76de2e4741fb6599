// The gateway's JSON, without a server: the shapes etcd 3.4.23 sent to curl, and hostile
// answers (bad JSON, wrong types, bad base64, deep nesting) failing cleanly.
#include "cluster/etcd_json.h"

#include <gtest/gtest.h>

#include "cluster/base64.h"
#include "cluster/records.h"

namespace rokka::cluster {
namespace {

TEST(Base64Test, RoundTripsEveryLengthAndRejectsNonCanonicalText) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    const std::string enc = base64_encode(bytes);
    EXPECT_EQ(enc.size() % 4, 0u);
    auto dec = base64_decode(enc);
    ASSERT_TRUE(dec.has_value()) << enc;
    EXPECT_EQ(*dec, bytes);
    bytes.push_back(static_cast<char>(i * 37));
  }
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  for (const char* bad : {"Zm9", "Zm9v=", "Zg=a", "Z===", "Zm=v", "Zh==", "Zm9w!AAA", "====", "Zm8"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
  }
}

// Answers as etcd 3.4.23's gateway sent them (curl, docs/cluster.md).
TEST(EtcdJsonTest, DecodesTheGatewaysAnswers) {
  auto r = decode_range(
      R"({"header":{"cluster_id":"13455796455940752355","member_id":"443629905751424238","revision":"2","raft_term":"2"},)"
      R"("kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}],"count":"1"})");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header.cluster_id, 13455796455940752355ull);
  EXPECT_EQ(r->header.revision, 2);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "foo");
  EXPECT_EQ(r->kvs[0].value, "bar");
  EXPECT_EQ(r->kvs[0].version, 1);
  EXPECT_EQ(r->count, 1);

  // "succeeded" left out = false; a txn's sub-answer has only a revision in its header.
  auto t = decode_txn(
      R"({"header":{"revision":"2"},"responses":[{"response_range":{"header":{"revision":"2"},"kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}],"count":"1"}}]})");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_FALSE(t->succeeded);
  ASSERT_EQ(t->responses.size(), 1u);
  EXPECT_EQ(std::get<RangeResult>(t->responses[0]).kvs[0].value, "bar");

  auto k = decode_lease_keepalive(R"({"result":{"header":{"revision":"4"},"ID":"4390625029880275472","TTL":"5"}})");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->id, 4390625029880275472);
  EXPECT_EQ(k->ttl, 5);
  auto gone = decode_lease_keepalive(R"({"result":{"header":{"revision":"2"},"ID":"12345"}})");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->ttl, 0);

  // Watch: PUT is the enum's zero, so its "type" is left out.
  auto w = decode_watch_message(
      R"({"result":{"header":{"revision":"4"},"events":[{"kv":{"key":"Zm9v","create_revision":"2","mod_revision":"3","version":"2","value":"YmFy"}},{"type":"DELETE","kv":{"key":"Zm9v","mod_revision":"4"}}]}})");
  ASSERT_TRUE(w.ok()) << w.status().to_string();
  ASSERT_EQ(w->events.size(), 2u);
  EXPECT_EQ(w->events[0].type, WatchEvent::Type::kPut);
  EXPECT_EQ(w->events[1].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(w->events[1].kv.mod_revision, 4);
  auto compacted = decode_watch_message(R"({"result":{"header":{"raft_term":"2"},"canceled":true,"compact_revision":"4"}})");
  ASSERT_TRUE(compacted.ok());
  EXPECT_TRUE(compacted->canceled);
  EXPECT_EQ(compacted->compact_revision, 4);
  auto stream_error = decode_watch_message(R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}})");
  ASSERT_FALSE(stream_error.ok());
  EXPECT_EQ(stream_error.status().code(), StatusCode::kIoError);
}

TEST(EtcdJsonTest, GatewayErrorsMapToStatusCodes) {
  auto compacted = decode_gateway_error(400, R"({"error":"etcdserver: mvcc: required revision has been compacted","message":"etcdserver: mvcc: required revision has been compacted","code":11})");
  EXPECT_EQ(compacted.status.code(), StatusCode::kOutOfRange);
  auto lease = decode_gateway_error(404, R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})");
  EXPECT_EQ(lease.status.code(), StatusCode::kNotFound);
  auto no_leader = decode_gateway_error(503, R"({"error":"etcdserver: no leader","message":"etcdserver: no leader","code":14})");
  EXPECT_EQ(no_leader.status.code(), StatusCode::kIoError);
  EXPECT_TRUE(no_leader.no_leader);
  auto timed_out = decode_gateway_error(503, R"({"message":"etcdserver: request timed out","code":14})");
  EXPECT_FALSE(timed_out.no_leader);
  EXPECT_EQ(decode_gateway_error(400, R"({"message":"etcdserver: request is too large","code":3})").status.code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(decode_gateway_error(404, "Not Found\n").status.code(), StatusCode::kMalformed);
  // The streaming calls' form (keepalive, watch) of a member without a Raft leader, as etcd
  // 3.4.23 answers it: unavailable and "no leader", so the client moves to another member.
  auto streaming = decode_gateway_error(
      503, R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}})");
  EXPECT_EQ(streaming.status.code(), StatusCode::kIoError);
  EXPECT_EQ(streaming.grpc_code, 14);
  EXPECT_TRUE(streaming.no_leader);
  EXPECT_EQ(decode_gateway_error(503, R"({"error":{"grpc_code":"x"}})").status.code(), StatusCode::kMalformed);
  EXPECT_EQ(decode_gateway_error(503, R"({"error":{"message":"no code"}})").status.code(), StatusCode::kIoError);
  // A server error page from something in between: unavailable, not a malformed answer.
  EXPECT_EQ(decode_gateway_error(502, "<html>Bad Gateway</html>").status.code(), StatusCode::kIoError);
  EXPECT_EQ(decode_gateway_error(500, R"({"code":99})").status.code(), StatusCode::kMalformed);
}

TEST(EtcdJsonTest, HostileAnswersFailCleanly) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string deep_object = "{\"a\":" + deep + "}";
  for (const std::string& bad : std::vector<std::string>{
           "", "{", "[]", "null", "\"x\"", deep, deep_object,
           R"({"kvs":{}})",                               // not an array
           R"({"kvs":[1]})",                              // not an object
           R"({"kvs":[{"key":"!!!!"}]})",                 // bad base64
           R"({"kvs":[{"key":"Zm9v","version":"1x"}]})",  // not a number
           R"({"kvs":[{"key":"Zm9v","version":"99999999999999999999"}]})",
           R"({"kvs":[{"key":"Zm9v","version":true}]})",
           R"({"header":[]})",
           R"({"count":""})",
           "{\"kvs\":[{\"key\":\"\xff\xfe\"}]}",            // not UTF-8
       }) {
    EXPECT_FALSE(decode_range(bad).ok()) << bad.substr(0, 60);
  }
  EXPECT_FALSE(decode_txn(R"({"responses":[{"response_txn":{}}]})").ok());
  EXPECT_FALSE(decode_txn(R"({"succeeded":"yes"})").ok());
  EXPECT_FALSE(decode_watch_message(R"({"result":{"events":[{"type":"EXPLODE","kv":{}}]}})").ok());
  EXPECT_FALSE(decode_watch_message(R"({"result":{"events":[{"type":"DELETE"}]}})").ok());
  EXPECT_FALSE(decode_watch_message(R"({"nothing":1})").ok());
  EXPECT_FALSE(decode_lease_keepalive(R"({"result":{"ID":"1","TTL":"-5"}})").ok());
  EXPECT_FALSE(decode_lease_grant(R"({"ID":"0","TTL":"2"})").ok());
  EXPECT_FALSE(decode_lease_grant(R"({"ID":"7","TTL":"2","error":"no space"})").ok());
}

TEST(EtcdJsonTest, RequestsUseTheGatewaysFieldNames) {
  EXPECT_EQ(encode_put({.key = "foo", .value = "bar", .lease = 7}), R"({"key":"Zm9v","value":"YmFy","lease":"7"})");
  EXPECT_EQ(encode_range({.key = "a", .range_end = "b", .revision = 3, .limit = 2}),
            R"({"key":"YQ==","range_end":"Yg==","limit":"2","revision":"3"})");
  // "create_revision 0" must be on the wire: it is how a txn asks "absent?".
  EXPECT_EQ(encode_txn({{Compare::absent("k")}, {PutRequest{"k", "v"}}, {RangeRequest{.key = "k"}}}),
            R"({"compare":[{"key":"aw==","target":"CREATE","result":"EQUAL","create_revision":"0"}],)"
            R"("success":[{"request_put":{"key":"aw==","value":"dg=="}}],"failure":[{"request_range":{"key":"aw=="}}]})");
  EXPECT_EQ(encode_watch_create({.key = "k", .range_end = "l", .start_revision = 5}),
            R"({"create_request":{"key":"aw==","range_end":"bA==","start_revision":"5","progress_notify":true}})");
  EXPECT_EQ(encode_lease_id(42), R"({"ID":"42"})");
  EXPECT_EQ(encode_lease_grant(6), R"({"TTL":"6"})");
  EXPECT_EQ(prefix_range_end("/rokka/"), "/rokka0");
  EXPECT_EQ(prefix_range_end("a\xff"), "b");
  EXPECT_EQ(prefix_range_end(""), std::string(1, '\0'));
}

TEST(RecordsTest, RoundTripsAndRejectsBadValues) {
  BrokerRegistration reg{{{"PLAINTEXT", "127.0.0.1", 9092, "PLAINTEXT"}, {"SASL", "h", 9093, "SASL_PLAINTEXT"}},
                         std::string("r1"), "123"};
  auto back = decode_broker_registration(encode_broker_registration(reg));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, reg);
  reg.rack.reset();
  EXPECT_EQ(*decode_broker_registration(encode_broker_registration(reg)), reg);
  for (const char* bad : {R"({"listeners":[{"name":"P","host":"h","port":70000,"security_protocol":"P"}],"incarnation":"1"})",
                          R"({"listeners":[{"name":"","host":"h","port":1,"security_protocol":"P"}],"incarnation":"1"})",
                          R"({"listeners":{},"incarnation":"1"})", R"({"listeners":[]})",
                          R"({"listeners":[],"incarnation":"1","rack":5})"}) {
    EXPECT_FALSE(decode_broker_registration(bad).ok()) << bad;
  }
  EXPECT_EQ(*decode_controller(encode_controller(3)), 3);
  EXPECT_FALSE(decode_controller(R"({"broker":"3"})").ok());
  EXPECT_EQ(*decode_cluster_id(encode_cluster_id("abc")), "abc");
  EXPECT_FALSE(decode_cluster_id("abc").ok());
  EXPECT_FALSE(decode_cluster_id(R"("")").ok());

  TopicRecord t{"uuid-1", 3, R"({"rr":["g1"],"start":0})", {{"retention.ms", "1000"}}};
  auto tb = decode_topic(encode_topic(t));
  ASSERT_TRUE(tb.ok()) << tb.status().to_string();
  EXPECT_EQ(*tb, t);
  t.placement = R"(1,"configs":{"x":"y"})";  // not one JSON value: written as null
  EXPECT_EQ(decode_topic(encode_topic(t))->placement, "null");
  for (const char* bad : {R"({"id":"x","partitions":0})", R"({"id":"x","partitions":2000000})",
                          R"({"partitions":1})", R"({"id":"x","partitions":1,"configs":{"a":1}})"}) {
    EXPECT_FALSE(decode_topic(bad).ok()) << bad;
  }
  auto pid = decode_producer_id_block(encode_producer_id_block({5000, 2, "n"}));
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(pid->next, 5000);
  EXPECT_EQ(pid->broker, 2);
  EXPECT_FALSE(decode_producer_id_block(R"({"next":-1,"broker":1,"nonce":"n"})").ok());

  const std::string binary("\x00\x01\xff\x80 bytes", 10);
  EXPECT_EQ(encode_meta_value(std::string("\x00\x01", 2)), R"("AAE=")");
  EXPECT_EQ(*decode_meta_value(encode_meta_value(binary)), binary);
  EXPECT_EQ(*decode_meta_value(R"("")"), "");
  for (const char* bad : {"", "AAE=", R"("AAE")", R"("A*E=")", R"(["AAE="])", R"({"v":"AAE="})", "\"AAE=\" 1",
                          "\"\xff\""}) {
    EXPECT_FALSE(decode_meta_value(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace rokka::cluster
