/*
 * test_mgr_record.c - the mgr's on-disk records and the scanner that tells
 * a crash's torn tail from corruption: every record type round-trips;
 * a journal cut at every byte is a clean end or a torn tail and never
 * loses a whole batch before the cut; one flipped bit anywhere is
 * corruption, with the valid batches after it counted; format-1 records
 * still decode; garbage never crashes the scanner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mgr/mgr.h"

#define SALT 0x0123456789abcdefull
#define NBATCH 12

/* The journal under test: batches of 1..3 records, and where each
 * batch ends. */
struct body {
	struct pvfs_buf buf;
	size_t end[NBATCH];
	uint32_t nrec[NBATCH];
	uint64_t total;
};

static struct mgr_rec
make_rec(int i)
{
	static char names[64][32];
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = (uint8_t)(MGR_REC_CREATE + i % 6);
	r.parent = 1;
	r.parent2 = 7;
	r.ino = 100 + (uint64_t)i;
	r.gen = 0xfeedface00000000ull + (uint64_t)i;
	r.cookie = (uint64_t)i * 3;
	r.next_cookie = 2;
	r.mask = MGR_REC_ALL;
	r.mode = 0644;
	r.uid = 1000 + (uint32_t)i;
	r.gid = 100;
	r.atime_ns = r.mtime_ns = r.ctime_ns = 1700000000000000000ll + i;
	r.mset_ns = r.ctime_ns;
	r.dist.base = 1;
	r.dist.pcount = 4;
	r.dist.ssize = 65536;
	r.time = r.ctime_ns;
	snprintf(names[i % 64], sizeof(names[0]), "name-%d", i);
	r.name = r.name2 = names[i % 64];
	r.namelen = r.namelen2 = (uint16_t)strlen(names[i % 64]);
	return r;
}

static void
build_body(struct body *b)
{
	struct mgr_batch batch;
	struct mgr_rec r;
	int i, k, n = 0;

	memset(b, 0, sizeof(*b));
	memset(&batch, 0, sizeof(batch));
	for (i = 0; i < NBATCH; i++) {
		for (k = 0; k <= i % 3; k++) {
			r = make_rec(n++);
			mgr_batch_add(&batch, &r);
		}
		b->nrec[i] = batch.nrec;
		b->total += batch.nrec;
		mgr_batch_seal(&batch, (uint64_t)i + 1, SALT);
		pvfs_buf_put(&b->buf, batch.buf.data, batch.buf.len);
		b->end[i] = b->buf.len;
		mgr_batch_reset(&batch);
	}
	pvfs_buf_free(&batch.buf);
}

static void
count_rec(const struct mgr_rec *r, size_t off, void *arg)
{
	(void)r;
	(void)off;
	(*(uint64_t *)arg)++;
}

static void
scan_as(struct mgr_scan *s, const uint8_t *p, size_t len, int format,
    uint64_t salt, int salvage, uint64_t *seen)
{
	memset(s, 0, sizeof(*s));
	*seen = 0;
	s->format = format;
	s->salt = salt;
	s->salvage = salvage;
	s->fn = count_rec;
	s->arg = seen;
	mgr_scan_run(s, p, len);
}

static void
scan(struct mgr_scan *s, const uint8_t *p, size_t len, uint64_t *seen)
{
	scan_as(s, p, len, 2, SALT, 0, seen);
}

/* Records in the batches wholly below off. */
static uint64_t
records_before(const struct body *b, size_t off)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < NBATCH && b->end[i] <= off; i++)
		n += b->nrec[i];
	return n;
}

