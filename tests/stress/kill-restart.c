/*
 * kill-restart.c - SIGKILL the mgr or one iod at random moments of a mixed
 * workload (creates, appends, fsyncs, renames, unlinks), restart it, and
 * check after every cycle that every acknowledged fact survived:
 *   - the directory holds exactly the names the model holds (an
 *     acknowledged create, rename or unlink is durable; nothing is
 *     half-created or resurrected), and each of them stats and reads;
 *   - every fsync'ed byte is there (bytes past the last fsync may be
 *     there or be zeros, never anything else);
 * and every few cycles that pvfs-fsck --repair leaves a clean file system
 * (pvfs-fsck then exits 0) without touching a live file.  One cycle in
 * five also runs pvfs-fsck --repair while the workload goes on.
 *
 * A killer thread chooses the victim and the moments; the main thread
 * runs the workload and retries an operation cut by a death until it
 * succeeds or its outcome is known (an unlink that finds the name gone
 * was done; a rename that finds the source gone and the target there was
 * done).  PVFS_KILL_CYCLES cycles (10 by default); PVFS_TEST_SEED replays.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
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
#include "../integration/cluster.h"
#include "../integration/fsck-run.h"

#define NIODS 3
#define MAXF 12                  /* files in the model at most */
#define MAX_SIZE (384 * 1024)     /* appends stop at this size */
#define MAX_APPEND (40 * 1024)
#define RETRY_SECS 30.0           /* an operation must succeed within */
#define FSCK_EVERY 5              /* cycles between quiet fsck checks */
#define KR_DIR "/pvfs/kr"

struct fobj {
	int used;
	char name[32];     /* "KR_DIR/fN" or "KR_DIR/rN" */
	uint64_t seed;     /* content: pattern_fill(seed) at file offsets */
	uint64_t written;  /* bytes acknowledged by write */
	uint64_t durable;  /* bytes acknowledged by fsync */
	int fd;            /* O_WRONLY, or -1 */
};

static struct cluster c;
static struct rng rng, krng; /* workload; killer thread */
static struct fobj files[MAXF];
static unsigned next_id;
static char fsck_out[1 << 16];

static struct {
	uint64_t ops, bytes_verified, orphans, unsynced_lost, fsck_live;
	uint64_t kills_mgr, kills_iod;
} fig;

/* The killer's cycle: shared with the main thread under lock. */
static pthread_mutex_t kmu = PTHREAD_MUTEX_INITIALIZER;
static int kdone, kfailed, klive_rc = -2;
static char kout[1 << 14];

/* ---- the killer thread ---- */

static void *
killer(void *arg)
{
	int live_fsck = *(int *)arg, rc = 0, k;
	char victim[16];

	usleep((useconds_t)rng_range(&krng, 5, 150) * 1000);
	/* Half the kills hit the mgr (NIODS), half one of the iods. */
	k = rng_range(&krng, 0, 1) ? NIODS : (int)rng_range(&krng, 0, NIODS - 1);
	if (k == NIODS)
		snprintf(victim, sizeof(victim), "mgr");
	else
		snprintf(victim, sizeof(victim), "iod%d", k);
	if (cluster_kill(&c, victim, SIGKILL) != 0)
		rc = -1;
	usleep((useconds_t)rng_range(&krng, 0, 100) * 1000);
	if (rc == 0 && cluster_start_again(&c) != 0)
		rc = -1;
	if (rc == 0 && live_fsck)
		klive_rc = fsck_run(&c, "--repair", (uid_t)-1, kout, sizeof(kout));
	pthread_mutex_lock(&kmu);
	if (k == NIODS)
		fig.kills_mgr++;
	else
		fig.kills_iod++;
	kfailed = rc != 0;
	kdone = 1;
	pthread_mutex_unlock(&kmu);
	return NULL;
}

static int
killer_done(void)
{
	int d;

	pthread_mutex_lock(&kmu);
	d = kdone;
	pthread_mutex_unlock(&kmu);
	return d;
}

