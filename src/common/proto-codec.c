/* proto-codec.c - frame headers and the table-driven body codec. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pvfs-proto.h"
#include "proto-table.h"

void
pvfs_hdr_encode(const struct pvfs_hdr *h, uint8_t out[PVFS_HDR_LEN])
{
	pvfs_be32_put(out, h->magic);
	pvfs_be16_put(out + 4, h->version);
	pvfs_be16_put(out + 6, h->op);
	pvfs_be32_put(out + 8, h->reqid);
	pvfs_be32_put(out + 12, (uint32_t)h->status);
	pvfs_be32_put(out + 16, h->body_len);
	pvfs_be32_put(out + 20, h->flags);
}

/* Everything a peer can lie about is checked here, before any allocation. */
int
pvfs_hdr_decode(const uint8_t in[PVFS_HDR_LEN], struct pvfs_hdr *h)
{
	h->magic = pvfs_be32_get(in);
	h->version = pvfs_be16_get(in + 4);
	h->op = pvfs_be16_get(in + 6);
	h->reqid = pvfs_be32_get(in + 8);
	h->status = (int32_t)pvfs_be32_get(in + 12);
	h->body_len = pvfs_be32_get(in + 16);
	h->flags = pvfs_be32_get(in + 20);
	if (h->magic != PVFS_PROTO_MAGIC || h->version != PVFS_PROTO_VERSION)
		return -EPROTO;
	if (h->flags & ~PVFS_HDR_REPLY)
		return -EPROTO;
	if (h->status < 0 || h->status > 4095)
		return -EPROTO;
	if (h->body_len > PVFS_MAX_BODY)
		return -EMSGSIZE;
	return 0;
}

static void encode_fields(struct pvfs_buf *b, const struct pvfs_field *f,
    const uint8_t *base);

static void
encode_cred(struct pvfs_buf *b, const struct pvfs_cred *c)
{
	uint32_t i, n = c->ngroups > PVFS_MAX_GROUPS ? PVFS_MAX_GROUPS : c->ngroups;

	pvfs_buf_put_u32(b, c->uid);
	pvfs_buf_put_u32(b, c->gid);
	pvfs_buf_put_u32(b, n);
	for (i = 0; i < n; i++)
		pvfs_buf_put_u32(b, c->groups[i]);
}

static void
encode_array(struct pvfs_buf *b, const struct pvfs_field *f, const uint8_t *base)
{
	uint32_t i, n;
	const uint8_t *elems;

	memcpy(&n, base + f->count_off, sizeof(n));
	memcpy(&elems, base + f->off, sizeof(elems));
	if (n > f->max || (n > 0 && elems == NULL)) {
		b->oom = 1; /* refuse to encode an invalid message */
		return;
	}
	pvfs_buf_put_u32(b, n);
	for (i = 0; i < n; i++)
		encode_fields(b, f->sub, elems + (size_t)i * f->elem_size);
}

static void
encode_strref(struct pvfs_buf *b, const struct pvfs_field *f, const uint8_t *base)
{
	const char *s;
	uint16_t n;

	memcpy(&s, base + f->off, sizeof(s));
	memcpy(&n, base + f->count_off, sizeof(n));
	if (n > f->max || (n > 0 && (s == NULL || memchr(s, '\0', n) != NULL))) {
		b->oom = 1; /* refuse to encode an invalid record */
		return;
	}
	pvfs_buf_put_u16(b, n);
	pvfs_buf_put(b, s, n);
}

static void
encode_field(struct pvfs_buf *b, const struct pvfs_field *f, const uint8_t *base)
{
	const uint8_t *p = base + f->off;
	size_t n;

	switch (f->type) {
	case PVFS_F_U8:
		pvfs_buf_put_u8(b, *p);
		break;
	case PVFS_F_U16:
		pvfs_buf_put_u16(b, *(const uint16_t *)p);
		break;
	case PVFS_F_U32:
		pvfs_buf_put_u32(b, *(const uint32_t *)p);
		break;
	case PVFS_F_U64:
		pvfs_buf_put_u64(b, *(const uint64_t *)p);
		break;
	case PVFS_F_STR:
		n = strnlen((const char *)p, f->max + 1);
		if (n > f->max) {
			b->oom = 1;
			break;
		}
		pvfs_buf_put_u16(b, (uint16_t)n);
		pvfs_buf_put(b, p, n);
		break;
	case PVFS_F_MAC:
		pvfs_buf_put(b, p, PVFS_MAC_LEN);
		break;
	case PVFS_F_CRED:
		encode_cred(b, (const struct pvfs_cred *)p);
		break;
	case PVFS_F_STRUCT:
		encode_fields(b, f->sub, p);
		break;
	case PVFS_F_ARRAY:
		encode_array(b, f, base);
		break;
	case PVFS_F_STRREF:
		encode_strref(b, f, base);
		break;
	}
}

