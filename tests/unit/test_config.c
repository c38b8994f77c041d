/* test_config.c - what fails closed: key files (owner, mode, the
 * directories above them), iod tables and pvfstabs (every bad line names
 * file and line), and capability rejections with their reason. */
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

#include "common.h"
#include "pvfs-proto.h"

struct keydir {
	char dir[64];
	char sub[80];
	char key[96];
};

/* DIR/sub/secret: a fresh key in a private directory under /tmp. */
static int
key_setup(void **state)
{
	struct keydir *k = calloc(1, sizeof(*k));
	char *cause = NULL;

	strcpy(k->dir, "/tmp/pvfs-test-config-XXXXXX");
	if (mkdtemp(k->dir) == NULL)
		return -1;
	snprintf(k->sub, sizeof(k->sub), "%s/sub", k->dir);
	snprintf(k->key, sizeof(k->key), "%s/secret", k->sub);
	if (mkdir(k->sub, 0700) != 0 || pvfs_key_create(k->key, &cause) != 0)
		return -1;
	*state = k;
	return 0;
}

static int
key_teardown(void **state)
{
	struct keydir *k = *state;

	unlink(k->key);
	rmdir(k->sub);
	rmdir(k->dir);
	free(k);
	return 0;
}

/* pvfs_key_load's verdict; on refusal the message must hold want. */
static void
key_expect(const char *path, int ok, const char *want)
{
	uint8_t key[64];
	size_t len;
	char *cause = NULL;
	int rc = pvfs_key_load(path, key, &len, &cause);

	if (ok) {
		if (rc != 0)
			fail_msg("refused: %s", cause);
		return;
	}
	assert_int_equal(rc, -1);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", cause, want);
	free(cause);
}

static void
test_key_mode_600_ok(void **state)
{
	struct keydir *k = *state;

	key_expect(k->key, 1, NULL);
}

static void
test_key_world_readable_refused(void **state)
{
	struct keydir *k = *state;
	char want[128];

	snprintf(want, sizeof(want), "chmod 600 %s", k->key);
	assert_int_equal(chmod(k->key, 0644), 0);
	key_expect(k->key, 0, want);
	assert_int_equal(chmod(k->key, 0604), 0);
	key_expect(k->key, 0, "readable by others");
}

static void
test_key_group_writable_refused(void **state)
{
	struct keydir *k = *state;

	assert_int_equal(chmod(k->key, 0620), 0);
	key_expect(k->key, 0, "writable by others than its owner");
	assert_int_equal(chmod(k->key, 0602), 0);
	key_expect(k->key, 0, "writable by others than its owner");
}

/* Group read is for a service group: ours only. */
static void
test_key_group_read(void **state)
{
	struct keydir *k = *state;

	assert_int_equal(chmod(k->key, 0640), 0);
	key_expect(k->key, 1, NULL);
	if (geteuid() != 0)
		skip();
	assert_int_equal(chown(k->key, 0, getegid() + 1001), 0);
	key_expect(k->key, 0, "readable by group");
}

static void
test_key_dir_writable_refused(void **state)
{
	struct keydir *k = *state;
	char want[128];

	snprintf(want, sizeof(want), "chmod go-w %s", k->sub);
	assert_int_equal(chmod(k->sub, 0777), 0);
	key_expect(k->key, 0, want);
	assert_int_equal(chmod(k->sub, 0770), 0);
	key_expect(k->key, 0, want);
	/* The parent too, not only the key's own directory. */
	assert_int_equal(chmod(k->sub, 0700), 0);
	assert_int_equal(chmod(k->dir, 0777), 0);
	snprintf(want, sizeof(want), "chmod go-w %s", k->dir);
	key_expect(k->key, 0, want);
	/* Sticky (like /tmp): only an entry's owner may replace it. */
	assert_int_equal(chmod(k->dir, 01777), 0);
	key_expect(k->key, 1, NULL);
}

/* The planted key: another user's file, or another user's directory. */
static void
test_key_foreign_owner_refused(void **state)
{
	struct keydir *k = *state;

	if (geteuid() != 0)
		skip();
	assert_int_equal(chown(k->key, 1001, 1001), 0);
	key_expect(k->key, 0, "owned by uid 1001");
	assert_int_equal(chown(k->key, 0, 0), 0);
	assert_int_equal(chown(k->sub, 1001, 1001), 0);
	key_expect(k->key, 0, "owned by uid 1001");
}

static void
test_key_create_never_replaces(void **state)
{
	struct keydir *k = *state;
	char *cause = NULL;

	assert_int_equal(pvfs_key_create(k->key, &cause), -1);
	assert_non_null(strstr(cause, "File exists"));
	free(cause);
}

/* The refusal of text gave a message that holds want; frees it. */
static void
cause_has(char *cause, const char *want, const char *text)
{
	if (cause == NULL || strstr(cause, want) == NULL)
		fail_msg("for \"%s\": message \"%s\" lacks \"%s\"", text,
		    cause ? cause : "(none)", want);
	free(cause);
}

