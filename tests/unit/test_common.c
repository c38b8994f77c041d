/* test_common.c - crypto vectors, capabilities, config parsers, buffers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"

static void
hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void
test_sha256_vectors(void **state)
{
	struct pvfs_sha256 s;
	uint8_t d[32];
	char h[65], block[1000];
	int i;

	pvfs_sha256_init(&s);
	pvfs_sha256_update(&s, "abc", 3);
	pvfs_sha256_final(&s, d);
	hex(d, 32, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	pvfs_sha256_init(&s);
	pvfs_sha256_final(&s, d);
	hex(d, 32, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	memset(block, 'a', sizeof(block));
	pvfs_sha256_init(&s);
	for (i = 0; i < 1000; i++)
		pvfs_sha256_update(&s, block, sizeof(block));
	pvfs_sha256_final(&s, d);
	hex(d, 32, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* RFC 4231 test cases 1, 2 and 6 (key longer than a block). */
static void
test_hmac_vectors(void **state)
{
	uint8_t key[131], d[32];
	char h[65];

	memset(key, 0x0b, 20);
	pvfs_hmac_sha256(key, 20, "Hi There", 8, d);
	hex(d, 32, h);
	assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	pvfs_hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, d);
	hex(d, 32, h);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key, 0xaa, sizeof(key));
	pvfs_hmac_sha256(key, sizeof(key),
	    "Test Using Larger Than Block-Size Key - Hash Key First", 54, d);
	hex(d, 32, h);
	assert_string_equal(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void
test_crc32c_check_value(void **state)
{
	assert_int_equal(pvfs_crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(pvfs_crc32c(pvfs_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

/* The bit-at-a-time definition, against which the fast paths are held. */
static uint32_t
crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n-- > 0) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

/* Every length up to a few words, at every alignment, and chained: the
 * instruction path takes 8 bytes at a time and then the tail. */
static void
test_crc32c_lengths(void **state)
{
	uint8_t buf[200];
	size_t off, len, i;
	uint32_t seed = 12345;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	for (off = 0; off < 8; off++) {
		for (len = 0; len + off <= 80; len++) {
			assert_int_equal(pvfs_crc32c(0, buf + off, len),
			    crc32c_bitwise(0, buf + off, len));
			assert_int_equal(pvfs_crc32c(0x1234567u, buf + off, len),
			    crc32c_bitwise(0x1234567u, buf + off, len));
		}
	}
	assert_int_equal(pvfs_crc32c(pvfs_crc32c(0, buf, 13), buf + 13, 187),
	    crc32c_bitwise(0, buf, 200));
}

static void
test_cap_verify(void **state)
{
	const uint8_t key[32] = "0123456789abcdef0123456789abcde";
	const uint8_t other[32] = "0123456789abcdef0123456789abcdX";
	struct pvfs_cap c = { .fsid = 7, .ino = 42, .gen = 0x1122334455667788ull,
		.rights = PVFS_R_READ | PVFS_R_SIZE, .expiry = 1000,
		.dist = { 1, 4, 65536 }, .mac = { 0 } }, t;

	pvfs_cap_sign(&c, key, sizeof(key));
	assert_int_equal(pvfs_cap_verify(&c, key, sizeof(key), PVFS_R_READ, 999), 0);
	assert_int_equal(pvfs_cap_verify(&c, key, sizeof(key), PVFS_R_WRITE, 999), -EACCES);
	assert_int_equal(pvfs_cap_verify(&c, key, sizeof(key), PVFS_R_READ, 1001), -EKEYEXPIRED);
	assert_int_equal(pvfs_cap_verify(&c, other, sizeof(other), PVFS_R_READ, 999), -EACCES);
	t = c, t.ino++;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	/* (ino, gen) names the stripe files: a cap for another file of the
	 * same inode number must not verify, nor one for its legacy name. */
	t = c, t.gen ^= 1;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.gen = 0;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.rights |= PVFS_R_WRITE;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.expiry += 1000;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.dist.pcount = 1;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.fsid = 8;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.rights = 0; /* a validly signed cap granting nothing */
	pvfs_cap_sign(&t, key, sizeof(key));
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
	t = c, t.mac[31] ^= 1;
	assert_int_equal(pvfs_cap_verify(&t, key, sizeof(key), 0, 0), -EACCES);
}

static void
test_pvfstab_parse(void **state)
{
	const char *text =
	    "# comment\n"
	    "\n"
	    "node0:/pvfs-meta /pvfs/ pvfs port=3001,timeout=7 0 0\n"
	    "  other:/m  /scratch  pvfs  defaults\n"
	    "third:/x /a/b pvfs\n";
	struct pvfs_tab_entry *e = NULL;
	char *cause = NULL;
	int n = pvfs_tab_parse(text, "tab", &e, &cause);

	assert_int_equal(n, 3);
	assert_string_equal(e[0].host, "node0");
	assert_string_equal(e[0].meta_dir, "/pvfs-meta");
	assert_string_equal(e[0].prefix, "/pvfs");
	assert_int_equal(e[0].port, 3001);
	assert_int_equal(e[0].timeout_ms, 7000);
	assert_string_equal(e[1].prefix, "/scratch");
	assert_int_equal(e[1].port, PVFS_DEFAULT_MGR_PORT);
	assert_int_equal(e[1].timeout_ms, 0);
	assert_string_equal(e[2].prefix, "/a/b");
	free(e);
}

static void
test_pvfstab_errors_name_the_line(void **state)
{
	const char *bad[] = {
		"h:/m /p pvfs\nnocolon /p pvfs\n",
		"h:/m relative pvfs\n",
		"h:/m /p nfs\n",
		"h:/m /p pvfs port=70000\n",
		"h:/m /p pvfs port=x\n",
		"h:/m /p pvfs timeout=0\n",
		"h:/m /p\n",
	};
	struct pvfs_tab_entry *e = NULL;
	char *cause = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pvfs_tab_parse(bad[i], "tab", &e, &cause), -1);
		assert_non_null(cause);
		assert_true(strncmp(cause, "tab:", 4) == 0);
		free(cause);
		cause = NULL;
	}
	assert_int_equal(pvfs_tab_parse("h:/m /p pvfs\nx /p pvfs\n", "t", &e, &cause), -1);
	assert_non_null(strstr(cause, "t:2:"));
	free(cause);
}

static void
test_iodtab_parse(void **state)
{
	struct pvfs_iod_addr *a = NULL;
	char *cause = NULL;

	assert_int_equal(pvfs_iodtab_parse("127.0.0.1:7001\n# c\nhost2\n[::1]:9\n",
	    "iodtab", &a, &cause), 3);
	assert_string_equal(a[0].host, "127.0.0.1");
	assert_int_equal(a[0].port, 7001);
	assert_string_equal(a[1].host, "host2");
	assert_int_equal(a[1].port, PVFS_DEFAULT_IOD_PORT);
	assert_string_equal(a[2].host, "::1");
	assert_int_equal(a[2].port, 9);
	free(a);
	assert_int_equal(pvfs_iodtab_parse("h:0\n", "iodtab", &a, &cause), -1);
	free(cause);
	assert_int_equal(pvfs_iodtab_parse("h:1 h:2\n", "iodtab", &a, &cause), -1);
	free(cause);
}

/* The options of doc/security.md: Unix sockets and MUNGE. */
static void
test_auth_options_parse(void **state)
{
	char longsock[PVFS_SOCK_MAX + 64], line[PVFS_SOCK_MAX + 128];
	struct pvfs_tab_entry *e = NULL;
	struct pvfs_iod_addr *a = NULL;
	char *cause = NULL;

	assert_int_equal(pvfs_tab_parse("h:/m /p pvfs port=1,sock=/r/mgr.sock,"
	    "auth=munge,munge_socket=/r/m.sock\nh:/m /q pvfs\n", "tab", &e,
	    &cause), 2);
	assert_string_equal(e[0].sock, "/r/mgr.sock");
	assert_int_equal(e[0].auth, PVFS_AUTH_MUNGE);
	assert_string_equal(e[0].munge_sock, "/r/m.sock");
	assert_string_equal(e[1].sock, "");
	assert_int_equal(e[1].auth, 0);
	free(e);
	memset(longsock, 'x', sizeof(longsock) - 1);
	longsock[0] = '/';
	longsock[sizeof(longsock) - 1] = '\0';
	snprintf(line, sizeof(line), "h:/m /p pvfs sock=%.*s\n",
	    (int)PVFS_SOCK_MAX + 1, longsock);
	const char *bad[] = { "h:/m /p pvfs sock=rel.sock\n",
		"h:/m /p pvfs auth=krb5\n", "h:/m /p pvfs munge_socket=\n", line };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pvfs_tab_parse(bad[i], "tab", &e, &cause), -1);
		free(cause);
		cause = NULL;
	}
	assert_int_equal(pvfs_iodtab_parse("h:1 unix=/r/iod0.sock\nh:2\n",
	    "iodtab", &a, &cause), 2);
	assert_string_equal(a[0].sock, "/r/iod0.sock");
	assert_string_equal(a[1].sock, "");
	free(a);
	assert_int_equal(pvfs_iodtab_parse("h:1 unix=r.sock\n", "iodtab", &a,
	    &cause), -1);
	free(cause);
}

