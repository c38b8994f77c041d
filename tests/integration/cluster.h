/*
 * cluster.h - harness for integration tests: a whole file system (one mgr,
 * N iods) started with pvfs-local in a private temp dir, plus helpers to
 * check bytes (a deterministic PRNG, a shadow model, a position pattern).
 *
 * Usage in a cmocka test program:
 *   static struct cluster c;
 *   int main(void) {
 *           const struct CMUnitTest tests[] = { ... };
 *           return cluster_run_tests(&c, 4, NULL, tests);
 *   }
 * or, with fixtures of its own:
 *   static int setup(void **s) { return cluster_start(&c, 4); }
 *   static int teardown(void **s) { return cluster_stop(&c); }
 *   int main(void) {
 *           int rc = cmocka_run_group_tests(tests, setup, teardown);
 *           return cluster_finish(&c, rc);
 *   }
 * cluster_finish removes the temp dir when every test passed; otherwise it
 * keeps it, prints the daemons' log tails and the PRNG seeds used.  Daemons
 * are also stopped from an atexit handler and on SIGTERM/SIGINT (the time
 * limit of run-test.sh), so none outlives the test.
 */
#ifndef PVFS_TEST_CLUSTER_H
#define PVFS_TEST_CLUSTER_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

struct cluster {
	char dir[1024];       /* the temp dir given to pvfs-local */
	char tool[PATH_MAX];  /* path of pvfs-local */
	char tab[PATH_MAX];   /* DIR/pvfstab */
	int niods;
	int running;          /* 1 between a successful start and stop */
	pid_t owner;          /* process that started it (children never stop it) */
	/* Extra options for "pvfs-local start" (NULL-terminated), or NULL;
	 * cluster_start clears it, later (re)starts use it. */
	const char *const *start_args;
};

/* Make a temp dir, start N iods and a mgr, set PVFSTAB_FILE.  0 or -1.
 * With PVFS_TEST_TCP=1 every start leaves the iods reachable by TCP only
 * (their Unix sockets unlinked), as from another host. */
int cluster_start(struct cluster *c, int niods);
/* Stop every daemon (data stays).  0 or -1. */
int cluster_stop(struct cluster *c);
/* Stop then start on the same dir.  0 or -1. */
int cluster_restart(struct cluster *c);
/* Start only the daemons that are not running.  0 or -1. */
int cluster_start_again(struct cluster *c);
/* Send sig to "mgr" or "iodK"; for SIGKILL wait until it is gone.  0 or -1. */
int cluster_kill(struct cluster *c, const char *daemon, int sig);
/* Port a daemon listens on (from DIR/run/NAME.port), or -1. */
int cluster_port(struct cluster *c, const char *daemon);
/* "/pvfs/<rel>" ("/pvfs" for "") into buf (PATH_MAX bytes); returns buf. */
char *cluster_path(struct cluster *c, const char *rel, char *buf);
/* pvfs_open of "/pvfs/<rel>" with O_CREAT | O_RDWR | flags, mode 0644 and
 * the distribution (base, pcount, ssize; -1 asks for the default). */
int cluster_create(struct cluster *c, const char *rel, int flags, int base,
    int pcount, int ssize);
/* Path of iod k's stripe file of (ino, gen) into buf: DIR/iodK/XX/INO for
 * gen 0, DIR/iodK/XX/INO.<gen in 16 hex digits> otherwise.  Returns buf. */
char *cluster_stripe_name(struct cluster *c, int k, uint64_t ino,
    uint64_t gen, char *buf);
/* Path of the stripe file iod k holds for inode ino, whatever its gen
 * (the first found), or the gen 0 name if it holds none.  Returns buf. */
char *cluster_stripe_file(struct cluster *c, int k, uint64_t ino, char *buf);
/* 1 if iod k holds a stripe file for ino, of any gen (upper- or lower-case
 * XX), else 0. */
int cluster_stripe_exists(struct cluster *c, int k, uint64_t ino);
/* Wait until no iod holds a stripe file for ino (the mgr frees a file's
 * stripes from its loop, soon after its last name goes): 0, or -1 if
 * some remain after limit_ms. */
int cluster_stripes_gone(struct cluster *c, uint64_t ino, int limit_ms);
/* The daemon's log (DIR/run/NAME.log) open for reading, or NULL. */
FILE *cluster_log(struct cluster *c, const char *daemon);
/* Print the tail of every daemon log to stderr. */
void cluster_show_logs(struct cluster *c);
/* After the tests: rc != 0 keeps the dir and prints logs and seeds; rc == 0
 * removes the dir.  Returns rc. */
int cluster_finish(struct cluster *c, int rc);

/* Run the cmocka group tests on c: start it with niods iods, then call
 * ready (if not NULL: what the tests need of the running file system, 0 or
 * -1), run the tests, stop it; cluster_finish.  Returns main's status. */
