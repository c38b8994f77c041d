/*
 * pvfs-proto.h - the whole wire protocol between clients, mgr and iods.
 *
 * Every message is a frame: a fixed 24-byte header, then body_len bytes of
 * body encoded field by field (big-endian integers, strings as u16 length +
 * bytes without NUL).  IOD_WRITE requests and IOD_READ replies are followed
 * by a data stream whose length is given in the body.
 *
 * Bump PVFS_PROTO_VERSION on ANY change to a header, an opcode or a body
 * shape below or in pvfs-types.h (the limits and value types the code
 * shares without seeing the wire); peers with another version are refused.
 */
#ifndef PVFS_PROTO_H
#define PVFS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "pvfs-types.h"

#define PVFS_PROTO_MAGIC 0x50564631u /* "PVF1" */
#define PVFS_PROTO_VERSION 10
#define PVFS_HDR_LEN 24
#define PVFS_MAX_BODY (1u << 20) /* cap on a frame body, data streams excluded */

#define PVFS_READDIR_MAX 1024  /* entries in one readdir reply */
/* Entries in one READDIRPLUS reply: at most ~430 bytes each on the wire
 * (name, attributes, capability), so a full reply stays far under
 * PVFS_MAX_BODY (checked in proto-msgs.c). */
#define PVFS_READDIRPLUS_MAX 1024
#define PVFS_MAC_LEN 32
/* Inode numbers one MGR_INOLIST covers: its reply (28 bytes a file) fits
 * in PVFS_MAX_BODY. */
#define PVFS_INOLIST_SPAN 16384
#define PVFS_STRIPELIST_MAX 16384 /* entries in one IOD_LIST reply */
#define PVFS_AUTH_MAX 4096 /* bytes in an AUTH credential */
#define PVFS_DIST_DEFAULT 0xffffffffu /* in a request: use the default */

/* Frame header.  status is 0 in requests; in replies 0 or a positive errno
 * (Linux values), and a reply with status != 0 has an empty body, except
 * PVFS_ST_LINK (below), whose body is a struct pvfs_link_rep. */
struct pvfs_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t op;
	uint32_t reqid;    /* chosen by the requester, echoed in the reply */
	int32_t status;
	uint32_t body_len;
	uint32_t flags;    /* PVFS_HDR_REPLY, else 0 */
};
#define PVFS_HDR_REPLY 0x1u

/* A reply status that is not an errno: the mgr met a symbolic link it
 * does not follow itself (a directory component, or the last one of a
 * request that follows).  The body says where, for the client to build
 * the path again and resend (doc/protocol.md, "Symbolic links"). */
#define PVFS_ST_LINK 4000
struct pvfs_link_rep {
	uint8_t which;     /* 0: the request's (first) path, 1: RENAME's "to" */
	uint32_t consumed; /* bytes of that path up to the end of the link's name */
	char target[PVFS_PATH_MAX + 1]; /* the link's text */
};

/* Opcodes, numbered in ranges by the daemon that serves them. */
enum pvfs_op {
	PVFS_MGR_PING = 0x0100,
	PVFS_MGR_FSINFO,   /* file system id and the ordered iod table */
	PVFS_MGR_OPEN,     /* lookup, create, truncate-permission; returns a capability */
	PVFS_MGR_STAT,     /* by path; lstat with PVFS_PF_NOFOLLOW */
	PVFS_MGR_GETATTR,  /* by inode; also refreshes a capability */
	PVFS_MGR_SETATTR,  /* chmod, chown, utimes, by path or inode */
	PVFS_MGR_TRUNCATE, /* permission + ctime/mtime; the client then truncates the iods */
	PVFS_MGR_UNLINK,
	PVFS_MGR_MKDIR,
	PVFS_MGR_RMDIR,
	PVFS_MGR_RENAME,
	PVFS_MGR_READDIR,
	PVFS_MGR_ACCESS,
	PVFS_MGR_STATFS,
	PVFS_MGR_INOLIST,  /* fsck: live file inodes in a range; admins only */
	PVFS_MGR_AUTH,     /* authenticate this TCP connection (doc/security.md) */
	PVFS_MGR_IODSTATUS, /* the mgr's view of each iod, from its HELLOs */
	PVFS_MGR_READDIRPLUS, /* READDIR with each entry's attributes and a SIZE capability */
	PVFS_MGR_COUNTERS, /* the daemon's counters (pvfs-counters) */
	PVFS_MGR_MKNOD,    /* a FIFO, socket or device node (no data on the iods) */
	PVFS_MGR_MODIFIED, /* a writer's report: set-id bits cleared, truncate's times */
	PVFS_MGR_SYMLINK,  /* make a symbolic link */
	PVFS_MGR_READLINK, /* a symbolic link's text */
	PVFS_MGR_LINK,     /* a hard link: from (existing) to (new); rename_req */
	PVFS_MGR_LEASE,    /* take or drop an open file's lease (open-unlinked files) */
	PVFS_MGR_DIRTY,    /* a writer's report: copies of a mirrored file missed a write */
	PVFS_MGR_RESYNC,   /* pvfs-resync: jobs, rebuild, degraded files (admins) */
	PVFS_MGR_SIZE,     /* a client's report of a file's size from its iods */
	PVFS_MGR_CALLBACK, /* a client's cache: register, wait for invalidations, ack */
	PVFS_MGR_OP_END,

