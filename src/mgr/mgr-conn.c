/*
 * mgr-conn.c - the mgr's connection states, plugged into the daemons'
 * connection layer (dconn.c: accept, peers, idle sweep, close): pipelined
 * requests, replies held until the journal commits, back-pressure.
 */
#include <errno.h>
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

static struct dconn_server conn_srv;
static TAILQ_HEAD(, mgr_conn) conn_held = TAILQ_HEAD_INITIALIZER(conn_held);
static TAILQ_HEAD(, mgr_conn) conn_ready = TAILQ_HEAD_INITIALIZER(conn_ready);
static ev_idle conn_idle;

static void mgr_conn_drive(struct mgr_conn *c);

static size_t
mgr_conn_unsent(const struct mgr_conn *c)
{
	return c->out.len - c->out.off;
}

/* The one place a connection ends: the layer's close, at info level if
 * error. */
static void
mgr_conn_close(struct mgr_conn *c, int error, const char *why)
{
	dconn_close(&c->dc, error ? DCONN_FAULT : 0, why);
}

/* A read or write failed: a reset (or a broken pipe) is the peer's
 * ordinary way out. */
static void
mgr_conn_lost(struct mgr_conn *c, const char *call, int ordinary)
{
	if (ordinary)
		dconn_close(&c->dc, 0, strerror(errno));
	else
		dconn_close(&c->dc, errno, call);
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
		b->off = b->len = c->out_ok = c->gate_off = 0;
		if (b->cap > CONN_OUT_KEEP)
			pvfs_buf_free(b);
		return;
	}
	if (b->off < b->cap / 2)
		return;
	memmove(b->data, b->data + b->off, b->len - b->off);
	b->len -= b->off;
	c->out_ok -= b->off;
	if (c->gate_off >= b->off)
		c->gate_off -= b->off;
	b->off = 0;
}

/* Send what is durable; EV_WRITE only while some of it is left.  -1 if
 * the connection was closed. */
static int
mgr_conn_send(struct mgr_conn *c)
{
	ssize_t w;

	while (c->out.off < c->out_ok) {
		w = write(c->dc.fd, c->out.data + c->out.off, c->out_ok - c->out.off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (w == -1) {
			mgr_conn_lost(c, "write", errno == EPIPE ||
			    errno == ECONNRESET);
			return -1;
		}
		c->out.off += (size_t)w;
		mgr_counters.bytes_out += (uint64_t)w;
		/* Replies released by a commit count as activity too. */
		c->dc.last_io = ev_now(mgr.loop);
	}
	mgr_conn_out_compact(c);
	if (c->state == MGR_CONN_DRAIN && c->out.len == 0) {
		mgr_conn_close(c, c->why_error, c->why);
		return -1;
	}
	dconn_watch_write(&c->dc, c->out.off < c->out_ok);
	return 0;
}

/* Every queued reply may go, up to a cache gate (mgr-cache.c). */
static void
mgr_conn_set_ok(struct mgr_conn *c)
{
	c->out_ok = c->gate_waits != 0 && c->gate_off < c->out.len ?
	    c->gate_off : c->out.len;
}

void
mgr_conn_gate_close(struct mgr_conn *c, uint32_t n)
{
	if (c->gate_waits == 0)
		c->gate_off = c->out.len;
	c->gate_waits += n;
}

void
mgr_conn_gate_open(struct mgr_conn *c)
{
	if (--c->gate_waits != 0)
		return;
	if (!c->held)
		mgr_conn_set_ok(c);
	if (mgr_conn_send(c) == 0 && c->state == MGR_CONN_FULL &&
	    mgr_conn_unsent(c) <= CONN_OUT_MAX / 2)
		mgr_conn_schedule(c);
}

/* Error replies have an empty body, except PVFS_ST_LINK's (rep is then
 * a struct pvfs_link_rep).  No reply leaves before the records pending
 * now are durable, whatever the request was. */
void
mgr_conn_reply(struct mgr_conn *c, uint16_t op, uint32_t reqid, int status,
    const void *rep)
{
	int rc;

	if (status == 0 || status == PVFS_ST_LINK) {
		if ((rc = pvfs_frame_encode(&c->out, op, reqid, 1, status,
		    rep)) == 0)
			status = 0; /* sent with its body */
		else {
			pvfs_log_warn("%s: cannot encode %s reply: %s",
			    c->dc.name, pvfs_op_name(op), strerror(-rc));
			status = EIO;
		}
	}
	if (status != 0 && dconn_reply_error(&c->out, op, reqid, status) != 0)
		pvfs_fatal("out of memory (reply)");
	if (!mgr_journal_pending()) {
		mgr_conn_set_ok(c);
		return;
	}
	if (!c->held) {
		c->held = 1;
		TAILQ_INSERT_TAIL(&conn_held, c, held_entry);
	}
}

/* A reply after its request's handler returned (mgr-resync.c): queued
 * as any other, then sent without waiting for the next request. */
void
mgr_conn_reply_later(struct mgr_conn *c, uint16_t op, uint32_t reqid,
    int status, const void *rep)
{
	mgr_conn_reply(c, op, reqid, status, rep);
	if (!c->held)
		mgr_conn_send(c);
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
		mgr_conn_set_ok(c);
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
		pvfs_fatal("out of memory (%zu byte frame)", need);
	c->in_cap = need;
}

static int
mgr_conn_parse_hdr(struct mgr_conn *c)
{
	int rc = dconn_hdr_check(c->in + c->in_off, &c->hdr);

	if (rc == DCONN_HDR_DROP) {
		mgr_conn_close(c, 1, "bad magic");
		return -1;
	}
	if (rc != 0) {
		mgr_conn_fail(c, rc, rc == EMSGSIZE ? "frame body too large" :
		    "bad frame header");
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

	c->dc.nreq++;
	c->dc.frame_start = 0;
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
				dconn_watch_read(&c->dc, 0);
				goto send;
			}
			c->state = MGR_CONN_HDR;
			break;
		case MGR_CONN_DRAIN:
			dconn_watch_read(&c->dc, 0);
			goto send;
		}
	}
