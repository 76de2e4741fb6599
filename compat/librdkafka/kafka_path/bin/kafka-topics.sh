#!/usr/bin/python3
"""Stand-in for Kafka's bin/kafka-topics.sh, over the Admin API.

librdkafka's suite runs `$KAFKA_PATH/bin/kafka-topics.sh --bootstrap-server $BROKERS ...`
(Kafka >= 3.0 form) to create, alter and delete topics out of band. Kafka's own script
is Java; this one does the same operations through Debian's python3-confluent-kafka
AdminClient, so the broker sees CreateTopics / CreatePartitions / DeleteTopics requests,
as it would from Kafka's tool. Supported: --create (--partitions, --replication-factor,
--config k=v...), --alter --partitions N, --delete. Exit status 0 on success, 1 on error.
The tool stands for Kafka's, not for the client under test: it always runs on Debian's librdkafka,
whichever librdkafka the suite calling it was built with (run.py gives test-runner, and so its
children, an LD_LIBRARY_PATH that this script drops, with any LD_PRELOAD, before loading
confluent_kafka).
"""
import argparse
import os
import sys

LOADER_VARIABLES = ("LD_LIBRARY_PATH", "LD_PRELOAD")
if any(os.environ.get(k) for k in LOADER_VARIABLES):  # the loader reads them at exec: start again
    os.execve(sys.executable, [sys.executable] + sys.argv,
              {k: v for k, v in os.environ.items() if k not in LOADER_VARIABLES})

from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic  # noqa: E402

TIMEOUT_S = 30


def parse_args(argv):
    p = argparse.ArgumentParser(prog="kafka-topics.sh")
    p.add_argument("--bootstrap-server", required=True)
    action = p.add_mutually_exclusive_group(required=True)
    action.add_argument("--create", action="store_true")
    action.add_argument("--alter", action="store_true")
    action.add_argument("--delete", action="store_true")
    p.add_argument("--topic", required=True)
    p.add_argument("--partitions", type=int)
    p.add_argument("--replication-factor", type=int, default=-1)
    p.add_argument("--config", action="append", default=[])
    return p.parse_args(argv)


def topic_configs(pairs):
    configs = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"kafka-topics.sh: --config expects key=value, got {pair!r}")
        configs[key] = value
    return configs


def wait(futures, what):
    for topic, future in futures.items():
        future.result(timeout=TIMEOUT_S)  # raises KafkaException with the broker's error
        print(f"{what} topic {topic}.")


def main(argv):
    args = parse_args(argv)
    admin = AdminClient({"bootstrap.servers": args.bootstrap_server, "broker.address.family": "v4"})
    try:
        if args.create:
            topic = NewTopic(args.topic, num_partitions=args.partitions or -1,
                             replication_factor=args.replication_factor,
                             config=topic_configs(args.config))
            wait(admin.create_topics([topic], operation_timeout=TIMEOUT_S), "Created")
        elif args.alter:
            if not args.partitions:
                raise SystemExit("kafka-topics.sh: --alter needs --partitions")
            wait(admin.create_partitions([NewPartitions(args.topic, args.partitions)],
                                         operation_timeout=TIMEOUT_S), "Altered")
        else:
            wait(admin.delete_topics([args.topic], operation_timeout=TIMEOUT_S), "Deleted")
    except Exception as e:  # report the broker's answer the way a CLI would, then fail
        print(f"kafka-topics.sh: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
