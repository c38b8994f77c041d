/*
 * mgr-iods.c - the mgr's own connections to the iods of its table.
 *
 * At start and every PVFS_HELLO_INTERVAL seconds (default 3) the mgr
 * sends each iod an IOD_HELLO: the fsid and index it expects, and its
 * clock, under the shared key.  The reply carries the iod's label, its
 * clock and whether it verified the mac; the reply's own mac tells the
 * mgr whether the iod's key is its own.  Everything is non-blocking on
 * the mgr's loop (one connection per HELLO, a timeout on each, backoff
 * after failures): the mgr never waits for an iod.  The result is a
 * per-iod status that MGR_IODSTATUS returns (pvfs-ping prints it).  An
 * iod that answers again after a failure is reported to mgr-free.c, which
 * has stripes of freed files waiting for it.
 *
 * Mirrored files (mgr-resync.c): each HELLO grants the iod a mirror lease
 * of three intervals, valid only if the iod holds the stale set version
 * it names.  The changes since the version the iod last reported go
 * before the HELLO (IOD_STALE changes: the iod keeps its lease while it
 * takes them); an iod that answers with another version gets the changes
 * from the one it holds, or its whole set (IOD_STALE frames, checked in
 * the mgr's clock that the first HELLO gave it), and a second HELLO on
 * the same connection.  A change of a set asks for a HELLO at once
 * (mgr_iods_kick).  An exchange times out after 5 s without progress (a
 * whole set may take longer than that).
 */
#include <sys/socket.h>
#include <sys/random.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgr.h"

/* Seconds between HELLOs to a healthy iod: a HELLO renews the mirror
 * lease (three intervals), and a dirty report waits at most one lease,
 * well within a client's timeout (30 s by default). */
#define IODS_INTERVAL 3.0
/* A mirror lease lasts 3 intervals, and a dirty report for a copy whose
 * iod is cut off waits for it to run out: at 5 s that is 15 s (plus a
 * second of margin), well within a client's default 30 s timeout. */
#define IODS_INTERVAL_MAX 5.0
#define IODS_TIMEOUT 5.0       /* for connect + HELLO + reply */
#define IODS_BACKOFF_MIN 0.5
#define IODS_SKEW_WARN_MS 5000 /* log a clock skew above this */
#define IODS_REP_MAX 512       /* a HELLO reply body is ~120 bytes */

enum mgr_iod_step {
	MGR_IOD_IDLE,       /* no connection; the timer starts the next HELLO */
	MGR_IOD_CONNECTING, /* non-blocking connect in progress */
	MGR_IOD_EXCHANGE,   /* sending the HELLO, then reading the reply */
};

struct mgr_iod {
	uint32_t index;
	struct sockaddr_storage sa;
	socklen_t salen;          /* 0: the host did not resolve */
	int fd;
	ev_io io;
	ev_timer timer;           /* next HELLO, or the exchange's timeout */
	enum mgr_iod_step step;
	double backoff;           /* delay before the next try after a failure */
	struct pvfs_buf out;
	uint8_t in[PVFS_HDR_LEN + IODS_REP_MAX];
	size_t in_len;
	struct pvfs_iod_hello_req req;
	int64_t sent_ms;          /* monotonic, for the round trip */
	int64_t rtt_ns;
	struct pvfs_iodstat_wire st; /* what MGR_IODSTATUS reports */
	ev_tstamp heard_at;       /* loop time of the last answer, 0: never */
	int skew_warned;
	int set_sent;             /* this exchange's second HELLO */
	uint64_t held;            /* the set version its first reply named */
	uint32_t nstale;          /* IOD_STALE replies still to come */
	int kick;                 /* HELLO again as soon as this one ends */
};

static struct mgr_iod *iods;
static struct pvfs_iodstat_wire *iods_wire;
static struct ev_loop *iods_loop;
static double iods_interval = IODS_INTERVAL;
/* The label uuid each iod last answered with, kept in METADIR/iod-uuids
 * ("INDEX UUID" lines): a new one is a new data directory. */
static char (*iods_uuids)[PVFS_UUID_HEX + 1];

static void mgr_iods_io_cb(struct ev_loop *loop, ev_io *w, int revents);

