/*
 * posix.h - what the differential suite's files share (test_paths.c, the
 * path rows and main; posix-times.c, times, mode bits and special files;
 * posix-extra.c, the calls beyond a row: long paths, sockets, copies,
 * splice, links resolved by the shim).
 */
#ifndef PVFS_TEST_POSIX_H
#define PVFS_TEST_POSIX_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvfs.h"
#include "../integration/cluster.h"

#define BAD_PTR ((const char *)1)   /* an unmapped path: libc sides only */

/* One side's calls: libc (the local directory, the shim, the mount) or
 * the native API. */
struct ops {
	const char *name;
	int native;
	int (*mkdir)(const char *, mode_t);
	int (*rmdir)(const char *);
	int (*unlink)(const char *);
	int (*rename)(const char *, const char *);
	int (*open)(const char *, int, mode_t);
	int (*close)(int);
	int (*stat)(const char *, struct stat *);
	int (*access)(const char *, int);
	int (*truncate)(const char *, off_t);
	int (*chmod)(const char *, mode_t);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	int (*ftruncate)(int, off_t);
	int (*chown)(const char *, uid_t, gid_t);
	int (*utimes)(const char *, const struct timeval *);
	int (*mknod)(const char *, mode_t, dev_t);
	int (*symlink)(const char *, const char *);
	ssize_t (*readlink)(const char *, char *, size_t);
	int (*lstat)(const char *, struct stat *);
	int (*lchown)(const char *, uid_t, gid_t);
	int (*link)(const char *, const char *);
};
extern const struct ops libc_ops, native_ops;

extern int failures, ran;
extern int on_mount; /* the libc side runs on a FUSE mount, not the shim */

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One check of a side's own: ok counts, else fails with errno's name. */
void check(int ok, const char *what);
/* dir/rel into buf; NULL and BAD_PTR pass through. */
const char *join(char *buf, size_t len, const char *dir, const char *rel);
/* The tree every path row starts from (d/ d/s/ d/s/g e/ f and links). */
int make_tree(const struct ops *o, const char *dir);

/* posix-times.c */
void compare_times(const struct ops *o, const char *local, const char *pvfs);
void compare_special(const struct ops *o, const char *local, const char *pvfs);
void fifo_and_socket(const char *local, const char *pvfs);
void replayed(struct cluster *c, const char *pvfs);

/* posix-extra.c */
void long_relative(const char *pvfs);
void sockets_and_copies(const char *local, const char *pvfs);
void splices(const char *pvfs);
void links_resolved(const char *pvfs);
void native_escape(const char *pvfs);

#endif /* PVFS_TEST_POSIX_H */
