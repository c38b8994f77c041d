/*
 * iod-conn.c - the iod's connection states, plugged into the daemons'
 * connection layer (dconn.c: accept, peers, idle sweep, close).
 *
 * A connection serves one request at a time (READ_HDR -> READ_BODY ->
 * [READ_STREAM] -> SEND_REPLY -> [SEND_STREAM] -> READ_HDR), so its queued
 * output is never more than one reply: that is the back-pressure, since a
 * peer that does not read its reply is not read either.  Requests are
 * received into a buffer of the connection's (IOD_IBUF), as much as it
 * holds per recv, so a small WRITE costs one recv, one pwrite and one
 * send; what follows the request (a pipelined client's next one) waits
 * there for its turn.  The socket is
 * watched for EV_READ in the reading states and EV_WRITE in the sending
 * ones.  Each wake-up moves a bounded amount of work (IOD_BUDGET_*), then
 * returns to the loop; libev's level-triggered watchers call back at once
 * if there is more, so no client starves the others.
 */
#include <sys/sendfile.h>
#include <sys/socket.h>

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
	IOD_STEP_CLOSE, /* c->why and c->close_err say why */
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

static int
iod_conn_spent(const struct iod_budget *b)
{
	return b->bytes >= IOD_BUDGET_BYTES || b->calls >= IOD_BUDGET_CALLS ||
	    b->pieces >= IOD_BUDGET_PIECES;
}

/* Watch for EV_READ in the reading states, EV_WRITE in the sending ones. */
static void
iod_conn_want(struct iod_conn *c, int events)
{
	dconn_watch_read(&c->dc, events == EV_READ);
	dconn_watch_write(&c->dc, events == EV_WRITE);
}

/* err as dconn_close's. */
static int
iod_conn_drop(struct iod_conn *c, const char *why, int err)
{
	c->why = why;
	c->close_err = err;
	return IOD_STEP_CLOSE;
}

/* recv returned n <= 0: EAGAIN waits, EINTR retries, the rest closes. */
static int
iod_conn_recv_fail(struct iod_conn *c, ssize_t n, const char *why)
{
	if (n == 0)
		return iod_conn_drop(c, why, DCONN_FAULT);
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return IOD_STEP_WAIT;
	if (errno == EINTR)
		return IOD_STEP_NEXT;
	return iod_conn_drop(c, "recv", errno);
}

/* Queue the reply to the request in c->hdr.  Error replies are encoded
 * by the layer, without the codec, so that even an opcode the codec does
 * not know gets one.  On failure the connection closes after what is
 * queued. */
int
iod_conn_reply(struct iod_conn *c, int32_t status, const void *msg)
{
	c->state = IOD_CONN_SEND_REPLY;
	c->op_status = status;
	if (status == 0 && pvfs_frame_encode(&c->out, c->hdr.op, c->hdr.reqid,
	    1, 0, msg != NULL ? msg : iod_conn_nomsg) == 0)
		return 0;
	if (status == 0) {
		c->close_after = 1;
		c->why = "cannot encode reply";
		c->close_err = DCONN_FAULT;
		c->stream_next = 0;
		return -1;
	}
	if (dconn_reply_error(&c->out, c->hdr.op, c->hdr.reqid, status) != 0) {
		c->close_after = 1;
		c->why = "out of memory";
		c->close_err = DCONN_FAULT;
		return -1;
	}
	return 0;
}

/* A frame we cannot go on from: reply status, then close. */
void
iod_conn_fail(struct iod_conn *c, int32_t status, const char *why)
{
	iod_conn_reply(c, status, NULL);
	iod_conn_close_after(c, why);
}

void
iod_conn_stream_send(struct iod_conn *c)
{
	c->stream_next = 1;
}

void
iod_conn_stream_recv(struct iod_conn *c)
{
	c->state = IOD_CONN_READ_STREAM;
}

void
iod_conn_close_after(struct iod_conn *c, const char *why)
{
	c->stream_next = 0;
	c->close_after = 1;
	c->why = why;
	c->close_err = DCONN_FAULT;
}

