/*
 * iod-xfer.c - the walk of a stream over the iod's share of a pattern:
 * runs of stripe pieces with consecutive local offsets, which a READ
 * sends with sendfile and a WRITE receives into the shared buffer and
 * writes with one pwrite per run (iod-conn.c drives both; iod-ops.c
 * starts them).
 */
#include <errno.h>
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
