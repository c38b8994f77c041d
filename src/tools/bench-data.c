/*
 * bench-data.c - the PVFS paper's concurrent test: every client writes,
 * then reads back, its own contiguous region of one shared file, in
 * requests of one block, with a barrier before each phase.  The time of a
 * phase runs from the first client's start to the last client's end, so
 * the aggregate is what the whole group achieved.  Opening and closing the
 * file are outside the timed span; the fsync (with --fsync) is inside, and
 * so is the close of a --buffered file (it writes what is buffered).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvfs.h"
#include "bench.h"

#define DATA_SLOTS (2 * BENCH_RUNS)

static int
data_runs(const struct bench_data_opts *o)
{
	return o->runs > 0 && o->runs <= BENCH_RUNS ? o->runs : BENCH_RUNS;
}

static const struct bench_fs *
data_fs(const struct bench_data_opts *o)
{
	return o->local ? &bench_fs_local : &bench_fs_pvfs;
}

static int
data_full_io(const struct bench_fs *fs, int fd, int wr, void *buf, size_t n,
    off_t off)
{
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		if (wr)
			r = fs->pwrite(fd, (char *)buf + done, n - done, off + (off_t)done);
		else
			r = fs->pread(fd, (char *)buf + done, n - done, off + (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;  /* a short read: the file lost bytes */
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Stamp each block with where it belongs: cheap, and a misplaced block
 * shows with --verify.  With --verify the whole block is a pattern. */
static void
data_prepare(const struct bench_data_opts *o, void *buf, size_t n,
    uint64_t off)
{
	if (o->verify)
		bench_fill(buf, n, 1, off);
	else if (n >= sizeof(off))
		memcpy(buf, &off, sizeof(off));
}

static int
data_check(const struct bench_data_opts *o, const void *buf, void *want,
    size_t n, uint64_t off)
{
	if (!o->verify)
		return 0;
	bench_fill(want, n, 1, off);
	if (memcmp(buf, want, n) != 0) {
		bench_err("%s: wrong data in %zu bytes at offset %llu", o->path, n,
		    (unsigned long long)off);
		return -1;
	}
	return 0;
}

/* Write back what earlier runs left dirty on the iods' file system, so
 * that a run does not pay for its predecessor's writeback. */
void
bench_flush(const char *path)
{
	int fd;

	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	syncfs(fd);
	close(fd);
}

/* One phase of one rank: open, meet the others, then the timed part. */
static int
data_phase(const struct bench_data_opts *o, const struct bench_fs *fs,
    struct bench_group *g, int wr, char *buf, char *want,
    struct bench_span *sp)
{
	uint64_t base = (uint64_t)bench_group_rank(g) * o->size, off;
	int fd, rc = 0;

	if (wr && bench_group_rank(g) == 0)
		bench_flush(o->flush_fs);
	fd = fs->open(o->path, (wr ? O_WRONLY : O_RDONLY) |
	    (o->buffered && !o->local ? PVFS_O_BUFFERED : 0), 0, NULL);
	if (fd < 0)
		bench_err("%s: open: %s", o->path, strerror(errno));
	if (bench_group_barrier(g) != 0 || fd < 0) {
		if (fd >= 0)
			fs->close(fd);
		return -1;
	}
	sp->start_ns = pvfs_mono_ns();
	for (off = 0; off < o->size && rc == 0; off += o->block) {
		size_t n = o->size - off < o->block ? o->size - off : o->block;

		if (wr)
			data_prepare(o, buf, n, base + off);
		rc = data_full_io(fs, fd, wr, buf, n, (off_t)(base + off));
		if (rc != 0)
			bench_err("%s: %s at %llu: %s", o->path, wr ? "write" : "read",
			    (unsigned long long)(base + off), strerror(errno));
		else if (!wr)
			rc = data_check(o, buf, want, n, base + off);
	}
	if (rc == 0 && wr && o->fsync && (rc = fs->fsync(fd)) != 0)
		bench_err("%s: fsync: %s", o->path, strerror(errno));
	if (!o->buffered)
		sp->end_ns = pvfs_mono_ns();
	sp->bytes = o->size;
	if (fs->close(fd) != 0 && rc == 0) {
		bench_err("%s: close: %s", o->path, strerror(errno));
		rc = -1;
	}
	if (o->buffered)
		sp->end_ns = pvfs_mono_ns();
	return rc;
}

