#!/usr/bin/python3
"""Debian's python3-kafka (kafka-python, a pure-Python client: its own codecs, not librdkafka's) against
a broker.

    /usr/bin/python3 compat/kafka_python_check.py HOST:PORT
    /usr/bin/python3 compat/kafka_python_check.py      # starts build/rokka via compat/with_broker.sh

Needs python3-kafka, and for its compression codecs python3-lz4, python3-snappy and python3-zstandard
(scripts/install-deps.sh installs them). Scenario: the admin client creates a topic with a topic
config, reads the config back and adds partitions; a producer sends keyed messages with headers and
explicit timestamps, acks=all, under every codec kafka-python has; offsets come back dense per
partition; a group of two consumers reads every message back identical, a group of one reads them
and commits; ListOffsets by timestamp finds the first message at or after a time; a new member
resumes after the commit; the groups are described, listed and deleted, then the topic. Every step
asserts what came back.
Ends with `N passed, M failed`; exit 1 on failure.
"""
import random
import sys
import threading
import time

import kafka
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic
from kafka.codec import has_lz4, has_snappy, has_zstd

from check_steps import Skipped, bootstrap_from, run_steps

PARTITIONS = 3
MORE_PARTITIONS = 4
PER_CODEC = 60      # messages per codec, over all partitions
MORE = 20
RETENTION_MS = "7200000"
TIMEOUT_S = 60


