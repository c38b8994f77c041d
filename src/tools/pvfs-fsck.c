/*
 * pvfs-fsck - check the stripe files on the iods against the mgr's files.
 *
 * A file's identity is (inode, gen): gen is drawn at random when the mgr
 * creates the file, and names its stripe files on the iods.  Two kinds of
 * finding:
 *
 * Orphans: stripe files whose (inode, gen) is no live file (an unlink or
 * rename whose client died, or whose iod was down, before every
 * IOD_REMOVE was answered; or stripes stranded when the mgr's metadata
 * rolled back, whatever their inode).  Reported, and removed with
 * --repair; they make the exit status non-zero.
 *
 * Missing or short stripes: a live file with a stripe file missing from
 * an iod, or shorter than a dense file of its size would have there.  The
 * mgr holds no size: a file's size is the highest byte any of its stripe
 * files holds.  That is data lost, or a sparse file (a legitimate one), so
 * these are only listed and do not change the exit status.
 *
 * Safe on a live file system, and independent of the mgr's inode counter
 * (which rolls back with its metadata): first every iod's stripe files
 * are listed, then the mgr is asked about the inode ranges they fall in.
 * A client writes stripes only with a capability for a file the mgr had
 * already created, so a stripe file that existed when it was listed and
 * whose (inode, gen) is not a live file when its range is read afterwards
 * belongs to no file.  A file unlinked in between is rightly an orphan;
 * a file created in between has no stripe in the listing.  A file written
 * during the scan may show as short, its iods being listed at different
 * moments.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

/* Exit status, as fsck(8): bits or'ed together (0: no orphan). */
#define FSCK_REPAIRED 1
#define FSCK_LEFT 4
#define FSCK_OPERROR 8

static const char usage[] =
"Usage: pvfs-fsck [OPTION]... PATH\n"
"Check the file system of PATH (a mount prefix or a pvfs://host:port URL)\n"
"against the stripe files its iods hold.  A file is known by its inode\n"
"and its gen (an identity drawn when the file was created).\n"
"\n"
"Orphans: stripe files whose inode and gen are no live file at the mgr\n"
"(the inode is missing, has another gen, or is above the mgr's counter).\n"
"Each is reported (iod, inode, gen, bytes); with --repair, removed.\n"
"\n"
"Missing or short stripes (data lost, or a sparse file): live files with\n"
"an iod that should hold data, for a dense file of the size the other\n"
"stripes give, but has no stripe file or a shorter one.  Listed only;\n"
"they do not change the exit status.\n"
"\n"
"Safe while the file system is in use: the iods are listed first, then\n"
"the mgr is asked about the inodes found.  Needs uid 0 or the uid\n"
"running the mgr.\n"
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

/* One stripe file as an iod listed it. */
struct fsck_stripe {
	uint64_t ino, gen, size;
	uint32_t iod, copy;
};

/* A live file's iod that holds less than a dense file would. */
struct fsck_short {
	uint64_t ino, gen, have, want;
	uint32_t iod;
	int missing;
};

struct fsck {
	const char *path;
	struct pvfs_admin *a;   /* holds the ADMIN capability */
	uint32_t niods;
	struct fsck_stripe *st; /* every stripe file listed, then sorted */
	size_t nst, capst;
	struct fsck_short *sh;
	size_t nsh, capsh;
	uint64_t files, orphans, orphan_bytes, removed, short_files;
	int status;
};

/* Room for one more element in a growing array of size elements. */
static void *
fsck_grow(void *v, size_t n, size_t *cap, size_t size)
{
	void *grown;

	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 1024;
	grown = tool_xmalloc(*cap * size);
	if (n > 0)
		memcpy(grown, v, n * size);
	free(v);
	return grown;
}

/* ---- first: every iod's stripe files ---- */

static void
fsck_stripe_add(struct fsck *f, uint32_t iod, const struct pvfs_stripe_info *e)
{
	struct fsck_stripe *s;

	f->st = fsck_grow(f->st, f->nst, &f->capst, sizeof(*f->st));
	s = &f->st[f->nst++];
	s->ino = e->ino;
	s->gen = e->gen;
	s->size = e->size;
	s->iod = iod;
	s->copy = e->copy;
}

/* Every stripe file of iod iod, subdirectory by subdirectory.  0 or -1. */
static int
fsck_scan_iod(struct fsck *f, uint32_t iod)
{
	struct pvfs_stripe_info *v, after;
	uint32_t sub, i, n;
	int eof;

	for (sub = 0; sub < 256; sub++) {
		memset(&after, 0, sizeof(after));
		do {
			if (pvfs_admin_stripes(f->a, iod, sub, &after, &v, &n,
			    &eof) != 0)
				return -1;
			for (i = 0; i < n; i++) {
				fsck_stripe_add(f, iod, &v[i]);
				after = v[i];
			}
			eof = eof || n == 0;
			free(v);
		} while (!eof);
	}
	return 0;
}