static const char *
iods_state_name(uint32_t state)
{
	static const char *names[] = { "pending", "ok", "unreachable",
	    "key differs", "label mismatch", "protocol error" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

/* Resolve once, before the loop runs: getaddrinfo may block. */
static void
iods_resolve(struct mgr_iod *d, const struct pvfs_iod_addr *a)
{
	struct addrinfo hints, *res;
	char port[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", a->port);
	if ((rc = getaddrinfo(a->host, port, &hints, &res)) != 0) {
		snprintf(d->st.why, sizeof(d->st.why), "%.64s: %.60s", a->host,
		    gai_strerror(rc));
		d->st.state = PVFS_IODST_UNREACHABLE;
		pvfs_log_error("iod %u (%s:%u): %s", d->index, a->host, a->port,
		    d->st.why);
		return;
	}
	memcpy(&d->sa, res->ai_addr, res->ai_addrlen);
	d->salen = res->ai_addrlen;
	freeaddrinfo(res);
}

static void
iods_close(struct mgr_iod *d)
{
	if (d->fd != -1) {
		ev_io_stop(iods_loop, &d->io);
		close(d->fd);
		d->fd = -1;
	}
	pvfs_buf_reset(&d->out);
	d->in_len = 0;
	d->step = MGR_IOD_IDLE;
	d->set_sent = 0;
}

static void
iods_schedule(struct mgr_iod *d, double after)
{
	ev_timer_stop(iods_loop, &d->timer);
	ev_timer_set(&d->timer, after, 0.);
	ev_timer_start(iods_loop, &d->timer);
}

/* A status change is logged once; the same failure again stays quiet. */
static void
iods_set_state(struct mgr_iod *d, uint32_t state, const char *why)
{
	int changed = d->st.state != state || strcmp(d->st.why, why) != 0;

	if (state == PVFS_IODST_OK && d->st.state != PVFS_IODST_OK)
		mgr_free_iod_up(d->index); /* stripes to free wait for it */
	d->st.state = state;
	snprintf(d->st.why, sizeof(d->st.why), "%s", why);
	if (!changed)
		return;
	if (state == PVFS_IODST_OK)
		pvfs_log_info("iod %u (%s:%u): ok, label %016" PRIx64 "/%u uuid %s",
		    d->index, d->st.host, d->st.port, d->st.fsid,
		    d->st.label_index, d->st.uuid);
	else
		pvfs_log_error("iod %u (%s:%u): %s: %s", d->index, d->st.host,
		    d->st.port, iods_state_name(state), why);
}

static void
iods_fail(struct mgr_iod *d, uint32_t state, const char *why)
{
	iods_close(d);
	iods_set_state(d, state, why);
	iods_schedule(d, d->backoff);
	d->backoff = d->backoff * 2 > iods_interval ? iods_interval :
	    d->backoff * 2;
}

static void
iods_fail_errno(struct mgr_iod *d, const char *what, int err)
{
	char why[128];

	snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	iods_fail(d, PVFS_IODST_UNREACHABLE, why);
}

static void
iods_watch(struct mgr_iod *d, int events)
{
	ev_io_stop(iods_loop, &d->io);
	ev_io_set(&d->io, d->fd, events);
	ev_io_start(iods_loop, &d->io);
}

static void
iods_connect(struct mgr_iod *d)
{
	if (d->salen == 0)
		return; /* logged at start; nothing will change */
	d->fd = socket(d->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (d->fd == -1) {
		iods_fail_errno(d, "socket", errno);
		return;
	}
	if (connect(d->fd, (struct sockaddr *)&d->sa, d->salen) != 0 &&
	    errno != EINPROGRESS) {
		int err = errno;

		if (err == ECONNREFUSED)
			mgr_resync_iod_refused(d->index);
		iods_fail_errno(d, "connect", err);
		return;
	}
	d->step = MGR_IOD_CONNECTING;
	ev_io_init(&d->io, mgr_iods_io_cb, d->fd, EV_WRITE);
	d->io.data = d;
	ev_io_start(iods_loop, &d->io);
	iods_schedule(d, IODS_TIMEOUT);
}

static void
iods_hello_build(struct mgr_iod *d)
{
	struct pvfs_iod_hello_req *r = &d->req;

	memset(r, 0, sizeof(*r));
	r->fsid = mgr.fsid;
	r->index = d->index;
	r->mgr_ns = pvfs_now_ns();
	r->rtt_ns = d->rtt_ns;
	if (getrandom(&r->nonce, sizeof(r->nonce), 0) != sizeof(r->nonce))
		r->nonce = (uint64_t)r->mgr_ns ^ (uint64_t)pvfs_mono_ms();
	r->lease_ms = mgr_iods_lease_ms();
	r->stale_version = mgr_resync_version(d->index);
	pvfs_hello_req_mac(r, mgr.key, mgr.keylen, r->mac);
	pvfs_buf_reset(&d->out);
	/* The changes it lacks first; a whole set only once the first HELLO
	 * gave it the clock that checks the set's capability. */
	d->nstale = mgr_resync_encode_update(d->index, d->set_sent ? d->held :
	    mgr_resync_acked(d->index), d->set_sent, &d->out,
	    (uint32_t)r->nonce + 1);
	pvfs_frame_encode(&d->out, PVFS_IOD_HELLO, (uint32_t)r->nonce, 0, 0, r);
	d->sent_ms = pvfs_mono_ms();
}

/* The connect finished: its outcome, then the HELLO. */
static void
iods_connected(struct mgr_iod *d)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if (err != 0) {
		if (err == ECONNREFUSED) /* no process: none with a lease */
			mgr_resync_iod_refused(d->index);
		iods_fail_errno(d, "connect", err);
		return;
	}
	d->step = MGR_IOD_EXCHANGE;
	iods_hello_build(d);
	if (d->out.oom) {
		iods_fail(d, PVFS_IODST_UNREACHABLE, "out of memory");
		return;
	}
}

static void
iods_send(struct mgr_iod *d)
{
	ssize_t n = send(d->fd, d->out.data + d->out.off,
	    d->out.len - d->out.off, MSG_NOSIGNAL);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			iods_fail_errno(d, "send", errno);
		return;
	}
	d->out.off += (size_t)n;
	iods_schedule(d, IODS_TIMEOUT); /* progress */
	if (d->out.off == d->out.len)
		iods_watch(d, EV_READ);
}

static const char *
iods_uuids_path(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/iod-uuids", mgr.metadir);
	return path;
}

/* The uuids known; a damaged file stops the mgr (fail closed: a wiped
 * iod would serve its empty copies as fresh). */
static void
iods_uuids_load(void)
{
	char line[128], uuid[PVFS_UUID_HEX + 1];
	unsigned idx;
	FILE *f;

	if ((iods_uuids = calloc(mgr.niods + 1, sizeof(*iods_uuids))) == NULL)
		pvfs_fatal("out of memory");
	if ((f = fopen(iods_uuids_path(), "r")) == NULL) {
		if (errno != ENOENT)
			pvfs_fatal("%s: %s", iods_uuids_path(), strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[strspn(line, " \t\n")] == '\0')
			continue;
		if (sscanf(line, "%u %32[0-9a-f]", &idx, uuid) != 2 ||
		    strlen(uuid) != PVFS_UUID_HEX)
			pvfs_fatal("%s: damaged line: %s", iods_uuids_path(), line);
		if (idx < mgr.niods)
			memcpy(iods_uuids[idx], uuid, sizeof(uuid));
	}
	fclose(f);
}

static int
iods_uuids_save(void)
{
	char *text;
	size_t len = (size_t)mgr.niods * (PVFS_UUID_HEX + 16) + 1, n = 0;
	uint32_t i;
	int rc;

	if ((text = malloc(len)) == NULL)
		return -1;
	text[0] = '\0';
	for (i = 0; i < mgr.niods; i++)
		if (iods_uuids[i][0] != '\0')
			n += (size_t)snprintf(text + n, len - n, "%u %s\n", i,
			    iods_uuids[i]);
	rc = pvfs_write_file_atomic(iods_uuids_path(), text);
	free(text);
	return rc;
}

/* An iod that answers with another label uuid than before has a new data
 * directory (wiped, replaced): its copies are empty, so every mirrored
 * copy on it is marked stale as by pvfs-resync --rebuild (journaled)
 * before it can get a lease for them; the set it is sent next says so. */
static void
iods_check_uuid(struct mgr_iod *d)
{
	char *known = iods_uuids[d->index];

	if (strcmp(known, d->st.uuid) == 0)
		return;
	if (known[0] != '\0') {
		pvfs_log_warn("iod %u (%s:%u): a new data directory (uuid %s, "
		    "was %s): every mirrored copy on it is stale, as after "
		    "pvfs-resync --rebuild %u", d->index, d->st.host, d->st.port,
		    d->st.uuid, known, d->index);
		mgr_resync_rebuild_auto(d->index);
	}
	snprintf(known, PVFS_UUID_HEX + 1, "%s", d->st.uuid);
	if (iods_uuids_save() != 0)
		pvfs_log_error("%s: %s (a restarted mgr takes iod %u's data "
		    "directory for a new one again)", iods_uuids_path(),
		    strerror(errno), d->index);
}

/* The label and key verdicts of a decoded reply. */
static void
iods_judge(struct mgr_iod *d, const struct pvfs_iod_hello_rep *rep)
{
	uint8_t mac[PVFS_MAC_LEN];
	char why[160];
	int key_ok;

	pvfs_hello_rep_mac(rep, d->req.nonce, mgr.key, mgr.keylen, mac);
	key_ok = pvfs_memcmp_ct(mac, rep->mac, sizeof(mac)) == 0 &&
	    (rep->flags & PVFS_HELLO_KEY_OK);
	d->st.fsid = rep->fsid;
	d->st.label_index = rep->index;
	snprintf(d->st.uuid, sizeof(d->st.uuid), "%s", rep->uuid);
	if (!key_ok) {
		iods_set_state(d, PVFS_IODST_KEY, "the iod's key differs from "
		    "the mgr's (capabilities it gets will all be refused)");
		return;
	}
	if (!(rep->flags & PVFS_HELLO_LABEL_OK) || rep->fsid != mgr.fsid ||
	    rep->index != d->index) {
		snprintf(why, sizeof(why), "data directory labelled iod %u of "
		    "file system %016" PRIx64 " (uuid %s), expected iod %u of "
		    "%016" PRIx64 ": refused", rep->index, rep->fsid, rep->uuid,
		    d->index, mgr.fsid);
		iods_set_state(d, PVFS_IODST_LABEL, why);
		return;
	}
	iods_check_uuid(d);
	iods_set_state(d, PVFS_IODST_OK, "");
}

/* Skew = iod clock - mgr clock, the mgr's taken halfway through the
 * round trip. */
static void
iods_clock(struct mgr_iod *d, const struct pvfs_iod_hello_rep *rep)
{
	int64_t rtt_ms = pvfs_mono_ms() - d->sent_ms;
	int64_t mid_ns = d->req.mgr_ns + rtt_ms * 500000;
	int64_t skew_ms = (rep->iod_ns - mid_ns) / 1000000;
	int big = llabs(skew_ms) > IODS_SKEW_WARN_MS;

	d->rtt_ns = rtt_ms * 1000000;
	d->st.rtt_us = (uint32_t)(rtt_ms * 1000);
	d->st.skew_ms = skew_ms;
	if (big && !d->skew_warned)
		pvfs_log_warn("iod %u (%s:%u): clock %+.1f s from the mgr's; the iod "
		    "checks capabilities in the mgr's clock, but keep the "
		    "clocks in sync (NTP)", d->index, d->st.host, d->st.port,
		    (double)skew_ms / 1000);
	else if (!big && d->skew_warned)
		pvfs_log_info("iod %u (%s:%u): clock within %.1f s of the mgr's",
		    d->index, d->st.host, d->st.port, (double)skew_ms / 1000);
	d->skew_warned = big;
}

static void
iods_reply(struct mgr_iod *d, const struct pvfs_hdr *h)
{
	struct pvfs_iod_hello_rep rep;
	char why[96];

	if (d->nstale > 0 && h->op == PVFS_IOD_STALE &&
	    (h->flags & PVFS_HDR_REPLY)) {
		/* A first change refused (ESTALE: the iod holds another
		 * version; EACCES: a restarted iod without the clock yet) is
		 * news, not a failure: the HELLO's reply says what it holds. */
		if (h->status != 0 && (d->set_sent || (h->status != ESTALE &&
		    h->status != EACCES))) {
			snprintf(why, sizeof(why), "stale set refused: %s",
			    strerror(h->status));
			iods_fail(d, PVFS_IODST_PROTO, why);
			return;
		}
		d->nstale--;
		d->in_len = 0;
		iods_schedule(d, IODS_TIMEOUT); /* progress */
		return;
	}
	if (h->op != PVFS_IOD_HELLO || !(h->flags & PVFS_HDR_REPLY) ||
	    h->reqid != (uint32_t)d->req.nonce) {
		iods_fail(d, PVFS_IODST_PROTO, "a reply to something else");
		return;
	}
	if (h->status != 0) {
		snprintf(why, sizeof(why), "HELLO refused: %s (an older iod?)",
		    strerror(h->status));
		iods_fail(d, PVFS_IODST_PROTO, why);
		return;
	}
	memset(&rep, 0, sizeof(rep));
	if (pvfs_msg_decode(PVFS_IOD_HELLO, 1, d->in + PVFS_HDR_LEN,
	    h->body_len, &rep) != 0) {
		iods_fail(d, PVFS_IODST_PROTO, "malformed HELLO reply");
		return;
	}
	d->heard_at = ev_now(iods_loop);
	iods_clock(d, &rep);
	iods_judge(d, &rep);
	if (d->st.state == PVFS_IODST_OK && (rep.flags & PVFS_HELLO_UNCLEAN)) {
		/* before its set goes: the iod takes that set as the mark */
		pvfs_log_warn("iod %u (%s:%u): its host stopped uncleanly with "
		    "mirrored writes unsynced: every mirrored copy on it is "
		    "stale, as after pvfs-resync --rebuild %u", d->index,
		    d->st.host, d->st.port, d->index);
		mgr_resync_rebuild_auto(d->index);
	}
	if (d->st.state == PVFS_IODST_OK && !d->set_sent &&
	    rep.stale_version != mgr_resync_version(d->index)) {
		/* it has the mgr's clock now: its set, then the lease */
		d->set_sent = 1;
		d->held = rep.stale_version;
		d->in_len = 0;
		iods_hello_build(d);
		iods_watch(d, EV_WRITE);
		iods_schedule(d, IODS_TIMEOUT);
		return;
	}
	iods_close(d);
	d->backoff = IODS_BACKOFF_MIN;
	iods_schedule(d, d->kick ? 0. : iods_interval);
	d->kick = 0;
	if (d->st.state == PVFS_IODST_OK)
		mgr_resync_iod_acked(d->index, rep.stale_version);
}

/* Read the header, then the body; a whole reply ends the exchange. */
static void
iods_recv(struct mgr_iod *d)
{
	struct pvfs_hdr h;
	size_t want = PVFS_HDR_LEN;
	ssize_t n;

	if (d->in_len >= PVFS_HDR_LEN) {
		if (pvfs_hdr_decode(d->in, &h) != 0 ||
		    h.body_len > IODS_REP_MAX) {
			iods_fail(d, PVFS_IODST_PROTO, "bad reply header (another "
			    "protocol version?)");
			return;
		}
		want += h.body_len;
		if (d->in_len == want) {
			iods_reply(d, &h);
			return;
		}
	}
	n = recv(d->fd, d->in + d->in_len, want - d->in_len, 0);
	if (n == 0)
		iods_fail(d, PVFS_IODST_UNREACHABLE, "the iod closed the "
		    "connection (another protocol version?)");
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		iods_fail_errno(d, "recv", errno);
	else if (n > 0) {
		d->in_len += (size_t)n;
		if (d->in_len >= PVFS_HDR_LEN)
			iods_recv(d); /* at most twice more: header, body */
	}
}

static void
mgr_iods_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct mgr_iod *d = w->data;

	if (d->step == MGR_IOD_CONNECTING) {
		iods_connected(d);
		return;
	}
	if (revents & EV_WRITE)
		iods_send(d);
	else if (revents & EV_READ)
		iods_recv(d);
}

static void
mgr_iods_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct mgr_iod *d = w->data;

	if (d->step == MGR_IOD_IDLE)
		iods_connect(d);
	else
		iods_fail(d, PVFS_IODST_UNREACHABLE, "no progress within 5 s");
}

