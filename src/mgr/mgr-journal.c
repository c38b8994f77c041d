/*
 * mgr-journal.c - durability of the name space: group commit into the
 * journal, checkpoints into a snapshot, and opening a metadata directory
 * (mgr-load.c reads it; mgr-record.c holds the formats).
 *
 * Files in the metadata directory:
 *   fsid        the file system id (hex), written once
 *   lock        flock'ed while a mgr runs on the directory
 *   snapshot    the whole tree, for the journal generation it precedes
 *   journal.N   the changes since snapshot N, one batch per group commit
 *
 * A torn tail (the file ends inside its last batch: a crash during a
 * commit that was never acknowledged) is cut off at start.  Nothing else
 * is ever truncated or removed unless proven older than what was loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define JR_SNAP_CHUNK (1u << 20) /* records per snapshot batch, in bytes */

static const char *jr_dir;
static int jr_dirfd = -1;
static int jr_lockfd = -1;
static int jr_fd = -1;           /* journal.<jr_gen>, append only */
static uint64_t jr_gen = 1;
static uint64_t jr_size;         /* durable bytes in the journal */
static uint64_t jr_ckpt_at;      /* checkpoint when jr_size reaches this */
static uint64_t jr_seq;          /* the last batch written */
static uint64_t jr_salt;         /* of journal.<jr_gen> */
static struct mgr_batch jr_pending; /* records not yet written */
static void (*jr_durable)(void);    /* told when a batch is on disk */
static uint64_t jr_fsid;
static ev_prepare jr_prepare;

/* ---- file helpers ---- */

static const char *
jr_path(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		pvfs_fatal("%s: metadata directory path too long", dir);
	return buf;
}

static const char *
jr_journal_name(char *buf, size_t len, uint64_t gen)
{
	snprintf(buf, len, "journal.%" PRIu64, gen);
	return buf;
}

static void
mgr_journal_sync_dir(void)
{
	if (fsync(jr_dirfd) != 0)
		pvfs_fatal("%s: fsync: %s", jr_dir, strerror(errno));
}

int
mgr_journal_sync_path(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd == -1)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static uint64_t
jr_random(void)
{
	uint64_t v = 0;

	while (v == 0) {
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			pvfs_fatal("getrandom: %s", strerror(errno));
	}
	return v;
}

/* ---- writing files ---- */

/* Write a format-2 header with a new salt to fd; its salt, or 0 with
 * errno on a failed write. */
static uint64_t
jr_write_hdr(int fd, int snapshot, uint64_t fsid, uint64_t gen)
{
	struct mgr_file_hdr h;
	struct pvfs_buf b;
	int rc;

	memset(&h, 0, sizeof(h));
	h.snapshot = snapshot;
	h.format = MGR_FORMAT;
	h.fsid = fsid;
	h.gen = gen;
	h.salt = jr_random();
	if (snapshot) {
		h.next_ino = mgr_ns_next_ino();
		h.root_cookie = mgr_ns_root()->dir->next_cookie;
	}
	pvfs_buf_init(&b);
	mgr_record_hdr_encode(&b, &h);
	rc = pvfs_write_all(fd, b.data, b.len);
	pvfs_buf_free(&b);
	return rc == 0 ? h.salt : 0;
}

/* Create dir/journal.<gen> holding only its header, durable; its
 * descriptor (append only) and salt. */
int
mgr_journal_create(const char *dir, uint64_t fsid, uint64_t gen, int *fdp,
    uint64_t *saltp)
{
	char path[PATH_MAX], name[64];
	int fd, err;

	jr_path(path, dir, jr_journal_name(name, sizeof(name), gen));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (fd == -1)
		return -1;
	if ((*saltp = jr_write_hdr(fd, 0, fsid, gen)) == 0 || fsync(fd) != 0) {
		err = errno;
		close(fd);
		unlink(path);
		errno = err;
		return -1;
	}
	*fdp = fd;
	return 0;
}

struct jr_snap {
	int fd;
	uint64_t salt, seq;
	uint64_t count;  /* records, which the END record gives */
	uint64_t inodes;
	struct mgr_batch batch;
};

static int
jr_snap_flush(struct jr_snap *s)
{
	if (s->batch.nrec == 0)
		return 0;
	mgr_batch_seal(&s->batch, ++s->seq, s->salt);
	if (pvfs_write_all(s->fd, s->batch.buf.data, s->batch.buf.len) != 0)
		return -1;
	mgr_batch_reset(&s->batch);
	return 0;
}