static void
encode_fields(struct pvfs_buf *b, const struct pvfs_field *f, const uint8_t *base)
{
	for (; f->type != PVFS_F_END; f++)
		encode_field(b, f, base);
}

static int decode_fields(struct pvfs_cur *c, const struct pvfs_field *f,
    uint8_t *base);

static void
decode_cred(struct pvfs_cur *c, struct pvfs_cred *cr)
{
	uint32_t i;

	cr->uid = pvfs_cur_u32(c);
	cr->gid = pvfs_cur_u32(c);
	cr->ngroups = pvfs_cur_u32(c);
	if (cr->ngroups > PVFS_MAX_GROUPS) {
		c->bad = 1;
		cr->ngroups = 0;
		return;
	}
	for (i = 0; i < cr->ngroups; i++)
		cr->groups[i] = pvfs_cur_u32(c);
}

/* Smallest number of wire bytes one element of a table can take: bounds an
 * array's allocation by the bytes actually received. */
static size_t
min_wire_size(const struct pvfs_field *f)
{
	static const size_t sz[] = {
		[PVFS_F_U8] = 1, [PVFS_F_U16] = 2, [PVFS_F_U32] = 4,
		[PVFS_F_U64] = 8, [PVFS_F_STR] = 2, [PVFS_F_MAC] = PVFS_MAC_LEN,
		[PVFS_F_CRED] = 12, [PVFS_F_ARRAY] = 4, [PVFS_F_STRREF] = 2,
	};
	size_t n = 0;

	for (; f->type != PVFS_F_END; f++)
		n += f->type == PVFS_F_STRUCT ? min_wire_size(f->sub) : sz[f->type];
	return n;
}

static int
decode_array(struct pvfs_cur *c, const struct pvfs_field *f, uint8_t *base)
{
	uint32_t i, n = pvfs_cur_u32(c);
	size_t minsz = min_wire_size(f->sub);
	uint8_t *elems = NULL;

	if (c->bad || n > f->max || (minsz > 0 && n > c->left / minsz)) {
		c->bad = 1;
		return -1;
	}
	if (n > 0 && (elems = calloc(n, f->elem_size)) == NULL) {
		c->bad = 1;
		return -1;
	}
	memcpy(base + f->count_off, &n, sizeof(n));
	memcpy(base + f->off, &elems, sizeof(elems));
	for (i = 0; i < n && !c->bad; i++)
		decode_fields(c, f->sub, elems + (size_t)i * f->elem_size);
	return c->bad ? -1 : 0;
}

/* Zero-copy: the string stays in the input, bounded and NUL-free. */
static void
decode_strref(struct pvfs_cur *c, const struct pvfs_field *f, uint8_t *base)
{
	uint16_t n = pvfs_cur_u16(c);
	const char *s = (const char *)c->p;

	if (c->bad || n > f->max || n > c->left || memchr(s, '\0', n) != NULL) {
		c->bad = 1;
		return;
	}
	c->p += n;
	c->left -= n;
	memcpy(base + f->off, &s, sizeof(s));
	memcpy(base + f->count_off, &n, sizeof(n));
}

static void
decode_field(struct pvfs_cur *c, const struct pvfs_field *f, uint8_t *base)
{
	uint8_t *p = base + f->off;

	switch (f->type) {
	case PVFS_F_U8:
		*p = pvfs_cur_u8(c);
		break;
	case PVFS_F_U16:
		*(uint16_t *)p = pvfs_cur_u16(c);
		break;
	case PVFS_F_U32:
		*(uint32_t *)p = pvfs_cur_u32(c);
		break;
	case PVFS_F_U64:
		*(uint64_t *)p = pvfs_cur_u64(c);
		break;
	case PVFS_F_STR:
		pvfs_cur_str(c, (char *)p, f->max);
		break;
	case PVFS_F_MAC:
		pvfs_cur_bytes(c, p, PVFS_MAC_LEN);
		break;
	case PVFS_F_CRED:
		decode_cred(c, (struct pvfs_cred *)p);
		break;
	case PVFS_F_STRUCT:
		decode_fields(c, f->sub, p);
		break;
	case PVFS_F_ARRAY:
		decode_array(c, f, base);
		break;
	case PVFS_F_STRREF:
		decode_strref(c, f, base);
		break;
	}
}

