#!/bin/bash
# bench-romio.sh - make bench-romio: native libpvfs vs MPI-IO bandwidth
# (src/romio/bench-mpiio.c) on a fresh pvfs-local cluster in a temporary
# directory; figures in doc/benchmarks.md.
#
#   PVFS_BUILDDIR=/path/to/build tests/romio/bench-romio.sh
# BENCH_NPROCS (4), BENCH_IODS (4), BENCH_SIZE bytes per rank (64M),
# BENCH_BLOCK request size (1M); K, M, G suffixes allowed.
set -eu

: "${PVFS_BUILDDIR:?set PVFS_BUILDDIR to the build directory}"
PREFIX=${ROMIO_PREFIX:-$PVFS_BUILDDIR/romio/mpich}
BIN=${ROMIO_BIN:-$PVFS_BUILDDIR/romio/bin}
NPROCS=${BENCH_NPROCS:-4} IODS=${BENCH_IODS:-4}
bytes() { numfmt --from=iec "$1"; }
SIZE=$(bytes "${BENCH_SIZE:-64M}") BLOCK=$(bytes "${BENCH_BLOCK:-1M}")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-bench-romio.XXXXXX")
trap '"$PVFS_BUILDDIR/pvfs-local" stop "$tmp/fs" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$PVFS_BUILDDIR/pvfs-local" start "$tmp/fs" --iods "$IODS" >"$tmp/start.log" 2>&1 ||
	{ cat "$tmp/start.log"; exit 1; }
export PVFSTAB_FILE=$tmp/fs/pvfstab
echo "bench-romio: $IODS iods (pvfs-local, loopback), $(nproc) cores"
PVFS_MPIEXEC=$PREFIX/bin/mpiexec PVFS_BENCH_MPIIO=$BIN/bench-mpiio \
	"$PVFS_BUILDDIR/pvfs-bench" mpiio -c "$NPROCS" --size "$SIZE" --block "$BLOCK" \
	--path /pvfs/bench
