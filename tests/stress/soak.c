/*
 * soak.c - 16 client processes run mixed operations (create, write, read,
 * stat, rename, unlink, readdir, truncate) for PVFS_SOAK_SECONDS (15 in
 * make check; tests/stress/soak.sh runs 1800 in make stress), each on its
 * own directory checked against an in-memory model with shadow copies.
 * Every read, stat and listing is checked as it happens and everything
 * once more at the end.  Prints ops/s and errors (must be 0) and the
 * daemons' descriptors and RSS before and after.
 */
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "../integration/cluster.h"
#include "../integration/procinfo.h"

#define NIODS 4
#define NCLIENTS 16
#define NSLOTS 8             /* files per client */
#define FILE_MAX (1u << 20)
#define IO_MAX (128u << 10)

enum { OP_CREATE, OP_WRITE, OP_READ, OP_STAT, OP_RENAME, OP_UNLINK,
	OP_READDIR, OP_TRUNCATE, OP_COUNT };
static const char *op_names[OP_COUNT] = { "create", "write", "read", "stat",
	"rename", "unlink", "readdir", "truncate" };

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static const char *daemons[] = { "mgr", "iod0", "iod1", "iod2", "iod3" };
#define NDAEMONS 5

/* A client's model of its directory: slot s holds file "f<gen>" or none. */
struct soak_client {
	int idx;
	struct rng r;
	unsigned gen[NSLOTS];
	int exists[NSLOTS];
	struct shadow sh[NSLOTS];
	unsigned next_gen;
	unsigned char buf[IO_MAX], back[IO_MAX];
};

struct soak_result {
	int ok;
	int idx;
	uint64_t ops[OP_COUNT];
	char why[256];
};

static int
__attribute__((format(printf, 2, 3)))
soak_fail(struct soak_result *res, const char *fmt, ...)
{
	va_list ap;
	int e = errno;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	n = strlen(res->why);
	snprintf(res->why + n, sizeof(res->why) - n, " (errno %s)",
	    strerror(e));
	return -1;
}

static char *
slot_path(struct soak_client *k, int s, char *p)
{
	snprintf(p, PATH_MAX, "/pvfs/soak/c%d/f%u", k->idx, k->gen[s]);
	return p;
}

static int
op_create(struct soak_client *k, int s, struct soak_result *res)
{
	char p[PATH_MAX];
	int fd;

	/* Over an existing file, an exclusive create must be refused. */
	if (k->exists[s]) {
		errno = 0;
		if (pvfs_open(slot_path(k, s, p), O_CREAT | O_EXCL | O_RDWR,
		    0644) != -1 || errno != EEXIST)
			return soak_fail(res, "exclusive create of %s", p);
		return 0;
	}
	k->gen[s] = k->next_gen++;
	if ((fd = pvfs_open(slot_path(k, s, p), O_CREAT | O_EXCL | O_RDWR,
	    0644)) < 0 || pvfs_close(fd) != 0)
		return soak_fail(res, "create %s", p);
	k->exists[s] = 1;
	shadow_truncate(&k->sh[s], 0);
	return 0;
}

/* Write or read a random range of slot s. */
static int
op_io(struct soak_client *k, int s, int write,
    struct soak_result *res)
{
	uint64_t off = rng_range(&k->r, 0, FILE_MAX - 1);
	size_t n = (size_t)rng_range(&k->r, 1, IO_MAX), want;
	char p[PATH_MAX];
	ssize_t got;
	int fd;

	if (off + n > FILE_MAX)
		n = FILE_MAX - off;
	if ((fd = pvfs_open(slot_path(k, s, p), O_RDWR)) < 0)
		return soak_fail(res, "open %s", p);
	if (write) {
		rng_fill(&k->r, k->buf, n);
		if (pvfs_pwrite(fd, k->buf, n, (off_t)off) != (ssize_t)n)
			return soak_fail(res, "pwrite %s", p);
		shadow_write(&k->sh[s], off, k->buf, n);
	} else {
		want = shadow_expect_len(&k->sh[s], off, n);
		got = pvfs_pread(fd, k->back, n, (off_t)off);
		if (got != (ssize_t)want || memcmp(k->back, k->sh[s].data +
		    off, want) != 0)
			return soak_fail(res, "pread %s at %llu: %zd of %zu",
			    p, (unsigned long long)off, got, want);
	}
	return pvfs_close(fd) == 0 ? 0 : soak_fail(res, "close %s", p);
}

