/*
 * test_idle.c - daemons bound what a silent or greedy peer can hold:
 * idle and half-sent connections, and frames trickled a byte at a time,
 * are closed after the idle timeout (PVFS_IDLE_TIMEOUT=1 here) while a
 * busy connection is not; the client notices a
 * pooled connection the server closed and reconnects without sending a
 * request twice; the daemons raise their descriptor limit, and when out of
 * descriptors they neither crash nor spin, and serve again afterwards; an
 * iod at its limit frees a cached stripe file rather than fail a request.
 */
#include <sys/resource.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
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
#include "common.h"
#include "pvfs-proto.h"
#include "cluster.h"
#include "procinfo.h"

#define NIODS 2
#define IDLE 1.0       /* PVFS_IDLE_TIMEOUT given to the daemons */
#define CLOSE_MAX 6.0  /* idle close: 1.25 * IDLE plus slack for a loaded,
			* sanitized run; the default timeout is 300 s */
#define IDLE_WAIT 15.0 /* at most this long for idle pooled closes */
#define SZ 200000

static struct cluster c;
static struct rng rng;
static const char *daemons[] = { "mgr", "iod0", "iod1" };

/* Seconds from t0 (taken before fd connected or last sent: the daemon's
 * clock starts after it) until the daemon closes fd; fails past the
 * receive bound. */
static double
wait_closed(double t0, int fd)
{
	raw_assert_closed(fd);
	close(fd);
	return mono_now() - t0;
}

static void
ping(int fd, uint16_t op)
{
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION, op, 7, 0, 0,
		0 };
	uint8_t raw[PVFS_HDR_LEN], body[256];

	pvfs_hdr_encode(&h, raw);
	raw_send(fd, raw, sizeof(raw));
	assert_int_equal(raw_status(fd, &h), 0);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
}

static uint16_t
ping_op(const char *daemon)
{
	return strcmp(daemon, "mgr") == 0 ? PVFS_MGR_PING : PVFS_IOD_PING;
}

static void
test_nofile_raised(void **state)
{
	char path[64], line[256];
	long soft = -1, hard = -2;
	FILE *f;

	for (size_t i = 0; i < sizeof(daemons) / sizeof(*daemons); i++) {
		snprintf(path, sizeof(path), "/proc/%ld/limits",
		    (long)proc_daemon_pid(&c, daemons[i]));
		assert_non_null(f = fopen(path, "r"));
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "Max open files %ld %ld", &soft,
			    &hard) == 2)
				break;
		fclose(f);
		print_message("%s: open files soft %ld hard %ld\n", daemons[i],
		    soft, hard);
		assert_int_equal(soft, hard);
	}
}

/* Idle, half a header, half a body: each is closed after the timeout. */
static void
test_silent_peers_closed(void **state)
{
	static const uint8_t magic[4] = { 0x50, 0x56, 0x46, 0x31 };
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION,
		PVFS_MGR_STAT, 9, 0, 100, 0 };
	uint8_t raw[PVFS_HDR_LEN];
	double dt, t0;
	int fd;

	pvfs_hdr_encode(&h, raw);
	for (size_t i = 0; i < sizeof(daemons) / sizeof(*daemons); i++) {
		t0 = mono_now();
		dt = wait_closed(t0, raw_connect(&c, daemons[i], 10));
		print_message("%s: idle connection closed after %.2f s\n",
		    daemons[i], dt);
		assert_true(dt >= IDLE * 0.9 && dt < CLOSE_MAX);

		t0 = mono_now();
		fd = raw_connect(&c, daemons[i], 10);
		raw_send(fd, magic, sizeof(magic));
		dt = wait_closed(t0, fd);
		print_message("%s: half header closed after %.2f s\n",
		    daemons[i], dt);
		assert_true(dt >= IDLE * 0.9 && dt < CLOSE_MAX);
	}
	/* The header promises 100 bytes of body; 10 come. */
	t0 = mono_now();
	fd = raw_connect(&c, "mgr", 10);
	raw_send(fd, raw, sizeof(raw));
	raw_send(fd, raw, 10);
	dt = wait_closed(t0, fd);
	print_message("mgr: half body closed after %.2f s\n", dt);
	assert_true(dt >= IDLE * 0.9 && dt < CLOSE_MAX);
}

/* Slowloris: a byte of a header every 0.3 s keeps bytes moving but the
 * frame never completes; it is closed once the frame is older than the
 * timeout.  Fails if the daemon waits for all but the last byte (23 *
 * 0.3 s, past CLOSE_MAX) or takes longer than CLOSE_MAX. */
