/* cap.c - capabilities: the mgr signs, each iod verifies. */
#include <errno.h>

#include "common.h"

#define CAP_SIGNED_LEN 48

/* The signed bytes: every field before the mac, in wire order. */
static void
cap_signed_bytes(const struct pvfs_cap *cap, uint8_t out[CAP_SIGNED_LEN])
{
	pvfs_be64_put(out, cap->fsid);
	pvfs_be64_put(out + 8, cap->ino);
	pvfs_be64_put(out + 16, cap->gen);
	pvfs_be32_put(out + 24, cap->rights);
	pvfs_be64_put(out + 28, (uint64_t)cap->expiry);
	pvfs_be32_put(out + 36, cap->dist.base);
	pvfs_be32_put(out + 40, cap->dist.pcount);
	pvfs_be32_put(out + 44, cap->dist.ssize);
}

void
pvfs_cap_sign(struct pvfs_cap *cap, const uint8_t *key, size_t keylen)
{
	uint8_t msg[CAP_SIGNED_LEN];

	cap_signed_bytes(cap, msg);
	pvfs_hmac_sha256(key, keylen, msg, sizeof(msg), cap->mac);
}

int
pvfs_cap_verify(const struct pvfs_cap *cap, const uint8_t *key, size_t keylen,
    uint32_t need_rights, int64_t now)
{
	uint8_t msg[CAP_SIGNED_LEN], mac[PVFS_MAC_LEN];

	cap_signed_bytes(cap, msg);
	pvfs_hmac_sha256(key, keylen, msg, sizeof(msg), mac);
	if (pvfs_memcmp_ct(mac, cap->mac, sizeof(mac)) != 0)
		return -EACCES;
	if (cap->rights == 0 || (cap->rights & need_rights) != need_rights)
		return -EACCES;
	if (cap->expiry < now)
		return -EKEYEXPIRED;
	return 0;
}
