/*
 * admin.c - what the shell tools ask of single daemons: what each iod holds
 * of a file, a ping with its round-trip time, one iod's statfs, a daemon's
 * counters.  The I/O
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

#include "pvfs-internal.h"

#define ADMIN_BODY_MAX 256 /* larger replies (IOD_LIST) go to the heap */

/* What one iod holds of a file (IOD_SIZE of its part). */
struct admin_part {
	uint32_t iod, rel, copy;
	struct pvfs_iod_size_rep size;
	int err;
};

/* Exactly len bytes; a peer that closes first is EIO (pvfs_conn_recv_all says
 * EPIPE, which recv itself never gives). */
static int
admin_recv(int fd, uint8_t *p, size_t len, int64_t deadline)
{
	if (pvfs_conn_recv_all(fd, p, len, deadline) == 0)
		return 0;
	if (errno == EPIPE)
		errno = EIO;
	return -1;
}

/* Read and check the reply to (op, reqid).  0, 1 for a clean error reply
 * (errno set), -1 for a broken exchange.  The header is checked before the
 * body is read, so that a stray or oversized reply is not waited for;
 * pvfs_conn_reply then judges status and body as pvfs_conn_rpc does. */
int
pvfs_admin_reply(int fd, uint16_t op, uint32_t reqid, void *rep, int64_t deadline)
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
		rc = pvfs_conn_reply(&h, op, reqid, body, rep);
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
	uint32_t reqid = pvfs_conn_next_reqid();
	int64_t t0, deadline;
	int rc = -1, saved;

	pvfs_buf_init(&out);
	if (pvfs_frame_encode(&out, op, reqid, 0, 0, req) != 0)
		errno = ENOMEM;
	else if (pvfs_conn_acquire(p, fs->timeout_ms, &c) == 0) {
		t0 = pvfs_mono_ns() / 1000;
		deadline = pvfs_mono_ms() + fs->timeout_ms;
		if (pvfs_conn_send_all(c->fd, out.data, out.len, deadline) == 0)
			rc = pvfs_admin_reply(c->fd, op, reqid, rep, deadline);
		if (rtt_us != NULL)
			*rtt_us = pvfs_mono_ns() / 1000 - t0;
	}
	saved = errno;
	if (c != NULL && rc >= 0)
		pvfs_conn_release(p, c);
	else
		pvfs_conn_close(c);
	pvfs_buf_free(&out);
	errno = saved;
	return rc == 0 ? 0 : -1;
}

int
pvfs_admin_fs(const char *path, struct client_fs **fs)
{
	char inner[PVFS_PATH_MAX + 1];

	if (pvfs_client_resolve(path, fs, inner) != 0)
		return -1;
	return pvfs_client_fs_info(*fs);
}

static int
admin_stat(const char *path, struct client_fs **fs,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_path_req req;
	struct pvfs_walk w;
	int rc;

	memset(&req, 0, sizeof(req));
	pvfs_walk_init(&w, PVFS_MGR_STAT, &req, &req.cred, path, req.path, rep);
	rc = pvfs_walk_rpc(&w);
	*fs = w.fs;
	return rc;
}

