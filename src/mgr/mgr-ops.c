/*
 * mgr-ops.c - one handler per PVFS_MGR_* opcode.
 *
 * A handler checks everything first, then changes the name space only
 * through mgr_journal_log(), and returns 0 or a positive errno.  Requests
 * and replies live in static storage: the loop has one thread and a
 * request is finished before the next is decoded.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define OP_LINK_MAX 65000 /* names one file may have (ext4's limit): EMLINK */
#define OP_FFREE (1ull << 40) /* inodes the mgr offers; numbers are 64-bit, never exhausted */

static union {
	struct pvfs_none none;
	struct pvfs_mgr_cred_req cred_only;
	struct pvfs_mgr_open_req open;
	struct pvfs_mgr_path_req path;
	struct pvfs_mgr_getattr_req getattr;
	struct pvfs_mgr_setattr_req setattr;
	struct pvfs_mgr_truncate_req truncate;
	struct pvfs_mgr_mode_req mode;
	struct pvfs_mgr_rename_req rename;
	struct pvfs_mgr_readdir_req readdir;
	struct pvfs_mgr_inolist_req inolist;
	struct pvfs_mgr_auth_req auth;
	struct pvfs_mgr_mknod_req mknod;
	struct pvfs_mgr_modified_req modified;
	struct pvfs_mgr_symlink_req symlink;
	struct pvfs_mgr_lease_req lease;
	struct pvfs_mgr_dirty_req dirty;
	struct pvfs_mgr_resync_req resync;
	struct pvfs_mgr_size_req size;
} op_req;

static union {
	struct pvfs_none none;
	struct pvfs_mgr_ping_rep ping;
	struct pvfs_mgr_fsinfo_rep fsinfo;
	struct pvfs_mgr_attrcap_rep ac;
	struct pvfs_mgr_readdir_rep readdir;
	struct pvfs_mgr_readdirplus_rep readdirplus;
	struct pvfs_mgr_statfs_rep statfs;
	struct pvfs_mgr_inolist_rep inolist;
	struct pvfs_mgr_auth_rep auth;
	struct pvfs_mgr_iodstatus_rep iodstatus;
	struct pvfs_counters_rep counters;
	struct pvfs_mgr_readlink_rep readlink;
	struct pvfs_mgr_resync_rep resync;
} op_rep;

uint32_t mgr_op_reqid;

/* The body of a PVFS_ST_LINK reply: the link a walk stopped at. */
static struct pvfs_link_rep op_link;

#define OP_DES_MAX (PVFS_READDIR_MAX > PVFS_READDIRPLUS_MAX ? \
	PVFS_READDIR_MAX : PVFS_READDIRPLUS_MAX)

static struct pvfs_dirent_wire op_ents[PVFS_READDIR_MAX];
static struct pvfs_direntplus_wire op_pents[PVFS_READDIRPLUS_MAX];
static struct mgr_dirent *op_des[OP_DES_MAX];

/* ---- helpers ---- */

/* Resolve a request's path (which: 0, or 1 for RENAME's second) as
 * mgr_ns_resolve_how does; a link met is described in op_link. */
static int
mgr_op_resolve(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, int slash_ok, enum mgr_follow follow, int which)
{
	int rc = mgr_ns_resolve_how(cr, path, p, slash_ok, follow);

	if (rc == PVFS_ST_LINK) {
		op_link.which = (uint8_t)which;
		op_link.consumed = (uint32_t)p->link_end;
		memcpy(op_link.target, p->link->target, p->link->targetlen + 1u);
	}
	return rc;
}

/* The same for requests whose last component must exist. */
static int
mgr_op_existing(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, enum mgr_follow follow)
{
	int rc = mgr_op_resolve(cr, path, p, 0, follow, 0);

	if (rc == 0 && p->ino == NULL)
		rc = ENOENT;
	return rc;
}

/* A name to be made by a request other than mkdir (mknod, symlink, the
 * new name of a link), checked in Linux's order: the name is taken
 * (EEXIST, "." and ".." too), "missing/" is ENOENT, then may_create.
 * which: 1 when path is a RENAME-shaped request's second. */
static int
mgr_op_new_name(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, int which)
{
	int rc;

	if ((rc = mgr_op_resolve(cr, path, p, 1, MGR_WALK_PARENT, which)) != 0)
		return rc;
	if (p->special || p->ino != NULL)
		return EEXIST;
	if (p->slash)
		return ENOENT;
	if (mgr_perm_check(cr, p->dir, MGR_MAY_W | MGR_MAY_X) != 0)
		return EACCES;
	return 0;
}

static enum mgr_follow
mgr_op_follow(uint32_t pflags)
{
	return (pflags & PVFS_PF_NOFOLLOW) ? MGR_WALK_NOFOLLOW : MGR_WALK_FOLLOW;
}

void
mgr_cap_mint(uint64_t ino, uint64_t gen, uint32_t rights,
    const struct pvfs_dist *dist, struct pvfs_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	cap->fsid = mgr.fsid;
	cap->ino = ino;
	cap->gen = gen;
	cap->rights = rights;
	cap->expiry = pvfs_now_ns() / 1000000000 + PVFS_CAP_LIFETIME;
	if (dist != NULL)
		cap->dist = *dist;
	pvfs_cap_sign(cap, mgr.key, mgr.keylen);
}

/* A regular file named by a capability a client shows, with right: 0
 * and the inode, or the errno (a forged or expired capability, a file
 * gone or replaced, not a regular file). */
int
mgr_cap_file(const struct pvfs_cap *cap, uint32_t right,
    struct mgr_inode **inp)
{
	struct mgr_inode *in;
	int why;

