/*
 * mgr-free.c - removing orphans' stripes from the iods, on the mgr's loop
 * (doc/design.md, "Freeing a file's stripes").
 *
 * Every regular file whose last name goes is an orphan: an ORPHAN record,
 * journaled with the change that removes the name, is the durable list of
 * stripes still to free.  Once no lease holds an orphan (mgr-lease.c) and
 * its record is on disk, this file sends IOD_REMOVE for each of its
 * stripes and journals FREE when every iod has confirmed.
 *
 * Each iod has one non-blocking connection here, one request in flight,
 * a timeout on the exchange and a backoff after a failure; mgr-iods.c
 * says when an iod answers HELLO again, and its backlog starts at once.
 * An iod that is down holds up only the stripes it has: the others go.
 * No reply to a client waits for any of this, and nothing blocks.
 */
#include <sys/socket.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgr.h"

#define FREE_TICK 0.5          /* seconds between looks at the orphans */
#define FREE_TIMEOUT 5.0       /* for connect, or one request and reply */
#define FREE_BACKOFF_MIN 0.5
#define FREE_BACKOFF_MAX 10.0
#define FREE_REP_MAX 256       /* an IOD_REMOVE reply has no body */

enum free_step {
	FREE_CLOSED,     /* no connection */
	FREE_CONNECTING, /* non-blocking connect in progress */
	FREE_READY,      /* connected, nothing in flight */
	FREE_EXCHANGE,   /* a request sent or being sent, its reply awaited */
};

struct free_iod {
	uint32_t index;
	int fd;
	ev_io io;
	ev_timer timer;          /* the exchange's timeout */
	enum free_step step;
	double backoff;
	ev_tstamp retry_at;      /* after a failure: no try before this */
	int failing;             /* the failure is logged; say when it ends */
	uint64_t ino, gen;       /* the stripe in flight: file and position */
	uint32_t rel;
	uint32_t reqid;
	struct pvfs_buf out;
	uint8_t in[PVFS_HDR_LEN + FREE_REP_MAX];
	size_t in_len;
};

static struct free_iod *free_iods;
static struct ev_loop *free_loop;
static ev_timer free_tick, free_kick;
static uint64_t free_commits;  /* journal commits so far */
static uint64_t free_new_at;   /* the commit that makes the newest orphan
                                * durable */
static int free_started;

static void free_io_cb(struct ev_loop *loop, ev_io *w, int revents);
static void free_run(void);

/* ---- which orphans, which stripes ---- */

/* in's record reaches the disk with the next commit: no stripe of it may
 * go before (a crash would bring back a name without its data). */
void
mgr_free_orphan_new(struct mgr_inode *in)
{
	in->ox->durable_at = free_new_at = free_commits + 1;
}

/* free_run on the next loop iteration (not from inside a commit). */
static void
free_kick_soon(void)
{
	if (free_started && !ev_is_active(&free_kick)) {
		ev_timer_set(&free_kick, 0., 0.);
		ev_timer_start(free_loop, &free_kick);
	}
}

/* The journal committed: orphans logged before are on disk. */
void
mgr_free_durable(void)
{
	if (++free_commits == free_new_at)
		free_kick_soon();
}

static int
free_due(const struct mgr_inode *in, int64_t now)
{
	return in->orphan && in->leases == 0 && in->ox->free_at <= now &&
	    in->ox->durable_at <= free_commits;
}

/* Positions of in's stripe files: pcount per copy (mirrored files); a
 * position p is rel p % pcount of copy p / pcount. */
static uint32_t
free_npos(const struct mgr_inode *in)
{
	return in->dist.pcount * pvfs_dist_copies(&in->dist);
}

/* Every stripe of in confirmed gone: forget it (a FREE record). */
static void
free_done(struct mgr_inode *in)
{
	struct mgr_rec r;
	uint32_t rel;

	for (rel = 0; rel < free_npos(in); rel++) {
		if (in->ox->rm_done == NULL || !in->ox->rm_done[rel])
			return;
	}
	pvfs_log_debug("orphan inode %" PRIu64 " freed", in->ino);
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_FREE;
	r.ino = in->ino;
	mgr_journal_log(&r);
}

/* ---- one iod's connection ---- */

static void
free_close(struct free_iod *d)
{
	if (d->fd != -1) {
		ev_io_stop(free_loop, &d->io);
		close(d->fd);
		d->fd = -1;
	}
	ev_timer_stop(free_loop, &d->timer);
	pvfs_buf_reset(&d->out);
	d->in_len = 0;
	d->ino = 0;
	d->step = FREE_CLOSED;
}

