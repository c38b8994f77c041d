/*
 * io-op.h - one operation on file data, as io.c runs it for unmirrored
 * files and io-mirror.c for mirrored ones (doc/design.md, "Mirrored
 * files"): the requests' shapes and the helpers both use.
 */
#ifndef PVFS_IO_OP_H
#define PVFS_IO_OP_H

#include "io-engine.h"

enum io_retry {
	IO_RETRY_NO,
	IO_RETRY_STALE, /* a pooled socket had died: send again */
	IO_RETRY_KEY,   /* capability expired: refresh it, send again */
};

union io_req {
	struct pvfs_iod_read_req read;
	struct pvfs_iod_write_req write;
	struct pvfs_iod_truncate_req truncate;
	struct pvfs_iod_fsync_req fsync;
	struct pvfs_iod_size_req size;
	struct pvfs_iod_read_list_req read_list;
	struct pvfs_iod_write_list_req write_list;
	struct pvfs_none none;
};

/* One operation: what a try sends (fill adds its streams to e) and the
 * last try's streams with their replies. */
struct io_op {
	struct client_fs *fs;
	struct io_file *f;        /* NULL: not about a file (STATFS) */
	int (*fill)(struct io_op *);
	/* A data transfer: READ or WRITE of sg to (from) iov. */
	int write;
	const struct io_segs *sg;
	const struct iovec *iov;
	int iovcnt;
	/* A small request: opc with arg, to every iod of the file. */
	uint16_t opc;
	uint64_t arg;
	struct io_engine e;
};

/* The distribution comes signed from the mgr, but it must still fit the
 * iod table we know.  0, or -1 with errno. */
int pvfs_io_check_file(struct io_file *f);
/* The segments of sg that hold bytes of rel, into sub (sg->nseg entries of
 * room); their number, their total share and block count. */
uint32_t pvfs_io_segs_for(const struct io_segs *sg, const struct pvfs_dist *d,
    uint32_t rel, struct pvfs_pattern *sub, uint64_t *share, uint64_t *blocks);
/* The READ or WRITE request of rel's copy for the segments sub[0 .. m). */
uint16_t pvfs_io_data_req(int write, const struct io_file *f, uint32_t rel,
    uint32_t copy, struct pvfs_pattern *sub, uint32_t m, uint64_t share,
    union io_req *req);
/* A SIZE, TRUNCATE (arg: length) or FSYNC (arg: datasync) request. */
void pvfs_io_build_req(uint16_t opc, const struct io_file *f, uint32_t rel,
    uint32_t copy, uint64_t arg, union io_req *req);

/* io-mirror.c: the same operations on a mirrored file (copies > 1). */
int pvfs_io_mirror_rw(struct io_file *f, int write, const struct io_segs *sg,
    const struct iovec *iov, int iovcnt, uint64_t *max_end);
int pvfs_io_mirror_size(struct io_file *f, struct pvfs_io_size *out);
int pvfs_io_mirror_truncate(struct io_file *f, uint64_t length);
int pvfs_io_mirror_fsync(struct io_file *f, int datasync);

#endif /* PVFS_IO_OP_H */
