#!/usr/bin/python3
"""bench/replication.py: what replication costs and how long a failover takes (issue 24).

    /usr/bin/python3 bench/replication.py [--rounds 3] [--duration 10] [--trials 10] [--out FILE.md] ...

Needs build/rokka, build/bench/wiregen, etcd on PATH, and confluent_kafka (Debian's python3-confluent-kafka,
hence /usr/bin/python3). Everything runs on 127.0.0.1: one etcd member and three brokers with
rokka.replication.groups=g1=1,2,3, a replication listener each, min.insync.replicas=2 and store.flush.mode as
given (async, the default). The brokers share this machine's cores with each other and with the load generators.

Part 1, cost (skip with --rounds 0): one RF-1 topic (its partitions spread over the three root stores) and
one RF-3 topic (all in g1's store: its leader writes, the two followers copy the stream), the same partition
count, on one cluster whose stores keep --retention-mib each (64 MiB CommitLog files), so that minutes of
closed-loop produce at three copies do not fill the disk. wiregen (the protocol-level generator, not librdkafka: its latency is the broker's Produce round trip,
while librdkafka's delivery latency is mostly time queued inside the client) produces 1 KiB records in rounds
A/B/C/A/B/C..., so that the machine's noise falls on every case: RF 1 acks=all, RF 3 acks=all, and RF 3 acks=1
for reference. First closed loop (as fast as acks return: throughput), then open loop at a fixed rate, a
fraction of the slower acks=all case's median (latency at equal load, from each record's due time).

Part 2, failover (skip with --trials 0): a fresh cluster, one RF-3 topic, a confluent_kafka producer
(idempotent, acks=all) at a steady rate, every acknowledgement logged. Each trial waits until the group's SSS
(etcd's <root>/groups/g1/state) holds all three members, kills -9 the broker it names as leader, and measures:
fault -> a new state (epoch) in etcd; fault -> the first acknowledgement of a record produced after the fault
(the old leader is dead by then, so that acknowledgement comes from the new leader); the longest gap between
acknowledgements around the fault. Then it restarts the killed broker on its data and waits until the SSS
holds all three again. After the trials every partition is read back from the start: each acknowledged record
must be there once, at its acknowledged offset, with its bytes.

Output: Markdown tables on stdout (and in --out), every raw figure as JSON lines in --jsonl.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY_ROOT = "/rokka"
VALUE_SIZE = 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except OSError:
        return 0


class Cluster:
    """One etcd member and three brokers, every process started (and only ever killed) here."""

    def __init__(self, work, args, overrides=None):
        self.work = work
        self.args = args
        self.overrides = overrides or {}
        self.etcd = None
        self.brokers = {}  # id -> Popen
        self.ports = {i: free_port() for i in (1, 2, 3)}
        self.repl_ports = {i: free_port() for i in (1, 2, 3)}
        self.client_port = free_port()
        self.logs = []

    def _log(self, name):
        f = open(os.path.join(self.work, name), "ab")
        self.logs.append(f)
        return f

    def start(self):
        peer = free_port()
        url = f"http://127.0.0.1:{self.client_port}"
        self.etcd = subprocess.Popen(
            ["etcd", "--name", "e", "--data-dir", os.path.join(self.work, "etcd"), "--listen-client-urls", url,
             "--advertise-client-urls", url, "--listen-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer}",
             "--initial-cluster", f"e=http://127.0.0.1:{peer}"],
            stdout=self._log("etcd.log"), stderr=subprocess.STDOUT)
        if not wait_port(self.client_port):
            raise RuntimeError("etcd does not listen")
        for i in (1, 2, 3):
            self.start_broker(i)
        for i in (1, 2, 3):
            if not wait_port(self.ports[i]):
                raise RuntimeError(f"broker {i} does not listen (see {self.work}/broker-{i}.log)")

    def start_broker(self, i):
        overrides = {
            "broker.id": i,
            "listeners": f"PLAINTEXT://127.0.0.1:{self.ports[i]}",
            "log.dirs": os.path.join(self.work, f"data-{i}"),
            "rokka.http.listeners": "",
            "rokka.cluster.etcd.endpoints": f"http://127.0.0.1:{self.client_port}",
            "rokka.cluster.session.timeout.ms": self.args.session_ms,
            "rokka.replication.groups": "g1=1,2,3",
            "rokka.replication.listener": f"127.0.0.1:{self.repl_ports[i]}",
            "min.insync.replicas": 2,
            "store.flush.mode": self.args.flush_mode,
        }
        overrides.update(self.overrides)
        cmd = [self.args.rokka]
        for k, v in overrides.items():
            cmd += ["--override", f"{k}={v}"]
        self.brokers[i] = subprocess.Popen(cmd, stdout=self._log(f"broker-{i}.log"), stderr=subprocess.STDOUT)

    def kill(self, i):
        p = self.brokers.pop(i)
        p.send_signal(signal.SIGKILL)
        p.wait()

    def bootstrap(self, ids=(1, 2, 3)):
        return ",".join(f"127.0.0.1:{self.ports[i]}" for i in ids)

    def broker_cpu_ticks(self):
        return sum(cpu_ticks(p.pid) for p in self.brokers.values())

    def etcd_get(self, key):
        body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.client_port}/v3/kv/range", data=body)
        try:
            with urllib.request.urlopen(req, timeout=2) as r:
                answer = json.loads(r.read())
        except OSError:
            return None
        kvs = answer.get("kvs") or []
        return base64.b64decode(kvs[0]["value"]).decode() if kvs else None

    def state(self):
        v = self.etcd_get(f"{KEY_ROOT}/groups/g1/state")
        return json.loads(v) if v else None

    def controller(self):
        v = self.etcd_get(f"{KEY_ROOT}/controller")
        return json.loads(v).get("broker") if v else None

    def wait_full_sss(self, timeout_s):
        """The state names a leader and all three members in sync; returns it, or None at the deadline."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            st = self.state()
            if st and st.get("leader", -1) in self.brokers and len(st.get("sss", [])) == 3:
                return st
            time.sleep(0.05)
        return None

    def stop(self):
        for p in list(self.brokers.values()) + ([self.etcd] if self.etcd else []):
            if p.poll() is None:
                p.terminate()
        for p in list(self.brokers.values()) + ([self.etcd] if self.etcd else []):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.brokers = {}
        self.etcd = None
        for f in self.logs:
            f.close()


