/* proto-msgs.c - the field table of every message body, by opcode.  The
 * order of fields in a table is the order on the wire. */
#include <stddef.h>

#include "common.h"
#include "pvfs-proto.h"
#include "proto-table.h"

static const struct pvfs_field none_f[] = { PVFS_FEND };

static const struct pvfs_field cred_only_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_cred_req, cred),
	PVFS_FEND
};

static const struct pvfs_field dist_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, base),
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, pcount),
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, ssize),
	PVFS_FLD(PVFS_F_U16, struct pvfs_dist, copies),
	PVFS_FLD(PVFS_F_U16, struct pvfs_dist, mshift),
	PVFS_FEND
};

static const struct pvfs_field attr_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, ino),
	PVFS_FLD(PVFS_F_U32, struct pvfs_attr, mode),
	PVFS_FLD(PVFS_F_U32, struct pvfs_attr, nlink),
	PVFS_FLD(PVFS_F_U32, struct pvfs_attr, uid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_attr, gid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, size),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, atime_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, mtime_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, ctime_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, mtime_set_ns),
	PVFS_FSUB(struct pvfs_attr, dist, dist_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, rdev),
	PVFS_FLD(PVFS_F_U32, struct pvfs_attr, size_flags),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, blocks),
	PVFS_FLD(PVFS_F_U64, struct pvfs_attr, size_epoch),
	PVFS_FEND
};

/* cap.c signs exactly these fields minus the mac, in this order. */
static const struct pvfs_field cap_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_cap, fsid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_cap, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_cap, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_cap, rights),
	PVFS_FLD(PVFS_F_U64, struct pvfs_cap, expiry),
	PVFS_FSUB(struct pvfs_cap, dist, dist_f),
	PVFS_FLD(PVFS_F_MAC, struct pvfs_cap, mac),
	PVFS_FEND
};

static const struct pvfs_field pattern_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_pattern, offset),
	PVFS_FLD(PVFS_F_U64, struct pvfs_pattern, gsize),
	PVFS_FLD(PVFS_F_U64, struct pvfs_pattern, stride),
	PVFS_FLD(PVFS_F_U64, struct pvfs_pattern, count),
	PVFS_FEND
};

static const struct pvfs_field iod_addr_f[] = {
	PVFS_FSTR(struct pvfs_iod_addr, host),
	PVFS_FLD(PVFS_F_U16, struct pvfs_iod_addr, port),
	PVFS_FSTR(struct pvfs_iod_addr, sock),
	PVFS_FEND
};

static const struct pvfs_field dirent_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_dirent_wire, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_dirent_wire, cookie),
	PVFS_FLD(PVFS_F_U8, struct pvfs_dirent_wire, type),
	PVFS_FSTR(struct pvfs_dirent_wire, name),
	PVFS_FEND
};

/* ---- mgr ---- */
static const struct pvfs_field mgr_ping_rep_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_ping_rep, version),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_ping_rep, fsid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_ping_rep, uptime_s),
	PVFS_FLD(PVFS_F_U8, struct pvfs_mgr_ping_rep, auth),
	PVFS_FEND
};

static const struct pvfs_field mgr_fsinfo_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_fsinfo_rep, fsid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_fsinfo_rep, default_ssize),
	PVFS_FARR(struct pvfs_mgr_fsinfo_rep, iods, niods, PVFS_MAX_IODS,
	    struct pvfs_iod_addr, iod_addr_f),
	PVFS_FEND
};

static const struct pvfs_field mgr_open_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_open_req, cred),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_open_req, flags),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_open_req, mode),
	PVFS_FSUB(struct pvfs_mgr_open_req, dist, dist_f),
	PVFS_FSTR(struct pvfs_mgr_open_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_path_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_path_req, cred),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_path_req, flags),
	PVFS_FSTR(struct pvfs_mgr_path_req, path),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_path_req, cb_token),
	PVFS_FEND
};

static const struct pvfs_field mgr_getattr_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_getattr_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_getattr_req, ino),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_getattr_req, rights),
	PVFS_FEND
};