static void
jr_snap_add(struct jr_snap *s, const struct mgr_rec *r)
{
	mgr_batch_add(&s->batch, r);
	s->count++;
}

/* The root has no create record: SETATTRs carry its attributes.  A
 * SETATTR dates the setting of mtime (mset_ns) with its ctime field, so
 * the first one is dated mset_ns and a second sets the real ctime. */
static void
jr_snap_root(struct jr_snap *s, struct mgr_rec *r, const struct mgr_inode *in)
{
	r->ctime_ns = in->mset_ns;
	jr_snap_add(s, r);
	r->mask = MGR_REC_CTIME;
	r->ctime_ns = in->ctime_ns;
	jr_snap_add(s, r);
}

/* A file's later name as a LINK record in its directory's cookie order;
 * the inode's own times are set by its create, before. */
static int
jr_snap_link(struct jr_snap *s, const struct mgr_inode *in,
    const struct mgr_dirent *de)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_LINK;
	r.parent = de->parent->ino;
	r.ino = in->ino;
	r.cookie = mgr_ns_cookie(de);
	r.name = de->name;
	r.namelen = de->namelen;
	jr_snap_add(s, &r);
	return s->batch.buf.len >= JR_SNAP_CHUNK ? jr_snap_flush(s) : 0;
}

/* One inode as the record that recreates it, with its current attributes,
 * at the first of its names met (de; NULL for the root, and for an orphan,
 * which an ORPHAN record recreates); parents' times are left alone (time
 * 0) since they have their own. */
static int
jr_snap_emit_name(const struct mgr_inode *in, const struct mgr_dirent *de,
    int first, void *arg)
{
	struct jr_snap *s = arg;
	struct mgr_rec r;

	if (!first)
		return jr_snap_link(s, in, de);
	memset(&r, 0, sizeof(r));
	r.type = in->orphan ? MGR_REC_ORPHAN : de == NULL ? MGR_REC_SETATTR :
	    in->dir ? MGR_REC_MKDIR : MGR_IS_REG(in) ? MGR_REC_CREATE :
	    MGR_IS_LNK(in) ? MGR_REC_SYMLINK : MGR_REC_MKNOD;
	r.target = in->target;
	r.targetlen = in->targetlen;
	r.mask = MGR_REC_ALL;
	mgr_ns_rec_attrs(in, &r);
	if (r.type == MGR_REC_ORPHAN && in->held)
		r.mode |= MGR_ORPHAN_HELD;
	if (r.type == MGR_REC_MKNOD) {
		r.mode = in->mode;
		r.rdev = in->rdev;
	}
	if (de != NULL) {
		r.parent = de->parent->ino;
		r.cookie = mgr_ns_cookie(de);
		r.name = de->name;
		r.namelen = de->namelen;
	}
	if (in->dir != NULL)
		r.next_cookie = in->dir->next_cookie;
	if (r.type == MGR_REC_SETATTR)
		jr_snap_root(s, &r, in);
	else
		jr_snap_add(s, &r);
	if (in->dist.copies > (in->dir != NULL ? 0 : 1)) {
		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_MIRROR;
		r.ino = in->ino;
		r.dist.copies = in->dist.copies;
		r.dist.mshift = in->dist.mshift;
		jr_snap_add(s, &r);
	}
	s->inodes++;
	return s->batch.buf.len >= JR_SNAP_CHUNK ? jr_snap_flush(s) : 0;
}

static int
jr_snap_orphan(struct mgr_inode *in, void *arg)
{
	return jr_snap_emit_name(in, NULL, 1, arg);
}

/* A stale copy's DIRTY record, after every file (mgr-mirror.c). */
static int
jr_snap_dirty(const struct mgr_rec *r, void *arg)
{
	struct jr_snap *s = arg;

	jr_snap_add(s, r);
	return s->batch.buf.len >= JR_SNAP_CHUNK ? jr_snap_flush(s) : 0;
}

