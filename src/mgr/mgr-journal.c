/*
 * mgr-journal.c - durability of the name space: journal records, group
 * commit, snapshots and recovery.
 *
 * Files in the metadata directory:
 *   fsid        the file system id (hex), written once
 *   lock        flock'ed while a mgr runs on the directory
 *   journal.N   records: u32 len, u32 crc32c(payload), payload
 *   snapshot    header: "PVFSSNP1", u64 fsid, generation N it precedes,
 *               next inode, the root's next cookie, u32 crc32c of those;
 *               then the whole tree as SETATTR (root) and CREATE/MKDIR
 *               records, parents first; then an END record
 *
 * Payloads (big-endian, strings as u16 length + bytes):
 *   CREATE, MKDIR  u8 type, u64 parent, ino, cookie, next_cookie,
 *                  u32 mode, uid, gid, u64 atime, mtime, ctime, mset,
 *                  u32 base, pcount, ssize, u64 time, str name
 *   UNLINK, RMDIR  u8 type, u64 parent, ino, time, str name
 *   RENAME         u8 type, u64 parent, parent2, time, str name, str name2
 *   SETATTR        u8 type, u64 ino, u32 mask, mode, uid, gid,
 *                  u64 atime, mtime, ctime
 *   END            u8 type, u64 records before it
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define JR_REC_MAX 1024          /* no valid record is longer */
#define JR_SNAP_MAGIC "PVFSSNP1"
#define JR_SNAP_HDR 44           /* magic, fsid, gen, next_ino, cookie, crc */
#define JR_SNAP_CHUNK (1u << 20) /* snapshot write size */

static const char *jr_dir;
static int jr_dirfd = -1;
static int jr_lockfd = -1;
static int jr_fd = -1;           /* journal.<jr_gen>, append only */
static uint64_t jr_gen = 1;
static uint64_t jr_size;         /* durable bytes in the journal */
static uint64_t jr_ckpt_at;      /* checkpoint when jr_size reaches this */
static struct pvfs_buf jr_pending; /* records not yet written */
static uint64_t jr_fsid;
static ev_prepare jr_prepare;

/* ---- file helpers ---- */

static const char *
mgr_journal_path(char *buf, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", jr_dir, name) >= PATH_MAX)
		fatal("%s: metadata directory path too long", jr_dir);
	return buf;
}

static void
mgr_journal_sync_dir(void)
{
	if (fsync(jr_dirfd) != 0)
		fatal("%s: fsync: %s", jr_dir, strerror(errno));
}

/* Map a whole file read-only; *len 0 and NULL for an empty one. */
static uint8_t *
mgr_journal_map(int fd, size_t *len)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0)
		fatal("%s: fstat: %s", jr_dir, strerror(errno));
	*len = (size_t)st.st_size;
	if (*len == 0)
		return NULL;
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		fatal("%s: mmap: %s", jr_dir, strerror(errno));
	return p;
}

/* ---- record codec ---- */

static void
mgr_journal_put_str(struct pvfs_buf *b, const char *s, uint16_t n)
{
	pvfs_buf_put_u16(b, n);
	pvfs_buf_put(b, s, n);
}

static void
mgr_journal_put_inode(struct pvfs_buf *b, const struct mgr_rec *r)
{
	pvfs_buf_put_u64(b, r->parent);
	pvfs_buf_put_u64(b, r->ino);
	pvfs_buf_put_u64(b, r->cookie);
	pvfs_buf_put_u64(b, r->next_cookie);
	pvfs_buf_put_u32(b, r->mode);
	pvfs_buf_put_u32(b, r->uid);
	pvfs_buf_put_u32(b, r->gid);
	pvfs_buf_put_u64(b, (uint64_t)r->atime_ns);
	pvfs_buf_put_u64(b, (uint64_t)r->mtime_ns);
	pvfs_buf_put_u64(b, (uint64_t)r->ctime_ns);
	pvfs_buf_put_u64(b, (uint64_t)r->mset_ns);
	pvfs_buf_put_u32(b, r->dist.base);
	pvfs_buf_put_u32(b, r->dist.pcount);
	pvfs_buf_put_u32(b, r->dist.ssize);
	pvfs_buf_put_u64(b, (uint64_t)r->time);
	mgr_journal_put_str(b, r->name, r->namelen);
}

