/*
 * dconn.c - the daemons' connection layer: what pvfs-mgr and pvfs-iod do
 * alike for every connection (dconn.h).  How a request's body is read and
 * answered is the daemon's, through struct dconn_ops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dconn.h"

static void
dconn_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct dconn *c = w->data;

	c->last_io = ev_now(loop);
	if (w == &c->rio)
		c->srv->ops->readable(c);
	else
		c->srv->ops->writable(c);
}

static void
dconn_watch(struct dconn *c, ev_io *w, int on)
{
	if (on)
		ev_io_start(c->srv->loop, w);
	else
		ev_io_stop(c->srv->loop, w);
}

void
dconn_watch_read(struct dconn *c, int on)
{
	dconn_watch(c, &c->rio, on);
}

void
dconn_watch_write(struct dconn *c, int on)
{
	dconn_watch(c, &c->wio, on);
}

void
dconn_close(struct dconn *c, int err, const char *why)
{
	struct dconn_server *s = c->srv;
	unsigned long long n = (unsigned long long)c->nreq;

	if (err > 0)
		pvfs_log_info("%s: closed: %s: %s (%llu requests)", c->name, why,
		    strerror(err), n);
	else if (err == DCONN_FAULT)
		pvfs_log_info("%s: closed: %s (%llu requests)", c->name, why, n);
	else
		pvfs_log_debug("%s: closed: %s (%llu requests)", c->name, why, n);
	ev_io_stop(s->loop, &c->rio);
	ev_io_stop(s->loop, &c->wio);
	s->ops->release(c);
	TAILQ_REMOVE(&s->conns, c, entry);
	s->count--;
	pvfs_peer_limit_release(c->limit);
	close(c->fd);
	free(c);
}

static void
dconn_new(struct dconn_server *s, int fd, const struct pvfs_peer_id *id,
    struct pvfs_peer *limit)
{
	struct dconn *c;

	if ((c = calloc(1, s->ops->size)) == NULL) {
		pvfs_log_warn("accept: out of memory");
		pvfs_peer_limit_release(limit);
		close(fd);
		return;
	}
	c->fd = fd;
	c->srv = s;
	c->peer = *id;
	c->limit = limit;
	c->last_io = ev_now(s->loop);
	pvfs_peer_id_name(id, c->name, sizeof(c->name));
	ev_io_init(&c->rio, dconn_io_cb, fd, EV_READ);
	ev_io_init(&c->wio, dconn_io_cb, fd, EV_WRITE);
	c->rio.data = c->wio.data = c;
	TAILQ_INSERT_TAIL(&s->conns, c, entry);
	s->count++;
	s->accepted++;
	if (s->ops->open(c) != 0) {
		dconn_close(c, DCONN_FAULT, "out of memory");
		return;
	}
	pvfs_log_debug("%s: connected (%u connections)", c->name, s->count);
}

/* Out of descriptors: stop accepting for a while rather than spin on a
 * listening socket that stays readable.  Logged once until an accept
 * succeeds, not at every retry. */
static void
dconn_accept_pause(struct dconn_server *s)
{
	int i;

	if (!s->starved)
		pvfs_log_warn("accept: %s; pausing %.1fs", strerror(errno),
		    PVFS_ACCEPT_BACKOFF);
	s->starved = 1;
	for (i = 0; i < s->nlis; i++)
		ev_io_stop(s->loop, &s->lis[i].io);
	ev_timer_set(&s->backoff, PVFS_ACCEPT_BACKOFF, 0.);
	ev_timer_start(s->loop, &s->backoff);
}

/* The peer is identified once, here.  One over its limit (peer-limit.c)
 * is closed at once: refusing costs a few system calls, so a flood of
 * them cannot hold up the accepts of others behind it in the backlog. */
static void
dconn_accept_one(struct dconn_server *s, int fd)
{
	struct pvfs_peer_id id;
	struct pvfs_peer *limit = NULL;

	if (pvfs_peer_identify(fd, &id) != 0) {
		/* Gone already: the connection fails on its own. */
		memset(&id, 0, sizeof(id));
	} else if (pvfs_peer_limit_take_id(&id, &limit) != 0) {
		close(fd);
		return;
	}
	dconn_new(s, fd, &id, limit);
}

