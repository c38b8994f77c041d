/*
 * mgr-record.c - the bytes of the metadata directory, with no I/O: record
 * field tables (the wire's codec), file headers, batch framing, and the
 * scanner that tells a crash's torn tail from corruption.
 *
 * Format 2 (written since identities exist):
 *   file    header, then batches; a journal's batches are group commits,
 *           a snapshot's are chunks of the tree followed by an END record
 *   header  magic "PVFSJRNL" or "PVFSSNAP", u32 format, u32 0, u64 fsid,
 *           generation, salt, next inode, root's next cookie (snapshot;
 *           0 in a journal), u32 0, u32 crc32c of the 60 bytes before it
 *   batch   u32 payload length, u32 records, u64 sequence (1, 2, ... in
 *           each file), u32 crc32c(payload), u32 crc32c(salt, the 20
 *           bytes before it); then the records, each a u8 type and the
 *           fields of its table
 * The salt is random per file, so bytes a user controls (names) can never
 * pass for a batch of the file they sit in.
 *
 * Format 1 (read only, then checkpointed into format 2): no file header in
 * a journal; a snapshot header "PVFSSNP1", fsid, generation, next inode,
 * root cookie, u32 crc; records framed alone as u32 length, u32 crc32c.
 */
#include <string.h>

#include "mgr.h"
#include "proto-table.h"

#define REC_NAME(f, l) PVFS_FSREF(struct mgr_rec, f, l, PVFS_NAME_MAX)
#define REC_U32(f) PVFS_FLD(PVFS_F_U32, struct mgr_rec, f)
#define REC_U64(f) PVFS_FLD(PVFS_F_U64, struct mgr_rec, f)

static const struct pvfs_field rec_dist_f[] = {
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, base),
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, pcount),
	PVFS_FLD(PVFS_F_U32, struct pvfs_dist, ssize),
	PVFS_FEND
};

/* ---- format 2 ---- */
static const struct pvfs_field rec2_create_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(gen), REC_U64(cookie),
	REC_U64(next_cookie), REC_U32(mode), REC_U32(uid), REC_U32(gid),
	REC_U64(atime_ns), REC_U64(mtime_ns), REC_U64(ctime_ns), REC_U64(mset_ns),
	PVFS_FSUB(struct mgr_rec, dist, rec_dist_f), REC_U64(time),
	REC_NAME(name, namelen), PVFS_FEND
};

/* ---- format 1 (and 2, where the layout did not change) ---- */
static const struct pvfs_field rec1_create_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(cookie), REC_U64(next_cookie),
	REC_U32(mode), REC_U32(uid), REC_U32(gid), REC_U64(atime_ns),
	REC_U64(mtime_ns), REC_U64(ctime_ns), REC_U64(mset_ns),
	PVFS_FSUB(struct mgr_rec, dist, rec_dist_f), REC_U64(time),
	REC_NAME(name, namelen), PVFS_FEND
};

static const struct pvfs_field rec_remove_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(time), REC_NAME(name, namelen),
	PVFS_FEND
};

static const struct pvfs_field rec_rename_f[] = {
	REC_U64(parent), REC_U64(parent2), REC_U64(time),
	REC_NAME(name, namelen), REC_NAME(name2, namelen2), PVFS_FEND
};

static const struct pvfs_field rec_setattr_f[] = {
	REC_U64(ino), REC_U32(mask), REC_U32(mode), REC_U32(uid), REC_U32(gid),
	REC_U64(atime_ns), REC_U64(mtime_ns), REC_U64(ctime_ns), PVFS_FEND
};

static const struct pvfs_field rec_mknod_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(cookie), REC_U32(mode),
	REC_U64(rdev), REC_U32(uid), REC_U32(gid), REC_U64(atime_ns),
	REC_U64(mtime_ns), REC_U64(ctime_ns), REC_U64(mset_ns), REC_U64(time),
	REC_NAME(name, namelen), PVFS_FEND
};

static const struct pvfs_field rec_end_f[] = { REC_U64(ino), PVFS_FEND };

/* Type 8 (format 2 only; an older mgr never wrote one): a symbolic link,
 * mode 0777 implied, its text last. */
