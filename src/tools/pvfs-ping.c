/*
 * pvfs-ping - is the whole file system healthy?  Checks the mgr and every
 * iod it lists: reachable, protocol version, round-trip time, free space
 * (PVFS 1 had mgr-ping and iod-ping).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpvfs/pvfs-internal.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-ping [OPTION]... [PATH]...\n"
"Check the mgr of each file system and every iod the mgr lists: reachable,\n"
"protocol version, round-trip time and free space; then the mgr's view of\n"
"each iod from its HELLOs: same key, data directory label, clock skew.\n"
"The file systems are\n"
"those of the PATHs (a mount prefix or a pvfs://host:port URL), of -m, or,\n"
"with neither, every entry of the pvfstab.\n"
"\n"
"  -m, --mgr=HOST[:PORT]  ping the file system of the mgr at HOST:PORT\n"
"  -t, --timeout=SECONDS  give up on a daemon after SECONDS (default: the\n"
"                         pvfstab's timeout, else 30)\n"
"      --help             show this help and exit\n"
"      --version          show the version and exit\n"
"\n"
"Exit status: 0 if every mgr and iod answered with our protocol version\n"
"and the mgr finds every iod's key and label right, 1 if not, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "mgr", required_argument, NULL, 'm' },
	{ "timeout", required_argument, NULL, 't' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int
ping_version(const char *what, uint32_t v)
{
	if (v == PVFS_PROTO_VERSION)
		return 0;
	printf("%s: FAILED: protocol version %u, we speak %u\n", what, v,
	    PVFS_PROTO_VERSION);
	return -1;
}

static int
ping_iod(struct client_fs *fs, uint32_t i)
{
	struct pvfs_iod_ping_rep rep;
	struct pvfs_iod_statfs_rep sf;
	char addr[PVFS_HOST_MAX + 16], what[PVFS_HOST_MAX + 32], fb[16], tb[16];
	int64_t rtt;

	admin_iod_addr(fs, i, addr, sizeof(addr));
	snprintf(what, sizeof(what), "iod %u %s", i, addr);
	if (admin_iod_ping(fs, i, &rep, &rtt) != 0 ||
	    admin_iod_statfs(fs, i, &sf) != 0) {
		printf("%s: FAILED: %s\n", what, strerror(errno));
		return -1;
	}
	if (ping_version(what, rep.version) != 0)
		return -1;
	printf("%s: ok, protocol %u, up %llus, %.3f ms, %s free of %s\n", what,
	    rep.version, (unsigned long long)rep.uptime_s, (double)rtt / 1000.0,
	    tool_human(sf.bavail, fb, sizeof(fb)),
	    tool_human(sf.blocks, tb, sizeof(tb)));
	return 0;
}

#define PING_SKEW_WARN_MS 5000
#define PING_PENDING_WAIT 50 /* x 100 ms: for the mgr's first HELLOs */

/* One iod as the mgr sees it; -1 if it disagrees with the mgr. */
static int
ping_iodstat(const struct pvfs_iodstat_wire *w)
{
	static const char *names[] = { "not heard from yet", "ok",
	    "unreachable", "key differs from the mgr's", "label mismatch",
	    "protocol error" };
	const char *name = w->state < sizeof(names) / sizeof(names[0]) ?
	    names[w->state] : "unknown state";
	int ok = w->state == PVFS_IODST_OK;

	printf("iod %u %s:%u: %smgr's view: %s%s%s", w->index, w->host,
	    w->port, ok ? "" : "FAILED: ", name, w->why[0] ? ": " : "", w->why);
	if (w->age_s != UINT32_MAX)
		printf(", label %016" PRIx64 "/%u uuid %s, clock %+.3f s",
		    w->fsid, w->label_index, w->uuid, (double)w->skew_ms / 1000);
	printf("\n");
	if (w->age_s != UINT32_MAX &&
	    llabs((long long)w->skew_ms) > PING_SKEW_WARN_MS)
		printf("iod %u %s:%u: warning: clock skewed %+.1f s from the "
		    "mgr's (capabilities are checked in the mgr's clock; keep "
		    "clocks in sync)\n", w->index, w->host, w->port,
		    (double)w->skew_ms / 1000);
	return ok ? 0 : -1;
}

