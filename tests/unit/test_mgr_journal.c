/*
 * test_mgr_journal.c - the mgr's journal and its replay, driven directly
 * in a temporary metadata directory: changes go through mgr_journal_log()
 * as the handlers send them, and the directory loaded into a fresh name
 * space (mgr-load.c, strict) must equal the live one entry by entry;
 * likewise after checkpoints.  A torn tail is dropped, and cut at start;
 * a flipped byte anywhere else stops the load (the mgr exits, so a child
 * process loads) and leaves every file as it was; salvage keeps what is
 * valid and lists what was lost.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
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

#include "../integration/files.h"
#include "mgr-test.h"

#define NOPS 28 /* changes of one pass of run_op() */
#define BIG (1ull << 40)

static char base[PATH_MAX]; /* the test's directory */
static char meta[PATH_MAX]; /* the metadata directory in it */

static int
setup(void **state)
{
	(void)state;
	mt_setup();
	return mt_dir_make("test_mgr_journal", base, sizeof(base), meta, sizeof(meta));
}

static int
teardown(void **state)
{
	(void)state;
	return mt_dir_remove(base);
}

static char *
meta_path(const char *name, char *buf)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", meta, name) >= PATH_MAX)
		fail_msg("%s/%s: too long", meta, name);
	return buf;
}

static int
exists(const char *name)
{
	char path[PATH_MAX];

	return access(meta_path(name, path), F_OK) == 0;
}

/* ---- the mgr's side ---- */

static void
jr_open(void)
{
	mt_apply = mt_journal_apply;
	mgr_journal_open(meta);
}

static void
jr_close(void)
{
	mgr_journal_close();
	mgr_ns_free();
	mt_apply = mgr_ns_apply;
}

/* Change i of a pass under prefix p: every kind of record, renames
 * within and across directories and over existing names. */
static void
run_op(const char *p, int i)
{
	char a[256], b[256];
	int rc = 0;

#define P(buf, s) snprintf(buf, sizeof(buf), "%s%s", p, s)
	switch (i) {
	case 0: P(a, ""); rc = mt_mkdir(a, 0755, 0, 0, NULL); break;
	case 1: P(a, "/a"); rc = mt_mkdir(a, 0750, 1000, 100, NULL); break;
	case 2: P(a, "/a/f1"); rc = mt_create(a, 0640, 1000, 100, NULL); break;
	case 3: P(a, "/a/f2"); rc = mt_create(a, 0600, 1001, 100, NULL); break;
	case 4: P(a, "/a/f3"); rc = mt_create(a, 0644, 0, 0, NULL); break;
	case 5: P(a, "/a/f4"); rc = mt_create(a, 0644, 0, 0, NULL); break;
	case 6: P(a, "/a/b"); rc = mt_mkdir(a, 02775, 0, 100, NULL); break;
	case 7: P(a, "/a/f1"); P(b, "/a/b/g1"); rc = mt_rename(a, b); break;
	case 8: P(a, "/a/f2"); P(b, "/a/r2"); rc = mt_rename(a, b); break;
	case 9: P(a, "/a/f3"); P(b, "/a/f4"); rc = mt_rename(a, b); break;
	case 10: P(a, "/a/f4"); rc = mt_chmod(a, 06755); break;
	case 11: P(a, "/a/f4"); rc = mt_chown(a, 7, 8); break;
	case 12: P(a, "/a/r2"); rc = mt_utimes(a, 111, 222); break;
	case 13: P(a, "/a/b/g1"); rc = mt_touch(a); break;
	case 14: P(a, "/a/r2"); rc = mt_unlink(a); break;
	case 15: P(a, "/a/r2"); rc = mt_create(a, 0644, 5, 5, NULL); break;
	case 16: P(a, "/e"); rc = mt_mkdir(a, 0755, 0, 0, NULL); break;
	case 17: P(a, "/a/b"); P(b, "/e"); rc = mt_rename(a, b); break;
	case 18: P(a, "/a/gone"); rc = mt_mkdir(a, 0755, 0, 0, NULL); break;
	case 19: P(a, "/a/gone"); rc = mt_rmdir(a); break;
	case 20: P(a, "/a"); P(b, "/z"); rc = mt_rename(a, b); break;
	case 21: P(a, "/z/deep"); rc = mt_mkdir(a, 0700, 0, 0, NULL); break;
	case 22: P(a, "/z/deep/x"); rc = mt_create(a, 0644, 0, 0, NULL); break;
	case 23: P(a, ""); rc = mt_chmod(a, 01777); break;
	case 24: rc = mt_utimes("/", 333, 444); break;
	case 25: P(a, "-file"); rc = mt_create(a, 0644, 0, 0, NULL); break;
	case 26: P(a, "/z/fifo"); rc = mt_mknod(a, 0010640, 5, 5, NULL); break;
	case 27: P(a, "/z/deep/dev"); rc = mt_mknod(a, 0060600, 0, 0, NULL); break;
	default: fail_msg("no change %d", i);
	}
#undef P
	assert_int_equal(rc, 0);
}

