/*
 * test_auth.c - the mgr acts for the identity a client proved, not the one
 * it claims (doc/security.md): the kernel's word over the Unix socket,
 * MUNGE's over TCP, and --anonymous for TCP clients that proved nothing.
 *
 * One mgr is reached three ways through this test's own pvfstab: /unix
 * (its Unix socket), /tcp (plain TCP) and /munge (TCP + MUNGE).  Other
 * users are children that drop root with setgid/setgroups/setuid; what
 * they report comes back as their exit status.  Needs root (skips, 77,
 * otherwise); the MUNGE case skips when munged is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "cluster.h"

#define NIODS 2
#define USER 1001
#define NOBODY 65534
#define MUNGED "/usr/sbin/munged"

static struct cluster c;
static char tab[PATH_MAX], mdir[1100]; /* c.dir is 1024 bytes */
static int munged_started;

/* ---- set-up: the pvfstab with three ways to one mgr ---- */

static int
write_tab(void)
{
	FILE *f = fopen(tab, "w");
	int port = cluster_port(&c, "mgr");

	if (f == NULL || port <= 0)
		return -1;
	fprintf(f, "127.0.0.1:/m /unix pvfs port=%d,timeout=5,sock=%s/run/mgr.sock 0 0\n",
	    port, c.dir);
	fprintf(f, "127.0.0.1:/m /tcp pvfs port=%d,timeout=5 0 0\n", port);
	fprintf(f, "127.0.0.1:/m /munge pvfs port=%d,timeout=5,auth=munge,"
	    "munge_socket=%s/munge.sock 0 0\n", port, mdir);
	return fclose(f) == 0 ? 0 : -1;
}

/* Restart the daemons with these pvfs-local options; the library finds
 * the mgr again through the rewritten pvfstab if its port changed. */
static int
restart_with(const char *const *args)
{
	c.start_args = args;
	return cluster_restart(&c) == 0 && write_tab() == 0 ? 0 : -1;
}

static int
group_setup(void **state)
{
	if (cluster_start(&c, NIODS) < 0)
		return -1;
	/* Users other than root must reach DIR/run/mgr.sock. */
	if (chmod(c.dir, 0755) != 0)
		return -1;
	snprintf(tab, sizeof(tab), "%s/auth.tab", c.dir);
	snprintf(mdir, sizeof(mdir), "%s/munge", c.dir);
	if (write_tab() != 0)
		return -1;
	setenv("PVFSTAB_FILE", tab, 1);
	if (pvfs_mkdir("/unix/open", 0777) != 0 || pvfs_chmod("/unix/open", 0777) != 0 ||
	    pvfs_mkdir("/unix/closed", 0700) != 0)
		return -1;
	return 0;
}

static void
munged_stop(void)
{
	char path[PATH_MAX + 32], *pid;

	if (!munged_started)
		return;
	snprintf(path, sizeof(path), "%s/munged.pid", mdir);
	if ((pid = pvfs_read_small_file(path, 32, NULL)) != NULL && atoi(pid) > 0)
		kill(atoi(pid), SIGTERM);
	free(pid);
	munged_started = 0;
}

static int
group_teardown(void **state)
{
	munged_stop();
	return cluster_stop(&c);
}

/* ---- children that are someone else ---- */

static int
become(uid_t uid)
{
	gid_t g = uid;

	return setgroups(1, &g) == 0 && setgid(uid) == 0 && setuid(uid) == 0 ? 0 : -1;
}

/* Run fn as uid in a child; its result (0..255) or -1. */
static int
as_user(uid_t uid, int (*fn)(const char *), const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(become(uid) == 0 ? fn(arg) : 254);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Create path: 0, or the errno. */
static int
create(const char *path)
{
	int fd = pvfs_open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);

	if (fd < 0)
		return errno;
	return pvfs_close(fd) == 0 ? 0 : errno;
}

static uint32_t
owner(const char *path)
{
	struct stat st;

	assert_int_equal(pvfs_stat(path, &st), 0);
	return (uint32_t)st.st_uid;
}

/* One request on fd without cmocka (it runs in children too): the reply
 * status, or -1 if the exchange broke.  The reply body goes to rep. */
