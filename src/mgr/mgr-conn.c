/*
 * mgr-conn.c - client connections: accept, the per-connection state
 * machine, replies held until the journal commits, back-pressure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mgr.h"

#define CONN_IN_MIN (16u * 1024)     /* input buffer; grows for big bodies */
#define CONN_OUT_MAX (4u << 20)      /* stop reading above this much output */
#define CONN_OUT_KEEP (1u << 20)     /* free an idle output buffer above this */
#define CONN_BATCH 128               /* requests per wake-up, for fairness */
#define CONN_ACCEPT_BATCH 64

static TAILQ_HEAD(, mgr_conn) conn_all = TAILQ_HEAD_INITIALIZER(conn_all);
static TAILQ_HEAD(, mgr_conn) conn_held = TAILQ_HEAD_INITIALIZER(conn_held);
static TAILQ_HEAD(, mgr_conn) conn_ready = TAILQ_HEAD_INITIALIZER(conn_ready);
static unsigned conn_count;
static int conn_lfd = -1;
static ev_io conn_accept_io;
static int conn_ufd = -1;          /* the Unix socket listener, if any */
static ev_io conn_uaccept_io;
static ev_timer conn_backoff;
static int conn_starved;           /* accept paused since the last success */
static ev_idle conn_idle;
static ev_timer conn_idle_sweep;

static void mgr_conn_drive(struct mgr_conn *c);

static size_t
mgr_conn_unsent(const struct mgr_conn *c)
{
	return c->out.len - c->out.off;
}

/* The one place a connection ends. */
static void
mgr_conn_close(struct mgr_conn *c, int error, const char *why)
{
	if (error)
		log_info("%s: closing after %llu requests: %s", c->peer,
		    (unsigned long long)c->nreq, why);
	else
		log_debug("%s: closing after %llu requests: %s", c->peer,
		    (unsigned long long)c->nreq, why);
	ev_io_stop(mgr.loop, &c->rio);
	ev_io_stop(mgr.loop, &c->wio);
	if (c->held)
		TAILQ_REMOVE(&conn_held, c, held_entry);
	if (c->ready)
		TAILQ_REMOVE(&conn_ready, c, ready_entry);
	TAILQ_REMOVE(&conn_all, c, entry);
	pvfs_peer_limit_release(c->limit);
	close(c->fd);
	free(c->in);
	pvfs_buf_free(&c->out);
	free(c);
	conn_count--;
}

/* Parse c's buffered input from the idle watcher, i.e. in this loop
 * iteration but outside the commit (prepare) phase. */
static void
mgr_conn_schedule(struct mgr_conn *c)
{
	if (c->ready)
		return;
	c->ready = 1;
	TAILQ_INSERT_TAIL(&conn_ready, c, ready_entry);
	ev_idle_start(mgr.loop, &conn_idle);
}

static void
mgr_conn_idle_cb(struct ev_loop *loop, ev_idle *w, int revents)
{
	TAILQ_HEAD(, mgr_conn) now = TAILQ_HEAD_INITIALIZER(now);
	struct mgr_conn *c;

	TAILQ_CONCAT(&now, &conn_ready, ready_entry);
	ev_idle_stop(loop, w);
	while ((c = TAILQ_FIRST(&now)) != NULL) {
		TAILQ_REMOVE(&now, c, ready_entry);
		c->ready = 0;
		mgr_conn_drive(c);
	}
}

/* Slide unsent output to the front once the sent part dominates. */
static void
mgr_conn_out_compact(struct mgr_conn *c)
{
	struct pvfs_buf *b = &c->out;

	if (b->off == b->len) {
		b->off = b->len = c->out_ok = 0;
		if (b->cap > CONN_OUT_KEEP)
			pvfs_buf_free(b);
		return;
	}
	if (b->off < b->cap / 2)
		return;
	memmove(b->data, b->data + b->off, b->len - b->off);
	b->len -= b->off;
	c->out_ok -= b->off;
	b->off = 0;
}

/* Send what is durable; EV_WRITE only while some of it is left.  -1 if
 * the connection was closed. */
static int
mgr_conn_send(struct mgr_conn *c)
{
	ssize_t w;

	while (c->out.off < c->out_ok) {
		w = write(c->fd, c->out.data + c->out.off, c->out_ok - c->out.off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w == -1) {
			mgr_conn_close(c, errno != EPIPE && errno != ECONNRESET,
			    strerror(errno));
			return -1;
		}
		c->out.off += (size_t)w;
		/* Replies released by a commit count as activity too. */
		c->last_io = ev_now(mgr.loop);
	}
	mgr_conn_out_compact(c);
	if (c->state == MGR_CONN_DRAIN && c->out.len == 0) {
		mgr_conn_close(c, c->why_error, c->why);
		return -1;
	}
	if (c->out.off < c->out_ok)
		ev_io_start(mgr.loop, &c->wio);
	else
		ev_io_stop(mgr.loop, &c->wio);
	return 0;
}