def create_topics(cluster, topics, timeout_s=120):
    """topics: [(name, partitions, replication factor)]; waits until each is created (or exists)."""
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap()})
    futures = admin.create_topics([NewTopic(n, p, rf) for n, p, rf in topics], request_timeout=timeout_s)
    for name, f in futures.items():
        try:
            f.result(timeout=timeout_s)
        except Exception as e:  # an existing topic is fine, anything else is not
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise RuntimeError(f"create {name}: {e}")


def wiregen(args, cluster, prefix, acks, duration_s=None, rate=0, count=None):
    cmd = [args.wiregen, "--mode", "produce", "--bootstrap", cluster.bootstrap(ids=(1,)), "--topic", prefix,
           "--acks", str(acks), "--size", str(VALUE_SIZE), "--rate", str(rate),
           "--inflight", str(args.inflight)]
    cmd += ["--count", str(count)] if count else ["--duration-s", str(duration_s)]
    before = cluster.broker_cpu_ticks()
    r = subprocess.run(cmd, capture_output=True, text=True)
    after = cluster.broker_cpu_ticks()
    try:
        line = json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        line = {"errors": 1, "first_error": f"wiregen exit {r.returncode}: {r.stderr.strip()[:200]}", "msgs": 0}
    line["exit"] = r.returncode
    line["broker_cpu_s"] = (after - before) / os.sysconf("SC_CLK_TCK")
    return line


