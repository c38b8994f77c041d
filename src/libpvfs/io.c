/*
 * io.c - the parallel I/O engine.
 *
 * One operation sends each involved iod ONE request and drives all of them
 * at once from one poll() loop.  Each iod's exchange is a stream with an
 * explicit state; file data moves between the socket and the user's memory
 * with writev/readv over that iod's pieces of the pattern, mapped into the
 * user iovecs a window (at most IOV_MAX entries) at a time: no copies.
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

#include "pvfs-internal.h"

#define IO_REP_MAX 64 /* largest iod reply body (STATFS, 48 bytes) */
#define IO_WIN_MAX (IOV_MAX - 1) /* window entries; slot 0 is the frame */

enum io_state {
	IO_SEND,      /* the request frame, then an IOD_WRITE's data stream */
	IO_RECV_HDR,  /* the reply header and its small body */
	IO_RECV_DATA, /* an IOD_READ stream, straight into user memory */
	IO_DONE,      /* exchange complete: the connection can be pooled */
	IO_FAILED,    /* err says why; the connection is closed */
};

enum io_retry {
	IO_RETRY_NO,
	IO_RETRY_STALE, /* a pooled socket had died: send again */
	IO_RETRY_KEY,   /* capability expired: refresh it, send again */
};

union io_req {
	struct pvfs_iod_read_req read;
	struct pvfs_iod_write_req write;
	struct pvfs_iod_truncate_req truncate;
	struct pvfs_iod_cap_req remove;
	struct pvfs_iod_fsync_req fsync;
	struct pvfs_iod_size_req size;
	struct pvfs_iod_read_list_req read_list;
	struct pvfs_iod_write_list_req write_list;
	struct pvfs_none none;
};

union io_rep {
	struct pvfs_iod_read_rep read;
	struct pvfs_iod_write_rep write;
	struct pvfs_iod_size_rep size;
	struct pvfs_iod_statfs_rep statfs;
	struct pvfs_none none;
};

struct io_stream {
	uint32_t iod, rel;
	uint16_t op;
	uint32_t reqid;
	enum io_state state;
	int err;
	int stale;             /* failed on a reused socket before any reply */
	int early;             /* the reply came before our stream was sent */
	int hdr_ok;
	struct pvfs_conn *conn;
	struct pvfs_buf out;   /* request frame; out.off = bytes sent */
	uint8_t in[PVFS_HDR_LEN + IO_REP_MAX];
	size_t in_got, in_want;
	struct pvfs_hdr rh;
	union io_rep rep;
	/* The data stream: this iod's share of the pattern. */
	uint64_t share;
	uint64_t data_left;    /* bytes still to move in this phase */
	uint64_t zero_left;    /* read: part of the share past the stream */
	struct pvfs_stripe_iter it;
	uint64_t piece_mem, piece_left; /* rest of the current piece */
	int uidx;              /* user iovec holding piece_mem... */
	uint64_t ubase;        /* ...and its offset in the pattern stream */
	struct iovec *win;     /* [0] frame, [1..win_cnt] data */
	struct iovec win_inline[2];
	int win_max, win_cnt, win_pos;
};

/* The segments one operation covers, in file order. */
struct io_segs {
	const struct pvfs_pattern *seg;
	uint32_t nseg;
};

struct io_op {
	struct client_fs *fs;
	const struct iovec *uiov;
	int uiovcnt;
	struct io_stream *st;
	int nst, max;
	struct pollfd *pfd;
	int *pidx;
};

