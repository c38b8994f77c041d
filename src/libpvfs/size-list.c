/*
 * size-list.c - the sizes of many files at once.  A regular file's size,
 * mtime and blocks live on its iods; asking them file by file costs a
 * round to every iod per file.  For a batch of files (one readdir-plus
 * reply) each iod gets one IOD_SIZE_LIST naming its part of every file,
 * all iods at once: the requests all go out, then the replies come in.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pvfs-internal.h"

/* One iod's part of the batch: its request, and for each pair the file. */
struct size_part {
	struct pvfs_iod_size_list_req req;
	uint32_t *file;
	struct pvfs_conn *conn;
	uint32_t reqid;
	int sent;
};

/* A mirrored file's copy of rel to ask: the first whose iod no read has
 * just found down (io-mirror.c); a failed item takes the per-file path,
 * which fails over. */
static uint32_t
size_copy(const struct client_fs *fs, const struct pvfs_dist *d, uint32_t rel)
{
	uint32_t k, iod, n = pvfs_dist_copies(d);
	int64_t now = pvfs_mono_ms();

	for (k = 0; k < n && n <= PVFS_COPIES_MAX; k++) {
		iod = pvfs_stripe_copy_abs(d, rel, k, fs->niods);
		if (__atomic_load_n(&fs->iods[iod].avoid_until,
		    __ATOMIC_RELAXED) <= now)
			return k;
	}
	return 0;
}

static int
size_send(struct client_fs *fs, uint32_t iod, struct size_part *p)
{
	struct pvfs_buf out;
	int rc = -1;

	pvfs_buf_init(&out);
	p->reqid = pvfs_conn_next_reqid();
	if (pvfs_frame_encode(&out, PVFS_IOD_SIZE_LIST, p->reqid, 0, 0,
	    &p->req) == 0 &&
	    pvfs_conn_acquire(&fs->iods[iod], fs->timeout_ms, &p->conn) == 0)
		rc = pvfs_conn_send_all(p->conn->fd, out.data, out.len,
		    pvfs_mono_ms() + fs->timeout_ms);
	pvfs_buf_free(&out);
	p->sent = rc == 0;
	return rc;
}

/* Fold the reply's items into the files' sizes; a failed item clears
 * its file's ok. */
static void
size_fold(const struct size_part *p, const struct pvfs_iod_size_list_rep *rep,
    struct pvfs_io_size *out, uint8_t *ok)
{
	uint32_t i;

	for (i = 0; i < p->req.n; i++) {
		const struct pvfs_iod_size_item *it = &rep->items[i];
		struct pvfs_io_size *o = &out[p->file[i]];

		if (i >= rep->n || it->status != 0) {
			ok[p->file[i]] = 0;
			continue;
		}
		if (it->size.logical_end > o->size)
			o->size = it->size.logical_end;
		if (it->size.mtime_ns > o->mtime_ns)
			o->mtime_ns = it->size.mtime_ns;
		o->blocks += it->size.blocks;
	}
}

static void
size_recv(struct client_fs *fs, uint32_t iod, struct size_part *p,
    struct pvfs_io_size *out, uint8_t *ok)
{
	struct pvfs_iod_size_list_rep rep;
	uint32_t i;
	int rc = -1;

	memset(&rep, 0, sizeof(rep));
	if (p->sent)
		rc = pvfs_admin_reply(p->conn->fd, PVFS_IOD_SIZE_LIST, p->reqid,
		    &rep, pvfs_mono_ms() + fs->timeout_ms);
	if (rc == 0)
		size_fold(p, &rep, out, ok);
	else
		for (i = 0; i < p->req.n; i++)
			ok[p->file[i]] = 0;
	if (p->conn != NULL && rc >= 0)
		pvfs_conn_release(&fs->iods[iod], p->conn);
	else
		pvfs_conn_close(p->conn);
	pvfs_msg_free(PVFS_IOD_SIZE_LIST, 1, &rep);
}

int
pvfs_io_size_list(struct client_fs *fs, const struct pvfs_cap *const *caps,
    uint32_t n, struct pvfs_io_size *out, uint8_t *ok)
{
	struct size_part *parts;
	uint32_t i, rel, iod;

	memset(out, 0, n * sizeof(*out));
	memset(ok, 0, n);
	if (n > PVFS_SIZELIST_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_client_fs_info(fs) != 0 ||
	    (parts = calloc(fs->niods, sizeof(*parts))) == NULL)
		return -1;
	for (iod = 0; iod < fs->niods; iod++) {
		parts[iod].req.ents = calloc(n, sizeof(*parts[iod].req.ents));
		parts[iod].file = calloc(n, sizeof(*parts[iod].file));
		if (parts[iod].req.ents == NULL || parts[iod].file == NULL)
			goto out;
	}
	for (i = 0; i < n; i++) {
		const struct pvfs_dist *d;

		if (caps[i] == NULL)
			continue;
		d = &caps[i]->dist;
		if (d->pcount == 0 || d->pcount > fs->niods)
			continue; /* left !ok: the per-file path says why */
		ok[i] = 1;
		for (rel = 0; rel < d->pcount; rel++) {
			uint32_t copy = size_copy(fs, d, rel);
			struct size_part *p = &parts[pvfs_stripe_copy_abs(d, rel,
			    copy, fs->niods)];

			p->req.ents[p->req.n].cap = *caps[i];
			p->req.ents[p->req.n].rel = rel;
			p->req.ents[p->req.n].copy = copy;
			p->file[p->req.n++] = i;
		}
	}
	for (iod = 0; iod < fs->niods; iod++)
		if (parts[iod].req.n > 0)
			(void)size_send(fs, iod, &parts[iod]);
	for (iod = 0; iod < fs->niods; iod++)
		if (parts[iod].req.n > 0)
			size_recv(fs, iod, &parts[iod], out, ok);
out:
	for (iod = 0; iod < fs->niods; iod++) {
		free(parts[iod].req.ents);
		free(parts[iod].file);
	}
	free(parts);
	return 0;
}