static const struct pvfs_field rec_symlink_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(cookie), REC_U32(uid),
	REC_U32(gid), REC_U64(atime_ns), REC_U64(mtime_ns), REC_U64(ctime_ns),
	REC_U64(mset_ns), REC_U64(time), REC_NAME(name, namelen),
	PVFS_FSREF(struct mgr_rec, target, targetlen, MGR_LINK_MAX), PVFS_FEND
};

/* Types added to format 2 (a directory written before them loads as it
 * did; an older mgr refuses one that has them). */
static const struct pvfs_field rec_link_f[] = {
	REC_U64(parent), REC_U64(ino), REC_U64(cookie), REC_U64(time),
	REC_NAME(name, namelen), PVFS_FEND
};

static const struct pvfs_field rec_orphan_f[] = {
	REC_U64(ino), REC_U64(gen), REC_U32(mode), REC_U32(uid), REC_U32(gid),
	REC_U64(atime_ns), REC_U64(mtime_ns), REC_U64(ctime_ns), REC_U64(mset_ns),
	PVFS_FSUB(struct mgr_rec, dist, rec_dist_f), PVFS_FEND
};

/* Mirrored files (mgr-mirror.c): a copy's stale range, its end, and an
 * iod rebuilt from scratch (its index in rel). */
static const struct pvfs_field rec_dirty_f[] = {
	REC_U64(ino), REC_U64(gen), REC_U32(rel), REC_U32(copy),
	REC_U64(offset), REC_U64(length), REC_U64(dgen), REC_U32(mflags),
	PVFS_FEND
};

static const struct pvfs_field rec_clean_f[] = {
	REC_U64(ino), REC_U64(gen), REC_U32(rel), REC_U32(copy), REC_U64(dgen),
	PVFS_FEND
};

static const struct pvfs_field rec_rebuild_f[] = {
	REC_U32(rel), REC_U64(time), PVFS_FEND
};

/* Type 16: dist.copies and dist.mshift of inode ino (mirrored files,
 * directories' defaults); CREATE's and ORPHAN's distribution stays as it
 * was, so a store without mirrors is byte for byte what it was. */
static const struct pvfs_field rec_mirror_dist_f[] = {
	PVFS_FLD(PVFS_F_U16, struct pvfs_dist, copies),
	PVFS_FLD(PVFS_F_U16, struct pvfs_dist, mshift),
	PVFS_FEND
};

static const struct pvfs_field rec_mirror_f[] = {
	REC_U64(ino), PVFS_FSUB(struct mgr_rec, dist, rec_mirror_dist_f),
	PVFS_FEND
};

/* The table of a record type in a format; NULL for an unknown type. */
static const struct pvfs_field *
mgr_record_table(int format, uint8_t type)
{
	switch (type) {
	case MGR_REC_CREATE:
	case MGR_REC_MKDIR:
		return format >= 2 ? rec2_create_f : rec1_create_f;
	case MGR_REC_UNLINK:
	case MGR_REC_RMDIR:
		return rec_remove_f;
	case MGR_REC_RENAME:
		return rec_rename_f;
	case MGR_REC_SETATTR:
		return rec_setattr_f;
	case MGR_REC_END:
	case MGR_REC_FREE:
		return rec_end_f;
	case MGR_REC_MKNOD:
		return format >= 2 ? rec_mknod_f : NULL;
	case MGR_REC_SYMLINK:
		return format >= 2 ? rec_symlink_f : NULL;
	case MGR_REC_LINK:
		return format >= 2 ? rec_link_f : NULL;
	case MGR_REC_ORPHAN:
		return format >= 2 ? rec_orphan_f : NULL;
	case MGR_REC_DIRTY:
		return format >= 2 ? rec_dirty_f : NULL;
	case MGR_REC_CLEAN:
		return format >= 2 ? rec_clean_f : NULL;
	case MGR_REC_REBUILD:
		return format >= 2 ? rec_rebuild_f : NULL;
	case MGR_REC_MIRROR:
		return format >= 2 ? rec_mirror_f : NULL;
	}
	return NULL;
}

