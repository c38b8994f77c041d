/* test_peer_limit.c - connections per peer: defaults, option text, the
 * count per TCP address over loopback (127.0.0.0/8 gives many peers), and
 * Unix peers of the daemon's own uid that are never limited. */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common.h"

#define MAX 3
#define NPEERS 600 /* past two per bucket of the first table: it grows */

static int lfd;
static uint16_t port;

static int
setup(void **state)
{
	pvfs_peer_limit_init(MAX, 1000);
	lfd = pvfs_net_listen("127.0.0.1", 0, &port);
	return lfd == -1 ? -1 : 0;
}

static int
teardown(void **state)
{
	close(lfd);
	return 0;
}

/* A connection from 127.0.x.y (host = x * 256 + y) accepted: its server
 * end.  The client end goes to *cfd. */
static int
conn_from(unsigned host, int *cfd)
{
	struct sockaddr_in src, dst;
	int fd, sfd;

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f000000u | host);
	dst = src;
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons(port);
	assert_int_not_equal(fd = socket(AF_INET, SOCK_STREAM, 0), -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof(src)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&dst, sizeof(dst)), 0);
	assert_int_not_equal(sfd = pvfs_net_accept(lfd), -1);
	*cfd = fd;
	return sfd;
}

static void
test_default(void **state)
{
	assert_int_equal(pvfs_peer_limit_default(20000), 2500);
	assert_int_equal(pvfs_peer_limit_default(64), PVFS_PEER_LIMIT_MIN);
	assert_int_equal(pvfs_peer_limit_default(-1), PVFS_PEER_LIMIT_UNKNOWN);
}

static void
test_parse(void **state)
{
	static const char *bad[] = { "", "x", "-1", " 5", "5 ", "1e3",
		"4294967295", "99999999999999999999" };
	unsigned v = 7;

	assert_int_equal(pvfs_peer_limit_parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pvfs_peer_limit_parse("2500", &v), 0);
	assert_int_equal(v, 2500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (pvfs_peer_limit_parse(bad[i], &v) == 0)
			fail_msg("\"%s\" accepted", bad[i]);
}

/* MAX per address; one released makes room; others are unaffected. */
static void
test_tcp_limit(void **state)
{
	struct pvfs_peer *slot[MAX + 1], *other;
	int sfd[MAX + 2], cfd[MAX + 2];

	for (int i = 0; i < MAX; i++) {
		sfd[i] = conn_from(2, &cfd[i]);
		assert_int_equal(pvfs_peer_limit_take(sfd[i], &slot[i]), 0);
		assert_non_null(slot[i]);
	}
	sfd[MAX] = conn_from(2, &cfd[MAX]);
	assert_int_equal(pvfs_peer_limit_take(sfd[MAX], &slot[MAX]), -1);
	sfd[MAX + 1] = conn_from(3, &cfd[MAX + 1]);
	assert_int_equal(pvfs_peer_limit_take(sfd[MAX + 1], &other), 0);
	pvfs_peer_limit_release(slot[0]);
	assert_int_equal(pvfs_peer_limit_take(sfd[MAX], &slot[0]), 0);
	for (int i = 0; i < MAX; i++)
		pvfs_peer_limit_release(slot[i]);
	pvfs_peer_limit_release(other);
	for (int i = 0; i < MAX + 2; i++) {
		close(sfd[i]);
		close(cfd[i]);
	}
}

/* Many peers: each counted apart while the table grows under them. */
static void
test_many_peers(void **state)
{
	static struct pvfs_peer *slot[NPEERS];
	static int sfd[NPEERS], cfd[NPEERS];
	int s, c;

	for (int i = 0; i < NPEERS; i++) {
		sfd[i] = conn_from(256 + (unsigned)i, &cfd[i]);
		assert_int_equal(pvfs_peer_limit_take(sfd[i], &slot[i]), 0);
	}
	for (int i = 0; i < NPEERS; i += 97) {
		s = conn_from(256 + (unsigned)i, &c);
		assert_int_equal(pvfs_peer_limit_take(s, &slot[i]), 0);
		pvfs_peer_limit_release(slot[i]);
		close(s);
		close(c);
	}
	for (int i = 0; i < NPEERS; i++) {
		pvfs_peer_limit_release(slot[i]);
		close(sfd[i]);
		close(cfd[i]);
	}
}

/* A Unix peer of our own uid (root, or the daemon's user) is not
 * counted, however many connections it holds. */
static void
test_own_uid_exempt(void **state)
{
	struct pvfs_peer *slot;
	int sv[2];

	for (int i = 0; i < 2 * MAX; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		assert_int_equal(pvfs_peer_limit_take(sv[0], &slot), 0);
		assert_null(slot);
		close(sv[0]);
		close(sv[1]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_tcp_limit),
		cmocka_unit_test(test_many_peers),
		cmocka_unit_test(test_own_uid_exempt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
