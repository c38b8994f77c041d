#!/bin/sh
# LOG_COMPILER for make check: run one test program with a time bound.
# Integration tests find pvfs-local through $PVFS_BUILDDIR (set by make).
: "${PVFS_BUILDDIR:=$(pwd)}"
: "${PVFS_TEST_TIMEOUT:=600}"
export PVFS_BUILDDIR
exec timeout -k 10 "$PVFS_TEST_TIMEOUT" "$@"
