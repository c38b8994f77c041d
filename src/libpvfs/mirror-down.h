/*
 * mirror-down.h - which iods mirrored files' calls lost, and their probes
 * (mirror-down.c; doc/design.md, "A stopped or blackholed iod").  The
 * state is the iod's conn_pool's (down, probe...).  io-mirror.c calls it.
 */
#ifndef PVFS_MIRROR_DOWN_H
#define PVFS_MIRROR_DOWN_H

#include <stdint.h>

#include "pvfs-internal.h"

#define PVFS_DOWN 1        /* lost, failing at once (refused, reset) */
#define PVFS_DOWN_SILENT 2 /* lost, timed out (stopped, blackholed) */

/* 0 (up), PVFS_DOWN or PVFS_DOWN_SILENT. */
int pvfs_mirror_down(struct client_fs *fs, uint32_t iod);
/* A call lost iod with err (ETIMEDOUT: silent): down until it answers. */
void pvfs_mirror_lost(struct client_fs *fs, uint32_t iod, int err);
/* iod answered (a stream, a probe): up. */
void pvfs_mirror_up(struct client_fs *fs, uint32_t iod);
/* Move the probes of fs's down iods on: send one when due, take an
 * answer that came, never waiting more than 10 ms.  At a mirrored call's
 * start and end. */
void pvfs_mirror_probe(struct client_fs *fs);

#endif /* PVFS_MIRROR_DOWN_H */
