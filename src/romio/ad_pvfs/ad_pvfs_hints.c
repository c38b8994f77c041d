/*
 * ad_pvfs_hints.c - PVFS 1's hints: striping_factor (pcount), striping_unit
 * (ssize) and start_iodevice (base) choose a new file's distribution, and
 * must agree on every rank; pvfs_copies (mirrored files: copies of every
 * stripe on distinct iods; doc/romio.md) and pvfs_buffered
 * (PVFS_O_BUFFERED) are kept in fd->info for Open;
 * romio_pvfs_listio_read/write switch list I/O for independent
 * noncontiguous access.  The rest is ROMIO's.
 */
#include "ad_pvfs.h"
#include "adioi.h"
#include "hint_fns.h"
#include <stdlib.h>
#include <string.h>

/* The striping keys stay out of fd->info unless the user gives them: Open
 * fills in the others from the file's real distribution. */
static void pvfs_hint_defaults(ADIO_File fd)
{
    MPI_Info_create(&fd->info);
    fd->hints->striping_factor = 0;
    fd->hints->striping_unit = 0;
    fd->hints->start_iodevice = -1;
    fd->hints->fs_hints.pvfs.listio_read = ADIOI_HINT_ENABLE;
    fd->hints->fs_hints.pvfs.listio_write = ADIOI_HINT_ENABLE;
    ADIOI_Info_set(fd->info, "romio_pvfs_listio_read", "enable");
    ADIOI_Info_set(fd->info, "romio_pvfs_listio_write", "enable");
}

/* pvfs_copies, a number from 1 to 8, goes to fd->info as given: Open reads
 * it there (ROMIO's hint struct has no room for it).  Anything else is
 * left out, and the file gets the directory's default. */
static void pvfs_hint_copies(ADIO_File fd, MPI_Info users_info)
{
    char value[MPI_MAX_INFO_VAL + 1], *end;
    int flag;
    long n;

    ADIOI_Info_get(users_info, "pvfs_copies", MPI_MAX_INFO_VAL, value, &flag);
    if (!flag)
        return;
    n = strtol(value, &end, 10);
    if (end != value && *end == '\0' && n >= 1 && n <= 8)
        ADIOI_Info_set(fd->info, "pvfs_copies", value);
}

/* pvfs_buffered enable: each rank opens with PVFS_O_BUFFERED (doc/api.md,
 * Buffered files), kept in fd->info as pvfs_copies is.  MPI's default
 * (nonatomic) consistency asks no more: writes are visible to other
 * processes after MPI_File_sync or close. */
static void pvfs_hint_buffered(ADIO_File fd, MPI_Info users_info)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;

    ADIOI_Info_get(users_info, "pvfs_buffered", MPI_MAX_INFO_VAL, value, &flag);
    if (flag && (strcmp(value, "enable") == 0 || strcmp(value, "disable") == 0))
        ADIOI_Info_set(fd->info, "pvfs_buffered", value);
}

/* A value that differs from rank 0's is not taken (the rank keeps the
 * default) and yields MPI_ERR_NOT_SAME; ROMIO's open ignores that code, so
 * a file is created with rank 0's distribution.  ROMIO's own hints are set
 * in any case: the rest of ROMIO relies on them. */
void ADIOI_PVFS_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_SETINFO";
    int ours = MPI_SUCCESS;

    /* The distribution is fixed at creation: read these at open only. */
    if (fd->info == MPI_INFO_NULL) {
        pvfs_hint_defaults(fd);
        if (users_info != MPI_INFO_NULL) {
            ADIOI_Info_check_and_install_int(fd, users_info, "striping_factor",
                                             &fd->hints->striping_factor, myname, &ours);
            ADIOI_Info_check_and_install_int(fd, users_info, "striping_unit",
                                             &fd->hints->striping_unit, myname, &ours);
            ADIOI_Info_check_and_install_int(fd, users_info, "start_iodevice",
                                             &fd->hints->start_iodevice, myname, &ours);
            pvfs_hint_copies(fd, users_info);
            pvfs_hint_buffered(fd, users_info);
        }
    }
    if (users_info != MPI_INFO_NULL) {
        ADIOI_Info_check_and_install_enabled(fd, users_info, "romio_pvfs_listio_read",
                                             &fd->hints->fs_hints.pvfs.listio_read, myname,
                                             &ours);
        ADIOI_Info_check_and_install_enabled(fd, users_info, "romio_pvfs_listio_write",
                                             &fd->hints->fs_hints.pvfs.listio_write, myname,
                                             &ours);
    }
    ADIOI_GEN_SetInfo(fd, users_info, error_code);
    if (*error_code == MPI_SUCCESS)
        *error_code = ours;
}