/* A whole pass, committing every `every` changes (and at its end). */
static void
run_pass(const char *p, int every)
{
	int i;

	for (i = 0; i < NOPS; i++) {
		run_op(p, i);
		if ((i + 1) % every == 0)
			mgr_journal_commit();
	}
	mgr_journal_commit();
}

/* ---- loading ---- */

/* Load the directory into a fresh name space (strict unless salvage) and
 * dump it; l is the caller's to free. */
static void
load_dump(struct mgr_load *l, int salvage, FILE *report, struct mt_dump *d)
{
	uint64_t fsid;

	assert_int_equal(mgr_load_fsid(meta, &fsid), 0);
	memset(l, 0, sizeof(*l));
	l->dir = meta;
	l->fsid = fsid;
	l->salvage = salvage;
	l->report = report;
	mgr_ns_init();
	mgr_load_dir(l);
	mt_dump_take(d);
	mgr_ns_free();
}

/* Load strictly and compare with want. */
static void
load_compare(const struct mt_dump *want, int flags)
{
	struct mgr_load l;
	struct mt_dump got;

	load_dump(&l, 0, NULL, &got);
	mt_dump_compare(want, &got, flags);
	assert_int_equal(l.jr_torn, 0);
	mt_dump_free(&got);
	mgr_load_free(&l);
}

/* ---- the files ---- */

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of the metadata directory as "name size crc" lines. */
static char *
dir_state(void)
{
	char path[PATH_MAX], *text = NULL, **names = NULL;
	size_t len = 0, n = 0, i, flen;
	struct dirent *e;
	FILE *f = open_memstream(&text, &len);
	DIR *d = opendir(meta);
	uint8_t *p;

	assert_non_null(f);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		p = file_slurp(meta_path(names[i], path), &flen);
		fprintf(f, "%s %zu %08x\n", names[i], flen, pvfs_crc32c(0, p, flen));
		free(p);
		free(names[i]);
	}
	free(names);
	fclose(f);
	return text;
}

/* The ends of the batches of a format-2 file, from their frames. */
static size_t
batch_ends(const uint8_t *p, size_t len, size_t *ends, size_t max)
{
	size_t off = MGR_HDR_LEN, n = 0;

	assert_true(len >= MGR_HDR_LEN);
	while (off + MGR_BATCH_HDR <= len && n < max) {
		off += MGR_BATCH_HDR + pvfs_be32_get(p + off);
		ends[n++] = off;
	}
	assert_int_equal(off, len);
	return n;
}

/* ---- a load that must fail: the mgr exits, so a child loads ---- */

enum { VIA_LOAD, VIA_OPEN };

static char self[PATH_MAX]; /* this program, which a child runs again */

/* The child: load (mgr_load_dir, strict) or start on (mgr_journal_open)
 * dir; it returns only if the load did not fail. */
static int
child_main(const char *via, const char *dir)
{
	struct mgr_load l;

	mt_setup();
	if (strcmp(via, "open") == 0) {
		mgr_journal_open(dir);
		return 0;
	}
	memset(&l, 0, sizeof(l));
	l.dir = dir;
	if (mgr_load_fsid(dir, &l.fsid) != 0)
		return 3;
	mgr_ns_init();
	mgr_load_dir(&l);
	return 0;
}