static const struct pvfs_field mgr_setattr_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_setattr_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_setattr_req, ino),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, mask),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, mode),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, uid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, gid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_setattr_req, atime_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_setattr_req, mtime_ns),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, flags),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_setattr_req, copies),
	PVFS_FSTR(struct pvfs_mgr_setattr_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_truncate_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_truncate_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_truncate_req, length),
	PVFS_FSTR(struct pvfs_mgr_truncate_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_mode_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_mode_req, cred),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_mode_req, mode),
	PVFS_FSTR(struct pvfs_mgr_mode_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_rename_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_rename_req, cred),
	PVFS_FSTR(struct pvfs_mgr_rename_req, from),
	PVFS_FSTR(struct pvfs_mgr_rename_req, to),
	PVFS_FEND
};

static const struct pvfs_field mgr_lease_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_lease_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_lease_req, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_lease_req, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_lease_req, hold),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_lease_req, flags),
	PVFS_FEND
};

static const struct pvfs_field mgr_callback_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_callback_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_callback_req, token),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_callback_req, ack),
	PVFS_FEND
};

static const struct pvfs_field mgr_callback_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_callback_rep, token),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_callback_rep, seq),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_callback_rep, term_ms),
	PVFS_FEND
};

static const struct pvfs_field mgr_readdir_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_readdir_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_readdir_req, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_readdir_req, cookie),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_readdir_req, max),
	PVFS_FEND
};

static const struct pvfs_field mgr_attrcap_rep_f[] = {
	PVFS_FSUB(struct pvfs_mgr_attrcap_rep, attr, attr_f),
	PVFS_FSUB(struct pvfs_mgr_attrcap_rep, cap, cap_f),
	PVFS_FLD(PVFS_F_U8, struct pvfs_mgr_attrcap_rep, created),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_attrcap_rep, cache_ms),
	PVFS_FEND
};

static const struct pvfs_field mgr_readdir_rep_f[] = {
	PVFS_FLD(PVFS_F_U8, struct pvfs_mgr_readdir_rep, eof),
	PVFS_FARR(struct pvfs_mgr_readdir_rep, ents, n, PVFS_READDIR_MAX,
	    struct pvfs_dirent_wire, dirent_f),
	PVFS_FEND
};

static const struct pvfs_field direntplus_f[] = {
	PVFS_FSUB(struct pvfs_direntplus_wire, ent, dirent_f),
	PVFS_FSUB(struct pvfs_direntplus_wire, attr, attr_f),
	PVFS_FSUB(struct pvfs_direntplus_wire, cap, cap_f),
	PVFS_FEND
};

static const struct pvfs_field mgr_readdirplus_rep_f[] = {
	PVFS_FLD(PVFS_F_U8, struct pvfs_mgr_readdirplus_rep, eof),
	PVFS_FARR(struct pvfs_mgr_readdirplus_rep, ents, n, PVFS_READDIRPLUS_MAX,
	    struct pvfs_direntplus_wire, direntplus_f),
	PVFS_FEND
};

/* A full READDIRPLUS reply: eof, n, then per entry its dirent (ino, cookie,
 * type, name of up to PVFS_NAME_MAX bytes), attributes and capability. */
_Static_assert(1 + 4 + (size_t)PVFS_READDIRPLUS_MAX *
    ((8 + 8 + 1 + 2 + PVFS_NAME_MAX) + (8 + 4 * 4 + 8 * 5 + 12) +
    (8 * 3 + 4 + 8 + 12 + PVFS_MAC_LEN)) <= PVFS_MAX_BODY,
    "a full READDIRPLUS reply fits in one frame");

static const struct pvfs_field mgr_statfs_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_statfs_rep, files),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_statfs_rep, ffree),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_statfs_rep, namemax),
	PVFS_FEND
};

static const struct pvfs_field mgr_symlink_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_symlink_req, cred),
	PVFS_FSTR(struct pvfs_mgr_symlink_req, target),
	PVFS_FSTR(struct pvfs_mgr_symlink_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_readlink_rep_f[] = {
	PVFS_FSTR(struct pvfs_mgr_readlink_rep, target),
	PVFS_FEND
};

/* The body of any reply with status PVFS_ST_LINK, whatever the op. */
const struct pvfs_field pvfs_link_rep_fields[] = {
	PVFS_FLD(PVFS_F_U8, struct pvfs_link_rep, which),
	PVFS_FLD(PVFS_F_U32, struct pvfs_link_rep, consumed),
	PVFS_FSTR(struct pvfs_link_rep, target),
	PVFS_FEND
};

static const struct pvfs_field mgr_inolist_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_inolist_req, cred),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_inolist_req, first),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_inolist_req, count),
	PVFS_FEND
};

