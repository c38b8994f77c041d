/* test_proto.c - every message round-trips; hostile bytes are refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "xorshift.h"
#include "proto-table.h"

static void fill_fields(const struct pvfs_field *f, uint8_t *base, int big);

static void
fill_str(char *s, uint32_t max, int big)
{
	uint32_t n = big ? max : (uint32_t)(xorshift() % (max < 40 ? max + 1 : 41));
	uint32_t i;

	for (i = 0; i < n; i++)
		s[i] = (char)('a' + xorshift() % 26);
	s[n] = '\0';
}

static void
fill_array(const struct pvfs_field *f, uint8_t *base, int big)
{
	uint32_t i, n = (uint32_t)(xorshift() % 4);
	uint8_t *elems = n ? calloc(n, f->elem_size) : NULL;

	for (i = 0; i < n; i++)
		fill_fields(f->sub, elems + (size_t)i * f->elem_size, big);
	memcpy(base + f->count_off, &n, sizeof(n));
	memcpy(base + f->off, &elems, sizeof(elems));
}

/* Random values for every field a table describes. */
static void
fill_fields(const struct pvfs_field *f, uint8_t *base, int big)
{
	struct pvfs_cred *cr;
	uint32_t i;

	for (; f->type != PVFS_F_END; f++) {
		uint8_t *p = base + f->off;

		switch (f->type) {
		case PVFS_F_U8: *p = (uint8_t)xorshift(); break;
		case PVFS_F_U16: *(uint16_t *)p = (uint16_t)xorshift(); break;
		case PVFS_F_U32: *(uint32_t *)p = (uint32_t)xorshift(); break;
		case PVFS_F_U64: *(uint64_t *)p = xorshift(); break;
		case PVFS_F_STR: fill_str((char *)p, f->max, big); break;
		case PVFS_F_MAC:
			for (i = 0; i < PVFS_MAC_LEN; i++)
				p[i] = (uint8_t)xorshift();
			break;
		case PVFS_F_CRED:
			cr = (struct pvfs_cred *)p;
			cr->uid = (uint32_t)xorshift();
			cr->gid = (uint32_t)xorshift();
			cr->ngroups = (uint32_t)(xorshift() % (PVFS_MAX_GROUPS + 1));
			for (i = 0; i < cr->ngroups; i++)
				cr->groups[i] = (uint32_t)xorshift();
			break;
		case PVFS_F_STRUCT: fill_fields(f->sub, p, big); break;
		case PVFS_F_ARRAY: fill_array(f, base, big); break;
		}
	}
}

static const uint16_t all_ops[] = {
	PVFS_MGR_PING, PVFS_MGR_FSINFO, PVFS_MGR_OPEN, PVFS_MGR_STAT,
	PVFS_MGR_GETATTR, PVFS_MGR_SETATTR, PVFS_MGR_TRUNCATE, PVFS_MGR_UNLINK,
	PVFS_MGR_MKDIR, PVFS_MGR_RMDIR, PVFS_MGR_RENAME, PVFS_MGR_READDIR,
	PVFS_MGR_ACCESS, PVFS_MGR_STATFS, PVFS_MGR_READDIRPLUS, PVFS_IOD_PING,
	PVFS_IOD_READ, PVFS_IOD_WRITE, PVFS_IOD_TRUNCATE, PVFS_IOD_REMOVE,
	PVFS_IOD_FSYNC,
	PVFS_IOD_SIZE, PVFS_IOD_STATFS, PVFS_IOD_READ_LIST, PVFS_IOD_WRITE_LIST,
};
#define NOPS (sizeof(all_ops) / sizeof(all_ops[0]))

/* A random message of op, encoded as a frame into out. */
static void *
random_frame(uint16_t op, int reply, int big, struct pvfs_buf *out)
{
	const struct pvfs_msgdesc *d = pvfs_msgdesc_find(op);
	size_t size = pvfs_msg_size(op, reply);
	void *msg = calloc(1, size);

	assert_non_null(d);
	assert_true(size > 0);
	fill_fields(reply ? d->rep : d->req, msg, big);
	assert_int_equal(pvfs_frame_encode(out, op, 77, reply, 0, msg), 0);
	return msg;
}

