/* hello.c - the macs of IOD_HELLO, which carries the mgr's clock and the
 * label it expects: only a holder of the shared key can make them. */
#include <string.h>

#include "common.h"
#include "pvfs-proto.h"

#define HELLO_REQ_TAG "pvfs-hello"
#define HELLO_REP_TAG "pvfs-hello-reply"
#define HELLO_MSG_MAX 96

void
pvfs_hello_req_mac(const struct pvfs_iod_hello_req *r, const uint8_t *key,
    size_t keylen, uint8_t mac[PVFS_MAC_LEN])
{
	uint8_t msg[HELLO_MSG_MAX];
	size_t n = sizeof(HELLO_REQ_TAG) - 1;

	memcpy(msg, HELLO_REQ_TAG, n);
	pvfs_be64_put(msg + n, r->fsid);
	pvfs_be32_put(msg + n + 8, r->index);
	pvfs_be64_put(msg + n + 12, (uint64_t)r->mgr_ns);
	pvfs_be64_put(msg + n + 20, (uint64_t)r->rtt_ns);
	pvfs_be64_put(msg + n + 28, r->nonce);
	pvfs_be32_put(msg + n + 36, r->lease_ms);
	pvfs_be64_put(msg + n + 40, r->stale_version);
	pvfs_hmac_sha256(key, keylen, msg, n + 48, mac);
}

void
pvfs_hello_rep_mac(const struct pvfs_iod_hello_rep *r, uint64_t nonce,
    const uint8_t *key, size_t keylen, uint8_t mac[PVFS_MAC_LEN])
{
	uint8_t msg[HELLO_MSG_MAX];
	size_t n = sizeof(HELLO_REP_TAG) - 1;
	size_t ulen = strnlen(r->uuid, PVFS_UUID_HEX);

	memset(msg, 0, sizeof(msg));
	memcpy(msg, HELLO_REP_TAG, n);
	pvfs_be64_put(msg + n, nonce);
	pvfs_be64_put(msg + n + 8, r->fsid);
	pvfs_be32_put(msg + n + 16, r->index);
	memcpy(msg + n + 20, r->uuid, ulen); /* zero-padded to 32 */
	pvfs_be64_put(msg + n + 52, (uint64_t)r->iod_ns);
	pvfs_be32_put(msg + n + 60, r->flags);
	pvfs_be64_put(msg + n + 64, r->stale_version);
	pvfs_hmac_sha256(key, keylen, msg, n + 72, mac);
}
