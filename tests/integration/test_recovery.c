/*
 * test_recovery.c - the mgr's metadata fails closed (issue 12): a flipped
 * bit anywhere in the journal stops the mgr with the file, the offset and
 * the valid records after it, and leaves the journal as it was; a cut at
 * a batch boundary or one byte either side is a crash's torn tail and
 * loses nothing acknowledged before it; a missing snapshot or journal
 * stops the mgr, while leftovers of an interrupted checkpoint are removed;
 * salvage keeps everything valid and lists what was lost; SIGKILL during
 * checkpoints loses no acknowledged change.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cluster.h"
#include "files.h"
#include "pvfs.h"

#define JR_HDR 64    /* a format-2 file header */
#define BATCH_HDR 24 /* a batch's frame */
#define NFILES 40

static struct cluster c;

/* ---- files ---- */

static char *
meta_path(const char *name, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/meta/%s", c.dir, name);
	return buf;
}

/* The ends of the batches of a format-2 journal, from its frames. */
static size_t
batch_ends(const uint8_t *p, size_t len, size_t *ends, size_t max)
{
	size_t off = JR_HDR, n = 0;

	assert_true(len >= JR_HDR && memcmp(p, "PVFSJRNL", 8) == 0);
	while (off + BATCH_HDR <= len && n < max) {
		off += BATCH_HDR + ((size_t)p[off] << 24 | (size_t)p[off + 1] << 16 |
		    (size_t)p[off + 2] << 8 | p[off + 3]);
		ends[n++] = off;
	}
	assert_int_equal(off, len);
	return n;
}

/* ---- the mgr alone ---- */

/* Run pvfs-mgr on the metadata directory in the foreground: its exit
 * status, or 0 if it started (it is then stopped); its stderr in out. */
static int
mgr_try(char *out, size_t outlen)
{
	char bin[PATH_MAX], meta[PATH_MAX], key[PATH_MAX], port[PATH_MAX];
	char errf[PATH_MAX];
	int status = 0, i, fd;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/pvfs-mgr", getenv("PVFS_BUILDDIR"));
	snprintf(meta, sizeof(meta), "%s/meta", c.dir);
	snprintf(key, sizeof(key), "%s/secret", c.dir);
	snprintf(port, sizeof(port), "%s/try.port", c.dir);
	snprintf(errf, sizeof(errf), "%s/try.err", c.dir);
	unlink(port);
	if ((pid = fork()) == 0) {
		fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(bin, bin, "-f", "-d", meta, "-k", key, "-l", "127.0.0.1:0",
		    "--port-file", port, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (access(port, F_OK) == 0) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
			status = 0;
			break;
		}
		usleep(10000);
	}
	assert_true(i < 1000);
	file_text(errf, out, outlen);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* ---- the name space ---- */

static void
make_files(const char *dir, int n)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/pvfs%s/f%d", dir, i);
		check_ok(pvfs_close(check_ok(pvfs_creat(path, 0644))));
	}
}

