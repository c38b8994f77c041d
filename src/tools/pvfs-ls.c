/*
 * pvfs-ls - list PVFS directories and files, like ls.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-ls [OPTION]... [PATH]...\n"
"List PVFS files and directory contents, sorted by name.  A PATH is under a\n"
"pvfstab mount prefix (/pvfs/dir) or a URL (pvfs://host:port/dir); with no\n"
"PATH, the first mount prefix of the pvfstab is listed.\n"
"\n"
"  -l             long listing: mode, links, owner, group, size, mtime, name\n"
"  -a, --all      include entries whose names begin with '.', and . and ..\n"
"  -R, --recursive  list subdirectories recursively\n"
"  -h, --human-readable  sizes like 1.5K, 23M, 4.0G (with -l)\n"
"  -d, --directory  list directories themselves, not their contents\n"
"      --dist     add each file's distribution: base, pcount, ssize\n"
"      --help     show this help and exit\n"
"      --version  show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH could not be listed, 2 bad usage.\n";

enum { OPT_DIST = 0x100 };

static const struct option longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "recursive", no_argument, NULL, 'R' },
	{ "human-readable", no_argument, NULL, 'h' },
	{ "directory", no_argument, NULL, 'd' },
	{ "dist", no_argument, NULL, OPT_DIST },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_long, opt_all, opt_rec, opt_human, opt_dir, opt_dist;

struct ls_ent {
	char *name;  /* as printed */
	char *path;  /* to stat */
	struct stat st;
	struct pvfs_attr_info dist;
};

struct ls_width {
	int links, owner, group, size;
};

static void
ls_mode(mode_t m, char *s)
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	s[0] = S_ISDIR(m) ? 'd' : S_ISREG(m) ? '-' : S_ISLNK(m) ? 'l' : '?';
	for (i = 0; i < 9; i++)
		s[i + 1] = (m & (0400 >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		s[3] = (m & S_IXUSR) ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = (m & S_IXGRP) ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = (m & S_IXOTH) ? 't' : 'T';
	s[10] = '\0';
}

/* The name of the user (group 0) or group id, else its number. */
static const char *
ls_id(int group, unsigned id, char *buf, size_t len)
{
	struct passwd *pw;
	struct group *gr;

	if (!group && (pw = getpwuid((uid_t)id)) != NULL)
		return pw->pw_name;
	if (group && (gr = getgrgid((gid_t)id)) != NULL)
		return gr->gr_name;
	snprintf(buf, len, "%u", id);
	return buf;
}

static const char *
ls_size(const struct stat *st, char *buf, size_t len)
{
	if (opt_human)
		return tool_human((uint64_t)st->st_size, buf, len);
	snprintf(buf, len, "%lld", (long long)st->st_size);
	return buf;
}

/* ls's rule: recent times (within six months) show the clock. */
static void
ls_time(time_t t, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	if (t > now - 182 * 86400 && t < now + 3600)
		strftime(buf, len, "%b %e %H:%M", &tm);
	else
		strftime(buf, len, "%b %e  %Y", &tm);
}

static int
ls_fill(struct ls_ent *e)
{
	if (pvfs_stat(e->path, &e->st) != 0)
		return -1;
	memset(&e->dist, 0, sizeof(e->dist));
	if (opt_dist && S_ISREG(e->st.st_mode) &&
	    pvfs_admin_attr(e->path, &e->dist) != 0)
		return -1;
	return 0;
}

static int
ls_digits(unsigned long long v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void
ls_widths(const struct ls_ent *v, size_t n, struct ls_width *w)
{
	char buf[32];
	size_t i;
	int l;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		if ((l = ls_digits(v[i].st.st_nlink)) > w->links)
			w->links = l;
		if ((l = (int)strlen(ls_id(0, v[i].st.st_uid, buf, sizeof(buf)))) > w->owner)
			w->owner = l;
		if ((l = (int)strlen(ls_id(1, v[i].st.st_gid, buf, sizeof(buf)))) > w->group)
			w->group = l;
		if ((l = (int)strlen(ls_size(&v[i].st, buf, sizeof(buf)))) > w->size)
			w->size = l;
	}
}

static void
ls_print_one(const struct ls_ent *e, const struct ls_width *w)
{
	char mode[11], ob[32], gb[32], sb[32], tb[64];

	if (opt_long) {
		ls_mode(e->st.st_mode, mode);
		ls_time(e->st.st_mtime, tb, sizeof(tb));
		printf("%s %*lu %-*s %-*s %*s %s ", mode, w->links,
		    (unsigned long)e->st.st_nlink, w->owner,
		    ls_id(0, e->st.st_uid, ob, sizeof(ob)), w->group,
		    ls_id(1, e->st.st_gid, gb, sizeof(gb)), w->size,
		    ls_size(&e->st, sb, sizeof(sb)), tb);
	}
	if (opt_dist && S_ISREG(e->st.st_mode))
		printf("%4u %4u %9u ", e->dist.base, e->dist.pcount, e->dist.ssize);
	else if (opt_dist)
		printf("%4s %4s %9s ", "-", "-", "-");
	printf("%s\n", e->name);
}

static void
ls_print(const struct ls_ent *v, size_t n, int total)
{
	struct ls_width w;
	unsigned long long blocks = 0;
	size_t i;

	ls_widths(v, n, &w);
	for (i = 0; total && opt_long && i < n; i++)
		blocks += (unsigned long long)v[i].st.st_blocks;
	if (total && opt_long)
		printf("total %llu\n", (blocks + 1) / 2);
	for (i = 0; i < n; i++)
		ls_print_one(&v[i], &w);
}

static void
ls_free(struct ls_ent *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].path);
	}
	free(v);
}

