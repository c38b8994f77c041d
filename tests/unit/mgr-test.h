/*
 * mgr-test.h - helpers of the mgr's unit suites (test_mgr_ns.c,
 * test_mgr_journal.c): changes built as the request handlers build their
 * records, and a dump of the whole name space that two runs compare.
 */
#ifndef PVFS_MGR_TEST_H
#define PVFS_MGR_TEST_H

#include "mgr/mgr.h"

/* Where a helper's record goes: mgr_ns_apply (the name space alone, the
 * default) or mt_journal_apply (through the journal, as the handlers
 * send every change). */
extern int (*mt_apply)(const struct mgr_rec *r);
int mt_journal_apply(const struct mgr_rec *r);

/* Quiet logs, the daemon's settings a test needs, a fresh name space. */
void mt_setup(void);
/* A test's directory under $TMPDIR (NAME.XXXXXX) with an empty "meta"
 * directory in it, for a suite whose mgr writes a store; 0 or -1.
 * mt_dir_remove removes it whole. */
int mt_dir_make(const char *name, char *base, size_t baselen, char *meta,
    size_t metalen);
int mt_dir_remove(const char *base);

/* Changes by path, as root; 0 or the errno of the resolve or the apply.
 * mt_create and mt_mkdir return the new inode number in *ino if not NULL. */
int mt_create(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino);
int mt_mkdir(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino);
int mt_mknod(const char *path, uint32_t mode, uint32_t uid, uint32_t gid,
    uint64_t *ino);
/* A symbolic link path -> target, owned by uid:gid. */
int mt_symlink(const char *path, const char *target, uint32_t uid,
    uint32_t gid, uint64_t *ino);
int mt_unlink(const char *path);
int mt_rmdir(const char *path);
int mt_rename(const char *from, const char *to);
int mt_chmod(const char *path, uint32_t mode);
int mt_chown(const char *path, uint32_t uid, uint32_t gid);
int mt_utimes(const char *path, int64_t atime_ns, int64_t mtime_ns);
int mt_touch(const char *path); /* mtime and ctime, as a truncate */
/* Another name for a file. */
int mt_link(const char *from, const char *to);
/* Keep path's file when its last name goes, as an unlink of a file still
 * open does (an ORPHAN record); mt_free forgets an orphan (FREE). */
int mt_orphan(const char *path);
int mt_free(uint64_t ino);

/* The inode a path names (as root), or NULL. */
struct mgr_inode *mt_get(const char *path);
/* A credential of uid and gid, with supplementary groups. */
struct pvfs_cred mt_cred(uint32_t uid, uint32_t gid, int ngroups, ...);

/* Everything a name space holds, sorted by path: every name (a file's
 * hard links each with its inode's attributes) and every orphan (as
 * "<orphan INO>"). */
struct mt_ent {
	char *path;
	uint64_t ino, gen, cookie, next_cookie;
	uint32_t mode, uid, gid, nlive, nsubdirs, nlink;
	int64_t atime_ns, mtime_ns, ctime_ns, mset_ns;
	struct pvfs_dist dist;
	uint64_t rdev;
	char *target;            /* a link's text, else NULL */
};
struct mt_dump {
	struct mt_ent *ents;
	size_t n, cap;
	uint64_t next_ino, count;
};
#define MT_NO_COOKIES 0x1 /* compare no cookie or cookie counter */
#define MT_NO_ROOT_TIMES 0x2 /* nor the root's times */

void mt_dump_take(struct mt_dump *d);
void mt_dump_free(struct mt_dump *d);
/* Drop path from a dump, as if its create had never happened. */
void mt_dump_drop(struct mt_dump *d, const char *path);
/* Fail, naming the path and the field, at the first difference. */
void mt_dump_compare(const struct mt_dump *want, const struct mt_dump *got,
    int flags);

#endif /* PVFS_MGR_TEST_H */