static const struct pvfs_field ino_wire_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_ino_wire, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_ino_wire, gen),
	PVFS_FSUB(struct pvfs_ino_wire, dist, dist_f),
	PVFS_FEND
};

static const struct pvfs_field mgr_inolist_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_inolist_rep, next_ino),
	PVFS_FSUB(struct pvfs_mgr_inolist_rep, cap, cap_f),
	PVFS_FARR(struct pvfs_mgr_inolist_rep, inos, n, PVFS_INOLIST_SPAN,
	    struct pvfs_ino_wire, ino_wire_f),
	PVFS_FEND
};

static const struct pvfs_field mgr_auth_req_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_auth_req, method),
	PVFS_FSTR(struct pvfs_mgr_auth_req, cred),
	PVFS_FEND
};

static const struct pvfs_field mgr_auth_rep_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_auth_rep, uid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_auth_rep, gid),
	PVFS_FEND
};

/* ---- iod ---- */
static const struct pvfs_field iod_read_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_read_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_read_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_read_req, copy),
	PVFS_FSUB(struct pvfs_iod_read_req, pat, pattern_f),
	PVFS_FEND
};

static const struct pvfs_field iod_read_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_read_rep, logical_end),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_read_rep, stream_len),
	PVFS_FEND
};

static const struct pvfs_field iod_write_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_write_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_write_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_write_req, copy),
	PVFS_FSUB(struct pvfs_iod_write_req, pat, pattern_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_write_req, stream_len),
	PVFS_FEND
};

static const struct pvfs_field iod_write_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_write_rep, written),
	PVFS_FEND
};

static const struct pvfs_field iod_read_list_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_read_list_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_read_list_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_read_list_req, copy),
	PVFS_FARR(struct pvfs_iod_read_list_req, seg, nseg, PVFS_LIST_MAX,
	    struct pvfs_pattern, pattern_f),
	PVFS_FEND
};

static const struct pvfs_field iod_write_list_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_write_list_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_write_list_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_write_list_req, copy),
	PVFS_FARR(struct pvfs_iod_write_list_req, seg, nseg, PVFS_LIST_MAX,
	    struct pvfs_pattern, pattern_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_write_list_req, stream_len),
	PVFS_FEND
};

static const struct pvfs_field iod_truncate_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_truncate_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_truncate_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_truncate_req, copy),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_truncate_req, length),
	PVFS_FEND
};

static const struct pvfs_field iod_cap_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_cap_req, cap, cap_f),
	PVFS_FEND
};

static const struct pvfs_field iod_fsync_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_fsync_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U8, struct pvfs_iod_fsync_req, datasync),
	PVFS_FEND
};

static const struct pvfs_field iod_size_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_size_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_size_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_size_req, copy),
	PVFS_FEND
};

static const struct pvfs_field iod_size_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_size_rep, local_size),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_size_rep, logical_end),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_size_rep, mtime_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_size_rep, blocks),
	PVFS_FEND
};

static const struct pvfs_field opstat_f[] = {
	PVFS_FLD(PVFS_F_U16, struct pvfs_opstat_wire, op),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, count),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, errors),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, p50_us),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, p90_us),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, p99_us),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, max_us),
	PVFS_FLD(PVFS_F_U64, struct pvfs_opstat_wire, sum_us),
	PVFS_FEND
};

static const struct pvfs_field counters_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_counters_rep, uptime_ms),
	PVFS_FLD(PVFS_F_U64, struct pvfs_counters_rep, conns_total),
	PVFS_FLD(PVFS_F_U64, struct pvfs_counters_rep, conns_open),
	PVFS_FLD(PVFS_F_U64, struct pvfs_counters_rep, bytes_in),
	PVFS_FLD(PVFS_F_U64, struct pvfs_counters_rep, bytes_out),
	PVFS_FARR(struct pvfs_counters_rep, ops, n, PVFS_OPSTAT_MAX,
	    struct pvfs_opstat_wire, opstat_f),
	PVFS_FEND
};