	PVFS_IOD_PING = 0x0200,
	PVFS_IOD_READ,     /* reply is followed by the stream */
	PVFS_IOD_WRITE,    /* request is followed by the stream */
	PVFS_IOD_TRUNCATE,
	PVFS_IOD_REMOVE,
	PVFS_IOD_FSYNC,
	PVFS_IOD_SIZE,
	PVFS_IOD_STATFS,
	PVFS_IOD_READ_LIST,  /* READ of a list of patterns; reply as READ */
	PVFS_IOD_WRITE_LIST, /* WRITE of a list of patterns; reply as WRITE */
	PVFS_IOD_LIST,     /* fsck: the stripe files of one subdirectory (ADMIN) */
	PVFS_IOD_PURGE,    /* fsck: remove an orphan's stripe file (ADMIN) */
	PVFS_IOD_HELLO,    /* mgr -> iod: label check and the mgr's clock */
	PVFS_IOD_SIZE_LIST, /* IOD_SIZE of many files at once (readdir-plus) */
	PVFS_IOD_COUNTERS, /* the daemon's counters (pvfs-counters) */
	PVFS_IOD_STALE,    /* mgr -> iod: which of its copies are stale (MIRROR) */
	PVFS_IOD_OP_END,
};

/* Open flags on the wire (independent of the host's O_* values). */
#define PVFS_OF_ACCMODE 0x3u
#define PVFS_OF_RDONLY 0x0u
#define PVFS_OF_WRONLY 0x1u
#define PVFS_OF_RDWR 0x2u
#define PVFS_OF_CREAT 0x100u
#define PVFS_OF_EXCL 0x200u
#define PVFS_OF_TRUNC 0x400u
#define PVFS_OF_DIRECTORY 0x800u
#define PVFS_OF_NOFOLLOW 0x1000u
#define PVFS_OF_ALL 0x1f03u

/* Path request flags (STAT, READLINK, SETATTR by path). */
#define PVFS_PF_NOFOLLOW 0x1u /* a last component that is a link is the answer */
#define PVFS_PF_ALL 0x1u

/* Capability rights. */
#define PVFS_R_READ 0x1u
#define PVFS_R_WRITE 0x2u
#define PVFS_R_SIZE 0x4u   /* size query and fsync only */
#define PVFS_R_REMOVE 0x8u
#define PVFS_R_ALL 0xfu
/* fsck's IOD_LIST/IOD_PURGE, in a capability for inode 0 that only
 * MGR_INOLIST mints (for admins); outside PVFS_R_ALL so that GETATTR can
 * never grant it. */
#define PVFS_R_ADMIN 0x10u
/* The mgr's IOD_STALE (inode 0), and a resync's IOD_WRITE flagged
 * PVFS_WF_RESYNC: minted only by the mgr for itself and for pvfs-resync
 * (MGR_RESYNC, admins), never by GETATTR. */
#define PVFS_R_MIRROR 0x20u
#define PVFS_R_RESYNC 0x40u

/* SETATTR mask bits. */
#define PVFS_SA_MODE 0x1u
#define PVFS_SA_UID 0x2u
#define PVFS_SA_GID 0x4u
#define PVFS_SA_ATIME 0x8u      /* set atime to atime_ns */
#define PVFS_SA_MTIME 0x10u     /* set mtime to mtime_ns */
#define PVFS_SA_ATIME_NOW 0x20u
#define PVFS_SA_MTIME_NOW 0x40u
/* A chown (even to -1, -1): ctime, and set-id bits cleared as Linux's
 * chown clears them. */
#define PVFS_SA_CHOWN 0x80u
/* A directory's default copies for new files (copies; 0 = none): owner
 * or root, directories only (version 9). */
#define PVFS_SA_COPIES 0x100u
#define PVFS_SA_ALL 0x1ffu

struct pvfs_attr {
	uint64_t ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t size; /* directories: entry count; files: 0 (size lives on the iods) */
	int64_t atime_ns, mtime_ns, ctime_ns;
	/* When the mgr last set mtime (create, truncate, utimes): stripe files
	 * modified after this moment carry the file's real mtime. */
	int64_t mtime_set_ns;
	struct pvfs_dist dist; /* zero for directories */
	uint64_t rdev; /* device nodes: Linux's encoding of major, minor; else 0 */
	/* Regular files (doc/design.md, "Size at the mgr"): with
	 * PVFS_SIZE_EXACT, size and blocks are the file's, and mtime_ns and
	 * ctime_ns include its data's mtime: no iod need be asked.  With
	 * PVFS_SIZE_ASK the mgr takes a MGR_SIZE report naming size_epoch. */
	uint32_t size_flags;
	uint64_t blocks;
	uint64_t size_epoch;
};
#define PVFS_SIZE_EXACT 0x1u
#define PVFS_SIZE_ASK   0x2u

/* Issued by the mgr, verified by each iod: mac = HMAC-SHA256(secret, all
 * fields before mac, encoded as on the wire).  (ino, gen) is the file's
 * identity on the iods: gen is drawn at random when the mgr creates the
 * file, 0 only for files older than identities, and its stripe files are
 * named by both (doc/design.md), so a file never sees stripes left by an
 * earlier file that had its inode number. */
