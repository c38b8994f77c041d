/*
 * mgr-load.c - read a metadata directory into the name space, failing
 * closed: only a crash's torn tail at the end of the current journal is
 * passed over; damage anywhere else, a missing snapshot or journal, or a
 * journal newer than the snapshot stops the load with the file, the
 * offset and what to do.  Salvage mode goes on past damage instead and
 * reports what it could not keep.  Nothing here writes to the directory.
 *
 * The states a checkpoint can leave (mgr-journal.c writes snapshot.tmp,
 * creates journal.G+1 with only its header, renames snapshot.tmp over
 * snapshot, then removes journal.G):
 *   snapshot(G), journal.G [, journal.G+1 empty] [, snapshot.tmp]
 *   snapshot(G+1), journal.G, journal.G+1
 * so journal.<snapshot's generation> always exists, a journal older than
 * the snapshot is covered by it, and a newer one must be empty.  With no
 * snapshot the file system is in its first generation: only journal.1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define LOAD_SNAP1_MAGIC "PVFSSNP1"
#define LOAD_SNAP1_HDR 44

#define LOAD_HINT_SALVAGE "keep this directory as it is, and recover what " \
	"is valid into a new one with 'pvfs-mgr --salvage NEWDIR -d %s', or " \
	"restore a backup (doc/administration.md)"

static void
__attribute__((noreturn, format(printf, 2, 3)))
load_fail(const struct mgr_load *l, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pvfs_fatal("%s; refusing to %s: " LOAD_HINT_SALVAGE, msg,
	    l->action != NULL ? l->action : "start", l->dir);
}

/* In salvage mode damage is reported and the load goes on. */
static void
__attribute__((format(printf, 2, 3)))
load_damage(struct mgr_load *l, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!l->salvage)
		load_fail(l, "%s", msg);
	l->damaged++;
	fprintf(l->report, "damaged: %s\n", msg);
}

static const char *
load_path(const struct mgr_load *l, char *buf, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", l->dir, name) >= PATH_MAX)
		pvfs_fatal("%s: metadata directory path too long", l->dir);
	return buf;
}

/* A whole file, read-only; NULL with *len 0 when empty. */
static uint8_t *
load_map(const char *path, int fd, size_t *len)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0)
		pvfs_fatal("%s: fstat: %s", path, strerror(errno));
	*len = (size_t)st.st_size;
	if (*len == 0)
		return NULL;
	p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		pvfs_fatal("%s: mmap: %s", path, strerror(errno));
	(void)madvise(p, *len, MADV_SEQUENTIAL); /* read once, in order */
	return p;
}

/* The file system id in dir/fsid: 0, or -1 with errno when the file
 * cannot be read (ENOENT: a directory not yet used).  Fatal when it holds
 * something else. */
int
mgr_load_fsid(const char *dir, uint64_t *fsid)
{
	char path[PATH_MAX], *s;

	if (snprintf(path, sizeof(path), "%s/fsid", dir) >= (int)sizeof(path))
		pvfs_fatal("%s: metadata directory path too long", dir);
	if ((s = pvfs_read_small_file(path, 64, NULL)) == NULL)
		return -1;
	if (sscanf(s, "%" SCNx64, fsid) != 1 || *fsid == 0)
		pvfs_fatal("%s: not a file system id", path);
	free(s);
	return 0;
}

/* ---- inventory ---- */

/* Append x to the array *v of *n, grown step entries at a time. */
static void
load_push(uint64_t **v, size_t *n, size_t step, uint64_t x)
{
	uint64_t *grown;

	if (*n % step == 0) {
		grown = realloc(*v, (*n + step) * sizeof(*grown));
		if (grown == NULL)
			pvfs_fatal("out of memory");
		*v = grown;
	}
	(*v)[(*n)++] = x;
}

/* "journal.N" with N a whole positive number. */
static int
load_journal_name(const char *name, uint64_t *g)
{
	char *end;

	if (strncmp(name, "journal.", 8) != 0 || name[8] < '1' || name[8] > '9')
		return 0;
	errno = 0;
	*g = strtoull(name + 8, &end, 10);
	return errno == 0 && *end == '\0';
}

