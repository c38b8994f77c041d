/*
 * mgr-layout.c - mirrored files' layout at the mgr: how many copies a new
 * file gets, the shift that puts them on distinct iods (and hosts), and
 * the MIRROR record that makes it durable (doc/design.md, "Mirrored
 * files").  The placement math itself is src/common/stripe.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "mgr.h"

/* A request's copies (0 or all ones in 16 bits: the default), else the
 * directory's default, else 1. */
static uint32_t
mgr_layout_want(uint32_t asked, const struct mgr_inode *dir)
{
	if (asked != 0 && asked != 0xffffu)
		return asked;
	if (dir != NULL && dir->dir != NULL && dir->dist.copies != 0)
		return dir->dist.copies;
	return 1;
}

/* Whether the iod table names more than one host (so separating hosts is
 * a goal at all). */
static const char *const *
mgr_layout_hosts(const char **tab)
{
	uint32_t i;

	for (i = 0; i < mgr.niods; i++)
		tab[i] = mgr.iods[i].host;
	return tab;
}

int
mgr_layout_choose(uint32_t asked, const struct mgr_inode *dir,
    struct pvfs_dist *d)
{
	static int said;
	static const char *hosts[PVFS_MAX_IODS];
	uint32_t s;

	d->copies = (uint16_t)mgr_layout_want(asked, dir);
	d->mshift = 0;
	if (d->copies == 1)
		return 0;
	if (d->copies > PVFS_COPIES_MAX || d->copies > mgr.niods)
		return EINVAL;
	mgr_layout_hosts(hosts);
	/* The smallest shift that separates hosts, else iods. */
	for (s = 1; s < mgr.niods; s++) {
		d->mshift = (uint16_t)s;
		if (pvfs_stripe_copies_apart(d, mgr.niods, hosts))
			return 0;
	}
	if (!said++)
		pvfs_log_warn("mirrored files: no placement of %u copies puts "
		    "them on distinct hosts of the iod table; distinct iods "
		    "only", (unsigned)d->copies);
	for (s = 1; s < mgr.niods; s++) {
		d->mshift = (uint16_t)s;
		if (pvfs_stripe_copies_apart(d, mgr.niods, NULL))
			return 0;
	}
	return EINVAL;
}

void
mgr_layout_log(uint64_t ino, const struct pvfs_dist *d)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_MIRROR;
	r.ino = ino;
	r.dist.copies = d->copies;
	r.dist.mshift = d->mshift;
	mgr_journal_log(&r);
}

/* SETATTR of a directory's default copies: its owner (or root) may; 0
 * takes the default away. */
int
mgr_layout_set_default(const struct pvfs_cred *cr, const struct mgr_inode *in,
    uint32_t copies)
{
	struct pvfs_dist d;

	if (in->dir == NULL)
		return ENOTDIR;
	if (!mgr_perm_owner(cr, in))
		return EPERM;
	if (copies > PVFS_COPIES_MAX || copies > mgr.niods)
		return EINVAL;
	memset(&d, 0, sizeof(d));
	d.copies = (uint16_t)copies;
	mgr_layout_log(in->ino, &d);
	return 0;
}