static double
iods_interval_env(void)
{
	const char *s = getenv("PVFS_HELLO_INTERVAL");
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return IODS_INTERVAL;
	v = strtod(s, &end);
	if (*end != '\0' || !(v >= 0.1 && v <= IODS_INTERVAL_MAX))
		pvfs_fatal("bad PVFS_HELLO_INTERVAL: %s (0.1 .. %g seconds: a "
		    "mirror lease is 3 of them, and must end well within a "
		    "client's timeout)", s, IODS_INTERVAL_MAX);
	return v;
}

void
mgr_iods_start(struct ev_loop *loop)
{
	uint32_t i;

	iods_loop = loop;
	iods_interval = iods_interval_env();
	iods_uuids_load();
	if ((iods = calloc(mgr.niods, sizeof(*iods))) == NULL ||
	    (iods_wire = calloc(mgr.niods, sizeof(*iods_wire))) == NULL)
		pvfs_fatal("out of memory");
	for (i = 0; i < mgr.niods; i++) {
		struct mgr_iod *d = &iods[i];

		d->index = i;
		d->fd = -1;
		d->backoff = IODS_BACKOFF_MIN;
		pvfs_buf_init(&d->out);
		d->st.index = i;
		snprintf(d->st.host, sizeof(d->st.host), "%s", mgr.iods[i].host);
		d->st.port = mgr.iods[i].port;
		iods_resolve(d, &mgr.iods[i]);
		ev_init(&d->timer, mgr_iods_timer_cb);
		d->timer.data = d;
		iods_schedule(d, 0.);
	}
}