	if (pvfs_cap_check(cap, mgr.key, mgr.keylen, right,
	    pvfs_now_ns() / 1000000000, mgr.fsid, &why) != 0)
		return why == PVFS_CAP_EXPIRED ? EKEYEXPIRED : EACCES;
	if ((in = mgr_ns_get(cap->ino)) == NULL || in->gen != cap->gen)
		return ESTALE;
	if (!MGR_IS_REG(in))
		return EINVAL;
	*inp = in;
	return 0;
}

static void
mgr_op_cap(const struct mgr_inode *in, uint32_t rights, struct pvfs_cap *cap)
{
	mgr_cap_mint(in->ino, in->gen, rights, in->dir == NULL ? &in->dist : NULL,
	    cap);
}

static int
mgr_op_attrcap(const struct mgr_inode *in, uint32_t rights,
    struct pvfs_mgr_attrcap_rep *rep)
{
	mgr_ns_attr(in, &rep->attr);
	mgr_op_cap(in, rights, &rep->cap);
	return 0;
}

/* Rights an open grants, by access mode; O_TRUNC adds WRITE because the
 * client truncates the iods itself. */
static uint32_t
mgr_op_open_rights(uint32_t flags)
{
	static const uint32_t by_acc[] = {
		PVFS_R_READ | PVFS_R_SIZE, PVFS_R_WRITE | PVFS_R_SIZE,
		PVFS_R_READ | PVFS_R_WRITE | PVFS_R_SIZE, 0,
	};
	uint32_t r = by_acc[flags & PVFS_OF_ACCMODE];

	return flags & PVFS_OF_TRUNC ? r | PVFS_R_WRITE : r;
}

static int
mgr_op_open_want(uint32_t flags)
{
	uint32_t acc = flags & PVFS_OF_ACCMODE;
	int want = 0;

	if (acc == PVFS_OF_RDONLY || acc == PVFS_OF_RDWR)
		want |= MGR_MAY_R;
	if (acc == PVFS_OF_WRONLY || acc == PVFS_OF_RDWR || (flags & PVFS_OF_TRUNC))
		want |= MGR_MAY_W;
	return want;
}

/* New inodes take the caller's group, or the parent's if it is setgid. */
static uint32_t
mgr_op_new_gid(const struct pvfs_cred *cr, const struct mgr_inode *dir)
{
	return (dir->mode & S_ISGID) ? dir->gid : cr->gid;
}

/* Record new mtime and ctime, as a truncate makes them, and clear the
 * set-id bits a write by cr clears (mgr_perm_kill_bits). */
static void
mgr_op_touch(const struct pvfs_cred *cr, const struct mgr_inode *in)
{
	uint32_t kill = mgr_perm_kill_bits(cr, in);
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = in->ino;
	r.mask = MGR_REC_MTIME | MGR_REC_CTIME;
	r.mtime_ns = r.ctime_ns = pvfs_now_ns();
	if (kill != 0) {
		r.mask |= MGR_REC_MODE;
		r.mode = in->mode & 07777 & ~kill;
	}
	mgr_journal_log(&r);
}

/* ---- PING, FSINFO, STATFS ---- */

static int
mgr_op_ping(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_ping_rep *rep = rp;

	rep->version = PVFS_PROTO_VERSION;
	rep->fsid = mgr.fsid;
	rep->uptime_s = (uint64_t)(pvfs_mono_ms() - mgr.start_ms) / 1000;
	rep->auth = (uint8_t)mgr_auth_kind(c);
	return 0;
}

static int
mgr_op_fsinfo(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_fsinfo_rep *rep = rp;

	rep->fsid = mgr.fsid;
	rep->default_ssize = mgr.ssize;
	rep->niods = mgr.niods;
	rep->iods = mgr.iods;
	return 0;
}

static int
mgr_op_statfs(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_statfs_rep *rep = rp;

	uint64_t used = mgr_ns_count();

	/* A total and its free part, as statfs(2) means them: df -i's IUsed
	 * (files - ffree) is the inodes in use. */
	rep->ffree = OP_FFREE > used ? OP_FFREE - used : 0;
	rep->files = used + rep->ffree;
	rep->namemax = PVFS_NAME_MAX;
	return 0;
}

/* ---- OPEN ---- */

/* Fill PVFS_DIST_DEFAULT fields and check the result against the iods. */
static int
mgr_op_dist(const struct pvfs_dist *want, uint64_t ino, struct pvfs_dist *d)
{
	if (mgr.niods == 0)
		return ENOSPC;
	d->ssize = want->ssize == PVFS_DIST_DEFAULT ? mgr.ssize : want->ssize;
	d->pcount = want->pcount == PVFS_DIST_DEFAULT ? mgr.niods : want->pcount;
	d->base = want->base == PVFS_DIST_DEFAULT ?
	    (uint32_t)(ino % mgr.niods) : want->base;
	if (d->base >= mgr.niods || d->pcount < 1 || d->pcount > mgr.niods)
		return EINVAL;
	if (d->ssize < PVFS_SSIZE_MIN || d->ssize > PVFS_SSIZE_MAX)
		return EINVAL;
	return 0;
}

