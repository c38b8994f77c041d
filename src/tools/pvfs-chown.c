/*
 * pvfs-chown - change the owner and group of PVFS files.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-chown [OPTION]... OWNER[:[GROUP]] PATH...\n"
"       pvfs-chown [OPTION]... :GROUP PATH...\n"
"Change the owner and/or group of each PVFS PATH.  OWNER and GROUP are\n"
"names or numbers; 'OWNER:' also sets OWNER's login group.  Only root may\n"
"change the owner; the owner may change the group to one of its groups.\n"
"\n"
"  -R, --recursive  change directories and their contents\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH failed, 2 bad usage.\n";

static int opt_rec;
static uid_t new_uid = (uid_t)-1;
static gid_t new_gid = (gid_t)-1;

static int
chown_id(const char *s, int group, unsigned long *out, gid_t *login)
{
	struct passwd *pw;
	struct group *gr;
	char *end;

	if (group && (gr = getgrnam(s)) != NULL) {
		*out = gr->gr_gid;
		return 0;
	}
	if (!group && (pw = getpwnam(s)) != NULL) {
		*out = pw->pw_uid;
		*login = pw->pw_gid;
		return 0;
	}
	*out = strtoul(s, &end, 10);
	if (*s == '\0' || *end != '\0' || *out >= (unsigned long)(uid_t)-1)
		return -1;
	if (!group && (pw = getpwuid((uid_t)*out)) != NULL)
		*login = pw->pw_gid;
	return 0;
}

static void
chown_spec(char *spec)
{
	char *colon = strchr(spec, ':');
	gid_t login = (gid_t)-1;
	unsigned long v;

	if (colon != NULL)
		*colon = '\0';
	if (*spec != '\0') {
		if (chown_id(spec, 0, &v, &login) != 0)
			tool_usage_error("invalid user: '%s'", spec);
		new_uid = (uid_t)v;
	}
	if (colon != NULL && colon[1] != '\0') {
		if (chown_id(colon + 1, 1, &v, &login) != 0)
			tool_usage_error("invalid group: '%s'", colon + 1);
		new_gid = (gid_t)v;
	} else if (colon != NULL && *spec != '\0') {
		new_gid = login;
	}
	if (new_uid == (uid_t)-1 && new_gid == (gid_t)-1)
		tool_usage_error("invalid spec: '%s'", spec);
}

static int chown_path(const char *path);

/* In a -R walk a link itself changes owner (chown(1)'s -P default), and
 * the walk never goes through one. */
static int
chown_child(const char *path)
{
	struct stat st;

	if (pvfs_stat_meta(path, &st, 1) == 0 && S_ISLNK(st.st_mode)) {
		if (pvfs_lchown(path, new_uid, new_gid) != 0)
			tool_err(path, errno);
		return 0;
	}
	return chown_path(path);
}

/* Failures are reported (and set the exit status) here; the walk goes on. */
static int
chown_path(const char *path)
{
	struct stat st;

	if (pvfs_chown(path, new_uid, new_gid) != 0) {
		tool_err(path, errno);
		return 0;
	}
	if (opt_rec && pvfs_stat_meta(path, &st, 0) == 0 && S_ISDIR(st.st_mode))
		tool_each_child(path, chown_child);
	return 0;
}

int
main(int argc, char **argv)
{
	tool_init("pvfs-chown", usage);
	opt_rec = tool_getflag(argc, argv, 'R', "recursive");
	if (argc - optind < 2)
		tool_usage_error("missing operand");
	chown_spec(argv[optind]);
	return tool_each_operand(argc, argv, optind + 1, chown_path);
}
