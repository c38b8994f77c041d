#!/bin/bash
# soak.sh - make stress: 16 clients of mixed operations for
# PVFS_SOAK_SECONDS (default 1800), verified at the end; doc/reliability.md,
# "Load".
set -eu
: "${PVFS_BUILDDIR:?run through make stress}"
export PVFS_SOAK_SECONDS=${PVFS_SOAK_SECONDS:-1800}
exec "$PVFS_BUILDDIR/tests/stress/soak"