struct pvfs_cap {
	uint64_t fsid, ino, gen;
	uint32_t rights;
	int64_t expiry; /* seconds since the epoch, mgr clock */
	struct pvfs_dist dist;
	uint8_t mac[PVFS_MAC_LEN];
};

/* Bodies that carry nothing. */
struct pvfs_none {
	uint8_t unused;
};

struct pvfs_dirent_wire {
	uint64_t ino;
	uint64_t cookie; /* pass back to resume after this entry */
	uint8_t type;    /* DT_REG or DT_DIR */
	char name[PVFS_NAME_MAX + 1];
};

/* ---- mgr requests and replies ---- */
/* CALLBACK (version 10; doc/protocol.md, "Cache promises"): on a
 * connection of its own.  token 0 registers: the reply carries a new
 * token (random) at once.  Otherwise the request acknowledges every
 * invalidation up to ack and waits: the reply comes when the mgr has an
 * invalidation newer than ack (seq), and the client then forgets every
 * answer it cached with that token before it sends the next CALLBACK.
 * term_ms: the longest promise the mgr grants. */
struct pvfs_mgr_callback_req {
	struct pvfs_cred cred;
	uint64_t token, ack;
};
struct pvfs_mgr_callback_rep {
	uint64_t token, seq;
	uint32_t term_ms;
};
struct pvfs_mgr_cred_req { /* FSINFO, STATFS */
	struct pvfs_cred cred;
};
/* How the mgr treats the requests of the connection a PING came on
 * (version 8): the tools say so when it is not who the user thinks. */
enum pvfs_ping_auth {
	PVFS_PING_AUTH_PEER = 1,  /* the kernel's word (Unix socket) */
	PVFS_PING_AUTH_MUNGE,     /* a MUNGE credential */
	PVFS_PING_AUTH_NOBODY,    /* unauthenticated TCP: acts as nobody */
	PVFS_PING_AUTH_REFUSED,   /* unauthenticated TCP: refused */
	PVFS_PING_AUTH_TRUSTED,   /* unauthenticated TCP: claims believed */
};
struct pvfs_mgr_ping_rep {
	uint32_t version;
	uint64_t fsid;
	uint64_t uptime_s;
	uint8_t auth;             /* enum pvfs_ping_auth */
};
struct pvfs_mgr_fsinfo_rep {
	uint64_t fsid;
	uint32_t default_ssize;
	uint32_t niods;
	struct pvfs_iod_addr *iods; /* niods entries; freed by pvfs_msg_free */
};
struct pvfs_mgr_open_req {
	struct pvfs_cred cred;
	uint32_t flags; /* PVFS_OF_* */
	uint32_t mode;  /* permission bits for a created file */
	struct pvfs_dist dist; /* fields may be PVFS_DIST_DEFAULT */
	char path[PVFS_PATH_MAX + 1];
};
struct pvfs_mgr_path_req { /* STAT, UNLINK, RMDIR, READLINK */
	struct pvfs_cred cred;
	uint32_t flags; /* PVFS_PF_*: STAT only (READLINK never follows) */
	char path[PVFS_PATH_MAX + 1];
	/* STAT (version 10): the token of this client's CALLBACK connection
	 * to ask for a cache promise on the answer; 0: none. */
	uint64_t cb_token;
};
struct pvfs_mgr_getattr_req {
	struct pvfs_cred cred;
	uint64_t ino;
	uint32_t rights; /* rights wanted in the capability (checked); 0 = SIZE */
};
struct pvfs_mgr_setattr_req {
	struct pvfs_cred cred;
	uint64_t ino; /* 0: use path */
	uint32_t mask, mode, uid, gid;
	int64_t atime_ns, mtime_ns;
	uint32_t flags; /* PVFS_PF_*, by path */
	uint32_t copies; /* PVFS_SA_COPIES */
	char path[PVFS_PATH_MAX + 1];
};
struct pvfs_mgr_truncate_req {
	struct pvfs_cred cred;
	uint64_t length;
	char path[PVFS_PATH_MAX + 1];
};
struct pvfs_mgr_mode_req { /* MKDIR (mode), ACCESS (R_OK|W_OK|X_OK) */
	struct pvfs_cred cred;
	uint32_t mode;
	char path[PVFS_PATH_MAX + 1];
};
/* MKNOD: mode holds the type (S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK, as
 * Linux numbers them) and the permission bits; rdev the device number of
 * a device node (Linux's encoding, 0 for the others).  Device nodes need
 * uid 0.  Reply: the new node's attributes. */
struct pvfs_mgr_mknod_req {
	struct pvfs_cred cred;
	uint32_t mode;
	uint64_t rdev;
	char path[PVFS_PATH_MAX + 1];
};
/* MODIFIED: a client with a WRITE capability for the file wrote to it or
 * truncated it (data that never passes the mgr).  The mgr clears set-id
 * bits as Linux's file_remove_privs does for cred (not for uid 0), and
 * with PVFS_MOD_TRUNCATE sets mtime and ctime to now.  The capability,
 * not the mode, is the permission: a descriptor open for writing may
 * write whatever the mode says now.  Reply: the new attributes. */