static int
raw_call(int fd, uint16_t op, const void *req, void *rep)
{
	struct pvfs_buf b;
	struct pvfs_hdr h;
	uint8_t hdr[PVFS_HDR_LEN], body[4096];
	int rc;

	pvfs_buf_init(&b);
	rc = pvfs_frame_encode(&b, op, 7, 0, 0, req) == 0 &&
	    pvfs_write_all(fd, b.data, b.len) == 0 ? 0 : -1;
	pvfs_buf_free(&b);
	if (rc != 0 || raw_read(fd, hdr, sizeof(hdr)) != 0 ||
	    pvfs_hdr_decode(hdr, &h) != 0 || h.body_len > sizeof(body) ||
	    raw_read(fd, body, h.body_len) != 0)
		return -1;
	if (h.status == 0 && rep != NULL &&
	    pvfs_msg_decode(op, 1, body, h.body_len, rep) != 0)
		return -1;
	return h.status;
}

/* MGR_MKDIR of path claiming uid (and gid = uid): the reply status. */
static int
raw_mkdir(int fd, uint32_t uid, const char *path)
{
	struct pvfs_mgr_mode_req q;
	struct pvfs_mgr_attrcap_rep rep;

	memset(&q, 0, sizeof(q));
	q.cred.uid = q.cred.gid = uid;
	q.mode = 0755;
	snprintf(q.path, sizeof(q.path), "%s", path);
	return raw_call(fd, PVFS_MGR_MKDIR, &q, &rep);
}

static int
mgr_unix_fd(void)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/run/mgr.sock", c.dir);
	return pvfs_unix_connect(path, 5000);
}

/* ---- (1) the Unix socket: the kernel says who ---- */

static void
test_unix_owner_is_peer(void **state)
{
	assert_int_equal(as_user(USER, create, "/unix/open/by-user"), 0);
	assert_int_equal(owner("/unix/open/by-user"), USER);
	/* Root's own files are root's. */
	assert_int_equal(create("/unix/open/by-root"), 0);
	assert_int_equal(owner("/unix/open/by-root"), 0);
}

/* A user's raw requests claiming root are refused (EPERM) on its Unix
 * connection; claiming itself they meet the usual permission checks. */
static int
claim_root(const char *unused)
{
	int fd = mgr_unix_fd(), a, b;

	if (fd < 0 || pvfs_set_nonblock(fd, 0) != 0)
		return 250;
	a = raw_mkdir(fd, 0, "/claimed-root");
	b = raw_mkdir(fd, USER, "/claimed-self");
	close(fd);
	return a == EPERM && b == EACCES ? 0 : 251;
}

static void
test_unix_claim_is_checked(void **state)
{
	struct stat st;
	int fd;

	assert_int_equal(as_user(USER, claim_root, NULL), 0);
	assert_errno(pvfs_stat("/unix/claimed-root", &st), ENOENT);
	/* Root may act for anyone: the claimed uid owns what it makes. */
	fd = raw_connect_unix(&c, "mgr", 10);
	assert_int_equal(raw_mkdir(fd, 1002, "/open/for-1002"), 0);
	close(fd);
	assert_int_equal(owner("/unix/open/for-1002"), 1002);
}

/* The library drops a pooled connection made under another identity. */
static int
seteuid_then_create(const char *path)
{
	struct stat st;
	gid_t g = USER;

	if (pvfs_stat("/unix/open", &st) != 0) /* pools a connection as root */
		return 250;
	if (setgroups(1, &g) != 0 || setegid(USER) != 0 || seteuid(USER) != 0)
		return 251;
	return create(path);
}

static void
test_unix_reconnects_after_seteuid(void **state)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(seteuid_then_create("/unix/open/after-seteuid"));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(owner("/unix/open/after-seteuid"), USER);
}

/* ---- (2) TCP without authentication: --anonymous ---- */

static void
test_tcp_default_is_nobody(void **state)
{
	struct stat st;

	assert_int_equal(pvfs_stat("/tcp/open", &st), 0);
	assert_int_equal(create("/tcp/closed/x"), EACCES);
	assert_int_equal(create("/tcp/open/anon"), 0);
	assert_int_equal(owner("/unix/open/anon"), NOBODY);
	assert_int_equal(as_user(USER, create, "/tcp/open/anon-user"), 0);
	assert_int_equal(owner("/unix/open/anon-user"), NOBODY);
}

static void
test_tcp_refuse(void **state)
{
	static const char *const args[] = { "--anonymous", "refuse", NULL };
	struct stat st;

	assert_int_equal(restart_with(args), 0);
	assert_errno(pvfs_stat("/tcp/open", &st), EACCES);
	assert_int_equal(create("/tcp/open/refused"), EACCES);
	assert_int_equal(pvfs_stat("/unix/open", &st), 0);
	assert_errno(pvfs_stat("/unix/open/refused", &st), ENOENT);
}

