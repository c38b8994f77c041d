/*
 * peer-limit.c - how many connections one peer may hold at a daemon, so
 * that no user takes every descriptor and locks the others out.
 *
 * A peer on a Unix socket is its uid (SO_PEERCRED, read once at accept by
 * pvfs_peer_identify); a TCP peer
 * is its address, an IPv6 one its /64 (one host holds a whole /64).  Root
 * and the daemon's own uid are not limited.  Each daemon takes a slot at
 * accept and gives it back at close; a connection over the limit is closed
 * at once by the caller.  Refusals are logged at most once per peer every
 * PEER_LOG_INTERVAL, with the count of those not yet reported, however
 * fast a peer keeps trying.
 */
#include <sys/random.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define PEER_LOG_INTERVAL_MS 60000
#define PEER_HASH_MIN 256

enum { PEER_UID = 1, PEER_IPV4, PEER_IPV6 };

struct peer_key {
	uint8_t kind;      /* PEER_* */
	uint8_t addr[16];  /* uid (host order), IPv4 or IPv6 /64; zero-padded */
};

struct pvfs_peer {
	struct peer_key key;
	unsigned open;        /* connections held now */
	uint64_t refused;     /* refusals not logged yet */
	int64_t logged_ms;    /* when a refusal was last logged, 0: never */
	struct pvfs_peer *next;
};

static struct {
	unsigned max;           /* per peer; 0: no limit */
	uid_t self;             /* the daemon's uid: not limited */
	uint8_t key[PVFS_SIPHASH_KEY_LEN];
	struct pvfs_peer **tab;
	size_t mask, count;
} pl;

unsigned
pvfs_peer_limit_default(long nofile)
{
	if (nofile <= 0)
		return PVFS_PEER_LIMIT_UNKNOWN;
	if (nofile / PVFS_PEER_LIMIT_SHARE < PVFS_PEER_LIMIT_MIN)
		return PVFS_PEER_LIMIT_MIN;
	return (unsigned)(nofile / PVFS_PEER_LIMIT_SHARE);
}

int
pvfs_peer_limit_parse(const char *s, unsigned *max)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v >= PVFS_PEER_LIMIT_AUTO)
		return -1;
	*max = (unsigned)v;
	return 0;
}

void
pvfs_peer_limit_init(unsigned max, long nofile)
{
	pl.max = max == PVFS_PEER_LIMIT_AUTO ? pvfs_peer_limit_default(nofile) :
	    max;
	if (pl.max == 0)
		pvfs_log_info("connections per peer: no limit");
	else
		pvfs_log_info("connections per peer (uid or address): at most %u, "
		    "of %ld descriptors", pl.max, nofile);
	pl.self = geteuid();
	if (getrandom(pl.key, sizeof(pl.key), 0) != (ssize_t)sizeof(pl.key))
		pvfs_fatal("getrandom: %s", strerror(errno));
	pl.mask = PEER_HASH_MIN - 1;
	if ((pl.tab = calloc(PEER_HASH_MIN, sizeof(*pl.tab))) == NULL)
		pvfs_fatal("out of memory");
}

int
pvfs_peer_identify(int fd, struct pvfs_peer_id *id)
{
	socklen_t sl = sizeof(id->addr);

	memset(id, 0, sizeof(*id));
	if (getsockname(fd, (struct sockaddr *)&id->addr, &sl) != 0)
		return -1;
	if (id->addr.ss_family == AF_UNIX) {
		memset(&id->addr, 0, sizeof(id->addr));
		id->is_unix = 1;
		id->has_cred = pvfs_unix_peer_cred(fd, &id->cred, &id->pid) == 0;
		return 0;
	}
	sl = sizeof(id->addr);
	memset(&id->addr, 0, sizeof(id->addr));
	return getpeername(fd, (struct sockaddr *)&id->addr, &sl);
}

void
pvfs_peer_id_name(const struct pvfs_peer_id *id, char *buf, size_t len)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&id->addr;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&id->addr;
	char host[INET6_ADDRSTRLEN] = "?";

	if (id->is_unix && id->has_cred)
		snprintf(buf, len, "unix:pid=%ld,uid=%u", (long)id->pid,
		    (unsigned)id->cred.uid);
	else if (id->is_unix)
		snprintf(buf, len, "unix:?");
	else if (id->addr.ss_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	} else if (id->addr.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else
		snprintf(buf, len, "?:0");
}

/* The key id's peer is counted under.  0, 1 if it is not limited, -1 if
 * unknown. */
static int
peer_key_of(const struct pvfs_peer_id *id, struct peer_key *k)
{
	const struct sockaddr_storage *ss = &id->addr;
	const uint8_t *a;

	memset(k, 0, sizeof(*k));
	if (id->is_unix) {
		if (!id->has_cred)
			return -1;
		if (id->cred.uid == 0 || id->cred.uid == pl.self)
			return 1;
		k->kind = PEER_UID;
		memcpy(k->addr, &id->cred.uid, sizeof(uint32_t));
		return 0;
	}
	if (ss->ss_family == AF_INET) {
		k->kind = PEER_IPV4;
		memcpy(k->addr, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		return 0;
	}
	if (ss->ss_family != AF_INET6)
		return -1;
	a = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
	if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a)) {
		k->kind = PEER_IPV4;
		memcpy(k->addr, a + 12, 4);
	} else {
		k->kind = PEER_IPV6;
		memcpy(k->addr, a, 8);
	}
	return 0;
}

