/*
 * iod.h - the I/O daemon's one internal header, grouped by source file.
 *
 * pvfs-iod stores the stripes of every file it holds in one local file,
 * DATADIR/XX/INO.GEN (iod-store.c), and serves them over a single-threaded libev loop.
 * Each connection handles one request at a time; a READ reply is followed
 * by a stream sent with sendfile, a WRITE request by a stream spliced
 * through one pipe into the file (long runs) or received into one buffer
 * (short runs), both shared by the whole daemon (safe: what a wake-up
 * received is written before control returns to the loop).
 */
#ifndef PVFS_IOD_H
#define PVFS_IOD_H

#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <ev.h>
#include <stdint.h>

#include "common.h"
#include "pvfs-proto.h"
#include "dconn.h"
#include "counters.h"

#define IOD_DEFAULT_DATADIR PVFS_DEFAULT_DATADIR
#define IOD_DEFAULT_KEYFILE PVFS_DEFAULT_KEYFILE

#define IOD_BODY_MAX 512           /* largest iod request body is ~120 bytes */
#define IOD_IBUF 8192              /* per-connection receive buffer: a small
				      WRITE's header, body and data in one recv */
#define IOD_LIST_BODY_MAX PVFS_MAX_BODY /* READ_LIST/WRITE_LIST bodies (heap) */
#define IOD_XFER_BUF (4u << 20)    /* shared WRITE receive buffer */
#define IOD_PIPE_SIZE (1 << 20)    /* shared WRITE splice pipe, if allowed */
#define IOD_SPLICE_MIN (64u << 10) /* shorter runs go through the buffer */
#define IOD_BUDGET_BYTES (4u << 20) /* stream bytes per connection per wake-up */
#define IOD_BUDGET_CALLS 1024      /* sendfile/pwrite calls per wake-up */
#define IOD_BUDGET_PIECES 65536    /* stripe pieces walked per wake-up */
#define IOD_BUDGET_REQS 32         /* requests served per wake-up */
#define IOD_STORE_FDS 128          /* open stripe files kept in the LRU */

/* iod.c: the daemon as a whole. */
struct iod_conn;

/* A data directory's label (iod-label.c). */
struct iod_label {
	uint64_t fsid;
	uint32_t index;
	char uuid[PVFS_UUID_HEX + 1];
};

struct iod {
	struct ev_loop *loop;
	const char *datadir;
	const char *listen;
	const char *keyfile;
	const char *pidfile;
	const char *portfile;
	const char *logfile;
	enum pvfs_log_level level;
	int foreground;

	uint8_t key[64];
	size_t keylen;
	int64_t start_ms;   /* monotonic, for PING uptime */

	const char *sock;      /* Unix socket path (-u), NULL: none */
	double idle_timeout;   /* seconds without a byte moved; 0 = never */
	unsigned max_conns;    /* per peer (peer-limit.c) */
	int lfd, ufd;          /* the listeners (ufd -1: none), until served */
	struct dconn_server srv; /* connections (dconn.c) */
	struct pvfs_counters counters; /* IOD_COUNTERS */
	uint8_t *xbuf;         /* the shared WRITE buffer, IOD_XFER_BUF bytes */

	uint64_t want_fsid;    /* --fsid: the label must say it; 0: any */
	long want_index;       /* --index: likewise; -1: any */
	struct iod_label label;
	int label_fd;          /* the label, flocked while we serve */
	int64_t test_offset_ns; /* PVFS_TEST_CLOCK_OFFSET (tests only) */
	int64_t clock_offset_ns; /* mgr clock - ours, from the last HELLO */
	int clock_synced;      /* a HELLO set clock_offset_ns */
	int refused;           /* the mgr's table disagrees with the label */
	int hello_key_warned;  /* logged a HELLO with a foreign mac */
};
extern struct iod iod;

