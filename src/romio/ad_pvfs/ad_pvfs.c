/*
 * ad_pvfs.c - the slot table of the PVFS driver: the file system's own
 * routines where a descriptor or a file system property is involved, ROMIO's
 * generic ones (which reach the file only through this table) elsewhere.
 */
#include "ad_pvfs.h"
#include "adioi.h"

struct ADIOI_Fns_struct ADIO_PVFS_operations = {
    ADIOI_PVFS_Open,            /* Open */
    ADIOI_PVFS_OpenColl,        /* OpenColl: ROMIO's, then marks a synchronizing close */
    ADIOI_PVFS_ReadContig,      /* ReadContig */
    ADIOI_PVFS_WriteContig,     /* WriteContig */
    ADIOI_GEN_ReadStridedColl,  /* ReadStridedColl: two-phase */
    ADIOI_GEN_WriteStridedColl, /* WriteStridedColl: two-phase */
    ADIOI_GEN_SeekIndividual,   /* SeekIndividual */
    ADIOI_PVFS_Fcntl,           /* Fcntl */
    ADIOI_PVFS_SetInfo,         /* SetInfo */
    ADIOI_PVFS_ReadStrided,     /* ReadStrided: list I/O */
    ADIOI_PVFS_WriteStrided,    /* WriteStrided: list I/O */
    ADIOI_PVFS_Close,           /* Close */
    ADIOI_FAKE_IreadContig,     /* IreadContig */
    ADIOI_FAKE_IwriteContig,    /* IwriteContig */
    ADIOI_FAKE_IODone,          /* ReadDone */
    ADIOI_FAKE_IODone,          /* WriteDone */
    ADIOI_FAKE_IOComplete,      /* ReadComplete */
    ADIOI_FAKE_IOComplete,      /* WriteComplete */
    ADIOI_FAKE_IreadStrided,    /* IreadStrided */
    ADIOI_FAKE_IwriteStrided,   /* IwriteStrided */
    ADIOI_PVFS_Flush,           /* Flush */
    ADIOI_PVFS_Resize,          /* Resize */
    ADIOI_PVFS_Delete,          /* Delete */
    ADIOI_PVFS_Feature,         /* Feature */
    "PVFS: parallel virtual file system (libpvfs)",
    ADIOI_GEN_IreadStridedColl, /* IreadStridedColl */
    ADIOI_GEN_IwriteStridedColl,        /* IwriteStridedColl */
    ADIOI_PVFS_SetLock          /* SetLock */
};
