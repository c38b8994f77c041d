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

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-ping [OPTION]... [PATH]...\n"
"Check the mgr of each file system and every iod the mgr lists: reachable,\n"
"protocol version, round-trip time and free space; then the mgr's view of\n"
"each iod from its HELLOs: same key, data directory label, clock skew;\n"
"and the mirrored files left degraded by an iod's absence, if any.\n"
"The file systems are\n"
"those of the PATHs (a mount prefix or a pvfs://host:port URL), of -m, or,\n"
"with neither, every entry of the pvfstab.\n"
"\n"
"  -m, --mgr=HOST[:PORT]  ping the file system of the mgr at HOST:PORT\n"
"  -t, --timeout=SECONDS  give up on a daemon after SECONDS (default: 5,\n"
"                         or PVFS_TIMEOUT)\n"
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
	if (v == pvfs_admin_proto_version())
		return 0;
	printf("%s: FAILED: protocol version %u, we speak %u\n", what, v,
	    pvfs_admin_proto_version());
	return -1;
}

/* One iod's answers, asked for every iod at once. */
struct ping_iod_res {
	int rc, err;
	struct pvfs_ping_info rep;
	struct pvfs_space_info sf;
};
struct ping_ctx {
	struct pvfs_admin *a;
	struct ping_iod_res *res;
};

static void
ping_iod_ask(uint32_t i, void *arg)
{
	struct ping_ctx *x = arg;
	struct ping_iod_res *r = &x->res[i];

	r->rc = pvfs_admin_iod_ping(x->a, i, &r->rep) != 0 ||
	    pvfs_admin_iod_space(x->a, i, &r->sf) != 0 ? -1 : 0;
	r->err = errno;
}

static int
ping_iod(struct pvfs_admin *a, uint32_t i, const struct ping_iod_res *r)
{
	char addr[300], what[320], fb[16], tb[16];

	pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
	snprintf(what, sizeof(what), "iod %u %s", i, addr);
	if (r->rc != 0) {
		printf("%s: FAILED: %s\n", what, strerror(r->err));
		return -1;
	}
	if (ping_version(what, r->rep.version) != 0)
		return -1;
	printf("%s: ok, protocol %u, up %llus, %.3f ms, %s free of %s\n", what,
	    r->rep.version, (unsigned long long)r->rep.uptime_s,
	    (double)r->rep.rtt_us / 1000.0, tool_human(r->sf.bavail, fb, sizeof(fb)),
	    tool_human(r->sf.blocks, tb, sizeof(tb)));
	return 0;
}

#define PING_SKEW_WARN_MS 5000
#define PING_PENDING_WAIT 50 /* x 100 ms: for the mgr's first HELLOs */

/* One iod as the mgr sees it; -1 if it disagrees with the mgr. */
static int
ping_iodstat(const struct pvfs_admin_iodstat *w)
{
	static const char *names[] = { "not heard from yet", "ok",
	    "unreachable", "key differs from the mgr's", "label mismatch",
	    "protocol error" };
	const char *name = w->state < sizeof(names) / sizeof(names[0]) ?
	    names[w->state] : "unknown state";
	int ok = w->state == PVFS_IOD_STATE_OK;

	printf("iod %u %s:%u: %smgr's view: %s%s%s", w->index, w->host,
	    w->port, ok ? "" : "FAILED: ", name, w->why[0] ? ": " : "", w->why);
	if (w->heard)
		printf(", label %016" PRIx64 "/%u uuid %s, clock %+.3f s",
		    w->fsid, w->label_index, w->uuid, (double)w->skew_ms / 1000);
	printf("\n");
	if (w->heard &&
	    llabs((long long)w->skew_ms) > PING_SKEW_WARN_MS)
		printf("iod %u %s:%u: warning: clock skewed %+.1f s from the "
		    "mgr's (capabilities are checked in the mgr's clock; keep "
		    "clocks in sync)\n", w->index, w->host, w->port,
		    (double)w->skew_ms / 1000);
	return ok ? 0 : -1;
}

