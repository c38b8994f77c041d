/*
 * admin.c - what the shell tools ask of single daemons: what each iod holds
 * of a file, a ping with its round-trip time, one iod's statfs.  The I/O
 * engine (io.c) talks to a file's iods as a group and sums their answers;
 * a tool wants each daemon's own answer, one blocking exchange at a time.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "pvfs-internal.h"

#define ADMIN_BODY_MAX 256 /* larger replies (IOD_LIST) go to the heap */

static int64_t
admin_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Exactly len bytes; a peer that closes first is EIO (conn_recv_all says
 * EPIPE, which recv itself never gives). */
static int
admin_recv(int fd, uint8_t *p, size_t len, int64_t deadline)
{
	if (conn_recv_all(fd, p, len, deadline) == 0)
		return 0;
	if (errno == EPIPE)
		errno = EIO;
	return -1;
}

/* Read and check the reply to (op, reqid).  0, 1 for a clean error reply
 * (errno set), -1 for a broken exchange.  The header is checked before the
 * body is read, so that a stray or oversized reply is not waited for;
 * conn_reply then judges status and body as conn_rpc does. */
static int
admin_reply(int fd, uint16_t op, uint32_t reqid, void *rep, int64_t deadline)
{
	uint8_t raw[PVFS_HDR_LEN], inl[ADMIN_BODY_MAX], *body = inl;
	struct pvfs_hdr h;
	int rc = -1, saved;

	if (admin_recv(fd, raw, sizeof(raw), deadline) != 0)
		return -1;
	if (pvfs_hdr_decode(raw, &h) != 0 || !(h.flags & PVFS_HDR_REPLY) ||
	    h.op != op || h.reqid != reqid) {
		errno = EPROTO;
		return -1;
	}
	if (h.body_len > sizeof(inl) && (body = malloc(h.body_len)) == NULL)
		return -1;
	if (admin_recv(fd, body, h.body_len, deadline) == 0)
		rc = conn_reply(&h, op, reqid, body, rep);
	saved = errno;
	if (body != inl)
		free(body);
	errno = saved;
	return rc;
}

/* One request and its reply with the daemon behind pool p. */
static int
admin_rpc(struct client_fs *fs, struct conn_pool *p, uint16_t op,
    const void *req, void *rep, int64_t *rtt_us)
{
	struct pvfs_conn *c = NULL;
	struct pvfs_buf out;
	uint32_t reqid = conn_next_reqid();
	int64_t t0, deadline;
	int rc = -1, saved;

	pvfs_buf_init(&out);
	if (pvfs_frame_encode(&out, op, reqid, 0, 0, req) != 0)
		errno = ENOMEM;
	else if (conn_acquire(p, fs->timeout_ms, &c) == 0) {
		t0 = admin_now_us();
		deadline = pvfs_mono_ms() + fs->timeout_ms;
		if (conn_send_all(c->fd, out.data, out.len, deadline) == 0)
			rc = admin_reply(c->fd, op, reqid, rep, deadline);
		if (rtt_us != NULL)
			*rtt_us = admin_now_us() - t0;
	}
	saved = errno;
	if (c != NULL && rc >= 0)
		conn_release(p, c);
	else
		conn_close(c);
	pvfs_buf_free(&out);
	errno = saved;
	return rc == 0 ? 0 : -1;
}

int
admin_fs(const char *path, struct client_fs **fs)
{
	char inner[PVFS_PATH_MAX + 1];

	if (client_resolve(path, fs, inner) != 0)
		return -1;
	return client_fs_info(*fs);
}

int
admin_stat(const char *path, struct client_fs **fs,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_path_req req;

	memset(&req, 0, sizeof(req));
	if (client_resolve(path, fs, req.path) != 0)
		return -1;
	client_cred(&req.cred);
	return conn_rpc(*fs, PVFS_MGR_STAT, &req, rep);
}

int
admin_file_parts(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct admin_part *parts)
{
	const struct pvfs_dist *d = &r->cap.dist;
	struct pvfs_iod_size_req req;
	uint32_t rel;

	if (client_fs_info(fs) != 0)
		return -1;
	if (!S_ISREG(r->attr.mode) || d->pcount == 0 || d->pcount > fs->niods) {
		errno = EINVAL;
		return -1;
	}
	for (rel = 0; rel < d->pcount; rel++) {
		memset(&req, 0, sizeof(req));
		req.cap = r->cap;
		req.rel = rel;
		parts[rel].rel = rel;
		parts[rel].iod = pvfs_stripe_abs(d, rel, fs->niods);
		if (admin_rpc(fs, &fs->iods[parts[rel].iod], PVFS_IOD_SIZE, &req,
		    &parts[rel].size, NULL) != 0)
			return -1;
	}
	return 0;
}

int
admin_mgr_ping(struct client_fs *fs, struct pvfs_mgr_ping_rep *rep,
    int64_t *rtt_us)
{
	struct pvfs_none req = { 0 };

	return admin_rpc(fs, &fs->mgr, PVFS_MGR_PING, &req, rep, rtt_us);
}

static int
admin_iod_check(struct client_fs *fs, uint32_t i)
{
	if (client_fs_info(fs) != 0)
		return -1;
	if (i >= fs->niods) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
admin_iod_ping(struct client_fs *fs, uint32_t i, struct pvfs_iod_ping_rep *rep,
    int64_t *rtt_us)
{
	struct pvfs_none req = { 0 };

	if (admin_iod_check(fs, i) != 0)
		return -1;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_PING, &req, rep, rtt_us);
}

int
admin_iod_statfs(struct client_fs *fs, uint32_t i,
    struct pvfs_iod_statfs_rep *rep)
{
	struct pvfs_none req = { 0 };

	if (admin_iod_check(fs, i) != 0)
		return -1;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_STATFS, &req, rep, NULL);
}

void
admin_iod_addr(const struct client_fs *fs, uint32_t i, char *out, size_t len)
{
	const struct conn_pool *p = &fs->iods[i];

	snprintf(out, len, strchr(p->host, ':') ? "[%s]:%u" : "%s:%u", p->host,
	    p->port);
}

int
admin_inolist(struct client_fs *fs, uint64_t first, uint32_t count,
    struct pvfs_mgr_inolist_rep *rep)
{
	struct pvfs_mgr_inolist_req req;

	memset(&req, 0, sizeof(req));
	client_cred(&req.cred);
	req.first = first;
	req.count = count;
	return conn_rpc(fs, PVFS_MGR_INOLIST, &req, rep);
}

int
admin_iodstatus(struct client_fs *fs, struct pvfs_mgr_iodstatus_rep *rep)
{
	struct pvfs_mgr_cred_req req;

	memset(&req, 0, sizeof(req));
	client_cred(&req.cred);
	return conn_rpc(fs, PVFS_MGR_IODSTATUS, &req, rep);
}

int
admin_iod_list(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint32_t sub, uint64_t after, uint64_t after_gen,
    struct pvfs_iod_list_rep *rep)
{
	struct pvfs_iod_list_req req;

	if (admin_iod_check(fs, i) != 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.sub = sub;
	req.after = after;
	req.after_gen = after_gen;
	req.max = PVFS_STRIPELIST_MAX;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_LIST, &req, rep, NULL);
}

int
admin_iod_purge(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint64_t ino, uint64_t gen)
{
	struct pvfs_iod_purge_req req;
	struct pvfs_none rep;

	if (admin_iod_check(fs, i) != 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.ino = ino;
	req.gen = gen;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_PURGE, &req, &rep, NULL);
}