static void
mgr_conn_reply_raw(struct mgr_conn *c, uint16_t op, uint32_t reqid, int status)
{
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, op, reqid,
		status, 0, PVFS_HDR_REPLY };

	if (pvfs_buf_reserve(&c->out, PVFS_HDR_LEN) != 0)
		fatal("out of memory (reply)");
	pvfs_hdr_encode(&h, c->out.data + c->out.len);
	c->out.len += PVFS_HDR_LEN;
}

/* Error replies have an empty body.  No reply leaves before the records
 * pending now are durable, whatever the request was. */
void
mgr_conn_reply(struct mgr_conn *c, uint16_t op, uint32_t reqid, int status,
    const void *rep)
{
	int rc;

	if (status == 0 &&
	    (rc = pvfs_frame_encode(&c->out, op, reqid, 1, 0, rep)) != 0) {
		log_warn("%s: cannot encode %s reply: %s", c->peer,
		    pvfs_op_name(op), strerror(-rc));
		status = EIO;
	}
	if (status != 0)
		mgr_conn_reply_raw(c, op, reqid, status);
	if (!mgr_journal_pending()) {
		c->out_ok = c->out.len;
		return;
	}
	if (!c->held) {
		c->held = 1;
		TAILQ_INSERT_TAIL(&conn_held, c, held_entry);
	}
}

void
mgr_conn_release_all(void)
{
	TAILQ_HEAD(, mgr_conn) now = TAILQ_HEAD_INITIALIZER(now);
	struct mgr_conn *c;

	TAILQ_CONCAT(&now, &conn_held, held_entry);
	while ((c = TAILQ_FIRST(&now)) != NULL) {
		TAILQ_REMOVE(&now, c, held_entry);
		c->held = 0;
		c->out_ok = c->out.len;
		if (mgr_conn_send(c) == 0 && c->state == MGR_CONN_FULL &&
		    mgr_conn_unsent(c) <= CONN_OUT_MAX / 2)
			mgr_conn_schedule(c);
	}
}

/* A frame we cannot follow: answer it if we know its request id, then
 * close once the answer is out. */
static void
mgr_conn_fail(struct mgr_conn *c, int status, const char *why)
{
	if (status != 0)
		mgr_conn_reply(c, c->hdr.op, c->hdr.reqid, status, NULL);
	c->why = why;
	c->why_error = 1;
	c->state = MGR_CONN_DRAIN;
}

/* Room for the whole frame at in[in_off]: bodies are parsed in place. */
static void
mgr_conn_in_make_room(struct mgr_conn *c, size_t need)
{
	if (c->in_cap - c->in_off >= need)
		return;
	memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
	c->in_len -= c->in_off;
	c->in_off = 0;
	if (c->in_cap >= need)
		return;
	if ((c->in = realloc(c->in, need)) == NULL)
		fatal("out of memory (%zu byte frame)", need);
	c->in_cap = need;
}

static int
mgr_conn_parse_hdr(struct mgr_conn *c)
{
	int rc = pvfs_hdr_decode(c->in + c->in_off, &c->hdr);

	if (rc == -EPROTO && c->hdr.magic != PVFS_PROTO_MAGIC) {
		mgr_conn_close(c, 1, "bad magic");
		return -1;
	}
	if (rc == -EMSGSIZE) {
		mgr_conn_fail(c, EMSGSIZE, "frame body too large");
		return 0;
	}
	if (rc != 0 || (c->hdr.flags & PVFS_HDR_REPLY) || c->hdr.status != 0) {
		mgr_conn_fail(c, EPROTO, "bad frame header");
		return 0;
	}
	mgr_conn_in_make_room(c, PVFS_HDR_LEN + (size_t)c->hdr.body_len);
	c->state = MGR_CONN_BODY;
	return 0;
}

