/*
 * ad_pvfs_rw.c - contiguous reads and writes: one pvfs_pread/pvfs_pwrite
 * (one request per iod) at an explicit offset, so the descriptor's own
 * offset never matters and fp_sys_posn stays unknown (-1).
 */
#include "ad_pvfs.h"
#include "adioi.h"

#include <errno.h>

static ADIO_Offset pvfs_contig_offset(ADIO_File fd, int file_ptr_type, ADIO_Offset offset)
{
    return file_ptr_type == ADIO_EXPLICIT_OFFSET ? offset : fd->fp_ind;
}

/* Move len bytes; a read stops early only at the end of file. */
static ssize_t pvfs_contig_io(int fds, char *buf, ADIO_Offset len, ADIO_Offset off, int is_write)
{
    ADIO_Offset done = 0;
    ssize_t n;

    while (done < len) {
        if (is_write)
            n = pvfs_pwrite(fds, buf + done, len - done, off + done);
        else
            n = pvfs_pread(fds, buf + done, len - done, off + done);
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1)
            return -1;
        if (n == 0)
            break;
        done += n;
    }
    return done;
}

static void pvfs_contig(ADIO_File fd, char *buf, int count, MPI_Datatype datatype,
                        int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                        int *error_code, int is_write)
{
    static char myname[] = "ADIOI_PVFS_CONTIG";
    MPI_Count size;
    ADIO_Offset off = pvfs_contig_offset(fd, file_ptr_type, offset);
    ssize_t n;

    MPI_Type_size_x(datatype, &size);
    n = pvfs_contig_io(fd->fd_sys, buf, (ADIO_Offset) count * size, off, is_write);
    fd->fp_sys_posn = -1;
    if (n == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        return;
    }
    if (file_ptr_type == ADIO_INDIVIDUAL)
        fd->fp_ind = off + n;
#ifdef HAVE_STATUS_SET_BYTES
    MPIR_Status_set_bytes(status, datatype, n);
#endif
    *error_code = MPI_SUCCESS;
}

void ADIOI_PVFS_ReadContig(ADIO_File fd, void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type,
                           ADIO_Offset offset, ADIO_Status * status, int *error_code)
{
    pvfs_contig(fd, buf, count, datatype, file_ptr_type, offset, status, error_code, 0);
}

void ADIOI_PVFS_WriteContig(ADIO_File fd, const void *buf, int count,
                            MPI_Datatype datatype, int file_ptr_type,
                            ADIO_Offset offset, ADIO_Status * status, int *error_code)
{
    /* pvfs_contig only reads from buf when is_write is set */
    pvfs_contig(fd, (char *) buf, count, datatype, file_ptr_type, offset, status,
                error_code, 1);
}
