/*
 * mgr.h - the metadata manager's one internal header, grouped by the source
 * file that implements each part.
 */
#ifndef PVFS_MGR_H
#define PVFS_MGR_H

#include <sys/queue.h>
#include <stdio.h>
#include <ev.h>

#include "common.h"
#include "pvfs-proto.h"
#include "dconn.h"
#include "counters.h"

/* ---- mgr-server.c: the daemon's settings (mgr.c: options, start-up,
 * the loop) ---- */
struct mgr_server {
	struct ev_loop *loop;
	const char *metadir;
	uint64_t fsid;
	uint64_t want_fsid; /* --fsid: for a new file system, or checked; 0 */
	uint8_t key[64]; /* shared with the iods; signs capabilities */
	size_t keylen;
	struct pvfs_iod_addr *iods; /* ordered iod table */
	uint32_t niods;
	uint32_t ssize;  /* default stripe size */
	int root_squash;
	int64_t start_ms;
	uint64_t journal_max; /* checkpoint once the journal passes this */
	char *bound_port;     /* the port we listen on, as text */
	double idle_timeout;  /* close connections silent this long; 0 = never */
	int anonymous;        /* MGR_ANON_*: unauthenticated TCP clients */
	int munge;            /* accept AUTH with a MUNGE credential */
	const char *munge_sock; /* munged's socket, NULL: libmunge's default */
	int unix_fd;          /* the Unix socket listener (-u), if any */
};
extern struct mgr_server mgr;

/* ---- mgr-conn.c: connections ---- */
enum mgr_conn_state {
	MGR_CONN_HDR,   /* waiting for a whole frame header */
	MGR_CONN_BODY,  /* header checked, waiting for body_len bytes */
	MGR_CONN_FULL,  /* too much output queued: not reading until it drains */
	MGR_CONN_DRAIN, /* error or EOF: send what is queued, then close */
};

/* A file a connection holds open (mgr-lease.c), count times. */
struct mgr_lease {
	uint64_t ino;
	uint32_t count;
	uint32_t wcount;   /* of which may write (PVFS_LEASE_WRITE) */
};

/* A connection: the layer's part (dconn.h) first. */
struct mgr_conn {
	struct dconn dc;
	enum mgr_conn_state state;
	int auth;             /* MGR_AUTH_*: how ident was established */
	struct pvfs_cred ident; /* who the peer is, when auth != MGR_AUTH_NONE */
	struct pvfs_hdr hdr;  /* the frame being read (state BODY) */
	uint8_t *in;          /* received bytes: in[in_off .. in_len) unparsed */
	size_t in_off, in_len, in_cap;
	struct pvfs_buf out;  /* encoded replies; out.off = bytes sent */
	size_t out_ok;        /* replies below this offset are durable */
	int held;             /* on the list of connections waiting for a commit */
	int ready;            /* on the list of connections with input to parse */
	int eof;              /* the peer sent everything it will send */
	int why_error;        /* DRAIN: log the close as an error */
	const char *why;      /* DRAIN: why the connection will close */
	struct mgr_lease *leases; /* files it holds open (mgr-lease.c) */
	uint32_t nleases, leases_cap;
	struct cb_holder *cb_holder; /* its client's cache (mgr-cache.c) */
	/* Replies from gate_off on wait for gate_waits acknowledgements of
	 * cache invalidations (mgr-cache.c). */
	size_t gate_off;
	uint32_t gate_waits;
	TAILQ_ENTRY(mgr_conn) held_entry;  /* waiting for the journal */
	TAILQ_ENTRY(mgr_conn) ready_entry; /* to be driven from the idle watcher */
};

void mgr_conn_listen(int lfd);
void mgr_conn_listen_unix(int ufd);
/* Queue a reply; it leaves only once every journal record before it is
 * durable. */
void mgr_conn_reply(struct mgr_conn *c, uint16_t op, uint32_t reqid,
    int status, const void *rep);
/* A reply after the request's handler returned (MGR_OP_LATER). */
void mgr_conn_reply_later(struct mgr_conn *c, uint16_t op, uint32_t reqid,
    int status, const void *rep);
/* The journal reached the disk: send every reply held until now. */
void mgr_conn_release_all(void);
/* Hold c's replies from the one about to be queued on, until n calls of
 * mgr_conn_gate_open (mgr-cache.c). */
void mgr_conn_gate_close(struct mgr_conn *c, uint32_t n);
void mgr_conn_gate_open(struct mgr_conn *c);
void mgr_conn_close_all(void);

