/*
 * tools-copy.c - the copy engine of pvfs-cp and pvfs-mv.
 *
 * COPY_THREADS workers each own one COPY_BLOCK buffer and loop: take the
 * next block of the source, read it, write it.  So while one worker waits
 * on PVFS another reads the local disk (double buffering and more), and
 * several large PVFS requests are in flight at once, each spread over all
 * iods by the library.  A source that must be read in order (stdin, a pipe)
 * is read under the job lock; a destination that must be written in order
 * (stdout) is written in block order (each worker waits for its turn).
 * All-zero blocks are not written to a fresh regular destination (sparse
 * files stay sparse); the size is set at the end.  The byte count is
 * checked against the source's size and the destination's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

#define COPY_BLOCK (8u << 20)
#define COPY_THREADS 4
#define COPY_REDRAW_US 200000

struct copy_block {
	uint64_t seq, off;
	size_t len;
};

struct copy_job {
	const char *src, *dst;
	struct tool_fd in, out;
	int in_seq, out_seq;  /* must be read / written in order */
	int sparse;           /* zero blocks may be skipped */
	int64_t expect;       /* source size, -1 when unknown */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t next_seq, write_seq, next_off;
	int eof, failed;
	uint64_t written, skipped;
	/* progress bar */
	int progress;
	const char *name;
	int64_t start_us, drawn_us;
};

/* Called with the lock held: the first failure is the one reported. */
static void
copy_fail(struct copy_job *j, const char *path, int err, const char *msg)
{
	if (!j->failed) {
		if (msg != NULL)
			tool_errmsg(path, "%s", msg);
		else
			tool_err(path, err);
	}
	j->failed = 1;
	pthread_cond_broadcast(&j->turn);
}

static void
copy_fail_locked(struct copy_job *j, const char *path, int err, const char *msg)
{
	pthread_mutex_lock(&j->lock);
	copy_fail(j, path, err, msg);
	pthread_mutex_unlock(&j->lock);
}

