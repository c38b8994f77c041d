/*
 * test_mgr_ns.c - the mgr's in-memory name space, driven directly: every
 * change goes through mgr_ns_apply() as the journal sends it, and each
 * refusal has the errno the mgr gives today; path resolution, readdir's
 * cookies, the permission checks of mgr-perm.c for other users, file
 * identities and inode numbers that are never reused, and the keyed name
 * hash with real collisions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "mgr-test.h"

#define NOBODY 65534

static int
setup(void **state)
{
	(void)state;
	mt_setup();
	mgr_ns_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	mgr_ns_free();
	return 0;
}

static uint64_t
ino_of(const char *path)
{
	struct mgr_inode *in = mt_get(path);

	if (in == NULL)
		fail_msg("%s: missing", path);
	return in->ino;
}

/* A record with every field a create needs, for the checks of apply. */
static struct mgr_rec
rec_create(uint64_t parent, uint64_t ino, const char *name)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_CREATE;
	r.parent = parent;
	r.ino = ino;
	r.gen = 1;
	r.mode = 0644;
	r.name = name;
	r.namelen = (uint16_t)strlen(name);
	return r;
}

/* ---- create, lookup, attributes ---- */

static void
test_create_lookup(void **state)
{
	struct mgr_inode *root = mgr_ns_root(), *f, *d;
	struct mgr_dirent *de;
	struct pvfs_attr a;
	uint64_t fi, di;

	(void)state;
	assert_int_equal(mgr_ns_count(), 1);
	assert_int_equal(root->ino, 1);
	assert_true(MGR_IS_DIR(root));
	assert_int_equal(mt_create("/f", 0640, 1000, 100, &fi), 0);
	assert_int_equal(mt_mkdir("/d", 0755, 1000, 100, &di), 0);
	assert_int_equal(mgr_ns_count(), 3);
	de = mgr_ns_lookup(root, "f", 1);
	assert_non_null(de);
	f = de->inode;
	assert_int_equal(f->ino, fi);
	assert_ptr_equal(mgr_ns_get(fi), f);
	assert_ptr_equal(f->de, de);
	assert_ptr_equal(de->parent, root);
	assert_string_equal(de->name, "f");
	assert_int_equal(f->mode, S_IFREG | 0640);
	assert_int_equal(f->uid, 1000);
	assert_int_equal(f->gid, 100);
	assert_null(f->dir);
	assert_null(mgr_ns_lookup(root, "F", 1));
	assert_null(mgr_ns_lookup(root, "f2", 2));
	d = mgr_ns_get(di);
	assert_non_null(d->dir);
	assert_ptr_equal(mgr_ns_parent(d), root);
	assert_ptr_equal(mgr_ns_parent(root), root);
	mgr_ns_attr(f, &a);
	assert_int_equal(a.ino, fi);
	assert_int_equal(a.nlink, 1);
	assert_int_equal(a.dist.pcount, 4);
	assert_int_equal(a.dist.ssize, 65536);
	mgr_ns_attr(root, &a);
	assert_int_equal(a.nlink, 3); /* ".", its name, and d's ".." */
	assert_int_equal(a.size, 2);  /* a directory's size: its entries */
	assert_int_equal(mgr_ns_is_ancestor(root, d), 1);
	assert_int_equal(mgr_ns_is_ancestor(d, root), 0);
	assert_int_equal(mgr_ns_is_ancestor(d, d), 1);
}

static void
test_create_refused(void **state)
{
	struct mgr_rec r;
	char longname[PVFS_NAME_MAX + 2];
	uint64_t fi, next;

	(void)state;
	assert_int_equal(mt_create("/f", 0644, 0, 0, &fi), 0);
	next = mgr_ns_next_ino();
	assert_int_equal(mt_create("/f", 0644, 0, 0, NULL), EEXIST);
	assert_int_equal(mt_mkdir("/f", 0755, 0, 0, NULL), EEXIST);
	r = rec_create(1, fi, "other"); /* an inode number in use */
	assert_int_equal(mgr_ns_apply(&r), EEXIST);
	r = rec_create(1, 1, "other"); /* the root's */
	assert_int_equal(mgr_ns_apply(&r), EEXIST);
	r = rec_create(1, 0, "other");
	assert_int_equal(mgr_ns_apply(&r), EEXIST);
	r = rec_create(fi, next, "x"); /* a file as parent */
	assert_int_equal(mgr_ns_apply(&r), ENOTDIR);
	r = rec_create(next + 100, next, "x"); /* no such parent */
	assert_int_equal(mgr_ns_apply(&r), ENOTDIR);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	r = rec_create(1, next, longname);
	assert_int_equal(mgr_ns_apply(&r), ENAMETOOLONG);
	longname[PVFS_NAME_MAX] = '\0'; /* 255 bytes: the longest */
	r = rec_create(1, next, longname);
	assert_int_equal(mgr_ns_apply(&r), 0);
	r.type = 99;
	assert_int_equal(mgr_ns_apply(&r), EINVAL);
	r.type = MGR_REC_END; /* a snapshot's trailer is no change */
	assert_int_equal(mgr_ns_apply(&r), EINVAL);
	assert_int_equal(mgr_ns_count(), 3);
}

/* ---- resolving paths ---- */