static void
test_buf_compact_keeps_unsent(void **state)
{
	struct pvfs_buf b;
	int i;

	pvfs_buf_init(&b);
	for (i = 0; i < 1000; i++)
		pvfs_buf_put_u32(&b, (uint32_t)i);
	b.off = 3000;
	pvfs_buf_compact(&b);
	assert_int_equal(b.off, 0);
	assert_int_equal(b.len, 1000);
	assert_int_equal(pvfs_be32_get(b.data), 750);
	b.off = b.len;
	pvfs_buf_compact(&b);
	assert_int_equal(b.len, 0);
	pvfs_buf_free(&b);
}

static void
test_key_create_and_load(void **state)
{
	char dir[] = "/tmp/pvfs-key-XXXXXX", path[64];
	uint8_t key[64];
	size_t len = 0;
	char *cause = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/secret", dir);
	assert_int_equal(pvfs_key_create(path, &cause), 0);
	assert_int_equal(pvfs_key_load(path, key, &len, &cause), 0);
	assert_int_equal(len, 32);
	assert_int_equal(pvfs_write_file_atomic(path, "abcd"), 0);
	assert_int_equal(pvfs_key_load(path, key, &len, &cause), -1);
	free(cause);
	assert_int_equal(pvfs_write_file_atomic(path, "zz00112233445566778899aabbccddeeff"), 0);
	assert_int_equal(pvfs_key_load(path, key, &len, &cause), -1);
	free(cause);
	unlink(path);
	rmdir(dir);
}

