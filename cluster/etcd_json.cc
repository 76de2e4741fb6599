#include "cluster/etcd_json.h"

#include <rapidjson/document.h>

#include <charconv>

#include "cluster/base64.h"
#include "cluster/json_util.h"

namespace rokka::cluster {
namespace {

namespace rj = rapidjson;
using Writer = JsonWriter;

// ---- writing ----

void put_bytes(Writer& w, const char* name, std::string_view bytes) {
  if (bytes.empty()) return;
  w.Key(name);
  const std::string b = base64_encode(bytes);
  w.String(b.data(), static_cast<rj::SizeType>(b.size()));
}
void put_int(Writer& w, const char* name, int64_t v) {
  if (v == 0) return;
  w.Key(name);
  const std::string s = std::to_string(v);
  w.String(s.data(), static_cast<rj::SizeType>(s.size()));
}
void put_bool(Writer& w, const char* name, bool v) {
  if (!v) return;
  w.Key(name);
  w.Bool(true);
}

void write_range(Writer& w, const RangeRequest& r) {
  w.StartObject();
  put_bytes(w, "key", r.key);
  put_bytes(w, "range_end", r.range_end);
  put_int(w, "limit", r.limit);
  put_int(w, "revision", r.revision);
  put_bool(w, "serializable", r.serializable);
  put_bool(w, "keys_only", r.keys_only);
  put_bool(w, "count_only", r.count_only);
  w.EndObject();
}
void write_put(Writer& w, const PutRequest& r) {
  w.StartObject();
  put_bytes(w, "key", r.key);
  put_bytes(w, "value", r.value);
  put_int(w, "lease", r.lease);
  put_bool(w, "prev_kv", r.prev_kv);
  w.EndObject();
}
void write_delete(Writer& w, const DeleteRequest& r) {
  w.StartObject();
  put_bytes(w, "key", r.key);
  put_bytes(w, "range_end", r.range_end);
  put_bool(w, "prev_kv", r.prev_kv);
  w.EndObject();
}

const char* target_name(Compare::Target t) {
  switch (t) {
    case Compare::Target::kVersion: return "VERSION";
    case Compare::Target::kCreate: return "CREATE";
    case Compare::Target::kMod: return "MOD";
    case Compare::Target::kValue: return "VALUE";
    case Compare::Target::kLease: return "LEASE";
  }
  return "VERSION";
}
const char* op_name(Compare::Op op) {
  switch (op) {
    case Compare::Op::kEqual: return "EQUAL";
    case Compare::Op::kGreater: return "GREATER";
    case Compare::Op::kLess: return "LESS";
    case Compare::Op::kNotEqual: return "NOT_EQUAL";
  }
  return "EQUAL";
}
// The compared field of the target_union oneof. Zero must be sent explicitly: the gateway
// sets the oneof from a present field, and "create_revision 0" is how absence is tested.
const char* operand_name(Compare::Target t) {
  switch (t) {
    case Compare::Target::kVersion: return "version";
    case Compare::Target::kCreate: return "create_revision";
    case Compare::Target::kMod: return "mod_revision";
    case Compare::Target::kValue: return "value";
    case Compare::Target::kLease: return "lease";
  }
  return "version";
}

void write_compare(Writer& w, const Compare& c) {
  w.StartObject();
  w.Key("key");
  const std::string k = base64_encode(c.key);
  w.String(k.data(), static_cast<rj::SizeType>(k.size()));
  w.Key("target");
  w.String(target_name(c.target));
  w.Key("result");
  w.String(op_name(c.op));
  w.Key(operand_name(c.target));
  const std::string operand = c.target == Compare::Target::kValue ? base64_encode(c.value) : std::to_string(c.number);
  w.String(operand.data(), static_cast<rj::SizeType>(operand.size()));
  w.EndObject();
}

void write_ops(Writer& w, const char* name, const std::vector<TxnOp>& ops) {
  if (ops.empty()) return;
  w.Key(name);
  w.StartArray();
  for (const TxnOp& op : ops) {
    w.StartObject();
    if (const auto* r = std::get_if<RangeRequest>(&op)) {
      w.Key("request_range");
      write_range(w, *r);
    } else if (const auto* p = std::get_if<PutRequest>(&op)) {
      w.Key("request_put");
      write_put(w, *p);
    } else {
      w.Key("request_delete_range");
      write_delete(w, std::get<DeleteRequest>(op));
    }
    w.EndObject();
  }
  w.EndArray();
}

// ---- reading ----

Status malformed(std::string_view what) { return Status::malformed("etcd answer: " + std::string(what)); }

Result<rj::Document> parse(std::string_view text) { return parse_json_object(text, "etcd answer"); }

// A field decoder with a sticky error, like protocol/codec.h's Reader: check ok() once.
class Fields {
 public:
  bool ok() const { return ok_; }
  void fail() { ok_ = false; }