/* ---- retrying an operation across a daemon's death ---- */

/* Errors a dead or restarting daemon causes; any other fails the test. */
static int
transient(int e)
{
	return e == ECONNREFUSED || e == ECONNRESET || e == EIO ||
	    e == ETIMEDOUT || e == EPIPE || e == ENOTCONN || e == EAGAIN;
}

struct retry {
	double until;
	const char *what;
	const char *name;
};

static void
retry_start(struct retry *r, const char *what, const char *name)
{
	r->until = mono_now() + RETRY_SECS;
	r->what = what;
	r->name = name;
}

/* After a failure with errno e: wait and return to try again, or fail. */
static void
retry_after(struct retry *r, int e)
{
	if (!transient(e))
		fail_msg("%s %s: %s", r->what, r->name, strerror(e));
	if (mono_now() > r->until)
		fail_msg("%s %s: still %s after %.0f s", r->what, r->name,
		    strerror(e), RETRY_SECS);
	usleep(10000);
}

/* ---- workload operations; each returns once its outcome is known ---- */

static int
nfiles(void)
{
	int n = 0;

	for (int i = 0; i < MAXF; i++)
		n += files[i].used;
	return n;
}

static struct fobj *
pick_file(void)
{
	int n = nfiles(), k;

	if (n == 0)
		return NULL;
	k = (int)rng_range(&rng, 0, (uint64_t)n - 1);
	for (int i = 0; i < MAXF; i++)
		if (files[i].used && k-- == 0)
			return &files[i];
	return NULL;
}

static void
file_reopen(struct fobj *f)
{
	struct retry r;

	if (f->fd >= 0)
		pvfs_close(f->fd);
	retry_start(&r, "reopen", f->name);
	while ((f->fd = pvfs_open(f->name, O_WRONLY)) < 0)
		retry_after(&r, errno);
}

static void
op_create(void)
{
	struct fobj *f = NULL;
	struct retry r;

	for (int i = 0; i < MAXF && f == NULL; i++)
		if (!files[i].used)
			f = &files[i];
	if (f == NULL)
		return;
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), KR_DIR "/f%u", next_id++);
	f->seed = rng_next(&rng);
	/* Without O_EXCL: a create cut after the mgr did it is redone. */
	retry_start(&r, "create", f->name);
	while ((f->fd = pvfs_open(f->name, O_CREAT | O_WRONLY, 0644)) < 0)
		retry_after(&r, errno);
	f->used = 1;
}

static void
op_append(struct fobj *f)
{
	static unsigned char buf[MAX_APPEND];
	size_t len = (size_t)rng_range(&rng, 1, MAX_APPEND);
	struct retry r;
	ssize_t n;

	if (f->written + len > MAX_SIZE)
		return;
	pattern_fill(buf, len, f->written, f->seed);
	retry_start(&r, "write", f->name);
	while ((n = pvfs_pwrite(f->fd, buf, len, (off_t)f->written)) !=
	    (ssize_t)len) {
		if (n >= 0)
			fail_msg("write %s: %zd of %zu bytes", f->name, n, len);
		retry_after(&r, errno);
		file_reopen(f);
	}
	f->written += len;
}

static void
op_fsync(struct fobj *f)
{
	struct retry r;

	retry_start(&r, "fsync", f->name);
	while (pvfs_fsync(f->fd) != 0) {
		retry_after(&r, errno);
		file_reopen(f);
	}
	f->durable = f->written;
}

static int
exists(const char *path)
{
	struct stat st;
	struct retry r;

	retry_start(&r, "stat", path);
	while (pvfs_stat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		retry_after(&r, errno);
	}
	return 1;
}

static void
op_rename(struct fobj *f)
{
	char to[32];
	struct retry r;

	snprintf(to, sizeof(to), KR_DIR "/r%u", next_id++);
	retry_start(&r, "rename", f->name);
	while (pvfs_rename(f->name, to) != 0) {
		if (errno == ENOENT && exists(to))
			break; /* the cut attempt was done */
		retry_after(&r, errno);
	}
	snprintf(f->name, sizeof(f->name), "%s", to);
}