/* The entries of directory path as ls shows them (dot rules applied). */
static struct ls_ent *
ls_read_dir(const char *path, size_t *count)
{
	struct ls_ent *v;
	char **names;
	size_t n, i, k = 0;

	if (tool_list_dir(path, &names, &n) != 0) {
		tool_err(path, errno);
		return NULL;
	}
	v = tool_xmalloc((n + 2) * sizeof(*v));
	for (i = 0; opt_all && i < 2; i++) {
		v[k].name = strdup(i == 0 ? "." : "..");
		v[k++].path = tool_join(path, i == 0 ? "." : "..");
	}
	for (i = 0; i < n; i++) {
		if (names[i][0] == '.' && !opt_all)
			continue;
		v[k].name = strdup(names[i]);
		v[k++].path = tool_join(path, names[i]);
	}
	tool_free_list(names, n);
	for (i = 0; i < k; i++)
		if (ls_fill(&v[i]) != 0) {
			tool_err(v[i].path, errno);
			memset(&v[i].st, 0, sizeof(v[i].st));
		}
	*count = k;
	return v;
}

static void
ls_dir(const char *path, int header, int first)
{
	struct ls_ent *v;
	size_t n, i;

	if ((v = ls_read_dir(path, &n)) == NULL)
		return;
	if (header)
		printf("%s%s:\n", first ? "" : "\n", path);
	ls_print(v, n, 1);
	for (i = 0; opt_rec && i < n; i++)
		if (S_ISDIR(v[i].st.st_mode) && strcmp(v[i].name, ".") != 0 &&
		    strcmp(v[i].name, "..") != 0)
			ls_dir(v[i].path, 1, 0);
	ls_free(v, n);
}

static int
ls_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ls_ent *)a)->name, ((const struct ls_ent *)b)->name);
}

/* Operands: files (and, with -d, directories) first, then directories. */
static void
ls_operands(char **paths, int n)
{
	struct ls_ent *files = tool_xmalloc((size_t)n * sizeof(*files));
	struct ls_ent *dirs = tool_xmalloc((size_t)n * sizeof(*dirs));
	size_t nf = 0, nd = 0, i;
	struct ls_ent e;
	int k;

	for (k = 0; k < n; k++) {
		if (!tool_need_pvfs(paths[k]))
			continue;
		e.name = strdup(paths[k]);
		e.path = strdup(paths[k]);
		if (ls_fill(&e) != 0) {
			tool_err(paths[k], errno);
			free(e.name);
			free(e.path);
		} else if (S_ISDIR(e.st.st_mode) && !opt_dir)
			dirs[nd++] = e;
		else
			files[nf++] = e;
	}
	qsort(files, nf, sizeof(*files), ls_cmp);
	qsort(dirs, nd, sizeof(*dirs), ls_cmp);
	ls_print(files, nf, 0);
	for (i = 0; i < nd; i++)
		ls_dir(dirs[i].path, n > 1 || opt_rec, nf == 0 && i == 0);
	ls_free(files, nf);
	ls_free(dirs, nd);
}

int
main(int argc, char **argv)
{
	char **tab;
	int c, n;

	tool_init("pvfs-ls", usage);
	while ((c = tool_getopt(argc, argv, "laRhd", longopts)) != -1) {
		switch (c) {
		case 'l': opt_long = 1; break;
		case 'a': opt_all = 1; break;
		case 'R': opt_rec = 1; break;
		case 'h': opt_human = 1; break;
		case 'd': opt_dir = 1; break;
		case OPT_DIST: opt_dist = 1; break;
		default: tool_usage_error("invalid option");
		}
	}
	if (optind < argc) {
		ls_operands(argv + optind, argc - optind);
		return tool_status;
	}
	if ((n = tool_tab_prefixes(&tab)) < 0)
		return TOOL_EXIT_FAIL;
	if (n == 0) {
		tool_errmsg(NULL, "no file system in the pvfstab");
		return TOOL_EXIT_FAIL;
	}
	ls_operands(tab, 1);
	tool_free_list(tab, (size_t)n);
	return tool_status;
}
