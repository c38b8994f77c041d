/*
 * iod-conn.c - client connections: accept, the per-connection state
 * machine, and the one place a connection is closed.
 *
 * A connection serves one request at a time (READ_HDR -> READ_BODY ->
 * [READ_STREAM] -> SEND_REPLY -> [SEND_STREAM] -> READ_HDR), so its queued
 * output is never more than one reply: that is the back-pressure, since a
 * peer that does not read its reply is not read either.  The socket is
 * watched for EV_READ in the reading states and EV_WRITE in the sending
 * ones.  Each wake-up moves a bounded amount of work (IOD_BUDGET_*), then
 * returns to the loop; libev's level-triggered watchers call back at once
 * if there is more, so no client starves the others.
 */
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

/* What a state function tells the driver. */
enum iod_step {
	IOD_STEP_NEXT,  /* progress was made: run the (new) state again */
	IOD_STEP_WAIT,  /* blocked or budget spent: back to the loop */
	IOD_STEP_CLOSE, /* c->why says why */
};

/* Work done for one connection in one wake-up. */
struct iod_budget {
	uint64_t bytes;
	unsigned calls, pieces, reqs;
};

/* Stream bytes past a truncated stripe file's end read as zeros. */
static const uint8_t iod_conn_zeros[65536];
/* The body of a reply that carries nothing. */
static const uint8_t iod_conn_nomsg[256];

static int iod_conn_spent(const struct iod_budget *b)
{
	return b->bytes >= IOD_BUDGET_BYTES || b->calls >= IOD_BUDGET_CALLS ||
	    b->pieces >= IOD_BUDGET_PIECES;
}

static void iod_conn_want(struct iod_conn *c, int events)
{
	if (c->events == events)
		return;
	ev_io_stop(iod.loop, &c->io);
	ev_io_set(&c->io, c->fd, events);
	ev_io_start(iod.loop, &c->io);
	c->events = events;
}

/* The single exit of a connection: log why, free everything it holds. */
static void iod_conn_close(struct iod_conn *c)
{
	if (c->close_errno != 0)
		log_info("%s: closed: %s: %s", c->peer, c->why,
		    strerror(c->close_errno));
	else if (!c->quiet)
		log_info("%s: closed: %s", c->peer, c->why);
	else
		log_debug("%s: closed: %s", c->peer, c->why);
	ev_io_stop(iod.loop, &c->io);
	pvfs_peer_limit_release(c->limit);
	close(c->fd);
	iod_op_xfer_end(&c->xfer);
	free(c->lbody);
	pvfs_buf_free(&c->out);
	TAILQ_REMOVE(&iod.conns, c, entry);
	iod.nconns--;
	free(c);
}

static int iod_conn_drop(struct iod_conn *c, const char *why, int err)
{
	c->why = why;
	c->close_errno = err;
	return IOD_STEP_CLOSE;
}

/* recv returned n <= 0: EAGAIN waits, EINTR retries, the rest closes. */
static int iod_conn_recv_fail(struct iod_conn *c, ssize_t n, const char *why)
{
	if (n == 0)
		return iod_conn_drop(c, why, 0);
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return IOD_STEP_WAIT;
	if (errno == EINTR)
		return IOD_STEP_NEXT;
	return iod_conn_drop(c, "recv", errno);
}

/* Queue the reply to the request in c->hdr.  Error replies are encoded
 * here, without the codec, so that even an opcode the codec does not know
 * gets one.  On failure the connection closes after what is queued. */
int iod_conn_reply(struct iod_conn *c, int32_t status, const void *msg)
{
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, c->hdr.op,
		c->hdr.reqid, status, 0, PVFS_HDR_REPLY };
	uint8_t raw[PVFS_HDR_LEN];

	c->state = IOD_CONN_SEND_REPLY;
	if (status == 0 && pvfs_frame_encode(&c->out, c->hdr.op, c->hdr.reqid,
	    1, 0, msg != NULL ? msg : iod_conn_nomsg) == 0)
		return 0;
	if (status == 0) {
		c->close_after = 1;
		c->why = "cannot encode reply";
		c->stream_next = 0;
		return -1;
	}
	pvfs_hdr_encode(&h, raw);
	pvfs_buf_put(&c->out, raw, sizeof raw);
	if (c->out.oom) {
		c->close_after = 1;
		c->why = "out of memory";
		return -1;
	}
	return 0;
}

