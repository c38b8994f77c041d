/*
 * iod-admin.c - IOD_LIST and IOD_PURGE, what pvfs-fsck asks of an iod:
 * which stripe files it holds, and removing those of files (ino, gen) the
 * mgr does not know.  Both need an ADMIN capability for inode 0, which the mgr
 * mints only for administrators (MGR_INOLIST); the iod cannot tell an
 * orphan from a live file itself, so it trusts that capability's holder.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "iod.h"

static struct pvfs_stripe_ent admin_ents[PVFS_STRIPELIST_MAX];

/* 0 or a positive errno. */
static int
iod_admin_cap(const struct pvfs_cap *cap)
{
	int64_t now = iod_label_now();
	int why, rc = pvfs_cap_check(cap, iod.key, iod.keylen, PVFS_R_ADMIN,
	    now, iod.label.fsid, &why);

	if (rc == 0 && cap->ino != 0) {
		why = PVFS_CAP_OTHER_INODE; /* ADMIN is signed for inode 0 */
		rc = -EACCES;
	}
	if (rc != 0) {
		iod_op_cap_log(cap, why, now);
		return -rc;
	}
	return iod_label_cap_check(cap);
}

int
iod_admin_list(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_list_req *r = &req->list;
	uint32_t max = r->max;
	int err, eof = 0;

	if ((err = iod_admin_cap(&r->cap)) != 0)
		return err;
	if (r->sub > 0xff)
		return EINVAL;
	if (max == 0 || max > PVFS_STRIPELIST_MAX)
		max = PVFS_STRIPELIST_MAX;
	err = -iod_store_list(r->sub, r->after, r->after_gen, r->after_copy,
	    max, admin_ents, &rep->list.n, &eof);
	rep->list.eof = (uint8_t)eof;
	rep->list.ents = admin_ents;
	return err;
}

int
iod_admin_purge(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_purge_req *r = &req->purge;
	int err;

	if ((err = iod_admin_cap(&r->cap)) == 0)
		err = r->ino == 0 || r->copy >= PVFS_COPIES_MAX ? EINVAL :
		    -iod_store_remove(r->ino, r->gen, r->copy);
	if (err == 0)
		pvfs_log_info("%s: purged the stripe file of inode %llu gen %016llx"
		    " copy %u", c->dc.name, (unsigned long long)r->ino,
		    (unsigned long long)r->gen, (unsigned)r->copy);
	return err;
}
