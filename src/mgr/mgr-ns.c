/*
 * mgr-ns.c - the in-memory name space: an inode table, a hash of
 * (parent, name) -> entry, and per-directory entry arrays in insertion order.
 *
 * Nothing here touches the disk.  mgr_ns_apply() is the only function that
 * changes the name space; the journal calls it for live requests and for
 * replay alike, so both get the same result.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgr.h"

#define NS_ROOT_INO 1
#define NS_HASH_MIN 1024
#define NS_TABLE_MAP (4u << 20) /* tables this big are mapped apart */
#define NS_HASH_RESERVE_MAX (1ull << 28) /* buckets mgr_ns_reserve makes */

static struct mgr_inode **ns_itab;   /* inode hash buckets */
static size_t ns_imask, ns_icount;
static struct mgr_dirent **ns_dtab;  /* (parent, name) hash buckets */
static size_t ns_dmask, ns_dcount;
static struct mgr_inode *ns_root;
static uint64_t ns_next_ino = NS_ROOT_INO + 1;
static TAILQ_HEAD(, mgr_orphan) ns_orphans = TAILQ_HEAD_INITIALIZER(ns_orphans);
static uint64_t ns_norphans;
static uint8_t ns_key[PVFS_SIPHASH_KEY_LEN]; /* the name hash's, per run */

/* Inode numbers are handed out in sequence, so the number itself spreads
 * them evenly, one per bucket until the table wraps, and a load (inodes
 * in creation order) fills the table front to back instead of missing
 * the cache at every insert. */
static size_t
mgr_ns_ino_hash(uint64_t ino)
{
	return (size_t)ino;
}

/* Clients choose names: with a fixed hash they could pick thousands that
 * share a bucket and make every lookup walk them all.  SipHash under a key
 * drawn at start makes the buckets unpredictable.  Inode numbers need no
 * key: the mgr assigns them in sequence, and a client's lookup of any
 * number walks only chains of those. */
static uint32_t
mgr_ns_name_hash(uint64_t parent, const char *name, size_t len)
{
	uint8_t buf[8 + PVFS_NAME_MAX];

	if (len > PVFS_NAME_MAX)
		len = PVFS_NAME_MAX; /* callers check; longer names never match */
	pvfs_be64_put(buf, parent);
	memcpy(buf + 8, name, len);
	return (uint32_t)pvfs_siphash(ns_key, buf, 8 + len);
}

static void *
mgr_ns_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		pvfs_fatal("out of memory (%zu bytes)", n * size);
	return p;
}

/* A hash table of n zeroed buckets.  A big one is mapped apart and asks
 * for huge pages: its lookups land anywhere in it, and with 4 KiB pages
 * each would miss the TLB as well as the cache. */
static void *
mgr_ns_table(size_t n)
{
	size_t len = n * sizeof(void *);
	void *p;

	if (len < NS_TABLE_MAP)
		return mgr_ns_calloc(n, sizeof(void *));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (p == MAP_FAILED)
		pvfs_fatal("out of memory (%zu bytes)", len);
	(void)madvise(p, len, MADV_HUGEPAGE);
	return p;
}

static void
mgr_ns_table_free(void *p, size_t n)
{
	if (n * sizeof(void *) < NS_TABLE_MAP)
		free(p);
	else
		munmap(p, n * sizeof(void *));
}

/* Rebucket the inode table into nmask + 1 buckets (a power of 2). */
static void
mgr_ns_itab_resize(size_t nmask)
{
	size_t i;
	struct mgr_inode **nt = mgr_ns_table(nmask + 1), *in, *next;

	for (i = 0; i <= ns_imask; i++) {
		for (in = ns_itab[i]; in != NULL; in = next) {
			next = in->hnext;
			in->hnext = nt[mgr_ns_ino_hash(in->ino) & nmask];
			nt[mgr_ns_ino_hash(in->ino) & nmask] = in;
		}
	}
	mgr_ns_table_free(ns_itab, ns_imask + 1);
	ns_itab = nt;
	ns_imask = nmask;
}

static void
mgr_ns_dtab_resize(size_t nmask)
{
	size_t i;
	struct mgr_dirent **nt = mgr_ns_table(nmask + 1), *de, *next;

	for (i = 0; i <= ns_dmask; i++) {
		for (de = ns_dtab[i]; de != NULL; de = next) {
			next = de->hnext;
			de->hnext = nt[de->hash & nmask];
			nt[de->hash & nmask] = de;
		}
	}
	mgr_ns_table_free(ns_dtab, ns_dmask + 1);
	ns_dtab = nt;
	ns_dmask = nmask;
}

static void
mgr_ns_itab_add(struct mgr_inode *in)
{
	size_t b;

	if (ns_icount >= ns_imask + 1) /* double it once as full as wide */
		mgr_ns_itab_resize(ns_imask * 2 + 1);
	b = mgr_ns_ino_hash(in->ino) & ns_imask;
	in->hnext = ns_itab[b];
	ns_itab[b] = in;
	ns_icount++;
}

