#!/usr/bin/python3
"""Drives real librdkafka clients (Debian's python3-confluent-kafka, librdkafka 2.0.2)
through one broker address so record_proxy.py can capture their request frames:
admin (create topics and partitions, describe and alter configs, list and describe
groups, delete topics), produce with every codec, idempotent, transactional commit and
abort, consume with a group (join, sync, heartbeat, commit, leave), read_committed,
offsets by timestamp. Run with /usr/bin/python3 (pyenv's python lacks the module).

    /usr/bin/python3 drive_clients.py 127.0.0.1:29300
"""
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic

bootstrap = sys.argv[1]
base = {"bootstrap.servers": bootstrap}


def wait(futures):
    for f in futures.values():
        f.result(timeout=30)


def produce(topic, extra, n=20, transactional=None):
    p = Producer({**base, **extra})
    if transactional:
        p.init_transactions(30)
        p.begin_transaction()
    for i in range(n):
        p.produce(topic, key=f"k{i}".encode(), value=(f"v{i}-" + "x" * (i * 37 % 400)).encode(),
                  headers=[("h", b"1")] if i % 3 == 0 else None, partition=i % 2)
    if transactional == "commit":
        p.commit_transaction(30)
    elif transactional == "abort":
        p.abort_transaction(30)
    assert p.flush(30) == 0


def consume(topic, group, count, extra=None):
    c = Consumer({**base, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False,
                  **(extra or {})})
    c.subscribe([topic])
    got, deadline = 0, time.time() + 30
    while got < count and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got += 1
    c.commit(asynchronous=False)
    c.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=10)
    c.offsets_for_times([TopicPartition(topic, 0, int(time.time() * 1000) - 60000)], timeout=10)
    c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    return got


admin = AdminClient(base)
wait(admin.create_topics([NewTopic("seeds", 2, 1), NewTopic("seeds-cfg", 1, 1, config={"retention.ms": "3600000"})]))
wait(admin.create_partitions([NewPartitions("seeds-cfg", 3)]))
wait(admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, "seeds-cfg"),
                             ConfigResource(ConfigResource.Type.BROKER, "0")]))
wait(admin.alter_configs([ConfigResource(ConfigResource.Type.TOPIC, "seeds-cfg",
                                         set_config={"retention.ms": "7200000"})]))
admin.list_topics(timeout=10)

for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
    produce("seeds", {"compression.type": codec, "linger.ms": 5})
produce("seeds", {"acks": "1", "batch.num.messages": 1})
produce("seeds", {"enable.idempotence": True, "compression.type": "lz4"})
produce("seeds", {"transactional.id": "seeds-tx"}, transactional="commit")
produce("seeds", {"transactional.id": "seeds-tx"}, transactional="abort")

print("consumed", consume("seeds", "seeds-group", 120))
print("consumed read_committed", consume("seeds", "seeds-group-rc", 120, {"isolation.level": "read_committed"}))

admin.list_groups(timeout=10)
wait(admin.delete_topics(["seeds-cfg"]))
print("done")