/* Header checks (dconn_hdr_check) happen before anything is read or
 * allocated for the body. */
static int
iod_conn_check_hdr(struct iod_conn *c)
{
	int rc = dconn_hdr_check(c->hdr_raw, &c->hdr);

	if (rc == DCONN_HDR_DROP)
		return iod_conn_drop(c, "bad magic", DCONN_FAULT);
	if (rc == 0 && c->hdr.body_len > IOD_BODY_MAX &&
	    iod_op_body_alloc(c) != 0)
		rc = EMSGSIZE;
	if (rc != 0) {
		iod_conn_fail(c, rc, rc == EMSGSIZE ? "request body too long" :
		    "bad frame header");
		return IOD_STEP_NEXT;
	}
	c->state = IOD_CONN_READ_BODY;
	return IOD_STEP_NEXT;
}

/* Take up to len bytes received ahead. */
static size_t
iod_conn_take(struct iod_conn *c, uint8_t *p, size_t len)
{
	size_t n = c->ilen - c->ipos;

	if (n > len)
		n = len;
	memcpy(p, c->ibuf + c->ipos, n);
	c->ipos += n;
	return n;
}

/* One recv into ibuf, as much as fits: a small request's header, body
 * and data (and the next request's header) come in one call. */
static ssize_t
iod_conn_recv_ahead(struct iod_conn *c)
{
	size_t have = c->ilen - c->ipos;
	ssize_t n;

	if (c->ipos > 0) {
		memmove(c->ibuf, c->ibuf + c->ipos, have);
		c->ipos = 0;
		c->ilen = have;
	}
	n = recv(c->dc.fd, c->ibuf + c->ilen, sizeof c->ibuf - c->ilen, 0);
	if (n > 0) {
		c->ilen += (size_t)n;
		iod.counters.bytes_in += (uint64_t)n;
	}
	return n;
}

static int
iod_conn_read_hdr(struct iod_conn *c, struct iod_budget *b)
{
	size_t have = c->ilen - c->ipos;
	ssize_t n;

	if (have == 0 && b->reqs >= IOD_BUDGET_REQS)
		return IOD_STEP_WAIT;
	if (have >= PVFS_HDR_LEN && b->reqs >= IOD_BUDGET_REQS) {
		/* A whole header waits here, not in the socket: the loop
		 * must come back for it without readiness. */
		c->feed = 1;
		return IOD_STEP_WAIT;
	}
	if (have < PVFS_HDR_LEN) {
		n = iod_conn_recv_ahead(c);
		if (n == 0 && have == 0) /* the normal end of a connection */
			return iod_conn_drop(c, "peer closed", 0);
		if (n <= 0)
			return iod_conn_recv_fail(c, n, "peer closed mid-header");
		if (have == 0)
			c->dc.frame_start = ev_now(iod.loop);
		c->got = c->ilen - c->ipos;
		if (c->got < PVFS_HDR_LEN)
			return IOD_STEP_NEXT;
	}
	iod_conn_take(c, c->hdr_raw, PVFS_HDR_LEN);
	c->got = 0;
	c->op_start = pvfs_mono_ns();
	b->reqs++;
	c->dc.nreq++;
	return iod_conn_check_hdr(c);
}

static int
iod_conn_read_body(struct iod_conn *c)
{
	ssize_t n;

	if (c->got < c->hdr.body_len) {
		c->got += iod_conn_take(c, (c->lbody ? c->lbody : c->body) +
		    c->got, c->hdr.body_len - c->got);
		if (c->got == c->hdr.body_len)
			goto done;
		n = recv(c->dc.fd, (c->lbody ? c->lbody : c->body) + c->got,
		    c->hdr.body_len - c->got, 0);
		if (n <= 0)
			return iod_conn_recv_fail(c, n, "peer closed mid-body");
		c->got += (size_t)n;
		iod.counters.bytes_in += (uint64_t)n;
		if (c->got < c->hdr.body_len)
			return IOD_STEP_NEXT;
	}
done:
	c->got = 0;
	iod_op_dispatch(c);
	return IOD_STEP_NEXT;
}