static void
mgr_ns_itab_del(struct mgr_inode *in)
{
	struct mgr_inode **pp = &ns_itab[mgr_ns_ino_hash(in->ino) & ns_imask];

	while (*pp != NULL && *pp != in)
		pp = &(*pp)->hnext;
	if (*pp == NULL)
		pvfs_fatal("inode %llu missing from its table",
		    (unsigned long long)in->ino);
	*pp = in->hnext;
	ns_icount--;
}

static void
mgr_ns_dtab_del(struct mgr_dirent *de)
{
	struct mgr_dirent **pp = &ns_dtab[de->hash & ns_dmask];

	while (*pp != NULL && *pp != de)
		pp = &(*pp)->hnext;
	if (*pp == NULL)
		pvfs_fatal("entry %s missing from its table", de->name);
	*pp = de->hnext;
	ns_dcount--;
}

static struct mgr_inode *
mgr_ns_inode_new(uint64_t ino, uint32_t mode)
{
	struct mgr_inode *in = mgr_ns_calloc(1, sizeof(*in));

	in->ino = ino;
	in->mode = mode;
	if (MGR_IS_DIR(in)) {
		in->dir = mgr_ns_calloc(1, sizeof(*in->dir));
		in->dir->next_cookie = 1;
	}
	mgr_ns_itab_add(in);
	if (ino >= ns_next_ino)
		ns_next_ino = ino + 1;
	return in;
}

static void
mgr_ns_inode_free(struct mgr_inode *in)
{
	if (MGR_IS_REG(in) && in->dir == NULL && mgr_mirror_copies(&in->dist) > 1)
		mgr_mirror_forget(in->ino, in->gen, in->dist.pcount,
		    mgr_mirror_copies(&in->dist));
	if (in->orphan) {
		TAILQ_REMOVE(&ns_orphans, in->ox, oentry);
		ns_norphans--;
	}
	mgr_ns_itab_del(in);
	if (in->dir != NULL)
		free(in->dir->slots);
	free(in->dir);
	free(in->target);
	if (in->ox != NULL)
		free(in->ox->rm_done);
	free(in->ox);
	free(in);
}

void
mgr_ns_init(void)
{
	if (getrandom(ns_key, sizeof(ns_key), 0) != (ssize_t)sizeof(ns_key))
		pvfs_fatal("getrandom: %s", strerror(errno));
	ns_imask = ns_dmask = NS_HASH_MIN - 1;
	ns_itab = mgr_ns_table(NS_HASH_MIN);
	ns_dtab = mgr_ns_table(NS_HASH_MIN);
	ns_root = mgr_ns_inode_new(NS_ROOT_INO, S_IFDIR | 0755);
	ns_root->uid = geteuid();
	ns_root->gid = getegid();
}

/* Room for about n inodes and names, at once rather than by doubling: a
 * load knows how many to expect, and each doubling rehashes every entry
 * so far (a cache miss each, at millions). */
void
mgr_ns_reserve(uint64_t n)
{
	size_t want = NS_HASH_MIN;

	if (n > NS_HASH_RESERVE_MAX)
		n = NS_HASH_RESERVE_MAX;
	while (want < n)
		want *= 2;
	if (want > ns_imask + 1)
		mgr_ns_itab_resize(want - 1);
	if (want > ns_dmask + 1)
		mgr_ns_dtab_resize(want - 1);
}

void
mgr_ns_free(void)
{
	struct mgr_inode *in, *next;
	struct mgr_dirent *de;
	size_t i;

	for (i = 0; ns_itab != NULL && i <= ns_imask; i++) {
		for (in = ns_itab[i]; in != NULL; in = next) {
			next = in->hnext;
			while ((de = in->de) != NULL) {
				in->de = de->lnext;
				free(de);
			}
			if (in->dir != NULL)
				free(in->dir->slots);
			free(in->dir);
			free(in->target);
			if (in->ox != NULL)
				free(in->ox->rm_done);
			free(in->ox);
			free(in);
		}
	}
	if (ns_itab != NULL)
		mgr_ns_table_free(ns_itab, ns_imask + 1);
	if (ns_dtab != NULL)
		mgr_ns_table_free(ns_dtab, ns_dmask + 1);
	ns_itab = NULL;
	ns_dtab = NULL;
	ns_root = NULL;
	ns_icount = ns_dcount = 0;
	TAILQ_INIT(&ns_orphans);
	ns_norphans = 0;
	ns_next_ino = NS_ROOT_INO + 1; /* for the next mgr_ns_init() */
	mgr_mirror_reset(); /* stale copies are of these files */
}

struct mgr_inode *
mgr_ns_root(void)
{
	return ns_root;
}

