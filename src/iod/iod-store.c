/*
 * iod-store.c - stripe files: DATADIR/XX/INO.GGGGGGGGGGGGGGGG, XX the
 * inode's low byte in hex, INO the inode in decimal and G the file's
 * identity (gen) in 16 lowercase hex digits; a file of gen 0 (made before
 * identities existed) keeps its old name DATADIR/XX/INO.  The name holds
 * both because an inode number alone may come back after the mgr's
 * metadata rolls back, and the new file must not see the old one's bytes.
 * Copy K > 0 of a mirrored file adds ".cK" (INO.GEN.cK): one iod may hold
 * two copies' pieces of one file (doc/design.md, "Mirrored files").
 * Open descriptors are kept in a small LRU keyed by (ino, gen, copy) so that a
 * stream of requests on one file costs no open()/close() each; entries in
 * use by a stream are reference counted and never closed under it.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

TAILQ_HEAD(iod_files, iod_file);

static int iod_store_dirfd = -1;
static struct iod_files iod_store_lru = TAILQ_HEAD_INITIALIZER(iod_store_lru);
static unsigned iod_store_nfiles;

static void
iod_store_subdir(uint64_t ino, char *out, size_t len)
{
	snprintf(out, len, "%02x", (unsigned)(ino & 0xff));
}

void
iod_store_path(uint64_t ino, uint64_t gen, uint32_t copy, char *out,
    size_t len)
{
	unsigned sub = (unsigned)(ino & 0xff);

	if (gen == 0 && copy == 0)
		snprintf(out, len, "%02x/%" PRIu64, sub, ino);
	else if (copy == 0)
		snprintf(out, len, "%02x/%" PRIu64 ".%016" PRIx64, sub, ino,
		    gen);
	else
		snprintf(out, len, "%02x/%" PRIu64 ".%016" PRIx64 ".c%" PRIu32,
		    sub, ino, gen, copy);
}

/* Make DATADIR and its 256 subdirectories so that creates need no mkdir. */
int
iod_store_init(const char *datadir, char **cause)
{
	char sub[8];
	unsigned i;

	if (pvfs_mkdir_p(datadir, 0700) != 0) {
		pvfs_set_cause(cause, "%s: %s", datadir, strerror(errno));
		return -1;
	}
	iod_store_dirfd = open(datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (iod_store_dirfd == -1) {
		pvfs_set_cause(cause, "%s: %s", datadir, strerror(errno));
		return -1;
	}
	for (i = 0; i < 256; i++) {
		iod_store_subdir(i, sub, sizeof sub);
		if (mkdirat(iod_store_dirfd, sub, 0700) != 0 && errno != EEXIST) {
			pvfs_set_cause(cause, "%s/%s: %s", datadir, sub,
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void
iod_store_free(struct iod_file *f)
{
	TAILQ_REMOVE(&iod_store_lru, f, lru);
	iod_store_nfiles--;
	close(f->fd);
	free(f);
}

/* Close least recently used idle descriptors beyond the cache size. */
static void
iod_store_trim(void)
{
	struct iod_file *f, *prev;

	f = TAILQ_LAST(&iod_store_lru, iod_files);
	while (f != NULL && iod_store_nfiles > IOD_STORE_FDS) {
		prev = TAILQ_PREV(f, iod_files, lru);
		if (f->refs == 0)
			iod_store_free(f);
		f = prev;
	}
}

/* Out of descriptors: give back the least recently used idle one, so that
 * a request is served rather than failed with EMFILE.  1 if one was. */
static int
iod_store_evict_one(void)
{
	struct iod_file *f;

	TAILQ_FOREACH_REVERSE(f, &iod_store_lru, iod_files, lru) {
		if (f->refs == 0) {
			iod_store_free(f);
			return 1;
		}
	}
	return 0;
}

/* openat under DATADIR; every descriptor the store opens comes from here,
 * so none fails with EMFILE while the cache holds an idle one. */
static int
iod_store_openat(const char *path, int flags, mode_t mode)
{
	int fd = openat(iod_store_dirfd, path, flags, mode);

	if (fd == -1 && (errno == EMFILE || errno == ENFILE) &&
	    iod_store_evict_one())
		fd = openat(iod_store_dirfd, path, flags, mode);
	return fd;
}

void
iod_store_shutdown(void)
{
	struct iod_file *f;

	while ((f = TAILQ_FIRST(&iod_store_lru)) != NULL)
		iod_store_free(f);
	if (iod_store_dirfd != -1)
		close(iod_store_dirfd);
	iod_store_dirfd = -1;
}

static struct iod_file *
iod_store_find(uint64_t ino, uint64_t gen, uint32_t copy)
{
	struct iod_file *f;

	TAILQ_FOREACH(f, &iod_store_lru, lru) {
		if (f->ino == ino && f->gen == gen && f->copy == copy && !f->dead)
			return f;
	}
	return NULL;
}

/* Open a stripe file; a subdirectory someone removed is made again. */
static int
iod_store_open(uint64_t ino, uint64_t gen, uint32_t copy, int create)
{
	char path[IOD_STORE_PATH_MAX], sub[8];
	int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
	int fd;

	iod_store_path(ino, gen, copy, path, sizeof path);
	fd = iod_store_openat(path, flags, 0600);
	if (fd == -1 && errno == ENOENT && create) {
		iod_store_subdir(ino, sub, sizeof sub);
		if (mkdirat(iod_store_dirfd, sub, 0700) != 0 && errno != EEXIST)
			return -1;
		fd = iod_store_openat(path, flags, 0600);
	}
	return fd;
}

/* A referenced stripe file, or NULL with *err (ENOENT if missing and not
 * create).  Release it with iod_store_put. */
struct iod_file *
iod_store_get(uint64_t ino, uint64_t gen, uint32_t copy, int create,
    int *err)
{
	struct iod_file *f;
	int fd;

	if ((f = iod_store_find(ino, gen, copy)) != NULL) {
		TAILQ_REMOVE(&iod_store_lru, f, lru);
		TAILQ_INSERT_HEAD(&iod_store_lru, f, lru);
		f->refs++;
		return f;
	}
	if ((fd = iod_store_open(ino, gen, copy, create)) == -1) {
		*err = errno;
		return NULL;
	}
	if ((f = calloc(1, sizeof *f)) == NULL) {
		close(fd);
		*err = ENOMEM;
		return NULL;
	}
	f->ino = ino;
	f->gen = gen;
	f->copy = copy;
	f->fd = fd;
	f->refs = 1;
	TAILQ_INSERT_HEAD(&iod_store_lru, f, lru);
	iod_store_nfiles++;
	iod_store_trim();
	return f;
}

void
iod_store_put(struct iod_file *f)
{
	if (f == NULL)
		return;
	f->refs--;
	if (f->refs == 0 && f->dead)
		iod_store_free(f);
	else if (f->refs == 0)
		iod_store_trim();
}

/* stat a stripe file: 0, or -errno (-ENOENT when missing). */
int
iod_store_stat(uint64_t ino, uint64_t gen, uint32_t copy, struct stat *st)
{
	struct iod_file *f;
	char path[IOD_STORE_PATH_MAX];

	if ((f = iod_store_find(ino, gen, copy)) != NULL)
		return fstat(f->fd, st) == 0 ? 0 : -errno;
	iod_store_path(ino, gen, copy, path, sizeof path);
	if (fstatat(iod_store_dirfd, path, st, 0) != 0)
		return -errno;
	return 0;
}

/* Unlink a stripe file; streams still using it finish on the unlinked
 * inode (data of a file removed while open is lost, as in PVFS 1). */
int
iod_store_remove(uint64_t ino, uint64_t gen, uint32_t copy)
{
	struct iod_file *f;
	char path[IOD_STORE_PATH_MAX];

	if ((f = iod_store_find(ino, gen, copy)) != NULL) {
		f->dead = 1;
		if (f->refs == 0)
			iod_store_free(f);
	}
	iod_store_path(ino, gen, copy, path, sizeof path);
	if (unlinkat(iod_store_dirfd, path, 0) != 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* fsync the subdirectory so that a newly created stripe file's name is as
 * durable as its data. */
int
iod_store_sync_dir(uint64_t ino)
{
	char sub[8];
	int fd, rc;

	iod_store_subdir(ino, sub, sizeof sub);
	fd = iod_store_openat(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	rc = fsync(fd) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

int
iod_store_statfs(struct statvfs *sv)
{
	return fstatvfs(iod_store_dirfd, sv) == 0 ? 0 : -errno;
}

/* The host's identity for IOD_STATFS: the first 16 hex digits of its
 * machine-id, else of its boot id, else a hash (FNV-1a) of its name. */
static uint64_t
iod_store_host(void)
{
	static const char *const files[] = { "/etc/machine-id",
		"/proc/sys/kernel/random/boot_id" };
	static uint64_t host;
	char buf[80], *end;
	size_t i, j;
	FILE *fp;

	if (host != 0)
		return host;
	for (i = 0; host == 0 && i < sizeof(files) / sizeof(files[0]); i++) {
		if ((fp = fopen(files[i], "re")) == NULL)
			continue;
		if (fgets(buf, sizeof buf, fp) != NULL) {
			for (j = 0; buf[j] != '\0'; j++)	/* boot_id has dashes */
				if (buf[j] == '-')
					memmove(buf + j, buf + j + 1, strlen(buf + j));
			buf[16] = '\0';
			host = strtoull(buf, &end, 16);
			if (end != buf + 16)
				host = 0;
		}
		fclose(fp);
	}
	if (host == 0) {
		host = 14695981039346656037ull;
		if (gethostname(buf, sizeof buf) != 0)
			buf[0] = '\0';
		buf[sizeof buf - 1] = '\0';
		for (j = 0; buf[j] != '\0'; j++)
			host = (host ^ (unsigned char)buf[j]) * 1099511628211ull;
	}
	return host;
}

/* Sum the stripe files of every subdirectory into u. */
static void
iod_store_scan(struct iod_usage *u)
{
	struct dirent *de;
	struct stat st;
	char name[8];
	uint64_t ino, gen;
	uint32_t copy;
	unsigned sub;
	DIR *d;
	int fd;

	memset(u, 0, sizeof(*u));
	for (sub = 0; sub < 256; sub++) {
		iod_store_subdir(sub, name, sizeof name);
		fd = iod_store_openat(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		if (fd == -1)
			continue;
		if ((d = fdopendir(fd)) == NULL) {
			close(fd);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (iod_store_name_parse(de->d_name, sub, &ino, &gen, &copy) != 0 ||
			    fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			u->used += (uint64_t)st.st_blocks * 512;
			u->apparent += (uint64_t)st.st_size;
			u->nstripes++;
		}
		closedir(d);
	}
}

/* What this iod holds for files and where: the scan is kept for
 * PVFS_IOD_USAGE_TTL seconds so that a burst of statfs calls (a shell
 * loop of df) walks the data directory once. */
int
iod_store_usage(struct iod_usage *u)
{
	static struct iod_usage cache;
	static int64_t when_ms;
	static int have;
	struct stat st;
	int64_t now = pvfs_mono_ms();

	if (!have || now - when_ms >= PVFS_IOD_USAGE_TTL * 1000) {
		iod_store_scan(&cache);
		when_ms = now;
		have = 1;
	}
	*u = cache;
	if (fstat(iod_store_dirfd, &st) != 0)
		return -errno;
	u->host = iod_store_host();
	u->dev = (uint64_t)st.st_dev;
	return 0;
}

static int
iod_store_ent_cmp(const void *a, const void *b)
{
	const struct pvfs_stripe_ent *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->copy < y->copy ? -1 : x->copy > y->copy;
}

/* The gen spelled by the 16 lowercase hex digits at s, then nothing or
 * ".cK" (K a copy from 1 to PVFS_COPIES_MAX - 1, in *copy); 0 if s is not
 * that. */
static uint64_t
iod_store_name_gen(const char *s, uint32_t *copy)
{
	uint64_t gen = 0;
	int i;

	for (i = 0; i < 16; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			gen = gen << 4 | (uint64_t)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			gen = gen << 4 | (uint64_t)(s[i] - 'a' + 10);
		else
			return 0;
	}
	*copy = 0;
	if (s[16] == '\0')
		return gen;
	if (s[16] != '.' || s[17] != 'c' || s[18] < '1' ||
	    s[18] >= '0' + PVFS_COPIES_MAX || s[19] != '\0')
		return 0;
	*copy = (uint32_t)(s[18] - '0');
	return gen;
}

/* Parse a name of subdirectory sub as a stripe file: the exact name
 * iod_store_path gives, "INO" (gen 0), "INO.<gen>" with gen != 0, or
 * "INO.<gen>.cK".  0 and ino, gen, copy; -1 for anything else (ours or a
 * stranger's). */
int
iod_store_name_parse(const char *name, unsigned sub, uint64_t *ino,
    uint64_t *gen, uint32_t *copy)
{
	char digits[21];
	const char *dot = strchr(name, '.');
	size_t len = dot != NULL ? (size_t)(dot - name) : strlen(name);

	if (len == 0 || len > 20 || name[0] < '1' || name[0] > '9')
		return -1;
	memcpy(digits, name, len);
	digits[len] = '\0';
	if (strspn(digits, "0123456789") != len)
		return -1;
	errno = 0;
	*ino = strtoull(digits, NULL, 10);
	if (errno != 0 || (*ino & 0xff) != sub)
		return -1;
	*gen = 0;
	*copy = 0;
	if (dot != NULL && (*gen = iod_store_name_gen(dot + 1, copy)) == 0)
		return -1;
	return 0;
}

/* Whether e comes after (after, after_gen, after_copy) in listing order. */
static int
iod_store_after(const struct pvfs_stripe_ent *e, uint64_t after,
    uint64_t after_gen, uint32_t after_copy)
{
	struct pvfs_stripe_ent a = { .ino = after, .gen = after_gen,
		.copy = after_copy };

	return iod_store_ent_cmp(e, &a) > 0;
}

static int
iod_store_push(struct pvfs_stripe_ent **v, size_t *n, size_t *cap,
    const struct pvfs_stripe_ent *e)
{
	struct pvfs_stripe_ent *nv;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		if ((nv = realloc(*v, *cap * sizeof **v)) == NULL)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = *e;
	return 0;
}

/* Read subdirectory sub into a malloc'd array of its stripe files after
 * (after, after_gen, after_copy) (sizes not filled in).  0, or -errno. */
static int
iod_store_collect(unsigned sub, uint64_t after, uint64_t after_gen,
    uint32_t after_copy, struct pvfs_stripe_ent **out, size_t *n)
{
	struct pvfs_stripe_ent *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	char name[8];
	struct pvfs_stripe_ent e;
	DIR *d;
	int fd, rc = 0;

	*n = 0;
	*out = NULL;
	iod_store_subdir(sub, name, sizeof name);
	fd = iod_store_openat(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd == -1)
		return errno == ENOENT ? 0 : -errno;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		memset(&e, 0, sizeof e);
		if (iod_store_name_parse(de->d_name, sub, &e.ino, &e.gen,
		    &e.copy) == 0 &&
		    iod_store_after(&e, after, after_gen, after_copy))
			rc = iod_store_push(&v, n, &cap, &e);
	}
	closedir(d);
	if (rc != 0) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return 0;
}

/* IOD_LIST: the first max stripe files of subdirectory sub after (after,
 * after_gen, after_copy), ascending by (ino, gen, copy), with their sizes.  A file removed
 * meanwhile is left out and the next one takes its place, so only the
 * last page is short (the caller pages on from the last entry returned).
 * 0, or -errno. */
int
iod_store_list(unsigned sub, uint64_t after, uint64_t after_gen,
    uint32_t after_copy, uint32_t max, struct pvfs_stripe_ent *ents,
    uint32_t *n, int *eof)
{
	struct pvfs_stripe_ent *all;
	struct stat st;
	size_t i, count;
	int rc;

	*n = 0;
	if ((rc = iod_store_collect(sub, after, after_gen, after_copy, &all,
	    &count)) != 0)
		return rc;
	if (count > 1)
		qsort(all, count, sizeof *all, iod_store_ent_cmp);
	for (i = 0; i < count && *n < max; i++) {
		if (iod_store_stat(all[i].ino, all[i].gen, all[i].copy, &st) != 0)
			continue;
		ents[*n] = all[i];
		ents[(*n)++].size = (uint64_t)st.st_size;
	}
	*eof = i == count;
	free(all);
	return 0;
}