/* iod-store.c: stripe files and the LRU of open descriptors. */
struct iod_file {
	uint64_t ino, gen; /* the file's identity, from its capability */
	uint32_t copy;     /* which copy's stripe file (mirrored files) */
	int fd;
	int refs;  /* streams and handlers using fd right now */
	int dead;  /* removed: close when refs drops to 0, never found again */
	TAILQ_ENTRY(iod_file) lru;
};
/* "XX/" + 20 decimal digits + "." + 16 hex digits + ".cK" + NUL, rounded up */
#define IOD_STORE_PATH_MAX 56
int iod_store_init(const char *datadir, char **cause);
void iod_store_shutdown(void);
/* The stripe file of (ino, gen), copy copy, relative to DATADIR. */
void iod_store_path(uint64_t ino, uint64_t gen, uint32_t copy, char *out,
    size_t len);
/* A name in subdirectory sub back to (ino, gen, copy): 0, or -1 if it is
 * not exactly a name iod_store_path makes. */
int iod_store_name_parse(const char *name, unsigned sub, uint64_t *ino,
    uint64_t *gen, uint32_t *copy);
struct iod_file *iod_store_get(uint64_t ino, uint64_t gen, uint32_t copy,
    int create, int *err);
void iod_store_put(struct iod_file *f);
int iod_store_stat(uint64_t ino, uint64_t gen, uint32_t copy,
    struct stat *st);
int iod_store_remove(uint64_t ino, uint64_t gen, uint32_t copy);
int iod_store_sync_dir(uint64_t ino);
int iod_store_statfs(struct statvfs *sv);
/* What the iod holds for files, and the host file system's identity
 * (IOD_STATFS). */
struct iod_usage {
	uint64_t host, dev;
	uint64_t used, apparent, nstripes;
};
int iod_store_usage(struct iod_usage *u);
int iod_store_list(unsigned sub, uint64_t after, uint64_t after_gen,
    uint32_t after_copy, uint32_t max, struct pvfs_stripe_ent *ents,
    uint32_t *n, int *eof);

/* iod-conn.c: connections and their state machine. */
enum iod_conn_state {
	IOD_CONN_READ_HDR,    /* reading the 24-byte frame header */
	IOD_CONN_READ_BODY,   /* reading body_len bytes of request body */
	IOD_CONN_READ_STREAM, /* receiving a WRITE's data (or discarding it) */
	IOD_CONN_SEND_REPLY,  /* flushing the reply frame in out */
	IOD_CONN_SEND_STREAM, /* sending a READ's data after its reply */
};

/* A WRITE to a copy of a mirrored file: which copy, not its stale record
 * (iod-mirror.c looks that up at every flush: the set may change between
 * wake-ups, the record be freed or made). */
struct iod_mirror_w {
	uint64_t ino, gen;
	uint32_t rel, copy;
	int64_t minted;          /* a resync's: its capability's mint time */
	uint64_t conn;           /* its connection's iod_mirror_conn_seq */
	int on;                  /* a mirrored file's copy */
	int resync;              /* under PVFS_R_RESYNC */
};

/* A data stream in progress: the iod's share of a pattern, walked as runs
 * of pieces with consecutive local offsets. */
struct iod_xfer {
	struct iod_file *file;   /* NULL: nothing on disk to move */
	struct pvfs_stripe_iter it;
	struct pvfs_piece ahead; /* piece fetched past the current run */
	int has_ahead;
	int iter_done;
	uint64_t run_local;      /* current run: next local offset ... */
	uint64_t run_left;       /* ... and bytes left in it */
	uint64_t left;           /* stream bytes still to move */
	uint64_t total;          /* stream_len */
	struct pvfs_pattern *segs; /* a LIST request's segments (owned) */
	int err;                 /* first write error; the reply's status */
	int discard;             /* WRITE refused: drain without writing */
	/* A mirrored copy's WRITE (iod-mirror.c); it goes through the
	 * buffer, never by splice: iod-mirror.c must see every client byte
	 * of a stale copy and leave out those a resync must not overwrite. */
	struct iod_mirror_w mw;
};

