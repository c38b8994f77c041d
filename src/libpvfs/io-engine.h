/*
 * io-engine.h - the client's stream engine (io-engine.c), for io.c alone.
 *
 * One run of the engine drives a set of streams, each one request to one
 * iod and its reply, from one poll() loop over non-blocking sockets.  It
 * knows the iod messages that carry a data stream (READ and WRITE, plain
 * and LIST), which it moves between the socket and the caller's iovecs
 * with no copy; it knows nothing of what an operation sends to which iod,
 * how the streams' errors add up, or when to try again (io.c).
 */
#ifndef PVFS_IO_ENGINE_H
#define PVFS_IO_ENGINE_H

#include <poll.h>
#include <stdint.h>
#include <sys/uio.h>

#include "pvfs-internal.h"

#define IO_REP_MAX 128 /* largest iod reply body (STATFS, 88 bytes) */

enum io_state {
	IO_SEND,      /* the request frame, then an IOD_WRITE's data stream */
	IO_RECV_HDR,  /* the reply header and its small body */
	IO_RECV_DATA, /* an IOD_READ stream, straight into user memory */
	IO_DONE,      /* exchange complete: the connection can be pooled */
	IO_FAILED,    /* err says why; the connection is closed */
};

union io_rep {
	struct pvfs_iod_read_rep read;
	struct pvfs_iod_write_rep write;
	struct pvfs_iod_size_rep size;
	struct pvfs_iod_statfs_rep statfs;
	struct pvfs_none none;
};

/* The segments one data stream's pattern covers, in file order. */
struct io_segs {
	const struct pvfs_pattern *seg;
	uint32_t nseg;
};

/* One request to one iod.  The caller sets conn before pvfs_io_engine_run and
 * reads state, err, stale and rep after it. */
struct io_stream {
	uint32_t iod, rel;
	uint32_t copy;         /* mirrored files: which copy of rel */
	uint16_t op;
	uint32_t reqid;
	enum io_state state;
	int err;
	int stale;             /* failed on a reused socket before any reply */
	int early;             /* the reply came before our stream was sent */
	int hdr_ok;
	int stalled;           /* given up by e->give_up (err ETIMEDOUT) */
	int64_t stall_at;      /* with e->stall_ms: when it counts as stalled */
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
	/* The user memory of its segments' bytes in order: the engine's,
	 * unless pvfs_io_engine_mem gave the stream its own. */
	const struct iovec *uiov;
	int uiovcnt;
	uint64_t piece_mem, piece_left; /* rest of the current piece */
	int uidx;              /* user iovec holding piece_mem... */
	uint64_t ubase;        /* ...and its offset in the pattern stream */
	struct iovec *win;     /* [0] frame, [1..win_cnt] data */
	struct iovec win_inline[2];
	int win_max, win_cnt, win_pos;
};

/* The streams of one run, st[0..nst), and the user memory that their data
 * streams move (the pattern's bytes in order). */
struct io_engine {
	struct client_fs *fs;
	const struct iovec *uiov;
	int uiovcnt;
	struct io_stream *st;
	int nst;               /* streams added (room for the max of init) */
	struct pollfd *pfd;
	int *pidx;
	/* Set after init, or 0/NULL: a stream that made no progress of its
	 * own for stall_ms is offered to give_up, which fails it now (1:
	 * ETIMEDOUT, stalled set) or lets it go on (0: asked again shortly).
	 * The run's timeout still bounds every wait with no progress at all
	 * (io-mirror.c gives up a stopped iod's copy this way). */
	int stall_ms;
	int (*give_up)(struct io_engine *e, struct io_stream *st, void *arg);
	void *give_up_arg;
};

/* Room for max streams over the user memory uiov.  0, or -1/ENOMEM with e
 * zeroed. */
int pvfs_io_engine_init(struct io_engine *e, struct client_fs *fs,
    const struct iovec *uiov, int uiovcnt, uint32_t max);
/* Pool the connections of complete exchanges (and unused ones), close the
 * rest, and leave e zeroed (freeing it again is harmless). */
void pvfs_io_engine_free(struct io_engine *e);
/* A stream sending req (of type opc) to iod, rel in the file; NULL with
 * errno if its frame could not be built (it still counts in e->nst). */
struct io_stream *pvfs_io_engine_add(struct io_engine *e, uint32_t iod,
    uint32_t rel, uint16_t opc, const void *req);
/* Before pvfs_io_engine_data: the stream's segments' bytes are uiov, not
 * e's user memory (a stream that carries only some of the operation's
 * segments; io-mirror.c). */
void pvfs_io_engine_mem(struct io_stream *st, const struct iovec *uiov,
    int uiovcnt);
/* Give a READ or WRITE stream its data: its share of sg under d (share
 * bytes over blocks blocks), mapped into e's user memory.  0 or -1/ENOMEM. */
int pvfs_io_engine_data(struct io_engine *e, struct io_stream *st,
    const struct io_segs *sg, const struct pvfs_dist *d, uint64_t share,
    uint64_t blocks);
/* Drive every stream until each is IO_DONE or IO_FAILED.  fs->timeout_ms
 * bounds each wait in which no stream made progress. */
void pvfs_io_engine_run(struct io_engine *e);

#endif /* PVFS_IO_ENGINE_H */