static void
free_fail(struct free_iod *d, const char *why, int err)
{
	if (!d->failing)
		pvfs_log_warn("iod %u (%s:%u): cannot remove the stripes of "
		    "freed files yet (%s%s%s); retrying", d->index,
		    mgr.iods[d->index].host, mgr.iods[d->index].port, why,
		    err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
	d->failing = 1;
	free_close(d);
	d->retry_at = ev_now(free_loop) + d->backoff;
	d->backoff = d->backoff * 2 > FREE_BACKOFF_MAX ? FREE_BACKOFF_MAX :
	    d->backoff * 2;
}

static void
free_watch(struct free_iod *d, int events)
{
	ev_io_stop(free_loop, &d->io);
	ev_io_set(&d->io, d->fd, events);
	ev_io_start(free_loop, &d->io);
}

static void
free_arm(struct free_iod *d)
{
	ev_timer_stop(free_loop, &d->timer);
	ev_timer_set(&d->timer, FREE_TIMEOUT, 0.);
	ev_timer_start(free_loop, &d->timer);
}

static void
free_connect(struct free_iod *d)
{
	struct sockaddr_storage sa;
	socklen_t salen;

	if (mgr_iods_sockaddr(d->index, &sa, &salen) != 0) {
		free_fail(d, "its host did not resolve", 0);
		return;
	}
	d->fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (d->fd == -1) {
		free_fail(d, "socket", errno);
		return;
	}
	if (connect(d->fd, (struct sockaddr *)&sa, salen) != 0 &&
	    errno != EINPROGRESS) {
		free_fail(d, "connect", errno);
		return;
	}
	d->step = FREE_CONNECTING;
	ev_io_init(&d->io, free_io_cb, d->fd, EV_WRITE);
	d->io.data = d;
	ev_io_start(free_loop, &d->io);
	free_arm(d);
}

/* IOD_REMOVE for the stripe of in at position rel, on d's connection. */
static void
free_send(struct free_iod *d, struct mgr_inode *in, uint32_t rel)
{
	struct pvfs_iod_cap_req req;

	memset(&req, 0, sizeof(req));
	mgr_cap_mint(in->ino, in->gen, PVFS_R_REMOVE, &in->dist, &req.cap);
	d->ino = in->ino;
	d->gen = in->gen;
	d->rel = rel;
	d->reqid++;
	pvfs_buf_reset(&d->out);
	if (pvfs_frame_encode(&d->out, PVFS_IOD_REMOVE, d->reqid, 0, 0,
	    &req) != 0 || d->out.oom) {
		free_fail(d, "out of memory", 0);
		return;
	}
	d->in_len = 0;
	d->step = FREE_EXCHANGE;
	free_watch(d, EV_WRITE);
	free_arm(d);
}

static void
free_reply(struct free_iod *d, const struct pvfs_hdr *h)
{
	struct mgr_inode *in;

	if (h->op != PVFS_IOD_REMOVE || !(h->flags & PVFS_HDR_REPLY) ||
	    h->reqid != d->reqid) {
		free_fail(d, "a reply to something else", 0);
		return;
	}
	/* Gone already (an iod that never had a stripe of it) is as good;
	 * anything else (a key that differs: EACCES) is tried again. */
	if (h->status != 0 && h->status != ENOENT) {
		free_fail(d, "IOD_REMOVE refused", (int)h->status);
		return;
	}
	if (d->failing)
		pvfs_log_info("iod %u (%s:%u): removing the stripes of freed "
		    "files again", d->index, mgr.iods[d->index].host,
		    mgr.iods[d->index].port);
	d->failing = 0;
	d->backoff = FREE_BACKOFF_MIN;
	ev_timer_stop(free_loop, &d->timer);
	ev_io_stop(free_loop, &d->io);
	d->step = FREE_READY;
	if ((in = mgr_ns_get(d->ino)) != NULL && in->orphan &&
	    in->gen == d->gen && in->ox->rm_done != NULL) {
		in->ox->rm_done[d->rel] = 1;
		free_done(in);
	}
	d->ino = 0;
	free_run();
}

static void
free_recv(struct free_iod *d)
{
	struct pvfs_hdr h;
	size_t want = PVFS_HDR_LEN;
	ssize_t n;

	for (;;) {
		if (d->in_len >= PVFS_HDR_LEN) {
			if (pvfs_hdr_decode(d->in, &h) != 0 ||
			    h.body_len > FREE_REP_MAX) {
				free_fail(d, "bad reply header", 0);
				return;
			}
			want = PVFS_HDR_LEN + h.body_len;
			if (d->in_len == want) {
				free_reply(d, &h);
				return;
			}
		}
		n = recv(d->fd, d->in + d->in_len, want - d->in_len, 0);
		if (n == 0) {
			free_fail(d, "the iod closed the connection", 0);
			return;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				free_fail(d, "recv", errno);
			return;
		}
		d->in_len += (size_t)n;
	}
}

static void
free_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct free_iod *d = w->data;
	socklen_t len = sizeof(int);
	ssize_t n;
	int err = 0;

	(void)loop;
	switch (d->step) {
	case FREE_CONNECTING:
		if (getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			err = errno;
		if (err != 0) {
			free_fail(d, "connect", err);
			return;
		}
		ev_timer_stop(free_loop, &d->timer);
		ev_io_stop(free_loop, &d->io);
		d->step = FREE_READY;
		free_run();
		return;
	case FREE_READY: /* an idle connection closed or spoke */
		free_close(d);
		return;
	case FREE_EXCHANGE:
		break;
	case FREE_CLOSED:
		return;
	}
	if (revents & EV_WRITE) {
		n = send(d->fd, d->out.data + d->out.off,
		    d->out.len - d->out.off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				free_fail(d, "send", errno);
			return;
		}
		d->out.off += (size_t)n;
		if (d->out.off == d->out.len)
			free_watch(d, EV_READ);
	} else if (revents & EV_READ)
		free_recv(d);
}

static void
free_timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct free_iod *d = w->data;

	(void)loop;
	(void)revents;
	free_fail(d, "no answer within 5 s", 0);
}

