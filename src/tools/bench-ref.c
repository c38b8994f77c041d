/*
 * bench-ref.c - the raw TCP reference: one stream between two processes,
 * sockets tuned like the daemons' (pvfs_net_tune), timed at the receiver
 * from the moment it says "go" to the last byte.  The local-disk
 * reference is the data test itself run on the local file system
 * (bench_fs_local).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "bench.h"

#define REF_CONNECT_MS 10000

static int
ref_accept(int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	int fd;

	if (poll(&p, 1, REF_CONNECT_MS) != 1)
		return -1;
	if ((fd = pvfs_net_accept(lfd)) >= 0)
		pvfs_set_nonblock(fd, 0);
	return fd;
}

static int
ref_connect(const char *host, uint16_t port)
{
	int fd = pvfs_net_connect(host, port, REF_CONNECT_MS);

	if (fd < 0)
		return -1;
	pvfs_set_nonblock(fd, 0);
	pvfs_net_tune(fd);
	return fd;
}

/* Write total bytes in chunks; 0 or -1. */
static int
ref_send(int fd, uint64_t total, size_t chunk)
{
	char *buf = malloc(chunk);
	uint64_t done = 0;
	int rc = 0;

	if (buf == NULL)
		return -1;
	bench_fill(buf, chunk, 7, 0);
	while (done < total && rc == 0) {
		size_t n = total - done < chunk ? (size_t)(total - done) : chunk;

		rc = pvfs_write_all(fd, buf, n);
		done += n;
	}
	free(buf);
	return rc;
}

/* Read to EOF or want bytes; the count read, or -1. */
static int64_t
ref_recv(int fd, uint64_t want, size_t chunk)
{
	char *buf = malloc(chunk);
	uint64_t got = 0;
	ssize_t n = 0;

	if (buf == NULL)
		return -1;
	while (want == 0 || got < want) {
		n = read(fd, buf, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (uint64_t)n;
	}
	free(buf);
	return n < 0 ? -1 : (int64_t)got;
}

static void
ref_child(const char *host, uint16_t port, uint64_t total, size_t chunk)
{
	char go;
	int fd = ref_connect(host, port);

	if (fd < 0 || read(fd, &go, 1) != 1 || ref_send(fd, total, chunk) != 0)
		_exit(1);
	_exit(0);
}

double
bench_ref_tcp(uint64_t total, size_t chunk)
{
	uint16_t port;
	int lfd, fd = -1, st;
	int64_t t0 = 0, got = -1;
	pid_t pid;

	if ((lfd = pvfs_net_listen("127.0.0.1", 0, &port)) < 0)
		return -1;
	if ((pid = fork()) == 0)
		ref_child("127.0.0.1", port, total, chunk);
	if (pid > 0 && (fd = ref_accept(lfd)) >= 0) {
		t0 = pvfs_mono_ns();
		if (pvfs_write_all(fd, "g", 1) == 0)
			got = ref_recv(fd, total, chunk);
		t0 = pvfs_mono_ns() - t0;
		close(fd);
	}
	close(lfd);
	if (pid > 0) {
		if (got < 0)
			kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return got == (int64_t)total ? bench_mbps(total, t0) : -1;
}

/* Receive one stream to EOF, answer one byte so the sender can time the
 * whole transfer, print what arrived. */
int
bench_ref_tcp_sink(const char *addr, FILE *out)
{
	char host[256];
	uint16_t port;
	int lfd, fd;
	int64_t t0, got;

	if (pvfs_net_parse_addr(addr, host, sizeof(host), &port, 0) != 0 ||
	    (lfd = pvfs_net_listen(host, port, &port)) < 0)
		return -1;
	pvfs_set_nonblock(lfd, 0);
	fd = pvfs_net_accept(lfd);
	close(lfd);
	if (fd < 0)
		return -1;
	pvfs_set_nonblock(fd, 0);
	t0 = pvfs_mono_ns();
	got = ref_recv(fd, 0, 1 << 20);
	t0 = pvfs_mono_ns() - t0;
	if (got >= 0)
		pvfs_write_all(fd, "k", 1);
	close(fd);
	if (got < 0)
		return -1;
	fprintf(out, "received %lld bytes: %.1f MB/s\n", (long long)got,
	    bench_mbps((uint64_t)got, t0));
	return 0;
}

double
bench_ref_tcp_send(const char *addr, uint64_t total, size_t chunk)
{
	char host[256], ack;
	uint16_t port;
	int fd, ok;
	int64_t t0;

	if (pvfs_net_parse_addr(addr, host, sizeof(host), &port, 0) != 0 ||
	    (fd = ref_connect(host, port)) < 0)
		return -1;
	t0 = pvfs_mono_ns();
	ok = ref_send(fd, total, chunk) == 0 && shutdown(fd, SHUT_WR) == 0 &&
	    read(fd, &ack, 1) == 1;
	t0 = pvfs_mono_ns() - t0;
	close(fd);
	return ok ? bench_mbps(total, t0) : -1;
}
