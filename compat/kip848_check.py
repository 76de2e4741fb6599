#!/usr/bin/python3
"""KIP-848's consumer group protocol (`group.protocol=consumer`) end to end, with Debian's
python3-confluent-kafka on librdkafka 2.14.2 (2.0.2 has no consumer protocol).

    LD_LIBRARY_PATH=$(compat/librdkafka/build.sh 2.14.2)/src ROKKA_EXPECT_LIBRDKAFKA=2.14.2 \\
        /usr/bin/python3 compat/kip848_check.py            # starts build/rokka ($ROKKA_BIN) itself
    ... /usr/bin/python3 compat/kip848_check.py HOST:PORT  # a running broker (kill -9 step skipped)
    ROKKA_BIN=mock ...                                     # librdkafka's own mock cluster

Without HOST:PORT the script starts the broker itself, as compat/with_broker.sh does (free port,
temp data dir, num.partitions=4), with store.flush.mode=sync, so one step can kill -9 it and
start it again on the same port and data dir. ROKKA_BIN=mock runs 2.14.2's mock cluster in this
process through ctypes (rd_kafka_mock_*): compat/with_broker.sh's rokka-mock-broker cannot be
asked for a 12-partition topic (the mock has no CreateTopics and auto-creates 4 partitions).
Steps the broker cannot run print `SKIPPED name: reason` and are not counted: under the mock, the
kill -9 (its state is in memory), stickiness (its assignor is a plain range) and the rolling
switches (it has no mixed groups).
Scenarios: three members split 12 partitions 4 each (uniform assignor); one leaves and only its
partitions move; committed offsets survive kill -9 and the group resumes at them; a regex
subscription picks up a topic created afterwards; a rolling switch from classic members to
consumer-protocol ones and back (KIP-848's online upgrade and downgrade); a static
member closes and its successor gets the same partitions. Every step asserts what a user sees.
Ends with `N passed, M failed` (`, K skipped`); exit 1 on failure.
"""
import collections
import ctypes
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import confluent_kafka
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from confluent_kafka_check import Skipped, library_steps, run_steps

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 90          # for a group to settle; KIP-848's default heartbeat interval is 5 s
PER_PARTITION = 100     # records per partition in the consuming steps
STATIC_ABSENCE_S = 5    # how long the static member's partitions are watched while it is away
KIP848_GA = 0x020c0000  # librdkafka 2.12.0: group.protocol=consumer generally available


# ---------------------------------------------------------------- brokers

class OwnBroker:
    """build/rokka ($ROKKA_BIN) on a free port and a temp data dir, with compat/with_broker.sh's
    overrides and store.flush.mode=sync; kill9() then start() reuses the port and the data dir."""

    def __init__(self, path):
        self.path, self.work = path, Path(tempfile.mkdtemp(prefix="rokka-kip848."))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.bootstrap, self.log, self.proc = f"127.0.0.1:{self.port}", self.work / "broker.log", None

    def start(self):
        listener = f"PLAINTEXT://{self.bootstrap}"
        overrides = {"listeners": listener, "advertised.listeners": listener, "log.dirs": str(self.work / "data"),
                     "auto.create.topics.enable": "true", "rokka.http.listeners": "127.0.0.1:0", "num.partitions": "4",
                     "group.initial.rebalance.delay.ms": "0", "store.flush.mode": "sync"}
        cmd = [self.path] + [a for k, v in overrides.items() for a in ("--override", f"{k}={v}")]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, f"broker exited with {self.proc.returncode} at startup; log {self.log}"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline, f"broker not listening on {self.bootstrap} in 30 s; log {self.log}"
                time.sleep(0.2)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()


