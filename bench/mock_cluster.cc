// mock_cluster: the reference broker of bench/run.sh. It starts librdkafka's built-in mock
// cluster (an in-memory Kafka broker in the librdkafka library, public API
// rd_kafka_mock_cluster_new), creates the requested topics through the mock's own API (it
// does not implement CreateTopics), prints its bootstrap address, and serves until SIGTERM or
// SIGINT.
//
//   mock_cluster [--brokers N] [--topic NAME:PARTITIONS]... [--topics PREFIX:COUNT:PARTITIONS]...
//
// stdout gets two lines, in order: "bootstrap=HOST:PORT[,...]" and, once every topic exists,
// "ready". --topics P:C:N creates P-0 .. P-(C-1), the names loadgen's --topics C uses.
#include <arpa/inet.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct TopicSpec {
  std::string name;  // with count > 1: the prefix
  int count = 1;     // 0: a single topic called `name`
  int partitions = 1;
};

bool parse_positive(std::string_view text, int* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out > 0;
}

// "NAME:PARTITIONS" (single) or "PREFIX:COUNT:PARTITIONS" (many).
bool parse_topic_spec(std::string_view text, bool many, TopicSpec* spec) {
  const size_t last = text.rfind(':');
  if (last == std::string_view::npos || !parse_positive(text.substr(last + 1), &spec->partitions)) return false;
  std::string_view head = text.substr(0, last);
  spec->count = 0;
  if (many) {
    const size_t mid = head.rfind(':');
    if (mid == std::string_view::npos || !parse_positive(head.substr(mid + 1), &spec->count)) return false;
    head = head.substr(0, mid);
  }
  spec->name = head;
  return !head.empty();
}

// librdkafka 2.0.2's mock thread sometimes misses the wake-up for a command such as "create
// topic" and only serves it at its next 1 s poll timeout (measured: one create in five took
// 1,000 ms, so 5,000 topics took over 15 minutes). A connection attempt to the listener also
// wakes that poll, so while topics are being created a helper thread knocks every 2 ms.
class Waker {
 public:
  explicit Waker(const char* bootstraps) {
    const char* colon = std::strrchr(bootstraps, ':');
    address_.sin_family = AF_INET;
    address_.sin_port = htons(static_cast<uint16_t>(colon != nullptr ? std::atoi(colon + 1) : 0));
    address_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    thread_ = std::thread([this] { knock_until_stopped(); });
  }
  ~Waker() {
    stop_ = true;
    thread_.join();
  }
  Waker(const Waker&) = delete;
  Waker& operator=(const Waker&) = delete;

 private:
  void knock_until_stopped() {
    while (!stop_) {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      if (fd >= 0) {
        (void)connect(fd, reinterpret_cast<const sockaddr*>(&address_), sizeof address_);
        close(fd);
      }
      usleep(2000);
    }
  }

  sockaddr_in address_{};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bool create_topics(rd_kafka_mock_cluster_t* cluster, const TopicSpec& spec) {
  for (int i = 0; i < std::max(spec.count, 1); ++i) {
    const std::string name = spec.count == 0 ? spec.name : spec.name + "-" + std::to_string(i);
    const rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster, name.c_str(), spec.partitions, 1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "mock_cluster: topic %s: %s\n", name.c_str(), rd_kafka_err2str(err));
      return false;
    }
  }
  return true;
}

int usage() {
  std::fputs("usage: mock_cluster [--brokers N] [--topic NAME:PARTITIONS]... "
             "[--topics PREFIX:COUNT:PARTITIONS]...\n",
             stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int brokers = 1;
  std::vector<TopicSpec> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string_view value = argv[++i];
    TopicSpec spec;
    if (flag == "--brokers" && parse_positive(value, &brokers)) continue;
    if ((flag == "--topic" || flag == "--topics") && parse_topic_spec(value, flag == "--topics", &spec)) {
      specs.push_back(spec);
      continue;
    }
    return usage();
  }

  // Block the stop signals before librdkafka starts its threads, so only sigwait sees them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    std::fprintf(stderr, "mock_cluster: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (cluster == nullptr) {
    std::fputs("mock_cluster: could not create the mock cluster\n", stderr);
    rd_kafka_destroy(rk);
    return 1;
  }
  std::printf("bootstrap=%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  std::fflush(stdout);
  bool ok = true;
  {
    Waker waker(rd_kafka_mock_cluster_bootstraps(cluster));
    for (const TopicSpec& spec : specs) ok = ok && create_topics(cluster, spec);
  }
  if (ok) {
    std::puts("ready");
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(rk);
  return ok ? 0 : 1;
}
