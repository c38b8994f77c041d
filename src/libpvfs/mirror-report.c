/*
 * mirror-report.c - dirty reports of mirrored files (mirror-report.h).
 *
 * MGR_DIRTY carries the file's WRITE capability and the ranges, at most
 * PVFS_DIRTY_MAX a request.  The mgr journals them and answers only once
 * every copy named is fenced (its iod took the stale mark, refused a
 * connection, or its mirror lease ran out: at most one lease, 9 s by
 * default), so a write that returns after this never leaves a copy that
 * can still be read stale.  A report the mgr did not take stays pending
 * on the open file (every range of it): the operation failed with EIO,
 * and each later one on the file sends it first and fails with EIO until
 * it went; the last close tries once more.  A capability that expired meanwhile is renewed
 * once, as pvfs-file.c does for MODIFIED.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
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

/* Keep r[0 .. n) on f's open file for pvfs_mirror_pending; -1 (out of
 * memory: nothing more can be done) or 0. */
static int
mirror_keep(struct io_file *f, const struct pvfs_mirror_range *r, uint32_t n)
{
	struct pvfs_file *pf = f->file;
	struct pvfs_mirror_range *v;
	int rc = -1;

	if (pf == NULL)
		return -1;
	pthread_mutex_lock(&pf->cap_lock);
	if ((v = realloc(pf->pend, (pf->npend + n) * sizeof(*v))) != NULL) {
		memcpy(v + pf->npend, r, n * sizeof(*v));
		pf->pend = v;
		pf->npend += n;
		rc = 0;
	}
	pthread_mutex_unlock(&pf->cap_lock);
	return rc;
}

/* Send r[0 .. n) by PVFS_DIRTY_MAX; what is not sent stays pending. */
static int
mirror_send(struct io_file *f, const struct pvfs_mirror_range *r, uint32_t n)
{
	uint32_t k;
	int rc;

	for (; n > 0; r += k, n -= k) {
		k = n < PVFS_DIRTY_MAX ? n : PVFS_DIRTY_MAX;
		if ((rc = mirror_report_some(f, r, k)) != 0) {
			(void)mirror_keep(f, r, n);
			return rc;
		}
	}
	return 0;
}

int
pvfs_mirror_report(struct io_file *f, const struct pvfs_mirror_range *r,
    uint32_t n)
{
	if (pvfs_mirror_pending(f) != 0) {
		(void)mirror_keep(f, r, n);
		return -EIO;
	}
	return mirror_send(f, r, n);
}

int
pvfs_mirror_pending(struct io_file *f)
{
	struct pvfs_file *pf = f->file;
	struct pvfs_mirror_range *v;
	uint32_t n;
	int rc;

	if (pf == NULL)
		return 0;
	pthread_mutex_lock(&pf->cap_lock);
	v = pf->pend;
	n = pf->npend;
	pf->pend = NULL;
	pf->npend = 0;
	pthread_mutex_unlock(&pf->cap_lock);
	if (n == 0)
		return 0;
	rc = mirror_send(f, v, n);
	free(v);
	if (rc != 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

void
pvfs_mirror_close(struct pvfs_file *f)
{
	struct io_file io;

	if (f->npend == 0)
		return;
	pvfs_file_io(f, &io);
	(void)pvfs_mirror_pending(&io);
	free(f->pend);
	f->pend = NULL;
	f->npend = 0;
}