static void
dconn_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct dconn_server *s = w->data;
	int i, fd;

	for (i = 0; i < DCONN_ACCEPT_BATCH; i++) {
		if ((fd = pvfs_net_accept(w->fd)) != -1) {
			s->starved = 0;
			dconn_accept_one(s, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			dconn_accept_pause(s);
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			pvfs_log_warn("accept: %s", strerror(errno));
		return;
	}
}

static void
dconn_backoff_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct dconn_server *s = w->data;
	int i;

	for (i = 0; i < s->nlis; i++)
		ev_io_start(loop, &s->lis[i].io);
}

/* Close what pvfs_conn_expired says has stalled or idled too long.  A
 * connection waiting on the daemon is the daemon's to finish, not the
 * peer's stall, unless its frame is a slowloris. */
static void
dconn_sweep_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct dconn_server *s = w->data;
	struct dconn *c, *next;
	struct dconn_activity a;
	ev_tstamp now = ev_now(loop);
	const char *why;

	for (c = TAILQ_FIRST(&s->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		memset(&a, 0, sizeof(a));
		s->ops->activity(c, &a);
		why = pvfs_conn_expired(now, a.ours ? now : c->last_io,
		    a.in_frame, c->frame_start, a.at_rest, s->idle_timeout);
		if (why != NULL)
			dconn_close(c, strcmp(why, PVFS_CONN_IDLE) == 0 ? 0 :
			    DCONN_FAULT, why);
	}
}

void
dconn_server_init(struct dconn_server *s, struct ev_loop *loop,
    const struct dconn_ops *ops, double idle_timeout)
{
	memset(s, 0, sizeof(*s));
	s->loop = loop;
	s->ops = ops;
	s->idle_timeout = idle_timeout;
	TAILQ_INIT(&s->conns);
	ev_timer_init(&s->backoff, dconn_backoff_cb, PVFS_ACCEPT_BACKOFF, 0.);
	s->backoff.data = s;
	/* Four sweeps per timeout: a connection lives at most 1.25 times it. */
	if (idle_timeout > 0) {
		ev_timer_init(&s->sweep, dconn_sweep_cb, idle_timeout / 4,
		    idle_timeout / 4);
		s->sweep.data = s;
		ev_timer_start(loop, &s->sweep);
	}
}

void
dconn_server_listen(struct dconn_server *s, int fd)
{
	struct dconn_listener *l;

	if (s->nlis == DCONN_LISTENERS)
		pvfs_fatal("bug: more than %d listeners", DCONN_LISTENERS);
	l = &s->lis[s->nlis++];
	l->fd = fd;
	ev_io_init(&l->io, dconn_accept_cb, fd, EV_READ);
	l->io.data = s;
	ev_io_start(s->loop, &l->io);
}

void
dconn_server_stop(struct dconn_server *s, const char *why)
{
	struct dconn *c;
	int i;

	ev_timer_stop(s->loop, &s->backoff);
	ev_timer_stop(s->loop, &s->sweep);
	for (i = 0; i < s->nlis; i++) {
		ev_io_stop(s->loop, &s->lis[i].io);
		close(s->lis[i].fd);
	}
	s->nlis = 0;
	while ((c = TAILQ_FIRST(&s->conns)) != NULL)
		dconn_close(c, 0, why);
}

int
dconn_hdr_check(const uint8_t *raw, struct pvfs_hdr *h)
{
	int rc = pvfs_hdr_decode(raw, h);

	if (rc != 0 && h->magic != PVFS_PROTO_MAGIC)
		return DCONN_HDR_DROP;
	if (rc == -EMSGSIZE)
		return EMSGSIZE;
	if (rc != 0 || (h->flags & PVFS_HDR_REPLY) || h->status != 0)
		return EPROTO;
	return 0;
}

int
dconn_reply_error(struct pvfs_buf *out, uint16_t op, uint32_t reqid,
    int32_t status)
{
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, op, reqid,
		status, 0, PVFS_HDR_REPLY };

	if (pvfs_buf_reserve(out, PVFS_HDR_LEN) != 0)
		return -1;
	pvfs_hdr_encode(&h, out->data + out->len);
	out->len += PVFS_HDR_LEN;
	return 0;
}