/* Each line must be refused with "fname:line:" and the reason. */
static void
iodtab_refused(const char *text, const char *want)
{
	struct pvfs_iod_addr *a = NULL;
	char *cause = NULL;

	if (pvfs_iodtab_parse(text, "iodtab", &a, &cause) != -1)
		fail_msg("accepted: %s", text);
	assert_null(a);
	cause_has(cause, want, text);
}

static void
test_iodtab_bad_lines(void **state)
{
	iodtab_refused("127.0.0.1:7000\n127.0.0.1:7000\n",
	    "iodtab:2: duplicate of iod 0 (127.0.0.1:7000)");
	iodtab_refused("# c\nHost:1\n\nhost:1\n", "iodtab:4: duplicate of iod 0");
	iodtab_refused("a:1 unix=/s\nb:2 unix=/s\n", "iodtab:2: duplicate");
	iodtab_refused("a:1\nh:abc\n", "iodtab:2: bad host:port");
	iodtab_refused("h:0\n", "iodtab:1: bad host:port");
	iodtab_refused("h:70000\n", "iodtab:1: bad host:port");
	iodtab_refused("h:1 unix=/s extra\n", "iodtab:1: want one host:port");
	iodtab_refused("h:1 sock=/s\n", "iodtab:1: bad unix=PATH");
	iodtab_refused("h:1 unix=rel\n", "iodtab:1: bad unix=PATH");
	iodtab_refused("ho$t:1\n", "iodtab:1: bad host name");
	iodtab_refused("-h:1\n", "iodtab:1: bad host name");
	iodtab_refused("a:1\n\x01\x02\xff:7\n", "iodtab:2: control characters");
}

/* Random bytes are not an iod table (it took 3,000 of them as 2 iods). */
static void
test_iodtab_random_bytes(void **state)
{
	struct pvfs_iod_addr *a = NULL;
	char text[3001], *cause = NULL;
	int i, round, n;

	srandom(13);
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 3000; i++)
			text[i] = (char)(1 + random() % 255);
		text[3000] = '\0';
		n = pvfs_iodtab_parse(text, "iodtab", &a, &cause);
		if (n != -1)
			fail_msg("round %d: %d iods", round, n);
		free(cause);
		cause = NULL;
	}
}

