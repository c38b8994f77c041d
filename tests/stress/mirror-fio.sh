#!/bin/bash
# mirror-fio.sh - make stress: tests/preload/mirror-fio.sh for 30 kill
# and restart cycles on a larger file.
set -eu
: "${PVFS_BUILDDIR:?run through make stress}"
export PVFS_MIRROR_FIO_CYCLES=${PVFS_MIRROR_FIO_CYCLES:-30}
export PVFS_MIRROR_FIO_SIZE=${PVFS_MIRROR_FIO_SIZE:-32M}
exec bash "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/mirror-fio.sh"