static int
mgr_op_create(const struct pvfs_mgr_open_req *q, const struct mgr_path *p,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_dist mirror;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	if (!(q->flags & PVFS_OF_CREAT))
		return ENOENT;
	if (p->slash)
		return EISDIR;
	if (q->flags & PVFS_OF_DIRECTORY)
		return EINVAL;
	if (mgr_perm_check(&q->cred, p->dir, MGR_MAY_W | MGR_MAY_X) != 0)
		return EACCES;
	mgr_ns_rec_new(&r, MGR_REC_CREATE, p, now);
	r.ino = mgr_ns_next_ino();
	if ((rc = mgr_op_dist(&q->dist, r.ino, &r.dist)) != 0)
		return rc;
	mirror = r.dist; /* the placement depends on base and pcount */
	if ((rc = mgr_layout_choose(q->dist.copies, p->dir, &mirror)) != 0)
		return rc;
	r.gen = mgr_ns_new_gen();
	r.mode = q->mode & 07777;
	r.uid = q->cred.uid;
	r.gid = mgr_op_new_gid(&q->cred, p->dir);
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	mgr_journal_log(&r);
	if (mirror.copies > 1)
		mgr_layout_log(r.ino, &mirror);
	mgr_size_new(mgr_ns_get(r.ino));
	return mgr_op_attrcap(mgr_ns_get(r.ino), mgr_op_open_rights(q->flags), rep);
}

static int
mgr_op_open_existing(const struct pvfs_mgr_open_req *q, struct mgr_inode *in,
    struct pvfs_mgr_attrcap_rep *rep)
{
	uint32_t acc = q->flags & PVFS_OF_ACCMODE;

	if ((q->flags & (PVFS_OF_CREAT | PVFS_OF_EXCL)) ==
	    (PVFS_OF_CREAT | PVFS_OF_EXCL))
		return EEXIST;
	/* A link not followed (O_NOFOLLOW): Linux's may_open refuses it. */
	if (MGR_IS_LNK(in))
		return (q->flags & PVFS_OF_DIRECTORY) ? ENOTDIR : ELOOP;
	if (in->dir != NULL &&
	    (acc != PVFS_OF_RDONLY || (q->flags & (PVFS_OF_TRUNC | PVFS_OF_CREAT))))
		return EISDIR;
	if (in->dir == NULL && (q->flags & PVFS_OF_DIRECTORY))
		return ENOTDIR;
	if (mgr_perm_check(&q->cred, in, mgr_op_open_want(q->flags)) != 0)
		return EACCES;
	/* O_TRUNC means nothing to a FIFO, socket or device. */
	if ((q->flags & PVFS_OF_TRUNC) && MGR_IS_REG(in))
		mgr_op_touch(&q->cred, in);
	return mgr_op_attrcap(in, mgr_op_open_rights(q->flags), rep);
}

static int
mgr_op_open(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_open_req *q = rq;
	enum mgr_follow follow = MGR_WALK_FOLLOW;
	struct mgr_path p;
	int rc;

	if ((q->flags & ~PVFS_OF_ALL) ||
	    (q->flags & PVFS_OF_ACCMODE) == PVFS_OF_ACCMODE)
		return EINVAL;
	/* Linux: O_CREAT|O_EXCL never follows a last link (EEXIST), and
	 * O_CREAT alone through a dangling one creates its target. */
	if ((q->flags & (PVFS_OF_CREAT | PVFS_OF_EXCL)) ==
	    (PVFS_OF_CREAT | PVFS_OF_EXCL))
		follow = MGR_WALK_PARENT;
	else if (q->flags & PVFS_OF_NOFOLLOW)
		follow = MGR_WALK_NOFOLLOW;
	if ((rc = mgr_op_resolve(&q->cred, q->path, &p, 1, follow, 0)) != 0)
		return rc;
	/* Linux: O_CREAT with a trailing "/" is EISDIR whatever is there;
	 * without O_CREAT, "f/" is ENOTDIR. */
	if (p.slash && (q->flags & PVFS_OF_CREAT))
		return EISDIR;
	if (p.slash && p.ino != NULL && p.ino->dir == NULL)
		return ENOTDIR;
	if (p.ino == NULL) {
		if ((rc = mgr_op_create(q, &p, rp)) == 0)
			((struct pvfs_mgr_attrcap_rep *)rp)->created = 1;
		return rc;
	}
	return mgr_op_open_existing(q, p.ino, rp);
}

/* ---- STAT, GETATTR, ACCESS ---- */

static int
mgr_op_stat(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_path_req *q = rq;
	struct mgr_path p;
	int rc;

	if (q->flags & ~PVFS_PF_ALL)
		return EINVAL;
	if ((rc = mgr_op_existing(&q->cred, q->path, &p,
	    mgr_op_follow(q->flags))) != 0)
		return rc;
	if ((rc = mgr_op_attrcap(p.ino, PVFS_R_SIZE, rp)) == 0)
		((struct pvfs_mgr_attrcap_rep *)rp)->cache_ms =
		    mgr_cache_grant(q->cb_token, q->path, &p);
	return rc;
}

/* By inode: the directories above must be searchable, as for a path,
 * and the rights asked for are checked against the mode as an open would
 * check them. */
static int
mgr_op_getattr(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_getattr_req *q = rq;
	struct mgr_inode *in = mgr_ns_get(q->ino);
	uint32_t rights = q->rights | PVFS_R_SIZE;
	int want = 0;

	if (in == NULL)
		return ENOENT;
	if (q->rights & ~PVFS_R_ALL)
		return EINVAL;
	if (q->rights & PVFS_R_REMOVE)
		return EACCES; /* only the mgr uses it, to free orphans */
	if (mgr_perm_reach(&q->cred, in) != 0)
		return EACCES;
	if (rights & PVFS_R_READ)
		want |= MGR_MAY_R;
	if (rights & PVFS_R_WRITE)
		want |= MGR_MAY_W;
	if (in->dir != NULL && (rights & PVFS_R_WRITE))
		return EISDIR;
	if (mgr_perm_check(&q->cred, in, want) != 0)
		return EACCES;
	return mgr_op_attrcap(in, rights, rp);
}

