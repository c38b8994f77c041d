/*
 * cache.c - this process's cache of STAT answers, kept coherent by the
 * mgr's promises (doc/design.md, "Client caching").
 *
 * Each file system gets, at its first STAT, a CALLBACK connection of its
 * own and a small thread that registers it (a token) and then waits on it
 * for invalidations.  A STAT carries the token; when the reply grants a
 * term, the answer is kept under (path, flags, cred) until the term ends
 * (counted from before the request left, less a tenth for safety), and a
 * repeated STAT is answered from memory.  An invalidation, a broken
 * CALLBACK connection or a fork forgets every answer of the file system
 * before anything else happens: the thread acknowledges an invalidation
 * only after it forgot, and the mgr answers the change that caused it
 * only after that acknowledgement (or after the term).  An answer whose
 * request was in flight while anything was forgotten (the epoch moved) is
 * not kept, so a reply that raced an invalidation cannot outlive it.
 *
 * What is cached is the mgr's answer; a regular file's size still comes
 * from the iods (pvfs_meta_stat_reply) unless the answer says the mgr's
 * size is exact.  $PVFS_CACHE=0 or the pvfstab option cache=off turn
 * the cache off (it is on by default); so does a mgr that grants no term
 * ($PVFS_MGR_CACHE_TERM=0).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define CACHE_BUCKETS 4096u
#define CACHE_MAX 16384u                 /* answers kept, all file systems */
#define CACHE_WAIT_MS (24 * 3600 * 1000) /* a CALLBACK may wait this long */
#define CACHE_RETRY_S 1                  /* after a failed connection */
#define CACHE_REFUSED_S 60               /* after a mgr said no */

struct cache_ent {
	struct cache_ent *next;
	struct client_fs *fs;
	uint32_t hash, flags;
	int64_t expiry_ns;
	struct pvfs_cred cred;
	struct pvfs_mgr_attrcap_rep rep;
	char path[];
};

/* One file system's promises: its token while the thread holds one. */
struct pvfs_cache_fs {
	uint64_t token;
	uint64_t epoch;              /* moves whenever answers are forgotten */
	pid_t pid;                   /* whose thread this is */
	int started;
	struct pvfs_conn *conn;      /* the CALLBACK connection */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cache_ent *cache_tab[CACHE_BUCKETS];
static size_t cache_n;
static int cache_off = -1;       /* -1: not read yet */

void
pvfs_cache_atfork_prepare(void)
{
	pthread_mutex_lock(&cache_lock);
}

void
pvfs_cache_atfork_parent(void)
{
	pthread_mutex_unlock(&cache_lock);
}

/* The child has no CALLBACK thread: its first use finds the pid changed. */
void
pvfs_cache_atfork_child(void)
{
	pthread_mutex_unlock(&cache_lock);
}

static int
cache_disabled(void)
{
	const char *s;

	if (cache_off < 0) {
		s = getenv("PVFS_CACHE");
		cache_off = s != NULL && strcmp(s, "0") == 0;
	}
	return cache_off;
}

static uint32_t
cache_hash(const struct client_fs *fs, const char *path, uint32_t flags,
    uint32_t uid)
{
	uint32_t h = 2166136261u ^ flags ^ (uid * 16777619u);

	h ^= (uint32_t)(uintptr_t)fs;
	while (*path != '\0')
		h = (h ^ (uint8_t)*path++) * 16777619u;
	return h;
}

static int
cache_cred_eq(const struct pvfs_cred *a, const struct pvfs_cred *b)
{
	return a->uid == b->uid && a->gid == b->gid && a->ngroups == b->ngroups &&
	    memcmp(a->groups, b->groups, a->ngroups * sizeof(a->groups[0])) == 0;
}

/* Forget fs's answers (all, fs NULL).  cache_lock is held. */
static void
cache_forget(const struct client_fs *fs)
{
	struct cache_ent **pp, *e;
	size_t i;

	for (i = 0; i < CACHE_BUCKETS && cache_n != 0; i++) {
		for (pp = &cache_tab[i]; (e = *pp) != NULL;) {
			if (fs == NULL || e->fs == fs) {
				*pp = e->next;
				free(e);
				cache_n--;
			} else
				pp = &e->next;
		}
	}
}

/* A CALLBACK on c: 0, 1 (the mgr refused: errno) or -1 (the connection
 * failed). */
static int
cache_call(struct pvfs_conn *c, uint64_t token, uint64_t ack, int timeout,
    struct pvfs_mgr_callback_rep *rep)
{
	struct pvfs_mgr_callback_req req;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.token = token;
	req.ack = ack;
	return pvfs_conn_call(c->fd, PVFS_MGR_CALLBACK, &req, rep, timeout);
}

/* The thread: register, then forget and acknowledge each invalidation.
 * A failure forgets too, and starts again on a new connection. */
static void *
cache_thread(void *arg)
{
	struct client_fs *fs = arg;
	struct pvfs_cache_fs *cf = fs->cache;
	struct pvfs_mgr_callback_rep rep;
	struct pvfs_conn *c;
	uint64_t ack;
	sigset_t all;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		if (pvfs_conn_new(&fs->mgr, fs->timeout_ms, &c) != 0) {
			sleep(CACHE_RETRY_S);
			continue;
		}
		memset(&rep, 0, sizeof(rep));
		if ((rc = cache_call(c, 0, 0, fs->timeout_ms, &rep)) != 0 ||
		    rep.token == 0 || rep.term_ms == 0) {
			/* A mgr that refuses (an older one, --anonymous
			 * refuse) or grants no promises is asked again later. */
			pvfs_conn_close(c);
			sleep(rc < 0 ? CACHE_RETRY_S : CACHE_REFUSED_S);
			continue;
		}
		pthread_mutex_lock(&cache_lock);
		cf->conn = c;
		cf->token = rep.token;
		pthread_mutex_unlock(&cache_lock);
		for (ack = 0; cache_call(c, cf->token, ack, CACHE_WAIT_MS,
		    &rep) == 0; ack = rep.seq) {
			pthread_mutex_lock(&cache_lock);
			cache_forget(fs);
			cf->epoch++;
			pthread_mutex_unlock(&cache_lock);
		}
		pthread_mutex_lock(&cache_lock);
		cache_forget(fs);
		cf->epoch++;
		cf->token = 0;
		cf->conn = NULL;
		pthread_mutex_unlock(&cache_lock);
		pvfs_conn_close(c);
	}
	return NULL;
}

