/*
 * test_noncontig.c - partitions (pvfs_ioctl SETPART) and list I/O through
 * the real daemons, checked against a shadow file: random partitions and
 * region lists over several distributions, thousands of regions, 64-bit
 * offsets, EOF in a view and in a list, bad lists, the strided call, and
 * the PPFS record-interleaved write: p processes, writer k writing records
 * k, k+p, k+2p, ... through a partition, then the whole file verified.
 * And the work bound of list requests (PVFS_LIST_MAX_WORK): a raw hostile
 * list is refused at once, legitimate calls past it are split and work.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)
#define FILE_SPAN (6 * MiB) /* random partitions stay below this offset */

static struct cluster c;

/* Create (or empty) rel with a given distribution. */
static int
create_dist(const char *rel, int base, int pcount, int ssize)
{
	return cluster_create(&c, rel, O_TRUNC, base, pcount, ssize);
}

static int
open_rel(const char *rel, int flags)
{
	char path[PATH_MAX];

	return pvfs_open(cluster_path(&c, rel, path), flags);
}

/* ---- partitions ---- */

/* File offset of view byte v, by PVFS 1's definition. */
static uint64_t
view_off(const struct pvfs_fpart *p, uint64_t v)
{
	if (p->gsize == 0 || p->stride == 0 || p->gsize == p->stride)
		return (uint64_t)p->offset + v;
	return (uint64_t)p->offset + v / (uint64_t)p->gsize * (uint64_t)p->stride +
	    v % (uint64_t)p->gsize;
}

/* Bytes of the view below a file size, counted one by one. */
static uint64_t
view_size(const struct pvfs_fpart *p, uint64_t size)
{
	uint64_t v = 0;

	while (view_off(p, v) < size)
		v++;
	return v;
}

static void
shadow_view_write(struct shadow *s, const struct pvfs_fpart *p,
    uint64_t pos, const unsigned char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		shadow_write(s, view_off(p, pos + i), buf + i, 1);
}

/* Bytes of view [pos, pos + n) below the shadow's end, and those bytes. */
static size_t
shadow_view_read(const struct shadow *s,
    const struct pvfs_fpart *p, uint64_t pos, unsigned char *out, size_t n)
{
	size_t i;
	uint64_t o;

	for (i = 0; i < n; i++) {
		if ((o = view_off(p, pos + i)) >= s->size)
			break;
		out[i] = s->data[o];
	}
	return i;
}

static void
random_fpart(struct rng *r, uint64_t ssize, struct pvfs_fpart *p)
{
	memset(p, 0, sizeof(*p));
	p->offset = (int64_t)rng_range(r, 0, 3 * ssize);
	switch (rng_range(r, 0, 4)) {
	case 0: /* small groups, many per stripe */
		p->gsize = (int64_t)rng_range(r, 1, 64);
		break;
	case 1: /* groups across stripe boundaries */
		p->gsize = (int64_t)rng_range(r, ssize / 2, 3 * ssize);
		break;
	case 2: /* degenerate: contiguous view shifted by offset */
		p->gsize = 0;
		break;
	default:
		p->gsize = (int64_t)rng_range(r, 1, 2 * ssize);
		break;
	}
	p->stride = p->gsize + (int64_t)rng_range(r, 0, 2 * ssize);
}

