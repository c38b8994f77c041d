/* net.c - TCP sockets for daemons and clients. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define PVFS_SOCKBUF (4 << 20)

int
pvfs_set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1)
		return -1;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, fl);
}

/* "host", "host:port", "[v6addr]" or "[v6addr]:port". */
int
pvfs_net_parse_addr(const char *s, char *host, size_t hostlen, uint16_t *port,
    uint16_t default_port)
{
	const char *hs = s, *he, *colon;
	char *end;
	long p = default_port;

	if (s[0] == '[') {
		hs = s + 1;
		if ((he = strchr(hs, ']')) == NULL || (he[1] != '\0' && he[1] != ':'))
			return -1;
		colon = he[1] == ':' ? he + 1 : NULL;
	} else {
		colon = strrchr(s, ':');
		he = colon ? colon : s + strlen(s);
	}
	if (he == hs || (size_t)(he - hs) >= hostlen)
		return -1;
	if (colon != NULL) {
		errno = 0;
		p = strtol(colon + 1, &end, 10);
		if (colon[1] == '\0' || *end != '\0' || errno || p < 0 || p > 65535)
			return -1;
	}
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* Large buffers let one stream fill a fast link; NODELAY keeps small
 * metadata replies from waiting on Nagle. */
void
pvfs_net_tune(int fd)
{
	int one = 1, sz = PVFS_SOCKBUF;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static struct addrinfo *
net_resolve(const char *host, uint16_t port, int passive)
{
	struct addrinfo hints, *res = NULL;
	char service[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = passive ? AI_PASSIVE : 0;
	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : EHOSTUNREACH;
		return NULL;
	}
	return res;
}

static uint16_t
net_bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Try each address of host:port in turn: a non-blocking CLOEXEC socket,
 * then setup (bind or connect).  The first socket set up, or -1/errno. */
static int
net_try_addrs(const char *host, uint16_t port, int passive,
    int (*setup)(int, const struct addrinfo *, void *), void *arg)
{
	struct addrinfo *res = net_resolve(host, port, passive), *ai;
	int fd = -1, err = res ? EADDRNOTAVAIL : errno;

	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd != -1 && setup(fd, ai, arg) == 0)
			break;
		err = errno;
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	if (res != NULL)
		freeaddrinfo(res);
	if (fd == -1)
		errno = err;
	return fd;
}

static int
net_bind(int fd, const struct addrinfo *ai, void *arg)
{
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0)
		return -1;
	return listen(fd, 1024);
}

int
pvfs_net_listen(const char *host, uint16_t port, uint16_t *bound)
{
	int fd = net_try_addrs(host, port, 1, net_bind, NULL);

	if (fd != -1 && bound != NULL)
		*bound = net_bound_port(fd);
	return fd;
}

int
pvfs_net_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd != -1)
		pvfs_net_tune(fd);
	return fd;
}

/* Wait for a non-blocking connect to finish within timeout_ms. */
static int
net_connect_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int rc, err = 0;

	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc == -1 && errno == EINTR);
	if (rc == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (rc == -1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return -1;
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

static int
net_connect_one(int fd, const struct addrinfo *ai, void *arg)
{
	pvfs_net_tune(fd);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	return net_connect_wait(fd, *(const int *)arg);
}

int
pvfs_net_connect(const char *host, uint16_t port, int timeout_ms)
{
	return net_try_addrs(host, port, 0, net_connect_one, &timeout_ms);
}
