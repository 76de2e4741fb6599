/*
 * rokka-mock-broker: a stand-in broker for validating the compat harness without Rokka.
 *
 * It runs librdkafka's built-in mock cluster (public API in rdkafka_mock.h) as a
 * separate process that every test client shares, the way the suite shares a real
 * cluster. (The client-side `test.mock.num.brokers` setting would give each client
 * handle its own private cluster, so a producer and a consumer would never meet.)
 *
 * Usage: rokka-mock-broker [BROKER_COUNT]       (default 1, like a single Rokka)
 * Prints one line `bootstrap=HOST:PORT[,...]` on stdout, then serves until SIGTERM or
 * SIGINT. Topics are auto-created with 4 partitions (the mock's default, matching the
 * suite's num.partitions=4). The mock listens on ephemeral 127.0.0.1 ports.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rdkafka.h"
#include "rdkafka_mock.h"

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

static int parse_broker_count(int argc, char **argv) {
        if (argc < 2)
                return 1;
        const int n = atoi(argv[1]);
        if (n < 1 || n > 16) {
                fprintf(stderr, "rokka-mock-broker: BROKER_COUNT must be 1..16\n");
                exit(2);
        }
        return n;
}

int main(int argc, char **argv) {
        const int broker_count = parse_broker_count(argc, argv);
        char errstr[256];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        /* The handle only hosts the mock cluster's thread; it never connects anywhere. */
        if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "rokka-mock-broker: %s\n", errstr);
                return 1;
        }
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "rokka-mock-broker: rd_kafka_new: %s\n", errstr);
                return 1;
        }
        rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(rk, broker_count);
        if (!cluster) {
                fprintf(stderr, "rokka-mock-broker: could not start the mock cluster\n");
                rd_kafka_destroy(rk);
                return 1;
        }

        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        printf("bootstrap=%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
        fflush(stdout);

        while (!stop_requested)
                pause();

        rd_kafka_mock_cluster_destroy(cluster);
        rd_kafka_destroy(rk);
        return 0;
}