static int
admin_file_parts(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct admin_part *parts)
{
	const struct pvfs_dist *d = &r->cap.dist;
	struct pvfs_iod_size_req req;
	uint32_t i, copies = pvfs_dist_copies(d);
	struct admin_part *p;

	if (pvfs_client_fs_info(fs) != 0)
		return -1;
	if (!S_ISREG(r->attr.mode) || d->pcount == 0 || d->pcount > fs->niods ||
	    copies > PVFS_COPIES_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* A mirrored file's copy on an iod that is down is shown as such. */
	for (i = 0; i < d->pcount * copies; i++) {
		p = &parts[i];
		memset(&req, 0, sizeof(req));
		req.cap = r->cap;
		req.rel = p->rel = i % d->pcount;
		req.copy = p->copy = i / d->pcount;
		p->iod = pvfs_stripe_copy_abs(d, p->rel, p->copy, fs->niods);
		if (admin_rpc(fs, &fs->iods[p->iod], PVFS_IOD_SIZE, &req,
		    &p->size, NULL) == 0)
			continue;
		if (copies == 1)
			return -1;
		p->err = errno;
	}
	return 0;
}

static int
admin_mgr_ping(struct client_fs *fs, struct pvfs_mgr_ping_rep *rep,
    int64_t *rtt_us)
{
	struct pvfs_none req = { 0 };

	return admin_rpc(fs, &fs->mgr, PVFS_MGR_PING, &req, rep, rtt_us);
}

static int
admin_iod_check(struct client_fs *fs, uint32_t i)
{
	if (pvfs_client_fs_info(fs) != 0)
		return -1;
	if (i >= fs->niods) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int
admin_iod_ping(struct client_fs *fs, uint32_t i, struct pvfs_iod_ping_rep *rep,
    int64_t *rtt_us)
{
	struct pvfs_none req = { 0 };

	if (admin_iod_check(fs, i) != 0)
		return -1;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_PING, &req, rep, rtt_us);
}

static int
admin_iod_statfs(struct client_fs *fs, uint32_t i,
    struct pvfs_iod_statfs_rep *rep)
{
	struct pvfs_none req = { 0 };

	if (admin_iod_check(fs, i) != 0)
		return -1;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_STATFS, &req, rep, NULL);
}

/* A daemon's counters: the mgr (i == UINT32_MAX) or iod i. */
static int
admin_counters(struct client_fs *fs, uint32_t i, struct pvfs_counters_info *out)
{
	struct pvfs_none req = { 0 };
	struct pvfs_counters_rep rep;
	uint16_t op = i == UINT32_MAX ? PVFS_MGR_COUNTERS : PVFS_IOD_COUNTERS;
	uint32_t k;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&rep, 0, sizeof(rep));
	if (i == UINT32_MAX)
		rc = admin_rpc(fs, &fs->mgr, op, &req, &rep, NULL);
	else if ((rc = admin_iod_check(fs, i)) == 0)
		rc = admin_rpc(fs, &fs->iods[i], op, &req, &rep, NULL);
	if (rc != 0)
		return -1;
	out->uptime_ms = rep.uptime_ms;
	out->conns_total = rep.conns_total;
	out->conns_open = rep.conns_open;
	out->bytes_in = rep.bytes_in;
	out->bytes_out = rep.bytes_out;
	if (rep.n > 0 && (out->ops = calloc(rep.n, sizeof(*out->ops))) == NULL) {
		pvfs_msg_free(op, 1, &rep);
		return -1;
	}
	for (k = 0; k < rep.n; k++) {
		const struct pvfs_opstat_wire *w = &rep.ops[k];
		struct pvfs_op_counters *o = &out->ops[out->nops++];

		snprintf(o->name, sizeof(o->name), "%s",
		    w->op == PVFS_OPSTAT_EXTRA ? "JOURNAL_COMMIT" :
		    pvfs_op_name(w->op));
		o->count = w->count;
		o->errors = w->errors;
		o->p50_us = w->p50_us;
		o->p90_us = w->p90_us;
		o->p99_us = w->p99_us;
		o->max_us = w->max_us;
		o->sum_us = w->sum_us;
	}
	pvfs_msg_free(op, 1, &rep);
	return 0;
}

int
pvfs_admin_inolist(struct client_fs *fs, uint64_t first, uint32_t count,
    struct pvfs_mgr_inolist_rep *rep)
{
	struct pvfs_mgr_inolist_req req;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.first = first;
	req.count = count;
	return pvfs_conn_rpc(fs, PVFS_MGR_INOLIST, &req, rep);
}

static int
admin_iodstatus(struct client_fs *fs, struct pvfs_mgr_iodstatus_rep *rep)
{
	struct pvfs_mgr_cred_req req;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	return pvfs_conn_rpc(fs, PVFS_MGR_IODSTATUS, &req, rep);
}

static int
admin_iod_list(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint32_t sub, const struct pvfs_stripe_info *after,
    struct pvfs_iod_list_rep *rep)
{
	struct pvfs_iod_list_req req;

	if (admin_iod_check(fs, i) != 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.sub = sub;
	req.after = after->ino;
	req.after_gen = after->gen;
	req.after_copy = after->copy;
	req.max = PVFS_STRIPELIST_MAX;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_LIST, &req, rep, NULL);
}