/* Receive a long run of a WRITE stream by splice, or up to one shared
 * buffer of it, and write it before returning: the pipe and the buffer
 * belong to whichever connection runs next. */
static int
iod_conn_read_stream(struct iod_conn *c, struct iod_budget *b)
{
	struct iod_xfer *x = &c->xfer;
	uint64_t want, fill = 0;
	ssize_t n;
	int rc = IOD_STEP_NEXT;

	if (x->left == 0) {
		iod_op_write_done(c);
		return IOD_STEP_NEXT;
	}
	if (c->ipos < c->ilen) {
		/* What came with the header first (at most IOD_IBUF). */
		want = c->ilen - c->ipos;
		if (want > x->left)
			want = x->left;
		iod_xfer_write_flush(x, c->ibuf + c->ipos, want);
		c->ipos += want;
		b->bytes += want;
		b->calls++;
		return IOD_STEP_NEXT;
	}
	if (iod_conn_spent(b))
		return IOD_STEP_WAIT;
	want = iod_xfer_splice_plan(x, IOD_BUDGET_BYTES - b->bytes, &b->pieces);
	if (want > 0) {
		n = iod_xfer_splice(x, c->dc.fd, want);
		b->calls += 2;
		if (n <= 0)
			return iod_conn_recv_fail(c, n, "peer closed mid-stream");
		iod.counters.bytes_in += (uint64_t)n;
		b->bytes += (uint64_t)n;
		return IOD_STEP_NEXT;
	}
	want = iod_xfer_write_plan(x, IOD_XFER_BUF, &b->calls, &b->pieces);
	if (want == 0) {
		/* The walk ended before the share did: cannot happen with
		 * stream_len checked against pvfs_stripe_share. */
		pvfs_log_warn("%s: write walk ended early", c->dc.name);
		x->err = EIO;
		x->discard = 1;
		return IOD_STEP_NEXT;
	}
	while (fill < want) {
		n = recv(c->dc.fd, iod.xbuf + fill, want - fill, 0);
		if (n > 0) {
			fill += (uint64_t)n;
			iod.counters.bytes_in += (uint64_t)n;
			continue;
		}
		rc = iod_conn_recv_fail(c, n, "peer closed mid-stream");
		break;
	}
	if (fill > 0)
		iod_xfer_write_flush(x, iod.xbuf, fill);
	b->bytes += fill;
	if (x->err == ECONNABORTED) /* iod_mirror_pwrite: unwritten */
		return iod_conn_drop(c, "write to a copy marked stale after "
		    "the connection opened", DCONN_FAULT);
	return rc;
}

/* A request is answered (and its READ stream sent): count it. */
static void
iod_conn_op_end(struct iod_conn *c)
{
	pvfs_counters_op(&iod.counters, c->hdr.op, c->op_status,
	    pvfs_mono_ns() - c->op_start);
}

static int
iod_conn_send_reply(struct iod_conn *c)
{
	struct pvfs_buf *o = &c->out;
	int flags = MSG_NOSIGNAL | (c->stream_next ? MSG_MORE : 0);
	ssize_t n;

	while (o->off < o->len) {
		n = send(c->dc.fd, o->data + o->off, o->len - o->off, flags);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return IOD_STEP_WAIT;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return iod_conn_drop(c, "send", errno);
		o->off += (size_t)n;
		iod.counters.bytes_out += (uint64_t)n;
	}
	pvfs_buf_reset(o);
	if (!c->stream_next)
		iod_conn_op_end(c);
	if (c->close_after)
		return IOD_STEP_CLOSE;
	c->state = c->stream_next ? IOD_CONN_SEND_STREAM : IOD_CONN_READ_HDR;
	c->stream_next = 0;
	/* A synchronous client sends its next request after this reply:
	 * the loop's readiness tells, without a recv that would fail. */
	if (c->state == IOD_CONN_READ_HDR && c->ipos == c->ilen)
		return IOD_STEP_WAIT;
	return IOD_STEP_NEXT;
}

