#!/usr/bin/python3
"""Debian's python3-confluent-kafka (librdkafka 2.0.2 underneath) against a broker.

    /usr/bin/python3 compat/confluent_kafka_check.py HOST:PORT
    /usr/bin/python3 compat/confluent_kafka_check.py      # starts build/rokka via compat/with_broker.sh

Run it with /usr/bin/python3: a `python3` earlier on PATH (pyenv) lacks Debian's modules.
On another librdkafka (same soname, compatible ABI): LD_LIBRARY_PATH=<its build>/src, and
ROKKA_EXPECT_LIBRDKAFKA=<version> adds a first step that checks confluent_kafka.libversion()
(rd_kafka_version_str()) is that version. compat/ci.sh runs it so on 2.14.2.
Scenario: auto-create a topic (Metadata), list metadata, produce keyed messages with headers,
consume them with a group and commit, then check a second member of the group resumes from
the commit. Every step asserts what came back. Ends with `N passed, M failed`; exit 1 on failure.
"""
import os
import random
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from check_steps import Skipped, bootstrap_from, run_steps  # noqa: F401 (kip848_check.py imports Skipped from here)

PARTITIONS = 4  # num.partitions of the broker (with_broker.sh and librdkafka's suite use 4)
PER_PARTITION = 50
MORE = 5
TIMEOUT_S = 60


class Scenario:
    def __init__(self, bootstrap):
        self.bootstrap = bootstrap
        suffix = random.randrange(1 << 30)
        self.topic = f"py_check_{suffix}"
        self.group = f"py_group_{suffix}"
        self.sent = {}   # (partition, offset) -> (key, value, headers)
        self.conf = {"bootstrap.servers": bootstrap, "broker.address.family": "v4"}

    def metadata_creates_topic(self):
        """A Metadata request naming a new topic auto-creates it (Kafka's default)."""
        producer = Producer(self.conf)
        deadline = time.monotonic() + TIMEOUT_S
        while True:  # the first answers may be LEADER_NOT_AVAILABLE while the topic is created
            t = producer.list_topics(self.topic, timeout=TIMEOUT_S).topics[self.topic]
            if (t.error is None and t.partitions) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert t.error is None, f"topic error {t.error}"

    def metadata_lists_topic(self):
        md = Producer(self.conf).list_topics(self.topic, timeout=TIMEOUT_S)
        t = md.topics[self.topic]
        assert t.error is None, f"topic error {t.error}"
        assert sorted(t.partitions) == list(range(PARTITIONS)), f"partitions {sorted(t.partitions)}"
        assert len(md.brokers) >= 1, "no brokers in metadata"
        for p in t.partitions.values():
            assert p.leader in md.brokers, f"partition {p.id} leader {p.leader} not a broker"
        addresses = {f"{b.host}:{b.port}" for b in md.brokers.values()}
        assert self.bootstrap in addresses, f"{self.bootstrap} not among advertised {addresses}"

    def produce(self, first, count):
        """count messages per partition, numbered from first; records each delivered offset."""
        producer = Producer({**self.conf, "acks": "all", "linger.ms": 5, "enable.idempotence": True})
        errors, delivered_now = [], []

        def on_delivery(sent):
            def delivered(err, msg):
                if err:
                    errors.append(err)
                else:
                    delivered_now.append((msg.partition(), msg.offset()))
                    self.sent[(msg.partition(), msg.offset())] = sent
            return delivered

        for p in range(PARTITIONS):
            for i in range(first, first + count):
                key = f"k{p}-{i}".encode()
                value = bytes(random.randrange(256) for _ in range(random.randrange(1, 300)))
                headers = [("seq", str(i).encode()), ("bin", b"\x00\xff")]
                producer.produce(self.topic, value=value, key=key, partition=p, headers=headers,
                                 on_delivery=on_delivery((key, value, headers)))
        remaining = producer.flush(TIMEOUT_S)
        assert remaining == 0, f"{remaining} messages not delivered"
        assert not errors, f"delivery errors: {errors[:3]}"
        for p in range(PARTITIONS):  # the topic is new: message i of a partition gets offset i
            offsets = sorted(o for (q, o) in delivered_now if q == p)
            assert offsets == list(range(first, first + count)), f"partition {p} offsets {offsets}"

    def consume_group(self, expected):
        """A group member reads until it has `expected` (partition, offset) pairs; checks bytes, commits."""
        consumer = Consumer({**self.conf, "group.id": self.group, "auto.offset.reset": "earliest",
                             "enable.auto.commit": False, "session.timeout.ms": 10000})
        got = {}
        try:
            consumer.subscribe([self.topic])
            deadline = time.monotonic() + TIMEOUT_S
            while len(got) < len(expected) and time.monotonic() < deadline:
                msg = consumer.poll(1.0)
                if msg is None:
                    continue
                if msg.error():
                    raise KafkaException(msg.error())
                got[(msg.partition(), msg.offset())] = (msg.key(), msg.value(), msg.headers())
            assert set(got) == set(expected), \
                f"got {len(got)} messages, expected {len(expected)}; missing {sorted(set(expected) - set(got))[:5]}"
            for pos, (key, value, headers) in got.items():
                assert (key, value, headers) == self.sent[pos], f"message at {pos} differs from what was sent"
            committed = consumer.commit(asynchronous=False)
            ends = {tp.partition: tp.offset for tp in committed}
            for p in range(PARTITIONS):
                low, high = consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=TIMEOUT_S)
                assert ends.get(p) == high, f"partition {p}: committed {ends.get(p)}, high watermark {high}"
            stored = consumer.committed([TopicPartition(self.topic, p) for p in range(PARTITIONS)],
                                        timeout=TIMEOUT_S)
            assert {tp.partition: tp.offset for tp in stored} == ends, f"committed() returned {stored}"
        finally:
            consumer.close()

    def group_reads_everything(self):
        self.consume_group(dict(self.sent))

    def group_resumes_after_commit(self):
        before = set(self.sent)
        self.produce(PER_PARTITION, MORE)
        self.consume_group({pos: self.sent[pos] for pos in set(self.sent) - before})


def library_steps():
    """With ROKKA_EXPECT_LIBRDKAFKA set, a first step checking the librdkafka loaded is that version."""
    expected_library = os.environ.get("ROKKA_EXPECT_LIBRDKAFKA")
    if not expected_library:
        return []

    def loaded_library():
        assert confluent_kafka.libversion()[0] == expected_library, \
            f"loaded librdkafka {confluent_kafka.libversion()[0]}, expected {expected_library}"
    return [(f"runs on librdkafka {expected_library}", loaded_library)]


def main(argv):
    s = Scenario(bootstrap_from(argv, __file__))
    print(f"confluent-kafka {confluent_kafka.version()[0]} (librdkafka {confluent_kafka.libversion()[0]}) "
          f"against {s.bootstrap}, topic {s.topic}")
    return run_steps(library_steps() + [
        ("metadata request auto-creates the topic", s.metadata_creates_topic),
        ("metadata lists the topic, its partitions and leaders", s.metadata_lists_topic),
        (f"produce {PER_PARTITION} messages per partition: dense offsets from 0", lambda: s.produce(0, PER_PARTITION)),
        ("group consumes everything, bytes and headers identical, commit == high watermark",
         s.group_reads_everything),
        ("a new group member resumes after the committed offsets", s.group_resumes_after_commit),
    ])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
