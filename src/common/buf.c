/* buf.c - growable output buffer, bounds-checked input cursor, byte order. */
#include <stdlib.h>
#include <string.h>

#include "common.h"

void
pvfs_be16_put(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void
pvfs_be32_put(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void
pvfs_be64_put(uint8_t *p, uint64_t v)
{
	pvfs_be32_put(p, v >> 32);
	pvfs_be32_put(p + 4, (uint32_t)v);
}

uint16_t
pvfs_be16_get(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t
pvfs_be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

uint64_t
pvfs_be64_get(const uint8_t *p)
{
	return (uint64_t)pvfs_be32_get(p) << 32 | pvfs_be32_get(p + 4);
}

void
pvfs_buf_init(struct pvfs_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void
pvfs_buf_free(struct pvfs_buf *b)
{
	free(b->data);
	pvfs_buf_init(b);
}

void
pvfs_buf_reset(struct pvfs_buf *b)
{
	b->len = 0;
	b->off = 0;
	b->oom = 0;
}

/* Make room for more bytes; on failure mark the buffer so callers can check
 * once at the end instead of after every put. */
int
pvfs_buf_reserve(struct pvfs_buf *b, size_t more)
{
	size_t want, ncap;
	uint8_t *p;

	if (b->oom)
		return -1;
	if (more > SIZE_MAX / 2 - b->len) {
		b->oom = 1;
		return -1;
	}
	want = b->len + more;
	if (want <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < want)
		ncap *= 2;
	if ((p = realloc(b->data, ncap)) == NULL) {
		b->oom = 1;
		return -1;
	}
	b->data = p;
	b->cap = ncap;
	return 0;
}

void
pvfs_buf_put(struct pvfs_buf *b, const void *p, size_t n)
{
	if (n == 0 || pvfs_buf_reserve(b, n) != 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
pvfs_buf_put_u8(struct pvfs_buf *b, uint8_t v)
{
	pvfs_buf_put(b, &v, 1);
}

/* The low n bytes of v, big-endian. */
static void
pvfs_buf_put_be(struct pvfs_buf *b, uint64_t v, size_t n)
{
	uint8_t t[8];

	pvfs_be64_put(t, v);
	pvfs_buf_put(b, t + sizeof(t) - n, n);
}

void
pvfs_buf_put_u16(struct pvfs_buf *b, uint16_t v)
{
	pvfs_buf_put_be(b, v, 2);
}

void
pvfs_buf_put_u32(struct pvfs_buf *b, uint32_t v)
{
	pvfs_buf_put_be(b, v, 4);
}

void
pvfs_buf_put_u64(struct pvfs_buf *b, uint64_t v)
{
	pvfs_buf_put_be(b, v, 8);
}

/* Slide unsent bytes to the front once the sent part dominates, so a busy
 * connection's buffer does not grow without bound. */
void
pvfs_buf_compact(struct pvfs_buf *b)
{
	if (b->off == 0)
		return;
	if (b->off == b->len) {
		b->off = b->len = 0;
		return;
	}
	if (b->off < b->len - b->off)
		return;
	memmove(b->data, b->data + b->off, b->len - b->off);
	b->len -= b->off;
	b->off = 0;
}

void
pvfs_cur_init(struct pvfs_cur *c, const void *p, size_t n)
{
	c->p = p;
	c->left = n;
	c->bad = 0;
}

/* Take n bytes or mark the cursor bad; a bad cursor yields nothing more. */
static const uint8_t *
cur_take(struct pvfs_cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || c->left < n) {
		c->bad = 1;
		return NULL;
	}
	p = c->p;
	c->p += n;
	c->left -= n;
	return p;
}

uint8_t
pvfs_cur_u8(struct pvfs_cur *c)
{
	const uint8_t *p = cur_take(c, 1);

	return p ? p[0] : 0;
}

uint16_t
pvfs_cur_u16(struct pvfs_cur *c)
{
	const uint8_t *p = cur_take(c, 2);

	return p ? pvfs_be16_get(p) : 0;
}

uint32_t
pvfs_cur_u32(struct pvfs_cur *c)
{
	const uint8_t *p = cur_take(c, 4);

	return p ? pvfs_be32_get(p) : 0;
}

uint64_t
pvfs_cur_u64(struct pvfs_cur *c)
{
	const uint8_t *p = cur_take(c, 8);

	return p ? pvfs_be64_get(p) : 0;
}

void
pvfs_cur_bytes(struct pvfs_cur *c, void *out, size_t n)
{
	const uint8_t *p = cur_take(c, n);

	if (p != NULL)
		memcpy(out, p, n);
	else
		memset(out, 0, n);
}

void
pvfs_cur_str(struct pvfs_cur *c, char *out, size_t max)
{
	uint16_t n = pvfs_cur_u16(c);
	const uint8_t *p;

	out[0] = '\0';
	if (c->bad)
		return;
	if (n > max || memchr(c->p, '\0', n < c->left ? n : c->left) != NULL) {
		c->bad = 1;
		return;
	}
	if ((p = cur_take(c, n)) == NULL)
		return;
	memcpy(out, p, n);
	out[n] = '\0';
}