static int
mgr_op_access(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_mode_req *q = rq;
	struct mgr_path p;
	int rc;

	if (q->mode & ~(uint32_t)(R_OK | W_OK | X_OK))
		return EINVAL;
	if ((rc = mgr_op_existing(&q->cred, q->path, &p, MGR_WALK_FOLLOW)) != 0)
		return rc;
	/* R_OK, W_OK, X_OK have the values of MGR_MAY_R, _W, _X. */
	return mgr_perm_check(&q->cred, p.ino, (int)q->mode);
}

/* ---- SETATTR, TRUNCATE ---- */

static int
mgr_op_setattr_target(struct pvfs_mgr_setattr_req *q, struct mgr_inode **in)
{
	struct mgr_path p;
	int rc;

	if (q->ino != 0) {
		if ((*in = mgr_ns_get(q->ino)) == NULL)
			return ENOENT;
		return mgr_perm_reach(&q->cred, *in);
	}
	if ((rc = mgr_op_existing(&q->cred, q->path, &p,
	    mgr_op_follow(q->flags))) != 0)
		return rc;
	*in = p.ino;
	/* Linux has no mode for a link: lchmod is EOPNOTSUPP. */
	if (MGR_IS_LNK(*in) && (q->mask & PVFS_SA_MODE))
		return EOPNOTSUPP;
	return 0;
}

/* chmod and chown: the new mode, uid and gid into r, or why not. */
static int
mgr_op_setattr_owner(const struct pvfs_mgr_setattr_req *q,
    const struct mgr_inode *in, struct mgr_rec *r)
{
	const struct pvfs_cred *cr = &q->cred;

	r->mode = in->mode & 07777;
	if (q->mask & PVFS_SA_MODE) {
		if (!mgr_perm_owner(cr, in))
			return EPERM;
		r->mode = q->mode & 07777;
		if (cr->uid != 0 && !mgr_perm_in_group(cr, in->gid))
			r->mode &= ~(uint32_t)S_ISGID;
		r->mask |= MGR_REC_MODE;
	}
	if ((q->mask & PVFS_SA_UID) && cr->uid != 0 &&
	    (cr->uid != in->uid || q->uid != in->uid))
		return EPERM;
	if ((q->mask & PVFS_SA_GID) && cr->uid != 0 && (cr->uid != in->uid ||
	    (q->gid != in->gid && !mgr_perm_in_group(cr, q->gid))))
		return EPERM;
	r->uid = q->uid;
	r->gid = q->gid;
	if (q->mask & PVFS_SA_UID)
		r->mask |= MGR_REC_UID;
	if (q->mask & PVFS_SA_GID)
		r->mask |= MGR_REC_GID;
	if ((q->mask & (PVFS_SA_UID | PVFS_SA_GID | PVFS_SA_CHOWN)) &&
	    in->dir == NULL) {
		/* A new owner must not inherit set-id powers; as on Linux,
		 * a chown to -1, -1 clears them too, and the set-id bits are
		 * the owner's to lose only. */
		uint32_t kill = (in->mode & S_ISUID) | mgr_perm_kill_sgid(cr, in);

		if (kill != 0 && !(q->mask & (PVFS_SA_UID | PVFS_SA_GID)) &&
		    !mgr_perm_owner(cr, in))
			return EPERM;
		if (kill != 0) {
			r->mode &= ~kill;
			r->mask |= MGR_REC_MODE;
		}
	}
	return 0;
}

/* utimes: a given time needs ownership, "now" needs write permission. */
static int
mgr_op_setattr_times(const struct pvfs_mgr_setattr_req *q,
    const struct mgr_inode *in, int64_t now, struct mgr_rec *r)
{
	uint32_t now_bits = PVFS_SA_ATIME_NOW | PVFS_SA_MTIME_NOW;
	uint32_t given = q->mask & (PVFS_SA_ATIME | PVFS_SA_MTIME);

	given &= ~((q->mask & now_bits) >> 2); /* NOW wins over a value */
	if (given && !mgr_perm_owner(&q->cred, in))
		return EPERM;
	if ((q->mask & now_bits) && !mgr_perm_owner(&q->cred, in) &&
	    mgr_perm_check(&q->cred, in, MGR_MAY_W) != 0)
		return EACCES;
	if (q->mask & (PVFS_SA_ATIME | PVFS_SA_ATIME_NOW)) {
		r->mask |= MGR_REC_ATIME;
		r->atime_ns = (q->mask & PVFS_SA_ATIME_NOW) ? now : q->atime_ns;
	}
	if (q->mask & (PVFS_SA_MTIME | PVFS_SA_MTIME_NOW)) {
		r->mask |= MGR_REC_MTIME;
		r->mtime_ns = (q->mask & PVFS_SA_MTIME_NOW) ? now : q->mtime_ns;
	}
	return 0;
}

static int
mgr_op_setattr(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_setattr_req *q = rq;
	struct mgr_inode *in;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	if ((q->mask & ~PVFS_SA_ALL) || (q->flags & ~PVFS_PF_ALL))
		return EINVAL;
	if ((rc = mgr_op_setattr_target(q, &in)) != 0)
		return rc;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = in->ino;
	if ((rc = mgr_op_setattr_owner(q, in, &r)) != 0 ||
	    (rc = mgr_op_setattr_times(q, in, now, &r)) != 0)
		return rc;
	if ((q->mask & PVFS_SA_COPIES) &&
	    (rc = mgr_layout_set_default(&q->cred, in, q->copies)) != 0)
		return rc;
	if (r.mask != 0 || (q->mask & (PVFS_SA_CHOWN | PVFS_SA_COPIES))) {
		r.mask |= MGR_REC_CTIME;
		r.ctime_ns = now;
		mgr_journal_log(&r);
	}
	return mgr_op_attrcap(in, PVFS_R_SIZE, rp);
}

