/*
 * pvfs-client.h - the client library's API for in-tree consumers: the
 * descriptor API of pvfs.h (file.c), the preload shim, the tools and the
 * FUSE client.  See doc/design.md, "The client's open-file API".
 *
 * Library structs only: nothing here depends on the wire protocol, so a
 * consumer never builds or decodes a message.  Calls return NULL or -1
 * with errno, like the pvfs_* calls of pvfs.h, which belong to this API
 * too (pvfs_stat, pvfs_lstat, pvfs_access, pvfs_unlink, pvfs_rename,
 * pvfs_rmdir, pvfs_truncate, pvfs_statfs, pvfs_opendir...).  Modes are
 * used as given here: the caller applies its umask.  All calls are
 * thread-safe.  None of these names is exported from libpvfs.so.
 */
#ifndef PVFS_CLIENT_H
#define PVFS_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "pvfs.h"

/* ---- dir.c: directory streams with attributes ---- */

/* The next entry of d after "." and "..", which it skips, with in st what
 * pvfs_lstat of its path would give at about the same time, but no mgr
 * request per entry: the mgr sends attributes and a size capability with
 * each batch of names (MGR_READDIRPLUS).  A regular file's size, blocks
 * and mtime still cost one IOD_SIZE to each of its iods, sent at once.
 * d must be readable and searchable.  NULL with errno unchanged at the
 * end, NULL with errno on an error; an entry whose iods fail returns with
 * st->st_nlink == 0 and errno set, and the next call goes on.  A stream
 * read this way must not also be read with pvfs_readdir. */
struct dirent *pvfs_readdir_stat(PVFS_DIR *d, struct stat *st);

/* ---- pvfs-file.c: open files, inode-based, with explicit offsets ---- */

/* An open file: one inode and the capability the mgr granted for it.  It
 * keeps no offset (the caller does).  Refcounted: pvfs_file_dup adds an
 * owner, pvfs_file_close drops one. */
struct pvfs_file;

/* What an open file is. */
struct pvfs_file_info {
	uint64_t fsid;
	uint64_t ino;
	mode_t mode;                 /* S_IFMT and permission bits at open */
	int flags;                   /* O_* given at open */
	struct pvfs_filestat dist;   /* base, pcount, ssize */
	uint32_t copies, mshift;     /* mirrored files: copies > 1 */
};

/* Open (create) path with O_* flags; dist (NULL: the defaults) is the
 * distribution of a file O_CREAT makes, as for PVFS_O_META. */
struct pvfs_file *pvfs_file_open(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *dist);
/* The same with copies for a file O_CREAT makes (0: the directory's
 * default, else 1; doc/design.md, "Mirrored files"). */
struct pvfs_file *pvfs_file_open_copies(const char *path, int flags,
    mode_t mode, const struct pvfs_filestat *dist, int copies);
struct pvfs_file *pvfs_file_dup(struct pvfs_file *f);
/* Drop one owner; the last one frees f.  NULL is ignored. */
void pvfs_file_close(struct pvfs_file *f);
void pvfs_file_info(struct pvfs_file *f, struct pvfs_file_info *info);
/* The attributes of a file that this open created, as the mgr's reply to
 * the open gave them (size 0), once: for a stat right after the create
 * (pvfs-fuse).  -1/ENOENT if the open did not create it or they were
 * taken already. */
int pvfs_file_created_stat(struct pvfs_file *f, struct stat *st);

/* An open file as bytes, to rebuild it in another process (after exec):
 * pvfs_file_export writes at most PVFS_FILE_EXPORT_MAX bytes to buf and
 * returns their number, 0 if len is too small; pvfs_file_import takes a
 * path of the same file system (its mount prefix is enough). */
#define PVFS_FILE_EXPORT_MAX 192
size_t pvfs_file_export(struct pvfs_file *f, void *buf, size_t len);
struct pvfs_file *pvfs_file_import(const char *path, const void *buf,
    size_t len);

/* Bytes transferred at file offset off.  Reads stop at the end of file;
 * EBADF if not open for it, EISDIR/EINVAL if not a regular file, EFBIG
 * past 2^63 - 1.  O_SYNC/O_DSYNC flags sync after a write. */
ssize_t pvfs_file_preadv(struct pvfs_file *f, const struct iovec *iov,
    int iovcnt, uint64_t off);