static void
op_unlink(struct fobj *f)
{
	struct retry r;

	if (f->fd >= 0)
		pvfs_close(f->fd);
	retry_start(&r, "unlink", f->name);
	while (pvfs_unlink(f->name) != 0 && errno != ENOENT)
		retry_after(&r, errno);
	f->used = 0;
}

static void
op_random(void)
{
	uint64_t x = rng_range(&rng, 0, 99);
	struct fobj *f = pick_file();

	if (f == NULL || (x < 12 && nfiles() < MAXF))
		op_create();
	else if (x < 60)
		op_append(f);
	else if (x < 80)
		op_fsync(f);
	else if (x < 90)
		op_rename(f);
	else if (nfiles() > 2)
		op_unlink(f);
	fig.ops++;
}

/* ---- checks ---- */

static void
check_bytes(const struct fobj *f, const unsigned char *buf,
    size_t size)
{
	ssize_t bad = pattern_check(buf, f->durable, 0, f->seed);
	size_t i;

	if (bad >= 0)
		fail_msg("%s: fsync'ed byte %zd of %" PRIu64 " is wrong",
		    f->name, bad, f->durable);
	/* Past the last fsync: what was written, or a hole. */
	for (i = f->durable; i < size; i++) {
		unsigned char want;

		pattern_fill(&want, 1, i, f->seed);
		if (buf[i] != want && buf[i] != 0)
			fail_msg("%s: byte %zu is neither written nor zero",
			    f->name, i);
	}
}

static void
check_file(const struct fobj *f)
{
	static unsigned char buf[MAX_SIZE + 1];
	struct stat st;
	ssize_t n;
	int fd;

	if (pvfs_stat(f->name, &st) != 0)
		fail_msg("acknowledged %s: stat: %s", f->name, strerror(errno));
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < f->durable ||
	    (uint64_t)st.st_size > f->written)
		fail_msg("%s: mode 0%o size %lld; fsync'ed %" PRIu64
		    ", written %" PRIu64, f->name, (unsigned)st.st_mode,
		    (long long)st.st_size, f->durable, f->written);
	fig.unsynced_lost += f->written - (uint64_t)st.st_size;
	fd = (int)check_ok(pvfs_open(f->name, O_RDONLY));
	n = check_ok(pvfs_pread(fd, buf, sizeof(buf), 0));
	check_ok(pvfs_close(fd));
	if (n != st.st_size)
		fail_msg("%s: read %zd of %lld bytes", f->name, n,
		    (long long)st.st_size);
	check_bytes(f, buf, (size_t)n);
	fig.bytes_verified += (uint64_t)n;
}

static const struct fobj *
model_find(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), KR_DIR "/%s", name);
	for (int i = 0; i < MAXF; i++)
		if (files[i].used && strcmp(files[i].name, path) == 0)
			return &files[i];
	return NULL;
}

