/*
 * test_hostile.c - malformed, truncated, oversized and out-of-order frames
 * sent by a raw client to the running daemons (forged capabilities are
 * test_caps.c's).
 * Each bad peer gets an error reply or a closed connection, never a crashed
 * or stuck daemon: after each attack a normal client is served correctly.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define DATA_LEN (3 * 65536 + 123)

static struct cluster c;
static uint8_t data[DATA_LEN];

static void
send_header(int fd, uint32_t magic, uint16_t version, uint16_t op,
    uint32_t body_len, uint32_t flags)
{
	struct pvfs_hdr h = { magic, version, op, 7, 0, body_len, flags };
	uint8_t raw[PVFS_HDR_LEN];

	pvfs_hdr_encode(&h, raw);
	raw_send(fd, raw, sizeof(raw));
}

/* A normal client is still served: names and bytes come back right. */
static void
assert_still_serving(void)
{
	char path[PATH_MAX];
	uint8_t back[DATA_LEN];
	struct stat st;
	int fd;

	check_ok(pvfs_stat(cluster_path(&c, "data", path), &st));
	assert_int_equal(st.st_size, DATA_LEN);
	fd = check_ok(pvfs_open(path, O_RDONLY));
	assert_int_equal(pvfs_pread(fd, back, DATA_LEN, 0), DATA_LEN);
	assert_memory_equal(back, data, DATA_LEN);
	check_ok(pvfs_close(fd));
}

static void
each_daemon(void (*attack)(const char *daemon))
{
	static const char *daemons[] = { "mgr", "iod0", "iod3" };
	size_t i;

	for (i = 0; i < sizeof(daemons) / sizeof(daemons[0]); i++) {
		attack(daemons[i]);
		assert_still_serving();
	}
}

static void
attack_garbage(const char *daemon)
{
	int fd = raw_connect(&c, daemon, 5);
	char junk[] = "GET / HTTP/1.0\r\n\r\n and then some more bytes to fill";

	raw_send(fd, junk, sizeof(junk));
	raw_assert_closed(fd);
	close(fd);
}

static void
attack_bad_version(const char *daemon)
{
	struct pvfs_hdr h;
	int fd = raw_connect(&c, daemon, 5);

	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION + 1, PVFS_MGR_PING, 0, 0);
	assert_int_equal(raw_status(fd, &h), EPROTO);
	raw_assert_closed(fd);
	close(fd);
}

static void
attack_oversized(const char *daemon)
{
	struct pvfs_hdr h;
	int fd = raw_connect(&c, daemon, 5);

	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, PVFS_MGR_STAT,
	    0xfffffff0u, 0);
	assert_int_equal(raw_status(fd, &h), EMSGSIZE);
	raw_assert_closed(fd);
	close(fd);
}

/* A reply where a request belongs: out of order. */
static void
attack_reply_as_request(const char *daemon)
{
	struct pvfs_hdr h;
	int fd = raw_connect(&c, daemon, 5);

	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, PVFS_MGR_PING, 0,
	    PVFS_HDR_REPLY);
	assert_int_equal(raw_status(fd, &h), EPROTO);
	raw_assert_closed(fd);
	close(fd);
}

/* A well-framed body that does not have its opcode's shape. */
static void
attack_malformed_body(const char *daemon)
{
	uint8_t body[40];
	struct pvfs_hdr h;
	int fd = raw_connect(&c, daemon, 5);
	uint16_t op = daemon[0] == 'm' ? PVFS_MGR_STAT : PVFS_IOD_READ;

	memset(body, 0xff, sizeof(body));
	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, op, sizeof(body), 0);
	raw_send(fd, body, sizeof(body));
	assert_int_equal(raw_status(fd, &h), EPROTO);
	raw_assert_closed(fd);
	close(fd);
}

/* An unknown opcode is refused but the connection stays usable. */
static void
attack_unknown_opcode(const char *daemon)
{
	struct pvfs_hdr h;
	int fd = raw_connect(&c, daemon, 5);
	uint16_t ping = daemon[0] == 'm' ? PVFS_MGR_PING : PVFS_IOD_PING;
	uint8_t body[64];

	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, 0x0777, 0, 0);
	assert_int_equal(raw_status(fd, &h), EOPNOTSUPP);
	raw_send_frame(fd, ping, 0, NULL);
	assert_int_equal(raw_status(fd, &h), 0);
	assert_int_equal(h.op, ping);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	close(fd);
}

/* The peer vanishes in the middle of a header, then of a body. */
static void
attack_truncated(const char *daemon)
{
	uint8_t half[PVFS_HDR_LEN / 2] = { 0x50, 0x56, 0x46, 0x31 };
	int fd = raw_connect(&c, daemon, 5);

	raw_send(fd, half, sizeof(half));
	close(fd);
	fd = raw_connect(&c, daemon, 5);
	send_header(fd, PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, PVFS_MGR_STAT, 500, 0);
	raw_send(fd, half, sizeof(half));
	close(fd);
}

static void test_garbage(void **state) { each_daemon(attack_garbage); }
static void test_bad_version(void **state) { each_daemon(attack_bad_version); }
static void test_oversized_body(void **state) { each_daemon(attack_oversized); }
static void test_reply_as_request(void **state) { each_daemon(attack_reply_as_request); }
static void test_malformed_body(void **state) { each_daemon(attack_malformed_body); }
static void test_unknown_opcode(void **state) { each_daemon(attack_unknown_opcode); }
static void test_truncated_frames(void **state) { each_daemon(attack_truncated); }

/* The file the attacks aim at. */
static int
group_ready(void)
{
	char path[PATH_MAX];
	size_t i;
	int fd;

	for (i = 0; i < DATA_LEN; i++)
		data[i] = (uint8_t)(i * 31 + i / 65536);
	fd = pvfs_open(cluster_path(&c, "data", path), O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || pvfs_write(fd, data, DATA_LEN) != DATA_LEN || pvfs_close(fd) != 0)
		return -1;
	return 0;
}

/* Many requests in one send: the iod reads ahead into its connection's
 * buffer and must answer each, in order, also past its per-wake-up
 * budget (IOD_BUDGET_REQS) when the rest already sits in that buffer. */
static void
test_iod_pipelined_requests(void **state)
{
	struct pvfs_none none = { 0 };
	struct pvfs_buf out;
	struct pvfs_hdr h;
	uint8_t body[256];
	int fd = raw_connect(&c, "iod0", 5), i, n = 100;

	(void)state;
	pvfs_buf_init(&out);
	for (i = 0; i < n; i++)
		assert_int_equal(pvfs_frame_encode(&out, PVFS_IOD_PING,
		    1000 + (uint32_t)i, 0, 0, &none), 0);
	raw_send(fd, out.data, out.len);
	for (i = 0; i < n; i++) {
		assert_int_equal(raw_status(fd, &h), 0);
		assert_int_equal(h.reqid, 1000 + (uint32_t)i);
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
	}
	pvfs_buf_free(&out);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_iod_pipelined_requests),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_oversized_body),
		cmocka_unit_test(test_reply_as_request),
		cmocka_unit_test(test_malformed_body),
		cmocka_unit_test(test_unknown_opcode),
		cmocka_unit_test(test_truncated_frames),
	};

	return cluster_run_tests(&c, NIODS, group_ready, tests);
}
