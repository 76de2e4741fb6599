#!/usr/bin/python3
"""The scenarios of the cluster-mode system test (tests/cluster/netns/run.sh runs this inside rk-c).

Starts one etcd member and one broker in each machine namespace (`ip netns exec rk-mN ...`), then
drives python3-confluent-kafka (librdkafka) and etcdctl from the client namespace. Each scenario
waits for conditions under a deadline (no fixed sleep is a pass condition) and prints one line
"PASS <letter>: ..." or "FAIL <letter>: <reason>". Every acknowledged record is logged
(<work>/acks.log: topic partition offset payload) and audited at the end. Counts go to
<work>/result ("passed failed") after every scenario.

  a   CreateTopics t6 (6 partitions) on broker 1: every broker's Metadata shows it, 2 leaders each;
      ListOffsets answered by the leader only (NOT_LEADER_OR_FOLLOWER elsewhere)
  b   idempotent acks=all producer bootstrapped with one broker, 3000 keyed records; a consumer group
      bootstrapped with another reads each back once at its (partition, offset), same bytes
  c   kill -9 of a broker that is not the controller: the others' partitions keep being acknowledged,
      Metadata drops it within 2 x session timeout + 4 s, its partitions show LEADER_NOT_AVAILABLE;
      restarted: a new epoch, its partitions back with all their records
  d   kill -9 of the controller: another broker takes <root>/controller (higher epoch), a topic created
      meanwhile is placed on the live brokers; restarted: one controller named by everyone
  e1  kill -9 of an etcd follower, e2 of the etcd leader, under load: nothing stops, no lease lost
  f   committed group offsets survive kill -9 of the coordinator broker (started again at once)
  i1  the etcd member the brokers use, a follower, cut off from its peers (not from clients): no broker
      fenced, nothing stops; i2 the same with that member the Raft leader
  h   a whole machine cut off (link down): its broker fences itself (seen by a client on that machine)
      before the others drop it; reconnected: the same process registers again, partitions intact
  g   audit: every acknowledged record of the run at its offset with its bytes, dense, nothing else
(i and h go beyond the issue's list: they take the lease-loss and endpoint-rotation paths that kill -9
does not.)
  x   a transaction over partitions led by all three brokers: commit, abort, commit; read_committed
      consumers on every partition see exactly the committed records

Debian's python3 only (python3-confluent-kafka); no pip.
"""
import argparse
import base64
import json
import logging
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback

ROOT = "/rokka"
SESSION_MS = 4000
SESSION_S = SESSION_MS / 1000.0
DROP_DEADLINE_S = 2 * SESSION_S + 4.0   # "drops out of Metadata within about 2x the session timeout" + slack
START_DEADLINE_S = 40.0                 # a (re)started broker listens and is listed again
KAFKA_PORT = 9092
RATE = 400                              # records a second while a fault is injected
T0 = time.monotonic()


def now():
    return time.monotonic() - T0


def say(msg):
    print(f"[{now():6.1f}s] {msg}", flush=True)


class Fail(Exception):
    pass


def check(cond, reason):
    if not cond:
        raise Fail(reason)


def wait_until(fn, timeout, interval=0.25, what="condition"):
    """Calls fn() until it returns a true value or timeout seconds pass; returns (value, seconds)."""
    start = time.monotonic()
    last_exc = None
    tries = 0
    while True:
        tries += 1
        try:
            v = fn()
            if v:
                return v, time.monotonic() - start
        except Fail:
            raise
        except Exception as e:  # noqa: BLE001 - any error is "not yet"
            last_exc = e
        if time.monotonic() - start >= timeout or tries > 100000:
            raise Fail(f"{what}: not within {timeout:.0f} s" + (f" (last error: {last_exc})" if last_exc else ""))
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------
# Processes in the machine namespaces