static int
io_op_init(struct io_op *op, struct client_fs *fs, const struct iovec *uiov,
    int uiovcnt, uint32_t max)
{
	memset(op, 0, sizeof(*op));
	op->fs = fs;
	op->uiov = uiov;
	op->uiovcnt = uiovcnt;
	op->max = (int)max;
	op->st = calloc(max, sizeof(*op->st));
	op->pfd = calloc(max, sizeof(*op->pfd));
	op->pidx = calloc(max, sizeof(*op->pidx));
	if (op->st == NULL || op->pfd == NULL || op->pidx == NULL) {
		free(op->st);
		free(op->pfd);
		free(op->pidx);
		memset(op, 0, sizeof(*op));
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* A connection goes back to the pool only after a complete exchange, or
 * when nothing was sent on it. */
static void
io_op_free(struct io_op *op)
{
	struct io_stream *st;
	int i, saved = errno;

	for (i = 0; i < op->nst; i++) {
		st = &op->st[i];
		if (st->conn != NULL && (st->state == IO_DONE ||
		    (st->state == IO_SEND && st->out.off == 0)))
			conn_release(&op->fs->iods[st->iod], st->conn);
		else
			conn_close(st->conn);
		pvfs_buf_free(&st->out);
		if (st->win != st->win_inline)
			free(st->win);
	}
	free(op->st);
	free(op->pfd);
	free(op->pidx);
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

static struct io_stream *
io_stream_add(struct io_op *op, uint32_t iod, uint32_t rel, uint16_t opc,
    const union io_req *req)
{
	struct io_stream *st = &op->st[op->nst];

	st->iod = iod;
	st->rel = rel;
	st->op = opc;
	st->reqid = conn_next_reqid();
	st->state = IO_SEND;
	st->win = st->win_inline;
	st->win_pos = 1;
	st->in_want = PVFS_HDR_LEN + io_rep_hint(opc);
	pvfs_buf_init(&st->out);
	op->nst++;
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

/* The stream walks the whole segment list for its pieces, so that their
 * mem offsets count in the user's stream even when the iod was sent only
 * the segments it holds bytes of. */
static int
io_stream_data(struct io_op *op, struct io_stream *st, const struct io_segs *sg,
    const struct pvfs_dist *d, uint64_t share, uint64_t blocks)
{
	st->share = share;
	if (sg->nseg == 1)
		pvfs_stripe_iter_init(&st->it, sg->seg, d->pcount, d->ssize,
		    st->rel);
	else
		pvfs_stripe_iter_init_list(&st->it, sg->seg, sg->nseg,
		    d->pcount, d->ssize, st->rel);
	st->win_max = io_win_size(blocks, share, d->ssize, op->uiovcnt);
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
io_win_add(struct io_op *op, struct io_stream *st, uint64_t *limit)
{
	const struct iovec *u;
	uint64_t off, n;

	while (st->uidx < op->uiovcnt &&
	    st->ubase + op->uiov[st->uidx].iov_len <= st->piece_mem) {
		st->ubase += op->uiov[st->uidx].iov_len;
		st->uidx++;
	}
	if (st->uidx >= op->uiovcnt)
		return -1;
	u = &op->uiov[st->uidx];
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
io_win_fill(struct io_op *op, struct io_stream *st)
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
		if (io_win_add(op, st, &limit) != 0)
			break;
	}
}

static void
io_win_consume(struct io_stream *st, size_t k)
{
	struct iovec *e;

	st->data_left -= k;
	while (k > 0) {
		e = &st->win[st->win_pos];
		if (k >= e->iov_len) {
			k -= e->iov_len;
			st->win_pos++;
		} else {
			e->iov_base = (char *)e->iov_base + k;
			e->iov_len -= k;
			k = 0;
		}
	}
}

/* The part of a read's share past the iod's end of file reads as zeros. */
static void
io_zero_rest(struct io_op *op, struct io_stream *st)
{
	int i;

	st->data_left = st->zero_left;
	st->zero_left = 0;
	while (st->data_left > 0) {
		io_win_fill(op, st);
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

/* The frame and, for a write, the data: one sendmsg over [frame, pieces]
 * so a small write leaves in one segment. */
static int
io_send(struct io_op *op, struct io_stream *st)
{
	size_t hdr_left = st->out.len - st->out.off, take;
	struct msghdr mh;
	ssize_t k;

	if (st->win_pos > st->win_cnt && st->data_left > 0) {
		io_win_fill(op, st);
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
io_reply(struct io_op *op, struct io_stream *st)
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
		io_zero_rest(op, st);
	return 1;
}

static int
io_recv_reply(struct io_op *op, struct io_stream *st)
{
	ssize_t k = recv(st->conn->fd, st->in + st->in_got,
	    st->in_want - st->in_got, 0);

	if (k == 0) {
		errno = EPIPE;
		return -1;
	}
	if (k < 0)
		return io_again();
	st->in_got += (size_t)k;
	if (st->in_got < PVFS_HDR_LEN)
		return 1;
	if (!st->hdr_ok && io_check_hdr(st) != 0)
		return -1;
	if (st->in_got < st->in_want)
		return 1;
	return io_reply(op, st);
}

static int
io_recv_data(struct io_op *op, struct io_stream *st)
{
	ssize_t k;

	if (st->win_pos > st->win_cnt)
		io_win_fill(op, st);
	if (st->win_pos > st->win_cnt) {
		errno = EFAULT; /* user iovecs shorter than the pattern */
		return -1;
	}
	k = readv(st->conn->fd, st->win + st->win_pos, st->win_cnt - st->win_pos + 1);
	if (k == 0) {
		errno = EPIPE;
		return -1;
	}
	if (k < 0)
		return io_again();
	io_win_consume(st, (size_t)k);
	if (st->data_left == 0) {
		io_zero_rest(op, st);
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
	conn_close(st->conn);
	st->conn = NULL;
}

/* Move st as far as its socket allows; 1 if anything happened. */
static int
io_step(struct io_op *op, struct io_stream *st, short revents)
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
			rc = io_send(op, st);
		else if (st->state == IO_RECV_HDR)
			rc = io_recv_reply(op, st);
		else if (st->state == IO_RECV_DATA)
			rc = io_recv_data(op, st);
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
io_poll_set(struct io_op *op)
{
	int i, n = 0;

	for (i = 0; i < op->nst; i++) {
		short ev = io_events(&op->st[i]);

		if (ev == 0)
			continue;
		op->pfd[n] = (struct pollfd){ .fd = op->st[i].conn->fd, .events = ev };
		op->pidx[n++] = i;
	}
	return n;
}

static void
io_fail_active(struct io_op *op, int err)
{
	int i;

	for (i = 0; i < op->nst; i++)
		if (io_events(&op->st[i]) != 0)
			io_fail(&op->st[i], err);
}

/* Drive every stream until all are done or failed.  The timeout bounds
 * each wait with no progress on any stream, so a large transfer is never
 * cut short while a stopped iod is still noticed in time. */
static void
io_run(struct io_op *op)
{
	int64_t deadline, left;
	int i, n, rc, progress;

	for (i = 0; i < op->nst; i++)
		io_step(op, &op->st[i], 0);
	deadline = pvfs_mono_ms() + op->fs->timeout_ms;
	while ((n = io_poll_set(op)) > 0) {
		left = deadline - pvfs_mono_ms();
		if (left <= 0) {
			io_fail_active(op, ETIMEDOUT);
			return;
		}
		rc = poll(op->pfd, (nfds_t)n, left > INT_MAX ? INT_MAX : (int)left);
		if (rc < 0 && errno != EINTR) {
			io_fail_active(op, errno);
			return;
		}
		for (i = 0, progress = 0; rc > 0 && i < n; i++)
			if (op->pfd[i].revents != 0)
				progress |= io_step(op, &op->st[op->pidx[i]],
				    op->pfd[i].revents);
		if (progress)
			deadline = pvfs_mono_ms() + op->fs->timeout_ms;
	}
}

/* The operation's result: 0, or -1 with the most telling errno and
 * whether sending it all again may help. */
static int
io_op_result(struct io_op *op, enum io_retry *retry)
{
	int i, err = 0, key = 0, stale = 0;

	*retry = IO_RETRY_NO;
	for (i = 0; i < op->nst; i++) {
		const struct io_stream *st = &op->st[i];

		if (st->state != IO_FAILED)
			continue;
		if (st->stale)
			stale = 1;
		else if (st->err == EKEYEXPIRED)
			key = 1;
		else if (err == 0) {
			err = st->err;
			client_detail_iod(op->fs, st->iod, err);
		}
	}
	if (err == 0 && key)
		*retry = IO_RETRY_KEY;
	else if (err == 0 && stale)
		*retry = IO_RETRY_STALE;
	if (err == 0 && !key && !stale)
		return 0;
	errno = err ? err : key ? EKEYEXPIRED : EIO;
	return -1;
}

/* Nothing is sent unless every iod is reachable.  A refused connection
 * may mean the iod restarted on a new port: ask the mgr once. */
static int
io_op_connect(struct io_op *op)
{
	struct client_fs *fs = op->fs;
	struct io_stream *st;
	int i, reloaded = 0;

	for (i = 0; i < op->nst; i++) {
		st = &op->st[i];
		if (conn_acquire(&fs->iods[st->iod], fs->timeout_ms, &st->conn) == 0)
			continue;
		if (errno != ECONNREFUSED || reloaded++ ||
		    client_fs_reload_iods(fs) != 1 ||
		    conn_acquire(&fs->iods[st->iod], fs->timeout_ms, &st->conn) != 0) {
			client_detail_iod(fs, st->iod, errno);
			return -1;
		}
	}
	return 0;
}

static int
io_op_go(struct io_op *op, enum io_retry *retry)
{
	*retry = IO_RETRY_NO;
	client_detail_clear();
	if (io_op_connect(op) != 0)
		return -1;
	io_run(op);
	return io_op_result(op, retry);
}

/* The distribution comes signed from the mgr, but it must still fit the
 * iod table we know. */
static int
io_check_file(struct io_file *f)
{
	const struct pvfs_dist *d = &f->cap.dist;

	if (client_fs_info(f->fs) != 0)
		return -1;
	if (d->pcount == 0 || d->pcount > f->fs->niods || d->ssize == 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int
io_refresh(struct io_file *f)
{
	struct pvfs_mgr_getattr_req req;
	struct pvfs_mgr_attrcap_rep rep;

	memset(&req, 0, sizeof(req));
	client_cred(&req.cred);
	req.ino = f->ino;
	req.rights = f->want_rights;
	if (conn_rpc(f->fs, PVFS_MGR_GETATTR, &req, &rep) != 0)
		return -1;
	if (rep.cap.gen != f->cap.gen) {
		/* Another file has the inode number now (after a restore or a
		 * salvage): this one is gone. */
		errno = ESTALE;
		return -1;
	}
	f->cap = rep.cap;
	f->refreshed = 1;
	return 0;
}

/* The segments of sg that hold bytes of iod rel, into sub (nseg entries
 * of room); their number, their total share and block count. */
static uint32_t
io_segs_for(const struct io_segs *sg, const struct pvfs_dist *d, uint32_t rel,
    struct pvfs_pattern *sub, uint64_t *share, uint64_t *blocks)
{
	uint64_t n;
	uint32_t i, m = 0;

	*share = *blocks = 0;
	for (i = 0; i < sg->nseg; i++) {
		n = pvfs_stripe_share(&sg->seg[i], d->pcount, d->ssize, rel);
		if (n == 0)
			continue;
		sub[m++] = sg->seg[i];
		*share += n;
		*blocks += sg->seg[i].count;
	}
	return m;
}

/* The request for one iod: IOD_READ/WRITE for one segment, else the LIST
 * form with only the segments it holds bytes of. */
static uint16_t
io_data_req(int write, const struct io_file *f, uint32_t rel,
    struct pvfs_pattern *sub, uint32_t m, uint64_t share, union io_req *req)
{
	memset(req, 0, sizeof(*req));
	if (m == 1) {
		req->read.cap = f->cap;
		req->read.rel = rel;
		req->read.pat = sub[0];
		req->write.stream_len = write ? share : 0;
		return write ? PVFS_IOD_WRITE : PVFS_IOD_READ;
	}
	if (write) {
		req->write_list = (struct pvfs_iod_write_list_req){ f->cap, rel,
			m, sub, share };
		return PVFS_IOD_WRITE_LIST;
	}
	req->read_list = (struct pvfs_iod_read_list_req){ f->cap, rel, m, sub };
	return PVFS_IOD_READ_LIST;
}

/* One READ or WRITE stream per iod holding part of the segments. */
static int
io_op_data(struct io_op *op, struct io_file *f, int write,
    const struct io_segs *sg)
{
	const struct pvfs_dist *d = &f->cap.dist;
	struct pvfs_pattern *sub;
	union io_req req;
	struct io_stream *st;
	uint64_t share, blocks;
	uint32_t rel, m;
	uint16_t opc;
	int rc = 0;

	if ((sub = malloc(sizeof(*sub) * sg->nseg)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (rel = 0; rc == 0 && rel < d->pcount; rel++) {
		m = io_segs_for(sg, d, rel, sub, &share, &blocks);
		if (m == 0)
			continue;
		opc = io_data_req(write, f, rel, sub, m, share, &req);
		st = io_stream_add(op, pvfs_stripe_abs(d, rel, f->fs->niods), rel,
		    opc, &req);
		if (st == NULL || io_stream_data(op, st, sg, d, share, blocks) != 0)
			rc = -1;
	}
	free(sub);
	return rc;
}

static int
io_rw_once(struct io_file *f, int write, const struct io_segs *sg,
    const struct iovec *iov, int iovcnt, uint64_t *max_end,
    enum io_retry *retry)
{
	struct io_op op;
	int i, rc;

	*retry = IO_RETRY_NO;
	if (io_op_init(&op, f->fs, iov, iovcnt, f->cap.dist.pcount) != 0)
		return -1;
	rc = io_op_data(&op, f, write, sg);
	if (rc == 0)
		rc = io_op_go(&op, retry);
	for (i = 0, *max_end = 0; rc == 0 && !write && i < op.nst; i++)
		if (op.st[i].rep.read.logical_end > *max_end)
			*max_end = op.st[i].rep.read.logical_end;
	io_op_free(&op);
	return rc;
}

static int
io_rw(struct io_file *f, int write, const struct io_segs *sg,
    const struct iovec *iov, int iovcnt, uint64_t *max_end)
{
	enum io_retry retry;
	int attempt, rc;

	if (io_check_file(f) != 0)
		return -1;
	/* What the iods would refuse (callers split with pvfs_list_round). */
	if (sg->nseg == 1 ? pvfs_pattern_check(sg->seg) != 0 :
	    pvfs_list_check(sg->seg, sg->nseg) != 0 ||
	    pvfs_list_work(sg->seg, sg->nseg, f->cap.dist.pcount,
	    f->cap.dist.ssize) > PVFS_LIST_MAX_WORK) {
		errno = EINVAL;
		return -1;
	}
	for (attempt = 0;; attempt++) {
		rc = io_rw_once(f, write, sg, iov, iovcnt, max_end, &retry);
		if (rc == 0 || retry == IO_RETRY_NO || attempt > 0)
			return rc;
		if (retry == IO_RETRY_KEY && io_refresh(f) != 0)
			return -1;
	}
}

void
io_pattern_contig(struct pvfs_pattern *p, uint64_t off, uint64_t len)
{
	p->offset = off;
	p->gsize = len;
	p->stride = len;
	p->count = 1;
}

ssize_t
io_read_segs(struct io_file *f, const struct pvfs_pattern *seg, uint32_t nseg,
    const struct iovec *iov, int iovcnt)
{
	struct io_segs sg = { seg, nseg };
	uint64_t max_end;
	struct io_size sz;

	if (io_rw(f, 0, &sg, iov, iovcnt, &max_end) != 0)
		return -1;
	if (max_end >= pvfs_pattern_end(&seg[nseg - 1]))
		return (ssize_t)pvfs_list_bytes(seg, nseg);
	/* The iods we read end before the request does: only the whole
	 * file's size tells a hole from the end of file. */
	if (io_size(f, &sz) != 0)
		return -1;
	if (sz.size < max_end)
		sz.size = max_end;
	return (ssize_t)pvfs_list_below(seg, nseg, sz.size);
}

ssize_t
io_write_segs(struct io_file *f, const struct pvfs_pattern *seg, uint32_t nseg,
    const struct iovec *iov, int iovcnt)
{
	struct io_segs sg = { seg, nseg };
	uint64_t max_end;

	if (io_rw(f, 1, &sg, iov, iovcnt, &max_end) != 0)
		return -1;
	return (ssize_t)pvfs_list_bytes(seg, nseg);
}

ssize_t
io_read(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt)
{
	return io_read_segs(f, pat, 1, iov, iovcnt);
}

ssize_t
io_write(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt)
{
	return io_write_segs(f, pat, 1, iov, iovcnt);
}

/* ---- small requests to every iod of a file, or of the file system ---- */

static void
io_build_req(uint16_t opc, const struct io_file *f, uint32_t rel, uint64_t arg,
    union io_req *req)
{
	memset(req, 0, sizeof(*req));
	switch (opc) {
	case PVFS_IOD_SIZE:
		req->size.cap = f->cap;
		req->size.rel = rel;
		break;
	case PVFS_IOD_TRUNCATE:
		req->truncate.cap = f->cap;
		req->truncate.rel = rel;
		req->truncate.length = arg;
		break;
	case PVFS_IOD_FSYNC:
		req->fsync.cap = f->cap;
		req->fsync.datasync = (uint8_t)arg;
		break;
	case PVFS_IOD_REMOVE:
		req->remove.cap = f->cap;
		break;
	}
}

static int
io_bcast_once(struct io_file *f, uint16_t opc, uint64_t arg, struct io_op *op,
    enum io_retry *retry)
{
	const struct pvfs_dist *d = &f->cap.dist;
	union io_req req;
	uint32_t rel;

	*retry = IO_RETRY_NO;
	if (io_op_init(op, f->fs, NULL, 0, d->pcount) != 0)
		return -1;
	for (rel = 0; rel < d->pcount; rel++) {
		io_build_req(opc, f, rel, arg, &req);
		if (io_stream_add(op, pvfs_stripe_abs(d, rel, f->fs->niods), rel,
		    opc, &req) == NULL)
			return -1;
	}
	return io_op_go(op, retry);
}

/* Send opc to every iod of f at once.  On success op holds the replies;
 * the caller frees it with io_op_free either way. */
static int
io_bcast(struct io_file *f, uint16_t opc, uint64_t arg, struct io_op *op)
{
	enum io_retry retry;
	int attempt, rc;

	if (io_check_file(f) != 0) {
		memset(op, 0, sizeof(*op));
		return -1;
	}
	for (attempt = 0;; attempt++) {
		rc = io_bcast_once(f, opc, arg, op, &retry);
		if (rc == 0 || retry == IO_RETRY_NO || attempt > 0)
			return rc;
		io_op_free(op);
		memset(op, 0, sizeof(*op));
		if (retry == IO_RETRY_KEY && io_refresh(f) != 0)
			return -1;
	}
}

int
io_size(struct io_file *f, struct io_size *out)
{
	struct io_op op;
	int i, rc = io_bcast(f, PVFS_IOD_SIZE, 0, &op);

	memset(out, 0, sizeof(*out));
	for (i = 0; rc == 0 && i < op.nst; i++) {
		const struct pvfs_iod_size_rep *r = &op.st[i].rep.size;

		if (r->logical_end > out->size)
			out->size = r->logical_end;
		if (r->mtime_ns > out->mtime_ns)
			out->mtime_ns = r->mtime_ns;
		out->blocks += r->blocks;
	}
	io_op_free(&op);
	return rc;
}

int
io_truncate(struct io_file *f, uint64_t length)
{
	struct io_op op;
	int rc = io_bcast(f, PVFS_IOD_TRUNCATE, length, &op);

	io_op_free(&op);
	return rc;
}

int
io_fsync(struct io_file *f, int datasync)
{
	struct io_op op;
	int rc = io_bcast(f, PVFS_IOD_FSYNC, datasync != 0, &op);

	io_op_free(&op);
	return rc;
}

/* IOD_REMOVE to the iods of f one at a time, after a broadcast failed
 * as a whole (one iod down fails it before anything is sent): those that
 * answer still drop their stripes, leaving pvfs-fsck only the dead one's. */
static void
io_remove_each(struct io_file *f)
{
	const struct pvfs_dist *d = &f->cap.dist;
	enum io_retry retry;
	union io_req req;
	struct io_op op;
	uint32_t rel;

	for (rel = 0; rel < d->pcount; rel++) {
		io_build_req(PVFS_IOD_REMOVE, f, rel, 0, &req);
		if (io_op_init(&op, f->fs, NULL, 0, 1) == 0 &&
		    io_stream_add(&op, pvfs_stripe_abs(d, rel, f->fs->niods), rel,
		    PVFS_IOD_REMOVE, &req) != NULL)
			(void)io_op_go(&op, &retry);
		io_op_free(&op);
	}
}

/* A stripe file that is already gone is what we wanted.  A stopped iod
 * (ETIMEDOUT) is not asked again: that would double the wait. */
int
io_remove(struct client_fs *fs, const struct pvfs_cap *cap)
{
	struct io_file f;
	struct io_op op;
	int rc, saved;

	memset(&f, 0, sizeof(f));
	f.fs = fs;
	f.ino = cap->ino;
	f.cap = *cap;
	f.want_rights = PVFS_R_REMOVE;
	rc = io_bcast(&f, PVFS_IOD_REMOVE, 0, &op);
	io_op_free(&op);
	if (rc != 0 && errno == ENOENT)
		rc = 0;
	if (rc != 0 && errno != ETIMEDOUT && f.cap.dist.pcount > 1 &&
	    io_check_file(&f) == 0) {
		saved = errno;
		io_remove_each(&f);
		errno = saved;
	}
	return rc;
}

static int
io_statfs_once(struct client_fs *fs, struct io_op *op, enum io_retry *retry)
{
	union io_req req;
	uint32_t i;

	*retry = IO_RETRY_NO;
	memset(&req, 0, sizeof(req));
	if (io_op_init(op, fs, NULL, 0, fs->niods) != 0)
		return -1;
	for (i = 0; i < fs->niods; i++)
		if (io_stream_add(op, i, i, PVFS_IOD_STATFS, &req) == NULL)
			return -1;
	return io_op_go(op, retry);
}

/* The iods report blocks, bfree and bavail in bytes (so that iods on file
 * systems with different block sizes add up); the sum is expressed in
 * blocks of the first iod's block size. */
static void
io_statfs_sum(const struct io_op *op, struct pvfs_iod_statfs_rep *sum)
{
	uint64_t bs = 0;
	int i;

	for (i = 0; i < op->nst; i++) {
		const struct pvfs_iod_statfs_rep *r = &op->st[i].rep.statfs;

		if (bs == 0)
			bs = r->bsize;
		sum->blocks += r->blocks;
		sum->bfree += r->bfree;
		sum->bavail += r->bavail;
		sum->files += r->files;
		sum->ffree += r->ffree;
	}
	bs = bs ? bs : 4096;
	sum->blocks /= bs;
	sum->bfree /= bs;
	sum->bavail /= bs;
	sum->bsize = bs;
}

int
io_statfs(struct client_fs *fs, struct pvfs_iod_statfs_rep *sum)
{
	struct io_op op;
	enum io_retry retry;
	int rc;

	memset(sum, 0, sizeof(*sum));
	if (client_fs_info(fs) != 0)
		return -1;
	rc = io_statfs_once(fs, &op, &retry);
	if (rc != 0 && retry == IO_RETRY_STALE) {
		io_op_free(&op);
		rc = io_statfs_once(fs, &op, &retry);
	}
	if (rc == 0)
		io_statfs_sum(&op, sum);
	io_op_free(&op);
	return rc;
}
