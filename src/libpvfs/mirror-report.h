/*
 * mirror-report.h - a mirrored file's copies that missed a write or a
 * truncate, reported to the mgr before the operation returns
 * (doc/design.md, "Mirrored files": MGR_DIRTY).  io-mirror.c calls it;
 * mirror-report.c sends it.
 */
#ifndef PVFS_MIRROR_REPORT_H
#define PVFS_MIRROR_REPORT_H

#include <stdint.h>

#include "pvfs-internal.h"

/* Bytes [offset, offset + length) of the stripe file of copy copy of
 * relative position rel (local offsets, in the stripe file) may differ from
 * the other copies'; length 0: its size may differ (after a truncate). */
struct pvfs_mirror_range {
	uint32_t rel, copy;
	uint64_t offset, length;
};

/* Report ranges r[0 .. n) of f (its capability has WRITE) as dirty.  0
 * once the mgr has recorded them (and fenced those copies), or -errno:
 * the caller then fails the operation with EIO. */
int pvfs_mirror_report(struct io_file *f, const struct pvfs_mirror_range *r,
    uint32_t n);
/* Send the reports a failed pvfs_mirror_report left pending on f's open
 * file (kept there, with what was not sent, when it fails).  0, or -1
 * with EIO: the operation on the file fails. */
int pvfs_mirror_pending(struct io_file *f);
/* The last close of a file: its pending reports tried once more, then
 * dropped (the writes that left them failed with EIO). */
void pvfs_mirror_close(struct pvfs_file *f);

#endif /* PVFS_MIRROR_REPORT_H */
