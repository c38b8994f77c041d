/*
 * iod-xfer.c - the walk of a stream over the iod's share of a pattern:
 * runs of stripe pieces with consecutive local offsets, which a READ
 * sends with sendfile and a WRITE receives either by splice through a
 * pipe into the stripe file (a long run: no copy into user memory) or
 * into the shared buffer, written with one pwrite per run (short runs,
 * many per recv).  iod-conn.c drives both; iod-ops.c starts them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

/* Start a stream of len bytes over f (NULL: nothing on disk) along io's
 * pattern; io NULL: a stream drained without a walk. */
void
iod_xfer_start(struct iod_xfer *x, struct iod_file *f,
    const struct iod_io *io, uint64_t len)
{
	const struct pvfs_dist *d;

	memset(x, 0, sizeof *x);
	x->file = f;
	x->left = x->total = len;
	if (io == NULL)
		return;
	d = &io->cap->dist;
	if (io->own == NULL) {
		pvfs_stripe_iter_init(&x->it, io->seg, d->pcount, d->ssize,
		    io->rel);
		return;
	}
	x->segs = *io->own;
	*io->own = NULL;
	pvfs_stripe_iter_init_list(&x->it, x->segs, io->nseg, d->pcount,
	    d->ssize, io->rel);
}

/* Release what a stream holds; safe to call twice. */
void
iod_xfer_end(struct iod_xfer *x)
{
	iod_store_put(x->file);
	x->file = NULL;
	free(x->segs);
	x->segs = NULL;
	x->left = 0;
	x->run_left = 0;
}

/* Start the next run: the pending piece merged with the following ones
 * whose local offsets continue it, clipped to the stream's end.  1, or 0
 * if the walk is over.  *pieces counts the pieces walked (a budget). */
int
iod_xfer_run_next(struct iod_xfer *x, unsigned *pieces)
{
	struct pvfs_piece pc;

	if (x->left == 0 || x->iter_done)
		return 0;
	if (!x->has_ahead) {
		(*pieces)++;
		if (!pvfs_stripe_iter_next(&x->it, &x->ahead)) {
			x->iter_done = 1;
			return 0;
		}
	}
	x->has_ahead = 0;
	x->run_local = x->ahead.local;
	x->run_left = x->ahead.len;
	while (x->run_left < x->left && *pieces < IOD_BUDGET_PIECES) {
		(*pieces)++;
		if (!pvfs_stripe_iter_next(&x->it, &pc)) {
			x->iter_done = 1;
			break;
		}
		if (pc.local != x->run_local + x->run_left) {
			x->ahead = pc;
			x->has_ahead = 1;
			break;
		}
		x->run_left += pc.len;
	}
	if (x->run_left > x->left)
		x->run_left = x->left;
	return 1;
}

/* How many stream bytes (<= max) to receive before the next flush, so
 * that the flush stays within the wake-up's budget of calls (one pwrite
 * per run) and pieces, which this charges. */
uint64_t
iod_xfer_write_plan(const struct iod_xfer *x, uint64_t max,
    unsigned *calls, unsigned *pieces)
{
	struct iod_xfer p = *x;
	uint64_t sum = 0;

	if (x->discard)
		return x->left < max ? x->left : max;
	while (sum < max && *calls < IOD_BUDGET_CALLS &&
	    *pieces < IOD_BUDGET_PIECES) {
		if (p.run_left == 0 && !iod_xfer_run_next(&p, pieces))
			break;
		sum += p.run_left;
		p.left -= p.run_left;
		p.run_left = 0;
		(*calls)++;
	}
	return sum < max ? sum : max;
}

