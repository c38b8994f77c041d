/*
 * iod-intent.c - the write-intent log of mirrored copies, for a host
 * crash (doc/design.md, "Mirrored files": host crash).
 *
 * An iod acknowledges a write once it is in the page cache.  If the host
 * loses power, a copy here may lack bytes the other copy has, and nothing
 * would say so.  So, as md-raid's write-intent bitmap: before the first
 * client write or truncate of a copy of a mirrored file, the copy is
 * appended to DATADIR/mirror-intent and the log made durable.  A copy
 * left unwritten for IN_IDLE epochs (30 s: the kernel has written most
 * of its pages back by then) is synced by a thread, the loop going on,
 * and its record dropped (the log rewritten aside and renamed); a clean
 * exit syncs them all.  A copy written on keeps its one record: the cost
 * is one fdatasync of the log per copy per spell of writing.  A log
 * found non-empty at
 * start was left by an unclean stop: if the host has not restarted since
 * (same boot id) its page cache kept every byte and a sync is enough;
 * else the copies may have lost acknowledged bytes: the iod is *unclean*,
 * serves no copy of a mirrored file, and says so in its HELLO replies
 * until the mgr has marked its copies stale (mgr-iods.c: a rebuild of the
 * iod, journaled, whose set the iod then takes whole).  The log keeps the
 * entries of the crash until then, so a second crash loses nothing.
 *
 * Format: a 64-byte header (magic, the boot id, a crc) and 32-byte
 * records (ino, gen, rel, copy, a crc), big-endian, then zeros to the end
 * of the file (in_zero); all zeros is an empty log.  A record that does
 * not check with zeros after it is an append the crash interrupted (the
 * write it announced had not started) and is ignored; anything else that
 * does not check stops the iod (fail closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iod.h"

#define IN_NAME "mirror-intent"
#define IN_MAGIC "PVFSINT1"
#define IN_HDR 64u
#define IN_REC 32u
#define IN_BOOT 40u     /* a boot id: 36 characters, NUL-padded */
#define IN_EPOCH 5.0    /* seconds between looks at the copies logged */
#define IN_IDLE 6       /* epochs unwritten before a copy is synced, retired */
#define IN_HASH 256u
#define IN_SPACE (64u << 10) /* the log's size, written once: see in_zero */

struct in_ent {
	struct in_ent *next;
	uint64_t ino, gen;
	uint32_t rel, copy;
	uint64_t last;   /* the epoch of its last write */
};

static int in_fd = -1;
static int in_dirfd = -1;  /* the data directory */
static char in_path[4096];
static char in_boot[IN_BOOT];
static struct in_ent *in_tab[IN_HASH]; /* this epoch's copies */
static size_t in_count;
static uint64_t in_epochs;  /* epochs (IN_EPOCH) so far */
static uint64_t in_base;  /* bytes kept: header and an unclean stop's */
static uint64_t in_len;   /* bytes in the log; zeros follow */
static uint64_t in_space; /* the file's size */
static int in_unclean;    /* copies may lack acknowledged bytes */
static int in_reported;   /* a HELLO reply said so */
static ev_timer in_timer;
static int in_timer_init;

static void
in_boot_id(void)
{
	const char *s = getenv("PVFS_TEST_BOOT_ID"); /* tests: a "reboot" */
	FILE *f;

	memset(in_boot, 0, sizeof(in_boot));
	if (s != NULL && *s != '\0') {
		snprintf(in_boot, sizeof(in_boot), "%s", s);
		return;
	}
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "r")) == NULL)
		return; /* unknown: every unclean stop counts as a crash */
	if (fgets(in_boot, sizeof(in_boot), f) == NULL)
		memset(in_boot, 0, sizeof(in_boot));
	in_boot[strcspn(in_boot, "\n")] = '\0';
	fclose(f);
}

static void
in_hdr_encode(uint8_t *p)
{
	memset(p, 0, IN_HDR);
	memcpy(p, IN_MAGIC, 8);
	memcpy(p + 8, in_boot, IN_BOOT);
	pvfs_be32_put(p + IN_HDR - 4, pvfs_crc32c(0, p, IN_HDR - 4));
}

static void
in_rec_encode(uint8_t *p, const struct in_ent *e)
{
	memset(p, 0, IN_REC);
	pvfs_be64_put(p, e->ino);
	pvfs_be64_put(p + 8, e->gen);
	pvfs_be32_put(p + 16, e->rel);
	pvfs_be32_put(p + 20, e->copy);
	pvfs_be32_put(p + IN_REC - 4, pvfs_crc32c(0, p, IN_REC - 4));
}