struct mgr_inode *
mgr_ns_get(uint64_t ino)
{
	struct mgr_inode *in = ns_itab[mgr_ns_ino_hash(ino) & ns_imask];

	while (in != NULL && in->ino != ino)
		in = in->hnext;
	return in;
}

/* r's (parent, name) hash: the one a load computed ahead, if any. */
static uint32_t
mgr_ns_rec_hash(const struct mgr_rec *r)
{
	return r->hash != 0 ? r->hash :
	    mgr_ns_name_hash(r->parent, r->name, r->namelen);
}

static struct mgr_dirent *
mgr_ns_lookup_h(const struct mgr_inode *dir, const char *name, size_t len,
    uint32_t h)
{
	struct mgr_dirent *de = ns_dtab[h & ns_dmask];

	for (; de != NULL; de = de->hnext) {
		if (de->hash == h && de->parent == dir && de->namelen == len &&
		    memcmp(de->name, name, len) == 0)
			return de;
	}
	return NULL;
}

struct mgr_dirent *
mgr_ns_lookup(const struct mgr_inode *dir, const char *name, size_t len)
{
	return mgr_ns_lookup_h(dir, name, len,
	    mgr_ns_name_hash(dir->ino, name, len));
}

uint64_t
mgr_ns_cookie(const struct mgr_dirent *de)
{
	return de->parent->dir->slots[de->slot].cookie;
}

/* A load applies records some time after reading them: ask for what
 * their lookups will touch meanwhile, so that millions of them do not
 * each wait for the memory (doc/design.md, "Memory").  First the bucket
 * of r's name (its hash returned), later the entry at its head. */
uint32_t
mgr_ns_prefetch(const struct mgr_rec *r)
{
	uint32_t h;

	if (r->name == NULL)
		return 0;
	h = mgr_ns_name_hash(r->parent, r->name, r->namelen);
	__builtin_prefetch(&ns_dtab[h & ns_dmask]);
	return h;
}

void
mgr_ns_prefetch_chain(uint32_t h)
{
	const struct mgr_dirent *de = ns_dtab[h & ns_dmask];

	if (de != NULL)
		__builtin_prefetch(de);
}

struct mgr_inode *
mgr_ns_parent(const struct mgr_inode *in)
{
	return in->de != NULL ? in->de->parent : ns_root;
}

/* Is a equal to b or one of b's ancestors? */
int
mgr_ns_is_ancestor(const struct mgr_inode *a, const struct mgr_inode *b)
{
	for (;;) {
		if (a == b)
			return 1;
		if (b->de == NULL)
			return 0;
		b = b->de->parent;
	}
}

uint64_t
mgr_ns_next_ino(void)
{
	return ns_next_ino;
}

void
mgr_ns_set_next_ino(uint64_t ino)
{
	if (ino > ns_next_ino)
		ns_next_ino = ino;
}

/* A new file's identity.  Random rather than counted, so that no state
 * the mgr can lose (a restore, a salvage) makes it repeat an earlier
 * file's: two files share an inode number only with odds of 2^-64.  A
 * pool refilled 64 numbers at a time keeps getrandom off most creates. */
uint64_t
mgr_ns_new_gen(void)
{
	static uint64_t pool[64];
	static size_t left;
	uint64_t gen;

	do {
		if (left == 0) {
			if (getrandom(pool, sizeof(pool), 0) != (ssize_t)sizeof(pool))
				pvfs_fatal("getrandom: %s", strerror(errno));
			left = sizeof(pool) / sizeof(pool[0]);
		}
		gen = pool[--left];
	} while (gen == 0); /* 0 means "a file older than identities" */
	return gen;
}

uint64_t
mgr_ns_count(void)
{
	return ns_icount;
}

void
mgr_ns_attr(const struct mgr_inode *in, struct pvfs_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = in->ino;
	a->mode = in->mode;
	a->uid = in->uid;
	a->gid = in->gid;
	a->atime_ns = in->atime_ns;
	a->mtime_ns = in->mtime_ns;
	a->ctime_ns = in->ctime_ns;
	a->mtime_set_ns = in->mset_ns;
	a->rdev = in->rdev;
	if (in->dir != NULL) {
		a->nlink = 2 + in->dir->nsubdirs;
		a->size = in->dir->nlive;
	} else if (MGR_IS_LNK(in)) {
		a->nlink = in->nlink;
		a->size = in->targetlen;
	} else {
		a->nlink = in->nlink;
		a->dist = in->dist;
		a->dist.copies = (uint16_t)pvfs_dist_copies(&in->dist);
	}
	if (in->dir != NULL)
		a->dist.copies = in->dist.copies; /* the default for new files */
	mgr_size_attr(in, a);
}

/* ---- path resolution ---- */