static void
test_tcp_trust(void **state)
{
	static const char *const args[] = { "--anonymous", "trust", NULL };

	assert_int_equal(restart_with(args), 0);
	assert_int_equal(create("/tcp/closed/trusted"), 0);
	assert_int_equal(owner("/unix/closed/trusted"), 0);
	assert_int_equal(as_user(USER, create, "/tcp/open/trusted-user"), 0);
	assert_int_equal(owner("/unix/open/trusted-user"), USER);
}

/* ---- (3) TCP with MUNGE ---- */

static int
munged_start(void)
{
	char cmd[8 * 1200];

	if (pvfs_mkdir_p(mdir, 0755) != 0 || chmod(mdir, 0755) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
	    "dd if=/dev/urandom of=%s/munge.key bs=1024 count=1 2>/dev/null && "
	    "chmod 0600 %s/munge.key && " MUNGED " --force --socket=%s/munge.sock "
	    "--key-file=%s/munge.key --pid-file=%s/munged.pid "
	    "--log-file=%s/munged.log --seed-file=%s/munged.seed",
	    mdir, mdir, mdir, mdir, mdir, mdir, mdir);
	if (system(cmd) != 0)
		return -1;
	munged_started = 1;
	return 0;
}

/* A credential from the munge tool: the test speaks AUTH by hand. */
static void
munge_cred(char *out, size_t len)
{
	char cmd[1200];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "munge -n -S %s/munge.sock", mdir);
	assert_non_null(p = popen(cmd, "r"));
	assert_non_null(fgets(out, (int)len, p));
	assert_int_equal(pclose(p), 0);
	out[strcspn(out, "\n")] = '\0';
}

static int
raw_auth(int fd, const char *cred, struct pvfs_mgr_auth_rep *rep)
{
	static struct pvfs_mgr_auth_req q;

	memset(&q, 0, sizeof(q));
	q.method = PVFS_AUTH_MUNGE;
	memcpy(q.cred, cred, strnlen(cred, PVFS_AUTH_MAX));
	return raw_call(fd, PVFS_MGR_AUTH, &q, rep);
}

static void
test_munge(void **state)
{
	static const char *args[] = { "--munge", NULL, NULL };
	static char sock[1200], cred[PVFS_AUTH_MAX + 2];
	struct pvfs_mgr_auth_rep rep;
	int a, b, g;

	if (access(MUNGED, X_OK) != 0)
		skip();
	assert_int_equal(munged_start(), 0);
	snprintf(sock, sizeof(sock), "%s/munge.sock", mdir);
	args[1] = sock;
	assert_int_equal(restart_with(args), 0);

	/* Through the library: the real uid, not nobody. */
	assert_int_equal(as_user(USER, create, "/munge/open/munged-user"), 0);
	assert_int_equal(owner("/unix/open/munged-user"), USER);
	assert_int_equal(create("/munge/closed/munged-root"), 0);
	assert_int_equal(owner("/unix/closed/munged-root"), 0);

	/* By hand: a credential works once; a replay or garbage is refused
	 * and the connection stays nobody. */
	munge_cred(cred, sizeof(cred));
	a = raw_connect(&c, "mgr", 10);
	b = raw_connect(&c, "mgr", 10);
	g = raw_connect(&c, "mgr", 10);
	memset(&rep, 0xff, sizeof(rep));
	assert_int_equal(raw_auth(a, cred, &rep), 0);
	assert_int_equal(rep.uid, 0);
	assert_int_equal(raw_auth(b, cred, NULL), EACCES);
	assert_int_equal(raw_auth(g, "MUNGE:bm90IGEgY3JlZGVudGlhbA==:", NULL), EACCES);
	/* One try per connection: a good credential comes too late. */
	munge_cred(cred, sizeof(cred));
	assert_int_equal(raw_auth(g, cred, NULL), EINVAL);
	assert_int_equal(raw_mkdir(a, 0, "/closed/by-munge-root"), 0);
	assert_int_equal(raw_mkdir(b, 0, "/closed/by-replay"), EACCES);
	assert_int_equal(raw_mkdir(g, 0, "/closed/by-garbage"), EACCES);
	close(a);
	close(b);
	close(g);
	munged_stop();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unix_owner_is_peer),
		cmocka_unit_test(test_unix_claim_is_checked),
		cmocka_unit_test(test_unix_reconnects_after_seteuid),
		cmocka_unit_test(test_tcp_default_is_nobody),
		cmocka_unit_test(test_tcp_refuse),
		cmocka_unit_test(test_tcp_trust),
		cmocka_unit_test(test_munge),
	};
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_auth: needs root (setuid children)\n");
		return 77;
	}
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
