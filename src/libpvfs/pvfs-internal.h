/*
 * pvfs-internal.h - the client library's one internal header, grouped by
 * the source file that implements each part.
 *
 * Locking, outermost first: file_desc.pos_lock (held across a read or
 * write: keeps the shared offset atomic), client lock, file table lock,
 * open-file list lock, pool lock, file_desc.view_lock, pvfs_file.cap_lock.
 * Only pos_lock is ever held across a network wait, and it belongs to one
 * open file description.
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
#include "pvfs-client.h"
#include "pvfs-proto.h"

#define PVFS_DEFAULT_TIMEOUT_MS 30000
#define PVFS_DEFAULT_STALL_MS 5000 /* mirrored files: a copy given up */

/* ---- conn.c: connection pools and the synchronous mgr RPC ---- */
struct pvfs_conn {
	int fd;
	int reused;              /* came from the pool: the peer may have left */
	uint64_t who;            /* pvfs_auth_who() when made (pools with ident) */
	int64_t idle_since;      /* pvfs_mono_ms() when pooled */
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
	/* A mgr's pool: every new connection first asks the mgr which file
	 * system it serves (MGR_PING) and must find the one the first
	 * connection found (fsid, 0 until then), so that a restarted mgr's
	 * address taken over by another file system's mgr is refused. */
	int pin_fs;
	uint64_t fsid;
	pid_t pid;
	struct pvfs_conn *idle;
	unsigned nidle;
	/* Mirrored files (io-mirror.c): until when (mono ms) reads avoid this
	 * iod, which failed them (INT64_MAX while down: until a probe of it
	 * answers); the probe, owned by whoever set probing. */
	int64_t avoid_until;
	int down;                /* 0, or how it was lost (io-mirror.c) */
	int probing;
	int64_t probe_at;        /* when the probe was sent, or may be */
	uint32_t probe_reqid;
	struct pvfs_conn *probe;
};

struct client_fs;

void pvfs_conn_pool_init(struct conn_pool *p, const char *host, uint16_t port);
/* Point p at a new address (a daemon restarted); 1 if it changed. */
int pvfs_conn_pool_set_addr(struct conn_pool *p, const char *host, uint16_t port);
/* An idle live connection or a new one; 0 or -1 with errno. */
int pvfs_conn_acquire(struct conn_pool *p, int timeout_ms, struct pvfs_conn **out);
/* A new connection that is not the pool's to hand out again. */
int pvfs_conn_new(struct conn_pool *p, int timeout_ms, struct pvfs_conn **out);
/* Give back a connection whose last exchange completed cleanly. */
void pvfs_conn_release(struct conn_pool *p, struct pvfs_conn *c);
/* Close a connection that saw any error; it is never reused. */
void pvfs_conn_close(struct pvfs_conn *c);
/* One request/reply on a connection of our own (not pooled): 0, or -1
 * with errno. */
int pvfs_conn_call_fd(int fd, uint16_t op, const void *req, void *rep,
    int timeout_ms);
/* The same, telling a refusal from a failure: 0, 1 (the peer's status in
 * errno) or -1 (the connection failed). */
int pvfs_conn_call(int fd, uint16_t op, const void *req, void *rep,
    int timeout_ms);
/* Is an idle connection (no request outstanding) still open? */
int pvfs_conn_idle_alive(int fd);
uint32_t pvfs_conn_next_reqid(void);
/* Wait for events on fd until deadline_ms (monotonic); 0 or -1/ETIMEDOUT. */
int pvfs_conn_wait(int fd, short events, int64_t deadline_ms);
/* All len bytes to (from) fd by deadline_ms; 0 or -1 with errno.  A peer
 * that closes before len bytes came is EPIPE. */
int pvfs_conn_send_all(int fd, const uint8_t *p, size_t len, int64_t deadline);
int pvfs_conn_recv_all(int fd, uint8_t *p, size_t len, int64_t deadline);
/* Check the header h of the reply to (op, reqid) and decode body into rep.
 * 0 ok, 1 a clean error reply (errno set, the connection stays usable),
 * -1 a broken exchange. */