/* Step from dir into component comp; "." and ".." are taken logically. */
static void
mgr_ns_step(struct mgr_inode *dir, const char *comp, size_t len,
    struct mgr_path *p)
{
	p->name = comp;
	p->namelen = len;
	p->slash = 0;
	p->special = 0;
	if (len <= 2 && comp[0] == '.' && (len == 1 || comp[1] == '.')) {
		p->ino = len == 1 ? dir : mgr_ns_parent(dir);
		p->dir = mgr_ns_parent(p->ino);
		p->de = NULL;
		p->special = 1;
		return;
	}
	p->dir = dir;
	p->de = mgr_ns_lookup(dir, comp, len);
	p->ino = p->de != NULL ? p->de->inode : NULL;
}

/* Absolute paths only; search permission on every directory passed, in
 * the kernel's order: a component is looked up only in a directory that
 * exists and may be searched.  "." and ".." are taken as they come, never
 * folded beforehand ("d/missing/.." is ENOENT, "f/.." ENOTDIR).  A
 * missing last component is not an error (p->ino == NULL).  A trailing
 * "/" sets p->slash; on an existing non-directory it is ENOTDIR unless
 * the caller takes that check (O_CREAT's EISDIR comes before it). */
static int
mgr_ns_walk_path(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, int slash_ok, enum mgr_follow follow)
{
	const char *s = path, *comp, *t;
	size_t len;

	memset(p, 0, sizeof(*p));
	if (*s == '\0')
		return ENOENT;
	if (*s != '/')
		return EINVAL;
	p->dir = p->ino = ns_root;
	p->special = 1;
	for (;;) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		for (comp = s; *s != '\0' && *s != '/'; s++)
			;
		if ((len = (size_t)(s - comp)) > PVFS_NAME_MAX)
			return ENAMETOOLONG;
		if (p->ino == NULL)
			return ENOENT;
		if (!MGR_IS_DIR(p->ino))
			return ENOTDIR;
		if (mgr_perm_check(cr, p->ino, MGR_MAY_X) != 0)
			return EACCES;
		mgr_ns_step(p->ino, comp, len, p);
		if (p->ino == NULL || !MGR_IS_LNK(p->ino))
			continue;
		/* A link: the client follows it.  Before the last component
		 * always, as the last one when the request follows, or when a
		 * "/" after it asks for a directory (not for the requests that
		 * work on the name itself: unlink, rename, mkdir...). */
		for (t = s; *t == '/'; t++)
			;
		if (*t != '\0' || follow == MGR_WALK_FOLLOW ||
		    (t > s && follow == MGR_WALK_NOFOLLOW)) {
			p->link = p->ino;
			p->link_end = (size_t)(s - path);
			return PVFS_ST_LINK;
		}
	}
	p->slash = s > path + 1 && s[-1] == '/' && !p->special;
	if (!slash_ok && p->slash && p->ino != NULL && !MGR_IS_DIR(p->ino))
		return ENOTDIR;
	return 0;
}

int
mgr_ns_resolve_how(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p, int slash_ok, enum mgr_follow follow)
{
	return mgr_ns_walk_path(cr, path, p, slash_ok, follow);
}

int
mgr_ns_resolve(const struct pvfs_cred *cr, const char *path, struct mgr_path *p)
{
	return mgr_ns_walk_path(cr, path, p, 0, MGR_WALK_PARENT);
}

int
mgr_ns_resolve_slash(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p)
{
	return mgr_ns_walk_path(cr, path, p, 1, MGR_WALK_PARENT);
}

/* The same, for requests whose last component must exist. */
int
mgr_ns_resolve_existing(const struct pvfs_cred *cr, const char *path,
    struct mgr_path *p)
{
	int rc = mgr_ns_resolve(cr, path, p);

	if (rc == 0 && p->ino == NULL)
		rc = ENOENT;
	return rc;
}

/* ---- directory entry arrays ---- */

static void
mgr_ns_dir_compact(struct mgr_dir *d)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->nslots; i++) {
		if (d->slots[i].de == NULL)
			continue;
		d->slots[n] = d->slots[i];
		d->slots[n].de->slot = n;
		n++;
	}
	d->nslots = n;
}

static int
mgr_ns_dir_append(struct mgr_inode *dir, struct mgr_dirent *de, uint64_t cookie)
{
	struct mgr_dir *d = dir->dir;

	if (cookie == 0)
		cookie = d->next_cookie;
	if (d->nslots > 0 && d->slots[d->nslots - 1].cookie >= cookie)
		return EINVAL; /* cookies must ascend: corrupt snapshot */
	if (d->nslots == d->cap) {
		if (d->nlive < d->nslots / 2)
			mgr_ns_dir_compact(d);
	}
	if (d->nslots == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		if ((d->slots = realloc(d->slots, d->cap * sizeof(*d->slots))) == NULL)
			pvfs_fatal("out of memory (directory of %u entries)", d->nlive);
	}
	de->slot = d->nslots;
	d->slots[d->nslots].cookie = cookie;
	d->slots[d->nslots++].de = de;
	d->nlive++;
	if (cookie >= d->next_cookie)
		d->next_cookie = cookie + 1;
	return 0;
}