static int
count_names(const char *dir)
{
	char path[PATH_MAX];
	PVFS_DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/pvfs%s", dir);
	d = pvfs_opendir(path);
	if (d == NULL)
		fail_msg("opendir %s: %s", path, strerror(errno));
	while ((e = pvfs_readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	pvfs_closedir(d);
	return n;
}

/* A new, empty file system on the same directory.  The client library
 * keeps the daemons' socket paths and the file system it first met for
 * the life of the process (it refuses another one's mgr), so every fresh
 * file system gets the same id: the format 1 fixture's. */
#define RECOVERY_FSID "83b5202c4c7fc04d"

static void
fresh_cluster(const char *journal_max)
{
	char cmd[4 * PATH_MAX];

	if (c.running)
		assert_int_equal(cluster_stop(&c), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/meta %s/iod0 %s/iod1 %s/aside "
	    "%s/acked && for k in 0 1; do mkdir -m 700 %s/iod$k && "
	    "%s/pvfs-iod --format --fsid %s --index $k -d %s/iod$k >/dev/null "
	    "|| exit 1; done", c.dir, c.dir, c.dir, c.dir, c.dir, c.dir,
	    getenv("PVFS_BUILDDIR"), RECOVERY_FSID, c.dir);
	assert_int_equal(system(cmd), 0);
	if (journal_max != NULL)
		setenv("PVFS_MGR_JOURNAL_MAX", journal_max, 1);
	else
		unsetenv("PVFS_MGR_JOURNAL_MAX");
	assert_int_equal(cluster_start_again(&c), 0);
}

static void
drop_cluster(void)
{
	unsetenv("PVFS_MGR_JOURNAL_MAX");
}

/* ---- bit flips ---- */

/* Flip one bit inside batch `which` of journal.1 and expect a refusal
 * that names the place, with the journal left exactly as it was. */
static void
flip_and_refuse(int which_batch, size_t nbatches, int expect_after)
{
	char path[PATH_MAX], out[4096], want[128];
	size_t len, len2, ends[NFILES + 8], n, off;
	uint8_t *p, *q;

	meta_path("journal.1", path);
	p = file_slurp(path, &len);
	n = batch_ends(p, len, ends, NFILES + 8);
	assert_int_equal(n, nbatches);
	if (which_batch < 0)
		which_batch = (int)n - 1;
	off = (which_batch == 0 ? JR_HDR : ends[which_batch - 1]) + BATCH_HDR + 5;
	p[off] ^= 0x08;
	file_spill(path, p, len);
	assert_int_not_equal(mgr_try(out, sizeof(out)), 0);
	assert_contains(out, path);
	snprintf(want, sizeof(want), "corrupt data at offset %zu",
	    which_batch == 0 ? (size_t)JR_HDR : ends[which_batch - 1]);
	assert_contains(out, want);
	snprintf(want, sizeof(want), "followed by %d valid records",
	    expect_after);
	assert_contains(out, want);
	assert_contains(out, "--salvage");
	q = file_slurp(path, &len2); /* untouched: not cut, not rewritten */
	assert_int_equal(len2, len);
	assert_memory_equal(p, q, len);
	free(p);
	free(q);
}

static void
test_flip_first_middle_last(void **state)
{
	int which[3] = { 0, NFILES / 2, -1 }, k;

	(void)state;
	for (k = 0; k < 3; k++) {
		fresh_cluster(NULL);
		make_files("", NFILES);
		assert_int_equal(cluster_stop(&c), 0);
		/* batches: the root's attributes, then one per file */
		flip_and_refuse(which[k], NFILES + 1,
		    k == 0 ? NFILES : k == 1 ? NFILES / 2 : 0);
		drop_cluster();
	}
}

/* ---- salvage ---- */

static void
run_salvage(const char *dest, char *out, size_t outlen)
{
	char cmd[4 * PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s/pvfs-mgr -d %s/meta --salvage %s 2>&1",
	    getenv("PVFS_BUILDDIR"), c.dir, dest);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	if (pclose(f) != 0)
		fail_msg("salvage failed: %s", out);
}

static void
test_salvage_keeps_the_rest(void **state)
{
	char path[PATH_MAX], dest[PATH_MAX], damaged[PATH_MAX], out[8192];
	size_t len, len2;
	uint8_t *p, *q;
	struct stat st;

	(void)state;
	fresh_cluster(NULL);
	check_ok(pvfs_mkdir("/pvfs/d", 0755));
	make_files("/d", NFILES);
	assert_int_equal(cluster_stop(&c), 0);
	flip_and_refuse(NFILES / 2 + 1, NFILES + 2, NFILES / 2);
	meta_path("journal.1", path);
	p = file_slurp(path, &len);
	snprintf(dest, sizeof(dest), "%s/meta.salvaged", c.dir);
	run_salvage(dest, out, sizeof(out));
	assert_contains(out, "damaged: ");
	assert_contains(out, "lost: inode");
	assert_contains(out, "written");
	q = file_slurp(path, &len2); /* the damaged directory is left as it was */
	assert_int_equal(len, len2);
	assert_memory_equal(p, q, len);
	assert_true(snprintf(path, sizeof(path), "%s/salvage-report", dest) <
	    (int)sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	/* Start on the salvaged directory: every file but the lost one. */
	snprintf(damaged, sizeof(damaged), "%s/meta.damaged", c.dir);
	snprintf(path, sizeof(path), "%s/meta", c.dir);
	assert_int_equal(rename(path, damaged), 0);
	assert_int_equal(rename(dest, path), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(count_names("/d"), NFILES - 1);
	check_ok(pvfs_stat("/pvfs/d/f0", &st));
	check_ok(pvfs_stat("/pvfs/d/f39", &st));
	check_ok(pvfs_mkdir("/pvfs/e", 0755)); /* and it takes new changes */
	make_files("/e", 3);
	assert_int_equal(cluster_restart(&c), 0);
	assert_int_equal(count_names("/e"), 3);
	assert_int_equal(count_names("/d"), NFILES - 1);
	free(p);
	free(q);
	drop_cluster();
}

/* ---- torn tails ---- */

static void
test_cut_at_boundaries(void **state)
{
	char path[PATH_MAX], out[4096];
	size_t len, ends[NFILES + 8], n, i, cut, kept;
	uint8_t *p, *q;
	int d, names;

	(void)state;
	fresh_cluster(NULL);
	make_files("", 12);
	assert_int_equal(cluster_stop(&c), 0);
	meta_path("journal.1", path);
	p = file_slurp(path, &len);
	n = batch_ends(p, len, ends, NFILES + 8);
	assert_int_equal(n, 13);
	for (i = 1; i < n; i++) {
		for (d = -1; d <= 1; d++) {
			cut = ends[i] + (size_t)d;
			if (cut > len)
				continue;
			file_spill(path, p, cut);
			assert_int_equal(mgr_try(out, sizeof(out)), 0);
			/* the cut batch is gone, whole batches before it stay */
			kept = d < 0 ? i : i + 1;
			q = file_slurp(path, &cut);
			assert_int_equal(cut, ends[kept - 1]);
			free(q);
			file_spill(path, p, ends[kept - 1]);
			assert_int_equal(cluster_start_again(&c), 0);
			names = count_names("");
			assert_int_equal(names, (int)kept - 1);
			assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
		}
	}
	file_spill(path, p, len);
	free(p);
	drop_cluster();
}

/* ---- missing pieces ---- */

/* The generation of the journal next to the snapshot. */
static unsigned long
current_gen(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	unsigned long g, best = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/meta", c.dir);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (sscanf(e->d_name, "journal.%lu", &g) == 1 && g > best)
			best = g;
	}
	closedir(d);
	return best;
}

static void
test_missing_and_leftover_pieces(void **state)
{
	char snap[PATH_MAX], aside[PATH_MAX], jr[PATH_MAX], name[64], out[4096];
	char other[PATH_MAX];
	unsigned long g;
	uint8_t *p;
	size_t len;
	struct stat st;

	(void)state;
	fresh_cluster("2048"); /* a checkpoint every few dozen creates */
	make_files("", 150);
	check_ok(pvfs_mkdir("/pvfs/last", 0755)); /* the journal holds a batch */
	assert_int_equal(cluster_stop(&c), 0);
	g = current_gen();
	assert_true(g > 1);
	meta_path("snapshot", snap);
	snprintf(name, sizeof(name), "journal.%lu", g);
	meta_path(name, jr);
	snprintf(aside, sizeof(aside), "%s/aside", c.dir);

	/* No snapshot: never an empty file system, and the journal stays. */
	assert_int_equal(rename(snap, aside), 0);
	assert_int_not_equal(mgr_try(out, sizeof(out)), 0);
	assert_contains(out, "a snapshot is missing");
	assert_int_equal(stat(jr, &st), 0);
	assert_int_equal(rename(aside, snap), 0);

	/* No journal: never the older snapshot alone. */
	assert_int_equal(rename(jr, aside), 0);
	assert_int_not_equal(mgr_try(out, sizeof(out)), 0);
	assert_contains(out, "is missing");
	assert_contains(out, name);
	assert_int_equal(rename(aside, jr), 0);

	/* A newer journal with batches in it: the snapshot is too old. */
	p = file_slurp(jr, &len);
	snprintf(name, sizeof(name), "journal.%lu", g + 1);
	meta_path(name, other);
	file_spill(other, p, len > 200 ? 200 : len);
	assert_int_not_equal(mgr_try(out, sizeof(out)), 0);
	assert_contains(out, "is newer than the snapshot");

	/* Leftovers of both generations of a checkpoint: removed. */
	file_spill(other, p, JR_HDR);              /* journal.G+1, header only */
	snprintf(name, sizeof(name), "journal.%lu", g - 1);
	file_spill(meta_path(name, aside), p, len); /* covered by the snapshot */
	file_spill(meta_path("snapshot.tmp", aside), p, 100);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(count_names(""), 151);
	assert_int_equal(stat(other, &st), -1);
	assert_int_equal(stat(meta_path(name, aside), &st), -1);
	assert_int_equal(stat(meta_path("snapshot.tmp", aside), &st), -1);
	assert_int_equal(stat(jr, &st), 0);
	free(p);
	drop_cluster();
}

/* ---- SIGKILL during checkpoints ---- */

/* A child creates files until the mgr dies, appending the number of each
 * acknowledged create to a file. */
static pid_t
start_creator(const char *ackfile, int round)
{
	char path[PATH_MAX];
	pid_t pid = fork();
	int fd, i, afd;

	if (pid != 0)
		return pid;
	afd = open(ackfile, O_WRONLY | O_CREAT | O_APPEND, 0600);
	for (i = 0; i < 100000; i++) {
		snprintf(path, sizeof(path), "/pvfs/k/r%d-%d", round, i);
		if ((fd = pvfs_creat(path, 0644)) < 0 || pvfs_close(fd) < 0)
			_exit(0);
		dprintf(afd, "%d %d\n", round, i);
	}
	_exit(0);
}

static void
test_sigkill_during_checkpoints(void **state)
{
	char ackfile[PATH_MAX], path[PATH_MAX];
	struct timespec ts;
	struct stat st;
	int round, r, i, acked = 0;
	FILE *f;
	pid_t pid;

	(void)state;
	fresh_cluster("4096"); /* a checkpoint every ~40 creates */
	check_ok(pvfs_mkdir("/pvfs/k", 0755));
	snprintf(ackfile, sizeof(ackfile), "%s/acked", c.dir);
	srand((unsigned)time(NULL));
	for (round = 0; round < 15; round++) {
		pid = start_creator(ackfile, round);
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(100 + rand() % 400) * 1000000L;
		nanosleep(&ts, NULL);
		assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
		waitpid(pid, NULL, 0);
		assert_int_equal(cluster_start_again(&c), 0);
	}
	f = fopen(ackfile, "r");
	assert_non_null(f);
	while (fscanf(f, "%d %d", &r, &i) == 2) {
		snprintf(path, sizeof(path), "/pvfs/k/r%d-%d", r, i);
		if (pvfs_stat(path, &st) < 0)
			fail_msg("acknowledged %s lost: %s", path, strerror(errno));
		acked++;
	}
	fclose(f);
	assert_true(acked > 100);
	assert_true(current_gen() > 2); /* checkpoints did happen */
	print_message("%d acknowledged creates over 15 kills, all there, "
	    "generation %lu\n", acked, current_gen());
	drop_cluster();
}

/* ---- an older metadata directory ---- */

static void
test_format1_directory_loads(void **state)
{
	char cmd[4 * PATH_MAX], buf[64], path[PATH_MAX];
	struct stat st;
	uint8_t *p;
	size_t len;
	int fd;

	(void)state;
	fresh_cluster(NULL);
	assert_int_equal(cluster_stop(&c), 0);
	snprintf(cmd, sizeof(cmd), "cd %s/tests/data/format1 && "
	    "cp meta/fsid meta/snapshot meta/journal.2 %s/meta/ && "
	    "rm -f %s/meta/journal.1 && rm -rf %s/iod0 %s/iod1 && "
	    "cp -r iod0 iod1 %s/", getenv("PVFS_SRCDIR"),
	    c.dir, c.dir, c.dir, c.dir, c.dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(count_names("/a"), 28 + 1);   /* f3..f30 and b */
	assert_int_equal(count_names("/a/b"), 2);      /* c and moved */
	check_ok(pvfs_stat("/pvfs/a/f3", &st));
	assert_int_equal(st.st_mode & 07777, 0600);
	/* Written before mirrored files: every file has one copy. */
	assert_int_equal(pvfs_getcopies("/pvfs/a/f3"), 1);
	assert_int_equal(pvfs_getcopies("/pvfs/z/last"), 1);
	assert_int_equal(pvfs_getcopies("/pvfs/a"), 0);
	assert_errno(pvfs_stat("/pvfs/a/f2", &st), ENOENT);
	assert_errno(pvfs_stat("/pvfs/a/f1", &st), ENOENT);
	fd = check_ok(pvfs_open("/pvfs/z/last", O_RDONLY));
	assert_int_equal(pvfs_read(fd, buf, sizeof(buf)), 6);
	assert_memory_equal(buf, "alpha\n", 6);
	check_ok(pvfs_close(fd));
	/* Rewritten in today's format; the old journal is gone. */
	p = file_slurp(meta_path("snapshot", path), &len);
	assert_memory_equal(p, "PVFSSNAP", 8);
	free(p);
	assert_int_equal(stat(meta_path("journal.2", path), &st), -1);
	p = file_slurp(meta_path("journal.3", path), &len);
	assert_memory_equal(p, "PVFSJRNL", 8);
	free(p);
	/* New files work beside the old ones, across a restart. */
	fd = check_ok(pvfs_open("/pvfs/z/new", O_CREAT | O_WRONLY, 0644));
	assert_int_equal(pvfs_write(fd, "beta\n", 5), 5);
	check_ok(pvfs_close(fd));
	assert_int_equal(cluster_restart(&c), 0);
	fd = check_ok(pvfs_open("/pvfs/z/new", O_RDONLY));
	assert_int_equal(pvfs_read(fd, buf, sizeof(buf)), 5);
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open("/pvfs/a/f30", O_RDONLY));
	assert_int_equal(pvfs_read(fd, buf, sizeof(buf)), 6);
	check_ok(pvfs_close(fd));
	drop_cluster();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_first_middle_last),
		cmocka_unit_test(test_salvage_keeps_the_rest),
		cmocka_unit_test(test_cut_at_boundaries),
		cmocka_unit_test(test_missing_and_leftover_pieces),
		cmocka_unit_test(test_sigkill_during_checkpoints),
		cmocka_unit_test(test_format1_directory_loads),
	};
	return cluster_run_tests(&c, 2, NULL, tests);
}