  const rj::Value* get(const rj::Value& obj, const char* name) {
    if (!obj.IsObject()) {
      fail();
      return nullptr;
    }
    auto it = obj.FindMember(name);
    return it == obj.MemberEnd() ? nullptr : &it->value;
  }
  int64_t int64(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return 0;
    if (v->IsInt64()) return v->GetInt64();
    if (!v->IsString()) return fail(), 0;
    int64_t out = 0;
    const char* b = v->GetString();
    const char* e = b + v->GetStringLength();
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec != std::errc() || p != e || b == e) return fail(), 0;
    return out;
  }
  uint64_t uint64(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return 0;
    if (v->IsUint64()) return v->GetUint64();
    if (!v->IsString()) return fail(), 0;
    uint64_t out = 0;
    const char* b = v->GetString();
    const char* e = b + v->GetStringLength();
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec != std::errc() || p != e || b == e) return fail(), 0;
    return out;
  }
  bool boolean(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return false;
    if (!v->IsBool()) return fail(), false;
    return v->GetBool();
  }
  std::string string(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return {};
    if (!v->IsString()) return fail(), std::string();
    return std::string(v->GetString(), v->GetStringLength());
  }
  std::string bytes(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return {};
    if (!v->IsString()) return fail(), std::string();
    auto decoded = base64_decode(std::string_view(v->GetString(), v->GetStringLength()));
    if (!decoded) return fail(), std::string();
    return std::move(*decoded);
  }
  // The array `name` (absent = empty); nullptr after a type error.
  const rj::Value* array(const rj::Value& obj, const char* name) {
    static const rj::Value kEmpty(rj::kArrayType);
    const rj::Value* v = get(obj, name);
    if (v == nullptr) return &kEmpty;
    if (!v->IsArray()) return fail(), nullptr;
    return v;
  }
  const rj::Value* object(const rj::Value& obj, const char* name) {
    const rj::Value* v = get(obj, name);
    if (v != nullptr && !v->IsObject()) return fail(), nullptr;
    return v;
  }

  ResponseHeader header(const rj::Value& obj) {
    ResponseHeader h;
    const rj::Value* v = object(obj, "header");
    if (v == nullptr) return h;
    h.cluster_id = uint64(*v, "cluster_id");
    h.member_id = uint64(*v, "member_id");
    h.revision = int64(*v, "revision");
    h.raft_term = uint64(*v, "raft_term");
    return h;
  }
  KeyValue kv(const rj::Value& v) {
    KeyValue kv;
    if (!v.IsObject()) return fail(), kv;
    kv.key = bytes(v, "key");
    kv.value = bytes(v, "value");
    kv.create_revision = int64(v, "create_revision");
    kv.mod_revision = int64(v, "mod_revision");
    kv.version = int64(v, "version");
    kv.lease = int64(v, "lease");
    return kv;
  }
  std::vector<KeyValue> kvs(const rj::Value& obj, const char* name) {
    std::vector<KeyValue> out;
    const rj::Value* a = array(obj, name);
    if (a == nullptr) return out;
    out.reserve(a->Size());
    for (const auto& e : a->GetArray()) out.push_back(kv(e));
    return out;
  }
  RangeResult range(const rj::Value& obj) {
    RangeResult r;
    r.header = header(obj);
    r.kvs = kvs(obj, "kvs");
    r.more = boolean(obj, "more");
    r.count = int64(obj, "count");
    return r;
  }
  PutResult put(const rj::Value& obj) {
    PutResult r;
    r.header = header(obj);
    if (const rj::Value* p = object(obj, "prev_kv")) r.prev_kv = kv(*p);
    return r;
  }
  DeleteResult del(const rj::Value& obj) {
    DeleteResult r;
    r.header = header(obj);
    r.deleted = int64(obj, "deleted");
    r.prev_kvs = kvs(obj, "prev_kvs");
    return r;
  }

 private:
  bool ok_ = true;
};

template <typename T, typename Fn>
Result<T> decode(std::string_view body, const char* what, Fn&& fn) {
  auto doc = parse(body);
  if (!doc.ok()) return doc.status();
  Fields f;
  T out = fn(f, static_cast<const rj::Value&>(*doc));
  if (!f.ok()) return malformed(what);
  return out;
}