static void
mgr_ns_dir_remove(struct mgr_inode *dir, struct mgr_dirent *de)
{
	struct mgr_dir *d = dir->dir;

	d->slots[de->slot].de = NULL;
	d->nlive--;
	while (d->nslots > 0 && d->slots[d->nslots - 1].de == NULL)
		d->nslots--;
	if (d->nslots >= 64 && d->nlive < d->nslots / 4)
		mgr_ns_dir_compact(d);
}

/* Link a new entry name -> in into dir; h is (dir, name)'s hash. */
static int
mgr_ns_link(struct mgr_inode *dir, const char *name, size_t len,
    struct mgr_inode *in, uint64_t cookie, uint32_t h)
{
	struct mgr_dirent *de = mgr_ns_calloc(1,
	    offsetof(struct mgr_dirent, name) + len + 1), **pp;
	size_t b;
	int rc;

	de->parent = dir;
	de->inode = in;
	de->namelen = (uint8_t)len;
	memcpy(de->name, name, len);
	de->hash = h;
	if ((rc = mgr_ns_dir_append(dir, de, cookie)) != 0) {
		free(de);
		return rc;
	}
	if (ns_dcount >= ns_dmask + 1)
		mgr_ns_dtab_resize(ns_dmask * 2 + 1);
	b = de->hash & ns_dmask;
	de->hnext = ns_dtab[b];
	ns_dtab[b] = de;
	ns_dcount++;
	/* The first name stays first: it is the one snapshots create. */
	pp = &in->de;
	while (*pp != NULL)
		pp = &(*pp)->lnext;
	*pp = de;
	in->nlink++;
	if (in->dir != NULL)
		dir->dir->nsubdirs++;
	return 0;
}

static void
mgr_ns_unlink(struct mgr_dirent *de)
{
	struct mgr_inode *dir = de->parent, *in = de->inode;
	struct mgr_dirent **pp = &in->de;

	mgr_ns_dtab_del(de);
	mgr_ns_dir_remove(dir, de);
	if (in->dir != NULL)
		dir->dir->nsubdirs--;
	while (*pp != de)
		pp = &(*pp)->lnext;
	*pp = de->lnext;
	in->nlink--;
	free(de);
}

/* A name of in went at time t: its ctime changes while it has others;
 * after the last, it goes too, unless an ORPHAN record asked to keep it
 * for the descriptors that have it open. */
static void
mgr_ns_drop(struct mgr_inode *in, int64_t t)
{
	if (t != 0)
		in->ctime_ns = t;
	if (in->de != NULL)
		return;
	if (in->dir == NULL && in->keep) {
		in->orphan = 1;
		TAILQ_INSERT_TAIL(&ns_orphans, in->ox, oentry);
		ns_norphans++;
		return;
	}
	mgr_ns_inode_free(in);
}

uint32_t
mgr_ns_readdir(const struct mgr_inode *dir, uint64_t cookie,
    struct mgr_dirent **out, uint32_t max, int *eof)
{
	const struct mgr_dir *d = dir->dir;
	uint32_t lo = 0, hi = d->nslots, mid, n = 0;

	while (lo < hi) { /* first slot with a cookie above the given one */
		mid = lo + (hi - lo) / 2;
		if (d->slots[mid].cookie <= cookie)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->nslots && n < max; lo++) {
		if (d->slots[lo].de != NULL)
			out[n++] = d->slots[lo].de;
	}
	while (lo < d->nslots && d->slots[lo].de == NULL)
		lo++;
	*eof = lo == d->nslots;
	return n;
}

/* ---- mutations: one apply function per record type ---- */

static void
mgr_ns_touch_parent(struct mgr_inode *dir, int64_t t)
{
	if (t != 0)
		dir->mtime_ns = dir->ctime_ns = t;
}

/* A new inode's owner and times from the record that makes it (the
 * reverse of mgr_ns_rec_attrs). */
static void
mgr_ns_owner_times(struct mgr_inode *in, const struct mgr_rec *r)
{
	in->uid = r->uid;
	in->gid = r->gid;
	in->atime_ns = r->atime_ns;
	in->mtime_ns = r->mtime_ns;
	in->ctime_ns = r->ctime_ns;
	in->mset_ns = r->mset_ns;
}

