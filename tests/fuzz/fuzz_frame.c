/* fuzz_frame.c - libFuzzer target: any bytes as a frame (header + body) of
 * any opcode.  A body that decodes must re-encode to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pvfs-proto.h"

/* The n-th opcode of both ranges, so a new message is fuzzed the day it is
 * added to enum pvfs_op. */
static uint16_t
nth_op(unsigned n)
{
	unsigned nmgr = PVFS_MGR_OP_END - PVFS_MGR_PING;
	unsigned niod = PVFS_IOD_OP_END - PVFS_IOD_PING;

	n %= nmgr + niod;
	return (uint16_t)(n < nmgr ? PVFS_MGR_PING + n : PVFS_IOD_PING + n - nmgr);
}

/* Decode body as op's request or reply; on success the re-encoded frame
 * must carry exactly the same body. */
static void
check_body(uint16_t op, int reply, const uint8_t *body, size_t len)
{
	size_t size = pvfs_msg_size(op, reply);
	void *msg = malloc(size ? size : 1);
	struct pvfs_buf b;

	if (size > 0 && pvfs_msg_decode(op, reply, body, len, msg) == 0) {
		pvfs_buf_init(&b);
		if (pvfs_frame_encode(&b, op, 1, reply, 0, msg) != 0 ||
		    b.len != PVFS_HDR_LEN + len ||
		    memcmp(b.data + PVFS_HDR_LEN, body, len) != 0)
			abort();
		pvfs_buf_free(&b);
		pvfs_msg_free(op, reply, msg);
	}
	free(msg);
}

/* A PVFS_ST_LINK reply's body, whatever the (known) opcode: the same
 * check. */
static void
check_link(uint16_t op, const uint8_t *body, size_t len)
{
	static struct pvfs_link_rep l;
	struct pvfs_buf b;

	if (pvfs_msg_size(op, 1) == 0 || pvfs_link_decode(body, len, &l) != 0)
		return; /* an opcode nobody encodes, or not a link's body */
	pvfs_buf_init(&b);
	if (pvfs_frame_encode(&b, op, 1, 1, PVFS_ST_LINK, &l) != 0 ||
	    b.len != PVFS_HDR_LEN + len ||
	    memcmp(b.data + PVFS_HDR_LEN, body, len) != 0)
		abort();
	pvfs_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvfs_hdr h;

	if (size < PVFS_HDR_LEN)
		return 0;
	if (pvfs_hdr_decode(data, &h) == 0 && h.body_len <= size - PVFS_HDR_LEN) {
		if (h.status == PVFS_ST_LINK)
			check_link(h.op, data + PVFS_HDR_LEN, h.body_len);
		else
			check_body(h.op, (h.flags & PVFS_HDR_REPLY) != 0,
			    data + PVFS_HDR_LEN, h.body_len);
	}
	/* The same bytes as the body of an opcode chosen by the header's
	 * first byte: reaches every decoder whatever the header says. */
	check_body(nth_op(data[0]), data[1] & 1,
	    data + PVFS_HDR_LEN, size - PVFS_HDR_LEN);
	return 0;
}