static void
random_partitions_one(int base, int pcount, int ssize, int nparts)
{
	char name[64], what[160];
	static unsigned char buf[200000], rbuf[200000], ebuf[200000];
	struct pvfs_fpart p, got;
	struct shadow s;
	struct rng r;
	uint64_t ss = ssize > 0 ? (uint64_t)ssize : 65536, vmax;
	int fd, plain, i, k;

	snprintf(name, sizeof(name), "part_%d_%d_%d", base, pcount, ssize);
	rng_init(&r, name);
	fd = check_ok(create_dist(name, base, pcount, ssize));
	plain = check_ok(open_rel(name, O_RDONLY));
	shadow_init(&s);
	for (k = 0; k < nparts; k++) {
		random_fpart(&r, ss, &p);
		vmax = view_size(&p, FILE_SPAN);
		check_ok(pvfs_lseek(fd, 12345, SEEK_SET));
		check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
		assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 0);
		check_ok(pvfs_ioctl(fd, PVFS_GETPART, &got));
		assert_memory_equal(&got, &p, sizeof(p));
		for (i = 0; i < 12; i++) {
			uint64_t pos = rng_range(&r, 0, vmax / 2);
			size_t len = rng_range(&r, 1, vmax - pos < sizeof(buf) ?
			    vmax - pos : sizeof(buf));
			size_t exp;
			ssize_t n;

			snprintf(what, sizeof(what), "%s part (%" PRId64 ",%" PRId64
			    ",%" PRId64 ") op %d pos %" PRIu64 " len %zu", name,
			    p.offset, p.gsize, p.stride, i, pos, len);
			check_ok(pvfs_lseek(fd, (off_t)pos, SEEK_SET));
			if (rng_range(&r, 0, 1) == 0) {
				rng_fill(&r, buf, len);
				n = pvfs_write(fd, buf, len);
				if (n != (ssize_t)len)
					fail_msg("%s: write = %zd (%s)", what, n,
					    strerror(errno));
				shadow_view_write(&s, &p, pos, buf, len);
			} else {
				exp = shadow_view_read(&s, &p, pos, ebuf, len);
				memset(rbuf, 0xa5, len);
				n = rng_range(&r, 0, 1) ? pvfs_read(fd, rbuf, len) :
				    pvfs_pread(fd, rbuf, len, (off_t)pos);
				if (n != (ssize_t)exp)
					fail_msg("%s: read = %zd (%s), expected %zu",
					    what, n, strerror(errno), exp);
				if (memcmp(rbuf, ebuf, exp) != 0)
					fail_msg("%s: wrong bytes at +%zu", what,
					    first_diff(rbuf, ebuf, exp));
			}
		}
		/* SEEK_END is the view's size: bytes of the view in the
		 * file; a read there gets nothing. */
		assert_int_equal(pvfs_lseek(fd, 0, SEEK_END),
		    (off_t)view_size(&p, s.size));
		assert_int_equal(pvfs_read(fd, buf, 1), 0);
	}
	shadow_assert_fd(&s, plain, name);
	/* Clearing: all zeros is the whole file again. */
	memset(&p, 0, sizeof(p));
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	shadow_assert_fd(&s, fd, name);
	check_ok(pvfs_close(plain));
	check_ok(pvfs_close(fd));
	shadow_free(&s);
}

static void
test_random_partitions(void **state)
{
	random_partitions_one(0, 4, 4096, 10);
	random_partitions_one(1, 3, 1000, 10);
	random_partitions_one(2, 1, 65536, 6);
	random_partitions_one(-1, -1, -1, 6);
}

static void
test_partition_semantics(void **state)
{
	struct pvfs_fpart p = { 10, 4, 16, 7, 9 }, got;
	unsigned char buf[128], exp[128];
	int fd, i;

	fd = check_ok(create_dist("part_sem", 0, 4, 4096));
	for (i = 0; i < 64; i++)
		buf[i] = (unsigned char)i;
	assert_int_equal(pvfs_pwrite(fd, buf, 64, 0), 64);
	/* GETPART without a partition: zeros. */
	memset(&got, 0xff, sizeof(got));
	check_ok(pvfs_ioctl(fd, PVFS_GETPART, &got));
	for (i = 0; i < 5; i++)
		assert_int_equal(((int64_t *)&got)[i], 0);
	/* gstride and ngroups are kept, unused. */
	assert_int_equal(pvfs_lseek(fd, 5, SEEK_SET), 5);
	check_ok(pvfs_ioctl(fd, SETPART, &p));
	check_ok(pvfs_ioctl(fd, GETPART, &got));
	assert_memory_equal(&got, &p, sizeof(p));
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 0);
	/* Groups at 10..13, 26..29, 42..45, 58..61; the view holds 16. */
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_END), 16);
	assert_int_equal(pvfs_lseek(fd, 2, SEEK_SET), 2);
	assert_int_equal(pvfs_read(fd, buf, 64), 14);
	for (i = 0; i < 14; i++)
		exp[i] = (unsigned char)(10 + (i + 2) / 4 * 16 + (i + 2) % 4);
	assert_memory_equal(buf, exp, 14);
	assert_int_equal(pvfs_read(fd, buf, 64), 0);
	/* gsize == stride: contiguous from offset. */
	p = (struct pvfs_fpart){ 20, 8, 8, 0, 0 };
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	assert_int_equal(pvfs_read(fd, buf, 100), 44);
	assert_int_equal(buf[0], 20);
	/* Past the last view byte below 2^63 - 1 a read is at end of file,
	 * not EINVAL: group 2^23 of this view starts at 2^63. */
	p = (struct pvfs_fpart){ 0, 1, (int64_t)1 << 40, 0, 0 };
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	assert_int_equal(pvfs_pread(fd, buf, 4, (off_t)1 << 23), 0);
	assert_int_equal(pvfs_pread(fd, buf, 4, ((off_t)1 << 23) - 1), 0);
	assert_int_equal(pvfs_lseek(fd, (off_t)1 << 30, SEEK_SET), 1 << 30);
	assert_int_equal(pvfs_read(fd, buf, 4), 0);
	/* Invalid partitions. */
	p = (struct pvfs_fpart){ 0, 8, 4, 0, 0 };
	assert_errno(pvfs_ioctl(fd, PVFS_SETPART, &p), EINVAL);
	p = (struct pvfs_fpart){ -1, 8, 8, 0, 0 };
	assert_errno(pvfs_ioctl(fd, PVFS_SETPART, &p), EINVAL);
	assert_errno(pvfs_ioctl(fd, PVFS_SETPART, NULL), EFAULT);
	assert_errno(pvfs_ioctl(fd, 0x7777, &p), ENOTTY);
	/* A dup shares the open file, and so the partition. */
	p = (struct pvfs_fpart){ 1, 1, 2, 0, 0 };
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	i = check_ok(pvfs_dup(fd));
	assert_int_equal(pvfs_read(i, buf, 4), 4);
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[3], 7);
	check_ok(pvfs_close(i));
	/* O_APPEND in a view appends to the view. */
	check_ok(pvfs_close(fd));
	fd = check_ok(open_rel("part_sem", O_RDWR | O_APPEND));
	p = (struct pvfs_fpart){ 0, 1, 4, 0, 0 };
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	buf[0] = 0xee;
	buf[1] = 0xef;
	assert_int_equal(pvfs_write(fd, buf, 2), 2);
	check_ok(pvfs_close(fd));
	fd = check_ok(open_rel("part_sem", O_RDONLY));
	assert_int_equal(pvfs_pread(fd, buf, 70, 0), 69);
	assert_int_equal(buf[64], 0xee);
	assert_int_equal(buf[68], 0xef);
	check_ok(pvfs_close(fd));
}