static void
load_inventory(struct mgr_load *l)
{
	struct dirent *e;
	DIR *d = opendir(l->dir);
	uint64_t g;

	if (d == NULL)
		pvfs_fatal("%s: %s", l->dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, "snapshot") == 0)
			l->have_snapshot = 1;
		else if (strcmp(e->d_name, "snapshot.tmp") == 0)
			l->have_snap_tmp = 1;
		else if (load_journal_name(e->d_name, &g))
			load_push(&l->journals, &l->njournals, 16, g);
	}
	closedir(d);
}

static int
load_has_journal(const struct mgr_load *l, uint64_t g)
{
	size_t i;

	for (i = 0; i < l->njournals; i++) {
		if (l->journals[i] == g)
			return 1;
	}
	return 0;
}

int
mgr_load_has_state(const char *dir)
{
	struct mgr_load l;
	int found;

	memset(&l, 0, sizeof(l));
	l.dir = dir;
	load_inventory(&l);
	found = l.have_snapshot || l.njournals > 0;
	free(l.journals);
	return found;
}

/* ---- snapshot ---- */

/* Records are applied LOAD_AHEAD after they are read, their buckets
 * fetched meanwhile (mgr_ns_prefetch): a load of millions is bound by
 * cache misses, not by work. */
#define LOAD_AHEAD 16

struct load_ahead {
	struct mgr_rec r;       /* its strings point into the mapped file */
	size_t off;
	uint32_t hash;
};

struct load_snap {
	struct mgr_load *l;
	uint64_t count;
	int ended;
	struct load_ahead ring[LOAD_AHEAD];
	unsigned head, n;       /* the oldest pending, how many */
};

static void
load_snap_apply(struct load_snap *s, const struct mgr_rec *r, size_t off)
{
	int rc;

	if ((rc = mgr_ns_apply(r)) != 0) {
		if (!s->l->salvage)
			load_fail(s->l, "%s/snapshot: record at offset %zu does not "
			    "apply: %s", s->l->dir, off, strerror(rc));
		mgr_load_report_lost(s->l, r, rc);
		return;
	}
	s->count++;
}

/* Apply every pending record, in order. */
static void
load_snap_drain(struct load_snap *s)
{
	struct load_ahead *a;

	for (; s->n > 0; s->n--) {
		a = &s->ring[s->head];
		s->head = (s->head + 1) % LOAD_AHEAD;
		load_snap_apply(s, &a->r, a->off);
	}
}

static void
load_snap_one(const struct mgr_rec *r, size_t off, void *arg)
{
	struct load_snap *s = arg;
	struct load_ahead *a;

	if (s->ended || r->type == MGR_REC_END)
		load_snap_drain(s);
	if (s->ended) {
		load_damage(s->l, "%s/snapshot: records after its end (offset %zu)",
		    s->l->dir, off);
		return;
	}
	if (r->type == MGR_REC_END) {
		s->ended = 1;
		if (r->ino != s->count)
			load_damage(s->l, "%s/snapshot: ends after %" PRIu64
			    " records but says %" PRIu64, s->l->dir, s->count, r->ino);
		return;
	}
	if (s->n == LOAD_AHEAD) {
		a = &s->ring[s->head];
		s->head = (s->head + 1) % LOAD_AHEAD;
		s->n--;
		load_snap_apply(s, &a->r, a->off);
	}
	a = &s->ring[(s->head + s->n++) % LOAD_AHEAD];
	a->r = *r;
	a->off = off;
	a->hash = a->r.hash = mgr_ns_prefetch(r);
	/* The one read half the ring ago: its bucket has arrived. */
	if (s->n > LOAD_AHEAD / 2) {
		a = &s->ring[(s->head + s->n - 1 - LOAD_AHEAD / 2) % LOAD_AHEAD];
		if (a->r.name != NULL)
			mgr_ns_prefetch_chain(a->hash);
	}
}