class Proc:
    """One daemon in a machine namespace; its log is appended to across restarts."""

    def __init__(self, name, ns, argv, work):
        self.name, self.ns, self.argv = name, ns, argv
        self.log_path = os.path.join(work, "logs", name + ".log")
        self.pid_path = os.path.join(work, "pids", name + ".pid")
        self.popen = None
        self.log_offset = 0
        self.starts = 0

    def start(self):
        if self.alive():
            raise Fail(f"{self.name} already running")
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"==== netns test: start #{self.starts} at {now():.1f}s\n".encode())
            log.flush()
            self.log_offset = log.tell()
            # `ip netns exec` execs the command: the child's pid is the daemon's.
            self.popen = subprocess.Popen(["ip", "netns", "exec", self.ns] + self.argv, stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        with open(self.pid_path, "w") as f:
            f.write(f"{self.popen.pid}\n")

    def alive(self):
        return self.popen is not None and self.popen.poll() is None

    @property
    def pid(self):
        return self.popen.pid if self.popen else None

    def kill9(self):
        if self.alive():
            os.kill(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)

    def stop(self, grace=5.0):
        if not self.alive():
            return
        os.kill(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill9()

    def log_since_start(self):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self.log_offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def tail(self, n=15):
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode(errors="replace").splitlines()
            return "\n".join("    " + x for x in lines[-n:])
        except OSError:
            return "    (no log)"

    def wait_log(self, needle, timeout):
        def seen():
            if needle in self.log_since_start():
                return True
            if not self.alive():
                raise Fail(f"{self.name} exited (status {self.popen.returncode}) before logging '{needle}'; "
                           f"log tail:\n{self.tail()}")
            return False
        return wait_until(seen, timeout, 0.1, f"{self.name} logs '{needle}'")[1]


class Cluster:
    def __init__(self, args):
        self.work = args.work
        self.net = args.net
        self.rokka = args.rokka
        self.ids = [1, 2, 3]
        self.ip = {i: f"{self.net}.{10 + i}" for i in self.ids}
        # etcd's Raft traffic uses a second address per machine, so that a member can be cut off from
        # its peers (a blackhole route in its namespace) while clients still reach it.
        self.peer_ip = {i: f"{args.peer_net}.{10 + i}" for i in self.ids}
        self.ns = {i: f"rk-m{i}" for i in self.ids}
        self.etcd_eps = ",".join(f"http://{self.ip[i]}:2379" for i in self.ids)
        os.makedirs(os.path.join(self.work, "pids"), exist_ok=True)
        initial = ",".join(f"m{i}=http://{self.peer_ip[i]}:2380" for i in self.ids)
        self.etcd = {}
        self.broker = {}
        for i in self.ids:
            ip = self.ip[i]
            self.etcd[i] = Proc(f"etcd-m{i}", self.ns[i], [
                "etcd", "--name", f"m{i}", "--data-dir", os.path.join(self.work, f"etcd-m{i}"),
                "--listen-client-urls", f"http://{ip}:2379", "--advertise-client-urls", f"http://{ip}:2379",
                "--listen-peer-urls", f"http://{self.peer_ip[i]}:2380",
                "--initial-advertise-peer-urls", f"http://{self.peer_ip[i]}:2380",
                "--initial-cluster", initial, "--initial-cluster-state", "new",
                "--initial-cluster-token", "rokka-netns", "--pre-vote=true", "--logger=zap"], self.work)
            data = os.path.join(self.work, f"data-b{i}")
            os.makedirs(data, exist_ok=True)
            self.broker[i] = Proc(f"broker-{i}", self.ns[i], [
                self.rokka,
                "--override", f"broker.id={i}",
                "--override", f"listeners=PLAINTEXT://{ip}:{KAFKA_PORT}",
                "--override", f"log.dirs={data}",
                "--override", "rokka.http.listeners=",
                "--override", f"rokka.cluster.etcd.endpoints={self.etcd_eps}",
                "--override", f"rokka.cluster.session.timeout.ms={SESSION_MS}",
                "--override", f"rokka.cluster.root={ROOT}",
                "--override", "group.initial.rebalance.delay.ms=0",
                "--override", "log.segment.bytes=16777216"], self.work)

    def addr(self, i):
        return f"{self.ip[i]}:{KAFKA_PORT}"

    def bootstrap(self, ids):
        return ",".join(self.addr(i) for i in ids)

    def stop_all(self):
        for p in list(self.broker.values()) + list(self.etcd.values()):
            try:
                p.stop()
            except Exception:  # noqa: BLE001 - best effort; run.sh ends what is left
                pass

    # -- etcd ----------------------------------------------------------------------------------
    def etcdctl(self, args, endpoints=None, timeout=10):
        env = dict(os.environ, ETCDCTL_API="3")
        cmd = ["etcdctl", f"--endpoints={endpoints or self.etcd_eps}", "--dial-timeout=2s",
               "--command-timeout=3s"] + args
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
            return r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            return 124, "", "etcdctl timed out"

    def etcd_healthy(self, i):
        rc, out, err = self.etcdctl(["endpoint", "health"], endpoints=f"http://{self.ip[i]}:2379")
        return rc == 0 and "is healthy" in (out + err)

    def wait_etcd_healthy(self, ids=None, timeout=30):
        ids = ids or self.ids
        return wait_until(lambda: all(self.etcd_healthy(i) for i in ids), timeout, 0.25,
                          f"etcd members {ids} healthy")[1]

    def etcd_status(self, i):
        """(member_id, leader_id, raft_term) of member i, or None."""
        rc, out, _ = self.etcdctl(["endpoint", "status", "-w", "json"], endpoints=f"http://{self.ip[i]}:2379")
        if rc != 0:
            return None
        st = json.loads(out)[0]["Status"]
        return st["header"]["member_id"], st["leader"], st["raftTerm"]

    def etcd_leader(self):
        """The machine id whose member is the Raft leader (asked of every live member: they must agree)."""
        ids = {}
        leaders = set()
        for i in self.ids:
            if not self.etcd[i].alive():
                continue
            s = self.etcd_status(i)
            if s is None:
                return None
            ids[s[0]] = i
            leaders.add(s[1])
        if len(leaders) != 1:
            return None
        return ids.get(leaders.pop())

    def etcd_get(self, key, prefix=False):
        """[(key, value bytes, create_revision, lease)] via etcdctl, or raises."""
        args = ["get", key, "-w", "json"] + (["--prefix"] if prefix else [])
        rc, out, err = self.etcdctl(args)
        if rc != 0:
            raise RuntimeError(f"etcdctl get {key}: {err.strip()}")
        doc = json.loads(out)
        res = []
        for kv in doc.get("kvs", []):
            res.append((base64.b64decode(kv["key"]).decode(), base64.b64decode(kv.get("value", "")),
                        int(kv.get("create_revision", 0)), int(kv.get("lease", 0))))
        return res

    def controller(self):
        """(broker id, create_revision) of <root>/controller, or None when absent."""
        kvs = self.etcd_get(f"{ROOT}/controller")
        if not kvs:
            return None
        return json.loads(kvs[0][1])["broker"], kvs[0][2]

    # -- brokers -------------------------------------------------------------------------------
    def start_broker(self, i):
        self.broker[i].start()
        return self.broker[i].wait_log("listening: address=", START_DEADLINE_S)


# ---------------------------------------------------------------------------------------------
# A few raw Kafka requests, to ask one given broker (librdkafka picks its own broker for Metadata)

class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.d, self.o)
        self.o += struct.calcsize(fmt)
        return v[0]

    def i8(self):
        return self.take(">b")

    def i16(self):
        return self.take(">h")

    def i32(self):
        return self.take(">i")

    def string(self):
        n = self.i16()
        if n < 0:
            return None
        s = self.d[self.o:self.o + n].decode()
        self.o += n
        return s

    def array(self, fn):
        n = self.i32()
        return [fn() for _ in range(max(n, 0))]


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk
    return buf


def kafka_request(addr, api_key, version, body, timeout=2.0):
    host, port = addr.rsplit(":", 1)
    corr = random.randrange(1, 1 << 30)
    cid = b"rokka-netns-test"
    msg = struct.pack(">hhih", api_key, version, corr, len(cid)) + cid + body
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(struct.pack(">i", len(msg)) + msg)
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        data = recv_exact(s, size)
    r = Reader(data)
    if r.i32() != corr:
        raise RuntimeError("correlation id mismatch")
    return r


def metadata(addr):
    """Metadata v1 (all topics) from the broker at addr:
    {"brokers": {id: "host:port"}, "controller": id, "topics": {name: {"error": e, "parts": {p: (err, leader)}}}}"""
    r = kafka_request(addr, 3, 1, struct.pack(">i", -1))
    brokers = {}
    for _ in range(r.i32()):
        nid, host, port, _rack = r.i32(), r.string(), r.i32(), r.string()
        brokers[nid] = f"{host}:{port}"
    controller = r.i32()
    topics = {}
    for _ in range(r.i32()):
        err, name, _internal = r.i16(), r.string(), r.i8()
        parts = {}
        for _ in range(r.i32()):
            perr, p, leader = r.i16(), r.i32(), r.i32()
            r.array(r.i32)
            r.array(r.i32)
            parts[p] = (perr, leader)
        topics[name] = {"error": err, "parts": parts}
    return {"brokers": brokers, "controller": controller, "topics": topics}


def list_offsets(addr, topic, parts, timeout=2.0):
    """ListOffsets v1 (latest) for partitions `parts` of topic from the broker at addr: {p: (error, offset)}."""
    t = topic.encode()
    body = struct.pack(">iih", -1, 1, len(t)) + t + struct.pack(">i", len(parts))
    for p in parts:
        body += struct.pack(">iq", p, -1)
    r = kafka_request(addr, 2, 1, body, timeout)
    out = {}
    for _ in range(r.i32()):
        r.string()
        for _ in range(r.i32()):
            p, err, _ts, off = r.i32(), r.i16(), r.take(">q"), r.take(">q")
            out[p] = (err, off)
    return out


def find_coordinator(addr, group):
    """FindCoordinator v0 from the broker at addr: (error, node_id)."""
    g = group.encode()
    r = kafka_request(addr, 10, 0, struct.pack(">h", len(g)) + g)
    err, node = r.i16(), r.i32()
    return err, node


# ---------------------------------------------------------------------------------------------
# Kafka clients and the acknowledgement ledger

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

CLIENT_LOG = logging.getLogger("librdkafka")


class Ledger:
    """Every acknowledged record: (topic, partition, offset) -> payload, also appended to acks.log."""

    def __init__(self, path):
        self.acks = {}
        self.f = open(path, "a")
        self.seq = 0

    def payload(self, tag):
        self.seq += 1
        return f"{tag}:{self.seq}:{random.getrandbits(64):016x}".encode()

    def add(self, topic, p, o, value):
        key = (topic, p, o)
        if key in self.acks and self.acks[key] != value:
            raise Fail(f"two acknowledgements for {topic}/{p}@{o}: {self.acks[key]!r} and {value!r}")
        self.acks[key] = value
        self.f.write(f"{topic} {p} {o} {value.decode()}\n")

    def of(self, topic, parts=None):
        return {(p, o): v for (t, p, o), v in self.acks.items() if t == topic and (parts is None or p in parts)}


def client_conf(bootstrap, **extra):
    conf = {"bootstrap.servers": bootstrap, "logger": CLIENT_LOG, "socket.connection.setup.timeout.ms": 5000}
    conf.update(extra)
    return conf


class Sender:
    """An idempotent acks=all producer; records every delivery report with its latency."""

    def __init__(self, bootstrap, ledger, name, **extra):
        self.ledger, self.name = ledger, name
        self.p = Producer(client_conf(bootstrap, **{"acks": "all", "enable.idempotence": True, "linger.ms": 5,
                                                    "message.timeout.ms": 60000,
                                                    "error_cb": lambda e: CLIENT_LOG.warning("%s error_cb: %s",
                                                                                             name, e), **extra}))
        self.sent = 0
        self.acked = []      # (sent_at, acked_at, topic, p, o, value)
        self.errors = []     # (sent_at, error string, value)

    def send(self, topic, value, key=None, partition=None):
        sent_at = time.monotonic()

        def report(err, msg):
            if err is not None:
                self.errors.append((sent_at, str(err), value))
                return
            self.ledger.add(msg.topic(), msg.partition(), msg.offset(), msg.value())
            self.acked.append((sent_at, time.monotonic(), msg.topic(), msg.partition(), msg.offset(), msg.value()))

        kw = {"on_delivery": report}
        if key is not None:
            kw["key"] = key
        if partition is not None:
            kw["partition"] = partition
        for _ in range(1000):
            try:
                self.p.produce(topic, value, **kw)
                self.sent += 1
                return
            except BufferError:
                self.p.poll(0.05)
        raise Fail(f"{self.name}: local queue stayed full")

    def poll(self, t=0):
        self.p.poll(t)

    def finish(self, timeout):
        """Flushes; returns the number of records without a delivery report."""
        deadline = time.monotonic() + timeout
        left = len(self.p)
        while left and time.monotonic() < deadline:
            left = self.p.flush(min(1.0, max(0.0, deadline - time.monotonic())))
        return left

    def max_latency(self, since=None):
        lat = [a - s for s, a, *_ in self.acked if since is None or s >= since]
        return max(lat) if lat else 0.0

    def slowest(self, since):
        """'partition P, sent +X s after `since`' of the slowest acknowledgement of a record sent after since."""
        recs = [(a - s, p, s - since) for s, a, _t, p, _o, _v in self.acked if s >= since]
        if not recs:
            return "none"
        lat, p, rel = max(recs)
        late = sum(1 for x in recs if x[0] > 1.0)
        return f"t6/{p}, sent {rel:+.2f} s after the fault; {late} of {len(recs)} records took over 1 s"


class Pacer:
    """How many records are due to keep `rate` records a second since the start."""

    def __init__(self, rate):
        self.rate, self.start, self.done = rate, time.monotonic(), 0

    def due(self):
        n = max(0, int((time.monotonic() - self.start) * self.rate) - self.done)
        self.done += n
        return n


def read_back(bootstrap, topic, parts, timeout, group=None):
    """Reads partitions `parts` of topic from offset 0 to their high watermarks (assign, no group
    membership). Returns ({p: [(offset, value)]}, {p: hw}, [errors])."""
    c = Consumer(client_conf(bootstrap, **{"group.id": group or f"netns-reader-{random.getrandbits(32):08x}",
                                           "enable.auto.commit": False, "check.crcs": True,
                                           "auto.offset.reset": "earliest"}))
    try:
        deadline = time.monotonic() + timeout
        hw = {}
        for p in parts:
            def hwm(p=p):
                lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=3, cached=False)
                return (lo, hi) if hi >= 0 else None
            (lo, hi), _ = wait_until(hwm, max(1.0, deadline - time.monotonic()), 0.25,
                                     f"watermarks of {topic}/{p} from {bootstrap}")
            check(lo == 0, f"{topic}/{p}: log start offset {lo}, expected 0")
            hw[p] = hi
        got = {p: [] for p in parts}
        errors = []
        todo = {p for p in parts if hw[p] > 0}
        if todo:
            c.assign([TopicPartition(topic, p, 0) for p in sorted(todo)])
        while todo and time.monotonic() < deadline:
            for m in c.consume(500, 0.5):
                if m.error():
                    if m.error().code() != KafkaError._PARTITION_EOF:
                        errors.append(str(m.error()))
                    continue
                got[m.partition()].append((m.offset(), m.value()))
                if m.offset() >= hw[m.partition()] - 1:
                    todo.discard(m.partition())
        if todo:
            errors.append(f"partitions {sorted(todo)} not read up to their high watermark within {timeout:.0f} s "
                          f"(read {[len(got[p]) for p in sorted(todo)]} of {[hw[p] for p in sorted(todo)]})")
        return got, hw, errors
    finally:
        c.close()


