/*
 * io-engine.c - the client's stream engine (io-engine.h).
 *
 * Each stream is one request to one iod with an explicit state, and one
 * poll() loop drives all of a run's streams at once.  File data moves
 * between the socket and the user's memory with writev/readv over that
 * iod's pieces of the pattern, mapped into the user iovecs a window (at
 * most IOV_MAX entries) at a time: no copies.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io-engine.h"

#define IO_WIN_MAX (IOV_MAX - 1) /* window entries; slot 0 is the frame */

int
pvfs_io_engine_init(struct io_engine *e, struct client_fs *fs,
    const struct iovec *uiov, int uiovcnt, uint32_t max)
{
	memset(e, 0, sizeof(*e));
	e->fs = fs;
	e->uiov = uiov;
	e->uiovcnt = uiovcnt;
	e->st = calloc(max, sizeof(*e->st));
	e->pfd = calloc(max, sizeof(*e->pfd));
	e->pidx = calloc(max, sizeof(*e->pidx));
	if (e->st == NULL || e->pfd == NULL || e->pidx == NULL) {
		pvfs_io_engine_free(e);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* A connection goes back to the pool only after a complete exchange, or
 * when nothing was sent on it. */
void
pvfs_io_engine_free(struct io_engine *e)
{
	struct io_stream *st;
	int i, saved = errno;

	for (i = 0; i < e->nst; i++) {
		st = &e->st[i];
		if (st->conn != NULL && (st->state == IO_DONE ||
		    (st->state == IO_SEND && st->out.off == 0)))
			pvfs_conn_release(&e->fs->iods[st->iod], st->conn);
		else
			pvfs_conn_close(st->conn);
		pvfs_buf_free(&st->out);
		if (st->win != st->win_inline)
			free(st->win);
	}
	free(e->st);
	free(e->pfd);
	free(e->pidx);
	memset(e, 0, sizeof(*e));
	errno = saved;
}

static int
io_is_read(uint16_t opc)
{
	return opc == PVFS_IOD_READ || opc == PVFS_IOD_READ_LIST;
}

static int
io_is_write(uint16_t opc)
{
	return opc == PVFS_IOD_WRITE || opc == PVFS_IOD_WRITE_LIST;
}

/* Body size of a successful reply, so header and body come in one recv. */
static size_t
io_rep_hint(uint16_t opc)
{
	switch (opc) {
	case PVFS_IOD_READ:
	case PVFS_IOD_READ_LIST:
		return 16;
	case PVFS_IOD_WRITE:
	case PVFS_IOD_WRITE_LIST:
		return 8;
	case PVFS_IOD_SIZE:
		return 32;
	case PVFS_IOD_STATFS:
		return 48;
	default:
		return 0;
	}
}

struct io_stream *
pvfs_io_engine_add(struct io_engine *e, uint32_t iod, uint32_t rel, uint16_t opc,
    const void *req)
{
	struct io_stream *st = &e->st[e->nst];

	st->iod = iod;
	st->rel = rel;
	st->op = opc;
	st->reqid = pvfs_conn_next_reqid();
	st->state = IO_SEND;
	st->win = st->win_inline;
	st->win_pos = 1;
	st->uiov = e->uiov;
	st->uiovcnt = e->uiovcnt;
	st->in_want = PVFS_HDR_LEN + io_rep_hint(opc);
	pvfs_buf_init(&st->out);
	e->nst++;
	if (pvfs_frame_encode(&st->out, opc, st->reqid, 0, 0, req) != 0) {
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

/* Enough window entries for the whole share in the common cases, without
 * allocating IOV_MAX entries for each of many iods.  blocks: the blocks of
 * the segments this iod holds bytes of. */
static int
io_win_size(uint64_t blocks, uint64_t share, uint32_t ssize, int uiovcnt)
{
	uint64_t est = share / ssize + 2 + (uint64_t)uiovcnt;

	if (blocks > 1)
		est += blocks;
	if (est > IO_WIN_MAX)
		est = IO_WIN_MAX;
	return est < 4 ? 4 : (int)est;
}

void
pvfs_io_engine_mem(struct io_stream *st, const struct iovec *uiov, int uiovcnt)
{
	st->uiov = uiov;
	st->uiovcnt = uiovcnt;
}

/* The stream walks the whole segment list for its pieces, so that their
 * mem offsets count in the user's stream even when the iod was sent only
 * the segments it holds bytes of. */
int
pvfs_io_engine_data(struct io_engine *e, struct io_stream *st,
    const struct io_segs *sg, const struct pvfs_dist *d, uint64_t share,
    uint64_t blocks)
{
	st->share = share;
	if (sg->nseg == 1)
		pvfs_stripe_iter_init(&st->it, sg->seg, d->pcount, d->ssize,
		    st->rel);
	else
		pvfs_stripe_iter_init_list(&st->it, sg->seg, sg->nseg,
		    d->pcount, d->ssize, st->rel);
	st->win_max = io_win_size(blocks, share, d->ssize, st->uiovcnt);
	st->win = malloc(sizeof(*st->win) * (size_t)(st->win_max + 1));
	if (st->win == NULL) {
		st->win = st->win_inline;
		errno = ENOMEM;
		return -1;
	}
	if (io_is_write(st->op))
		st->data_left = share;
	return 0;
}

/* Map the current piece into the user iovecs: one window entry, cut at the
 * end of a user iovec, of the piece, or of limit. */
static int
io_win_add(struct io_engine *e, struct io_stream *st, uint64_t *limit)
{
	const struct iovec *u;
	uint64_t off, n;

	while (st->uidx < st->uiovcnt &&
	    st->ubase + st->uiov[st->uidx].iov_len <= st->piece_mem) {
		st->ubase += st->uiov[st->uidx].iov_len;
		st->uidx++;
	}
	if (st->uidx >= st->uiovcnt)
		return -1;
	u = &st->uiov[st->uidx];
	off = st->piece_mem - st->ubase;
	n = u->iov_len - off;
	if (n > st->piece_left)
		n = st->piece_left;
	if (n > *limit)
		n = *limit;
	st->win[++st->win_cnt] = (struct iovec){ (char *)u->iov_base + off, n };
	st->piece_mem += n;
	st->piece_left -= n;
	*limit -= n;
	return 0;
}

/* Refill an empty window with at most data_left bytes of pieces. */
static void
io_win_fill(struct io_engine *e, struct io_stream *st)
{
	uint64_t limit = st->data_left;
	struct pvfs_piece pc;

	st->win_cnt = 0;
	st->win_pos = 1;
	while (st->win_cnt < st->win_max && limit > 0) {
		if (st->piece_left == 0) {
			if (!pvfs_stripe_iter_next(&st->it, &pc))
				break;
			st->piece_mem = pc.mem;
			st->piece_left = pc.len;
		}
		if (io_win_add(e, st, &limit) != 0)
			break;
	}
}

static void
io_win_consume(struct io_stream *st, size_t k)
{
	struct iovec *v;

	st->data_left -= k;
	while (k > 0) {
		v = &st->win[st->win_pos];
		if (k >= v->iov_len) {
			k -= v->iov_len;
			st->win_pos++;
		} else {
			v->iov_base = (char *)v->iov_base + k;
			v->iov_len -= k;
			k = 0;
		}
	}
}

/* The part of a read's share past the iod's end of file reads as zeros. */
static void
io_zero_rest(struct io_engine *e, struct io_stream *st)
{
	int i;

	st->data_left = st->zero_left;
	st->zero_left = 0;
	while (st->data_left > 0) {
		io_win_fill(e, st);
		if (st->win_cnt == 0)
			break;
		for (i = 1; i <= st->win_cnt; i++) {
			memset(st->win[i].iov_base, 0, st->win[i].iov_len);
			st->data_left -= st->win[i].iov_len;
		}
	}
	st->win_cnt = 0;
	st->win_pos = 1;
}

/* 0 when the socket would block, 1 to try again, -1 on a real error. */
static int
io_again(void)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	return errno == EINTR ? 1 : -1;
}

/* A receive that moved nothing (k <= 0): as io_again, and the iod
 * closing is EPIPE. */
static int
io_recv_none(ssize_t k)
{
	if (k == 0) {
		errno = EPIPE;
		return -1;
	}
	return io_again();
}

/* The frame and, for a write, the data: one sendmsg over [frame, pieces]
 * so a small write leaves in one segment. */
static int
io_send(struct io_engine *e, struct io_stream *st)
{
	size_t hdr_left = st->out.len - st->out.off, take;
	struct msghdr mh;
	ssize_t k;

	if (st->win_pos > st->win_cnt && st->data_left > 0) {
		io_win_fill(e, st);
		if (st->win_cnt == 0) {
			errno = EFAULT; /* user iovecs shorter than the pattern */
			return -1;
		}
	}
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = st->win + st->win_pos;
	mh.msg_iovlen = (size_t)(st->win_cnt - st->win_pos + 1);
	if (hdr_left > 0) {
		st->win[0] = (struct iovec){ st->out.data + st->out.off, hdr_left };
		mh.msg_iov = st->win;
		mh.msg_iovlen++;
	}
	if (mh.msg_iovlen == 0) {
		st->state = IO_RECV_HDR;
		return 1;
	}
	if ((k = sendmsg(st->conn->fd, &mh, MSG_NOSIGNAL)) < 0)
		return io_again();
	take = (size_t)k < hdr_left ? (size_t)k : hdr_left;
	st->out.off += take;
	io_win_consume(st, (size_t)k - take);
	return 1;
}

static int
io_check_hdr(struct io_stream *st)
{
	if (pvfs_hdr_decode(st->in, &st->rh) != 0 ||
	    !(st->rh.flags & PVFS_HDR_REPLY) || st->rh.op != st->op ||
	    st->rh.reqid != st->reqid || st->rh.body_len > IO_REP_MAX ||
	    (st->rh.status != 0 && st->rh.body_len != 0)) {
		errno = EPROTO;
		return -1;
	}
	st->hdr_ok = 1;
	st->in_want = PVFS_HDR_LEN + st->rh.body_len;
	if (st->in_got > st->in_want) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* A whole reply is in: an error status fails the stream; a read goes on
 * with its data stream. */
static int
io_reply(struct io_engine *e, struct io_stream *st)
{
	if (st->rh.status != 0) {
		errno = st->rh.status;
		return -1;
	}
	if (st->early || pvfs_msg_decode(st->op, 1, st->in + PVFS_HDR_LEN,
	    st->rh.body_len, &st->rep) != 0) {
		errno = EPROTO;
		return -1;
	}
	st->state = IO_DONE;
	if (io_is_write(st->op) && st->rep.write.written != st->share) {
		errno = EIO;
		return -1;
	}
	if (!io_is_read(st->op))
		return 1;
	if (st->rep.read.stream_len > st->share) {
		errno = EPROTO;
		return -1;
	}
	st->data_left = st->rep.read.stream_len;
	st->zero_left = st->share - st->data_left;
	if (st->data_left > 0)
		st->state = IO_RECV_DATA;
	else
		io_zero_rest(e, st);
	return 1;
}

static int
io_recv_reply(struct io_engine *e, struct io_stream *st)
{
	ssize_t k = recv(st->conn->fd, st->in + st->in_got,
	    st->in_want - st->in_got, 0);

	if (k <= 0)
		return io_recv_none(k);
	st->in_got += (size_t)k;
	if (st->in_got < PVFS_HDR_LEN)
		return 1;
	if (!st->hdr_ok && io_check_hdr(st) != 0)
		return -1;
	if (st->in_got < st->in_want)
		return 1;
	return io_reply(e, st);
}

static int
io_recv_data(struct io_engine *e, struct io_stream *st)
{
	ssize_t k;

	if (st->win_pos > st->win_cnt)
		io_win_fill(e, st);
	if (st->win_pos > st->win_cnt) {
		errno = EFAULT; /* user iovecs shorter than the pattern */
		return -1;
	}
	k = readv(st->conn->fd, st->win + st->win_pos,
	    st->win_cnt - st->win_pos + 1);
	if (k <= 0)
		return io_recv_none(k);
	io_win_consume(st, (size_t)k);
	if (st->data_left == 0) {
		io_zero_rest(e, st);
		st->state = IO_DONE;
	}
	return 1;
}

static void
io_fail(struct io_stream *st, int err)
{
	if (err == EPIPE || err == ECONNRESET) {
		st->stale = st->conn->reused && st->in_got == 0;
		err = EIO;
	}
	st->err = err;
	st->state = IO_FAILED;
	pvfs_conn_close(st->conn);
	st->conn = NULL;
}

/* Move st as far as its socket allows; 1 if anything happened. */
static int
io_step(struct io_engine *e, struct io_stream *st, short revents)
{
	int progress = 0, rc;

	/* A reply while we still send can only be an error (or EOF): the iod
	 * answers a write after all of it arrived. */
	if (st->state == IO_SEND && (revents & POLLIN) &&
	    (st->out.off < st->out.len || st->data_left > 0)) {
		st->early = 1;
		st->state = IO_RECV_HDR;
	}
	for (;;) {
		/* First pass: send every request before waiting on any reply. */
		if (revents == 0 && st->state != IO_SEND && progress)
			return progress;
		if (st->state == IO_SEND)
			rc = io_send(e, st);
		else if (st->state == IO_RECV_HDR)
			rc = io_recv_reply(e, st);
		else if (st->state == IO_RECV_DATA)
			rc = io_recv_data(e, st);
		else
			return progress;
		if (rc < 0) {
			io_fail(st, errno);
			return 1;
		}
		if (rc == 0)
			return progress;
		progress = 1;
	}
}

static short
io_events(const struct io_stream *st)
{
	if (st->state == IO_SEND)
		return POLLOUT | POLLIN;
	if (st->state == IO_RECV_HDR || st->state == IO_RECV_DATA)
		return POLLIN;
	return 0;
}

static int
io_poll_set(struct io_engine *e)
{
	int i, n = 0;

	for (i = 0; i < e->nst; i++) {
		short ev = io_events(&e->st[i]);

		if (ev == 0)
			continue;
		e->pfd[n] = (struct pollfd){ .fd = e->st[i].conn->fd, .events = ev };
		e->pidx[n++] = i;
	}
	return n;
}

static void
io_fail_active(struct io_engine *e, int err)
{
	int i;

	for (i = 0; i < e->nst; i++)
		if (io_events(&e->st[i]) != 0)
			io_fail(&e->st[i], err);
}

#define IO_STALL_AGAIN_MS 100 /* a stall give_up let go: asked again */

/* Offer the streams past their stall time to give_up.  -1 if one was
 * failed (the poll set changed), else the earliest stall time left. */
static int64_t
io_stall(struct io_engine *e, int64_t now)
{
	int64_t next = INT64_MAX;
	struct io_stream *st;
	int i, failed = 0;

	for (i = 0; i < e->nst; i++) {
		st = &e->st[i];
		if (io_events(st) == 0)
			continue;
		if (st->stall_at <= now) {
			if (e->give_up(e, st, e->give_up_arg)) {
				io_fail(st, ETIMEDOUT);
				st->stalled = 1;
				failed = 1;
				continue;
			}
			st->stall_at = now + IO_STALL_AGAIN_MS;
		}
		if (st->stall_at < next)
			next = st->stall_at;
	}
	return failed ? -1 : next;
}

/* Drive every stream until all are done or failed.  The timeout bounds
 * each wait with no progress on any stream, so a large transfer is never
 * cut short while a stopped iod is still noticed in time; with stall_ms,
 * a stream may be given up earlier on its own (io_stall). */
void
pvfs_io_engine_run(struct io_engine *e)
{
	int64_t deadline, left, now, wake;
	int i, n, rc, progress, stall = e->stall_ms > 0 && e->give_up != NULL;

	for (i = 0; i < e->nst; i++)
		io_step(e, &e->st[i], 0);
	now = pvfs_mono_ms();
	deadline = now + e->fs->timeout_ms;
	for (i = 0; stall && i < e->nst; i++)
		e->st[i].stall_at = now + e->stall_ms;
	while ((n = io_poll_set(e)) > 0) {
		now = pvfs_mono_ms();
		left = deadline - now;
		if (left <= 0) {
			io_fail_active(e, ETIMEDOUT);
			return;
		}
		if (stall) {
			if ((wake = io_stall(e, now)) < 0)
				continue;
			if (wake - now < left)
				left = wake - now > 0 ? wake - now : 0;
		}
		rc = poll(e->pfd, (nfds_t)n, left > INT_MAX ? INT_MAX : (int)left);
		if (rc < 0 && errno != EINTR) {
			io_fail_active(e, errno);
			return;
		}
		now = stall ? pvfs_mono_ms() : 0;
		for (i = 0, progress = 0; rc > 0 && i < n; i++) {
			if (e->pfd[i].revents == 0 ||
			    !io_step(e, &e->st[e->pidx[i]], e->pfd[i].revents))
				continue;
			progress = 1;
			e->st[e->pidx[i]].stall_at = now + e->stall_ms;
		}
		if (progress)
			deadline = pvfs_mono_ms() + e->fs->timeout_ms;
	}
}