/* Damage a walk found: it stops the load, or (salvage) is listed with
 * what was skipped past. */
static void
load_scan_damage(struct mgr_load *l, const char *path,
    const struct mgr_scan *sc, size_t hl)
{
	load_damage(l, "%s: %s at offset %zu, followed by %" PRIu64 " valid "
	    "records in %" PRIu64 " %s", path, sc->end == MGR_SCAN_TORN ?
	    "cut short" : "corrupt data", hl + sc->bad_off, sc->after_records,
	    sc->after_units, sc->format >= 2 ? "batches" : "frames");
	if (sc->lost_bytes > 0)
		fprintf(l->report, "damaged: %s: %" PRIu64 " unreadable bytes in %"
		    PRIu64 " ranges skipped; the changes in them are lost\n", path,
		    sc->lost_bytes, sc->lost_ranges);
}

/* The header: format 2, or format 1 (read once, then rewritten). */
static size_t
load_snap_header(struct mgr_load *l, const char *path, const uint8_t *p,
    size_t len, struct mgr_scan *sc)
{
	struct mgr_file_hdr h;

	if (mgr_record_hdr_decode(p, len, 1, &h) == 0) {
		sc->format = 2;
		sc->salt = h.salt;
	} else if (len >= LOAD_SNAP1_HDR && memcmp(p, LOAD_SNAP1_MAGIC, 8) == 0 &&
	    pvfs_crc32c(0, p, 40) == pvfs_be32_get(p + 40)) {
		sc->format = 1;
		h.fsid = pvfs_be64_get(p + 8);
		h.gen = pvfs_be64_get(p + 16);
		h.next_ino = pvfs_be64_get(p + 24);
		h.root_cookie = pvfs_be64_get(p + 32);
	} else {
		load_fail(l, "%s: not an intact snapshot header (damaged, or not a "
		    "snapshot)", path);
	}
	if (h.fsid != l->fsid)
		load_fail(l, "%s: belongs to file system %016" PRIx64 ", not %016"
		    PRIx64, path, h.fsid, l->fsid);
	l->snap_format = sc->format;
	l->gen = h.gen;
	mgr_ns_set_next_ino(h.next_ino);
	/* About as many inodes as numbers were handed out; no more than
	 * records fit in the file, whatever a header says. */
	mgr_ns_reserve(h.next_ino < len / 32 ? h.next_ino : len / 32);
	/* The root has no MKDIR record to carry its cookie counter. */
	mgr_ns_root()->dir->next_cookie = h.root_cookie;
	return sc->format == 2 ? MGR_HDR_LEN : LOAD_SNAP1_HDR;
}

/* A snapshot was complete when renamed into place: in it even a short
 * end is damage. */
/* The caller owns fd. */
static void
load_snapshot(struct mgr_load *l, int fd)
{
	char path[PATH_MAX];
	struct load_snap s;
	struct mgr_scan sc;
	uint8_t *p;
	size_t len, hl;

	load_path(l, path, "snapshot");
	memset(&s, 0, sizeof(s));
	s.l = l;
	memset(&sc, 0, sizeof(sc));
	if ((p = load_map(path, fd, &len)) == NULL)
		load_fail(l, "%s: empty", path);
	hl = load_snap_header(l, path, p, len, &sc);
	sc.fn = load_snap_one;
	sc.arg = &s;
	sc.salvage = l->salvage;
	mgr_scan_run(&sc, p + hl, len - hl);
	load_snap_drain(&s);
	if (sc.end != MGR_SCAN_CLEAN)
		load_scan_damage(l, path, &sc, hl);
	if (!s.ended)
		load_damage(l, "%s: no end record (%" PRIu64 " records read)", path,
		    s.count);
	munmap(p, len);
	pvfs_log_info("%s: %" PRIu64 " inodes, generation %" PRIu64, path,
	    mgr_ns_count(), l->gen);
}

/* ---- journal ---- */

static int
load_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every inode numbered since the snapshot has a create record in the
 * journal; a number without one was made by a change that was lost. */