/* ---- list I/O ---- */

/* Random sorted, non-overlapping file regions from start; a memory list
 * of another count over the same total.  Returns the total. */
struct lists {
	int nfile, nmem;
	int64_t *foff;
	int32_t *flen;
	char **moff;
	int *mlen;
	unsigned char *mem;
};

static void
lists_free(struct lists *l)
{
	free(l->foff);
	free(l->flen);
	free(l->moff);
	free(l->mlen);
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

static uint64_t
lists_random(struct rng *r, struct lists *l, int nfile,
    uint64_t start, uint64_t ssize, uint64_t maxlen)
{
	uint64_t off = start, total = 0, left, k;
	int i;

	memset(l, 0, sizeof(*l));
	l->nfile = nfile;
	l->foff = calloc((size_t)nfile, sizeof(*l->foff));
	l->flen = calloc((size_t)nfile, sizeof(*l->flen));
	for (i = 0; i < nfile; i++) {
		off += rng_range(r, 0, 3) == 0 ? 0 : rng_range(r, 1, ssize);
		l->foff[i] = (int64_t)off;
		l->flen[i] = rng_range(r, 0, 20) == 0 ? 0 :
		    (int32_t)rng_range(r, 1, maxlen);
		off += (uint64_t)l->flen[i];
		total += (uint64_t)l->flen[i];
	}
	l->mem = malloc(total + 1);
	l->nmem = (int)rng_range(r, 1, (uint64_t)nfile + 5);
	l->moff = calloc((size_t)l->nmem, sizeof(*l->moff));
	l->mlen = calloc((size_t)l->nmem, sizeof(*l->mlen));
	/* Memory regions in a scrambled order over the buffer: the list
	 * order is the stream order, wherever the pieces are. */
	for (i = 0, left = total; i < l->nmem; i++) {
		k = i == l->nmem - 1 ? left : rng_range(r, 0, left);
		l->mlen[i] = (int)k;
		left -= k;
	}
	for (i = 0, k = 0; i < l->nmem; i++) {
		l->moff[i] = (char *)l->mem + k;
		k += (uint64_t)l->mlen[i];
	}
	return total;
}

/* The stream of a memory list, gathered/scattered to a flat buffer. */
static void
lists_gather(const struct lists *l, unsigned char *flat)
{
	uint64_t k = 0;
	int i;

	for (i = 0; i < l->nmem; k += (uint64_t)l->mlen[i], i++)
		memcpy(flat + k, l->moff[i], (size_t)l->mlen[i]);
}

static void
lists_shadow_write(const struct lists *l, struct shadow *s,
    const unsigned char *flat)
{
	uint64_t k = 0;
	int i;

	for (i = 0; i < l->nfile; k += (uint64_t)l->flen[i], i++)
		shadow_write(s, (uint64_t)l->foff[i], flat + k, (size_t)l->flen[i]);
}

/* What a list read must return: the stream's prefix below the end. */
static uint64_t
lists_shadow_read(const struct lists *l,
    const struct shadow *s, unsigned char *flat)
{
	uint64_t k = 0, o, n;
	int i;

	for (i = 0; i < l->nfile; i++) {
		o = (uint64_t)l->foff[i];
		n = (uint64_t)l->flen[i];
		if (o + n > s->size) {
			if (o < s->size) {
				memcpy(flat + k, s->data + o, s->size - o);
				k += s->size - o;
			}
			return k;
		}
		memcpy(flat + k, s->data + o, n);
		k += n;
	}
	return k;
}

static void
random_lists_one(int base, int pcount, int ssize, int nops,
    uint64_t start)
{
	char name[64], what[160];
	struct shadow s;
	struct lists l;
	struct rng r;
	unsigned char *flat, *eflat;
	uint64_t total, exp, ss = ssize > 0 ? (uint64_t)ssize : 65536;
	int fd, i, n;

	snprintf(name, sizeof(name), "list_%d_%d_%d", base, pcount, ssize);
	rng_init(&r, name);
	fd = check_ok(create_dist(name, base, pcount, ssize));
	shadow_init(&s);
	for (i = 0; i < nops; i++) {
		int nfile = (int)rng_range(&r, 1, i % 5 == 0 ? 3000 : 60);

		total = lists_random(&r, &l, nfile, rng_range(&r, 0, 3 * ss),
		    ss, rng_range(&r, 0, 1) ? 100 : 3 * ss);
		flat = malloc(total + 1);
		eflat = malloc(total + 1);
		snprintf(what, sizeof(what), "%s op %d: %d file regions, %d "
		    "memory regions, %" PRIu64 " bytes", name, i, l.nfile,
		    l.nmem, total);
		if (rng_range(&r, 0, 1) == 0) {
			rng_fill(&r, l.mem, total);
			n = pvfs_write_list(fd, l.nmem, l.moff, l.mlen, l.nfile,
			    l.foff, l.flen);
			if (n != (int)total)
				fail_msg("%s: write_list = %d (%s)", what, n,
				    strerror(errno));
			lists_gather(&l, flat);
			lists_shadow_write(&l, &s, flat);
		} else {
			memset(l.mem, 0xa5, total);
			n = pvfs_read_list(fd, l.nmem, l.moff, l.mlen, l.nfile,
			    l.foff, l.flen);
			exp = lists_shadow_read(&l, &s, eflat);
			if (n != (int)exp)
				fail_msg("%s: read_list = %d (%s), expected %"
				    PRIu64, what, n, strerror(errno), exp);
			lists_gather(&l, flat);
			if (memcmp(flat, eflat, exp) != 0)
				fail_msg("%s: wrong bytes at +%zu", what,
				    first_diff(flat, eflat, exp));
		}
		free(flat);
		free(eflat);
		lists_free(&l);
	}
	shadow_assert_fd(&s, fd, name);
	check_ok(pvfs_close(fd));
	shadow_free(&s);
}

static void
test_random_lists(void **state)
{
	random_lists_one(0, 4, 4096, 30, 0);
	random_lists_one(3, 2, 1000, 20, 0);
	random_lists_one(-1, -1, -1, 20, 0);
}

/* Thousands of regions past 4 GiB, in more than one LIST batch. */
static void
test_many_regions_64bit(void **state)
{
	const int nreg = 40000;
	int64_t *foff = calloc(nreg, sizeof(*foff));
	int32_t *flen = calloc(nreg, sizeof(*flen));
	int64_t *flen64 = calloc(nreg, sizeof(*flen64));
	unsigned char *buf, *rbuf, one;
	char *moff[1], *rmoff[1];
	int mlen[1], fd, i;
	int64_t mlen64[1];
	uint64_t base = 5 * GiB + 777, total = 0;
	struct rng r;

	rng_init(&r, "many regions");
	for (i = 0; i < nreg; i++) {
		foff[i] = (int64_t)(base + (uint64_t)i * 100 + rng_range(&r, 0, 40));
		flen[i] = (int32_t)rng_range(&r, 1, 50);
		flen64[i] = flen[i];
		total += (uint64_t)flen[i];
	}
	buf = malloc(total);
	rbuf = malloc(total);
	rng_fill(&r, buf, total);
	fd = check_ok(create_dist("many", 1, 4, 4096));
	moff[0] = (char *)buf;
	mlen[0] = (int)total;
	assert_int_equal(pvfs_write_list(fd, 1, moff, mlen, nreg, foff, flen),
	    (int)total);
	rmoff[0] = (char *)rbuf;
	mlen64[0] = (int64_t)total;
	assert_int_equal(pvfs_read_list64(fd, 1, rmoff, mlen64, nreg, foff,
	    flen64), (ssize_t)total);
	assert_memory_equal(buf, rbuf, total);
	/* Spot checks through plain preads; the gaps read as zeros. */
	for (i = 0, total = 0; i < nreg; total += (uint64_t)flen[i], i++) {
		if (i % 1999 != 0)
			continue;
		assert_int_equal(pvfs_pread(fd, &one, 1, (off_t)foff[i]), 1);
		assert_int_equal(one, buf[total]);
		if (i > 0 && foff[i] > foff[i - 1] + flen[i - 1]) {
			assert_int_equal(pvfs_pread(fd, &one, 1,
			    (off_t)foff[i] - 1), 1);
			assert_int_equal(one, 0);
		}
	}
	check_ok(pvfs_close(fd));
	free(buf);
	free(rbuf);
	free(foff);
	free(flen);
	free(flen64);
}

static void
test_list_errors(void **state)
{
	char b[64], *m[2] = { b, b + 32 };
	int ml[2] = { 32, 32 }, bad_ml[2] = { 32, -1 };
	int64_t fo[2] = { 100, 0 }, sorted[2] = { 0, 100 }, overl[2] = { 0, 20 };
	int64_t past[2] = { 0, 120 };
	int32_t fl[2] = { 32, 32 }, short_fl[2] = { 32, 31 };
	int fd, rd;

	fd = check_ok(create_dist("list_err", 0, 4, 4096));
	assert_errno(pvfs_write_list(fd, 2, m, ml, 2, fo, fl), EINVAL);
	assert_errno(pvfs_write_list(fd, 2, m, ml, 2, overl, fl), EINVAL);
	assert_errno(pvfs_write_list(fd, 2, m, ml, 2, sorted, short_fl), EINVAL);
	assert_errno(pvfs_write_list(fd, 2, m, bad_ml, 2, sorted, fl), EINVAL);
	assert_errno(pvfs_write_list(fd, -1, m, ml, 2, sorted, fl), EINVAL);
	assert_errno(pvfs_write_list(fd + 1000, 2, m, ml, 2, sorted, fl), EBADF);
	assert_int_equal(pvfs_write_list(fd, 0, NULL, NULL, 0, NULL, NULL), 0);
	memset(b, 7, sizeof(b));
	assert_int_equal(pvfs_write_list(fd, 2, m, ml, 2, sorted, fl), 64);
	/* A read list past the end returns the prefix below it. */
	memset(b, 0, sizeof(b));
	assert_int_equal(pvfs_read_list(fd, 2, m, ml, 2, sorted, fl), 64);
	assert_int_equal(pvfs_read_list(fd, 2, m, ml, 2, past, fl), 44);
	assert_int_equal(b[43], 7);
	assert_int_equal(b[44], 0);
	/* Wrong access modes. */
	rd = check_ok(open_rel("list_err", O_RDONLY));
	assert_errno(pvfs_write_list(rd, 2, m, ml, 2, sorted, fl), EBADF);
	assert_errno(pvfs_write_strided(rd, b, 0, 1, 2, 3), EBADF);
	check_ok(pvfs_close(rd));
	/* Strided: bad shapes. */
	assert_errno(pvfs_read_strided(fd, b, 0, 8, 4, 2), EINVAL);
	assert_errno(pvfs_read_strided(fd, b, -1, 8, 8, 2), EINVAL);
	/* (count - 1) * stride + blocklen wraps 2^64. */
	assert_errno(pvfs_read_strided(fd, b, 0, 8, INT64_MAX, 3), EINVAL);
	assert_int_equal(pvfs_read_strided(fd, b, 0, 8, 4, 0), 0);
	check_ok(pvfs_close(fd));
}

/* Columns of a row-major matrix through the strided call, then a whole
 * row back through a partition. */
static void
test_strided(void **state)
{
	enum { N = 300, E = 4 };
	static unsigned char m[N * N * E], col[N * 7 * E + 100];
	struct pvfs_fpart p = { 0, 0, 0, 0, 0 };
	int fd, i, j;

	for (i = 0; i < N * N * E; i++)
		m[i] = (unsigned char)(i * 7 + i / 1000);
	fd = check_ok(create_dist("strided", 2, 3, 4096));
	assert_int_equal(pvfs_write(fd, m, sizeof(m)), (ssize_t)sizeof(m));
	/* Columns 10..16 of every row. */
	assert_int_equal(pvfs_read_strided(fd, col, 10 * E, 7 * E, N * E, N),
	    N * 7 * E);
	for (i = 0; i < N; i++)
		for (j = 0; j < 7 * E; j++)
			assert_int_equal(col[i * 7 * E + j], m[i * N * E + 10 * E + j]);
	/* Write them back changed, read through a partition. */
	for (i = 0; i < N * 7 * E; i++)
		col[i] ^= 0x5a;
	assert_int_equal(pvfs_write_strided(fd, col, 10 * E, 7 * E, N * E, N),
	    N * 7 * E);
	p.offset = 10 * E;
	p.gsize = 7 * E;
	p.stride = N * E;
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &p));
	memset(col, 0, sizeof(col));
	/* Asking for more than the view holds: the end of file. */
	assert_int_equal(pvfs_read(fd, col, sizeof(col)), N * 7 * E);
	for (i = 0; i < N; i++)
		for (j = 0; j < 7 * E; j++)
			assert_int_equal(col[i * 7 * E + j],
			    m[i * N * E + 10 * E + j] ^ 0x5a);
	check_ok(pvfs_close(fd));
}