#define PVFS_MOD_TRUNCATE 0x1u
#define PVFS_MOD_ALL 0x1u
struct pvfs_mgr_modified_req {
	struct pvfs_cred cred;
	struct pvfs_cap cap;
	uint32_t flags; /* PVFS_MOD_* */
};
struct pvfs_mgr_rename_req {
	struct pvfs_cred cred;
	char from[PVFS_PATH_MAX + 1];
	char to[PVFS_PATH_MAX + 1];
};
/* LEASE: the connection holds (hold = 1) or no longer holds (0) the file
 * open, once per open; 2 drops it as a lost connection does, with a
 * grace (a process that forked: the child takes its own).  While a lease is held, the file outlives its last
 * name (an orphan: GETATTR by inode still answers, with nlink 0) and its
 * stripes stay; after the last lease the mgr removes them itself.  A
 * dropped connection loses its leases; the client takes them again on a
 * new one (doc/design.md: open-unlinked files).  ENOENT or ESTALE (gen is
 * not the file's): the file is gone. */
struct pvfs_mgr_lease_req {
	struct pvfs_cred cred;
	uint64_t ino, gen;
	uint32_t hold;
	uint32_t flags; /* PVFS_LEASE_* */
};
#define PVFS_LEASE_WRITE 0x1u /* the open may write */
#define PVFS_LEASE_CLEAN 0x2u /* drop: and it changed nothing */
/* MGR_SIZE: the size, blocks and data mtime read from the iods after a
 * reply with PVFS_SIZE_ASK and size_epoch; cap: SIZE for the file. */
struct pvfs_mgr_size_req {
	struct pvfs_cred cred;
	struct pvfs_cap cap;
	uint64_t epoch, size, blocks;
	int64_t mtime_ns;
};
struct pvfs_mgr_readdir_req {
	struct pvfs_cred cred;
	uint64_t ino;    /* the directory */
	uint64_t cookie; /* 0 = from the start */
	uint32_t max;    /* at most this many entries (<= PVFS_READDIR_MAX) */
};
/* OPEN, STAT, GETATTR, TRUNCATE, UNLINK, RENAME, MKDIR, SETATTR, LINK.
 * UNLINK and RENAME no longer carry PVFS_R_REMOVE: the mgr removes the
 * stripes of a file whose last name went itself (doc/protocol.md). */
struct pvfs_mgr_attrcap_rep {
	struct pvfs_attr attr;
	struct pvfs_cap cap;
	/* OPEN: the file was created by this request (version 8): it has
	 * no stripes anywhere yet, so O_TRUNC needs no iod. */
	uint8_t created;
	/* STAT with a cb_token (version 10): the promise's term in ms (the
	 * answer may be cached that long unless invalidated); 0: none. */
	uint32_t cache_ms;
};
struct pvfs_mgr_readdir_rep {
	uint8_t eof;
	uint32_t n;
	struct pvfs_dirent_wire *ents; /* n entries; freed by pvfs_msg_free */
};
/* READDIRPLUS (request as READDIR, max <= PVFS_READDIRPLUS_MAX): each
 * entry also carries what STAT (NOFOLLOW) of its path would answer,
 * attributes and a PVFS_R_SIZE capability, so a tree walk needs no mgr
 * request per file.
 * The directory must be readable and searchable. */
struct pvfs_direntplus_wire {
	struct pvfs_dirent_wire ent;
	struct pvfs_attr attr;
	struct pvfs_cap cap;
};
struct pvfs_mgr_readdirplus_rep {
	uint8_t eof;
	uint32_t n;
	struct pvfs_direntplus_wire *ents; /* n entries; freed by pvfs_msg_free */
};
/* SYMLINK: path names the new link, target its text (1 to
 * PVFS_PATH_MAX - 1 bytes); reply attrcap.  READLINK: path_req; reply
 * the text. */
struct pvfs_mgr_symlink_req {
	struct pvfs_cred cred;
	char target[PVFS_PATH_MAX + 1];
	char path[PVFS_PATH_MAX + 1];
};
struct pvfs_mgr_readlink_rep {
	char target[PVFS_PATH_MAX + 1];
};
struct pvfs_mgr_statfs_rep {
	uint64_t files, ffree;
	uint32_t namemax;
};

/* INOLIST: the regular files among inodes first .. first+count-1
 * (count <= PVFS_INOLIST_SPAN), with their identity and distribution, for
 * callers with uid 0 or the mgr's own uid.  A stripe file listed on an
 * iod before this reply whose (ino, gen) is not among the reply's files
 * belongs to no file: its file had been created before it was listed, and
 * is gone (or never was, after a metadata rollback).  next_ino is the
 * mgr's inode counter, for information only. */
struct pvfs_mgr_inolist_req {
	struct pvfs_cred cred;
	uint64_t first;
	uint32_t count;
};
struct pvfs_ino_wire {
	uint64_t ino, gen;
	struct pvfs_dist dist;
};
struct pvfs_mgr_inolist_rep {
	uint64_t next_ino;
	struct pvfs_cap cap; /* PVFS_R_ADMIN, inode 0: for IOD_LIST/IOD_PURGE */
	uint32_t n;
	struct pvfs_ino_wire *inos; /* n entries, ascending; freed by pvfs_msg_free */
};