/* ---- mgr-ops.c: one handler per opcode ---- */
/* Every handler: the connection, the decoded request body and the reply
 * to fill; 0 or a positive errno (the reply's status). */
typedef int (*mgr_op_fn)(struct mgr_conn *c, void *req, void *rep);
/* Handle one request frame; -1 if the body did not decode (the caller
 * closes the connection after the error reply). */
int mgr_op_dispatch(struct mgr_conn *c, const struct pvfs_hdr *h,
    const uint8_t *body);
void mgr_op_init(void);
/* A handler's answer when it replies itself later (mgr_conn_reply_later)
 * to the request mgr_op_reqid names. */
#define MGR_OP_LATER (-1)
extern uint32_t mgr_op_reqid;
/* What the mgr has counted (MGR_COUNTERS); the journal counts its commits
 * in the extra slot. */
extern struct pvfs_counters mgr_counters;
/* MGR_COUNTERS: the connection figures come from mgr-conn.c. */
void mgr_conn_counts(uint64_t *total, uint64_t *open);

/* ---- mgr-auth.c: who a connection's requests come from ---- */
enum { MGR_AUTH_NONE, MGR_AUTH_PEER, MGR_AUTH_MUNGE };
enum { MGR_ANON_NOBODY, MGR_ANON_REFUSE, MGR_ANON_TRUST };
#define MGR_NOBODY 65534 /* anonymous and squashed clients act as this */
/* Parse "nobody", "refuse" or "trust"; 0 or -1. */
int mgr_auth_policy_parse(const char *s, int *policy);
/* Open the MUNGE context when --munge is on; pvfs_fatal if it cannot be. */
void mgr_auth_init(void);
void mgr_auth_free(void);
/* A new connection: a Unix one is identified by the kernel at once. */
void mgr_auth_accept(struct mgr_conn *c);
/* Make the claimed cred of a request the one it may use on c: 0, EPERM
 * (an authenticated non-root peer claims another uid or gid) or EACCES
 * (--anonymous refuse). */
int mgr_auth_cred(const struct mgr_conn *c, struct pvfs_cred *cr);
/* Log, at start, whom the mgr believes and why. */
void mgr_auth_log_trust(const char *keyfile, int have_unix);
/* How c's requests are treated: enum pvfs_ping_auth. */
int mgr_auth_kind(const struct mgr_conn *c);
/* MGR_AUTH: decode a MUNGE credential and adopt its identity. */
int mgr_auth_op(struct mgr_conn *c, void *req, void *rep);

/* ---- mgr-ops.c: a signed capability for (ino, gen) (ino 0: the iods'
 * admin requests), with the file's distribution when dist is not NULL ---- */
void mgr_cap_mint(uint64_t ino, uint64_t gen, uint32_t rights,
    const struct pvfs_dist *dist, struct pvfs_cap *cap);
/* The regular file a client's capability with right names, or the errno. */
struct mgr_inode;
int mgr_cap_file(const struct pvfs_cap *cap, uint32_t right,
    struct mgr_inode **inp);

/* ---- mgr-iods.c: HELLO to every iod of the table (labels, key, clocks) ---- */
void mgr_iods_start(struct ev_loop *loop);
void mgr_iods_stop(void);
/* MGR_IODSTATUS: the per-iod view the HELLOs built. */
/* iod index's address (resolved at start); -1 if it did not resolve. */
int mgr_iods_sockaddr(uint32_t index, struct sockaddr_storage *sa,
    socklen_t *len);
int mgr_iods_status(struct mgr_conn *c, void *req, void *rep);

/* ---- mgr-layout.c: mirrored files' copies and shift ---- */
struct mgr_inode;
/* copies and mshift of a new file of distribution d (base, pcount) in
 * directory dir, asked (0: dir's default, else 1).  0 or EINVAL. */
int mgr_layout_choose(uint32_t asked, const struct mgr_inode *dir,
    struct pvfs_dist *d);
/* The MIRROR record of ino (after its CREATE, or a directory's default). */
void mgr_layout_log(uint64_t ino, const struct pvfs_dist *d);
int mgr_layout_set_default(const struct pvfs_cred *cr,
    const struct mgr_inode *in, uint32_t copies);

/* ---- mgr-lease.c: open-unlinked files ---- */
struct mgr_inode;
#define MGR_LEASE_GRACE 30.0 /* seconds an orphan waits for a lost holder */
void mgr_lease_set_grace(double secs);
int mgr_lease_op(struct mgr_conn *c, void *req, void *rep);
void mgr_lease_conn_gone(struct mgr_conn *c);

