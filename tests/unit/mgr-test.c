/*
 * mgr-test.c - helpers of the mgr's unit suites: changes built the way
 * the handlers of mgr-ops.c build them, and a dump of the name space.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mgr-test.h"

#define MT_NIODS 4
#define MT_SSIZE 65536

int (*mt_apply)(const struct mgr_rec *r) = mgr_ns_apply;

static const struct pvfs_cred mt_root;

int
mt_journal_apply(const struct mgr_rec *r)
{
	mgr_journal_log(r); /* the handlers check first: it must apply */
	return 0;
}

void
mt_setup(void)
{
	pvfs_log_open("test", NULL, PVFS_LOG_WARN);
	memset(&mgr, 0, sizeof(mgr));
	mgr.ssize = MT_SSIZE;
	mgr.niods = MT_NIODS;
	mgr.journal_max = 1ull << 40;
	mt_apply = mgr_ns_apply;
}

int
mt_dir_make(const char *name, char *base, size_t baselen, char *meta,
    size_t metalen)
{
	const char *tmp = getenv("TMPDIR");

	if (snprintf(base, baselen, "%s/%s.XXXXXX", tmp != NULL &&
	    *tmp != '\0' ? tmp : "/tmp", name) >= (int)baselen ||
	    mkdtemp(base) == NULL)
		return -1;
	if (snprintf(meta, metalen, "%s/meta", base) >= (int)metalen)
		return -1;
	return mkdir(meta, 0700);
}

int
mt_dir_remove(const char *base)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd);
}

static int
mt_resolve(const char *path, struct mgr_path *p)
{
	return mgr_ns_resolve(&mt_root, path, p);
}

static int
mt_new(uint8_t type, const char *path, uint32_t mode, uint32_t uid,
    uint32_t gid, uint64_t *ino, const char *target)
{
	struct mgr_path p;
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();
	int rc;

	if ((rc = mt_resolve(path, &p)) != 0)
		return rc;
	mgr_ns_rec_new(&r, type, &p, now);
	r.ino = mgr_ns_next_ino();
	r.mode = mode & (type == MGR_REC_MKNOD ? 0177777 : 07777);
	r.uid = uid;
	r.gid = gid;
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	if (type == MGR_REC_SYMLINK) {
		r.target = target;
		r.targetlen = (uint16_t)strlen(target);
	} else if (type == MGR_REC_CREATE) {
		r.gen = mgr_ns_new_gen();
		r.dist.base = (uint32_t)(r.ino % MT_NIODS);
		r.dist.pcount = MT_NIODS;
		r.dist.ssize = MT_SSIZE;
	} else if (type == MGR_REC_MKDIR) {
		r.next_cookie = 1;
	} else {
		r.rdev = (uint64_t)mode * 7; /* any number: it must survive */
	}
	if ((rc = mt_apply(&r)) == 0 && ino != NULL)
		*ino = r.ino;
	return rc;
}

int
mt_create(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino)
{
	return mt_new(MGR_REC_CREATE, path, mode, uid, gid, ino, NULL);
}

int
mt_mkdir(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino)
{
	return mt_new(MGR_REC_MKDIR, path, mode, uid, gid, ino, NULL);
}

int
mt_symlink(const char *path, const char *target, uint32_t uid, uint32_t gid,
    uint64_t *ino)
{
	return mt_new(MGR_REC_SYMLINK, path, 0777, uid, gid, ino, target);
}

/* mode with its type (S_IFIFO ...); rdev is made from it. */
int
mt_mknod(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino)
{
	return mt_new(MGR_REC_MKNOD, path, mode, uid, gid, ino, NULL);
}

static int
mt_remove(uint8_t type, const char *path)
{
	struct mgr_path p;
	struct mgr_rec r;
	int rc;

	if ((rc = mt_resolve(path, &p)) != 0)
		return rc;
	mgr_ns_rec_new(&r, type, &p, pvfs_now_ns());
	r.ino = p.ino != NULL ? p.ino->ino : 0;
	return mt_apply(&r);
}

int
mt_unlink(const char *path)
{
	return mt_remove(MGR_REC_UNLINK, path);
}

int
mt_rmdir(const char *path)
{
	return mt_remove(MGR_REC_RMDIR, path);
}

int
mt_link(const char *from, const char *to)
{
	struct mgr_path s, d;
	struct mgr_rec r;
	int rc;

	if ((rc = mt_resolve(from, &s)) != 0 || (rc = mt_resolve(to, &d)) != 0)
		return rc;
	if (s.ino == NULL)
		return ENOENT;
	mgr_ns_rec_new(&r, MGR_REC_LINK, &d, pvfs_now_ns());
	r.ino = s.ino->ino;
	return mt_apply(&r);
}