static void
trickle(const char *daemon)
{
	struct pvfs_hdr h = { PVFS_PROTO_MAGIC, PVFS_PROTO_VERSION,
		ping_op(daemon), 3, 0, 0, 0 };
	uint8_t raw[PVFS_HDR_LEN], b;
	int fd = raw_connect(&c, daemon, 1), closed = 0;
	ssize_t r;
	double t0 = mono_now();

	pvfs_hdr_encode(&h, raw);
	for (size_t i = 0; i < sizeof(raw) - 1 && !closed; i++) {
		if (send(fd, raw + i, 1, MSG_NOSIGNAL) != 1) {
			closed = 1; /* EPIPE or a reset: the daemon closed */
			break;
		}
		usleep(300000);
		/* 0 at EOF, -1 with ECONNRESET if the daemon closed with
		 * our bytes unread, EAGAIN while it still waits. */
		r = recv(fd, &b, 1, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && (errno == ECONNRESET ||
		    errno == EPIPE)))
			closed = 1;
	}
	print_message("%s: trickled header closed after %.2f s\n", daemon,
	    mono_now() - t0);
	if (!closed)
		fail_msg("%s kept a connection trickling a frame", daemon);
	assert_true(mono_now() - t0 < CLOSE_MAX);
	close(fd);
}

static void
test_trickling_peer_closed(void **state)
{
	for (size_t i = 0; i < sizeof(daemons) / sizeof(*daemons); i++)
		trickle(daemons[i]);
}

/* A connection in use is never cut, however long it lives. */
static void
test_busy_peer_kept(void **state)
{
	int fd[3];
	double t0 = mono_now();

	for (int i = 0; i < 3; i++)
		fd[i] = raw_connect(&c, daemons[i], 10);
	while (mono_now() - t0 < 3 * IDLE + 0.5) {
		for (int i = 0; i < 3; i++)
			ping(fd[i], ping_op(daemons[i]));
		usleep((useconds_t)(IDLE * 100000));
	}
	for (int i = 0; i < 3; i++)
		close(fd[i]);
}

/* How many times daemon logged that it closed an idle connection. */
static int
idle_closes(const char *daemon)
{
	char line[1024];
	int n = 0;
	FILE *f;

	if ((f = cluster_log(&c, daemon)) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "idle timeout") != NULL;
	fclose(f);
	return n;
}

/* Sleep until the daemons named in mask (bit i: daemons[i]) have each
 * closed at least one more idle connection: the nominal 1.25 timeouts,
 * then as long as a loaded machine delays the sweeps, up to IDLE_WAIT. */
static void
idle_wait(unsigned mask)
{
	double t0 = mono_now();
	int before[3];
	unsigned left = mask;

	for (int i = 0; i < 3; i++)
		before[i] = idle_closes(daemons[i]);
	usleep((useconds_t)((1.25 * IDLE + 0.25) * 1e6));
	while (left != 0 && mono_now() - t0 < IDLE_WAIT) {
		usleep(100000);
		for (int i = 0; i < 3; i++)
			if (left & (1u << i) &&
			    idle_closes(daemons[i]) > before[i])
				left &= ~(1u << i);
	}
	for (int i = 0; i < 3; i++)
		if (left & (1u << i))
			fail_msg("%s closed no idle connection", daemons[i]);
}

/* After the servers closed the pooled connections, non-idempotent
 * requests (exclusive create, rename, unlink, mkdir) each run exactly once: a
 * resend would show up as EEXIST or ENOENT; data still flows. */
static void
test_pooled_connection_reconnects(void **state)
{
	static unsigned char buf[SZ], back[SZ];
	struct stat st;
	int fd;

	rng_fill(&rng, buf, SZ);
	fd = check_ok(pvfs_open("/pvfs/re", O_CREAT | O_EXCL | O_RDWR, 0644));
	idle_wait(1);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, SZ, 0)), SZ);
	idle_wait(7);
	memset(back, 0, SZ);
	assert_int_equal(check_ok(pvfs_pread(fd, back, SZ, 0)), SZ);
	assert_memory_equal(buf, back, SZ);
	check_ok(pvfs_close(fd));
	check_ok(pvfs_rename("/pvfs/re", "/pvfs/re.moved"));
	idle_wait(7);
	check_ok(pvfs_stat("/pvfs/re.moved", &st));
	assert_int_equal(st.st_size, SZ);
	check_ok(pvfs_unlink("/pvfs/re.moved"));
	idle_wait(7);
	assert_errno(pvfs_stat("/pvfs/re.moved", &st), ENOENT);
	check_ok(pvfs_mkdir("/pvfs/re.dir", 0755));
}

/* Out of descriptors (4 left): the daemon pauses accept instead of
 * spinning on a listening socket that stays readable, and serves once
 * descriptors are back. */
