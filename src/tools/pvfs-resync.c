/*
 * pvfs-resync - bring stale copies of mirrored files up to date
 * (doc/design.md, "Mirrored files"; doc/man/pvfs-resync.8).
 *
 * The jobs themselves are libpvfs's (resync.c): this is the command line.
 * The mgr starts it (--worker) when an iod with stale copies is back; the
 * administrator runs it to list degraded files, to rebuild a replaced
 * iod, or to resync now.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-resync [OPTION]... [PATH]\n"
"Copy the stale ranges of mirrored files' copies from a fresh copy, as\n"
"jobs from the mgr of the file system of PATH (a mount prefix or a\n"
"pvfs://host:port URL; default: the pvfstab's first entry), until none\n"
"is left that can be done now.  Needs the mgr's admin right (root or the\n"
"daemons' user).\n"
"\n"
"  -l, --list          list the stale copies (degraded files) and exit\n"
"  -s, --status        print the counts (degraded files, bytes left) and exit\n"
"  -r, --rebuild=N     iod N's data directory was replaced by an empty one:\n"
"                      mark every copy it holds stale, list the unmirrored\n"
"                      files that had data there (lost), then resync\n"
"  -w, --wait          with --rebuild or alone: wait until nothing is stale\n"
"                      (resyncing meanwhile), printing the progress\n"
"      --worker        keep asking for jobs, forever (the mgr runs this)\n"
"      --help          show this help and exit\n"
"      --version       show the version and exit\n"
"\n"
"Exit status: 0 if done (nothing stale with --wait), 1 on a failure or\n"
"lost files, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "list", no_argument, NULL, 'l' },
	{ "status", no_argument, NULL, 's' },
	{ "rebuild", required_argument, NULL, 'r' },
	{ "wait", no_argument, NULL, 'w' },
	{ "worker", no_argument, NULL, 'W' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

/* A job taken: said if it failed (it comes again). */
static void
rs_said(const struct pvfs_resync_job *j)
{
	if (j->err != 0)
		fprintf(stderr, "%s: inode %" PRIu64 " part %u copy %u (iod %u) "
		    "from copy %u (iod %u): %s; it will be tried again\n",
		    tool_prog, j->ino, j->rel, j->copy, j->stale_iod, j->from,
		    j->fresh_iod, strerror(j->err));
}

static void
rs_print_counts(const struct pvfs_mirror_status *s)
{
	char left[32], done[32];

	printf("degraded files: %" PRIu64 ", stale copies: %" PRIu64 ", bytes "
	    "left: %s; since the mgr started: %" PRIu64 " dirty reports, %"
	    PRIu64 " resync jobs, %s copied\n", s->degraded, s->stale,
	    tool_human(s->bytes_left, left, sizeof(left)), s->dirty_reports,
	    s->jobs, tool_human(s->bytes_done, done, sizeof(done)));
}

static int
rs_list(struct pvfs_admin *a)
{
	struct pvfs_mirror_status st;
	struct pvfs_stale_info *v;
	uint32_t i, n;

	if (pvfs_resync_list(a, &v, &n, &st) != 0)
		return -1;
	for (i = 0; i < n; i++)
		printf("inode %" PRIu64 " part %u copy %u on iod %u: %s\n",
		    v[i].ino, v[i].rel, v[i].copy, v[i].iod,
		    v[i].whole ? "every byte" : "ranges");
	rs_print_counts(&st);
	free(v);
	return 0;
}

static int
rs_rebuild(struct pvfs_admin *a, uint32_t index)
{
	struct pvfs_stale_info *lost;
	uint32_t i, n;
	int more;

	if (pvfs_resync_rebuild(a, index, &lost, &n, &more) != 0)
		return -1;
	for (i = 0; i < n; i++)
		printf("lost: inode %" PRIu64 " (unmirrored) had part %u on iod %u\n",
		    lost[i].ino, lost[i].rel, index);
	if (more)
		printf("lost: more unmirrored files than listed\n");
	if (n > 0)
		tool_status = TOOL_EXIT_FAIL;
	free(lost);
	return 0;
}

static int
rs_status(struct pvfs_admin *a, uint64_t *stale)
{
	struct pvfs_mirror_status st;

	if (pvfs_admin_mirror_status(a, &st) != 0)
		return -1;
	*stale = st.stale;
	rs_print_counts(&st);
	return 0;
}

/* Jobs until none is ready; with forever (--worker) or wait (until
 * nothing is stale), sleep and ask again. */
static int
rs_loop(struct pvfs_admin *a, int forever, int wait)
{
	struct pvfs_resync_job job;
	uint32_t wait_ms = 0;
	uint64_t stale = 0;
	int64_t said = 0;
	int rc;

	for (;;) {
		if ((rc = pvfs_resync_one(a, &job, &wait_ms)) < 0)
			return -1;
		if (rc > 0)
			rs_said(&job);
		if (rc > 0 && job.err == 0)
			continue;
		if (!forever && !wait)
			return 0;
		if (wait && pvfs_mono_ms() - said >= 1000) {
			if (rs_status(a, &stale) != 0)
				return -1;
			said = pvfs_mono_ms();
			if (stale == 0 && !forever)
				return 0;
		}
		poll(NULL, 0, wait_ms > 0 ? (int)wait_ms : 1000);
	}
}

int
main(int argc, char **argv)
{
	const char *path = NULL;
	struct pvfs_admin *a;
	char **prefixes = NULL;
	int c, list = 0, status = 0, wait = 0, worker = 0;
	long rebuild = -1;
	uint64_t stale;

	tool_init("pvfs-resync", usage);
	while ((c = tool_getopt(argc, argv, "lsr:w", longopts)) != -1) {
		switch (c) {
		case 'l': list = 1; break;
		case 's': status = 1; break;
		case 'r': rebuild = tool_parse_long(optarg, 0, PVFS_MAX_IODS - 1,
		    "iod index"); break;
		case 'w': wait = 1; break;
		case 'W': worker = 1; break;
		}
	}
	if (argc - optind > 1)
		tool_usage_error("at most one PATH");
	if (optind < argc)
		path = argv[optind];
	else if (tool_tab_prefixes(&prefixes) > 0)
		path = prefixes[0];
	if (path == NULL)
		tool_usage_error("no PATH and no pvfstab entry");
	if ((a = pvfs_admin_open(path)) == NULL) {
		tool_err(path, errno);
		return TOOL_EXIT_FAIL;
	}
	if ((list && rs_list(a) != 0) || (status && rs_status(a, &stale) != 0) ||
	    (rebuild >= 0 && rs_rebuild(a, (uint32_t)rebuild) != 0) ||
	    (!list && !status && rs_loop(a, worker, wait) != 0))
		tool_err(path, errno);
	pvfs_admin_close(a);
	return tool_status;
}
