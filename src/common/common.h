/*
 * common.h - what the daemons, the client library and the tools share,
 * grouped by the source file that implements it.
 */
#ifndef PVFS_COMMON_H
#define PVFS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>

/* Limits and value types only: the wire's messages, opcodes and codec are
 * in pvfs-proto.h, which the tools and the shim never see
 * (tests/tools/layers.sh). */
#include "pvfs-types.h"

#define PVFS_DEFAULT_MGR_PORT 3000
#define PVFS_DEFAULT_IOD_PORT 7000
#define PVFS_DEFAULT_SSIZE 65536
#define PVFS_CAP_LIFETIME 3600 /* seconds a capability stays valid */

/* Default paths, from configure's --sysconfdir and --localstatedir (the
 * Makefile passes them; /etc and /var when a file is built outside it). */
#ifndef PVFS_SYSCONFDIR
#define PVFS_SYSCONFDIR "/etc"
#endif
#ifndef PVFS_LOCALSTATEDIR
#define PVFS_LOCALSTATEDIR "/var"
#endif
#define PVFS_DEFAULT_TAB PVFS_SYSCONFDIR "/pvfstab"
#define PVFS_DEFAULT_KEYFILE PVFS_SYSCONFDIR "/pvfs/secret"
#define PVFS_DEFAULT_METADIR PVFS_LOCALSTATEDIR "/lib/pvfs/meta"
#define PVFS_DEFAULT_DATADIR PVFS_LOCALSTATEDIR "/lib/pvfs/data"

/* buf.c: a growable output buffer and a bounds-checked input cursor. */
struct pvfs_buf {
	uint8_t *data;
	size_t len, cap;
	size_t off; /* bytes already consumed/sent from the front */
	int oom;    /* set when a put could not grow the buffer */
};
void pvfs_buf_init(struct pvfs_buf *b);
void pvfs_buf_free(struct pvfs_buf *b);
void pvfs_buf_reset(struct pvfs_buf *b);
int pvfs_buf_reserve(struct pvfs_buf *b, size_t more);
void pvfs_buf_put(struct pvfs_buf *b, const void *p, size_t n);
void pvfs_buf_put_u8(struct pvfs_buf *b, uint8_t v);
void pvfs_buf_put_u16(struct pvfs_buf *b, uint16_t v);
void pvfs_buf_put_u32(struct pvfs_buf *b, uint32_t v);
void pvfs_buf_put_u64(struct pvfs_buf *b, uint64_t v);
/* Drop the first off bytes (already sent) when that frees enough room. */
void pvfs_buf_compact(struct pvfs_buf *b);

struct pvfs_cur {
	const uint8_t *p;
	size_t left;
	int bad; /* set on any underflow or invalid field; getters then return 0 */
};
void pvfs_cur_init(struct pvfs_cur *c, const void *p, size_t n);
uint8_t pvfs_cur_u8(struct pvfs_cur *c);
uint16_t pvfs_cur_u16(struct pvfs_cur *c);
uint32_t pvfs_cur_u32(struct pvfs_cur *c);
uint64_t pvfs_cur_u64(struct pvfs_cur *c);
void pvfs_cur_bytes(struct pvfs_cur *c, void *out, size_t n);
/* u16 length + bytes into out[max+1], NUL-terminated; no embedded NUL. */
void pvfs_cur_str(struct pvfs_cur *c, char *out, size_t max);

/* Big-endian helpers used by the codec and the journal. */
void pvfs_be16_put(uint8_t *p, uint16_t v);
void pvfs_be32_put(uint8_t *p, uint32_t v);
void pvfs_be64_put(uint8_t *p, uint64_t v);
uint16_t pvfs_be16_get(const uint8_t *p);
uint32_t pvfs_be32_get(const uint8_t *p);
uint64_t pvfs_be64_get(const uint8_t *p);

/* stripe.c: striping math.  rel is an iod's position within a file's
 * pcount iods, i.e. (iod index - base) mod niods. */
struct pvfs_piece {
	uint64_t logical; /* offset in the file */
	uint64_t local;   /* offset in the iod's stripe file */
	uint64_t mem;     /* offset in the pattern's byte stream (the user buffer) */
	uint64_t len;
};
struct pvfs_stripe_iter {
	struct pvfs_pattern one;        /* the pattern, for a single one */
	const struct pvfs_pattern *seg; /* a segment list (NULL: one) */
	uint32_t nseg, cur;             /* segments, current segment */
	uint64_t mem_base;              /* stream offset of segment cur */
	uint32_t pcount, ssize, rel;
	uint64_t block;  /* current block of the current segment */
	uint64_t pos;    /* offset within the current block */
};
/* Iterate the pieces of pat held by iod rel, in logical order; a piece
 * never crosses a stripe or block boundary. */
