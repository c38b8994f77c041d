/*
 * pvfs-internal.h - the client library's one internal header, grouped by
 * the source file that implements each part.
 *
 * Locking, outermost first: file_open.pos_lock (held across a read or
 * write: keeps the shared offset atomic), client lock, file table lock,
 * pool lock, file_open.cap_lock.  Only pos_lock is ever held across a
 * network wait, and it belongs to one open file.
 */
#ifndef PVFS_INTERNAL_H
#define PVFS_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "common.h"
#include "pvfs.h"

#define PVFS_DEFAULT_TIMEOUT_MS 30000

/* ---- conn.c: connection pools and the synchronous mgr RPC ---- */
struct pvfs_conn {
	int fd;
	int reused;              /* came from the pool: the peer may have left */
	uint64_t who;            /* auth_who() when made (pools with ident) */
	struct pvfs_conn *next;  /* idle list */
};

/* Idle connections to one server.  pid tells a forked child that the idle
 * sockets are its parent's: it drops them without sending anything. */
struct conn_pool {
	char host[PVFS_HOST_MAX + 1];
	uint16_t port;
	/* Set once before use (doc/security.md): the daemon's Unix socket,
	 * tried before TCP; for the mgr, the connection's identity is the
	 * process's at connect (ident), proven on TCP by MUNGE (auth). */
	char sock[PVFS_SOCK_MAX + 1];
	int ident;
	int auth;
	const char *munge_sock;  /* NULL: libmunge's default */
	pid_t pid;
	struct pvfs_conn *idle;
	unsigned nidle;
};

struct client_fs;

void conn_pool_init(struct conn_pool *p, const char *host, uint16_t port);
/* Point p at a new address (a daemon restarted); 1 if it changed. */
int conn_pool_set_addr(struct conn_pool *p, const char *host, uint16_t port);
/* An idle live connection or a new one; 0 or -1 with errno. */
int conn_acquire(struct conn_pool *p, int timeout_ms, struct pvfs_conn **out);
/* Give back a connection whose last exchange completed cleanly. */
void conn_release(struct conn_pool *p, struct pvfs_conn *c);
/* Close a connection that saw any error; it is never reused. */
void conn_close(struct pvfs_conn *c);
/* One request/reply on a connection of our own (not pooled): 0, or -1
 * with errno. */
int conn_call_fd(int fd, uint16_t op, const void *req, void *rep,
    int timeout_ms);
uint32_t conn_next_reqid(void);
/* Wait for events on fd until deadline_ms (monotonic); 0 or -1/ETIMEDOUT. */
int conn_wait(int fd, short events, int64_t deadline_ms);
/* All len bytes to (from) fd by deadline_ms; 0 or -1 with errno.  A peer
 * that closes before len bytes came is EPIPE. */
int conn_send_all(int fd, const uint8_t *p, size_t len, int64_t deadline);
int conn_recv_all(int fd, uint8_t *p, size_t len, int64_t deadline);
/* Check the header h of the reply to (op, reqid) and decode body into rep.
 * 0 ok, 1 a clean error reply (errno set, the connection stays usable),
 * -1 a broken exchange. */
int conn_reply(const struct pvfs_hdr *h, uint16_t op, uint32_t reqid,
    const uint8_t *body, void *rep);
/* Send a request to fs's mgr and decode the reply into rep (a struct of
 * pvfs_msg_size(op, 1) bytes; pvfs_msg_free it for FSINFO and READDIR).
 * 0, or -1 with errno (the reply status, or a network error). */
int conn_rpc(struct client_fs *fs, uint16_t op, const void *req, void *rep);
void conn_atfork_prepare(void);
void conn_atfork_parent(void);
void conn_atfork_child(void);
/* For the preload shim: new sockets go to descriptors >= floor (0: off),
 * and conn_is_own_fd tells the library's live sockets from the program's. */
void conn_set_fd_floor(int floor);
int conn_is_own_fd(int fd);

/* ---- auth.c: proving who we are to the mgr (doc/security.md) ---- */
/* Who this process is now (euid, egid, groups), as a 64-bit digest: a
 * pooled mgr connection made under another identity is not reused. */
uint64_t auth_who(void);
/* On a new TCP connection of a pool with auth: send MGR_AUTH with a
 * fresh MUNGE credential.  0, or -1 with errno (EACCES: refused or no
 * credential; ENOTSUP: no MUNGE here). */
int auth_handshake(const struct conn_pool *p, int fd, int timeout_ms);

/* ---- client.c: configuration, file systems, credentials ---- */
struct client_fs {
	struct pvfs_tab_entry tab;
	size_t prefix_len;
	int timeout_ms;
	struct conn_pool mgr;
	/* Filled once by client_fs_info(); have_info is set last (release). */
	int have_info;
	uint64_t fsid;
	uint32_t default_ssize;
	uint32_t niods;
	struct conn_pool *iods;
};