/* AUTH: the first request on a TCP connection of a client configured
 * for MUNGE.  On success the connection acts for the credential's uid and
 * gid (groups from the mgr's NSS) and the reply says which; a bad,
 * expired or replayed credential gets EACCES and leaves the connection
 * as it was. */
struct pvfs_mgr_auth_req {
	uint32_t method; /* PVFS_AUTH_* (pvfs-types.h) */
	char cred[PVFS_AUTH_MAX + 1];
};
struct pvfs_mgr_auth_rep {
	uint32_t uid, gid;
};

/* IODSTATUS: what the mgr learnt from its last HELLO to each iod of its
 * table (cred only in the request; anyone may ask). */
enum pvfs_iodst {
	PVFS_IODST_PENDING,     /* no answer yet since the mgr started */
	PVFS_IODST_OK,          /* key, label and protocol agree */
	PVFS_IODST_UNREACHABLE, /* connect, send or receive failed (why) */
	PVFS_IODST_KEY,         /* the iod's key differs from the mgr's */
	PVFS_IODST_LABEL,       /* the data directory's label does not match */
	PVFS_IODST_PROTO,       /* the iod answered with an error or garbage */
};
#define PVFS_UUID_HEX 32 /* a data directory's unique id: 32 hex digits */
struct pvfs_iodstat_wire {
	uint32_t index;
	char host[PVFS_HOST_MAX + 1];
	uint16_t port;
	uint32_t state;       /* PVFS_IODST_* */
	uint64_t fsid;        /* the label found (0 if never heard) ... */
	uint32_t label_index; /* ... its index ... */
	char uuid[PVFS_UUID_HEX + 1]; /* ... and its unique id */
	int64_t skew_ms;      /* iod clock - mgr clock; valid once heard */
	uint32_t rtt_us;      /* round trip of the last HELLO */
	uint32_t age_s;       /* seconds since the last answer; ~0u: never */
	char why[128];        /* the last failure, "" if none */
};
struct pvfs_mgr_iodstatus_rep {
	uint32_t n;
	struct pvfs_iodstat_wire *iods; /* freed by pvfs_msg_free */
};

/* DIRTY: copies of a mirrored file missed bytes of a write that other
 * copies took (their iod was unreachable).  cap: the file's WRITE
 * capability.  Each entry names a copy and a range of its stripe file
 * (local offsets; length 0: its size may differ, after a truncate, and
 * the whole copy is then stale).  The mgr journals them and replies only
 * once every copy named is fenced (doc/design.md, "Mirrored files"): a
 * client's write returns after that reply, or fails with EIO. */
#define PVFS_DIRTY_MAX 256
struct pvfs_dirty_wire {
	uint32_t rel, copy;
	uint64_t offset, length;
};
struct pvfs_mgr_dirty_req {
	struct pvfs_cred cred;
	struct pvfs_cap cap;
	uint32_t n;
	struct pvfs_dirty_wire *ents; /* freed by pvfs_msg_free */
};
/* RESYNC (uid 0 or the mgr's uid): what = NEXT asks for a job: a stale
 * copy (ino, gen, rel, copy) and a fresh copy of the same rel to read
 * from, the ranges (whole: every byte; size: its size may differ),
 * and a capability with READ, WRITE, SIZE and RESYNC; ino 0: no job now
 * (wait_ms: ask again after).  DONE reports a job finished (bytes
 * copied) from the dirty generation it was given; FAILED one that could
 * not be (the copy stays stale).  REBUILD marks every copy on iod index
 * stale and lists in stale[] (copy ~0u) the unmirrored files that had
 * a stripe there (lost).  LIST: the stale copies after inode after.
 * STATUS: the counts only. */
enum pvfs_resync_what {
	PVFS_RESYNC_NEXT = 1,
	PVFS_RESYNC_DONE,
	PVFS_RESYNC_FAILED,
	PVFS_RESYNC_REBUILD,
	PVFS_RESYNC_LIST,
	PVFS_RESYNC_STATUS,
};
#define PVFS_RESYNC_EXT_MAX 256  /* ranges of one job */
#define PVFS_RESYNC_LIST_MAX 1024 /* stale copies in one LIST reply */
#define PVFS_RESYNC_WHOLE 0x1u
#define PVFS_RESYNC_SIZE 0x2u
/* NEXT (version 10): the source is stale too, though not where this copy
 * is (its misses all came before this copy's): a copy stale by ranges
 * grows only to the end of its last range, not to the source's size. */
