/*
 * mgr-cache.c - cache promises: what lets a client answer a repeated
 * STAT from its own memory and still see every change made elsewhere
 * (doc/design.md, "Client caching"; doc/protocol.md, "Cache promises").
 *
 * A client registers a CALLBACK connection (a holder, named by a random
 * token) and parks a CALLBACK request on it.  A STAT that carries the
 * token gets a promise on the inode it answers for (kind ATTR) and on
 * every directory its walk passed (kind WALK), for a term.  A record that
 * changes a promised inode (hooked in mgr_journal_log, before it applies)
 * invalidates every holder of a live promise on it: the parked CALLBACK
 * is answered, the holder's promises all go (its client forgets all it
 * cached), and the request that made the change is answered only when
 * each such holder acknowledged (its next CALLBACK) or the promise's term
 * ran out.  So a reply to a change is never followed by a stale cached
 * answer anywhere, and a hung client delays a change by at most the term.
 * A new directory entry changes its directory's times but no cached walk
 * (only found names are cached), so creates spare WALK promises.
 *
 * Nothing here is durable: a restarted mgr knows no holder and no
 * promise, and the clients, whose CALLBACK connections broke, forget
 * theirs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mgr.h"

#define CB_HASH 4096u              /* promise chains, by inode */
#define CB_HOLDER_HASH 256u        /* holders, by token */
#define CB_MAX_PROMISES 65536u     /* per holder */
#define CB_TICK 0.05               /* how often waits are checked for expiry */

enum { CB_ATTR = 1, CB_WALK = 2 }; /* promise kinds */
enum { CH_ATTR = 1, CH_ALL = 3 };  /* what a change reaches: ATTR, both */

struct cb_holder;

struct cb_promise {
	uint64_t ino;
	struct cb_holder *h;
	int64_t expiry_ms;
	int kind;
	struct cb_promise *next, **pprev; /* the inode's chain */
	struct cb_promise *hnext, **hpprev; /* the holder's list */
};

struct cb_holder {
	uint64_t token;
	struct mgr_conn *c;
	uint64_t seq;               /* last invalidation */
	int parked;                 /* a CALLBACK waits for seq to pass its ack */
	uint32_t reqid;
	struct cb_promise *promises;
	uint32_t npromises;
	struct cb_holder *next;     /* token chain */
};

/* A change's reply waits for holder h to acknowledge seq, or deadline. */
struct cb_wait {
	struct cb_holder *h;
	uint64_t seq;
	int64_t deadline_ms;
	struct mgr_conn *gate;      /* the changer, NULL while collecting */
};

static struct cb_promise *cb_tab[CB_HASH];
static struct cb_holder *cb_holders[CB_HOLDER_HASH];
static struct cb_wait *cb_waits;
static size_t cb_nwaits, cb_waits_cap;
static size_t cb_nholders;
static int cb_in_op;
static double cb_term = MGR_CACHE_TERM;
static ev_timer cb_timer;
static int cb_timer_on;

void
mgr_cache_set_term(double secs)
{
	cb_term = secs;
}

static uint32_t
cb_ino_slot(uint64_t ino)
{
	return (uint32_t)((ino * 0x9e3779b97f4a7c15ull) >> 52) & (CB_HASH - 1);
}

static struct cb_holder *
cb_holder_find(uint64_t token)
{
	struct cb_holder *h = cb_holders[token & (CB_HOLDER_HASH - 1)];

	while (h != NULL && h->token != token)
		h = h->next;
	return h;
}

static void
cb_promises_drop(struct cb_holder *h)
{
	struct cb_promise *p, *n;

	for (p = h->promises; p != NULL; p = n) {
		n = p->hnext;
		if (p->next != NULL)
			p->next->pprev = p->pprev;
		*p->pprev = p->next;
		free(p);
	}
	h->promises = NULL;
	h->npromises = 0;
}

/* Remove p from its inode's chain and h's list, and free it. */
static void
cb_promise_unlist(struct cb_holder *h, struct cb_promise *p)
{
	if (p->next != NULL)
		p->next->pprev = p->pprev;
	*p->pprev = p->next;
	if (p->hnext != NULL)
		p->hnext->hpprev = p->hpprev;
	*p->hpprev = p->hnext;
	h->npromises--;
	free(p);
}