void
mgr_record_encode(struct pvfs_buf *b, const struct mgr_rec *r)
{
	const struct pvfs_field *f = mgr_record_table(MGR_FORMAT, r->type);

	if (f == NULL)
		pvfs_fatal("bug: journal record of unknown type %d", r->type);
	pvfs_buf_put_u8(b, r->type);
	pvfs_fields_encode(b, f, r);
	if (b->oom)
		pvfs_fatal("out of memory, or an invalid name, encoding a journal record");
}

/* A name in a record must be one valid path component. */
static int
mgr_record_name_ok(const char *s, uint16_t n)
{
	return n > 0 && memchr(s, '/', n) == NULL &&
	    !(n == 1 && s[0] == '.') && !(n == 2 && s[0] == '.' && s[1] == '.');
}

/* Decode one record at the cursor; names point into the input. */
int
mgr_record_decode(struct pvfs_cur *c, int format, struct mgr_rec *r)
{
	const struct pvfs_field *f;

	memset(r, 0, sizeof(*r));
	r->type = pvfs_cur_u8(c);
	if (c->bad || (f = mgr_record_table(format, r->type)) == NULL)
		return -1;
	if (pvfs_fields_decode(c, f, r) != 0)
		return -1;
	if (r->type != MGR_REC_SETATTR && r->type != MGR_REC_END &&
	    r->type != MGR_REC_ORPHAN && r->type != MGR_REC_FREE &&
	    r->type != MGR_REC_DIRTY && r->type != MGR_REC_CLEAN &&
	    r->type != MGR_REC_REBUILD && r->type != MGR_REC_MIRROR &&
	    !mgr_record_name_ok(r->name, r->namelen))
		return -1;
	if (r->type == MGR_REC_RENAME && !mgr_record_name_ok(r->name2, r->namelen2))
		return -1;
	if (r->type == MGR_REC_SYMLINK && r->targetlen == 0)
		return -1;
	return 0;
}

/* ---- file headers ---- */

static const struct pvfs_field file_hdr_f[] = {
	PVFS_FLD(PVFS_F_U32, struct mgr_file_hdr, format),
	PVFS_FLD(PVFS_F_U32, struct mgr_file_hdr, flags),
	PVFS_FLD(PVFS_F_U64, struct mgr_file_hdr, fsid),
	PVFS_FLD(PVFS_F_U64, struct mgr_file_hdr, gen),
	PVFS_FLD(PVFS_F_U64, struct mgr_file_hdr, salt),
	PVFS_FLD(PVFS_F_U64, struct mgr_file_hdr, next_ino),
	PVFS_FLD(PVFS_F_U64, struct mgr_file_hdr, root_cookie),
	PVFS_FLD(PVFS_F_U32, struct mgr_file_hdr, pad),
	PVFS_FEND
};

static const char *
mgr_record_magic(int snapshot)
{
	return snapshot ? "PVFSSNAP" : "PVFSJRNL";
}

void
mgr_record_hdr_encode(struct pvfs_buf *b, const struct mgr_file_hdr *h)
{
	size_t start = b->len;

	pvfs_buf_put(b, mgr_record_magic(h->snapshot), 8);
	pvfs_fields_encode(b, file_hdr_f, h);
	if (b->oom)
		pvfs_fatal("out of memory (metadata file header)");
	pvfs_buf_put_u32(b, pvfs_crc32c(0, b->data + start, MGR_HDR_LEN - 4));
}

/* 0, or -1 when p is not a whole, intact format-2 header of that kind. */
int
mgr_record_hdr_decode(const uint8_t *p, size_t len, int snapshot,
    struct mgr_file_hdr *h)
{
	struct pvfs_cur c;

	memset(h, 0, sizeof(*h));
	if (len < MGR_HDR_LEN || memcmp(p, mgr_record_magic(snapshot), 8) != 0 ||
	    pvfs_crc32c(0, p, MGR_HDR_LEN - 4) != pvfs_be32_get(p + MGR_HDR_LEN - 4))
		return -1;
	pvfs_cur_init(&c, p + 8, MGR_HDR_LEN - 12);
	if (pvfs_fields_decode(&c, file_hdr_f, h) != 0 || c.left != 0)
		return -1;
	h->snapshot = snapshot;
	return h->format == MGR_FORMAT ? 0 : -1;
}

/* ---- batches ---- */

