/*
 * mgr-admin.c - what the administrator's tools ask of the mgr: MGR_INOLIST
 * for pvfs-fsck (which inode numbers are live files, with each one's
 * identity (gen) and distribution, and the ADMIN capability that lets it
 * list and purge stripe files on iods), and MGR_COUNTERS for
 * pvfs-counters.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

static struct pvfs_ino_wire admin_inos[PVFS_INOLIST_SPAN];
static struct pvfs_opstat_wire admin_opstats[PVFS_OPSTAT_MAX];

struct pvfs_counters mgr_counters;

/* Root, or whoever runs the mgr (pvfs-local runs unprivileged and its
 * user owns every byte anyway).  Squashed root is neither, and nor is an
 * anonymous client when the mgr itself runs as nobody. */
static int
mgr_admin_allowed(const struct pvfs_cred *cr)
{
	return cr->uid == 0 ||
	    (cr->uid == (uint32_t)geteuid() && cr->uid != MGR_NOBODY);
}

/* One hash lookup per number in the range: numbers are dense (a counter)
 * and the range is bounded, so a page costs the same whatever the size of
 * the name space, and the reply is a consistent view of one instant. */
int
mgr_admin_inolist(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_inolist_req *q = rq;
	struct pvfs_mgr_inolist_rep *rep = rp;
	const struct mgr_inode *in;
	uint64_t ino, end;

	if (!mgr_admin_allowed(&q->cred))
		return EACCES;
	if (q->count > PVFS_INOLIST_SPAN)
		return EINVAL;
	rep->next_ino = mgr_ns_next_ino();
	mgr_cap_mint(0, 0, PVFS_R_ADMIN, NULL, &rep->cap);
	rep->inos = admin_inos;
	rep->n = 0;
	end = q->first + q->count;
	if (end < q->first || end > rep->next_ino)
		end = rep->next_ino;
	for (ino = q->first; ino < end; ino++) {
		in = mgr_ns_get(ino);
		if (in == NULL || !MGR_IS_REG(in))
			continue; /* only files have stripes */
		admin_inos[rep->n].ino = ino;
		admin_inos[rep->n].gen = in->gen;
		admin_inos[rep->n++].dist = in->dist;
	}
	return 0;
}

/* Counts of requests by kind reveal nothing of anyone's files: any
 * client may ask (as it may ping). */
int
mgr_admin_counters(struct mgr_conn *c, void *req, void *rep)
{
	uint64_t total, open;

	mgr_conn_counts(&total, &open);
	pvfs_counters_reply(&mgr_counters, total, open, rep, admin_opstats);
	return 0;
}