static void
cb_wait_done(size_t i)
{
	struct mgr_conn *gate = cb_waits[i].gate;

	cb_waits[i] = cb_waits[--cb_nwaits];
	if (gate != NULL)
		mgr_conn_gate_open(gate);
}

/* Waits of h up to seq acknowledged (all of them: h is gone).  Acks
 * come from other requests than the one collecting, so every wait here
 * has its gate. */
static void
cb_waits_ack(struct cb_holder *h, uint64_t seq, int all)
{
	size_t i;

	for (i = 0; i < cb_nwaits;) {
		if (cb_waits[i].h == h && (all || cb_waits[i].seq <= seq))
			cb_wait_done(i);
		else
			i++;
	}
}

static void
cb_reply(struct cb_holder *h)
{
	struct pvfs_mgr_callback_rep rep;

	memset(&rep, 0, sizeof(rep));
	rep.token = h->token;
	rep.seq = h->seq;
	rep.term_ms = (uint32_t)(cb_term * 1000);
	h->parked = 0;
	mgr_conn_reply_later(h->c, PVFS_MGR_CALLBACK, h->reqid, 0, &rep);
}

static void
cb_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
	int64_t now = pvfs_mono_ms();
	size_t i;

	(void)revents;
	for (i = 0; i < cb_nwaits;) {
		if (cb_waits[i].gate != NULL && cb_waits[i].deadline_ms <= now)
			cb_wait_done(i);
		else
			i++;
	}
	if (cb_nwaits == 0) {
		ev_timer_stop(loop, w);
		cb_timer_on = 0;
	}
}

static void cb_wait_add(struct cb_holder *h, int64_t expiry_ms);

/* Invalidate holder h, whose promise on an inode a change reaches. */
static void
cb_invalidate(struct cb_holder *h, int64_t expiry_ms)
{
	h->seq++;
	cb_promises_drop(h);
	/* The wait first: the reply may find h's connection broken, and
	 * closing it frees h and ends its waits. */
	if (cb_in_op) /* else a change no client waits for (the mgr's own) */
		cb_wait_add(h, expiry_ms);
	if (h->parked)
		cb_reply(h);
}

static void
cb_wait_add(struct cb_holder *h, int64_t expiry_ms)
{
	struct cb_wait *w;

	if (cb_nwaits == cb_waits_cap) {
		cb_waits_cap = cb_waits_cap ? cb_waits_cap * 2 : 16;
		if ((cb_waits = realloc(cb_waits,
		    cb_waits_cap * sizeof(*cb_waits))) == NULL)
			pvfs_fatal("out of memory (cache waits)");
	}
	w = &cb_waits[cb_nwaits++];
	w->h = h;
	w->seq = h->seq;
	w->deadline_ms = expiry_ms;
	w->gate = NULL;
}

static void
cb_changed(uint64_t ino, int what)
{
	struct cb_promise *p;
	int64_t now;

	if (ino == 0)
		return;
	now = pvfs_mono_ms();
restart:
	for (p = cb_tab[cb_ino_slot(ino)]; p != NULL; p = p->next) {
		if (p->ino != ino || !(p->kind & (what == CH_ALL ? CB_ATTR | CB_WALK :
		    CB_ATTR)))
			continue;
		if (p->expiry_ms <= now) {
			/* Its client no longer trusts it: nothing to tell. */
			cb_promise_unlist(p->h, p);
			goto restart;
		}
		cb_invalidate(p->h, p->expiry_ms);
		goto restart; /* the holder's promises are all gone */
	}
}

static uint64_t
cb_child(uint64_t dir, const char *name, uint16_t len)
{
	struct mgr_inode *d = mgr_ns_get(dir);
	struct mgr_dirent *de;

	if (d == NULL || d->dir == NULL || name == NULL)
		return 0;
	de = mgr_ns_lookup(d, name, len);
	return de != NULL ? de->inode->ino : 0;
}