int pvfs_conn_reply(const struct pvfs_hdr *h, uint16_t op, uint32_t reqid,
    const uint8_t *body, void *rep);
/* Send a request to fs's mgr and decode the reply into rep (a struct of
 * pvfs_msg_size(op, 1) bytes; pvfs_msg_free it for FSINFO and READDIR).
 * 0, or -1 with errno (the reply status, or a network error). */
int pvfs_conn_rpc(struct client_fs *fs, uint16_t op, const void *req, void *rep);
/* A reply with status PVFS_ST_LINK fails with errno PVFS_ST_LINK (it
 * never reaches a caller of the library: resolve.c follows the link);
 * its body is here, per thread, until the next such reply. */
const struct pvfs_link_rep *pvfs_conn_link(void);
void pvfs_conn_atfork_prepare(void);
void pvfs_conn_atfork_parent(void);
void pvfs_conn_atfork_child(void);

/* ---- auth.c: proving who we are to the mgr (doc/security.md) ---- */
/* Who this process is now (euid, egid, groups), as a 64-bit digest: a
 * pooled mgr connection made under another identity is not reused. */
uint64_t pvfs_auth_who(void);
/* On a new TCP connection of a pool with auth: send MGR_AUTH with a
 * fresh MUNGE credential.  0, or -1 with errno (EACCES: refused or no
 * credential; ENOTSUP: no MUNGE here). */
int pvfs_auth_handshake(const struct conn_pool *p, int fd, int timeout_ms);

/* ---- client.c: configuration, file systems, credentials ---- */
struct client_fs {
	struct pvfs_tab_entry tab;
	size_t prefix_len;
	int timeout_ms;
	int stall_ms;            /* mirrored files' copies (io-mirror.c) */
	struct conn_pool mgr;
	/* Filled once by pvfs_client_fs_info(); have_info is set last (release). */
	int have_info;
	uint64_t fsid;
	uint32_t default_ssize;
	uint32_t niods;
	struct conn_pool *iods;
	struct pvfs_conn *lease_conn; /* lease.c: holds this process's leases */
	int64_t lease_write_ms;       /* lease.c: a writer last checked it */
	uint32_t lease_write_fork;    /* lease.c: in which fork's child */
	struct pvfs_cache_fs *cache;  /* cache.c: STAT answers' promises */
};

/* Map a path to its file system and the path inside it (written to inner,
 * PVFS_PATH_MAX + 1 bytes).  0, or -1 with errno (ENOENT: not a PVFS path). */
int pvfs_client_resolve(const char *path, struct client_fs **fs, char *inner);
/* The same, but a path that routes locally returns 1 with its routed form
 * (the local part folded) in local, len bytes (ENAMETOOLONG if short). */
int pvfs_client_route(const char *path, struct client_fs **fs, char *inner,
    char *local, size_t len);
/* The pvfstab's state: 0 loaded, ENOENT missing, EINVAL malformed (with
 * *cause "file:line: why"); *path is the file tried. */
int pvfs_client_tab_status(const char **path, const char **cause);
/* This thread's last failure came from iod i of fs, with errno err
 * (pvfs_error_detail); clear: a new operation starts. */
void pvfs_client_detail_iod(const struct client_fs *fs, uint32_t i, int err);
void pvfs_client_detail_clear(void);
/* The errno the detail goes with, 0 if there is none. */
int pvfs_client_detail_err(void);
/* Make sure fs's iod table is known (one MGR_FSINFO per process). */
int pvfs_client_fs_info(struct client_fs *fs);
/* After a refused connection: re-read the pvfstab (mgr) or the iod table
 * in case the daemons restarted on new ports.  1 if an address changed,
 * 0 if not (errno ECONNREFUSED). */
int pvfs_client_fs_reload_mgr(struct client_fs *fs);
int pvfs_client_fs_reload_iods(struct client_fs *fs);
/* The identity a request claims: this thread's pvfs_client_set_ident, else
 * the process's euid, egid and groups. */
void pvfs_client_cred(struct pvfs_cred *cr);
/* 1 while this thread has an identity set (pvfs_access then checks it
 * rather than the real ids). */