static int
op_stat(struct soak_client *k, int s, struct soak_result *res)
{
	char p[PATH_MAX];
	struct stat st;

	if (pvfs_stat(slot_path(k, s, p), &st) != 0 ||
	    (size_t)st.st_size != k->sh[s].size)
		return soak_fail(res, "stat %s: size %lld want %zu", p,
		    (long long)st.st_size, k->sh[s].size);
	return 0;
}

/* Rename slot s to a fresh name, or over slot t's file when it exists. */
static int
op_rename(struct soak_client *k, int s, int t,
    struct soak_result *res)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct shadow tmp;

	slot_path(k, s, from);
	if (t == s || !k->exists[t]) {
		t = s;
		k->gen[s] = k->next_gen++;
	}
	if (pvfs_rename(from, slot_path(k, t, to)) != 0)
		return soak_fail(res, "rename %s %s", from, to);
	if (t != s) {
		tmp = k->sh[t];
		k->sh[t] = k->sh[s];
		k->sh[s] = tmp;
		k->exists[s] = 0;
	}
	return 0;
}

static int
op_unlink(struct soak_client *k, int s, struct soak_result *res)
{
	char p[PATH_MAX];

	if (pvfs_unlink(slot_path(k, s, p)) != 0)
		return soak_fail(res, "unlink %s", p);
	k->exists[s] = 0;
	return 0;
}

static int
op_truncate(struct soak_client *k, int s, struct soak_result *res)
{
	uint64_t len = rng_range(&k->r, 0, FILE_MAX);
	char p[PATH_MAX];

	if (pvfs_truncate(slot_path(k, s, p), (off_t)len) != 0)
		return soak_fail(res, "truncate %s to %llu", p,
		    (unsigned long long)len);
	shadow_truncate(&k->sh[s], len);
	return 0;
}