/* A frame we cannot go on from: reply status, then close. */
void iod_conn_fail(struct iod_conn *c, int32_t status, const char *why)
{
	iod_conn_reply(c, status, NULL);
	c->stream_next = 0;
	c->close_after = 1;
	c->why = why;
}

/* Header checks happen before anything is read or allocated for the
 * body.  A header without our magic is not answered: it may not even be a
 * PVFS peer. */
static int iod_conn_check_hdr(struct iod_conn *c)
{
	int rc = pvfs_hdr_decode(c->hdr_raw, &c->hdr);

	if (rc != 0 && c->hdr.magic != PVFS_PROTO_MAGIC)
		return iod_conn_drop(c, "bad magic", 0);
	if (rc == -EMSGSIZE || (rc == 0 && c->hdr.body_len > IOD_BODY_MAX &&
	    iod_op_body_alloc(c) != 0)) {
		iod_conn_fail(c, EMSGSIZE, "request body too long");
		return IOD_STEP_NEXT;
	}
	if (rc != 0 || (c->hdr.flags & PVFS_HDR_REPLY) || c->hdr.status != 0) {
		iod_conn_fail(c, EPROTO, "bad frame header");
		return IOD_STEP_NEXT;
	}
	c->state = IOD_CONN_READ_BODY;
	return IOD_STEP_NEXT;
}

static int iod_conn_read_hdr(struct iod_conn *c, struct iod_budget *b)
{
	ssize_t n;

	if (c->got == 0 && b->reqs >= IOD_BUDGET_REQS)
		return IOD_STEP_WAIT;
	n = recv(c->fd, c->hdr_raw + c->got, PVFS_HDR_LEN - c->got, 0);
	if (n == 0 && c->got == 0) {
		c->quiet = 1; /* the normal end of a connection */
		return iod_conn_drop(c, "peer closed", 0);
	}
	if (n <= 0)
		return iod_conn_recv_fail(c, n, "peer closed mid-header");
	if (c->got == 0)
		c->frame_start = ev_now(iod.loop);
	c->got += (size_t)n;
	if (c->got < PVFS_HDR_LEN)
		return IOD_STEP_NEXT;
	c->got = 0;
	b->reqs++;
	return iod_conn_check_hdr(c);
}

static int iod_conn_read_body(struct iod_conn *c)
{
	ssize_t n;

	if (c->got < c->hdr.body_len) {
		n = recv(c->fd, (c->lbody ? c->lbody : c->body) + c->got,
		    c->hdr.body_len - c->got, 0);
		if (n <= 0)
			return iod_conn_recv_fail(c, n, "peer closed mid-body");
		c->got += (size_t)n;
		if (c->got < c->hdr.body_len)
			return IOD_STEP_NEXT;
	}
	c->got = 0;
	iod_op_dispatch(c);
	return IOD_STEP_NEXT;
}

/* Receive up to one shared buffer of a WRITE stream and write it before
 * returning: the buffer belongs to whichever connection runs next. */
static int iod_conn_read_stream(struct iod_conn *c, struct iod_budget *b)
{
	struct iod_xfer *x = &c->xfer;
	uint64_t want, fill = 0;
	ssize_t n;
	int rc = IOD_STEP_NEXT;

	if (x->left == 0) {
		iod_op_write_done(c);
		return IOD_STEP_NEXT;
	}
	if (iod_conn_spent(b))
		return IOD_STEP_WAIT;
	want = iod_op_write_plan(x, IOD_XFER_BUF, &b->calls, &b->pieces);
	if (want == 0) {
		/* The walk ended before the share did: cannot happen with
		 * stream_len checked against pvfs_stripe_share. */
		log_warn("%s: write walk ended early", c->peer);
		x->err = EIO;
		x->discard = 1;
		return IOD_STEP_NEXT;
	}
	while (fill < want) {
		n = recv(c->fd, iod.xbuf + fill, want - fill, 0);
		if (n > 0) {
			fill += (uint64_t)n;
			continue;
		}
		rc = iod_conn_recv_fail(c, n, "peer closed mid-stream");
		break;
	}
	if (fill > 0)
		iod_op_write_flush(x, iod.xbuf, fill);
	b->bytes += fill;
	return rc;
}