void pvfs_stripe_iter_init(struct pvfs_stripe_iter *it,
    const struct pvfs_pattern *pat, uint32_t pcount, uint32_t ssize,
    uint32_t rel);
/* The same over a segment list (pvfs_list_check'ed), which must outlive
 * the iterator; piece.mem counts from the start of the first segment. */
void pvfs_stripe_iter_init_list(struct pvfs_stripe_iter *it,
    const struct pvfs_pattern *seg, uint32_t nseg, uint32_t pcount,
    uint32_t ssize, uint32_t rel);
int pvfs_stripe_iter_next(struct pvfs_stripe_iter *it, struct pvfs_piece *pc);
/* Bytes of pat held by iod rel, in O(min(count, period)) where the period
 * is pcount * ssize / gcd(stride, pcount * ssize). */
uint64_t pvfs_stripe_share(const struct pvfs_pattern *pat, uint32_t pcount,
    uint32_t ssize, uint32_t rel);
/* Bytes of pat held by iod rel that lie below logical offset end. */
uint64_t pvfs_stripe_share_below(const struct pvfs_pattern *pat,
    uint32_t pcount, uint32_t ssize, uint32_t rel, uint64_t end);
/* Pattern sanity: 0 or -EINVAL. */
int pvfs_pattern_check(const struct pvfs_pattern *p);
/* A segment list's sanity: count, each pattern, order, no overlap, total
 * bytes below 2^63.  0 or -EINVAL. */
int pvfs_list_check(const struct pvfs_pattern *seg, uint32_t nseg);
/* Bytes of pat's stream, its end (1 + last offset), and how many of its
 * stream's bytes lie below size (a prefix: blocks are in order). */
uint64_t pvfs_pattern_bytes(const struct pvfs_pattern *pat);
uint64_t pvfs_pattern_end(const struct pvfs_pattern *pat);
uint64_t pvfs_pattern_below(const struct pvfs_pattern *pat, uint64_t size);
/* The same over a segment list. */
uint64_t pvfs_list_share(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize, uint32_t rel);
uint64_t pvfs_list_share_below(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize, uint32_t rel, uint64_t end);
uint64_t pvfs_list_bytes(const struct pvfs_pattern *seg, uint32_t nseg);
uint64_t pvfs_list_below(const struct pvfs_pattern *seg, uint32_t nseg,
    uint64_t size);
/* Steps the share computations above cost an iod for a list: the sum over
 * segments of min(count, period).  A list request whose work exceeds
 * PVFS_LIST_MAX_WORK is refused (EINVAL); a valid segment alone never
 * does (its work is at most its count). */
uint64_t pvfs_list_work(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize);
/* How many segments from seg[0] one request may carry: at most
 * PVFS_LIST_MAX and PVFS_LIST_MAX_WORK of work, at least 1 (nseg > 0). */
uint32_t pvfs_list_round(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize);
/* A PVFS 1 partition (doc/noncontig.md): groups of gsize bytes every
 * stride bytes from offset.  gsize 0, stride 0 or gsize == stride is a
 * contiguous view shifted by offset. */
struct pvfs_part {
	uint64_t offset, gsize, stride;
};
/* The file bytes behind view bytes [pos, pos + len), len > 0, as
 * segments in seg (room for max): a head (part of a group), whole groups
 * (PVFS_PATTERN_MAX_COUNT at most per segment), a tail.  Their number, or
 * 0 if they would reach 2^63 or need more than max. */
uint32_t pvfs_part_map(const struct pvfs_part *p, uint64_t pos, uint64_t len,
    struct pvfs_pattern *seg, uint32_t max);
/* Room pvfs_part_map needs for len view bytes (3 unless len is huge). */
uint32_t pvfs_part_nseg(const struct pvfs_part *p, uint64_t len);
/* Bytes of the view that lie below a file size (the view's size). */
uint64_t pvfs_part_view_size(const struct pvfs_part *p, uint64_t size);
/* Size of iod rel's stripe file for a file of logical_size bytes. */
uint64_t pvfs_stripe_local_size(uint64_t logical_size, uint32_t pcount,
    uint32_t ssize, uint32_t rel);
/* 1 + the highest logical offset stored in a stripe file of local_size bytes. */
uint64_t pvfs_stripe_logical_end(uint64_t local_size, uint32_t pcount,
    uint32_t ssize, uint32_t rel);
