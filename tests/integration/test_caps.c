/*
 * test_caps.c - an iod serves a file's bytes only to a holder of a valid
 * capability from the mgr.  A raw client presents forged, re-signed,
 * expired, wrong-inode, wrong-fsid, wrong-distribution and too-weak
 * capabilities to every kind of iod request; each is refused, the files'
 * bytes stay as they were, and the iod keeps serving.  Every refusal has a
 * positive control: the same request with the capability the mgr gave.
 * On the mgr's side, capabilities are minted only as the mode and the
 * path's directories allow, even when asked for by inode number.
 */
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "cluster.h"

#define NIODS 3
#define SSIZE 65536
#define DATA_LEN (2 * NIODS * SSIZE + 777)

static struct cluster c;
static uint8_t key[64];
static size_t keylen;
static uint8_t data_a[DATA_LEN], data_b[DATA_LEN];

/* The request of op for the iod holding part 0 of cap's file, sent on a
 * fresh connection; the reply's status, after reading what a success
 * carries (a READ's stream must be the first stripe of want). */
static int
iod_try(uint16_t op, const struct pvfs_cap *cap, const uint8_t *want)
{
	union {
		struct pvfs_iod_read_req read;
		struct pvfs_iod_write_req write;
		struct pvfs_iod_truncate_req trunc;
		struct pvfs_iod_cap_req remove;
		struct pvfs_iod_fsync_req fsync;
		struct pvfs_iod_size_req size;
	} rq;
	static uint8_t stream[SSIZE];
	struct pvfs_pattern first = { 0, SSIZE, SSIZE, 1 };
	struct pvfs_iod_read_rep rep;
	struct pvfs_hdr h;
	uint8_t body[256];
	char name[16];
	int fd, st;

	memset(&rq, 0, sizeof(rq));
	switch (op) {
	case PVFS_IOD_READ: rq.read.cap = *cap, rq.read.pat = first; break;
	case PVFS_IOD_WRITE:
		rq.write.cap = *cap, rq.write.pat = first;
		rq.write.stream_len = SSIZE;
		break;
	case PVFS_IOD_TRUNCATE: rq.trunc.cap = *cap; break;
	case PVFS_IOD_REMOVE: rq.remove.cap = *cap; break;
	case PVFS_IOD_FSYNC: rq.fsync.cap = *cap; break;
	case PVFS_IOD_SIZE: rq.size.cap = *cap; break;
	default: fail_msg("op 0x%x", op);
	}
	snprintf(name, sizeof(name), "iod%u", cap->dist.base % NIODS);
	fd = raw_connect(&c, name, 5);
	raw_send_frame(fd, op, 0, &rq);
	if (op == PVFS_IOD_WRITE) {
		memset(stream, 0xa5, sizeof(stream));
		raw_send(fd, stream, sizeof(stream));
	}
	if ((st = raw_status(fd, &h)) == 0) {
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
	}
	if (st == 0 && op == PVFS_IOD_READ) {
		assert_int_equal(pvfs_msg_decode(op, 1, body, h.body_len, &rep), 0);
		assert_int_equal(rep.stream_len, SSIZE);
		assert_int_equal(raw_read(fd, stream, SSIZE), 0);
		assert_non_null(want); /* a read that should have been refused */
		assert_memory_equal(stream, want, SSIZE);
	}
	/* The connection stays usable after a refusal. */
	raw_send_frame(fd, PVFS_IOD_PING, 0, NULL);
	assert_int_equal(raw_status(fd, &h), 0);
	close(fd);
	return st;
}

/* MGR_GETATTR of ino asking for rights, with a claimed identity (our
 * connection is root's, through the Unix socket: it may claim any). */
static int
mgr_getattr_as(uint32_t uid, uint32_t gid, uint64_t ino, uint32_t rights,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_getattr_req req;
	struct pvfs_hdr h;
	uint8_t body[1024];
	int fd = raw_connect_unix(&c, "mgr", 10), st;

	memset(&req, 0, sizeof(req));
	req.cred.uid = uid;
	req.cred.gid = gid;
	req.ino = ino;
	req.rights = rights;
	raw_send_frame(fd, PVFS_MGR_GETATTR, 0, &req);
	if ((st = raw_status(fd, &h)) == 0) {
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
		assert_int_equal(pvfs_msg_decode(PVFS_MGR_GETATTR, 1, body,
		    h.body_len, rep), 0);
	}
	close(fd);
	return st;
}