static int iod_conn_send_reply(struct iod_conn *c)
{
	struct pvfs_buf *o = &c->out;
	int flags = MSG_NOSIGNAL | (c->stream_next ? MSG_MORE : 0);
	ssize_t n;

	while (o->off < o->len) {
		n = send(c->fd, o->data + o->off, o->len - o->off, flags);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return IOD_STEP_WAIT;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return iod_conn_drop(c, "send", errno);
		o->off += (size_t)n;
	}
	pvfs_buf_reset(o);
	if (c->close_after)
		return IOD_STEP_CLOSE;
	c->state = c->stream_next ? IOD_CONN_SEND_STREAM : IOD_CONN_READ_HDR;
	c->stream_next = 0;
	return IOD_STEP_NEXT;
}

/* Up to want bytes of the current run: file bytes by sendfile, or zeros
 * where the file has shrunk since the reply promised them. */
static ssize_t iod_conn_send_run(struct iod_conn *c, struct iod_xfer *x,
    size_t want)
{
	off_t off = (off_t)x->run_local;
	ssize_t n;

	if (x->file != NULL) {
		n = sendfile(c->fd, x->file->fd, &off, want);
		if (n != 0)
			return n;
	}
	if (want > sizeof iod_conn_zeros)
		want = sizeof iod_conn_zeros;
	return send(c->fd, iod_conn_zeros, want, MSG_NOSIGNAL);
}

static int iod_conn_send_stream(struct iod_conn *c, struct iod_budget *b)
{
	struct iod_xfer *x = &c->xfer;
	uint64_t want;
	ssize_t n;

	while (x->left > 0) {
		if (iod_conn_spent(b))
			return IOD_STEP_WAIT;
		if (x->run_left == 0 && !iod_op_run_next(x, &b->pieces))
			return iod_conn_drop(c, "read stream ended early", EIO);
		want = IOD_BUDGET_BYTES - b->bytes;
		if (want > x->run_left)
			want = x->run_left;
		n = iod_conn_send_run(c, x, want);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return IOD_STEP_WAIT;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return iod_conn_drop(c, "sendfile", errno);
		b->bytes += (uint64_t)n;
		b->calls++;
		x->run_local += (uint64_t)n;
		x->run_left -= (uint64_t)n;
		x->left -= (uint64_t)n;
	}
	iod_op_xfer_end(x);
	c->state = IOD_CONN_READ_HDR;
	return IOD_STEP_NEXT;
}

/* Run the connection's state machine until it blocks, spends its budget
 * or closes. */
static void iod_conn_drive(struct iod_conn *c)
{
	struct iod_budget b = { 0, 0, 0, 0 };
	int step;

	do {
		switch (c->state) {
		case IOD_CONN_READ_HDR:
			step = iod_conn_read_hdr(c, &b);
			break;
		case IOD_CONN_READ_BODY:
			step = iod_conn_read_body(c);
			break;
		case IOD_CONN_READ_STREAM:
			step = iod_conn_read_stream(c, &b);
			break;
		case IOD_CONN_SEND_REPLY:
			step = iod_conn_send_reply(c);
			break;
		case IOD_CONN_SEND_STREAM:
			step = iod_conn_send_stream(c, &b);
			break;
		default:
			step = iod_conn_drop(c, "bad state", 0);
			break;
		}
	} while (step == IOD_STEP_NEXT);
	if (step == IOD_STEP_CLOSE) {
		iod_conn_close(c);
		return;
	}
	iod_conn_want(c, c->state >= IOD_CONN_SEND_REPLY ? EV_WRITE : EV_READ);
}

static void iod_conn_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct iod_conn *c = w->data;

	c->last_io = ev_now(loop);
	iod_conn_drive(c);
}

/* Why c must close at now, or NULL (readiness is the measure of
 * progress: each callback moves bytes or ends the connection). */
