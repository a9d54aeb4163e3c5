/*
 * kafka-mock: runs librdkafka's built-in mock Kafka cluster as a standalone process for tests.
 *
 *   kafka-mock [--brokers N] [--port P] [--partitions N] [topic ...]
 *
 * Prints the bootstrap servers as one line on stdout ("127.0.0.1:P,...") once the cluster is up,
 * then runs until stdin reaches EOF or SIGTERM/SIGINT arrives.
 *
 * Fixed ports: librdkafka 2.0's mock API has no listener-port option (each mock broker binds
 * 127.0.0.1:0). So that a stopped and restarted mock keeps its address - which is what a
 * Kafka outage looks like to a client - this program interposes bind(): the k-th bind of an
 * IPv4 socket to port 0 gets port P+k instead (with SO_REUSEADDR, so a restart can rebind while
 * old connections sit in TIME_WAIT). The executable's bind() wins over libc's for calls made
 * from librdkafka.so because the executable comes first in the dynamic symbol lookup order.
 *
 * The mock does not implement CreateTopics: topics are created here, from the command line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static int fixed_base_port = 0; /* 0: let the kernel choose, as librdkafka does */
static int fixed_next = 0;
static volatile sig_atomic_t stop_requested = 0;

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  static bind_fn real_bind = NULL;
  if (!real_bind) real_bind = (bind_fn)dlsym(RTLD_NEXT, "bind");
  if (fixed_base_port > 0 && addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
    if (in->sin_port == 0) {
      struct sockaddr_in fixed = *in;
      fixed.sin_port = htons((uint16_t)(fixed_base_port + fixed_next++));
      int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      return real_bind(fd, (const struct sockaddr *)&fixed, sizeof(fixed));
    }
  }
  return real_bind(fd, addr, len);
}

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static void usage(void) {
  fprintf(stderr, "usage: kafka-mock [--brokers N] [--port P] [--partitions N] [topic ...]\n");
}

int main(int argc, char **argv) {
  int brokers = 1, partitions = 1;
  const char *topics[256];
  int topic_count = 0;

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--brokers") && i + 1 < argc) {
      brokers = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
      fixed_base_port = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--partitions") && i + 1 < argc) {
      partitions = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--help")) {
      usage();
      return 0;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "kafka-mock: unknown option %s\n", argv[i]);
      usage();
      return 2;
    } else if (topic_count < 256) {
      topics[topic_count++] = argv[i];
    }
  }
  if (brokers < 1 || brokers > 16 || partitions < 1 || partitions > 64 || fixed_base_port < 0 ||
      fixed_base_port > 65535 - brokers) {
    fprintf(stderr, "kafka-mock: bad --brokers, --partitions or --port\n");
    return 2;
  }

  /* librdkafka asserts (aborts) when a mock broker cannot bind: say which port is taken instead. */
  for (int b = 0; fixed_base_port > 0 && b < brokers; b++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    struct sockaddr_in probe = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(fixed_base_port + b))};
    probe.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd < 0 || bind(fd, (struct sockaddr *)&probe, sizeof(probe)) != 0 || listen(fd, 1) != 0) {
      fprintf(stderr, "kafka-mock: port %d is not free: %s\n", fixed_base_port + b, strerror(errno));
      return 1;
    }
    close(fd);
  }

  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* Quiet: the mock's own client handle logs nothing we need. */
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (!rk) {
    fprintf(stderr, "kafka-mock: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (!mcluster) {
    fprintf(stderr, "kafka-mock: could not create the mock cluster (port %d in use?)\n", fixed_base_port);
    rd_kafka_destroy(rk);
    return 1;
  }
  for (int t = 0; t < topic_count; t++) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, topics[t], partitions, brokers < 3 ? brokers : 3);
    /* A restarted mock listens before this loop runs: a client that reconnects at once may have
     * had the topic auto-created already. It exists; that is what was asked. */
    if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) continue;
    if (err) {
      fprintf(stderr, "kafka-mock: topic %s: %s\n", topics[t], rd_kafka_err2str(err));
      rd_kafka_mock_cluster_destroy(mcluster);
      rd_kafka_destroy(rk);
      return 1;
    }
  }

  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
  fflush(stdout);

  /* Run until stdin closes (the parent went away) or a signal asks us to stop. */
  struct pollfd pfd = {.fd = 0, .events = POLLIN};
  char buf[256];
  while (!stop_requested) {
    int n = poll(&pfd, 1, 500);
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      ssize_t r = read(0, buf, sizeof(buf));
      if (r <= 0) break;
    }
  }

  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return 0;
}