static void
iodtab_file(const char *dir, const char *text, size_t len, char *path)
{
	int fd;

	sprintf(path, "%s/iodtab", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void
iodtab_load_refused(const char *dir, const char *text, size_t len,
    const char *want)
{
	struct pvfs_iod_addr *a = NULL;
	char path[128], *cause = NULL, full[256];

	iodtab_file(dir, text, len, path);
	assert_int_equal(pvfs_iodtab_load(path, 1 << 20, &a, &cause), -1);
	snprintf(full, sizeof(full), "%s%s", path, want);
	cause_has(cause, full, text);
}

/* What only the mgr checks: names resolve, to distinct addresses. */
static void
test_iodtab_load(void **state)
{
	struct keydir *k = *state;
	struct pvfs_iod_addr *a = NULL;
	char path[128], *cause = NULL;
	static const char nul[] = "127.0.0.1:1\n\0garbage";

	iodtab_file(k->dir, "127.0.0.1:1\n127.0.0.1:2 unix=/x\n", 32, path);
	assert_int_equal(pvfs_iodtab_load(path, 1 << 20, &a, &cause), 2);
	free(a);
	iodtab_load_refused(k->dir, "127.0.0.1:7\nlocalhost:7\n", 24,
	    ":2: localhost is 127.0.0.1, as iod 0");
	iodtab_load_refused(k->dir, "127.0.0.1:7\nno-such-host.invalid:7\n",
	    35, ":2: no-such-host.invalid: name does not resolve");
	iodtab_load_refused(k->dir, nul, sizeof(nul) - 1, ":2: NUL byte");
	iodtab_load_refused(k->dir, "# nothing\n", 10, ": no iods");
	unlink(path);
}

static void
tab_refused(const char *text, const char *want)
{
	struct pvfs_tab_entry *e = NULL;
	char *cause = NULL;

	if (pvfs_tab_parse(text, "tab", &e, &cause) != -1)
		fail_msg("accepted: %s", text);
	cause_has(cause, want, text);
}

/* Every kind of bad pvfstab line names file and line. */
static void
test_pvfstab_bad_lines(void **state)
{
	const char *ok = "h:/m /pvfs pvfs port=7000,timeout=5 0 0\n";
	struct pvfs_tab_entry *e = NULL;
	char *cause = NULL;

	assert_int_equal(pvfs_tab_parse(ok, "tab", &e, &cause), 1);
	assert_int_equal(e[0].nocache, 0);
	free(e);
	assert_int_equal(pvfs_tab_parse("h:/m /pvfs pvfs cache=off\n", "tab", &e,
	    &cause), 1);
	assert_int_equal(e[0].nocache, 1);
	free(e);
	tab_refused("h:/m /pvfs pvfs cache=maybe\n", "tab:1: bad cache");
	tab_refused("h:/m /pvfs pvfs port=abc\n", "tab:1: bad port");
	tab_refused("# c\nh:/m /pvfs\n", "tab:2: want: mgrhost:/meta-dir");
	tab_refused("h /pvfs pvfs\n", "tab:1: first field");
	tab_refused("h:/m pvfs pvfs\n", "tab:1: mount prefix");
	tab_refused("h:/m /pvfs nfs\n", "tab:1: file system type");
	tab_refused("h:/m /pvfs pvfs prot=7000\n", "tab:1: unknown option");
	tab_refused("h:/m /pvfs pvfs port=7000 0 x\n", "tab:1: fields 5 and 6");
	tab_refused("h:/m /pvfs pvfs port=7000 0 0 0\n", "tab:1: too many fields");
	tab_refused("h:/m /pvfs pvfs timeout=-1\n", "tab:1: bad timeout");
	tab_refused("h:/m /pvfs pvfs auth=krb5\n", "tab:1: bad auth");
	tab_refused("h!:/m /pvfs pvfs\n", "tab:1: bad mgr host name");
	tab_refused("\x7f\x45LF\x02\x01\x01:/m /pvfs pvfs\n",
	    "tab:1: control characters");
}

/* Each refusal names its reason, for the iod's log. */
static void
test_cap_reasons(void **state)
{
	uint8_t key[32] = { 1 }, other[32] = { 2 };
	struct pvfs_cap c = { .fsid = 7, .ino = 5, .gen = 1,
		.rights = PVFS_R_READ, .expiry = 1000 };
	int why = -1;

	pvfs_cap_sign(&c, key, sizeof(key));
	assert_int_equal(pvfs_cap_check(&c, key, 32, PVFS_R_READ, 999, 7, &why), 0);
	assert_int_equal(why, PVFS_CAP_OK);
	assert_int_equal(pvfs_cap_check(&c, other, 32, PVFS_R_READ, 999, 0, &why),
	    -EACCES);
	assert_int_equal(why, PVFS_CAP_BAD_MAC);
	assert_int_equal(pvfs_cap_check(&c, key, 32, PVFS_R_READ, 1001, 0, &why),
	    -EKEYEXPIRED);
	assert_int_equal(why, PVFS_CAP_EXPIRED);
	assert_int_equal(pvfs_cap_check(&c, key, 32, PVFS_R_WRITE, 999, 0, &why),
	    -EACCES);
	assert_int_equal(why, PVFS_CAP_NO_RIGHT);
	assert_int_equal(pvfs_cap_check(&c, key, 32, PVFS_R_READ, 999, 8, &why),
	    -EACCES);
	assert_int_equal(why, PVFS_CAP_OTHER_FS);
	c.ino = 6; /* a forged field breaks the MAC */
	assert_int_equal(pvfs_cap_check(&c, key, 32, PVFS_R_READ, 999, 0, &why),
	    -EACCES);
	assert_int_equal(why, PVFS_CAP_BAD_MAC);
	assert_non_null(strstr(pvfs_cap_why(PVFS_CAP_BAD_MAC), "bad MAC"));
	assert_string_equal(pvfs_cap_why(PVFS_CAP_EXPIRED), "expired");
	assert_string_equal(pvfs_cap_why(99), "unknown");
}

/* One line a second; the rest are counted. */
static void
test_ratelimit(void **state)
{
	struct pvfs_ratelimit r = { 0, 0 };
	unsigned long held = 99;

	assert_int_equal(pvfs_ratelimit(&r, 5000, &held), 1);
	assert_int_equal(held, 0);
	assert_int_equal(pvfs_ratelimit(&r, 5001, &held), 0);
	assert_int_equal(pvfs_ratelimit(&r, 5999, &held), 0);
	assert_int_equal(pvfs_ratelimit(&r, 6000, &held), 1);
	assert_int_equal(held, 2);
	assert_int_equal(pvfs_ratelimit(&r, 9000, &held), 1);
	assert_int_equal(held, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key_mode_600_ok,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_world_readable_refused,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_group_writable_refused,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_group_read,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_dir_writable_refused,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_foreign_owner_refused,
		    key_setup, key_teardown),
		cmocka_unit_test_setup_teardown(test_key_create_never_replaces,
		    key_setup, key_teardown),
		cmocka_unit_test(test_iodtab_bad_lines),
		cmocka_unit_test(test_iodtab_random_bytes),
		cmocka_unit_test_setup_teardown(test_iodtab_load,
		    key_setup, key_teardown),
		cmocka_unit_test(test_pvfstab_bad_lines),
		cmocka_unit_test(test_cap_reasons),
		cmocka_unit_test(test_ratelimit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