#define PVFS_RESYNC_STALE_FROM 0x4u
struct pvfs_mgr_resync_req {
	struct pvfs_cred cred;
	uint32_t what;   /* PVFS_RESYNC_* */
	uint64_t ino, gen;
	uint32_t rel, copy;
	uint64_t dgen;   /* DONE, FAILED: the job's */
	uint64_t bytes;  /* DONE: copied */
	uint32_t index;  /* REBUILD: the iod */
	uint64_t after;  /* LIST: resume after this inode */
};
struct pvfs_extent {
	uint64_t offset, length;
};
struct pvfs_stale_wire {
	uint64_t ino, gen;
	uint32_t rel, copy, iod;
	uint64_t bytes;  /* left to copy (0 with whole: unknown) */
	uint32_t flags;  /* PVFS_RESYNC_WHOLE, _SIZE */
};
struct pvfs_mgr_resync_rep {
	/* NEXT: the job */
	uint64_t ino, gen;
	uint32_t rel, copy, from; /* from: the fresh copy */
	uint64_t dgen;
	uint32_t flags;           /* PVFS_RESYNC_WHOLE, _SIZE */
	uint32_t wait_ms;
	struct pvfs_cap cap;
	uint32_t next;
	struct pvfs_extent *exts; /* freed by pvfs_msg_free */
	/* every answer: the state */
	uint64_t degraded;        /* files with a stale copy */
	uint64_t stale;           /* stale copies */
	uint64_t bytes_left;      /* their known ranges */
	uint64_t jobs, bytes_done, dirty_reports; /* since the mgr started */
	uint8_t eof;              /* LIST: nothing after the last entry */
	uint32_t n;
	struct pvfs_stale_wire *list; /* LIST, REBUILD; freed by pvfs_msg_free */
};

/* ---- iod requests and replies ---- */
struct pvfs_iod_read_req {
	struct pvfs_cap cap;
	uint32_t rel; /* this iod's position in the file: (index - base) mod niods */
	/* Which copy of rel (below cap.dist.copies; version 9): copy k > 0
	 * is the stripe file INO.GEN.cK (doc/design.md, "Mirrored files"). */
	uint32_t copy;
	struct pvfs_pattern pat;
};
/* The stream holds, in logical order, the first stream_len bytes of this
 * iod's share of the pattern; the rest of the share lies past the iod's
 * local end of file and reads as zeros. */
struct pvfs_iod_read_rep {
	uint64_t logical_end; /* 1 + highest logical offset this iod holds, 0 if none */
	uint64_t stream_len;
};
struct pvfs_iod_write_req {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
	struct pvfs_pattern pat;
	uint64_t stream_len; /* must equal this iod's share of pat */
};
struct pvfs_iod_write_rep {
	uint64_t written;
};
/* A noncontiguous access: nseg patterns ("segments") in increasing file
 * order, none overlapping the next (each starts at or after the previous
 * one's last byte + 1); the stream is their bytes in that order.  A
 * region list is segments of count 1; a partitioned read crossing groups
 * is at most three (head, whole groups, tail).  1 <= nseg <= PVFS_LIST_MAX,
 * checked by the codec before the array is allocated; the segments are
 * checked as a whole by pvfs_list_check.  A client sends each iod only
 * the segments holding some of its bytes. */
struct pvfs_iod_read_list_req {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
	uint32_t nseg;
	struct pvfs_pattern *seg; /* nseg entries; freed by pvfs_msg_free */
};
struct pvfs_iod_write_list_req {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
	uint32_t nseg;
	struct pvfs_pattern *seg;
	uint64_t stream_len; /* must equal this iod's share of the segments */
};
struct pvfs_iod_truncate_req {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
	uint64_t length; /* logical length */
};
struct pvfs_iod_cap_req { /* REMOVE */
	struct pvfs_cap cap;
};
struct pvfs_iod_fsync_req {
	struct pvfs_cap cap;
	uint8_t datasync;
};
struct pvfs_iod_size_req {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
};
struct pvfs_iod_size_rep {
	uint64_t local_size, logical_end;
	int64_t mtime_ns;
	uint64_t blocks; /* 512-byte blocks allocated */
};
/* MGR_COUNTERS and IOD_COUNTERS (no request body): what the daemon has
 * counted since it started.  One entry per opcode it has served, with
 * latencies from the request's arrival to its reply (an iod: to the end
 * of a READ's stream); PVFS_OPSTAT_EXTRA is the mgr's journal commits
 * (from a batch's first record to its fsync's end). */
#define PVFS_OPSTAT_EXTRA 0x01ff
#define PVFS_OPSTAT_MAX 64
struct pvfs_opstat_wire {
	uint16_t op;
	uint64_t count, errors;
	uint64_t p50_us, p90_us, p99_us, max_us;
	uint64_t sum_us;
};
struct pvfs_counters_rep {
	uint64_t uptime_ms;
	uint64_t conns_total, conns_open;
	uint64_t bytes_in, bytes_out;
	uint32_t n;
	struct pvfs_opstat_wire *ops; /* freed by pvfs_msg_free */
};

/* SIZE_LIST: IOD_SIZE for up to PVFS_SIZELIST_MAX (cap, rel) pairs, each
 * checked on its own; the reply has one item per pair, in order, with its
 * own status (a refused capability fails its item, not the request). */
