/*
 * mgr-lease.c - open-unlinked files: leases, orphans, and the removal of
 * an orphan's stripes (doc/design.md, "Open-unlinked files").
 *
 * A client holds a lease on a file for each open of it (MGR_LEASE, on a
 * connection of its own that lives as long as it has files open).  When
 * the last name of a leased file goes, an ORPHAN record keeps the inode:
 * no name, still answering GETATTR by inode.  When its last lease goes,
 * the mgr removes its stripes from the iods and journals a FREE record.
 * A close frees at once; a connection that drops (a killed client, or a
 * client whose mgr connection broke and which will take its leases again
 * on a new one) and a mgr restart leave the orphan a grace period first.
 *
 * The iods are spoken to by one worker thread with blocking sockets and
 * timeouts, one orphan at a time, so the loop never waits; the result
 * comes back through an ev_async.  A failure (an iod down) is retried.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgr.h"

#define LEASE_TICK 0.5          /* seconds between looks at the orphans */
#define LEASE_RETRY_MS 5000     /* after a failed removal */
#define LEASE_IOD_TIMEOUT_MS 5000

struct lease_job {
	uint64_t ino, gen;
	struct pvfs_dist dist;
	int done, ok;
};

static struct ev_loop *lease_loop;
static ev_timer lease_timer;
static ev_async lease_async;
static pthread_t lease_thread;
static pthread_mutex_t lease_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lease_cv = PTHREAD_COND_INITIALIZER;
static struct lease_job lease_cur; /* guarded by lease_mu */
static int lease_busy, lease_stop, lease_started;
static double lease_grace = MGR_LEASE_GRACE;

void
mgr_lease_set_grace(double secs)
{
	lease_grace = secs;
}

/* ---- per connection ---- */

static struct mgr_lease *
lease_find(struct mgr_conn *c, uint64_t ino)
{
	uint32_t i;

	for (i = 0; i < c->nleases; i++) {
		if (c->leases[i].ino == ino)
			return &c->leases[i];
	}
	return NULL;
}

/* The orphan in may go once its grace has passed (0: now). */
static void
lease_schedule(struct mgr_inode *in, double after)
{
	in->free_at = pvfs_mono_ms() + (int64_t)(after * 1000);
}

static void
lease_release(struct mgr_inode *in, uint32_t n, double grace)
{
	in->leases -= n;
	if (in->leases == 0 && in->orphan)
		lease_schedule(in, grace);
}

int
mgr_lease_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_lease_req *q = rq;
	struct mgr_inode *in = mgr_ns_get(q->ino);
	struct mgr_lease *l;

	(void)rp;
	if (q->hold > 2)
		return EINVAL;
	if (q->hold != 1) { /* 2: a forked child may hold it still */
		if ((l = lease_find(c, q->ino)) == NULL)
			return EINVAL;
		if (in != NULL)
			lease_release(in, 1, q->hold == 2 ? lease_grace : 0);
		if (--l->count == 0)
			*l = c->leases[--c->nleases];
		return 0;
	}
	if (in == NULL || in->freeing)
		return ENOENT;
	if (in->dir != NULL)
		return EISDIR;
	if (in->gen != q->gen)
		return ESTALE;
	if ((l = lease_find(c, q->ino)) == NULL) {
		if (c->nleases == c->leases_cap) {
			c->leases_cap = c->leases_cap ? c->leases_cap * 2 : 8;
			if ((c->leases = realloc(c->leases,
			    c->leases_cap * sizeof(*c->leases))) == NULL)
				pvfs_fatal("out of memory (leases)");
		}
		l = &c->leases[c->nleases++];
		l->ino = q->ino;
		l->count = 0;
	}
	l->count++;
	in->leases++;
	return 0;
}

/* The connection is gone: its leases with it, after a grace for a client
 * that is still alive and takes them again on a new connection. */
void
mgr_lease_conn_gone(struct mgr_conn *c)
{
	struct mgr_inode *in;
	uint32_t i;

	for (i = 0; i < c->nleases; i++) {
		if ((in = mgr_ns_get(c->leases[i].ino)) != NULL)
			lease_release(in, c->leases[i].count, lease_grace);
	}
	free(c->leases);
	c->leases = NULL;
	c->nleases = c->leases_cap = 0;
}

/* The last name of in is about to go (UNLINK or RENAME over it): 1 if a
 * lease holds it, and then it is kept as an orphan (an ORPHAN record,
 * journaled before the one that removes the name). */