class InProcessMock:
    """librdkafka's mock cluster in this process, on the librdkafka confluent_kafka loaded."""

    def __init__(self):
        lib = ctypes.CDLL("librdkafka.so.1")  # the copy already loaded (same soname)
        lib.rd_kafka_version_str.restype = ctypes.c_char_p
        assert lib.rd_kafka_version_str().decode() == confluent_kafka.libversion()[0], "ctypes found another librdkafka"
        ptr, text, num = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, res, args in [("rd_kafka_conf_new", ptr, []),
                                ("rd_kafka_conf_set", num, [ptr, text, text, text, ctypes.c_size_t]),
                                ("rd_kafka_new", ptr, [num, ptr, text, ctypes.c_size_t]),
                                ("rd_kafka_mock_cluster_new", ptr, [ptr, num]),
                                ("rd_kafka_mock_cluster_bootstraps", text, [ptr]),
                                ("rd_kafka_mock_topic_create", num, [ptr, text, num, num])]:
            getattr(lib, name).restype, getattr(lib, name).argtypes = res, args
        conf, errstr = lib.rd_kafka_conf_new(), ctypes.create_string_buffer(256)
        lib.rd_kafka_conf_set(conf, b"log_level", b"3", errstr, 256)  # no CONFWARN about its missing bootstrap
        self.lib, self.rk = lib, lib.rd_kafka_new(0, conf, errstr, 256)  # a producer hosting the cluster, unconnected
        assert self.rk, f"rd_kafka_new: {errstr.value.decode()}"
        self.cluster = lib.rd_kafka_mock_cluster_new(self.rk, 1)
        assert self.cluster, "rd_kafka_mock_cluster_new failed"
        self.bootstrap = lib.rd_kafka_mock_cluster_bootstraps(self.cluster).decode()

    def create_topic(self, name, partitions):
        err = self.lib.rd_kafka_mock_topic_create(self.cluster, name.encode(), partitions, 1)
        assert err == 0, f"rd_kafka_mock_topic_create({name}): error {err}"


# ---------------------------------------------------------------- group members and what they read

def owned(members):
    return {m.name: sorted(m.partitions()) for m in members}


class Ledger:
    """Records produced and read, and offsets committed: reading a record again is a failure only
    below its partition's committed offset (the uncommitted window may be read twice)."""

    def __init__(self):
        self.sent = {}                    # (topic, partition, offset) -> key
        self.reads = collections.Counter()
        self.committed = {}               # (topic, partition) -> highest acknowledged commit
        self.below_commit = []            # records read again below the committed offset
        self.failed_commits = []          # KafkaErrors of commits that failed

    def read(self, msg):
        pos = (msg.topic(), msg.partition(), msg.offset())
        assert pos in self.sent, f"read {pos}, which was never produced to a subscribed topic"
        assert msg.key() == self.sent[pos], f"record {pos}: key {msg.key()}, produced {self.sent[pos]}"
        if self.reads[pos] and msg.offset() < self.committed.get(pos[:2], -1):
            self.below_commit.append(pos)
        self.reads[pos] += 1

    def all_read(self):
        return len(self.reads) == len(self.sent)

    def check(self):
        missing = sorted(set(self.sent) - set(self.reads))
        assert not missing, f"{len(missing)} of {len(self.sent)} records never read, e.g. {missing[:5]}"
        assert not self.below_commit, \
            f"{len(self.below_commit)} records read again below the committed offset, e.g. {self.below_commit[:5]}"
        again = sum(n - 1 for n in self.reads.values())
        failed = f"; {len(self.failed_commits)} commits failed: {sorted(set(map(str, self.failed_commits)))[:3]}"
        print(f"     {len(self.sent)} records read, {again} read again (in the uncommitted window)"
              + (failed if self.failed_commits else ""))


class Member:
    """One Consumer of a group; pump() polls it, feeds a Ledger and commits synchronously."""

    def __init__(self, scenario, name, group, topics, protocol="consumer", instance=None, ledger=None):
        self.name, self.ledger, self.errors = name, ledger or Ledger(), []
        conf = {**scenario.conf, "group.id": group, "group.protocol": protocol, "auto.offset.reset": "earliest",
                "enable.auto.commit": False, "error_cb": self.errors.append}
        if protocol == "consumer":
            conf["group.remote.assignor"] = "uniform"
        if instance:
            conf["group.instance.id"] = instance
        self.consumer = Consumer(conf)
        self.consumer.subscribe(topics)
        self.closed = False

    def partitions(self):
        return {(tp.topic, tp.partition) for tp in self.consumer.assignment()}

    def pump(self):
        fatal = [e for e in self.errors if e.fatal()]
        assert not fatal, f"{self.name}: fatal client error {fatal[0]}"
        ends = {}
        for msg in self.consumer.consume(200, 0.1):
            if msg.error():
                self.errors.append(msg.error())  # a fatal one fails the next pump()
                continue
            self.ledger.read(msg)
            ends[(msg.topic(), msg.partition())] = msg.offset() + 1
        mine = self.partitions()  # a partition revoked meanwhile is left uncommitted
        offsets = [TopicPartition(t, p, o) for (t, p), o in ends.items() if (t, p) in mine]
        if not offsets:
            return
        try:
            done = self.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as e:
            self.ledger.failed_commits.append(e.args[0])
            return  # a failed commit leaves those records in the uncommitted window
        for tp in done:
            if tp.error is not None:
                self.ledger.failed_commits.append(tp.error)
                continue
            key = (tp.topic, tp.partition)
            self.ledger.committed[key] = max(self.ledger.committed.get(key, -1), tp.offset)

    def close(self):
        if not self.closed:
            self.closed = True
            self.consumer.close()