/* MODIFIED: the capability is the writer's permission (doc/protocol.md);
 * it must be for this file as it is now, with WRITE. */
static int
mgr_op_modified(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_modified_req *q = rq;
	struct mgr_inode *in;
	struct mgr_rec r;
	uint32_t kill;
	int rc;

	if (q->flags & ~PVFS_MOD_ALL)
		return EINVAL;
	if ((rc = mgr_cap_file(&q->cap, PVFS_R_WRITE, &in)) != 0)
		return rc;
	if (q->flags & PVFS_MOD_TRUNCATE) {
		mgr_op_touch(&q->cred, in);
	} else if ((kill = mgr_perm_kill_bits(&q->cred, in)) != 0) {
		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_SETATTR;
		r.ino = in->ino;
		r.mask = MGR_REC_MODE | MGR_REC_CTIME;
		r.mode = in->mode & 07777 & ~kill;
		r.ctime_ns = pvfs_now_ns();
		mgr_journal_log(&r);
	}
	return mgr_op_attrcap(in, PVFS_R_SIZE, rp);
}

static int
mgr_op_truncate(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_truncate_req *q = rq;
	struct mgr_path p;
	int rc;

	if ((rc = mgr_op_existing(&q->cred, q->path, &p, MGR_WALK_FOLLOW)) != 0)
		return rc;
	if (p.ino->dir != NULL)
		return EISDIR;
	if (!MGR_IS_REG(p.ino) || q->length > (uint64_t)INT64_MAX)
		return EINVAL;
	if (mgr_perm_check(&q->cred, p.ino, MGR_MAY_W) != 0)
		return EACCES;
	mgr_op_touch(&q->cred, p.ino);
	return mgr_op_attrcap(p.ino, PVFS_R_WRITE | PVFS_R_SIZE, rp);
}

/* ---- UNLINK, MKDIR, RMDIR ---- */

static int
mgr_op_unlink(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_path_req *q = rq;
	struct pvfs_mgr_attrcap_rep *rep = rp;
	struct mgr_path p;
	struct mgr_rec r;
	int rc;

	if ((rc = mgr_op_existing(&q->cred, q->path, &p, MGR_WALK_PARENT)) != 0)
		return rc;
	/* "/", "." and "..", or "d/": Linux refuses them before any
	 * permission ("f/" was ENOTDIR above). */
	if (p.special || p.slash)
		return EISDIR;
	/* Permission before type, as Linux's may_delete checks them. */
	if ((rc = mgr_perm_delete(&q->cred, p.dir, p.ino)) != 0)
		return rc;
	if (p.ino->dir != NULL)
		return EISDIR;
	/* Describe the inode before the record applies.  A regular file
	 * outlives its last name as an orphan: the mgr removes its stripes
	 * itself (mgr-free.c), after the last close if it is open. */
	mgr_op_attrcap(p.ino, PVFS_R_SIZE, rep);
	rep->attr.nlink = p.ino->nlink - 1;
	if (p.ino->nlink == 1)
		(void)mgr_lease_keep(p.ino);
	mgr_ns_rec_new(&r, MGR_REC_UNLINK, &p, pvfs_now_ns());
	r.ino = p.ino->ino;
	mgr_journal_log(&r);
	return 0;
}

static int
mgr_op_mkdir(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_mode_req *q = rq;
	struct mgr_path p;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	/* "f/" is EEXIST, as Linux says: the name is taken. */
	if ((rc = mgr_op_resolve(&q->cred, q->path, &p, 1, MGR_WALK_PARENT,
	    0)) != 0)
		return rc;
	if (p.ino != NULL)
		return EEXIST;
	if (mgr_perm_check(&q->cred, p.dir, MGR_MAY_W | MGR_MAY_X) != 0)
		return EACCES;
	mgr_ns_rec_new(&r, MGR_REC_MKDIR, &p, now);
	r.ino = mgr_ns_next_ino();
	r.mode = (q->mode & 01777) | (p.dir->mode & S_ISGID);
	r.uid = q->cred.uid;
	r.gid = mgr_op_new_gid(&q->cred, p.dir);
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	r.next_cookie = 1;
	mgr_journal_log(&r);
	if (p.dir->dist.copies != 0) /* a new directory inherits the default */
		mgr_layout_log(r.ino, &p.dir->dist);
	return mgr_op_attrcap(mgr_ns_get(r.ino), PVFS_R_SIZE, rp);
}

/* FIFOs and sockets for anyone who may create in the directory; device
 * nodes for root only (CAP_MKNOD), as Linux.  No data: no distribution,
 * no identity on the iods. */
static int
mgr_op_mknod(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_mknod_req *q = rq;
	uint32_t fmt = q->mode & S_IFMT;
	struct mgr_path p;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	if (q->mode & ~(uint32_t)(S_IFMT | 07777))
		return EINVAL;
	if (fmt != S_IFIFO && fmt != S_IFSOCK && fmt != S_IFCHR && fmt != S_IFBLK)
		return fmt == S_IFDIR ? EPERM : EINVAL;
	if ((rc = mgr_op_new_name(&q->cred, q->path, &p, 0)) != 0)
		return rc;
	if ((fmt == S_IFCHR || fmt == S_IFBLK) && q->cred.uid != 0)
		return EPERM;
	mgr_ns_rec_new(&r, MGR_REC_MKNOD, &p, now);
	r.ino = mgr_ns_next_ino();
	r.mode = fmt | (q->mode & 07777);
	r.rdev = fmt == S_IFCHR || fmt == S_IFBLK ? q->rdev : 0;
	r.uid = q->cred.uid;
	r.gid = mgr_op_new_gid(&q->cred, p.dir);
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	mgr_journal_log(&r);
	return mgr_op_attrcap(mgr_ns_get(r.ino), PVFS_R_SIZE, rp);
}

