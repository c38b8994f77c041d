/*
 * mgr-perm.c - permission checks with the caller's claimed identity, as a
 * local file system makes them.
 */
#include <errno.h>
#include <sys/stat.h>

#include "mgr.h"

/* --root-squash: a client's root is nobody here.  The group goes too, in
 * the primary gid and in the supplementary list (root's usually holds 0),
 * or root would keep group-root access. */
void
mgr_perm_squash(struct pvfs_cred *cr)
{
	uint32_t i;

	if (cr->ngroups > PVFS_MAX_GROUPS)
		cr->ngroups = PVFS_MAX_GROUPS;
	if (!mgr.root_squash || cr->uid != 0)
		return;
	cr->uid = MGR_NOBODY;
	if (cr->gid == 0)
		cr->gid = MGR_NOBODY;
	for (i = 0; i < cr->ngroups; i++) {
		if (cr->groups[i] == 0)
			cr->groups[i] = MGR_NOBODY;
	}
}

int
mgr_perm_in_group(const struct pvfs_cred *cr, uint32_t gid)
{
	uint32_t i;

	if (cr->gid == gid)
		return 1;
	for (i = 0; i < cr->ngroups && i < PVFS_MAX_GROUPS; i++) {
		if (cr->groups[i] == gid)
			return 1;
	}
	return 0;
}

int
mgr_perm_owner(const struct pvfs_cred *cr, const struct mgr_inode *in)
{
	return cr->uid == 0 || cr->uid == in->uid;
}

/* want is MGR_MAY_R|W|X.  0 or EACCES.  Root passes everything except
 * execute on a file nobody may execute. */
int
mgr_perm_check(const struct pvfs_cred *cr, const struct mgr_inode *in,
    int want)
{
	uint32_t bits;

	if (cr->uid == 0) {
		if ((want & MGR_MAY_X) && !MGR_IS_DIR(in) && (in->mode & 0111) == 0)
			return EACCES;
		return 0;
	}
	if (cr->uid == in->uid)
		bits = (in->mode >> 6) & 7;
	else if (mgr_perm_in_group(cr, in->gid))
		bits = (in->mode >> 3) & 7;
	else
		bits = in->mode & 7;
	return ((uint32_t)want & ~bits) ? EACCES : 0;
}

/* In a sticky directory only the owner of the entry or of the directory
 * (or root) may remove or rename it. */
int
mgr_perm_sticky(const struct pvfs_cred *cr, const struct mgr_inode *dir,
    const struct mgr_inode *in)
{
	if (!(dir->mode & S_ISVTX) || cr->uid == 0)
		return 0;
	if (cr->uid == in->uid || cr->uid == dir->uid)
		return 0;
	return EPERM;
}

/* Removing in from dir (unlink, rmdir, rename's source or victim). */
int
mgr_perm_delete(const struct pvfs_cred *cr, const struct mgr_inode *dir,
    const struct mgr_inode *in)
{
	if (mgr_perm_check(cr, dir, MGR_MAY_W | MGR_MAY_X) != 0)
		return EACCES;
	return mgr_perm_sticky(cr, dir, in);
}

/* Search permission on every directory above in, as a lookup of its path
 * needs.  Requests by inode (fstat, fchmod, readdir, a capability
 * refresh) check it too: the mgr keeps no open state to tell a holder of
 * a descriptor from a guesser, and inode numbers are easy to guess. */
int
mgr_perm_reach(const struct pvfs_cred *cr, const struct mgr_inode *in)
{
	for (; in->de != NULL; in = in->de->parent) {
		if (mgr_perm_check(cr, in->de->parent, MGR_MAY_X) != 0)
			return EACCES;
	}
	return 0;
}

uint32_t
mgr_perm_kill_sgid(const struct pvfs_cred *cr, const struct mgr_inode *in)
{
	if (!(in->mode & S_ISGID))
		return 0;
	if ((in->mode & S_IXGRP) ||
	    (cr->uid != 0 && !mgr_perm_in_group(cr, in->gid)))
		return S_ISGID;
	return 0;
}

/* A changed program keeps no one's powers: measured on Linux 6.18, a
 * write by a non-root uid clears set-user-ID always, set-group-ID when
 * group execute is on or the writer is not in the file's group. */
uint32_t
mgr_perm_kill_bits(const struct pvfs_cred *cr, const struct mgr_inode *in)
{
	if (cr->uid == 0 || !MGR_IS_REG(in))
		return 0;
	return (in->mode & S_ISUID) | mgr_perm_kill_sgid(cr, in);
}
