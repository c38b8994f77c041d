/*
 * preload-special.c - FIFOs and sockets on PVFS paths (doc/api.md).
 *
 * PVFS keeps their names, types and modes; their I/O is a kernel's.  A
 * node stands for a local object named by (fsid, inode) in a directory
 * of the user's own: $XDG_RUNTIME_DIR/pvfs, else /tmp/pvfs-UID.  Two
 * processes of one user on one host meet there, as on NFS; other hosts
 * and other users do not (a FIFO is a pipe, not a network).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "preload.h"

/* The runtime directory: made 0700 if missing, and refused unless it is
 * a directory of ours that no one else may write (fail closed: a name
 * planted by another user must not be opened). */
static int
pl_rundir(char *buf, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (x != NULL && *x == '/')
		n = snprintf(buf, len, "%s/pvfs", x);
	else
		n = snprintf(buf, len, "/tmp/pvfs-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (REAL(mkdir)(buf, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(buf, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

/* The local name of node (fsid, ino) of kind ("fifo", "sock"). */
int
pl_special_name(uint64_t fsid, uint64_t ino, const char *kind, char *buf,
    size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (pl_rundir(dir, sizeof(dir)) != 0)
		return -1;
	n = snprintf(buf, len, "%s/%s-%016" PRIx64 "-%" PRIu64, dir, kind, fsid,
	    ino);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Open the local FIFO standing for PVFS FIFO (fsid, ino); the mgr has
 * checked the caller's permission. */
int
pl_fifo_open(uint64_t fsid, uint64_t ino, int flags)
{
	char name[PATH_MAX];

	if (pl_special_name(fsid, ino, "fifo", name, sizeof(name)) != 0)
		return -1;
	if (REAL(mkfifo)(name, 0600) != 0 && errno != EEXIST)
		return -1;
	return REAL(open)(name, flags & ~(O_CREAT | O_EXCL | O_TRUNC), 0);
}

/* A socket address for the local name of PVFS socket abs: 0, or -1 with
 * errno (as connect says it: ENOENT for no name, ECONNREFUSED for a name
 * that is not a socket). */
static int
pl_sock_addr(const char *abs, struct sockaddr_un *un, socklen_t *len)
{
	uint64_t fsid, ino;
	mode_t mode;
	char name[PATH_MAX];

	if (PL_BUSY(pvfs_path_ident(abs, &fsid, &ino, &mode)) != 0)
		return -1;
	if (!S_ISSOCK(mode)) {
		errno = ECONNREFUSED;
		return -1;
	}
	if (pl_special_name(fsid, ino, "sock", name, sizeof(name)) != 0)
		return -1;
	if (strlen(name) >= sizeof(un->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path, name, strlen(name) + 1);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name) + 1);
	return 0;
}

/* bind: the S_IFSOCK node in PVFS (EADDRINUSE if the name is taken, as
 * the kernel says), then the real socket at its local name; a stale
 * local name of the same inode is replaced. */
int
pl_sock_bind(int fd, const char *abs)
{
	struct sockaddr_un un;
	socklen_t len;
	mode_t um = __atomic_load_n(&pl_umask, __ATOMIC_RELAXED);
	int rc;

	if (PL_BUSY(pvfs_path_mknod(abs, S_IFSOCK | (0777 & ~um), 0)) != 0) {
		if (errno == EEXIST)
			errno = EADDRINUSE;
		return -1;
	}
	if (pl_sock_addr(abs, &un, &len) != 0)
		return -1;
	(void)REAL(unlink)(un.sun_path);
	if ((rc = REAL(bind)(fd, (struct sockaddr *)&un, len)) != 0) {
		int saved = errno;

		(void)PL_BUSY(pvfs_unlink(abs));
		errno = saved;
	}
	return rc;
}

int
pl_sock_connect(int fd, const char *abs)
{
	struct sockaddr_un un;
	socklen_t len;

	if (pl_sock_addr(abs, &un, &len) != 0)
		return -1;
	if (REAL(connect)(fd, (struct sockaddr *)&un, len) == 0)
		return 0;
	if (errno == ENOENT) /* the node outlived its socket */
		errno = ECONNREFUSED;
	return -1;
}
