/*
 * preload.h - the LD_PRELOAD shim's one internal header, grouped by the
 * source file that implements each part.  See doc/preload.md.
 *
 * Every open PVFS file is backed by a kernel placeholder: a sealed memfd
 * named "pvfs:PATH" whose contents describe the open file (for a process
 * after exec) and whose own file offset IS the PVFS offset.  The kernel
 * thus numbers descriptors and does dup, fork/exec inheritance and
 * CLOEXEC; the shim maps descriptor numbers to struct pl_file.
 *
 * Locking: pl_file.lock (held across one read or write: keeps the offset
 * update atomic within the process), then the table lock, then the
 * library's own locks.  Only pl_file.lock is held across network waits.
 */
#ifndef PRELOAD_H
#define PRELOAD_H

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "common/pvfs-types.h"
#include "libpvfs/pvfs-client.h"

/* ---- preload.c: start-up, real entry points, the descriptor table ---- */

/* Depth of shim code on this thread: inside it, every wrapper passes
 * straight to libc (the library's own open/close/getcwd calls). */
extern __thread int pl_busy __attribute__((tls_model("initial-exec")));
extern int pl_ready;        /* start-up done (atomic) */
extern pid_t pl_pid;        /* our pid; another one means a vfork child */
extern mode_t pl_umask;     /* the program's umask, tracked by umask() */

void pl_init(void);
void *pl_dlsym(const char *name);

/* The next definition of fn (libc's), looked up once per call site. */
#define REAL(fn) ({ \
	static __typeof__(&fn) pl_p_; \
	__typeof__(&fn) pl_f_ = __atomic_load_n(&pl_p_, __ATOMIC_RELAXED); \
	if (pl_f_ == NULL) { \
		pl_f_ = (__typeof__(&fn))pl_dlsym(#fn); \
		__atomic_store_n(&pl_p_, pl_f_, __ATOMIC_RELAXED); \
	} \
	pl_f_; })

/* Wrappers start with PL_ACTIVE(): false inside the shim, and before the
 * pvfstab named any file system. */
int pl_active(void);

/* One open PVFS file description (one placeholder memfd). */
struct pl_file {
	int refs;               /* table slots + calls in progress */
	struct pvfs_file *h;    /* the library's open file */
	pthread_mutex_t lock;   /* one read/write/seek at a time */
	int flags;              /* O_* (F_SETFL may change O_APPEND, O_NONBLOCK) */
	int isdir;
	int lockfd;             /* local lock file for fcntl locks, or -1 */
	char *path;             /* absolute PVFS path at open */
};

/* Lock-free: 1 if fd maps to a PVFS file. */
int pl_is_pvfs_fd(int fd);
/* 0 inside the shim; else 1, after start-up if it had not run. */
static inline int
pl_started(void)
{
	if (pl_busy)
		return 0;
	if (!__atomic_load_n(&pl_ready, __ATOMIC_ACQUIRE))
		pl_init();
	return 1;
}
/* The test every descriptor wrapper starts with. */
static inline int
pl_fd_hit(int fd)
{
	return pl_started() && pl_is_pvfs_fd(fd);
}
/* The file behind fd with a reference, or NULL (errno untouched). */
struct pl_file *pl_get(int fd);
/* The same for a call on the file's handle: NULL with errno EBADF (no
 * PVFS file) or EIO (the handle was lost). */
struct pl_file *pl_file_get(int fd);
void pl_put(struct pl_file *f);
void pl_tab_lock(void);
void pl_tab_unlock(void);
/* With the table lock held: point fd at f (a new reference) or at nothing;
 * returns what fd pointed at (its reference goes to the caller). */
struct pl_file *pl_tab_set(int fd, struct pl_file *f);
/* Open abs (a PVFS path) behind a new placeholder; the descriptor or -1. */
int pl_open_abs(const char *abs, int flags, mode_t mode);
/* 1 if fd is one of the shim's or the library's own descriptors; all of
 * them lie in [pl_own_floor(), pl_own_floor() + PL_OWN_SPAN). */
#define PL_OWN_SPAN 65536
#define PL_FD_LIMIT (256u * 4096u) /* PVFS files need descriptors below */
int pl_own_fd(int fd);
int pl_own_floor(void);
void pl_own_mark(int fd, int on);
/* Move a descriptor of the shim's own to a high number, CLOEXEC. */
int pl_own_place(int fd);
/* A vfork child shares our memory: it must not change the table. */
int pl_in_vfork(void);
/* "PVFS_PRELOAD_CWD=..." etc. for a child; see preload-exec.c. */
int pl_has_inheritable(void);

/* ---- preload-path.c: prefixes, the virtual cwd, path routing ---- */
/* An absolute path the shim builds: a virtual cwd joined with a relative
 * path may pass PATH_MAX, as a deep kernel cwd may (only the caller's
 * string is limited); PVFS's own limit is PVFS_PATH_MAX under the prefix. */
#define PL_ABS_MAX (PATH_MAX + PVFS_PATH_MAX)
enum pl_route {
	PL_LOCAL,      /* give libc the caller's path unchanged */
	PL_LOCAL_ABS,  /* give libc abs (a relative path left the virtual cwd) */
	PL_PVFS,       /* abs is a PVFS path */
	PL_TOOLONG,    /* relative, and too long joined: ENAMETOOLONG */
};
void pl_path_load(void);
int pl_path_nprefix(void);
/* Where path (relative to dirfd, AT_FDCWD or a PVFS directory) lies; abs
 * has PL_ABS_MAX bytes.  PL_LOCAL when the shim is busy or not configured.
 * Under a prefix, abs keeps ".", ".." and a trailing "/" for the mgr. */