static void
test_resolve(void **state)
{
	struct pvfs_cred cr = mt_cred(0, 0, 0);
	struct mgr_path p;
	char path[PVFS_NAME_MAX + 8];

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/d/f", 0644, 0, 0, NULL), 0);
	assert_int_equal(mgr_ns_resolve(&cr, "", &p), ENOENT);
	assert_int_equal(mgr_ns_resolve(&cr, "d/f", &p), EINVAL);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/f/x", &p), ENOTDIR);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/f/", &p), ENOTDIR);
	assert_int_equal(mgr_ns_resolve(&cr, "/nope/x", &p), ENOENT);
	memset(path, 'n', sizeof(path));
	path[0] = '/';
	path[PVFS_NAME_MAX + 2] = '\0';
	assert_int_equal(mgr_ns_resolve(&cr, path, &p), ENAMETOOLONG);
	/* A missing last component is no error, unless it must exist. */
	assert_int_equal(mgr_ns_resolve(&cr, "/d/new", &p), 0);
	assert_null(p.ino);
	assert_int_equal(p.dir->ino, ino_of("/d"));
	assert_int_equal(p.namelen, 3);
	assert_memory_equal(p.name, "new", 3);
	assert_int_equal(mgr_ns_resolve_existing(&cr, "/d/new", &p), ENOENT);
	assert_int_equal(mgr_ns_resolve(&cr, "//d///f", &p), 0);
	assert_int_equal(p.ino->ino, ino_of("/d/f"));
	assert_int_equal(p.slash, 0);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/", &p), 0);
	assert_int_equal(p.slash, 1);
	/* "/", "." and ".." are special, and ".." of the root is the root. */
	assert_int_equal(mgr_ns_resolve(&cr, "/", &p), 0);
	assert_ptr_equal(p.ino, mgr_ns_root());
	assert_int_equal(p.special, 1);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/.", &p), 0);
	assert_int_equal(p.ino->ino, ino_of("/d"));
	assert_int_equal(p.special, 1);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/..", &p), 0);
	assert_ptr_equal(p.ino, mgr_ns_root());
	assert_int_equal(mgr_ns_resolve(&cr, "/../../d/f", &p), 0);
	assert_int_equal(p.ino->ino, ino_of("/d/f"));
}

/* "." and ".." are taken where they stand, component by component, as
 * Linux's walk takes them: the client no longer folds them away. */
static void
test_resolve_dots(void **state)
{
	struct pvfs_cred cr = mt_cred(0, 0, 0);
	struct pvfs_cred other = mt_cred(2000, 2000, 0);
	struct mgr_path p;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_mkdir("/d/s", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/d/f", 0644, 0, 0, NULL), 0);
	assert_int_equal(mt_mkdir("/priv", 0700, 0, 0, NULL), 0);
	/* A missing or non-directory component before ".." fails. */
	assert_int_equal(mgr_ns_resolve(&cr, "/d/missing/..", &p), ENOENT);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/missing/../f", &p), ENOENT);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/f/..", &p), ENOTDIR);
	assert_int_equal(mgr_ns_resolve(&cr, "/d/f/.", &p), ENOTDIR);
	/* ".." needs search permission on the directory it leaves. */
	assert_int_equal(mgr_ns_resolve(&other, "/priv/..", &p), EACCES);
	assert_int_equal(mgr_ns_resolve(&other, "/priv", &p), 0);
	/* Through "." and ".." to a name: an ordinary last component. */
	assert_int_equal(mgr_ns_resolve(&cr, "/d/./s/../f", &p), 0);
	assert_int_equal(p.ino->ino, ino_of("/d/f"));
	assert_int_equal(p.special, 0);
	assert_ptr_equal(p.dir, mt_get("/d"));
	assert_int_equal(mgr_ns_resolve(&cr, "/d/s/../new", &p), 0);
	assert_null(p.ino);
	assert_ptr_equal(p.dir, mt_get("/d"));
	/* A last "." or ".." is special whatever came before; namelen
	 * tells which (rmdir: EINVAL or ENOTEMPTY). */
	assert_int_equal(mgr_ns_resolve(&cr, "/d/s/.", &p), 0);
	assert_int_equal(p.special, 1);
	assert_int_equal(p.namelen, 1);
	assert_ptr_equal(p.ino, mt_get("/d/s"));
	assert_int_equal(mgr_ns_resolve(&cr, "/d/s/..", &p), 0);
	assert_int_equal(p.special, 1);
	assert_int_equal(p.namelen, 2);
	assert_ptr_equal(p.ino, mt_get("/d"));
	assert_int_equal(mgr_ns_resolve(&cr, "/d/s/./", &p), 0);
	assert_int_equal(p.special, 1);
	assert_int_equal(p.slash, 0);
	/* A trailing "/" after a file: ENOTDIR, or the caller's to judge
	 * (open with O_CREAT says EISDIR, mkdir EEXIST). */
	assert_int_equal(mgr_ns_resolve(&cr, "/d/f/", &p), ENOTDIR);
	assert_int_equal(mgr_ns_resolve_slash(&cr, "/d/f/", &p), 0);
	assert_int_equal(p.slash, 1);
	assert_int_equal(p.ino->ino, ino_of("/d/f"));
	assert_int_equal(mgr_ns_resolve_slash(&cr, "/d/n/", &p), 0);
	assert_int_equal(p.slash, 1);
	assert_null(p.ino);
	assert_int_equal(p.namelen, 1);
	assert_int_equal(mgr_ns_resolve_slash(&cr, "/d/f/x/", &p), ENOTDIR);
}

/* ---- readdir ---- */

/* Read the whole of dir n entries at a time, resuming by cookie. */
static uint32_t
read_all(const struct mgr_inode *dir, uint32_t n, char names[][16],
    uint64_t *cookies)
{
	struct mgr_dirent *out[16];
	uint64_t cookie = 0;
	uint32_t got, total = 0, i;
	int eof = 0;

	while (!eof) {
		got = mgr_ns_readdir(dir, cookie, out, n, &eof);
		for (i = 0; i < got; i++) {
			assert_true(mgr_ns_cookie(out[i]) > cookie);
			cookie = mgr_ns_cookie(out[i]);
			snprintf(names[total], 16, "%s", out[i]->name);
			cookies[total++] = cookie;
		}
		if (!eof)
			assert_int_equal(got, n);
	}
	return total;
}