static void
mgr_journal_put_setattr(struct pvfs_buf *b, const struct mgr_rec *r)
{
	pvfs_buf_put_u64(b, r->ino);
	pvfs_buf_put_u32(b, r->mask);
	pvfs_buf_put_u32(b, r->mode);
	pvfs_buf_put_u32(b, r->uid);
	pvfs_buf_put_u32(b, r->gid);
	pvfs_buf_put_u64(b, (uint64_t)r->atime_ns);
	pvfs_buf_put_u64(b, (uint64_t)r->mtime_ns);
	pvfs_buf_put_u64(b, (uint64_t)r->ctime_ns);
}

static void
mgr_journal_put_payload(struct pvfs_buf *b, const struct mgr_rec *r)
{
	pvfs_buf_put_u8(b, r->type);
	switch (r->type) {
	case MGR_REC_CREATE:
	case MGR_REC_MKDIR:
		mgr_journal_put_inode(b, r);
		break;
	case MGR_REC_UNLINK:
	case MGR_REC_RMDIR:
		pvfs_buf_put_u64(b, r->parent);
		pvfs_buf_put_u64(b, r->ino);
		pvfs_buf_put_u64(b, (uint64_t)r->time);
		mgr_journal_put_str(b, r->name, r->namelen);
		break;
	case MGR_REC_RENAME:
		pvfs_buf_put_u64(b, r->parent);
		pvfs_buf_put_u64(b, r->parent2);
		pvfs_buf_put_u64(b, (uint64_t)r->time);
		mgr_journal_put_str(b, r->name, r->namelen);
		mgr_journal_put_str(b, r->name2, r->namelen2);
		break;
	case MGR_REC_SETATTR:
		mgr_journal_put_setattr(b, r);
		break;
	case MGR_REC_END:
		pvfs_buf_put_u64(b, r->ino);
		break;
	}
}

/* Append one framed record: the frame header is filled in once the
 * payload's length and checksum are known. */
static void
mgr_journal_encode(struct pvfs_buf *b, const struct mgr_rec *r)
{
	size_t start = b->len, n;

	if (pvfs_buf_reserve(b, 8) == 0)
		b->len += 8;
	mgr_journal_put_payload(b, r);
	if (b->oom)
		fatal("out of memory (journal buffer)");
	n = b->len - start - 8;
	pvfs_be32_put(b->data + start, (uint32_t)n);
	pvfs_be32_put(b->data + start + 4, pvfs_crc32c(0, b->data + start + 8, n));
}

/* A name in a record must be one valid path component. */
static int
mgr_journal_get_name(struct pvfs_cur *c, char *buf, const char **name, uint16_t *len)
{
	size_t n;

	pvfs_cur_str(c, buf, PVFS_NAME_MAX);
	n = strlen(buf);
	if (c->bad || n == 0 || memchr(buf, '/', n) != NULL ||
	    strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0)
		return -1;
	*name = buf;
	*len = (uint16_t)n;
	return 0;
}

static void
mgr_journal_get_inode_fields(struct pvfs_cur *c, struct mgr_rec *r)
{
	r->parent = pvfs_cur_u64(c);
	r->ino = pvfs_cur_u64(c);
	r->cookie = pvfs_cur_u64(c);
	r->next_cookie = pvfs_cur_u64(c);
	r->mode = pvfs_cur_u32(c);
	r->uid = pvfs_cur_u32(c);
	r->gid = pvfs_cur_u32(c);
	r->atime_ns = (int64_t)pvfs_cur_u64(c);
	r->mtime_ns = (int64_t)pvfs_cur_u64(c);
	r->ctime_ns = (int64_t)pvfs_cur_u64(c);
	r->mset_ns = (int64_t)pvfs_cur_u64(c);
	r->dist.base = pvfs_cur_u32(c);
	r->dist.pcount = pvfs_cur_u32(c);
	r->dist.ssize = pvfs_cur_u32(c);
	r->time = (int64_t)pvfs_cur_u64(c);
}

static void
mgr_journal_get_setattr(struct pvfs_cur *c, struct mgr_rec *r)
{
	r->ino = pvfs_cur_u64(c);
	r->mask = pvfs_cur_u32(c);
	r->mode = pvfs_cur_u32(c);
	r->uid = pvfs_cur_u32(c);
	r->gid = pvfs_cur_u32(c);
	r->atime_ns = (int64_t)pvfs_cur_u64(c);
	r->mtime_ns = (int64_t)pvfs_cur_u64(c);
	r->ctime_ns = (int64_t)pvfs_cur_u64(c);
}