/* MGR_READDIR of a directory by inode, with a claimed identity. */
static int
mgr_readdir_as(uint32_t uid, uint64_t ino)
{
	struct pvfs_mgr_readdir_req req;
	struct pvfs_hdr h;
	uint8_t body[65536];
	int fd = raw_connect_unix(&c, "mgr", 10), st;

	memset(&req, 0, sizeof(req));
	req.cred.uid = req.cred.gid = uid;
	req.ino = ino;
	raw_send_frame(fd, PVFS_MGR_READDIR, 0, &req);
	if ((st = raw_status(fd, &h)) == 0) {
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
	}
	close(fd);
	return st;
}

static int
write_file(const char *name, const uint8_t *buf)
{
	char path[PATH_MAX];
	int fd = pvfs_open(cluster_path(&c, name, path), O_CREAT | O_WRONLY, 0644);

	if (fd < 0 || pvfs_write(fd, buf, DATA_LEN) != DATA_LEN)
		return -1;
	return pvfs_close(fd);
}

/* Both files hold what setup wrote, read through the library. */
static void
assert_files_intact(void)
{
	static uint8_t back[DATA_LEN];
	const char *names[] = { "a", "b" };
	const uint8_t *want[] = { data_a, data_b };
	char path[PATH_MAX];
	int i, fd;

	for (i = 0; i < 2; i++) {
		fd = check_ok(pvfs_open(cluster_path(&c, names[i], path), O_RDONLY));
		assert_int_equal(pvfs_pread(fd, back, DATA_LEN, 0), DATA_LEN);
		assert_memory_equal(back, want[i], DATA_LEN);
		check_ok(pvfs_close(fd));
	}
}

static const uint16_t every_op[] = {
	PVFS_IOD_READ, PVFS_IOD_WRITE, PVFS_IOD_TRUNCATE, PVFS_IOD_REMOVE,
	PVFS_IOD_FSYNC, PVFS_IOD_SIZE,
};
#define NOPS (sizeof(every_op) / sizeof(every_op[0]))

/* A capability with every right, as the mgr would sign it for /a. */
static void
full_cap(struct pvfs_cap *cap)
{
	struct pvfs_mgr_attrcap_rep rep;

	raw_open(&c, "/a", PVFS_OF_RDONLY, &rep);
	*cap = rep.cap;
	cap->rights = PVFS_R_ALL;
	pvfs_cap_sign(cap, key, keylen);
}

/* Tampered fields of a capability with every right: each op is refused. */
static void
test_tampered_caps_are_refused(void **state)
{
	struct pvfs_cap good, cap;
	size_t i, t;

	full_cap(&good);
	for (i = 0; i < NOPS; i++) {
		for (t = 0; t < 6; t++) {
			cap = good;
			switch (t) {
			case 0: cap.mac[PVFS_MAC_LEN - 1] ^= 0x80; break;
			case 1: cap.fsid ^= 1; break;
			case 2: cap.ino += 1; break;       /* /b, unsigned */
			case 3: cap.dist.pcount = 1; break;
			case 4: cap.dist.ssize *= 2; break;
			case 5: cap.expiry += 3600; break; /* a longer life */
			}
			if (iod_try(every_op[i], &cap, data_a) != EACCES)
				fail_msg("%s with tamper %zu was not refused",
				    pvfs_op_name(every_op[i]), t);
		}
		/* Signed with any other key: not the mgr's. */
		cap = good;
		pvfs_cap_sign(&cap, (const uint8_t *)"not this file system", 20);
		assert_int_equal(iod_try(every_op[i], &cap, data_a), EACCES);
	}
	assert_int_equal(iod_try(PVFS_IOD_READ, &good, data_a), 0);
	assert_files_intact();
}

/* An expired capability, correctly signed, is refused with EKEYEXPIRED
 * (the client's cue to refresh); forged and expired, the MAC is checked
 * first and it is EACCES, so a forger learns nothing from the expiry. */
static void
test_expired_caps_are_refused(void **state)
{
	struct pvfs_cap good, cap;
	size_t i;

	full_cap(&good);
	for (i = 0; i < NOPS; i++) {
		cap = good;
		cap.expiry = time(NULL) - 2;
		pvfs_cap_sign(&cap, key, keylen);
		assert_int_equal(iod_try(every_op[i], &cap, data_a), EKEYEXPIRED);
		cap.mac[0] ^= 1;
		assert_int_equal(iod_try(every_op[i], &cap, data_a), EACCES);
	}
	assert_files_intact();
}

