/*
 * proto-table.h - field tables: each message body, and each record the mgr
 * keeps on disk, is described by a table of fields so that one encoder and
 * one bounds-checked decoder serve the wire and the disk alike.
 */
#ifndef PVFS_PROTO_TABLE_H
#define PVFS_PROTO_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum pvfs_ftype {
	PVFS_F_END,
	PVFS_F_U8,
	PVFS_F_U16,
	PVFS_F_U32,
	PVFS_F_U64,    /* also int64_t, same bits */
	PVFS_F_STR,    /* char[max + 1]: u16 length + bytes, no NUL inside */
	PVFS_F_MAC,    /* uint8_t[PVFS_MAC_LEN] */
	PVFS_F_CRED,   /* struct pvfs_cred: uid, gid, ngroups, groups */
	PVFS_F_STRUCT, /* nested table */
	PVFS_F_ARRAY,  /* u32 count (stored at count_off) + elements; heap */
	PVFS_F_STRREF, /* const char * + uint16_t length at count_off: u16
	                * length + bytes (at most max, no NUL); a decoded one
	                * points into the input, which must outlive it */
};

struct pvfs_field {
	uint8_t type;
	uint32_t off;
	uint32_t max;              /* STR: bytes; ARRAY: elements */
	const struct pvfs_field *sub;
	uint32_t count_off;        /* ARRAY: where the u32 count lives */
	uint32_t elem_size;        /* ARRAY: sizeof one element */
};

struct pvfs_msgdesc {
	uint16_t op;
	const char *name;
	const struct pvfs_field *req;
	size_t req_size;
	const struct pvfs_field *rep;
	size_t rep_size;
};

#define PVFS_FLD(t, s, f) { .type = (t), .off = offsetof(s, f) }
#define PVFS_FSTR(s, f) \
	{ .type = PVFS_F_STR, .off = offsetof(s, f), .max = sizeof(((s *)0)->f) - 1 }
#define PVFS_FSUB(s, f, tbl) \
	{ .type = PVFS_F_STRUCT, .off = offsetof(s, f), .sub = (tbl) }
#define PVFS_FARR(s, f, cnt, m, et, tbl) \
	{ .type = PVFS_F_ARRAY, .off = offsetof(s, f), .count_off = offsetof(s, cnt), \
	  .max = (m), .elem_size = sizeof(et), .sub = (tbl) }
#define PVFS_FSREF(s, f, len, m) \
	{ .type = PVFS_F_STRREF, .off = offsetof(s, f), .count_off = offsetof(s, len), \
	  .max = (m) }
#define PVFS_FEND { .type = PVFS_F_END }

/* proto-codec.c: one table's fields, outside a frame (disk records).
 * Encoding an invalid value sets b->oom; decoding returns -1 and sets
 * c->bad on any short, oversized or invalid field. */
struct pvfs_buf;
struct pvfs_cur;
void pvfs_fields_encode(struct pvfs_buf *b, const struct pvfs_field *f,
    const void *base);
int pvfs_fields_decode(struct pvfs_cur *c, const struct pvfs_field *f,
    void *base);

/* proto-msgs.c */
const struct pvfs_msgdesc *pvfs_msgdesc_find(uint16_t op);
/* The body of a PVFS_ST_LINK reply (struct pvfs_link_rep). */
extern const struct pvfs_field pvfs_link_rep_fields[];

#endif /* PVFS_PROTO_TABLE_H */
