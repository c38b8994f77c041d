/*
 * mgr-size.c - a regular file's size kept at the mgr, so that a stat of a
 * file nobody writes costs one mgr round trip (doc/design.md, "Size at
 * the mgr").
 *
 * The iods hold the truth.  The mgr holds a copy (size, blocks, the
 * data's mtime) that is exact only while nothing can change it.  Every
 * change to a file's iods happens under a lease that may write (a write
 * lease, mgr-lease.c): while one is held the copy is not exact.  When
 * the last goes, the copy is exact again if it was when the first came
 * and every writer since said it changed nothing (a clean drop); else a
 * client that read the size from the iods after a reply asking for it
 * (PVFS_SIZE_ASK, with the epoch) reports it, and the mgr takes it only
 * if no write lease came since (the epoch counts them) and none is held.
 * Nothing here is journaled: after a restart every file is inexact, and
 * no report is taken for the lease grace, the time a writer of the old
 * mgr has to take its lease again (a writer checks its lease connection
 * before each write).  A writer's connection that drops holds its files
 * the same grace: its last writes may still be on their way.
 */
#include <errno.h>
#include <string.h>

#include "mgr.h"

static int64_t size_hold_until; /* mono ms: no report taken before */

/* No report on in (NULL: any file) is taken for secs: a writer may be on
 * its way back, or its last writes on their way to the iods. */
void
mgr_size_hold(struct mgr_inode *in, double secs)
{
	int64_t t = pvfs_mono_ms() + (int64_t)(secs * 1000);

	if (in != NULL)
		in->size_hold_s = (uint32_t)(t / 1000 + 1);
	else if (t > size_hold_until)
		size_hold_until = t;
}

static int
size_held(const struct mgr_inode *in)
{
	int64_t now = pvfs_mono_ms();

	return now < size_hold_until || now / 1000 < in->size_hold_s;
}

/* The copy turns exact or not.  Clients may hold STAT answers saying
 * either (mgr-cache.c): an exact one must not outlive the change, and an
 * inexact one would make its holder ask the iods at every stat. */
static void
size_set_exact(struct mgr_inode *in, int exact)
{
	if (in->size_exact == (unsigned)exact)
		return;
	in->size_exact = exact;
	mgr_cache_inode_changed(in->ino);
}

/* Something may change in's size (a copy of a mirrored file resynced,
 * a connection with write leases gone). */
void
mgr_size_dirty(struct mgr_inode *in)
{
	size_set_exact(in, 0);
	in->size_keep = 0;
	in->size_epoch++;
}

/* A file just created: empty on every iod. */
void
mgr_size_new(struct mgr_inode *in)
{
	in->size = in->blocks = 0;
	in->dmtime_ns = 0;
	size_set_exact(in, 1);
	in->size_keep = 0;
}

/* A write lease taken, or dropped (clean: its open changed nothing). */
void
mgr_size_wlease(struct mgr_inode *in, int take, int clean)
{
	if (take) {
		if (in->wleases++ == 0)
			in->size_keep = in->size_exact;
		size_set_exact(in, 0);
		in->size_epoch++;
		return;
	}
	if (in->wleases == 0)
		return;
	if (!clean)
		in->size_keep = 0;
	if (--in->wleases != 0)
		return;
	if (in->size_keep) {
		size_set_exact(in, 1);
		in->size_keep = 0;
	} else {
		/* Answers cached while it was written say "do not ask": now a
		 * stat may establish the size (PVFS_SIZE_ASK). */
		mgr_cache_inode_changed(in->ino);
	}
}

/* The size part of a regular file's attributes.  Exact: size, blocks,
 * and mtime and ctime folded as the client folds the iods' mtime
 * (libpvfs meta.c).  Otherwise, the epoch a report must name, and ASK
 * when one would be taken. */
void
mgr_size_attr(const struct mgr_inode *in, struct pvfs_attr *a)
{
	if (!MGR_IS_REG(in))
		return;
	if (in->size_exact) {
		a->size_flags = PVFS_SIZE_EXACT;
		a->size = in->size;
		a->blocks = in->blocks;
		if (in->dmtime_ns > in->mset_ns) {
			a->mtime_ns = in->dmtime_ns;
			if (in->dmtime_ns > a->ctime_ns)
				a->ctime_ns = in->dmtime_ns;
		}
		return;
	}
	a->size_epoch = in->size_epoch;
	if (in->wleases == 0 && !in->freeing && !size_held(in))
		a->size_flags = PVFS_SIZE_ASK;
}

/* MGR_SIZE: a client's reading of the iods after an ASK.  Only one that
 * may write the file may say what it holds; a stale report is dropped
 * without an error (the client has its answer either way). */
int
mgr_size_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_size_req *q = rq;
	struct mgr_inode *in;
	int rc;

	(void)c;
	(void)rp;
	if ((rc = mgr_cap_file(&q->cap, PVFS_R_SIZE, &in)) != 0)
		return rc;
	if (mgr_perm_check(&q->cred, in, MGR_MAY_W) != 0)
		return EACCES;
	if (in->size_exact || in->wleases != 0 || in->freeing ||
	    q->epoch != in->size_epoch || size_held(in))
		return 0;
	in->size = q->size;
	in->blocks = q->blocks;
	in->dmtime_ns = q->mtime_ns;
	size_set_exact(in, 1);
	return 0;
}
