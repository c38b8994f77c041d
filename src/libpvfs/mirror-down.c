/*
 * mirror-down.c - iods lost to mirrored files' calls (mirror-down.h):
 * down until they answer a probe, which the calls move on without
 * waiting for it but 10 ms after a send (doc/design.md, "A stopped or
 * blackholed iod").
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>

#include "mirror-down.h"

#define MD_PROBE_EVERY_MS 500   /* between probes of a down iod */
#define MD_PROBE_WAIT_MS 2000   /* a probe's answer, at most */
#define MD_PROBE_CONNECT_MS 100 /* a probe's connect and send */
#define MD_PROBE_QUICK_MS 10    /* the answer waited for, after a send */

int
pvfs_mirror_down(struct client_fs *fs, uint32_t iod)
{
	return __atomic_load_n(&fs->iods[iod].down, __ATOMIC_RELAXED);
}

/* The iod is lost (err): down until it answers (pvfs_mirror_probe).  Silent
 * (timed out: stopped, blackholed) or not (refused, reset: trying it
 * costs nothing), as it was last. */
void
pvfs_mirror_lost(struct client_fs *fs, uint32_t iod, int err)
{
	struct conn_pool *p = &fs->iods[iod];
	int how = err == ETIMEDOUT ? PVFS_DOWN_SILENT : PVFS_DOWN;

	if (__atomic_exchange_n(&p->down, how, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&p->avoid_until, INT64_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&p->probe_at, pvfs_mono_ms() + MD_PROBE_EVERY_MS,
	    __ATOMIC_RELAXED);
}

void
pvfs_mirror_up(struct client_fs *fs, uint32_t iod)
{
	struct conn_pool *p = &fs->iods[iod];

	if (!__atomic_load_n(&p->down, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&p->avoid_until, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->down, 0, __ATOMIC_RELAXED);
}

/* Send the probe of down iod p: IOD_PING on a connection of its own. */
static void
md_probe_send(struct client_fs *fs, struct conn_pool *p, int64_t now)
{
	struct pvfs_none req = { 0 };
	struct pvfs_conn *c;
	struct pvfs_buf out;
	uint32_t reqid = pvfs_conn_next_reqid();
	int rc;

	p->probe_at = now + MD_PROBE_EVERY_MS;
	if (pvfs_conn_new(p, MD_PROBE_CONNECT_MS, &c) != 0) {
		/* Restarted on another port? */
		if (errno == ECONNREFUSED)
			pvfs_client_fs_reload_iods(fs);
		return;
	}
	pvfs_buf_init(&out);
	rc = pvfs_frame_encode(&out, PVFS_IOD_PING, reqid, 0, 0, &req);
	if (rc != 0 || pvfs_conn_send_all(c->fd, out.data, out.len,
	    now + MD_PROBE_CONNECT_MS) != 0)
		pvfs_conn_close(c);
	else {
		p->probe = c;
		p->probe_reqid = reqid;
		p->probe_at = now;
	}
	pvfs_buf_free(&out);
}

/* The probe's answer, without waiting for it: 1 it came (the iod is up),
 * 0 not yet, -1 none (the probe is dropped). */
static int
md_probe_reply(struct conn_pool *p, int64_t now)
{
	struct pollfd pfd = { .fd = p->probe->fd, .events = POLLIN };
	uint8_t hb[PVFS_HDR_LEN], body[256];
	struct pvfs_hdr h;
	int ok;

	if (poll(&pfd, 1, 0) == 0) {
		if (now - p->probe_at < MD_PROBE_WAIT_MS)
			return 0;
		ok = 0;
	} else
		ok = pvfs_conn_recv_all(p->probe->fd, hb, sizeof(hb),
		    now + MD_PROBE_CONNECT_MS) == 0 &&
		    pvfs_hdr_decode(hb, &h) == 0 &&
		    (h.flags & PVFS_HDR_REPLY) && h.op == PVFS_IOD_PING &&
		    h.reqid == p->probe_reqid && h.status == 0 &&
		    h.body_len <= sizeof(body) &&
		    pvfs_conn_recv_all(p->probe->fd, body, h.body_len,
		    now + MD_PROBE_CONNECT_MS) == 0;
	pvfs_conn_close(p->probe);
	p->probe = NULL;
	p->probe_at = now + (ok ? 0 : MD_PROBE_EVERY_MS);
	return ok ? 1 : -1;
}

/* Move the probes of down iods on, by one thread at a time per iod. */
void
pvfs_mirror_probe(struct client_fs *fs)
{
	struct conn_pool *p;
	int64_t now = 0;
	uint32_t i;
	int idle;

	for (i = 0; i < fs->niods; i++) {
		p = &fs->iods[i];
		if (!__atomic_load_n(&p->down, __ATOMIC_RELAXED))
			continue;
		idle = 0;
		if (!__atomic_compare_exchange_n(&p->probing, &idle, 1, 0,
		    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		now = now ? now : pvfs_mono_ms();
		if (p->probe != NULL) {
			if (md_probe_reply(p, now) == 1)
				pvfs_mirror_up(fs, i);
		} else if (now >= p->probe_at) {
			/* An iod that is back answers at once: this call may
			 * use it already. */
			md_probe_send(fs, p, now);
			if (p->probe != NULL && pvfs_conn_wait(p->probe->fd,
			    POLLIN, now + MD_PROBE_QUICK_MS) == 0 &&
			    md_probe_reply(p, now) == 1)
				pvfs_mirror_up(fs, i);
		}
		__atomic_store_n(&p->probing, 0, __ATOMIC_RELEASE);
	}
}