static int
mgr_op_rmdir(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_path_req *q = rq;
	struct mgr_path p;
	struct mgr_rec r;
	int rc;

	if ((rc = mgr_op_existing(&q->cred, q->path, &p, MGR_WALK_PARENT)) != 0)
		return rc;
	if (p.ino == mgr_ns_root())
		return EBUSY;
	if (p.special) /* "." is EINVAL; ".." names a non-empty directory */
		return p.namelen == 1 ? EINVAL : ENOTEMPTY;
	if ((rc = mgr_perm_delete(&q->cred, p.dir, p.ino)) != 0)
		return rc;
	if (p.ino->dir == NULL)
		return ENOTDIR;
	if (p.ino->dir->nlive != 0)
		return ENOTEMPTY;
	mgr_ns_rec_new(&r, MGR_REC_RMDIR, &p, pvfs_now_ns());
	r.ino = p.ino->ino;
	mgr_journal_log(&r);
	return 0;
}

/* ---- RENAME ---- */

/* What Linux refuses before any permission, in its order: "/", "." or
 * ".." on either side (before the source is looked up), a missing
 * source, a file renamed to "name/", a directory into its own subtree. */
static int
mgr_op_rename_shape(const struct mgr_path *s, const struct mgr_path *d)
{
	if (s->special || d->special) /* before the source's lookup */
		return EBUSY;
	if (s->ino == NULL)
		return ENOENT;
	if (s->ino->dir == NULL && d->slash)
		return ENOTDIR;
	if (s->ino->dir != NULL && mgr_ns_is_ancestor(s->ino, d->dir))
		return EINVAL;
	return 0;
}

/* Permissions, and the kinds of source and victim after them, in the
 * order of Linux's vfs_rename (may_delete, then may_create or may_delete),
 * so that a caller without permission learns nothing about the target. */
static int
mgr_op_rename_perm(const struct pvfs_cred *cr, const struct mgr_path *s,
    const struct mgr_path *d)
{
	int rc;

	if ((rc = mgr_perm_delete(cr, s->dir, s->ino)) != 0)
		return rc;
	if (d->ino == NULL &&
	    mgr_perm_check(cr, d->dir, MGR_MAY_W | MGR_MAY_X) != 0)
		return EACCES;
	if (d->ino != NULL && (rc = mgr_perm_delete(cr, d->dir, d->ino)) != 0)
		return rc;
	if (d->ino != NULL && s->ino->dir != NULL && d->ino->dir == NULL)
		return ENOTDIR;
	if (d->ino != NULL && s->ino->dir == NULL && d->ino->dir != NULL)
		return EISDIR;
	/* A directory changing parent has its ".." rewritten. */
	if (s->ino->dir != NULL && s->dir != d->dir &&
	    mgr_perm_check(cr, s->ino, MGR_MAY_W) != 0)
		return EACCES;
	return 0;
}

static int
mgr_op_rename(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_rename_req *q = rq;
	struct pvfs_mgr_attrcap_rep *rep = rp;
	struct mgr_path s, d;
	struct mgr_rec r;
	int rc;

	if ((rc = mgr_op_resolve(&q->cred, q->from, &s, 0, MGR_WALK_PARENT,
	    0)) != 0 ||
	    (rc = mgr_op_resolve(&q->cred, q->to, &d, 0, MGR_WALK_PARENT, 1)) != 0)
		return rc;
	if (s.ino != NULL && s.ino == d.ino && !s.special && !d.special)
		return mgr_op_attrcap(s.ino, PVFS_R_SIZE, rep); /* no-op */
	if ((rc = mgr_op_rename_shape(&s, &d)) != 0 ||
	    (rc = mgr_op_rename_perm(&q->cred, &s, &d)) != 0)
		return rc;
	if (d.ino != NULL && d.ino->dir != NULL && d.ino->dir->nlive != 0)
		return ENOTEMPTY;
	/* A replaced file's last name goes away: it is an orphan, whose
	 * stripes the mgr removes (mgr-free.c). */
	if (d.ino != NULL && d.ino->nlink == 1)
		(void)mgr_lease_keep(d.ino);
	mgr_op_cap(s.ino, PVFS_R_SIZE, &rep->cap);
	mgr_ns_rec_new(&r, MGR_REC_RENAME, &s, pvfs_now_ns());
	r.parent2 = d.dir->ino;
	r.name2 = d.name;
	r.namelen2 = (uint16_t)d.namelen;
	mgr_journal_log(&r);
	mgr_ns_attr(s.ino, &rep->attr);
	return 0;
}

/* ---- SYMLINK, READLINK ---- */

/* Linux's order: the name is taken (EEXIST, "missing/" ENOENT) before
 * permission; an empty text is ENOENT. */
static int
mgr_op_symlink(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_symlink_req *q = rq;
	size_t tlen = strlen(q->target);
	struct mgr_path p;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	if (tlen == 0)
		return ENOENT;
	if (tlen > MGR_LINK_MAX)
		return ENAMETOOLONG;
	if ((rc = mgr_op_new_name(&q->cred, q->path, &p, 0)) != 0)
		return rc;
	mgr_ns_rec_new(&r, MGR_REC_SYMLINK, &p, now);
	r.ino = mgr_ns_next_ino();
	r.mode = 0777;
	r.uid = q->cred.uid;
	r.gid = mgr_op_new_gid(&q->cred, p.dir);
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	r.target = q->target;
	r.targetlen = (uint16_t)tlen;
	mgr_journal_log(&r);
	return mgr_op_attrcap(mgr_ns_get(r.ino), PVFS_R_SIZE, rp);
}

