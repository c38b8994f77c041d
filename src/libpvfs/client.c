/*
 * client.c - the library's global state: the pvfstab, one client_fs per
 * file system (loaded lazily, never freed, so pointers to it stay valid),
 * path mapping, the iod table of each file system, credentials.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define CLIENT_TAB_MAX (1 << 20)
#define CLIENT_NORM_MAX (2 * PVFS_PATH_MAX + 2)

#define CLIENT_URL "pvfs://"
#define CLIENT_URL_LEN 7

/* A file system named by URL (pvfs://host[:port]/path) with no pvfstab
 * entry: created on first use, never freed, like client_fs_tab. */
struct client_url_fs {
	struct client_fs fs;
	struct client_url_fs *next;
};

static pthread_once_t client_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t client_lock = PTHREAD_MUTEX_INITIALIZER;
static int client_loaded;      /* 0 not yet, 1 loaded, -1 failed */
static int client_load_errno;
static char *client_load_cause; /* why the pvfstab failed: file:line: why */
static struct client_fs *client_fs_tab;
static const char **client_prefixes; /* client_fs_tab's, for path routing */
static int client_nfs;
static const char *const client_url_root[] = { "/" };
static mode_t client_mask;
static struct client_url_fs *client_url_list; /* under client_lock */

static void client_atfork_prepare(void);
static void client_atfork_parent(void);
static void client_atfork_child(void);

/* Locks are taken before fork and released on both sides, so a child never
 * inherits a mutex held by a thread that no longer exists. */
static void
client_init_once(void)
{
	client_mask = umask(022);
	umask(client_mask);
	pthread_atfork(client_atfork_prepare, client_atfork_parent,
	    client_atfork_child);
}

static void
client_atfork_prepare(void)
{
	pthread_mutex_lock(&client_lock);
	pvfs_fdtab_atfork_prepare();
	pvfs_file_atfork_prepare();
	pvfs_lease_atfork_prepare();
	pvfs_cache_atfork_prepare();
	pvfs_conn_atfork_prepare();
}

static void
client_atfork_parent(void)
{
	pvfs_conn_atfork_parent();
	pvfs_cache_atfork_parent();
	pvfs_lease_atfork_parent();
	pvfs_file_atfork_parent();
	pvfs_fdtab_atfork_parent();
	pthread_mutex_unlock(&client_lock);
}

static void
client_atfork_child(void)
{
	pvfs_conn_atfork_child();
	pvfs_cache_atfork_child();
	pvfs_lease_atfork_child();
	pvfs_file_atfork_child();
	pvfs_fdtab_atfork_child();
	pthread_mutex_unlock(&client_lock);
}

/* $PVFS_TIMEOUT (seconds, may be fractional) overrides the pvfstab. */
static int
client_timeout(const struct pvfs_tab_entry *e)
{
	const char *s = getenv("PVFS_TIMEOUT");
	char *end;
	double v;

	if (s != NULL && *s != '\0') {
		v = strtod(s, &end);
		if (*end == '\0' && v > 0 && v <= 86400)
			return v * 1000 < 1 ? 1 : (int)(v * 1000);
	}
	return e->timeout_ms > 0 ? e->timeout_ms : PVFS_DEFAULT_TIMEOUT_MS;
}

/* $PVFS_MIRROR_STALL (seconds): how long a copy of a mirrored file may
 * make no progress while another copy took the operation (io-mirror.c);
 * never more than the timeout. */
static int
client_stall(int timeout_ms)
{
	const char *s = getenv("PVFS_MIRROR_STALL");
	int ms = PVFS_DEFAULT_STALL_MS;
	char *end;
	double v;

	if (s != NULL && *s != '\0') {
		v = strtod(s, &end);
		if (*end == '\0' && v > 0 && v <= 86400)
			ms = v * 1000 < 1 ? 1 : (int)(v * 1000);
	}
	return ms < timeout_ms ? ms : timeout_ms;
}

/* The mgr knows a connection's identity from when it was made: by its
 * Unix socket (sock=), else by MUNGE (auth=munge), else not at all. */
static void
client_mgr_auth(struct client_fs *fs)
{
	struct conn_pool *p = &fs->mgr;

	p->ident = 1;
	p->pin_fs = 1;
	snprintf(p->sock, sizeof(p->sock), "%s", fs->tab.sock);
	p->auth = fs->tab.auth;
	p->munge_sock = fs->tab.munge_sock;
}

