## ROMIO's automake fragment for the PVFS driver (src/romio/ad_pvfs in the
## PVFS tree; copied to src/mpi/romio/adio/ad_pvfs by build-mpich.sh).

if BUILD_AD_PVFS

noinst_HEADERS += adio/ad_pvfs/ad_pvfs.h

romio_other_sources +=              \
    adio/ad_pvfs/ad_pvfs.c          \
    adio/ad_pvfs/ad_pvfs_open.c     \
    adio/ad_pvfs/ad_pvfs_hints.c    \
    adio/ad_pvfs/ad_pvfs_rw.c       \
    adio/ad_pvfs/ad_pvfs_list.c     \
    adio/ad_pvfs/ad_pvfs_misc.c

endif BUILD_AD_PVFS