/* An attribute of ino changes outside a record (a size the mgr learns:
 * whoever keeps one calls this, or its cached copies go stale). */
void
mgr_cache_inode_changed(uint64_t ino)
{
	if (cb_nholders != 0)
		cb_changed(ino, CH_ATTR);
}

/* Record r is about to apply: whatever it changes loses its promises. */
void
mgr_cache_record(const struct mgr_rec *r)
{
	if (cb_nholders == 0)
		return;
	switch (r->type) {
	case MGR_REC_CREATE:
	case MGR_REC_MKDIR:
	case MGR_REC_SYMLINK:
	case MGR_REC_MKNOD:
		cb_changed(r->parent, CH_ATTR);
		break;
	case MGR_REC_LINK:
		cb_changed(r->parent, CH_ATTR);
		cb_changed(r->ino, CH_ATTR);
		break;
	case MGR_REC_UNLINK:
	case MGR_REC_RMDIR:
		cb_changed(cb_child(r->parent, r->name, r->namelen), CH_ALL);
		cb_changed(r->parent, CH_ALL);
		break;
	case MGR_REC_RENAME:
		cb_changed(cb_child(r->parent, r->name, r->namelen), CH_ALL);
		cb_changed(cb_child(r->parent2, r->name2, r->namelen2), CH_ALL);
		cb_changed(r->parent, CH_ALL);
		cb_changed(r->parent2, CH_ALL);
		break;
	case MGR_REC_SETATTR:
	case MGR_REC_ORPHAN:
	case MGR_REC_FREE:
		cb_changed(r->ino, CH_ALL);
		break;
	case MGR_REC_MIRROR: /* copies and shift are in the distribution */
		cb_changed(r->ino, CH_ATTR);
		break;
	default:
		break; /* copies' states: nothing a client caches */
	}
}

/* h is full: its expired promises go (its client trusts none of them). */
static void
cb_holder_sweep(struct cb_holder *h)
{
	struct cb_promise *p, *n;
	int64_t now = pvfs_mono_ms();

	for (p = h->promises; p != NULL; p = n) {
		n = p->hnext;
		if (p->expiry_ms <= now)
			cb_promise_unlist(h, p);
	}
}

/* ---- around each request (mgr-ops.c) ---- */

void
mgr_cache_op_begin(void)
{
	cb_in_op = 1;
}

/* The request on c is handled: its reply waits behind a gate if its
 * changes reached other holders (all those since begin). */
void
mgr_cache_op_end(struct mgr_conn *c)
{
	size_t i;
	int n = 0;

	cb_in_op = 0;
	for (i = 0; i < cb_nwaits; i++) {
		if (cb_waits[i].gate == NULL) {
			cb_waits[i].gate = c;
			n++;
		}
	}
	if (n == 0)
		return;
	mgr_conn_gate_close(c, n);
	if (!cb_timer_on) {
		ev_timer_again(mgr.loop, &cb_timer);
		cb_timer_on = 1;
	}
}

/* ---- STAT's promise ---- */

static int
cb_promise_add(struct cb_holder *h, uint64_t ino, int kind, int64_t expiry)
{
	struct cb_promise *p, **head = &cb_tab[cb_ino_slot(ino)];

	for (p = *head; p != NULL; p = p->next) {
		if (p->ino == ino && p->h == h) {
			p->kind |= kind;
			p->expiry_ms = expiry;
			return 0;
		}
	}
	if (h->npromises >= CB_MAX_PROMISES)
		cb_holder_sweep(h);
	if (h->npromises >= CB_MAX_PROMISES)
		return -1;
	if ((p = malloc(sizeof(*p))) == NULL)
		return -1;
	p->ino = ino;
	p->h = h;
	p->kind = kind;
	p->expiry_ms = expiry;
	p->next = *head;
	if (*head != NULL)
		(*head)->pprev = &p->next;
	p->pprev = head;
	*head = p;
	p->hnext = h->promises;
	if (h->promises != NULL)
		h->promises->hpprev = &p->hnext;
	p->hpprev = &h->promises;
	h->promises = p;
	h->npromises++;
	return 0;
}

/* A path with "." or ".." components walks inodes its promise would
 * not cover. */