static void
load_report_lost_inodes(struct mgr_load *l)
{
	uint64_t ino = l->snap_next_ino, end = mgr_ns_next_ino();
	size_t i = 0;

	qsort(l->created, l->ncreated, sizeof(*l->created), load_cmp_u64);
	for (; ino < end; ino++) {
		while (i < l->ncreated && l->created[i] < ino)
			i++;
		if (i < l->ncreated && l->created[i] == ino)
			continue;
		fprintf(l->report, "lost: inode %" PRIu64 ", made by a change "
		    "that was lost (pvfs-fsck lists its stripes as orphans)\n", ino);
		l->lost++;
	}
}

static void
load_journal_one(const struct mgr_rec *r, size_t off, void *arg)
{
	struct mgr_load *l = arg;
	int rc, create = r->type == MGR_REC_CREATE || r->type == MGR_REC_MKDIR ||
	    r->type == MGR_REC_MKNOD || r->type == MGR_REC_SYMLINK;

	if (r->type == MGR_REC_END) {
		load_damage(l, "journal.%" PRIu64 ": end-of-snapshot record at "
		    "offset %zu", l->gen, off);
		return;
	}
	if ((rc = mgr_ns_apply(r)) != 0) {
		if (!l->salvage)
			load_fail(l, "%s/journal.%" PRIu64 ": record (type %d) at "
			    "offset %zu does not apply: %s", l->dir, l->gen, r->type,
			    off, strerror(rc));
		mgr_load_report_lost(l, r, rc);
		if (create) /* a lost create still used its number */
			mgr_ns_set_next_ino(r->ino + 1);
	}
	if (create && l->salvage)
		load_push(&l->created, &l->ncreated, 1024, r->ino);
}

/* Format and salt of journal bytes; the body starts at *hl. */
static void
load_journal_header(struct mgr_load *l, const char *path, const uint8_t *p,
    size_t len, struct mgr_scan *sc, size_t *hl)
{
	struct mgr_file_hdr h;

	*hl = 0;
	sc->format = 1;
	if (len == 0 || p[0] != 'P')
		return; /* format 1: records from the first byte */
	if (mgr_record_hdr_decode(p, len, 0, &h) != 0)
		load_fail(l, "%s: not an intact journal header", path);
	if (h.fsid != l->fsid || h.gen != l->gen)
		load_fail(l, "%s: header says file system %016" PRIx64
		    ", generation %" PRIu64 " (a file from elsewhere?)", path,
		    h.fsid, h.gen);
	sc->format = 2;
	sc->salt = h.salt;
	*hl = MGR_HDR_LEN;
}

static void
load_journal(struct mgr_load *l, int fd)
{
	char path[PATH_MAX], name[64];
	struct mgr_scan sc;
	uint8_t *p;
	size_t len, hl;

	snprintf(name, sizeof(name), "journal.%" PRIu64, l->gen);
	load_path(l, path, name);
	p = load_map(path, fd, &len);
	memset(&sc, 0, sizeof(sc));
	load_journal_header(l, path, p, len, &sc, &hl);
	sc.fn = load_journal_one;
	sc.arg = l;
	sc.salvage = l->salvage;
	mgr_scan_run(&sc, p + hl, len - hl);
	/* A torn tail: a crash's unacknowledged last batch, or (online) a
	 * commit being written as we read. */
	if (sc.end == MGR_SCAN_TORN && !l->salvage)
		l->jr_torn = 1;
	else if (sc.end != MGR_SCAN_CLEAN)
		load_scan_damage(l, path, &sc, hl);
	l->jr_format = sc.format;
	l->jr_salt = sc.salt;
	l->jr_seq = sc.last_seq;
	l->jr_len = len;
	l->jr_good = hl + sc.good_len;
	if (p != NULL)
		munmap(p, len);
	pvfs_log_info("%s: replayed %" PRIu64 " records%s", path, sc.records,
	    l->jr_torn ? ", then a torn tail" : "");
}