static const struct pvfs_field size_ent_f[] = {
	PVFS_FSUB(struct pvfs_iod_size_ent, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_size_ent, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_size_ent, copy),
	PVFS_FEND
};

static const struct pvfs_field iod_size_list_req_f[] = {
	PVFS_FARR(struct pvfs_iod_size_list_req, ents, n, PVFS_SIZELIST_MAX,
	    struct pvfs_iod_size_ent, size_ent_f),
	PVFS_FEND
};

static const struct pvfs_field size_item_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_size_item, status),
	PVFS_FSUB(struct pvfs_iod_size_item, size, iod_size_rep_f),
	PVFS_FEND
};

static const struct pvfs_field iod_size_list_rep_f[] = {
	PVFS_FARR(struct pvfs_iod_size_list_rep, items, n, PVFS_SIZELIST_MAX,
	    struct pvfs_iod_size_item, size_item_f),
	PVFS_FEND
};

/* A full SIZE_LIST request: n, then per pair a capability and rel. */
_Static_assert(4 + (size_t)PVFS_SIZELIST_MAX *
    ((8 * 3 + 4 + 8 + 12 + PVFS_MAC_LEN) + 4) <= PVFS_MAX_BODY,
    "a full SIZE_LIST request fits in one frame");

static const struct pvfs_field iod_statfs_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, bsize),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, blocks),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, bfree),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, bavail),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, files),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, ffree),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, host),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, dev),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, used),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, apparent),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_statfs_rep, nstripes),
	PVFS_FEND
};

static const struct pvfs_field iod_ping_rep_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_ping_rep, version),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_ping_rep, uptime_s),
	PVFS_FEND
};

static const struct pvfs_field iod_list_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_list_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_list_req, sub),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_list_req, after),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_list_req, after_gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_list_req, after_copy),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_list_req, max),
	PVFS_FEND
};

static const struct pvfs_field stripe_ent_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_stripe_ent, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_stripe_ent, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stripe_ent, copy),
	PVFS_FLD(PVFS_F_U64, struct pvfs_stripe_ent, size),
	PVFS_FEND
};

static const struct pvfs_field iod_list_rep_f[] = {
	PVFS_FLD(PVFS_F_U8, struct pvfs_iod_list_rep, eof),
	PVFS_FARR(struct pvfs_iod_list_rep, ents, n, PVFS_STRIPELIST_MAX,
	    struct pvfs_stripe_ent, stripe_ent_f),
	PVFS_FEND
};

static const struct pvfs_field iod_purge_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_purge_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_purge_req, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_purge_req, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_purge_req, copy),
	PVFS_FEND
};

static const struct pvfs_field iodstat_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_iodstat_wire, index),
	PVFS_FSTR(struct pvfs_iodstat_wire, host),
	PVFS_FLD(PVFS_F_U16, struct pvfs_iodstat_wire, port),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iodstat_wire, state),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iodstat_wire, fsid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iodstat_wire, label_index),
	PVFS_FSTR(struct pvfs_iodstat_wire, uuid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iodstat_wire, skew_ms),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iodstat_wire, rtt_us),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iodstat_wire, age_s),
	PVFS_FSTR(struct pvfs_iodstat_wire, why),
	PVFS_FEND
};

static const struct pvfs_field mgr_iodstatus_rep_f[] = {
	PVFS_FARR(struct pvfs_mgr_iodstatus_rep, iods, n, PVFS_MAX_IODS,
	    struct pvfs_iodstat_wire, iodstat_f),
	PVFS_FEND
};

/* hello.c macs exactly these fields minus the mac, in this order. */
static const struct pvfs_field iod_hello_req_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_req, fsid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_hello_req, index),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_req, mgr_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_req, rtt_ns),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_req, nonce),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_hello_req, lease_ms),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_req, stale_version),
	PVFS_FLD(PVFS_F_MAC, struct pvfs_iod_hello_req, mac),
	PVFS_FEND
};

