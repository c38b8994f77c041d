/*
 * path.c - which file system an absolute path names, the one routine the
 * client library, the preload shim and the tools share.
 *
 * The local part of a path, up to a mount prefix, is folded lexically
 * ("//", "." and ".."), as routing always did: the prefix is a name in the
 * local tree and the kernel is not asked.  From the prefix on only repeated
 * slashes are collapsed.  ".", ".." and a trailing "/" change what a call
 * means (rmdir("d/.") is EINVAL, unlink("f/") ENOTDIR, stat("f/..")
 * ENOTDIR), so they go to the mgr, which resolves the path component by
 * component with the kernel's checks.
 *
 * A ".." that climbs above the prefix root leaves PVFS, as the kernel's
 * ".." leaves a mount: the rest of the path is local, taken from the
 * prefix's parent.  The components inside PVFS before it are folded, not
 * checked: "/pvfs/missing/../../tmp" is "/tmp", where the kernel would
 * have said ENOENT (doc/api.md).
 */
#include <errno.h>
#include <string.h>

#include "pvfs-internal.h"

/* The longest prefix that out[0..len) equals, or -1.  "/" matches "". */
static int
path_prefix_at(const char *out, size_t len, const char *const *prefix,
    int nprefix)
{
	int i;

	for (i = 0; i < nprefix; i++) {
		size_t l = strlen(prefix[i]);

		if (strcmp(prefix[i], "/") == 0)
			l = 0;
		if (l == len && strncmp(out, prefix[i], l) == 0)
			return i;
	}
	return -1;
}

static int
path_put(char *out, size_t *len, size_t outlen, const char *s, size_t n)
{
	if (*len + n + 1 > outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return 0;
}

const char *
pvfs_path_next(const char **pp, size_t *n)
{
	const char *p = *pp;

	while (*p == '/')
		p++;
	*pp = p;
	if (*p == '\0')
		return NULL;
	*n = strcspn(p, "/");
	*pp = p + *n;
	return p;
}

void
pvfs_path_up(char *out, size_t *len)
{
	while (*len > 0 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--;
	out[*len] = '\0';
}

int
pvfs_path_route(const char *path, const char *const *prefix, int nprefix,
    char *out, size_t outlen)
{
	const char *p = path, *c;
	size_t len = 0, n, plen = 0;
	int in = -1, depth = 0, pure = 0, dot, dotdot;

	if (outlen < 2) {
		errno = ENAMETOOLONG;
		return -2;
	}
	out[0] = '\0';
	/* A prefix "/" takes everything from the start. */
	if ((in = path_prefix_at(out, 0, prefix, nprefix)) >= 0)
		pure = 1;
	while ((c = pvfs_path_next(&p, &n)) != NULL) {
		dot = n == 1 && c[0] == '.';
		dotdot = n == 2 && c[0] == '.' && c[1] == '.';
		/* Under a prefix "/" (plen 0), ".." at the root stays there. */
		if (in >= 0 && dotdot && depth == 0 && plen > 0) {
			/* Out of the prefix, back to its parent, locally. */
			len = plen;
			pvfs_path_up(out, &len);
			in = -1;
			continue;
		}
		if (in >= 0) {
			if (path_put(out, &len, outlen, "/", 1) != 0 ||
			    path_put(out, &len, outlen, c, n) != 0)
				return -2;
			if (dot || dotdot)
				pure = 0;
			depth += dotdot ? -1 : dot ? 0 : 1;
			/* A longer prefix under this one ("/pvfs/inner"). */
			if (pure && !dot && !dotdot) {
				int j = path_prefix_at(out, len, prefix, nprefix);

				if (j >= 0) {
					in = j;
					plen = len;
					depth = 0;
				}
			}
			continue;
		}
		if ((dot || dotdot) && *p == '\0') {
			/* A last "." or ".." keeps its meaning for libc. */
			if (path_put(out, &len, outlen, "/", 1) != 0 ||
			    path_put(out, &len, outlen, c, n) != 0)
				return -2;
			continue;
		}
		if (dotdot) {
			pvfs_path_up(out, &len);
		} else if (!dot) {
			if (path_put(out, &len, outlen, "/", 1) != 0 ||
			    path_put(out, &len, outlen, c, n) != 0)
				return -2;
			if ((in = path_prefix_at(out, len, prefix, nprefix)) >= 0) {
				plen = len;
				depth = 0;
				pure = 1;
			}
		}
	}
	/* A trailing "/" says "a directory": kept, as libc and the mgr
	 * both need it. */
	if (p > path && p[-1] == '/' && len > 0 && out[len - 1] != '/' &&
	    path_put(out, &len, outlen, "/", 1) != 0)
		return -2;
	if (len == 0 && path_put(out, &len, outlen, "/", 1) != 0)
		return -2;
	return in;
}
