/*
 * pvfs.h - the native API of the parallel virtual file system.
 *
 * Every call mirrors its POSIX namesake: same arguments, same return value,
 * -1 with errno set on failure.  Paths are given with the mount prefix of a
 * pvfstab entry ($PVFSTAB_FILE, else /etc/pvfstab), e.g. "/pvfs/dir/file".
 * Descriptors returned here are real descriptor numbers (each is backed by a
 * reserved descriptor), so they never collide with the process's own files;
 * they are only meaningful to pvfs_* calls.  All calls are thread-safe.
 */
#ifndef PVFS_H
#define PVFS_H

#include <dirent.h>
#include <fcntl.h> /* the O_ flags of pvfs_open */
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PVFS_VERSION_STRING "0.1.0"

/* pvfs_open flag: a struct pvfs_filestat * follows the mode argument. */
#define PVFS_O_META 0x20000000
/* pvfs_open flag: write-behind and read-ahead; other clients see this
 * open's writes after its fsync or close (doc/api.md, Buffered files). */
#define PVFS_O_BUFFERED 0x10000000

/* A file's distribution.  -1 in a field (and 0 in pcount or ssize) asks for
 * the file system default; other negative values are invalid. */
struct pvfs_filestat {
	int32_t base;   /* index of the first I/O daemon holding the file */
	int32_t pcount; /* number of I/O daemons the file is striped over */
	int32_t ssize;  /* stripe size in bytes */
	int32_t soff;   /* unused, kept for PVFS 1 source compatibility (0) */
	int32_t bsize;  /* unused, kept for PVFS 1 source compatibility (0) */
};

/* pvfs_ioctl requests. */
#define PVFS_GETMETA 0x7001 /* arg: struct pvfs_filestat * (out) */

#ifndef PVFS_NO_COMPAT_NAMES
#define O_META PVFS_O_META
#define GETMETA PVFS_GETMETA
#define SETPART PVFS_SETPART
#define GETPART PVFS_GETPART
#define fpart pvfs_fpart       /* struct fpart, fpart */
#define fpart_p pvfs_fpart_p
#endif

typedef struct pvfs_dir PVFS_DIR;

int pvfs_open(const char *path, int flags, ...);
int pvfs_creat(const char *path, mode_t mode);
int pvfs_close(int fd);
ssize_t pvfs_read(int fd, void *buf, size_t count);
ssize_t pvfs_write(int fd, const void *buf, size_t count);
ssize_t pvfs_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t pvfs_pwrite(int fd, const void *buf, size_t count, off_t offset);
ssize_t pvfs_readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t pvfs_writev(int fd, const struct iovec *iov, int iovcnt);
off_t pvfs_lseek(int fd, off_t offset, int whence);
int pvfs_fsync(int fd);
int pvfs_fdatasync(int fd);
int pvfs_ftruncate(int fd, off_t length);
int pvfs_truncate(const char *path, off_t length);
int pvfs_dup(int fd);
int pvfs_dup2(int oldfd, int newfd);
int pvfs_ioctl(int fd, unsigned long request, ...);

int pvfs_stat(const char *path, struct stat *st);
int pvfs_lstat(const char *path, struct stat *st);
int pvfs_fstat(int fd, struct stat *st);
int pvfs_access(const char *path, int mode);
int pvfs_chmod(const char *path, mode_t mode);
int pvfs_fchmod(int fd, mode_t mode);
int pvfs_chown(const char *path, uid_t owner, gid_t group);
int pvfs_fchown(int fd, uid_t owner, gid_t group);
int pvfs_utimes(const char *path, const struct timeval times[2]);
int pvfs_statfs(const char *path, struct statfs *buf);
/* Symbolic links, as Linux has them (doc/api.md): every path call follows
 * them but where its POSIX namesake does not; pvfs_open takes O_NOFOLLOW.
 * A link that leads out of PVFS makes the call fail as for a path that is
 * not PVFS's (ENOENT). */
int pvfs_symlink(const char *target, const char *path);
ssize_t pvfs_readlink(const char *path, char *buf, size_t len);
int pvfs_lchown(const char *path, uid_t owner, gid_t group);

int pvfs_unlink(const char *path);
int pvfs_rename(const char *oldpath, const char *newpath);
/* A hard link (newpath must not exist; not for directories). */
int pvfs_link(const char *oldpath, const char *newpath);
int pvfs_mkdir(const char *path, mode_t mode);
int pvfs_rmdir(const char *path);
/* FIFOs, sockets and (for root) device nodes are names here; their I/O
 * is the local kernel's (doc/api.md): pvfs_open of one fails (ENXIO for
 * a FIFO or socket, EACCES for a device, as on a nodev mount). */
int pvfs_mknod(const char *path, mode_t mode, dev_t dev);
int pvfs_mkfifo(const char *path, mode_t mode);
PVFS_DIR *pvfs_opendir(const char *path);
struct dirent *pvfs_readdir(PVFS_DIR *dir);
void pvfs_rewinddir(PVFS_DIR *dir);
int pvfs_closedir(PVFS_DIR *dir);