/* Decode one payload; names point into the static buffers. */
static int
mgr_journal_decode(const uint8_t *p, size_t n, struct mgr_rec *r)
{
	static char name[PVFS_NAME_MAX + 1], name2[PVFS_NAME_MAX + 1];
	struct pvfs_cur c;
	int bad = 0;

	memset(r, 0, sizeof(*r));
	pvfs_cur_init(&c, p, n);
	switch ((r->type = pvfs_cur_u8(&c))) {
	case MGR_REC_CREATE:
	case MGR_REC_MKDIR:
		mgr_journal_get_inode_fields(&c, r);
		bad = mgr_journal_get_name(&c, name, &r->name, &r->namelen);
		break;
	case MGR_REC_UNLINK:
	case MGR_REC_RMDIR:
		r->parent = pvfs_cur_u64(&c);
		r->ino = pvfs_cur_u64(&c);
		r->time = (int64_t)pvfs_cur_u64(&c);
		bad = mgr_journal_get_name(&c, name, &r->name, &r->namelen);
		break;
	case MGR_REC_RENAME:
		r->parent = pvfs_cur_u64(&c);
		r->parent2 = pvfs_cur_u64(&c);
		r->time = (int64_t)pvfs_cur_u64(&c);
		bad = mgr_journal_get_name(&c, name, &r->name, &r->namelen) ||
		    mgr_journal_get_name(&c, name2, &r->name2, &r->namelen2);
		break;
	case MGR_REC_SETATTR:
		mgr_journal_get_setattr(&c, r);
		break;
	case MGR_REC_END:
		r->ino = pvfs_cur_u64(&c);
		break;
	default:
		return -1;
	}
	return bad || c.bad || c.left != 0 ? -1 : 0;
}

/* Walk framed records in p[0..len); calls fn on each whole, valid one and
 * returns the offset just past the last of them. */
static size_t
mgr_journal_scan(const uint8_t *p, size_t len,
    int (*fn)(const struct mgr_rec *, void *), void *arg)
{
	struct mgr_rec r;
	size_t off = 0;
	uint32_t n;

	while (len - off >= 8) {
		n = pvfs_be32_get(p + off);
		if (n == 0 || n > JR_REC_MAX || n > len - off - 8)
			break;
		if (pvfs_crc32c(0, p + off + 8, n) != pvfs_be32_get(p + off + 4))
			break;
		if (mgr_journal_decode(p + off + 8, n, &r) != 0) {
			log_warn("journal: undecodable record at offset %zu", off);
			break;
		}
		if (fn(&r, arg) != 0)
			break;
		off += 8 + n;
	}
	return off;
}

/* ---- recovery ---- */

static int
mgr_journal_replay_one(const struct mgr_rec *r, void *arg)
{
	int rc;

	if (r->type == MGR_REC_END)
		fatal("%s: end-of-snapshot record inside a journal", jr_dir);
	if ((rc = mgr_ns_apply(r)) != 0)
		fatal("%s: journal record (type %d) does not apply: %s; refusing "
		    "to start on an inconsistent name space", jr_dir, r->type,
		    strerror(rc));
	(*(uint64_t *)arg)++;
	return 0;
}

struct mgr_journal_snap_load {
	uint64_t count;
	int ended;
};

static int
mgr_journal_snap_one(const struct mgr_rec *r, void *arg)
{
	struct mgr_journal_snap_load *s = arg;
	int rc;

	if (s->ended)
		return -1;
	if (r->type == MGR_REC_END) {
		s->ended = r->ino == s->count;
		return s->ended ? 0 : -1;
	}
	if ((rc = mgr_ns_apply(r)) != 0)
		fatal("%s/snapshot: record %" PRIu64 " does not apply: %s", jr_dir,
		    s->count, strerror(rc));
	s->count++;
	return 0;
}

static int
mgr_journal_snap_header(const uint8_t *p, size_t len)
{
	if (len < JR_SNAP_HDR || memcmp(p, JR_SNAP_MAGIC, 8) != 0 ||
	    pvfs_crc32c(0, p, 40) != pvfs_be32_get(p + 40))
		return -1;
	if (pvfs_be64_get(p + 8) != jr_fsid)
		fatal("%s/snapshot belongs to another file system", jr_dir);
	jr_gen = pvfs_be64_get(p + 16);
	mgr_ns_set_next_ino(pvfs_be64_get(p + 24));
	/* The root has no MKDIR record to carry its cookie counter. */
	mgr_ns_root()->dir->next_cookie = pvfs_be64_get(p + 32);
	return 0;
}

