#!/usr/bin/python3
"""The Jepsen-style replication test of issue 24 (tests/cluster/netns/run.sh --replication runs this in rk-c).

Same machines as scenarios.py (whose Cluster and its Procs, Ledger, Sender, Pacer, read_back and setup steps
it imports): rk-m1..3 each run an etcd member and a broker, here with the replication group g1=1,2,3 (rokka.replication.listener on
port 9093 of each machine, replica.lag.time.max.ms 2000, a 4 s session). One topic r30: 30 partitions, RF 3,
min.insync.replicas 2, so it lives in g1's store and every partition is led by g1's leader.

Load from rk-c for the whole run: two idempotent acks=all producers at a bounded rate (RATE records a second,
partition = sequence mod 30), every acknowledgement logged to <work>/acks.log (topic partition offset
payload); a consumer group (r30-cg) reading all the time and committing every second.

Faults, one at a time, each healed (and the group's SSS back to all three members) before the next; one
trial is one fault of each kind, ROKKA_REPL_TRIALS (--trials) trials:
  leader-kill   kill -9 of g1's leader (from <root>/groups/g1/state); restarted once another leads
  etcd-member   kill -9 of an etcd follower, restarted after 3 s
  etcd-leader   kill -9 of the etcd Raft leader, restarted after 3 s
  link-down     `ip -n rk-mX link set eth0 down` on g1's leader's machine for CUT_S seconds
  repl-drop     nftables in g1's leader's namespace drops what reaches its replication port, for CUT_S s
Then the load stops and the verdict, one PASS/FAIL line per check and "N passed, M failed":
  heal-<kind>   each fault healed: the group led, its SSS all three again, within HEAL_S
  acked         every acknowledged record read back once, at its offset, with its bytes (read from offset
                0 to the high watermark of every partition; lost and changed counted)
  dense         offsets dense from 0 per partition, and every record read is one that was sent
  duplicates    no payload stored twice (an idempotent retry stored once)
  consumed      every record the group consumer was given is the one stored at its offset at the end
  epochs        etcd's history of <root>/groups/ (a watch from revision 1): the states' epochs never go
                down, a new leader comes with a higher epoch, one leader (and broker epoch) per epoch
  resume        the consumer group, started again, has the offsets it last committed and reads on from them
  wiped         a follower stopped, its log.dirs/groups/g1 removed, started again: once back in the SSS its
                group store's commitlog/ and index/ files equal the leader's, whole files byte for byte
and, per fault kind, the longest produce stall: the longest time between two consecutive acknowledgements
(of all producers) from the fault until the group was healed and acknowledgements flowed again; for the
faults that move the leader, the failover as a fresh producer sees it (its first acknowledgement after the
fault; the load's producers carry requests in flight to the old leader). Files in <work>: acks.log,
group-states.log (the history of g1's state), logs/.
"""
import argparse
import base64
import bisect
import json
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios as sc  # noqa: E402
from scenarios import Fail, check, say, wait_until  # noqa: E402
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

ROOT = sc.ROOT
GROUP = "g1"
REPL_PORT = 9093
LAG_MS = 2000
TOPIC = "r30"
PARTS = 30
RATE = 200            # records a second, over both producers
CUT_S = 10.0          # a machine cut off, or its replication port dropped, this long
HEAL_S = 90.0         # a fault healed (group led, SSS full) within this
KINDS = ["leader-kill", "etcd-member", "etcd-leader", "link-down", "repl-drop"]


class AckLedger(sc.Ledger):
    """scenarios.Ledger, plus acknowledgements without an offset: librdkafka reports a batch the broker
    answers DUPLICATE_SEQUENCE_NUMBER as delivered with no offset (the original append's went unanswered);
    the verdict looks for those payloads in their partition instead."""

    def __init__(self, path):
        super().__init__(path)
        self.no_offset = []        # (topic, partition, payload)

    def add(self, topic, p, o, value):
        if o is None or o < 0:
            self.no_offset.append((topic, p, value))
            self.f.write(f"{topic} {p} - {value.decode()}\n")
            return
        super().add(topic, p, o, value)