static int
jr_snap_write(struct jr_snap *s, uint64_t fsid, uint64_t gen)
{
	struct mgr_rec end;

	if ((s->salt = jr_write_hdr(s->fd, 1, fsid, gen)) == 0 ||
	    mgr_ns_walk_names(jr_snap_emit_name, s) != 0 ||
	    mgr_ns_walk_orphans(jr_snap_orphan, s) != 0 ||
	    mgr_mirror_snap_walk(jr_snap_dirty, s) != 0)
		return -1;
	memset(&end, 0, sizeof(end));
	end.type = MGR_REC_END;
	end.ino = s->count;
	mgr_batch_add(&s->batch, &end);
	if (jr_snap_flush(s) != 0 || fsync(s->fd) != 0)
		return -1;
	return 0;
}

/* The name space as dir/<name>, complete and durable (not yet renamed
 * into place); -1 with errno and nothing left behind on failure. */
int
mgr_journal_snapshot(const char *dir, const char *name, uint64_t fsid,
    uint64_t gen, uint64_t *count)
{
	char path[PATH_MAX];
	struct jr_snap s;
	int rc = -1, err;

	memset(&s, 0, sizeof(s));
	jr_path(path, dir, name);
	if ((s.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1)
		return -1;
	if (jr_snap_write(&s, fsid, gen) == 0)
		rc = 0;
	err = errno;
	if (close(s.fd) != 0 && rc == 0) {
		err = errno;
		rc = -1;
	}
	if (rc != 0)
		unlink(path);
	pvfs_buf_free(&s.batch.buf);
	*count = s.inodes;
	errno = err;
	return rc;
}

/* ---- opening ---- */

/* The fsid is made once, at the first start, and never changes.  1 if
 * this is a new file system. */
static int
mgr_journal_fsid_load(void)
{
	char path[PATH_MAX], text[32];

	jr_path(path, jr_dir, "fsid");
	if (mgr_load_fsid(jr_dir, &jr_fsid) == 0) {
		if (mgr.want_fsid != 0 && mgr.want_fsid != jr_fsid)
			pvfs_fatal("%s: file system %016" PRIx64 ", not %016" PRIx64
			    " (--fsid): the wrong metadata directory?", path,
			    jr_fsid, mgr.want_fsid);
		return 0;
	}
	if (errno != ENOENT)
		pvfs_fatal("%s: %s", path, strerror(errno));
	if (mgr_load_has_state(jr_dir))
		pvfs_fatal("%s: missing, but the directory holds a name space; restore "
		    "the file (it holds the file system id in hex) from a backup",
		    path);
	jr_fsid = mgr.want_fsid != 0 ? mgr.want_fsid : jr_random();
	snprintf(text, sizeof(text), "%016" PRIx64, jr_fsid);
	if (pvfs_write_file_atomic(path, text) != 0)
		pvfs_fatal("%s: %s", path, strerror(errno));
	mgr_journal_sync_dir();
	pvfs_log_info("new file system %016" PRIx64 " in %s", jr_fsid, jr_dir);
	return 1;
}

/* One mgr per metadata directory: two would interleave journals. */
static void
mgr_journal_lock(void)
{
	char path[PATH_MAX];

	jr_lockfd = open(jr_path(path, jr_dir, "lock"),
	    O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (jr_lockfd == -1)
		pvfs_fatal("%s: %s", path, strerror(errno));
	if (flock(jr_lockfd, LOCK_EX | LOCK_NB) != 0)
		pvfs_fatal("%s: another pvfs-mgr uses this directory", jr_dir);
}

/* A fresh file system: journal.1 and the root's attributes, durable. */
static void
mgr_journal_init(void)
{
	struct mgr_inode *root = mgr_ns_root();
	struct mgr_rec r;
	char path[PATH_MAX];

	if (mgr_journal_create(jr_dir, jr_fsid, 1, &jr_fd, &jr_salt) != 0)
		pvfs_fatal("%s: %s", jr_path(path, jr_dir, "journal.1"), strerror(errno));
	mgr_journal_sync_dir();
	jr_gen = 1;
	jr_seq = 0;
	jr_size = MGR_HDR_LEN;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = root->ino;
	r.mask = MGR_REC_ALL;
	r.mode = root->mode;
	r.uid = root->uid;
	r.gid = root->gid;
	r.atime_ns = r.mtime_ns = r.ctime_ns = pvfs_now_ns();
	mgr_journal_log(&r);
	mgr_journal_commit();
}

/* Go on appending to the journal that was loaded, after its torn tail. */
static void
mgr_journal_resume(const struct mgr_load *l)
{
	char path[PATH_MAX], name[64];

	jr_path(path, jr_dir, jr_journal_name(name, sizeof(name), l->gen));
	if ((jr_fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)) == -1)
		pvfs_fatal("%s: %s", path, strerror(errno));
	if (l->jr_torn) {
		pvfs_log_info("%s: cut a torn tail of %zu bytes at offset %zu (a crash "
		    "during an unacknowledged commit)", path, l->jr_len - l->jr_good,
		    l->jr_good);
		if (ftruncate(jr_fd, (off_t)l->jr_good) != 0 || fsync(jr_fd) != 0)
			pvfs_fatal("%s: truncate: %s", path, strerror(errno));
	}
	jr_gen = l->gen;
	jr_size = l->jr_good;
	jr_seq = l->jr_seq;
	jr_salt = l->jr_salt;
}

/* What the load proved to be older than what it loaded, or never used. */
static void
mgr_journal_remove_leftovers(const struct mgr_load *l)
{
	char path[PATH_MAX], name[64];
	size_t i;
	int removed = 0;

	for (i = 0; i < l->njournals; i++) {
		if (l->journals[i] == jr_gen)
			continue;
		jr_path(path, jr_dir, jr_journal_name(name, sizeof(name),
		    l->journals[i]));
		if (unlink(path) != 0 && errno != ENOENT)
			pvfs_fatal("%s: unlink: %s", path, strerror(errno));
		pvfs_log_info("%s: removed (generation %" PRIu64 " is loaded)", path,
		    jr_gen);
		removed = 1;
	}
	if (l->have_snap_tmp && unlink(jr_path(path, jr_dir, "snapshot.tmp")) == 0) {
		pvfs_log_info("%s: removed (an unfinished checkpoint)", path);
		removed = 1;
	}
	/* A clean start changed no name here: no directory sync, which on a
	 * busy disk can cost seconds of the restart. */
	if (removed)
		mgr_journal_sync_dir();
}

static void mgr_journal_checkpoint(void);

void
mgr_journal_open(const char *metadir)
{
	struct mgr_load l;

	jr_dir = metadir;
	jr_dirfd = open(metadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (jr_dirfd == -1)
		pvfs_fatal("%s: %s", metadir, strerror(errno));
	mgr_journal_lock();
	mgr_ns_init();
	jr_ckpt_at = mgr.journal_max;
	if (mgr_journal_fsid_load()) {
		mgr_journal_init();
		return;
	}
	memset(&l, 0, sizeof(l));
	l.dir = metadir;
	l.fsid = jr_fsid;
	mgr_load_dir(&l);
	if (l.snap_format == 1 || l.jr_format == 1) {
		/* Rewrite an older format's state as a format-2 checkpoint. */
		jr_gen = l.gen;
		mgr_journal_checkpoint();
		if (jr_fd == -1)
			pvfs_fatal("%s: cannot rewrite the metadata in format %d", metadir,
			    MGR_FORMAT);
		pvfs_log_info("%s: metadata rewritten in format %d", metadir, MGR_FORMAT);
	} else {
		mgr_journal_resume(&l);
	}
	mgr_journal_remove_leftovers(&l);
	mgr_load_free(&l);
	pvfs_log_info("name space: %" PRIu64 " inodes, next inode %" PRIu64,
	    mgr_ns_count(), mgr_ns_next_ino());
}

uint64_t
mgr_journal_fsid(void)
{
	return jr_fsid;
}

/* ---- live path ---- */

void
mgr_journal_log(const struct mgr_rec *r)
{
	int rc;

	mgr_cache_record(r);
	if ((rc = mgr_ns_apply(r)) != 0)
		pvfs_fatal("bug: checked record (type %d) does not apply: %s", r->type,
		    strerror(rc));
	mgr_batch_add(&jr_pending, r);
}

int
mgr_journal_pending(void)
{
	return jr_pending.nrec > 0;
}

/* ---- checkpoint ---- */

/* Start appending to journal.<gen>, made before the snapshot that
 * precedes it was renamed into place. */
static void
mgr_journal_switch(uint64_t gen, int fd, uint64_t salt)
{
	char path[PATH_MAX], name[64];

	if (jr_fd != -1)
		close(jr_fd);
	jr_path(path, jr_dir, jr_journal_name(name, sizeof(name), jr_gen));
	if (unlink(path) != 0 && errno != ENOENT)
		pvfs_log_warn("%s: unlink: %s", path, strerror(errno));
	mgr_journal_sync_dir();
	jr_fd = fd;
	jr_gen = gen;
	jr_salt = salt;
	jr_seq = 0;
	jr_size = MGR_HDR_LEN;
}

/* Write the whole name space to a new snapshot and start an empty
 * journal.  Runs right after a commit, so nothing is pending.  The new
 * journal exists before the snapshot is renamed, so the snapshot's
 * journal is never missing; until the rename nothing is lost by failing,
 * after it the old journal is obsolete. */
static void
mgr_journal_checkpoint(void)
{
	char tmp[PATH_MAX], path[PATH_MAX], name[64];
	int64_t t0 = pvfs_mono_ms();
	uint64_t count, salt;
	int fd;

	jr_path(tmp, jr_dir, "snapshot.tmp");
	jr_path(path, jr_dir, "snapshot");
	if (mgr_journal_snapshot(jr_dir, "snapshot.tmp", jr_fsid, jr_gen + 1,
	    &count) != 0) {
		pvfs_log_warn("%s: checkpoint failed: %s", tmp, strerror(errno));
		goto later;
	}
	if (mgr_journal_create(jr_dir, jr_fsid, jr_gen + 1, &fd, &salt) != 0) {
		pvfs_log_warn("%s: checkpoint failed: %s", jr_path(path, jr_dir,
		    jr_journal_name(name, sizeof(name), jr_gen + 1)), strerror(errno));
		unlink(tmp);
		goto later;
	}
	mgr_journal_sync_dir();
	if (rename(tmp, path) != 0) {
		pvfs_log_warn("%s: checkpoint failed: rename: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		unlink(jr_path(path, jr_dir, jr_journal_name(name, sizeof(name),
		    jr_gen + 1)));
		goto later;
	}
	mgr_journal_sync_dir();
	mgr_journal_switch(jr_gen + 1, fd, salt);
	jr_ckpt_at = mgr.journal_max;
	pvfs_log_info("checkpoint: %" PRIu64 " inodes in %lld ms, generation %" PRIu64,
	    count, (long long)(pvfs_mono_ms() - t0), jr_gen);
	return;
later:
	jr_ckpt_at = jr_size + mgr.journal_max;
}