ssize_t pvfs_file_pwritev(struct pvfs_file *f, const struct iovec *iov,
    int iovcnt, uint64_t off);
/* The logical size (0 for a directory). */
int pvfs_file_size(struct pvfs_file *f, uint64_t *size);
/* ESTALE if the inode is another file's now. */
int pvfs_file_stat(struct pvfs_file *f, struct stat *st);
/* EINVAL unless a regular file open for writing. */
int pvfs_file_truncate(struct pvfs_file *f, uint64_t length);
int pvfs_file_sync(struct pvfs_file *f, int datasync);
/* Where part rel of f's distribution lives: its index in the file
 * system's iod table, and "host:port" in addr (ERANGE: too short). */
int pvfs_file_iod(struct pvfs_file *f, uint32_t rel, char *addr, size_t len);

/* ---- meta.c: attributes and the name space by path ---- */

#define PVFS_SET_MODE 0x01u
#define PVFS_SET_UID 0x02u
#define PVFS_SET_GID 0x04u
#define PVFS_SET_ATIME 0x08u       /* to atime */
#define PVFS_SET_MTIME 0x10u       /* to mtime */
#define PVFS_SET_ATIME_NOW 0x20u
#define PVFS_SET_MTIME_NOW 0x40u
#define PVFS_SET_CHOWN 0x80u       /* a chown, even to -1, -1 (ctime, set-id bits) */
#define PVFS_SET_NOFOLLOW 0x100u    /* by path: a last link itself (lchown) */
#define PVFS_SET_COPIES 0x200u     /* a directory's default copies (copies) */

/* The attributes to change: the fields that mask names. */
struct pvfs_setattr {
	unsigned mask;               /* PVFS_SET_* */
	mode_t mode;                 /* permission bits (07777) */
	uid_t uid;
	gid_t gid;
	struct timespec atime, mtime;
	int copies;                  /* PVFS_SET_COPIES: 0 = no default */
};

int pvfs_file_setattr(struct pvfs_file *f, const struct pvfs_setattr *sa);
int pvfs_path_setattr(const char *path, const struct pvfs_setattr *sa);
int pvfs_path_mkdir(const char *path, mode_t mode);
/* What path names: file system id, inode and mode (a STAT). */
int pvfs_path_ident(const char *path, uint64_t *fsid, uint64_t *ino,
    mode_t *mode);
/* mknod with the mode as given (no umask). */
int pvfs_path_mknod(const char *path, mode_t mode, dev_t dev);

/* ---- resolve.c: symbolic links that lead out of PVFS ---- */

/* Every path call follows links through the mgr and across mount
 * prefixes.  One that a link leads out of PVFS (an absolute target
 * outside every prefix, or ".." past a file system's root) fails with
 * ENOENT, as any local path does here; after pvfs_set_local_escape(1)
 * (once, before the first call: the preload shim) it fails with
 * PVFS_ELOCAL instead, and pvfs_local_path() gives this thread the local
 * path the call must be carried on with (the links followed so far
 * resolved, the local part folded).  Two-path calls (rename) answer
 * EXDEV when a link takes one of them out. */
#define PVFS_ELOCAL 4097 /* not an errno of Linux's: never seen outside */
void pvfs_set_local_escape(int on);
const char *pvfs_local_path(void);
/* path with ".", ".." and every link resolved (realpath(3)'s answer)
 * into out, len bytes; the path must exist.  0, or -1 with errno
 * (PVFS_ELOCAL as above when a link or ".." leads out of PVFS). */
int pvfs_realpath(const char *path, char *out, size_t len);

/* ---- admin.c: what the tools ask of the mgr and of single iods ---- */