static int
admin_iod_purge(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint64_t ino, uint64_t gen, uint32_t copy)
{
	struct pvfs_iod_purge_req req;
	struct pvfs_none rep;

	if (admin_iod_check(fs, i) != 0)
		return -1;
	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.ino = ino;
	req.gen = gen;
	req.copy = copy;
	return admin_rpc(fs, &fs->iods[i], PVFS_IOD_PURGE, &req, &rep, NULL);
}

/* ---- the tools' calls, with library structs (pvfs-client.h) ---- */

_Static_assert(PVFS_ADMIN_INOLIST_SPAN == PVFS_INOLIST_SPAN,
    "PVFS_ADMIN_INOLIST_SPAN differs from the protocol's");

struct pvfs_admin {
	struct client_fs *fs;
	int have_cap;
	struct pvfs_cap cap;       /* ADMIN, from the latest MGR_INOLIST */
};

struct client_fs *
pvfs_admin_client(struct pvfs_admin *a)
{
	return a->fs;
}

uint32_t
pvfs_admin_proto_version(void)
{
	return PVFS_PROTO_VERSION;
}

struct pvfs_admin *
pvfs_admin_open(const char *path)
{
	char inner[PVFS_PATH_MAX + 1];
	struct pvfs_admin *a;
	struct client_fs *fs;

	if (pvfs_client_resolve(path, &fs, inner) != 0)
		return NULL;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	a->fs = fs;
	return a;
}

void
pvfs_admin_close(struct pvfs_admin *a)
{
	free(a);
}

static void
admin_addr(const struct conn_pool *p, char *out, size_t len)
{
	snprintf(out, len, strchr(p->host, ':') ? "[%s]:%u" : "%s:%u", p->host,
	    p->port);
}

void
pvfs_admin_mgr_addr(struct pvfs_admin *a, char *addr, size_t len)
{
	admin_addr(&a->fs->mgr, addr, len);
}

int
pvfs_admin_iod_addr(struct pvfs_admin *a, uint32_t i, char *addr, size_t len)
{
	if (admin_iod_check(a->fs, i) != 0)
		return -1;
	admin_addr(&a->fs->iods[i], addr, len);
	return 0;
}

int
pvfs_admin_niods(struct pvfs_admin *a, uint32_t *n)
{
	if (pvfs_client_fs_info(a->fs) != 0)
		return -1;
	*n = a->fs->niods;
	return 0;
}

int
pvfs_admin_mgr_ping(struct pvfs_admin *a, struct pvfs_ping_info *p)
{
	struct pvfs_mgr_ping_rep rep;

	memset(p, 0, sizeof(*p));
	if (admin_mgr_ping(a->fs, &rep, &p->rtt_us) != 0)
		return -1;
	p->version = rep.version;
	p->uptime_s = rep.uptime_s;
	p->fsid = rep.fsid;
	/* The wire's values are the enum's, in the same order. */
	p->auth = rep.auth <= PVFS_PING_AUTH_TRUSTED ? rep.auth : 0;
	return 0;
}

int
pvfs_admin_iod_ping(struct pvfs_admin *a, uint32_t i, struct pvfs_ping_info *p)
{
	struct pvfs_iod_ping_rep rep;

	memset(p, 0, sizeof(*p));
	if (admin_iod_ping(a->fs, i, &rep, &p->rtt_us) != 0)
		return -1;
	p->version = rep.version;
	p->uptime_s = rep.uptime_s;
	return 0;
}

int
pvfs_admin_mgr_counters(struct pvfs_admin *a, struct pvfs_counters_info *c)
{
	return admin_counters(a->fs, UINT32_MAX, c);
}

int
pvfs_admin_iod_counters(struct pvfs_admin *a, uint32_t i,
    struct pvfs_counters_info *c)
{
	if (i == UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	return admin_counters(a->fs, i, c);
}

void
pvfs_admin_counters_free(struct pvfs_counters_info *c)
{
	free(c->ops);
	c->ops = NULL;
	c->nops = 0;
}

int
pvfs_admin_iod_space(struct pvfs_admin *a, uint32_t i,
    struct pvfs_space_info *s)
{
	struct pvfs_iod_statfs_rep rep;