static void
mgr_conn_handle(struct mgr_conn *c)
{
	const uint8_t *body = c->in + c->in_off + PVFS_HDR_LEN;
	int rc;

	c->nreq++;
	c->frame_start = 0;
	rc = mgr_op_dispatch(c, &c->hdr, body);
	c->in_off += PVFS_HDR_LEN + (size_t)c->hdr.body_len;
	if (c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	if (rc != 0) {
		mgr_conn_fail(c, 0, "malformed request body");
		return;
	}
	c->state = mgr_conn_unsent(c) > CONN_OUT_MAX ? MGR_CONN_FULL : MGR_CONN_HDR;
}

/* Parse and handle whatever whole frames are buffered, then send. */
static void
mgr_conn_drive(struct mgr_conn *c)
{
	size_t avail;
	int n = 0;

	for (;;) {
		avail = c->in_len - c->in_off;
		switch (c->state) {
		case MGR_CONN_HDR:
			if (avail < PVFS_HDR_LEN)
				goto want_input;
			if (n == CONN_BATCH) {
				mgr_conn_schedule(c);
				goto send;
			}
			if (mgr_conn_parse_hdr(c) != 0)
				return;
			break;
		case MGR_CONN_BODY:
			if (avail < PVFS_HDR_LEN + (size_t)c->hdr.body_len)
				goto want_input;
			mgr_conn_handle(c);
			n++;
			break;
		case MGR_CONN_FULL:
			if (mgr_conn_unsent(c) > CONN_OUT_MAX / 2) {
				ev_io_stop(mgr.loop, &c->rio);
				goto send;
			}
			c->state = MGR_CONN_HDR;
			break;
		case MGR_CONN_DRAIN:
			ev_io_stop(mgr.loop, &c->rio);
			goto send;
		}
	}
want_input:
	if (avail == 0)
		c->frame_start = 0;
	else if (c->frame_start == 0)
		c->frame_start = ev_now(mgr.loop);
	if (c->eof) {
		/* Answer what was asked before the peer's EOF, then close. */
		c->why = avail > 0 ? "peer closed mid-frame" : "peer closed";
		c->why_error = avail > 0;
		c->state = MGR_CONN_DRAIN;
		ev_io_stop(mgr.loop, &c->rio);
	} else {
		ev_io_start(mgr.loop, &c->rio);
	}
send:
	mgr_conn_send(c);
}

/* Read what the socket has.  -1 if the connection was closed. */
static int
mgr_conn_fill(struct mgr_conn *c)
{
	ssize_t r;

	if (c->in_off == c->in_len && c->in_cap > CONN_IN_MIN) {
		free(c->in);
		if ((c->in = malloc(CONN_IN_MIN)) == NULL)
			fatal("out of memory (input buffer)");
		c->in_cap = CONN_IN_MIN;
		c->in_off = c->in_len = 0;
	}
	if (c->in_cap - c->in_len < PVFS_HDR_LEN)
		mgr_conn_in_make_room(c, c->in_cap);
	if (c->in_len == c->in_cap)
		return 0; /* a full buffer of whole frames still to parse */
	do
		r = read(c->fd, c->in + c->in_len, c->in_cap - c->in_len);
	while (r == -1 && errno == EINTR);
	if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (r == 0) {
		c->eof = 1;
		return 0;
	}
	if (r == -1) {
		mgr_conn_close(c, errno != ECONNRESET, strerror(errno));
		return -1;
	}
	c->in_len += (size_t)r;
	return 0;
}

static void
mgr_conn_read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mgr_conn *c = w->data;

	c->last_io = ev_now(loop);
	if (mgr_conn_fill(c) == 0)
		mgr_conn_drive(c);
}

static void
mgr_conn_write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mgr_conn *c = w->data;

	c->last_io = ev_now(loop);
	if (mgr_conn_send(c) != 0)
		return;
	if (c->state == MGR_CONN_FULL && mgr_conn_unsent(c) <= CONN_OUT_MAX / 2)
		mgr_conn_drive(c);
}

static void
mgr_conn_peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	memset(&ss, 0, sizeof(ss));

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    ss.ss_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		port = ntohs(sin6->sin6_port);
	}
	snprintf(buf, len, "%s:%u", host, port);
}

