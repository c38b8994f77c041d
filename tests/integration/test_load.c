/*
 * test_load.c - many concurrent clients, each a process with its own
 * connection to the mgr and to every iod, all connected at once and then
 * doing verified work: random writes and reads of a private file checked
 * against a shadow copy, stats, creates and unlinks.  Proves no errors,
 * fair service (the spread of per-client throughput is printed and the
 * slowest client must get a fair fraction of the median) and bounded
 * daemon memory (RSS printed at rest, at peak and after).
 *
 * PVFS_LOAD_CLIENTS (200) and PVFS_LOAD_SECONDS (5) size it; make stress
 * runs 1000 clients (tests/stress/load-1000.sh).
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
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
#include "cluster.h"
#include "procinfo.h"

#define NIODS 3
#define NDAEMONS (NIODS + 1)
#define FILE_SZ (256u << 10)
#define SSIZE 16384         /* FILE_SZ touches every iod */
#define CHUNK_MAX (64u << 10)
#define READY_WAIT 300.0    /* seconds for every client to connect */
#define FAIR_MIN 0.10       /* slowest client vs the median */
#define MEM_PER_CONN_KB 64  /* daemon RSS growth allowed per connection */

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static const char *daemons[NDAEMONS] = { "mgr", "iod0", "iod1", "iod2" };

/* What a client reports; fits in PIPE_BUF, so writes never interleave. */
struct result {
	int ok;
	int idx;
	uint64_t ops, bytes;
	double secs;
	char why[200];
};

static long
env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s != NULL && *s != '\0' ? atol(s) : def;
}

/* Fill r->why and return -1. */
static int
__attribute__((format(printf, 2, 3)))
client_fail(struct result *r, const char *fmt, ...)
{
	va_list ap;
	int e = errno;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	n = strlen(r->why);
	snprintf(r->why + n, sizeof(r->why) - n, ": %s", strerror(e));
	return -1;
}

/* One round: a random write, its read-back against the shadow, and now
 * and then a stat and a create/unlink (metadata work for the mgr). */
