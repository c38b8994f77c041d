/*
 * conn.c - connections to the mgr and the iods: one pool of idle sockets
 * per server, and the synchronous request/reply used for the mgr.
 *
 * Sockets are always non-blocking and CLOEXEC; every wait is a poll()
 * with a deadline.  A connection that saw any protocol or I/O error is
 * closed, never pooled: its stream position is unknown.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define CONN_IDLE_MAX 64      /* idle sockets kept per server */
#define CONN_RECV_INLINE 4096 /* most mgr replies fit: one recv() */
#define CONN_FRESH_MS 200     /* pooled this recently: no liveness poll */

static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t conn_reqid_ctr;

/* Set once before use (the preload shim places and marks our sockets). */
static struct pvfs_socket_hooks conn_hooks;

static void conn_pool_own(struct conn_pool *p, pid_t pid);
static int conn_new(struct conn_pool *p, const char *host, uint16_t port,
    int timeout_ms, struct pvfs_conn **out);

void
pvfs_conn_atfork_prepare(void)
{
	pthread_mutex_lock(&conn_lock);
}

void
pvfs_conn_atfork_parent(void)
{
	pthread_mutex_unlock(&conn_lock);
}

/* The child drops the parent's idle sockets lazily (conn_pool_own). */
void
pvfs_conn_atfork_child(void)
{
	pthread_mutex_unlock(&conn_lock);
}

uint32_t
pvfs_conn_next_reqid(void)
{
	return __atomic_add_fetch(&conn_reqid_ctr, 1, __ATOMIC_RELAXED);
}

void
pvfs_conn_pool_init(struct conn_pool *p, const char *host, uint16_t port)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->host, sizeof(p->host), "%s", host);
	p->port = port;
	p->pid = getpid();
}

/* A restarted daemon may listen elsewhere: point the pool at the new
 * address and drop the idle sockets to the old one.  1 if it changed. */
int
pvfs_conn_pool_set_addr(struct conn_pool *p, const char *host, uint16_t port)
{
	struct pvfs_conn *c, *idle = NULL;
	int changed;

	pthread_mutex_lock(&conn_lock);
	/* In a forked child, drop the parent's idle sockets first: forgetting
	 * them would leak their descriptors in the child. */
	conn_pool_own(p, getpid());
	changed = p->port != port || strcmp(p->host, host) != 0;
	if (changed) {
		snprintf(p->host, sizeof(p->host), "%s", host);
		p->port = port;
		idle = p->idle;
		p->idle = NULL;
		p->nidle = 0;
	}
	pthread_mutex_unlock(&conn_lock);
	while ((c = idle) != NULL) {
		idle = c->next;
		pvfs_conn_close(c);
	}
	return changed;
}

/* Idle sockets inherited over fork() belong to the parent: closing our
 * copy sends nothing, the parent's stays open.  conn_lock is held. */
static void
conn_pool_own(struct conn_pool *p, pid_t pid)
{
	struct pvfs_conn *c;

	if (p->pid == pid)
		return;
	while ((c = p->idle) != NULL) {
		p->idle = c->next;
		pvfs_conn_close(c);
	}
	p->nidle = 0;
	p->pid = pid;
}

static struct pvfs_conn *
conn_pop(struct conn_pool *p, char *host, uint16_t *port)
{
	struct pvfs_conn *c;

	pthread_mutex_lock(&conn_lock);
	conn_pool_own(p, getpid());
	if ((c = p->idle) != NULL) {
		p->idle = c->next;
		p->nidle--;
	}
	memcpy(host, p->host, sizeof(p->host));
	*port = p->port;
	pthread_mutex_unlock(&conn_lock);
	return c;
}

void
pvfs_set_socket_hooks(const struct pvfs_socket_hooks *h)
{
	conn_hooks = *h;
}

/* A new socket to the hook, which may move it (keeping CLOEXEC). */
static int
conn_place(int fd)
{
	return conn_hooks.open != NULL ? conn_hooks.open(fd) : fd;
}

static void
conn_unplace(int fd)
{
	if (conn_hooks.close != NULL)
		conn_hooks.close(fd);
}

/* No request is outstanding on an idle socket, so anything readable means
 * the peer closed it (or broke the protocol). */