int pvfs_client_ident_is_set(void);
/* The process umask, read once (reading it means setting it). */
mode_t pvfs_client_umask(void);
/* A stable st_dev for files of fs. */
dev_t pvfs_client_fs_dev(const struct client_fs *fs, uint64_t fsid);

/* ---- admin.c ---- */
/* Read and check the reply to (op, reqid) on fd: 0, 1 for a clean error
 * reply (errno set; the connection stays usable), -1 for a broken
 * exchange. */
int pvfs_admin_reply(int fd, uint16_t op, uint32_t reqid, void *rep,
    int64_t deadline);

/* ---- io.c: the operations on file data (their streams: io-engine.c) ---- */
/* What the iods need to serve one file.  A refreshed capability is written
 * back into cap (and refreshed set) so the caller can keep it. */
struct io_file {
	struct client_fs *fs;
	uint64_t ino;
	struct pvfs_cap cap;
	uint32_t want_rights;    /* asked for again when the cap expires */
	int refreshed;
	struct pvfs_file *file;  /* its open file: dirty reports left pending */
};

/* Aggregate of IOD_SIZE over a file's iods. */
struct pvfs_io_size {
	uint64_t size;       /* max logical_end */
	int64_t mtime_ns;    /* max stripe file mtime */
	uint64_t blocks;     /* sum of 512-byte blocks */
};

/* Read or write pat of f to/from the user memory iov (whose total length
 * is the pattern's byte count).  Bytes transferred, or -1 with errno. */
ssize_t pvfs_io_read(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt);
ssize_t pvfs_io_write(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt);
/* The same over nseg segments in file order (pvfs_list_check'ed when
 * nseg > 1, so at most PVFS_LIST_MAX): one request per involved iod,
 * carrying only the segments it holds bytes of.  A list whose work
 * exceeds PVFS_LIST_MAX_WORK is refused (EINVAL): callers split it with
 * pvfs_list_round.  A read returns the stream's prefix below the end of
 * file. */
ssize_t pvfs_io_read_segs(struct io_file *f, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt);
ssize_t pvfs_io_write_segs(struct io_file *f, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt);
int pvfs_io_size(struct io_file *f, struct pvfs_io_size *out);
/* size-list.c: the sizes of n files at once (caps[i] NULL: not a regular
 * file, skipped).  ok[i] says whether out[i] is whole; a file whose iods
 * did not all answer is left to pvfs_io_size, which says why.  0, or -1
 * with errno when nothing could be asked. */
int pvfs_io_size_list(struct client_fs *fs, const struct pvfs_cap *const *caps,
    uint32_t n, struct pvfs_io_size *out, uint8_t *ok);
int pvfs_io_truncate(struct io_file *f, uint64_t length);
/* A fresh capability for f from the mgr (GETATTR with f's rights). */
int pvfs_io_refresh(struct io_file *f);
int pvfs_io_fsync(struct io_file *f, int datasync);
/* Sum of IOD_STATFS over every iod of fs. */
int pvfs_io_statfs(struct client_fs *fs, struct pvfs_iod_statfs_rep *sum);
/* A contiguous pattern of len > 0 bytes at off. */
void pvfs_io_pattern_contig(struct pvfs_pattern *p, uint64_t off, uint64_t len);

/* ---- pvfs-file.c: the open file (its API is in pvfs-client.h) ---- */
struct pvfs_file {
	struct client_fs *fs;
	uint64_t ino;
	uint32_t mode;            /* S_IFMT and permission bits at open */
	int flags;                /* host O_* flags */
	int privs_done;           /* set-id bits reported after a write (atomic) */
	int refs;                 /* owners (atomic) */
	pthread_mutex_t cap_lock;
	struct pvfs_cap cap;
	struct pvfs_file *prev, *next; /* every live file, for fork */
	int leased;               /* lease.c holds a lease for it: 2 may write */
	int wrote;                /* data or size changed through it (atomic) */
	/* The open's reply when that open created the file, until
	 * pvfs_file_created_stat takes it (atomic exchange). */
	struct pvfs_mgr_attrcap_rep *created;
	/* Dirty reports of a mirrored file the mgr did not take
	 * (mirror-report.c), under cap_lock: sent again before the next
	 * operation on the file, which fails with EIO until they went. */
	struct pvfs_mirror_range *pend;
	uint32_t npend;
	/* PVFS_O_BUFFERED: write-behind and read-ahead (buffered.c). */
	struct pvfs_buffered *buffered;
};