void
mgr_batch_add(struct mgr_batch *b, const struct mgr_rec *r)
{
	if (b->buf.len == 0) {
		if (pvfs_buf_reserve(&b->buf, MGR_BATCH_HDR) != 0)
			pvfs_fatal("out of memory (journal batch)");
		b->buf.len = MGR_BATCH_HDR;
	}
	mgr_record_encode(&b->buf, r);
	b->nrec++;
}

static uint32_t
mgr_batch_hdr_crc(const uint8_t *hdr, uint64_t salt)
{
	uint8_t s[8];

	pvfs_be64_put(s, salt);
	return pvfs_crc32c(pvfs_crc32c(0, s, sizeof(s)), hdr, MGR_BATCH_HDR - 4);
}

void
mgr_batch_seal(struct mgr_batch *b, uint64_t seq, uint64_t salt)
{
	uint8_t *h = b->buf.data;
	size_t n = b->buf.len - MGR_BATCH_HDR;

	pvfs_be32_put(h, (uint32_t)n);
	pvfs_be32_put(h + 4, b->nrec);
	pvfs_be64_put(h + 8, seq);
	pvfs_be32_put(h + 16, pvfs_crc32c(0, h + MGR_BATCH_HDR, n));
	pvfs_be32_put(h + 20, mgr_batch_hdr_crc(h, salt));
}

void
mgr_batch_reset(struct mgr_batch *b)
{
	pvfs_buf_reset(&b->buf);
	b->nrec = 0;
}

/* ---- scanning ---- */

/* A unit of the body: a batch (format 2) or one framed record (format
 * 1), checked whole before any of its records is used. */
struct scan_unit {
	size_t len;      /* bytes of the unit, frame included */
	uint32_t nrec;
	uint64_t seq;
	int hdr_ok;      /* the frame itself is intact */
	int complete;    /* the unit fits in the file */
};

static void
scan_frame2(const struct mgr_scan *s, const uint8_t *p, size_t left,
    struct scan_unit *u)
{
	uint32_t n;

	memset(u, 0, sizeof(*u));
	if (left < MGR_BATCH_HDR)
		return;
	if (mgr_batch_hdr_crc(p, s->salt) != pvfs_be32_get(p + 20))
		return;
	n = pvfs_be32_get(p);
	u->hdr_ok = n <= MGR_BATCH_MAX;
	u->len = MGR_BATCH_HDR + (size_t)n;
	u->nrec = pvfs_be32_get(p + 4);
	u->seq = pvfs_be64_get(p + 8);
	u->complete = u->hdr_ok && n <= left - MGR_BATCH_HDR;
}

/* Format 1 frames have no check of their own: a length that fits is the
 * most that can be known before the payload's crc. */
static void
scan_frame1(const uint8_t *p, size_t left, struct scan_unit *u)
{
	uint32_t n;

	memset(u, 0, sizeof(*u));
	if (left < 8)
		return;
	n = pvfs_be32_get(p);
	u->hdr_ok = n > 0 && n <= MGR_REC1_MAX;
	u->len = 8 + (size_t)n;
	u->nrec = 1;
	u->complete = u->hdr_ok && n <= left - 8;
}

static void
scan_frame(const struct mgr_scan *s, const uint8_t *p, size_t left,
    struct scan_unit *u)
{
	if (s->format >= 2)
		scan_frame2(s, p, left, u);
	else
		scan_frame1(p, left, u);
}

/* A unit's records: a cursor over its payload. */
static void
scan_body(const struct mgr_scan *s, const uint8_t *p, const struct scan_unit *u,
    struct pvfs_cur *c)
{
	size_t hl = s->format >= 2 ? MGR_BATCH_HDR : 8;

	pvfs_cur_init(c, p + hl, u->len - hl);
}

/* Does a complete unit's payload match its crc and hold exactly its
 * records?  Checked whole before any record is used. */
static int
scan_unit_valid(const struct mgr_scan *s, const uint8_t *p,
    const struct scan_unit *u)
{
	uint32_t want = pvfs_be32_get(p + (s->format >= 2 ? 16 : 4)), i;
	struct pvfs_cur c;
	struct mgr_rec r;

	scan_body(s, p, u, &c);
	if (u->nrec == 0 || pvfs_crc32c(0, c.p, c.left) != want)
		return 0;
	for (i = 0; i < u->nrec; i++) {
		if (mgr_record_decode(&c, s->format, &r) != 0)
			return 0;
	}
	return c.left == 0;
}

