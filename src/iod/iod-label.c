/*
 * iod-label.c - the data directory's identity, and the mgr's clock.
 *
 * A data directory is formatted once (pvfs-iod --format): DIR/pvfs-label
 * then names the file system (the mgr's fsid), the iod's index in the iod
 * table and a random unique id.  The iod refuses a directory without a
 * label (most often a disk that is not mounted, leaving the empty mount
 * point) or with another file system's or index's label, and holds an
 * flock on the label so that no second iod serves the directory.
 *
 * The mgr's IOD_HELLO checks the label again against the mgr's table and
 * carries the mgr's clock under the shared key: the iod keeps the offset
 * and checks capability expiry in the mgr's clock, so the two clocks need
 * not agree (doc/security.md).
 */
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

#define LABEL_NAME "pvfs-label"
#define LABEL_MAX 512
/* A HELLO whose clock is this much behind the mgr time already adopted
 * is refused: a replayed old HELLO must not revive expired capabilities. */
#define LABEL_CLOCK_BACK_NS (60LL * 1000000000)

static char *
label_path(const char *datadir)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", datadir, LABEL_NAME);
	return path;
}

static int
label_uuid(char out[PVFS_UUID_HEX + 1])
{
	uint8_t raw[PVFS_UUID_HEX / 2];
	size_t i;

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (i = 0; i < sizeof raw; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* pvfs-iod --format: write the label of a directory that has none. */
int
iod_label_format(const char *datadir, uint64_t fsid, uint32_t index,
    char **cause)
{
	char text[LABEL_MAX], uuid[PVFS_UUID_HEX + 1];
	const char *path = label_path(datadir);
	struct stat st;

	if (stat(datadir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		pvfs_set_cause(cause, "%s: not a directory", datadir);
		return -1;
	}
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		pvfs_set_cause(cause, "%s: already formatted (remove %s only if "
		    "this directory's stripes are to be thrown away)", datadir,
		    path);
		return -1;
	}
	if (label_uuid(uuid) != 0) {
		pvfs_set_cause(cause, "getrandom: %s", strerror(errno));
		return -1;
	}
	snprintf(text, sizeof text, "# pvfs-iod data directory label, written "
	    "by pvfs-iod --format; do not edit\nfsid %016" PRIx64 "\nindex %"
	    PRIu32 "\nuuid %s", fsid, index, uuid);
	if (pvfs_write_file_atomic(path, text) != 0) {
		pvfs_set_cause(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	printf("%s: formatted as iod %" PRIu32 " of file system %016" PRIx64
	    " (uuid %s)\n", datadir, index, fsid, uuid);
	return 0;
}

static int
label_parse(const char *text, struct iod_label *l)
{
	const char *s;

	memset(l, 0, sizeof *l);
	if ((s = strstr(text, "\nfsid ")) == NULL ||
	    sscanf(s, "\nfsid %" SCNx64, &l->fsid) != 1 || l->fsid == 0)
		return -1;
	if ((s = strstr(text, "\nindex ")) == NULL ||
	    sscanf(s, "\nindex %" SCNu32, &l->index) != 1 ||
	    l->index >= PVFS_MAX_IODS)
		return -1;
	if ((s = strstr(text, "\nuuid ")) == NULL ||
	    sscanf(s, "\nuuid %32[0-9a-f]", l->uuid) != 1 ||
	    strlen(l->uuid) != PVFS_UUID_HEX)
		return -1;
	return 0;
}

/* Why a directory has no label, for the message. */
static const char *
label_missing_hint(const char *datadir)
{
	DIR *d = opendir(datadir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return "";
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n == 0 ? "it is empty: is the disk that holds it mounted? " :
	    "it holds files but no label: the wrong directory, or one from "
	    "before labels (pvfs-local formats those in place)? ";
}

static int
label_read(const char *datadir, char **cause)
{
	const char *path = label_path(datadir);
	char *text;

	if ((iod.label_fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			pvfs_set_cause(cause, "%s: not a formatted iod data "
			    "directory (no %s); %sa new one is formatted with "
			    "pvfs-iod --format --fsid FSID --index N -d %s",
			    datadir, LABEL_NAME, label_missing_hint(datadir),
			    datadir);
		else
			pvfs_set_cause(cause, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(iod.label_fd, LOCK_EX | LOCK_NB) != 0) {
		pvfs_set_cause(cause, "%s: another pvfs-iod serves this "
		    "directory (%s is locked)", datadir, path);
		return -1;
	}
	if ((text = pvfs_read_small_file(path, LABEL_MAX, NULL)) == NULL ||
	    label_parse(text, &iod.label) != 0) {
		pvfs_set_cause(cause, "%s: not a pvfs-iod label", path);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* At start: the label must exist, be ours to lock, and match what the
 * command line expects (--fsid, --index), when it says. */
int
iod_label_open(const char *datadir, char **cause)
{
	const struct iod_label *l = &iod.label;

	if (label_read(datadir, cause) != 0)
		return -1;
	if ((iod.want_fsid != 0 && l->fsid != iod.want_fsid) ||
	    (iod.want_index >= 0 && l->index != (uint32_t)iod.want_index)) {
		pvfs_set_cause(cause, "%s is labelled as iod %" PRIu32 " of file "
		    "system %016" PRIx64 ", not iod %ld of %016" PRIx64 ": a "
		    "wrong -d, or another disk mounted here", datadir, l->index,
		    l->fsid, iod.want_index, iod.want_fsid ? iod.want_fsid :
		    l->fsid);
		return -1;
	}
	return 0;
}

/* The iod's own clock in ns; PVFS_TEST_CLOCK_OFFSET (seconds, tests
 * only) shifts it to simulate a skewed host. */
int64_t
iod_label_own_ns(void)
{
	return pvfs_now_ns() + iod.test_offset_ns;
}

/* Seconds in the mgr's clock, for capability expiry: the iod's clock
 * until the first HELLO, then corrected by the offset it carried. */
int64_t
iod_label_now(void)
{
	return (iod_label_own_ns() + iod.clock_offset_ns) / 1000000000;
}

/* 0, or the errno a data request gets: ENXIO while the mgr says this
 * directory is not the iod it expects, EACCES for another file system. */
int
iod_label_cap_check(const struct pvfs_cap *cap)
{
	if (iod.refused)
		return ENXIO;
	return cap->fsid == iod.label.fsid ? 0 : EACCES;
}

static void
label_clock(const struct pvfs_iod_hello_req *r)
{
	int64_t own = iod_label_own_ns();
	int64_t mgr_now = r->mgr_ns + r->rtt_ns / 2;

	if (iod.clock_synced &&
	    mgr_now < own + iod.clock_offset_ns - LABEL_CLOCK_BACK_NS) {
		pvfs_log_warn("HELLO with a mgr clock %" PRId64 " s behind the one "
		    "adopted: ignored (a replay, or the mgr's clock was set "
		    "back)", (own + iod.clock_offset_ns - mgr_now) / 1000000000);
		return;
	}
	if (!iod.clock_synced || llabs((mgr_now - own) -
	    iod.clock_offset_ns) > 1000000000LL)
		pvfs_log_info("mgr clock: %+.3f s from this host's", (double)(mgr_now -
		    own) / 1e9);
	iod.clock_offset_ns = mgr_now - own;
	iod.clock_synced = 1;
}

static void
label_verdict(const struct pvfs_iod_hello_req *r, uint32_t *flags)
{
	const struct iod_label *l = &iod.label;
	int ok = r->fsid == l->fsid && r->index == l->index;

	if (ok)
		*flags |= PVFS_HELLO_LABEL_OK;
	if (!ok && !iod.refused)
		pvfs_log_error("the mgr expects iod %" PRIu32 " of file system %016"
		    PRIx64 ", this directory is iod %" PRIu32 " of %016" PRIx64
		    ": serving no data until it matches", r->index, r->fsid,
		    l->index, l->fsid);
	else if (ok && iod.refused)
		pvfs_log_info("the mgr's table matches the label again: serving");
	iod.refused = !ok;
}

/* IOD_HELLO: verify the mgr's mac, adopt its clock, compare the label. */
int
iod_label_hello(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_hello_req *r = &req->hello;
	struct pvfs_iod_hello_rep *h = &rep->hello;
	uint8_t mac[PVFS_MAC_LEN];
	int64_t mgr_now;

	pvfs_hello_req_mac(r, iod.key, iod.keylen, mac);
	if (pvfs_memcmp_ct(mac, r->mac, sizeof mac) == 0) {
		h->flags |= PVFS_HELLO_KEY_OK;
		/* the mgr's clock as known before this HELLO, for its lease */
		mgr_now = iod.clock_synced ? iod_label_own_ns() +
		    iod.clock_offset_ns : r->mgr_ns;
		label_clock(r);
		label_verdict(r, &h->flags);
		if (!iod.refused)
			iod_mirror_hello(r, mgr_now, h);
	} else if (!iod.hello_key_warned) {
		pvfs_log_error("%s: HELLO with a mac this iod's key does not verify: "
		    "the mgr's key differs from %s", c->dc.name, iod.keyfile);
		iod.hello_key_warned = 1;
	}
	h->fsid = iod.label.fsid;
	h->index = iod.label.index;
	memcpy(h->uuid, iod.label.uuid, sizeof h->uuid);
	h->iod_ns = iod_label_own_ns();
	pvfs_hello_rep_mac(h, r->nonce, iod.key, iod.keylen, h->mac);
	return 0;
}
