/*
 * lease.c - the leases that keep an open file's data alive after its
 * last name goes (doc/design.md, "Open-unlinked files").
 *
 * Each open of a regular file takes a lease at the mgr and its last close
 * drops it.  Leases belong to a connection, so each file system has one
 * mgr connection for them (fs->lease_conn), kept out of the pool for as
 * long as the process lives.  The table below is what this process holds:
 * when that connection breaks (a mgr restart) or belongs to a parent
 * (after fork), a new one takes every lease again before it is used, and
 * every request to the mgr checks this first, so a holder comes back
 * within the mgr's grace period if it talks to the mgr at all.  A parent
 * drops the leases it shared with a child at fork with that grace too
 * (hold 2), so the child has the time to take its own.
 *
 * A lease taken for an open that may write says so (PVFS_LEASE_WRITE):
 * while one is held the mgr does not trust its copy of the size
 * (doc/design.md, "Size at the mgr").  So a writer checks its lease
 * connection before its writes (pvfs_lease_check_write): after a mgr
 * restart its leases are back at the mgr within LEASE_WRITE_CHECK_MS of
 * its first write, well inside the grace in which that mgr trusts no
 * size.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define LEASE_WRITE_CHECK_MS 100

struct lease_ent {
	struct client_fs *fs;
	uint64_t ino, gen;
	uint32_t count;
	uint32_t wcount;          /* of which may write */
	int shared;               /* held at a fork: a child holds it too */
};

static pthread_mutex_t lease_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lease_ent *lease_tab;
static size_t lease_n, lease_cap;
static pid_t lease_pid;       /* whose connections fs->lease_conn are */
static uint32_t lease_forks;  /* forks this process is the child of */

void
pvfs_lease_atfork_prepare(void)
{
	pthread_mutex_lock(&lease_lock);
}

void
pvfs_lease_atfork_parent(void)
{
	size_t i;

	for (i = 0; i < lease_n; i++)
		lease_tab[i].shared = 1;
	pthread_mutex_unlock(&lease_lock);
}

/* The child finds the parent's connections at its next call (lease_pid);
 * its first write checks at once. */
void
pvfs_lease_atfork_child(void)
{
	lease_forks++;
	pthread_mutex_unlock(&lease_lock);
}

static struct lease_ent *
lease_find(struct client_fs *fs, uint64_t ino)
{
	size_t i;

	for (i = 0; i < lease_n; i++) {
		if (lease_tab[i].fs == fs && lease_tab[i].ino == ino)
			return &lease_tab[i];
	}
	return NULL;
}

static int
lease_find_fs(const struct client_fs *fs)
{
	size_t i;

	for (i = 0; i < lease_n; i++) {
		if (lease_tab[i].fs == fs)
			return 1;
	}
	return 0;
}

static void
lease_remove(struct lease_ent *e)
{
	*e = lease_tab[--lease_n];
}

/* One LEASE on fs's connection: 0, 1 (the mgr said no: errno), or -1
 * (the connection failed). */
static int
lease_send(struct client_fs *fs, uint64_t ino, uint64_t gen, uint32_t hold,
    uint32_t flags)
{
	struct pvfs_mgr_lease_req req;
	struct pvfs_none rep;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.ino = ino;
	req.gen = gen;
	req.hold = hold;
	req.flags = flags;
	return pvfs_conn_call(fs->lease_conn->fd, PVFS_MGR_LEASE, &req, &rep,
	    fs->timeout_ms);
}

static void
lease_conn_drop(struct client_fs *fs)
{
	if (fs->lease_conn != NULL)
		pvfs_conn_close(fs->lease_conn);
	fs->lease_conn = NULL;
}

/* A working lease connection for fs, holding every lease of the table on
 * fs: a new one after a fork or when the old one is gone.  lease_lock is
 * held.  0 or -1 with errno. */
static int
lease_conn(struct client_fs *fs)
{
	struct lease_ent *e;
	uint32_t k;
	size_t i;
	int rc;

	if (lease_pid != getpid()) {
		/* The parent's sockets: our copies go, the parent's stay. */
		for (i = 0; i < lease_n; i++)
			lease_conn_drop(lease_tab[i].fs);
		lease_pid = getpid();
	}
	if (fs->lease_conn != NULL && pvfs_conn_idle_alive(fs->lease_conn->fd))
		return 0;
	lease_conn_drop(fs);
	/* Not a pooled one: the pool's idle connections may be closed. */
	if (pvfs_conn_new(&fs->mgr, fs->timeout_ms, &fs->lease_conn) != 0 &&
	    (errno != ECONNREFUSED || pvfs_client_fs_reload_mgr(fs) != 1 ||
	    pvfs_conn_new(&fs->mgr, fs->timeout_ms, &fs->lease_conn) != 0)) {
		fs->lease_conn = NULL;
		return -1;
	}
	for (i = 0; i < lease_n; i++) {
		e = &lease_tab[i];
		if (e->fs != fs)
			continue;
		for (k = 0; k < e->count; k++) {
			if ((rc = lease_send(fs, e->ino, e->gen, 1,
			    k < e->wcount ? PVFS_LEASE_WRITE : 0)) < 0) {
				lease_conn_drop(fs);
				return -1;
			}
			if (rc > 0) {
				/* Gone while we were away (past the grace). */
				lease_remove(e);
				i--;
				break;
			}
		}
	}
	return 0;
}