/* Relative iod holding logical offset off. */
uint32_t pvfs_stripe_rel(uint64_t off, uint32_t pcount, uint32_t ssize);
/* Absolute iod index of relative position rel. */
uint32_t pvfs_stripe_abs(const struct pvfs_dist *d, uint32_t rel, uint32_t niods);
/* Mirrored files: the iod of copy k of rel, (base + rel + k * mshift) mod
 * niods (copy 0 is pvfs_stripe_abs); a distribution's copies, 0 read as 1. */
uint32_t pvfs_stripe_copy_abs(const struct pvfs_dist *d, uint32_t rel,
    uint32_t copy, uint32_t niods);
uint32_t pvfs_dist_copies(const struct pvfs_dist *d);
/* Whether copies of every rel of (base, pcount, copies, mshift) sit on
 * distinct iods of niods; with host != NULL (host[i] names iod i's host),
 * on distinct hosts too. */
int pvfs_stripe_copies_apart(const struct pvfs_dist *d, uint32_t niods,
    const char *const *host);

/* sha256.c: SHA-256 and HMAC-SHA256. */
struct pvfs_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
	size_t fill;
};
void pvfs_sha256_init(struct pvfs_sha256 *s);
void pvfs_sha256_update(struct pvfs_sha256 *s, const void *p, size_t n);
void pvfs_sha256_final(struct pvfs_sha256 *s, uint8_t out[32]);
void pvfs_hmac_sha256(const uint8_t *key, size_t keylen, const void *msg,
    size_t n, uint8_t out[32]);
/* Constant-time comparison: 0 if equal. */
int pvfs_memcmp_ct(const void *a, const void *b, size_t n);

/* siphash.c: SipHash-2-4, a keyed hash for tables a peer fills. */
#define PVFS_SIPHASH_KEY_LEN 16
uint64_t pvfs_siphash(const uint8_t key[PVFS_SIPHASH_KEY_LEN], const void *data,
    size_t len);

/* crc32c.c */
uint32_t pvfs_crc32c(uint32_t crc, const void *p, size_t n);

/* log.c: pvfs_log_warn/pvfs_log_info/pvfs_log_debug/pvfs_fatal; stderr, a file, or syslog. */
enum pvfs_log_level { PVFS_LOG_ERR, PVFS_LOG_WARN, PVFS_LOG_INFO, PVFS_LOG_DEBUG };
/* path NULL: stderr; "syslog": syslog; else append to the file. */
int pvfs_log_open(const char *prog, const char *path, enum pvfs_log_level lvl);
int pvfs_log_level_parse(const char *s, enum pvfs_log_level *lvl);
/* The operator's signals (dsignal.c): reopen the file; a level up or down.
 * Both log a line naming WHY whatever the level. */
void pvfs_log_reopen(const char *why);
void pvfs_log_level_step(int step, const char *why);
void pvfs_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pvfs_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pvfs_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pvfs_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pvfs_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
extern enum pvfs_log_level pvfs_log_lvl;
/* At most one line per PVFS_RATELIMIT_MS for one kind of event. */
#define PVFS_RATELIMIT_MS 1000
struct pvfs_ratelimit {
	int64_t last_ms;          /* when the last line went out (0: never) */
	unsigned long suppressed; /* events since, not logged */
};
/* 1 if a line may go out now (then *suppressed is the count held back
 * since the last one), else 0 and the event is counted. */
int pvfs_ratelimit(struct pvfs_ratelimit *r, int64_t now_ms,
    unsigned long *suppressed);
