/*
 * pvfs-fsck - find, and with --repair remove, orphan stripe files: files
 * on an iod whose inode the mgr's name space no longer holds (an unlink
 * or rename whose client died, or whose iod was down, before every
 * IOD_REMOVE was answered).
 *
 * Safe on a live file system: the mgr's live inodes are read first, with
 * its inode counter W; then each iod's stripe files.  A stripe file at or
 * above W belongs to a file created during the scan and is left alone; one
 * below W whose inode was not live when its range was read was unlinked
 * before that moment, and inode numbers are never reused, so it is an
 * orphan for good.  A file unlinked during the scan is not listed as an
 * orphan before its range is read after the unlink, and then it is one.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvfs-internal.h"
#include "tools.h"

/* Exit status, as fsck(8): bits or'ed together (0: no orphan). */
#define FSCK_REPAIRED 1
#define FSCK_LEFT 4
#define FSCK_OPERROR 8

static const char usage[] =
"Usage: pvfs-fsck [OPTION]... PATH\n"
"Check the file system of PATH (a mount prefix or a pvfs://host:port URL)\n"
"for orphan stripe files: files on an iod whose inode no longer exists at\n"
"the mgr.  Report each one (iod, inode, bytes); with --repair, remove it.\n"
"Safe while the file system is in use.  Needs uid 0 or the uid running\n"
"the mgr.\n"
"\n"
"  -r, --repair   remove the orphans found\n"
"  -q, --quiet    print only the summary line\n"
"      --help     show this help and exit\n"
"      --version  show the version and exit\n"
"\n"
"Exit status (bits or'ed): 0 no orphan, 1 orphans found and all removed,\n"
"4 orphans left, 8 operational error (a daemon could not be asked, or\n"
"refused), 2 bad usage.\n";