static void
test_readdir_cookies(void **state)
{
	char names[300][16], path[64];
	uint64_t cookies[300], last, di;
	struct mgr_inode *d;
	uint32_t n, i;
	int eof;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, &di), 0);
	d = mgr_ns_get(di);
	assert_int_equal(mgr_ns_readdir(d, 0, NULL, 0, &eof), 0);
	assert_int_equal(eof, 1);
	for (i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/d/n%03u", i);
		assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
	}
	n = read_all(d, 7, names, cookies);
	assert_int_equal(n, 200);
	for (i = 0; i < n; i++) { /* insertion order */
		snprintf(path, sizeof(path), "n%03u", i);
		assert_string_equal(names[i], path);
	}
	last = cookies[199];
	/* Holes are skipped; a removed entry's cookie still resumes. */
	for (i = 0; i < 200; i += 2) {
		snprintf(path, sizeof(path), "/d/n%03u", i);
		assert_int_equal(mt_unlink(path), 0);
	}
	n = read_all(d, 5, names, cookies);
	assert_int_equal(n, 100);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "n%03u", 2 * i + 1);
		assert_string_equal(names[i], path);
	}
	{
		struct mgr_dirent *out[4];

		n = mgr_ns_readdir(d, cookies[10] - 1, out, 4, &eof);
		assert_int_equal(n, 4);
		assert_string_equal(out[0]->name, "n021");
	}
	/* Removing most and adding more compacts; order and cookies hold. */
	for (i = 1; i < 190; i += 2) {
		snprintf(path, sizeof(path), "/d/n%03u", i);
		assert_int_equal(mt_unlink(path), 0);
	}
	assert_int_equal(mt_unlink("/d/n199"), 0);
	assert_int_equal(mt_create("/d/n199", 0644, 0, 0, NULL), 0);
	for (i = 0; i < 90; i++) {
		snprintf(path, sizeof(path), "/d/m%03u", i);
		assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
	}
	n = read_all(d, 16, names, cookies);
	assert_int_equal(n, 4 + 1 + 90);
	assert_string_equal(names[0], "n191");
	assert_string_equal(names[3], "n197");
	assert_string_equal(names[4], "n199");
	assert_true(cookies[4] > last); /* a new entry: a cookie never used */
	assert_string_equal(names[94], "m089");
	assert_int_equal(d->dir->nlive, 95);
}

/* ---- rename ---- */

static void
test_rename_within_dir(void **state)
{
	struct mgr_inode *f;
	uint64_t fi, cookie;

	(void)state;
	assert_int_equal(mt_create("/a", 0644, 0, 0, &fi), 0);
	f = mgr_ns_get(fi);
	cookie = mgr_ns_cookie(f->de);
	assert_int_equal(mt_rename("/a", "/b"), 0);
	assert_null(mt_get("/a"));
	assert_ptr_equal(mt_get("/b"), f);
	assert_true(mgr_ns_cookie(f->de) > cookie); /* a new entry in readdir */
	assert_int_equal(mgr_ns_root()->dir->nlive, 1);
	/* Onto itself: nothing happens. */
	cookie = mgr_ns_cookie(f->de);
	assert_int_equal(mt_rename("/b", "/b"), 0);
	assert_int_equal(mgr_ns_cookie(f->de), cookie);
	assert_int_equal(mt_rename("/a", "/c"), ENOENT);
}

static void
test_rename_across_dirs(void **state)
{
	struct mgr_inode *d1, *d2, *sub;
	struct pvfs_attr a;
	uint64_t i1, i2, si, fi;

	(void)state;
	assert_int_equal(mt_mkdir("/d1", 0755, 0, 0, &i1), 0);
	assert_int_equal(mt_mkdir("/d2", 0755, 0, 0, &i2), 0);
	assert_int_equal(mt_mkdir("/d1/sub", 0755, 0, 0, &si), 0);
	assert_int_equal(mt_create("/d1/sub/f", 0644, 0, 0, &fi), 0);
	d1 = mgr_ns_get(i1);
	d2 = mgr_ns_get(i2);
	sub = mgr_ns_get(si);
	assert_int_equal(mt_rename("/d1/sub", "/d2/moved"), 0);
	assert_ptr_equal(mgr_ns_parent(sub), d2);
	assert_int_equal(d1->dir->nsubdirs, 0);
	assert_int_equal(d2->dir->nsubdirs, 1);
	mgr_ns_attr(d1, &a);
	assert_int_equal(a.nlink, 2);
	mgr_ns_attr(d2, &a);
	assert_int_equal(a.nlink, 3);
	assert_int_equal(ino_of("/d2/moved/f"), fi); /* its tree comes along */
	assert_int_equal(mt_rename("/d2/moved/f", "/d1/g"), 0);
	assert_int_equal(ino_of("/d1/g"), fi);
	assert_int_equal(sub->dir->nlive, 0);
	assert_int_equal(d1->dir->nsubdirs, 0);
	assert_int_equal(d1->dir->nlive, 1);
}