/* ---- the PPFS record-interleaved write ---- */

static void
record_fill(unsigned char *rec, size_t len, uint64_t k)
{
	pattern_fill(rec, len, k * len, 0x5eed);
}

static int
interleaved_child(int k, int p, size_t rec, int nrec)
{
	struct pvfs_fpart part = { (int64_t)(k * rec), (int64_t)rec,
		(int64_t)(p * rec), 0, 0 };
	unsigned char *buf = malloc(rec * (size_t)nrec);
	int fd, i;
	ssize_t n;

	if (buf == NULL)
		return 10;
	for (i = 0; i < nrec; i++)
		record_fill(buf + (size_t)i * rec, rec, (uint64_t)(i * p + k));
	if ((fd = open_rel("interleaved", O_WRONLY)) < 0)
		return 11;
	if (pvfs_ioctl(fd, PVFS_SETPART, &part) != 0)
		return 12;
	/* Half in one write, the rest in two (crossing records). */
	n = pvfs_write(fd, buf, rec * (size_t)nrec / 2);
	if (n != (ssize_t)(rec * (size_t)nrec / 2))
		return 13;
	n = pvfs_write(fd, buf + n, rec / 3);
	if (n != (ssize_t)(rec / 3))
		return 14;
	n = pvfs_write(fd, buf + rec * (size_t)nrec / 2 + rec / 3,
	    rec * (size_t)nrec - rec * (size_t)nrec / 2 - rec / 3);
	if (n < 0)
		return 15;
	if (pvfs_close(fd) != 0)
		return 16;
	free(buf);
	return 0;
}

