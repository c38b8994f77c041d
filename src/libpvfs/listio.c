/*
 * listio.c - PVFS 1 list I/O and strided (vector) I/O: many file regions
 * in one call, and one request per iod for all of them (doc/noncontig.md).
 *
 * File regions become segments (struct pvfs_pattern): adjacent regions
 * merge, and runs of equal lengths at equal distances become one strided
 * segment, so a regular list costs the wire one descriptor.  Up to
 * PVFS_LIST_MAX segments (and PVFS_LIST_MAX_WORK of share work) go in one
 * operation; a longer list takes several, each still one request per iod.  Memory regions become the
 * iovecs the engine scatters into.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pvfs-internal.h"

#define LISTIO_OFF_MAX ((uint64_t)INT64_MAX)

/* The caller's lists, in either width. */
struct listio_args {
	int mem_count;
	char **mem_off;
	const int *mem_len32;
	const int64_t *mem_len64;
	int file_count;
	const int64_t *file_off;
	const int32_t *file_len32;
	const int64_t *file_len64;
};

struct listio {
	struct iovec *iov;        /* memory regions, empty ones dropped */
	int iovcnt;
	struct pvfs_pattern *seg; /* file regions as segments, in file order */
	uint32_t nseg;
	uint64_t total;
};

static void
listio_free(struct listio *l)
{
	free(l->iov);
	free(l->seg);
}

static int64_t
listio_mem_len(const struct listio_args *a, int i)
{
	return a->mem_len64 != NULL ? a->mem_len64[i] : a->mem_len32[i];
}

static int64_t
listio_file_len(const struct listio_args *a, int i)
{
	return a->file_len64 != NULL ? a->file_len64[i] : a->file_len32[i];
}

static int
listio_einval(void)
{
	errno = EINVAL;
	return -1;
}

/* Memory regions to iovecs; their total in *total. */
static int
listio_mem(const struct listio_args *a, struct listio *l, uint64_t *total)
{
	int64_t len;
	int i;

	*total = 0;
	if (a->mem_count < 0 || (a->mem_count > 0 &&
	    (a->mem_off == NULL || (a->mem_len32 == NULL && a->mem_len64 == NULL))))
		return listio_einval();
	if (a->mem_count > 0 &&
	    (l->iov = calloc((size_t)a->mem_count, sizeof(*l->iov))) == NULL)
		return -1;
	for (i = 0; i < a->mem_count; i++) {
		if ((len = listio_mem_len(a, i)) < 0 ||
		    (uint64_t)len > (uint64_t)SSIZE_MAX - *total)
			return listio_einval();
		if (len == 0)
			continue;
		l->iov[l->iovcnt++] = (struct iovec){ a->mem_off[i], (size_t)len };
		*total += (uint64_t)len;
	}
	return 0;
}

/* Append a file region: extend the last segment when it continues it
 * (adjacent bytes, or one more block of a strided run), else start one. */
static void
listio_add(struct listio *l, uint64_t off, uint64_t len)
{
	struct pvfs_pattern *p = l->nseg > 0 ? &l->seg[l->nseg - 1] : NULL;

	if (p != NULL && p->count == 1 && off == p->offset + p->gsize) {
		p->gsize += len;
		p->stride = p->gsize;
		return;
	}
	if (p != NULL && len == p->gsize && p->count < PVFS_PATTERN_MAX_COUNT) {
		if (p->count == 1) {
			p->stride = off - p->offset;
			p->count = 2;
			return;
		}
		if (off == p->offset + p->count * p->stride) {
			p->count++;
			return;
		}
	}
	l->seg[l->nseg++] = (struct pvfs_pattern){ off, len, len, 1 };
}

/* File regions to segments: increasing and non-overlapping, or EINVAL. */
static int
listio_file(const struct listio_args *a, struct listio *l)
{
	uint64_t end = 0;
	int64_t off, len;
	int i;

	if (a->file_count < 0 || (a->file_count > 0 && (a->file_off == NULL ||
	    (a->file_len32 == NULL && a->file_len64 == NULL))))
		return listio_einval();
	if (a->file_count > 0 &&
	    (l->seg = calloc((size_t)a->file_count, sizeof(*l->seg))) == NULL)
		return -1;
	for (i = 0; i < a->file_count; i++) {
		off = a->file_off[i];
		len = listio_file_len(a, i);
		if (off < 0 || len < 0 || (uint64_t)len > LISTIO_OFF_MAX - (uint64_t)off)
			return listio_einval();
		if (len == 0)
			continue;
		if ((uint64_t)off < end || (uint64_t)len > LISTIO_OFF_MAX - l->total)
			return listio_einval();
		end = (uint64_t)off + (uint64_t)len;
		l->total += (uint64_t)len;
		listio_add(l, (uint64_t)off, (uint64_t)len);
	}
	return 0;
}

static int
listio_prepare(const struct listio_args *a, struct listio *l)
{
	uint64_t mem_total;

	memset(l, 0, sizeof(*l));
	if (listio_mem(a, l, &mem_total) != 0 || listio_file(a, l) != 0)
		return -1;
	if (mem_total != l->total)
		return listio_einval();
	return 0;
}

/* The segments one round at a time: at most PVFS_LIST_MAX of them and
 * PVFS_LIST_MAX_WORK of share work for an iod (pvfs_list_round; the whole
 * round's work bounds that of every iod's part).  A short read (end of
 * file) ends the call. */