static int
in_check(const uint8_t *p, size_t n)
{
	return pvfs_be32_get(p + n - 4) == pvfs_crc32c(0, p, n - 4);
}

static size_t
in_hash(uint64_t ino, uint32_t rel, uint32_t copy)
{
	uint64_t h = (ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)rel << 8) ^ copy;

	return (size_t)((h ^ (h >> 29)) % IN_HASH);
}

static struct in_ent *
in_find(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	struct in_ent *e;

	for (e = in_tab[in_hash(ino, rel, copy)]; e != NULL; e = e->next)
		if (e->ino == ino && e->gen == gen && e->rel == rel &&
		    e->copy == copy)
			return e;
	return NULL;
}

static void
in_add(const struct in_ent *n)
{
	struct in_ent *e;
	size_t h = in_hash(n->ino, n->rel, n->copy);

	if ((e = malloc(sizeof(*e))) == NULL)
		pvfs_fatal("out of memory (intent log)");
	*e = *n;
	e->next = in_tab[h];
	in_tab[h] = e;
	in_count++;
}

static void
in_clear(void)
{
	struct in_ent *e;
	size_t h;

	for (h = 0; h < IN_HASH; h++) {
		while ((e = in_tab[h]) != NULL) {
			in_tab[h] = e->next;
			free(e);
		}
	}
	in_count = 0;
}

/* Make one copy's bytes and name durable: 0 or an errno (a removed one
 * is none).  Runs in the sync thread too: nothing but its arguments. */