/* A file's identity and distribution as the mgr keeps them. */
struct pvfs_attr_info {
	uint64_t fsid, ino, gen;
	mode_t mode;
	uint32_t base, pcount, ssize;
	uint32_t copies, mshift;     /* mirrored files: copies > 1; a
	                              * directory: its default (0: none) */
};
/* What one iod holds of a file (of one copy of a mirrored file). */
struct pvfs_part_info {
	uint32_t rel, iod;           /* position in the file, in the iod table */
	uint32_t copy;
	uint64_t local_size;         /* bytes of its stripe file */
	uint64_t blocks;             /* 512-byte blocks allocated */
	int err;                     /* mirrored files: 0, or why its iod did
	                              * not answer (the others still count) */
};
/* A daemon's answer to a ping. */
struct pvfs_ping_info {
	uint32_t version;            /* its protocol version */
	uint64_t uptime_s;
	uint64_t fsid;               /* the mgr's only */
	int64_t rtt_us;              /* the request's round trip */
	/* The mgr's only: how it treats this client's requests. */
	enum {
		PVFS_PING_UNKNOWN,       /* an older mgr did not say */
		PVFS_PING_KERNEL,        /* identified by the kernel (Unix socket) */
		PVFS_PING_MUNGE,         /* authenticated by MUNGE */
		PVFS_PING_NOBODY,        /* not authenticated: acts as nobody */
		PVFS_PING_REFUSED,       /* not authenticated: refused */
		PVFS_PING_TRUSTED,       /* not authenticated: believed */
	} auth;
};
/* Space in bytes: one iod's, or the sum over the file system's.  host
 * and dev name the host file system (equal on iods sharing one); used,
 * apparent and nstripes are what the iod holds for PVFS files (allocated
 * bytes, bytes of length, stripe files). */
struct pvfs_space_info {
	uint64_t bsize, blocks, bfree, bavail;
	uint64_t files, ffree;       /* the host file system's inodes */
	uint64_t host, dev;
	uint64_t used, apparent, nstripes;
};
/* The mgr's inodes: a total and its free part (statfs's f_files, f_ffree). */
struct pvfs_inode_info {
	uint64_t files, ffree;
};
/* One iod as the mgr sees it (pvfs-ping). */
enum pvfs_admin_iod_state {
	PVFS_IOD_STATE_PENDING,      /* not heard from yet */
	PVFS_IOD_STATE_OK,
	PVFS_IOD_STATE_UNREACHABLE,
	PVFS_IOD_STATE_BADKEY,
	PVFS_IOD_STATE_BADLABEL,
	PVFS_IOD_STATE_PROTO,
};
struct pvfs_admin_iodstat {
	uint32_t index;
	unsigned state;              /* enum pvfs_admin_iod_state, or newer */
	char host[256];
	uint16_t port;
	int heard;                   /* the fields below are known */
	uint64_t fsid;
	uint32_t label_index;
	char uuid[72];
	int64_t skew_ms;             /* its clock minus the mgr's */
	char why[128];               /* the last failure, "" if none */
};

/* What a daemon has counted since it started (pvfs-counters): per kind of
 * request, how many, how many failed, and latency percentiles (each the
 * upper edge of a histogram bucket at most 19% wide, so an estimate from
 * above); JOURNAL_COMMIT is the mgr's group commits (write + fdatasync). */
struct pvfs_op_counters {
	char name[32];               /* "MGR_OPEN", "IOD_READ", ... */
	uint64_t count, errors;
	uint64_t p50_us, p90_us, p99_us, max_us;
	uint64_t sum_us;             /* of every latency */
};
struct pvfs_counters_info {
	uint64_t uptime_ms;
	uint64_t conns_total, conns_open;
	uint64_t bytes_in, bytes_out;
	uint32_t nops;
	struct pvfs_op_counters *ops; /* malloc'd: pvfs_admin_counters_free */
};

/* One file system, as the tools see it: the mgr, each iod, and for
 * pvfs-fsck an ADMIN capability renewed when it expires. */
struct pvfs_admin;

/* A live inode as the mgr lists it (pvfs-fsck). */
struct pvfs_ino_info {
	uint64_t ino, gen;
	uint32_t base, pcount, ssize;
	uint32_t copies, mshift;     /* mirrored files (copies >= 1) */
};
/* A stripe file as an iod lists it. */
struct pvfs_stripe_info {
	uint64_t ino, gen;
	uint32_t copy;               /* which copy of a mirrored file */
	uint64_t size;               /* bytes of the stripe file */
};

/* The protocol version this library speaks. */
uint32_t pvfs_admin_proto_version(void);
/* The file system of path (or pvfs://host:port/ URL); nothing is asked
 * of its daemons yet. */
struct pvfs_admin *pvfs_admin_open(const char *path);
void pvfs_admin_close(struct pvfs_admin *a);
/* "host:port" of the mgr, of iod i (brackets around an IPv6 host). */
void pvfs_admin_mgr_addr(struct pvfs_admin *a, char *addr, size_t len);
int pvfs_admin_iod_addr(struct pvfs_admin *a, uint32_t i, char *addr,
    size_t len);
