/*
 * pvfs-types.h - the limits and value types that the wire protocol shares
 * with the code on either side of it: a credential, a distribution, an
 * access pattern, an iod's address.  The messages that carry them, the
 * opcodes and the codec are in pvfs-proto.h, which only libpvfs, the
 * daemons and the codec include.
 *
 * These shapes are part of the protocol: bump PVFS_PROTO_VERSION on any
 * change (pvfs-proto.h).
 */
#ifndef PVFS_TYPES_H
#define PVFS_TYPES_H

#include <stdint.h>

#define PVFS_PATH_MAX 4096 /* bytes in a path, NUL excluded */
#define PVFS_NAME_MAX 255  /* bytes in one path component */
#define PVFS_HOST_MAX 255
#define PVFS_MAX_GROUPS 32
#define PVFS_MAX_IODS 1024
#define PVFS_PATTERN_MAX_COUNT (1u << 24) /* blocks in one pattern */
#define PVFS_LIST_MAX 16384 /* segments in one READ_LIST/WRITE_LIST (512 KiB) */
/* Steps of share computation one READ_LIST/WRITE_LIST may cost an iod
 * (pvfs_list_work: sum over segments of min(count, period)).  A list
 * request whose work exceeds it is refused with EINVAL; clients split
 * their lists into requests that stay within it.  One segment alone always
 * fits: its work is at most its count, <= PVFS_PATTERN_MAX_COUNT. */
#define PVFS_LIST_MAX_WORK (1u << 24)
#define PVFS_SOCK_MAX 107 /* bytes in a Unix socket path (sun_path - NUL) */
#define PVFS_SSIZE_MIN 512
#define PVFS_SSIZE_MAX (64u << 20)

/* Authentication methods: MGR_AUTH's method, a pvfstab's auth= option. */
#define PVFS_AUTH_MUNGE 1

/* The caller's identity as the client claims it. */
struct pvfs_cred {
	uint32_t uid, gid, ngroups;
	uint32_t groups[PVFS_MAX_GROUPS];
};

/* A file's distribution; stripe s lives on iod (base + s % pcount) % niods. */
/* copies: how many copies of each stripe (1: unmirrored; 0 in a create
 * request: the parent directory's default; in a directory's attributes:
 * its default for new files, 0 = none).  Copy k of relative position rel
 * lives on iod (base + rel + k * mshift) mod niods (pvfs_stripe_copy_abs);
 * copy 0 is the classic placement (doc/design.md, "Mirrored files"). */
struct pvfs_dist {
	uint32_t base, pcount, ssize;
	uint16_t copies, mshift;
};
#define PVFS_COPIES_MAX 8

/* A regular strided access pattern over logical file offsets: count blocks
 * of gsize bytes, block i starting at offset + i * stride.  Contiguous
 * access is count = 1.  Valid: gsize > 0, count > 0, stride >= gsize when
 * count > 1, count <= PVFS_PATTERN_MAX_COUNT (bounds the work one request
 * costs an iod), and the last byte below 2^63. */
struct pvfs_pattern {
	uint64_t offset, gsize, stride, count;
};

struct pvfs_iod_addr {
	char host[PVFS_HOST_MAX + 1];
	uint16_t port;
	/* The iod's Unix socket, "" if none: clients on the iod's host (one
	 * of whose addresses is host) connect there instead. */
	char sock[PVFS_SOCK_MAX + 1];
};

#endif /* PVFS_TYPES_H */