static void
interleaved_one(int p, size_t rec, int nrec, int ssize)
{
	unsigned char *file, *exp;
	size_t total = rec * (size_t)p * (size_t)nrec;
	pid_t pids[16];
	int fd, k, status;

	fd = check_ok(create_dist("interleaved", 0, NIODS, ssize));
	check_ok(pvfs_close(fd));
	for (k = 0; k < p; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0)
			_exit(interleaved_child(k, p, rec, nrec));
	}
	for (k = 0; k < p; k++) {
		assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("writer %d: status %d", k, status);
	}
	file = malloc(total + 1);
	exp = malloc(total);
	for (k = 0; k < p * nrec; k++)
		record_fill(exp + (size_t)k * rec, rec, (uint64_t)k);
	fd = check_ok(open_rel("interleaved", O_RDONLY));
	assert_int_equal(pvfs_read(fd, file, total + 1), (ssize_t)total);
	if (memcmp(file, exp, total) != 0)
		fail_msg("interleaved p=%d rec=%zu: wrong byte at %zu", p, rec,
		    first_diff(file, exp, total));
	check_ok(pvfs_close(fd));
	free(file);
	free(exp);
}

static void
test_record_interleaved_writers(void **state)
{
	interleaved_one(4, 1000, 200, 4096);  /* records across stripes */
	interleaved_one(8, 64, 1000, 65536);  /* many records per stripe */
	interleaved_one(3, 70000, 8, 65536);  /* records longer than stripes */
}