/* Never follows a last link, except with a "/" after it (then the
 * answer is about what it leads to: EINVAL for a directory). */
static int
mgr_op_readlink(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_path_req *q = rq;
	struct pvfs_mgr_readlink_rep *rep = rp;
	struct mgr_path p;
	int rc;

	if ((rc = mgr_op_existing(&q->cred, q->path, &p,
	    MGR_WALK_NOFOLLOW)) != 0)
		return rc;
	if (!MGR_IS_LNK(p.ino))
		return EINVAL;
	memcpy(rep->target, p.ino->target, p.ino->targetlen + 1u);
	return 0;
}

/* ---- LINK ---- */

/* In the order of Linux's linkat: the source's lookup, the new name's
 * (EEXIST), then may_create, a directory (EPERM) and the link count. */
static int
mgr_op_link(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_rename_req *q = rq;
	struct mgr_path s, d;
	struct mgr_rec r;
	int rc;

	/* link(2) makes a name for a last link itself, not its target. */
	if ((rc = mgr_op_existing(&q->cred, q->from, &s,
	    MGR_WALK_NOFOLLOW)) != 0 ||
	    (rc = mgr_op_new_name(&q->cred, q->to, &d, 1)) != 0)
		return rc;
	if (s.ino->dir != NULL)
		return EPERM;
	if (s.ino->nlink >= OP_LINK_MAX)
		return EMLINK;
	mgr_ns_rec_new(&r, MGR_REC_LINK, &d, pvfs_now_ns());
	r.ino = s.ino->ino;
	mgr_journal_log(&r);
	return mgr_op_attrcap(s.ino, PVFS_R_SIZE, rp);
}

/* ---- READDIR ---- */

/* The directory's entries after the cookie, at most max of them (0: the
 * limit), in op_des; want is the permission the caller needs on it. */
static int
mgr_op_readdir_some(const struct pvfs_mgr_readdir_req *q, int want,
    uint32_t limit, uint32_t *n, uint8_t *eofp)
{
	struct mgr_inode *in = mgr_ns_get(q->ino);
	uint32_t max = q->max;
	int eof;

	if (in == NULL)
		return ENOENT;
	if (in->dir == NULL)
		return ENOTDIR;
	if (mgr_perm_reach(&q->cred, in) != 0 ||
	    mgr_perm_check(&q->cred, in, want) != 0)
		return EACCES;
	if (max == 0 || max > limit)
		max = limit;
	*n = mgr_ns_readdir(in, q->cookie, op_des, max, &eof);
	*eofp = (uint8_t)eof;
	return 0;
}

static void
mgr_op_dirent(const struct mgr_dirent *de, struct pvfs_dirent_wire *w)
{
	w->ino = de->inode->ino;
	w->cookie = mgr_ns_cookie(de);
	w->type = (uint8_t)IFTODT(de->inode->mode);
	memcpy(w->name, de->name, de->namelen + 1u);
}

/* "." and ".." are not sent: the client makes them up. */
static int
mgr_op_readdir(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_readdir_rep *rep = rp;
	uint32_t i;
	int rc;

	if ((rc = mgr_op_readdir_some(rq, MGR_MAY_R, PVFS_READDIR_MAX, &rep->n,
	    &rep->eof)) != 0)
		return rc;
	rep->ents = op_ents;
	for (i = 0; i < rep->n; i++)
		mgr_op_dirent(op_des[i], &op_ents[i]);
	return 0;
}

/* As STAT (PVFS_PF_NOFOLLOW) of each entry's path would answer:
 * searching the directory is what STAT needs of it, reading it what
 * READDIR needs. */
static int
mgr_op_readdirplus(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_readdirplus_rep *rep = rp;
	struct pvfs_mgr_attrcap_rep ac;
	uint32_t i;
	int rc;

	if ((rc = mgr_op_readdir_some(rq, MGR_MAY_R | MGR_MAY_X,
	    PVFS_READDIRPLUS_MAX, &rep->n, &rep->eof)) != 0)
		return rc;
	rep->ents = op_pents;
	for (i = 0; i < rep->n; i++) {
		mgr_op_dirent(op_des[i], &op_pents[i].ent);
		mgr_op_attrcap(op_des[i]->inode, PVFS_R_SIZE, &ac);
		op_pents[i].attr = ac.attr;
		op_pents[i].cap = ac.cap;
	}
	return 0;
}

/* ---- dispatch ---- */

/* Where a request's claimed identity is, if it has one. */
#define OP_NOCRED SIZE_MAX
#define OP(op, fn, type) \
	[op - PVFS_MGR_PING] = { fn, offsetof(type, cred) }
#define OP_ANON(op, fn) [op - PVFS_MGR_PING] = { fn, OP_NOCRED }