#define PVFS_SIZELIST_MAX PVFS_READDIRPLUS_MAX
struct pvfs_iod_size_ent {
	struct pvfs_cap cap;
	uint32_t rel;
	uint32_t copy;
};
struct pvfs_iod_size_list_req {
	uint32_t n;
	struct pvfs_iod_size_ent *ents; /* freed by pvfs_msg_free */
};
struct pvfs_iod_size_item {
	uint32_t status; /* 0 or a positive errno */
	struct pvfs_iod_size_rep size;
};
struct pvfs_iod_size_list_rep {
	uint32_t n;
	struct pvfs_iod_size_item *items; /* freed by pvfs_msg_free */
};
/* host and dev name the host file system that holds the data directory:
 * iods with equal (host, dev) share one disk, which pvfs-df counts once.
 * used, apparent and nstripes are what this iod holds for files: the sum
 * of its stripe files' allocated bytes (st_blocks * 512) and lengths, and
 * their number, from a scan of the data directory at most
 * PVFS_IOD_USAGE_TTL seconds old. */
struct pvfs_iod_statfs_rep {
	uint64_t bsize;                /* the data file system's f_bsize */
	uint64_t blocks, bfree, bavail; /* in bytes, not blocks */
	uint64_t files, ffree;
	uint64_t host;                 /* the iod's host (machine-id), 0 if unknown */
	uint64_t dev;                  /* st_dev of the data directory */
	uint64_t used, apparent, nstripes;
};
#define PVFS_IOD_USAGE_TTL 1
/* LIST: stripe files of subdirectory sub (an inode's low byte) that come
 * after (after, after_gen, after_copy), ascending by (ino, gen, copy), at
 * most max (<= PVFS_STRIPELIST_MAX); names that are not a stripe file of
 * that subdirectory ("INO" for gen 0, "INO.<gen as 16 lowercase hex
 * digits>" otherwise, then ".cK" for copy K > 0) are skipped.  Start from
 * (0, 0, 0); resume from the last entry. */
struct pvfs_iod_list_req {
	struct pvfs_cap cap; /* PVFS_R_ADMIN */
	uint32_t sub;
	uint64_t after, after_gen;
	uint32_t after_copy;
	uint32_t max;
};
struct pvfs_stripe_ent {
	uint64_t ino, gen;
	uint32_t copy; /* 0: INO.GEN, k: INO.GEN.cK */
	uint64_t size; /* bytes of the stripe file */
};
struct pvfs_iod_list_rep {
	uint8_t eof; /* no stripe file of sub above the last entry */
	uint32_t n;
	struct pvfs_stripe_ent *ents; /* freed by pvfs_msg_free */
};
struct pvfs_iod_purge_req {
	struct pvfs_cap cap; /* PVFS_R_ADMIN */
	uint64_t ino, gen;   /* the stripe file to remove */
	uint32_t copy;
};
struct pvfs_iod_ping_rep {
	uint32_t version;
	uint64_t uptime_s;
};
/* HELLO: sent by the mgr to every iod of its table at its start and then
 * periodically.  mac = HMAC-SHA256(key, "pvfs-hello" + the fields before
 * mac, as on the wire): a client cannot forge the mgr's clock.  An iod
 * whose key verifies the mac adopts the clock (for capability expiry) and
 * compares (fsid, index) with its label; on a mismatch it stops serving
 * data until a HELLO matches (doc/protocol.md). */
struct pvfs_iod_hello_req {
	uint64_t fsid;   /* the mgr's file system */
	uint32_t index;  /* the iod's position in the mgr's table */
	int64_t mgr_ns;  /* the mgr's CLOCK_REALTIME when sent */
	int64_t rtt_ns;  /* round trip of the previous HELLO, 0 if none */
	uint64_t nonce;  /* random; the reply's mac covers it */
	/* Mirror lease (version 9): granted for lease_ms from receipt, and
	 * never past mgr_ns + lease_ms on the mgr's clock as the iod knows it,
	 * if the iod holds stale set version stale_version (IOD_STALE). */
	uint32_t lease_ms;
	uint64_t stale_version;
	uint8_t mac[PVFS_MAC_LEN];
};
#define PVFS_HELLO_KEY_OK 0x1u   /* the request's mac verified */
#define PVFS_HELLO_LABEL_OK 0x2u /* the label matches fsid and index */
#define PVFS_HELLO_LEASE 0x4u    /* the mirror lease was granted */
/* The iod's host stopped uncleanly with mirrored copies unsynced: the mgr
 * marks its copies stale before it sends the set (iod-intent.c). */
#define PVFS_HELLO_UNCLEAN 0x8u
/* mac = HMAC-SHA256(key, "pvfs-hello-reply" + the request's nonce + the
 * fields before mac): the mgr learns whether the iod's key is its own. */
struct pvfs_iod_hello_rep {
	uint64_t fsid;   /* the data directory's label */
	uint32_t index;
	char uuid[PVFS_UUID_HEX + 1];
	int64_t iod_ns;  /* the iod's CLOCK_REALTIME when it replied */
	uint32_t flags;  /* PVFS_HELLO_* */
	uint64_t stale_version; /* of the stale set it holds (0: none) */
	uint8_t mac[PVFS_MAC_LEN];
};