def du_mib(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_blocks * 512
            except OSError:
                pass
    return total >> 20


def check_disk(work, args):
    st = os.statvfs(work)
    free_gib = st.f_bavail * st.f_frsize / (1 << 30)
    if free_gib < args.min_free_gib:
        raise RuntimeError(f"only {free_gib:.1f} GiB free under {work} (--min-free-gib {args.min_free_gib}): stopped")


CASES = (("rf1", "-1", "RF 1, acks=all"), ("rf3", "-1", "RF 3, acks=all"), ("rf3", "1", "RF 3, acks=1"))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def spread(xs, fmt):
    return " / ".join(fmt.format(x) for x in xs)


def cost_part(args, emit, out):
    work = tempfile.mkdtemp(prefix="rokka-repl-bench.", dir=args.work_dir)
    cluster = Cluster(work, args, {"log.segment.bytes": 64 << 20, "log.retention.bytes": args.retention_mib << 20,
                                   "log.retention.check.interval.ms": 1000})
    try:
        cluster.start()
        if not cluster.wait_full_sss(120):
            raise RuntimeError("g1's SSS never held all three members")
        create_topics(cluster, [("rf1-0", args.partitions, 1), ("rf3-0", args.partitions, 3)])
        for prefix in ("rf1", "rf3"):  # until every partition has a leader and takes acks=all writes
            deadline = time.monotonic() + 120
            while True:
                w = wiregen(args, cluster, prefix, -1, count=args.partitions * 16 * 4)
                if w["exit"] == 0:
                    break
                if w["exit"] == 2 or time.monotonic() > deadline:
                    raise RuntimeError(f"warm-up of {prefix}: {w.get('first_error')}")
                time.sleep(1)
        st = cluster.state()
        emit({"kind": "cost-start", "state": st, "controller": cluster.controller(), "loadavg": loadavg()})
        results = {}  # (loop, case index) -> [lines by round]
        for loop in ("closed", "open"):
            rate = 0
            if loop == "open":
                slowest = min(med([l["msgs_per_s"] for l in results[("closed", 0)]]),
                              med([l["msgs_per_s"] for l in results[("closed", 1)]]))
                rate = int(slowest * args.open_fraction)
            for rnd in range(1, args.rounds + 1):
                for ci, (prefix, acks, label) in enumerate(CASES):
                    check_disk(work, args)
                    line = wiregen(args, cluster, prefix, acks, duration_s=args.duration, rate=rate)
                    line.update({"kind": "cost", "loop": loop, "rate": rate, "round": rnd, "case": label,
                                 "loadavg_after": loadavg(), "data_mib_after": du_mib(work)})
                    emit(line)
                    results.setdefault((loop, ci), []).append(line)
                    print(f"  {loop} round {rnd} {label}: {line.get('msgs_per_s')} msgs/s p99 "
                          f"{line.get('latency_p99_ms')} ms errors {line.get('errors')}", file=sys.stderr)
        emit({"kind": "cost-end", "state": cluster.state(), "controller": cluster.controller(), "loadavg": loadavg()})
        report_cost(args, results, st, out)
    finally:
        cluster.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def report_cost(args, results, st, out):
    for loop in ("closed", "open"):
        if loop == "closed":
            out(f"\nClosed loop (wiregen, {args.inflight} requests in flight per connection, {args.duration:g} s a run, "
                f"{args.rounds} rounds; g1's leader was broker {st.get('leader')}):\n")
        else:
            out(f"\nOpen loop at {results[(loop, 0)][0]['rate']:,} records/s "
                f"({args.open_fraction:g} of the slower acks=all case's closed-loop median; latency from each record's "
                f"due time):\n")
        out("| case | records/s (median) | rounds | p50 ms | p99 ms (median) | rounds | p99.9 ms | broker CPU us/record | errors |")
        out("|---|---|---|---|---|---|---|---|---|")
        for ci, (_, _, label) in enumerate(CASES):
            lines = results[(loop, ci)]
            rates = [l.get("msgs_per_s", 0) for l in lines]
            p99 = [l.get("latency_p99_ms", float("nan")) for l in lines]
            cpu = [l["broker_cpu_s"] / max(l.get("msgs", 0), 1) * 1e6 for l in lines]
            out(f"| {label} | {med(rates):,.0f} | {spread(rates, '{:,.0f}')} | "
                f"{med([l.get('latency_p50_ms', float('nan')) for l in lines]):.2f} | {med(p99):.2f} | "
                f"{spread(p99, '{:.2f}')} | {med([l.get('latency_p999_ms', float('nan')) for l in lines]):.2f} | "
                f"{med(cpu):.1f} | {sum(l.get('errors', 0) for l in lines)} |")
        out("")
        out("| ratio (same round, then the median over rounds) | throughput | p99 |")
        out("|---|---|---|")
        for a, b, label in ((1, 0, "RF 3 acks=all / RF 1 acks=all"), (2, 0, "RF 3 acks=1 / RF 1 acks=all"),
                            (1, 2, "RF 3 acks=all / RF 3 acks=1")):
            tr = [x.get("msgs_per_s", 0) / max(y.get("msgs_per_s", 0), 1e-9)
                  for x, y in zip(results[(loop, a)], results[(loop, b)])]
            pr = [x.get("latency_p99_ms", 0) / max(y.get("latency_p99_ms", 0), 1e-9)
                  for x, y in zip(results[(loop, a)], results[(loop, b)])]
            out(f"| {label} | {med(tr):.2f} ({spread(tr, '{:.2f}')}) | {med(pr):.2f} ({spread(pr, '{:.2f}')}) |")


class SteadyProducer(threading.Thread):
    """Idempotent acks=all producer at a fixed rate, one record at a time over the partitions in turn; logs the
    time each record was produced and each acknowledgement (time, partition, offset)."""

    def __init__(self, bootstrap, topic, partitions, rate):
        super().__init__(daemon=True)
        from confluent_kafka import Producer
        self.producer = Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5,
            "message.timeout.ms": 300000, "queue.buffering.max.messages": 1000000,
        })
        self.topic, self.partitions, self.rate = topic, partitions, rate
        self.produced_at = []  # seq -> monotonic time of produce()
        self.acks = []  # (monotonic time, seq, partition, offset)
        self.failed = []  # (seq, error text)
        self.stop_flag = threading.Event()
        self.filler = os.urandom(2 * VALUE_SIZE)

    def value(self, seq):
        head = b"%016d" % seq
        at = seq % VALUE_SIZE
        return head + self.filler[at:at + VALUE_SIZE - len(head)]

    def _delivered(self, err, msg):
        seq = int(msg.value()[:16])
        if err is not None:
            self.failed.append((seq, str(err)))
        else:
            self.acks.append((time.monotonic(), seq, msg.partition(), msg.offset()))

    def run(self):
        step = 1.0 / self.rate
        due = time.monotonic()
        while not self.stop_flag.is_set():
            now = time.monotonic()
            while due <= now:
                seq = len(self.produced_at)
                try:
                    self.producer.produce(self.topic, self.value(seq), partition=seq % self.partitions,
                                          on_delivery=self._delivered)
                except BufferError:
                    break
                self.produced_at.append(time.monotonic())
                due += step
            self.producer.poll(max(0.0, min(0.002, due - time.monotonic())))
        self.producer.flush(300)

    def stop(self):
        self.stop_flag.set()
        self.join()