static void
test_emfile_sheds_without_spinning(void **state)
{
	enum { NCONN = 48 };
	int fds[3][NCONN], fd;
	struct rlimit low, old[3];
	double cpu0[3], cpu1, t0;
	unsigned char buf[4096], back[4096];
	pid_t pid;

	for (int i = 0; i < 3; i++) {
		pid = proc_daemon_pid(&c, daemons[i]);
		low.rlim_cur = (rlim_t)proc_fd_nth_free(pid, 5);
		assert_int_equal(prlimit(pid, RLIMIT_NOFILE, NULL, &old[i]), 0);
		low.rlim_max = old[i].rlim_max;
		assert_int_equal(prlimit(pid, RLIMIT_NOFILE, &low, NULL), 0);
		for (int k = 0; k < NCONN; k++)
			fds[i][k] = raw_connect(&c, daemons[i], 10);
		cpu0[i] = proc_cpu_secs(pid);
	}
	t0 = mono_now();
	sleep(2);
	for (int i = 0; i < 3; i++) {
		pid = proc_daemon_pid(&c, daemons[i]);
		cpu1 = proc_cpu_secs(pid);
		print_message("%s: out of fds: %.2f s CPU in %.2f s\n",
		    daemons[i], cpu1 - cpu0[i], mono_now() - t0);
		assert_true(cpu1 - cpu0[i] < 0.5);
		assert_int_equal(prlimit(pid, RLIMIT_NOFILE, &old[i], NULL), 0);
		for (int k = 0; k < NCONN; k++)
			close(fds[i][k]);
	}
	/* Serving again: a fresh file through the mgr and both iods. */
	rng_fill(&rng, buf, sizeof(buf));
	fd = check_ok(pvfs_open("/pvfs/after-emfile", O_CREAT | O_RDWR, 0644));
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, sizeof(buf), 0)),
	    (long)sizeof(buf));
	assert_int_equal(check_ok(pvfs_pread(fd, back, sizeof(back), 0)),
	    (long)sizeof(back));
	assert_memory_equal(buf, back, sizeof(buf));
	check_ok(pvfs_close(fd));
}

/* An iod at its descriptor limit with a cached stripe file: a request
 * for another file is served (the cache gives a descriptor back), not
 * failed with EMFILE. */
static void
test_emfile_evicts_cached_file(void **state)
{
	struct pvfs_filestat fs = { 0, 1, 65536, 0, 0 };
	unsigned char buf[65536], back[65536];
	struct rlimit low, old;
	pid_t pid = proc_daemon_pid(&c, "iod0");
	int fd;

	rng_fill(&rng, buf, sizeof(buf));
	fd = check_ok(pvfs_open("/pvfs/cached", O_CREAT | O_RDWR |
	    PVFS_O_META, 0644, &fs));
	check_ok(pvfs_pwrite(fd, buf, sizeof(buf), 0));
	check_ok(pvfs_close(fd));
	idle_wait(1u << 1); /* no client connection left on iod0 */
	/* Room for one connection and nothing else. */
	low.rlim_cur = (rlim_t)proc_fd_nth_free(pid, 2);
	assert_int_equal(prlimit(pid, RLIMIT_NOFILE, NULL, &old), 0);
	low.rlim_max = old.rlim_max;
	assert_int_equal(prlimit(pid, RLIMIT_NOFILE, &low, NULL), 0);
	fd = check_ok(pvfs_open("/pvfs/uncached", O_CREAT | O_RDWR |
	    PVFS_O_META, 0644, &fs));
	errno = 0;
	if (pvfs_pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		fail_msg("write at the fd limit: %s", strerror(errno));
	assert_int_equal(check_ok(pvfs_pread(fd, back, sizeof(back), 0)),
	    (long)sizeof(back));
	assert_memory_equal(buf, back, sizeof(buf));
	assert_int_equal(prlimit(pid, RLIMIT_NOFILE, &old, NULL), 0);
	check_ok(pvfs_close(fd));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nofile_raised),
		cmocka_unit_test(test_silent_peers_closed),
		cmocka_unit_test(test_trickling_peer_closed),
		cmocka_unit_test(test_busy_peer_kept),
		cmocka_unit_test(test_pooled_connection_reconnects),
		cmocka_unit_test(test_emfile_sheds_without_spinning),
		cmocka_unit_test(test_emfile_evicts_cached_file),
	};
	struct rlimit rl;

	/* Daemons inherit a soft limit below the hard one and must raise it. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max > 512) {
		rl.rlim_cur = 256;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	setenv("PVFS_IDLE_TIMEOUT", "1", 1);
	/* Idle closes are logged at debug level. */
	setenv("PVFS_LOCAL_LOGLEVEL", "debug", 1);
	rng_init(&rng, "test_idle");
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