/* Run child_main in a new process (this program run again: under
 * valgrind it runs natively, so the leaks of a pvfs_fatal exit are not ours):
 * its exit status, with what it logged in err. */
static int
child_load(int via, char *err, size_t errlen)
{
	char errf[PATH_MAX];
	int status, fd;
	pid_t pid;

	if (snprintf(errf, sizeof(errf), "%s/child.err", base) >=
	    (int)sizeof(errf))
		fail_msg("%s: too long", base);
	fflush(NULL);
	if ((pid = fork()) == 0) {
		fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(self, self, "--load", via == VIA_OPEN ? "open" : "load", meta,
		    (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	file_text(errf, err, errlen);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Both ways of loading refuse, saying what; no file changes. */
static void
assert_refused(const char *why, const char *why2)
{
	char err[8192], *before = dir_state(), *after;
	int via;

	for (via = VIA_LOAD; via <= VIA_OPEN; via++) {
		assert_int_equal(child_load(via, err, sizeof(err)), 1);
		assert_contains(err, why);
		if (why2 != NULL)
			assert_contains(err, why2);
		assert_contains(err, "--salvage");
		after = dir_state();
		assert_string_equal(after, before);
		free(after);
	}
	free(before);
}

/* ---- replay equals the live name space ---- */

static void
test_replay_matches_live(void **state)
{
	struct mt_dump live, again;

	(void)state;
	jr_open();
	assert_true(exists("fsid") && exists("journal.1"));
	run_pass("/p1", 3);
	run_pass("/p2", 1);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	/* Started again, the mgr has the same tree and goes on from it. */
	jr_open();
	mt_dump_take(&again);
	mt_dump_compare(&live, &again, 0);
	mt_dump_free(&again);
	mt_dump_free(&live);
	run_pass("/p3", 5);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	assert_false(exists("snapshot"));
	mt_dump_free(&live);
}

/* Many changes in one commit: one batch. */
static void
test_one_big_batch(void **state)
{
	char path[64], *p;
	struct mt_dump live;
	size_t len, ends[8];
	int i;

	(void)state;
	jr_open();
	for (i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/f%d", i);
		assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
		if (i % 3 == 0)
			assert_int_equal(mt_unlink(path), 0);
	}
	assert_int_equal(mgr_journal_pending(), 1);
	mgr_journal_commit();
	assert_int_equal(mgr_journal_pending(), 0);
	mt_dump_take(&live);
	jr_close();
	p = (char *)file_slurp(meta_path("journal.1", path), &len);
	/* the root's attributes, then the 2000 changes */
	assert_int_equal(batch_ends((uint8_t *)p, len, ends, 8), 2);
	free(p);
	load_compare(&live, 0);
	mt_dump_free(&live);
}

/* ---- checkpoints ---- */

static void
test_checkpoint_then_more(void **state)
{
	struct mt_dump live;
	struct mgr_load l;

	(void)state;
	jr_open();
	run_pass("/p1", 4);
	jr_close();
	/* A limit reached at the next commit: one checkpoint, then more. */
	mgr.journal_max = 1;
	jr_open();
	mgr.journal_max = BIG;
	run_op("/p2", 0);
	mgr_journal_commit();
	assert_true(exists("snapshot") && exists("journal.2"));
	assert_false(exists("journal.1") || exists("snapshot.tmp"));
	run_pass("/p3", 2);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	mt_dump_free(&live);
	load_dump(&l, 0, NULL, &live);
	assert_int_equal(l.gen, 2);
	assert_int_equal(l.snap_format, 2);
	mgr_load_free(&l);
	mt_dump_free(&live);
	/* A checkpoint at every commit. */
	mgr.journal_max = 1;
	jr_open();
	run_pass("/p4", 3);
	mt_dump_take(&live);
	jr_close();
	mgr.journal_max = BIG;
	assert_true(exists("journal.12")); /* 10 commits after generation 2 */
	assert_false(exists("journal.11"));
	load_compare(&live, 0);
	mt_dump_free(&live);
}

/* ---- a torn tail ---- */

static void
test_torn_tail(void **state)
{
	struct mt_dump before, last, after, got;
	char path[PATH_MAX];
	size_t len, good, cuts[6], i;
	struct mgr_load l;
	struct stat st;
	uint8_t *p, zero[4096];

	(void)state;
	jr_open();
	run_pass("/p1", 1);
	mt_dump_take(&before);
	assert_int_equal(stat(meta_path("journal.1", path), &st), 0);
	good = (size_t)st.st_size;
	assert_int_equal(mt_mkdir("/late", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/late/f", 0644, 0, 0, NULL), 0);
	mgr_journal_commit();
	mt_dump_take(&last);
	jr_close();
	p = file_slurp(path, &len);
	assert_true(len > good + MGR_BATCH_HDR + 8);
	/* Cut anywhere in the last batch: in its frame, in its records, one
	 * byte short; or zeros where it should be. */
	cuts[0] = good + 1;
	cuts[1] = good + MGR_BATCH_HDR - 1;
	cuts[2] = good + MGR_BATCH_HDR;
	cuts[3] = good + MGR_BATCH_HDR + 7;
	cuts[4] = len - 1;
	cuts[5] = good;
	for (i = 0; i < 6; i++) {
		file_spill(path, p, cuts[i]);
		load_dump(&l, 0, NULL, &got);
		assert_int_equal(l.jr_torn, i < 5);
		assert_int_equal(l.jr_good, good);
		mt_dump_compare(&before, &got, 0);
		mt_dump_free(&got);
		mgr_load_free(&l);
	}
	memset(zero, 0, sizeof(zero));
	file_spill(path, p, good);
	assert_int_equal(truncate(path, (off_t)(good + sizeof(zero))), 0);
	load_dump(&l, 0, NULL, &got);
	assert_int_equal(l.jr_torn, 1);
	mt_dump_compare(&before, &got, 0);
	mt_dump_free(&got);
	mgr_load_free(&l);
	/* Starting cuts the tail off, and the journal goes on after it. */
	file_spill(path, p, len - 1);
	jr_open();
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, good);
	mt_dump_take(&got);
	mt_dump_compare(&before, &got, 0);
	mt_dump_free(&got);
	run_pass("/p2", 2);
	mt_dump_take(&after);
	jr_close();
	load_compare(&after, 0);
	/* And the full file held the last change. */
	file_spill(path, p, len);
	load_compare(&last, 0);
	free(p);
	mt_dump_free(&before);
	mt_dump_free(&last);
	mt_dump_free(&after);
}

/* ---- damage fails closed ---- */

/* Flip a byte in the records of batch k of journal.1; the offset where
 * the batch starts. */
static size_t
flip_batch(size_t k, size_t *nbatches)
{
	char path[PATH_MAX];
	size_t len, ends[256], start;
	uint8_t *p = file_slurp(meta_path("journal.1", path), &len);

	*nbatches = batch_ends(p, len, ends, 256);
	assert_true(k < *nbatches);
	start = k == 0 ? MGR_HDR_LEN : ends[k - 1];
	p[start + MGR_BATCH_HDR + 5] ^= 0x10;
	file_spill(path, p, len);
	free(p);
	return start;
}

static void
test_flip_fails_closed(void **state)
{
	char want[128], want2[128];
	struct mt_dump live;
	size_t start, n, k;

	(void)state;
	jr_open();
	run_pass("/p1", 1); /* one change a batch, after the root's */
	mt_dump_take(&live);
	jr_close();
	/* A middle batch: the NOPS / 2 changes after it are still valid. */
	k = 1 + NOPS / 2;
	start = flip_batch(k, &n);
	assert_int_equal(n, 1 + NOPS);
	snprintf(want, sizeof(want), "journal.1: corrupt data at offset %zu",
	    start);
	snprintf(want2, sizeof(want2), "followed by %zu valid records in %zu "
	    "batches", n - k - 1, n - k - 1);
	assert_refused(want, want2);
	flip_batch(k, &n); /* flipped back: loads again */
	load_compare(&live, 0);
	mt_dump_free(&live);
	/* The last batch, whole but wrong, is damage and not a torn tail. */
	start = flip_batch(n - 1, &n);
	snprintf(want, sizeof(want), "corrupt data at offset %zu", start);
	assert_refused(want, "followed by 0 valid records");
}

static void
test_snapshot_flip_fails_closed(void **state)
{
	char path[PATH_MAX];
	size_t len;
	uint8_t *p;

	(void)state;
	mgr.journal_max = 1;
	jr_open();
	run_pass("/p1", NOPS);
	jr_close();
	mgr.journal_max = BIG;
	assert_true(exists("snapshot"));
	p = file_slurp(meta_path("snapshot", path), &len);
	p[MGR_HDR_LEN + MGR_BATCH_HDR + 9] ^= 0x01;
	file_spill(path, p, len);
	assert_refused("snapshot: corrupt data at offset 64", NULL);
	p[MGR_HDR_LEN + MGR_BATCH_HDR + 9] ^= 0x01;
	/* Cut short, a snapshot is damaged too: it was whole when renamed. */
	file_spill(path, p, len - 3);
	assert_refused("snapshot: cut short", NULL);
	free(p);
}

/* ---- missing and leftover pieces ---- */

static void
test_missing_and_leftover(void **state)
{
	char path[PATH_MAX], path2[PATH_MAX];
	struct mt_dump live;
	uint64_t salt;
	int fd;

	(void)state;
	jr_open();
	run_pass("/p1", 3);
	mt_dump_take(&live);
	jr_close();
	/* An empty journal.2: a checkpoint that stopped before its rename. */
	assert_int_equal(mgr_journal_create(meta, mgr_journal_fsid(), 2, &fd,
	    &salt), 0);
	close(fd);
	load_compare(&live, 0);
	jr_open();
	assert_false(exists("journal.2")); /* removed as a leftover */
	jr_close();
	/* One that holds changes is newer than anything loaded. */
	assert_int_equal(rename(meta_path("journal.1", path),
	    meta_path("journal.2", path2)), 0);
	assert_refused("journal.2 is newer than the first", NULL);
	assert_int_equal(rename(path2, path), 0);
	/* A missing journal. */
	assert_int_equal(rename(path, meta_path("aside", path2)), 0);
	assert_refused("journal.1 is missing", NULL);
	assert_int_equal(rename(path2, path), 0);
	load_compare(&live, 0);
	mt_dump_free(&live);
}

/* ---- salvage ---- */

static void
test_salvage(void **state)
{
	char path[64], *text = NULL, lost[160], *before, *after;
	struct mt_dump live, got;
	struct mgr_load l;
	uint64_t f5, e, x;
	size_t textlen = 0, n;
	FILE *report;
	int i;

	(void)state;
	jr_open();
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	mgr_journal_commit();
	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "/d/f%d", i);
		assert_int_equal(mt_create(path, 0644, 0, 0, i == 5 ? &f5 : NULL), 0);
		mgr_journal_commit();
	}
	assert_int_equal(mt_mkdir("/e", 0755, 0, 0, &e), 0);
	mgr_journal_commit();
	assert_int_equal(mt_create("/e/x", 0644, 0, 0, &x), 0);
	assert_int_equal(mt_create("/y", 0644, 0, 0, NULL), 0);
	mgr_journal_commit();
	mt_dump_take(&live);
	jr_close();
	/* Batches: root, /d, f0..f9, /e, then /e/x with /y.  Lose f5 and /e. */
	flip_batch(2 + 5, &n);
	flip_batch(2 + 10, &n);
	assert_int_equal(n, 14);
	before = dir_state();
	report = open_memstream(&text, &textlen);
	assert_non_null(report);
	load_dump(&l, 1, report, &got);
	fclose(report);
	after = dir_state();
	assert_string_equal(after, before);
	/* One damaged journal with two bad ranges; lost: the two inodes whose
	 * creates were in them, and /e/x for want of /e. */
	assert_int_equal(l.damaged, 1);
	assert_int_equal(l.lost, 3);
	assert_contains(text, "damaged: ");
	assert_contains(text, "in 2 ranges skipped");
	snprintf(lost, sizeof(lost), "lost: inode %llu, made by a change",
	    (unsigned long long)f5);
	assert_contains(text, lost);
	snprintf(lost, sizeof(lost), "lost: inode %llu, made by a change",
	    (unsigned long long)e);
	assert_contains(text, lost);
	snprintf(lost, sizeof(lost), "lost: file <lost directory, inode %llu>/x "
	    "(inode %llu)", (unsigned long long)e, (unsigned long long)x);
	assert_contains(text, lost);
	/* Everything else is there, as it was. */
	mt_dump_drop(&live, "/d/f5");
	mt_dump_drop(&live, "/e/x");
	mt_dump_drop(&live, "/e");
	mt_dump_compare(&live, &got, MT_NO_COOKIES);
	mgr_load_free(&l);
	mt_dump_free(&live);
	mt_dump_free(&got);
	free(text);
	free(before);
	free(after);
}

/* ---- symbolic links ---- */

/* Links, one of the longest text Linux allows, survive replay of the
 * journal and a snapshot alike, with their owners and times; a renamed
 * or removed one too. */
static void
test_symlinks_restart(void **state)
{
	static char big[MGR_LINK_MAX + 1];
	struct mt_dump live;
	struct mgr_inode *in;

	(void)state;
	memset(big, 'x', MGR_LINK_MAX);
	big[0] = '/';
	jr_open();
	assert_int_equal(mt_mkdir("/s", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_symlink("/s/rel", "../x/y", 1000, 100, NULL), 0);
	assert_int_equal(mt_symlink("/s/big", big, 0, 0, NULL), 0);
	assert_int_equal(mt_symlink("/s/gone", "z", 0, 0, NULL), 0);
	assert_int_equal(mt_symlink("/s/moved", "/abs/t", 0, 0, NULL), 0);
	mgr_journal_commit();
	assert_int_equal(mt_chown("/s/rel", 7, 8), 0);
	assert_int_equal(mt_rename("/s/moved", "/m"), 0);
	assert_int_equal(mt_unlink("/s/gone"), 0);
	mgr_journal_commit();
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);         /* replayed from the journal */
	mgr.journal_max = 1;            /* the next open checkpoints */
	jr_open();
	mgr.journal_max = BIG;
	assert_int_equal(mt_create("/after", 0644, 0, 0, NULL), 0);
	mgr_journal_commit();
	assert_true(exists("snapshot"));
	mt_dump_free(&live);
	mt_dump_take(&live);
	in = mt_get("/s/big");
	assert_non_null(in);
	assert_int_equal(in->mode, S_IFLNK | 0777);
	assert_int_equal(in->targetlen, MGR_LINK_MAX);
	jr_close();
	load_compare(&live, 0);         /* from the snapshot */
	mt_dump_free(&live);
}

/* ---- hard links and open-unlinked files ---- */

/* Names met before the first one (a link in a directory walked earlier),
 * a first name removed, renames over linked names, orphans made by an
 * unlink and by a rename, one freed: the journal's replay and a snapshot
 * each give back every name, link count and orphan. */
static void
links_and_orphans(void)
{
	uint64_t ino, w;

	assert_int_equal(mt_mkdir("/a", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_mkdir("/a/b", 0755, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/a/b/f", 0644, 1, 1, &ino), 0);
	assert_int_equal(mt_link("/a/b/f", "/top"), 0);
	assert_int_equal(mt_link("/a/b/f", "/a/h"), 0);
	assert_int_equal(mt_get("/top")->nlink, 3);
	assert_int_equal(mt_create("/g", 0600, 2, 2, NULL), 0);
	assert_int_equal(mt_link("/g", "/a/g2"), 0);
	assert_int_equal(mt_unlink("/g"), 0); /* its first name */
	assert_int_equal(mt_get("/a/g2")->nlink, 1);
	assert_int_equal(mt_create("/v", 0644, 0, 0, NULL), 0);
	assert_int_equal(mt_rename("/a/g2", "/a/h"), 0); /* f loses a name */
	assert_int_equal(mt_get("/top")->nlink, 2);
	assert_int_equal(mt_orphan("/v"), 0);
	assert_int_equal(mt_rename("/a/h", "/v"), 0); /* v: an orphan */
	assert_int_equal(mt_create("/o", 0640, 3, 3, NULL), 0);
	assert_int_equal(mt_orphan("/o"), 0);
	assert_int_equal(mt_unlink("/o"), 0);
	assert_int_equal(mt_create("/w", 0644, 0, 0, &w), 0);
	assert_int_equal(mt_orphan("/w"), 0);
	assert_int_equal(mt_unlink("/w"), 0);
	assert_int_equal(mgr_ns_orphan_count(), 3);
	assert_int_equal(mt_free(w), 0);
	assert_int_equal(mgr_ns_orphan_count(), 2);
	assert_int_equal(mt_unlink("/top"), 0);
	assert_int_equal(mt_get("/a/b/f")->nlink, 1);
	assert_int_equal(mt_link("/a/b/f", "/top2"), 0);
}

static void
test_links_and_orphans(void **state)
{
	struct mt_dump live;

	(void)state;
	jr_open();
	links_and_orphans();
	mgr_journal_commit();
	mt_dump_take(&live);
	assert_int_equal(live.n, 8); /* the root, 5 names, 2 orphans */
	jr_close();
	load_compare(&live, 0);
	/* Through a snapshot: a checkpoint at the next commit. */
	mgr.journal_max = 1;
	jr_open();
	mgr.journal_max = BIG;
	assert_int_equal(mt_touch("/top2"), 0);
	mgr_journal_commit();
	assert_true(exists("snapshot"));
	mt_dump_free(&live);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	mt_dump_free(&live);
}

/* ---- mirrored files (issue 17) ---- */

static void
mt_mirror(uint64_t ino, uint16_t copies, uint16_t mshift)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_MIRROR;
	r.ino = ino;
	r.dist.copies = copies;
	r.dist.mshift = mshift;
	assert_int_equal(mt_apply(&r), 0);
}

/* A mirrored file's copies and mshift, a directory's default, an
 * orphaned mirrored file: the same after the journal's replay and after
 * a snapshot; a file without a MIRROR record has copies 1. */
static void
test_mirror_records(void **state)
{
	struct mt_dump live;
	uint64_t f, d, o;

	(void)state;
	jr_open();
	assert_int_equal(mt_create("/plain", 0644, 0, 0, NULL), 0);
	assert_int_equal(mt_create("/m", 0644, 0, 0, &f), 0);
	mt_mirror(f, 2, 3);
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, &d), 0);
	mt_mirror(d, 3, 0);
	assert_int_equal(mt_create("/o", 0644, 0, 0, &o), 0);
	mt_mirror(o, 2, 1);
	assert_int_equal(mt_orphan("/o"), 0);
	assert_int_equal(mt_unlink("/o"), 0);
	mgr_journal_commit();
	assert_int_equal(mt_get("/plain")->dist.copies, 1);
	assert_int_equal(mt_get("/m")->dist.copies, 2);
	assert_int_equal(mt_get("/m")->dist.mshift, 3);
	assert_int_equal(mt_get("/d")->dist.copies, 3);
	assert_int_equal(mgr_ns_get(o)->dist.copies, 2);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	mgr.journal_max = 1;
	jr_open();
	mgr.journal_max = BIG;
	assert_int_equal(mt_touch("/m"), 0);
	mgr_journal_commit();
	assert_true(exists("snapshot"));
	mt_dump_free(&live);
	mt_dump_take(&live);
	jr_close();
	load_compare(&live, 0);
	mt_dump_free(&live);
}

/* Each test in a fresh metadata directory. */
#define DIR_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(int argc, char **argv)
{
	ssize_t n;
	const struct CMUnitTest tests[] = {
		DIR_TEST(test_replay_matches_live),
		DIR_TEST(test_one_big_batch),
		DIR_TEST(test_checkpoint_then_more),
		DIR_TEST(test_torn_tail),
		DIR_TEST(test_flip_fails_closed),
		DIR_TEST(test_snapshot_flip_fails_closed),
		DIR_TEST(test_missing_and_leftover),
		DIR_TEST(test_salvage),
		DIR_TEST(test_symlinks_restart),
		DIR_TEST(test_links_and_orphans),
		DIR_TEST(test_mirror_records),
	};

	if (argc == 4 && strcmp(argv[1], "--load") == 0)
		return child_main(argv[2], argv[3]);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return 1;
	self[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