static const struct option longopts[] = {
	{ "repair", no_argument, NULL, 'r' },
	{ "quiet", no_argument, NULL, 'q' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_repair, opt_quiet;

struct fsck {
	const char *path;
	struct client_fs *fs;
	uint64_t watermark;  /* mgr's next inode when the scan began */
	struct pvfs_cap cap; /* ADMIN, from the latest MGR_INOLIST */
	uint64_t *live;      /* live file inodes below watermark, ascending */
	size_t nlive, caplive;
	uint64_t stripes, newer, orphans, orphan_bytes, removed;
	int status;
};

static void
fsck_live_add(struct fsck *f, const struct pvfs_mgr_inolist_rep *r)
{
	uint64_t *grown;
	uint32_t i;

	if (f->nlive + r->n > f->caplive) {
		f->caplive = (f->nlive + r->n) * 2;
		grown = tool_xmalloc(f->caplive * sizeof(*grown));
		if (f->nlive > 0)
			memcpy(grown, f->live, f->nlive * sizeof(*grown));
		free(f->live);
		f->live = grown;
	}
	for (i = 0; i < r->n; i++)
		f->live[f->nlive++] = r->inos[i].ino;
}

/* Read the mgr's live inodes below its counter, one range at a time.
 * 0 or -1 (reported). */
static int
fsck_scan_mgr(struct fsck *f)
{
	struct pvfs_mgr_inolist_rep r;
	uint64_t first = 1;

	do {
		if (admin_inolist(f->fs, first, PVFS_INOLIST_SPAN, &r) != 0) {
			tool_errmsg(f->path, "mgr: %s", strerror(errno));
			return -1;
		}
		if (first == 1)
			f->watermark = r.next_ino;
		f->cap = r.cap;
		fsck_live_add(f, &r);
		pvfs_msg_free(PVFS_MGR_INOLIST, 1, &r);
		first += PVFS_INOLIST_SPAN;
	} while (first < f->watermark);
	return 0;
}

static int
fsck_is_live(const struct fsck *f, uint64_t ino)
{
	size_t lo = 0, hi = f->nlive;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->live[mid] == ino)
			return 1;
		if (f->live[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* A capability outlives any sane scan, but a very long one gets a new one
 * from the mgr rather than failing.  0 or -1. */
static int
fsck_refresh_cap(struct fsck *f)
{
	struct pvfs_mgr_inolist_rep r;

	if (admin_inolist(f->fs, 0, 0, &r) != 0)
		return -1;
	f->cap = r.cap;
	pvfs_msg_free(PVFS_MGR_INOLIST, 1, &r);
	return 0;
}

static void
fsck_orphan(struct fsck *f, uint32_t iod, const struct pvfs_stripe_ent *e)
{
	char addr[PVFS_HOST_MAX + 16];
	const char *done = "";
	int rc;

	f->orphans++;
	f->orphan_bytes += e->size;
	if (opt_repair) {
		rc = admin_iod_purge(f->fs, iod, &f->cap, e->ino);
		if (rc != 0 && errno == EKEYEXPIRED && fsck_refresh_cap(f) == 0)
			rc = admin_iod_purge(f->fs, iod, &f->cap, e->ino);
		if (rc == 0) {
			f->removed++;
			done = ", removed";
		} else {
			admin_iod_addr(f->fs, iod, addr, sizeof(addr));
			tool_errmsg(f->path, "iod %u (%s): remove inode %llu: %s",
			    iod, addr, (unsigned long long)e->ino,
			    strerror(errno));
			f->status |= FSCK_OPERROR;
		}
	}
	if (!opt_quiet)
		printf("orphan: iod %u inode %llu bytes %llu%s\n", iod,
		    (unsigned long long)e->ino, (unsigned long long)e->size, done);
}

/* One IOD_LIST page; a refused capability that merely expired is renewed
 * once.  0 or -1 (errno). */
static int
fsck_list(struct fsck *f, uint32_t iod, uint32_t sub, uint64_t after,
    struct pvfs_iod_list_rep *r)
{
	if (admin_iod_list(f->fs, iod, &f->cap, sub, after, r) == 0)
		return 0;
	if (errno != EKEYEXPIRED || fsck_refresh_cap(f) != 0)
		return -1;
	return admin_iod_list(f->fs, iod, &f->cap, sub, after, r);
}

/* Every stripe file of iod iod, subdirectory by subdirectory.  0 or -1. */
static int
fsck_scan_iod(struct fsck *f, uint32_t iod)
{
	struct pvfs_iod_list_rep r;
	uint64_t after;
	uint32_t sub, i;
	int eof;

	for (sub = 0; sub < 256; sub++) {
		after = 0;
		do {
			if (fsck_list(f, iod, sub, after, &r) != 0)
				return -1;
			for (i = 0; i < r.n; i++) {
				f->stripes++;
				if (r.ents[i].ino >= f->watermark)
					f->newer++;
				else if (!fsck_is_live(f, r.ents[i].ino))
					fsck_orphan(f, iod, &r.ents[i]);
				after = r.ents[i].ino;
			}
			eof = r.eof || r.n == 0;
			pvfs_msg_free(PVFS_IOD_LIST, 1, &r);
		} while (!eof);
	}
	return 0;
}

static void
fsck_scan_iods(struct fsck *f)
{
	char addr[PVFS_HOST_MAX + 16];
	uint32_t i;

	for (i = 0; i < f->fs->niods; i++) {
		if (fsck_scan_iod(f, i) == 0)
			continue;
		admin_iod_addr(f->fs, i, addr, sizeof(addr));
		tool_errmsg(f->path, "iod %u (%s): %s", i, addr, strerror(errno));
		f->status |= FSCK_OPERROR;
	}
}

static int
fsck_run(struct fsck *f)
{
	if (admin_fs(f->path, &f->fs) != 0) {
		tool_err(f->path, errno);
		return FSCK_OPERROR;
	}
	if (fsck_scan_mgr(f) != 0)
		return FSCK_OPERROR;
	fsck_scan_iods(f);
	if (f->removed > 0)
		f->status |= FSCK_REPAIRED;
	if (f->removed < f->orphans)
		f->status |= FSCK_LEFT;
	printf("%s: %zu files, %llu stripe files on %u iods (%llu newer than "
	    "the scan), %llu orphans (%llu bytes), %llu removed\n", f->path,
	    f->nlive, (unsigned long long)f->stripes, f->fs->niods,
	    (unsigned long long)f->newer, (unsigned long long)f->orphans,
	    (unsigned long long)f->orphan_bytes,
	    (unsigned long long)f->removed);
	return f->status;
}

int
main(int argc, char **argv)
{
	struct fsck f;
	int c, rc;

	tool_init("pvfs-fsck", usage);
	while ((c = tool_getopt(argc, argv, "rq", longopts)) != -1) {
		if (c == 'r')
			opt_repair = 1;
		else if (c == 'q')
			opt_quiet = 1;
		else
			tool_usage_error("invalid option");
	}
	if (argc - optind != 1)
		tool_usage_error("expected one PATH");
	memset(&f, 0, sizeof(f));
	f.path = argv[optind];
	if (!tool_need_pvfs(f.path))
		return FSCK_OPERROR;
	rc = fsck_run(&f);
	free(f.live);
	return rc;
}
