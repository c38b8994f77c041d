#!/bin/bash
# names.sh - `make bench-names`: the mgr with a name space of millions
# (issue 18, part 5).  On a fresh pvfs-local file system in a temporary
# directory:
#   1. metadata rates with an empty name space (pvfs-bench meta);
#   2. pvfs-mgr-gen writes NAMES_FILES files (the mgr's own records and
#      checkpoint; /gen/dNNNNNN of NAMES_PER_DIR each);
#   3. restart: the mgr loads them; the time of the start, the mgr's RSS
#      beside the empty one's, bytes per file;
#   4. the same metadata rates with the big name space, readdir of one
#      directory of NAMES_PER_DIR entries, NAMES_CLIENTS clients creating
#      at once (each client's rate);
#   5. restart again: the snapshot plus the journal the runs wrote.
# Figures only: nothing here is a pass/fail assertion.
#
# Environment (defaults in brackets):
#   PVFS_BUILDDIR   where pvfs-bench, pvfs-local, pvfs-mgr-gen are [.]
#   NAMES_FILES     files generated [10000000]
#   NAMES_PER_DIR   files per generated directory [1000000]
#   NAMES_META      files of each pvfs-bench meta run [10000]
#   NAMES_CLIENTS   clients of the concurrent create run [64]
#   TMPDIR          where the file system lives (/dev/shm: the mgr's
#                   own work without the disk's fdatasync)
set -u
set -o pipefail

B=${PVFS_BUILDDIR:-$(pwd)}
FILES=${NAMES_FILES:-10000000}
PER=${NAMES_PER_DIR:-1000000}
META=${NAMES_META:-10000}
CLIENTS=${NAMES_CLIENTS:-64}
for p in pvfs-bench pvfs-local pvfs-mgr pvfs-iod pvfs-mgr-gen; do
	[ -x "$B/$p" ] || { echo "names.sh: $B/$p not built" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-names.XXXXXX") || exit 1
cleanup() {
	"$B/pvfs-local" stop "$T/fs" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
export PVFS_LOCAL_READY_WAIT=300 # a load of millions takes seconds
export PVFSTAB_FILE=$T/fs/pvfstab

die() { echo "names.sh: $*" >&2; exit 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$(cat "$T/fs/run/mgr.pid")/status"; }

# start WHAT: start the file system, print how long it took.
start() {
	local t0 t1
	t0=$(now_ms)
	"$B/pvfs-local" start "$T/fs" --iods 1 >/dev/null || die "start failed"
	t1=$(now_ms)
	echo "$1: pvfs-local start in $((t1 - t0)) ms"
	echo "RESULT names-start what=$1 ms=$((t1 - t0))"
}
stop() { "$B/pvfs-local" stop "$T/fs" >/dev/null || die "stop failed"; }

bench() {
	echo "\$ pvfs-bench $*"
	"$B/pvfs-bench" "$@" || die "pvfs-bench $* failed"
}

# meta3: the metadata rates, three runs (a shared machine's disk makes
# fdatasync, which every create waits for, vary from run to run).
meta3() {
	local i
	for i in 1 2 3; do
		bench meta -n "$META" --no-ref
	done
}

echo "names.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
	"$FILES files, $PER per directory, in $T"
start empty
rss0=$(rss_kb)
echo "empty mgr: VmRSS $rss0 KiB"
meta3
stop

t0=$(now_ms)
"$B/pvfs-mgr-gen" -q "$T/fs/meta" "$FILES" -p "$PER" || die "pvfs-mgr-gen failed"
echo "pvfs-mgr-gen: $FILES files in $(($(now_ms) - t0)) ms;" \
	"snapshot $(stat -c %s "$T/fs/meta/snapshot") bytes"
start snapshot
rss1=$(rss_kb)
echo "loaded mgr: VmRSS $rss1 KiB; $(((rss1 - rss0) * 1024 / FILES)) bytes per file"
echo "RESULT names-rss files=$FILES empty_kb=$rss0 loaded_kb=$rss1" \
	"bytes_per_file=$(((rss1 - rss0) * 1024 / FILES))"
grep -h "name space:" "$T/fs/run/mgr.log" | tail -1
meta3
bench readdir --path /pvfs/gen/d000000
bench meta -c "$CLIENTS" -n $((CLIENTS * 200)) --no-ref
echo "after the runs: VmRSS $(rss_kb) KiB"
stop
start snapshot+journal
grep -h "name space:" "$T/fs/run/mgr.log" | tail -1
stop