/* Read up to n bytes in order, through short reads of pipes. */
static ssize_t
copy_read_full(struct tool_fd *f, char *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = tool_read(f, buf + got, n - got);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Hand out the next block; an in-order source is read here, under the
 * lock.  0 with *b set, or 1 when there is nothing more to do. */
static int
copy_take(struct copy_job *j, char *buf, struct copy_block *b)
{
	ssize_t n;
	int rc = 1;

	pthread_mutex_lock(&j->lock);
	if (j->failed || j->eof || (!j->in_seq && j->next_off >= (uint64_t)j->expect)) {
		j->eof = 1;
		goto out;
	}
	b->seq = j->next_seq++;
	b->off = j->next_off;
	if (j->in_seq) {
		if ((n = copy_read_full(&j->in, buf, COPY_BLOCK)) < 0) {
			copy_fail(j, j->src, errno, NULL);
			goto out;
		}
		j->eof = n < (ssize_t)COPY_BLOCK;
		b->len = (size_t)n;
	} else {
		b->len = (uint64_t)j->expect - b->off < COPY_BLOCK ?
		    (size_t)((uint64_t)j->expect - b->off) : COPY_BLOCK;
	}
	j->next_off += b->len;
	rc = 0;
out:
	pthread_mutex_unlock(&j->lock);
	return rc;
}

static int
copy_pread(struct copy_job *j, char *buf, const struct copy_block *b)
{
	size_t got = 0;
	ssize_t r;

	while (got < b->len) {
		r = tool_pread(&j->in, buf + got, b->len - got, (off_t)(b->off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			copy_fail_locked(j, j->src, errno, r == 0 ?
			    "short read: the file shrank while being copied" : NULL);
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static int
copy_is_zero(const char *buf, size_t n)
{
	static const char zero[64];

	if (n <= sizeof(zero))
		return memcmp(buf, zero, n) == 0;
	return memcmp(buf, zero, sizeof(zero)) == 0 &&
	    memcmp(buf, buf + sizeof(zero), n - sizeof(zero)) == 0;
}

/* Write a whole block: at its offset, or in order for a stream. */
static int
copy_write(struct copy_job *j, const char *buf, const struct copy_block *b)
{
	size_t put = 0;
	ssize_t w;

	while (put < b->len) {
		w = j->out_seq ? tool_write(&j->out, buf + put, b->len - put) :
		    tool_pwrite(&j->out, buf + put, b->len - put, (off_t)(b->off + put));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			copy_fail_locked(j, j->dst, errno, w == 0 ? "short write" : NULL);
			return -1;
		}
		put += (size_t)w;
	}
	return 0;
}

enum { COPY_RUNNING, COPY_DONE, COPY_CUT }; /* copy_draw's final */
static void copy_draw(struct copy_job *j, int final);

static void
copy_put(struct copy_job *j, const char *buf, const struct copy_block *b)
{
	int skip = j->sparse && copy_is_zero(buf, b->len), rc = 0;

	if (j->out_seq) {
		pthread_mutex_lock(&j->lock);
		while (j->write_seq != b->seq && !j->failed)
			pthread_cond_wait(&j->turn, &j->lock);
		rc = j->failed ? -1 : 0;
		pthread_mutex_unlock(&j->lock);
	}
	if (!skip && rc == 0)
		rc = copy_write(j, buf, b);
	pthread_mutex_lock(&j->lock);
	if (rc == 0 && skip)
		j->skipped += b->len;
	else if (rc == 0)
		j->written += b->len;
	j->write_seq++;
	pthread_cond_broadcast(&j->turn);
	if (j->progress && pvfs_mono_ns() / 1000 - j->drawn_us >= COPY_REDRAW_US)
		copy_draw(j, COPY_RUNNING);
	pthread_mutex_unlock(&j->lock);
}

static void *
copy_worker(void *arg)
{
	struct copy_job *j = arg;
	struct copy_block b;
	char *buf = malloc(COPY_BLOCK);

	if (buf == NULL) {
		copy_fail_locked(j, j->src, ENOMEM, NULL);
		return NULL;
	}
	while (copy_take(j, buf, &b) == 0) {
		if (!j->in_seq && copy_pread(j, buf, &b) != 0)
			break;
		copy_put(j, buf, &b);
	}
	free(buf);
	return NULL;
}

/* ---- progress bar ---- */

static int
copy_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col > 200 ? 200 : ws.ws_col;
	return 80;
}

static void
copy_eta(char *out, size_t len, double secs)
{
	long s = secs < 0 ? 0 : (long)(secs + 0.5);

	if (s >= 3600)
		snprintf(out, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, len, "%ld:%02ld", s / 60, s % 60);
}

/* name  42% [=======>        ]  1.2G  512M/s  ETA 0:03; the last line
 * says "in 0:07" when the copy is whole, "FAILED after 0:07" when not,
 * so that a copy cut short never ends on a line that reads as done. */
static void
copy_draw(struct copy_job *j, int final)
{
	uint64_t done = j->written + j->skipped;
	double el = (double)(pvfs_mono_ns() / 1000 - j->start_us) / 1e6, rate;
	char sz[32], rt[32], eta[64], bar[256];
	int w = copy_width(), bw, fill, pct;

	j->drawn_us = pvfs_mono_ns() / 1000;
	rate = el > 0 ? (double)done / el : 0;
	tool_human(done, sz, sizeof(sz));
	tool_human((uint64_t)rate, rt, sizeof(rt));
	if (j->expect < 0) {
		fprintf(stderr, "\r%-20.20s %7s %7s/s%s", j->name, sz, rt,
		    final == COPY_CUT ? " FAILED\n" : final ? "\n" : "");
		return;
	}
	pct = j->expect > 0 ? (int)(done * 100 / (uint64_t)j->expect) : 100;
	copy_eta(eta, sizeof(eta), final ? el : rate > 0 ?
	    (double)((uint64_t)j->expect - done) / rate : 0);
	bw = w - 66 < 10 ? 10 : w - 66;
	fill = bw * pct / 100;
	memset(bar, '=', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(bw - fill));
	if (fill < bw && fill > 0)
		bar[fill - 1] = '>';
	bar[bw] = '\0';
	fprintf(stderr, "\r%-20.20s %3d%% [%s] %7s %7s/s %s %s%s", j->name, pct,
	    bar, sz, rt, final == COPY_CUT ? "FAILED after" : final ? "in " :
	    "ETA", eta, final ? "\n" : "");
}

/* ---- one file ---- */

static int
copy_open_src(struct copy_job *j, struct stat *st)
{
	if (strcmp(j->src, "-") == 0) {
		j->in.fd = STDIN_FILENO;
		j->in.pvfs = 0;
		j->in_seq = 1;
		j->expect = -1;
		return 0;
	}
	if (tool_open(j->src, O_RDONLY, 0, NULL, 0, &j->in) != 0 ||
	    tool_fstat(&j->in, st) != 0) {
		tool_err(j->src, errno);
		if (j->in.fd >= 0)
			tool_close(&j->in);
		return -1;
	}
	if (S_ISDIR(st->st_mode)) {
		tool_errmsg(j->src, "%s", strerror(EISDIR));
		tool_close(&j->in);
		return -1;
	}
	j->in_seq = !S_ISREG(st->st_mode);
	j->expect = S_ISREG(st->st_mode) ? (int64_t)st->st_size : -1;
	return 0;
}

void
tool_copy_err(const char *pre, const char *path, const char *post, int err)
{
	const char *who = pvfs_error_detail();

	if (who != NULL && pvfs_error_detail_errno() == err)
		tool_errmsg(NULL, "%s '%s'%s: %s (%s)", pre, path, post,
		    strerror(err), who);
	else
		tool_errmsg(NULL, "%s '%s'%s: %s", pre, path, post, strerror(err));
}

/* "--pcount 1" into want and "pcount 3" into have when they differ. */
static void
copy_layout_diff(char *want, char *have, size_t len, const char *name,
    int32_t asked, uint32_t is)
{
	size_t wl = strlen(want), hl = strlen(have);

	if (asked < 0 || (uint32_t)asked == is)
		return;
	snprintf(want + wl, len - wl, "%s--%s %d", wl ? " " : "", name, asked);
	snprintf(have + hl, len - hl, "%s%s %u", hl ? ", " : "", name, is);
}

/* A PVFS file's layout is fixed when it is created: overwritten in place it
 * keeps its own, so layout options that ask for another are reported (the
 * copy is still made; the exit status becomes 1). */
static void
copy_layout_check(const char *dst, const struct tool_copy_opts *o)
{
	struct pvfs_attr_info a;
	char want[128] = "", have[128] = "";

	if (!o->have_dist || !tool_is_pvfs(dst) || pvfs_admin_attr(dst, &a) != 0)
		return;
	copy_layout_diff(want, have, sizeof(want), "base", o->dist.base, a.base);
	copy_layout_diff(want, have, sizeof(want), "pcount", o->dist.pcount,
	    a.pcount);
	copy_layout_diff(want, have, sizeof(want), "ssize", o->dist.ssize,
	    a.ssize);
	copy_layout_diff(want, have, sizeof(want), "mirror", o->copies > 0 ?
	    o->copies : -1, a.copies);
	if (want[0] != '\0')
		tool_errmsg(dst, "exists, so %s is not applied: a file's layout "
		    "is fixed when it is created (it keeps %s); -f recreates it",
		    want, have);
}

/* The destination is looked at first, as cp does, so that its errors
 * come in coreutils' words. */
static int
copy_open_dst(struct copy_job *j, const struct stat *sst,
    const struct tool_copy_opts *o)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC, exists, err;
	mode_t mode = sst != NULL ? sst->st_mode & 07777 : 0666;
	const struct pvfs_filestat *d = o->have_dist ? &o->dist : NULL;
	size_t len = strlen(j->dst);
	struct stat st;

	if (strcmp(j->dst, "-") == 0) {
		j->out.fd = STDOUT_FILENO;
		j->out.pvfs = 0;
		j->out_seq = 1;
		return 0;
	}
	if (!(exists = tool_stat(j->dst, &st) == 0) && errno != ENOENT) {
		tool_copy_err("cannot stat", j->dst, "", errno);
		return -1;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		tool_errmsg(NULL, "cannot overwrite directory '%s' with "
		    "non-directory", j->dst);
		return -1;
	}
	if (exists && o->force && tool_unlink(j->dst) == 0)
		exists = 0;
	if (exists && S_ISREG(st.st_mode))
		copy_layout_check(j->dst, o);
	if (tool_open(j->dst, flags, mode, d, o->copies, &j->out) != 0) {
		/* "dir/" that is not there: cp says ENOTDIR, not EISDIR */
		err = errno == EISDIR && len > 0 && j->dst[len - 1] == '/' ?
		    ENOTDIR : errno;
		if (exists)
			tool_copy_err("cannot open", j->dst, " for writing", err);
		else
			tool_copy_err("cannot create regular file", j->dst, "", err);
		return -1;
	}
	if (tool_fstat(&j->out, &st) == 0 && S_ISREG(st.st_mode))
		j->sparse = 1;
	else
		j->out_seq = 1;
	return 0;
}

static int
copy_same(const char *src, const char *dst)
{
	struct stat a, b;

	if (strcmp(src, "-") == 0 || strcmp(dst, "-") == 0)
		return 0;
	if (tool_stat(src, &a) != 0 || tool_stat(dst, &b) != 0)
		return 0;
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    tool_is_pvfs(src) != tool_is_pvfs(dst))
		return 0;
	tool_errmsg(NULL, "'%s' and '%s' are the same file", src, dst);
	return 1;
}

static void
copy_run(struct copy_job *j)
{
	pthread_t th[COPY_THREADS];
	int i, n = 0;

	j->start_us = j->drawn_us = pvfs_mono_ns() / 1000;
	for (i = 0; i < COPY_THREADS; i++)
		if (pthread_create(&th[n], NULL, copy_worker, j) == 0)
			n++;
	if (n == 0)
		copy_worker(j);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/* The bytes moved must be the source's size and the destination's. */
static int
copy_verify(struct copy_job *j)
{
	uint64_t total = j->written + j->skipped;
	struct stat st;

	if (j->skipped > 0 && tool_ftruncate(&j->out, (off_t)total) != 0) {
		tool_err(j->dst, errno);
		return -1;
	}
	if (total != j->next_off || (j->expect >= 0 && total != (uint64_t)j->expect)) {
		tool_errmsg(j->dst, "short copy: %llu of %lld bytes",
		    (unsigned long long)total, (long long)j->expect);
		return -1;
	}
	if (j->out_seq)
		return 0;
	if (tool_fstat(&j->out, &st) != 0) {
		tool_err(j->dst, errno);
		return -1;
	}
	if ((uint64_t)st.st_size != total) {
		tool_errmsg(j->dst, "short copy: destination holds %lld of %llu bytes",
		    (long long)st.st_size, (unsigned long long)total);
		return -1;
	}
	return 0;
}

static void
copy_preserve(const char *dst, const struct stat *st)
{
	/* Like cp -p: ownership is kept when we may; mode and times must. */
	if (tool_chown(dst, st->st_uid, st->st_gid) != 0 && errno != EPERM)
		tool_err(dst, errno);
	if (tool_chmod(dst, st->st_mode & 07777) != 0 ||
	    tool_utimes(dst, st) != 0)
		tool_err(dst, errno);
}

int
tool_copy_file(const char *src, const char *dst, const struct tool_copy_opts *o)
{
	struct copy_job j;
	struct stat sst;
	int rc = -1;
	char *name;

	if (copy_same(src, dst))
		return -1;
	memset(&j, 0, sizeof(j));
	j.src = src;
	j.dst = dst;
	j.in.fd = j.out.fd = -1;
	if (copy_open_src(&j, &sst) != 0)
		return -1;
	if (copy_open_dst(&j, j.expect >= 0 ? &sst : NULL, o) != 0) {
		if (j.in.fd != STDIN_FILENO)
			tool_close(&j.in);
		return -1;
	}
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.turn, NULL);
	name = tool_base(strcmp(src, "-") == 0 ? "stdin" : src);
	j.name = name;
	j.progress = o->progress;
	copy_run(&j);
	if (!j.failed && copy_verify(&j) == 0)
		rc = 0;
	if (j.progress)
		copy_draw(&j, rc == 0 ? COPY_DONE : COPY_CUT);
	if (j.in.fd != STDIN_FILENO)
		tool_close(&j.in);
	if (j.out.fd != STDOUT_FILENO && tool_close(&j.out) != 0 && rc == 0) {
		tool_err(dst, errno);
		rc = -1;
	}
	if (rc == 0 && o->preserve && j.expect >= 0 && j.out.fd != STDOUT_FILENO)
		copy_preserve(dst, &sst);
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.turn);
	free(name);
	return rc;
}

int
tool_copy_each(int argc, char **argv, int first, int dash,
    int (*fn)(const char *src, const char *dst))
{
	struct stat st;
	const char *dst = argv[argc - 1];
	char *base, *d;
	int i, into, err = ENOTDIR;

	tool_operands(argc, argv, first);
	if (dash && strcmp(dst, "-") == 0)
		into = 0;
	else if (tool_stat(dst, &st) != 0) {
		into = 0;
		err = errno;
	} else
		into = S_ISDIR(st.st_mode);
	if (argc - first > 2 && !into) {
		/* coreutils 9: "target 'x': Not a directory" */
		tool_errmsg(NULL, "target '%s': %s", dst, strerror(err));
		return TOOL_EXIT_FAIL;
	}
	for (i = first; i < argc - 1; i++) {
		if (!into) {
			fn(argv[i], dst);
			continue;
		}
		base = tool_base(dash && strcmp(argv[i], "-") == 0 ?
		    "stdin" : argv[i]);
		d = tool_join(dst, base);
		fn(argv[i], d);
		free(base);
		free(d);
	}
	return tool_status;
}