static void
check_round_trip(uint16_t op, int reply, int big)
{
	struct pvfs_buf a, b;
	struct pvfs_hdr h;
	void *msg, *back = calloc(1, pvfs_msg_size(op, reply));

	pvfs_buf_init(&a);
	pvfs_buf_init(&b);
	msg = random_frame(op, reply, big, &a);
	assert_int_equal(pvfs_hdr_decode(a.data, &h), 0);
	assert_int_equal(h.op, op);
	assert_int_equal(h.reqid, 77);
	assert_int_equal(h.flags, reply ? PVFS_HDR_REPLY : 0);
	assert_int_equal(h.body_len, a.len - PVFS_HDR_LEN);
	assert_int_equal(pvfs_msg_decode(op, reply, a.data + PVFS_HDR_LEN,
	    h.body_len, back), 0);
	assert_int_equal(pvfs_frame_encode(&b, op, 77, reply, 0, back), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	pvfs_msg_free(op, reply, msg);
	pvfs_msg_free(op, reply, back);
	free(msg);
	free(back);
	pvfs_buf_free(&a);
	pvfs_buf_free(&b);
}

static void
test_every_message_round_trips(void **state)
{
	size_t i;
	int k;

	for (i = 0; i < NOPS; i++) {
		for (k = 0; k < 50; k++) {
			check_round_trip(all_ops[i], 0, k == 0);
			check_round_trip(all_ops[i], 1, k == 0);
		}
	}
}

static void
test_known_values_survive(void **state)
{
	struct pvfs_mgr_open_req in, out;
	struct pvfs_buf b;

	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	in.cred.uid = 1000;
	in.cred.ngroups = 2;
	in.cred.groups[1] = 27;
	in.flags = PVFS_OF_CREAT | PVFS_OF_RDWR;
	in.mode = 0644;
	in.dist.pcount = PVFS_DIST_DEFAULT;
	strcpy(in.path, "/dir/file");
	pvfs_buf_init(&b);
	assert_int_equal(pvfs_frame_encode(&b, PVFS_MGR_OPEN, 1, 0, 0, &in), 0);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_OPEN, 0, b.data + PVFS_HDR_LEN,
	    b.len - PVFS_HDR_LEN, &out), 0);
	assert_int_equal(out.cred.uid, 1000);
	assert_int_equal(out.cred.ngroups, 2);
	assert_int_equal(out.cred.groups[1], 27);
	assert_int_equal(out.flags, in.flags);
	assert_int_equal(out.mode, 0644);
	assert_int_equal(out.dist.pcount, PVFS_DIST_DEFAULT);
	assert_string_equal(out.path, "/dir/file");
	pvfs_buf_free(&b);
}

/* Every proper prefix of a valid body, and the body plus a byte, must be
 * refused without crashing or leaking (run under ASan in CI). */
static void
test_truncated_and_extended_bodies_rejected(void **state)
{
	struct pvfs_buf a;
	size_t i, cut, blen;
	void *msg, *back;
	uint8_t *body;

	for (i = 0; i < NOPS; i++) {
		int reply;

		for (reply = 0; reply < 2; reply++) {
			pvfs_buf_init(&a);
			msg = random_frame(all_ops[i], reply, 0, &a);
			blen = a.len - PVFS_HDR_LEN;
			body = malloc(blen + 1);
			memcpy(body, a.data + PVFS_HDR_LEN, blen);
			body[blen] = 0;
			back = calloc(1, pvfs_msg_size(all_ops[i], reply));
			for (cut = 0; cut < blen; cut++)
				assert_int_equal(pvfs_msg_decode(all_ops[i], reply,
				    body, cut, back), -EPROTO);
			if (blen > 0 || all_ops[i] != PVFS_MGR_PING)
				assert_int_equal(pvfs_msg_decode(all_ops[i], reply,
				    body, blen + 1, back), -EPROTO);
			pvfs_msg_free(all_ops[i], reply, msg);
			free(msg);
			free(back);
			free(body);
			pvfs_buf_free(&a);
		}
	}
}

static void
test_garbage_bodies_do_not_crash(void **state)
{
	uint8_t body[2048];
	size_t i, j, len;
	void *back;
	int k;

	for (k = 0; k < 20000; k++) {
		i = xorshift() % NOPS;
		len = xorshift() % sizeof(body);
		for (j = 0; j < len; j++)
			body[j] = (uint8_t)(k % 3 == 0 ? xorshift() % 4 : xorshift());
		back = calloc(1, pvfs_msg_size(all_ops[i], k & 1));
		if (pvfs_msg_decode(all_ops[i], k & 1, body, len, back) == 0)
			pvfs_msg_free(all_ops[i], k & 1, back);
		free(back);
	}
}