/* An iod that cannot be listed is reported and skipped: the others'
 * findings stand, since each stripe is judged on its own. */
static void
fsck_scan_iods(struct fsck *f)
{
	char addr[300];
	uint32_t i;

	for (i = 0; i < f->niods; i++) {
		if (fsck_scan_iod(f, i) == 0)
			continue;
		pvfs_admin_iod_addr(f->a, i, addr, sizeof(addr));
		tool_errmsg(f->path, "iod %u (%s): %s", i, addr, strerror(errno));
		f->status |= FSCK_OPERROR;
	}
}

static int
fsck_stripe_cmp(const void *a, const void *b)
{
	const struct fsck_stripe *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->copy != y->copy)
		return x->copy < y->copy ? -1 : 1;
	return x->iod < y->iod ? -1 : x->iod > y->iod;
}

/* ---- then: the mgr's files where those stripes are ---- */

static void
fsck_orphan(struct fsck *f, const struct fsck_stripe *s)
{
	char addr[300];
	const char *done = "";

	f->orphans++;
	f->orphan_bytes += s->size;
	if (opt_repair) {
		if (pvfs_admin_purge(f->a, s->iod, s->ino, s->gen, s->copy) == 0) {
			f->removed++;
			done = ", removed";
		} else {
			pvfs_admin_iod_addr(f->a, s->iod, addr, sizeof(addr));
			tool_errmsg(f->path, "iod %u (%s): remove inode %llu "
			    "gen %016llx: %s", s->iod, addr,
			    (unsigned long long)s->ino,
			    (unsigned long long)s->gen, strerror(errno));
			f->status |= FSCK_OPERROR;
		}
	}
	if (!opt_quiet && s->copy == 0)
		printf("orphan: iod %u inode %llu gen %016llx bytes %llu%s\n",
		    s->iod, (unsigned long long)s->ino,
		    (unsigned long long)s->gen, (unsigned long long)s->size,
		    done);
	else if (!opt_quiet)
		printf("orphan: iod %u inode %llu gen %016llx copy %u bytes "
		    "%llu%s\n", s->iod, (unsigned long long)s->ino,
		    (unsigned long long)s->gen, s->copy,
		    (unsigned long long)s->size, done);
}

/* The live file of inode ino among the mgr's v[0 .. n) (ascending), or
 * NULL. */