/* Where part rel (0 .. pcount-1) of an open file's distribution lives:
 * writes the iod's "host:port" to addr and returns its index in the file
 * system's ordered iod table; -1 with errno (EBADF, EINVAL, ERANGE: addr
 * too short) on failure. */
int pvfs_getiod(int fd, int rel, char *addr, size_t len);

/* ---- mirrored files (doc/api.md, "Mirrored files") ---- */

/* pvfs_open, with meta as PVFS_O_META's (NULL: the defaults), and copies
 * for a file O_CREAT makes: every stripe then lives on copies distinct
 * I/O daemons (on distinct hosts where the iod table tells), so the file
 * stays readable and writable with one of them down.  copies 0 takes the
 * parent directory's default (pvfs_setcopies), else 1 (unmirrored); at
 * most the number of I/O daemons and 8 (EINVAL).  An existing file keeps
 * its own copies. */
int pvfs_open_mirror(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *meta, int copies);
/* A regular file's copies (1: unmirrored), or a directory's default for
 * new files (0: none); -1 with errno. */
int pvfs_getcopies(const char *path);
/* A directory's default copies for files created in it from now on (0
 * removes it), which its new subdirectories inherit: its owner or root
 * may (EPERM); ENOTDIR for anything else; -1 with errno. */
int pvfs_setcopies(const char *path, int copies);

/* ---- partitions and noncontiguous I/O (doc/noncontig.md) ---- */

/* A PVFS 1 partition, set with pvfs_ioctl(fd, PVFS_SETPART, &part): the
 * descriptor then sees only groups of gsize bytes starting every stride
 * bytes from offset, concatenated; reads, writes and lseek count in that
 * view, and SETPART resets the offset to 0.  gsize 0, stride 0 or
 * gsize == stride is a contiguous view starting at offset; all zeros is
 * the whole file.  Negative fields, or 0 < stride < gsize: EINVAL. */
struct pvfs_fpart {
	int64_t offset;  /* file offset of the first group */
	int64_t gsize;   /* bytes in each group */
	int64_t stride;  /* distance between the starts of two groups */
	int64_t gstride; /* unused (PVFS 1 group I/O), kept as given */
	int64_t ngroups; /* unused, kept as given */
};
typedef struct pvfs_fpart pvfs_fpart;
typedef struct pvfs_fpart *pvfs_fpart_p;
#define PVFS_SETPART 0x7002 /* arg: const struct pvfs_fpart * */
#define PVFS_GETPART 0x7003 /* arg: struct pvfs_fpart * (out; zeros if none) */

/* PVFS 1 list I/O: the bytes of file_list_count file regions (increasing,
 * non-overlapping offsets) to or from mem_list_count memory regions of
 * the same total length, in one call: one request per I/O daemon.  The
 * file offset and any partition are ignored.  Returns the bytes moved
 * (a read stops at the end of file), or -1 with errno: EINVAL (negative
 * or unequal lengths, regions out of order or overlapping), EOVERFLOW
 * (total above INT_MAX: use the 64 variants), EBADF, EISDIR. */
int pvfs_read_list(int fd, int mem_list_count, char *mem_offsets[],
    int mem_lengths[], int file_list_count, int64_t file_offsets[],
    int32_t file_lengths[]);
int pvfs_write_list(int fd, int mem_list_count, char *mem_offsets[],
    int mem_lengths[], int file_list_count, int64_t file_offsets[],
    int32_t file_lengths[]);
/* The same with 64-bit lengths and totals. */
ssize_t pvfs_read_list64(int fd, int mem_list_count, char *mem_offsets[],
    const int64_t mem_lengths[], int file_list_count,
    const int64_t file_offsets[], const int64_t file_lengths[]);
ssize_t pvfs_write_list64(int fd, int mem_list_count, char *mem_offsets[],
    const int64_t mem_lengths[], int file_list_count,
    const int64_t file_offsets[], const int64_t file_lengths[]);
/* A vector: count blocks of blocklen bytes, block i at file offset
 * offset + i * stride (stride >= blocklen), to or from buf contiguously.
 * Offset and partition ignored, as for list I/O. */
ssize_t pvfs_read_strided(int fd, void *buf, int64_t offset, int64_t blocklen,
    int64_t stride, int64_t count);
ssize_t pvfs_write_strided(int fd, const void *buf, int64_t offset,
    int64_t blocklen, int64_t stride, int64_t count);

/* 1 if path lies under a pvfstab mount prefix, 0 if not. */
int pvfs_is_pvfs_path(const char *path);
/* After a call failed: the daemon behind the failure, as "iod N,
 * host:port", or NULL when no single daemon caused it.  Per thread, like
 * errno, and valid until the thread's next call into the library. */
const char *pvfs_error_detail(void);
/* 1 if fd is a descriptor returned by this library, 0 if not. */
int pvfs_is_pvfs_fd(int fd);

#ifdef __cplusplus
}
#endif
#endif /* PVFS_H */
