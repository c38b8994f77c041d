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
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mgr.h"

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
	in->ox->free_at = pvfs_mono_ms() + (int64_t)(after * 1000);
}

static void
lease_release(struct mgr_inode *in, uint32_t n, double grace)
{
	in->leases -= n;
	if (in->leases == 0 && in->orphan)
		lease_schedule(in, grace);
}

/* A lease that may write (PVFS_LEASE_WRITE) also keeps the mgr's copy
 * of the size inexact while it is held (mgr-size.c). */
int
mgr_lease_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_lease_req *q = rq;
	struct mgr_inode *in = mgr_ns_get(q->ino);
	struct mgr_lease *l;
	int w = (q->flags & PVFS_LEASE_WRITE) != 0;

	(void)rp;
	if (q->hold > 2 || (q->flags & ~(PVFS_LEASE_WRITE | PVFS_LEASE_CLEAN)))
		return EINVAL;
	if (q->hold != 1) { /* 2: a forked child may hold it still */
		if ((l = lease_find(c, q->ino)) == NULL ||
		    (w && l->wcount == 0))
			return EINVAL;
		if (in != NULL) {
			lease_release(in, 1, q->hold == 2 ? lease_grace : 0);
			if (w)
				mgr_size_wlease(in, 0,
				    (q->flags & PVFS_LEASE_CLEAN) != 0);
		}
		l->wcount -= w;
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
		l->count = l->wcount = 0;
	}
	l->count++;
	in->leases++;
	if (w) {
		l->wcount++;
		mgr_size_wlease(in, 1, 0);
	}
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
		if ((in = mgr_ns_get(c->leases[i].ino)) == NULL)
			continue;
		lease_release(in, c->leases[i].count, lease_grace);
		if (c->leases[i].wcount != 0) {
			/* Its last writes may still be on their way to the
			 * iods, or the writer alive and back soon. */
			in->wleases -= c->leases[i].wcount;
			mgr_size_dirty(in);
			mgr_size_hold(in, lease_grace);
		}
	}
	free(c->leases);
	c->leases = NULL;
	c->nleases = c->leases_cap = 0;
}

/* The last name of in is about to go (UNLINK or RENAME over it): 1 for
 * a regular file, which is kept as an orphan (an ORPHAN record, journaled
 * before the one that removes the name) until its stripes are gone.  The
 * record is the durable list of stripes to free: an iod that is down
 * gets its share removed when it is back, across mgr restarts too. */
int
mgr_lease_keep(struct mgr_inode *in)
{
	struct mgr_rec r;

	if (!MGR_IS_REG(in) || in->nlink != 1)
		return 0;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_ORPHAN;
	mgr_ns_rec_attrs(in, &r);
	if (in->leases != 0)
		r.mode |= MGR_ORPHAN_HELD;
	mgr_journal_log(&r);
	mgr_free_orphan_new(in);
	return 1;
}

/* Orphans loaded from the metadata directory: the holders of leased
 * ones, if alive, have the grace to take their leases again; the others
 * go at once. */
static int
lease_loaded(struct mgr_inode *in, void *arg)
{
	uint64_t *held = arg;

	if (in->held) {
		lease_schedule(in, lease_grace);
		(*held)++;
	}
	return 0;
}

void
mgr_lease_start(struct ev_loop *loop)
{
	uint64_t held = 0;

	/* Writers of the mgr before this one take their leases again
	 * before their next write; until then no size is trusted. */
	mgr_size_hold(NULL, lease_grace);
	mgr_ns_walk_orphans(lease_loaded, &held);
	if (held != 0)
		pvfs_log_info("%" PRIu64 " open-unlinked files kept; freed in %.0f s "
		    "unless their holders return", held, lease_grace);
	if (mgr_ns_orphan_count() > held)
		pvfs_log_info("%" PRIu64 " removed files whose stripes are still "
		    "to free", mgr_ns_orphan_count() - held);
	mgr_free_start(loop);
}

void
mgr_lease_stop(void)
{
	mgr_free_stop();
}
