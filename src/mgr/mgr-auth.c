/*
 * mgr-auth.c - who a connection's requests come from (doc/security.md).
 *
 * Every request claims a struct pvfs_cred.  A connection through the Unix
 * socket is identified by the kernel (SO_PEERCRED, SO_PEERGROUPS); a TCP
 * connection by a MUNGE credential in an AUTH request; a TCP connection
 * without one is anonymous, and --anonymous says what that means.  An
 * identified root may claim any identity (it could setuid anyway); anyone
 * else must claim its own uid and gid and gets its authenticated groups.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MUNGE
#include <munge.h>
#endif

#include "mgr.h"

#define AUTH_PWBUF 16384
#define AUTH_ANON_LOG_MS 60000 /* between log lines about anonymous clients */

#ifdef HAVE_MUNGE
static munge_ctx_t auth_ctx;
#endif

int
mgr_auth_policy_parse(const char *s, int *policy)
{
	static const char *const names[] = {
		[MGR_ANON_NOBODY] = "nobody", [MGR_ANON_REFUSE] = "refuse",
		[MGR_ANON_TRUST] = "trust",
	};
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		if (strcmp(s, names[i]) == 0) {
			*policy = i;
			return 0;
		}
	}
	return -1;
}

void
mgr_auth_init(void)
{
	if (!mgr.munge)
		return;
#ifdef HAVE_MUNGE
	if ((auth_ctx = munge_ctx_create()) == NULL)
		pvfs_fatal("munge: cannot create a context");
	if (mgr.munge_sock != NULL &&
	    munge_ctx_set(auth_ctx, MUNGE_OPT_SOCKET, mgr.munge_sock) != EMUNGE_SUCCESS)
		pvfs_fatal("munge: %s", munge_ctx_strerror(auth_ctx));
	pvfs_log_info("accepting MUNGE credentials (munged at %s)",
	    mgr.munge_sock != NULL ? mgr.munge_sock : "the default socket");
#else
	pvfs_fatal("--munge: this pvfs-mgr was built without MUNGE");
#endif
}

void
mgr_auth_free(void)
{
#ifdef HAVE_MUNGE
	if (auth_ctx != NULL)
		munge_ctx_destroy(auth_ctx);
	auth_ctx = NULL;
#endif
}

/* The kernel's word, read once by the connection layer at accept. */
void
mgr_auth_accept(struct mgr_conn *c)
{
	if (!c->dc.peer.is_unix)
		return;
	if (!c->dc.peer.has_cred) {
		pvfs_log_warn("%s: unix peer without credentials", c->dc.name);
		return;
	}
	c->auth = MGR_AUTH_PEER;
	c->ident = c->dc.peer.cred;
}

static void
mgr_auth_nobody(struct pvfs_cred *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->uid = cr->gid = MGR_NOBODY;
}

void
mgr_auth_log_trust(const char *keyfile, int have_unix)
{
	pvfs_log_info("trust: capabilities signed with the key in %s; clients "
	    "on the Unix socket are who the kernel says%s; TCP clients with a "
	    "MUNGE credential are who it says%s; TCP clients without one %s "
	    "(doc/security.md)", keyfile, have_unix ? "" :
	    " (no Unix socket: -u not given)", mgr.munge ? "" :
	    " (not accepted: --munge not given)",
	    mgr.anonymous == MGR_ANON_REFUSE ? "are refused" :
	    mgr.anonymous == MGR_ANON_TRUST ? "are trusted to say who they are" :
	    "act as nobody (uid 65534)");
}

int
mgr_auth_kind(const struct mgr_conn *c)
{
	if (c->auth == MGR_AUTH_PEER)
		return PVFS_PING_AUTH_PEER;
	if (c->auth == MGR_AUTH_MUNGE)
		return PVFS_PING_AUTH_MUNGE;
	return mgr.anonymous == MGR_ANON_REFUSE ? PVFS_PING_AUTH_REFUSED :
	    mgr.anonymous == MGR_ANON_NOBODY ? PVFS_PING_AUTH_NOBODY :
	    PVFS_PING_AUTH_TRUSTED;
}

/* An unauthenticated client mapped to nobody or refused: said in the
 * log, at most once a minute with a count, so that a site sees why its
 * users get EACCES without a line per connection of a large job. */