/* ---- group commit ---- */

/* One write and one fdatasync for every record of this loop iteration.
 * Memory already holds the changes, so a failed write cannot be answered
 * with an error: exiting lets recovery restore the durable state. */
void
mgr_journal_commit(void)
{
	int64_t t0;

	if (jr_pending.nrec == 0)
		return;
	t0 = pvfs_mono_ns();
	mgr_batch_seal(&jr_pending, jr_seq + 1, jr_salt);
	if (pvfs_write_all(jr_fd, jr_pending.buf.data, jr_pending.buf.len) != 0)
		pvfs_fatal("journal write: %s", strerror(errno));
	if (fdatasync(jr_fd) != 0)
		pvfs_fatal("journal fdatasync: %s", strerror(errno));
	pvfs_counters_extra(&mgr_counters, 0, pvfs_mono_ns() - t0);
	jr_seq++;
	jr_size += jr_pending.buf.len;
	mgr_batch_reset(&jr_pending);
	if (jr_pending.buf.cap > (4u << 20))
		pvfs_buf_free(&jr_pending.buf);
	if (jr_durable != NULL)
		jr_durable();
	if (jr_size >= jr_ckpt_at)
		mgr_journal_checkpoint();
}

static void
mgr_journal_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	mgr_journal_commit();
}

void
mgr_journal_start(struct ev_loop *loop, void (*durable)(void))
{
	jr_durable = durable;
	ev_prepare_init(&jr_prepare, mgr_journal_prepare_cb);
	ev_prepare_start(loop, &jr_prepare);
}

void
mgr_journal_close(void)
{
	mgr_journal_commit();
	if (jr_fd != -1)
		close(jr_fd);
	if (jr_lockfd != -1)
		close(jr_lockfd);
	if (jr_dirfd != -1)
		close(jr_dirfd);
	jr_fd = jr_lockfd = jr_dirfd = -1;
	pvfs_buf_free(&jr_pending.buf);
}
