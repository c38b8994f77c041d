/* sha256.c - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), written
 * here so capabilities need no crypto library. */
#include <string.h>

#include "common.h"

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], v[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = pvfs_be32_get(p + 4 * i);
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		    w[i - 7] + (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25)) +
		    ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void
pvfs_sha256_init(struct pvfs_sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
		0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, iv, sizeof(iv));
	s->bytes = 0;
	s->fill = 0;
}

void
pvfs_sha256_update(struct pvfs_sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t take;

	s->bytes += n;
	while (n > 0) {
		take = 64 - s->fill < n ? 64 - s->fill : n;
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		n -= take;
		if (s->fill == 64) {
			sha256_block(s->h, s->block);
			s->fill = 0;
		}
	}
}

void
pvfs_sha256_final(struct pvfs_sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad = 0x80, zero = 0, len[8];
	int i;

	pvfs_sha256_update(s, &pad, 1);
	while (s->fill != 56)
		pvfs_sha256_update(s, &zero, 1);
	pvfs_be64_put(len, bits);
	pvfs_sha256_update(s, len, 8);
	for (i = 0; i < 8; i++)
		pvfs_be32_put(out + 4 * i, s->h[i]);
}

void
pvfs_hmac_sha256(const uint8_t *key, size_t keylen, const void *msg, size_t n,
    uint8_t out[32])
{
	uint8_t k[64] = { 0 }, pad[64], inner[32];
	struct pvfs_sha256 s;
	int i;

	if (keylen > 64) {
		pvfs_sha256_init(&s);
		pvfs_sha256_update(&s, key, keylen);
		pvfs_sha256_final(&s, k);
	} else {
		memcpy(k, key, keylen);
	}
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	pvfs_sha256_init(&s);
	pvfs_sha256_update(&s, pad, 64);
	pvfs_sha256_update(&s, msg, n);
	pvfs_sha256_final(&s, inner);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	pvfs_sha256_init(&s);
	pvfs_sha256_update(&s, pad, 64);
	pvfs_sha256_update(&s, inner, 32);
	pvfs_sha256_final(&s, out);
}

int
pvfs_memcmp_ct(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d != 0;
}
