/*
 * ad_pvfs_list.c - independent noncontiguous access on PVFS list I/O: the
 * file regions of the access (ROMIO's own offset/length list of the view)
 * and the memory regions of the buffer type go to pvfs_read_list64 /
 * pvfs_write_list64 together, so the whole access costs one request per
 * iod however many pieces it has (doc/noncontig.md).  With the
 * romio_pvfs_listio_* hint disabled, ROMIO's generic per-piece paths run
 * instead; both reach the file only through this driver's contiguous calls.
 */
#include "ad_pvfs.h"
#include "adioi.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

/* One side of a list access: count regions. */
struct pvfs_regions {
    int count;
    char **addr;                /* memory side */
    int64_t *off;               /* file side */
    int64_t *len;
};

static int pvfs_regions_alloc(struct pvfs_regions *r, ADIO_Offset count, int memory)
{
    if (count > INT_MAX)
        return -1;
    r->count = 0;
    r->addr = memory ? ADIOI_Malloc((count + 1) * sizeof(*r->addr)) : NULL;
    r->off = memory ? NULL : ADIOI_Malloc((count + 1) * sizeof(*r->off));
    r->len = ADIOI_Malloc((count + 1) * sizeof(*r->len));
    return 0;
}

static void pvfs_regions_free(struct pvfs_regions *r)
{
    if (r->addr)
        ADIOI_Free(r->addr);
    if (r->off)
        ADIOI_Free(r->off);
    ADIOI_Free(r->len);
}

/* The buffer's pieces, count copies of the flattened type extent apart,
 * with adjacent ones merged: a contiguous type of any count is one region,
 * not one per element.  With mem->addr NULL only counts the regions. */
static ADIO_Offset pvfs_mem_walk(char *buf, int count, ADIOI_Flatlist_node *flat,
                                 MPI_Aint extent, struct pvfs_regions *mem)
{
    ADIO_Offset n = 0;
    char *a, *end = NULL;
    MPI_Count i, b;

    for (i = 0; i < count; i++)
        for (b = 0; b < flat->count; b++) {
            if (flat->blocklens[b] == 0)
                continue;
            a = buf + i * extent + flat->indices[b];
            if (n > 0 && a == end) {
                if (mem->addr)
                    mem->len[n - 1] += flat->blocklens[b];
            } else {
                if (mem->addr) {
                    mem->addr[n] = a;
                    mem->len[n] = flat->blocklens[b];
                }
                n++;
            }
            end = a + flat->blocklens[b];
        }
    return n;
}

static int pvfs_mem_regions(char *buf, int count, MPI_Datatype datatype,
                            struct pvfs_regions *mem)
{
    ADIOI_Flatlist_node *flat = ADIOI_Flatten_and_find(datatype);
    MPI_Aint lb, extent;

    MPI_Type_get_extent(datatype, &lb, &extent);
    mem->addr = NULL;
    if (pvfs_regions_alloc(mem, pvfs_mem_walk(buf, count, flat, extent, mem), 1) == -1)
        return -1;
    mem->count = (int) pvfs_mem_walk(buf, count, flat, extent, mem);
    return 0;
}

/* The view's regions for this access; moves fp_ind past them when the
 * access uses the individual file pointer (ADIOI_Calc_my_off_len does). */
static int pvfs_file_regions(ADIO_File fd, int count, MPI_Datatype datatype,
                             int file_ptr_type, ADIO_Offset offset,
                             struct pvfs_regions *file)
{
    ADIO_Offset *offs, *lens, start, end;
    int n, i;

    ADIOI_Calc_my_off_len(fd, count, datatype, file_ptr_type, offset, &offs, &lens,
                          &start, &end, &n);
    if (pvfs_regions_alloc(file, n, 0) == -1) {
        ADIOI_Free(offs);
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (lens[i] == 0)
            continue;
        if (file->count > 0 &&
            file->off[file->count - 1] + file->len[file->count - 1] == offs[i]) {
            file->len[file->count - 1] += lens[i];
            continue;
        }
        file->off[file->count] = offs[i];
        file->len[file->count] = lens[i];
        file->count++;
    }
    ADIOI_Free(offs);
    return 0;
}

static void pvfs_list(ADIO_File fd, char *buf, int count, MPI_Datatype datatype,
                      int file_ptr_type, ADIO_Offset offset, ADIO_Status * status,
                      int *error_code, int is_write)
{
    static char myname[] = "ADIOI_PVFS_LIST";
    struct pvfs_regions mem, file;
    ssize_t n;

    if (pvfs_mem_regions(buf, count, datatype, &mem) == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, EOVERFLOW);
        return;
    }
    if (pvfs_file_regions(fd, count, datatype, file_ptr_type, offset, &file) == -1) {
        pvfs_regions_free(&mem);
        *error_code = ADIOI_Err_create_code(myname, fd->filename, EOVERFLOW);
        return;
    }
    if (is_write)
        n = pvfs_write_list64(fd->fd_sys, mem.count, mem.addr, mem.len,
                              file.count, file.off, file.len);
    else
        n = pvfs_read_list64(fd->fd_sys, mem.count, mem.addr, mem.len,
                             file.count, file.off, file.len);
    pvfs_regions_free(&mem);
    pvfs_regions_free(&file);
    fd->fp_sys_posn = -1;
    if (n == -1) {
        *error_code = ADIOI_Err_create_code(myname, fd->filename, errno);
        return;
    }
#ifdef HAVE_STATUS_SET_BYTES
    MPIR_Status_set_bytes(status, datatype, n);
#endif
    *error_code = MPI_SUCCESS;
}

void ADIOI_PVFS_ReadStrided(ADIO_File fd, void *buf, int count,
                            MPI_Datatype datatype, int file_ptr_type,
                            ADIO_Offset offset, ADIO_Status * status, int *error_code)
{
    if (fd->hints->fs_hints.pvfs.listio_read == ADIOI_HINT_DISABLE) {
        ADIOI_GEN_ReadStrided(fd, buf, count, datatype, file_ptr_type, offset, status,
                              error_code);
        return;
    }
    pvfs_list(fd, buf, count, datatype, file_ptr_type, offset, status, error_code, 0);
}

void ADIOI_PVFS_WriteStrided(ADIO_File fd, const void *buf, int count,
                             MPI_Datatype datatype, int file_ptr_type,
                             ADIO_Offset offset, ADIO_Status * status, int *error_code)
{
    /* Not ROMIO's data-sieving write: its read-modify-write needs locks. */
    if (fd->hints->fs_hints.pvfs.listio_write == ADIOI_HINT_DISABLE) {
        ADIOI_GEN_WriteStrided_naive(fd, buf, count, datatype, file_ptr_type, offset,
                                     status, error_code);
        return;
    }
    /* pvfs_list only reads from buf when is_write is set */
    pvfs_list(fd, (char *) buf, count, datatype, file_ptr_type, offset, status,
              error_code, 1);
}