static int
client_round(int fd, int idx, struct rng *r, struct shadow *sh,
    unsigned char *buf, unsigned char *back, struct result *res)
{
	uint64_t off = rng_range(r, 0, FILE_SZ - 1), n;
	char scratch[64];
	struct stat st;
	size_t want;
	int f;

	n = rng_range(r, 1, CHUNK_MAX);
	if (off + n > FILE_SZ)
		n = FILE_SZ - off;
	rng_fill(r, buf, n);
	if (pvfs_pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
		return client_fail(res, "pwrite %llu at %llu",
		    (unsigned long long)n, (unsigned long long)off);
	shadow_write(sh, off, buf, n);
	off = rng_range(r, 0, FILE_SZ - 1);
	want = shadow_expect_len(sh, off, CHUNK_MAX);
	if (pvfs_pread(fd, back, CHUNK_MAX, (off_t)off) != (ssize_t)want)
		return client_fail(res, "pread at %llu",
		    (unsigned long long)off);
	if (memcmp(back, sh->data + off, want) != 0)
		return client_fail(res, "wrong bytes at %llu",
		    (unsigned long long)off);
	res->ops += 2;
	res->bytes += n + want;
	if (res->ops % 16 != 0)
		return 0;
	if (pvfs_fstat(fd, &st) != 0 || (size_t)st.st_size != sh->size)
		return client_fail(res, "fstat size %lld want %zu",
		    (long long)st.st_size, sh->size);
	snprintf(scratch, sizeof(scratch), "/pvfs/load/s%d", idx);
	if ((f = pvfs_open(scratch, O_CREAT | O_EXCL | O_RDWR, 0600)) < 0 ||
	    pvfs_close(f) != 0 || pvfs_unlink(scratch) != 0)
		return client_fail(res, "create/unlink %s", scratch);
	res->ops += 4;
	return 0;
}

/* Connect (create the file: mgr and every iod), report ready, wait for
 * the start, work until the deadline, verify the whole file. */
static int
client_run(int idx, int ready_w, int go_r, double secs,
    struct result *res)
{
	struct pvfs_filestat fs = { 0, NIODS, SSIZE, 0, 0 };
	static unsigned char buf[CHUNK_MAX], back[CHUNK_MAX];
	struct shadow sh;
	struct rng r = { seed + (uint64_t)idx * 0x9e3779b97f4a7c15ull, seed };
	char path[64], why[256], b = 1;
	double t0;
	int fd;

	shadow_init(&sh);
	snprintf(path, sizeof(path), "/pvfs/load/c%d", idx);
	if ((fd = pvfs_open(path, O_CREAT | O_RDWR | PVFS_O_META, 0644,
	    &fs)) < 0)
		return client_fail(res, "open %s", path);
	rng_fill(&r, buf, CHUNK_MAX);
	for (uint64_t off = 0; off < FILE_SZ; off += CHUNK_MAX) {
		if (pvfs_pwrite(fd, buf, CHUNK_MAX, (off_t)off) != CHUNK_MAX)
			return client_fail(res, "initial write");
		shadow_write(&sh, off, buf, CHUNK_MAX);
	}
	if (write(ready_w, &b, 1) != 1 || read(go_r, &b, 1) != 0)
		return client_fail(res, "start barrier");
	t0 = mono_now();
	while (mono_now() - t0 < secs)
		if (client_round(fd, idx, &r, &sh, buf, back, res) != 0)
			return -1;
	res->secs = mono_now() - t0;
	if (shadow_check_fd(&sh, fd, why, sizeof(why)) != 0) {
		errno = 0;
		return client_fail(res, "final check: %s", why);
	}
	pvfs_close(fd);
	shadow_free(&sh);
	return 0;
}

static pid_t
client_spawn(int idx, int ready_w, int go_r, int go_w,
    int res_w, double secs)
{
	struct result res;
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	close(go_w);
	memset(&res, 0, sizeof(res));
	res.idx = idx;
	res.ok = client_run(idx, ready_w, go_r, secs, &res) == 0;
	if (write(res_w, &res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(2);
	_exit(0);
}

static void
sample_rss(long *peak)
{
	for (int i = 0; i < NDAEMONS; i++) {
		long kb = proc_rss_kb(proc_daemon_pid(&c, daemons[i]));

		if (kb > peak[i])
			peak[i] = kb;
	}
}

/* Wait for n bytes on fd, sampling daemon memory meanwhile. */
static void
wait_ready(int fd, long n, long *peak)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char b[256];
	double t0 = mono_now();
	ssize_t got;

	while (n > 0) {
		if (mono_now() - t0 > READY_WAIT)
			fail_msg("%ld clients not ready after %.0f s", n,
			    READY_WAIT);
		if (poll(&p, 1, 200) > 0) {
			got = read(fd, b, n < (long)sizeof(b) ? (size_t)n :
			    sizeof(b));
			if (got <= 0)
				fail_msg("%ld clients died before ready", n);
			n -= got;
		}
		sample_rss(peak);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Read every result; fail on any client error; print the spread. */
static void
collect(int fd, long n, long *peak)
{
	struct result res;
	double *tput = calloc((size_t)n, sizeof(double)), med;
	uint64_t ops = 0, bytes = 0;
	long got = 0, bad = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	assert_non_null(tput);
	while (got < n) {
		if (poll(&p, 1, 200) > 0) {
			assert_int_equal(read(fd, &res, sizeof(res)),
			    sizeof(res));
			if (!res.ok && bad++ < 10)
				print_message("client %d: %s\n", res.idx,
				    res.why);
			tput[got++] = res.secs > 0 ? res.bytes / res.secs : 0;
			ops += res.ops;
			bytes += res.bytes;
		}
		sample_rss(peak);
	}
	qsort(tput, (size_t)n, sizeof(double), cmp_double);
	med = tput[n / 2];
	print_message("figure load: %ld clients, %llu ops, %.1f MiB verified, "
	    "%ld errors\n", n, (unsigned long long)ops, bytes / 1048576.0,
	    bad);
	print_message("figure load: per-client KiB/s min %.0f p10 %.0f "
	    "median %.0f p90 %.0f max %.0f (min/median %.2f)\n",
	    tput[0] / 1024, tput[n / 10] / 1024, med / 1024,
	    tput[n - 1 - n / 10] / 1024, tput[n - 1] / 1024,
	    med > 0 ? tput[0] / med : 0);
	assert_int_equal(bad, 0);
	assert_true(tput[0] > 0 && tput[0] >= FAIR_MIN * med);
	free(tput);
}

static void
test_many_clients(void **state)
{
	long n = env_long("PVFS_LOAD_CLIENTS", 200);
	double secs = (double)env_long("PVFS_LOAD_SECONDS", 5);
	int ready[2], go[2], res[2], status, fds[NDAEMONS];
	long base[NDAEMONS], peak[NDAEMONS] = { 0 }, after;
	pid_t pid;

	check_ok(pvfs_mkdir("/pvfs/load", 0777));
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(res), 0);
	for (int i = 0; i < NDAEMONS; i++) {
		pid = proc_daemon_pid(&c, daemons[i]);
		base[i] = proc_rss_kb(pid);
		fds[i] = proc_fd_count(pid);
	}
	for (long i = 0; i < n; i++)
		assert_true(client_spawn((int)i, ready[1], go[0], go[1], res[1],
		    secs) > 0);
	close(ready[1]);
	close(res[1]);
	close(go[0]);
	wait_ready(ready[0], n, peak);
	/* Every client holds its connections now: count them. */
	for (int i = 0; i < NDAEMONS; i++) {
		int now = proc_fd_count(proc_daemon_pid(&c, daemons[i]));

		print_message("figure load: %s holds %d descriptors (%d at "
		    "rest)\n", daemons[i], now, fds[i]);
		assert_true(now - fds[i] >= n);
	}
	close(go[1]);
	collect(res[0], n, peak);
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("client %ld ended with status %d", (long)pid,
			    status);
	sleep(1);
	for (int i = 0; i < NDAEMONS; i++) {
		after = proc_rss_kb(proc_daemon_pid(&c, daemons[i]));
		print_message("figure load: %s RSS %ld KiB at rest, %ld at "
		    "peak, %ld after\n", daemons[i], base[i], peak[i], after);
		assert_true(peak[i] - base[i] <= n * MEM_PER_CONN_KB + 16384);
	}
	close(ready[0]);
	close(res[0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_clients),
	};
	struct rlimit rl;

	/* Our own descriptors (pipes) are few, but the daemons inherit the
	 * limit and each needs one per client: take the hard limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* A load test, not a timeout test: 1000 clients on 2 cores queue. */
	setenv("PVFS_TIMEOUT", "60", 1);
	/* The daemons must not close an early client's idle connection while
	 * the last ones are still connecting (READY_WAIT). */
	setenv("PVFS_IDLE_TIMEOUT", "900", 1);
	rng_init(&rng, "test_load");
	seed = rng_next(&rng);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
