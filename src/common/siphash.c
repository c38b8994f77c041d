/*
 * siphash.c - SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed 64-bit
 * hash.  Hash tables whose keys a peer chooses use it with a secret random
 * key, so that no peer can make many keys fall into one bucket.
 */
#include "common.h"

#define SIP_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static void
sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = SIP_ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = SIP_ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = SIP_ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = SIP_ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = SIP_ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = SIP_ROTL(s->v2, 32);
}

/* Two compression rounds per 8-byte word. */
static void
sip_absorb(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

static uint64_t
sip_le64(const uint8_t *p, size_t n)
{
	uint64_t w = 0;

	while (n-- > 0)
		w = (w << 8) | p[n];
	return w;
}

uint64_t
pvfs_siphash(const uint8_t key[PVFS_SIPHASH_KEY_LEN], const void *data,
    size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = sip_le64(key, 8), k1 = sip_le64(key + 8, 8);
	struct sip_state s = {
		k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
		k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull,
	};
	size_t left = len;

	for (; left >= 8; p += 8, left -= 8)
		sip_absorb(&s, sip_le64(p, 8));
	/* The last word: the remaining bytes, the length's low byte on top. */
	sip_absorb(&s, sip_le64(p, left) | ((uint64_t)(len & 0xff) << 56));
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