#define cluster_run_tests(c, niods, ready, tests)                              \
	cluster_run_group((c), (niods), (ready), #tests, (tests),              \
	    sizeof(tests) / sizeof((tests)[0]))
struct CMUnitTest;
int cluster_run_group(struct cluster *c, int niods, int (*ready)(void),
    const char *name, const struct CMUnitTest *tests, size_t ntests);

/* A deterministic PRNG (splitmix64).  The seed comes from
 * $PVFS_TEST_SEED when set, else from the clock; it is printed at once and
 * again by cluster_finish on failure, so a failing run can be replayed. */
struct rng {
	uint64_t state;
	uint64_t seed;
};
void rng_init(struct rng *r, const char *what);
uint64_t rng_next(struct rng *r);
/* Uniform in [lo, hi] (inclusive). */
uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi);
void rng_fill(struct rng *r, void *buf, size_t n);

/* A file's expected content: a malloc'd buffer that grows like a file. */
struct shadow {
	unsigned char *data;
	size_t size, cap;
};
void shadow_init(struct shadow *s);
void shadow_free(struct shadow *s);
void shadow_write(struct shadow *s, uint64_t off, const void *buf, size_t n);
void shadow_truncate(struct shadow *s, uint64_t len);
/* Bytes a read of n at off must return, given the shadow's size. */
size_t shadow_expect_len(const struct shadow *s, uint64_t off, size_t n);
/* Compare the whole file behind pvfs fd (size by pvfs_fstat, bytes by
 * pvfs_pread) with the shadow.  0, or -1 with a message in why. */
int shadow_check_fd(const struct shadow *s, int fd, char *why, size_t whylen);
/* The same, failing the test with what and the difference. */
void shadow_assert_fd(const struct shadow *s, int fd, const char *what);

/* A byte pattern that depends on (seed, file offset) only, for files too
 * large for a shadow or checked after a restart. */
void pattern_fill(void *buf, size_t n, uint64_t off, uint64_t seed);
/* Index of the first byte that differs from the pattern, or -1. */
ssize_t pattern_check(const void *buf, size_t n, uint64_t off, uint64_t seed);
/* Index of the first byte where a and b differ, or n. */
size_t first_diff(const void *a, const void *b, size_t n);
/* Index of the first non-zero byte, or -1. */
ssize_t first_nonzero(const void *buf, size_t n);

/* Wall-clock helpers for bounds (CLOCK_MONOTONIC). */
double mono_now(void);

/* Assertions that name the call and the errno. */
#define assert_errno(expr, err)                                                \
	do {                                                                   \
		errno = 0;                                                     \
		long assert_r_ = (long)(expr);                                 \
		int assert_e_ = errno;                                         \
		if (assert_r_ != -1 || assert_e_ != (err))                     \
			fail_msg("%s: returned %ld errno %d (%s); expected -1 " \
			    "errno %d (%s)", #expr, assert_r_, assert_e_,      \
			    strerror(assert_e_), (err), strerror(err));        \
	} while (0)

/* Evaluates expr once and returns it; fails the test when it is negative. */
#define check_ok(expr)                                                         \
	cluster_check_ok((errno = 0, (long)(expr)), #expr, __FILE__, __LINE__)
long cluster_check_ok(long r, const char *expr, const char *file, int line);

/* A raw protocol client, for tests that send what the library never would.
 * Each fails the test on a local error; reading stops at EOF or after the
 * connection's receive bound. */
struct pvfs_hdr;
struct pvfs_mgr_attrcap_rep;
/* A blocking connection to "mgr" or "iodK" receiving for at most secs:
 * over TCP, or through the daemon's Unix socket (DIR/run/NAME.sock). */
int raw_connect(struct cluster *c, const char *daemon, int secs);
int raw_connect_unix(struct cluster *c, const char *daemon, int secs);
void raw_send(int fd, const void *p, size_t n);
/* Exactly n bytes: 0, or -1 at EOF, error or the receive bound. */
int raw_read(int fd, void *p, size_t n);
/* The next reply header's status, or -1 if the daemon closed on us. */
int raw_status(int fd, struct pvfs_hdr *h);
/* Encode msg as a frame of op (request or reply) and send it. */
void raw_send_frame(int fd, uint16_t op, int reply, const void *msg);
/* Request op (msg) of daemon on a connection of its own (receiving for at
 * most 10 s): the reply's status, as raw_status, its body unread. */
int raw_request(struct cluster *c, const char *daemon, uint16_t op,
    const void *msg);
/* The connection ends (EOF or reset) rather than hanging. */
void raw_assert_closed(int fd);
/* MGR_OPEN of path (inside the file system, "/x") as root with flags,
 * through the Unix socket (the mgr believes root only there). */
void raw_open(struct cluster *c, const char *path, uint32_t flags,
    struct pvfs_mgr_attrcap_rep *rep);

#endif /* PVFS_TEST_CLUSTER_H */