/* A journal beyond the snapshot's generation is a leftover only if it
 * holds nothing: a crash stopped a checkpoint before the rename. */
static int
load_journal_empty(const struct mgr_load *l, uint64_t g)
{
	char path[PATH_MAX], name[64];
	struct stat st;

	snprintf(name, sizeof(name), "journal.%" PRIu64, g);
	if (stat(load_path(l, path, name), &st) != 0)
		pvfs_fatal("%s: %s", path, strerror(errno));
	return st.st_size <= MGR_HDR_LEN;
}

/* Which journal belongs to the snapshot, and which others are proven
 * leftovers; everything else is a missing or stray piece. */
static void
load_check_pieces(struct mgr_load *l)
{
	size_t i;
	uint64_t g;

	for (i = 0; i < l->njournals; i++) {
		g = l->journals[i];
		if (g == l->gen)
			continue;
		if (g < l->gen || (g == l->gen + 1 && load_journal_empty(l, g)))
			continue; /* covered by the snapshot, or never used */
		load_damage(l, "%s/journal.%" PRIu64 " is newer than %s (generation "
		    "%" PRIu64 "): a snapshot is missing or older than its journal",
		    l->dir, g, l->have_snapshot ? "the snapshot" : "the first",
		    l->gen);
	}
	if (load_has_journal(l, l->gen))
		return;
	if (l->snap_format == 1 && load_has_journal(l, l->gen - 1))
		l->gen_missing_ok = 1; /* format 1 made it after the rename */
	else
		load_damage(l, "%s/journal.%" PRIu64 " is missing (%s)", l->dir,
		    l->gen, l->have_snapshot ? "the snapshot's generation" :
		    "no snapshot, so the first journal");
}

static int
load_open(const struct mgr_load *l, const char *name, int must)
{
	char path[PATH_MAX];
	int fd = open(load_path(l, path, name), O_RDONLY | O_CLOEXEC);

	if (fd == -1 && (must || errno != ENOENT))
		pvfs_fatal("%s: %s", path, strerror(errno));
	return fd;
}

/* The generation a snapshot precedes, from its header (1 without one). */
static uint64_t
load_peek_gen(int fd)
{
	uint8_t h[MGR_HDR_LEN];
	struct mgr_file_hdr fh;

	if (pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    mgr_record_hdr_decode(h, sizeof(h), 1, &fh) == 0)
		return fh.gen;
	if (pread(fd, h, LOAD_SNAP1_HDR, 0) == LOAD_SNAP1_HDR &&
	    memcmp(h, LOAD_SNAP1_MAGIC, 8) == 0)
		return pvfs_be64_get(h + 16);
	return 0;
}

/* While a mgr runs, a checkpoint may replace the snapshot and remove its
 * journal at any moment: open the snapshot, then its journal, and accept
 * the pair only if the snapshot is still the one in place. */
static void
load_pick_online(struct mgr_load *l, int *sfd, int *jfd)
{
	char name[64], path[PATH_MAX];
	struct stat a, b;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		*sfd = load_open(l, "snapshot", 0);
		l->have_snapshot = *sfd != -1;
		l->gen = *sfd == -1 ? 1 : load_peek_gen(*sfd);
		snprintf(name, sizeof(name), "journal.%" PRIu64, l->gen);
		*jfd = load_open(l, name, 0);
		if (*sfd == -1 && *jfd != -1 && stat(load_path(l, path,
		    "snapshot"), &b) != 0)
			return;
		if (*sfd != -1 && *jfd != -1 && fstat(*sfd, &a) == 0 &&
		    stat(load_path(l, path, "snapshot"), &b) == 0 &&
		    a.st_ino == b.st_ino)
			return;
		if (*sfd != -1)
			close(*sfd);
		if (*jfd != -1)
			close(*jfd);
		usleep(10000);
	}
	pvfs_fatal("%s: no consistent snapshot and journal pair after %d tries",
	    l->dir, tries);
}

/* Load dir: the snapshot, then its journal.  Fatal on any damage unless
 * l->salvage. */
