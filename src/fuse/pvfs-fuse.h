/*
 * pvfs-fuse.h - the FUSE client's one internal header (doc/fuse.md).
 * pvfs-fuse.c: the command line, the mount's state, paths and identity;
 * fuse-ops.c: the operations; fuse-xattr.c: distributions as xattrs;
 * fuse-loop.c: the session (fuse_main's steps and the INIT shim).
 * Our names start with fz_: fuse_ is libfuse's.
 */
#ifndef PVFS_FUSE_H
#define PVFS_FUSE_H

#define FUSE_USE_VERSION 312 /* fuse_loop_mt with max_threads (fuse-loop.c) */
#include <fuse.h>

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "libpvfs/pvfs-client.h"

#define FZ_GROUPS 32            /* the most groups the mgr hears of */
#define FZ_PATH_MAX (PATH_MAX + 512)

/* Who a request is made for: the calling process's ids. */
struct fz_ident {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[FZ_GROUPS];
};

/* Read-ahead of one open file (fuse-read.c): at most one fetch. */
struct fz_ahead {
	int on;                 /* direct I/O, not O_DIRECT, -o prefetch */
	pthread_mutex_t lock;
	pthread_cond_t done;    /* busy went 0 */
	pthread_cond_t go;      /* pending or quit went 1 */
	pthread_t helper;       /* the file's fetching thread, once started */
	int helper_on, pending, quit;
	int busy;               /* a fetch into buf is asked for or running */
	char *buf;              /* [off, off + len), got bytes; NULL: none */
	uint64_t off;
	size_t len;
	ssize_t got;            /* -1: failed */
	uint64_t wgen;          /* fz_data_changed count at its start */
	int64_t when;           /* CLOCK_MONOTONIC ns it completed */
	uint64_t next;          /* end of the last request */
};

/* An open file: the library's open file, and who opened it (its
 * capability was granted to them; a renewal asks again as them). */
struct fz_file {
	struct pvfs_file *f;
	struct fz_ident who;
	uint64_t ino;
	struct fz_ahead ahead;
};

/* The mount. */
struct fz_mount {
	char *source;           /* as given: pvfs://host:port/dir or a prefix */
	char prefix[PATH_MAX];  /* what mount paths are appended to */
	size_t prefix_len;
	int as_caller;          /* root: each request as its caller */
	int writeback;          /* -o writeback_cache */
	int direct;             /* direct I/O unless -o page_cache (fz_dio) */
	int handoff;            /* attr_timeout=0: fz_attr_take/give (init) */
	int ahead;              /* -o prefetch=1 (default): fuse-read.c */
	unsigned max_write;
	unsigned read_ahead_kb; /* set at mount (root), 0: the kernel's */
	char mnt[PATH_MAX];     /* the mount point, absolute */
	pthread_mutex_t lock;   /* open counts, below */
	struct fz_open *opens;
};
extern struct fz_mount fz;

/* ---- pvfs-fuse.c ---- */
/* The PVFS path of mount path p into out (FZ_PATH_MAX bytes); 0 or
 * -ENAMETOOLONG. */
int fz_path(const char *p, char *out);
/* This thread's requests now claim the calling process's identity (when
 * the mount is root's), or who's; fz_caller fills who if not NULL.
 * Every operation but getattr starts with it. */
void fz_as(const struct fz_ident *who);
void fz_caller(struct fz_ident *who);
/* Open files of this mount by inode: count one up or down; the count. */
void fz_open_count(uint64_t ino, int delta);
int fz_open_busy(uint64_t ino);
/* A path's attributes from the caller's getattr just before (1), at
 * most once; or 0.  fz_attr_give offers them to the next. */
int fz_attr_take(const char *path, struct stat *st);
void fz_attr_give(const char *path, const struct stat *st);
/* Forget what the caller's last getattr offered (fz_as does). */
void fz_attr_drop(void);
/* -errno of the last failure, -EIO if errno is 0. */
int fz_err(void);
/* Raise the mount's read-ahead to fz.read_ahead_kb (before the kernel
 * hears our max_readahead, which it caps by it). */
void fz_set_readahead(void);

/* ---- fuse-ops.c ---- */
extern const struct fuse_operations fz_ops;

/* ---- fuse-loop.c ---- */
/* Mount, run and unmount, as fuse_main (the args it takes). */
int fz_main(struct fuse_args *args);
/* Files open in direct I/O mode: asked for, and the INIT reply carried
 * FUSE_DIRECT_IO_ALLOW_MMAP (so shared mmap works); 0 before INIT. */
int fz_dio(void);

/* ---- fuse-read.c ---- */
int fz_read_buf(const char *p, struct fuse_bufvec **bufp, size_t size,
    off_t off, struct fuse_file_info *fi);
/* An open file's read-ahead: set up at open (its O_* flags), ended at
 * release (waits for a fetch in flight). */
void fz_ahead_init(struct fz_file *h, int flags);
void fz_ahead_fini(struct fz_file *h);
/* Bytes changed through this mount (write, truncate, fallocate): what
 * was fetched before is not served.  Called after the change. */
void fz_data_changed(void);

/* ---- fuse-xattr.c ---- */
int fz_getxattr(const char *path, const char *name, char *value, size_t size);
int fz_setxattr(const char *path, const char *name, const char *value,
    size_t size, int flags);
int fz_listxattr(const char *path, char *list, size_t size);
int fz_removexattr(const char *path, const char *name);

#endif /* PVFS_FUSE_H */
