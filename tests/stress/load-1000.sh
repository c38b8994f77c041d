#!/bin/bash
# load-1000.sh - make stress: 1000 concurrent clients of the mgr and of
# every iod, each doing verified work for PVFS_LOAD_SECONDS (default 60);
# doc/reliability.md, "Load".
set -eu
: "${PVFS_BUILDDIR:?run through make stress}"
export PVFS_LOAD_CLIENTS=${PVFS_LOAD_CLIENTS:-1000}
export PVFS_LOAD_SECONDS=${PVFS_LOAD_SECONDS:-60}
exec "$PVFS_BUILDDIR/tests/integration/test_load"
