/*
 * bench-group.c - the client processes of one benchmark: barriers before
 * each phase and the time span each rank spent in it.
 *
 * Forked children share an anonymous mapping with a process-shared robust
 * mutex and condition variable; processes started one per network
 * namespace share a directory instead (all namespaces see the same file
 * system, and CLOCK_MONOTONIC is the same in all of them).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define GROUP_TIMEOUT_NS (3600LL * 1000000000) /* a barrier waits at most this */
#define GROUP_POLL_NS 200000                   /* dir mode: poll interval */

struct group_shm {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int arrived;
	unsigned generation;
	int failed;
	struct bench_span spans[]; /* [nslots][nprocs] */
};

struct bench_group {
	int rank, nprocs, nslots;
	struct group_shm *shm;   /* fork mode */
	size_t shm_len;
	pid_t *pids;
	char *dir;               /* dir mode */
	unsigned barriers;
};

int
bench_group_rank(const struct bench_group *g)
{
	return g->rank;
}

int
bench_group_size(const struct bench_group *g)
{
	return g->nprocs;
}

static int
group_shm_init(struct group_shm *s)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_mutex_init(&s->lock, &ma) != 0 ||
	    pthread_cond_init(&s->cond, &ca) != 0)
		return -1;
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	return 0;
}

struct bench_group *
bench_group_fork(int nprocs, int nslots)
{
	struct bench_group *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	g->nprocs = nprocs;
	g->nslots = nslots;
	g->rank = -1;
	g->shm_len = sizeof(*g->shm) +
	    (size_t)nprocs * (size_t)nslots * sizeof(struct bench_span);
	g->shm = mmap(NULL, g->shm_len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	g->pids = calloc((size_t)nprocs, sizeof(*g->pids));
	if (g->shm == MAP_FAILED || g->pids == NULL ||
	    group_shm_init(g->shm) != 0) {
		if (g->shm != MAP_FAILED)
			munmap(g->shm, g->shm_len);
		free(g->pids);
		free(g);
		return NULL;
	}
	return g;
}

static int
group_lock(struct group_shm *s)
{
	int rc = pthread_mutex_lock(&s->lock);

	if (rc == EOWNERDEAD) {
		s->failed = 1;
		pthread_mutex_consistent(&s->lock);
		rc = 0;
	}
	return rc;
}

static void
group_fail(struct bench_group *g)
{
	if (g->shm != NULL) {
		if (group_lock(g->shm) == 0) {
			g->shm->failed = 1;
			pthread_cond_broadcast(&g->shm->cond);
			pthread_mutex_unlock(&g->shm->lock);
		}
	} else if (g->dir != NULL) {
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/failed", g->dir);
		if ((fd = open(path, O_CREAT | O_WRONLY, 0644)) >= 0)
			close(fd);
	}
}

/* Wait for the children; a child that fails releases the others from
 * their barriers so nothing hangs. */
int
bench_group_spawn(struct bench_group *g, int *status)
{
	int i, st, bad = 0;
	pid_t pid;

	for (i = 0; i < g->nprocs; i++) {
		if ((pid = fork()) < 0) {
			bench_err("fork: %s", strerror(errno));
			group_fail(g);
			bad = 1;
			break;
		}
		if (pid == 0) {
			g->rank = i;
			return i;
		}
		g->pids[i] = pid;
	}
	for (; i > 0; i--) {
		if ((pid = wait(&st)) < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			bad = 1;
			group_fail(g);
		}
	}
	*status = bad ? 1 : 0;
	return -1;
}

static int
group_fork_barrier(struct bench_group *g)
{
	struct group_shm *s = g->shm;
	struct timespec ts;
	unsigned gen;
	int failed;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += GROUP_TIMEOUT_NS / 1000000000;
	if (group_lock(s) != 0)
		return -1;
	gen = s->generation;
	if (++s->arrived == g->nprocs) {
		s->arrived = 0;
		s->generation++;
		pthread_cond_broadcast(&s->cond);
	}
	while (gen == s->generation && !s->failed) {
		int rc = pthread_cond_timedwait(&s->cond, &s->lock, &ts);

		if (rc == EOWNERDEAD) {
			s->failed = 1;
			pthread_mutex_consistent(&s->lock);
		} else if (rc == ETIMEDOUT) {
			s->failed = 1;
		}
	}
	failed = s->failed;
	pthread_mutex_unlock(&s->lock);
	return failed ? -1 : 0;
}

struct bench_group *
bench_group_dir(const char *dir, int rank, int nprocs, int nslots)
{
	struct bench_group *g = calloc(1, sizeof(*g));

	if (g == NULL || (g->dir = strdup(dir)) == NULL) {
		free(g);
		return NULL;
	}
	g->rank = rank;
	g->nprocs = nprocs;
	g->nslots = nslots;
	return g;
}

static int
group_dir_exists(const struct bench_group *g, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", g->dir, name);
	return stat(path, &st) == 0;
}

static int
group_dir_barrier(struct bench_group *g)
{
	struct timespec nap = { 0, GROUP_POLL_NS };
	char path[4096], name[64];
	int64_t deadline = pvfs_mono_ns() + GROUP_TIMEOUT_NS;
	int fd, r;

	snprintf(path, sizeof(path), "%s/b%u.%d", g->dir, g->barriers, g->rank);
	if ((fd = open(path, O_CREAT | O_WRONLY, 0644)) < 0)
		return -1;
	close(fd);
	for (r = 0; r < g->nprocs;) {
		snprintf(name, sizeof(name), "b%u.%d", g->barriers, r);
		if (group_dir_exists(g, name)) {
			r++;
			continue;
		}
		if (group_dir_exists(g, "failed") || pvfs_mono_ns() > deadline)
			return -1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

int
bench_group_barrier(struct bench_group *g)
{
	int rc = g->shm != NULL ? group_fork_barrier(g) : group_dir_barrier(g);

	g->barriers++;
	if (rc != 0)
		group_fail(g);
	return rc;
}

void
bench_group_put(struct bench_group *g, int slot, const struct bench_span *s)
{
	char path[4096], tmp[4200];
	FILE *f;

	if (s->failed)
		group_fail(g);
	if (g->shm != NULL) {
		g->shm->spans[slot * g->nprocs + g->rank] = *s;
		return;
	}
	snprintf(path, sizeof(path), "%s/s%d.%d", g->dir, slot, g->rank);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return;
	fprintf(f, "%lld %lld %llu %d\n", (long long)s->start_ns,
	    (long long)s->end_ns, (unsigned long long)s->bytes, s->failed);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static int
group_dir_read(const struct bench_group *g, int slot, int rank,
    struct bench_span *s)
{
	char path[4096];
	long long a, b;
	unsigned long long n;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/s%d.%d", g->dir, slot, rank);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	ok = fscanf(f, "%lld %lld %llu %d", &a, &b, &n, &s->failed) == 4;
	fclose(f);
	s->start_ns = a;
	s->end_ns = b;
	s->bytes = n;
	return ok ? 0 : -1;
}

int
bench_group_get_rank(struct bench_group *g, int slot, int rank,
    struct bench_span *s)
{
	if (g->shm != NULL) {
		*s = g->shm->spans[slot * g->nprocs + rank];
		return 0;
	}
	return group_dir_read(g, slot, rank, s);
}

int
bench_group_get(struct bench_group *g, int slot, struct bench_span *agg)
{
	struct bench_span s;
	int r;

	memset(agg, 0, sizeof(*agg));
	for (r = 0; r < g->nprocs; r++) {
		if (bench_group_get_rank(g, slot, r, &s) != 0)
			return -1;
		if (s.failed)
			agg->failed = 1;
		if (r == 0 || s.start_ns < agg->start_ns)
			agg->start_ns = s.start_ns;
		if (r == 0 || s.end_ns > agg->end_ns)
			agg->end_ns = s.end_ns;
		agg->bytes += s.bytes;
	}
	return agg->failed ? -1 : 0;
}

void
bench_group_free(struct bench_group *g)
{
	if (g == NULL)
		return;
	if (g->shm != NULL)
		munmap(g->shm, g->shm_len);
	free(g->pids);
	free(g->dir);
	free(g);
}