def settle(members, done, what, timeout=TIMEOUT_S):
    """Polls every member until done() holds; fails saying what was awaited and who owns what."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"{what}: not reached in {timeout} s; assignments {owned(members)}; " \
            f"last client errors {[str(e) for m in members for e in m.errors[-2:]]}"
        for m in members:
            m.pump()


def split_evenly(members, partitions, each):
    """Every partition owned by exactly one member, each member holding `each`."""
    held = [m.partitions() for m in members]
    return all(len(h) == each for h in held) and set().union(*held) == partitions and \
        sum(map(len, held)) == len(partitions)


# ---------------------------------------------------------------- the scenario

class Scenario:
    def __init__(self, bootstrap, broker):
        self.broker, self.suffix = broker, random.randrange(1 << 30)
        self.conf = {"bootstrap.servers": bootstrap, "broker.address.family": "v4"}
        self.members = []

    def name(self, what):
        return f"kip848_{what}_{self.suffix}"

    def create_topic(self, topic, partitions):
        if isinstance(self.broker, InProcessMock):
            self.broker.create_topic(topic, partitions)
        else:
            admin = AdminClient(self.conf)  # kept alive until the answer: a destroyed handle fails it with _DESTROY
            admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(TIMEOUT_S)
        producer, deadline = Producer(self.conf), time.monotonic() + TIMEOUT_S
        while True:  # until Metadata lists every partition with a leader
            t = producer.list_topics(topic, timeout=TIMEOUT_S).topics[topic]
            if t.error is None and len(t.partitions) == partitions and all(p.leader >= 0
                                                                           for p in t.partitions.values()):
                return
            assert time.monotonic() < deadline, f"topic {topic}: metadata {t.error} {sorted(t.partitions)}"
            time.sleep(0.2)

    def produce(self, ledger, topic, partitions, count):
        """count keyed records to each partition, noted in the ledger with their offsets."""
        producer, errors = Producer({**self.conf, "acks": "all", "enable.idempotence": True, "linger.ms": 5}), []

        def delivered(err, msg):
            if err:
                errors.append(err)
            else:
                ledger.sent[(msg.topic(), msg.partition(), msg.offset())] = msg.key()
        for p in range(partitions):
            for i in range(count):
                producer.produce(topic, key=f"k{p}-{i}".encode(), value=os.urandom(40), partition=p,
                                 on_delivery=delivered)
        assert producer.flush(TIMEOUT_S) == 0 and not errors, f"produce to {topic}: {errors[:3]}"

    def close_all(self, members):
        for m in members:
            m.close()

    def three_members_split(self):
        """Three members of one group on a 12-partition topic: 4 each, every partition once."""
        topic, group = self.name("split"), self.name("split_group")
        self.create_topic(topic, 12)
        self.members = [Member(self, f"m{i}", group, [topic]) for i in range(3)]
        self.all12 = {(topic, p) for p in range(12)}
        settle(self.members, lambda: split_evenly(self.members, self.all12, 4), "12 partitions split 4/4/4")
        self.before_leave = {m.name: m.partitions() for m in self.members}

    def member_leaves(self):
        """One member closes: the other two split the 12 partitions, 6 each."""
        assert len(self.members) == 3, "the previous step did not form the group"
        leaver, rest = self.members[1], [self.members[0], self.members[2]]
        leaver.close()
        try:
            settle(rest, lambda: split_evenly(rest, self.all12, 6), "after a leave, 12 partitions split 6/6")
            self.after_leave = {m.name: m.partitions() for m in rest}
        finally:
            self.close_all(rest)

    def leave_moves_only_its_partitions(self):
        """The two that stayed kept every partition they had: only the leaver's moved."""
        if isinstance(self.broker, InProcessMock):
            raise Skipped("the mock's assignor is a plain range by member order, not sticky")
        assert hasattr(self, "after_leave"), "the previous step did not complete"
        for name, now in self.after_leave.items():
            lost = self.before_leave[name] - now
            assert not lost, f"{name} lost {sorted(lost)} when m1 left (had {sorted(self.before_leave[name])})"

    def commits_survive_kill9(self):
        """Two members consume half, committing after each batch; kill -9, restart: the group
        resumes at the committed offsets, reads every record, none below a commit twice."""
        if isinstance(self.broker, InProcessMock):
            raise Skipped("the mock cluster keeps its state in memory: nothing survives a kill -9")
        if not isinstance(self.broker, OwnBroker):
            raise Skipped("the broker given as HOST:PORT is not ours to kill; run without arguments")
        topic, group, ledger = self.name("crash"), self.name("crash_group"), Ledger()
        self.create_topic(topic, 6)
        self.produce(ledger, topic, 6, PER_PARTITION)
        members = [Member(self, f"c{i}", group, [topic], ledger=ledger) for i in range(2)]
        try:
            settle(members, lambda: len(ledger.reads) >= len(ledger.sent) // 2, "half the records read")
            acknowledged = dict(ledger.committed)
            assert acknowledged, f"no commit acknowledged before the kill: {ledger.failed_commits[:3]}"
            self.broker.kill9()
            self.broker.start()
            checker = Consumer({**self.conf, "group.id": group})
            deadline = time.monotonic() + TIMEOUT_S
            while True:  # the coordinator may answer COORDINATOR_LOAD_IN_PROGRESS for a while
                try:
                    stored = checker.committed([TopicPartition(t, p) for (t, p) in acknowledged], timeout=30)
                    break
                except KafkaException as e:
                    assert time.monotonic() < deadline, f"committed() failing {TIMEOUT_S} s after the restart: {e}"
                    time.sleep(0.5)
            checker.close()
            after = {(tp.topic, tp.partition): tp.offset for tp in stored}
            assert after == acknowledged, f"committed offsets after kill -9: {after}, acknowledged before: {acknowledged}"
            settle(members, ledger.all_read, "every record read after the restart", timeout=2 * TIMEOUT_S)
            ledger.check()
        finally:
            self.close_all(members)

    def regex_subscription(self):
        """A regex subscription: a matching topic created afterwards is assigned and read; a
        topic matching only unanchored is not."""
        pattern, ledger = f"^kip848_rx_{self.suffix}_.*", Ledger()
        topic, other, group = f"kip848_rx_{self.suffix}_a", f"x_kip848_rx_{self.suffix}_b", self.name("rx_group")
        members = [Member(self, f"r{i}", group, [pattern], ledger=ledger) for i in range(2)]
        try:
            for _ in range(10):  # the subscription goes out before the topic exists (not a synchronisation)
                for m in members:
                    m.pump()
            for t in (topic, other):
                self.create_topic(t, 4)
            self.produce(ledger, topic, 4, 20)
            self.produce(Ledger(), other, 4, 20)
            expected = {(topic, p) for p in range(4)}

            def done():
                held = set().union(*(m.partitions() for m in members))
                assert not {tp for tp in held if tp[0] == other}, f"{other} assigned: {owned(members)}"
                return held == expected and ledger.all_read()
            settle(members, done, f"{topic}'s 4 partitions assigned and its records read")
            ledger.check()
        finally:
            self.close_all(members)

    def rolling_switch(self):
        """Three classic members, replaced one at a time by consumer-protocol members, new records
        produced at each step: no record lost, none read twice below a commit."""
        self.rolling(from_protocol="classic", to_protocol="consumer")

    def rolling_switch_back(self):
        """The way back: three consumer-protocol members replaced one at a time by classic ones
        (classic members joining a consumer group, then the group handed back to the classic
        protocol when the last consumer-protocol member leaves): no record lost, none read twice
        below a commit."""
        self.rolling(from_protocol="consumer", to_protocol="classic")

    def rolling(self, from_protocol, to_protocol):
        if isinstance(self.broker, InProcessMock):
            raise Skipped("librdkafka's mock cluster has no mixed groups")
        topic, group = self.name(f"roll_{to_protocol}"), self.name(f"roll_{to_protocol}_group")
        ledger, rounds = Ledger(), PER_PARTITION // 4
        self.create_topic(topic, 6)
        members = [Member(self, f"{from_protocol}{i}", group, [topic], protocol=from_protocol, ledger=ledger)
                   for i in range(3)]
        try:
            self.produce(ledger, topic, 6, rounds)
            settle(members, lambda: ledger.all_read() and all(m.partitions() for m in members),
                   f"three {from_protocol} members read every record")
            for i in range(3):
                members[i].close()
                members[i] = Member(self, f"{to_protocol}{i}", group, [topic], protocol=to_protocol, ledger=ledger)
                self.produce(ledger, topic, 6, rounds)
                settle(members, lambda: members[i].partitions() and ledger.all_read(),
                       f"{to_protocol}{i} in {from_protocol}{i}'s place, every record read")
            settle(members, lambda: split_evenly(members, {(topic, p) for p in range(6)}, 2),
                   f"three {to_protocol}-protocol members, 2 partitions each")
            ledger.check()
        finally:
            self.close_all(members)

    def static_member_returns(self):
        """A static member closes (librdkafka 2.14.2 sends member epoch -2, a static leave); its
        partitions stay put while it is away and its successor with the same group.instance.id gets
        them back; the other member keeps its own throughout."""
        topic, group = self.name("static"), self.name("static_group")
        self.create_topic(topic, 6)
        all6 = {(topic, p) for p in range(6)}
        a, b = (Member(self, n, group, [topic], instance=f"{group}-{n}") for n in ("a", "b"))
        members = [a, b]
        try:
            settle(members, lambda: split_evenly(members, all6, 3), "6 partitions split 3/3")
            a_had, b_had = a.partitions(), b.partitions()
            a.close()
            away_until = time.monotonic() + STATIC_ABSENCE_S
            while time.monotonic() < away_until:
                b.pump()
                assert b.partitions() == b_had, f"with a away, b went from {sorted(b_had)} to {sorted(b.partitions())}"
            a2 = Member(self, "a2", group, [topic], instance=f"{group}-a")
            members = [a2, b]
            settle(members, lambda: a2.partitions() == a_had and b.partitions() == b_had,
                   f"a2 (instance a) back on {sorted(a_had)}, b still on {sorted(b_had)}")
        finally:
            self.close_all(members + [a])


def main(argv):
    broker = None
    if len(argv) >= 2:
        bootstrap = argv[1]
    elif os.environ.get("ROKKA_BIN") == "mock":
        broker = InProcessMock()
        bootstrap = broker.bootstrap
    else:
        broker = OwnBroker(os.environ.get("ROKKA_BIN") or str(HERE.parent / "build" / "rokka"))
        bootstrap = broker.bootstrap
    s = Scenario(bootstrap, broker)
    print(f"confluent-kafka {confluent_kafka.version()[0]} (librdkafka {confluent_kafka.libversion()[0]}) "
          f"against {bootstrap}{' (mock cluster)' if isinstance(broker, InProcessMock) else ''}"
          f"{f', {broker.path}, log {broker.log}' if isinstance(broker, OwnBroker) else ''}")
    if isinstance(broker, OwnBroker):
        try:
            broker.start()
        except (AssertionError, OSError) as e:
            print(f"FAIL the broker starts: {e}\n0 passed, 1 failed")
            return 1
    steps = library_steps()
    if confluent_kafka.libversion()[1] < KIP848_GA:
        def consumer_protocol():
            raise AssertionError(f"librdkafka {confluent_kafka.libversion()[0]} has no group.protocol=consumer: "
                                 "run on 2.14.2 (LD_LIBRARY_PATH)")
        steps.append(("librdkafka has group.protocol=consumer", consumer_protocol))
    else:
        steps += [(f.__name__, f) for f in (
            s.three_members_split, s.member_leaves, s.leave_moves_only_its_partitions, s.commits_survive_kill9,
            s.regex_subscription, s.rolling_switch, s.rolling_switch_back, s.static_member_returns)]
    rc = run_steps(steps)
    if isinstance(broker, OwnBroker):
        broker.stop()
        shutil.rmtree(broker.work / "data", ignore_errors=True)  # as with_broker.sh: the log stays
        if rc:
            print(f"broker log ({broker.log}), last lines:")
            print("".join(broker.log.read_text(errors="replace").splitlines(True)[-30:]), end="")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