/* ---- the work bound of list requests (PVFS_LIST_MAX_WORK) ---- */

#define BIG_SSIZE (1 << 22) /* round 2^24 over NIODS: coprime strides
                             * repeat only after 2^24 blocks */

/* The iod holding relative position rel of cap's file. */
static int
raw_connect_rel(const struct pvfs_cap *cap, uint32_t rel)
{
	char name[16];

	snprintf(name, sizeof(name), "iod%u", (cap->dist.base + rel) % NIODS);
	return raw_connect(&c, name, 10);
}

/* n segments of count blocks of 1 byte, stride 3 (coprime with the round),
 * one after the other. */
static struct pvfs_pattern *
coprime_segs(uint32_t n, uint64_t count)
{
	struct pvfs_pattern *seg = calloc(n, sizeof(*seg));
	uint32_t i;

	assert_non_null(seg);
	for (i = 0; i < n; i++)
		seg[i] = (struct pvfs_pattern){ (uint64_t)i * 3 * count, 1, 3,
			count };
	assert_int_equal(pvfs_list_check(seg, n), 0);
	return seg;
}

/* A READ_LIST of seg to iod rel: its status, within max_ms. */
static int
raw_read_list(const struct pvfs_cap *cap, uint32_t rel,
    struct pvfs_pattern *seg, uint32_t nseg, int64_t max_ms)
{
	struct pvfs_iod_read_list_req req = { .cap = *cap, .rel = rel,
		.nseg = nseg, .seg = seg };
	struct pvfs_iod_read_rep rep;
	struct pvfs_hdr h;
	uint8_t body[64], *stream;
	int64_t t0 = pvfs_mono_ms();
	int fd = raw_connect_rel(cap, rel), st;

	raw_send_frame(fd, PVFS_IOD_READ_LIST, 0, &req);
	st = raw_status(fd, &h);
	if (pvfs_mono_ms() - t0 > max_ms)
		fail_msg("READ_LIST of %u segments: %lld ms", nseg,
		    (long long)(pvfs_mono_ms() - t0));
	if (st == 0) {
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
		assert_int_equal(pvfs_msg_decode(PVFS_IOD_READ_LIST, 1, body,
		    h.body_len, &rep), 0);
		stream = malloc(rep.stream_len + 1);
		assert_non_null(stream);
		assert_int_equal(raw_read(fd, stream, rep.stream_len), 0);
		free(stream);
	}
	if (st >= 0) {
		/* Refused or served, the connection stays usable. */
		raw_send_frame(fd, PVFS_IOD_PING, 0, NULL);
		assert_int_equal(raw_status(fd, &h), 0);
	}
	close(fd);
	return st;
}