static int
in_sync_copy(const struct in_ent *e)
{
	char name[IOD_STORE_PATH_MAX];
	int fd, err = 0;

	iod_store_path(e->ino, e->gen, e->copy, name, sizeof(name));
	if ((fd = openat(in_dirfd, name, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : errno;
	if (fsync(fd) != 0)
		err = errno;
	close(fd);
	name[2] = '\0'; /* its subdirectory */
	if (err == 0 && (fd = openat(in_dirfd, name, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) != -1) {
		if (fsync(fd) != 0)
			err = errno;
		close(fd);
	}
	return err;
}

/* Sync n copies: 0, or the first errno with *bad its entry. */
static int
in_sync_all(const struct in_ent *v, size_t n, size_t *bad)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if ((err = in_sync_copy(&v[i])) != 0) {
			*bad = i;
			return err;
		}
	}
	return 0;
}

/* Zeros over [from, to) of fd.  The log's file is written whole once
 * (IN_SPACE) and then only overwritten in place: an fdatasync of blocks
 * already there writes them and nothing else, where one that grows the
 * file waits for a journal commit, and that for every file's data
 * written back meanwhile (ext4, data=ordered): a stall of the loop. */
static int
in_zero(int fd, uint64_t from, uint64_t to)
{
	static const uint8_t z[4096];
	size_t n;

	for (; from < to; from += n) {
		n = to - from < sizeof(z) ? (size_t)(to - from) : sizeof(z);
		if (pwrite(fd, z, n, (off_t)from) != (ssize_t)n)
			return errno ? errno : EIO;
	}
	return 0;
}

/* Cut the log back to len bytes (zeros after), durably. */
static int
in_cut(uint64_t len)
{
	int err;

	errno = 0;
	if (len < in_len && ((err = in_zero(in_fd, len, in_len)) != 0 ||
	    (fdatasync(in_fd) != 0 && (err = errno) != 0)))
		return err;
	in_len = len;
	return 0;
}

/* The log made anew: the header, the crash's records kept while unclean
 * (the first in_base bytes) and the current epoch's, written aside and
 * renamed over it.  Error: the old log, a superset, stays. */
static int
in_rewrite(void)
{
	char tmp[sizeof(in_path) + 8];
	uint64_t keep = in_unclean ? in_base : 0, n = 0, space;
	struct in_ent *e;
	uint8_t *b;
	size_t h;
	int fd, err = 0;

	if ((b = malloc(IN_HDR + keep + in_count * IN_REC)) == NULL)
		return ENOMEM;
	if (keep > 0 && pread(in_fd, b, keep, 0) != (ssize_t)keep)
		err = errno ? errno : EIO;
	if (keep == 0)
		in_hdr_encode(b);
	n = keep > 0 ? keep : IN_HDR;
	for (h = 0; h < IN_HASH; h++)
		for (e = in_tab[h]; e != NULL; e = e->next, n += IN_REC)
			in_rec_encode(b + n, e);
	snprintf(tmp, sizeof(tmp), "%s.new", in_path);
	space = (n + IN_SPACE - 1) / IN_SPACE * IN_SPACE;
	errno = 0;
	fd = err ? -1 : open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (err == 0 && (fd == -1 || pvfs_write_all(fd, b, n) != 0 ||
	    in_zero(fd, n, space) != 0 || fdatasync(fd) != 0 ||
	    rename(tmp, in_path) != 0 || fsync(in_dirfd) != 0))
		err = errno ? errno : EIO;
	free(b);
	if (err != 0) {
		if (fd != -1)
			close(fd);
		return err;
	}
	close(in_fd);
	in_fd = fd;
	in_len = n;
	in_space = space;
	return 0;
}

/* An epoch synced: the log keeps only what must stay. */
static int
in_shrink(void)
{
	uint64_t keep = in_unclean ? in_base : 0;

	if (in_count > 0)
		return in_rewrite();
	return in_len > keep ? in_cut(keep) : 0;
}

/* The epoch's sync runs in a thread, the loop going on (a record per
 * copy starts the next epoch): an fsync of what was written can take
 * seconds. */
static struct in_ent *in_snap;  /* the epoch being synced */
static size_t in_nsnap, in_bad;
static int in_snap_err;
static pthread_t in_thread;
static int in_busy;
static ev_async in_done;

/* A one-shot timer restarted as is would fire at once (libev keeps
 * what was left of it): set it anew. */
static void
in_timer_arm(void)
{
	if (ev_is_active(&in_timer))
		return;
	ev_timer_set(&in_timer, IN_EPOCH, 0.);
	ev_timer_start(iod.loop, &in_timer);
}

static void *
in_thread_main(void *arg)
{
	(void)arg;
	in_snap_err = in_sync_all(in_snap, in_nsnap, &in_bad);
	ev_async_send(iod.loop, &in_done);
	return NULL;
}

/* Move the copies to sync out of the table: all, or those unwritten
 * for IN_IDLE epochs (by then the kernel has written most of their
 * pages back; a copy written on keeps its one record). */
static int
in_snapshot(int all)
{
	struct in_ent **pp, *e;
	size_t h, n = 0;

	in_nsnap = 0;
	if ((in_snap = calloc(in_count + 1, sizeof(*in_snap))) == NULL)
		return ENOMEM;
	for (h = 0; h < IN_HASH; h++) {
		for (pp = &in_tab[h]; (e = *pp) != NULL;) {
			if (!all && e->last + IN_IDLE > in_epochs) {
				pp = &e->next;
				continue;
			}
			in_snap[n++] = *e;
			*pp = e->next;
			free(e);
			in_count--;
		}
	}
	in_nsnap = n;
	return 0;
}

/* A failed sync: its copies back into the table (their records are
 * still in the log), tried again at the next epoch's end. */
static void
in_snap_back(void)
{
	size_t i;

	for (i = 0; i < in_nsnap; i++)
		if (in_find(in_snap[i].ino, in_snap[i].gen, in_snap[i].rel,
		    in_snap[i].copy) == NULL)
			in_add(&in_snap[i]);
}

static void
in_done_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	const struct in_ent *e;
	int err;

	(void)loop;
	(void)w;
	(void)revents;
	if (!in_busy)
		return;
	pthread_join(in_thread, NULL);
	in_busy = 0;
	if (in_snap_err != 0) {
		e = &in_snap[in_bad];
		pvfs_log_error("%s: sync of %" PRIu64 ".%" PRIx64 " copy %u: "
		    "%s (kept in the log)", in_path, e->ino, e->gen, e->copy,
		    strerror(in_snap_err));
		in_snap_back();
	} else if ((err = in_shrink()) != 0)
		pvfs_log_error("%s: %s", in_path, strerror(err));
	free(in_snap);
	in_snap = NULL;
	if (in_count > 0)
		in_timer_arm();
}

static void
in_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	in_epochs++;
	if (in_count > 0)
		in_timer_arm();
	if (in_busy || in_count == 0)
		return;
	if (in_snapshot(0) == 0 && in_nsnap == 0) {
		free(in_snap);
		in_snap = NULL;
		return;
	}
	if (in_snap == NULL || pthread_create(&in_thread, NULL,
	    in_thread_main, NULL) != 0) {
		pvfs_log_error("%s: cannot start the epoch's sync (tried "
		    "again)", in_path);
		if (in_snap != NULL) {
			in_snap_back();
			free(in_snap);
			in_snap = NULL;
		}
		return;
	}
	in_busy = 1;
}