int
mgr_lease_keep(const struct mgr_inode *in)
{
	struct mgr_rec r;

	if (in->dir != NULL || in->nlink != 1 || in->leases == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_ORPHAN;
	r.ino = in->ino;
	r.gen = in->gen;
	r.mode = in->mode & 07777;
	r.uid = in->uid;
	r.gid = in->gid;
	r.atime_ns = in->atime_ns;
	r.mtime_ns = in->mtime_ns;
	r.ctime_ns = in->ctime_ns;
	r.mset_ns = in->mset_ns;
	r.dist = in->dist;
	mgr_journal_log(&r);
	return 1;
}

/* ---- the worker: IOD_REMOVE to each iod of the file ---- */

static int
lease_iod_remove(uint32_t idx, const struct pvfs_cap *cap)
{
	struct pvfs_iod_cap_req req;
	struct pvfs_buf out;
	struct pvfs_hdr h;
	struct timeval tv = { LEASE_IOD_TIMEOUT_MS / 1000, 0 };
	uint8_t hb[PVFS_HDR_LEN], body[64];
	ssize_t n;
	size_t got;
	int fd, rc = -1;

	if ((fd = pvfs_net_connect(mgr.iods[idx].host, mgr.iods[idx].port,
	    LEASE_IOD_TIMEOUT_MS)) == -1)
		return -1;
	pvfs_set_nonblock(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	pvfs_buf_init(&out);
	if (pvfs_frame_encode(&out, PVFS_IOD_REMOVE, 1, 0, 0, &req) != 0 ||
	    pvfs_write_all(fd, out.data, out.len) != 0)
		goto out;
	for (got = 0; got < PVFS_HDR_LEN; got += (size_t)n) {
		if ((n = recv(fd, hb + got, PVFS_HDR_LEN - got, 0)) <= 0)
			goto out;
	}
	if (pvfs_hdr_decode(hb, &h) != 0 || h.op != PVFS_IOD_REMOVE ||
	    h.body_len > sizeof(body))
		goto out;
	for (got = 0; got < h.body_len; got += (size_t)n) {
		if ((n = recv(fd, body + got, h.body_len - got, 0)) <= 0)
			goto out;
	}
	/* Gone already (an iod that never had a stripe of it) is as good. */
	rc = h.status == 0 || h.status == ENOENT ? 0 : -1;
out:
	pvfs_buf_free(&out);
	close(fd);
	return rc;
}

static int
lease_remove_stripes(const struct lease_job *j)
{
	struct pvfs_cap cap;
	uint32_t rel;

	mgr_cap_mint(j->ino, j->gen, PVFS_R_REMOVE, &j->dist, &cap);
	for (rel = 0; rel < j->dist.pcount; rel++) {
		if (lease_iod_remove(pvfs_stripe_abs(&j->dist, rel, mgr.niods),
		    &cap) != 0)
			return -1;
	}
	return 0;
}

static void *
lease_worker(void *arg)
{
	struct lease_job j;

	(void)arg;
	pthread_mutex_lock(&lease_mu);
	for (;;) {
		while (!lease_stop && (!lease_busy || lease_cur.done))
			pthread_cond_wait(&lease_cv, &lease_mu);
		if (lease_stop)
			break;
		j = lease_cur;
		pthread_mutex_unlock(&lease_mu);
		j.ok = lease_remove_stripes(&j) == 0;
		pthread_mutex_lock(&lease_mu);
		lease_cur.ok = j.ok;
		lease_cur.done = 1;
		ev_async_send(lease_loop, &lease_async);
	}
	pthread_mutex_unlock(&lease_mu);
	return NULL;
}

/* ---- on the loop ---- */

/* The first orphan that may go now, handed to the worker. */
static int
lease_pick(struct mgr_inode *in, void *arg)
{
	int64_t now = *(int64_t *)arg;

	if (in->leases != 0 || in->freeing || in->free_at > now)
		return 0;
	in->freeing = 1;
	lease_cur.ino = in->ino;
	lease_cur.gen = in->gen;
	lease_cur.dist = in->dist;
	lease_cur.done = lease_cur.ok = 0;
	lease_busy = 1;
	pthread_cond_signal(&lease_cv);
	return 1;
}

static void
lease_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	int64_t now = pvfs_mono_ms();

	(void)loop;
	(void)w;
	(void)revents;
	pthread_mutex_lock(&lease_mu);
	if (!lease_busy)
		mgr_ns_walk_orphans(lease_pick, &now);
	pthread_mutex_unlock(&lease_mu);
}

static void
lease_async_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct mgr_inode *in;
	struct lease_job j;
	struct mgr_rec r;

	(void)loop;
	(void)w;
	(void)revents;
	pthread_mutex_lock(&lease_mu);
	if (!lease_busy || !lease_cur.done) {
		pthread_mutex_unlock(&lease_mu);
		return;
	}
	j = lease_cur;
	lease_busy = 0;
	pthread_mutex_unlock(&lease_mu);
	if ((in = mgr_ns_get(j.ino)) == NULL || !in->orphan)
		return;
	in->freeing = 0;
	if (!j.ok) {
		pvfs_log_warn("orphan inode %" PRIu64 ": removing its stripes "
		    "failed; retrying", j.ino);
		lease_schedule(in, LEASE_RETRY_MS / 1000.0);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_FREE;
	r.ino = j.ino;
	mgr_journal_log(&r);
	pvfs_log_debug("orphan inode %" PRIu64 " freed", j.ino);
	lease_timer_cb(loop, &lease_timer, 0); /* the next one, if due */
}

/* Orphans loaded from the metadata directory: their holders, if alive,
 * have the grace to take their leases again. */
static int
lease_loaded(struct mgr_inode *in, void *arg)
{
	(void)arg;
	lease_schedule(in, lease_grace);
	return 0;
}

void
mgr_lease_start(struct ev_loop *loop)
{
	lease_loop = loop;
	mgr_ns_walk_orphans(lease_loaded, NULL);
	if (mgr_ns_orphan_count() != 0)
		pvfs_log_info("%" PRIu64 " open-unlinked files kept; freed in %.0f s "
		    "unless their holders return", mgr_ns_orphan_count(), lease_grace);
	ev_async_init(&lease_async, lease_async_cb);
	ev_async_start(loop, &lease_async);
	ev_timer_init(&lease_timer, lease_timer_cb, LEASE_TICK, LEASE_TICK);
	ev_timer_start(loop, &lease_timer);
	if (pthread_create(&lease_thread, NULL, lease_worker, NULL) != 0)
		pvfs_fatal("cannot start the orphan worker thread");
	lease_started = 1;
}

void
mgr_lease_stop(void)
{
	if (!lease_started)
		return;
	pthread_mutex_lock(&lease_mu);
	lease_stop = 1;
	pthread_cond_signal(&lease_cv);
	pthread_mutex_unlock(&lease_mu);
	pthread_join(lease_thread, NULL);
	ev_timer_stop(lease_loop, &lease_timer);
	ev_async_stop(lease_loop, &lease_async);
	lease_started = 0;
}