class ReplCluster(sc.Cluster):
    """scenarios.Cluster with the replication group g1 on every broker."""

    def __init__(self, args):
        super().__init__(args)
        for i in self.ids:
            self.broker[i].argv += [
                "--override", f"rokka.replication.groups={GROUP}=1,2,3",
                "--override", f"rokka.replication.listener={self.ip[i]}:{REPL_PORT}",
                "--override", "rokka.replication.idle.timeout.ms=2000",
                "--override", f"replica.lag.time.max.ms={LAG_MS}"]

    def data_dir(self, i):
        return os.path.join(self.work, f"data-b{i}")

    def group_state(self):
        kvs = self.etcd_get(f"{ROOT}/groups/{GROUP}/state")
        return json.loads(kvs[0][1]) if kvs else None

    def registered(self):
        return sorted(int(k.rsplit("/", 1)[1]) for k, *_ in self.etcd_get(f"{ROOT}/brokers/", prefix=True))


class Load:
    """The producers (RATE a second) and the committing consumer group, each on a thread of its own."""

    def __init__(self, c, ledger):
        self.c, self.ledger = c, ledger
        # librdkafka gives a Produce in flight until the first message's message.timeout.ms, capped by
        # socket.timeout.ms (60 s both), before it moves the partition to a new leader: 5 s for both
        # timeouts (request.timeout.ms is the broker's wait for acks=all), so that the stalls measure the
        # failover more than the client. debug=eos: the idempotence state changes (drains, epoch bumps,
        # DUPSEQ) in logs/clients.log.
        self.senders = [sc.Sender(c.bootstrap(c.ids), ledger, f"load-{k}", **{
            "request.timeout.ms": 5000, "socket.timeout.ms": 5000, "debug": "eos"}) for k in range(2)]
        self.sent = set()              # every payload handed to a producer
        self.stop_p = threading.Event()
        self.stop_c = threading.Event()
        self.errors = []               # exceptions of the threads
        self.consumed = {}             # (p, o) -> value, as the group consumer was given them
        self.consumer_errors = []
        self.committed = {}            # p -> offset of the last commit that succeeded
        self.commits = 0
        self.pt = threading.Thread(target=self.produce, daemon=True)
        self.ct = threading.Thread(target=self.consume, daemon=True)

    def start(self):
        self.pt.start()
        self.ct.start()

    def produce(self):
        try:
            pacer = sc.Pacer(RATE)
            k = 0
            while not self.stop_p.is_set():
                for _ in range(pacer.due()):
                    v = self.ledger.payload("r")
                    self.sent.add(v)
                    self.senders[k % 2].send(TOPIC, v, partition=k % PARTS)
                    k += 1
                for s in self.senders:
                    s.poll(0)
                time.sleep(0.01)
        except Exception as e:  # noqa: BLE001 - reported by the verdict
            self.errors.append(f"producer thread: {type(e).__name__}: {e}")

    def consume(self):
        c = Consumer(sc.client_conf(self.c.bootstrap(self.c.ids), **{
            "group.id": f"{TOPIC}-cg", "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "check.crcs": True, "session.timeout.ms": 10000}))
        self.consumer = c
        try:
            c.subscribe([TOPIC])
            last_commit = time.monotonic()
            while not self.stop_c.is_set():
                for m in c.consume(500, 0.5):
                    if m.error():
                        if m.error().code() != KafkaError._PARTITION_EOF:
                            self.consumer_errors.append(str(m.error()))
                        continue
                    self.consumed[(m.partition(), m.offset())] = m.value()
                if time.monotonic() - last_commit >= 1.0:
                    last_commit = time.monotonic()
                    self.commit(c)
        except Exception as e:  # noqa: BLE001
            self.errors.append(f"consumer thread: {type(e).__name__}: {e}")

    def commit(self, c, explicit=False):
        """A synchronous commit of the consumer's positions (explicit: every assigned partition's position,
        sent even when nothing moved since the last commit); remembers what the coordinator took."""
        try:
            if explicit:
                pos = [tp for tp in c.position(c.assignment()) if tp.offset >= 0]
                if len(pos) != PARTS:
                    return False
                tps = c.commit(offsets=pos, asynchronous=False)
            else:
                tps = c.commit(asynchronous=False)
        except KafkaException as e:
            if e.args[0].code() != KafkaError._NO_OFFSET:
                self.consumer_errors.append(f"commit: {e}")
            return False
        for tp in tps or []:
            if tp.error is None and tp.offset >= 0:
                self.committed[tp.partition] = tp.offset
        self.commits += 1
        return True

    def ack_times(self):
        return sorted(a for s in self.senders for _s, a, *_ in s.acked)

    def acks(self):
        return sum(len(s.acked) for s in self.senders)


class FailoverProbe:
    """From a fault on: a fresh idempotent acks=all producer, bootstrapped with the brokers not hit, sends
    one record every 0.2 s until the first is acknowledged. Its time after the fault is the failover as a
    new client sees it (the load's producers carry their state from before the fault: requests in flight
    to the old leader, its connection)."""

    def __init__(self, c, ledger, sent, live):
        self.c, self.ledger, self.sent, self.live = c, ledger, sent, live
        self.first = None
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)

    def start(self, at):
        self.at = at
        self.t.start()

    def run(self):
        try:
            s = sc.Sender(self.c.bootstrap(self.live), self.ledger, "failover-probe",
                          **{"request.timeout.ms": 5000, "socket.timeout.ms": 5000})
            k = 0
            while not self.stop.is_set() and not s.acked:
                v = self.ledger.payload("probe")
                self.sent.add(v)
                s.send(TOPIC, v, partition=k % PARTS)
                k += 1
                end = time.monotonic() + 0.2
                while time.monotonic() < end and not s.acked:
                    s.poll(0.05)
            if s.acked:
                self.first = min(a for _s, a, *_ in s.acked) - self.at
            s.finish(70)
        except Exception as e:  # noqa: BLE001
            sc.CLIENT_LOG.warning("failover probe: %s: %s", type(e).__name__, e)

    def finish(self):
        self.stop.set()
        self.t.join(90)
        return self.first


class Verdict:
    def __init__(self, work):
        self.passed = self.failed = 0
        self.path = os.path.join(work, "result")
        self.write()

    def write(self):
        with open(self.path + ".tmp", "w") as f:
            f.write(f"{self.passed} {self.failed}\n")
        os.replace(self.path + ".tmp", self.path)

    def report(self, name, ok, detail):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
        self.write()

    def run(self, name, fn):
        """fn() returns the detail of a pass, or raises Fail with the reason."""
        try:
            self.report(name, True, fn())
        except Exception as e:  # noqa: BLE001 - every error is this check's failure
            why = str(e) if isinstance(e, Fail) else f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
            self.report(name, False, why)


class Test:
    def __init__(self, args):
        self.args = args
        self.c = ReplCluster(args)
        self.ledger = AckLedger(os.path.join(args.work, "acks.log"))
        self.v = Verdict(args.work)
        self.load = None
        self.faults = []          # (kind, trial, fault_at, healed_at or None, detail)
        self.failover = {}        # kind -> [seconds from the fault to a fresh producer's first ack, or None]
        self.probe = None

    # -- the group ------------------------------------------------------------------------------
    def wait_full(self, timeout, what):
        """g1 led by a registered broker under the broker epoch its state names, its SSS all three, every
        broker registered; returns the state."""
        def full():
            st = self.c.group_state()
            if not st or st.get("leader", -1) not in self.c.ids or sorted(st.get("sss", [])) != self.c.ids:
                return None
            kvs = self.c.etcd_get(f"{ROOT}/brokers/{st['leader']}")
            if not kvs or kvs[0][2] != st.get("leader_broker_epoch"):
                return None
            return st if self.c.registered() == self.c.ids else None
        return wait_until(full, timeout, 0.25, what)[0]

    def setup(self):
        steps = sc.Test.__new__(sc.Test)     # scenarios.py's setup steps (they use only .c), over this cluster
        steps.c = self.c
        steps.setup_network()
        steps.setup_etcd()
        steps.setup_brokers()
        st = self.wait_full(60, f"{GROUP} bootstrapped with all three members in its SSS")
        say(f"{GROUP}: leader {st['leader']} epoch {st['epoch']} sss {st['sss']}")
        admin = AdminClient(sc.client_conf(self.c.bootstrap(self.c.ids)))
        try:
            admin.create_topics([NewTopic(TOPIC, num_partitions=PARTS, replication_factor=3,
                                          config={"min.insync.replicas": "2"})],
                                operation_timeout=15, request_timeout=20)[TOPIC].result(timeout=30)
        except KafkaException as e:
            raise Fail(f"CreateTopics {TOPIC}: {e}")

        def led():
            for i in self.c.ids:
                t = sc.metadata(self.c.addr(i))["topics"].get(TOPIC)
                if not t or len(t["parts"]) != PARTS or any(e != 0 or l != st["leader"] for e, l in t["parts"].values()):
                    return False
            return True
        wait_until(led, 30, 0.25, f"{TOPIC}: {PARTS} partitions led by {GROUP}'s leader {st['leader']} in every "
                                  f"broker's Metadata")
        say(f"{TOPIC}: {PARTS} partitions, RF 3, min.insync.replicas 2, led by broker {st['leader']}")

    # -- faults ---------------------------------------------------------------------------------
    def ns_run(self, ns, cmd):
        r = subprocess.run(["ip", "netns", "exec", ns] + cmd, capture_output=True, text=True, timeout=10)
        check(r.returncode == 0, f"in {ns}: {' '.join(cmd)}: {r.stderr.strip()}")

    def link(self, ns, state):
        r = subprocess.run(["ip", "-n", ns, "link", "set", "eth0", state], capture_output=True, text=True,
                           timeout=10)
        check(r.returncode == 0, f"ip -n {ns} link set eth0 {state}: {r.stderr.strip()}")

    def fault(self, kind):
        """Injects one fault and heals it; returns (fault_at, detail). Raises Fail when it does not heal."""
        st = self.wait_full(HEAL_S, f"before {kind}: {GROUP} led with a full SSS")
        leader, epoch = st["leader"], st["epoch"]
        if kind == "leader-kill":
            at = time.monotonic()
            self.c.broker[leader].kill9()
            self.probe = FailoverProbe(self.c, self.ledger, self.load.sent, [i for i in self.c.ids if i != leader])
            self.probe.start(at)
            new, took = wait_until(lambda: (lambda s: s if s and s["leader"] not in (leader, -1) else None)(
                self.c.group_state()), 30, 0.1, f"a new leader of {GROUP} after broker {leader}'s kill -9")
            self.c.start_broker(leader)
            return at, (f"broker {leader} (epoch {epoch}) killed; broker {new['leader']} leads epoch "
                        f"{new['epoch']} after {took:.1f} s; {leader} restarted")
        if kind in ("etcd-member", "etcd-leader"):
            el, _ = wait_until(self.c.etcd_leader, 20, 0.25, "etcd members agree on a leader")
            victim = el if kind == "etcd-leader" else random.choice([i for i in self.c.ids if i != el])
            at = time.monotonic()
            self.c.etcd[victim].kill9()
            time.sleep(3)
            self.c.etcd[victim].start()
            self.c.wait_etcd_healthy(timeout=30)
            return at, f"etcd m{victim} ({'leader' if victim == el else 'follower'}) killed, restarted after 3 s"
        ns = self.c.ns[leader]
        if kind == "link-down":
            at = time.monotonic()
            self.link(ns, "down")
            self.probe = FailoverProbe(self.c, self.ledger, self.load.sent, [i for i in self.c.ids if i != leader])
            self.probe.start(at)
            try:
                time.sleep(CUT_S)
            finally:
                self.link(ns, "up")
            return at, f"{ns} (broker {leader}, leader of epoch {epoch}) cut off for {CUT_S:.0f} s"
        if kind == "repl-drop":
            at = time.monotonic()
            self.ns_run(ns, ["nft", "add", "table", "inet", "rk"])
            try:
                self.ns_run(ns, ["nft", "add", "chain", "inet", "rk", "in",
                                 "{ type filter hook input priority 0; policy accept; }"])
                self.ns_run(ns, ["nft", "add", "rule", "inet", "rk", "in", "tcp", "dport", str(REPL_PORT), "drop"])
                time.sleep(CUT_S)
            finally:
                self.ns_run(ns, ["nft", "delete", "table", "inet", "rk"])
            return at, f"{ns} (broker {leader}, leader of epoch {epoch}) dropped tcp dport {REPL_PORT} for {CUT_S:.0f} s"
        raise Fail(f"unknown fault {kind}")

    def trials(self, n):
        for trial in range(1, n + 1):
            for kind in KINDS:
                say(f"trial {trial}/{n}: {kind}")
                at = None
                self.probe = None
                try:
                    at, detail = self.fault(kind)
                    st = self.wait_full(HEAL_S, f"after {kind}: {GROUP} led with all three in its SSS again")
                    # Healed once acknowledgements flow again too.
                    acks = self.load.acks()
                    wait_until(lambda: self.load.acks() > acks + RATE // 4, 60, 0.1, f"after {kind}: acknowledgements")
                    healed = time.monotonic()
                    if self.probe:
                        first = self.probe.finish()
                        self.failover.setdefault(kind, []).append(first)
                        detail += (f"; a fresh producer's first acknowledgement {first:.2f} s after the fault"
                                   if first is not None else "; a fresh producer had no acknowledgement")
                    self.faults.append((kind, trial, at, healed, detail))
                    say(f"  {detail}; healed after {healed - at:.1f} s: leader {st['leader']} epoch {st['epoch']}")
                except Exception as e:  # noqa: BLE001
                    why = str(e) if isinstance(e, Fail) else f"{type(e).__name__}: {e}"
                    self.faults.append((kind, trial, at, None, why))
                    say(f"  {kind} did not heal: {why}")
                    return False
                if self.load.errors:
                    return False
        return True

    # -- the verdict ----------------------------------------------------------------------------
    def stalls(self):
        """{kind: (longest stall, trial)} from the acknowledgement times."""
        times = self.load.ack_times()
        out = {}
        for kind, trial, at, healed, _ in self.faults:
            if at is None or healed is None:
                continue
            i = max(0, bisect.bisect_left(times, at) - 1)
            j = bisect.bisect_right(times, healed)
            window = times[i:j + 1]
            gap = max((b - a for a, b in zip(window, window[1:])), default=healed - at)
            if kind not in out or gap > out[kind][0]:
                out[kind] = (gap, trial)
        return out

    def verdict(self):
        v = self.v
        for kind in KINDS:
            done = [f for f in self.faults if f[0] == kind]
            bad = [f for f in done if f[3] is None]
            took = [f[3] - f[2] for f in done if f[3] is not None]
            v.report(f"heal-{kind}", done and not bad,
                     f"{len(done)} faults, healed within {max(took, default=0):.1f} s at most" if done and not bad
                     else (f"trial {bad[0][1]}: {bad[0][4]}" if bad else "not run (an earlier fault did not heal)"))
        v.report("load", not self.load.errors, "producer and consumer threads ran to the end" if not self.load.errors
                 else "; ".join(self.load.errors))

        got, hw, errors = sc.read_back(self.c.bootstrap(self.c.ids), TOPIC, list(range(PARTS)), 120)
        expected = self.ledger.of(TOPIC)
        stored = {}              # (p, o) -> value
        reads_twice = 0
        for p, recs in got.items():
            for o, val in recs:
                if (p, o) in stored:
                    reads_twice += 1
                stored[(p, o)] = val
        lost = sorted(k for k in expected if k not in stored)
        wrong = sorted(k for k, val in expected.items() if k in stored and stored[k] != val)
        where = {}
        for k, val in stored.items():
            where.setdefault(val, []).append(k)
        no_offset = [(p, val) for t, p, val in self.ledger.no_offset if t == TOPIC]
        no_offset_lost = [(p, val) for p, val in no_offset if [k[0] for k in where.get(val, [])] != [p]]
        v.report("acked", not errors and not lost and not wrong and not no_offset_lost,
                 f"{len(expected)} acknowledged records, {len(lost)} lost, {len(wrong)} with other bytes; "
                 f"{len(no_offset)} acknowledged without an offset, {len(no_offset_lost)} of them not once in "
                 f"their partition"
                 + (f"; lost e.g. {lost[:5]}" if lost else "") + (f"; changed e.g. {wrong[:5]}" if wrong else "")
                 + (f"; without an offset and not found once e.g. {no_offset_lost[:3]}" if no_offset_lost else "")
                 + (f"; read-back errors {errors[:3]}" if errors else ""))
        for p, val in no_offset[:10]:
            say(f"acknowledged without an offset: {TOPIC}/{p} {val.decode()}, stored at {where.get(val)}")
        holes = {p: sorted(set(range(hw[p])) - {o for o, _ in got[p]}) for p in got}
        holes = {p: h for p, h in holes.items() if h}
        unsent = sorted(k for k, val in stored.items() if val not in self.load.sent)
        v.report("dense", not holes and not unsent and not reads_twice,
                 f"{sum(hw.values())} records in {PARTS} partitions, offsets 0..hw-1 each, all of them sent"
                 if not holes and not unsent and not reads_twice else
                 f"holes {dict(list(holes.items())[:3])}; {len(unsent)} never sent (e.g. {unsent[:3]}); "
                 f"{reads_twice} offsets read twice")
        dups = {val: ks for val, ks in where.items() if len(ks) > 1}
        v.report("duplicates", not dups, f"{len(stored) - len(expected) - len(no_offset)} records stored but not "
                 f"acknowledged (sent, no report), every payload once" if not dups else
                 f"{len(dups)} payloads stored twice, e.g. {list(dups.items())[:3]}")
        seen_bad = sorted(k for k, val in self.load.consumed.items() if stored.get(k) != val)
        v.report("consumed", not seen_bad and self.load.consumed,
                 f"{len(self.load.consumed)} records given to the group consumer, each the one stored at its offset"
                 if not seen_bad and self.load.consumed else
                 f"{len(seen_bad)} of {len(self.load.consumed)} consumed records are not what is stored at their "
                 f"offset now (e.g. {[(k, self.load.consumed[k], stored.get(k)) for k in seen_bad[:3]]})")
        self.stall_figures = self.stalls()
        for kind in KINDS:
            s = self.stall_figures.get(kind)
            say(f"longest produce stall, {kind}: " + (f"{s[0]:.2f} s (trial {s[1]})" if s else "n/a"))

    def check_resume(self):
        """The group consumer, stopped after a last commit, is started again after one more record per
        partition: it must have its last commit and read on from there."""
        load = self.load
        load.stop_c.set()
        load.ct.join(30)
        c = load.consumer
        final = None
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                c.consume(500, 0.2)     # keeps the membership while the coordinator answers
                if load.commit(c, explicit=True):
                    final = dict(load.committed)
                    break
        finally:
            c.close()
        check(final is not None, f"no commit succeeded in 30 s at the end ({load.consumer_errors[-3:]})")
        check(len(final) == PARTS, f"commits cover partitions {sorted(final)} only")
        s = sc.Sender(self.c.bootstrap(self.c.ids), self.ledger, "resume-producer")
        for p in range(PARTS):
            s.send(TOPIC, self.ledger.payload("resume"), partition=p)
        check(s.finish(60) == 0 and not s.errors, f"records after the last commit not acknowledged: {s.errors[:3]}")
        c2 = Consumer(sc.client_conf(self.c.bootstrap(self.c.ids), **{
            "group.id": f"{TOPIC}-cg", "enable.auto.commit": False, "auto.offset.reset": "earliest"}))
        try:
            got = {tp.partition: tp.offset for tp in c2.committed([TopicPartition(TOPIC, p) for p in range(PARTS)],
                                                                  timeout=20)}
            check(got == final, f"committed offsets read back {[(p, got.get(p), final[p]) for p in range(PARTS) if got.get(p) != final[p]][:5]} "
                                f"(partition, read, last committed)")
            c2.subscribe([TOPIC])
            first = {}
            deadline = time.monotonic() + 60
            while len(first) < PARTS and time.monotonic() < deadline:
                for m in c2.consume(500, 0.5):
                    if not m.error():
                        first.setdefault(m.partition(), m.offset())
            bad = [(p, first.get(p), final[p]) for p in range(PARTS) if first.get(p) != final[p]]
            check(not bad, f"the group read on from other offsets than its commits: {bad[:5]} (partition, first "
                           f"offset read, committed)")
        finally:
            c2.close()
        return f"{load.commits} commits during the run; restarted, the group read on at all {PARTS} committed offsets"

    def check_epochs(self):
        """etcd's history of <root>/groups/ from revision 1 (nothing compacts it here)."""
        env = dict(os.environ, ETCDCTL_API="3")
        p = subprocess.Popen(["etcdctl", f"--endpoints={self.c.etcd_eps}", "watch", "--prefix", f"{ROOT}/groups/",
                              "--rev", "1", "-w", "json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        time.sleep(4)
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        states = []
        dec = json.JSONDecoder()
        pos = 0
        text = out.strip()
        while pos < len(text):
            doc, end = dec.raw_decode(text, pos)
            pos = end
            while pos < len(text) and text[pos].isspace():
                pos += 1
            for ev in doc.get("Events") or []:
                kv = ev.get("kv", {})
                key = base64.b64decode(kv.get("key", "")).decode()
                if key != f"{ROOT}/groups/{GROUP}/state":
                    continue
                check(ev.get("type", 0) in (0, "PUT"), f"{key} deleted at revision {kv.get('mod_revision')}")
                states.append((int(kv.get("mod_revision", 0)), json.loads(base64.b64decode(kv["value"]))))
        check(states, f"no {ROOT}/groups/{GROUP}/state in the watch from revision 1 ({err.strip()[:300]})")
        check(states[-1][1] == self.c.group_state(), f"the watch from revision 1 ends at {states[-1]}, before the "
                                                     f"state in etcd now ({self.c.group_state()}): incomplete")
        with open(os.path.join(self.args.work, "group-states.log"), "w") as f:
            for rev, st in states:
                f.write(f"{rev} {json.dumps(st)}\n")
        leaders = {}
        prev = None
        for rev, st in states:
            who = (st["leader"], st.get("leader_broker_epoch"))
            leaders.setdefault(st["epoch"], set()).add(who)
            if prev is not None:
                check(st["epoch"] >= prev[1]["epoch"], f"epoch went down at revision {rev}: {prev[1]} -> {st}")
                pwho = (prev[1]["leader"], prev[1].get("leader_broker_epoch"))
                check(who == pwho or st["epoch"] > prev[1]["epoch"],
                      f"leader changed without a new epoch at revision {rev}: {prev[1]} -> {st}")
            prev = (rev, st)
        many = {e: w for e, w in leaders.items() if len(w) > 1}
        check(not many, f"epochs with more than one leader: {many}")
        # The brokers' side: each logs "group g1: leads epoch E" when its store takes the lead.
        led = {}
        for i in self.c.ids:
            for m in re.finditer(rf"group {GROUP}: leads epoch (\d+)", open(self.c.broker[i].log_path,
                                                                              errors="replace").read()):
                led.setdefault(int(m.group(1)), set()).add(i)
        bad = {e: sorted(b) for e, b in led.items() if len(b) > 1 or e not in leaders
               or b != {w[0] for w in leaders[e]}}
        check(not bad, f"epochs led by brokers other than the state's leader (epoch: brokers whose log says they "
                       f"led it): {bad}; states {dict((e, sorted(w)) for e, w in leaders.items())}")
        chain = " ".join(f"{e}:{next(iter(w))[0]}" for e, w in sorted(leaders.items()))
        return (f"{len(states)} states, {len(leaders)} epochs, each with one leader (epoch:leader {chain}), the "
                f"one whose log says it led it")

    def check_wiped(self):
        st = self.wait_full(HEAL_S, f"before the wipe: {GROUP} led with a full SSS")
        leader = st["leader"]
        f = random.choice([i for i in self.c.ids if i != leader])
        gdir = os.path.join(self.c.data_dir(f), "groups", GROUP)
        check(os.path.isdir(os.path.join(gdir, "commitlog")), f"no {gdir}/commitlog")
        self.c.broker[f].stop(grace=15)
        shutil.rmtree(gdir)
        wait_until(lambda: f not in (self.c.group_state() or {}).get("sss", [f]), 30, 0.1,
                   f"broker {f} out of {GROUP}'s SSS once stopped")
        t = time.monotonic()
        self.c.start_broker(f)
        self.wait_full(HEAL_S, f"wiped follower {f} back in {GROUP}'s SSS")
        back = time.monotonic() - t
        ldir = os.path.join(self.c.data_dir(leader), "groups", GROUP)

        def files(d):
            out = {}
            for sub in ("commitlog", "index"):
                for name in sorted(os.listdir(os.path.join(d, sub))):
                    with open(os.path.join(d, sub, name), "rb") as fh:
                        out[f"{sub}/{name}"] = fh.read()
            return out
        last = [None]

        def same():
            a, b = files(ldir), files(gdir)
            last[0] = (sorted(a), sorted(b), [n for n in a if n in b and a[n] != b[n]])
            return a == b and any(n.startswith("commitlog/") for n in a)
        try:
            wait_until(same, 60, 0.5, "files equal")
        except Fail:
            raise Fail(f"broker {f}'s group store, wiped and rebuilt, differs from leader {leader}'s after 60 s: "
                       f"leader files {last[0][0]}, follower files {last[0][1]}, differing {last[0][2]}")
        n = len(last[0][0])
        size = sum(len(b) for b in files(ldir).values())
        return (f"broker {f} wiped and restarted, back in the SSS after {back:.1f} s; its {n} commitlog/ and index/ "
                f"files ({size} bytes) equal leader {leader}'s byte for byte")

    def main(self):
        v = self.v
        try:
            self.setup()
        except Exception as e:  # noqa: BLE001
            why = str(e) if isinstance(e, Fail) else f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
            v.report("setup", False, why)
            return 1
        self.load = Load(self.c, self.ledger)
        self.load.start()
        wait_until(lambda: self.load.acks() > RATE, 30, 0.1, "the load's first acknowledgements")
        time.sleep(2)
        self.trials(self.args.trials)
        self.load.stop_p.set()
        self.load.pt.join(30)
        left = sum(s.finish(70) for s in self.load.senders)
        errs = [e for s in self.load.senders for e in s.errors]
        say(f"load stopped: {self.load.acks()} acknowledged, {len(errs)} delivery errors "
            f"({sorted(set(e[1] for e in errs))[:3]}), {left} without a report")
        self.verdict()
        v.run("resume", self.check_resume)
        v.run("wiped", self.check_wiped)
        v.run("epochs", self.check_epochs)
        acked = len(self.ledger.of(TOPIC)) + len(self.ledger.no_offset)
        kinds = {k: sum(1 for f in self.faults if f[0] == k) for k in KINDS}
        stalls = ", ".join(f"{k} {s[0]:.2f} s" for k, s in self.stall_figures.items())
        for k, xs in self.failover.items():
            got = sorted(x for x in xs if x is not None)
            say(f"failover, {k}: a fresh producer's first acknowledgement after " +
                (f"median {got[len(got) // 2]:.2f} s, max {got[-1]:.2f} s" if got else "-") +
                f" ({len(got)} of {len(xs)} faults)")
        say(f"summary: {self.args.trials} trials, faults {kinds}, {acked} acknowledged records, "
            f"{len(errs)} delivery errors; longest stall per kind: {stalls}")
        return 1 if v.failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--rokka", required=True)
    ap.add_argument("--net", default="10.77.0")
    ap.add_argument("--peer-net", default="10.77.1")
    ap.add_argument("--trials", type=int, default=1)
    args = ap.parse_args()
    random.seed()
    handler = logging.FileHandler(os.path.join(args.work, "logs", "clients.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    sc.CLIENT_LOG.addHandler(handler)
    sc.CLIENT_LOG.setLevel(logging.DEBUG)     # the load producers' debug=eos lines
    sc.CLIENT_LOG.propagate = False
    test = Test(args)
    signal.signal(signal.SIGTERM, lambda *_: (test.c.stop_all(), sys.exit(124)))
    try:
        return test.main()
    finally:
        test.c.stop_all()
        test.ledger.f.close()


if __name__ == "__main__":
    sys.exit(main())