/* The directory holds exactly the model's names, each complete. */
static void
check_all(int cycle)
{
	struct dirent *de;
	PVFS_DIR *d;
	int seen = 0;

	if ((d = pvfs_opendir(KR_DIR)) == NULL)
		fail_msg("cycle %d: opendir: %s", cycle, strerror(errno));
	while ((errno = 0, de = pvfs_readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (model_find(de->d_name) == NULL)
			fail_msg("cycle %d: %s/%s exists but was never "
			    "acknowledged (or was removed)", cycle, KR_DIR,
			    de->d_name);
		seen++;
	}
	assert_int_equal(errno, 0);
	pvfs_closedir(d);
	if (seen != nfiles())
		fail_msg("cycle %d: %d names, the model has %d: an "
		    "acknowledged create or rename was lost", cycle, seen,
		    nfiles());
	for (int i = 0; i < MAXF; i++)
		if (files[i].used)
			check_file(&files[i]);
}

/* "N removed" from pvfs-fsck's summary line. */
static uint64_t
fsck_removed(const char *out)
{
	const char *p = strstr(out, " orphans (");

	if (p == NULL || (p = strstr(p, "), ")) == NULL)
		return 0;
	return strtoull(p + 3, NULL, 10);
}

/* pvfs-fsck --repair finds orphans or not (0 or 1), then nothing (0). */
static void
check_fsck(int cycle)
{
	int rc = fsck_run(&c, "--repair", (uid_t)-1, fsck_out,
	    sizeof(fsck_out));

	if (rc != 0 && rc != 1)
		fail_msg("cycle %d: pvfs-fsck --repair exit %d:\n%s", cycle, rc,
		    fsck_out);
	fig.orphans += fsck_removed(fsck_out);
	rc = fsck_run(&c, NULL, (uid_t)-1, fsck_out, sizeof(fsck_out));
	if (rc != 0)
		fail_msg("cycle %d: pvfs-fsck after repair exit %d:\n%s", cycle,
		    rc, fsck_out);
}

/* ---- the test ---- */

static void
run_cycle(int cycle)
{
	int live_fsck = cycle % FSCK_EVERY == FSCK_EVERY - 1, after = 0;
	pthread_t t;

	kdone = 0;
	klive_rc = -2;
	assert_int_equal(pthread_create(&t, NULL, killer, &live_fsck), 0);
	/* Go on until the daemon is back and a few operations went through. */
	while (!killer_done() || after++ < 8)
		op_random();
	assert_int_equal(pthread_join(t, NULL), 0);
	if (kfailed)
		fail_msg("cycle %d: kill or restart failed", cycle);
	if (live_fsck) {
		if (klive_rc != 0 && klive_rc != 1)
			fail_msg("cycle %d: live pvfs-fsck --repair exit %d:\n%s",
			    cycle, klive_rc, kout);
		fig.fsck_live++;
		fig.orphans += fsck_removed(kout);
	}
	check_all(cycle);
	if (cycle % FSCK_EVERY == 0) {
		check_fsck(cycle);
		check_all(cycle);
	}
}

static void
test_kill_restart(void **state)
{
	const char *env = getenv("PVFS_KILL_CYCLES");
	int cycles = env != NULL ? atoi(env) : 10;
	double t0 = mono_now();

	for (int i = 0; i < MAXF; i++)
		files[i].fd = -1;
	for (int cycle = 0; cycle < cycles; cycle++)
		run_cycle(cycle);
	check_fsck(cycles);
	check_all(cycles);
	print_message("figure: kill-restart: %d cycles (%" PRIu64 " mgr, %"
	    PRIu64 " iod kills), %" PRIu64 " operations acknowledged, %" PRIu64
	    " bytes verified, %" PRIu64 " orphans repaired, %" PRIu64
	    " live fsck runs, %" PRIu64 " unsynced bytes lost, %.1f s\n",
	    cycles, fig.kills_mgr, fig.kills_iod, fig.ops, fig.bytes_verified,
	    fig.orphans, fig.fsck_live, fig.unsynced_lost, mono_now() - t0);
}

static int
group_setup(void **state)
{
	rng_init(&rng, "kill-restart");
	/* The killer's choices follow from the one printed seed. */
	krng.seed = krng.state = rng_next(&rng);
	if (cluster_start(&c, NIODS) < 0)
		return -1;
	return pvfs_mkdir(KR_DIR, 0755) < 0 ? -1 : 0;
}

static int
group_teardown(void **state)
{
	for (int i = 0; i < MAXF; i++)
		if (files[i].used && files[i].fd >= 0)
			pvfs_close(files[i].fd);
	return cluster_stop(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_restart),
	};
	int rc = cmocka_run_group_tests(tests, group_setup, group_teardown);

	return cluster_finish(&c, rc);
}