static void
test_rename_over_existing(void **state)
{
	uint64_t a, b, d, e, count;
	struct mgr_rec r;

	(void)state;
	assert_int_equal(mt_create("/a", 0644, 0, 0, &a), 0);
	assert_int_equal(mt_create("/b", 0644, 0, 0, &b), 0);
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, &d), 0);
	assert_int_equal(mt_mkdir("/e", 0755, 0, 0, &e), 0);
	count = mgr_ns_count();
	/* A file over a file: the victim's inode is gone. */
	assert_int_equal(mt_rename("/a", "/b"), 0);
	assert_int_equal(ino_of("/b"), a);
	assert_null(mgr_ns_get(b));
	assert_int_equal(mgr_ns_count(), count - 1);
	/* Kinds must match. */
	assert_int_equal(mt_rename("/b", "/d"), EISDIR);
	assert_int_equal(mt_rename("/d", "/b"), ENOTDIR);
	/* A directory over an empty one. */
	assert_int_equal(mt_rename("/d", "/e"), 0);
	assert_int_equal(ino_of("/e"), d);
	assert_null(mgr_ns_get(e));
	assert_int_equal(mgr_ns_root()->dir->nsubdirs, 1);
	/* A record naming a directory that does not exist. */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_RENAME;
	r.parent = 1;
	r.parent2 = 999;
	r.name = "b";
	r.namelen = 1;
	r.name2 = "x";
	r.namelen2 = 1;
	assert_int_equal(mgr_ns_apply(&r), ENOTDIR);
	r.parent2 = a; /* a file */
	assert_int_equal(mgr_ns_apply(&r), ENOTDIR);
}

static void
test_rename_dir_refused(void **state)
{
	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_mkdir("/d/sub", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_mkdir("/t", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/t/f", 0644, 0, 0, NULL), 0);
	/* Onto a directory that is not empty. */
	assert_int_equal(mt_rename("/d", "/t"), ENOTEMPTY);
	assert_int_equal(mt_rename("/d/sub", "/d"), ENOTEMPTY);
	/* Into its own subtree. */
	assert_int_equal(mt_rename("/d", "/d/x"), EINVAL);
	assert_int_equal(mt_rename("/d", "/d/sub/x"), EINVAL);
	assert_int_equal(mt_rename("/d", "/d/sub/"), EINVAL);
	/* Nothing moved. */
	assert_non_null(mt_get("/d/sub"));
	assert_non_null(mt_get("/t/f"));
	assert_int_equal(mgr_ns_count(), 5);
}

/* ---- unlink, mkdir, rmdir ---- */

static void
test_unlink_rmdir(void **state)
{
	struct mgr_inode *root = mgr_ns_root();
	struct mgr_rec r;
	uint64_t fi, di;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, &di), 0);
	assert_int_equal(mt_create("/d/f", 0644, 0, 0, &fi), 0);
	assert_int_equal(mt_unlink("/d"), EISDIR);
	assert_int_equal(mt_rmdir("/d/f"), ENOTDIR);
	assert_int_equal(mt_rmdir("/d"), ENOTEMPTY);
	assert_int_equal(mt_unlink("/d/nope"), ENOENT);
	assert_int_equal(mt_rmdir("/nope"), ENOENT);
	/* A record for an inode the name no longer holds. */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_UNLINK;
	r.parent = di;
	r.ino = fi + 1000;
	r.name = "f";
	r.namelen = 1;
	assert_int_equal(mgr_ns_apply(&r), ESTALE);
	r.parent = fi;
	assert_int_equal(mgr_ns_apply(&r), ENOTDIR);
	/* The parent's times follow the record's. */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_UNLINK;
	r.parent = di;
	r.name = "f";
	r.namelen = 1;
	r.time = 424242;
	assert_int_equal(mgr_ns_apply(&r), 0);
	assert_null(mgr_ns_get(fi));
	assert_int_equal(mgr_ns_get(di)->mtime_ns, 424242);
	assert_int_equal(mgr_ns_get(di)->ctime_ns, 424242);
	assert_int_equal(mt_rmdir("/d"), 0);
	assert_null(mgr_ns_get(di));
	assert_int_equal(root->dir->nlive, 0);
	assert_int_equal(root->dir->nsubdirs, 0);
	assert_int_equal(mgr_ns_count(), 1);
}

/* ---- setattr ---- */

static void
test_setattr(void **state)
{
	struct mgr_inode *f, *d;
	struct mgr_rec r;
	int64_t ctime;

	(void)state;
	assert_int_equal(mt_create("/f", 0644, 1, 2, NULL), 0);
	assert_int_equal(mt_mkdir("/d", 0755, 1, 2, NULL), 0);
	f = mt_get("/f");
	d = mt_get("/d");
	assert_int_equal(mt_chmod("/f", 0107777), 0); /* the type stays */
	assert_int_equal(f->mode, S_IFREG | 07777);
	assert_int_equal(mt_chmod("/d", 01700), 0);
	assert_int_equal(d->mode, S_IFDIR | 01700);
	assert_int_equal(mt_chown("/f", 7, 8), 0);
	assert_int_equal(f->uid, 7);
	assert_int_equal(f->gid, 8);
	assert_int_equal(f->mode, S_IFREG | 01777); /* set-id bits dropped */
	ctime = f->ctime_ns;
	assert_int_equal(mt_utimes("/f", 111, 222), 0);
	assert_int_equal(f->atime_ns, 111);
	assert_int_equal(f->mtime_ns, 222);
	assert_true(f->ctime_ns >= ctime);
	assert_int_equal(f->mset_ns, f->ctime_ns); /* when mtime was set */
	/* Only the fields in the mask change. */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = f->ino;
	r.mask = MGR_REC_ATIME;
	r.atime_ns = 5;
	r.mtime_ns = r.ctime_ns = 6;
	r.uid = r.gid = 9;
	assert_int_equal(mgr_ns_apply(&r), 0);
	assert_int_equal(f->atime_ns, 5);
	assert_int_equal(f->mtime_ns, 222);
	assert_int_equal(f->uid, 7);
	r.ino = 999;
	assert_int_equal(mgr_ns_apply(&r), ENOENT);
}

/* ---- permissions ---- */