/* 1 if a snapshot was loaded.  The snapshot was complete when renamed into
 * place, so any damage is fatal rather than silently lossy. */
static int
mgr_journal_snap_load(void)
{
	char path[PATH_MAX];
	struct mgr_journal_snap_load s = { 0, 0 };
	uint8_t *p;
	size_t len, used;
	int fd = open(mgr_journal_path(path, "snapshot"), O_RDONLY | O_CLOEXEC);

	if (fd == -1 && errno == ENOENT)
		return 0;
	if (fd == -1)
		fatal("%s: %s", path, strerror(errno));
	p = mgr_journal_map(fd, &len);
	if (p == NULL || mgr_journal_snap_header(p, len) != 0)
		fatal("%s: bad snapshot header", path);
	used = mgr_journal_scan(p + JR_SNAP_HDR, len - JR_SNAP_HDR,
	    mgr_journal_snap_one, &s);
	if (!s.ended || used != len - JR_SNAP_HDR)
		fatal("%s: damaged snapshot (%" PRIu64 " records read)", path,
		    s.count);
	munmap(p, len);
	close(fd);
	log_info("%s: %" PRIu64 " inodes, generation %" PRIu64, path, s.count,
	    jr_gen);
	return 1;
}

/* Replay journal.<jr_gen> and cut any torn tail off, so new records
 * follow the last good one. */
static void
mgr_journal_replay(void)
{
	char path[PATH_MAX], name[64];
	uint64_t count = 0;
	uint8_t *p;
	size_t len, used;

	snprintf(name, sizeof(name), "journal.%" PRIu64, jr_gen);
	jr_fd = open(mgr_journal_path(path, name),
	    O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (jr_fd == -1)
		fatal("%s: %s", path, strerror(errno));
	p = mgr_journal_map(jr_fd, &len);
	used = 0;
	if (p != NULL) {
		used = mgr_journal_scan(p, len, mgr_journal_replay_one, &count);
		munmap(p, len);
	}
	if (used < len) {
		log_warn("%s: dropping %zu bytes of torn tail at offset %zu", path,
		    len - used, used);
		if (ftruncate(jr_fd, (off_t)used) != 0 || fsync(jr_fd) != 0)
			fatal("%s: truncate: %s", path, strerror(errno));
	}
	jr_size = used;
	mgr_journal_sync_dir();
	log_info("%s: replayed %" PRIu64 " records", path, count);
}

/* Journals of other generations are leftovers of an interrupted
 * checkpoint, as is snapshot.tmp. */
static void
mgr_journal_remove_stale(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(jr_dir);
	unsigned long long g;
	int n = 0;

	if (d == NULL)
		fatal("%s: %s", jr_dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, "snapshot.tmp") != 0 &&
		    (sscanf(e->d_name, "journal.%llu", &g) != 1 || g == jr_gen))
			continue;
		if (unlink(mgr_journal_path(path, e->d_name)) != 0) {
			log_warn("%s: unlink: %s", path, strerror(errno));
			continue;
		}
		log_info("%s: removed leftover", path);
		n++;
	}
	closedir(d);
	if (n > 0)
		mgr_journal_sync_dir();
}

/* Does the directory already hold a name space (snapshot or journal)? */
static int
mgr_journal_has_state(void)
{
	struct dirent *e;
	DIR *d = opendir(jr_dir);
	unsigned long long g;
	int found = 0;

	if (d == NULL)
		fatal("%s: %s", jr_dir, strerror(errno));
	while (!found && (e = readdir(d)) != NULL)
		found = strcmp(e->d_name, "snapshot") == 0 ||
		    sscanf(e->d_name, "journal.%llu", &g) == 1;
	closedir(d);
	return found;
}

/* The fsid is made once, at the first start, and never changes. */
static void
mgr_journal_fsid_load(void)
{
	char path[PATH_MAX], text[32], *s;

	mgr_journal_path(path, "fsid");
	if ((s = pvfs_read_small_file(path, 64, NULL)) != NULL) {
		if (sscanf(s, "%" SCNx64, &jr_fsid) != 1 || jr_fsid == 0)
			fatal("%s: not a file system id", path);
		free(s);
		return;
	}
	if (errno != ENOENT)
		fatal("%s: %s", path, strerror(errno));
	if (mgr_journal_has_state())
		fatal("%s: missing, but the directory holds a name space", path);
	while (jr_fsid == 0) {
		if (getrandom(&jr_fsid, sizeof(jr_fsid), 0) != sizeof(jr_fsid))
			fatal("getrandom: %s", strerror(errno));
	}
	snprintf(text, sizeof(text), "%016" PRIx64, jr_fsid);
	if (pvfs_write_file_atomic(path, text) != 0)
		fatal("%s: %s", path, strerror(errno));
	mgr_journal_sync_dir();
	log_info("new file system %016" PRIx64 " in %s", jr_fsid, jr_dir);
}

