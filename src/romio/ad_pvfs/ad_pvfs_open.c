/*
 * ad_pvfs_open.c - open and close a PVFS file; a created file takes its
 * distribution from the striping hints, and every open reports the file's
 * real distribution back through the hints (MPI_File_get_info).
 */
#include "ad_pvfs.h"
#include "adioi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int pvfs_open_flags(ADIO_File fd)
{
    int flags = 0;

    if (fd->access_mode & ADIO_CREATE)
        flags |= O_CREAT;
    if (fd->access_mode & ADIO_EXCL)
        flags |= O_EXCL;
    /* Two-phase writes read back the holes of a file domain on the
     * aggregators, so a writable file is always opened for both. */
    flags |= (fd->access_mode & ADIO_RDONLY) ? O_RDONLY : O_RDWR;
    return flags;
}

static int pvfs_open_perm(ADIO_File fd)
{
    mode_t old_mask;

    if (fd->perm != ADIO_PERM_NULL)
        return fd->perm;
    old_mask = umask(022);
    umask(old_mask);
    return old_mask ^ 0666;
}

/* A striping hint the user did not give takes the file's real value, so
 * MPI_File_get_info tells the distribution, and ROMIO aligns collective
 * file domains to real stripes (striping_unit).  A given hint stays as
 * given, like every other ROMIO hint. */
static void pvfs_report_stripe(ADIO_File fd, const char *key, int *hint, int real)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;

    ADIOI_Info_get(fd->info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (flag)
        return;
    *hint = real;
    snprintf(value, sizeof(value), "%d", real);
    ADIOI_Info_set(fd->info, key, value);
}

static void pvfs_report_stripes(ADIO_File fd)
{
    struct pvfs_filestat meta;

    if (pvfs_ioctl(fd->fd_sys, PVFS_GETMETA, &meta) == -1)
        return;
    pvfs_report_stripe(fd, "striping_factor", &fd->hints->striping_factor, meta.pcount);
    pvfs_report_stripe(fd, "striping_unit", &fd->hints->striping_unit, meta.ssize);
    pvfs_report_stripe(fd, "start_iodevice", &fd->hints->start_iodevice, meta.base);
}

/* ROMIO strips a name up to its first ':', so the URL "pvfs://host/path"
 * reaches the driver as "//host/path": libpvfs gets its scheme back.  The
 * caller frees the result. */
char *ADIOI_PVFS_Libname(const char *name)
{
    size_t len = strlen(name) + sizeof("pvfs:");
    char *s = ADIOI_Malloc(len);

    snprintf(s, len, "%s%s", strncmp(name, "//", 2) == 0 ? "pvfs:" : "", name);
    return s;
}

/* The pvfs_copies hint SetInfo kept, 0 if none. */
static int pvfs_hint_copies(ADIO_File fd)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;

    ADIOI_Info_get(fd->info, "pvfs_copies", MPI_MAX_INFO_VAL, value, &flag);
    return flag ? atoi(value) : 0;
}

/* The pvfs_buffered hint SetInfo kept: 1 for enable. */
static int pvfs_hint_buffered(ADIO_File fd)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;

    ADIOI_Info_get(fd->info, "pvfs_buffered", MPI_MAX_INFO_VAL, value, &flag);
    return flag && strcmp(value, "enable") == 0;
}

static int pvfs_open_file(ADIO_File fd, int flags, int perm, struct pvfs_filestat *meta)
{
    char *name = ADIOI_PVFS_Libname(fd->filename);
    int fds, saved, copies = pvfs_hint_copies(fd);

    if (pvfs_hint_buffered(fd))
        flags |= PVFS_O_BUFFERED;

    if ((flags & O_CREAT) && copies > 0)
        fds = pvfs_open_mirror(name, flags, perm, meta, copies);
    else if (flags & O_CREAT)
        fds = pvfs_open(name, flags | PVFS_O_META, perm, meta);
    else
        fds = pvfs_open(name, flags, perm);
    /* Write-only access to a file the user may not read: no read-back. */
    if (fds == -1 && errno == EACCES && (fd->access_mode & ADIO_WRONLY))
        fds = pvfs_open(name, (flags & ~O_RDWR) | O_WRONLY, perm);
    saved = errno;
    ADIOI_Free(name);
    errno = saved;
    return fds;
}

void ADIOI_PVFS_Open(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_OPEN";
    struct pvfs_filestat meta = { -1, 0, 0, 0, 0 };
    int flags = pvfs_open_flags(fd), perm = pvfs_open_perm(fd);

    if (fd->hints->striping_factor > 0)
        meta.pcount = fd->hints->striping_factor;
    if (fd->hints->striping_unit > 0)
        meta.ssize = fd->hints->striping_unit;
    if (fd->hints->start_iodevice >= 0)
        meta.base = fd->hints->start_iodevice;

    fd->fd_sys = pvfs_open_file(fd, flags, perm, &meta);
    fd->fd_direct = -1;
    fd->fp_sys_posn = -1;
    if (fd->fd_sys == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        return;
    }
    if ((fd->access_mode & ADIO_APPEND) &&
        (fd->fp_ind = pvfs_lseek(fd->fd_sys, 0, SEEK_END)) == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        pvfs_close(fd->fd_sys);
        fd->fd_sys = -1;
        return;
    }
    pvfs_report_stripes(fd);
    *error_code = MPI_SUCCESS;
}

/* Unlinking a PVFS file frees its data at once, even while other clients
 * have it open (no POSIX unlink-while-open), so no rank may leave
 * MPI_File_close while another still does I/O: a delete right after the
 * close would pull the data from under it.  ROMIO itself synchronizes the
 * close only on file systems with shared file pointers.  The barrier in
 * Close is safe only when every rank will call Close: the collective open
 * succeeded everywhere and was not deferred.  OpenColl decides, marking
 * fd->fs_ptr; the create step's close and the close of a partly failed
 * open come before or without the mark. */
static char pvfs_close_is_collective;

void ADIOI_PVFS_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code)
{
    int failed, any_failed;

    ADIOI_GEN_OpenColl(fd, rank, access_mode, error_code);
    failed = *error_code != MPI_SUCCESS;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, fd->comm);
    if (!any_failed && !fd->hints->deferred_open)
        fd->fs_ptr = &pvfs_close_is_collective;
}

void ADIOI_PVFS_Close(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_CLOSE";
    int err = 0, saved = 0;

    /* A buffered rank's writes go before the barrier: after it another
     * rank may delete the file. */
    if (pvfs_hint_buffered(fd) && (err = pvfs_fsync(fd->fd_sys)) == -1)
        saved = errno;
    if (fd->fs_ptr == &pvfs_close_is_collective) {
        fd->fs_ptr = NULL;
        MPI_Barrier(fd->comm);
    }
    if (pvfs_close(fd->fd_sys) == -1 && err == 0) {
        err = -1;
        saved = errno;
    }
    errno = saved;

    fd->fd_sys = -1;
    if (err == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        return;
    }
    *error_code = MPI_SUCCESS;
}
