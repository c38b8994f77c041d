#!/bin/sh
# smoke.sh - make check's bounded fuzz run: every target for a few seconds
# (PVFS_FUZZ_SECONDS, default 8).  make stress runs them far longer.
[ -n "${SAN_LDFLAGS:-}" ] && { echo "SKIP: the plain build runs the fuzzers"; exit 77; }
exec sh "$(dirname "$0")/run.sh" "${PVFS_FUZZ_SECONDS:-8}"