static void
test_parse_addr(void **state)
{
	char host[64];
	uint16_t port;

	assert_int_equal(pvfs_net_parse_addr("1.2.3.4:99", host, sizeof(host), &port, 5), 0);
	assert_string_equal(host, "1.2.3.4");
	assert_int_equal(port, 99);
	assert_int_equal(pvfs_net_parse_addr("name", host, sizeof(host), &port, 5), 0);
	assert_int_equal(port, 5);
	assert_int_equal(pvfs_net_parse_addr(":1", host, sizeof(host), &port, 5), -1);
	assert_int_equal(pvfs_net_parse_addr("h:", host, sizeof(host), &port, 5), -1);
	assert_int_equal(pvfs_net_parse_addr("h:65536", host, sizeof(host), &port, 5), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_hmac_vectors),
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_crc32c_lengths),
		cmocka_unit_test(test_cap_verify),
		cmocka_unit_test(test_pvfstab_parse),
		cmocka_unit_test(test_pvfstab_errors_name_the_line),
		cmocka_unit_test(test_iodtab_parse),
		cmocka_unit_test(test_auth_options_parse),
		cmocka_unit_test(test_buf_compact_keeps_unsent),
		cmocka_unit_test(test_key_create_and_load),
		cmocka_unit_test(test_parse_addr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
