/*
 * fuse-loop.c - mount and run the session: fuse_main's steps, with one
 * addition, an I/O shim on /dev/fuse that adds FUSE_DIRECT_IO_ALLOW_MMAP
 * to the kernel's INIT reply (doc/fuse.md, "Data path").
 *
 * Files open in direct I/O mode (FOPEN_DIRECT_IO) move each read and write
 * straight between the program's memory and ours, one copy fewer than
 * through the page cache; but without that flag the kernel refuses a
 * shared mmap of them (ENODEV).  Linux has it since 6.6 (protocol 7.39);
 * libfuse 3.14 cannot ask for it (its capability word is 32 bits and it
 * knows only its own flags), so the shim sets the bit in the reply when
 * the kernel offered it, and fz_dio() says whether it did: files open in
 * direct I/O mode only then.
 */
#include "config.h"

#include <limits.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pvfs-fuse.h"
#include <fuse_lowlevel.h>

/* Protocol 7.39; linux/fuse.h of Debian 12 is 7.38. */
#define FZ_DIRECT_IO_ALLOW_MMAP (1ULL << 36)

static _Atomic uint64_t fz_init_unique; /* the INIT request's, 0: none yet */
static _Atomic int fz_kernel_mmap;       /* the kernel offered the flag */
static _Atomic int fz_mmap_sent;         /* ...and our reply carried it */

static ssize_t
fz_io_read(int fd, void *buf, size_t len, void *ud)
{
	const struct fuse_in_header *ih = buf;
	const struct fuse_init_in *ii = (const void *)(ih + 1);
	ssize_t n = read(fd, buf, len);
	uint64_t fl;

	(void)ud;
	if (n < (ssize_t)(sizeof(*ih) + sizeof(*ii)) ||
	    ih->opcode != FUSE_INIT || atomic_load(&fz_init_unique) != 0)
		return n;
	fl = ii->flags;
	if (fl & FUSE_INIT_EXT)
		fl |= (uint64_t)ii->flags2 << 32;
	atomic_store(&fz_kernel_mmap, (fl & FZ_DIRECT_IO_ALLOW_MMAP) != 0);
	atomic_store(&fz_init_unique, ih->unique);
	return n;
}

/* The INIT reply is the out header in iov[0] and fuse_init_out in iov[1]
 * (libfuse's send_reply_ok); a copy of it gets the flag. */
static ssize_t
fz_io_writev(int fd, struct iovec *iov, int count, void *ud)
{
	const struct fuse_out_header *oh = iov[0].iov_base;
	struct fuse_init_out io;
	struct iovec v[2];
	ssize_t n;

	(void)ud;
	if (count != 2 || iov[0].iov_len != sizeof(*oh) || oh->error != 0 ||
	    oh->unique == 0 || oh->unique != atomic_load(&fz_init_unique) ||
	    iov[1].iov_len != sizeof(io) || !atomic_load(&fz_kernel_mmap) ||
	    !fz.direct)
		return writev(fd, iov, count);
	memcpy(&io, iov[1].iov_base, sizeof(io));
	io.flags |= FUSE_INIT_EXT;
	io.flags2 |= (uint32_t)(FZ_DIRECT_IO_ALLOW_MMAP >> 32);
	v[0] = iov[0];
	v[1].iov_base = &io;
	v[1].iov_len = sizeof(io);
	n = writev(fd, v, 2);
	if (n == (ssize_t)(sizeof(*oh) + sizeof(io)))
		atomic_store(&fz_mmap_sent, 1);
	return n;
}

int
fz_dio(void)
{
	return fz.direct && atomic_load(&fz_mmap_sent);
}

/* fuse_main (libfuse 3.14's fuse_main_real), with the shim installed
 * between the mount and the loop. */
int
fz_main(struct fuse_args *args)
{
	static const struct fuse_custom_io io = {
		.read = fz_io_read,
		.writev = fz_io_writev,
	};
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *lc;
	struct fuse_session *se;
	struct fuse *f;
	int rc = 1;

	if (fuse_parse_cmdline(args, &opts) != 0)
		return 1;
	if (opts.mountpoint == NULL) {
		fprintf(stderr, "pvfs-fuse: no mount point given\n");
		return 2;
	}
	if ((f = fuse_new(args, &fz_ops, sizeof(fz_ops), NULL)) == NULL)
		goto out;
	if (fuse_mount(f, opts.mountpoint) != 0)
		goto out_destroy;
	se = fuse_get_session(f);
	/* The mounted /dev/fuse descriptor, now read and written through
	 * the shim (clone_fd would open others, which the shim also gets). */
	if (fuse_session_custom_io(se, &io, fuse_session_fd(se)) != 0)
		goto out_unmount;
	if (fuse_daemonize(opts.foreground) != 0 ||
	    fuse_set_signal_handlers(se) != 0)
		goto out_unmount;
	if (opts.singlethread) {
		rc = fuse_loop(f) != 0;
	} else if ((lc = fuse_loop_cfg_create()) != NULL) {
		fuse_loop_cfg_set_clone_fd(lc, (unsigned)opts.clone_fd);
		/* UINT_MAX: not given (fuse_main would pass it on, and
		 * libfuse complain of it) */
		if (opts.max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(lc, opts.max_idle_threads);
		fuse_loop_cfg_set_max_threads(lc, opts.max_threads);
		rc = fuse_loop_mt(f, lc) != 0;
		fuse_loop_cfg_destroy(lc);
	}
	fuse_remove_signal_handlers(se);
out_unmount:
	fuse_unmount(f);
out_destroy:
	fuse_destroy(f);
out:
	free(opts.mountpoint);
	return rc;
}
