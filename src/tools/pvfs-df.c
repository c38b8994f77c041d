/*
 * pvfs-df - capacity and free space of PVFS file systems, in total and
 * for each iod: the host file systems' size and free space, each counted
 * once however many iods share it, and what PVFS itself stores there.
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
"Show the size, used and available space of each file system, then of each\n"
"iod.  Size and Available are those of the iods' host file systems, each\n"
"counted once however many iods share it; Used is what PVFS stores there\n"
"(the bytes allocated to its stripe files); Use% is how full the host file\n"
"systems are.  The file systems are those of the PATHs (a mount prefix or\n"
"a pvfs://host:port URL) or, with none, every entry of the pvfstab.  Sizes\n"
"are 1K blocks unless -h.\n"
"\n"
"  -h, --human-readable  sizes like 1.5K, 23M, 4.0G\n"
"  -i, --inodes          inodes instead of blocks: the mgr's in total, the\n"
"                        stripe files of each iod\n"
"      --help            show this help and exit\n"
"      --version         show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any file system or iod could not be asked,\n"
"2 bad usage.\n";

static const struct option longopts[] = {
	{ "human-readable", no_argument, NULL, 'h' },
	{ "inodes", no_argument, NULL, 'i' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_human, opt_inodes;

static const char *
df_num(uint64_t bytes, char *buf, size_t len)
{
	if (opt_human)
		return tool_human(bytes, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)((bytes + 1023) / 1024));
	return buf;
}

static const char *
df_count(uint64_t n, char *buf, size_t len)
{
	if (opt_human && n >= 1000)
		return tool_human(n, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

/* df's rounding: part / whole, rounded up. */
static int
df_pct(uint64_t part, uint64_t whole)
{
	return whole ? (int)((part * 100 + whole - 1) / whole) : 0;
}

/* A row of blocks.  Use% is the host file system's, as df computes it
 * (used / (used + available)); Used is PVFS's own. */
static void
df_line(const char *name, const struct pvfs_space_info *r, const char *on)
{
	uint64_t host_used = r->blocks - r->bfree;
	char a[32], b[32], c[32];

	printf("%-28s %12s %12s %12s %3d%% %s\n", name,
	    df_num(r->blocks, a, sizeof(a)), df_num(r->used, b, sizeof(b)),
	    df_num(r->bavail, c, sizeof(c)),
	    df_pct(host_used, host_used + r->bavail), on);
}

static void
df_iline(const char *name, uint64_t files, uint64_t iused, uint64_t ifree,
    const char *on)
{
	char a[32], b[32], c[32];

	printf("%-28s %12s %12s %12s %3d%% %s\n", name,
	    df_count(files, a, sizeof(a)), df_count(iused, b, sizeof(b)),
	    df_count(ifree, c, sizeof(c)), df_pct(iused, iused + ifree), on);
}

/* The first iod before i on the same host file system, or i. */
static uint32_t
df_same_disk(const struct pvfs_space_info *per, const int *ok, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < i; j++)
		if (ok[j] && per[j].host == per[i].host &&
		    per[j].dev == per[i].dev)
			return j;
	return i;
}

static void
df_fs(const char *path)
{
	struct pvfs_space_info *per, sum;
	struct pvfs_inode_info ino;
	struct pvfs_admin *a;
	char name[320], addr[300], on[64];
	uint32_t i, j, niods;
	int *ok;

	if ((a = pvfs_admin_open(path)) == NULL ||
	    pvfs_admin_niods(a, &niods) != 0) {
		tool_err(path, errno);
		pvfs_admin_close(a);
		return;
	}
	if (opt_inodes && pvfs_admin_mgr_inodes(a, &ino) != 0) {
		tool_err(path, errno);
		pvfs_admin_close(a);
		return;
	}
	per = tool_xmalloc(niods * sizeof(*per));
	ok = tool_xmalloc(niods * sizeof(*ok));
	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < niods; i++) {
		ok[i] = pvfs_admin_iod_space(a, i, &per[i]) == 0;
		if (!ok[i]) {
			pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
			tool_errmsg(path, "iod %u (%s): %s", i, addr, strerror(errno));
			memset(&per[i], 0, sizeof(per[i]));
			continue;
		}
		sum.used += per[i].used;
		sum.nstripes += per[i].nstripes;
		if (df_same_disk(per, ok, i) != i)
			continue;
		sum.blocks += per[i].blocks;
		sum.bfree += per[i].bfree;
		sum.bavail += per[i].bavail;
	}
	pvfs_admin_mgr_addr(a, name, sizeof(name));
	if (opt_inodes)
		df_iline(name, ino.files, ino.files - ino.ffree, ino.ffree, path);
	else
		df_line(name, &sum, path);
	for (i = 0; i < niods; i++) {
		pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
		snprintf(name, sizeof(name), "  iod %u %s", i, addr);
		on[0] = '\0';
		if (!ok[i])
			snprintf(on, sizeof(on), "(unreachable)");
		else if ((j = df_same_disk(per, ok, i)) != i)
			snprintf(on, sizeof(on), "(disk of iod %u)", j);
		if (opt_inodes)
			df_iline(name, per[i].files, per[i].nstripes,
			    per[i].ffree, on);
		else
			df_line(name, &per[i], on);
	}
	free(ok);
	free(per);
	pvfs_admin_close(a);
}

int
main(int argc, char **argv)
{
	char **tab;
	int c, i, n;

	tool_init("pvfs-df", usage);
	while ((c = tool_getopt(argc, argv, "hi", longopts)) != -1) {
		if (c == 'h')
			opt_human = 1;
		else if (c == 'i')
			opt_inodes = 1;
	}
	if (opt_inodes)
		printf("%-28s %12s %12s %12s %4s %s\n", "Filesystem", "Inodes",
		    "IUsed", "IFree", "IUse%", "Mounted on");
	else
		printf("%-28s %12s %12s %12s %4s %s\n", "Filesystem",
		    opt_human ? "Size" : "1K-blocks", "Used", "Available",
		    "Use%", "Mounted on");
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
