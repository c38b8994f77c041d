/*
 * bench-ref.c - the raw TCP references: one stream between two processes,
 * sockets tuned like the daemons' (pvfs_net_tune), timed at the receiver
 * from the moment it says "go" to the last byte; and the data test's
 * shape in raw TCP, C sender processes (the clients) each with one stream
 * to each of N receiver processes (the iods).  The local-disk reference
 * is the data test itself run on the local file system (bench_fs_local).
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

/* ---- the data test's shape: senders x receivers streams ---- */

/* Poll fds until each has moved its want[] bytes: out 1 sends from buf,
 * 0 reads into it.  0, or -1 on an error, an early EOF or a stall of
 * REF_CONNECT_MS. */
static int
ref_pump(int *fds, uint64_t *want, int n, int out, char *buf, size_t chunk)
{
	struct pollfd p[BENCH_REF_PEERS];
	int idx[BENCH_REF_PEERS], i, k, live;
	ssize_t r;

	for (;;) {
		for (i = 0, live = 0; i < n; i++)
			if (want[i] > 0) {
				p[live] = (struct pollfd){ fds[i],
				    out ? POLLOUT : POLLIN, 0 };
				idx[live++] = i;
			}
		if (live == 0)
			return 0;
		if ((k = poll(p, (nfds_t)live, REF_CONNECT_MS)) <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return -1;
		}
		for (k = 0; k < live; k++) {
			size_t len;

			if (p[k].revents == 0)
				continue;
			i = idx[k];
			len = want[i] < chunk ? (size_t)want[i] : chunk;
			r = out ? send(fds[i], buf, len, MSG_NOSIGNAL) :
			    recv(fds[i], buf, len, 0);
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0)
				return -1;
			want[i] -= (uint64_t)r;
		}
	}
}

/* Accept one stream from each sender on lfd, then read each stream's
 * bytes; exits 0 when all arrived. */
static void
ref_receiver(int lfd, int senders, uint64_t each, size_t chunk)
{
	int fds[BENCH_REF_PEERS], i;
	uint64_t want[BENCH_REF_PEERS];
	char *buf = malloc(chunk);

	for (i = 0; i < senders; i++) {
		if ((fds[i] = ref_accept(lfd)) < 0)
			_exit(1);
		pvfs_set_nonblock(fds[i], 1);
		want[i] = each;
	}
	_exit(buf != NULL && ref_pump(fds, want, senders, 0, buf, chunk) == 0 ?
	    0 : 1);
}

/* Connect to every receiver, say ready, wait for go (EOF on the pipe),
 * then send each stream its bytes. */
static void
ref_sender(const uint16_t *ports, int receivers, uint64_t each,
    size_t chunk, int ready, int go)
{
	int fds[BENCH_REF_PEERS], i;
	uint64_t want[BENCH_REF_PEERS];
	char *buf = malloc(chunk), c;

	for (i = 0; i < receivers; i++) {
		if ((fds[i] = ref_connect("127.0.0.1", ports[i])) < 0)
			_exit(1);
		pvfs_set_nonblock(fds[i], 1);
		want[i] = each;
	}
	if (buf == NULL || write(ready, "r", 1) != 1 || read(go, &c, 1) != 0)
		_exit(1);
	bench_fill(buf, chunk, 7, 0);
	_exit(ref_pump(fds, want, receivers, 1, buf, chunk) == 0 ? 0 : 1);
}

/* Wait for n children; 0 if all exited 0. */
static int
ref_reap(const pid_t *pids, int n)
{
	int i, st, rc = 0;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0) {
			rc = -1;
			continue;
		}
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = -1;
	}
	return rc;
}

/* total bytes from senders processes to receivers processes, each sender
 * with one stream to each receiver carrying total / (senders x
 * receivers) bytes, in writes of at most chunk bytes; timed from "go" to
 * the last receiver's exit.  MB/s, or -1. */
double
bench_ref_tcp_streams(int senders, int receivers, uint64_t total,
    size_t chunk)
{
	pid_t rpid[BENCH_REF_PEERS], spid[BENCH_REF_PEERS];
	uint16_t ports[BENCH_REF_PEERS];
	int lfd[BENCH_REF_PEERS], ready[2], go[2], i, j, ok = 1;
	uint64_t each;
	int64_t t0 = 0;
	char c;

	if (senders < 1 || receivers < 1 || senders > BENCH_REF_PEERS ||
	    receivers > BENCH_REF_PEERS)
		return -1;
	each = total / ((uint64_t)senders * (uint64_t)receivers);
	memset(rpid, 0, sizeof(rpid));
	memset(spid, 0, sizeof(spid));
	if (pipe(ready) != 0)
		return -1;
	if (pipe(go) != 0) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	for (i = 0; i < receivers && ok; i++) {
		if ((lfd[i] = pvfs_net_listen("127.0.0.1", 0, &ports[i])) < 0) {
			ok = 0;
			break;
		}
		pvfs_set_nonblock(lfd[i], 1);
		if ((rpid[i] = fork()) == 0) {
			for (j = 0; j < i; j++)
				close(lfd[j]);
			close(ready[1]);
			close(go[1]);
			ref_receiver(lfd[i], senders, each, chunk);
		}
		ok = rpid[i] > 0;
	}
	for (j = 0; j < i; j++)
		close(lfd[j]);
	for (i = 0; i < senders && ok; i++) {
		if ((spid[i] = fork()) == 0) {
			close(go[1]);
			ref_sender(ports, receivers, each, chunk, ready[1], go[0]);
		}
		ok = spid[i] > 0;
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < senders && ok; i++) {
		struct pollfd p = { ready[0], POLLIN, 0 };

		ok = poll(&p, 1, REF_CONNECT_MS) == 1 && read(ready[0], &c, 1) == 1;
	}
	t0 = pvfs_mono_ns();
	close(go[1]);
	close(ready[0]);
	if (!ok) {
		for (i = 0; i < BENCH_REF_PEERS; i++) {
			if (rpid[i] > 0)
				kill(rpid[i], SIGKILL);
			if (spid[i] > 0)
				kill(spid[i], SIGKILL);
		}
	}
	ok = ref_reap(rpid, receivers) == 0 && ok;
	t0 = pvfs_mono_ns() - t0;
	ok = ref_reap(spid, senders) == 0 && ok;
	return ok ? bench_mbps(each * (uint64_t)senders * (uint64_t)receivers,
	    t0) : -1;
}