/* mgr-size.c */
void mgr_size_hold(struct mgr_inode *in, double secs);
void mgr_size_dirty(struct mgr_inode *in);
void mgr_size_new(struct mgr_inode *in);
void mgr_size_wlease(struct mgr_inode *in, int take, int clean);
void mgr_size_attr(const struct mgr_inode *in, struct pvfs_attr *a);
int mgr_size_op(struct mgr_conn *c, void *req, void *rep);
/* in's last name is about to go: 1 (and an ORPHAN record) for a regular
 * file, whose stripes mgr-free.c removes once no lease holds it. */
int mgr_lease_keep(struct mgr_inode *in);
void mgr_lease_start(struct ev_loop *loop);
void mgr_lease_stop(void);

/* ---- mgr-cache.c: cache promises (clients' STAT caches) ---- */
struct mgr_path;
#define MGR_CACHE_TERM 2.0 /* seconds a promise lasts unless renewed */
void mgr_cache_set_term(double secs);
int mgr_cache_callback_op(struct mgr_conn *c, void *req, void *rep);
/* STAT's promise for token: its term in ms, 0 if none. */
uint32_t mgr_cache_grant(uint64_t token, const char *path,
    const struct mgr_path *p);
/* Every record, before it applies (mgr_journal_log). */
struct mgr_rec;
void mgr_cache_record(const struct mgr_rec *r);
/* An attribute of ino changed without a record (e.g. the size). */
void mgr_cache_inode_changed(uint64_t ino);
void mgr_cache_op_begin(void);
void mgr_cache_op_end(struct mgr_conn *c);
void mgr_cache_conn_gone(struct mgr_conn *c);
void mgr_cache_start(struct ev_loop *loop);
void mgr_cache_stop(void);

/* ---- mgr-free.c: removing orphans' stripes from the iods ---- */
/* An ORPHAN record for in was just logged: nothing of it goes before the
 * commit that makes it durable. */
void mgr_free_orphan_new(struct mgr_inode *in);
/* The journal's durable hook calls it after every commit. */
void mgr_free_durable(void);
/* mgr-iods.c: iod index answers HELLO again. */
void mgr_free_iod_up(uint32_t index);
void mgr_free_start(struct ev_loop *loop);
void mgr_free_stop(void);

/* ---- mgr-admin.c: what pvfs-fsck and pvfs-counters ask ---- */
int mgr_admin_inolist(struct mgr_conn *c, void *req, void *rep);
int mgr_admin_counters(struct mgr_conn *c, void *req, void *rep);

/* ---- mgr-ns.c: the in-memory name space ---- */
struct mgr_inode;

/* One name in a directory.  A file has one or more (hard links), chained
 * from its inode's de through lnext; a directory has exactly one; the
 * root and open-unlinked files (orphans) have none.  Millions of these
 * live at once (doc/design.md, "Memory"): the name is stored inline and
 * the cookie only in the parent's slot (mgr_ns_cookie). */
struct mgr_dirent {
	struct mgr_dirent *hnext;  /* (parent, name) hash chain */
	struct mgr_dirent *lnext;  /* the inode's next name */
	struct mgr_inode *parent;
	struct mgr_inode *inode;
	uint32_t slot;             /* index in parent's slot array */
	uint32_t hash;
	uint8_t namelen;           /* at most PVFS_NAME_MAX (255) */
	char name[];               /* NUL-terminated */
};

/* A directory's entries in insertion order, so cookies ascend and readdir
 * resumes by binary search.  Removed entries leave a NULL hole until the
 * array is compacted. */
struct mgr_dirslot {
	uint64_t cookie;
	struct mgr_dirent *de;
};
struct mgr_dir {
	struct mgr_dirslot *slots;
	uint32_t nslots, cap;
	uint32_t nlive;       /* entries */
	uint32_t nsubdirs;
	uint64_t next_cookie;
};

/* Fields ordered so that no padding is left: a regular file's inode is
 * the bulk of the mgr's memory (doc/design.md, "Memory"). */