/* A connection: the layer's part (dconn.h) first. */
struct iod_conn {
	struct dconn dc;
	enum iod_conn_state state;

	uint8_t hdr_raw[PVFS_HDR_LEN];
	uint8_t body[IOD_BODY_MAX];
	/* Bytes received ahead: ibuf[ipos..ilen) come before the socket's. */
	uint8_t ibuf[IOD_IBUF];
	size_t ipos, ilen;
	int feed;                 /* budget spent with a request in ibuf */
	uint8_t *lbody;           /* a LIST request's larger body, or NULL */
	size_t got;               /* bytes of header or body read so far */
	struct pvfs_hdr hdr;      /* the request being served */

	struct pvfs_buf out;      /* reply frame being sent */
	int stream_next;          /* after the reply: SEND_STREAM */
	int close_after;          /* after the reply: close (bad frame) */
	const char *why;          /* why the connection closes */
	int close_err;            /* dconn_close's err for why */
	int64_t op_start;         /* when the request arrived (counters) */
	int op_status;            /* its reply's status */
	uint64_t opened;          /* iod_mirror_conn_seq at accept */
	struct iod_xfer xfer;
};
/* Serve connections on the listeners iod_prepare opened. */
void iod_conn_start(void);
void iod_conn_stop(void);
int iod_conn_reply(struct iod_conn *c, int32_t status, const void *msg);
void iod_conn_fail(struct iod_conn *c, int32_t status, const char *why);
/* What a handler may ask of its connection besides a reply. */
/* Send c->xfer's stream after the reply. */
void iod_conn_stream_send(struct iod_conn *c);
/* Receive c->xfer's stream now; its end replies (iod_op_write_done). */
void iod_conn_stream_recv(struct iod_conn *c);
/* Close once the reply is sent: the stream cannot be resynchronised. */
void iod_conn_close_after(struct iod_conn *c, const char *why);

/* iod-ops.c: request handlers. */
/* Every request body an iod decodes; pvfs_msg_size() is checked against
 * it so that a codec change cannot overflow the stack. */
union iod_req {
	struct pvfs_none none;
	struct pvfs_iod_read_req read;
	struct pvfs_iod_write_req write;
	struct pvfs_iod_truncate_req truncate;
	struct pvfs_iod_cap_req cap;
	struct pvfs_iod_fsync_req fsync;
	struct pvfs_iod_size_req size;
	struct pvfs_iod_read_list_req read_list;
	struct pvfs_iod_write_list_req write_list;
	struct pvfs_iod_list_req list;
	struct pvfs_iod_purge_req purge;
	struct pvfs_iod_hello_req hello;
	struct pvfs_iod_size_list_req size_list;
	struct pvfs_iod_stale_req stale;
	uint8_t pad[256];
};

union iod_rep {
	struct pvfs_none none;
	struct pvfs_iod_ping_rep ping;
	struct pvfs_iod_read_rep read;
	struct pvfs_iod_write_rep write;
	struct pvfs_iod_size_rep size;
	struct pvfs_iod_statfs_rep statfs;
	struct pvfs_iod_list_rep list;
	struct pvfs_iod_hello_rep hello;
	struct pvfs_iod_size_list_rep size_list;
	struct pvfs_counters_rep counters;
	uint8_t pad[256];
};

/* Every handler: the connection, the decoded request and the reply to
 * fill (zeroed); the reply's status (0 or a positive errno), or
 * IOD_OP_STREAM when it receives a stream whose end replies. */
#define IOD_OP_STREAM (-1)
typedef int (*iod_op_fn)(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep);
void iod_op_dispatch(struct iod_conn *c);
/* Log why a capability was refused (PVFS_CAP_*), rate-limited. */
void iod_op_cap_log(const struct pvfs_cap *cap, int why, int64_t now);
/* Room for a body over IOD_BODY_MAX: only LIST requests get it (and
 * SIZE_LIST).  0 or -1. */