static void
mgr_auth_log_anon(const struct mgr_conn *c, const struct pvfs_cred *claimed)
{
	static int64_t last_ms = -AUTH_ANON_LOG_MS;
	static unsigned more;
	int64_t now = pvfs_mono_ms();

	if (now - last_ms < AUTH_ANON_LOG_MS) {
		more++;
		return;
	}
	pvfs_log_info("%s: not authenticated (TCP without MUNGE): its requests "
	    "as uid %u are %s (--anonymous %s; doc/security.md); %u more "
	    "such requests in the last minute", c->dc.name, claimed->uid,
	    mgr.anonymous == MGR_ANON_REFUSE ? "refused" :
	    "served as nobody (uid 65534)",
	    mgr.anonymous == MGR_ANON_REFUSE ? "refuse" : "nobody", more);
	last_ms = now;
	more = 0;
}

int
mgr_auth_cred(const struct mgr_conn *c, struct pvfs_cred *cr)
{
	if (c->auth == MGR_AUTH_NONE) {
		if (mgr.anonymous != MGR_ANON_TRUST && cr->uid != MGR_NOBODY)
			mgr_auth_log_anon(c, cr);
		if (mgr.anonymous == MGR_ANON_REFUSE)
			return EACCES;
		if (mgr.anonymous == MGR_ANON_NOBODY)
			mgr_auth_nobody(cr);
		return 0;
	}
	if (c->ident.uid == 0)
		return 0;
	/* A mismatch is a confused or hostile client: say so rather than
	 * act for someone it did not mean. */
	if (cr->uid != c->ident.uid || cr->gid != c->ident.gid)
		return EPERM;
	*cr = c->ident;
	return 0;
}

#ifdef HAVE_MUNGE
/* The groups of uid as this host's NSS knows them, as munge-based
 * services do: the credential carries only uid and gid. */
static void
mgr_auth_groups(struct pvfs_cred *cr)
{
	char buf[AUTH_PWBUF];
	struct passwd pw, *res = NULL;
	gid_t groups[PVFS_MAX_GROUPS];
	int i, n = PVFS_MAX_GROUPS;

	cr->ngroups = 0;
	if (getpwuid_r(cr->uid, &pw, buf, sizeof(buf), &res) != 0 || res == NULL)
		return;
	/* -1 when there are more: the first PVFS_MAX_GROUPS are filled. */
	if (getgrouplist(pw.pw_name, cr->gid, groups, &n) == -1)
		n = PVFS_MAX_GROUPS;
	for (i = 0; i < n && i < PVFS_MAX_GROUPS; i++)
		cr->groups[i] = groups[i];
	cr->ngroups = (uint32_t)i;
}

/* munged's replay cache refuses a credential decoded before, and its TTL
 * one that is too old. */
static int
mgr_auth_munge(struct mgr_conn *c, const char *cred, struct pvfs_cred *id)
{
	munge_err_t e;
	uid_t uid;
	gid_t gid;

	e = munge_decode(cred, auth_ctx, NULL, NULL, &uid, &gid);
	if (e != EMUNGE_SUCCESS) {
		pvfs_log_info("%s: munge credential refused: %s", c->dc.name,
		    munge_strerror(e));
		return EACCES;
	}
	memset(id, 0, sizeof(*id));
	id->uid = (uint32_t)uid;
	id->gid = (uint32_t)gid;
	mgr_auth_groups(id);
	return 0;
}
#endif

int
mgr_auth_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_auth_req *q = rq;
	struct pvfs_mgr_auth_rep *rep = rp;
	struct pvfs_cred id;
	int rc = EOPNOTSUPP;

	memset(&id, 0, sizeof(id));
	/* Over Unix the kernel already said who it is.  Only as the first
	 * request: munge_decode blocks the loop, so a peer gets one try per
	 * connection, not one per frame it can send. */
	if (c->auth != MGR_AUTH_NONE || c->dc.nreq != 1)
		return EINVAL;
	if (q->method != PVFS_AUTH_MUNGE || !mgr.munge)
		return EOPNOTSUPP;
#ifdef HAVE_MUNGE
	rc = mgr_auth_munge(c, q->cred, &id);
#endif
	if (rc != 0)
		return rc;
	c->auth = MGR_AUTH_MUNGE;
	c->ident = id;
	rep->uid = id.uid;
	rep->gid = id.gid;
	pvfs_log_debug("%s: munge: uid %u gid %u", c->dc.name, id.uid, id.gid);
	return 0;
}