static int
mgr_ns_apply_create(const struct mgr_rec *r)
{
	struct mgr_inode *dir = mgr_ns_get(r->parent), *in;
	uint32_t h = mgr_ns_rec_hash(r);
	uint32_t fmt = r->type == MGR_REC_MKDIR ? S_IFDIR :
	    r->type == MGR_REC_MKNOD ? r->mode & S_IFMT :
	    r->type == MGR_REC_SYMLINK ? S_IFLNK : S_IFREG;
	int rc;

	if (r->type == MGR_REC_MKNOD && fmt != S_IFIFO && fmt != S_IFSOCK &&
	    fmt != S_IFCHR && fmt != S_IFBLK)
		return EINVAL;
	if (dir == NULL || dir->dir == NULL)
		return ENOTDIR;
	if (r->ino <= NS_ROOT_INO || mgr_ns_get(r->ino) != NULL ||
	    mgr_ns_lookup_h(dir, r->name, r->namelen, h) != NULL)
		return EEXIST;
	if (r->type == MGR_REC_SYMLINK &&
	    (r->targetlen == 0 || r->targetlen > MGR_LINK_MAX))
		return EINVAL;
	in = mgr_ns_inode_new(r->ino, fmt | (fmt == S_IFLNK ? 0777 :
	    r->mode & 07777));
	if (fmt == S_IFLNK) {
		in->target = mgr_ns_calloc(1, r->targetlen + 1u);
		memcpy(in->target, r->target, r->targetlen);
		in->targetlen = r->targetlen;
	}
	mgr_ns_owner_times(in, r);
	if (in->dir != NULL && r->next_cookie > 1)
		in->dir->next_cookie = r->next_cookie;
	if (r->type == MGR_REC_CREATE) {
		in->dist = r->dist;
		in->dist.copies = 1; /* a MIRROR record says more */
		in->dist.mshift = 0;
		in->gen = r->gen;
	}
	if (r->type == MGR_REC_MKNOD)
		in->rdev = r->rdev;
	if ((rc = mgr_ns_link(dir, r->name, r->namelen, in, r->cookie, h)) != 0) {
		mgr_ns_inode_free(in);
		return rc;
	}
	mgr_ns_touch_parent(dir, r->time);
	return 0;
}

static int
mgr_ns_apply_remove(const struct mgr_rec *r)
{
	struct mgr_inode *dir = mgr_ns_get(r->parent), *in;
	struct mgr_dirent *de;

	if (dir == NULL || dir->dir == NULL)
		return ENOTDIR;
	if ((de = mgr_ns_lookup(dir, r->name, r->namelen)) == NULL)
		return ENOENT;
	in = de->inode;
	if (r->ino != 0 && in->ino != r->ino)
		return ESTALE;
	if (r->type == MGR_REC_UNLINK && in->dir != NULL)
		return EISDIR;
	if (r->type == MGR_REC_RMDIR && in->dir == NULL)
		return ENOTDIR;
	if (r->type == MGR_REC_RMDIR && in->dir->nlive != 0)
		return ENOTEMPTY;
	mgr_ns_unlink(de);
	mgr_ns_drop(in, r->time);
	mgr_ns_touch_parent(dir, r->time);
	return 0;
}

/* The POSIX rules are checked by the caller; what is checked again here
 * keeps a bad record from breaking the tree during replay. */
static int
mgr_ns_rename_check(struct mgr_dirent *src, struct mgr_dirent *dst,
    struct mgr_inode *to)
{
	struct mgr_inode *in = src->inode;

	if (in->dir != NULL && mgr_ns_is_ancestor(in, to))
		return EINVAL;
	if (dst == NULL)
		return 0;
	if (in->dir != NULL && dst->inode->dir == NULL)
		return ENOTDIR;
	if (in->dir == NULL && dst->inode->dir != NULL)
		return EISDIR;
	if (dst->inode->dir != NULL && dst->inode->dir->nlive != 0)
		return ENOTEMPTY;
	return 0;
}

static int
mgr_ns_apply_rename(const struct mgr_rec *r)
{
	struct mgr_inode *from = mgr_ns_get(r->parent), *to = mgr_ns_get(r->parent2);
	struct mgr_dirent *src, *dst;
	struct mgr_inode *in, *old;
	int rc;

	if (from == NULL || to == NULL || from->dir == NULL || to->dir == NULL)
		return ENOTDIR;
	if ((src = mgr_ns_lookup(from, r->name, r->namelen)) == NULL)
		return ENOENT;
	dst = mgr_ns_lookup(to, r->name2, r->namelen2);
	if (dst != NULL && dst->inode == src->inode)
		return 0;
	if ((rc = mgr_ns_rename_check(src, dst, to)) != 0)
		return rc;
	in = src->inode;
	if (dst != NULL) {
		old = dst->inode;
		mgr_ns_unlink(dst);
		mgr_ns_drop(old, r->time);
	}
	mgr_ns_unlink(src);
	if ((rc = mgr_ns_link(to, r->name2, r->namelen2, in, 0,
	    mgr_ns_name_hash(to->ino, r->name2, r->namelen2))) != 0)
		pvfs_fatal("rename: cannot relink inode %llu",
		    (unsigned long long)in->ino);
	mgr_ns_touch_parent(from, r->time);
	mgr_ns_touch_parent(to, r->time);
	if (r->time != 0)
		in->ctime_ns = r->time;
	return 0;
}