static void
test_perm_file(void **state)
{
	struct pvfs_cred owner = mt_cred(1000, 1000, 0);
	struct pvfs_cred group = mt_cred(2000, 100, 0);
	struct pvfs_cred supp = mt_cred(2000, 500, 2, 7, 100);
	struct pvfs_cred other = mt_cred(2000, 500, 1, 7);
	struct pvfs_cred root = mt_cred(0, 0, 0);
	struct mgr_inode *f;

	(void)state;
	assert_int_equal(mt_create("/f", 0640, 1000, 100, NULL), 0);
	f = mt_get("/f");
	assert_int_equal(mgr_perm_check(&owner, f, MGR_MAY_R | MGR_MAY_W), 0);
	assert_int_equal(mgr_perm_check(&owner, f, MGR_MAY_X), EACCES);
	assert_int_equal(mgr_perm_check(&group, f, MGR_MAY_R), 0);
	assert_int_equal(mgr_perm_check(&group, f, MGR_MAY_W), EACCES);
	assert_int_equal(mgr_perm_check(&supp, f, MGR_MAY_R), 0);
	assert_int_equal(mgr_perm_check(&other, f, MGR_MAY_R), EACCES);
	assert_int_equal(mgr_perm_check(&root, f, MGR_MAY_R | MGR_MAY_W), 0);
	/* Root executes only what someone may execute. */
	assert_int_equal(mgr_perm_check(&root, f, MGR_MAY_X), EACCES);
	assert_int_equal(mt_chmod("/f", 0641), 0);
	assert_int_equal(mgr_perm_check(&root, f, MGR_MAY_X), 0);
	assert_int_equal(mgr_perm_check(&other, f, MGR_MAY_X), 0);
	/* The owner's bits apply to the owner, even when the group's are
	 * wider. */
	assert_int_equal(mt_chmod("/f", 0070), 0);
	owner.gid = 100;
	assert_int_equal(mgr_perm_check(&owner, f, MGR_MAY_R), EACCES);
	assert_int_equal(mgr_perm_owner(&owner, f), 1);
	assert_int_equal(mgr_perm_owner(&root, f), 1);
	assert_int_equal(mgr_perm_owner(&group, f), 0);
	assert_int_equal(mgr_perm_in_group(&supp, 7), 1);
	assert_int_equal(mgr_perm_in_group(&supp, 500), 1);
	assert_int_equal(mgr_perm_in_group(&supp, 8), 0);
}

static void
test_perm_dirs(void **state)
{
	struct pvfs_cred owner = mt_cred(1000, 1000, 0);
	struct pvfs_cred other = mt_cred(2000, 2000, 0);
	struct pvfs_cred root = mt_cred(0, 0, 0);
	struct mgr_path p;
	struct mgr_inode *f;

	(void)state;
	assert_int_equal(mt_mkdir("/priv", 0700, 1000, 1000, NULL), 0);
	assert_int_equal(mt_mkdir("/priv/sub", 0777, 1000, 1000, NULL), 0);
	assert_int_equal(mt_create("/priv/sub/f", 0666, 1000, 1000, NULL), 0);
	f = mt_get("/priv/sub/f");
	/* Search permission on every directory passed, not on the last. */
	assert_int_equal(mgr_ns_resolve(&other, "/priv", &p), 0);
	assert_int_equal(mgr_ns_resolve(&other, "/priv/sub", &p), EACCES);
	assert_int_equal(mgr_ns_resolve(&other, "/priv/sub/f", &p), EACCES);
	assert_int_equal(mgr_ns_resolve(&owner, "/priv/sub/f", &p), 0);
	assert_int_equal(mgr_ns_resolve(&root, "/priv/sub/f", &p), 0);
	/* By inode the same holds (mgr_perm_reach). */
	assert_int_equal(mgr_perm_reach(&other, f), EACCES);
	assert_int_equal(mgr_perm_reach(&owner, f), 0);
	assert_int_equal(mgr_perm_reach(&other, mt_get("/priv")), 0);
	/* Deleting needs write and search on the directory. */
	assert_int_equal(mgr_perm_delete(&other, mt_get("/priv/sub"), f), 0);
	assert_int_equal(mgr_perm_delete(&other, mt_get("/priv"),
	    mt_get("/priv/sub")), EACCES);
}

static void
test_perm_sticky(void **state)
{
	struct pvfs_cred dirowner = mt_cred(1000, 1000, 0);
	struct pvfs_cred fileowner = mt_cred(1001, 1001, 0);
	struct pvfs_cred other = mt_cred(1002, 1002, 0);
	struct pvfs_cred root = mt_cred(0, 0, 0);
	struct mgr_inode *tmp, *f;

	(void)state;
	assert_int_equal(mt_mkdir("/tmp", 01777, 1000, 1000, NULL), 0);
	assert_int_equal(mt_create("/tmp/f", 0666, 1001, 1001, NULL), 0);
	tmp = mt_get("/tmp");
	f = mt_get("/tmp/f");
	assert_int_equal(mgr_perm_sticky(&other, tmp, f), EPERM);
	assert_int_equal(mgr_perm_delete(&other, tmp, f), EPERM);
	assert_int_equal(mgr_perm_delete(&fileowner, tmp, f), 0);
	assert_int_equal(mgr_perm_delete(&dirowner, tmp, f), 0);
	assert_int_equal(mgr_perm_delete(&root, tmp, f), 0);
	/* Without the sticky bit anyone who may write may delete. */
	assert_int_equal(mt_chmod("/tmp", 0777), 0);
	assert_int_equal(mgr_perm_delete(&other, tmp, f), 0);
	/* Permission comes before the sticky bit. */
	assert_int_equal(mt_chmod("/tmp", 01755), 0);
	assert_int_equal(mgr_perm_delete(&other, tmp, f), EACCES);
}