/* STALE: mgr -> iod, over the mgr's HELLO connection, cap a PVFS_R_MIRROR
 * capability for inode 0.  With PVFS_STALE_SET the entries of this and
 * the following messages (base 0) up to one with PVFS_STALE_END are the
 * iod's whole stale set (copies it kept that are not listed are fresh).
 * A message with base != 0 (never with SET or END) is a change (version
 * 10): it marks its entries stale, or fresh with PVFS_STALE_CLEAR, and
 * applies only to an iod that holds set version base, whole (else
 * ESTALE, nothing changes), which keeps its lease meanwhile.  version: the mgr's version of the iod's set after
 * this message; a HELLO grants the mirror lease only to an iod that holds
 * the version it names.  An iod serves no read of a mirrored file's copy
 * without the lease or that is stale (ENODATA), and keeps the ranges
 * clients wrote to a stale copy, which a resync's writes leave alone. */
#define PVFS_STALE_SET 0x1u
#define PVFS_STALE_END 0x2u
#define PVFS_STALE_CLEAR 0x4u
#define PVFS_STALE_MAX 4096
struct pvfs_stale_ent {
	uint64_t ino, gen;
	uint32_t rel, copy;
};
struct pvfs_iod_stale_req {
	struct pvfs_cap cap;
	uint64_t version;
	uint64_t base;   /* a change: the version it applies to (else 0) */
	uint32_t flags;
	uint32_t n;
	struct pvfs_stale_ent *ents; /* freed by pvfs_msg_free */
};

/* ---- codec (proto-codec.c, proto-msgs.c) ---- */
struct pvfs_buf;

/* Encode a header into 24 bytes. */
void pvfs_hdr_encode(const struct pvfs_hdr *h, uint8_t out[PVFS_HDR_LEN]);
/* Decode and check magic, version and body_len.  0, or -EPROTO / -EMSGSIZE. */
int pvfs_hdr_decode(const uint8_t in[PVFS_HDR_LEN], struct pvfs_hdr *h);
/* Size of the C struct for op's request or reply; 0 if op is unknown. */
size_t pvfs_msg_size(uint16_t op, int reply);
/* Append a whole frame (header + body of msg) to out.  0 or -ENOMEM/-EINVAL.
 * A reply with status PVFS_ST_LINK carries msg as a struct pvfs_link_rep,
 * any other non-zero status no body. */
int pvfs_frame_encode(struct pvfs_buf *out, uint16_t op, uint32_t reqid,
    int reply, int32_t status, const void *msg);
/* Decode a body into msg (a struct of pvfs_msg_size bytes, zeroed first).
 * The body must have exactly the op's shape.  0 or -EPROTO; on failure
 * nothing stays allocated. */
int pvfs_msg_decode(uint16_t op, int reply, const uint8_t *body, size_t len,
    void *msg);
/* The body of a PVFS_ST_LINK reply; 0 or -EPROTO. */
int pvfs_link_decode(const uint8_t *body, size_t len, struct pvfs_link_rep *l);
/* Free what pvfs_msg_decode allocated inside msg (arrays). */
void pvfs_msg_free(uint16_t op, int reply, void *msg);
const char *pvfs_op_name(uint16_t op);

/* Capabilities (cap.c). */
void pvfs_cap_sign(struct pvfs_cap *cap, const uint8_t *key, size_t keylen);
/* need_rights 0 means any right.  0, -EACCES (forged, no rights at all, or
 * missing a needed right), or -EKEYEXPIRED. */
int pvfs_cap_verify(const struct pvfs_cap *cap, const uint8_t *key,
    size_t keylen, uint32_t need_rights, int64_t now);
/* Why a capability was refused (pvfs_cap_check's *why). */
enum { PVFS_CAP_OK, PVFS_CAP_BAD_MAC, PVFS_CAP_EXPIRED, PVFS_CAP_OTHER_FS,
	PVFS_CAP_OTHER_INODE, PVFS_CAP_NO_RIGHT, PVFS_CAP_NREASONS };
/* pvfs_cap_verify that also checks fsid (0: any) and says why it
 * refused in *why (PVFS_CAP_*). */
int pvfs_cap_check(const struct pvfs_cap *cap, const uint8_t *key,
    size_t keylen, uint32_t need_rights, int64_t now, uint64_t fsid, int *why);
/* A reason as text, for the logs. */
const char *pvfs_cap_why(int why);
/* The last capabilities whose MAC checked out under one key (a daemon's,
 * which never changes): every request of an open file carries the same
 * one, and its HMAC is most of a small request's CPU at an iod. */
#define PVFS_CAP_MEMO 16
struct pvfs_cap_memo {
	uint8_t ent[PVFS_CAP_MEMO][48 + PVFS_MAC_LEN]; /* signed bytes, mac */
	unsigned n, next;
};
/* pvfs_cap_check, with the MAC looked up in m first (same answers). */
int pvfs_cap_check_memo(struct pvfs_cap_memo *m, const struct pvfs_cap *cap,
    const uint8_t *key, size_t keylen, uint32_t need_rights, int64_t now,
    uint64_t fsid, int *why);

/* HELLO macs (hello.c). */
void pvfs_hello_req_mac(const struct pvfs_iod_hello_req *r, const uint8_t *key,
    size_t keylen, uint8_t mac[PVFS_MAC_LEN]);
void pvfs_hello_rep_mac(const struct pvfs_iod_hello_rep *r, uint64_t nonce,
    const uint8_t *key, size_t keylen, uint8_t mac[PVFS_MAC_LEN]);

#endif /* PVFS_PROTO_H */