static int
mgr_ns_apply_setattr(const struct mgr_rec *r)
{
	struct mgr_inode *in = mgr_ns_get(r->ino);

	if (in == NULL)
		return ENOENT;
	if (r->mask & MGR_REC_MODE)
		in->mode = (in->mode & S_IFMT) | (r->mode & 07777);
	if (r->mask & MGR_REC_UID)
		in->uid = r->uid;
	if (r->mask & MGR_REC_GID)
		in->gid = r->gid;
	if (r->mask & MGR_REC_ATIME)
		in->atime_ns = r->atime_ns;
	if (r->mask & MGR_REC_MTIME) {
		in->mtime_ns = r->mtime_ns;
		in->mset_ns = r->ctime_ns; /* setattr records carry the op's time as ctime */
	}
	if (r->mask & MGR_REC_CTIME)
		in->ctime_ns = r->ctime_ns;
	return 0;
}

/* Another name for a file: what Linux refuses is checked by the caller;
 * this keeps a bad record from making a directory hard link. */
static int
mgr_ns_apply_link(const struct mgr_rec *r)
{
	struct mgr_inode *dir = mgr_ns_get(r->parent), *in = mgr_ns_get(r->ino);
	uint32_t h = mgr_ns_rec_hash(r);
	int rc;

	if (dir == NULL || dir->dir == NULL)
		return ENOTDIR;
	if (in == NULL)
		return ENOENT;
	if (in->dir != NULL || in->de == NULL)
		return EPERM; /* a directory, the root, or an orphan */
	if (mgr_ns_lookup_h(dir, r->name, r->namelen, h) != NULL)
		return EEXIST;
	if ((rc = mgr_ns_link(dir, r->name, r->namelen, in, r->cookie, h)) != 0)
		return rc;
	if (r->time != 0)
		in->ctime_ns = r->time;
	mgr_ns_touch_parent(dir, r->time);
	return 0;
}

/* in outlives its last name: the state an orphan needs. */
static void
mgr_ns_keep(struct mgr_inode *in)
{
	in->keep = 1;
	if (in->ox == NULL) {
		in->ox = mgr_ns_calloc(1, sizeof(*in->ox));
		in->ox->in = in;
	}
}

/* A file is to outlive its last name.  Live, the file exists and keep is
 * set before the record that removes the name; in a snapshot, the orphan
 * has no name and the record recreates it from its attributes. */
static int
mgr_ns_apply_orphan(const struct mgr_rec *r)
{
	struct mgr_inode *in = mgr_ns_get(r->ino);

	if (in != NULL) {
		if (in->dir != NULL || in->de == NULL)
			return EINVAL;
		mgr_ns_keep(in);
		in->held = (r->mode & MGR_ORPHAN_HELD) != 0;
		return 0;
	}
	if (r->ino <= NS_ROOT_INO)
		return EINVAL;
	in = mgr_ns_inode_new(r->ino, S_IFREG | (r->mode & 07777));
	mgr_ns_owner_times(in, r);
	in->dist = r->dist;
	in->dist.copies = 1; /* a MIRROR record says more */
	in->dist.mshift = 0;
	in->gen = r->gen;
	mgr_ns_keep(in);
	in->held = (r->mode & MGR_ORPHAN_HELD) != 0;
	mgr_ns_drop(in, 0);
	return 0;
}

/* A file's copies (a CREATE or ORPHAN of this batch made it), or a
 * directory's default copies for new files. */
static int
mgr_ns_apply_mirror(const struct mgr_rec *r)
{
	struct mgr_inode *in = mgr_ns_get(r->ino);

	if (in == NULL)
		return ENOENT;
	if (r->dist.copies > PVFS_COPIES_MAX)
		return EINVAL;
	if (in->dir != NULL) {
		in->dist.copies = r->dist.copies;
		return 0;
	}
	if (!MGR_IS_REG(in) || r->dist.copies == 0 ||
	    (r->dist.copies > 1 && r->dist.mshift == 0))
		return EINVAL;
	in->dist.copies = r->dist.copies;
	in->dist.mshift = r->dist.mshift;
	return 0;
}

/* The orphan's stripes are gone from the iods. */
static int
mgr_ns_apply_free(const struct mgr_rec *r)
{
	struct mgr_inode *in = mgr_ns_get(r->ino);

	if (in == NULL)
		return ENOENT;
	if (!in->orphan)
		return EINVAL;
	mgr_ns_inode_free(in);
	return 0;
}

/* A record of type that changes the entry p names, its parents' times
 * set to now; the caller fills in the rest. */
void
mgr_ns_rec_new(struct mgr_rec *r, uint8_t type, const struct mgr_path *p,
    int64_t now)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->parent = p->dir->ino;
	r->name = p->name;
	r->namelen = (uint16_t)p->namelen;
	r->time = now;
}