static int
decode_fields(struct pvfs_cur *c, const struct pvfs_field *f, uint8_t *base)
{
	for (; f->type != PVFS_F_END && !c->bad; f++)
		decode_field(c, f, base);
	return c->bad ? -1 : 0;
}

static void
free_fields(const struct pvfs_field *f, uint8_t *base)
{
	uint8_t *elems;
	uint32_t i, n;

	for (; f->type != PVFS_F_END; f++) {
		if (f->type == PVFS_F_STRUCT)
			free_fields(f->sub, base + f->off);
		if (f->type != PVFS_F_ARRAY)
			continue;
		memcpy(&elems, base + f->off, sizeof(elems));
		memcpy(&n, base + f->count_off, sizeof(n));
		for (i = 0; elems != NULL && i < n; i++)
			free_fields(f->sub, elems + (size_t)i * f->elem_size);
		free(elems);
		elems = NULL;
		memcpy(base + f->off, &elems, sizeof(elems));
	}
}

void
pvfs_fields_encode(struct pvfs_buf *b, const struct pvfs_field *f,
    const void *base)
{
	encode_fields(b, f, base);
}

int
pvfs_fields_decode(struct pvfs_cur *c, const struct pvfs_field *f, void *base)
{
	return decode_fields(c, f, base);
}

static const struct pvfs_field *
msg_table(uint16_t op, int reply, size_t *size)
{
	const struct pvfs_msgdesc *d = pvfs_msgdesc_find(op);

	if (d == NULL)
		return NULL;
	if (size != NULL)
		*size = reply ? d->rep_size : d->req_size;
	return reply ? d->rep : d->req;
}

size_t
pvfs_msg_size(uint16_t op, int reply)
{
	size_t size = 0;

	return msg_table(op, reply, &size) ? size : 0;
}

const char *
pvfs_op_name(uint16_t op)
{
	const struct pvfs_msgdesc *d = pvfs_msgdesc_find(op);

	return d ? d->name : "UNKNOWN";
}

int
pvfs_frame_encode(struct pvfs_buf *out, uint16_t op, uint32_t reqid,
    int reply, int32_t status, const void *msg)
{
	const struct pvfs_field *tbl = msg_table(op, reply, NULL);
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, op, reqid,
		status, 0, reply ? PVFS_HDR_REPLY : 0 };
	size_t start = out->len;

	if (tbl == NULL || status < 0)
		return -EINVAL;
	if (pvfs_buf_reserve(out, PVFS_HDR_LEN) != 0)
		return -ENOMEM;
	out->len += PVFS_HDR_LEN;
	if (status == 0 && msg != NULL)
		encode_fields(out, tbl, msg);
	else if (status == PVFS_ST_LINK && msg != NULL)
		encode_fields(out, pvfs_link_rep_fields, msg);
	if (out->oom || out->len - start - PVFS_HDR_LEN > PVFS_MAX_BODY) {
		int err = out->oom && out->len - start <= PVFS_MAX_BODY ? -ENOMEM : -EMSGSIZE;

		out->len = start;
		out->oom = 0;
		return err;
	}
	h.body_len = (uint32_t)(out->len - start - PVFS_HDR_LEN);
	pvfs_hdr_encode(&h, out->data + start);
	return 0;
}

int
pvfs_msg_decode(uint16_t op, int reply, const uint8_t *body, size_t len,
    void *msg)
{
	size_t size;
	const struct pvfs_field *tbl = msg_table(op, reply, &size);
	struct pvfs_cur c;

	if (tbl == NULL)
		return -EPROTO;
	memset(msg, 0, size);
	pvfs_cur_init(&c, body, len);
	if (decode_fields(&c, tbl, msg) != 0 || c.left != 0) {
		free_fields(tbl, msg);
		return -EPROTO;
	}
	return 0;
}

int
pvfs_link_decode(const uint8_t *body, size_t len, struct pvfs_link_rep *l)
{
	struct pvfs_cur c;

	memset(l, 0, sizeof(*l));
	pvfs_cur_init(&c, body, len);
	if (decode_fields(&c, pvfs_link_rep_fields, (uint8_t *)l) != 0 ||
	    c.left != 0 || l->which > 1 || l->target[0] == '\0')
		return -EPROTO;
	return 0;
}

void
pvfs_msg_free(uint16_t op, int reply, void *msg)
{
	const struct pvfs_field *tbl = msg_table(op, reply, NULL);

	if (tbl != NULL && msg != NULL)
		free_fields(tbl, msg);
}