static void
mgr_conn_new(int fd, int is_unix, struct pvfs_peer *limit)
{
	struct mgr_conn *c = calloc(1, sizeof(*c));

	if (c == NULL || (c->in = malloc(CONN_IN_MIN)) == NULL) {
		log_warn("out of memory for a connection");
		pvfs_peer_limit_release(limit);
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->limit = limit;
	c->in_cap = CONN_IN_MIN;
	c->state = MGR_CONN_HDR;
	c->last_io = ev_now(mgr.loop);
	pvfs_buf_init(&c->out);
	mgr_conn_peer_name(fd, c->peer, sizeof(c->peer));
	mgr_auth_accept(c, is_unix);
	ev_io_init(&c->rio, mgr_conn_read_cb, fd, EV_READ);
	ev_io_init(&c->wio, mgr_conn_write_cb, fd, EV_WRITE);
	c->rio.data = c->wio.data = c;
	ev_io_start(mgr.loop, &c->rio);
	TAILQ_INSERT_TAIL(&conn_all, c, entry);
	conn_count++;
	log_debug("%s: connected (%u connections)", c->peer, conn_count);
}

/* A peer over its limit (peer-limit.c) is closed at once: refusing
 * costs a few system calls, so a flood of them cannot hold up the
 * accepts of others behind it in the backlog. */
static void
mgr_conn_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pvfs_peer *limit;
	int i, fd;

	for (i = 0; i < CONN_ACCEPT_BATCH; i++) {
		if ((fd = pvfs_net_accept(w->fd)) != -1) {
			conn_starved = 0;
			if (pvfs_peer_limit_take(fd, &limit) != 0)
				close(fd);
			else
				mgr_conn_new(fd, w == &conn_uaccept_io, limit);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS &&
		    errno != ENOMEM) {
			log_warn("accept: %s", strerror(errno));
			return;
		}
		/* Level-triggered accept would spin: pause it.  Said once
		 * until an accept succeeds, not ten times a second for as
		 * long as descriptors stay short. */
		if (!conn_starved)
			log_warn("accept: %s; pausing %.1fs", strerror(errno),
			    PVFS_ACCEPT_BACKOFF);
		conn_starved = 1;
		ev_io_stop(loop, &conn_accept_io);
		ev_io_stop(loop, &conn_uaccept_io);
		ev_timer_set(&conn_backoff, PVFS_ACCEPT_BACKOFF, 0.);
		ev_timer_start(loop, &conn_backoff);
		return;
	}
}

static void
mgr_conn_backoff_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_io_start(loop, &conn_accept_io);
	if (conn_ufd != -1)
		ev_io_start(loop, &conn_uaccept_io);
}

/* The second listener, for clients on this host (mgr-auth.c). */
void
mgr_conn_listen_unix(int ufd)
{
	conn_ufd = ufd;
	ev_io_init(&conn_uaccept_io, mgr_conn_accept_cb, ufd, EV_READ);
	ev_io_start(mgr.loop, &conn_uaccept_io);
}

/* Close what pvfs_conn_expired says has stalled or idled too long.  A
 * connection waiting for our journal is ours to finish, not the peer's
 * stall, unless its frame is a slowloris. */
static void
mgr_conn_sweep_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgr_conn *c, *next;
	ev_tstamp now = ev_now(loop);
	const char *why;

	for (c = TAILQ_FIRST(&conn_all); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		why = pvfs_conn_expired(now, c->held ? now : c->last_io,
		    c->frame_start > 0, c->frame_start,
		    c->state == MGR_CONN_HDR && c->in_off == c->in_len &&
		    mgr_conn_unsent(c) == 0, mgr.idle_timeout);
		if (why != NULL)
			mgr_conn_close(c, strcmp(why, PVFS_CONN_IDLE) != 0, why);
	}
}

void
mgr_conn_listen(int lfd)
{
	conn_lfd = lfd;
	ev_io_init(&conn_accept_io, mgr_conn_accept_cb, lfd, EV_READ);
	ev_io_start(mgr.loop, &conn_accept_io);
	ev_timer_init(&conn_backoff, mgr_conn_backoff_cb, PVFS_ACCEPT_BACKOFF, 0.);
	ev_idle_init(&conn_idle, mgr_conn_idle_cb);
	/* Above the sockets' priority, so that a busy loop still runs it. */
	ev_set_priority(&conn_idle, EV_MAXPRI);
	/* Four sweeps per timeout: a connection lives at most 1.25 times it. */
	if (mgr.idle_timeout > 0) {
		ev_timer_init(&conn_idle_sweep, mgr_conn_sweep_cb,
		    mgr.idle_timeout / 4, mgr.idle_timeout / 4);
		ev_timer_start(mgr.loop, &conn_idle_sweep);
	}
}

void
mgr_conn_close_all(void)
{
	struct mgr_conn *c;

	ev_io_stop(mgr.loop, &conn_accept_io);
	ev_io_stop(mgr.loop, &conn_uaccept_io);
	ev_timer_stop(mgr.loop, &conn_backoff);
	ev_idle_stop(mgr.loop, &conn_idle);
	ev_timer_stop(mgr.loop, &conn_idle_sweep);
	while ((c = TAILQ_FIRST(&conn_all)) != NULL)
		mgr_conn_close(c, 0, "shutting down");
	if (conn_lfd != -1)
		close(conn_lfd);
	conn_lfd = -1;
	if (conn_ufd != -1)
		close(conn_ufd);
	conn_ufd = -1;
}