void
mgr_iods_stop(void)
{
	uint32_t i;

	for (i = 0; iods != NULL && i < mgr.niods; i++) {
		iods_close(&iods[i]);
		ev_timer_stop(iods_loop, &iods[i].timer);
		pvfs_buf_free(&iods[i].out);
	}
	free(iods);
	free(iods_wire);
	free(iods_uuids);
	iods_uuids = NULL;
	iods = NULL;
	iods_wire = NULL;
}

int
mgr_iods_sockaddr(uint32_t index, struct sockaddr_storage *sa,
    socklen_t *len)
{
	if (iods == NULL || index >= mgr.niods || iods[index].salen == 0)
		return -1;
	memcpy(sa, &iods[index].sa, iods[index].salen);
	*len = iods[index].salen;
	return 0;
}

uint32_t
mgr_iods_lease_ms(void)
{
	return (uint32_t)(iods_interval * 3 * 1000);
}

/* A stale set changed: HELLO now, or right after the exchange under way. */
void
mgr_iods_kick(uint32_t index)
{
	struct mgr_iod *d;

	if (iods == NULL || index >= mgr.niods)
		return;
	d = &iods[index];
	if (d->step == MGR_IOD_IDLE)
		iods_schedule(d, 0.);
	else
		d->kick = 1;
}

/* When the last HELLO (and so the last lease) went out; 0: never. */
int64_t
mgr_iods_hello_sent_ms(uint32_t index)
{
	return iods != NULL && index < mgr.niods ? iods[index].sent_ms : 0;
}

int
mgr_iods_ok(uint32_t index)
{
	return iods != NULL && index < mgr.niods &&
	    iods[index].st.state == PVFS_IODST_OK;
}

int
mgr_iods_status(struct mgr_conn *c, void *req, void *rp)
{
	struct pvfs_mgr_iodstatus_rep *rep = rp;
	ev_tstamp now = ev_now(iods_loop);
	uint32_t i;

	for (i = 0; i < mgr.niods; i++) {
		iods_wire[i] = iods[i].st;
		iods_wire[i].age_s = iods[i].heard_at == 0 ? UINT32_MAX :
		    (uint32_t)(now - iods[i].heard_at);
	}
	rep->n = mgr.niods;
	rep->iods = iods_wire;
	return 0;
}