/* The listing must be exactly the model's names. */
static int
op_readdir(struct soak_client *k, struct soak_result *res)
{
	char dir[64], name[32];
	int seen[NSLOTS] = { 0 }, n = 0, want = 0, s;
	struct dirent *e;
	PVFS_DIR *d;

	snprintf(dir, sizeof(dir), "/pvfs/soak/c%d", k->idx);
	if ((d = pvfs_opendir(dir)) == NULL)
		return soak_fail(res, "opendir %s", dir);
	while ((e = pvfs_readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		for (s = 0; s < NSLOTS; s++) {
			snprintf(name, sizeof(name), "f%u", k->gen[s]);
			if (k->exists[s] && strcmp(name, e->d_name) == 0)
				seen[s]++;
		}
	}
	pvfs_closedir(d);
	for (s = 0; s < NSLOTS; s++) {
		want += k->exists[s];
		if (seen[s] != k->exists[s]) {
			errno = 0;
			return soak_fail(res, "readdir %s: slot %d seen %d",
			    dir, s, seen[s]);
		}
	}
	errno = 0;
	return n == want ? 0 : soak_fail(res, "readdir %s: %d names, want %d",
	    dir, n, want);
}

static int
soak_step(struct soak_client *k, struct soak_result *res)
{
	int s = (int)rng_range(&k->r, 0, NSLOTS - 1), op, rc;

	op = (int)rng_range(&k->r, 0, OP_COUNT - 1);
	/* Unlink less often than create, so files grow old. */
	if (op == OP_UNLINK && rng_range(&k->r, 0, 3) != 0)
		op = OP_WRITE;
	if (!k->exists[s] && op != OP_READDIR)
		op = OP_CREATE;
	switch (op) {
	case OP_CREATE: rc = op_create(k, s, res); break;
	case OP_WRITE: rc = op_io(k, s, 1, res); break;
	case OP_READ: rc = op_io(k, s, 0, res); break;
	case OP_STAT: rc = op_stat(k, s, res); break;
	case OP_RENAME:
		rc = op_rename(k, s, (int)rng_range(&k->r, 0, NSLOTS - 1), res);
		break;
	case OP_UNLINK: rc = op_unlink(k, s, res); break;
	case OP_READDIR: rc = op_readdir(k, res); break;
	default: rc = op_truncate(k, s, res); break;
	}
	res->ops[op]++;
	return rc;
}

/* The end: every file whole, the listing exact. */
static int
soak_verify(struct soak_client *k, struct soak_result *res)
{
	char p[PATH_MAX], why[256];
	int fd;

	for (int s = 0; s < NSLOTS; s++) {
		if (!k->exists[s])
			continue;
		if ((fd = pvfs_open(slot_path(k, s, p), O_RDONLY)) < 0)
			return soak_fail(res, "final open %s", p);
		if (shadow_check_fd(&k->sh[s], fd, why, sizeof(why)) != 0) {
			errno = 0;
			return soak_fail(res, "final %s: %s", p, why);
		}
		pvfs_close(fd);
	}
	return op_readdir(k, res);
}

static int
soak_client_run(int idx, double secs, struct soak_result *res)
{
	static struct soak_client k;
	char dir[64];
	double t0 = mono_now();

	memset(&k, 0, sizeof(k));
	k.idx = idx;
	k.r.seed = seed;
	k.r.state = seed + (uint64_t)(idx + 1) * 0x9e3779b97f4a7c15ull;
	for (int s = 0; s < NSLOTS; s++)
		shadow_init(&k.sh[s]);
	snprintf(dir, sizeof(dir), "/pvfs/soak/c%d", idx);
	if (pvfs_mkdir(dir, 0755) != 0)
		return soak_fail(res, "mkdir %s", dir);
	while (mono_now() - t0 < secs)
		if (soak_step(&k, res) != 0)
			return -1;
	return soak_verify(&k, res);
}

static void
measure(int *fds, long *rss)
{
	for (int i = 0; i < NDAEMONS; i++) {
		pid_t pid = proc_daemon_pid(&c, daemons[i]);

		fds[i] = proc_fd_count(pid);
		rss[i] = proc_rss_kb(pid);
	}
}

static void
test_soak(void **state)
{
	const char *env = getenv("PVFS_SOAK_SECONDS");
	double secs = env != NULL ? atof(env) : 15, t0, dt;
	int pfd[2], fds0[NDAEMONS], fds1[NDAEMONS], status, errors = 0;
	long rss0[NDAEMONS], rss1[NDAEMONS];
	uint64_t ops[OP_COUNT] = { 0 }, total = 0;
	struct soak_result res;
	pid_t pid;

	check_ok(pvfs_mkdir("/pvfs/soak", 0755));
	measure(fds0, rss0);
	assert_int_equal(pipe(pfd), 0);
	t0 = mono_now();
	for (int i = 0; i < NCLIENTS; i++) {
		assert_true((pid = fork()) >= 0);
		if (pid != 0)
			continue;
		memset(&res, 0, sizeof(res));
		res.idx = i;
		res.ok = soak_client_run(i, secs, &res) == 0;
		_exit(write(pfd[1], &res, sizeof(res)) == sizeof(res) ? 0 : 2);
	}
	close(pfd[1]);
	for (int i = 0; i < NCLIENTS; i++) {
		if (read(pfd[0], &res, sizeof(res)) != sizeof(res))
			fail_msg("a soak client died without a report");
		if (!res.ok && errors++ < 10)
			print_message("client %d: %s\n", res.idx, res.why);
		for (int op = 0; op < OP_COUNT; op++)
			ops[op] += res.ops[op];
	}
	dt = mono_now() - t0;
	while (wait(&status) > 0)
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(pfd[0]);
	for (int op = 0; op < OP_COUNT; op++) {
		total += ops[op];
		print_message("figure soak: %-8s %llu\n", op_names[op],
		    (unsigned long long)ops[op]);
	}
	print_message("figure soak: %d clients, %.0f s, %llu ops, %.0f ops/s, "
	    "%d errors\n", NCLIENTS, dt, (unsigned long long)total,
	    (double)total / dt, errors);
	sleep(1);
	measure(fds1, rss1);
	for (int i = 0; i < NDAEMONS; i++)
		print_message("figure soak: %s fds %d -> %d, RSS %ld -> %ld "
		    "KiB\n", daemons[i], fds0[i], fds1[i], rss0[i], rss1[i]);
	assert_int_equal(errors, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soak),
	};
	rng_init(&rng, "soak");
	seed = rng_next(&rng);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