/* One mgr per metadata directory: two would interleave journals. */
static void
mgr_journal_lock(void)
{
	char path[PATH_MAX];

	jr_lockfd = open(mgr_journal_path(path, "lock"),
	    O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (jr_lockfd == -1)
		fatal("%s: %s", path, strerror(errno));
	if (flock(jr_lockfd, LOCK_EX | LOCK_NB) != 0)
		fatal("%s: another pvfs-mgr uses this directory", jr_dir);
}

/* A fresh file system: make the root's attributes durable. */
static void
mgr_journal_init_root(void)
{
	struct mgr_inode *root = mgr_ns_root();
	struct mgr_rec r;
	int64_t now = pvfs_now_ns();

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_SETATTR;
	r.ino = root->ino;
	r.mask = MGR_REC_ALL;
	r.mode = root->mode;
	r.uid = root->uid;
	r.gid = root->gid;
	r.atime_ns = r.mtime_ns = r.ctime_ns = now;
	mgr_journal_log(&r);
	mgr_journal_commit();
}

void
mgr_journal_open(const char *metadir)
{
	int snap;

	jr_dir = metadir;
	jr_dirfd = open(metadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (jr_dirfd == -1)
		fatal("%s: %s", metadir, strerror(errno));
	mgr_journal_lock();
	mgr_journal_fsid_load();
	mgr_ns_init();
	snap = mgr_journal_snap_load();
	mgr_journal_replay();
	mgr_journal_remove_stale();
	jr_ckpt_at = mgr.journal_max;
	if (!snap && jr_size == 0)
		mgr_journal_init_root();
	log_info("name space: %" PRIu64 " inodes, next inode %" PRIu64,
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
	int rc = mgr_ns_apply(r);

	if (rc != 0)
		fatal("bug: checked record (type %d) does not apply: %s", r->type,
		    strerror(rc));
	mgr_journal_encode(&jr_pending, r);
}

int
mgr_journal_pending(void)
{
	return jr_pending.len > 0;
}

/* ---- snapshot ---- */

struct jr_snap {
	int fd;
	struct pvfs_buf buf;
	uint64_t count;
};

static int
mgr_journal_snap_flush(struct jr_snap *s, size_t min)
{
	if (s->buf.len < min)
		return 0;
	if (pvfs_write_all(s->fd, s->buf.data, s->buf.len) != 0)
		return -1;
	pvfs_buf_reset(&s->buf);
	return 0;
}

/* One inode as the record that recreates it, with its current attributes;
 * parents' times are left alone (time 0) since they have their own. */
static int
mgr_journal_snap_emit(const struct mgr_inode *in, void *arg)
{
	struct jr_snap *s = arg;
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = in->de == NULL ? MGR_REC_SETATTR : in->dir ? MGR_REC_MKDIR :
	    MGR_REC_CREATE;
	r.mask = MGR_REC_ALL;
	r.ino = in->ino;
	r.mode = in->mode & 07777;
	r.uid = in->uid;
	r.gid = in->gid;
	r.atime_ns = in->atime_ns;
	r.mtime_ns = in->mtime_ns;
	r.ctime_ns = in->ctime_ns;
	r.mset_ns = in->mset_ns;
	r.dist = in->dist;
	if (in->de != NULL) {
		r.parent = in->de->parent->ino;
		r.cookie = in->de->cookie;
		r.name = in->de->name;
		r.namelen = in->de->namelen;
	}
	if (in->dir != NULL)
		r.next_cookie = in->dir->next_cookie;
	mgr_journal_encode(&s->buf, &r);
	s->count++;
	return mgr_journal_snap_flush(s, JR_SNAP_CHUNK);
}

static int
mgr_journal_snap_write(struct jr_snap *s, uint64_t gen)
{
	uint8_t hdr[JR_SNAP_HDR];
	struct mgr_rec end;

	memcpy(hdr, JR_SNAP_MAGIC, 8);
	pvfs_be64_put(hdr + 8, jr_fsid);
	pvfs_be64_put(hdr + 16, gen);
	pvfs_be64_put(hdr + 24, mgr_ns_next_ino());
	pvfs_be64_put(hdr + 32, mgr_ns_root()->dir->next_cookie);
	pvfs_be32_put(hdr + 40, pvfs_crc32c(0, hdr, 40));
	pvfs_buf_put(&s->buf, hdr, sizeof(hdr));
	if (mgr_ns_walk(mgr_journal_snap_emit, s) != 0)
		return -1;
	memset(&end, 0, sizeof(end));
	end.type = MGR_REC_END;
	end.ino = s->count;
	mgr_journal_encode(&s->buf, &end);
	if (mgr_journal_snap_flush(s, 0) != 0 || fsync(s->fd) != 0)
		return -1;
	return 0;
}

/* Start journal.<gen> after the snapshot that precedes it is in place. */
static void
mgr_journal_switch(uint64_t gen)
{
	char path[PATH_MAX], name[64];
	int fd;

	snprintf(name, sizeof(name), "journal.%" PRIu64, gen);
	fd = open(mgr_journal_path(path, name),
	    O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (fd == -1)
		fatal("%s: %s", path, strerror(errno)); /* restart recovers */
	mgr_journal_sync_dir();
	snprintf(name, sizeof(name), "journal.%" PRIu64, jr_gen);
	close(jr_fd);
	if (unlink(mgr_journal_path(path, name)) != 0)
		log_warn("%s: unlink: %s", path, strerror(errno));
	mgr_journal_sync_dir();
	jr_fd = fd;
	jr_gen = gen;
	jr_size = 0;
}

/* snapshot.tmp, complete and fsynced, renamed over snapshot.  -1 with
 * errno and nothing left behind on failure. */
static int
mgr_journal_snap_file(const char *tmp, const char *path, uint64_t gen,
    uint64_t *count)
{
	struct jr_snap s;
	int rc = -1, err;

	memset(&s, 0, sizeof(s));
	if ((s.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1)
		return -1;
	if (mgr_journal_snap_write(&s, gen) == 0)
		rc = 0;
	err = errno;
	if (close(s.fd) != 0 && rc == 0) {
		err = errno;
		rc = -1;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		err = errno;
		rc = -1;
	}
	if (rc != 0)
		unlink(tmp);
	pvfs_buf_free(&s.buf);
	*count = s.count;
	errno = err;
	return rc;
}

/* Write the whole name space to a new snapshot and start an empty
 * journal.  Runs right after a commit, so nothing is pending.  Until the
 * rename nothing is lost by failing; after it the old journal is obsolete. */
static void
mgr_journal_checkpoint(void)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int64_t t0 = pvfs_mono_ms();
	uint64_t count;

	mgr_journal_path(tmp, "snapshot.tmp");
	mgr_journal_path(path, "snapshot");
	if (mgr_journal_snap_file(tmp, path, jr_gen + 1, &count) != 0) {
		log_warn("%s: checkpoint failed: %s", tmp, strerror(errno));
		jr_ckpt_at = jr_size + mgr.journal_max;
		return;
	}
	mgr_journal_sync_dir();
	mgr_journal_switch(jr_gen + 1);
	jr_ckpt_at = mgr.journal_max;
	log_info("checkpoint: %" PRIu64 " inodes in %lld ms, generation %" PRIu64,
	    count, (long long)(pvfs_mono_ms() - t0), jr_gen);
}

/* ---- group commit ---- */

/* One write and one fdatasync for every record of this loop iteration.
 * Memory already holds the changes, so a failed write cannot be answered
 * with an error: exiting lets recovery restore the durable state. */
void
mgr_journal_commit(void)
{
	if (jr_pending.len == 0)
		return;
	if (pvfs_write_all(jr_fd, jr_pending.data, jr_pending.len) != 0)
		fatal("journal write: %s", strerror(errno));
	if (fdatasync(jr_fd) != 0)
		fatal("journal fdatasync: %s", strerror(errno));
	jr_size += jr_pending.len;
	pvfs_buf_reset(&jr_pending);
	if (jr_pending.cap > (4u << 20))
		pvfs_buf_free(&jr_pending);
	mgr_conn_release_all();
	if (jr_size >= jr_ckpt_at)
		mgr_journal_checkpoint();
}

static void
mgr_journal_prepare_cb(struct ev_loop *loop, ev_prepare *w, int revents)
{
	mgr_journal_commit();
}

void
mgr_journal_start(struct ev_loop *loop)
{
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
	pvfs_buf_free(&jr_pending);
}