static void
test_roundtrip_every_type(void **state)
{
	struct pvfs_buf buf;
	struct pvfs_cur c;
	struct mgr_rec in, out;
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		memset(&buf, 0, sizeof(buf));
		in = make_rec(i);
		mgr_record_encode(&buf, &in);
		pvfs_cur_init(&c, buf.data, buf.len);
		assert_int_equal(mgr_record_decode(&c, 2, &out), 0);
		assert_int_equal(c.left, 0);
		assert_int_equal(out.type, in.type);
		if (in.type == MGR_REC_CREATE || in.type == MGR_REC_MKDIR) {
			assert_true(out.ino == in.ino && out.gen == in.gen);
			assert_true(out.dist.ssize == in.dist.ssize);
		}
		if (in.type != MGR_REC_SETATTR && in.type != MGR_REC_END) {
			assert_int_equal(out.namelen, in.namelen);
			assert_memory_equal(out.name, in.name, in.namelen);
		}
		pvfs_buf_free(&buf);
	}
}

/* Type 8: its text survives; format 1 has no such record; an empty text
 * is refused. */
static void
test_symlink_record(void **state)
{
	static char big[MGR_LINK_MAX + 2];
	struct pvfs_buf buf;
	struct pvfs_cur c;
	struct mgr_rec in, out;

	(void)state;
	memset(big, 'y', MGR_LINK_MAX);
	memset(&in, 0, sizeof(in));
	in.type = MGR_REC_SYMLINK;
	in.parent = 1;
	in.ino = 9;
	in.uid = 7;
	in.mset_ns = 5;
	in.name = "l";
	in.namelen = 1;
	in.target = big;
	in.targetlen = MGR_LINK_MAX;
	memset(&buf, 0, sizeof(buf));
	mgr_record_encode(&buf, &in);
	pvfs_cur_init(&c, buf.data, buf.len);
	assert_int_equal(mgr_record_decode(&c, 2, &out), 0);
	assert_int_equal(c.left, 0);
	assert_int_equal(out.type, MGR_REC_SYMLINK);
	assert_true(out.ino == 9 && out.uid == 7 && out.mset_ns == 5);
	assert_int_equal(out.targetlen, MGR_LINK_MAX);
	assert_memory_equal(out.target, big, MGR_LINK_MAX);
	pvfs_cur_init(&c, buf.data, buf.len);
	assert_int_equal(mgr_record_decode(&c, 1, &out), -1);
	/* Text length 0, and one byte past the limit. */
	buf.data[buf.len - MGR_LINK_MAX - 2] = 0;
	buf.data[buf.len - MGR_LINK_MAX - 1] = 0;
	pvfs_cur_init(&c, buf.data, buf.len - MGR_LINK_MAX);
	assert_int_equal(mgr_record_decode(&c, 2, &out), -1);
	pvfs_buf_free(&buf);
}

static void
test_bad_names_refused(void **state)
{
	static const char *bad[] = { "", ".", "..", "a/b" };
	struct pvfs_buf buf;
	struct pvfs_cur c;
	struct mgr_rec in, out;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&buf, 0, sizeof(buf));
		in = make_rec(2); /* UNLINK */
		in.name = bad[i];
		in.namelen = (uint16_t)strlen(bad[i]);
		mgr_record_encode(&buf, &in);
		pvfs_cur_init(&c, buf.data, buf.len);
		assert_int_equal(mgr_record_decode(&c, 2, &out), -1);
		pvfs_buf_free(&buf);
	}
}

static void
test_clean_journal(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen;

	(void)state;
	build_body(&b);
	scan(&s, b.buf.data, b.buf.len, &seen);
	assert_int_equal(s.end, MGR_SCAN_CLEAN);
	assert_int_equal(seen, b.total);
	assert_int_equal(s.units, NBATCH);
	assert_int_equal(s.last_seq, NBATCH);
	assert_int_equal(s.good_len, b.buf.len);
	pvfs_buf_free(&b.buf);
}

/* A cut anywhere is what a crash leaves: never corruption, and exactly
 * the whole batches before the cut are kept. */
