#!/bin/bash
# rebuild.sh BUILD [NFILES]: time a rebuild of NFILES small mirrored files
# (doc/benchmarks.md, "Rebuild"): a 2-iod pvfs-local file system of BUILD,
# NFILES files of 2 copies written with pvfs-cp --mirror, then
# pvfs-resync --rebuild 1 --wait (every copy on iod 1 stale, 2 per file,
# resynced by the mgr's worker).  Prints
#   RESULT rebuild files=N copies=C seconds=S per_job_ms=M
# Run it on two builds (before and after a change) to compare.
set -u
b=$1 n=${2:-50}
T=$(mktemp -d "${TMPDIR:-/tmp}/rebuild.XXXXXX")
trap '"$b/pvfs-local" stop "$T/fs" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$b/pvfs-local" start "$T/fs" --iods 2 >"$T/start.out" 2>&1 ||
	{ cat "$T/start.out"; exit 1; }
export PVFSTAB_FILE=$T/fs/pvfstab
head -c 100000 /dev/urandom >"$T/data"
mkdir "$T/src"
for i in $(seq "$n"); do
	cp "$T/data" "$T/src/f$i"
done
"$b/pvfs-cp" --mirror "$T"/src/f* /pvfs/ >"$T/cp.out" 2>&1 ||
	{ cat "$T/cp.out"; exit 1; }
start=$(date +%s.%N)
"$b/pvfs-resync" --rebuild 1 --wait >"$T/rs.out" 2>&1 ||
	{ cat "$T/rs.out"; exit 1; }
end=$(date +%s.%N)
awk -v n="$n" -v s="$start" -v e="$end" 'BEGIN {
	printf "RESULT rebuild files=%d copies=%d seconds=%.1f per_job_ms=%.0f\n",
	    n, 2 * n, e - s, (e - s) * 1000 / (2 * n) }'