def read_back(bootstrap, topic, partitions, timeout_s=300):
    """(partition, offset) -> value of every record in the topic, from the start to the high watermarks."""
    from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "replication-bench-readback",
                  "enable.auto.commit": False, "enable.partition.eof": True})
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    records, at_eof = {}, set()
    deadline = time.monotonic() + timeout_s
    while len(at_eof) < partitions and time.monotonic() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                at_eof.add(m.partition())
                continue
            raise RuntimeError(f"read back: {m.error()}")
        at_eof.discard(m.partition())
        records[(m.partition(), m.offset())] = m.value()
    c.close()
    if len(at_eof) < partitions:
        raise RuntimeError(f"read back: only {len(at_eof)} of {partitions} partitions reached their end")
    return records


def failover_part(args, emit, out):
    work = tempfile.mkdtemp(prefix="rokka-repl-failover.", dir=args.work_dir)
    cluster = Cluster(work, args)
    producer = None
    trials = []
    try:
        cluster.start()
        if not cluster.wait_full_sss(120):
            raise RuntimeError("g1's SSS never held all three members")
        create_topics(cluster, [("fo", args.partitions, 3)])
        producer = SteadyProducer(cluster.bootstrap(), "fo", args.partitions, args.producer_rate)
        producer.start()
        for trial in range(1, args.trials + 1):
            st = cluster.wait_full_sss(300)
            if st is None:
                raise RuntimeError(f"trial {trial}: the SSS did not hold all three members within 300 s")
            # Steady first: acknowledgements flowing (the previous trial's backlog drained).
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if producer.acks and producer.acks[-1][0] > time.monotonic() - 0.2 and \
                        len(producer.produced_at) - len(producer.acks) - len(producer.failed) < args.producer_rate:
                    break
                time.sleep(0.05)
            time.sleep(1)
            st = cluster.state()
            victim, epoch, ctrl = st["leader"], st["epoch"], cluster.controller()
            acks_before = len(producer.acks)
            t_kill = time.monotonic()
            cluster.kill(victim)
            t_killed = time.monotonic()
            t_state, new_state = None, None
            t_first, first_any = None, None
            deadline = t_kill + args.trial_timeout
            scanned = acks_before
            while time.monotonic() < deadline and (t_state is None or t_first is None):
                if t_state is None:
                    s = cluster.state()
                    if s and s.get("epoch", 0) > epoch and s.get("leader", -1) not in (-1, victim):
                        t_state, new_state = time.monotonic(), s
                acks = producer.acks
                while scanned < len(acks):
                    t, seq, _, _ = acks[scanned]
                    scanned += 1
                    if t > t_killed and first_any is None:
                        first_any = t
                    if producer.produced_at[seq] > t_killed and t_first is None:
                        t_first = t
                time.sleep(0.01)
            cluster.start_broker(victim)
            t_restart = time.monotonic()
            full = cluster.wait_full_sss(args.trial_timeout)
            t_full = time.monotonic() if full else None
            window = [a[0] for a in producer.acks[max(acks_before - 1, 0):] if a[0] < (t_first or t_kill) + 1]
            gaps = [b - a for a, b in zip(window, window[1:])]
            row = {
                "kind": "failover", "trial": trial, "killed": victim, "was_controller": ctrl == victim,
                "old_epoch": epoch, "new_leader": new_state and new_state["leader"],
                "new_epoch": new_state and new_state["epoch"],
                "fault_to_state_s": t_state and t_state - t_kill,
                "fault_to_first_ack_s": t_first and t_first - t_kill,
                "fault_to_any_ack_s": first_any and first_any - t_kill,
                "longest_ack_gap_s": max(gaps) if gaps else None,
                "restart_to_full_sss_s": t_full and t_full - t_restart,
                "loadavg": loadavg(),
            }
            emit(row)
            trials.append(row)
            print(f"  trial {trial}: {json.dumps(row)}", file=sys.stderr)
        if cluster.wait_full_sss(300) is None:
            raise RuntimeError("after the trials, the SSS did not hold all three members within 300 s")
        producer.stop()
        records = read_back(cluster.bootstrap(), "fo", args.partitions)
        lost = [a for a in producer.acks if records.get((a[2], a[3])) != producer.value(a[1])]
        seen = {}
        for v in records.values():
            seen[v[:16]] = seen.get(v[:16], 0) + 1
        dupes = sum(n - 1 for n in seen.values() if n > 1)
        check = {"kind": "failover-check", "produced": len(producer.produced_at), "acknowledged": len(producer.acks),
                 "failed": len(producer.failed), "first_failure": producer.failed[0][1] if producer.failed else "",
                 "records_in_topic": len(records), "lost": len(lost), "duplicates": dupes,
                 "lost_sample": [list(a) for a in lost[:5]]}
        emit(check)
        report_failover(args, trials, check, out)
    finally:
        if producer is not None and producer.is_alive():
            producer.stop_flag.set()
        cluster.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def report_failover(args, trials, check, out):
    def fmt(x):
        return "-" if x is None else f"{x:.2f}"
    out(f"\nFailover ({len(trials)} trials; lease rokka.cluster.session.timeout.ms={args.session_ms}; "
        f"{args.producer_rate} records/s idempotent acks=all over {args.partitions} partitions):\n")
    out("| trial | killed (controller?) | epoch | new leader | fault -> new state s | fault -> first ack s | "
        "longest ack gap s | restart -> SSS full s |")
    out("|---|---|---|---|---|---|---|---|")
    for t in trials:
        out(f"| {t['trial']} | {t['killed']}{' (yes)' if t['was_controller'] else ''} | {t['old_epoch']} -> "
            f"{t['new_epoch']} | {t['new_leader']} | {fmt(t['fault_to_state_s'])} | {fmt(t['fault_to_first_ack_s'])} | "
            f"{fmt(t['longest_ack_gap_s'])} | {fmt(t['restart_to_full_sss_s'])} |")
    out("")
    for key, label in (("fault_to_state_s", "fault -> new state in etcd"),
                       ("fault_to_first_ack_s", "fault -> first acknowledged produce on the new leader"),
                       ("restart_to_full_sss_s", "restart -> SSS full again")):
        xs = [t[key] for t in trials if t[key] is not None]
        missing = len(trials) - len(xs)
        out(f"- {label}: median **{med(xs):.2f} s**, max **{max(xs) if xs else float('nan'):.2f} s**"
            f"{f' ({missing} trials never got there)' if missing else ''}")
        if key == "fault_to_first_ack_s":  # the client's part: from the new state to its first acknowledgement
            xs = [t[key] - t["fault_to_state_s"] for t in trials if t[key] is not None and t["fault_to_state_s"]]
            out(f"  - of which new state -> first ack: median {med(xs):.2f} s, max {max(xs) if xs else float('nan'):.2f} s")
    out(f"- records produced {check['produced']:,}, acknowledged {check['acknowledged']:,}, failed "
        f"{check['failed']}{' (' + check['first_failure'] + ')' if check['failed'] else ''}; in the topic "
        f"{check['records_in_topic']:,}; acknowledged and missing or different: **{check['lost']}**; "
        f"duplicates: {check['duplicates']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--rokka", default=os.path.join(ROOT, "build/rokka"))
    ap.add_argument("--wiregen", default=os.path.join(ROOT, "build/bench/wiregen"))
    ap.add_argument("--rounds", type=int, default=3, help="cost: rounds of the three cases per loop (3; 0: skip)")
    ap.add_argument("--duration", type=float, default=10, help="cost: seconds a run (10)")
    ap.add_argument("--inflight", type=int, default=5,
                    help="cost: Produce requests in flight per connection (5, as Kafka's producers at most)")
    ap.add_argument("--open-fraction", type=float, default=0.5,
                    help="cost: open-loop rate as a fraction of the slower acks=all closed-loop median (0.5)")
    ap.add_argument("--partitions", type=int, default=12, help="partitions of every topic (12)")
    ap.add_argument("--trials", type=int, default=10, help="failover trials (10; 0: skip)")
    ap.add_argument("--producer-rate", type=int, default=1000, help="failover: records/s of the producer (1000)")
    ap.add_argument("--trial-timeout", type=float, default=120, help="failover: bound on each wait of a trial (120 s)")
    ap.add_argument("--session-ms", type=int, default=6000, help="rokka.cluster.session.timeout.ms (6000, the default)")
    ap.add_argument("--flush-mode", default="async", choices=("async", "sync"), help="store.flush.mode (async)")
    ap.add_argument("--retention-mib", type=int, default=256,
                    help="cost: log.retention.bytes of every store, in MiB (256; CommitLog files of 64 MiB)")
    ap.add_argument("--min-free-gib", type=float, default=4, help="stop before a run when less is free (4 GiB)")
    ap.add_argument("--work-dir", default=None, help="where the data directories go (the system's temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the data directories and logs")
    ap.add_argument("--out", help="also write the Markdown tables here")
    ap.add_argument("--jsonl", help="append every raw figure here as a JSON line")
    args = ap.parse_args()

    lines = []

    def out(text):
        print(text)
        lines.append(text)

    jsonl = open(args.jsonl, "a") if args.jsonl else None

    def emit(obj):
        if jsonl:
            jsonl.write(json.dumps(obj) + "\n")
            jsonl.flush()

    meta = {"kind": "meta", "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "cores": os.cpu_count(),
            "loadavg": loadavg(), "args": vars(args)}
    emit(meta)
    out(f"replication bench, {meta['started']}: {meta['cores']} cores, load average {meta['loadavg']}, "
        f"store.flush.mode={args.flush_mode}, {args.partitions} partitions, {VALUE_SIZE} B records")
    if args.rounds > 0:
        cost_part(args, emit, out)
    if args.trials > 0:
        failover_part(args, emit, out)
    out(f"\nload average at the end: {loadavg()}")
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