/* Snapshot of f's capability for the I/O engine. */
void pvfs_file_io(struct pvfs_file *f, struct io_file *io);
/* Keep a capability the engine refreshed. */
void pvfs_file_io_done(struct pvfs_file *f, const struct io_file *io);
/* Total of an iovec array, or -1/EINVAL when invalid or past SSIZE_MAX. */
ssize_t pvfs_file_iov_total(const struct iovec *iov, int iovcnt);
/* EBADF if f is not open for reading (writing), EISDIR/EINVAL if it is
 * not a regular file.  0 or -1. */
int pvfs_file_access(const struct pvfs_file *f, int write);
/* Segments seg[0..nseg) (pvfs_list_check'ed, file order) to (from) the
 * iovecs: one engine call per list-request round (pvfs_list_round), a
 * short read ends it; O_SYNC/O_DSYNC after a write.  The caller checked
 * access.  The bytes moved, or -1 with errno. */
ssize_t pvfs_file_segs(struct pvfs_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, const struct iovec *iov,
    int iovcnt);
/* pvfs_file_segs past any buffer: to the iods now. */
ssize_t pvfs_file_segs_direct(struct pvfs_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, const struct iovec *iov,
    int iovcnt);
/* ---- buffered.c: PVFS_O_BUFFERED's write-behind and read-ahead ---- */
/* Give f its buffers if it was opened with the flag.  0 or -1/ENOMEM. */
int pvfs_buffered_open(struct pvfs_file *f);
void pvfs_buffered_close(struct pvfs_file *f);
void pvfs_buffered_atfork_child(struct pvfs_file *f);
/* Write out what is buffered; -1 with errno for its error or one kept
 * from an earlier flush. */
int pvfs_buffered_flush(struct pvfs_file *f);
/* Write out what is buffered, keeping an error for the next write,
 * fsync or close (before size and stat). */
void pvfs_buffered_settle(struct pvfs_file *f);
ssize_t pvfs_buffered_segs(struct pvfs_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, const struct iovec *iov,
    int iovcnt);
/* Host O_* access mode and flags to PVFS_OF_*. */
uint32_t pvfs_file_wire_flags(int flags);
/* ---- lease.c: open files outlive their names (doc/design.md) ---- */
int pvfs_lease_take(struct client_fs *fs, uint64_t ino, uint64_t gen,
    int write);
void pvfs_lease_drop(struct client_fs *fs, uint64_t ino, int write,
    int clean);
void pvfs_lease_check(struct client_fs *fs);
void pvfs_lease_check_write(struct client_fs *fs);
/* cache.c: STAT answers kept under the mgr's promises. */
struct pvfs_cache_ticket {
	uint64_t token, epoch;
	int64_t sent_ns;
	uint32_t hash;
};
int pvfs_cache_stat_get(struct client_fs *fs, struct pvfs_mgr_path_req *q,
    struct pvfs_mgr_attrcap_rep *rep, struct pvfs_cache_ticket *t);
void pvfs_cache_stat_put(struct client_fs *fs,
    const struct pvfs_mgr_path_req *q, const struct pvfs_mgr_attrcap_rep *rep,
    const struct pvfs_cache_ticket *t);
void pvfs_cache_atfork_prepare(void);
void pvfs_cache_atfork_parent(void);
void pvfs_cache_atfork_child(void);
void pvfs_lease_atfork_prepare(void);
void pvfs_lease_atfork_parent(void);
void pvfs_lease_atfork_child(void);

void pvfs_file_atfork_prepare(void);
void pvfs_file_atfork_parent(void);
void pvfs_file_atfork_child(void);