static void
test_perm_squash(void **state)
{
	struct pvfs_cred cr;
	uint32_t i;

	(void)state;
	cr = mt_cred(0, 0, 2, 0, 5);
	mgr_perm_squash(&cr); /* off: root stays root */
	assert_int_equal(cr.uid, 0);
	assert_int_equal(cr.groups[0], 0);
	mgr.root_squash = 1;
	mgr_perm_squash(&cr);
	assert_int_equal(cr.uid, NOBODY);
	assert_int_equal(cr.gid, NOBODY);
	assert_int_equal(cr.groups[0], NOBODY);
	assert_int_equal(cr.groups[1], 5);
	cr = mt_cred(1000, 0, 1, 0); /* only root is squashed */
	mgr_perm_squash(&cr);
	assert_int_equal(cr.uid, 1000);
	assert_int_equal(cr.gid, 0);
	assert_int_equal(cr.groups[0], 0);
	/* A claimed list longer than the wire allows is cut. */
	cr = mt_cred(1000, 1, 0);
	cr.ngroups = 1000;
	for (i = 0; i < PVFS_MAX_GROUPS; i++)
		cr.groups[i] = 100 + i;
	mgr_perm_squash(&cr);
	assert_int_equal(cr.ngroups, PVFS_MAX_GROUPS);
	assert_int_equal(mgr_perm_in_group(&cr, 100 + PVFS_MAX_GROUPS - 1), 1);
	mgr.root_squash = 0;
}

/* ---- identities ---- */

static void
test_gen_differs_on_recreate(void **state)
{
	uint64_t gens[64];
	int i, j;

	(void)state;
	for (i = 0; i < 64; i++) {
		assert_int_equal(mt_create("/f", 0644, 0, 0, NULL), 0);
		gens[i] = mt_get("/f")->gen;
		assert_int_not_equal(gens[i], 0);
		for (j = 0; j < i; j++)
			assert_int_not_equal(gens[i], gens[j]);
		assert_int_equal(mt_unlink("/f"), 0);
	}
	/* Directories have no identity beyond their number. */
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_get("/d")->gen, 0);
}

static void
test_ino_not_reused(void **state)
{
	uint64_t prev = 0, ino, next;
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		assert_int_equal(i % 2 ? mt_mkdir("/x", 0755, 0, 0, &ino) :
		    mt_create("/x", 0644, 0, 0, &ino), 0);
		assert_true(ino > prev);
		assert_int_equal(mgr_ns_next_ino(), ino + 1);
		prev = ino;
		assert_int_equal(i % 2 ? mt_rmdir("/x") : mt_unlink("/x"), 0);
	}
	/* Also across renames over existing names. */
	assert_int_equal(mt_create("/a", 0644, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/b", 0644, 0, 0, &ino), 0);
	assert_int_equal(mt_rename("/a", "/b"), 0);
	assert_int_equal(mt_create("/a", 0644, 0, 0, &next), 0);
	assert_true(next > ino);
	/* The counter never goes back, and a replayed number moves it on. */
	next = mgr_ns_next_ino();
	mgr_ns_set_next_ino(2);
	assert_int_equal(mgr_ns_next_ino(), next);
	mgr_ns_set_next_ino(next + 10);
	assert_int_equal(mgr_ns_next_ino(), next + 10);
	{
		struct mgr_rec r = rec_create(1, next + 100, "high");

		assert_int_equal(mgr_ns_apply(&r), 0);
		assert_int_equal(mgr_ns_next_ino(), next + 101);
	}
}

/* ---- the name hash ---- */

/* Probe names in dir until two share the whole 32-bit hash: each is
 * created to read its entry's hash, then removed.  About 80,000 probes
 * on average (a birthday bound); 0 if none in max. */
static int
find_collision(uint64_t dir, char a[16], char b[16], uint32_t max)
{
	enum { TAB = 1u << 20 };
	uint32_t *hash = calloc(TAB, sizeof(*hash)), *idx = calloc(TAB, 4), i, h, s;
	struct mgr_rec r;
	char name[16];
	int found = 0;

	assert_non_null(hash);
	assert_non_null(idx);
	for (i = 1; i <= max && !found; i++) {
		snprintf(name, sizeof(name), "p%u", i);
		r = rec_create(dir, mgr_ns_next_ino(), name);
		assert_int_equal(mgr_ns_apply(&r), 0);
		h = mgr_ns_lookup(mgr_ns_get(dir), name, strlen(name))->hash;
		r.type = MGR_REC_UNLINK;
		r.ino = 0;
		assert_int_equal(mgr_ns_apply(&r), 0);
		for (s = h & (TAB - 1); idx[s] != 0; s = (s + 1) & (TAB - 1)) {
			if (hash[s] == h) {
				snprintf(a, 16, "p%u", idx[s]);
				snprintf(b, 16, "%s", name);
				found = 1;
				break;
			}
		}
		hash[s] = h;
		idx[s] = i;
	}
	free(hash);
	free(idx);
	return found;
}

static void
test_name_hash_collision(void **state)
{
	char a[16], b[16], pa[32], pb[32];
	struct mgr_dirent *da, *db;
	uint64_t dir, ia, ib;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, &dir), 0);
	if (!find_collision(dir, a, b, 600000))
		skip(); /* odds about e^-40 */
	snprintf(pa, sizeof(pa), "/d/%s", a);
	snprintf(pb, sizeof(pb), "/d/%s", b);
	assert_int_equal(mt_create(pa, 0644, 0, 0, &ia), 0);
	assert_int_equal(mt_create(pb, 0644, 0, 0, &ib), 0);
	da = mgr_ns_lookup(mgr_ns_get(dir), a, strlen(a));
	db = mgr_ns_lookup(mgr_ns_get(dir), b, strlen(b));
	assert_non_null(da);
	assert_non_null(db);
	assert_int_equal(da->hash, db->hash);
	assert_int_equal(da->inode->ino, ia);
	assert_int_equal(db->inode->ino, ib);
	assert_int_equal(mt_create(pb, 0644, 0, 0, NULL), EEXIST);
	assert_int_equal(mt_unlink(pa), 0);
	assert_null(mt_get(pa));
	assert_int_equal(ino_of(pb), ib);
	assert_int_equal(mt_rename(pb, pa), 0);
	assert_int_equal(ino_of(pa), ib);
	assert_null(mt_get(pb));
}