/* "uid N", "a.b.c.d" or "x:y:z:w::/64", for logs. */
static void
peer_name(const struct peer_key *k, char *buf, size_t len)
{
	uint8_t a6[16];
	char host[INET6_ADDRSTRLEN];
	uint32_t uid;

	if (k->kind == PEER_UID) {
		memcpy(&uid, k->addr, sizeof(uid));
		snprintf(buf, len, "uid %u", (unsigned)uid);
	} else if (k->kind == PEER_IPV4) {
		inet_ntop(AF_INET, k->addr, host, sizeof(host));
		snprintf(buf, len, "%s", host);
	} else {
		memset(a6, 0, sizeof(a6));
		memcpy(a6, k->addr, 8);
		inet_ntop(AF_INET6, a6, host, sizeof(host));
		snprintf(buf, len, "%s/64", host);
	}
}

static struct pvfs_peer **
peer_bucket(const struct peer_key *k)
{
	return &pl.tab[pvfs_siphash(pl.key, k, sizeof(*k)) & pl.mask];
}

/* Double the table once it averages two peers a bucket. */
static void
peer_grow(void)
{
	size_t i, n = (pl.mask + 1) * 2;
	struct pvfs_peer **old = pl.tab, *p, *next;
	size_t omask = pl.mask;

	if (pl.count < 2 * (pl.mask + 1) || (pl.tab = calloc(n, sizeof(*pl.tab)))
	    == NULL) {
		pl.tab = old;
		return;
	}
	pl.mask = n - 1;
	for (i = 0; i <= omask; i++)
		for (p = old[i]; p != NULL; p = next) {
			next = p->next;
			p->next = *peer_bucket(&p->key);
			*peer_bucket(&p->key) = p;
		}
	free(old);
}

/* A peer that holds nothing and has no refusal to keep rate-limiting is
 * forgotten. */
static int
peer_idle(const struct pvfs_peer *p, int64_t now)
{
	return p->open == 0 && (p->logged_ms == 0 ||
	    now - p->logged_ms >= PEER_LOG_INTERVAL_MS);
}

/* The entry of k, made if missing; idle entries on its chain go. */
static struct pvfs_peer *
peer_get(const struct peer_key *k, int64_t now)
{
	struct pvfs_peer **pp = peer_bucket(k), *p;

	while ((p = *pp) != NULL) {
		if (memcmp(&p->key, k, sizeof(*k)) == 0)
			return p;
		if (peer_idle(p, now)) {
			*pp = p->next;
			free(p);
			pl.count--;
			continue;
		}
		pp = &p->next;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->key = *k;
	p->next = *peer_bucket(k);
	*peer_bucket(k) = p;
	pl.count++;
	peer_grow();
	return p;
}

static void
peer_refuse(struct pvfs_peer *p, int64_t now)
{
	char name[64];

	p->refused++;
	if (p->logged_ms != 0 && now - p->logged_ms < PEER_LOG_INTERVAL_MS)
		return;
	peer_name(&p->key, name, sizeof(name));
	if (p->logged_ms == 0)
		pvfs_log_warn("%s: refusing connections over the limit of %u per "
		    "peer", name, pl.max);
	else
		pvfs_log_warn("%s: refusing connections over the limit of %u per "
		    "peer (%llu refused since the last report)", name, pl.max,
		    (unsigned long long)p->refused);
	p->logged_ms = now;
	p->refused = 0;
}

int
pvfs_peer_limit_take(int fd, struct pvfs_peer **slot)
{
	struct pvfs_peer_id id;

	*slot = NULL;
	if (pl.max == 0 || pvfs_peer_identify(fd, &id) != 0)
		return 0;
	return pvfs_peer_limit_take_id(&id, slot);
}

int
pvfs_peer_limit_take_id(const struct pvfs_peer_id *id,
    struct pvfs_peer **slot)
{
	struct peer_key k;
	struct pvfs_peer *p;
	int64_t now = pvfs_mono_ms();

	*slot = NULL;
	/* Unknown: the peer is gone already, or we are out of memory; the
	 * connection fails on its own. */
	if (pl.max == 0 || peer_key_of(id, &k) != 0 ||
	    (p = peer_get(&k, now)) == NULL)
		return 0;
	if (p->open >= pl.max) {
		peer_refuse(p, now);
		return -1;
	}
	p->open++;
	*slot = p;
	return 0;
}

void
pvfs_peer_limit_release(struct pvfs_peer *p)
{
	if (p == NULL)
		return;
	p->open--;
	if (peer_idle(p, pvfs_mono_ms())) {
		struct pvfs_peer **pp = peer_bucket(&p->key);

		while (*pp != p)
			pp = &(*pp)->next;
		*pp = p->next;
		free(p);
		pl.count--;
	}
}
