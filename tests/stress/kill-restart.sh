#!/bin/bash
# kill-restart.sh - make stress: the kill/restart test for hundreds of
# cycles (PVFS_KILL_CYCLES, default 300); doc/reliability.md, "Faults".
set -eu
: "${PVFS_BUILDDIR:?run through make stress}"
export PVFS_KILL_CYCLES=${PVFS_KILL_CYCLES:-300}
exec "$PVFS_BUILDDIR/tests/stress/kill-restart"