struct mgr_inode {
	struct mgr_inode *hnext; /* inode hash chain */
	uint64_t ino;
	/* Files: a random number drawn at create, never 0 for a file made
	 * since identities exist (0: an older file).  (ino, gen) names the
	 * stripe files, so a file never sees stripes of an earlier file that
	 * had its inode number (after a restore or a salvage). */
	uint64_t gen;
	uint32_t mode, uid, gid;
	uint32_t nlink;          /* files: names (de's chain) */
	int64_t atime_ns, mtime_ns, ctime_ns;
	int64_t mset_ns;         /* when mtime was last set here (attr.mtime_set_ns) */
	struct pvfs_dist dist;   /* files only */
	/* Open-unlinked files (mgr-lease.c): connections holding the file
	 * open; keep says the inode outlives its last name (an ORPHAN
	 * record), orphan that it did, held that a lease held it then. */
	uint32_t leases;
	uint32_t walk_gen;       /* mgr_ns_walk_names: met in this walk */
	uint16_t targetlen;
	uint8_t keep : 1, orphan : 1, freeing : 1, held : 1;
	/* mgr-size.c: size, blocks, dmtime are true; keep: they were when
	 * the first write lease came, and no writer has changed them yet. */
	uint8_t size_exact : 1, size_keep : 1;
	/* Files (mgr-size.c): leases that may write, and the count of
	 * events (a write lease, a WRITE capability) that may have changed
	 * the size, which a report must name to be taken. */
	uint32_t wleases;
	uint32_t size_epoch;
	uint32_t size_hold_s;    /* no report before (mono seconds) */
	uint64_t size, blocks;
	int64_t dmtime_ns;       /* the data's mtime on the iods */
	uint64_t rdev;           /* device nodes: the device number */
	struct mgr_dirent *de;   /* our first name; NULL: root or orphan */
	struct mgr_dir *dir;     /* directories only */
	char *target;            /* symbolic links only: the text, NUL-ended */
	struct mgr_orphan *ox;   /* orphans only (mgr-free.c's state) */
};

/* What only an orphan needs, apart so that every other inode is smaller. */
struct mgr_orphan {
	struct mgr_inode *in;
	int64_t free_at;         /* orphan without leases: free from then (mono ms) */
	/* mgr-free.c: the commit that makes the ORPHAN record durable, and
	 * which stripes (by position) the iods confirmed gone. */
	uint64_t durable_at;
	uint8_t *rm_done;
	TAILQ_ENTRY(mgr_orphan) oentry; /* on the orphan list */
};

/* A resolved path: the directory holding the last component and what that
 * component names (NULL if missing). */
struct mgr_path {
	struct mgr_inode *dir;
	struct mgr_inode *ino;
	struct mgr_dirent *de;   /* ino's entry, NULL when special */
	const char *name;        /* last component, not NUL-terminated */
	size_t namelen;
	int special;             /* "/" or last component "." or ".." */
	int slash;               /* trailing slash */
	/* PVFS_ST_LINK: the link met, and the bytes of the path up to the
	 * end of its name (struct pvfs_link_rep). */
	const struct mgr_inode *link;
	size_t link_end;
};

/* How a walk takes a symbolic link as the last component (one met before
 * it is always PVFS_ST_LINK: the mgr never follows a link itself). */
enum mgr_follow {
	MGR_WALK_PARENT,   /* never: it is the name the request works on */
	MGR_WALK_NOFOLLOW, /* only with a trailing "/" (lstat, readlink) */
	MGR_WALK_FOLLOW,   /* always (stat, open) */
};

/* A journal record: every input of one mutation.  Live requests and replay
 * both go through mgr_ns_apply() with one of these. */
enum mgr_rec_type {
	MGR_REC_CREATE = 1,
	MGR_REC_MKDIR,
	MGR_REC_UNLINK,
	MGR_REC_RMDIR,
	MGR_REC_RENAME,
	MGR_REC_SETATTR,
	MGR_REC_END,  /* snapshot trailer */
	/* Explicit values from here on. */
	MGR_REC_SYMLINK = 8, /* a symbolic link: CREATE's fields and the text */
	MGR_REC_LINK = 9,   /* another name for a file */
	MGR_REC_ORPHAN = 10, /* a file outlives its last name (open-unlinked) */
	MGR_REC_FREE = 11,   /* an orphan's stripes are gone: forget it */
	/* ORPHAN's mode: a lease held the file (after a restart it waits
	 * the grace for its holder); older mgrs ignore the bit. */
#define MGR_ORPHAN_HELD 0x100000u
	MGR_REC_MKNOD = 12, /* a FIFO, socket or device node */
	MGR_REC_DIRTY = 13,   /* a copy of a mirrored file misses a range */
	MGR_REC_CLEAN = 14,   /* a resync made a copy fresh again */
	MGR_REC_REBUILD = 15, /* every copy on an iod is stale (a new disk) */
	/* A file's copies and mshift, right after its CREATE or ORPHAN in
	 * the same batch, or a directory's default copies (dist.copies; a
	 * directory written before it loads with copies 1). */
	MGR_REC_MIRROR = 16,
};
#define MGR_REC_MODE 0x1u
#define MGR_REC_UID 0x2u
#define MGR_REC_GID 0x4u
#define MGR_REC_ATIME 0x8u
#define MGR_REC_MTIME 0x10u
#define MGR_REC_CTIME 0x20u
#define MGR_REC_ALL 0x3fu