/* The epoch ends here and now (start-up, exit): 0 or an errno. */
static int
in_epoch_end(void)
{
	int err;

	if (in_snapshot(1) != 0)
		return ENOMEM;
	err = in_sync_all(in_snap, in_nsnap, &in_bad);
	if (err != 0)
		in_snap_back();
	free(in_snap);
	in_snap = NULL;
	return err != 0 ? err : in_shrink();
}

/* Read the log left by the last run: records into the table (each
 * copy once), *good the bytes up to the last whole one; -1 with *cause
 * if it is damaged. */
static int
in_load(uint64_t size, int *same_boot, uint64_t *good, char **cause)
{
	static const uint8_t zero[IN_HDR];
	uint8_t h[IN_HDR], r[IN_REC], nx[IN_REC];
	struct in_ent e;
	uint64_t off;

	*good = 0;
	if (pread(in_fd, h, IN_HDR, 0) != (ssize_t)IN_HDR) {
		pvfs_set_cause(cause, "%s: %s", in_path, strerror(errno));
		return -1;
	}
	if (memcmp(h, zero, IN_HDR) == 0)
		return 0; /* empty */
	if (memcmp(h, IN_MAGIC, 8) != 0 || !in_check(h, IN_HDR)) {
		pvfs_set_cause(cause, "%s: damaged header", in_path);
		return -1;
	}
	*same_boot = in_boot[0] != '\0' &&
	    memcmp(h + 8, in_boot, IN_BOOT) == 0;
	*good = IN_HDR;
	for (off = IN_HDR; off + IN_REC <= size; off += IN_REC) {
		if (pread(in_fd, r, IN_REC, (off_t)off) != (ssize_t)IN_REC) {
			pvfs_set_cause(cause, "%s: %s", in_path, strerror(errno));
			return -1;
		}
		if (memcmp(r, zero, IN_REC) == 0)
			break; /* the end: zeros follow */
		if (!in_check(r, IN_REC)) {
			if (off + 2 * IN_REC > size || (pread(in_fd, nx, IN_REC,
			    (off_t)(off + IN_REC)) == (ssize_t)IN_REC &&
			    memcmp(nx, zero, IN_REC) == 0))
				break; /* an interrupted append, at the end */
			pvfs_set_cause(cause, "%s: damaged record at byte %"
			    PRIu64, in_path, off);
			return -1;
		}
		e.ino = pvfs_be64_get(r);
		e.gen = pvfs_be64_get(r + 8);
		e.rel = pvfs_be32_get(r + 16);
		e.copy = pvfs_be32_get(r + 20);
		if (in_find(e.ino, e.gen, e.rel, e.copy) == NULL)
			in_add(&e);
		*good = off + IN_REC;
	}
	return 0;
}

/* The iod died, its host did not: the page cache kept every byte.  Sync
 * the copies named (one that cannot be opened serves nothing) and start
 * clean. */
static int
in_same_boot(char **cause)
{
	struct in_ent *e;
	size_t h;
	int err;

	pvfs_log_info("%s: unclean stop of the iod (not of its host): "
	    "syncing the %zu copies written last", in_path, in_count);
	for (h = 0; h < IN_HASH; h++)
		for (e = in_tab[h]; e != NULL; e = e->next)
			if ((err = in_sync_copy(e)) != 0)
				pvfs_log_warn("%s: sync of %" PRIu64 ".%" PRIx64
				    " copy %u: %s", in_path, e->ino, e->gen,
				    e->copy, strerror(err));
	in_clear();
	if ((err = in_cut(0)) != 0) {
		pvfs_set_cause(cause, "%s: %s", in_path, strerror(err));
		return -1;
	}
	return 0;
}