static int
client_build(const struct pvfs_tab_entry *tab, int n)
{
	int i;

	client_fs_tab = calloc(n > 0 ? (size_t)n : 1, sizeof(*client_fs_tab));
	client_prefixes = calloc(n > 0 ? (size_t)n : 1, sizeof(*client_prefixes));
	if (client_fs_tab == NULL || client_prefixes == NULL) {
		free(client_fs_tab);
		client_fs_tab = NULL;
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct client_fs *fs = &client_fs_tab[i];

		fs->tab = tab[i];
		fs->prefix_len = strlen(tab[i].prefix);
		client_prefixes[i] = fs->tab.prefix;
		fs->timeout_ms = client_timeout(&tab[i]);
		fs->stall_ms = client_stall(fs->timeout_ms);
		pvfs_conn_pool_init(&fs->mgr, tab[i].host, tab[i].port);
		client_mgr_auth(fs);
	}
	client_nfs = n;
	return 0;
}

/* Read and parse the pvfstab; a failure is remembered so that callers
 * probing non-PVFS paths do not reread the file each time. */
static int
client_load_tab(void)
{
	const char *path = pvfs_tab_path();
	struct pvfs_tab_entry *tab = NULL;
	char *text, *cause = NULL;
	int n, err;

	if ((text = pvfs_config_read(path, CLIENT_TAB_MAX, &cause)) == NULL) {
		/* Missing is ENOENT (URLs still work); unreadable or
		 * binary is a broken pvfstab: EINVAL. */
		err = errno == ENOENT ? ENOENT : EINVAL;
		client_load_cause = cause;
		errno = err;
		return -1;
	}
	n = pvfs_tab_parse(text, path, &tab, &cause);
	free(text);
	if (n < 0) {
		client_load_cause = cause;
		errno = EINVAL;
		return -1;
	}
	n = client_build(tab, n);
	free(tab);
	return n;
}