void
mgr_ns_rec_attrs(const struct mgr_inode *in, struct mgr_rec *r)
{
	r->ino = in->ino;
	r->gen = in->gen;
	r->mode = in->mode & 07777;
	r->uid = in->uid;
	r->gid = in->gid;
	r->atime_ns = in->atime_ns;
	r->mtime_ns = in->mtime_ns;
	r->ctime_ns = in->ctime_ns;
	r->mset_ns = in->mset_ns;
	r->dist = in->dist;
}

/* The one way the name space changes: 0 or an errno saying why the record
 * does not fit the current tree. */
int
mgr_ns_apply(const struct mgr_rec *r)
{
	if (r->namelen > PVFS_NAME_MAX || r->namelen2 > PVFS_NAME_MAX)
		return ENAMETOOLONG;
	switch (r->type) {
	case MGR_REC_CREATE:
	case MGR_REC_MKDIR:
	case MGR_REC_MKNOD:
	case MGR_REC_SYMLINK:
		return mgr_ns_apply_create(r);
	case MGR_REC_UNLINK:
	case MGR_REC_RMDIR:
		return mgr_ns_apply_remove(r);
	case MGR_REC_RENAME:
		return mgr_ns_apply_rename(r);
	case MGR_REC_SETATTR:
		return mgr_ns_apply_setattr(r);
	case MGR_REC_LINK:
		return mgr_ns_apply_link(r);
	case MGR_REC_ORPHAN:
		return mgr_ns_apply_orphan(r);
	case MGR_REC_FREE:
		return mgr_ns_apply_free(r);
	case MGR_REC_DIRTY:
	case MGR_REC_CLEAN:
	case MGR_REC_REBUILD:
		return mgr_mirror_apply(r);
	case MGR_REC_MIRROR:
		return mgr_ns_apply_mirror(r);
	}
	return EINVAL;
}

/* ---- snapshot walk ---- */

/* Breadth first over directories so every parent precedes its children,
 * each directory's names in cookie order; fn sees every name, with first
 * set at the first name of its inode met (a file's later names are hard
 * links).  An explicit queue because renames allow trees deeper than any
 * stack. */
int
mgr_ns_walk_names(int (*fn)(const struct mgr_inode *, const struct mgr_dirent *,
    int, void *), void *arg)
{
	static uint32_t walk_gen;
	struct mgr_inode **q = NULL, *dir, *in;
	size_t head = 0, tail = 0, cap = 0;
	uint32_t i;
	int rc = fn(ns_root, NULL, 1, arg), first;

	if (++walk_gen == 0) {
		/* 2^32 walks: forget the old marks rather than meet one again. */
		size_t b;

		for (b = 0; b <= ns_imask; b++)
			for (in = ns_itab[b]; in != NULL; in = in->hnext)
				in->walk_gen = 0;
		walk_gen = 1;
	}
	for (dir = ns_root; rc == 0 && dir != NULL;
	    dir = head < tail ? q[head++] : NULL) {
		for (i = 0; rc == 0 && i < dir->dir->nslots; i++) {
			struct mgr_dirent *de = dir->dir->slots[i].de;

			if (de == NULL)
				continue;
			in = de->inode;
			first = in->nlink <= 1 || in->walk_gen != walk_gen;
			in->walk_gen = walk_gen;
			if ((rc = fn(in, de, first, arg)) != 0 || in->dir == NULL)
				continue;
			if (tail == cap) {
				cap = cap ? cap * 2 : 64;
				if ((q = realloc(q, cap * sizeof(*q))) == NULL)
					pvfs_fatal("out of memory (snapshot queue)");
			}
			q[tail++] = in;
		}
	}
	free(q);
	return rc;
}

struct ns_walk1 {
	int (*fn)(const struct mgr_inode *, void *);
	void *arg;
};

static int
mgr_ns_walk_one(const struct mgr_inode *in, const struct mgr_dirent *de,
    int first, void *arg)
{
	struct ns_walk1 *w = arg;

	(void)de;
	return first ? w->fn(in, w->arg) : 0;
}

int
mgr_ns_walk(int (*fn)(const struct mgr_inode *, void *), void *arg)
{
	struct ns_walk1 w = { fn, arg };

	return mgr_ns_walk_names(mgr_ns_walk_one, &w);
}

int
mgr_ns_walk_orphans(int (*fn)(struct mgr_inode *, void *), void *arg)
{
	struct mgr_orphan *ox, *next;
	int rc;

	for (ox = TAILQ_FIRST(&ns_orphans); ox != NULL; ox = next) {
		next = TAILQ_NEXT(ox, oentry);
		if ((rc = fn(ox->in, arg)) != 0)
			return rc;
	}
	return 0;
}

uint64_t
mgr_ns_orphan_count(void)
{
	return ns_norphans;
}