static void
test_cut_at_every_byte(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen;
	size_t cut;
	int i, boundary;

	(void)state;
	build_body(&b);
	for (cut = 0; cut <= b.buf.len; cut++) {
		scan(&s, b.buf.data, cut, &seen);
		boundary = cut == 0;
		for (i = 0; i < NBATCH; i++)
			boundary |= b.end[i] == cut;
		if (s.end != (boundary ? MGR_SCAN_CLEAN : MGR_SCAN_TORN))
			fail_msg("cut at %zu: end %s", cut, mgr_scan_end_name(s.end));
		assert_int_equal(seen, records_before(&b, cut));
		assert_int_equal(s.after_units, 0);
	}
	pvfs_buf_free(&b.buf);
}

/* One flipped bit in any byte, first batch to last, is corruption; the
 * batches after it are counted and none of them is used. */
static void
test_flip_every_byte(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen, after;
	size_t off;
	int i;

	(void)state;
	build_body(&b);
	for (off = 0; off < b.buf.len; off++) {
		b.buf.data[off] ^= (uint8_t)(1u << (off % 8));
		scan(&s, b.buf.data, b.buf.len, &seen);
		b.buf.data[off] ^= (uint8_t)(1u << (off % 8));
		if (s.end != MGR_SCAN_CORRUPT)
			fail_msg("flip at %zu: end %s", off, mgr_scan_end_name(s.end));
		assert_int_equal(seen, records_before(&b, off));
		for (i = 0, after = 0; i < NBATCH; i++)
			if (i > 0 && b.end[i - 1] > off)
				after += b.nrec[i];
		/* every batch after the damaged one, found again */
		assert_int_equal(s.after_records, after);
	}
	pvfs_buf_free(&b.buf);
}

static void
test_zero_tail_is_torn(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen;
	size_t len;

	(void)state;
	build_body(&b);
	len = b.buf.len;
	pvfs_buf_reserve(&b.buf, 4096);
	memset(b.buf.data + len, 0, 4096);
	scan(&s, b.buf.data, len + 4096, &seen);
	assert_int_equal(s.end, MGR_SCAN_TORN);
	assert_int_equal(seen, b.total);
	assert_int_equal(s.good_len, len);
	pvfs_buf_free(&b.buf);
}

/* A batch that went missing (its neighbours intact) breaks the sequence. */
static void
test_missing_batch_is_corrupt(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen;
	size_t gap;

	(void)state;
	build_body(&b);
	gap = b.end[4] - b.end[3];
	memmove(b.buf.data + b.end[3], b.buf.data + b.end[4], b.buf.len - b.end[4]);
	scan(&s, b.buf.data, b.buf.len - gap, &seen);
	assert_int_equal(s.end, MGR_SCAN_CORRUPT);
	assert_int_equal(seen, records_before(&b, b.end[3]));
	assert_int_equal(s.after_units, NBATCH - 5);
	pvfs_buf_free(&b.buf);
}

/* Another file's batches (another salt) are not this file's. */
static void
test_other_salt_is_corrupt(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen = 0;

	(void)state;
	build_body(&b);
	scan_as(&s, b.buf.data, b.buf.len, 2, SALT + 1, 0, &seen);
	assert_int_equal(s.end, MGR_SCAN_CORRUPT);
	assert_int_equal(seen, 0);
	pvfs_buf_free(&b.buf);
}

/* Salvage keeps the batches after the damage and counts what it skipped. */
static void
test_salvage_goes_on(void **state)
{
	struct body b;
	struct mgr_scan s;
	uint64_t seen = 0;
	size_t off;

	(void)state;
	build_body(&b);
	off = b.end[5] + 30;
	b.buf.data[off] ^= 0x40;
	scan_as(&s, b.buf.data, b.buf.len, 2, SALT, 1, &seen);
	assert_int_equal(s.end, MGR_SCAN_CORRUPT);
	assert_int_equal(seen, b.total - b.nrec[6]);
	assert_int_equal(s.lost_bytes, b.end[6] - b.end[5]);
	pvfs_buf_free(&b.buf);
}