struct mgr_rec {
	uint8_t type;
	uint64_t parent, parent2; /* parent2: RENAME destination directory */
	uint64_t ino;             /* CREATE/MKDIR/SETATTR/LINK/ORPHAN/FREE;
	                           * UNLINK/RMDIR check */
	uint64_t gen;             /* CREATE: the file's identity (mgr_inode.gen) */
	uint64_t cookie;          /* 0: next in parent (snapshots keep theirs) */
	uint64_t next_cookie;     /* MKDIR: the new directory's counter */
	uint32_t mask;            /* SETATTR: MGR_REC_* */
	uint32_t mode, uid, gid;  /* MKNOD: mode holds the type as well */
	uint64_t rdev;            /* MKNOD: the device number */
	int64_t atime_ns, mtime_ns, ctime_ns;
	int64_t mset_ns;          /* CREATE/MKDIR: when mtime was last set */
	struct pvfs_dist dist;
	int64_t time;             /* parents' new mtime/ctime; 0 = leave */
	const char *name, *name2;
	uint16_t namelen, namelen2;
	const char *target;       /* SYMLINK: the link's text */
	uint16_t targetlen;
	/* Not on disk: (parent, name)'s hash when not 0, computed by a load
	 * ahead of the apply (mgr_ns_prefetch). */
	uint32_t hash;
	/* DIRTY, CLEAN (mgr-mirror.c): the copy (ino, gen, rel, copy), its
	 * local range and flags (DIRTY) and its dirty generation; REBUILD:
	 * the iod's index in rel. */
	uint32_t rel, copy, mflags;
	uint64_t offset, length, dgen;
};

void mgr_ns_init(void);
void mgr_ns_free(void);
/* Size the tables for about n inodes (a load, from its snapshot). */
void mgr_ns_reserve(uint64_t n);
struct mgr_inode *mgr_ns_root(void);
struct mgr_inode *mgr_ns_get(uint64_t ino);
struct mgr_dirent *mgr_ns_lookup(const struct mgr_inode *dir,
    const char *name, size_t len);
/* Prefetch what applying r will look up: r's bucket (0 if r has no
 * name, else the hash), then, given that hash, its first entry. */
uint32_t mgr_ns_prefetch(const struct mgr_rec *r);
void mgr_ns_prefetch_chain(uint32_t hash);
/* de's position in its parent (readdir cookies), never reused there. */
uint64_t mgr_ns_cookie(const struct mgr_dirent *de);
/* Every resolver: 0, an errno, or PVFS_ST_LINK with p->link set. */
int mgr_ns_resolve(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p);
/* As mgr_ns_resolve (slash_ok: as mgr_ns_resolve_slash), the last
 * component taken as follow says. */
int mgr_ns_resolve_how(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, int slash_ok, enum mgr_follow follow);
int mgr_ns_resolve_existing(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p);
/* mgr_ns_resolve, leaving a trailing "/" after a non-directory to the
 * caller (p->slash set, no ENOTDIR). */
int mgr_ns_resolve_slash(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p);
struct mgr_inode *mgr_ns_parent(const struct mgr_inode *in);
int mgr_ns_is_ancestor(const struct mgr_inode *a, const struct mgr_inode *b);
uint64_t mgr_ns_next_ino(void);
void mgr_ns_set_next_ino(uint64_t ino);
/* A random file identity (mgr_inode.gen), never 0. */
uint64_t mgr_ns_new_gen(void);
uint64_t mgr_ns_count(void);
void mgr_ns_attr(const struct mgr_inode *in, struct pvfs_attr *a);
int mgr_ns_apply(const struct mgr_rec *r);
/* The fields every record for path p starts with (mgr-ops.c's handlers
 * and the unit tests build their changes with it). */
/* in's identity and attributes into r (an ORPHAN record, a snapshot's). */
void mgr_ns_rec_attrs(const struct mgr_inode *in, struct mgr_rec *r);
void mgr_ns_rec_new(struct mgr_rec *r, uint8_t type, const struct mgr_path *p,
    int64_t now);