static const struct pvfs_field iod_hello_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_rep, fsid),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_hello_rep, index),
	PVFS_FSTR(struct pvfs_iod_hello_rep, uuid),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_rep, iod_ns),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_hello_rep, flags),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_hello_rep, stale_version),
	PVFS_FLD(PVFS_F_MAC, struct pvfs_iod_hello_rep, mac),
	PVFS_FEND
};

static const struct pvfs_field mgr_mknod_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_mknod_req, cred),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_mknod_req, mode),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_mknod_req, rdev),
	PVFS_FSTR(struct pvfs_mgr_mknod_req, path),
	PVFS_FEND
};

static const struct pvfs_field mgr_size_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_size_req, cred),
	PVFS_FSUB(struct pvfs_mgr_size_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_size_req, epoch),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_size_req, size),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_size_req, blocks),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_size_req, mtime_ns),
	PVFS_FEND
};

static const struct pvfs_field mgr_modified_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_modified_req, cred),
	PVFS_FSUB(struct pvfs_mgr_modified_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_modified_req, flags),
	PVFS_FEND
};

/* ---- mirrored files ---- */
static const struct pvfs_field dirty_ent_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_dirty_wire, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_dirty_wire, copy),
	PVFS_FLD(PVFS_F_U64, struct pvfs_dirty_wire, offset),
	PVFS_FLD(PVFS_F_U64, struct pvfs_dirty_wire, length),
	PVFS_FEND
};

static const struct pvfs_field mgr_dirty_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_dirty_req, cred),
	PVFS_FSUB(struct pvfs_mgr_dirty_req, cap, cap_f),
	PVFS_FARR(struct pvfs_mgr_dirty_req, ents, n, PVFS_DIRTY_MAX,
	    struct pvfs_dirty_wire, dirty_ent_f),
	PVFS_FEND
};

static const struct pvfs_field mgr_resync_req_f[] = {
	PVFS_FLD(PVFS_F_CRED, struct pvfs_mgr_resync_req, cred),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_req, what),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_req, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_req, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_req, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_req, copy),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_req, dgen),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_req, bytes),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_req, index),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_req, after),
	PVFS_FEND
};

static const struct pvfs_field extent_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_extent, offset),
	PVFS_FLD(PVFS_F_U64, struct pvfs_extent, length),
	PVFS_FEND
};

static const struct pvfs_field stale_wire_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_stale_wire, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_stale_wire, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_wire, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_wire, copy),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_wire, iod),
	PVFS_FLD(PVFS_F_U64, struct pvfs_stale_wire, bytes),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_wire, flags),
	PVFS_FEND
};

static const struct pvfs_field mgr_resync_rep_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_rep, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_rep, copy),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_rep, from),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, dgen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_rep, flags),
	PVFS_FLD(PVFS_F_U32, struct pvfs_mgr_resync_rep, wait_ms),
	PVFS_FSUB(struct pvfs_mgr_resync_rep, cap, cap_f),
	PVFS_FARR(struct pvfs_mgr_resync_rep, exts, next, PVFS_RESYNC_EXT_MAX,
	    struct pvfs_extent, extent_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, degraded),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, stale),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, bytes_left),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, jobs),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, bytes_done),
	PVFS_FLD(PVFS_F_U64, struct pvfs_mgr_resync_rep, dirty_reports),
	PVFS_FLD(PVFS_F_U8, struct pvfs_mgr_resync_rep, eof),
	PVFS_FARR(struct pvfs_mgr_resync_rep, list, n, PVFS_RESYNC_LIST_MAX,
	    struct pvfs_stale_wire, stale_wire_f),
	PVFS_FEND
};

static const struct pvfs_field stale_ent_f[] = {
	PVFS_FLD(PVFS_F_U64, struct pvfs_stale_ent, ino),
	PVFS_FLD(PVFS_F_U64, struct pvfs_stale_ent, gen),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_ent, rel),
	PVFS_FLD(PVFS_F_U32, struct pvfs_stale_ent, copy),
	PVFS_FEND
};