def compare(topic, got, hw, expected, exact=True):
    """Problems between what was read (got, hw) and the acknowledged records expected {(p, o): payload}.
    exact: the partitions must hold nothing but acknowledged records."""
    problems = []
    lost = wrong = dups = extra = 0
    for p, recs in got.items():
        seen = {}
        for o, v in recs:
            if o in seen:
                dups += 1
            seen[o] = v
        if sorted(seen) != list(range(hw[p])):
            holes = sorted(set(range(hw[p])) - set(seen))
            problems.append(f"{topic}/{p}: offsets not dense 0..{hw[p] - 1} (missing {holes[:5]}...)")
        for (ep, o), v in expected.items():
            if ep != p:
                continue
            if o not in seen:
                lost += 1
            elif seen[o] != v:
                wrong += 1
        extra += sum(1 for o in seen if (p, o) not in expected)
    for kind, n in (("acknowledged but lost", lost), ("with different bytes", wrong), ("read twice", dups)):
        if n:
            problems.append(f"{topic}: {n} records {kind}")
    if exact and extra:
        problems.append(f"{topic}: {extra} records that were never acknowledged")
    return problems


# ---------------------------------------------------------------------------------------------
# The scenarios

class Test:
    def __init__(self, args):
        self.args = args
        self.c = Cluster(args)
        self.ledger = Ledger(os.path.join(args.work, "acks.log"))
        self.leaders = {}        # topic -> {p: broker}
        self.passed = 0
        self.failed = 0
        self.result_path = os.path.join(args.work, "result")
        self.write_result()

    def write_result(self):
        with open(self.result_path + ".tmp", "w") as f:
            f.write(f"{self.passed} {self.failed}\n")
        os.replace(self.result_path + ".tmp", self.result_path)

    def run(self, letter, title, fn):
        start = time.monotonic()
        say(f"{letter}: {title}")
        try:
            reason = fn()
            self.passed += 1
            print(f"PASS {letter}: {title}: {reason} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - every error is this scenario's failure
            self.failed += 1
            why = str(e) if isinstance(e, Fail) else f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
            print(f"FAIL {letter}: {title}: {why} ({time.monotonic() - start:.1f} s)", flush=True)
        self.write_result()

    # -- helpers over the whole cluster ---------------------------------------------------------
    def md(self, i):
        return metadata(self.c.addr(i))

    def broker_epoch(self, i):
        kvs = self.c.etcd_get(f"{ROOT}/brokers/{i}")
        return kvs[0][2] if kvs else None

    def wait_listed(self, asked, expect_ids, timeout, what):
        """Metadata from each broker in `asked` lists exactly the brokers expect_ids."""
        want = sorted(expect_ids)
        return wait_until(lambda: all(sorted(self.md(i)["brokers"]) == want for i in asked), timeout, 0.25,
                          f"{what}: Metadata from {asked} lists exactly brokers {want}")[1]

    def wait_leaders(self, asked, topic, leaders, timeout, what):
        def ok():
            for i in asked:
                t = self.md(i)["topics"].get(topic)
                if not t or {p: l for p, (e, l) in t["parts"].items() if e == 0} != leaders:
                    return False
            return True
        return wait_until(ok, timeout, 0.25, f"{what}: Metadata from {asked} shows {topic} led by {leaders}")[1]

    def healthy(self, timeout=30):
        """Precondition of a scenario: all members and brokers up, listed everywhere, t6 led as created."""
        for i in self.c.ids:
            check(self.c.etcd[i].alive(), f"precondition: etcd m{i} is not running")
            check(self.c.broker[i].alive(), f"precondition: broker {i} is not running")
        self.wait_listed(self.c.ids, self.c.ids, timeout, "precondition")
        if "t6" in self.leaders:
            self.wait_leaders(self.c.ids, "t6", self.leaders["t6"], timeout, "precondition")

    def restart_broker(self, i, others):
        """Starts broker i again; waits until it and `others` list it and t6 is led as at creation."""
        t = time.monotonic()
        listen = self.c.start_broker(i)
        self.wait_listed([i] + others, self.c.ids, START_DEADLINE_S, f"broker {i} restarted")
        if "t6" in self.leaders:
            self.wait_leaders([i] + others, "t6", self.leaders["t6"], START_DEADLINE_S, f"broker {i} restarted")
        return listen, time.monotonic() - t

    # -- setup ---------------------------------------------------------------------------------
    def setup_network(self):
        for i in self.c.ids:
            ip = self.c.ip[i]

            def refused(ip=ip):
                try:
                    socket.create_connection((ip, 9), timeout=1).close()
                    return True
                except ConnectionRefusedError:
                    return True
            wait_until(refused, 10, 0.2, f"{ip} reachable from rk-c (TCP answer from port 9)")

    def setup_etcd(self):
        for i in self.c.ids:
            self.c.etcd[i].start()
        took = self.c.wait_etcd_healthy(timeout=40)
        leader, _ = wait_until(self.c.etcd_leader, 20, 0.25, "etcd members agree on a leader")
        say(f"etcd: 3 members healthy after {took:.2f} s; Raft leader m{leader}")

    def setup_brokers(self):
        for i in self.c.ids:
            self.c.broker[i].start()
        for i in self.c.ids:
            self.c.broker[i].wait_log("listening: address=", START_DEADLINE_S)
        took = self.wait_listed(self.c.ids, self.c.ids, 30, "start-up")
        ctrl, _ = wait_until(self.c.controller, 20, 0.25, f"{ROOT}/controller written")
        keys = [k for k, *_ in self.c.etcd_get(f"{ROOT}/brokers/", prefix=True)]
        say(f"brokers: 1-3 listening, each lists all three (+{took:.2f} s); controller broker {ctrl[0]} "
            f"(epoch {ctrl[1]}); etcd holds {keys}")

    # -- a -------------------------------------------------------------------------------------
    def a_create_topic(self):
        admin = AdminClient(client_conf(self.c.addr(1)))
        fs = admin.create_topics([NewTopic("t6", num_partitions=6, replication_factor=1)],
                                 operation_timeout=15, request_timeout=20)
        try:
            fs["t6"].result(timeout=30)
        except KafkaException as e:
            raise Fail(f"CreateTopics t6 on broker 1: {e}")

        def placed():
            maps = []
            for i in self.c.ids:
                t = self.md(i)["topics"].get("t6")
                if not t or t["error"] != 0 or len(t["parts"]) != 6 or any(e != 0 for e, _ in t["parts"].values()):
                    return None
                maps.append({p: l for p, (e, l) in t["parts"].items()})
            return maps
        maps, took = wait_until(placed, 20, 0.25, "t6 with 6 led partitions in Metadata from brokers 1, 2 and 3")
        check(all(m == maps[0] for m in maps), f"brokers disagree on t6's leaders: {maps}")
        leaders = maps[0]
        per = {i: sum(1 for l in leaders.values() if l == i) for i in self.c.ids}
        check(set(leaders.values()) == set(self.c.ids), f"t6 leaders {leaders}: not on all three brokers")
        check(all(n == 2 for n in per.values()), f"t6 leaders {leaders}: not spread evenly (2 each): {per}")
        self.leaders["t6"] = leaders
        # Routing: a broker answers ListOffsets for the partitions it leads, NOT_LEADER_OR_FOLLOWER (6) for the others.
        for i in self.c.ids:
            answers = list_offsets(self.c.addr(i), "t6", list(range(6)))
            want = {p: (0 if leaders[p] == i else 6) for p in range(6)}
            got = {p: answers.get(p, (None,))[0] for p in range(6)}
            check(got == want, f"ListOffsets t6 on broker {i}: error codes {got}, expected {want} "
                               f"(0 where it leads, 6 NOT_LEADER_OR_FOLLOWER elsewhere)")
        kvs = self.c.etcd_get(f"{ROOT}/topics/t6")
        check(kvs, f"no {ROOT}/topics/t6 in etcd")
        rec = json.loads(kvs[0][1])
        check(rec.get("partitions") == 6, f"{ROOT}/topics/t6 = {rec}: partitions is not 6")
        return (f"t6 visible from all 3 brokers {took:.2f} s after CreateTopics, leaders {leaders}; ListOffsets "
                f"answered by the leader only (NOT_LEADER_OR_FOLLOWER elsewhere)")

    # -- b -------------------------------------------------------------------------------------
    def b_produce_consume(self):
        n = self.args.records
        s = Sender(self.c.addr(2), self.ledger, "b-producer")
        t = time.monotonic()
        for k in range(n):
            s.send("t6", self.ledger.payload("b"), key=f"key-{k:06d}".encode())
            if k % 100 == 0:
                s.poll(0)
        left = s.finish(60)
        took = time.monotonic() - t
        check(not s.errors, f"{len(s.errors)} delivery errors, first: {s.errors[:3]}")
        check(left == 0 and len(s.acked) == n, f"{len(s.acked)} of {n} acknowledged ({left} without report in 60 s)")
        per = {}
        for *_, p, _o, _v in s.acked:
            per[p] = per.get(p, 0) + 1
        check(sorted(per) == list(range(6)), f"records reached partitions {sorted(per)} only")

        # A consumer group bootstrapped from broker 3 reads everything back.
        expected = self.ledger.of("t6")
        c = Consumer(client_conf(self.c.addr(3), **{"group.id": "g-b", "auto.offset.reset": "earliest",
                                                    "enable.auto.commit": True, "check.crcs": True}))
        seen = {}
        dups = 0
        errors = []
        try:
            c.subscribe(["t6"])
            deadline = time.monotonic() + 60
            quiet_until = None
            while time.monotonic() < deadline:
                for m in c.consume(500, 0.5):
                    if m.error():
                        if m.error().code() != KafkaError._PARTITION_EOF:
                            errors.append(str(m.error()))
                        continue
                    k = (m.partition(), m.offset())
                    if k in seen:
                        dups += 1
                    seen[k] = m.value()
                if len(seen) >= len(expected) and quiet_until is None:
                    quiet_until = time.monotonic() + 1.0   # a little longer: anything read twice shows up
                if quiet_until and time.monotonic() >= quiet_until:
                    break
            assignment = sorted(tp.partition for tp in c.assignment())
        finally:
            c.close()
        lost = [k for k in expected if k not in seen]
        wrong = [k for k, v in expected.items() if k in seen and seen[k] != v]
        extra = [k for k in seen if k not in expected]
        check(not lost, f"group g-b (bootstrap broker 3): {len(lost)} of {len(expected)} acknowledged records not "
                        f"read in 60 s (assignment {assignment}, consumer errors {errors[:3]})")
        check(not wrong and not dups and not extra,
              f"group g-b: {len(wrong)} with other bytes, {dups} read twice, {len(extra)} never acknowledged")
        for p in range(6):
            offs = sorted(o for (pp, o) in seen if pp == p)
            check(offs == list(range(per[p])), f"t6/{p}: offsets read are not dense from 0 ({per[p]} acknowledged)")
        return (f"{n} records acknowledged in {took:.2f} s via broker 2 (per partition {dict(sorted(per.items()))}); "
                f"group g-b via broker 3 read each once at its offset, same bytes")

    # -- c -------------------------------------------------------------------------------------
    def outage(self, letter, victim, inject, what):
        """Produces to the partitions of t6 not led by `victim` (RATE a second, from 1 s before `inject()`)
        while asking the other brokers for Metadata every 0.1 s, until both dropped the victim + 2 s
        (or DROP_DEADLINE_S + 2 s). Checks: every record acknowledged, none slower than 5 s after the
        fault, the victim dropped by both within DROP_DEADLINE_S, its partitions then (5, -1), its
        registration gone from etcd. Returns a dict of what was seen."""
        live = [i for i in self.c.ids if i != victim]
        leaders = self.leaders["t6"]
        live_parts = sorted(p for p, l in leaders.items() if l != victim)
        dead_parts = sorted(p for p, l in leaders.items() if l == victim)
        dropped = {}       # broker asked -> seconds after the fault when the victim was gone
        leader_gone = {}   # broker asked -> the victim's partitions as it saw them once the victim was gone
        fault_at = [None]
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                if fault_at[0] is not None:
                    for i in live:
                        if i in dropped:
                            continue
                        try:
                            m = self.md(i)
                        except Exception:  # noqa: BLE001
                            continue
                        if victim not in m["brokers"]:
                            dropped[i] = time.monotonic() - fault_at[0]
                            t = m["topics"].get("t6", {"parts": {}})
                            leader_gone[i] = {p: t["parts"].get(p) for p in dead_parts}
                stop.wait(0.1)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()

        s = Sender(self.c.bootstrap(self.c.ids), self.ledger, f"{letter}-producer")
        pacer = Pacer(RATE)
        start = time.monotonic()
        k = 0
        try:
            end = start + 60
            while time.monotonic() < end:
                if fault_at[0] is None and time.monotonic() - start >= 1.0:
                    inject()
                    fault_at[0] = time.monotonic()
                    say(f"{letter}: {what}")
                if fault_at[0] is not None and len(dropped) == len(live):
                    end = min(end, max(dropped.values()) + fault_at[0] + 2.0)
                if fault_at[0] is not None and time.monotonic() - fault_at[0] > DROP_DEADLINE_S + 2:
                    break
                for _ in range(pacer.due()):
                    s.send("t6", self.ledger.payload(letter), partition=live_parts[k % len(live_parts)])
                    k += 1
                s.poll(0)
                time.sleep(0.01)
        finally:
            stop.set()
            watcher.join(5)
        left = s.finish(30)
        after = [a for a in s.acked if a[0] >= fault_at[0]]
        check(not s.errors, f"{len(s.errors)} delivery errors on live partitions, first: {s.errors[:3]}")
        check(left == 0, f"{left} of {s.sent} records to the live partitions unacknowledged 30 s after the last send")
        lat = s.max_latency(since=fault_at[0])
        check(after and lat <= 5.0, f"records to live partitions {live_parts} after the fault: {len(after)} "
                                    f"acknowledged, slowest {lat:.2f} s (bound 5 s)")
        for i in live:
            check(i in dropped, f"Metadata from broker {i} still lists broker {victim} "
                                f"{DROP_DEADLINE_S:.0f} s after the fault (2 x session timeout + 4 s)")
        for i in live:
            bad = {p: v for p, v in leader_gone[i].items() if v is None or v[1] != -1 or v[0] != 5}
            check(not bad, f"Metadata from broker {i} without broker {victim}: its partitions show "
                           f"(error, leader) {leader_gone[i]}, expected (5 LEADER_NOT_AVAILABLE, -1)")
        keys = [kk for kk, *_ in self.c.etcd_get(f"{ROOT}/brokers/", prefix=True)]
        check(f"{ROOT}/brokers/{victim}" not in keys, f"{ROOT}/brokers/{victim} still in etcd: {keys}")
        return {"live": live, "live_parts": live_parts, "dead_parts": dead_parts, "after": len(after),
                "fault_at": fault_at[0], "first_drop": min(dropped.values()), "slowest": s.slowest(fault_at[0]),
                "latency": lat, "dropped": ", ".join(f"{dropped[i]:.2f} s (broker {i})" for i in live)}

    def check_returned(self, victim, via, parts, epoch_before):
        """After the victim came back: a new, higher epoch; its partitions hold every acknowledged
        record from offset 0 (read through broker `via`). Returns (epoch, records)."""
        epoch_after = self.broker_epoch(victim)
        check(epoch_after and epoch_after > epoch_before,
              f"broker {victim}'s epoch (create_revision of {ROOT}/brokers/{victim}): {epoch_before} before, "
              f"{epoch_after} after it came back; it must have a new, higher one")
        got, hw, errors = read_back(self.c.addr(via), "t6", parts, 30)
        check(not errors, f"reading {parts} back from offset 0 via broker {via}: {errors}")
        problems = compare("t6", got, hw, self.ledger.of("t6", parts))
        check(not problems, "; ".join(problems))
        return epoch_after, sum(hw.values())

    def c_kill_broker(self):
        self.healthy()
        ctrl = self.c.controller()
        check(ctrl, f"no {ROOT}/controller")
        victim = max(i for i in self.c.ids if i != ctrl[0])
        epoch_before = self.broker_epoch(victim)
        say(f"c: controller is broker {ctrl[0]}; killing broker {victim} (epoch {epoch_before})")
        o = self.outage("c", victim, self.c.broker[victim].kill9, f"broker {victim} killed -9")
        listen, back = self.restart_broker(victim, o["live"])
        say(f"c: broker {victim} restarted: listening after {listen:.2f} s, listed with its partitions after "
            f"{back:.2f} s")
        epoch_after, n = self.check_returned(victim, o["live"][0], o["dead_parts"], epoch_before)
        return (f"broker {victim} killed: {o['after']} records to {o['live_parts']} acknowledged after the kill "
                f"(slowest {o['latency']:.2f} s); dropped from Metadata after {o['dropped']}; restarted: listening "
                f"after {listen:.2f} s, listed with its partitions after {back:.2f} s, epoch {epoch_before} -> "
                f"{epoch_after}; partitions {o['dead_parts']} hold their {n} records byte for byte")

    # -- i (beyond the brief's a-f: an etcd member cut off from its peers, reachable by clients) --
    def endpoints_in_use(self):
        """{broker: machine id of the etcd member it talks to}, from its log ("etcd endpoint switched")."""
        use = {}
        for i in self.c.ids:
            current = self.c.ip[1]        # the first of rokka.cluster.etcd.endpoints
            for line in self.c.broker[i].log_since_start().splitlines():
                if "etcd endpoint switched:" in line and " to=" in line:
                    current = line.split(" to=")[1].split(":")[0]
            use[i] = next((m for m in self.c.ids if self.c.ip[m] == current), None)
        return use

    def move_etcd_leader(self, target):
        """Makes member m<target> the Raft leader (etcdctl move-leader, asked of the current leader)."""
        leader, _ = wait_until(self.c.etcd_leader, 20, 0.25, "etcd members agree on a leader")
        if leader == target:
            return
        rc, out, err = self.c.etcdctl(["member", "list", "-w", "json"])
        check(rc == 0, f"etcdctl member list: {err.strip()}")
        ids = {m["name"]: m["ID"] for m in json.loads(out)["members"]}
        rc, out, err = self.c.etcdctl(["move-leader", f"{ids[f'm{target}']:x}"],
                                      endpoints=f"http://{self.c.ip[leader]}:2379")
        check(rc == 0, f"etcdctl move-leader to m{target}: {(out + err).strip()}")
        wait_until(lambda: self.c.etcd_leader() == target, 15, 0.25, f"m{target} is the etcd leader")

    def i_isolate_member(self, role):
        self.healthy()
        use = self.endpoints_in_use()
        counts = {m: sum(1 for v in use.values() if v == m) for m in self.c.ids}
        victim = max(self.c.ids, key=lambda m: (counts[m], -m))
        ns = self.c.ns[victim]
        # The member the brokers talk to is made the Raft leader, or a follower, as the scenario asks.
        self.move_etcd_leader(victim if role == "leader" else min(m for m in self.c.ids if m != victim))
        leader = self.c.etcd_leader()
        epochs = {i: self.broker_epoch(i) for i in self.c.ids}
        fenced_before = {i: self.c.broker[i].log_since_start().count("broker fenced") for i in self.c.ids}
        peers = [self.c.peer_ip[m] for m in self.c.ids if m != victim]
        # Both directions: the victim's namespace drops what goes to its peers' Raft addresses, theirs
        # drop what goes to its Raft address. Clients (10.77.0.x) still reach every member.
        cuts = [(ns, ip) for ip in peers] + [(self.c.ns[m], self.c.peer_ip[victim]) for m in self.c.ids if m != victim]

        def routes(op):
            for where, ip in cuts:
                r = subprocess.run(["ip", "-n", where, "route", op, "blackhole", f"{ip}/32"], capture_output=True,
                                   text=True, timeout=10)
                check(r.returncode == 0, f"ip -n {where} route {op} blackhole {ip}/32: {r.stderr.strip()}")
        say(f"i: brokers talk to etcd members {use}; etcd leader m{leader}; cutting {role} m{victim} off from its "
            f"peers")

        stop = threading.Event()
        samples = [0]
        missing = []
        isolated_seen = [False]

        def watch():
            while not stop.is_set():
                for i in self.c.ids:
                    try:
                        m = self.md(i)
                    except Exception as e:  # noqa: BLE001
                        missing.append((round(now(), 2), i, f"Metadata failed: {e}", None))
                        continue
                    samples[0] += 1
                    t = m["topics"].get("t6", {"parts": {}})
                    unled = sorted(p for p, (e, l) in t["parts"].items() if e != 0 or l < 0)
                    if sorted(m["brokers"]) != self.c.ids or unled:
                        missing.append((round(now(), 2), i, sorted(m["brokers"]), unled))
                stop.wait(0.2)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        s = Sender(self.c.bootstrap(self.c.ids), self.ledger, "i-producer")
        pacer = Pacer(RATE)
        window = 3 * SESSION_S
        cut_at = None
        prober = None
        k = 0
        try:
            t = time.monotonic()
            while time.monotonic() - t < 1 + window:
                if cut_at is None and time.monotonic() - t >= 1.0:
                    routes("add")
                    cut_at = time.monotonic()
                    say(f"i: m{victim}'s Raft traffic black-holed both ways (peers {peers})")
                if cut_at and prober is None and time.monotonic() - cut_at > 3.0:
                    # etcdctl against the isolated member takes seconds: not on the producing thread
                    prober = threading.Thread(target=lambda: isolated_seen.__setitem__(
                        0, not self.c.etcd_healthy(victim)), daemon=True)
                    prober.start()
                for _ in range(pacer.due()):
                    s.send("t6", self.ledger.payload("i"), partition=k % 6)
                    k += 1
                s.poll(0)
                time.sleep(0.01)
            if prober:
                prober.join(15)
            isolated_seen[0] = isolated_seen[0] or not self.c.etcd_healthy(victim)
        finally:
            stop.set()
            watcher.join(5)
            routes("del")
            say(f"i: m{victim} reconnected to its peers")
        left = s.finish(30)
        lat = s.max_latency(since=cut_at)
        fenced = {i: self.c.broker[i].log_since_start().count("broker fenced") - fenced_before[i] for i in self.c.ids}
        epochs_after = {i: self.broker_epoch(i) for i in self.c.ids}
        self.c.wait_etcd_healthy(timeout=30)
        check(isolated_seen[0], f"m{victim} stayed healthy with its peers black-holed: the isolation did not work")
        problems = []
        if s.errors or left:
            problems.append(f"{len(s.acked)} of {s.sent} records acknowledged, errors {s.errors[:3]}")
        if lat > 5.0:
            problems.append(f"slowest acknowledgement after the cut {lat:.2f} s ({s.slowest(cut_at)}; bound 5 s)")
        if missing:
            problems.append(f"Metadata lacked a broker or a t6 leader in {len(missing)} of {samples[0]} samples, "
                            f"first: {missing[:3]}")
        if epochs_after != epochs or any(fenced.values()):
            problems.append(f"brokers fenced themselves ('broker fenced' lines logged: {fenced}) or lost their "
                            f"leases (epochs {epochs} -> {epochs_after})")
        check(not problems, f"with m{victim} (the etcd member brokers {[i for i, m in use.items() if m == victim]} "
                            f"talked to; etcd leader was m{leader}) cut off from its peers, two members and their "
                            f"leader reachable: " + "; ".join(problems))
        self.healthy()
        return (f"m{victim} (used by brokers {[i for i, m in use.items() if m == victim]}; etcd leader was "
                f"m{leader}) cut off from its peers for {window:.0f} s: {len(s.acked)} records acknowledged "
                f"(slowest {lat:.2f} s: {s.slowest(cut_at)}), all brokers and t6 leaders in all {samples[0]} Metadata samples, no broker "
                f"fenced, epochs unchanged")

    # -- h (beyond the brief's a-f: the lease-loss path that kill -9 does not take) --------------
    def h_cut_machine(self):
        self.healthy()
        ctrl = self.c.controller()
        check(ctrl, f"no {ROOT}/controller")
        # Of the brokers that are not the controller, the one whose machine's etcd member most of the
        # other brokers talk to (their watches then have to notice that member is gone).
        use = self.endpoints_in_use()
        victim = max((i for i in self.c.ids if i != ctrl[0]),
                     key=lambda i: (sum(1 for b, m in use.items() if b != i and m == i), -i))
        ns = self.c.ns[victim]
        epoch_before = self.broker_epoch(victim)
        pid = self.c.broker[victim].pid

        def link(state):
            r = subprocess.run(["ip", "-n", ns, "link", "set", "eth0", state], capture_output=True, text=True,
                               timeout=10)
            check(r.returncode == 0, f"ip -n {ns} link set eth0 {state}: {r.stderr.strip()}")
        parts = sorted(p for p, l in self.leaders["t6"].items() if l == victim)
        # A probe inside the cut machine asks its broker, every 0.1 s, for the offsets of the partitions
        # it leads: once its lease can have ended, it must stop serving them (fencing, issue 23).
        probe = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, os.path.abspath(__file__),
                                  "--probe-list-offsets", self.c.addr(victim), "t6", ",".join(map(str, parts)),
                                  str(DROP_DEADLINE_S + 6)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
        etcd_leader = self.c.etcd_leader()
        say(f"h: controller is broker {ctrl[0]}, etcd leader m{etcd_leader}, brokers talk to members {use}; cutting "
            f"machine {ns} off (broker {victim}, epoch {epoch_before}, and etcd m{victim})")
        try:
            o = self.outage("h", victim, lambda: link("down"), f"{ns}'s eth0 down")
        finally:
            link("up")
            healed = time.monotonic()
            probe.terminate()
            out, _ = probe.communicate(timeout=10)
        say(f"h: {ns}'s eth0 up again")
        samples = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        during = [x for x in samples if o["fault_at"] <= x["t"] < healed]
        refused = [x for x in during if x.get("codes") and any(c != 0 for c in x["codes"].values())]
        failed = [x for x in during if "error" in x]
        check(samples, f"the probe in {ns} printed nothing: {out[-500:]}")
        check(refused, f"broker {victim} cut off from etcd still served its partitions {o['dead_parts']} to a client "
                       f"on its own machine for the whole cut ({len(during)} probes, {len(failed)} failed: "
                       f"{failed[:2]}); it must fence itself once its lease can have ended")
        fence = refused[0]["t"] - o["fault_at"]
        served_after = [x for x in during if x["t"] > refused[0]["t"] and x.get("codes")
                        and all(c == 0 for c in x["codes"].values())]
        check(fence < o["first_drop"],
              f"broker {victim} refused its partitions only {fence:.2f} s after the cut (codes "
              f"{refused[0]['codes']}), the others dropped it after {o['first_drop']:.2f} s: it must stop first")
        check(not served_after, f"broker {victim} served its partitions again while still cut off: {served_after[:2]}")
        self.c.wait_etcd_healthy(timeout=30)
        check(self.c.broker[victim].alive() and self.c.broker[victim].pid == pid,
              f"broker {victim} exited while its machine was cut off (status {self.c.broker[victim].popen.returncode})")
        self.wait_listed(self.c.ids, self.c.ids, START_DEADLINE_S, f"{ns} reconnected")
        self.wait_leaders(self.c.ids, "t6", self.leaders["t6"], START_DEADLINE_S, f"{ns} reconnected")
        back = time.monotonic() - healed
        epoch_after, n = self.check_returned(victim, o["live"][0], o["dead_parts"], epoch_before)
        return (f"{ns} cut off (etcd leader was m{etcd_leader}): {o['after']} records to {o['live_parts']} acknowledged meanwhile (slowest "
                f"{o['latency']:.2f} s); broker {victim} refused its partitions locally {fence:.2f} s after the cut "
                f"(codes {sorted(set(refused[0]['codes'].values()))}), dropped from Metadata after {o['dropped']}; "
                f"link up: the same process registered again (epoch {epoch_before} -> {epoch_after}) and led its "
                f"partitions {back:.2f} s later, {n} records byte for byte")

    # -- d -------------------------------------------------------------------------------------
    def d_kill_controller(self):
        self.healthy()
        ctrl = self.c.controller()
        check(ctrl, f"no {ROOT}/controller")
        old, old_epoch = ctrl
        live = [i for i in self.c.ids if i != old]
        say(f"d: controller is broker {old} (epoch {old_epoch}); killing it")
        self.c.broker[old].kill9()

        def new_controller():
            v = self.c.controller()
            return v if v and v[0] != old else None
        (new, new_epoch), took = wait_until(new_controller, DROP_DEADLINE_S + 4, 0.2,
                                            f"another broker writes {ROOT}/controller after the controller's kill -9")
        check(new in live and new_epoch > old_epoch, f"new controller {new} epoch {new_epoch} (old {old_epoch})")
        say(f"d: broker {new} is controller (epoch {new_epoch}) {took:.2f} s after the kill")
        self.wait_listed(live, live, DROP_DEADLINE_S, "after the controller's kill")
        md_ctrl = {i: self.md(i)["controller"] for i in live}

        # The cluster still administers itself: a topic created now is placed on the live brokers.
        admin = AdminClient(client_conf(self.c.addr(live[0])))
        fs = admin.create_topics([NewTopic("t-d", num_partitions=4, replication_factor=1)],
                                 operation_timeout=15, request_timeout=20)
        try:
            fs["t-d"].result(timeout=30)
        except KafkaException as e:
            raise Fail(f"CreateTopics t-d on broker {live[0]} with the old controller dead: {e}")

        def placed():
            maps = []
            for i in live:
                t = self.md(i)["topics"].get("t-d")
                if not t or len(t["parts"]) != 4 or any(e != 0 for e, _ in t["parts"].values()):
                    return None
                maps.append({p: l for p, (e, l) in t["parts"].items()})
            return maps if all(m == maps[0] for m in maps) else None
        maps, _ = wait_until(placed, 20, 0.25, f"t-d with 4 led partitions in Metadata from {live}")
        leaders = maps[0]
        per = {i: sum(1 for l in leaders.values() if l == i) for i in live}
        check(set(leaders.values()) == set(live) and all(n == 2 for n in per.values()),
              f"t-d created with brokers {live} live: leaders {leaders}, expected 2 on each live broker")
        self.leaders["t-d"] = leaders
        s = Sender(self.c.addr(live[1]), self.ledger, "d-producer")
        for k in range(200):
            s.send("t-d", self.ledger.payload("d"), key=f"d{k}".encode())
        left = s.finish(30)
        check(not s.errors and left == 0, f"t-d: {len(s.acked)} of 200 acknowledged, errors {s.errors[:3]}")

        listen, back = self.restart_broker(old, live)
        self.wait_leaders(self.c.ids, "t-d", leaders, 20, f"broker {old} restarted")
        got, hw, errors = read_back(self.c.addr(old), "t-d", list(range(4)), 30)
        check(not errors, f"reading t-d back via broker {old}: {errors}")
        problems = compare("t-d", got, hw, self.ledger.of("t-d"))
        check(not problems, "; ".join(problems))
        ctrl_now = self.c.controller()
        check(ctrl_now, f"no {ROOT}/controller after broker {old}'s restart")
        wait_until(lambda: all(self.md(i)["controller"] == ctrl_now[0] for i in self.c.ids), 15, 0.25,
                   f"Metadata from brokers 1-3 names controller {ctrl_now[0]} (as {ROOT}/controller)")
        return (f"controller {old} killed: broker {new} controller after {took:.2f} s (epoch {old_epoch} -> "
                f"{new_epoch}; Metadata's controller id from {live}: {md_ctrl}); t-d created meanwhile on "
                f"{live} ({leaders}), 200 records; broker {old} back in {back:.2f} s, sees t-d; controller now "
                f"{ctrl_now[0] if ctrl_now else None}")

    # -- e -------------------------------------------------------------------------------------
    def e_kill_etcd_member(self, which):
        if not self.args.etcd_only:
            self.healthy()
        else:
            self.c.wait_etcd_healthy()
        leader, _ = wait_until(self.c.etcd_leader, 20, 0.25, "etcd members agree on a leader")
        victim = leader if which == "leader" else min(i for i in self.c.ids if i != leader)
        say(f"e: etcd leader is m{leader}; killing {which} m{victim}")
        if self.args.etcd_only:
            return self.e_etcd_only(victim, which)

        epochs = {i: self.broker_epoch(i) for i in self.c.ids}
        stop = threading.Event()
        samples = [0]
        missing = []       # (t, broker asked, brokers listed, t6 partitions without leader)
        kill_at = [None]

        def watch():
            while not stop.is_set():
                for i in self.c.ids:
                    try:
                        m = self.md(i)
                    except Exception as e:  # noqa: BLE001
                        missing.append((now(), i, f"Metadata failed: {e}", None))
                        continue
                    samples[0] += 1
                    t = m["topics"].get("t6", {"parts": {}})
                    unled = sorted(p for p, (e, l) in t["parts"].items() if e != 0 or l < 0)
                    if sorted(m["brokers"]) != self.c.ids or unled:
                        missing.append((now(), i, sorted(m["brokers"]), unled))
                stop.wait(0.2)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()

        # Read the window's records back from where t6 ends now.
        c = Consumer(client_conf(self.c.addr(victim), **{"group.id": f"netns-e-{which}", "enable.auto.commit": False,
                                                         "check.crcs": True}))
        start_offsets = {}
        for p in range(6):
            start_offsets[p] = wait_until(
                lambda p=p: c.get_watermark_offsets(TopicPartition("t6", p), timeout=3, cached=False)[1] + 1, 20,
                0.25, f"high watermark of t6/{p}")[0] - 1
        c.assign([TopicPartition("t6", p, start_offsets[p]) for p in range(6)])
        s = Sender(self.c.bootstrap(self.c.ids), self.ledger, f"e-producer-{which}")
        read = {}
        cerrors = []

        def consume_some(t):
            for m in c.consume(500, t):
                if m.error():
                    if m.error().code() != KafkaError._PARTITION_EOF:
                        cerrors.append(str(m.error()))
                    continue
                read[(m.partition(), m.offset())] = m.value()
        try:
            t = time.monotonic()
            k = 0
            pacer = Pacer(RATE)
            window = 2 * SESSION_S + 2
            while time.monotonic() - t < window + 1:
                if kill_at[0] is None and time.monotonic() - t >= 1.0:
                    self.c.etcd[victim].kill9()
                    kill_at[0] = time.monotonic()
                    say(f"e: etcd m{victim} killed -9")
                for _ in range(pacer.due()):
                    s.send("t6", self.ledger.payload(f"e{which[0]}"), partition=k % 6)
                    k += 1
                s.poll(0)
                consume_some(0.01)
                time.sleep(0.01)
            new_leader = None
            try:
                new_leader = wait_until(self.c.etcd_leader, 10, 0.25, "surviving etcd members agree on a leader")[0]
            except Fail:
                pass
            left = s.finish(30)
            expected = {(p, o): v for (_s, _a, tp, p, o, v) in s.acked}
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and any(key not in read for key in expected):
                consume_some(0.5)
        finally:
            stop.set()
            watcher.join(5)
            c.close()
        lat = s.max_latency(since=kill_at[0])
        check(not s.errors and left == 0,
              f"with etcd m{victim} ({which}) dead: {len(s.acked)} of {s.sent} acknowledged, "
              f"errors {s.errors[:3]}")
        lost = [key for key in expected if key not in read]
        wrong = [key for key, v in expected.items() if key in read and read[key] != v]
        check(not lost and not wrong, f"consumer via broker {victim}: {len(lost)} of {len(expected)} records of the "
                                      f"window not read in 30 s, {len(wrong)} with other bytes; errors {cerrors[:3]}")
        check(not missing, f"while etcd m{victim} was dead, Metadata lacked a broker or a t6 leader in "
                           f"{len(missing)} of {samples[0]} samples, first: {missing[:3]}")
        epochs_after = {i: self.broker_epoch(i) for i in self.c.ids}
        check(epochs_after == epochs, f"broker epochs changed while etcd m{victim} was dead (a lease lost, a "
                                      f"broker registered again): {epochs} -> {epochs_after}")
        rt = time.monotonic()
        self.c.etcd[victim].start()
        self.c.wait_etcd_healthy(timeout=30)
        back = time.monotonic() - rt
        self.healthy()
        return (f"etcd {which} m{victim} killed (new leader m{new_leader}): {len(s.acked)} records acknowledged "
                f"(slowest after the kill {lat:.2f} s: {s.slowest(kill_at[0])}) and read back; all 3 brokers and t6 leaders listed in all "
                f"{samples[0]} Metadata samples, broker epochs unchanged; m{victim} healthy again {back:.2f} s after restart")

    def e_etcd_only(self, victim, which):
        """No broker: a key under a 4 s lease kept alive by `etcdctl lease keep-alive` (a broker's
        registration) must survive, and puts through the other members go on."""
        rc, out, err = self.c.etcdctl(["lease", "grant", str(int(SESSION_S))])
        check(rc == 0, f"lease grant: {err}")
        lease = out.split()[1]
        rc, _, err = self.c.etcdctl(["put", "/netns-test/holder", "x", f"--lease={lease}"])
        check(rc == 0, f"put under lease: {err}")
        env = dict(os.environ, ETCDCTL_API="3")
        keeper = subprocess.Popen(["etcdctl", f"--endpoints={self.c.etcd_eps}", "lease", "keep-alive", lease],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ok = fails = 0
            last_ok = kill_at = None
            longest = 0.0
            t = time.monotonic()
            while time.monotonic() - t < 1 + 2 * SESSION_S + 2:
                if kill_at is None and time.monotonic() - t >= 1.0:
                    self.c.etcd[victim].kill9()
                    kill_at = time.monotonic()
                    last_ok = kill_at if last_ok is None else last_ok
                    say(f"e: etcd m{victim} killed -9")
                rc, _, _ = self.c.etcdctl(["put", "/netns-test/probe", str(ok)], timeout=5)
                if rc == 0:
                    ok += 1
                    if last_ok is not None:
                        longest = max(longest, time.monotonic() - last_ok)
                    last_ok = time.monotonic()
                else:
                    fails += 1
            kvs = self.c.etcd_get("/netns-test/holder")
            check(kvs, f"the key under the kept-alive {SESSION_S:.0f} s lease is gone after etcd m{victim} died")
            new_leader = wait_until(self.c.etcd_leader, 10, 0.25, "surviving members agree on a leader")[0]
        finally:
            keeper.terminate()
            keeper.wait(5)
        check(ok > 0 and longest < 2 * SESSION_S, f"puts: {ok} ok, {fails} failed, longest gap {longest:.2f} s")
        rt = time.monotonic()
        self.c.etcd[victim].start()
        self.c.wait_etcd_healthy(timeout=30)
        back = time.monotonic() - rt
        return (f"etcd {which} m{victim} killed (new leader m{new_leader}): {ok} puts ok, {fails} failed, longest "
                f"gap {longest:.2f} s; leased key kept; m{victim} healthy again {back:.2f} s after restart")

    # -- f -------------------------------------------------------------------------------------
    def f_group_offsets(self):
        self.healthy()
        group = "g-f"

        def coordinator():
            answers = {i: find_coordinator(self.c.addr(i), group) for i in self.c.ids}
            nodes = {node for err, node in answers.values() if err == 0}
            return answers if len(nodes) == 1 and all(err == 0 for err, _ in answers.values()) else None
        answers, _ = wait_until(coordinator, 20, 0.25, f"FindCoordinator({group}) answered alike by brokers 1-3")
        coord = next(iter(answers.values()))[1]
        check(coord in self.c.ids, f"coordinator {coord} is not a broker of the cluster")
        other = [i for i in self.c.ids if i != coord]
        say(f"f: coordinator of {group} is broker {coord}")

        hw = {}
        probe = Consumer(client_conf(self.c.addr(other[0]), **{"group.id": "netns-f-probe"}))
        try:
            for p in range(6):
                hw[p] = wait_until(
                    lambda p=p: probe.get_watermark_offsets(TopicPartition("t6", p), timeout=3, cached=False)[1] + 1,
                    20, 0.25, f"high watermark of t6/{p}")[0] - 1
        finally:
            probe.close()
        target = {p: hw[p] // 2 for p in range(6)}

        # A session of 10 s: the broker is killed right after c1's LeaveGroup, whose empty-group record
        # may not be written yet (Rokka answers LeaveGroup before it is, as Kafka 3 did); the restarted
        # coordinator then waits for c1's session to end before c2's rebalance completes.
        c1 = Consumer(client_conf(self.c.addr(other[0]), **{"group.id": group, "enable.auto.commit": False,
                                                            "auto.offset.reset": "earliest",
                                                            "session.timeout.ms": 10000}))
        try:
            c1.subscribe(["t6"])
            wait_until(lambda: (c1.consume(100, 0.2) is not None and len(c1.assignment()) == 6), 30, 0,
                       f"{group}'s first member assigned the 6 partitions of t6")
            try:
                c1.commit(offsets=[TopicPartition("t6", p, o) for p, o in target.items()], asynchronous=False)
            except KafkaException as e:
                raise Fail(f"OffsetCommit of {target}: {e}")
            committed = {tp.partition: tp.offset for tp in c1.committed([TopicPartition("t6", p) for p in range(6)],
                                                                        timeout=10)}
            check(committed == target, f"committed {committed}, expected {target}")
        finally:
            c1.close()

        self.c.broker[coord].kill9()
        say(f"f: coordinator broker {coord} killed -9 after committing {target}")
        # Started again at once: its old registration still holds its lease, which must lapse first.
        listen, back = self.restart_broker(coord, other)
        answers, _ = wait_until(coordinator, 20, 0.25, f"FindCoordinator({group}) answered alike after the restart")
        coord2 = next(iter(answers.values()))[1]

        c2 = Consumer(client_conf(self.c.addr(other[-1]), **{"group.id": group, "enable.auto.commit": False,
                                                             "auto.offset.reset": "earliest"}))
        first = {}
        try:
            c2.subscribe(["t6"])
            deadline = time.monotonic() + 40
            want = {p for p in range(6) if target[p] < hw[p]}
            while time.monotonic() < deadline and not want <= set(first):
                for m in c2.consume(500, 0.5):
                    if not m.error() and m.partition() not in first:
                        first[m.partition()] = m.offset()
            committed2 = {tp.partition: tp.offset
                          for tp in c2.committed([TopicPartition("t6", p) for p in range(6)], timeout=10)}
        finally:
            c2.close()
        check(committed2 == target, f"after the coordinator's restart OffsetFetch gives {committed2}, committed "
                                    f"{target}")
        check(all(first.get(p) == target[p] for p in want),
              f"after the coordinator's restart the group resumed at {first}, committed {target}")
        return (f"coordinator broker {coord} (again {coord2} after restart) killed -9 with {target} committed; "
                f"started again at once: listening after {listen:.2f} s, listed with its partitions after {back:.2f} s; the group resumed at exactly those offsets")

    # -- g -------------------------------------------------------------------------------------
    def x_transaction(self):
        """A transactional producer over a topic led by all three brokers: commit, abort, commit.
        read_committed consumers on each partition get exactly the committed records (markers for
        the partitions the coordinator does not lead travel as WriteTxnMarkers)."""
        self.healthy()
        admin = AdminClient(client_conf(self.c.addr(1)))
        try:
            admin.create_topics([NewTopic("t-x", num_partitions=3, replication_factor=1)],
                                operation_timeout=15, request_timeout=20)["t-x"].result(timeout=30)
        except KafkaException as e:
            raise Fail(f"CreateTopics t-x: {e}")

        def placed():
            t = self.md(1)["topics"].get("t-x")
            if not t or t["error"] != 0 or len(t["parts"]) != 3 or any(e != 0 for e, _ in t["parts"].values()):
                return None
            return {p: l for p, (e, l) in t["parts"].items()}
        leaders, _ = wait_until(placed, 20, 0.25, "t-x with 3 led partitions")
        check(set(leaders.values()) == set(self.c.ids), f"t-x leaders {leaders}: not on all three brokers")
        p = Producer(client_conf(self.c.addr(2), **{"transactional.id": "netns-x", "linger.ms": 1}))
        try:
            p.init_transactions(30)
            for prefix, commit in (("first", True), ("aborted", False), ("second", True)):
                p.begin_transaction()
                for i in range(60):
                    p.produce("t-x", value=f"{prefix}-{i}".encode(), partition=i % 3)
                if p.flush(30) != 0:
                    raise Fail(f"{prefix}: records left unacknowledged")
                (p.commit_transaction if commit else p.abort_transaction)(30)
        except KafkaException as e:
            raise Fail(f"transactional producer: {e}")
        finally:
            p.flush(5)
        for part in range(3):
            want = [f"{prefix}-{i}" for prefix in ("first", "second") for i in range(part, 60, 3)]
            c = Consumer(client_conf(self.c.addr(3), **{"group.id": "netns-x-reader", "enable.auto.commit": False,
                                                        "isolation.level": "read_committed"}))
            got = []
            try:
                c.assign([TopicPartition("t-x", part, 0)])
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and len(got) < len(want):
                    for m in c.consume(100, 0.5):
                        if not m.error():
                            got.append(m.value().decode())
            finally:
                c.close()
            check(got == want, f"t-x/{part} (led by broker {leaders[part]}) read_committed: {got[:5]}... "
                               f"({len(got)} records), expected {len(want)} committed ones")
        return f"t-x led by {leaders}: 3 transactions (commit, abort, commit); read_committed sees exactly the 2 committed ones on every partition"

    def g_audit(self):
        self.healthy()
        out = []
        for topic, parts in (("t6", 6), ("t-d", 4)):
            if topic not in self.leaders:
                continue
            got, hw, errors = read_back(self.c.addr(1), topic, list(range(parts)), 60)
            check(not errors, f"reading {topic}: {errors}")
            problems = compare(topic, got, hw, self.ledger.of(topic))
            check(not problems, "; ".join(problems))
            out.append(f"{topic}: {sum(hw.values())} records, all {len(self.ledger.of(topic))} acknowledged ones "
                       f"at their offsets with their bytes, dense, nothing else")
        return "; ".join(out)


def probe_list_offsets(addr, topic, parts, seconds):
    """Inside a machine namespace: ListOffsets to addr every 0.1 s for `seconds`, one JSON line each."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.monotonic()
        try:
            codes = {str(p): e for p, (e, _o) in list_offsets(addr, topic, parts, timeout=0.5).items()}
            print(json.dumps({"t": t, "codes": codes}), flush=True)
        except Exception as e:  # noqa: BLE001
            print(json.dumps({"t": t, "error": str(e)}), flush=True)
        time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
    return 0


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--probe-list-offsets":
        return probe_list_offsets(sys.argv[2], sys.argv[3], [int(p) for p in sys.argv[4].split(",")],
                                  float(sys.argv[5]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--rokka", required=True)
    ap.add_argument("--net", default="10.77.0")
    ap.add_argument("--peer-net", default="10.77.1")
    ap.add_argument("--etcd-only", action="store_true")
    ap.add_argument("--only", default="", help="comma list of scenario letters (a always runs)")
    ap.add_argument("--records", type=int, default=3000)
    args = ap.parse_args()
    random.seed()
    handler = logging.FileHandler(os.path.join(args.work, "logs", "clients.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    CLIENT_LOG.addHandler(handler)
    CLIENT_LOG.setLevel(logging.INFO)
    CLIENT_LOG.propagate = False

    test = Test(args)
    only = set(x.strip() for x in args.only.split(",") if x.strip())

    def want(letter):
        return not only or letter in only

    # A SIGTERM (run.sh's timeout) stops the daemons too.
    signal.signal(signal.SIGTERM, lambda *_: (test.c.stop_all(), sys.exit(124)))
    try:
        try:
            test.setup_network()
            test.setup_etcd()
            if not args.etcd_only:
                test.setup_brokers()
        except Exception as e:  # noqa: BLE001
            test.failed += 1
            test.write_result()
            why = str(e) if isinstance(e, Fail) else f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
            states = [f"{p.name}: " + ("running" if p.alive() else f"exited with status {p.popen.returncode}")
                      for p in list(test.c.etcd.values()) + list(test.c.broker.values()) if p.popen]
            print(f"FAIL setup: {why} [{'; '.join(states)}]", flush=True)
            return 1
        if args.etcd_only:
            test.run("e1", "kill -9 of an etcd follower, then restart", lambda: test.e_kill_etcd_member("follower"))
            test.run("e2", "kill -9 of the etcd leader, then restart", lambda: test.e_kill_etcd_member("leader"))
        else:
            test.run("a", "CreateTopics t6 (6 partitions) on broker 1, visible from all", test.a_create_topic)
            if want("b"):
                test.run("b", f"idempotent producer via one broker, {args.records} records, group reads back",
                         test.b_produce_consume)
            if want("c"):
                test.run("c", "kill -9 of a broker that is not the controller, then restart", test.c_kill_broker)
            if want("d"):
                test.run("d", "kill -9 of the controller broker, then restart", test.d_kill_controller)
            if want("e"):
                test.run("e1", "kill -9 of an etcd follower under load, then restart",
                         lambda: test.e_kill_etcd_member("follower"))
                test.run("e2", "kill -9 of the etcd leader under load, then restart",
                         lambda: test.e_kill_etcd_member("leader"))
            if want("f"):
                test.run("f", "group offsets survive kill -9 of the coordinator broker", test.f_group_offsets)
            if want("i"):
                test.run("i1", "the etcd follower the brokers use cut off from its peers, not from clients",
                         lambda: test.i_isolate_member("follower"))
                test.run("i2", "the etcd leader the brokers use cut off from its peers, not from clients",
                         lambda: test.i_isolate_member("leader"))
            if want("h"):
                test.run("h", "a machine cut off (link down) past its lease, then reconnected", test.h_cut_machine)
            if want("x"):
                test.run("x", "a transaction over partitions on all three brokers", test.x_transaction)
            if want("g"):
                test.run("g", "audit: every acknowledged record at its offset, nothing else", test.g_audit)
    finally:
        test.c.stop_all()
        test.ledger.f.close()
    return 1 if test.failed else 0


if __name__ == "__main__":
    sys.exit(main())
