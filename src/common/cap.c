/* cap.c - capabilities: the mgr signs, each iod verifies. */
#include <errno.h>
#include <string.h>

#include "common.h"
#include "pvfs-proto.h"

#define CAP_SIGNED_LEN 48 /* struct pvfs_cap_memo's entries hold these */

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

/* Everything but the MAC, as pvfs_cap_check orders it. */
static int
cap_check_fields(const struct pvfs_cap *cap, uint32_t need_rights,
    int64_t now, uint64_t fsid, int *why)
{
	if (fsid != 0 && cap->fsid != fsid)
		return *why = PVFS_CAP_OTHER_FS, -EACCES;
	if (cap->rights == 0 || (cap->rights & need_rights) != need_rights)
		return *why = PVFS_CAP_NO_RIGHT, -EACCES;
	if (cap->expiry < now)
		return *why = PVFS_CAP_EXPIRED, -EKEYEXPIRED;
	return *why = PVFS_CAP_OK, 0;
}

/* The reason comes back so that an iod can log it: a key that differs
 * from the mgr's, a clock ahead of it and a client's bug all look alike
 * to the client (EACCES), and only the iod can tell them apart. */
int
pvfs_cap_check(const struct pvfs_cap *cap, const uint8_t *key, size_t keylen,
    uint32_t need_rights, int64_t now, uint64_t fsid, int *why)
{
	uint8_t msg[CAP_SIGNED_LEN], mac[PVFS_MAC_LEN];

	cap_signed_bytes(cap, msg);
	pvfs_hmac_sha256(key, keylen, msg, sizeof(msg), mac);
	if (pvfs_memcmp_ct(mac, cap->mac, sizeof(mac)) != 0)
		return *why = PVFS_CAP_BAD_MAC, -EACCES;
	return cap_check_fields(cap, need_rights, now, fsid, why);
}

/* A hit needs every signed byte and the MAC equal to an entry's, so it
 * gives the answer the HMAC would; only verified MACs are entered. */
int
pvfs_cap_check_memo(struct pvfs_cap_memo *m, const struct pvfs_cap *cap,
    const uint8_t *key, size_t keylen, uint32_t need_rights, int64_t now,
    uint64_t fsid, int *why)
{
	uint8_t e[CAP_SIGNED_LEN + PVFS_MAC_LEN];
	unsigned i;
	int rc;

	cap_signed_bytes(cap, e);
	memcpy(e + CAP_SIGNED_LEN, cap->mac, PVFS_MAC_LEN);
	for (i = 0; i < m->n; i++)
		if (memcmp(m->ent[i], e, sizeof(e)) == 0)
			return cap_check_fields(cap, need_rights, now, fsid, why);
	rc = pvfs_cap_check(cap, key, keylen, need_rights, now, fsid, why);
	if (*why == PVFS_CAP_BAD_MAC)
		return rc;
	memcpy(m->ent[m->next], e, sizeof(e));
	m->next = (m->next + 1) % PVFS_CAP_MEMO;
	if (m->n < PVFS_CAP_MEMO)
		m->n++;
	return rc;
}

int
pvfs_cap_verify(const struct pvfs_cap *cap, const uint8_t *key, size_t keylen,
    uint32_t need_rights, int64_t now)
{
	int why;

	return pvfs_cap_check(cap, key, keylen, need_rights, now, 0, &why);
}

const char *
pvfs_cap_why(int why)
{
	static const char *const text[PVFS_CAP_NREASONS] = {
		[PVFS_CAP_OK] = "valid",
		[PVFS_CAP_BAD_MAC] = "bad MAC (forged, or signed with another key)",
		[PVFS_CAP_EXPIRED] = "expired",
		[PVFS_CAP_OTHER_FS] = "for another file system",
		[PVFS_CAP_OTHER_INODE] = "for another inode",
		[PVFS_CAP_NO_RIGHT] = "missing a needed right",
	};

	return why >= 0 && why < PVFS_CAP_NREASONS ? text[why] : "unknown";
}