static int
client_load(void)
{
	int rc;

	pthread_once(&client_once, client_init_once);
	if (__atomic_load_n(&client_loaded, __ATOMIC_ACQUIRE) > 0)
		return 0;
	pthread_mutex_lock(&client_lock);
	if (client_loaded == 0) {
		rc = client_load_tab();
		client_load_errno = rc == 0 ? 0 : errno;
		__atomic_store_n(&client_loaded, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
	}
	rc = client_loaded > 0 ? 0 : -1;
	pthread_mutex_unlock(&client_lock);
	if (rc != 0)
		errno = client_load_errno == EINVAL ? EINVAL : ENOENT;
	return rc;
}

int
pvfs_client_tab_status(const char **path, const char **cause)
{
	*path = pvfs_tab_path();
	if (client_load() == 0)
		return 0;
	*cause = client_load_cause;
	return client_load_errno == EINVAL ? EINVAL : ENOENT;
}

int
pvfs_tab_status(const char **path, const char **cause)
{
	return pvfs_client_tab_status(path, cause);
}

/* Read now, not cached: the preload shim asks before anything else and
 * the tools list every file system. */
int
pvfs_tab_prefixes(char ***out, char **cause)
{
	const char *path = pvfs_tab_path();
	struct pvfs_tab_entry *tab = NULL;
	char *text;
	int i, n;

	*out = NULL;
	*cause = NULL;
	if ((text = pvfs_config_read(path, CLIENT_TAB_MAX, cause)) == NULL)
		return -1;
	n = pvfs_tab_parse(text, path, &tab, cause);
	free(text);
	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((*out = calloc((size_t)n + 1, sizeof(**out))) == NULL) {
		free(tab);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (((*out)[i] = strdup(tab[i].prefix)) == NULL) {
			pvfs_free_list(*out);
			*out = NULL;
			free(tab);
			errno = ENOMEM;
			return -1;
		}
	}
	free(tab);
	return n;
}

void
pvfs_free_list(char **list)
{
	size_t i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		free(list[i]);
	free(list);
}

int
pvfs_path_is_root(const char *path)
{
	char inner[PVFS_PATH_MAX + 1];
	struct client_fs *fs;
	const char *p = inner, *c;
	size_t n;
	int depth = 0;

	if (pvfs_client_resolve(path, &fs, inner) != 0)
		return 0;
	/* Folded, as a question about names: "/pvfs/." and "/pvfs/d/.."
	 * are the root for a tool that must not remove it. */
	while ((c = pvfs_path_next(&p, &n)) != NULL) {
		if (n == 2 && c[0] == '.' && c[1] == '.')
			depth -= depth > 0;
		else if (!(n == 1 && c[0] == '.'))
			depth++;
	}
	return depth == 0;
}

long
pvfs_pathconf_limit(int name)
{
	switch (name) {
	case _PC_NAME_MAX:
		return PVFS_NAME_MAX;
	case _PC_PATH_MAX:
		return PVFS_PATH_MAX;
	case _PC_LINK_MAX:
		return 1;
	default:
		return -1;
	}
}

/* Relative paths are taken from the current directory, as the kernel
 * does; then pvfs_path_route says which file system the path is on.
 * Returns that entry's index, -1 for a local path, -2 with errno. */
static int
client_route(const char *path, char *out)
{
	char cwd[PATH_MAX], *tmp;
	int rc;

	if (path[0] == '/')
		return pvfs_path_route(path, client_prefixes, client_nfs, out,
		    CLIENT_NORM_MAX);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return -2;
	if ((tmp = malloc(strlen(cwd) + strlen(path) + 2)) == NULL)
		return -2;
	strcpy(tmp, cwd);
	strcat(tmp, "/");
	strcat(tmp, path);
	rc = pvfs_path_route(tmp, client_prefixes, client_nfs, out,
	    CLIENT_NORM_MAX);
	free(tmp);
	return rc;
}

/* Find path's file system; norm gets the path with "//" collapsed and,
 * under the prefix, "." and ".." kept for the mgr.  0, -1 with errno, or
 * 1 (errno ENOENT) for a local path. */
static int
client_lookup(const char *path, char *norm, struct client_fs **fs)
{
	int i;

	pvfs_client_detail_clear();
	if (path == NULL || path[0] == '\0') {
		errno = path == NULL ? EFAULT : ENOENT;
		return -1;
	}
	if (client_load() != 0)
		return -1;
	if ((i = client_route(path, norm)) == -2) {
		errno = errno == 0 || errno == ERANGE ? ENAMETOOLONG : errno;
		return -1;
	}
	if (i < 0) {
		errno = ENOENT;
		return 1; /* a local path, routed in norm */
	}
	*fs = &client_fs_tab[i];
	return 0;
}

/* The file system of the mgr at host:port: a pvfstab entry naming that
 * mgr if there is one (so both spellings share connections), else one
 * made for the URL. */
static struct client_fs *
client_url_fs(const char *host, uint16_t port)
{
	struct client_url_fs *u;
	struct client_fs *fs = NULL;
	int i;

	(void)client_load(); /* no pvfstab is fine for a URL */
	for (i = 0; i < client_nfs && fs == NULL; i++)
		if (client_fs_tab[i].tab.port == port &&
		    strcmp(client_fs_tab[i].tab.host, host) == 0)
			fs = &client_fs_tab[i];
	pthread_mutex_lock(&client_lock);
	for (u = client_url_list; u != NULL && fs == NULL; u = u->next)
		if (u->fs.tab.port == port && strcmp(u->fs.tab.host, host) == 0)
			fs = &u->fs;
	if (fs == NULL && (u = calloc(1, sizeof(*u))) != NULL) {
		fs = &u->fs;
		snprintf(fs->tab.host, sizeof(fs->tab.host), "%s", host);
		fs->tab.port = port;
		snprintf(fs->tab.prefix, sizeof(fs->tab.prefix), CLIENT_URL "%s%s%s:%u",
		    strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
		    port);
		fs->prefix_len = strlen(fs->tab.prefix);
		fs->timeout_ms = client_timeout(&fs->tab);
		fs->stall_ms = client_stall(fs->timeout_ms);
		pvfs_conn_pool_init(&fs->mgr, host, port);
		client_mgr_auth(fs);
		u->next = client_url_list;
		client_url_list = u;
	}
	pthread_mutex_unlock(&client_lock);
	return fs;
}

/* "pvfs://host[:port]/path" (s points after the scheme); the port
 * defaults to the mgr's, the path to the root. */
static int
client_lookup_url(const char *s, char *norm, struct client_fs **fs)
{
	char addr[PVFS_HOST_MAX + 8], host[PVFS_HOST_MAX + 1];
	size_t alen = strcspn(s, "/");
	uint16_t port;

	pthread_once(&client_once, client_init_once);
	if (alen == 0 || alen >= sizeof(addr)) {
		errno = ENOENT;
		return -1;
	}
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (pvfs_net_parse_addr(addr, host, sizeof(host), &port,
	    PVFS_DEFAULT_MGR_PORT) != 0 || port == 0) {
		errno = ENOENT;
		return -1;
	}
	if (pvfs_path_route(s[alen] ? s + alen : "/", client_url_root, 1, norm,
	    CLIENT_NORM_MAX) != 0)
		return -1;
	return (*fs = client_url_fs(host, port)) == NULL ? -1 : 0;
}

int
pvfs_client_resolve(const char *path, struct client_fs **fsp, char *inner)
{
	return pvfs_client_route(path, fsp, inner, NULL, 0) == 0 ? 0 : -1;
}

int
pvfs_client_route(const char *path, struct client_fs **fsp, char *inner,
    char *local, size_t locallen)
{
	char norm[CLIENT_NORM_MAX];
	struct client_fs *fs;
	const char *rest;
	int rc;

	if (path != NULL && strncmp(path, CLIENT_URL, CLIENT_URL_LEN) == 0) {
		if (client_lookup_url(path + CLIENT_URL_LEN, norm, &fs) != 0)
			return -1;
		rest = norm;
	} else {
		if ((rc = client_lookup(path, norm, &fs)) != 0) {
			if (rc != 1 || local == NULL)
				return -1;
			if (strlen(norm) >= locallen) {
				errno = ENAMETOOLONG;
				return -1;
			}
			strcpy(local, norm);
			return 1;
		}
		rest = strcmp(fs->tab.prefix, "/") == 0 ? norm : norm + fs->prefix_len;
	}
	if (strlen(rest) + 1 > PVFS_PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(inner, PVFS_PATH_MAX + 1, "%s", *rest ? rest : "/");
	*fsp = fs;
	return 0;
}

int
pvfs_is_pvfs_path(const char *path)
{
	char inner[PVFS_PATH_MAX + 1];
	struct client_fs *fs;
	int saved = errno, rc;

	rc = pvfs_client_resolve(path, &fs, inner) == 0;
	errno = saved;
	return rc;
}

static int
client_install_info(struct client_fs *fs, struct pvfs_mgr_fsinfo_rep *rep)
{
	struct conn_pool *pools;
	uint32_t i;

	if (rep->niods == 0) {
		errno = EIO;
		return -1;
	}
	if ((pools = calloc(rep->niods, sizeof(*pools))) == NULL)
		return -1;
	for (i = 0; i < rep->niods; i++) {
		pvfs_conn_pool_init(&pools[i], rep->iods[i].host, rep->iods[i].port);
		/* Another host's iod may use the same path for its socket. */
		if (rep->iods[i].sock[0] != '\0' &&
		    pvfs_addr_is_local(rep->iods[i].host))
			memcpy(pools[i].sock, rep->iods[i].sock, sizeof(pools[i].sock));
	}
	pthread_mutex_lock(&client_lock);
	if (fs->have_info) {
		pthread_mutex_unlock(&client_lock);
		free(pools);
		return 0;
	}
	fs->fsid = rep->fsid;
	fs->default_ssize = rep->default_ssize;
	fs->niods = rep->niods;
	fs->iods = pools;
	__atomic_store_n(&fs->have_info, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&client_lock);
	return 0;
}

/* Fetched without holding a lock across the network; if two threads race,
 * the first one to install wins and the other's copy is dropped. */
int
pvfs_client_fs_info(struct client_fs *fs)
{
	struct pvfs_mgr_cred_req req;
	struct pvfs_mgr_fsinfo_rep rep;
	int rc;

	if (__atomic_load_n(&fs->have_info, __ATOMIC_ACQUIRE))
		return 0;
	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	if (pvfs_conn_rpc(fs, PVFS_MGR_FSINFO, &req, &rep) != 0)
		return -1;
	rc = client_install_info(fs, &rep);
	pvfs_msg_free(PVFS_MGR_FSINFO, 1, &rep);
	return rc;
}

/* Supplementary groups beyond PVFS_MAX_GROUPS are not sent (the wire
 * holds that many); the common case fits the stack array. */
int
pvfs_client_fs_reload_mgr(struct client_fs *fs)
{
	struct pvfs_tab_entry *tab = NULL;
	char *text, *cause = NULL;
	size_t len;
	int i, n, changed = 0;

	if ((text = pvfs_read_small_file(pvfs_tab_path(), CLIENT_TAB_MAX,
	    &len)) == NULL)
		goto out;
	n = pvfs_tab_parse(text, pvfs_tab_path(), &tab, &cause);
	free(text);
	free(cause);
	for (i = 0; i < n && !changed; i++)
		if (strcmp(tab[i].prefix, fs->tab.prefix) == 0)
			changed = pvfs_conn_pool_set_addr(&fs->mgr, tab[i].host, tab[i].port);
	free(tab);
out:
	errno = ECONNREFUSED;
	return changed;
}

int
pvfs_client_fs_reload_iods(struct client_fs *fs)
{
	struct pvfs_mgr_cred_req req;
	struct pvfs_mgr_fsinfo_rep rep;
	uint32_t i;
	int changed = 0;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	if (pvfs_conn_rpc(fs, PVFS_MGR_FSINFO, &req, &rep) != 0)
		goto out;
	for (i = 0; rep.niods == fs->niods && i < rep.niods; i++)
		changed |= pvfs_conn_pool_set_addr(&fs->iods[i], rep.iods[i].host,
		    rep.iods[i].port);
	pvfs_msg_free(PVFS_MGR_FSINFO, 1, &rep);
out:
	errno = ECONNREFUSED;
	return changed;
}

/* This thread's stand-in identity (pvfs_client_set_ident): a FUSE daemon
 * running as root speaks for the process that made each request. */
static __thread struct pvfs_cred client_ident;
static __thread int client_ident_set;

int
pvfs_client_set_ident(uid_t uid, gid_t gid, const gid_t *groups, int ngroups)
{
	int i;

	if (ngroups < 0 || (ngroups > 0 && groups == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (ngroups > PVFS_MAX_GROUPS)
		ngroups = PVFS_MAX_GROUPS;
	memset(&client_ident, 0, sizeof(client_ident));
	client_ident.uid = (uint32_t)uid;
	client_ident.gid = (uint32_t)gid;
	for (i = 0; i < ngroups; i++)
		client_ident.groups[i] = (uint32_t)groups[i];
	client_ident.ngroups = (uint32_t)ngroups;
	client_ident_set = 1;
	return 0;
}

void
pvfs_client_clear_ident(void)
{
	client_ident_set = 0;
}

int
pvfs_client_ident_is_set(void)
{
	return client_ident_set;
}

void
pvfs_client_cred(struct pvfs_cred *cr)
{
	gid_t small[64], *groups = small;
	int i, n;

	if (client_ident_set) {
		*cr = client_ident;
		return;
	}
	cr->uid = (uint32_t)geteuid();
	cr->gid = (uint32_t)getegid();
	n = getgroups(64, small);
	if (n < 0 && errno == EINVAL && (n = getgroups(0, NULL)) > 0 &&
	    (groups = calloc((size_t)n, sizeof(*groups))) != NULL)
		n = getgroups(n, groups);
	if (n < 0 || groups == NULL)
		n = 0;
	if (n > PVFS_MAX_GROUPS)
		n = PVFS_MAX_GROUPS;
	for (i = 0; i < n; i++)
		cr->groups[i] = (uint32_t)groups[i];
	cr->ngroups = (uint32_t)n;
	if (groups != small)
		free(groups);
}

mode_t
pvfs_client_umask(void)
{
	pthread_once(&client_once, client_init_once);
	return client_mask;
}

dev_t
pvfs_client_fs_dev(const struct client_fs *fs, uint64_t fsid)
{
	uintptr_t a = (uintptr_t)fs, t = (uintptr_t)client_fs_tab;
	uint64_t idx = 0xcbf29ce484222325ull, h;
	const char *p;

	if (a >= t && a < t + (size_t)client_nfs * sizeof(*fs))
		idx = (uint64_t)((a - t) / sizeof(*fs));
	else /* a URL file system: FNV-1a of its address */
		for (p = fs->tab.prefix; *p != '\0'; p++)
			idx = (idx ^ (uint8_t)*p) * 0x100000001b3ull;
	h = fsid ^ idx * 0x9e3779b97f4a7c15ull;

	return (dev_t)((h ^ (h >> 32)) & 0xffffffffu);
}

/* ---- the daemon behind this thread's last failure (pvfs_error_detail) ---- */

/* Per thread, as errno is: "iod N, host:port", or "" when the last
 * failure was no single daemon's. */
static __thread char client_detail[PVFS_HOST_MAX + 48];
static __thread int client_detail_errno;

void
pvfs_client_detail_iod(const struct client_fs *fs, uint32_t i, int err)
{
	const struct conn_pool *p = &fs->iods[i];

	snprintf(client_detail, sizeof(client_detail),
	    strchr(p->host, ':') ? "iod %u, [%s]:%u" : "iod %u, %s:%u", i,
	    p->host, p->port);
	client_detail_errno = err;
}

void
pvfs_client_detail_clear(void)
{
	client_detail[0] = '\0';
	client_detail_errno = 0;
}

int
pvfs_client_detail_err(void)
{
	return client_detail[0] != '\0' ? client_detail_errno : 0;
}

int
pvfs_error_detail_errno(void)
{
	return pvfs_client_detail_err();
}

const char *
pvfs_error_detail(void)
{
	return client_detail[0] != '\0' ? client_detail : NULL;
}