void
mgr_load_dir(struct mgr_load *l)
{
	char name[64];
	int sfd = -1, jfd = -1;
	size_t i;

	if (l->online) {
		load_pick_online(l, &sfd, &jfd);
	} else {
		load_inventory(l);
		if (l->have_snapshot)
			sfd = load_open(l, "snapshot", 1);
	}
	l->gen = 1;
	if (sfd != -1) {
		load_snapshot(l, sfd);
		close(sfd);
	} else if (l->salvage) {
		for (i = 0; i < l->njournals; i++) /* the newest is the most */
			if (l->journals[i] > l->gen)
				l->gen = l->journals[i];
	}
	if (!l->online) {
		load_check_pieces(l);
		snprintf(name, sizeof(name), "journal.%" PRIu64, l->gen);
		if (load_has_journal(l, l->gen))
			jfd = load_open(l, name, 1);
	}
	l->snap_next_ino = mgr_ns_next_ino();
	if (jfd != -1) {
		load_journal(l, jfd);
		close(jfd);
	}
	if (l->salvage)
		load_report_lost_inodes(l);
}

void
mgr_load_free(struct mgr_load *l)
{
	free(l->journals);
	free(l->created);
	l->journals = l->created = NULL;
	l->njournals = l->ncreated = 0;
}

/* ---- salvage report ---- */

/* The path of a live inode, as far as it is known. */
static void
load_ino_path(uint64_t ino, char *buf, size_t len)
{
	const struct mgr_inode *in = mgr_ns_get(ino);
	char tmp[PATH_MAX];

	if (in == NULL) {
		snprintf(buf, len, "<lost directory, inode %" PRIu64 ">", ino);
		return;
	}
	buf[0] = '\0';
	for (; in != NULL && in->de != NULL; in = in->de->parent) {
		snprintf(tmp, sizeof(tmp), "/%s%s", in->de->name, buf);
		snprintf(buf, len, "%s", tmp);
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "/");
}

void
mgr_load_report_lost(struct mgr_load *l, const struct mgr_rec *r, int err)
{
	static const char *what[] = { [MGR_REC_CREATE] = "file",
		[MGR_REC_MKDIR] = "directory", [MGR_REC_UNLINK] = "unlink of",
		[MGR_REC_RMDIR] = "rmdir of", [MGR_REC_RENAME] = "rename of",
		[MGR_REC_SETATTR] = "attribute change of",
		[MGR_REC_SYMLINK] = "symbolic link",
		[MGR_REC_MKNOD] = "special file",
		[MGR_REC_LINK] = "link" };
	char dir[PATH_MAX];

	l->lost++;
	if (r->type == MGR_REC_SETATTR) {
		fprintf(l->report, "lost: attribute change of inode %" PRIu64
		    " (%s)\n", r->ino, strerror(err));
		return;
	}
	if ((r->type < MGR_REC_CREATE || r->type > MGR_REC_RENAME) &&
	    r->type != MGR_REC_MKNOD && r->type != MGR_REC_SYMLINK &&
	    r->type != MGR_REC_LINK)
		return;
	load_ino_path(r->parent, dir, sizeof(dir));
	fprintf(l->report, "lost: %s %s%s%.*s", what[r->type], dir,
	    strcmp(dir, "/") == 0 ? "" : "/", (int)r->namelen, r->name);
	if (r->type == MGR_REC_CREATE || r->type == MGR_REC_MKDIR ||
	    r->type == MGR_REC_MKNOD || r->type == MGR_REC_SYMLINK ||
	    r->type == MGR_REC_LINK)
		fprintf(l->report, " (inode %" PRIu64 ")", r->ino);
	if (r->type == MGR_REC_RENAME) {
		load_ino_path(r->parent2, dir, sizeof(dir));
		fprintf(l->report, " to %s%s%.*s", dir, strcmp(dir, "/") == 0 ?
		    "" : "/", (int)r->namelen2, r->name2);
	}
	fprintf(l->report, ": %s\n", strerror(err));
}