/* ---- file.c: the descriptor table of pvfs.h over open files ---- */
/* An open file description: dup'ed descriptors share it and its offset. */
struct file_desc {
	struct pvfs_file *f;
	int refs;                 /* descriptors + calls in progress */
	pthread_mutex_t pos_lock; /* serialises users of pos */
	uint64_t pos;             /* in the partition's view */
	/* Set under pos_lock and view_lock, read under either. */
	pthread_mutex_t view_lock;
	struct pvfs_fpart fpart;  /* as set by SETPART (GETPART), zeros if none */
	struct pvfs_part part;    /* the view: zeros is the whole file */
};

/* The description behind fd with a reference held, or NULL/EBADF. */
struct file_desc *pvfs_fdtab_get(int fd);
void pvfs_fdtab_put(struct file_desc *d);
void pvfs_fdtab_atfork_prepare(void);
void pvfs_fdtab_atfork_parent(void);
void pvfs_fdtab_atfork_child(void);

/* ---- resolve.c: the one loop that follows symbolic links ---- */
#define PVFS_LINK_HOPS 40 /* Linux's MAXSYMLINKS */
/* One path request whose paths the mgr may answer with PVFS_ST_LINK. */
struct pvfs_walk {
	uint16_t op;
	void *req, *rep;
	struct pvfs_cred *cred;  /* the request's, filled here unless NULL */
	const char *path[2];     /* the caller's; path[1] NULL but for RENAME */
	char *inner[2];          /* the request's path fields (PVFS_PATH_MAX + 1) */
	struct client_fs *fs;    /* out: the file system that answered */
};
/* Route the paths, send, and on PVFS_ST_LINK build the path again from
 * the link's text (absolute: the text and the rest; relative: the link's
 * directory, the text and the rest, under the same prefix), route it again
 * and resend, at most PVFS_LINK_HOPS times (then ELOOP).  0 with the
 * reply in rep, or -1 with errno.  A path that a link led out of PVFS is
 * PVFS_ELOCAL with the local path (pvfs_local_path) when the caller asked
 * for that (pvfs_set_local_escape), else ENOENT as for any local path;
 * EXDEV when only one of two paths left. */
int pvfs_walk_rpc(struct pvfs_walk *w);
/* w for a one-path request. */
static inline void
pvfs_walk_init(struct pvfs_walk *w, uint16_t op, void *req,
    struct pvfs_cred *cred, const char *path, char *inner, void *rep)
{
	w->op = op;
	w->req = req;
	w->rep = rep;
	w->cred = cred;
	w->path[0] = path;
	w->path[1] = NULL;
	w->inner[0] = inner;
	w->inner[1] = NULL;
	w->fs = NULL;
}

/* ---- meta.c: attributes and name space ---- */
/* Fill st from a mgr reply, asking the iods for a regular file's size. */
/* stat of r with a regular file's size already known. */
void pvfs_meta_fill(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    const struct pvfs_io_size *sz, struct stat *st);
/* 1: the mgr's reply has a's regular file's size, blocks and mtime. */
int pvfs_meta_size_exact(const struct pvfs_attr *a);
int pvfs_meta_stat_reply(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct stat *st);
/* A library setattr as a request (ino and path left zero); -1/EINVAL for
 * a bad time. */
int pvfs_meta_setattr_req(const struct pvfs_setattr *sa,
    struct pvfs_mgr_setattr_req *req);

/* ---- admin.c: per-daemon queries (the tools' calls are in
 * pvfs-client.h); these two are for tests/integration/test_fsck ---- */
/* The file system a path (or URL) lies in, with its iod table loaded. */
int pvfs_admin_fs(const char *path, struct client_fs **fs);
/* An admin handle's file system (resync.c). */
struct client_fs *pvfs_admin_client(struct pvfs_admin *a);
/* MGR_INOLIST of [first, first + count), with the ADMIN capability (free
 * the reply's array with pvfs_msg_free). */
int pvfs_admin_inolist(struct client_fs *fs, uint64_t first, uint32_t count,
    struct pvfs_mgr_inolist_rep *rep);

#endif /* PVFS_INTERNAL_H */