static void
test_hostile_headers_rejected(void **state)
{
	struct pvfs_hdr ok = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, PVFS_MGR_PING,
		1, 0, 0, 0 }, h, out;
	uint8_t raw[PVFS_HDR_LEN];

	h = ok;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), 0);
	h = ok, h.magic ^= 1;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EPROTO);
	h = ok, h.version = PVFS_PROTO_VERSION + 1;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EPROTO);
	h = ok, h.body_len = PVFS_MAX_BODY + 1;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EMSGSIZE);
	h = ok, h.body_len = UINT32_MAX;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EMSGSIZE);
	h = ok, h.flags = 0x80;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EPROTO);
	h = ok, h.status = -5;
	pvfs_hdr_encode(&h, raw);
	assert_int_equal(pvfs_hdr_decode(raw, &out), -EPROTO);
}

/* Strings: embedded NUL and over-long lengths; arrays: counts that the
 * received bytes cannot hold must not allocate. */
static void
test_hostile_lengths_rejected(void **state)
{
	struct pvfs_mgr_path_req req;
	struct pvfs_mgr_readdir_rep rep;
	struct pvfs_mgr_fsinfo_rep fs;
	uint8_t body[64] = { 0 };
	uint8_t big[PVFS_PATH_MAX + 32];

	/* cred (uid, gid, ngroups=0) then path "a\0b" */
	body[13] = 3, body[14] = 'a', body[15] = 0, body[16] = 'b';
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_STAT, 0, body, 17, &req), -EPROTO);
	/* ngroups too large */
	body[11] = 33;
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_STAT, 0, body, 17, &req), -EPROTO);
	/* path length beyond PVFS_PATH_MAX */
	memset(big, 'x', sizeof(big));
	memset(big, 0, 12);
	pvfs_be16_put(big + 12, PVFS_PATH_MAX + 1);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_STAT, 0, big,
	    14 + PVFS_PATH_MAX + 1, &req), -EPROTO);
	/* readdir reply claiming 1000 entries in 5 bytes; and too many */
	memset(body, 0, sizeof(body));
	pvfs_be32_put(body + 1, 1000);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_READDIR, 1, body, 5, &rep), -EPROTO);
	pvfs_be32_put(body + 1, PVFS_READDIR_MAX + 1);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_READDIR, 1, body, 5, &rep), -EPROTO);
	/* fsinfo with 0xffffffff iods */
	memset(body, 0, sizeof(body));
	pvfs_be32_put(body + 12, 0xffffffffu);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_FSINFO, 1, body, 16, &fs), -EPROTO);
	/* unknown opcode */
	assert_int_equal(pvfs_msg_decode(0x0999, 0, body, 0, &req), -EPROTO);
	assert_int_equal(pvfs_msg_size(0x0999, 0), 0);
}

static void
test_encode_refuses_invalid(void **state)
{
	struct pvfs_mgr_fsinfo_rep fs;
	struct pvfs_mgr_rename_req rn;
	struct pvfs_buf b;

	pvfs_buf_init(&b);
	memset(&fs, 0, sizeof(fs));
	fs.niods = 2; /* but no array */
	assert_true(pvfs_frame_encode(&b, PVFS_MGR_FSINFO, 1, 1, 0, &fs) < 0);
	assert_int_equal(b.len, 0);
	memset(&rn, 'x', sizeof(rn)); /* strings not terminated */
	assert_true(pvfs_frame_encode(&b, PVFS_MGR_RENAME, 1, 0, 0, &rn) < 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(pvfs_frame_encode(&b, 0x0999, 1, 0, 0, &rn), -EINVAL);
	/* an error reply has an empty body */
	assert_int_equal(pvfs_frame_encode(&b, PVFS_MGR_STAT, 9, 1, ENOENT, NULL), 0);
	assert_int_equal(b.len, PVFS_HDR_LEN);
	pvfs_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_message_round_trips),
		cmocka_unit_test(test_known_values_survive),
		cmocka_unit_test(test_truncated_and_extended_bodies_rejected),
		cmocka_unit_test(test_garbage_bodies_do_not_crash),
		cmocka_unit_test(test_hostile_headers_rejected),
		cmocka_unit_test(test_hostile_lengths_rejected),
		cmocka_unit_test(test_encode_refuses_invalid),
	};

	xorshift_state = 0x243f6a8885a308d3ULL; /* the same bytes every run */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