/* The number of iods (asks the mgr once). */
int pvfs_admin_niods(struct pvfs_admin *a, uint32_t *n);
/* Ping the mgr or iod i on a fresh connection. */
int pvfs_admin_mgr_ping(struct pvfs_admin *a, struct pvfs_ping_info *p);
int pvfs_admin_iod_ping(struct pvfs_admin *a, uint32_t i,
    struct pvfs_ping_info *p);
int pvfs_admin_iod_space(struct pvfs_admin *a, uint32_t i,
    struct pvfs_space_info *s);
int pvfs_admin_mgr_inodes(struct pvfs_admin *a, struct pvfs_inode_info *s);
int pvfs_admin_mgr_counters(struct pvfs_admin *a, struct pvfs_counters_info *c);
int pvfs_admin_iod_counters(struct pvfs_admin *a, uint32_t i,
    struct pvfs_counters_info *c);
void pvfs_admin_counters_free(struct pvfs_counters_info *c);
/* Mirrored files with stale copies, as the mgr counts them (MGR_RESYNC
 * STATUS, which anyone may ask). */
struct pvfs_mirror_status {
	uint64_t degraded;           /* files with a stale copy */
	uint64_t stale;              /* stale copies */
	uint64_t bytes_left;         /* their known ranges */
	uint64_t jobs, bytes_done, dirty_reports; /* since the mgr started */
};
int pvfs_admin_mirror_status(struct pvfs_admin *a, struct pvfs_mirror_status *s);
/* resync.c (pvfs-resync): one stale copy (part rel, copy, on iod). */
struct pvfs_stale_info {
	uint64_t ino;
	uint32_t rel, copy, iod;
	uint64_t bytes;              /* left to copy (0 when whole: unknown) */
	int whole;                   /* every byte of it is stale */
};
/* Every stale copy (a malloc'd array in *v, *n entries) and the counts. */
int pvfs_resync_list(struct pvfs_admin *a, struct pvfs_stale_info **v,
    uint32_t *n, struct pvfs_mirror_status *s);
/* iod index's data directory was replaced by an empty one: the mgr marks
 * every copy it holds stale; *lost (malloc'd, *n) are the unmirrored
 * files that had data there, *more says the mgr listed only some. */
int pvfs_resync_rebuild(struct pvfs_admin *a, uint32_t index,
    struct pvfs_stale_info **lost, uint32_t *n, int *more);
/* What one resync job did. */
struct pvfs_resync_job {
	uint64_t ino;
	uint32_t rel, copy, from;    /* the stale copy, the fresh one */
	uint32_t stale_iod, fresh_iod;
	uint64_t bytes;              /* copied */
	int err;                     /* 0 done; else why it failed (it comes again) */
};
/* Ask the mgr for a job and do it: 1 a job was taken (job says how it
 * went), 0 none is ready now (ask again in *wait_ms), -1 the mgr failed
 * (errno).  After a failed job *wait_ms is set too. */
int pvfs_resync_one(struct pvfs_admin *a, struct pvfs_resync_job *job,
    uint32_t *wait_ms);
/* The mgr's view of every iod: a malloc'd array in *v, its length in *n. */
int pvfs_admin_iod_views(struct pvfs_admin *a, struct pvfs_admin_iodstat **v,
    uint32_t *n);
/* pvfs-fsck: the live inodes of [first, first + count) (count at most
 * PVFS_ADMIN_INOLIST_SPAN), ascending; the stripe files of subdirectory
 * sub (0..255) of iod i after (after_ino, after_gen), ascending, with
 * *eof set after the last; removing the stripe file (ino, gen) of iod i.
 * Arrays are malloc'd. */
#define PVFS_ADMIN_INOLIST_SPAN 16384
int pvfs_admin_inodes(struct pvfs_admin *a, uint64_t first, uint32_t count,
    struct pvfs_ino_info **v, uint32_t *n);
/* after: the last entry of the previous page (zeros: from the start). */
int pvfs_admin_stripes(struct pvfs_admin *a, uint32_t i, uint32_t sub,
    const struct pvfs_stripe_info *after, struct pvfs_stripe_info **v,
    uint32_t *n, int *eof);
