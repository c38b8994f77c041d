/*
 * mirror-report.c - dirty reports of mirrored files (mirror-report.h).
 *
 * First form: nothing records a dirty copy yet, so a write that missed a
 * copy fails closed (EIO) rather than leaving copies that differ
 * unbeknown to anyone.  The MGR_DIRTY request replaces this file.
 */
#include "config.h"

#include <errno.h>

#include "mirror-report.h"

int
pvfs_mirror_report(struct io_file *f, const struct pvfs_mirror_range *r,
    uint32_t n)
{
	(void)f;
	(void)r;
	(void)n;
	return -EIO;
}