static int
conn_alive(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

/* The Unix socket when the daemon has one here and it answers, else TCP
 * (non-blocking, CLOEXEC), authenticated when the pool asks for it. */
static int
conn_connect(const struct conn_pool *p, const char *host, uint16_t port,
    int timeout_ms)
{
	int fd, ufd, saved;

	if (p->sock[0] != '\0' &&
	    (fd = pvfs_unix_connect(p->sock, timeout_ms)) != -1)
		return fd;
	/* pvfs_net_connect gives a non-blocking CLOEXEC socket, tuned. */
	if ((fd = pvfs_net_connect(host, port, timeout_ms)) == -1)
		return -1;
	/* A local mgr listens on its socket before TCP: if TCP answers, a
	 * socket that did not a moment ago (a restart) answers now, and it
	 * carries our identity where TCP may be anonymous. */
	if (p->sock[0] != '\0' &&
	    (ufd = pvfs_unix_connect(p->sock, timeout_ms)) != -1) {
		close(fd);
		return ufd;
	}
	if (p->auth != 0 && pvfs_auth_handshake(p, fd, timeout_ms) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* A new connection to a mgr: is it the file system this pool has been
 * talking to?  Anything else (another file system's mgr, or not a mgr at
 * all, on the address a restarted mgr left) is refused as if nobody
 * listened there, which makes the caller re-read the pvfstab. */
static int
conn_check_fs(struct conn_pool *p, int fd, int timeout_ms)
{
	struct pvfs_none req = { 0 };
	struct pvfs_mgr_ping_rep rep;
	uint64_t want = 0;

	if (pvfs_conn_call_fd(fd, PVFS_MGR_PING, &req, &rep, timeout_ms) != 0)
		return -1;
	if (rep.fsid != 0 && __atomic_compare_exchange_n(&p->fsid, &want,
	    rep.fsid, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	if (rep.fsid == 0 || rep.fsid != want) {
		errno = ECONNREFUSED;
		return -1;
	}
	return 0;
}

int
pvfs_conn_acquire(struct conn_pool *p, int timeout_ms, struct pvfs_conn **out)
{
	char host[PVFS_HOST_MAX + 1];
	struct pvfs_conn *c;
	uint16_t port;
	uint64_t who = p->ident ? pvfs_auth_who() : 0;

	while ((c = conn_pop(p, host, &port)) != NULL) {
		/* Made for another identity (setuid since): the mgr would act
		 * for that one.  A socket pooled a moment ago skips the poll
		 * (a system call per request): if its peer left meanwhile, the
		 * exchange fails before any reply and is sent again (stale). */
		if (c->who == who && (pvfs_mono_ms() - c->idle_since <
		    CONN_FRESH_MS || conn_alive(c->fd))) {
			c->reused = 1;
			*out = c;
			return 0;
		}
		pvfs_conn_close(c);
	}
	return conn_new(p, host, port, timeout_ms, out);
}

/* A connection of the caller's own, never from the pool (lease.c). */
int
pvfs_conn_new(struct conn_pool *p, int timeout_ms, struct pvfs_conn **out)
{
	char host[PVFS_HOST_MAX + 1];
	uint16_t port;

	pthread_mutex_lock(&conn_lock);
	memcpy(host, p->host, sizeof(p->host));
	port = p->port;
	pthread_mutex_unlock(&conn_lock);
	return conn_new(p, host, port, timeout_ms, out);
}

static int
conn_new(struct conn_pool *p, const char *host, uint16_t port, int timeout_ms,
    struct pvfs_conn **out)
{
	struct pvfs_conn *c;
	uint64_t who = p->ident ? pvfs_auth_who() : 0;
	int fd;

	if ((fd = conn_connect(p, host, port, timeout_ms)) == -1)
		return -1;
	if (p->pin_fs && conn_check_fs(p, fd, timeout_ms) != 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	fd = conn_place(fd);
	if ((c = calloc(1, sizeof(*c))) == NULL) {
		conn_unplace(fd);
		close(fd);
		return -1;
	}
	c->fd = fd;
	c->who = who;
	*out = c;
	return 0;
}

void
pvfs_conn_release(struct conn_pool *p, struct pvfs_conn *c)
{
	c->idle_since = pvfs_mono_ms();
	pthread_mutex_lock(&conn_lock);
	if (p->pid == getpid() && p->nidle < CONN_IDLE_MAX) {
		c->next = p->idle;
		p->idle = c;
		p->nidle++;
		c = NULL;
	}
	pthread_mutex_unlock(&conn_lock);
	if (c != NULL)
		pvfs_conn_close(c);
}

void
pvfs_conn_close(struct pvfs_conn *c)
{
	if (c == NULL)
		return;
	conn_unplace(c->fd);
	close(c->fd);
	free(c);
}

int
pvfs_conn_wait(int fd, short events, int64_t deadline_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline_ms - pvfs_mono_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			errno = ETIMEDOUT;
		if (rc == 0 || errno != EINTR)
			return -1;
	}
}

int
pvfs_conn_send_all(int fd, const uint8_t *p, size_t len, int64_t deadline)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == -1 && errno == EINTR) {
			continue;
		} else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (pvfs_conn_wait(fd, POLLOUT, deadline) != 0)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Wait, then read what is there (at most len).  EOF is EPIPE. */
static ssize_t
conn_recv_some(int fd, uint8_t *p, size_t len, int64_t deadline)
{
	ssize_t n;

	for (;;) {
		if (pvfs_conn_wait(fd, POLLIN, deadline) != 0)
			return -1;
		n = recv(fd, p, len, 0);
		if (n > 0)
			return n;
		if (n == 0) {
			errno = EPIPE;
			return -1;
		}
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
	}
}

int
pvfs_conn_recv_all(int fd, uint8_t *p, size_t len, int64_t deadline)
{
	ssize_t n;

	while (len > 0) {
		if ((n = conn_recv_some(fd, p, len, deadline)) < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One reply frame: header and body into *body (inline when it fits,
 * else malloc'd).  Nothing follows a reply on a synchronous connection,
 * so reading ahead into the inline buffer is safe. */
static int
conn_recv_frame(int fd, struct pvfs_hdr *h, uint8_t *inl, uint8_t **body,
    int64_t deadline, int *got_any)
{
	size_t got = 0, want;
	ssize_t n;

	while (got < PVFS_HDR_LEN) {
		if ((n = conn_recv_some(fd, inl + got, CONN_RECV_INLINE - got,
		    deadline)) < 0)
			return -1;
		got += (size_t)n;
		*got_any = 1;
	}
	if (pvfs_hdr_decode(inl, h) != 0) {
		errno = EPROTO;
		return -1;
	}
	want = PVFS_HDR_LEN + h->body_len;
	if (got > want) {
		errno = EPROTO;
		return -1;
	}
	*body = inl + PVFS_HDR_LEN;
	if (want <= CONN_RECV_INLINE)
		return pvfs_conn_recv_all(fd, inl + got, want - got, deadline);
	if ((*body = malloc(h->body_len)) == NULL)
		return -1;
	memcpy(*body, inl + PVFS_HDR_LEN, got - PVFS_HDR_LEN);
	return pvfs_conn_recv_all(fd, *body + (got - PVFS_HDR_LEN), want - got,
	    deadline);
}

/* The body of this thread's last PVFS_ST_LINK reply. */
static __thread struct pvfs_link_rep conn_link;

const struct pvfs_link_rep *
pvfs_conn_link(void)
{
	return &conn_link;
}

int
pvfs_conn_reply(const struct pvfs_hdr *h, uint16_t op, uint32_t reqid,
    const uint8_t *body, void *rep)
{
	if (!(h->flags & PVFS_HDR_REPLY) || h->op != op || h->reqid != reqid) {
		errno = EPROTO;
		return -1;
	}
	if (h->status == PVFS_ST_LINK) {
		/* Not an error: a link for the resolve loop to follow. */
		if (pvfs_link_decode(body, h->body_len, &conn_link) != 0) {
			errno = EPROTO;
			return -1;
		}
		errno = PVFS_ST_LINK;
		return 1;
	}
	if (h->status != 0) {
		errno = h->status;
		return h->body_len == 0 ? 1 : -1;
	}
	memset(rep, 0, pvfs_msg_size(op, 1));
	if (pvfs_msg_decode(op, 1, body, h->body_len, rep) != 0) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int
conn_exchange(struct pvfs_conn *c, const struct pvfs_buf *out, uint16_t op,
    uint32_t reqid, void *rep, int timeout_ms, int *got_any)
{
	uint8_t inl[CONN_RECV_INLINE], *body = NULL;
	int64_t deadline = pvfs_mono_ms() + timeout_ms;
	struct pvfs_hdr h;
	int rc = -1;

	if (pvfs_conn_send_all(c->fd, out->data, out->len, deadline) == 0 &&
	    conn_recv_frame(c->fd, &h, inl, &body, deadline, got_any) == 0)
		rc = pvfs_conn_reply(&h, op, reqid, body, rep);
	if (body != NULL && body != inl + PVFS_HDR_LEN) {
		int saved = errno;

		free(body);
		errno = saved;
	}
	return rc;
}

/* Is a connection with no request outstanding still open? */
int
pvfs_conn_idle_alive(int fd)
{
	return conn_alive(fd);
}

int
pvfs_conn_call_fd(int fd, uint16_t op, const void *req, void *rep, int timeout_ms)
{
	return pvfs_conn_call(fd, op, req, rep, timeout_ms) == 0 ? 0 : -1;
}

int
pvfs_conn_call(int fd, uint16_t op, const void *req, void *rep, int timeout_ms)
{
	struct pvfs_conn c = { .fd = fd };
	struct pvfs_buf out;
	uint32_t reqid = pvfs_conn_next_reqid();
	int rc, got_any = 0, saved;

	pvfs_buf_init(&out);
	if ((rc = pvfs_frame_encode(&out, op, reqid, 0, 0, req)) != 0) {
		pvfs_buf_free(&out);
		errno = rc == -ENOMEM ? ENOMEM : EINVAL;
		return -1;
	}
	rc = conn_exchange(&c, &out, op, reqid, rep, timeout_ms, &got_any);
	saved = errno;
	pvfs_buf_free(&out);
	errno = saved;
	return rc;
}

/* One attempt.  *stale is set when a pooled connection turned out dead
 * before any reply byte came back: the request can be sent again. */
static int
conn_rpc_once(struct client_fs *fs, struct pvfs_buf *out, uint16_t op,
    uint32_t reqid, void *rep, int *stale)
{
	struct pvfs_conn *c;
	int got_any = 0, rc;

	*stale = 0;
	if (pvfs_conn_acquire(&fs->mgr, fs->timeout_ms, &c) != 0 &&
	    (errno != ECONNREFUSED || pvfs_client_fs_reload_mgr(fs) != 1 ||
	    pvfs_conn_acquire(&fs->mgr, fs->timeout_ms, &c) != 0))
		return -1;
	rc = conn_exchange(c, out, op, reqid, rep, fs->timeout_ms, &got_any);
	if (rc >= 0) {
		int saved = errno;

		pvfs_conn_release(&fs->mgr, c);
		errno = saved;
		return rc == 0 ? 0 : -1;
	}
	*stale = c->reused && !got_any &&
	    (errno == EPIPE || errno == ECONNRESET);
	if (errno == EPIPE || errno == ECONNRESET)
		errno = EIO;
	pvfs_conn_close(c);
	return -1;
}

int
pvfs_conn_rpc(struct client_fs *fs, uint16_t op, const void *req, void *rep)
{
	struct pvfs_buf out;
	uint32_t reqid = pvfs_conn_next_reqid();
	int rc, stale, saved;

	pvfs_lease_check(fs);
	pvfs_buf_init(&out);
	if ((rc = pvfs_frame_encode(&out, op, reqid, 0, 0, req)) != 0) {
		pvfs_buf_free(&out);
		errno = rc == -ENOMEM ? ENOMEM : ENAMETOOLONG;
		return -1;
	}
	rc = conn_rpc_once(fs, &out, op, reqid, rep, &stale);
	if (rc != 0 && stale)
		rc = conn_rpc_once(fs, &out, op, reqid, rep, &stale);
	saved = errno;
	pvfs_buf_free(&out);
	errno = saved;
	return rc;
}