/* Entries of dir after cookie; *eof set when none is left after them. */
uint32_t mgr_ns_readdir(const struct mgr_inode *dir, uint64_t cookie,
    struct mgr_dirent **out, uint32_t max, int *eof);
/* Call fn on every named inode once, parents before children (snapshot
 * order). */
int mgr_ns_walk(int (*fn)(const struct mgr_inode *, void *), void *arg);
/* The same order, but fn sees every name (de NULL for the root); first is
 * set at the first one met of each inode, the others are hard links. */
int mgr_ns_walk_names(int (*fn)(const struct mgr_inode *,
    const struct mgr_dirent *, int first, void *), void *arg);
/* Call fn on every orphan (an open-unlinked file, no name left). */
int mgr_ns_walk_orphans(int (*fn)(struct mgr_inode *, void *), void *arg);
uint64_t mgr_ns_orphan_count(void);

#define MGR_IS_DIR(in) (((in)->mode & 0170000) == 0040000)
#define MGR_IS_REG(in) (((in)->mode & 0170000) == 0100000)
#define MGR_IS_LNK(in) (((in)->mode & 0170000) == 0120000)
#define MGR_LINK_MAX (PVFS_PATH_MAX - 1) /* a link's text: PATH_MAX - 1 */

/* ---- mgr-mirror.c: stale copies of mirrored files ---- */
#define MGR_MIRROR_WHOLE 0x1u /* DIRTY: every byte (a rebuilt iod) */
#define MGR_MIRROR_SIZE 0x2u  /* DIRTY: its size may differ (a truncate) */
/* One stale (file, rel, copy): the local ranges it misses (whole: all). */
struct mgr_stale {
	uint64_t ino, gen;
	uint32_t rel, copy;
	uint64_t dgen;          /* DIRTY records applied: a job's check */
	uint64_t dgen0;         /* the first since it became stale: every
				 * write it missed came after it (ordering) */
	uint32_t next;          /* ranges (mgr_mirror_extents) */
	uint64_t bytes;         /* their sum */
	uint8_t whole, size;
	/* mgr-resync.c: the report that made it stale waits for this fence
	 * (the iod's set version holding the mark, or the lease bound);
	 * once it holds, later reports on the copy need not wait.  0: not
	 * known (a mark replayed after a restart). */
	uint64_t fence_version;
	int64_t fence_bound_ms, fence_since_ms;
};
int mgr_mirror_apply(const struct mgr_rec *r);
void mgr_mirror_reset(void);
/* Placement: copy k of rel is on iod (base + rel + k * mshift) mod N. */
uint32_t mgr_mirror_iod(const struct pvfs_dist *d, uint32_t rel,
    uint32_t copy);
uint32_t mgr_mirror_copies(const struct pvfs_dist *d);
const struct mgr_stale *mgr_mirror_find(uint64_t ino, uint64_t gen,
    uint32_t rel, uint32_t copy);
const struct pvfs_extent *mgr_mirror_extents(const struct mgr_stale *st);
void mgr_mirror_set_fence(const struct mgr_stale *st, uint64_t version,
    int64_t bound_ms, int64_t since_ms);
uint64_t mgr_mirror_next_dgen(uint64_t ino, uint64_t gen, uint32_t rel,
    uint32_t copy);
/* Every stale copy of a live file (entries of gone files are dropped). */
int mgr_mirror_walk(int (*fn)(const struct mgr_stale *, void *), void *arg);
/* ... from bucket *cursor on, round; *cursor moves past where fn stopped. */
int mgr_mirror_walk_from(size_t *cursor,
    int (*fn)(const struct mgr_stale *, void *), void *arg);
/* The state as DIRTY records, for a snapshot. */
int mgr_mirror_snap_walk(int (*fn)(const struct mgr_rec *, void *),
    void *arg);
uint64_t mgr_mirror_count(void);
void mgr_mirror_counts(uint64_t *files, uint64_t *copies, uint64_t *bytes);
/* The lowest inode above after with a stale copy (0: none). */
uint64_t mgr_mirror_next_file(uint64_t after);
/* A freed file's stale copies go. */
void mgr_mirror_forget(uint64_t ino, uint64_t gen, uint32_t pcount,
    uint32_t copies);

/* ---- mgr-resync.c: dirty reports, fencing, resync jobs ---- */
int mgr_resync_dirty_op(struct mgr_conn *c, void *req, void *rep);
int mgr_resync_op(struct mgr_conn *c, void *req, void *rep);
/* May stale copy o (NULL: a fresh one) be st's resync source? */
int mgr_resync_source_ok(const struct mgr_stale *st,
    const struct mgr_stale *o);