/* Map a path to its file system and the path inside it (written to inner,
 * PVFS_PATH_MAX + 1 bytes).  0, or -1 with errno (ENOENT: not a PVFS path). */
int client_resolve(const char *path, struct client_fs **fs, char *inner);
/* The pvfstab's state: 0 loaded, ENOENT missing, EINVAL malformed (with
 * *cause "file:line: why"); *path is the file tried. */
int client_tab_status(const char **path, const char **cause);
/* This thread's last failure came from iod i of fs, with errno err
 * (pvfs_error_detail); clear: a new operation starts. */
void client_detail_iod(const struct client_fs *fs, uint32_t i, int err);
void client_detail_clear(void);
/* The errno the detail goes with, 0 if there is none. */
int client_detail_err(void);
/* Make sure fs's iod table is known (one MGR_FSINFO per process). */
int client_fs_info(struct client_fs *fs);
/* After a refused connection: re-read the pvfstab (mgr) or the iod table
 * in case the daemons restarted on new ports.  1 if an address changed,
 * 0 if not (errno ECONNREFUSED). */
int client_fs_reload_mgr(struct client_fs *fs);
int client_fs_reload_iods(struct client_fs *fs);
void client_cred(struct pvfs_cred *cr);
/* The process umask, read once (reading it means setting it). */
mode_t client_umask(void);
/* A stable st_dev for files of fs. */
dev_t client_fs_dev(const struct client_fs *fs, uint64_t fsid);

/* ---- io.c: the operations on file data (their streams: io-engine.c) ---- */
/* What the iods need to serve one file.  A refreshed capability is written
 * back into cap (and refreshed set) so the caller can keep it. */
struct io_file {
	struct client_fs *fs;
	uint64_t ino;
	struct pvfs_cap cap;
	uint32_t want_rights;    /* asked for again when the cap expires */
	int refreshed;
};

/* Aggregate of IOD_SIZE over a file's iods. */
struct io_size {
	uint64_t size;       /* max logical_end */
	int64_t mtime_ns;    /* max stripe file mtime */
	uint64_t blocks;     /* sum of 512-byte blocks */
};

/* Read or write pat of f to/from the user memory iov (whose total length
 * is the pattern's byte count).  Bytes transferred, or -1 with errno. */
ssize_t io_read(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt);
ssize_t io_write(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt);
/* The same over nseg segments in file order (pvfs_list_check'ed when
 * nseg > 1, so at most PVFS_LIST_MAX): one request per involved iod,
 * carrying only the segments it holds bytes of.  A list whose work
 * exceeds PVFS_LIST_MAX_WORK is refused (EINVAL): callers split it with
 * pvfs_list_round.  A read returns the stream's prefix below the end of
 * file. */
ssize_t io_read_segs(struct io_file *f, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt);
ssize_t io_write_segs(struct io_file *f, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt);
int io_size(struct io_file *f, struct io_size *out);
int io_truncate(struct io_file *f, uint64_t length);
int io_fsync(struct io_file *f, int datasync);
/* Drop the stripes of a file whose cap carries PVFS_R_REMOVE. */
int io_remove(struct client_fs *fs, const struct pvfs_cap *cap);
/* Sum of IOD_STATFS over every iod of fs. */
int io_statfs(struct client_fs *fs, struct pvfs_iod_statfs_rep *sum);
/* A contiguous pattern of len > 0 bytes at off. */
void io_pattern_contig(struct pvfs_pattern *p, uint64_t off, uint64_t len);

/* ---- file.c: the descriptor table ---- */
struct file_open {
	struct client_fs *fs;
	uint64_t ino;
	uint32_t mode;            /* S_IFMT and permission bits at open */
	int flags;                /* host O_* flags */
	int refs;                 /* descriptors + calls in progress */
	pthread_mutex_t pos_lock; /* serialises users of pos */
	uint64_t pos;             /* in the partition's view */
	/* Set under pos_lock and cap_lock, read under either. */
	struct pvfs_fpart fpart;  /* as set by SETPART (GETPART), zeros if none */
	struct pvfs_part part;    /* the view: zeros is the whole file */
	pthread_mutex_t cap_lock;
	struct pvfs_cap cap;
};

/* The open file behind fd with a reference held, or NULL/EBADF. */
struct file_open *file_get(int fd);
void file_put(struct file_open *of);
/* Snapshot of of's capability for the I/O engine. */
void file_io(struct file_open *of, struct io_file *f);
/* Keep a capability the engine refreshed. */
void file_io_done(struct file_open *of, const struct io_file *f);
/* Total of an iovec array, or -1/EINVAL when invalid or past SSIZE_MAX. */
ssize_t file_iov_total(const struct iovec *iov, int iovcnt);
/* EBADF if of is not open for reading (writing), EISDIR/EINVAL if it is
 * not a regular file.  0 or -1. */