static const char *iod_conn_expired(const struct iod_conn *c, ev_tstamp now)
{
	int in_frame = (c->state == IOD_CONN_READ_HDR && c->got > 0) ||
	    c->state == IOD_CONN_READ_BODY;

	return pvfs_conn_expired(now, c->last_io, in_frame, c->frame_start,
	    c->state == IOD_CONN_READ_HDR && c->got == 0, iod.idle_timeout);
}

static void iod_conn_idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct iod_conn *c, *next;
	ev_tstamp now = ev_now(loop);
	const char *why;

	for (c = TAILQ_FIRST(&iod.conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if ((why = iod_conn_expired(c, now)) == NULL)
			continue;
		c->why = why;
		c->quiet = strcmp(why, PVFS_CONN_IDLE) == 0;
		c->close_errno = 0;
		iod_conn_close(c);
	}
}

/* Sweep four times per timeout: a connection lives at most 1.25 times it. */
void iod_conn_idle_start(void)
{
	if (iod.idle_timeout <= 0)
		return;
	ev_timer_init(&iod.idle_timer, iod_conn_idle_cb, iod.idle_timeout / 4,
	    iod.idle_timeout / 4);
	ev_timer_start(iod.loop, &iod.idle_timer);
}

static void iod_conn_peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	memset(&ss, 0, sizeof ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
		port = ntohs(s6->sin6_port);
	} else if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
		port = ntohs(s4->sin_port);
	} else if (ss.ss_family == AF_UNIX) {
		snprintf(out, len, "unix");
		return;
	}
	snprintf(out, len, "%s:%u", host, port);
}

static void iod_conn_new(int fd, struct pvfs_peer *limit)
{
	struct iod_conn *c;

	if ((c = calloc(1, sizeof *c)) == NULL) {
		log_warn("accept: out of memory");
		pvfs_peer_limit_release(limit);
		close(fd);
		return;
	}
	c->fd = fd;
	c->limit = limit;
	c->state = IOD_CONN_READ_HDR;
	c->last_io = ev_now(iod.loop);
	iod_conn_peer_name(fd, c->peer, sizeof c->peer);
	pvfs_buf_init(&c->out);
	ev_io_init(&c->io, iod_conn_io_cb, fd, EV_READ);
	c->io.data = c;
	c->events = EV_READ;
	ev_io_start(iod.loop, &c->io);
	TAILQ_INSERT_TAIL(&iod.conns, c, entry);
	iod.nconns++;
	log_debug("%s: connected (%u connections)", c->peer, iod.nconns);
}

/* Accept paused since the last one that succeeded. */
static int iod_conn_starved;

/* Out of descriptors: stop accepting for a while rather than spin on a
 * listening socket that stays readable.  Logged once until an accept
 * succeeds, not at every retry. */
static void iod_conn_accept_pause(void)
{
	if (!iod_conn_starved)
		log_warn("accept: %s; pausing %.1fs", strerror(errno),
		    PVFS_ACCEPT_BACKOFF);
	iod_conn_starved = 1;
	ev_io_stop(iod.loop, &iod.accept_io);
	ev_io_stop(iod.loop, &iod.accept_uio);
	ev_timer_set(&iod.accept_timer, PVFS_ACCEPT_BACKOFF, 0.);
	ev_timer_start(iod.loop, &iod.accept_timer);
}

/* A peer over its limit (peer-limit.c) is closed at once, cheaply, so
 * that its flood cannot hold up others' connections in the backlog. */
void iod_conn_accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pvfs_peer *limit;
	int i, fd;

	for (i = 0; i < IOD_ACCEPT_BATCH; i++) {
		if ((fd = pvfs_net_accept(w->fd)) != -1) {
			iod_conn_starved = 0;
			if (pvfs_peer_limit_take(fd, &limit) != 0)
				close(fd);
			else
				iod_conn_new(fd, limit);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			iod_conn_accept_pause();
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			log_warn("accept: %s", strerror(errno));
		return;
	}
}

void iod_conn_accept_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_io_start(iod.loop, &iod.accept_io);
	if (iod.ufd != -1)
		ev_io_start(iod.loop, &iod.accept_uio);
}

void iod_conn_close_all(void)
{
	struct iod_conn *c;

	while ((c = TAILQ_FIRST(&iod.conns)) != NULL) {
		c->why = "daemon exiting";
		c->quiet = 1;
		iod_conn_close(c);
	}
}
