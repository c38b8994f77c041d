/* fuzz_frame.c - libFuzzer target: any bytes as a frame (header + body) of
 * any opcode.  A body that decodes must re-encode to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const uint16_t ops[] = {
	PVFS_MGR_PING, PVFS_MGR_FSINFO, PVFS_MGR_OPEN, PVFS_MGR_STAT,
	PVFS_MGR_GETATTR, PVFS_MGR_SETATTR, PVFS_MGR_TRUNCATE, PVFS_MGR_UNLINK,
	PVFS_MGR_MKDIR, PVFS_MGR_RMDIR, PVFS_MGR_RENAME, PVFS_MGR_READDIR,
	PVFS_MGR_ACCESS, PVFS_MGR_STATFS, PVFS_IOD_PING, PVFS_IOD_READ,
	PVFS_IOD_WRITE, PVFS_IOD_TRUNCATE, PVFS_IOD_REMOVE, PVFS_IOD_FSYNC,
	PVFS_IOD_SIZE, PVFS_IOD_STATFS, PVFS_IOD_READ_LIST, PVFS_IOD_WRITE_LIST,
};

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvfs_hdr h;

	if (size < PVFS_HDR_LEN)
		return 0;
	if (pvfs_hdr_decode(data, &h) == 0 && h.body_len <= size - PVFS_HDR_LEN)
		check_body(h.op, (h.flags & PVFS_HDR_REPLY) != 0,
		    data + PVFS_HDR_LEN, h.body_len);
	/* The same bytes as the body of an opcode chosen by the header's
	 * first byte: reaches every decoder whatever the header says. */
	check_body(ops[data[0] % (sizeof(ops) / sizeof(ops[0]))], data[1] & 1,
	    data + PVFS_HDR_LEN, size - PVFS_HDR_LEN);
	return 0;
}
