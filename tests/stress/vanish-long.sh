#!/bin/bash
# vanish-long.sh - make stress: clients SIGKILLed mid-request
# PVFS_VANISH_ROUNDS times (default 300), then the daemons' descriptors,
# RSS and data are checked; doc/reliability.md, "Vanishing clients".
set -eu
: "${PVFS_BUILDDIR:?run through make stress}"
export PVFS_VANISH_ROUNDS=${PVFS_VANISH_ROUNDS:-300}
exec "$PVFS_BUILDDIR/tests/integration/test_vanish"
