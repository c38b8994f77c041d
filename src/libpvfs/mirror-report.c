/*
 * mirror-report.c - dirty reports of mirrored files (mirror-report.h).
 *
 * MGR_DIRTY carries the file's WRITE capability and the ranges, at most
 * PVFS_DIRTY_MAX a request.  The mgr journals them and answers only once
 * every copy named is fenced (its iod took the stale mark, refused a
 * connection, or its mirror lease ran out: at most one lease, 9 s by
 * default), so a write that returns after this never leaves a copy that
 * can still be read stale.  A capability that expired meanwhile is renewed
 * once, as pvfs-file.c does for MODIFIED.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "mirror-report.h"

static int
mirror_report_some(struct io_file *f, const struct pvfs_mirror_range *r,
    uint32_t n)
{
	struct pvfs_dirty_wire ents[PVFS_DIRTY_MAX];
	struct pvfs_mgr_dirty_req req;
	struct pvfs_none rep;
	uint32_t i;
	int rc;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	for (i = 0; i < n; i++) {
		ents[i].rel = r[i].rel;
		ents[i].copy = r[i].copy;
		ents[i].offset = r[i].offset;
		ents[i].length = r[i].length;
	}
	req.n = n;
	req.ents = ents;
	req.cap = f->cap;
	rc = pvfs_conn_rpc(f->fs, PVFS_MGR_DIRTY, &req, &rep);
	if (rc != 0 && errno == EKEYEXPIRED && pvfs_io_refresh(f) == 0) {
		req.cap = f->cap;
		rc = pvfs_conn_rpc(f->fs, PVFS_MGR_DIRTY, &req, &rep);
	}
	return rc == 0 ? 0 : -errno;
}

int
pvfs_mirror_report(struct io_file *f, const struct pvfs_mirror_range *r,
    uint32_t n)
{
	uint32_t k;
	int rc;

	for (; n > 0; r += k, n -= k) {
		k = n < PVFS_DIRTY_MAX ? n : PVFS_DIRTY_MAX;
		if ((rc = mirror_report_some(f, r, k)) != 0)
			return rc;
	}
	return 0;
}
