/*
 * ad_pvfs_misc.c - the file-level slots: size, sync, resize, delete, the
 * feature set and locking.  PVFS has no byte-range locks and no shared file
 * pointer, so ROMIO is told so (Feature) and never asked to lock (SetLock).
 */
#include "ad_pvfs.h"
#include "adioi.h"

#include <errno.h>
#include <sys/stat.h>

static void pvfs_fsize(ADIO_File fd, ADIO_Fcntl_t * fcntl_struct, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_FCNTL";
    struct stat st;

    if (pvfs_fstat(fd->fd_sys, &st) == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        return;
    }
    fcntl_struct->fsize = st.st_size;
    *error_code = MPI_SUCCESS;
}

void ADIOI_PVFS_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t * fcntl_struct, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_FCNTL";

    switch (flag) {
        case ADIO_FCNTL_GET_FSIZE:
            pvfs_fsize(fd, fcntl_struct, error_code);
            break;
        case ADIO_FCNTL_SET_DISKSPACE:
            ADIOI_GEN_Prealloc(fd, fcntl_struct->diskspace, error_code);
            break;
        case ADIO_FCNTL_SET_ATOMICITY:
            /* Recorded for MPI_File_get_atomicity, but unsupported: atomic
             * mode would need byte-range locks, which PVFS does not have
             * (SetLock is a no-op), so it is no stronger than nonatomic. */
            fd->atomicity = fcntl_struct->atomicity ? 1 : 0;
            *error_code = MPI_SUCCESS;
            break;
        default:
            *error_code = MPIO_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                               myname, __LINE__, MPI_ERR_ARG,
                                               "**flag", "**flag %d", flag);
    }
}

void ADIOI_PVFS_Flush(ADIO_File fd, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_FLUSH";

    /* a deferred open leaves non-aggregators without a descriptor */
    if (fd->is_open && pvfs_fsync(fd->fd_sys) == -1)
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
    else
        *error_code = MPI_SUCCESS;
    /* romio_synchronized_flush: every rank, failed or not, as ROMIO's own */
    if (fd->hints->synchronizing_flush > 0)
        MPI_Barrier(fd->comm);
}

/* Called on every rank (SCALABLE_RESIZE): the first aggregator truncates
 * and tells the others how it went. */
void ADIOI_PVFS_Resize(ADIO_File fd, ADIO_Offset size, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_RESIZE";
    int rank, err = 0;

    MPI_Comm_rank(fd->comm, &rank);
    if (rank == fd->hints->ranklist[0] && pvfs_ftruncate(fd->fd_sys, size) == -1)
        err = errno;
    MPI_Bcast(&err, 1, MPI_INT, fd->hints->ranklist[0], fd->comm);
    if (err != 0) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, err);
        return;
    }
    *error_code = MPI_SUCCESS;
}

void ADIOI_PVFS_Delete(const char *filename, int *error_code)
{
    static char myname[] = "ADIOI_PVFS_DELETE";
    char *name = ADIOI_PVFS_Libname(filename);
    int err = pvfs_unlink(name) == -1 ? errno : 0;

    ADIOI_Free(name);
    *error_code = ADIOI_Err_create_code(myname, filename, err);
}

int ADIOI_PVFS_Feature(ADIO_File fd, int flag)
{
    (void) fd;
    switch (flag) {
        case ADIO_SCALABLE_RESIZE:
        case ADIO_TWO_PHASE:
            return 1;
        default:
            return 0;
    }
}

int ADIOI_PVFS_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                       ADIO_Offset len)
{
    (void) fd;
    (void) cmd;
    (void) type;
    (void) offset;
    (void) whence;
    (void) len;
    return MPI_SUCCESS;
}