/* The first n bytes of /rel are data. */
static void
check_head(const char *rel, const unsigned char *data, size_t n)
{
	unsigned char *back = malloc(n);
	int fd = check_ok(open_rel(rel, O_RDONLY));

	assert_non_null(back);
	assert_int_equal(pvfs_pread(fd, back, n, 0), (ssize_t)n);
	if (memcmp(back, data, n) != 0)
		fail_msg("%s: wrong byte at %zu", rel, first_diff(back, data, n));
	check_ok(pvfs_close(fd));
	free(back);
}

/* PVFS_LIST_MAX segments of 2^24 one-byte blocks, stride 3: a valid list
 * whose shares would cost an iod 2^38 steps before the first byte moved.
 * Refused with EINVAL at once, for READ_LIST (the connection lives on)
 * and WRITE_LIST (reply and close: the stream cannot be resynchronised);
 * the iods keep serving.  A list of exactly the budget is served. */
static void
test_hostile_list_work(void **state)
{
	static unsigned char data[100000];
	struct pvfs_iod_write_list_req wreq;
	struct pvfs_mgr_attrcap_rep rep;
	struct pvfs_pattern *seg;
	struct pvfs_cap cap;
	struct pvfs_hdr h;
	int64_t t0;
	uint32_t rel;
	int fd;

	pattern_fill(data, sizeof(data), 0, 77);
	fd = check_ok(create_dist("hostile", 0, NIODS, BIG_SSIZE));
	assert_int_equal(pvfs_write(fd, data, sizeof(data)), sizeof(data));
	check_ok(pvfs_close(fd));
	raw_open(&c, "/hostile", PVFS_OF_RDWR, &rep);
	cap = rep.cap;
	assert_int_equal(cap.dist.ssize, BIG_SSIZE);
	assert_int_equal(cap.dist.pcount, NIODS);

	seg = coprime_segs(PVFS_LIST_MAX, PVFS_PATTERN_MAX_COUNT);
	assert_true(pvfs_list_work(seg, PVFS_LIST_MAX, cap.dist.pcount,
	    cap.dist.ssize) > PVFS_LIST_MAX_WORK);
	for (rel = 0; rel < cap.dist.pcount; rel++)
		assert_int_equal(raw_read_list(&cap, rel, seg, PVFS_LIST_MAX,
		    2000), EINVAL);
	check_head("hostile", data, sizeof(data));

	/* WRITE_LIST: refused before its stream_len is even looked at. */
	for (rel = 0; rel < cap.dist.pcount; rel++) {
		fd = raw_connect_rel(&cap, rel);
		wreq = (struct pvfs_iod_write_list_req){ .cap = cap, .rel = rel,
			.nseg = PVFS_LIST_MAX, .seg = seg, .stream_len = 1ULL << 36 };
		t0 = pvfs_mono_ms();
		raw_send_frame(fd, PVFS_IOD_WRITE_LIST, 0, &wreq);
		assert_int_equal(raw_status(fd, &h), EINVAL);
		assert_true(pvfs_mono_ms() - t0 < 2000);
		raw_assert_closed(fd);
		close(fd);
	}
	check_head("hostile", data, sizeof(data));
	free(seg);

	/* Two segments of 2^24 blocks are past the budget: refused; each
	 * alone is served, and so are two of 2^23 (exactly the budget).
	 * (Iod 0 streams its share below the file's end, 100000.) */
	seg = coprime_segs(2, PVFS_PATTERN_MAX_COUNT);
	assert_int_equal(raw_read_list(&cap, 0, seg, 2, 2000), EINVAL);
	assert_int_equal(raw_read_list(&cap, 0, seg, 1, 20000), 0);
	assert_int_equal(raw_read_list(&cap, 0, seg + 1, 1, 20000), 0);
	free(seg);
	seg = coprime_segs(2, PVFS_PATTERN_MAX_COUNT / 2);
	assert_int_equal(pvfs_list_work(seg, 2, cap.dist.pcount,
	    cap.dist.ssize), PVFS_LIST_MAX_WORK);
	assert_int_equal(raw_read_list(&cap, 0, seg, 2, 20000), 0);
	free(seg);
	check_head("hostile", data, sizeof(data));
}