/* Up to want bytes of the current run: file bytes by sendfile, or zeros
 * where the file has shrunk since the reply promised them. */
static ssize_t
iod_conn_send_run(struct iod_conn *c, struct iod_xfer *x,
    size_t want)
{
	off_t off = (off_t)x->run_local;
	ssize_t n;

	if (x->file != NULL) {
		n = sendfile(c->dc.fd, x->file->fd, &off, want);
		if (n != 0)
			return n;
	}
	if (want > sizeof iod_conn_zeros)
		want = sizeof iod_conn_zeros;
	return send(c->dc.fd, iod_conn_zeros, want, MSG_NOSIGNAL);
}

static int
iod_conn_send_stream(struct iod_conn *c, struct iod_budget *b)
{
	struct iod_xfer *x = &c->xfer;
	uint64_t want;
	ssize_t n;

	while (x->left > 0) {
		if (iod_conn_spent(b))
			return IOD_STEP_WAIT;
		if (x->run_left == 0 && !iod_xfer_run_next(x, &b->pieces))
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
		iod.counters.bytes_out += (uint64_t)n;
		x->run_local += (uint64_t)n;
		x->run_left -= (uint64_t)n;
		x->left -= (uint64_t)n;
	}
	iod_xfer_end(x);
	iod_conn_op_end(c);
	c->state = IOD_CONN_READ_HDR;
	return c->ipos == c->ilen ? IOD_STEP_WAIT : IOD_STEP_NEXT;
}

/* Run the connection's state machine until it blocks, spends its budget
 * or closes. */
static void
iod_conn_drive(struct iod_conn *c)
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
			step = iod_conn_drop(c, "bad state", DCONN_FAULT);
			break;
		}
	} while (step == IOD_STEP_NEXT);
	if (step == IOD_STEP_CLOSE) {
		dconn_close(&c->dc, c->close_err, c->why);
		return;
	}
	iod_conn_want(c, c->state >= IOD_CONN_SEND_REPLY ? EV_WRITE : EV_READ);
	if (c->feed) {
		c->feed = 0;
		ev_feed_event(iod.loop, &c->dc.rio, EV_READ);
	}
}

static void
iod_conn_ready(struct dconn *dc)
{
	iod_conn_drive((struct iod_conn *)dc);
}

/* Readiness is the measure of progress: each callback moves bytes or
 * ends the connection. */
static void
iod_conn_activity(const struct dconn *dc, struct dconn_activity *a)
{
	const struct iod_conn *c = (const struct iod_conn *)dc;

	a->in_frame = (c->state == IOD_CONN_READ_HDR && c->got > 0) ||
	    c->state == IOD_CONN_READ_BODY;
	a->at_rest = c->state == IOD_CONN_READ_HDR && c->got == 0;
}

static int
iod_conn_open(struct dconn *dc)
{
	struct iod_conn *c = (struct iod_conn *)dc;

	c->state = IOD_CONN_READ_HDR;
	c->opened = iod_mirror_conn_seq();
	pvfs_buf_init(&c->out);
	iod_conn_want(c, EV_READ);
	return 0;
}

static void
iod_conn_release(struct dconn *dc)
{
	struct iod_conn *c = (struct iod_conn *)dc;

	iod_xfer_end(&c->xfer);
	free(c->lbody);
	pvfs_buf_free(&c->out);
}

static const struct dconn_ops iod_conn_ops = {
	sizeof(struct iod_conn), iod_conn_open, iod_conn_ready, iod_conn_ready,
	iod_conn_activity, iod_conn_release,
};

void
iod_conn_start(void)
{
	dconn_server_init(&iod.srv, iod.loop, &iod_conn_ops, iod.idle_timeout);
	dconn_server_listen(&iod.srv, iod.lfd);
	if (iod.ufd != -1)
		dconn_server_listen(&iod.srv, iod.ufd);
}

void
iod_conn_stop(void)
{
	dconn_server_stop(&iod.srv, "daemon exiting");
}