/* The mgr's view of every iod, after its first HELLOs; failures. */
static int
ping_iodstatus(struct pvfs_admin *a)
{
	struct pvfs_admin_iodstat *v;
	uint32_t i, n, pending;
	int bad = 0, tries = 0;

	for (;;) {
		if (pvfs_admin_iod_views(a, &v, &n) != 0) {
			printf("mgr: FAILED: iod status: %s\n", strerror(errno));
			return 1;
		}
		for (i = pending = 0; i < n; i++)
			pending += v[i].state == PVFS_IOD_STATE_PENDING;
		if (pending == 0 || ++tries >= PING_PENDING_WAIT)
			break;
		free(v);
		usleep(100000);
	}
	for (i = 0; i < n; i++)
		bad += ping_iodstat(&v[i]) != 0;
	free(v);
	return bad;
}

/* A client the mgr does not know for who it is: say what that means,
 * since it is the first thing a new site's users meet (EACCES on every
 * write). */
static void
ping_auth(const char *what, int auth)
{
	if (auth == PVFS_PING_NOBODY)
		printf("%s: warning: this client is not authenticated (TCP without "
		    "MUNGE): the mgr serves its requests as nobody (uid 65534); "
		    "set up MUNGE or use the mgr's Unix socket (doc/security.md)\n",
		    what);
	else if (auth == PVFS_PING_REFUSED)
		printf("%s: warning: this client is not authenticated (TCP without "
		    "MUNGE): the mgr refuses its requests; set up MUNGE or use "
		    "the mgr's Unix socket (doc/security.md)\n", what);
}

/* Mirrored files with stale copies (MGR_RESYNC STATUS, which anyone may
 * ask): a warning, with the resync's progress; nothing when none. */
static void
ping_mirrors(struct pvfs_admin *a)
{
	struct pvfs_mirror_status st;
	char left[32];

	if (pvfs_admin_mirror_status(a, &st) != 0) {
		printf("mgr: FAILED: mirror status: %s\n", strerror(errno));
		return;
	}
	if (st.stale > 0)
		printf("mirrors: warning: %llu degraded files (%llu stale copies), "
		    "%s left to resync (pvfs-resync --list)\n",
		    (unsigned long long)st.degraded,
		    (unsigned long long)st.stale,
		    tool_human(st.bytes_left, left, sizeof(left)));
}

/* One file system: its mgr, then every iod; the number of failures. */
static int
ping_fs(const char *path)
{
	struct pvfs_ping_info rep;
	struct pvfs_admin *a;
	struct ping_ctx x;
	char addr[300], what[320];
	uint32_t i, niods;
	int bad = 0, dis;

	if ((a = pvfs_admin_open(path)) == NULL) {
		tool_err(path, errno);
		return 1;
	}
	pvfs_admin_mgr_addr(a, addr, sizeof(addr));
	snprintf(what, sizeof(what), "mgr %s", addr);
	if (pvfs_admin_mgr_ping(a, &rep) != 0 ||
	    pvfs_admin_niods(a, &niods) != 0) {
		printf("%s: FAILED: %s\n", what, strerror(errno));
		tool_errmsg(path, "mgr unreachable");
		pvfs_admin_close(a);
		return 1;
	}
	if (ping_version(what, rep.version) != 0)
		bad++;
	else
		printf("%s: ok, protocol %u, fsid %016llx, up %llus, %.3f ms, %u iods\n",
		    what, rep.version, (unsigned long long)rep.fsid,
		    (unsigned long long)rep.uptime_s, (double)rep.rtt_us / 1000.0, niods);
	ping_auth(what, rep.auth);
	/* Every iod at once: a host that does not answer costs one timeout,
	 * however many iods it runs. */
	x.a = a;
	x.res = tool_xmalloc((niods ? niods : 1) * sizeof(*x.res));
	tool_each_parallel(niods, ping_iod_ask, &x);
	for (i = 0; i < niods; i++)
		bad += ping_iod(a, i, &x.res[i]) != 0;
	free(x.res);
	if (bad)
		tool_errmsg(path, "%d of %u daemons failed", bad, niods + 1);
	if ((dis = ping_iodstatus(a)) != 0)
		tool_errmsg(path, "the mgr finds %d of %u iods wrong or unreachable",
		    dis, niods);
	ping_mirrors(a);
	pvfs_admin_close(a);
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
	tool_check_timeout();
	if (url != NULL)
		ping_fs(url);
	tool_each_operand(argc, argv, optind, ping_fs);
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