static const struct pvfs_ino_info *
fsck_live_find(const struct pvfs_ino_info *v, uint32_t n, uint64_t ino)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].ino == ino)
			return &v[mid];
		if (v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* iod's position in copy copy of a file of distribution d, or d->pcount
 * if that copy has no part there. */
static uint32_t
fsck_rel(const struct fsck *f, const struct pvfs_ino_info *d, uint32_t iod,
    uint32_t copy)
{
	uint32_t niods = f->niods;
	uint64_t first = ((uint64_t)d->base + (uint64_t)copy * d->mshift) %
	    niods;
	uint32_t rel = (uint32_t)((iod + niods - first) % niods);

	return rel < d->pcount ? rel : d->pcount;
}

/* File file's part on iod holds have (NULL: no stripe file), not want. */
static void
fsck_short_add(struct fsck *f, const struct fsck_stripe *file, uint32_t iod,
    const struct fsck_stripe *have, uint64_t want)
{
	struct fsck_short *sh;

	f->sh = fsck_grow(f->sh, f->nsh, &f->capsh, sizeof(*f->sh));
	sh = &f->sh[f->nsh++];
	sh->ino = file->ino;
	sh->gen = file->gen;
	sh->iod = iod;
	sh->missing = have == NULL;
	sh->have = have != NULL ? have->size : 0;
	sh->want = want;
}

/* A live file's stripes s[0 .. n) (ascending by iod): its size is the
 * highest byte any of them holds; each iod of the file should hold its
 * share of a dense file of that size. */
static void
fsck_check_file(struct fsck *f, const struct pvfs_ino_info *d,
    const struct fsck_stripe *s, size_t n)
{
	uint64_t size = 0, end, want;
	uint32_t rel, iod, k, copy;
	size_t i, j;
	int found = 0;

	f->files++;
	if (d->pcount == 0 || d->pcount > f->niods || d->ssize == 0)
		return;
	for (i = 0; i < n; i++) {
		if ((rel = fsck_rel(f, d, s[i].iod, s[i].copy)) == d->pcount)
			continue;
		end = pvfs_stripe_logical_end(s[i].size, d->pcount, d->ssize,
		    rel);
		size = end > size ? end : size;
	}
	for (k = 0; k < d->copies * d->pcount; k++) {
		copy = k / d->pcount;
		rel = k % d->pcount;
		iod = (uint32_t)(((uint64_t)d->base + rel +
		    (uint64_t)copy * d->mshift) % f->niods);
		want = pvfs_stripe_local_size(size, d->pcount, d->ssize, rel);
		for (j = 0; j < n && (s[j].iod != iod || s[j].copy != copy); j++)
			;
		if (want == 0 || (j < n && s[j].size >= want))
			continue;
		fsck_short_add(f, s, iod, j < n ? &s[j] : NULL, want);
		found = 1;
	}
	f->short_files += found;
}

/* The stripes s[0 .. n) of one (inode, gen), judged by the mgr's live
 * inodes v[0 .. nv) of a range read after they were listed. */
static void
fsck_judge(struct fsck *f, const struct pvfs_ino_info *v, uint32_t nv,
    const struct fsck_stripe *s, size_t n)
{
	const struct pvfs_ino_info *live = fsck_live_find(v, nv, s->ino);
	size_t i;

	if (live != NULL && live->gen == s->gen) {
		/* A copy the file does not have is left over (sorted last). */
		for (i = n; i > 0 && s[i - 1].copy >= live->copies; i--)
			fsck_orphan(f, &s[i - 1]);
		fsck_check_file(f, live, s, i);
		return;
	}
	for (i = 0; i < n; i++)
		fsck_orphan(f, &s[i]);
}

/* Stripes from *i on whose inode lies in the range of v[0 .. nv), which
 * starts there: judge them group by group.  *i moves past them. */
static void
fsck_judge_range(struct fsck *f, const struct pvfs_ino_info *v, uint32_t nv,
    size_t *i)
{
	uint64_t first = f->st[*i].ino;
	uint64_t last = first + (PVFS_ADMIN_INOLIST_SPAN - 1);
	size_t j;

	if (last < first)
		last = UINT64_MAX;
	while (*i < f->nst && f->st[*i].ino <= last) {
		for (j = *i + 1; j < f->nst && f->st[j].ino == f->st[*i].ino &&
		    f->st[j].gen == f->st[*i].gen; j++)
			;
		fsck_judge(f, v, nv, &f->st[*i], j - *i);
		*i = j;
	}
}

/* Ask the mgr about each range of PVFS_ADMIN_INOLIST_SPAN inodes that
 * starts at a listed stripe's inode, and only those.  0 or -1
 * (reported). */
static int
fsck_scan_mgr(struct fsck *f)
{
	struct pvfs_ino_info *v;
	size_t i = 0;
	uint32_t n;

	qsort(f->st, f->nst, sizeof(*f->st), fsck_stripe_cmp);
	while (i < f->nst) {
		if (pvfs_admin_inodes(f->a, f->st[i].ino,
		    PVFS_ADMIN_INOLIST_SPAN, &v, &n) != 0) {
			tool_errmsg(f->path, "mgr: %s", strerror(errno));
			return -1;
		}
		fsck_judge_range(f, v, n, &i);
		free(v);
	}
	return 0;
}

/* ---- report ---- */

static void
fsck_print_short(const struct fsck *f)
{
	const struct fsck_short *s;
	size_t i;

	if (opt_quiet || f->nsh == 0)
		return;
	printf("missing or short stripes (data lost, or a sparse file):\n");
	for (i = 0; i < f->nsh; i++) {
		s = &f->sh[i];
		printf("short: inode %llu gen %016llx iod %u bytes %llu of "
		    "%llu%s\n", (unsigned long long)s->ino,
		    (unsigned long long)s->gen, s->iod,
		    (unsigned long long)s->have, (unsigned long long)s->want,
		    s->missing ? " (no stripe file)" : "");
	}
}

/* The file system and an ADMIN capability (the mgr lists no inode). */
static int
fsck_start(struct fsck *f)
{
	struct pvfs_ino_info *v;
	uint32_t n;

	if ((f->a = pvfs_admin_open(f->path)) == NULL ||
	    pvfs_admin_niods(f->a, &f->niods) != 0) {
		tool_err(f->path, errno);
		return -1;
	}
	if (pvfs_admin_inodes(f->a, 0, 0, &v, &n) != 0) {
		tool_errmsg(f->path, "mgr: %s", strerror(errno));
		return -1;
	}
	free(v);
	return 0;
}

static int
fsck_run(struct fsck *f)
{
	if (fsck_start(f) != 0)
		return FSCK_OPERROR;
	fsck_scan_iods(f);
	if (fsck_scan_mgr(f) != 0)
		return FSCK_OPERROR;
	fsck_print_short(f);
	if (f->removed > 0)
		f->status |= FSCK_REPAIRED;
	if (f->removed < f->orphans)
		f->status |= FSCK_LEFT;
	printf("%s: %zu stripe files on %u iods, %llu live files with stripes, "
	    "%llu with missing or short stripes, %llu orphans (%llu bytes), "
	    "%llu removed\n", f->path, f->nst, f->niods,
	    (unsigned long long)f->files, (unsigned long long)f->short_files,
	    (unsigned long long)f->orphans,
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
	pvfs_admin_close(f.a);
	free(f.st);
	free(f.sh);
	return rc;
}