want_input:
	if (avail == 0)
		c->dc.frame_start = 0;
	else if (c->dc.frame_start == 0)
		c->dc.frame_start = ev_now(mgr.loop);
	if (c->eof) {
		/* Answer what was asked before the peer's EOF, then close. */
		c->why = avail > 0 ? "peer closed mid-frame" : "peer closed";
		c->why_error = avail > 0;
		c->state = MGR_CONN_DRAIN;
		dconn_watch_read(&c->dc, 0);
	} else {
		dconn_watch_read(&c->dc, 1);
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
			pvfs_fatal("out of memory (input buffer)");
		c->in_cap = CONN_IN_MIN;
		c->in_off = c->in_len = 0;
	}
	if (c->in_cap - c->in_len < PVFS_HDR_LEN)
		mgr_conn_in_make_room(c, c->in_cap);
	if (c->in_len == c->in_cap)
		return 0; /* a full buffer of whole frames still to parse */
	do
		r = read(c->dc.fd, c->in + c->in_len, c->in_cap - c->in_len);
	while (r == -1 && errno == EINTR);
	if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (r == 0) {
		c->eof = 1;
		return 0;
	}
	if (r == -1) {
		mgr_conn_lost(c, "read", errno == ECONNRESET);
		return -1;
	}
	c->in_len += (size_t)r;
	mgr_counters.bytes_in += (uint64_t)r;
	return 0;
}

static void
mgr_conn_readable(struct dconn *dc)
{
	struct mgr_conn *c = (struct mgr_conn *)dc;

	if (mgr_conn_fill(c) == 0)
		mgr_conn_drive(c);
}

static void
mgr_conn_writable(struct dconn *dc)
{
	struct mgr_conn *c = (struct mgr_conn *)dc;

	if (mgr_conn_send(c) != 0)
		return;
	if (c->state == MGR_CONN_FULL && mgr_conn_unsent(c) <= CONN_OUT_MAX / 2)
		mgr_conn_drive(c);
}

/* A connection waiting for our journal is ours to finish, not the peer's
 * stall, unless its frame is a slowloris. */
static void
mgr_conn_activity(const struct dconn *dc, struct dconn_activity *a)
{
	const struct mgr_conn *c = (const struct mgr_conn *)dc;

	a->in_frame = c->dc.frame_start > 0;
	a->at_rest = c->state == MGR_CONN_HDR && c->in_off == c->in_len &&
	    mgr_conn_unsent(c) == 0;
	/* A client holding files open may be idle for hours. */
	a->ours = c->held || c->nleases != 0 || c->cb_holder != NULL ||
	    c->gate_waits != 0;
}

static int
mgr_conn_open(struct dconn *dc)
{
	struct mgr_conn *c = (struct mgr_conn *)dc;

	if ((c->in = malloc(CONN_IN_MIN)) == NULL)
		return -1;
	c->in_cap = CONN_IN_MIN;
	c->state = MGR_CONN_HDR;
	pvfs_buf_init(&c->out);
	mgr_auth_accept(c);
	dconn_watch_read(dc, 1);
	return 0;
}

static void
mgr_conn_release(struct dconn *dc)
{
	struct mgr_conn *c = (struct mgr_conn *)dc;

	if (c->held)
		TAILQ_REMOVE(&conn_held, c, held_entry);
	if (c->ready)
		TAILQ_REMOVE(&conn_ready, c, ready_entry);
	mgr_lease_conn_gone(c);
	mgr_cache_conn_gone(c);
	mgr_resync_conn_gone(c);
	free(c->in);
	pvfs_buf_free(&c->out);
}

static const struct dconn_ops mgr_conn_ops = {
	sizeof(struct mgr_conn), mgr_conn_open, mgr_conn_readable,
	mgr_conn_writable, mgr_conn_activity, mgr_conn_release,
};

/* The second listener, for clients on this host (mgr-auth.c). */
void
mgr_conn_listen_unix(int ufd)
{
	dconn_server_listen(&conn_srv, ufd);
}

void
mgr_conn_listen(int lfd)
{
	dconn_server_init(&conn_srv, mgr.loop, &mgr_conn_ops, mgr.idle_timeout);
	dconn_server_listen(&conn_srv, lfd);
	ev_idle_init(&conn_idle, mgr_conn_idle_cb);
	/* Above the sockets' priority, so that a busy loop still runs it. */
	ev_set_priority(&conn_idle, EV_MAXPRI);
}

void
mgr_conn_close_all(void)
{
	ev_idle_stop(mgr.loop, &conn_idle);
	dconn_server_stop(&conn_srv, "shutting down");
}

void
mgr_conn_counts(uint64_t *total, uint64_t *open)
{
	*total = conn_srv.accepted;
	*open = conn_srv.count;
}