void mgr_resync_conn_gone(struct mgr_conn *c);
/* mgr-iods.c's news: iod index holds stale set version (after a HELLO),
 * or refused a connection. */
void mgr_resync_iod_acked(uint32_t index, uint64_t version);
void mgr_resync_iod_refused(uint32_t index);
/* Iod index answered with a new data directory: REBUILD journaled (and
 * committed) as pvfs-resync --rebuild does. */
void mgr_resync_rebuild_auto(uint32_t index);
/* For mgr-iods.c: the iod's stale set version, the one it last reported,
 * and IOD_STALE frames appended to out (their number) that bring an iod
 * holding version from to the current one: the changes since from, else
 * (whole_ok) the whole set, else nothing. */
uint64_t mgr_resync_version(uint32_t index);
uint64_t mgr_resync_acked(uint32_t index);
uint32_t mgr_resync_encode_update(uint32_t index, uint64_t from,
    int whole_ok, struct pvfs_buf *out, uint32_t reqid);
/* cmd: the worker (NULL: pvfs-resync beside pvfs-mgr; "": none); sock:
 * the mgr's Unix socket, NULL if none. */
void mgr_resync_start(struct ev_loop *loop, const char *cmd,
    const char *sock);
void mgr_resync_stop(void);
/* mgr-iods.c: the lease a HELLO grants (ms), HELLO now (a stale mark is
 * waiting), and the monotonic ms when iod index last got one. */
uint32_t mgr_iods_lease_ms(void);
void mgr_iods_kick(uint32_t index);
int64_t mgr_iods_hello_sent_ms(uint32_t index);
int mgr_iods_ok(uint32_t index);

/* ---- mgr-perm.c: permission checks ---- */
#define MGR_MAY_X 1
#define MGR_MAY_W 2
#define MGR_MAY_R 4
void mgr_perm_squash(struct pvfs_cred *cr);
int mgr_perm_check(const struct pvfs_cred *cr, const struct mgr_inode *in,
    int want);
int mgr_perm_owner(const struct pvfs_cred *cr, const struct mgr_inode *in);
int mgr_perm_in_group(const struct pvfs_cred *cr, uint32_t gid);
int mgr_perm_sticky(const struct pvfs_cred *cr, const struct mgr_inode *dir,
    const struct mgr_inode *in);
int mgr_perm_delete(const struct pvfs_cred *cr, const struct mgr_inode *dir,
    const struct mgr_inode *in);
int mgr_perm_reach(const struct pvfs_cred *cr, const struct mgr_inode *in);
/* The set-id bits a write or truncate by cr clears, as Linux's
 * file_remove_privs: none for root or a non-file. */
uint32_t mgr_perm_kill_bits(const struct pvfs_cred *cr,
    const struct mgr_inode *in);
/* The set-group-ID bit a change by cr clears (setattr_should_drop_sgid):
 * with group execute on, or when cr is neither root nor in the group. */
uint32_t mgr_perm_kill_sgid(const struct pvfs_cred *cr,
    const struct mgr_inode *in);

/* ---- mgr-record.c: the bytes of the metadata directory ---- */
#define MGR_FORMAT 2            /* what this mgr writes */
#define MGR_HDR_LEN 64          /* a format-2 file header */
#define MGR_BATCH_HDR 24        /* a batch's frame */
#define MGR_BATCH_MAX (256u << 20) /* no valid batch is longer */
#define MGR_REC1_MAX 1024       /* no valid format-1 record is longer */

struct mgr_file_hdr {
	int snapshot;           /* which magic: not encoded in the fields */
	uint32_t format, flags;
	uint64_t fsid;
	uint64_t gen;           /* the journal's generation; a snapshot's is
	                         * the generation of the journal it precedes */
	uint64_t salt;          /* random per file: seeds batch frame crcs */
	uint64_t next_ino, root_cookie; /* snapshot only */
	uint32_t pad;
};

/* Records of one group commit (or one snapshot chunk), framed at seal. */
struct mgr_batch {
	struct pvfs_buf buf;
	uint32_t nrec;
};

enum { MGR_SCAN_CLEAN, MGR_SCAN_TORN, MGR_SCAN_CORRUPT };

/* One walk over a file's body.  In: format, salt, fn (called on every
 * record of every valid unit) and salvage (go on past damage).  Out: the
 * rest. */
