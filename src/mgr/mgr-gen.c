/*
 * mgr-gen.c - pvfs-mgr-gen: write a metadata directory holding a name
 * space of N files, for measuring the mgr with millions of them (making
 * them through the protocol would take hours).  Not installed.
 *
 *   pvfs-mgr-gen [-q] [-i IODS] [-p PER_DIR] METADIR FILES
 *
 * METADIR is an existing metadata directory (its mgr stopped; pvfs-local
 * makes one) or an empty one.  Its name space is loaded, then /gen holds
 * FILES regular files as directories /gen/dNNNNNN of PER_DIR entries each
 * (default 1000000).  The records are the mgr's own CREATE and MKDIR
 * records, applied by mgr_ns_apply() as a live request's would be, and the
 * whole name space is written by the mgr's own checkpoint: what the mgr
 * then loads is a store it could have written itself.  With -q it prints
 * nothing but errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define GEN_SSIZE 65536

static void
usage(void)
{
	fprintf(stderr, "usage: pvfs-mgr-gen [-q] [-i IODS] [-p PER_DIR] "
	    "METADIR FILES\n");
	exit(2);
}

static uint64_t
gen_num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s)
		usage();
	return v;
}

/* Apply r to the name space; nothing is logged: the checkpoint at the
 * end writes all of it. */
static void
gen_apply(struct mgr_rec *r)
{
	int rc = mgr_ns_apply(r);

	if (rc != 0)
		pvfs_fatal("record type %d for %.*s does not apply: %s", r->type,
		    (int)r->namelen, r->name, strerror(rc));
}

static uint64_t
gen_mkdir(uint64_t parent, const char *name, int64_t now)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_MKDIR;
	r.parent = parent;
	r.name = name;
	r.namelen = (uint16_t)strlen(name);
	r.ino = mgr_ns_next_ino();
	r.mode = 0755;
	r.uid = geteuid();
	r.gid = getegid();
	r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
	r.time = now;
	gen_apply(&r);
	return r.ino;
}

int
main(int argc, char **argv)
{
	uint64_t files, per = 1000000, i, dir = 0, top;
	uint32_t niods = 1;
	int64_t now, t0;
	struct mgr_rec r;
	char name[32];
	int ch, quiet = 0;

	while ((ch = getopt(argc, argv, "qi:p:")) != -1) {
		switch (ch) {
		case 'q':
			quiet = 1;
			break;
		case 'i':
			niods = (uint32_t)gen_num(optarg);
			break;
		case 'p':
			per = gen_num(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || niods == 0 || per == 0)
		usage();
	files = gen_num(argv[optind + 1]);
	if (pvfs_log_open("pvfs-mgr-gen", NULL, quiet ? PVFS_LOG_WARN :
	    PVFS_LOG_INFO) != 0)
		pvfs_fatal("cannot log");
	mgr.metadir = argv[optind];
	/* Any commit checkpoints: the one at the end writes the snapshot. */
	mgr.journal_max = 1;
	t0 = pvfs_mono_ms();
	mgr_journal_open(mgr.metadir);
	now = pvfs_now_ns();
	if (mgr_ns_lookup(mgr_ns_root(), "gen", 3) != NULL)
		pvfs_fatal("%s: /gen exists already", mgr.metadir);
	top = gen_mkdir(mgr_ns_root()->ino, "gen", now);
	for (i = 0; i < files; i++) {
		if (i % per == 0) {
			snprintf(name, sizeof(name), "d%06" PRIu64, i / per);
			dir = gen_mkdir(top, name, now);
		}
		snprintf(name, sizeof(name), "f%09" PRIu64, i);
		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_CREATE;
		r.parent = dir;
		r.name = name;
		r.namelen = (uint16_t)strlen(name);
		r.ino = mgr_ns_next_ino();
		r.gen = mgr_ns_new_gen();
		r.dist.base = (uint32_t)(r.ino % niods);
		r.dist.pcount = niods;
		r.dist.ssize = GEN_SSIZE;
		r.mode = 0644;
		r.uid = geteuid();
		r.gid = getegid();
		r.atime_ns = r.mtime_ns = r.ctime_ns = r.mset_ns = now;
		r.time = now;
		gen_apply(&r);
	}
	if (!quiet)
		pvfs_log_info("%" PRIu64 " files made in memory in %lld ms", files,
		    (long long)(pvfs_mono_ms() - t0));
	/* One logged change (the top directory's times), whose commit
	 * checkpoints the whole name space. */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = top;
	r.mask = MGR_REC_MTIME | MGR_REC_CTIME;
	r.mtime_ns = r.ctime_ns = pvfs_now_ns();
	mgr_journal_log(&r);
	mgr_journal_commit();
	mgr_journal_close();
	if (!quiet)
		pvfs_log_info("%" PRIu64 " inodes written in %lld ms", mgr_ns_count(),
		    (long long)(pvfs_mono_ms() - t0));
	mgr_ns_free();
	return 0;
}