static const struct {
	mgr_op_fn fn;
	size_t cred_off; /* of the request's struct pvfs_cred, or OP_NOCRED */
} op_table[PVFS_MGR_OP_END - PVFS_MGR_PING] = {
	OP_ANON(PVFS_MGR_PING, mgr_op_ping),
	OP(PVFS_MGR_FSINFO, mgr_op_fsinfo, struct pvfs_mgr_cred_req),
	OP(PVFS_MGR_OPEN, mgr_op_open, struct pvfs_mgr_open_req),
	OP(PVFS_MGR_STAT, mgr_op_stat, struct pvfs_mgr_path_req),
	OP(PVFS_MGR_GETATTR, mgr_op_getattr, struct pvfs_mgr_getattr_req),
	OP(PVFS_MGR_SETATTR, mgr_op_setattr, struct pvfs_mgr_setattr_req),
	OP(PVFS_MGR_TRUNCATE, mgr_op_truncate, struct pvfs_mgr_truncate_req),
	OP(PVFS_MGR_UNLINK, mgr_op_unlink, struct pvfs_mgr_path_req),
	OP(PVFS_MGR_MKDIR, mgr_op_mkdir, struct pvfs_mgr_mode_req),
	OP(PVFS_MGR_RMDIR, mgr_op_rmdir, struct pvfs_mgr_path_req),
	OP(PVFS_MGR_RENAME, mgr_op_rename, struct pvfs_mgr_rename_req),
	OP(PVFS_MGR_READDIR, mgr_op_readdir, struct pvfs_mgr_readdir_req),
	OP(PVFS_MGR_ACCESS, mgr_op_access, struct pvfs_mgr_mode_req),
	OP(PVFS_MGR_STATFS, mgr_op_statfs, struct pvfs_mgr_cred_req),
	OP(PVFS_MGR_INOLIST, mgr_admin_inolist, struct pvfs_mgr_inolist_req),
	OP_ANON(PVFS_MGR_AUTH, mgr_auth_op),
	OP(PVFS_MGR_IODSTATUS, mgr_iods_status, struct pvfs_mgr_cred_req),
	OP(PVFS_MGR_READDIRPLUS, mgr_op_readdirplus, struct pvfs_mgr_readdir_req),
	OP_ANON(PVFS_MGR_COUNTERS, mgr_admin_counters),
	OP(PVFS_MGR_MKNOD, mgr_op_mknod, struct pvfs_mgr_mknod_req),
	OP(PVFS_MGR_MODIFIED, mgr_op_modified, struct pvfs_mgr_modified_req),
	OP(PVFS_MGR_SYMLINK, mgr_op_symlink, struct pvfs_mgr_symlink_req),
	OP(PVFS_MGR_READLINK, mgr_op_readlink, struct pvfs_mgr_path_req),
	OP(PVFS_MGR_LINK, mgr_op_link, struct pvfs_mgr_rename_req),
	OP(PVFS_MGR_LEASE, mgr_lease_op, struct pvfs_mgr_lease_req),
	OP(PVFS_MGR_DIRTY, mgr_resync_dirty_op, struct pvfs_mgr_dirty_req),
	OP(PVFS_MGR_RESYNC, mgr_resync_op, struct pvfs_mgr_resync_req),
	OP(PVFS_MGR_SIZE, mgr_size_op, struct pvfs_mgr_size_req),
	OP(PVFS_MGR_CALLBACK, mgr_cache_callback_op, struct pvfs_mgr_callback_req),
};

void
mgr_op_init(void)
{
	size_t i;

	for (i = 0; i < sizeof(op_table) / sizeof(op_table[0]); i++) {
		uint16_t op = (uint16_t)(PVFS_MGR_PING + i);

		if (op_table[i].fn == NULL || pvfs_msg_size(op, 0) > sizeof(op_req) ||
		    pvfs_msg_size(op, 1) > sizeof(op_rep))
			pvfs_fatal("bug: %s has no handler or too big a body",
			    pvfs_op_name(op));
	}
}

int
mgr_op_dispatch(struct mgr_conn *c, const struct pvfs_hdr *h,
    const uint8_t *body)
{
	uint16_t op = h->op;
	struct pvfs_cred *cr;
	int64_t t0 = pvfs_mono_ns();
	size_t off;
	int status;

	if (op < PVFS_MGR_PING || op >= PVFS_MGR_OP_END) {
		pvfs_log_debug("%s: unknown opcode 0x%x", c->dc.name, op);
		mgr_conn_reply(c, op, h->reqid, EOPNOTSUPP, NULL);
		return 0;
	}
	memset(&op_req, 0, pvfs_msg_size(op, 0));
	if (pvfs_msg_decode(op, 0, body, h->body_len, &op_req) != 0) {
		pvfs_log_info("%s: malformed %s request", c->dc.name, pvfs_op_name(op));
		mgr_conn_reply(c, op, h->reqid, EPROTO, NULL);
		return -1;
	}
	memset(&op_rep, 0, sizeof(op_rep));
	status = 0;
	/* The claimed identity becomes the one the connection may use. */
	off = op_table[op - PVFS_MGR_PING].cred_off;
	if (off != OP_NOCRED) {
		cr = (struct pvfs_cred *)((uint8_t *)&op_req + off);
		if ((status = mgr_auth_cred(c, cr)) == 0)
			mgr_perm_squash(cr);
	}
	mgr_op_reqid = h->reqid;
	mgr_cache_op_begin();
	if (status == 0)
		status = op_table[op - PVFS_MGR_PING].fn(c, &op_req, &op_rep);
	/* Before the reply is queued: it may have to wait for other clients
	 * to forget what the request changed. */
	mgr_cache_op_end(c);
	if (status != MGR_OP_LATER)
		mgr_conn_reply(c, op, h->reqid, status,
		    status == PVFS_ST_LINK ? (void *)&op_link : (void *)&op_rep);
	pvfs_counters_op(&mgr_counters, op, status, pvfs_mono_ns() - t0);
	pvfs_msg_free(op, 0, &op_req);
	pvfs_log_debug("%s: %s -> %d", c->dc.name, pvfs_op_name(op), status);
	return 0;
}
