/*
 * pingpong: the reference TCP round trip that `run` is compared against.
 *
 *   pingpong server [PORT]          listen on 127.0.0.1:PORT (0: any), print
 *                                   the port, echo one connection's bytes
 *   pingpong client HOST PORT N [SIZE] [WARMUP]
 *                                   N round trips of SIZE bytes (default 16)
 *                                   after WARMUP (default N/10), print the
 *                                   median round trip in nanoseconds
 *
 * Both ends use blocking sockets with Nagle's algorithm off; the client
 * times each round trip with clock_gettime(CLOCK_MONOTONIC).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
	perror(what);
	exit(2);
}

static void nodelay(int fd) {
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
		die("setsockopt TCP_NODELAY");
}

static int server(int port) {
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket");
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0)
		die("bind");
	if (listen(ls, 1) < 0)
		die("listen");
	socklen_t len = sizeof a;
	getsockname(ls, (struct sockaddr *)&a, &len);
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	int c = accept(ls, NULL, NULL);
	if (c < 0)
		die("accept");
	nodelay(c);
	char buf[65536];
	for (;;) {
		ssize_t n = read(c, buf, sizeof buf);
		if (n <= 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(c, buf + off, n - off);
			if (w <= 0)
				return 0;
			off += w;
		}
	}
}

static int cmp(const void *a, const void *b) {
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int client(const char *host, int port, long n, long size, long warmup) {
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		fprintf(stderr, "pingpong: bad IPv4 address %s\n", host);
		return 2;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		die("connect");
	nodelay(fd);
	char *msg = calloc(1, size), *buf = malloc(size);
	int64_t *rtt = malloc(sizeof(int64_t) * n);
	if (!msg || !buf || !rtt)
		die("malloc");
	for (long i = 0; i < warmup + n; i++) {
		int64_t t0 = now();
		memcpy(msg, &i, sizeof i < (size_t)size ? sizeof i : (size_t)size);
		if (write(fd, msg, size) != size)
			die("write");
		for (long got = 0; got < size;) {
			ssize_t r = read(fd, buf + got, size - got);
			if (r <= 0)
				die("read");
			got += r;
		}
		int64_t t1 = now();
		if (i >= warmup)
			rtt[i - warmup] = t1 - t0;
	}
	qsort(rtt, n, sizeof *rtt, cmp);
	/* numpy median: the middle value, or the mean of the two middle ones */
	double p50 = n % 2 ? (double)rtt[n / 2] : (rtt[n / 2 - 1] + rtt[n / 2]) / 2.0;
	printf("%.0f\n", p50);
	close(fd);
	return 0;
}

int main(int argc, char **argv) {
	if (argc >= 2 && strcmp(argv[1], "server") == 0)
		return server(argc > 2 ? atoi(argv[2]) : 0);
	if (argc >= 5 && strcmp(argv[1], "client") == 0) {
		long n = atol(argv[4]);
		long size = argc > 5 ? atol(argv[5]) : 16;
		long warmup = argc > 6 ? atol(argv[6]) : n / 10;
		if (n < 1 || size < 1 || size > 65536 || warmup < 0) {
			fprintf(stderr, "pingpong: N >= 1, 1 <= SIZE <= 65536, WARMUP >= 0\n");
			return 2;
		}
		return client(argv[2], atoi(argv[3]), n, size, warmup);
	}
	fprintf(stderr, "usage: pingpong server [PORT] | pingpong client HOST PORT N [SIZE] [WARMUP]\n");
	return 2;
}