/* 1 if some iod's log holds text. */
static int
iod_logged(const char *text)
{
	char path[PATH_MAX], *log;
	int i, found = 0;

	for (i = 0; i < c.niods && !found; i++) {
		snprintf(path, sizeof(path), "%s/run/iod%d.log", c.dir, i);
		if ((log = pvfs_read_small_file(path, 1 << 24, NULL)) == NULL)
			continue;
		found = strstr(log, text) != NULL;
		free(log);
	}
	return found;
}

/* The iod says why it refused, or a key that differs from the mgr's and
 * a clock ahead of the mgr's both look like EACCES and nothing else. */
static void
test_iod_logs_why(void **state)
{
	struct pvfs_cap good, cap;

	full_cap(&good);
	usleep(1100 * 1000); /* past the rate limit of the tests before */
	cap = good;
	cap.expiry = time(NULL) - 2;
	pvfs_cap_sign(&cap, key, keylen);
	assert_int_equal(iod_try(PVFS_IOD_READ, &cap, data_a), EKEYEXPIRED);
	cap = good;
	cap.mac[0] ^= 1;
	assert_int_equal(iod_try(PVFS_IOD_READ, &cap, data_a), EACCES);
	cap = good;
	cap.rights = PVFS_R_READ;
	pvfs_cap_sign(&cap, key, keylen);
	assert_int_equal(iod_try(PVFS_IOD_WRITE, &cap, data_a), EACCES);
	assert_true(iod_logged("warn: capability refused: expired: file system"));
	assert_true(iod_logged("warn: capability refused: bad MAC (forged, or "
	    "signed with another key)"));
	assert_true(iod_logged("warn: capability refused: missing a needed right"));
}

/* A valid capability for /a names /a only: /b cannot be reached with it,
 * and /b's own capability reads /b's bytes. */
static void
test_cap_names_one_file(void **state)
{
	struct pvfs_mgr_attrcap_rep ra, rb;
	struct pvfs_cap cap;

	raw_open(&c, "/a", PVFS_OF_RDWR, &ra);
	raw_open(&c, "/b", PVFS_OF_RDONLY, &rb);
	assert_true(ra.cap.ino != rb.cap.ino);
	assert_int_equal(iod_try(PVFS_IOD_READ, &ra.cap, data_a), 0);
	assert_int_equal(iod_try(PVFS_IOD_READ, &rb.cap, data_b), 0);
	cap = ra.cap;
	cap.ino = rb.cap.ino;
	assert_int_equal(iod_try(PVFS_IOD_READ, &cap, data_b), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_WRITE, &cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_TRUNCATE, &cap, NULL), EACCES);
	assert_files_intact();
}

/* IOD_SIZE_LIST checks each pair's capability on its own: a forged one
 * fails its item alone, and the good ones answer as IOD_SIZE does. */
static void
test_size_list_items_stand_alone(void **state)
{
	struct pvfs_iod_size_ent ents[3];
	struct pvfs_iod_size_list_req req = { .n = 3, .ents = ents };
	struct pvfs_iod_size_list_rep rep;
	struct pvfs_mgr_attrcap_rep ra;
	struct pvfs_hdr h;
	static uint8_t body[4096];
	char name[16];
	int fd;

	raw_open(&c, "/a", PVFS_OF_RDONLY, &ra);
	memset(ents, 0, sizeof(ents));
	ents[0].cap = ents[1].cap = ents[2].cap = ra.cap;
	ents[1].cap.mac[0] ^= 1;
	snprintf(name, sizeof(name), "iod%u", ra.cap.dist.base % NIODS);
	fd = raw_connect(&c, name, 5);
	raw_send_frame(fd, PVFS_IOD_SIZE_LIST, 0, &req);
	assert_int_equal(raw_status(fd, &h), 0);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(pvfs_msg_decode(PVFS_IOD_SIZE_LIST, 1, body, h.body_len,
	    &rep), 0);
	assert_int_equal(rep.n, 3);
	assert_int_equal(rep.items[0].status, 0);
	assert_int_equal(rep.items[1].status, EACCES);
	assert_int_equal(rep.items[2].status, 0);
	/* rel 0 holds the file's first stripe: its end is at least that. */
	assert_true(rep.items[0].size.logical_end >= SSIZE);
	assert_int_equal(rep.items[0].size.logical_end,
	    rep.items[2].size.logical_end);
	pvfs_msg_free(PVFS_IOD_SIZE_LIST, 1, &rep);
	close(fd);
}