int
mt_orphan(const char *path)
{
	struct mgr_path p;
	struct mgr_rec r;
	int rc;

	if ((rc = mt_resolve(path, &p)) != 0)
		return rc;
	if (p.ino == NULL)
		return ENOENT;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_ORPHAN;
	r.ino = p.ino->ino;
	r.gen = p.ino->gen;
	r.mode = p.ino->mode & 07777;
	r.dist = p.ino->dist;
	return mt_apply(&r);
}

int
mt_free(uint64_t ino)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_FREE;
	r.ino = ino;
	return mt_apply(&r);
}

int
mt_rename(const char *from, const char *to)
{
	struct mgr_path s, d;
	struct mgr_rec r;
	int rc;

	if ((rc = mt_resolve(from, &s)) != 0 || (rc = mt_resolve(to, &d)) != 0)
		return rc;
	mgr_ns_rec_new(&r, MGR_REC_RENAME, &s, pvfs_now_ns());
	r.parent2 = d.dir->ino;
	r.name2 = d.name;
	r.namelen2 = (uint16_t)d.namelen;
	return mt_apply(&r);
}

static int
mt_setattr(const char *path, struct mgr_rec *r)
{
	struct mgr_path p;
	int rc;

	if ((rc = mt_resolve(path, &p)) != 0)
		return rc;
	r->type = MGR_REC_SETATTR;
	r->ino = p.ino != NULL ? p.ino->ino : 0;
	r->mask |= MGR_REC_CTIME;
	r->ctime_ns = pvfs_now_ns();
	return mt_apply(r);
}

int
mt_chmod(const char *path, uint32_t mode)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.mask = MGR_REC_MODE;
	r.mode = mode & 07777;
	return mt_setattr(path, &r);
}

int
mt_chown(const char *path, uint32_t uid, uint32_t gid)
{
	struct mgr_inode *in = mt_get(path);
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.mask = MGR_REC_UID | MGR_REC_GID;
	r.uid = uid;
	r.gid = gid;
	if (in != NULL && in->dir == NULL) {
		/* A new owner inherits no set-id powers (mgr-ops.c). */
		r.mode = in->mode & 07777 & ~(uint32_t)S_ISUID;
		if (r.mode & S_IXGRP)
			r.mode &= ~(uint32_t)S_ISGID;
		r.mask |= MGR_REC_MODE;
	}
	return mt_setattr(path, &r);
}

int
mt_utimes(const char *path, int64_t atime_ns, int64_t mtime_ns)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.mask = MGR_REC_ATIME | MGR_REC_MTIME;
	r.atime_ns = atime_ns;
	r.mtime_ns = mtime_ns;
	return mt_setattr(path, &r);
}

int
mt_touch(const char *path)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.mask = MGR_REC_MTIME;
	r.mtime_ns = pvfs_now_ns();
	return mt_setattr(path, &r);
}

struct mgr_inode *
mt_get(const char *path)
{
	struct mgr_path p;

	return mt_resolve(path, &p) == 0 ? p.ino : NULL;
}

struct pvfs_cred
mt_cred(uint32_t uid, uint32_t gid, int ngroups, ...)
{
	struct pvfs_cred cr;
	va_list ap;
	int i;

	memset(&cr, 0, sizeof(cr));
	cr.uid = uid;
	cr.gid = gid;
	cr.ngroups = (uint32_t)ngroups;
	va_start(ap, ngroups);
	for (i = 0; i < ngroups; i++)
		cr.groups[i] = va_arg(ap, uint32_t);
	va_end(ap);
	return cr;
}

/* ---- dumps ---- */

static char *
mt_path_of(const struct mgr_inode *in)
{
	char buf[4096], tmp[4096];

	buf[0] = '\0';
	for (; in->de != NULL; in = in->de->parent) {
		snprintf(tmp, sizeof(tmp), "/%s%s", in->de->name, buf);
		memcpy(buf, tmp, sizeof(buf));
	}
	return strdup(buf[0] == '\0' ? "/" : buf);
}

static int
mt_dump_one(const struct mgr_inode *in, const struct mgr_dirent *de,
    int first, void *arg)
{
	struct mt_dump *d = arg;
	struct mt_ent *e;
	char *dir, buf[8192];

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->ents = realloc(d->ents, d->cap * sizeof(*d->ents));
		assert_non_null(d->ents);
	}
	e = &d->ents[d->n++];
	memset(e, 0, sizeof(*e));
	(void)first;
	if (de == NULL && in->orphan) {
		snprintf(buf, sizeof(buf), "<orphan %llu>",
		    (unsigned long long)in->ino);
		e->path = strdup(buf);
	} else if (de == NULL) {
		e->path = strdup("/");
	} else {
		dir = mt_path_of(de->parent);
		snprintf(buf, sizeof(buf), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
		    de->name);
		free(dir);
		e->path = strdup(buf);
	}
	e->ino = in->ino;
	e->gen = in->gen;
	e->cookie = de != NULL ? mgr_ns_cookie(de) : 0;
	e->nlink = in->nlink;
	e->mode = in->mode;
	e->uid = in->uid;
	e->gid = in->gid;
	e->atime_ns = in->atime_ns;
	e->mtime_ns = in->mtime_ns;
	e->ctime_ns = in->ctime_ns;
	e->mset_ns = in->mset_ns;
	e->dist = in->dist;
	e->rdev = in->rdev;
	if (in->target != NULL) {
		e->target = strdup(in->target);
		assert_non_null(e->target);
		assert_int_equal(strlen(e->target), in->targetlen);
	}
	if (in->dir != NULL) {
		e->next_cookie = in->dir->next_cookie;
		e->nlive = in->dir->nlive;
		e->nsubdirs = in->dir->nsubdirs;
	}
	return 0;
}

