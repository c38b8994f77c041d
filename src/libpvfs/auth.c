/*
 * auth.c - proving who we are to the mgr (doc/security.md).
 *
 * The mgr identifies a connection once, when it is made: by the kernel
 * over its Unix socket, or by a MUNGE credential in MGR_AUTH over TCP.
 * So a connection belongs to the identity the process had then, and the
 * pool makes a new one when the process's identity changed.
 *
 * libmunge is loaded with dlopen() the first time a pvfstab entry asks
 * for auth=munge: programs that never use MUNGE (and the static library)
 * do not depend on it.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MUNGE
#include <munge.h>
#endif

#include "pvfs-internal.h"

#define AUTH_MUNGE_LIB "libmunge.so.2"

static uint64_t
auth_fnv(uint64_t h, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ull;
	return h;
}

/* FNV-1a over euid, egid and every group: a process with more groups
 * than the wire carries must still see a change among them. */
uint64_t
pvfs_auth_who(void)
{
	gid_t small[PVFS_MAX_GROUPS], *groups = small;
	uint64_t h = 0xcbf29ce484222325ull;
	int i, n = getgroups(PVFS_MAX_GROUPS, small);

	if (n < 0 && (n = getgroups(0, NULL)) > 0 &&
	    (groups = malloc((size_t)n * sizeof(gid_t))) != NULL)
		n = getgroups(n, groups);
	if (n < 0 || groups == NULL) /* changing under us: digest without */
		n = 0;
	h = auth_fnv(auth_fnv(h, (uint32_t)geteuid()), (uint32_t)getegid());
	for (i = 0; i < n; i++)
		h = auth_fnv(h, (uint32_t)groups[i]);
	if (groups != small)
		free(groups);
	return h;
}

#ifdef HAVE_MUNGE
static struct {
	munge_ctx_t (*ctx_create)(void);
	void (*ctx_destroy)(munge_ctx_t);
	munge_err_t (*ctx_set)(munge_ctx_t, munge_opt_t, ...);
	munge_err_t (*encode)(char **, munge_ctx_t, const void *, int);
	int ok;
} auth_munge;
static pthread_once_t auth_munge_once = PTHREAD_ONCE_INIT;

static void
auth_munge_load(void)
{
	void *h = dlopen(AUTH_MUNGE_LIB, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL)
		return;
	*(void **)&auth_munge.ctx_create = dlsym(h, "munge_ctx_create");
	*(void **)&auth_munge.ctx_destroy = dlsym(h, "munge_ctx_destroy");
	*(void **)&auth_munge.ctx_set = dlsym(h, "munge_ctx_set");
	*(void **)&auth_munge.encode = dlsym(h, "munge_encode");
	auth_munge.ok = auth_munge.ctx_create && auth_munge.ctx_destroy &&
	    auth_munge.ctx_set && auth_munge.encode;
}

/* A fresh credential for this process's euid/egid: munged's replay cache
 * lets the mgr accept each one once.  malloc'd, or NULL with errno. */
static char *
auth_munge_cred(const char *sock)
{
	munge_ctx_t ctx;
	munge_err_t e;
	char *cred = NULL;

	pthread_once(&auth_munge_once, auth_munge_load);
	if (!auth_munge.ok) {
		errno = ENOTSUP;
		return NULL;
	}
	if ((ctx = auth_munge.ctx_create()) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	e = sock != NULL && sock[0] != '\0' ?
	    auth_munge.ctx_set(ctx, MUNGE_OPT_SOCKET, sock) : EMUNGE_SUCCESS;
	if (e == EMUNGE_SUCCESS)
		e = auth_munge.encode(&cred, ctx, NULL, 0);
	auth_munge.ctx_destroy(ctx);
	if (e != EMUNGE_SUCCESS) {
		free(cred);
		errno = EACCES; /* no credential: as good as refused */
		return NULL;
	}
	return cred;
}
#else
static char *
auth_munge_cred(const char *sock)
{
	errno = ENOTSUP;
	return NULL;
}
#endif

int
pvfs_auth_handshake(const struct conn_pool *p, int fd, int timeout_ms)
{
	struct pvfs_mgr_auth_req *req;
	struct pvfs_mgr_auth_rep rep;
	char *cred;
	int rc, saved;

	if ((cred = auth_munge_cred(p->munge_sock)) == NULL)
		return -1;
	if (strlen(cred) > PVFS_AUTH_MAX || (req = calloc(1, sizeof(*req))) == NULL) {
		free(cred);
		errno = EACCES;
		return -1;
	}
	req->method = PVFS_AUTH_MUNGE;
	strcpy(req->cred, cred);
	free(cred);
	rc = pvfs_conn_call_fd(fd, PVFS_MGR_AUTH, req, &rep, timeout_ms);
	saved = errno;
	free(req);
	/* EOPNOTSUPP: this mgr does not take MUNGE; refused either way. */
	errno = rc != 0 && saved == EOPNOTSUPP ? EACCES : saved;
	return rc;
}