/* Take a lease on (ino, gen) for one open, which may write or not.  0,
 * or -1 with errno (ENOENT or ESTALE: the file went before the lease
 * came). */
int
pvfs_lease_take(struct client_fs *fs, uint64_t ino, uint64_t gen, int write)
{
	struct lease_ent *e;
	int rc = -1, tries;

	pthread_mutex_lock(&lease_lock);
	for (tries = 0; tries < 2 && rc < 0; tries++) {
		if (lease_conn(fs) != 0)
			break;
		if ((rc = lease_send(fs, ino, gen, 1,
		    write ? PVFS_LEASE_WRITE : 0)) < 0)
			lease_conn_drop(fs);
	}
	if (rc == 0) {
		if ((e = lease_find(fs, ino)) == NULL) {
			if (lease_n == lease_cap) {
				size_t cap = lease_cap ? lease_cap * 2 : 16;
				struct lease_ent *t = realloc(lease_tab, cap * sizeof(*t));

				if (t == NULL) {
					(void)lease_send(fs, ino, gen, 0,
					    write ? PVFS_LEASE_WRITE : 0);
					pthread_mutex_unlock(&lease_lock);
					errno = ENOMEM;
					return -1;
				}
				lease_tab = t;
				lease_cap = cap;
			}
			e = &lease_tab[lease_n++];
			memset(e, 0, sizeof(*e));
			e->fs = fs;
			e->ino = ino;
			e->gen = gen;
		}
		e->count++;
		if (write)
			e->wcount++;
	}
	pthread_mutex_unlock(&lease_lock);
	return rc == 0 ? 0 : -1;
}

/* The last close of one open: its lease goes; one that may write says
 * whether it changed nothing (clean).  Nothing to report: a lease the
 * mgr lost with a connection is gone already. */
void
pvfs_lease_drop(struct client_fs *fs, uint64_t ino, int write, int clean)
{
	struct lease_ent *e;
	int shared, saved = errno;

	pthread_mutex_lock(&lease_lock);
	if ((e = lease_find(fs, ino)) != NULL) {
		shared = e->shared;
		write = write && e->wcount > 0;
		e->wcount -= write ? 1 : 0;
		if (--e->count == 0)
			lease_remove(e);
		if (lease_conn(fs) == 0 && lease_send(fs, ino, 0, shared ? 2 : 0,
		    write ? PVFS_LEASE_WRITE | (clean ? PVFS_LEASE_CLEAN : 0) :
		    0) < 0)
			lease_conn_drop(fs);
	}
	pthread_mutex_unlock(&lease_lock);
	errno = saved;
}

/* Before a request to the mgr: if this process holds leases on fs and
 * their connection is gone (a mgr restart, a fork), take them again. */
void
pvfs_lease_check(struct client_fs *fs)
{
	int saved = errno;

	if (__atomic_load_n(&lease_n, __ATOMIC_RELAXED) == 0)
		return;
	pthread_mutex_lock(&lease_lock);
	if (lease_n != 0 && lease_find_fs(fs))
		(void)lease_conn(fs);
	pthread_mutex_unlock(&lease_lock);
	errno = saved;
}

/* Before a write or a truncate: pvfs_lease_check, at most every
 * LEASE_WRITE_CHECK_MS (a peek costs a system call; small writes come
 * by the ten thousand a second), and at once in a new child of a fork. */
void
pvfs_lease_check_write(struct client_fs *fs)
{
	int64_t now = pvfs_mono_ms();
	uint32_t forks = __atomic_load_n(&lease_forks, __ATOMIC_RELAXED);

	if (now - __atomic_load_n(&fs->lease_write_ms, __ATOMIC_RELAXED) <
	    LEASE_WRITE_CHECK_MS &&
	    __atomic_load_n(&fs->lease_write_fork, __ATOMIC_RELAXED) == forks)
		return;
	__atomic_store_n(&fs->lease_write_ms, now, __ATOMIC_RELAXED);
	__atomic_store_n(&fs->lease_write_fork, forks, __ATOMIC_RELAXED);
	pvfs_lease_check(fs);
}