static const struct pvfs_field iod_stale_req_f[] = {
	PVFS_FSUB(struct pvfs_iod_stale_req, cap, cap_f),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_stale_req, version),
	PVFS_FLD(PVFS_F_U64, struct pvfs_iod_stale_req, base),
	PVFS_FLD(PVFS_F_U32, struct pvfs_iod_stale_req, flags),
	PVFS_FARR(struct pvfs_iod_stale_req, ents, n, PVFS_STALE_MAX,
	    struct pvfs_stale_ent, stale_ent_f),
	PVFS_FEND
};

#define MSG(op, req, reqt, rep, rept) \
	{ op, &(#op)[5], req, sizeof(reqt), rep, sizeof(rept) } /* skip "PVFS_" */

static const struct pvfs_msgdesc mgr_msgs[] = {
	MSG(PVFS_MGR_PING, none_f, struct pvfs_none, mgr_ping_rep_f, struct pvfs_mgr_ping_rep),
	MSG(PVFS_MGR_FSINFO, cred_only_f, struct pvfs_mgr_cred_req, mgr_fsinfo_rep_f, struct pvfs_mgr_fsinfo_rep),
	MSG(PVFS_MGR_OPEN, mgr_open_req_f, struct pvfs_mgr_open_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_STAT, mgr_path_req_f, struct pvfs_mgr_path_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_GETATTR, mgr_getattr_req_f, struct pvfs_mgr_getattr_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_SETATTR, mgr_setattr_req_f, struct pvfs_mgr_setattr_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_TRUNCATE, mgr_truncate_req_f, struct pvfs_mgr_truncate_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_UNLINK, mgr_path_req_f, struct pvfs_mgr_path_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_MKDIR, mgr_mode_req_f, struct pvfs_mgr_mode_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_RMDIR, mgr_path_req_f, struct pvfs_mgr_path_req, none_f, struct pvfs_none),
	MSG(PVFS_MGR_RENAME, mgr_rename_req_f, struct pvfs_mgr_rename_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_READDIR, mgr_readdir_req_f, struct pvfs_mgr_readdir_req, mgr_readdir_rep_f, struct pvfs_mgr_readdir_rep),
	MSG(PVFS_MGR_ACCESS, mgr_mode_req_f, struct pvfs_mgr_mode_req, none_f, struct pvfs_none),
	MSG(PVFS_MGR_STATFS, cred_only_f, struct pvfs_mgr_cred_req, mgr_statfs_rep_f, struct pvfs_mgr_statfs_rep),
	MSG(PVFS_MGR_INOLIST, mgr_inolist_req_f, struct pvfs_mgr_inolist_req, mgr_inolist_rep_f, struct pvfs_mgr_inolist_rep),
	MSG(PVFS_MGR_AUTH, mgr_auth_req_f, struct pvfs_mgr_auth_req, mgr_auth_rep_f, struct pvfs_mgr_auth_rep),
	MSG(PVFS_MGR_IODSTATUS, cred_only_f, struct pvfs_mgr_cred_req, mgr_iodstatus_rep_f, struct pvfs_mgr_iodstatus_rep),
	MSG(PVFS_MGR_READDIRPLUS, mgr_readdir_req_f, struct pvfs_mgr_readdir_req, mgr_readdirplus_rep_f, struct pvfs_mgr_readdirplus_rep),
	MSG(PVFS_MGR_COUNTERS, none_f, struct pvfs_none, counters_rep_f, struct pvfs_counters_rep),
	MSG(PVFS_MGR_MKNOD, mgr_mknod_req_f, struct pvfs_mgr_mknod_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_MODIFIED, mgr_modified_req_f, struct pvfs_mgr_modified_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_SYMLINK, mgr_symlink_req_f, struct pvfs_mgr_symlink_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_READLINK, mgr_path_req_f, struct pvfs_mgr_path_req, mgr_readlink_rep_f, struct pvfs_mgr_readlink_rep),
	MSG(PVFS_MGR_LINK, mgr_rename_req_f, struct pvfs_mgr_rename_req, mgr_attrcap_rep_f, struct pvfs_mgr_attrcap_rep),
	MSG(PVFS_MGR_LEASE, mgr_lease_req_f, struct pvfs_mgr_lease_req, none_f, struct pvfs_none),
	MSG(PVFS_MGR_DIRTY, mgr_dirty_req_f, struct pvfs_mgr_dirty_req, none_f, struct pvfs_none),
	MSG(PVFS_MGR_RESYNC, mgr_resync_req_f, struct pvfs_mgr_resync_req, mgr_resync_rep_f, struct pvfs_mgr_resync_rep),
	MSG(PVFS_MGR_SIZE, mgr_size_req_f, struct pvfs_mgr_size_req, none_f, struct pvfs_none),
	MSG(PVFS_MGR_CALLBACK, mgr_callback_req_f, struct pvfs_mgr_callback_req, mgr_callback_rep_f, struct pvfs_mgr_callback_rep),
};

static const struct pvfs_msgdesc iod_msgs[] = {
	MSG(PVFS_IOD_PING, none_f, struct pvfs_none, iod_ping_rep_f, struct pvfs_iod_ping_rep),
	MSG(PVFS_IOD_READ, iod_read_req_f, struct pvfs_iod_read_req, iod_read_rep_f, struct pvfs_iod_read_rep),
	MSG(PVFS_IOD_WRITE, iod_write_req_f, struct pvfs_iod_write_req, iod_write_rep_f, struct pvfs_iod_write_rep),
	MSG(PVFS_IOD_TRUNCATE, iod_truncate_req_f, struct pvfs_iod_truncate_req, none_f, struct pvfs_none),
	MSG(PVFS_IOD_REMOVE, iod_cap_req_f, struct pvfs_iod_cap_req, none_f, struct pvfs_none),
	MSG(PVFS_IOD_FSYNC, iod_fsync_req_f, struct pvfs_iod_fsync_req, none_f, struct pvfs_none),
	MSG(PVFS_IOD_SIZE, iod_size_req_f, struct pvfs_iod_size_req, iod_size_rep_f, struct pvfs_iod_size_rep),
	MSG(PVFS_IOD_STATFS, none_f, struct pvfs_none, iod_statfs_rep_f, struct pvfs_iod_statfs_rep),
	MSG(PVFS_IOD_READ_LIST, iod_read_list_req_f, struct pvfs_iod_read_list_req, iod_read_rep_f, struct pvfs_iod_read_rep),
	MSG(PVFS_IOD_WRITE_LIST, iod_write_list_req_f, struct pvfs_iod_write_list_req, iod_write_rep_f, struct pvfs_iod_write_rep),
	MSG(PVFS_IOD_LIST, iod_list_req_f, struct pvfs_iod_list_req, iod_list_rep_f, struct pvfs_iod_list_rep),
	MSG(PVFS_IOD_PURGE, iod_purge_req_f, struct pvfs_iod_purge_req, none_f, struct pvfs_none),
	MSG(PVFS_IOD_HELLO, iod_hello_req_f, struct pvfs_iod_hello_req, iod_hello_rep_f, struct pvfs_iod_hello_rep),
	MSG(PVFS_IOD_SIZE_LIST, iod_size_list_req_f, struct pvfs_iod_size_list_req, iod_size_list_rep_f, struct pvfs_iod_size_list_rep),
	MSG(PVFS_IOD_COUNTERS, none_f, struct pvfs_none, counters_rep_f, struct pvfs_counters_rep),
	MSG(PVFS_IOD_STALE, iod_stale_req_f, struct pvfs_iod_stale_req, none_f, struct pvfs_none),
};


_Static_assert(sizeof(mgr_msgs) / sizeof(mgr_msgs[0]) ==
    PVFS_MGR_OP_END - PVFS_MGR_PING, "one mgr table entry per opcode");
_Static_assert(sizeof(iod_msgs) / sizeof(iod_msgs[0]) ==
    PVFS_IOD_OP_END - PVFS_IOD_PING, "one iod table entry per opcode");

const struct pvfs_msgdesc *
pvfs_msgdesc_find(uint16_t op)
{
	if (op >= PVFS_MGR_PING && op < PVFS_MGR_OP_END)
		return &mgr_msgs[op - PVFS_MGR_PING];
	if (op >= PVFS_IOD_PING && op < PVFS_IOD_OP_END)
		return &iod_msgs[op - PVFS_IOD_PING];
	return NULL;
}