static int
cb_path_plain(const char *path)
{
	const char *s = path, *e;

	while (*s != '\0') {
		while (*s == '/')
			s++;
		for (e = s; *e != '\0' && *e != '/'; e++)
			;
		if ((e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s = e;
	}
	return 1;
}

/* STAT answered ino, reached through dir (NULL: the root): the promise
 * the request asked for with its token, if it may have one.  The term
 * in ms, 0 for none. */
uint32_t
mgr_cache_grant(uint64_t token, const char *path, const struct mgr_path *p)
{
	struct cb_holder *h;
	struct mgr_inode *d;
	int64_t expiry;

	if (token == 0 || cb_term <= 0 || (h = cb_holder_find(token)) == NULL ||
	    !cb_path_plain(path) || (p->special && p->ino->de != NULL))
		return 0;
	expiry = pvfs_mono_ms() + (int64_t)(cb_term * 1000);
	if (cb_promise_add(h, p->ino->ino, CB_ATTR, expiry) != 0)
		return 0;
	for (d = p->special ? NULL : p->dir; d != NULL;
	    d = d->de != NULL ? d->de->parent : NULL) {
		if (cb_promise_add(h, d->ino, CB_WALK, expiry) != 0) {
			/* A walk half promised: the client must not cache. */
			return 0;
		}
	}
	return (uint32_t)(cb_term * 1000);
}

/* ---- CALLBACK ---- */

int
mgr_cache_callback_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_callback_req *q = rq;
	struct pvfs_mgr_callback_rep *r = rp;
	struct cb_holder *h = c->cb_holder;

	if (q->token == 0) {
		if (h != NULL)
			return EINVAL; /* one holder per connection */
		if ((h = calloc(1, sizeof(*h))) == NULL)
			return ENOMEM;
		do {
			if (getrandom(&h->token, sizeof(h->token), 0) !=
			    sizeof(h->token))
				pvfs_fatal("getrandom: %s", strerror(errno));
		} while (h->token == 0 || cb_holder_find(h->token) != NULL);
		h->c = c;
		h->next = cb_holders[h->token & (CB_HOLDER_HASH - 1)];
		cb_holders[h->token & (CB_HOLDER_HASH - 1)] = h;
		cb_nholders++;
		c->cb_holder = h;
		r->token = h->token;
		r->term_ms = (uint32_t)(cb_term * 1000);
		return 0;
	}
	if (h == NULL || h->token != q->token || h->parked || q->ack > h->seq)
		return EINVAL;
	cb_waits_ack(h, q->ack, 0);
	if (h->seq > q->ack) {
		r->token = h->token;
		r->seq = h->seq;
		r->term_ms = (uint32_t)(cb_term * 1000);
		return 0;
	}
	h->parked = 1;
	h->reqid = mgr_op_reqid;
	return MGR_OP_LATER;
}

/* Connection c is going: as a holder, its promises and the waits on it
 * go; as a changer, its waits no longer hold a reply. */
void
mgr_cache_conn_gone(struct mgr_conn *c)
{
	struct cb_holder *h = c->cb_holder, **hp;
	size_t i;

	for (i = 0; i < cb_nwaits;) {
		if (cb_waits[i].gate == c)
			cb_waits[i] = cb_waits[--cb_nwaits];
		else
			i++;
	}
	if (h == NULL)
		return;
	cb_waits_ack(h, 0, 1);
	cb_promises_drop(h);
	for (hp = &cb_holders[h->token & (CB_HOLDER_HASH - 1)]; *hp != h;
	    hp = &(*hp)->next)
		;
	*hp = h->next;
	cb_nholders--;
	free(h);
	c->cb_holder = NULL;
}

void
mgr_cache_start(struct ev_loop *loop)
{
	(void)loop;
	ev_init(&cb_timer, cb_tick);
	cb_timer.repeat = CB_TICK;
}

void
mgr_cache_stop(void)
{
	ev_timer_stop(mgr.loop, &cb_timer);
	cb_timer_on = 0;
	free(cb_waits);
	cb_waits = NULL;
	cb_nwaits = cb_waits_cap = 0;
}