/* Each right opens its own requests only.  Rights as the mgr grants them:
 * O_RDONLY (READ|SIZE), stat (SIZE), O_WRONLY (WRITE|SIZE). */
static void
test_weak_caps_are_refused(void **state)
{
	struct pvfs_mgr_attrcap_rep ro, wo;
	struct pvfs_cap size_only;

	raw_open(&c, "/a", PVFS_OF_RDONLY, &ro);
	raw_open(&c, "/a", PVFS_OF_WRONLY, &wo);
	size_only = ro.cap;
	size_only.rights = PVFS_R_SIZE;
	pvfs_cap_sign(&size_only, key, keylen);
	assert_int_equal(iod_try(PVFS_IOD_WRITE, &ro.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_TRUNCATE, &ro.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_REMOVE, &ro.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_REMOVE, &wo.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_READ, &wo.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_READ, &size_only, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_WRITE, &size_only, NULL), EACCES);
	/* What they do grant. */
	assert_int_equal(iod_try(PVFS_IOD_READ, &ro.cap, data_a), 0);
	assert_int_equal(iod_try(PVFS_IOD_SIZE, &size_only, NULL), 0);
	assert_int_equal(iod_try(PVFS_IOD_FSYNC, &size_only, NULL), 0);
	assert_files_intact();
}

/* MGR_UNLINK of path as root: the capability the reply carries. */
static void
mgr_unlink(const char *path, struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_path_req req;
	struct pvfs_hdr h;
	uint8_t body[1024];
	int fd = raw_connect_unix(&c, "mgr", 10);

	memset(&req, 0, sizeof(req));
	snprintf(req.path, sizeof(req.path), "%s", path);
	raw_send_frame(fd, PVFS_MGR_UNLINK, 0, &req);
	assert_int_equal(raw_status(fd, &h), 0);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_UNLINK, 1, body, h.body_len,
	    rep), 0);
	close(fd);
}