static ssize_t
listio_do(int fd, int write, struct listio *l, uint64_t limit)
{
	struct file_desc *d;
	ssize_t n = -1;

	if (l->total > limit) {
		errno = EOVERFLOW;
		return -1;
	}
	if ((d = pvfs_fdtab_get(fd)) == NULL)
		return -1;
	if (pvfs_file_access(d->f, write) == 0)
		n = l->total == 0 ? 0 : pvfs_file_segs(d->f, write, l->seg,
		    l->nseg, l->iov, l->iovcnt);
	pvfs_fdtab_put(d);
	return n;
}

static ssize_t
listio_call(int fd, int write, const struct listio_args *a, uint64_t limit)
{
	struct listio l;
	ssize_t n = -1;

	if (listio_prepare(a, &l) == 0)
		n = listio_do(fd, write, &l, limit);
	listio_free(&l);
	return n;
}

int
pvfs_read_list(int fd, int mem_list_count, char *mem_offsets[],
    int mem_lengths[], int file_list_count, int64_t file_offsets[],
    int32_t file_lengths[])
{
	struct listio_args a = { mem_list_count, mem_offsets, mem_lengths, NULL,
		file_list_count, file_offsets, file_lengths, NULL };

	return (int)listio_call(fd, 0, &a, INT_MAX);
}

int
pvfs_write_list(int fd, int mem_list_count, char *mem_offsets[],
    int mem_lengths[], int file_list_count, int64_t file_offsets[],
    int32_t file_lengths[])
{
	struct listio_args a = { mem_list_count, mem_offsets, mem_lengths, NULL,
		file_list_count, file_offsets, file_lengths, NULL };

	return (int)listio_call(fd, 1, &a, INT_MAX);
}

ssize_t
pvfs_read_list64(int fd, int mem_list_count, char *mem_offsets[],
    const int64_t mem_lengths[], int file_list_count,
    const int64_t file_offsets[], const int64_t file_lengths[])
{
	struct listio_args a = { mem_list_count, mem_offsets, NULL, mem_lengths,
		file_list_count, file_offsets, NULL, file_lengths };

	return listio_call(fd, 0, &a, SSIZE_MAX);
}

ssize_t
pvfs_write_list64(int fd, int mem_list_count, char *mem_offsets[],
    const int64_t mem_lengths[], int file_list_count,
    const int64_t file_offsets[], const int64_t file_lengths[])
{
	struct listio_args a = { mem_list_count, mem_offsets, NULL, mem_lengths,
		file_list_count, file_offsets, NULL, file_lengths };

	return listio_call(fd, 1, &a, SSIZE_MAX);
}

/* A vector as segments of at most PVFS_PATTERN_MAX_COUNT blocks each. */
static int
listio_vector(struct listio *l, void *buf, int64_t offset, int64_t blocklen,
    int64_t stride, int64_t count)
{
	uint64_t total, last, b, k;

	memset(l, 0, sizeof(*l));
	if (offset < 0 || blocklen < 0 || count < 0 ||
	    (count > 1 && stride < blocklen))
		return listio_einval();
	if (blocklen == 0 || count == 0)
		return 0;
	if (__builtin_mul_overflow((uint64_t)blocklen, (uint64_t)count, &total) ||
	    total > SSIZE_MAX ||
	    __builtin_mul_overflow((uint64_t)(count - 1), (uint64_t)stride, &last) ||
	    last > LISTIO_OFF_MAX - (uint64_t)offset ||
	    (uint64_t)blocklen > LISTIO_OFF_MAX - (uint64_t)offset - last)
		return listio_einval();
	k = ((uint64_t)count + PVFS_PATTERN_MAX_COUNT - 1) / PVFS_PATTERN_MAX_COUNT;
	if ((l->seg = calloc(k, sizeof(*l->seg))) == NULL ||
	    (l->iov = calloc(1, sizeof(*l->iov))) == NULL)
		return -1;
	for (b = 0; b < (uint64_t)count; b += k) {
		k = (uint64_t)count - b;
		if (k > PVFS_PATTERN_MAX_COUNT)
			k = PVFS_PATTERN_MAX_COUNT;
		l->seg[l->nseg++] = (struct pvfs_pattern){
			(uint64_t)offset + b * (uint64_t)stride, (uint64_t)blocklen,
			(uint64_t)stride, k };
	}
	l->iov[0] = (struct iovec){ buf, (size_t)total };
	l->iovcnt = 1;
	l->total = total;
	return 0;
}

static ssize_t
listio_strided(int fd, int write, void *buf, int64_t offset, int64_t blocklen,
    int64_t stride, int64_t count)
{
	struct listio l;
	ssize_t n = -1;

	if (listio_vector(&l, buf, offset, blocklen, stride, count) == 0)
		n = listio_do(fd, write, &l, SSIZE_MAX);
	listio_free(&l);
	return n;
}

ssize_t
pvfs_read_strided(int fd, void *buf, int64_t offset, int64_t blocklen,
    int64_t stride, int64_t count)
{
	return listio_strided(fd, 0, buf, offset, blocklen, stride, count);
}

ssize_t
pvfs_write_strided(int fd, const void *buf, int64_t offset, int64_t blocklen,
    int64_t stride, int64_t count)
{
	return listio_strided(fd, 1, (void *)buf, offset, blocklen, stride, count);
}