static void
test_name_hash_many(void **state)
{
	char path[64];
	uint64_t d1, d2;
	uint32_t h;
	int i;

	(void)state;
	assert_int_equal(mt_mkdir("/d1", 0755, 0, 0, &d1), 0);
	assert_int_equal(mt_mkdir("/d2", 0755, 0, 0, &d2), 0);
	/* The same names in two directories: the parent is in the hash, and
	 * the table grows past its first size. */
	for (i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/d1/n%d", i);
		assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
		snprintf(path, sizeof(path), "/d2/n%d", i);
		assert_int_equal(mt_mkdir(path, 0755, 0, 0, NULL), 0);
	}
	for (i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/d1/n%d", i);
		assert_null(mt_get(path)->dir);
		assert_ptr_equal(mgr_ns_parent(mt_get(path)), mgr_ns_get(d1));
		snprintf(path, sizeof(path), "/d2/n%d", i);
		assert_non_null(mt_get(path)->dir);
	}
	assert_null(mt_get("/d1/n3000"));
	assert_int_equal(mgr_ns_count(), 3 + 6000);
	/* The key is drawn again for each name space. */
	h = mgr_ns_lookup(mgr_ns_root(), "d1", 2)->hash;
	mgr_ns_free();
	mgr_ns_init();
	assert_int_equal(mt_mkdir("/d1", 0755, 0, 0, NULL), 0);
	assert_int_not_equal(mgr_ns_lookup(mgr_ns_root(), "d1", 2)->hash, h);
}

/* ---- the snapshot walk ---- */

static int
walk_check(const struct mgr_inode *in, void *arg)
{
	struct mt_dump *seen = arg;
	size_t i;

	if (in->de != NULL) { /* its parent came first */
		for (i = 0; i < seen->n; i++)
			if (seen->ents[i].ino == in->de->parent->ino)
				break;
		assert_true(i < seen->n);
	}
	if (seen->n == seen->cap) {
		seen->cap = seen->cap ? seen->cap * 2 : 64;
		seen->ents = realloc(seen->ents, seen->cap * sizeof(*seen->ents));
		assert_non_null(seen->ents);
	}
	memset(&seen->ents[seen->n], 0, sizeof(seen->ents[0]));
	seen->ents[seen->n++].ino = in->ino;
	return 0;
}

static int
walk_stop(const struct mgr_inode *in, void *arg)
{
	(void)in;
	return --*(int *)arg == 0 ? 7 : 0;
}

static void
test_walk_parents_first(void **state)
{
	struct mt_dump seen;
	char path[4096];
	int i, n = 5;

	(void)state;
	/* A deep chain, then its top moved under a later directory so that
	 * inode numbers no longer follow the tree. */
	snprintf(path, sizeof(path), "/c");
	for (i = 0; i < 300; i++) {
		assert_int_equal(mt_mkdir(path, 0755, 0, 0, NULL), 0);
		strcat(path, "/c");
		if (i % 10 == 0) {
			strcat(path, "f");
			assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
			path[strlen(path) - 1] = '\0';
		}
	}
	assert_int_equal(mt_mkdir("/late", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_rename("/c", "/late/c"), 0);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(mgr_ns_walk(walk_check, &seen), 0);
	assert_int_equal(seen.n, mgr_ns_count());
	assert_int_equal(seen.ents[0].ino, 1);
	free(seen.ents);
	/* A callback's error stops the walk and is returned. */
	assert_int_equal(mgr_ns_walk(walk_stop, &n), 7);
	assert_int_equal(n, 0);
}

/* ---- symbolic links ---- */

/* The walk never follows a link: it stops at one before the last
 * component, or as the last when the request follows (or a "/" after it
 * asks for a directory), with where it stopped. */
static void
test_symlink_walk(void **state)
{
	struct pvfs_cred root = mt_cred(0, 0, 0);
	struct mgr_path p;
	struct pvfs_attr a;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_symlink("/d/l", "../t", 5, 6, NULL), 0);
	mgr_ns_attr(mt_get("/d/l"), &a);
	assert_int_equal(a.mode, S_IFLNK | 0777);
	assert_int_equal(a.size, 4);
	assert_int_equal(a.uid, 5);
	assert_int_equal(mgr_ns_resolve_how(&root, "/d/l/x/y", &p, 0,
	    MGR_WALK_PARENT), PVFS_ST_LINK);
	assert_int_equal(p.link_end, 4);
	assert_string_equal(p.link->target, "../t");
	assert_int_equal(mgr_ns_resolve_how(&root, "/d//l", &p, 0,
	    MGR_WALK_FOLLOW), PVFS_ST_LINK);
	assert_int_equal(p.link_end, 5);
	assert_int_equal(mgr_ns_resolve_how(&root, "/d/l", &p, 0,
	    MGR_WALK_NOFOLLOW), 0);
	assert_ptr_equal(p.ino, mt_get("/d/l"));
	assert_int_equal(mgr_ns_resolve_how(&root, "/d/l//", &p, 0,
	    MGR_WALK_NOFOLLOW), PVFS_ST_LINK);
	assert_int_equal(mgr_ns_resolve_how(&root, "/d/l/", &p, 0,
	    MGR_WALK_PARENT), ENOTDIR);
	/* An empty text or one past PATH_MAX - 1 is refused. */
	assert_int_equal(mt_symlink("/d/e", "", 0, 0, NULL), EINVAL);
	assert_int_equal(mt_symlink("/d/l", "again", 0, 0, NULL), EEXIST);
	/* Unlinked like a file; its text goes with it. */
	assert_int_equal(mt_unlink("/d/l"), 0);
	assert_null(mt_get("/d/l"));
}