int
iod_intent_open(const char *datadir, char **cause)
{
	struct stat st;
	uint64_t good;
	int same_boot = 0, err;

	snprintf(in_path, sizeof(in_path), "%s/%s", datadir, IN_NAME);
	in_boot_id();
	in_fd = open(in_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (in_fd == -1 || fstat(in_fd, &st) != 0) {
		pvfs_set_cause(cause, "%s: %s", in_path, strerror(errno));
		return -1;
	}
	if ((in_dirfd = open(datadir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || fsync(in_dirfd) != 0) {
		pvfs_set_cause(cause, "%s: %s", datadir, strerror(errno));
		return -1;
	}
	in_space = (uint64_t)st.st_size;
	if (in_space < IN_SPACE) {
		/* written whole once (in_zero) */
		errno = 0;
		if (in_zero(in_fd, in_space, IN_SPACE) != 0 ||
		    fdatasync(in_fd) != 0) {
			pvfs_set_cause(cause, "%s: %s", in_path,
			    strerror(errno ? errno : EIO));
			return -1;
		}
		in_space = IN_SPACE;
	}
	if (in_load(in_space, &same_boot, &good, cause) != 0) {
		char *c = *cause;

		pvfs_set_cause(cause, "%s; the mirrored copies of this iod may "
		    "lack acknowledged bytes and the log cannot say which: run "
		    "pvfs-resync --rebuild %u, then remove the file and start "
		    "the iod", c, iod.label.index);
		free(c);
		return -1;
	}
	if (good == 0)
		return 0; /* empty: a clean stop */
	/* up to the last whole record; an interrupted append's bytes go */
	in_len = good + IN_REC <= in_space ? good + IN_REC : in_space;
	if ((err = in_cut(good)) != 0) {
		pvfs_set_cause(cause, "%s: %s", in_path, strerror(err));
		return -1;
	}
	if (same_boot)
		return in_same_boot(cause);
	in_unclean = 1;
	in_base = good;
	pvfs_log_warn("%s: the host stopped uncleanly with %zu mirrored copies "
	    "written here but not synced: they may lack acknowledged bytes; "
	    "no mirrored copy is served until the mgr has marked this iod's "
	    "copies stale (they are then resynced)", in_path, in_count);
	in_clear();
	return 0;
}

/* A client is about to write copy `copy` of part rel of (ino, gen): the
 * first time in an epoch, log it durably.  0 or an errno (the write then
 * fails: fail closed). */
int
iod_intent_note(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	struct in_ent e = { NULL, ino, gen, rel, copy, in_epochs }, *f;
	uint8_t b[IN_HDR + IN_REC];
	size_t n = 0;
	uint64_t at = in_len;

	if ((f = in_find(ino, gen, rel, copy)) != NULL) {
		f->last = in_epochs; /* written on: not retired yet */
		return 0;
	}
	if (in_len == 0) {
		in_hdr_encode(b);
		n = IN_HDR;
	}
	in_rec_encode(b + n, &e);
	n += IN_REC;
	errno = 0;
	if ((at + n > in_space && in_zero(in_fd, in_space, in_space +
	    IN_SPACE) != 0) || pwrite(in_fd, b, n, (off_t)at) != (ssize_t)n ||
	    fdatasync(in_fd) != 0) {
		int err = errno ? errno : EIO;

		pvfs_log_error("%s: %s (mirrored writes refused)", in_path,
		    strerror(err));
		(void)in_zero(in_fd, at, at + n);
		return err;
	}
	if (at + n > in_space)
		in_space += IN_SPACE;
	in_len = at + n;
	in_add(&e);
	if (!in_timer_init) {
		ev_timer_init(&in_timer, in_timer_cb, IN_EPOCH, 0.);
		ev_async_init(&in_done, in_done_cb);
		ev_async_start(iod.loop, &in_done);
		in_timer_init = 1;
	}
	in_timer_arm();
	return 0;
}

/* The iod stops cleanly: the epoch ends now. */
void
iod_intent_close(void)
{
	if (in_fd == -1)
		return;
	if (in_timer_init) {
		ev_timer_stop(iod.loop, &in_timer);
		ev_async_stop(iod.loop, &in_done);
	}
	if (in_busy) {
		pthread_join(in_thread, NULL);
		in_busy = 0;
		if (in_snap_err != 0)
			in_snap_back(); /* synced again just below */
		free(in_snap);
		in_snap = NULL;
	}
	if ((in_count > 0 || (!in_unclean && in_len > 0)) &&
	    in_epoch_end() != 0)
		pvfs_log_error("%s: the last epoch could not be synced: the "
		    "next start takes it for a crash", in_path);
	close(in_fd);
	close(in_dirfd);
	in_fd = in_dirfd = -1;
}

/* While unclean, no copy of a mirrored file is served. */
int
iod_intent_unclean(void)
{
	return in_unclean;
}

/* A HELLO reply says so (PVFS_HELLO_UNCLEAN). */
void
iod_intent_reported(void)
{
	in_reported = 1;
}

/* A whole stale set arrived: if it came after a reply that said we are
 * unclean, the mgr has marked our copies (it does so before it sends the
 * set), and the entries of the crash may go. */
void
iod_intent_set_taken(void)
{
	int err;

	if (!in_unclean || !in_reported)
		return;
	in_unclean = 0;
	pvfs_log_info("%s: the mgr marked this iod's copies stale: served "
	    "again once resynced", in_path);
	in_base = 0;
	if (in_count == 0 && !in_busy && (err = in_cut(0)) != 0)
		pvfs_log_error("%s: %s", in_path, strerror(err));
	/* else the epoch's end cuts it all */
}
