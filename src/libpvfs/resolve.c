/*
 * resolve.c - following symbolic links: the one loop every path call of
 * the library goes through (the native API, the open-file API, the shim
 * and the tools call those).
 *
 * The mgr never follows a link itself: where its walk meets one that the
 * request must pass (a directory component, or the last one of a request
 * that follows), it answers PVFS_ST_LINK with the bytes of the path up to
 * the end of the link's name and the link's text.  Here the path is built
 * again from them and routed again with pvfs_path_route, so a target
 * that leaves the prefix (absolute, or ".." past the root) is local, one
 * under another prefix is that file system's, and the count of links
 * followed is kept across all of them, as Linux keeps it in one lookup.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "pvfs-internal.h"

#define WALK_MAX (PATH_MAX + PVFS_PATH_MAX) /* a rebuilt path */

static int walk_escape;                     /* pvfs_set_local_escape */
static __thread char walk_local[PATH_MAX];

void
pvfs_set_local_escape(int on)
{
	__atomic_store_n(&walk_escape, on, __ATOMIC_RELAXED);
}

const char *
pvfs_local_path(void)
{
	return walk_local;
}

/* The path after following l from inner (the in-fs path sent to fs):
 * into out, WALK_MAX bytes.  0, or -1 with errno. */
static int
walk_rebuild(const struct client_fs *fs, const char *inner,
    const struct pvfs_link_rep *l, char *out)
{
	size_t len = strlen(inner), end = l->consumed, dir, plen;
	const char *prefix = fs->tab.prefix;
	const char *rest = inner + end;
	size_t tlen = strlen(l->target), rlen;

	if (end == 0 || end > len || (inner[end] != '\0' && inner[end] != '/')) {
		errno = EPROTO;
		return -1;
	}
	rlen = strlen(rest);
	if (l->target[0] == '/') {
		if (tlen + rlen + 1 > WALK_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(out, l->target, tlen);
		memcpy(out + tlen, rest, rlen + 1);
		return 0;
	}
	/* Relative: from the directory that holds the link, inside the same
	 * file system; pvfs_path_route takes a ".." past its root out. */
	for (dir = end; dir > 0 && inner[dir - 1] != '/'; dir--)
		;
	plen = strcmp(prefix, "/") == 0 ? 0 : strlen(prefix);
	if (plen + dir + tlen + rlen + 1 > WALK_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, prefix, plen);
	memcpy(out + plen, inner, dir);
	memcpy(out + plen + dir, l->target, tlen);
	memcpy(out + plen + dir + tlen, rest, rlen + 1);
	return 0;
}

/* Route path i of w; 0 in PVFS (fs set), 1 local (walk_local), -1. */
static int
walk_route(struct pvfs_walk *w, int i, const char *path, struct client_fs **fs)
{
	return pvfs_client_route(path, fs, w->inner[i], walk_local,
	    sizeof(walk_local));
}

int
pvfs_walk_rpc(struct pvfs_walk *w)
{
	char buf[2][WALK_MAX];
	struct client_fs *fs[2] = { NULL, NULL };
	const struct pvfs_link_rep *l;
	struct pvfs_cache_ticket t;
	const char *cur[2] = { w->path[0], w->path[1] };
	int n = w->path[1] != NULL ? 2 : 1, hops = 0, i, rc;

	for (i = 0; i < n; i++) {
		if (cur[i] == NULL) {
			errno = EFAULT;
			return -1;
		}
	}
	if (w->cred != NULL)
		pvfs_client_cred(w->cred);
	for (i = 0; i < n; i++) {
		/* The caller's own path: local is not PVFS's (ENOENT). */
		if ((rc = walk_route(w, i, cur[i], &fs[i])) != 0) {
			if (rc == 1) /* a local destination: another fs */
				errno = i == 0 ? ENOENT : EXDEV;
			return -1;
		}
	}
	for (;;) {
		if (n == 2 && fs[0] != fs[1]) {
			errno = EXDEV;
			return -1;
		}
		w->fs = fs[0];
		if (w->op == PVFS_MGR_STAT) {
			/* The one request a client cache answers (cache.c). */
			if (pvfs_cache_stat_get(w->fs, w->req, w->rep, &t) == 0)
				return 0;
			if (pvfs_conn_rpc(w->fs, w->op, w->req, w->rep) == 0) {
				pvfs_cache_stat_put(w->fs, w->req, w->rep, &t);
				return 0;
			}
		} else if (pvfs_conn_rpc(w->fs, w->op, w->req, w->rep) == 0)
			return 0;
		if (errno != PVFS_ST_LINK)
			return -1;
		if (++hops > PVFS_LINK_HOPS) {
			errno = ELOOP;
			return -1;
		}
		l = pvfs_conn_link();
		i = l->which < n ? l->which : 0;
		if (walk_rebuild(fs[i], w->inner[i], l, buf[i]) != 0)
			return -1;
		cur[i] = buf[i];
		if ((rc = walk_route(w, i, cur[i], &fs[i])) < 0)
			return -1;
		if (rc == 1) {
			/* Out of PVFS: the caller may carry on locally.  Of two
			 * paths, one that left is another file system. */
			errno = n == 2 ? EXDEV :
			    __atomic_load_n(&walk_escape, __ATOMIC_RELAXED) ?
			    PVFS_ELOCAL : ENOENT;
			return -1;
		}
	}
}

/* ---- the path with every link resolved (realpath, the shim's cwd) ---- */

/* Append "/" and n bytes of c to s (WALK_MAX bytes). */
static int
walk_cat(char *s, const char *c, size_t n)
{
	size_t len = strlen(s);

	if (len + 1 + n + 1 > WALK_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	s[len] = '/';
	memcpy(s + len + 1, c, n);
	s[len + 1 + n] = '\0';
	return 0;
}

/* a, b and c one after the other into out (WALK_MAX bytes). */
static int
walk_join3(char *out, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > WALK_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, a, la);
	memcpy(out + la, b, lb);
	memcpy(out + la + lb, c, lc + 1);
	return 0;
}

/* One pass over path's components from its file system's root: 0 with
 * the result in res, 1 with the path to start again from in next (a link,
 * or ".." out of the root), -1 with errno. */
static int
walk_real_pass(const char *path, char *res, char *next, int *hops, int first)
{
	char inner[PVFS_PATH_MAX + 1], target[PATH_MAX];
	struct client_fs *fs;
	const char *p, *c;
	struct stat st;
	size_t n, root;
	ssize_t tl;
	int rc;

	if ((rc = pvfs_client_route(path, &fs, inner, walk_local,
	    sizeof(walk_local))) != 0) {
		if (rc == 1)
			errno = !first && __atomic_load_n(&walk_escape,
			    __ATOMIC_RELAXED) ? PVFS_ELOCAL : ENOENT;
		return -1;
	}
	if (walk_join3(res, strcmp(fs->tab.prefix, "/") == 0 ? "" :
	    fs->tab.prefix, "", "") != 0)
		return -1;
	root = strlen(res);
	for (p = inner; (c = pvfs_path_next(&p, &n)) != NULL;) {
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.' && strlen(res) > root) {
			while (res[strlen(res) - 1] != '/')
				res[strlen(res) - 1] = '\0';
			res[strlen(res) - 1] = '\0';
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/* Out of the root: the router takes it from here. */
			return walk_join3(next, res, "/..", p) == 0 ? 1 : -1;
		}
		if (walk_cat(res, c, n) != 0 || pvfs_lstat(res, &st) != 0)
			return -1;
		if (S_ISLNK(st.st_mode)) {
			if (++*hops > PVFS_LINK_HOPS) {
				errno = ELOOP;
				return -1;
			}
			if ((tl = pvfs_readlink(res, target, sizeof(target) - 1)) < 0)
				return -1;
			target[tl] = '\0';
			while (res[strlen(res) - 1] != '/')
				res[strlen(res) - 1] = '\0';
			return walk_join3(next, target[0] == '/' ? "" : res, target,
			    p) == 0 ? 1 : -1;
		}
		if (!S_ISDIR(st.st_mode) && *p != '\0') {
			errno = ENOTDIR;
			return -1;
		}
	}
	if (res[0] == '\0')
		strcpy(res, "/");
	return 0;
}

int
pvfs_realpath(const char *path, char *out, size_t len)
{
	char res[WALK_MAX], next[2][WALK_MAX];
	const char *first = path;
	int hops = 0, rc, k = 0;

	if (path == NULL) {
		errno = EINVAL;
		return -1;
	}
	while ((rc = walk_real_pass(path, res, next[k], &hops,
	    path == first)) == 1) {
		path = next[k];
		k = !k;
	}
	if (rc != 0)
		return -1;
	if (strlen(res) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(out, res);
	return 0;
}