static int
data_rank(const struct bench_data_opts *o, const struct bench_fs *fs,
    struct bench_group *g)
{
	char *buf = NULL, *want = NULL;
	struct bench_span sp;
	int run, wr, rc = 0;

	if (posix_memalign((void **)&buf, 4096, o->block) != 0 ||
	    (o->verify && posix_memalign((void **)&want, 4096, o->block) != 0)) {
		bench_err("out of memory for a %llu-byte block",
		    (unsigned long long)o->block);
		free(buf);
		return -1;
	}
	bench_fill(buf, o->block, 1, 0);
	for (run = 0; run < data_runs(o) && rc == 0; run++) {
		for (wr = !o->read_only; wr >= 0 && rc == 0; wr--) {
			memset(&sp, 0, sizeof(sp));
			rc = data_phase(o, fs, g, wr, buf, want, &sp);
			sp.failed = rc != 0;
			bench_group_put(g, 2 * run + !wr, &sp);
			if (bench_group_barrier(g) != 0)
				rc = -1;
		}
	}
	free(buf);
	free(want);
	return rc;
}

int
bench_data_create(const struct bench_data_opts *o, struct bench_data_result *r)
{
	const struct bench_fs *fs = data_fs(o);
	struct pvfs_filestat d = { o->base, o->pcount, o->ssize, 0, 0 };
	int fd;

	if (o->copies > 0 && !o->local)
		fd = pvfs_open_mirror(o->path, O_CREAT | O_TRUNC | O_WRONLY, 0644,
		    &d, o->copies);
	else
		fd = fs->open(o->path, O_CREAT | O_TRUNC | O_WRONLY, 0644, &d);
	if (fd < 0) {
		bench_err("%s: create: %s", o->path, strerror(errno));
		return -1;
	}
	if (fs->getmeta(fd, &d) == 0) {
		r->ssize = d.ssize;
		r->pcount = d.pcount;
		r->base = d.base;
	}
	fs->close(fd);
	return 0;
}

int
bench_data_remove(const struct bench_data_opts *o)
{
	return data_fs(o)->unlink(o->path);
}

static int
data_collect(const struct bench_data_opts *o, struct bench_group *g,
    struct bench_data_result *r)
{
	struct bench_span agg;
	int run;

	for (run = 0; run < data_runs(o); run++) {
		if (!o->read_only && bench_group_get(g, 2 * run, &agg) != 0)
			return -1;
		if (!o->read_only)
			r->write_mbps[run] = bench_mbps(agg.bytes,
			    agg.end_ns - agg.start_ns);
		if (bench_group_get(g, 2 * run + 1, &agg) != 0)
			return -1;
		r->read_mbps[run] = bench_mbps(agg.bytes, agg.end_ns - agg.start_ns);
	}
	return 0;
}

/* The file exists when the caller made it (o->exists); else it is made
 * here and removed at the end. */
int
bench_data(const struct bench_data_opts *o, struct bench_data_result *r)
{
	const struct bench_fs *fs = data_fs(o);
	struct bench_group *g;
	int rank, status = 1, rc, mine = !o->exists;

	memset(r->write_mbps, 0, sizeof(r->write_mbps));
	memset(r->read_mbps, 0, sizeof(r->read_mbps));
	if (o->sync_dir != NULL) {
		mine = mine && o->rank == 0;
		g = bench_group_dir(o->sync_dir, o->rank, o->clients, DATA_SLOTS);
		if (g == NULL || (mine && bench_data_create(o, r) != 0)) {
			bench_group_free(g);
			return -1;
		}
		rc = bench_group_barrier(g) == 0 && data_rank(o, fs, g) == 0 &&
		    (o->rank != 0 || data_collect(o, g, r) == 0) ? 0 : -1;
		if (mine)
			fs->unlink(o->path);
		bench_group_free(g);
		return rc;
	}
	if (mine && bench_data_create(o, r) != 0)
		return -1;
	if ((g = bench_group_fork(o->clients, DATA_SLOTS)) == NULL) {
		bench_err("cannot set up %d clients", o->clients);
		return -1;
	}
	if ((rank = bench_group_spawn(g, &status)) >= 0)
		_exit(data_rank(o, fs, g) == 0 ? 0 : 1);
	rc = status == 0 ? data_collect(o, g, r) : -1;
	if (mine)
		fs->unlink(o->path);
	bench_group_free(g);
	return rc;
}