/* ---- the scheduler ---- */

/* An iod that may take a request now: connected and idle, or closed and
 * past its backoff (then connect: the request follows). */
static int
free_iod_free(struct free_iod *d, ev_tstamp now)
{
	if (d->step == FREE_READY)
		return 1;
	return d->step == FREE_CLOSED && now >= d->retry_at;
}

struct free_walk {
	int64_t now_ms;
	ev_tstamp now;
	uint32_t want;      /* iods that may take a request, not yet given one */
	uint8_t *given;     /* per iod: given one in this walk */
};

static int
free_walk_one(struct mgr_inode *in, void *arg)
{
	struct free_walk *w = arg;
	struct free_iod *d;
	uint32_t rel, abs;

	if (!free_due(in, w->now_ms))
		return 0;
	if (in->ox->rm_done == NULL) {
		in->ox->rm_done = calloc(free_npos(in) ? free_npos(in) : 1, 1);
		if (in->ox->rm_done == NULL)
			pvfs_fatal("out of memory (orphans)");
		in->freeing = 1; /* no new lease from here on */
		if (in->dist.pcount == 0) {
			free_done(in);
			return 0;
		}
	}
	for (rel = 0; rel < free_npos(in) && w->want != 0; rel++) {
		abs = pvfs_stripe_copy_abs(&in->dist, rel % in->dist.pcount,
		    rel / in->dist.pcount, mgr.niods);
		d = &free_iods[abs];
		if (in->ox->rm_done[rel] || w->given[abs] || d->ino == in->ino ||
		    !free_iod_free(d, w->now))
			continue;
		w->given[abs] = 1;
		w->want--;
		if (d->step == FREE_CLOSED)
			free_connect(d); /* free_run again once connected */
		else
			free_send(d, in, rel);
	}
	return w->want == 0;
}

/* Give every iod that can take one the next stripe it holds of a due
 * orphan, oldest orphans first. */
static void
free_run(void)
{
	static uint8_t *given;
	struct free_walk w;
	uint32_t i;

	if (!free_started || mgr_ns_orphan_count() == 0)
		return;
	if (given == NULL && (given = calloc(mgr.niods, 1)) == NULL)
		pvfs_fatal("out of memory");
	memset(given, 0, mgr.niods);
	w.now_ms = pvfs_mono_ms();
	w.now = ev_now(free_loop);
	w.given = given;
	w.want = 0;
	for (i = 0; i < mgr.niods; i++)
		w.want += free_iod_free(&free_iods[i], w.now);
	if (w.want != 0)
		mgr_ns_walk_orphans(free_walk_one, &w);
}

static void
free_tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	uint32_t i;

	(void)loop;
	(void)w;
	(void)revents;
	free_run();
	/* An idle connection nobody needs goes (the iod times it out too). */
	for (i = 0; i < mgr.niods; i++)
		if (free_iods[i].step == FREE_READY)
			free_close(&free_iods[i]);
}

static void
free_kick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	free_run();
}

/* mgr-iods.c heard iod index answer again: its backlog starts now. */
void
mgr_free_iod_up(uint32_t index)
{
	struct free_iod *d;

	if (!free_started || index >= mgr.niods)
		return;
	d = &free_iods[index];
	d->backoff = FREE_BACKOFF_MIN;
	if (d->step == FREE_CLOSED && d->retry_at > ev_now(free_loop)) {
		d->retry_at = 0;
		free_kick_soon();
	}
}

void
mgr_free_start(struct ev_loop *loop)
{
	uint32_t i;

	free_loop = loop;
	if ((free_iods = calloc(mgr.niods, sizeof(*free_iods))) == NULL)
		pvfs_fatal("out of memory");
	for (i = 0; i < mgr.niods; i++) {
		struct free_iod *d = &free_iods[i];

		d->index = i;
		d->fd = -1;
		d->backoff = FREE_BACKOFF_MIN;
		pvfs_buf_init(&d->out);
		ev_init(&d->timer, free_timeout_cb);
		d->timer.data = d;
	}
	ev_init(&free_kick, free_kick_cb);
	ev_timer_init(&free_tick, free_tick_cb, FREE_TICK, FREE_TICK);
	ev_timer_start(loop, &free_tick);
	free_started = 1;
}

void
mgr_free_stop(void)
{
	uint32_t i;

	if (!free_started)
		return;
	for (i = 0; i < mgr.niods; i++) {
		free_close(&free_iods[i]);
		pvfs_buf_free(&free_iods[i].out);
	}
	ev_timer_stop(free_loop, &free_tick);
	ev_timer_stop(free_loop, &free_kick);
	free(free_iods);
	free_iods = NULL;
	free_started = 0;
}
