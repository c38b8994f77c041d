/*
 * net-unix.c - Unix domain sockets: the daemons' second listener, for
 * clients on their host.  The kernel tells the server who the peer is
 * (SO_PEERCRED), which TCP cannot, and the TCP stack is skipped.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

#define UNIX_PROBE_MS 1000 /* how long a live daemon may take to accept */

static int
unix_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (path[0] == '\0' || strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

/* A socket file nobody accepts on is a dead daemon's: remove it.  One a
 * live daemon serves must not be taken over, even when its backlog is
 * full (the probe times out). */
static int
unix_clear_stale(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		errno = EEXIST;
		return -1;
	}
	if ((fd = pvfs_unix_connect(path, UNIX_PROBE_MS)) != -1 ||
	    errno == ETIMEDOUT) {
		if (fd != -1)
			close(fd);
		errno = EADDRINUSE;
		return -1;
	}
	if (errno != ECONNREFUSED)
		return -1;
	return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

int
pvfs_unix_listen(const char *path)
{
	struct sockaddr_un sun;
	mode_t mask;
	int fd, rc, err;

	if (unix_addr(path, &sun) != 0 || unix_clear_stale(path) != 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	/* Every local user may connect: the mgr learns who from the kernel.
	 * The mode comes from bind itself: a chmod(path) after it would
	 * follow whatever another user put at path in between. */
	mask = umask(0111);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(mask);
	if (rc != 0)
		goto fail;
	if (listen(fd, 1024) != 0) {
		err = errno;
		unlink(path);
		errno = err;
		goto fail;
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

/* A Unix connect either completes or fails at once, except on a full
 * backlog: there the send timeout bounds the wait. */
int
pvfs_unix_connect(const char *path, int timeout_ms)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	struct sockaddr_un sun;
	int fd, rc, err;

	if (unix_addr(path, &sun) != 0)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	do
		rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	while (rc == -1 && errno == EINTR);
	if (rc == 0 && pvfs_set_nonblock(fd, 1) == 0)
		return fd;
	err = errno == EAGAIN || errno == EINPROGRESS ? ETIMEDOUT : errno;
	close(fd);
	errno = err;
	return -1;
}

int
pvfs_unix_peer_cred(int fd, struct pvfs_cred *cr, int32_t *pid)
{
	struct ucred uc;
	gid_t groups[PVFS_MAX_GROUPS], *big = NULL;
	socklen_t len = sizeof(uc);
	uint32_t i, n;

	memset(cr, 0, sizeof(*cr));
	*pid = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return -1;
	*pid = (int32_t)uc.pid;
	cr->uid = uc.uid;
	cr->gid = uc.gid;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) {
		/* ERANGE: more groups than we keep; len says how many. */
		if (errno != ERANGE || (big = malloc(len)) == NULL ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, big, &len) != 0) {
			free(big);
			return -1;
		}
		memcpy(groups, big, sizeof(groups));
		len = len < sizeof(groups) ? len : sizeof(groups);
		free(big);
	}
	n = (uint32_t)(len / sizeof(gid_t));
	for (i = 0; i < n && i < PVFS_MAX_GROUPS; i++)
		cr->groups[i] = groups[i];
	cr->ngroups = i;
	return 0;
}

/* Binding an address (port 0) succeeds only where it is configured. */
int
pvfs_addr_is_local(const char *host)
{
	struct addrinfo hints, *res = NULL;
	int fd, local = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_DGRAM;
	if (getaddrinfo(host, "0", &hints, &res) != 0 || res == NULL)
		return 0;
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd != -1) {
		local = bind(fd, res->ai_addr, res->ai_addrlen) == 0;
		close(fd);
	}
	freeaddrinfo(res);
	return local;
}
