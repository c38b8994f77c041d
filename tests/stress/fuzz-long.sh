#!/bin/sh
# fuzz-long.sh - every libFuzzer target for PVFS_FUZZ_SECONDS (default 600,
# ten minutes each) on the seed corpus; any crash, leak or oracle failure fails.
exec sh "$PVFS_SRCDIR/tests/fuzz/run.sh" "${PVFS_FUZZ_SECONDS:-600}"