struct mgr_scan {
	int format;
	uint64_t salt;
	void (*fn)(const struct mgr_rec *r, size_t off, void *arg);
	void *arg;
	int salvage;
	int end;                /* MGR_SCAN_* */
	size_t good_len;        /* bytes of valid units before any damage */
	size_t bad_off;         /* where the damage starts */
	uint64_t units, records; /* valid ones used */
	uint64_t last_seq;
	uint64_t after_units, after_records; /* valid ones after the damage */
	uint64_t lost_bytes, lost_ranges;    /* salvage: skipped */
};

void mgr_record_encode(struct pvfs_buf *b, const struct mgr_rec *r);
int mgr_record_decode(struct pvfs_cur *c, int format, struct mgr_rec *r);
void mgr_record_hdr_encode(struct pvfs_buf *b, const struct mgr_file_hdr *h);
int mgr_record_hdr_decode(const uint8_t *p, size_t len, int snapshot,
    struct mgr_file_hdr *h);
void mgr_batch_add(struct mgr_batch *b, const struct mgr_rec *r);
void mgr_batch_seal(struct mgr_batch *b, uint64_t seq, uint64_t salt);
void mgr_batch_reset(struct mgr_batch *b);
void mgr_scan_run(struct mgr_scan *s, const uint8_t *p, size_t len);
const char *mgr_scan_end_name(int end);

/* ---- mgr-load.c: reading a metadata directory ---- */
struct mgr_load {
	const char *dir;
	uint64_t fsid;          /* in: the directory's file system id */
	int salvage;            /* in: go on past damage, listing losses */
	int online;             /* in: a mgr may be running on dir (backup) */
	const char *action;     /* in: what damage stops ("start" if NULL) */
	FILE *report;           /* in, salvage: where losses are listed */
	int have_snapshot, have_snap_tmp;
	int snap_format;        /* 0 (none), 1 or 2 */
	uint64_t *journals;     /* generations of the journal.N present */
	size_t njournals;
	uint64_t gen;           /* the generation loaded */
	int gen_missing_ok;     /* format 1: journal.gen not made yet */
	int jr_format;          /* of journal.gen: 1 or 2 */
	uint64_t jr_salt, jr_seq; /* format 2: its salt and last batch */
	size_t jr_len, jr_good; /* its bytes, and the valid prefix */
	int jr_torn;            /* a crash's torn tail follows jr_good */
	uint64_t damaged, lost; /* salvage: damage found, changes lost */
	uint64_t snap_next_ino; /* the inode counter before the journal */
	uint64_t *created;      /* salvage: inodes the journal made */
	size_t ncreated;
};
void mgr_load_dir(struct mgr_load *l);
void mgr_load_free(struct mgr_load *l);
int mgr_load_has_state(const char *dir);
int mgr_load_fsid(const char *dir, uint64_t *fsid);
/* Salvage: say which change r was and why it was not kept. */
void mgr_load_report_lost(struct mgr_load *l, const struct mgr_rec *r, int err);

/* ---- mgr-journal.c: durability ---- */
/* Load the snapshot and replay the journal; creates a fresh file system
 * in an empty metadata directory. */
void mgr_journal_open(const char *metadir);
/* Apply a mutation to the name space and append it to the pending batch. */
void mgr_journal_log(const struct mgr_rec *r);
int mgr_journal_pending(void);
/* Write and fdatasync the pending batch, then call the durable hook. */
void mgr_journal_commit(void);
/* Commit once per loop iteration (an ev_prepare watcher); durable() runs
 * after every batch reaches the disk (the mgr releases held replies). */
void mgr_journal_start(struct ev_loop *loop, void (*durable)(void));
void mgr_journal_close(void);
uint64_t mgr_journal_fsid(void);
/* Make dir/journal.<gen> with only its header, durable: its descriptor
 * (append only) and salt; -1 with errno. */
int mgr_journal_create(const char *dir, uint64_t fsid, uint64_t gen, int *fdp,
    uint64_t *saltp);
/* The name space as dir/name, a complete durable snapshot preceding
 * journal generation gen; -1 with errno, nothing left behind. */
int mgr_journal_snapshot(const char *dir, const char *name, uint64_t fsid,
    uint64_t gen, uint64_t *count);
int mgr_journal_sync_path(const char *dir);

/* ---- mgr-backup.c: pvfs-mgr --backup, --restore, --salvage ---- */
enum { MGR_CMD_NONE, MGR_CMD_BACKUP, MGR_CMD_RESTORE, MGR_CMD_SALVAGE };
/* Run one of them from metadir to dest; the exit status. */
int mgr_backup_main(int cmd, const char *metadir, const char *dest);

#endif /* PVFS_MGR_H */