int
iod_xfer_pwrite(int fd, const uint8_t *buf, uint64_t len, uint64_t off)
{
	ssize_t n;

	while (len > 0) {
		n = pwrite(fd, buf, len, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return errno;
		if (n == 0)
			return ENOSPC;
		buf += n;
		len -= (uint64_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Write n received stream bytes, one pwrite per run.  After the first
 * error the rest of the stream is drained unwritten. */
void
iod_xfer_write_flush(struct iod_xfer *x, const uint8_t *buf, uint64_t n)
{
	unsigned pieces = 0;
	uint64_t len;

	while (n > 0) {
		if (x->discard) {
			x->left -= n;
			return;
		}
		if (x->run_left == 0 && !iod_xfer_run_next(x, &pieces)) {
			x->err = EIO; /* walk shorter than the share: a bug */
			x->discard = 1;
			continue;
		}
		len = x->run_left < n ? x->run_left : n;
		if ((x->err = x->mw.on ? iod_mirror_pwrite(&x->mw, x->file->fd,
		    buf, len, x->run_local) :
		    iod_xfer_pwrite(x->file->fd, buf, len, x->run_local)) != 0)
			x->discard = 1;
		buf += len;
		n -= len;
		x->run_local += len;
		x->run_left -= len;
		x->left -= len;
	}
}

/* The pipe WRITE streams pass through from the socket to the file: one
 * for the daemon, like the receive buffer, and for the same reason safe:
 * what a wake-up splices into it is written out (or drained) before
 * control returns to the loop, so it is empty between wake-ups. */
static int iod_xfer_pipe[2] = { -1, -1 };
static uint64_t iod_xfer_pipe_size;
static int iod_xfer_pipe_off;	/* no pipe: every stream takes the buffer */

static void
iod_xfer_pipe_close(void)
{
	if (iod_xfer_pipe[0] != -1) {
		close(iod_xfer_pipe[0]);
		close(iod_xfer_pipe[1]);
	}
	iod_xfer_pipe[0] = iod_xfer_pipe[1] = -1;
}

/* Made at first use (after the daemon forked); a failure only costs the
 * copy, so the stream takes the buffer rather than failing.  Out of
 * descriptors is for now (a later stream tries again); anything else turns
 * splice off for good. */
static int
iod_xfer_pipe_open(void)
{
	static struct pvfs_ratelimit rl;
	unsigned long held;
	int sz;

	if (iod_xfer_pipe[0] != -1 || iod_xfer_pipe_off)
		return iod_xfer_pipe_off ? -1 : 0;
	if (pipe2(iod_xfer_pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
		if (errno != EMFILE && errno != ENFILE)
			iod_xfer_pipe_off = 1;
		if (pvfs_ratelimit(&rl, pvfs_mono_ms(), &held))
			pvfs_log_warn("pipe: %s; WRITE streams go through a "
			    "buffer%s", strerror(errno), iod_xfer_pipe_off ?
			    "" : " until a descriptor is free");
		iod_xfer_pipe[0] = iod_xfer_pipe[1] = -1;
		return -1;
	}
	/* Larger than the default 64 KiB when the system allows it. */
	(void)fcntl(iod_xfer_pipe[1], F_SETPIPE_SZ, IOD_PIPE_SIZE);
	if ((sz = fcntl(iod_xfer_pipe[1], F_GETPIPE_SZ)) <= 0)
		sz = 65536;
	iod_xfer_pipe_size = (uint64_t)sz;
	return 0;
}

/* How many bytes of the current run to splice now, at most max: 0 when
 * the stream takes the buffer (drained, no file, a mirrored file, a
 * short run, no pipe). */
uint64_t
iod_xfer_splice_plan(struct iod_xfer *x, uint64_t max, unsigned *pieces)
{
	uint64_t n;

	if (x->discard || x->file == NULL || x->mw.on ||
	    iod_xfer_pipe_open() != 0)
		return 0;
	if (x->run_left == 0 && !iod_xfer_run_next(x, pieces))
		return 0;
	if (x->run_left < IOD_SPLICE_MIN)
		return 0;
	n = x->run_left < max ? x->run_left : max;
	return n < iod_xfer_pipe_size ? n : iod_xfer_pipe_size;
}

/* Empty the pipe of n bytes that cannot be written; a pipe that will not
 * give them back is replaced, so the next stream never sees them. */
static void
iod_xfer_pipe_drain(uint64_t n)
{
	ssize_t k;

	while (n > 0) {
		k = read(iod_xfer_pipe[0], iod.xbuf,
		    n < IOD_XFER_BUF ? n : IOD_XFER_BUF);
		if (k == -1 && errno == EINTR)
			continue;
		if (k <= 0) {
			pvfs_log_warn("pipe drain: %s", k == 0 ? "EOF" :
			    strerror(errno));
			iod_xfer_pipe_close();
			return;
		}
		n -= (uint64_t)k;
	}
}

/* Splice up to want bytes of the current run (iod_xfer_splice_plan) from
 * sock into the pipe, and from the pipe into the stripe file at the run's
 * offset, before returning.  As recv: the bytes received (> 0), 0 at the
 * peer's EOF, -1 with errno (EAGAIN: nothing there).  After a write error
 * the bytes received are drained and the rest of the stream too. */
ssize_t
iod_xfer_splice(struct iod_xfer *x, int sock, uint64_t want)
{
	ssize_t n, k;
	uint64_t left;
	loff_t off;

	n = splice(sock, NULL, iod_xfer_pipe[1], NULL, want,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n == -1 && errno == EINVAL) {
		/* A socket that cannot splice: the buffer from now on. */
		pvfs_log_warn("splice from a socket: %s; WRITE streams go "
		    "through a buffer", strerror(errno));
		iod_xfer_pipe_close();
		iod_xfer_pipe_off = 1;
		errno = EINTR; /* the caller tries again, by the buffer */
		return -1;
	}
	if (n <= 0)
		return n;
	for (left = (uint64_t)n; left > 0 && !x->discard; ) {
		off = (loff_t)x->run_local;
		k = splice(iod_xfer_pipe[0], NULL, x->file->fd, &off, left,
		    SPLICE_F_MOVE);
		if (k == -1 && errno == EINTR)
			continue;
		if (k <= 0) {
			x->err = k == 0 ? ENOSPC : errno;
			x->discard = 1;
			break;
		}
		x->run_local += (uint64_t)k;
		x->run_left -= (uint64_t)k;
		x->left -= (uint64_t)k;
		left -= (uint64_t)k;
	}
	if (left > 0) {
		iod_xfer_pipe_drain(left);
		x->left -= left;
	}
	return n;
}