// {"error":{"grpc_code":N,"http_code":N,"message":"...","http_status":"..."}}: a stream's error.
Status stream_error(Fields& f, const rj::Value& err) {
  const int64_t code = f.int64(err, "grpc_code");
  std::string message = f.string(err, "message");
  if (!f.ok()) return malformed("stream error");
  if (code == static_cast<int>(GrpcCode::kOutOfRange)) return Status::out_of_range(message);
  if (code == static_cast<int>(GrpcCode::kNotFound)) return Status::not_found(message);
  return Status::io_error("etcd stream error: code=" + std::to_string(code) + " " + message);
}

// The object under "result" of a stream message, or the stream's error.
Result<const rj::Value*> stream_result(Fields& f, const rj::Value& doc) {
  if (const rj::Value* err = f.object(doc, "error")) return stream_error(f, *err);
  const rj::Value* result = f.object(doc, "result");
  if (!f.ok() || result == nullptr) return malformed("stream message without result");
  return result;
}

}  // namespace

std::string prefix_range_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

std::string encode_range(const RangeRequest& req) {
  return write_json([&](Writer& w) { write_range(w, req); });
}
std::string encode_put(const PutRequest& req) {
  return write_json([&](Writer& w) { write_put(w, req); });
}
std::string encode_delete(const DeleteRequest& req) {
  return write_json([&](Writer& w) { write_delete(w, req); });
}
std::string encode_txn(const Txn& txn) {
  return write_json([&](Writer& w) {
    w.StartObject();
    if (!txn.compare.empty()) {
      w.Key("compare");
      w.StartArray();
      for (const Compare& c : txn.compare) write_compare(w, c);
      w.EndArray();
    }
    write_ops(w, "success", txn.success);
    write_ops(w, "failure", txn.failure);
    w.EndObject();
  });
}
std::string encode_compaction(int64_t revision, bool physical) {
  return write_json([&](Writer& w) {
    w.StartObject();
    put_int(w, "revision", revision);
    put_bool(w, "physical", physical);
    w.EndObject();
  });
}
std::string encode_lease_grant(int64_t ttl_seconds) {
  return write_json([&](Writer& w) {
    w.StartObject();
    put_int(w, "TTL", ttl_seconds);
    w.EndObject();
  });
}
std::string encode_lease_id(int64_t id) {
  return write_json([&](Writer& w) {
    w.StartObject();
    put_int(w, "ID", id);
    w.EndObject();
  });
}
std::string encode_watch_create(const WatchCreate& req) {
  return write_json([&](Writer& w) {
    w.StartObject();
    w.Key("create_request");
    w.StartObject();
    put_bytes(w, "key", req.key);
    put_bytes(w, "range_end", req.range_end);
    put_int(w, "start_revision", req.start_revision);
    put_bool(w, "progress_notify", req.progress_notify);
    put_bool(w, "prev_kv", req.prev_kv);
    w.EndObject();
    w.EndObject();
  });
}

Result<RangeResult> decode_range(std::string_view body) {
  return decode<RangeResult>(body, "range", [](Fields& f, const rj::Value& d) { return f.range(d); });
}
Result<PutResult> decode_put(std::string_view body) {
  return decode<PutResult>(body, "put", [](Fields& f, const rj::Value& d) { return f.put(d); });
}
Result<DeleteResult> decode_delete(std::string_view body) {
  return decode<DeleteResult>(body, "deleterange", [](Fields& f, const rj::Value& d) { return f.del(d); });
}
Result<ResponseHeader> decode_header_only(std::string_view body) {
  return decode<ResponseHeader>(body, "header", [](Fields& f, const rj::Value& d) { return f.header(d); });
}

Result<TxnResult> decode_txn(std::string_view body) {
  return decode<TxnResult>(body, "txn", [](Fields& f, const rj::Value& d) {
    TxnResult r;
    r.header = f.header(d);
    r.succeeded = f.boolean(d, "succeeded");
    const rj::Value* responses = f.array(d, "responses");
    if (responses == nullptr) return r;
    for (const auto& op : responses->GetArray()) {
      if (const rj::Value* v = f.object(op, "response_range")) r.responses.emplace_back(f.range(*v));
      else if (const rj::Value* v = f.object(op, "response_put")) r.responses.emplace_back(f.put(*v));
      else if (const rj::Value* v = f.object(op, "response_delete_range")) r.responses.emplace_back(f.del(*v));
      else f.fail();  // Rokka sends no nested txn; anything else is not an answer to its request
    }
    return r;
  });
}

Result<LeaseGrant> decode_lease_grant(std::string_view body) {
  return decode<LeaseGrant>(body, "lease grant", [](Fields& f, const rj::Value& d) {
    LeaseGrant g;
    g.header = f.header(d);
    g.id = f.int64(d, "ID");
    g.ttl = f.int64(d, "TTL");
    if (!f.string(d, "error").empty() || g.id == 0) f.fail();
    return g;
  });
}