/* The mgr's view of every iod, after its first HELLOs; failures. */
static int
ping_iodstatus(struct client_fs *fs)
{
	struct pvfs_mgr_iodstatus_rep rep;
	uint32_t i, pending;
	int bad = 0, tries = 0;

	for (;;) {
		memset(&rep, 0, sizeof(rep));
		if (admin_iodstatus(fs, &rep) != 0) {
			printf("mgr: FAILED: iod status: %s\n", strerror(errno));
			return 1;
		}
		for (i = pending = 0; i < rep.n; i++)
			pending += rep.iods[i].state == PVFS_IODST_PENDING;
		if (pending == 0 || ++tries >= PING_PENDING_WAIT)
			break;
		pvfs_msg_free(PVFS_MGR_IODSTATUS, 1, &rep);
		usleep(100000);
	}
	for (i = 0; i < rep.n; i++)
		bad += ping_iodstat(&rep.iods[i]) != 0;
	pvfs_msg_free(PVFS_MGR_IODSTATUS, 1, &rep);
	return bad;
}

/* One file system: its mgr, then every iod; the number of failures. */
static int
ping_fs(const char *path)
{
	struct pvfs_mgr_ping_rep rep;
	struct client_fs *fs;
	char what[PVFS_HOST_MAX + 32];
	int64_t rtt;
	uint32_t i;
	int bad = 0, dis;
	char inner[PVFS_PATH_MAX + 1];

	if (client_resolve(path, &fs, inner) != 0) {
		tool_err(path, errno);
		return 1;
	}
	snprintf(what, sizeof(what), strchr(fs->mgr.host, ':') ? "mgr [%s]:%u" :
	    "mgr %s:%u", fs->mgr.host, fs->mgr.port);
	if (admin_mgr_ping(fs, &rep, &rtt) != 0 || client_fs_info(fs) != 0) {
		printf("%s: FAILED: %s\n", what, strerror(errno));
		tool_errmsg(path, "mgr unreachable");
		return 1;
	}
	if (ping_version(what, rep.version) != 0)
		bad++;
	else
		printf("%s: ok, protocol %u, fsid %016llx, up %llus, %.3f ms, %u iods\n",
		    what, rep.version, (unsigned long long)rep.fsid,
		    (unsigned long long)rep.uptime_s, (double)rtt / 1000.0, fs->niods);
	for (i = 0; i < fs->niods; i++)
		bad += ping_iod(fs, i) != 0;
	if (bad)
		tool_errmsg(path, "%d of %u daemons failed", bad, fs->niods + 1);
	if ((dis = ping_iodstatus(fs)) != 0)
		tool_errmsg(path, "the mgr finds %d of %u iods wrong or unreachable",
		    dis, fs->niods);
	return bad + dis;
}

int
main(int argc, char **argv)
{
	char **tab = NULL, *url = NULL;
	int c, i, n = 0;

	tool_init("pvfs-ping", usage);
	while ((c = tool_getopt(argc, argv, "m:t:", longopts)) != -1) {
		if (c == 'm') {
			free(url);
			url = tool_xmalloc(strlen(optarg) + 9);
			sprintf(url, "pvfs://%s/", optarg);
		} else if (c == 't') {
			char *end;

			if (strtod(optarg, &end) <= 0 || *end != '\0')
				tool_usage_error("invalid timeout: '%s'", optarg);
			setenv("PVFS_TIMEOUT", optarg, 1);
		} else {
			tool_usage_error("invalid option");
		}
	}
	if (url != NULL)
		ping_fs(url);
	for (i = optind; i < argc; i++)
		if (tool_need_pvfs(argv[i]))
			ping_fs(argv[i]);
	if (url == NULL && optind == argc && (n = tool_tab_prefixes(&tab)) >= 0) {
		for (i = 0; i < n; i++)
			ping_fs(tab[i]);
		if (n == 0)
			tool_errmsg(NULL, "no file system in the pvfstab");
		tool_free_list(tab, (size_t)n);
	}
	free(url);
	return tool_status;
}