int iod_op_body_alloc(struct iod_conn *c);
void iod_op_write_done(struct iod_conn *c);

/* iod-xfer.c: the walk of a stream over the local stripe file. */
/* A READ or WRITE, of one pattern or of a LIST, in one shape.  own points
 * at a LIST request's decoded array: the stream takes it over (and the
 * request then frees nothing). */
struct iod_io {
	const struct pvfs_cap *cap;
	uint32_t rel, copy;
	const struct pvfs_pattern *seg;
	uint32_t nseg;
	struct pvfs_pattern **own;
	uint64_t stream_len; /* WRITE: this iod's share, as the client says */
};
void iod_xfer_start(struct iod_xfer *x, struct iod_file *f,
    const struct iod_io *io, uint64_t len);
void iod_xfer_end(struct iod_xfer *x);
int iod_xfer_run_next(struct iod_xfer *x, unsigned *pieces);
uint64_t iod_xfer_write_plan(const struct iod_xfer *x, uint64_t max,
    unsigned *calls, unsigned *pieces);
void iod_xfer_write_flush(struct iod_xfer *x, const uint8_t *buf, uint64_t n);
uint64_t iod_xfer_splice_plan(struct iod_xfer *x, uint64_t max,
    unsigned *pieces);
ssize_t iod_xfer_splice(struct iod_xfer *x, int sock, uint64_t want);
/* pwrite all of buf at off: 0 or an errno (ENOSPC for a zero write). */
int iod_xfer_pwrite(int fd, const uint8_t *buf, uint64_t len, uint64_t off);

/* iod-label.c: the data directory's identity and the mgr's clock. */
int iod_label_format(const char *datadir, uint64_t fsid, uint32_t index,
    char **cause);
int iod_label_open(const char *datadir, char **cause);
int64_t iod_label_own_ns(void);
int64_t iod_label_now(void);
int iod_label_cap_check(const struct pvfs_cap *cap);
int iod_label_hello(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep);

/* iod-admin.c: what pvfs-fsck asks (ADMIN capabilities only). */
int iod_admin_list(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep);
int iod_admin_purge(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep);

/* iod-mirror.c: stale copies of mirrored files and the mirror lease. */
int iod_mirror_stale(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep);
/* HELLO verified: grant the lease if due; mgr_now_ns is the mgr's clock
 * as known before this HELLO. */
void iod_mirror_hello(const struct pvfs_iod_hello_req *r, int64_t mgr_now_ns,
    struct pvfs_iod_hello_rep *h);
/* 0, or ENODATA: no lease, or the copy is stale. */
int iod_mirror_read_ok(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy);
/* A write's plan into *w; ESTALE refuses a resync write. */
int iod_mirror_write_start(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy, struct iod_mirror_w *w);
/* ECONNABORTED: a client's write on a connection opened before the
 * copy's stale mark, refused unwritten; the connection must close. */
int iod_mirror_pwrite(const struct iod_mirror_w *w, int fd,
    const uint8_t *buf, uint64_t len, uint64_t off);
uint64_t iod_mirror_conn_seq(void);
/* A client's truncate of a copy to local bytes done (see iod-mirror.c). */
void iod_mirror_truncated(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy, uint64_t local);
/* A resync's truncate (size setting): 0 or ESTALE as a write; *local
 * raised to the end of what clients wrote meanwhile. */
int iod_mirror_resync_size(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy, uint64_t *local);

/* iod-intent.c: the write-intent log of mirrored copies (host crash). */
int iod_intent_open(const char *datadir, char **cause);
void iod_intent_close(void);
/* Before a client's write or truncate of a mirrored copy: 0 or an errno. */
int iod_intent_note(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy);
/* The host crashed with copies unsynced and the mgr has not marked them. */
int iod_intent_unclean(void);
void iod_intent_reported(void);
void iod_intent_set_taken(void);

#endif /* PVFS_IOD_H */