Result<LeaseKeepAlive> decode_lease_keepalive(std::string_view body) {
  auto doc = parse(body);
  if (!doc.ok()) return doc.status();
  Fields f;
  auto result = stream_result(f, *doc);
  if (!result.ok()) return result.status();
  LeaseKeepAlive k;
  k.header = f.header(**result);
  k.id = f.int64(**result, "ID");
  k.ttl = f.int64(**result, "TTL");
  if (!f.ok() || k.ttl < 0) return malformed("lease keepalive");
  return k;
}

Result<WatchResponse> decode_watch_message(std::string_view line) {
  auto doc = parse(line);
  if (!doc.ok()) return doc.status();
  Fields f;
  auto result = stream_result(f, *doc);
  if (!result.ok()) return result.status();
  const rj::Value& r = **result;
  WatchResponse w;
  w.header = f.header(r);
  w.watch_id = f.int64(r, "watch_id");
  w.created = f.boolean(r, "created");
  w.canceled = f.boolean(r, "canceled");
  w.compact_revision = f.int64(r, "compact_revision");
  w.cancel_reason = f.string(r, "cancel_reason");
  if (const rj::Value* events = f.array(r, "events")) {
    w.events.reserve(events->Size());
    for (const auto& e : events->GetArray()) {
      WatchEvent ev;
      const std::string type = f.string(e, "type");
      if (type == "DELETE") ev.type = WatchEvent::Type::kDelete;
      else if (!type.empty() && type != "PUT") f.fail();
      if (const rj::Value* kv = f.object(e, "kv")) ev.kv = f.kv(*kv);
      else f.fail();
      if (const rj::Value* prev = f.object(e, "prev_kv")) ev.prev_kv = f.kv(*prev);
      w.events.push_back(std::move(ev));
    }
  }
  if (!f.ok()) return malformed("watch message");
  return w;
}

GatewayError decode_gateway_error(unsigned http_status, std::string_view body) {
  GatewayError e;
  const std::string where = "etcd answered HTTP " + std::to_string(http_status);
  auto doc = parse(body);
  Fields f;
  int64_t code = -1;
  std::string message;
  bool has_code = false;
  if (doc.ok()) {
    // Two forms: unary calls answer {"error":"...","message":"...","code":14}; the streaming
    // calls (keepalive, watch) {"error":{"grpc_code":14,"http_code":503,"message":"...",...}}.
    const rj::Value* nested = doc->IsObject() ? f.get(*doc, "error") : nullptr;
    if (nested != nullptr && nested->IsObject()) {
      has_code = f.get(*nested, "grpc_code") != nullptr;
      code = f.int64(*nested, "grpc_code");
      message = f.string(*nested, "message");
    } else {
      has_code = f.get(*doc, "code") != nullptr;
      code = f.int64(*doc, "code");
      message = f.string(*doc, "message");
      if (message.empty()) message = f.string(*doc, "error");
    }
  }
  if (!doc.ok() || !f.ok() || !has_code || code < 0 || code > 16) {
    // A server error without either form (a proxy's page, say) is taken as unavailable, so the
    // client moves to the next endpoint; anything else is an answer we do not understand.
    e.status = http_status >= 500 && !has_code ? Status::io_error(where + " without the gateway's error JSON")
                                               : Status::malformed(where + " without the gateway's error JSON");
    return e;
  }
  e.grpc_code = static_cast<int>(code);
  const std::string text = where + ": " + message;
  switch (static_cast<GrpcCode>(code)) {
    case GrpcCode::kOutOfRange: e.status = Status::out_of_range(text); break;
    case GrpcCode::kNotFound: e.status = Status::not_found(text); break;
    case GrpcCode::kUnavailable:
    case GrpcCode::kDeadlineExceeded:
    case GrpcCode::kCanceled:
    case GrpcCode::kAborted:
    case GrpcCode::kResourceExhausted:
    case GrpcCode::kInternal:
    case GrpcCode::kUnknown:
    case GrpcCode::kDataLoss: e.status = Status::io_error(text); break;
    case GrpcCode::kOk:  // an error status with code 0 is not an answer we understand
    case GrpcCode::kInvalidArgument:
    case GrpcCode::kAlreadyExists:
    case GrpcCode::kPermissionDenied:
    case GrpcCode::kFailedPrecondition:
    case GrpcCode::kUnimplemented:
    case GrpcCode::kUnauthenticated: e.status = Status::invalid_argument(text); break;
  }
  e.no_leader = static_cast<GrpcCode>(code) == GrpcCode::kUnavailable && message == "etcdserver: no leader";
  return e;
}

}  // namespace rokka::cluster