int file_check_access(const struct file_open *of, int write);
/* O_SYNC/O_DSYNC after a successful write. */
int file_sync_after_write(struct file_open *of, struct io_file *f);
/* Segments seg[0..nseg) to (from) the iovecs, which are consumed, one
 * engine call per list-request round; a short read ends it.  The bytes
 * moved, or -1 with errno. */
ssize_t file_segs_rounds(struct io_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, struct iovec *iov,
    int iovcnt);
/* Host O_* access mode and flags to PVFS_OF_*. */
uint32_t file_wire_flags(int flags);
void file_atfork_prepare(void);
void file_atfork_parent(void);
void file_atfork_child(void);

/* ---- meta.c: attributes and name space ---- */
/* Fill st from a mgr reply, asking the iods for a regular file's size. */
int meta_stat_reply(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct stat *st);

/* ---- admin.c: per-daemon queries for the shell tools ---- */
/* What one iod holds of a file (IOD_SIZE of its part). */
struct admin_part {
	uint32_t iod, rel;
	struct pvfs_iod_size_rep size;
};

/* MGR_STAT by path: attributes, distribution and a SIZE capability. */
int admin_stat(const char *path, struct client_fs **fs,
    struct pvfs_mgr_attrcap_rep *rep);
/* Ask each of a regular file's pcount iods what it holds; parts has
 * r->attr.dist.pcount entries, in relative order. */
int admin_file_parts(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct admin_part *parts);
/* The file system a path (or URL) lies in, with its iod table loaded. */
int admin_fs(const char *path, struct client_fs **fs);
/* Ping the mgr or iod i on a fresh connection; *rtt_us is the round trip
 * of the request (connect excluded).  0 or -1 with errno. */
int admin_mgr_ping(struct client_fs *fs, struct pvfs_mgr_ping_rep *rep,
    int64_t *rtt_us);
int admin_iod_ping(struct client_fs *fs, uint32_t i, struct pvfs_iod_ping_rep *rep,
    int64_t *rtt_us);
/* IOD_STATFS of iod i alone (sizes in bytes). */
int admin_iod_statfs(struct client_fs *fs, uint32_t i,
    struct pvfs_iod_statfs_rep *rep);
/* "host:port" of iod i (brackets around an IPv6 host). */
void admin_iod_addr(const struct client_fs *fs, uint32_t i, char *out,
    size_t len);
/* pvfs-fsck: MGR_INOLIST of [first, first + count), IOD_LIST of one
 * subdirectory of iod i after the stripe file (after, after_gen), and
 * IOD_PURGE of the orphan stripe file (ino, gen), with the ADMIN
 * capability MGR_INOLIST returned.  Free the replies' arrays with
 * pvfs_msg_free. */
int admin_inolist(struct client_fs *fs, uint64_t first, uint32_t count,
    struct pvfs_mgr_inolist_rep *rep);
/* MGR_IODSTATUS: the mgr's view of each iod (free with pvfs_msg_free). */
int admin_iodstatus(struct client_fs *fs, struct pvfs_mgr_iodstatus_rep *rep);
int admin_iod_list(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint32_t sub, uint64_t after, uint64_t after_gen,
    struct pvfs_iod_list_rep *rep);
int admin_iod_purge(struct client_fs *fs, uint32_t i, const struct pvfs_cap *cap,
    uint64_t ino, uint64_t gen);

/* ---- handle.c: open files without a descriptor (the preload shim) ----
 * A handle is a struct file_open that is in no descriptor table: its
 * owner keeps the offset.  Modes are used as given (the caller applied
 * its umask).  NULL or -1 with errno, like the pvfs_* calls. */
struct file_open *handle_open(const char *path, int flags, mode_t mode);
/* Rebuild a handle from what handle_export gave (after exec). */
struct file_open *handle_import(const char *prefix_path, uint64_t ino,
    uint32_t mode, int flags, const struct pvfs_cap *cap);
void handle_export(struct file_open *of, struct pvfs_cap *cap);
struct file_open *handle_dup(struct file_open *of);
void handle_close(struct file_open *of);
ssize_t handle_preadv(struct file_open *of, const struct iovec *iov,
    int iovcnt, uint64_t off);
ssize_t handle_pwritev(struct file_open *of, const struct iovec *iov,
    int iovcnt, uint64_t off);
/* The logical size (0 for a directory). */
int handle_size(struct file_open *of, uint64_t *size);
int handle_fstat(struct file_open *of, struct stat *st);
int handle_ftruncate(struct file_open *of, uint64_t length);
int handle_fsync(struct file_open *of, int datasync);
/* SETATTR on the handle's inode (mask and fields of req; cred is set). */
int handle_setattr(struct file_open *of, struct pvfs_mgr_setattr_req *req);
int handle_setattr_path(const char *path, struct pvfs_mgr_setattr_req *req);
/* mkdir with the mode as given. */
int handle_mkdir(const char *path, mode_t mode);

#endif /* PVFS_INTERNAL_H */