/* Format 1: records framed alone (u32 length, u32 crc), no gen. */
static size_t
put_v1_unlink(struct pvfs_buf *b, const char *name)
{
	struct pvfs_buf p;
	size_t n;

	memset(&p, 0, sizeof(p));
	pvfs_buf_put_u8(&p, MGR_REC_UNLINK);
	pvfs_buf_put_u64(&p, 1);
	pvfs_buf_put_u64(&p, 42);
	pvfs_buf_put_u64(&p, 5);
	pvfs_buf_put_u16(&p, (uint16_t)strlen(name));
	pvfs_buf_put(&p, name, strlen(name));
	pvfs_buf_put_u32(b, (uint32_t)p.len);
	pvfs_buf_put_u32(b, pvfs_crc32c(0, p.data, p.len));
	pvfs_buf_put(b, p.data, p.len);
	n = p.len + 8;
	pvfs_buf_free(&p);
	return n;
}

static void
test_format1_records(void **state)
{
	struct pvfs_buf b;
	struct mgr_scan s;
	uint64_t seen = 0;
	size_t first;

	(void)state;
	memset(&b, 0, sizeof(b));
	first = put_v1_unlink(&b, "a");
	put_v1_unlink(&b, "bb");
	put_v1_unlink(&b, "ccc");
	scan_as(&s, b.data, b.len, 1, 0, 0, &seen);
	assert_int_equal(s.end, MGR_SCAN_CLEAN);
	assert_int_equal(seen, 3);
	b.data[first + 12] ^= 1; /* inside the second record */
	scan_as(&s, b.data, b.len, 1, 0, 0, &seen);
	assert_int_equal(s.end, MGR_SCAN_CORRUPT);
	assert_int_equal(seen, 1);
	assert_int_equal(s.after_records, 1);
	pvfs_buf_free(&b);
}

static void
test_file_header(void **state)
{
	struct pvfs_buf b;
	struct mgr_file_hdr h, out;
	size_t i;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&h, 0, sizeof(h));
	h.snapshot = 1;
	h.format = MGR_FORMAT;
	h.fsid = 0xabcdef;
	h.gen = 9;
	h.salt = SALT;
	h.next_ino = 1234;
	h.root_cookie = 77;
	mgr_record_hdr_encode(&b, &h);
	assert_int_equal(b.len, MGR_HDR_LEN);
	assert_int_equal(mgr_record_hdr_decode(b.data, b.len, 1, &out), 0);
	assert_true(out.fsid == h.fsid && out.gen == 9 && out.salt == SALT &&
	    out.next_ino == 1234 && out.root_cookie == 77);
	assert_int_equal(mgr_record_hdr_decode(b.data, b.len, 0, &out), -1);
	for (i = 0; i < MGR_HDR_LEN; i++) {
		b.data[i] ^= 4;
		assert_int_equal(mgr_record_hdr_decode(b.data, b.len, 1, &out), -1);
		b.data[i] ^= 4;
	}
	pvfs_buf_free(&b);
}

static void
test_garbage_never_crashes(void **state)
{
	uint8_t junk[4096];
	struct mgr_scan s;
	uint64_t seen;
	int round;
	size_t i;

	(void)state;
	srand(12345);
	for (round = 0; round < 200; round++) {
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)(round % 3 == 0 ? rand() % 4 : rand());
		scan(&s, junk, sizeof(junk), &seen);
		assert_int_not_equal(s.end, MGR_SCAN_CLEAN);
		scan_as(&s, junk, sizeof(junk), 1, 0, 1, &seen);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_type),
		cmocka_unit_test(test_bad_names_refused),
		cmocka_unit_test(test_symlink_record),
		cmocka_unit_test(test_clean_journal),
		cmocka_unit_test(test_cut_at_every_byte),
		cmocka_unit_test(test_flip_every_byte),
		cmocka_unit_test(test_zero_tail_is_torn),
		cmocka_unit_test(test_missing_batch_is_corrupt),
		cmocka_unit_test(test_other_salt_is_corrupt),
		cmocka_unit_test(test_salvage_goes_on),
		cmocka_unit_test(test_format1_records),
		cmocka_unit_test(test_file_header),
		cmocka_unit_test(test_garbage_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