/* Set *cause to a malloc'd message (NULL if out of memory); NULL cause ok. */
void pvfs_set_cause(char **cause, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* net.c: sockets. */
/* Parse "host", "host:port", "[v6]" or "[v6]:port" (default_port).  0 or -1. */
int pvfs_net_parse_addr(const char *s, char *host, size_t hostlen,
    uint16_t *port, uint16_t default_port);
/* Listening socket, non-blocking, CLOEXEC; port 0 binds an ephemeral port
 * and *bound gets the real one.  fd, or -1 with errno. */
int pvfs_net_listen(const char *host, uint16_t port, uint16_t *bound);
/* Accept non-blocking + CLOEXEC with TCP_NODELAY and large buffers. */
int pvfs_net_accept(int lfd);
/* Connect with a timeout in ms; returns a blocking-mode-off fd or -1/errno
 * (ETIMEDOUT, ECONNREFUSED, ...). */
int pvfs_net_connect(const char *host, uint16_t port, int timeout_ms);
void pvfs_net_tune(int fd); /* TCP_NODELAY, SO_SNDBUF/SO_RCVBUF, keepalive */
int pvfs_set_nonblock(int fd, int on);

/* net-unix.c: Unix domain sockets, for clients on the daemons' host. */
/* Listen on path (mode 0666: the peer's identity is checked, not its
 * access), non-blocking, CLOEXEC.  A stale socket left by a dead daemon
 * is replaced; one a live daemon serves is EADDRINUSE.  fd or -1/errno. */
int pvfs_unix_listen(const char *path);
/* Connect within timeout_ms; a non-blocking CLOEXEC fd or -1/errno. */
int pvfs_unix_connect(const char *path, int timeout_ms);
/* The peer's pid, uid, gid and groups as the kernel recorded them at
 * connect (SO_PEERCRED, SO_PEERGROUPS; more than PVFS_MAX_GROUPS are cut).
 * 0 or -1/errno. */
int pvfs_unix_peer_cred(int fd, struct pvfs_cred *cr, int32_t *pid);
/* 1 if host's first address is one of this host's (bindable here), else 0. */
int pvfs_addr_is_local(const char *host);

/* daemon.c: what every daemon does at start. */
/* write(2) all n bytes, retrying on EINTR and short writes.  0 or -1/errno. */
int pvfs_write_all(int fd, const void *p, size_t n);
/* Write "text\n" to path atomically (temp file + rename).  0 or -1/errno. */
int pvfs_write_file_atomic(const char *path, const char *text);
/* Write the pid file, then the port file with port (NULL: none); fatal on
 * failure. */
void pvfs_publish(const char *pidfile, const char *portfile, const char *port);
/* Fork into the background, setsid, stdio to /dev/null. */
int pvfs_daemonize(void);
/* Read a whole small file (<= max bytes) into a malloc'd NUL-terminated
 * buffer.  NULL/errno on failure. */
char *pvfs_read_small_file(const char *path, size_t max, size_t *len);
int64_t pvfs_now_ns(void);     /* CLOCK_REALTIME */
int64_t pvfs_mono_ns(void);    /* CLOCK_MONOTONIC */
int64_t pvfs_mono_ms(void);    /* CLOCK_MONOTONIC */
/* mkdir -p with mode; 0 or -1/errno. */
int pvfs_mkdir_p(const char *path, mode_t mode);

/* key.c: the shared key (doc/security.md, "The key file"). */
/* 0 if path and every directory above it belong to root or to us and
 * only their owner may write them, and only we (or our group) may read
 * the key; else -1 with *cause naming the path and the fix. */
int pvfs_key_check(const char *path, char **cause);
/* Check, then load a key file (32 to 128 hex digits); 0 or -1 with *cause. */
int pvfs_key_load(const char *path, uint8_t *key, size_t *keylen, char **cause);
/* Create a fresh random key file, mode 0600; an existing file is an
 * error (EEXIST).  0 or -1 with *cause. */
int pvfs_key_create(const char *path, char **cause);

/* daemon-limits.c: resource bounds of the daemons. */
/* Raise the soft RLIMIT_NOFILE to the hard one; the soft limit now in
 * force (-1: unlimited or unknown). */
long pvfs_raise_nofile(void);
/* A connection on which no byte moves for this long is closed. */
#define PVFS_IDLE_TIMEOUT_DEFAULT 300.0
/* Idle timeout in seconds (0 = never) from an option's text, else from
 * $PVFS_IDLE_TIMEOUT, else the default.  0, or -1 if the text is bad. */
int pvfs_idle_timeout_parse(const char *opt, double *secs);
/* Why a daemon closes a connection at now, or NULL.  A peer that sends
 * half a frame and stalls, stops reading its replies, or just sits idle
 * holds a descriptor: it goes once nothing has moved for timeout.  One
 * that trickles a frame (slowloris) goes once that frame (in_frame, begun
 * at frame_start) is older than timeout.  at_rest: between frames with
 * nothing to send, so the close is an ordinary idle one. */
const char *pvfs_conn_expired(double now, double last_io, int in_frame,
    double frame_start, int at_rest, double timeout);
#define PVFS_CONN_IDLE "idle timeout"
/* Seconds a daemon stops accepting after EMFILE/ENFILE: a level-triggered
 * listening socket that stays readable would otherwise spin. */
#define PVFS_ACCEPT_BACKOFF 0.1

/* peer-limit.c: who is at the other end of an accepted connection, and
 * connections per peer (a Unix socket's uid, a TCP peer's address), so
 * that one user cannot take every descriptor of a daemon. */
struct pvfs_peer;
/* Read once at accept: the daemons' connection layer keeps it. */
struct pvfs_peer_id {
	int is_unix;
	int has_cred;           /* is_unix: the kernel's credentials were read */
	int32_t pid;            /* has_cred: the peer's pid at connect */
	struct pvfs_cred cred;  /* has_cred: uid, gid and groups */
	struct sockaddr_storage addr; /* TCP: the peer's address */
};
/* Who fd's peer is (a Unix peer without credentials has has_cred 0).  0,
 * or -1/errno if the socket is gone. */
int pvfs_peer_identify(int fd, struct pvfs_peer_id *id);
/* "unix:pid=123,uid=1000", "unix:?", "10.0.0.1:4567" or "[::1]:4567". */
void pvfs_peer_id_name(const struct pvfs_peer_id *id, char *buf, size_t len);
/* Default per peer: a PVFS_PEER_LIMIT_SHARE'th of the descriptor limit,
 * at least PVFS_PEER_LIMIT_MIN; PVFS_PEER_LIMIT_UNKNOWN if unlimited. */
#define PVFS_PEER_LIMIT_SHARE 8
#define PVFS_PEER_LIMIT_MIN 16
#define PVFS_PEER_LIMIT_UNKNOWN 8192
/* max for pvfs_peer_limit_init: the default from the descriptor limit. */
#define PVFS_PEER_LIMIT_AUTO UINT32_MAX
unsigned pvfs_peer_limit_default(long nofile);
/* --max-conns-per-peer's text (0: no limit) into *max.  0 or -1. */
int pvfs_peer_limit_parse(const char *s, unsigned *max);
/* Start counting with max per peer (0: no limit; PVFS_PEER_LIMIT_AUTO:
 * from nofile, pvfs_raise_nofile's result) and log it.  Root and the
 * daemon's own uid are never limited. */
void pvfs_peer_limit_init(unsigned max, long nofile);
/* Count the connection just accepted on fd against its peer: 0 with
 * *slot for pvfs_peer_limit_release (NULL when not counted), or -1 if
 * the peer holds its limit (logged; the caller closes fd). */
int pvfs_peer_limit_take(int fd, struct pvfs_peer **slot);
/* The same for a peer already identified. */
int pvfs_peer_limit_take_id(const struct pvfs_peer_id *id,
    struct pvfs_peer **slot);
void pvfs_peer_limit_release(struct pvfs_peer *slot);

/* config.c: pvfstab and iod tables. */
struct pvfs_tab_entry {
	char host[PVFS_HOST_MAX + 1];
	uint16_t port;
	char meta_dir[PVFS_PATH_MAX + 1];
	char prefix[PVFS_PATH_MAX + 1]; /* without trailing slash, "/" stays "/" */
	int timeout_ms;                 /* option timeout=SECONDS, 0 = default */
	char sock[PVFS_SOCK_MAX + 1];   /* option sock=PATH: the mgr's Unix socket */
	int auth;                       /* option auth=munge: PVFS_AUTH_MUNGE, else 0 */
	char munge_sock[PVFS_SOCK_MAX + 1]; /* option munge_socket=PATH */
	int nocache;                    /* option cache=off: no STAT cache */
};
/* The pvfstab to read: $PVFSTAB_FILE, else PVFS_DEFAULT_TAB. */
const char *pvfs_tab_path(void);
/* Parse a pvfstab.  Returns the number of entries (>= 0) in a malloc'd
 * array, or -1 with *cause (a malloc'd message naming file and line). */
int pvfs_tab_parse(const char *text, const char *fname,
    struct pvfs_tab_entry **out, char **cause);
/* Parse an iod table: one "host:port [unix=PATH]" per line, '#' comments.
 * A host:port or socket named twice is an error. */
int pvfs_iodtab_parse(const char *text, const char *fname,
    struct pvfs_iod_addr **out, char **cause);
/* Read (at most max bytes) and parse an iod table; each name must also
 * resolve, to an address no other entry has.  The count (>= 1) or -1
 * with *cause naming file and line. */
int pvfs_iodtab_load(const char *path, size_t max,
    struct pvfs_iod_addr **out, char **cause);
/* Read a configuration file (<= max bytes) as text; NULL with *cause
 * (errno EINVAL if it holds a NUL byte). */
char *pvfs_config_read(const char *path, size_t max, char **cause);
/* 1 if host is made of the characters of names and addresses. */
int pvfs_host_valid(const char *host);

#endif /* PVFS_COMMON_H */