	memset(s, 0, sizeof(*s));
	if (admin_iod_statfs(a->fs, i, &rep) != 0)
		return -1;
	s->bsize = rep.bsize;
	s->blocks = rep.blocks;
	s->bfree = rep.bfree;
	s->bavail = rep.bavail;
	s->files = rep.files;
	s->ffree = rep.ffree;
	s->host = rep.host;
	s->dev = rep.dev;
	s->used = rep.used;
	s->apparent = rep.apparent;
	s->nstripes = rep.nstripes;
	return 0;
}

int
pvfs_admin_mgr_inodes(struct pvfs_admin *a, struct pvfs_inode_info *s)
{
	struct pvfs_mgr_cred_req req;
	struct pvfs_mgr_statfs_rep rep;

	memset(s, 0, sizeof(*s));
	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	if (pvfs_conn_rpc(a->fs, PVFS_MGR_STATFS, &req, &rep) != 0)
		return -1;
	s->files = rep.files;
	s->ffree = rep.ffree;
	return 0;
}

static void
admin_view(const struct pvfs_iodstat_wire *w, struct pvfs_admin_iodstat *v)
{
	memset(v, 0, sizeof(*v));
	v->index = w->index;
	v->state = w->state;
	snprintf(v->host, sizeof(v->host), "%s", w->host);
	v->port = w->port;
	v->heard = w->age_s != UINT32_MAX;
	v->fsid = w->fsid;
	v->label_index = w->label_index;
	snprintf(v->uuid, sizeof(v->uuid), "%s", w->uuid);
	v->skew_ms = w->skew_ms;
	snprintf(v->why, sizeof(v->why), "%s", w->why);
}

int
pvfs_admin_iod_views(struct pvfs_admin *a, struct pvfs_admin_iodstat **v,
    uint32_t *n)
{
	struct pvfs_mgr_iodstatus_rep rep;
	uint32_t i;

	memset(&rep, 0, sizeof(rep));
	if (admin_iodstatus(a->fs, &rep) != 0)
		return -1;
	*n = rep.n;
	if ((*v = calloc(rep.n ? rep.n : 1, sizeof(**v))) == NULL) {
		pvfs_msg_free(PVFS_MGR_IODSTATUS, 1, &rep);
		return -1;
	}
	for (i = 0; i < rep.n; i++)
		admin_view(&rep.iods[i], &(*v)[i]);
	pvfs_msg_free(PVFS_MGR_IODSTATUS, 1, &rep);
	return 0;
}

int
pvfs_admin_inodes(struct pvfs_admin *a, uint64_t first, uint32_t count,
    struct pvfs_ino_info **v, uint32_t *n)
{
	struct pvfs_mgr_inolist_rep rep;
	uint32_t i;