/* Size of the stripe file of ino on the iod holding part 0, -1 if none. */
static long long
stripe_size(const struct pvfs_cap *cap)
{
	char path[PATH_MAX];
	struct stat st;

	cluster_stripe_name(&c, (int)(cap->dist.base % NIODS), cap->ino,
	    cap->gen, path);
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The positive controls of the destructive requests, on a scratch file:
 * the capabilities the mgr hands out do write, truncate and remove. */
static void
test_granted_caps_work(void **state)
{
	struct pvfs_mgr_attrcap_rep rw, rm;
	static uint8_t back[SSIZE], want[SSIZE];
	char path[PATH_MAX];
	double t0;
	int fd;

	assert_int_equal(write_file("scratch", data_b), 0);
	raw_open(&c, "/scratch", PVFS_OF_RDWR, &rw);
	assert_int_equal(iod_try(PVFS_IOD_WRITE, &rw.cap, NULL), 0);
	fd = check_ok(pvfs_open(cluster_path(&c, "scratch", path), O_RDONLY));
	assert_int_equal(pvfs_pread(fd, back, SSIZE, 0), SSIZE);
	check_ok(pvfs_close(fd));
	memset(want, 0xa5, sizeof(want));
	assert_memory_equal(back, want, SSIZE);
	assert_true(stripe_size(&rw.cap) >= SSIZE);
	assert_int_equal(iod_try(PVFS_IOD_TRUNCATE, &rw.cap, NULL), 0);
	assert_int_equal(stripe_size(&rw.cap), 0);
	/* No client gets a REMOVE right, not even with the unlink of the
	 * last name: the mgr removes the stripes itself, soon after. */
	mgr_unlink("/scratch", &rm);
	assert_int_equal(rm.cap.ino, rw.cap.ino);
	assert_int_equal(rm.cap.rights, PVFS_R_SIZE);
	assert_int_equal(iod_try(PVFS_IOD_REMOVE, &rw.cap, NULL), EACCES);
	assert_int_equal(iod_try(PVFS_IOD_REMOVE, &rm.cap, NULL), EACCES);
	t0 = mono_now();
	while (stripe_size(&rm.cap) != -1 && mono_now() - t0 < 10)
		usleep(20 * 1000);
	assert_int_equal(stripe_size(&rm.cap), -1);
	assert_files_intact();
}

/* The mgr mints rights only for those the mode allows, and REMOVE never
 * on request: a capability cannot be had by asking. */
static void
test_mgr_grants_by_mode(void **state)
{
	struct pvfs_mgr_attrcap_rep rep;
	char path[PATH_MAX];
	uint64_t ino;

	raw_open(&c, "/a", PVFS_OF_RDONLY, &rep);
	ino = rep.cap.ino;
	check_ok(pvfs_chmod(cluster_path(&c, "a", path), 0640));
	check_ok(pvfs_chown(path, 0, 1234));
	assert_int_equal(mgr_getattr_as(1001, 1001, ino, PVFS_R_READ, &rep), EACCES);
	assert_int_equal(mgr_getattr_as(1001, 1001, ino, PVFS_R_WRITE, &rep), EACCES);
	assert_int_equal(mgr_getattr_as(1001, 1234, ino, PVFS_R_WRITE, &rep), EACCES);
	assert_int_equal(mgr_getattr_as(0, 0, ino, PVFS_R_REMOVE, &rep), EACCES);
	assert_int_equal(mgr_getattr_as(0, 0, ino, ~PVFS_R_ALL, &rep), EINVAL);
	assert_int_equal(mgr_getattr_as(1001, 1001, ino, 0, &rep), 0);
	assert_int_equal(rep.cap.rights, PVFS_R_SIZE);
	assert_int_equal(iod_try(PVFS_IOD_READ, &rep.cap, NULL), EACCES);
	assert_int_equal(mgr_getattr_as(1001, 1234, ino, PVFS_R_READ, &rep), 0);
	assert_int_equal(iod_try(PVFS_IOD_READ, &rep.cap, data_a), 0);
	check_ok(pvfs_chmod(path, 0644));
	assert_files_intact();
}

/* Inode numbers are easy to guess, so a request by inode must not reach
 * what no path lets the caller reach: a file readable by all inside a
 * directory closed to others (0700) is as closed as on a local disk. */
static void
test_no_reach_by_inode(void **state)
{
	struct pvfs_mgr_attrcap_rep rep;
	char dir[PATH_MAX], sub[PATH_MAX];
	uint64_t ino, subino;
	struct stat st;

	check_ok(pvfs_mkdir(cluster_path(&c, "priv", dir), 0700));
	check_ok(pvfs_mkdir(cluster_path(&c, "priv/sub", sub), 0755));
	assert_int_equal(write_file("priv/f", data_a), 0);
	check_ok(pvfs_stat(sub, &st));
	subino = st.st_ino;
	raw_open(&c, "/priv/f", PVFS_OF_RDONLY, &rep);
	ino = rep.cap.ino;
	assert_int_equal(mgr_getattr_as(1003, 1003, ino, PVFS_R_READ, &rep), EACCES);
	assert_int_equal(mgr_getattr_as(1003, 1003, ino, 0, &rep), EACCES);
	assert_int_equal(mgr_readdir_as(1003, subino), EACCES);
	/* Search alone opens the way, as it does for a path. */
	check_ok(pvfs_chmod(dir, 0711));
	assert_int_equal(mgr_getattr_as(1003, 1003, ino, PVFS_R_READ, &rep), 0);
	assert_int_equal(iod_try(PVFS_IOD_READ, &rep.cap, data_a), 0);
	assert_int_equal(mgr_readdir_as(1003, subino), 0);
}

/* The cluster's key, to forge capabilities with; files /a and /b. */
static int
group_ready(void)
{
	char path[PATH_MAX], *cause = NULL;
	struct rng r;

	snprintf(path, sizeof(path), "%s/secret", c.dir);
	if (pvfs_key_load(path, key, &keylen, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		return -1;
	}
	rng_init(&r, "test_caps");
	rng_fill(&r, data_a, DATA_LEN);
	rng_fill(&r, data_b, DATA_LEN);
	/* /b is created right after /a: its inode is /a's plus one. */
	return write_file("a", data_a) == 0 && write_file("b", data_b) == 0 ?
	    0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tampered_caps_are_refused),
		cmocka_unit_test(test_expired_caps_are_refused),
		cmocka_unit_test(test_iod_logs_why),
		cmocka_unit_test(test_cap_names_one_file),
		cmocka_unit_test(test_weak_caps_are_refused),
		cmocka_unit_test(test_size_list_items_stand_alone),
		cmocka_unit_test(test_granted_caps_work),
		cmocka_unit_test(test_mgr_grants_by_mode),
		cmocka_unit_test(test_no_reach_by_inode),
	};

	return cluster_run_tests(&c, NIODS, group_ready, tests);
}