/* Legitimate calls whose lists exceed the budget: 2^24 + 1000 one-byte
 * blocks on a file whose round is 2^24 (a stride coprime with it, 1 or 3,
 * does not repeat before 2^24 blocks), so their work is 2^24 + 1000.  The
 * client splits them into rounds within PVFS_LIST_MAX_WORK (the strided
 * calls in listio.c, a partitioned view in file.c) and the bytes match a
 * shadow.  Every non-contiguous block is a piece (a sendfile or pwrite
 * for an iod): these few calls take seconds, so the stride-3 ones are
 * reads only (a write's iods would work through their buffered stream
 * with no reply for longer than the cluster's 5 s client timeout under
 * ASan). */
static void
test_over_budget_calls(void **state)
{
	const uint64_t n = PVFS_PATTERN_MAX_COUNT + 1000, off = 5 * MiB + 7;
	const uint64_t span = 3 * (n - 1) + 1;
	struct pvfs_fpart part = { (int64_t)off, 1, 3, 0, 0 };
	struct pvfs_pattern seg[2] = {
		{ off, 1, 3, PVFS_PATTERN_MAX_COUNT },
		{ off + 3ULL * PVFS_PATTERN_MAX_COUNT, 1, 3, 1000 } };
	unsigned char *buf = malloc(n), *back = malloc(n), *file = malloc(span);
	char path[PATH_MAX];
	struct shadow s;
	uint64_t i;
	int fd;

	assert_non_null(buf);
	assert_non_null(back);
	assert_non_null(file);
	/* What the stride-3 calls send: over the budget, so two rounds;
	 * stride 1 too (the round is 2^24 bytes). */
	assert_true(pvfs_list_work(seg, 2, NIODS, BIG_SSIZE) > PVFS_LIST_MAX_WORK);
	assert_int_equal(pvfs_list_round(seg, 2, NIODS, BIG_SSIZE), 1);
	seg[0].stride = seg[1].stride = 1;
	seg[1].offset = off + PVFS_PATTERN_MAX_COUNT;
	assert_int_equal(pvfs_list_round(seg, 2, NIODS, BIG_SSIZE), 1);

	shadow_init(&s);
	pattern_fill(file, span, off, 4242);
	fd = check_ok(create_dist("over_budget", 1, NIODS, BIG_SSIZE));
	assert_int_equal(pvfs_pwrite(fd, file, span, (off_t)off), (ssize_t)span);
	shadow_write(&s, off, file, span);
	/* Strided write and read, stride 1. */
	pattern_fill(buf, n, 0, 2424);
	assert_int_equal(check_ok(pvfs_write_strided(fd, buf, (int64_t)off, 1,
	    1, (int64_t)n)), (ssize_t)n);
	shadow_write(&s, off, buf, n);
	memcpy(file, buf, n);
	shadow_assert_fd(&s, fd, "strided write past the budget");
	memset(back, 0, n);
	assert_int_equal(check_ok(pvfs_read_strided(fd, back, (int64_t)off, 1,
	    1, (int64_t)n)), (ssize_t)n);
	if (memcmp(back, buf, n) != 0)
		fail_msg("strided read: wrong byte at %zu", first_diff(back, buf, n));
	/* Strided read, stride 3. */
	for (i = 0; i < n; i++)
		buf[i] = file[3 * i];
	memset(back, 0, n);
	assert_int_equal(check_ok(pvfs_read_strided(fd, back, (int64_t)off, 1,
	    3, (int64_t)n)), (ssize_t)n);
	if (memcmp(back, buf, n) != 0)
		fail_msg("strided read, stride 3: wrong byte at %zu",
		    first_diff(back, buf, n));
	/* The same blocks as a view (file.c), from an offset inside it. */
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &part));
	memset(back, 0, n);
	assert_int_equal(check_ok(pvfs_pread(fd, back, n, 1)), (ssize_t)(n - 1));
	if (memcmp(back, buf + 1, n - 1) != 0)
		fail_msg("view read: wrong byte at %zu",
		    first_diff(back, buf + 1, n - 1));
	check_ok(pvfs_close(fd));
	/* A view read past the budget whose first round meets the end of
	 * file returns that round's prefix. */
	check_ok(pvfs_truncate(cluster_path(&c, "over_budget", path),
	    (off_t)(off + 1000)));
	fd = check_ok(open_rel("over_budget", O_RDONLY));
	check_ok(pvfs_ioctl(fd, PVFS_SETPART, &part));
	memset(back, 0, n);
	assert_int_equal(pvfs_read(fd, back, n), 334);
	if (memcmp(back, buf, 334) != 0)
		fail_msg("view read at the end: wrong byte at %zu",
		    first_diff(back, buf, 334));
	check_ok(pvfs_close(fd));
	shadow_free(&s);
	free(buf);
	free(back);
	free(file);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_interleaved_writers),
		cmocka_unit_test(test_partition_semantics),
		cmocka_unit_test(test_random_partitions),
		cmocka_unit_test(test_random_lists),
		cmocka_unit_test(test_many_regions_64bit),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_strided),
		cmocka_unit_test(test_hostile_list_work),
		cmocka_unit_test(test_over_budget_calls),
	};
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