int pvfs_admin_purge(struct pvfs_admin *a, uint32_t i, uint64_t ino,
    uint64_t gen, uint32_t copy);

/* As pvfs_stat (pvfs_lstat with nofollow), from the mgr's attributes
 * only: no iod is asked, so it works while an iod is down.  A regular
 * file's st_size and st_blocks are 0 and its times are the mgr's.  For
 * what needs a file's type, owner or mode but not its size (rm, mv,
 * chmod, chown, and ls -l naming what it cannot size). */
int pvfs_stat_meta(const char *path, struct stat *st, int nofollow);

/* A file's identity and distribution, by path. */
int pvfs_admin_attr(const char *path, struct pvfs_attr_info *attr);
/* Ask each of a regular file's iods what it holds: parts has room for
 * max entries; the number filled (the file's pcount), or -1. */
/* Every part of path, copy by copy (pcount * copies entries): their
 * number, or -1 with errno (ERANGE: more than max). */
int pvfs_admin_parts(const char *path, struct pvfs_part_info *parts,
    uint32_t max);

/* ---- client.c: the pvfstab ---- */

/* The pvfstab's state: 0 loaded, ENOENT missing, EINVAL malformed (with
 * *cause "file:line: why"); *path is the file tried. */
int pvfs_tab_status(const char **path, const char **cause);
/* The mount prefixes of the pvfstab (pvfs_tab_path()),
 * read now: their number, in *out a NULL-terminated malloc'd list (free
 * it with pvfs_free_list).  -1 with errno and a malloc'd *cause (or NULL):
 * EINVAL if malformed, else why it could not be read. */
int pvfs_tab_prefixes(char ***out, char **cause);
void pvfs_free_list(char **list);
/* 1 if path is the root of a file system. */
int pvfs_path_is_root(const char *path);

/* ---- path.c: routing a path (shared by the library and the shim) ---- */

/* The next component of the path at *pp, slashes before it skipped: its
 * start, its length in *n, and *pp moved just past it; NULL (with *pp at
 * the end) when none is left. */
const char *pvfs_path_next(const char **pp, size_t *n);
/* Drop the last component of out[0..*len), as ".." does to a folded
 * path ("/" stays ""). */
void pvfs_path_up(char *out, size_t *len);
/* Which of the n mount prefixes the absolute path lies under: its index
 * (the longest that matches), or -1 for a local path, or -2 with errno
 * (ENAMETOOLONG when out, outlen bytes, is too small).  out gets the path
 * with "//" collapsed; the local part folded lexically; under a prefix,
 * ".", ".." and a trailing "/" kept for the mgr to resolve.  A ".." above
 * the prefix root leaves it: the rest is local. */
int pvfs_path_route(const char *path, const char *const *prefix, int n,
    char *out, size_t outlen);
/* pathconf(3)'s _PC_NAME_MAX, _PC_PATH_MAX and _PC_LINK_MAX inside a file
 * system; -1 for other names (errno untouched). */
long pvfs_pathconf_limit(int name);
/* The errno that pvfs_error_detail() goes with, 0 if none. */
int pvfs_error_detail_errno(void);

/* ---- client.c: speaking for another identity ---- */

/* Until pvfs_client_clear_ident, every request this thread makes claims
 * uid, gid and the first PVFS_MAX_GROUPS (32) of groups instead of the
 * process's ids; pvfs_access checks them too.  The connection still
 * proves the process's own identity, and the mgr believes the claim only
 * when that is root's (doc/security.md): a process not running as root
 * gets EPERM for any identity but its own.  For the FUSE client, which
 * sets the caller of each request.  -1 with EINVAL on a bad group list. */
int pvfs_client_set_ident(uid_t uid, gid_t gid, const gid_t *groups,
    int ngroups);
void pvfs_client_clear_ident(void);

/* ---- conn.c: the library's sockets ---- */

/* Called on every socket the library makes (open: it may move it and
 * returns the descriptor to use) and before it closes one.  Set once,
 * before the first call into the library (the preload shim). */
struct pvfs_socket_hooks {
	int (*open)(int fd);
	void (*close)(int fd);
};
void pvfs_set_socket_hooks(const struct pvfs_socket_hooks *h);

#endif /* PVFS_CLIENT_H */
