/*
 * pvfs-df - capacity and free space of PVFS file systems, in total and
 * for each iod.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-df [OPTION]... [PATH]...\n"
"Show the capacity, used and available space of each file system, summed\n"
"over its iods, then of each iod.  The file systems are those of the PATHs\n"
"(a mount prefix or a pvfs://host:port URL) or, with none, every entry of\n"
"the pvfstab.  Sizes are 1K blocks unless -h.\n"
"\n"
"  -h, --human-readable  sizes like 1.5K, 23M, 4.0G\n"
"      --help            show this help and exit\n"
"      --version         show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any file system or iod could not be asked,\n"
"2 bad usage.\n";

static int opt_human;

static const char *
df_num(uint64_t bytes, char *buf, size_t len)
{
	if (opt_human)
		return tool_human(bytes, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)(bytes / 1024));
	return buf;
}

/* df's Use%: used / (used + available), rounded up. */
static void
df_line(const char *name, const struct pvfs_space_info *r, const char *on)
{
	uint64_t used = r->blocks - r->bfree, base = used + r->bavail;
	char a[32], b[32], c[32];
	int pct = base ? (int)((used * 100 + base - 1) / base) : 0;

	printf("%-28s %12s %12s %12s %3d%% %s\n", name,
	    df_num(r->blocks, a, sizeof(a)), df_num(used, b, sizeof(b)),
	    df_num(r->bavail, c, sizeof(c)), pct, on);
}

static void
df_fs(const char *path)
{
	struct pvfs_space_info *per, sum;
	struct pvfs_admin *a;
	char name[320], addr[300];
	uint32_t i, niods;
	int ok = 1;

	if ((a = pvfs_admin_open(path)) == NULL ||
	    pvfs_admin_niods(a, &niods) != 0) {
		tool_err(path, errno);
		pvfs_admin_close(a);
		return;
	}
	per = tool_xmalloc(niods * sizeof(*per));
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < niods; i++) {
		if (pvfs_admin_iod_space(a, i, &per[i]) != 0) {
			pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
			tool_errmsg(path, "iod %u (%s): %s", i, addr, strerror(errno));
			ok = 0;
			memset(&per[i], 0, sizeof(per[i]));
		}
		sum.blocks += per[i].blocks;
		sum.bfree += per[i].bfree;
		sum.bavail += per[i].bavail;
	}
	pvfs_admin_mgr_addr(a, name, sizeof(name));
	df_line(name, &sum, path);
	for (i = 0; i < niods; i++) {
		pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
		snprintf(name, sizeof(name), "  iod %u %s", i, addr);
		df_line(name, &per[i], ok || per[i].blocks ? "" : "(unreachable)");
	}
	free(per);
	pvfs_admin_close(a);
}

int
main(int argc, char **argv)
{
	char **tab;
	int i, n;

	tool_init("pvfs-df", usage);
	opt_human = tool_getflag(argc, argv, 'h', "human-readable");
	printf("%-28s %12s %12s %12s %4s %s\n", "Filesystem",
	    opt_human ? "Size" : "1K-blocks", "Used", "Available", "Use%",
	    "Mounted on");
	for (i = optind; i < argc; i++)
		if (tool_need_pvfs(argv[i]))
			df_fs(argv[i]);
	if (optind == argc && (n = tool_tab_prefixes(&tab)) >= 0) {
		for (i = 0; i < n; i++)
			df_fs(tab[i]);
		tool_free_list(tab, (size_t)n);
	}
	return tool_status;
}