	if (pvfs_admin_inolist(a->fs, first, count, &rep) != 0)
		return -1;
	a->cap = rep.cap;
	a->have_cap = 1;
	*n = rep.n;
	if ((*v = calloc(rep.n ? rep.n : 1, sizeof(**v))) == NULL) {
		pvfs_msg_free(PVFS_MGR_INOLIST, 1, &rep);
		return -1;
	}
	for (i = 0; i < rep.n; i++) {
		(*v)[i].ino = rep.inos[i].ino;
		(*v)[i].gen = rep.inos[i].gen;
		(*v)[i].base = rep.inos[i].dist.base;
		(*v)[i].pcount = rep.inos[i].dist.pcount;
		(*v)[i].ssize = rep.inos[i].dist.ssize;
		(*v)[i].copies = pvfs_dist_copies(&rep.inos[i].dist);
		(*v)[i].mshift = rep.inos[i].dist.mshift;
	}
	pvfs_msg_free(PVFS_MGR_INOLIST, 1, &rep);
	return 0;
}

/* A capability outlives any sane scan, but a very long one gets a new one
 * from the mgr rather than failing.  0 or -1. */
static int
admin_cap_refresh(struct pvfs_admin *a)
{
	struct pvfs_mgr_inolist_rep rep;

	if (pvfs_admin_inolist(a->fs, 0, 0, &rep) != 0)
		return -1;
	a->cap = rep.cap;
	a->have_cap = 1;
	pvfs_msg_free(PVFS_MGR_INOLIST, 1, &rep);
	return 0;
}

static int
admin_list_once(struct pvfs_admin *a, uint32_t i, uint32_t sub,
    const struct pvfs_stripe_info *after, struct pvfs_iod_list_rep *rep)
{
	return admin_iod_list(a->fs, i, &a->cap, sub, after, rep);
}

int
pvfs_admin_stripes(struct pvfs_admin *a, uint32_t i, uint32_t sub,
    const struct pvfs_stripe_info *after, struct pvfs_stripe_info **v,
    uint32_t *n, int *eof)
{
	struct pvfs_iod_list_rep rep;
	uint32_t k;

	if (!a->have_cap && admin_cap_refresh(a) != 0)
		return -1;
	/* A refused capability that merely expired is renewed once. */
	if (admin_list_once(a, i, sub, after, &rep) != 0 &&
	    (errno != EKEYEXPIRED || admin_cap_refresh(a) != 0 ||
	    admin_list_once(a, i, sub, after, &rep) != 0))
		return -1;
	*n = rep.n;
	*eof = rep.eof;
	if ((*v = calloc(rep.n ? rep.n : 1, sizeof(**v))) == NULL) {
		pvfs_msg_free(PVFS_IOD_LIST, 1, &rep);
		return -1;
	}
	for (k = 0; k < rep.n; k++) {
		(*v)[k].ino = rep.ents[k].ino;
		(*v)[k].gen = rep.ents[k].gen;
		(*v)[k].copy = rep.ents[k].copy;
		(*v)[k].size = rep.ents[k].size;
	}
	pvfs_msg_free(PVFS_IOD_LIST, 1, &rep);
	return 0;
}

int
pvfs_admin_purge(struct pvfs_admin *a, uint32_t i, uint64_t ino, uint64_t gen,
    uint32_t copy)
{
	if (!a->have_cap && admin_cap_refresh(a) != 0)
		return -1;
	if (admin_iod_purge(a->fs, i, &a->cap, ino, gen, copy) == 0)
		return 0;
	if (errno != EKEYEXPIRED || admin_cap_refresh(a) != 0)
		return -1;
	return admin_iod_purge(a->fs, i, &a->cap, ino, gen, copy);
}

int
pvfs_admin_attr(const char *path, struct pvfs_attr_info *attr)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (admin_stat(path, &fs, &rep) != 0)
		return -1;
	memset(attr, 0, sizeof(*attr));
	attr->fsid = rep.cap.fsid;
	attr->ino = rep.attr.ino;
	attr->gen = rep.cap.gen;
	attr->mode = (mode_t)rep.attr.mode;
	attr->base = rep.attr.dist.base;
	attr->pcount = rep.attr.dist.pcount;
	attr->ssize = rep.attr.dist.ssize;
	attr->copies = S_ISREG(rep.attr.mode) ?
	    pvfs_dist_copies(&rep.attr.dist) : rep.attr.dist.copies;
	attr->mshift = rep.attr.dist.mshift;
	return 0;
}

int
pvfs_admin_parts(const char *path, struct pvfs_part_info *parts, uint32_t max)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct admin_part *ap;
	struct client_fs *fs;
	uint32_t i, n;

	if (admin_stat(path, &fs, &rep) != 0)
		return -1;
	if ((n = rep.cap.dist.pcount * pvfs_dist_copies(&rep.cap.dist)) > max) {
		errno = ERANGE;
		return -1;
	}
	if ((ap = calloc(n ? n : 1, sizeof(*ap))) == NULL)
		return -1;
	if (admin_file_parts(fs, &rep, ap) != 0) {
		free(ap);
		return -1;
	}
	for (i = 0; i < n; i++) {
		parts[i].rel = ap[i].rel;
		parts[i].iod = ap[i].iod;
		parts[i].copy = ap[i].copy;
		parts[i].err = ap[i].err;
		parts[i].local_size = ap[i].size.local_size;
		parts[i].blocks = ap[i].size.blocks;
	}
	free(ap);
	return (int)n;
}