/* Pass each record of a valid unit on to s->fn, and count the unit. */
static void
scan_unit_use(struct mgr_scan *s, const uint8_t *p, const struct scan_unit *u,
    size_t off)
{
	struct pvfs_cur c;
	struct mgr_rec r;
	uint32_t i;

	scan_body(s, p, u, &c);
	for (i = 0; s->fn != NULL && i < u->nrec; i++) {
		mgr_record_decode(&c, s->format, &r);
		s->fn(&r, off, s->arg);
	}
	s->units++;
	s->records += u->nrec;
	s->last_seq = u->seq;
}

/* Is there a valid unit at p that may follow the last good one? */
static int
scan_valid_at(struct mgr_scan *s, const uint8_t *p, size_t left,
    struct scan_unit *u)
{
	scan_frame(s, p, left, u);
	if (!u->complete || (s->format >= 2 && u->seq <= s->last_seq))
		return 0;
	return scan_unit_valid(s, p, u);
}

/* The next valid unit at or after off, or len. */
static size_t
scan_next_valid(struct mgr_scan *s, const uint8_t *p, size_t off, size_t len,
    struct scan_unit *u)
{
	for (; off < len; off++) {
		if (scan_valid_at(s, p + off, len - off, u))
			return off;
	}
	return len;
}

static int
scan_all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != 0)
			return 0;
	}
	return 1;
}

/* Damage at off: count what is valid after it, and call it a torn tail
 * only if nothing is and the file simply ends inside the unit (or in
 * zeros, as a crash can leave them). */
static void
scan_damage(struct mgr_scan *s, const uint8_t *p, size_t off, size_t len,
    const struct scan_unit *bad)
{
	struct scan_unit u;
	size_t o;

	s->bad_off = off;
	for (o = scan_next_valid(s, p, off, len, &u); o < len;
	    o = scan_next_valid(s, p, o + u.len, len, &u)) {
		s->after_units++;
		s->after_records += u.nrec;
	}
	if (s->after_units == 0 &&
	    ((bad->hdr_ok && !bad->complete) || len - off < (s->format >= 2 ?
	    MGR_BATCH_HDR : 8) || scan_all_zero(p + off, len - off)))
		s->end = MGR_SCAN_TORN;
	else
		s->end = MGR_SCAN_CORRUPT;
}

/* Salvage: go on with each valid unit after damage, skipping the rest. */
static void
scan_salvage(struct mgr_scan *s, const uint8_t *p, size_t off, size_t len)
{
	struct scan_unit u;
	size_t next;

	while (off < len) {
		next = scan_next_valid(s, p, off, len, &u);
		if (next > off) {
			s->lost_bytes += next - off;
			s->lost_ranges++;
		}
		if (next >= len)
			return;
		scan_unit_use(s, p + next, &u, next);
		off = next + u.len;
	}
}

/* Walk the units of a body (what follows a file's header), passing each
 * record of each valid unit to s->fn, up to the first damage; with
 * s->salvage, past it too. */
void
mgr_scan_run(struct mgr_scan *s, const uint8_t *p, size_t len)
{
	struct scan_unit u;
	size_t off = 0;

	s->end = MGR_SCAN_CLEAN;
	while (off < len) {
		scan_frame(s, p + off, len - off, &u);
		if (!u.complete || (s->format >= 2 && u.seq != s->last_seq + 1) ||
		    !scan_unit_valid(s, p + off, &u)) {
			scan_damage(s, p, off, len, &u);
			break;
		}
		scan_unit_use(s, p + off, &u, off);
		off += u.len;
	}
	s->good_len = off;
	if (s->end != MGR_SCAN_CLEAN && s->salvage)
		scan_salvage(s, p, off, len);
}

const char *
mgr_scan_end_name(int end)
{
	return end == MGR_SCAN_CLEAN ? "clean" : end == MGR_SCAN_TORN ?
	    "torn tail" : "corrupt";
}