class Scenario:
    def __init__(self, bootstrap):
        self.bootstrap = bootstrap
        suffix = random.randrange(1 << 30)
        self.topic = f"kp_check_{suffix}"
        self.group = f"kp_group_{suffix}"
        self.sent = {}   # (partition, offset) -> (key, value, headers, timestamp_ms)
        self.admin = None

    def admin_client(self):
        if self.admin is None:
            self.admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
        return self.admin

    def create_topic_with_config(self):
        admin = self.admin_client()
        admin.create_topics([NewTopic(self.topic, num_partitions=PARTITIONS, replication_factor=1,
                                      topic_configs={"retention.ms": RETENTION_MS})])
        assert self.topic in admin.list_topics(), f"{self.topic} not listed"
        [response] = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, self.topic)])
        [resource] = response.resources
        assert resource[0] == 0, f"DescribeConfigs error {resource[0]}"
        entries = {e[0]: e for e in resource[4]}
        assert entries["retention.ms"][1] == RETENTION_MS, f"retention.ms {entries['retention.ms']}"
        assert entries["retention.ms"][3] == 1, f"retention.ms source {entries['retention.ms'][3]}, not TOPIC_CONFIG"

    def add_partitions(self):
        self.admin_client().create_partitions({self.topic: NewPartitions(total_count=MORE_PARTITIONS)})
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap)
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while True:
                found = consumer.partitions_for_topic(self.topic) or set()
                if found == set(range(MORE_PARTITIONS)) or time.monotonic() > deadline:
                    break
                consumer._client.cluster.request_update()
                consumer._client.poll(timeout_ms=500)
            assert found == set(range(MORE_PARTITIONS)), f"partitions {sorted(found)}"
        finally:
            consumer.close()

    def produce(self, first, count, codec):
        producer = KafkaProducer(bootstrap_servers=self.bootstrap, acks="all", compression_type=codec,
                                 linger_ms=20, request_timeout_ms=TIMEOUT_S * 1000)
        try:
            base = int(time.time() * 1000) - 100_000
            futures = []
            for i in range(first, first + count):
                key, value = f"key-{i % 7}".encode(), f"value {i} {codec} ".encode() * (1 + i % 5)
                headers = [("n", str(i).encode()), ("codec", str(codec).encode())]
                ts = base + i
                future = producer.send(self.topic, key=key, value=value, headers=headers, timestamp_ms=ts,
                                       partition=i % MORE_PARTITIONS)
                futures.append((future, (key, value, headers, ts)))
            producer.flush(timeout=TIMEOUT_S)
            for future, message in futures:
                md = future.get(timeout=TIMEOUT_S)
                self.sent[(md.partition, md.offset)] = message
        finally:
            producer.close(timeout=TIMEOUT_S)
        for p in range(MORE_PARTITIONS):
            offsets = sorted(o for (q, o) in self.sent if q == p)
            assert offsets == list(range(len(offsets))), f"partition {p}: offsets not dense from 0: {offsets[:10]}"

    def produce_under(self, codec, available=True):
        def step():
            if not available:
                raise Skipped(f"kafka-python has no {codec} codec here (its Python module is not installed)")
            self.produce(len(self.sent), PER_CODEC, codec)
        return step

    def consume_group(self, expected, group, members=1):
        """Reads `expected` with `members` consumers of `group`; a single member commits after each poll
        (with several, a commit racing a rebalance may be refused: CommitFailedError, as from Kafka)."""
        got, errors = {}, []
        lock = threading.Lock()

        def member():
            consumer = KafkaConsumer(self.topic, bootstrap_servers=self.bootstrap, group_id=group,
                                     auto_offset_reset="earliest", enable_auto_commit=False,
                                     consumer_timeout_ms=3000)
            try:
                deadline = time.monotonic() + TIMEOUT_S
                while time.monotonic() < deadline:
                    with lock:
                        if set(expected) <= set(got):
                            break
                    for m in consumer.poll(timeout_ms=500).values():
                        with lock:
                            for r in m:
                                got[(r.partition, r.offset)] = (r.key, r.value, list(r.headers), r.timestamp)
                    if members == 1:
                        consumer.commit()
            except Exception as e:  # noqa: BLE001 (reported by the step)
                errors.append(repr(e))
            finally:
                consumer.close()

        threads = [threading.Thread(target=member) for _ in range(members)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, f"member errors: {errors}"
        assert set(got) == set(expected), \
            f"got {len(got)} messages, expected {len(expected)}; missing {sorted(set(expected) - set(got))[:5]}"
        for pos, message in expected.items():
            assert got[pos] == message, f"message at {pos} differs: {got[pos]} != {message}"

    def committed_is_end(self):
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=self.group, enable_auto_commit=False)
        try:
            tps = [TopicPartition(self.topic, p) for p in range(MORE_PARTITIONS)]
            ends = consumer.end_offsets(tps)
            for tp in tps:
                assert consumer.committed(tp) == ends[tp], f"{tp}: committed {consumer.committed(tp)}, end {ends[tp]}"
        finally:
            consumer.close()

    def pair_reads_everything(self):
        self.consume_group(dict(self.sent), self.group + "_pair", members=2)

    def group_reads_everything(self):
        self.consume_group(dict(self.sent), self.group)
        self.committed_is_end()

    def offsets_for_times(self):
        times = sorted(m[3] for m in self.sent.values())
        target = times[len(times) // 2]
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap)
        try:
            tps = [TopicPartition(self.topic, p) for p in range(MORE_PARTITIONS)]
            found = consumer.offsets_for_times({tp: target for tp in tps})
            for tp in tps:
                later = sorted(o for (q, o), m in self.sent.items() if q == tp.partition and m[3] >= target)
                if not later:
                    assert found[tp] is None, f"{tp}: {found[tp]}, expected none"
                    continue
                ts = self.sent[(tp.partition, later[0])][3]
                assert (found[tp].offset, found[tp].timestamp) == (later[0], ts), \
                    f"{tp}: {found[tp]}, expected offset {later[0]} at {ts}"
            assert consumer.beginning_offsets(tps) == {tp: 0 for tp in tps}
        finally:
            consumer.close()

    def group_resumes_after_commit(self):
        before = set(self.sent)
        self.produce(len(self.sent), MORE, None)
        self.consume_group({pos: self.sent[pos] for pos in set(self.sent) - before}, self.group)
        self.committed_is_end()

    def group_described_listed_deleted(self):
        admin = self.admin_client()
        [info] = admin.describe_consumer_groups([self.group])
        assert (info.error_code, info.group, info.state, info.protocol_type) == (0, self.group, "Empty", "consumer"), \
            f"described {info}"
        assert (self.group, "consumer") in admin.list_consumer_groups(), "group not listed"
        offsets = admin.list_consumer_group_offsets(self.group)
        assert {tp.partition: o.offset for tp, o in offsets.items()} == \
            {p: sum(1 for (q, _) in self.sent if q == p) for p in range(MORE_PARTITIONS)}, f"offsets {offsets}"
        deleted = dict(admin.delete_consumer_groups([self.group, self.group + "_pair"]))
        assert {g: e.errno for g, e in deleted.items()} == {self.group: 0, self.group + "_pair": 0}, f"deleted {deleted}"
        left = [g for g, _ in admin.list_consumer_groups()]
        assert self.group not in left and self.group + "_pair" not in left, f"still listed: {left}"

    def delete_topic(self):
        admin = self.admin_client()
        admin.delete_topics([self.topic], timeout_ms=TIMEOUT_S * 1000)
        deadline = time.monotonic() + TIMEOUT_S
        while self.topic in admin.list_topics() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert self.topic not in admin.list_topics(), "topic still listed"
        admin.close()


def main(argv):
    s = Scenario(bootstrap_from(argv, __file__))
    print(f"kafka-python {kafka.__version__} against {s.bootstrap}, topic {s.topic}")
    return run_steps([
        (f"create a topic of {PARTITIONS} partitions with retention.ms; DescribeConfigs reads it back",
         s.create_topic_with_config),
        (f"CreatePartitions to {MORE_PARTITIONS}; Metadata lists them", s.add_partitions),
        ("produce uncompressed, acks=all: dense offsets from 0", s.produce_under(None)),
        ("produce gzip", s.produce_under("gzip")),
        ("produce snappy", s.produce_under("snappy", has_snappy())),
        ("produce lz4", s.produce_under("lz4", has_lz4())),
        ("produce zstd", s.produce_under("zstd", has_zstd())),
        ("a group of two members reads everything identical (key, value, headers, timestamp)",
         s.pair_reads_everything),
        ("a group reads everything and commits: committed == end", s.group_reads_everything),
        ("ListOffsets by timestamp: the first message at or after it, per partition", s.offsets_for_times),
        ("a new group member resumes after the committed offsets", s.group_resumes_after_commit),
        ("DescribeGroups, ListGroups, OffsetFetch, DeleteGroups", s.group_described_listed_deleted),
        ("DeleteTopics", s.delete_topic),
    ])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