enum pl_route pl_route(int dirfd, const char *path, char *abs);
/* The path to give libc for a local route. */
#define PL_USE(r, path, abs) ((r) == PL_LOCAL_ABS ? (const char *)(abs) : \
	(r) == PL_TOOLONG ? pl_toolong_path() : (path))
const char *pl_toolong_path(void);
/* A path pointer the kernel would answer with EFAULT, as far as the shim
 * can tell without a system call: NULL, the first page, or a kernel
 * address.  Any other unmapped pointer still faults in the caller's
 * process (doc/preload.md). */
#define PL_BAD_PTR(p) ((uintptr_t)(const void *)(p) < 4096 || \
	(intptr_t)(const void *)(p) < 0)
/* The mount prefix abs lies under (abs must be a PVFS path). */
void pl_path_root(const char *abs, char *root, size_t len);
/* abs (a path that resolved) with "." and ".." folded, malloc'd, or
 * NULL; the links in it are resolved too (realpath's answer). */
char *pl_path_canon(const char *abs);
/* The virtual cwd into buf (len >= PL_ABS_MAX); 1 if there is one. */
int pl_cwd_get(char *buf, size_t len);
int pl_cwd_is_virtual(void);
void pl_cwd_set(const char *abs);   /* NULL: back to the kernel's cwd */
void pl_cwd_from_env(void);
/* fork: 1 takes the cwd lock (prepare), 0 releases it (parent, child);
 * pl_std_atfork and pl_dir_atfork do the same for their locks. */
void pl_cwd_atfork(int take);

/* ---- preload-fd.c: descriptors and data ---- */
ssize_t pl_fd_read(int fd, void *buf, size_t n);
ssize_t pl_fd_write(int fd, const void *buf, size_t n);
off_t pl_fd_lseek(int fd, off_t off, int whence);
int pl_fd_close(int fd);
void pl_lock_release(struct pl_file *f);
/* close, dup, F_DUPFD: 1 when fd is a PVFS descriptor the caller may
 * handle, 0 when it is libc's, -1 (EBADF) for one of the shim's own. */
int pl_fd_claim(int fd);
/* dup/F_DUPFD: the kernel picks the number; it shares old's file. */
int pl_dupfd(int old, int cmd, int minfd);
/* The one argument after last of fcntl or ioctl, read as type. */
#define PL_VA_ONE(last, type) ({ \
	va_list ap_; \
	type v_; \
	va_start(ap_, last); \
	v_ = va_arg(ap_, type); \
	va_end(ap_); \
	v_; })

/* ---- preload-stdio.c: FILE streams over PVFS descriptors ---- */
FILE *pl_stdio_open(int fd, const char *mode);
/* fd changed: when it is 0, 1 or 2, make stdin/stdout/stderr follow it. */
void pl_std_sync(int fd);
/* Flush the stream that writes to fd (0..2) before fd changes. */
void pl_std_flush(int fd);
int pl_stdio_flags(const char *mode, int *flags);
void pl_std_atfork(int take);

/* ---- preload-dir.c ---- */
void pl_dir_atfork(int take);

/* ---- preload-meta.c, preload-names.c: attributes and names ---- */
int pl_stat_abs(const char *abs, struct stat *st);
/* A PVFS call's result rc: did a symbolic link lead out of PVFS?  Then
 * the call is carried on by libc with pvfs_local_path() (absolute, so
 * any dirfd is moot). */
#define PL_ESCAPED(rc) ((rc) < 0 && errno == PVFS_ELOCAL)
#define PL_BUSY(expr) ({ int rc_; pl_busy++; rc_ = (expr); pl_busy--; rc_; })

/* The libc entry point a family helper hands a local path to. */
enum pl_call {
	PL_STAT, PL_LSTAT, PL_FSTATAT, PL_XSTAT, PL_LXSTAT, PL_FXSTATAT,
	PL_ACCESS, PL_EUIDACCESS, PL_FACCESSAT,
	PL_CHMOD, PL_FCHMODAT, PL_CHOWN, PL_LCHOWN, PL_FCHOWNAT,
	PL_UTIMES, PL_LUTIMES, PL_FUTIMESAT,
	PL_UNLINK, PL_UNLINKAT, PL_RMDIR, PL_REMOVE, PL_MKDIR, PL_MKDIRAT,
	PL_RENAME, PL_RENAMEAT, PL_RENAMEAT2, PL_LINK, PL_LINKAT,
	PL_SYMLINK, PL_SYMLINKAT, PL_MKNOD, PL_MKNODAT, PL_MKFIFO, PL_MKFIFOAT,
	PL_READLINK, PL_READLINKAT,
};

/* An *at call on dirfd itself ("" with AT_EMPTY_PATH), dirfd on PVFS. */
int pl_at_self(int dirfd, const char *path, int flags);

/* ---- declarations glibc 2.36 no longer puts in its headers ---- */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st,
    int flags);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len,
    size_t buflen);
char *__getcwd_chk(char *buf, size_t size, size_t buflen);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);
void __chk_fail(void) __attribute__((noreturn));

/* ---- preload-special.c: FIFOs and sockets on PVFS paths ---- */
int pl_special_name(uint64_t fsid, uint64_t ino, const char *kind, char *buf,
    size_t len);
/* A kernel descriptor of the local FIFO standing for (fsid, ino). */
int pl_fifo_open(uint64_t fsid, uint64_t ino, int flags);
int pl_sock_bind(int fd, const char *abs);
int pl_sock_connect(int fd, const char *abs);

#endif /* PRELOAD_H */
