/*
 * ad_pvfs.h - ROMIO ADIO driver for PVFS ("pvfs:" paths) on libpvfs.
 *
 * fd->fd_sys holds a libpvfs descriptor: only pvfs_* calls may touch it, so
 * every slot that would reach it through a generic POSIX routine is ours.
 */
#ifndef AD_PVFS_H_INCLUDED
#define AD_PVFS_H_INCLUDED

#include "adio.h"
#include <pvfs.h>

void ADIOI_PVFS_Open(ADIO_File fd, int *error_code);
void ADIOI_PVFS_OpenColl(ADIO_File fd, int rank, int access_mode, int *error_code);
void ADIOI_PVFS_Close(ADIO_File fd, int *error_code);
void ADIOI_PVFS_ReadContig(ADIO_File fd, void *buf, int count,
                           MPI_Datatype datatype, int file_ptr_type,
                           ADIO_Offset offset, ADIO_Status * status, int *error_code);
void ADIOI_PVFS_WriteContig(ADIO_File fd, const void *buf, int count,
                            MPI_Datatype datatype, int file_ptr_type,
                            ADIO_Offset offset, ADIO_Status * status, int *error_code);
void ADIOI_PVFS_ReadStrided(ADIO_File fd, void *buf, int count,
                            MPI_Datatype datatype, int file_ptr_type,
                            ADIO_Offset offset, ADIO_Status * status, int *error_code);
void ADIOI_PVFS_WriteStrided(ADIO_File fd, const void *buf, int count,
                             MPI_Datatype datatype, int file_ptr_type,
                             ADIO_Offset offset, ADIO_Status * status, int *error_code);
void ADIOI_PVFS_Fcntl(ADIO_File fd, int flag, ADIO_Fcntl_t * fcntl_struct, int *error_code);
void ADIOI_PVFS_SetInfo(ADIO_File fd, MPI_Info users_info, int *error_code);
void ADIOI_PVFS_Flush(ADIO_File fd, int *error_code);
void ADIOI_PVFS_Resize(ADIO_File fd, ADIO_Offset size, int *error_code);
void ADIOI_PVFS_Delete(const char *filename, int *error_code);
int ADIOI_PVFS_Feature(ADIO_File fd, int flag);
char *ADIOI_PVFS_Libname(const char *name);
int ADIOI_PVFS_SetLock(ADIO_File fd, int cmd, int type, ADIO_Offset offset, int whence,
                       ADIO_Offset len);

#endif /* AD_PVFS_H_INCLUDED */