static int
mt_dump_orphan(struct mgr_inode *in, void *arg)
{
	return mt_dump_one(in, NULL, 1, arg);
}

static int
mt_ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mt_ent *)a)->path,
	    ((const struct mt_ent *)b)->path);
}

void
mt_dump_take(struct mt_dump *d)
{
	memset(d, 0, sizeof(*d));
	assert_int_equal(mgr_ns_walk_names(mt_dump_one, d), 0);
	assert_int_equal(mgr_ns_walk_orphans(mt_dump_orphan, d), 0);
	qsort(d->ents, d->n, sizeof(*d->ents), mt_ent_cmp);
	d->next_ino = mgr_ns_next_ino();
	d->count = mgr_ns_count();
}

void
mt_dump_free(struct mt_dump *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->ents[i].path);
		free(d->ents[i].target);
	}
	free(d->ents);
	memset(d, 0, sizeof(*d));
}

/* The dropped entry's parent holds one entry (and subdirectory) less. */
static void
mt_dump_unparent(struct mt_dump *d, const struct mt_ent *e)
{
	const char *slash = strrchr(e->path, '/');
	size_t len = slash == e->path ? 1 : (size_t)(slash - e->path), i;

	for (i = 0; i < d->n; i++) {
		if (strlen(d->ents[i].path) == len &&
		    memcmp(d->ents[i].path, e->path, len) == 0)
			break;
	}
	assert_true(i < d->n);
	d->ents[i].nlive--;
	if ((e->mode & S_IFMT) == S_IFDIR)
		d->ents[i].nsubdirs--;
}

void
mt_dump_drop(struct mt_dump *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->n && strcmp(d->ents[i].path, path) != 0; i++)
		;
	assert_true(i < d->n);
	mt_dump_unparent(d, &d->ents[i]);
	free(d->ents[i].path);
	free(d->ents[i].target);
	memmove(&d->ents[i], &d->ents[i + 1], (d->n - i - 1) * sizeof(*d->ents));
	d->n--;
	d->count--;
}

#define MT_FIELD(f) do {						\
	if (w->f != g->f)						\
		fail_msg("%s: %s is %lld, expected %lld", w->path, #f,	\
		    (long long)g->f, (long long)w->f);			\
} while (0)

static void
mt_ent_compare(const struct mt_ent *w, const struct mt_ent *g, int flags)
{
	int root_times = !(flags & MT_NO_ROOT_TIMES) || strcmp(w->path, "/") != 0;

	if (strcmp(w->path, g->path) != 0)
		fail_msg("%s: found %s in its place", w->path, g->path);
	MT_FIELD(ino);
	MT_FIELD(gen);
	MT_FIELD(mode);
	MT_FIELD(uid);
	MT_FIELD(gid);
	MT_FIELD(nlive);
	MT_FIELD(nsubdirs);
	MT_FIELD(nlink);
	MT_FIELD(dist.base);
	MT_FIELD(dist.pcount);
	MT_FIELD(dist.ssize);
	MT_FIELD(dist.copies);
	MT_FIELD(dist.mshift);
	MT_FIELD(rdev);
	if ((w->target == NULL) != (g->target == NULL) ||
	    (w->target != NULL && strcmp(w->target, g->target) != 0))
		fail_msg("%s: link text \"%.40s\", expected \"%.40s\"", w->path,
		    g->target ? g->target : "(none)",
		    w->target ? w->target : "(none)");
	if (!(flags & MT_NO_COOKIES)) {
		MT_FIELD(cookie);
		MT_FIELD(next_cookie);
	}
	if (root_times) {
		MT_FIELD(atime_ns);
		MT_FIELD(mtime_ns);
		MT_FIELD(ctime_ns);
		MT_FIELD(mset_ns);
	}
}

void
mt_dump_compare(const struct mt_dump *want, const struct mt_dump *got,
    int flags)
{
	size_t i;

	for (i = 0; i < want->n && i < got->n; i++)
		mt_ent_compare(&want->ents[i], &got->ents[i], flags);
	if (i < want->n)
		fail_msg("%s: missing", want->ents[i].path);
	if (i < got->n)
		fail_msg("%s: not expected", got->ents[i].path);
	assert_int_equal(got->count, want->count);
	assert_int_equal(got->next_ino, want->next_ino);
}