/* fs's promise state, its thread started for this process.  cache_lock
 * is held.  NULL when there is none (off, or out of memory). */
static struct pvfs_cache_fs *
cache_fs(struct client_fs *fs)
{
	struct pvfs_cache_fs *cf = fs->cache;
	pthread_attr_t at;
	pthread_t t;
	pid_t pid = getpid();

	if (cf == NULL) {
		if ((cf = calloc(1, sizeof(*cf))) == NULL)
			return NULL;
		fs->cache = cf;
	}
	if (cf->started && cf->pid == pid)
		return cf;
	if (cf->started) {
		/* A forked child: the parent's promises are not ours. */
		cache_forget(fs);
		if (cf->conn != NULL)
			pvfs_conn_close(cf->conn); /* our copy of the socket */
		cf->conn = NULL;
		cf->token = 0;
		cf->epoch++;
	}
	cf->pid = pid;
	cf->started = 1;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, cache_thread, fs) != 0)
		cf->started = 0;
	pthread_attr_destroy(&at);
	return cf;
}

static struct cache_ent *
cache_find(const struct client_fs *fs, const struct pvfs_mgr_path_req *q,
    uint32_t h)
{
	struct cache_ent *e;

	for (e = cache_tab[h & (CACHE_BUCKETS - 1)]; e != NULL; e = e->next) {
		if (e->hash == h && e->fs == fs && e->flags == q->flags &&
		    cache_cred_eq(&e->cred, &q->cred) &&
		    strcmp(e->path, q->path) == 0)
			return e;
	}
	return NULL;
}

/* A STAT about to be sent (cred filled): 0 with the cached answer in
 * rep, or -1 with t set for pvfs_cache_stat_put and the request's token
 * set to ask for a promise. */
int
pvfs_cache_stat_get(struct client_fs *fs, struct pvfs_mgr_path_req *q,
    struct pvfs_mgr_attrcap_rep *rep, struct pvfs_cache_ticket *t)
{
	struct pvfs_cache_fs *cf;
	struct cache_ent *e;
	int64_t now = pvfs_mono_ns();

	q->cb_token = 0;
	t->token = 0;
	if (cache_disabled() || fs->tab.nocache)
		return -1;
	t->hash = cache_hash(fs, q->path, q->flags, q->cred.uid);
	pthread_mutex_lock(&cache_lock);
	if ((cf = cache_fs(fs)) == NULL) {
		pthread_mutex_unlock(&cache_lock);
		return -1;
	}
	if ((e = cache_find(fs, q, t->hash)) != NULL) {
		if (now < e->expiry_ns) {
			*rep = e->rep;
			pthread_mutex_unlock(&cache_lock);
			return 0;
		}
	}
	t->token = q->cb_token = cf->token;
	t->epoch = cf->epoch;
	t->sent_ns = now;
	pthread_mutex_unlock(&cache_lock);
	return -1;
}

/* The STAT of pvfs_cache_stat_get came back with rep: keep it if the
 * mgr promised and nothing was forgotten meanwhile. */
void
pvfs_cache_stat_put(struct client_fs *fs, const struct pvfs_mgr_path_req *q,
    const struct pvfs_mgr_attrcap_rep *rep, const struct pvfs_cache_ticket *t)
{
	struct pvfs_cache_fs *cf;
	struct cache_ent *e, **pp;
	size_t len;

	if (t->token == 0 || rep->cache_ms == 0)
		return;
	len = strlen(q->path);
	pthread_mutex_lock(&cache_lock);
	cf = fs->cache;
	if (cf == NULL || cf->token != t->token || cf->epoch != t->epoch ||
	    cf->pid != getpid())
		goto out;
	if ((e = cache_find(fs, q, t->hash)) == NULL) {
		if (cache_n >= CACHE_MAX)
			cache_forget(NULL); /* crude, and rare: start again */
		if ((e = malloc(sizeof(*e) + len + 1)) == NULL)
			goto out;
		e->fs = fs;
		e->hash = t->hash;
		e->flags = q->flags;
		e->cred = q->cred;
		memcpy(e->path, q->path, len + 1);
		pp = &cache_tab[t->hash & (CACHE_BUCKETS - 1)];
		e->next = *pp;
		*pp = e;
		cache_n++;
	}
	e->rep = *rep;
	e->expiry_ns = t->sent_ns + (int64_t)rep->cache_ms * 900000;
out:
	pthread_mutex_unlock(&cache_lock);
}
