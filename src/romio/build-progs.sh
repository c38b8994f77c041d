#!/bin/bash
# build-progs.sh - compile the MPI programs that run on PVFS with the MPICH
# that build-mpich.sh installed: ROMIO's own tests (tests/romio/romio-tests.txt)
# from the MPICH source tree, the project's MPI-IO tests (src/romio/tests/)
# and the MPI-IO bench (src/romio/bench-mpiio.c).  A program is rebuilt only
# when its source is newer.
#
#   src/romio/build-progs.sh PREFIX WORKDIR LIBDIR OUTDIR
# (the build-mpich.sh arguments, LIBDIR holding libpvfs.so, and where the
# programs go)
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 PREFIX WORKDIR LIBDIR OUTDIR" >&2; exit 2; }
PREFIX=$1 WORK=$2 LIBDIR=$3 OUT=$4
HERE=$(cd "$(dirname "$0")" && pwd)
PVFS_SRC=$(cd "$HERE/../.." && pwd)
MPICC=$PREFIX/bin/mpicc
ROMIO_TEST=$WORK/mpich-4.0.2/src/mpi/romio/test
ROMIO_TEST_BUILD=$WORK/build/src/mpi/romio/test # configured sources (misc.c)
[ -x "$MPICC" ] || { echo "build-progs: $MPICC missing (run build-mpich.sh)" >&2; exit 1; }
mkdir -p "$OUT"

# cc OUT SRC [FLAGS...]: compile when SRC (or $DEP, when set) is newer than OUT.
DEP=
cc() {
	local out=$1 src=$2
	shift 2
	[ "$out" -nt "$src" ] && { [ -z "$DEP" ] || [ "$out" -nt "$DEP" ]; } && return 0
	"$MPICC" -O2 -o "$out" "$src" "$@" || { echo "build-progs: $src failed" >&2; exit 1; }
}

# ROMIO's tests, as their authors wrote them (their warnings are not ours).
# shellcheck disable=SC2013  # one name per line, no spaces
for name in $(awk '!/^#/ && NF { print $1 }' "$PVFS_SRC/tests/romio/romio-tests.txt"); do
	src=$ROMIO_TEST/$name.c
	[ -f "$src" ] || src=$ROMIO_TEST_BUILD/$name.c
	cc "$OUT/$name" "$src" -w
done
cp -p "$ROMIO_TEST/test_hintfile" "$OUT/test_hintfile"

STRICT=(-Wall -Wextra -Werror -std=gnu11)
DEP=$HERE/tests/mpiio-check.h
for t in mpiio-rw mpiio-darray; do
	cc "$OUT/$t" "$HERE/tests/$t.c" "${STRICT[@]}"
done
DEP=
# The bench also calls libpvfs itself: the native half of each comparison.
cc "$OUT/bench-mpiio" "$HERE/bench-mpiio.c" "${STRICT[@]}" -I"$PVFS_SRC/include" \
	-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lpvfs