/* Each test on a fresh name space. */
/* What a LINK or FREE record may not do, even in a damaged journal. */
static void
test_links_refused(void **state)
{
	uint64_t ino;

	(void)state;
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/f", 0644, 0, 0, &ino), 0);
	assert_int_equal(mt_link("/d", "/d2"), EPERM);
	assert_int_equal(mt_link("/f", "/d"), EEXIST);
	assert_int_equal(mt_link("/missing", "/x"), ENOENT);
	assert_int_equal(mt_free(ino), EINVAL); /* named: not an orphan */
	mt_get("/f")->ctime_ns = 1;
	assert_int_equal(mt_link("/f", "/d/g"), 0);
	assert_int_equal(mt_get("/f")->nlink, 2);
	assert_true(mt_get("/f")->ctime_ns > 1); /* link changes the inode */
	assert_int_equal(mt_get("/d")->dir->nsubdirs, 0);
	mt_get("/f")->ctime_ns = 1;
	assert_int_equal(mt_unlink("/f"), 0);
	assert_int_equal(mt_get("/d/g")->nlink, 1);
	assert_true(mt_get("/d/g")->ctime_ns > 1); /* so does an unlink */
	assert_int_equal(mt_unlink("/d/g"), 0);
	assert_null(mgr_ns_get(ino));
	assert_int_equal(mgr_ns_orphan_count(), 0);
}

/* Mirrored files at the mgr (mgr-layout.c): copies from the request,
 * else the directory's default, else 1; the smallest shift that puts
 * copies on hosts apart (here iods 0, 1 on one host and 2, 3 on
 * another), else on iods apart; who may set a directory's default. */
#define NS_NIODS 4 /* mt_setup's mgr.niods */

static void
test_mirror_layout(void **state)
{
	static struct pvfs_iod_addr iods[NS_NIODS];
	struct pvfs_cred owner = mt_cred(1000, 100, 0), other = mt_cred(1001,
	    100, 0);
	struct pvfs_dist d;
	uint32_t i;

	(void)state;
	assert_int_equal(mgr.niods, NS_NIODS);
	for (i = 0; i < NS_NIODS; i++)
		snprintf(iods[i].host, sizeof(iods[i].host), "h%u",
		    i * 2 / NS_NIODS);
	mgr.iods = iods;
	assert_int_equal(mt_mkdir("/d", 0755, 1000, 100, NULL), 0);
	assert_int_equal(mt_create("/d/f", 0644, 1000, 100, NULL), 0);
	memset(&d, 0, sizeof(d));
	d.pcount = NS_NIODS;
	assert_int_equal(mgr_layout_choose(0, mt_get("/d"), &d), 0);
	assert_int_equal(d.copies, 1);
	assert_int_equal(d.mshift, 0);
	assert_int_equal(mgr_layout_choose(2, mt_get("/d"), &d), 0);
	assert_int_equal(d.copies, 2);
	assert_int_equal(d.mshift, NS_NIODS / 2);
	assert_int_equal(mgr_layout_choose(3, mt_get("/d"), &d), 0);
	assert_int_equal(d.mshift, 1); /* 3 copies, 2 hosts: iods apart */
	assert_int_equal(mgr_layout_choose(NS_NIODS + 1, mt_get("/d"), &d),
	    EINVAL);
	/* A directory's default: its owner (or root) only, directories only. */
	assert_int_equal(mgr_layout_set_default(&other, mt_get("/d"), 2), EPERM);
	assert_int_equal(mgr_layout_set_default(&owner, mt_get("/d/f"), 2),
	    ENOTDIR);
	assert_int_equal(mgr_layout_set_default(&owner, mt_get("/d"),
	    NS_NIODS + 1), EINVAL);
	assert_int_equal(mt_get("/d")->dist.copies, 0);
	assert_int_equal(mgr_layout_set_default(&owner, mt_get("/d"), 2), 0);
	assert_int_equal(mt_get("/d")->dist.copies, 2);
	assert_int_equal(mgr_layout_choose(0, mt_get("/d"), &d), 0);
	assert_int_equal(d.copies, 2);
	assert_int_equal(mgr_layout_choose(1, mt_get("/d"), &d), 0);
	assert_int_equal(d.copies, 1);
	mgr.iods = NULL;
}

#define NS_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NS_TEST(test_create_lookup),
		NS_TEST(test_create_refused),
		NS_TEST(test_resolve),
		NS_TEST(test_resolve_dots),
		NS_TEST(test_readdir_cookies),
		NS_TEST(test_rename_within_dir),
		NS_TEST(test_rename_across_dirs),
		NS_TEST(test_rename_over_existing),
		NS_TEST(test_links_refused),
		NS_TEST(test_rename_dir_refused),
		NS_TEST(test_unlink_rmdir),
		NS_TEST(test_setattr),
		NS_TEST(test_perm_file),
		NS_TEST(test_perm_dirs),
		NS_TEST(test_perm_sticky),
		NS_TEST(test_perm_squash),
		NS_TEST(test_gen_differs_on_recreate),
		NS_TEST(test_ino_not_reused),
		NS_TEST(test_name_hash_collision),
		NS_TEST(test_name_hash_many),
		NS_TEST(test_walk_parents_first),
		NS_TEST(test_mirror_layout),
		NS_TEST(test_symlink_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
