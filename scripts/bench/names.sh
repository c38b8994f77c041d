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
ALL=$T/all # every RESULT line, for the summary
: >"$ALL"

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
	echo "RESULT names-start what=$1 ms=$((t1 - t0))" | tee -a "$ALL"
}
stop() { "$B/pvfs-local" stop "$T/fs" >/dev/null || die "stop failed"; }

bench() {
	echo "\$ pvfs-bench $*"
	"$B/pvfs-bench" "$@" | tee -a "$ALL"
	[ "${PIPESTATUS[0]}" -eq 0 ] || die "pvfs-bench $* failed"
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
	"bytes_per_file=$(((rss1 - rss0) * 1024 / FILES))" | tee -a "$ALL"
grep -h "name space:" "$T/fs/run/mgr.log" | tail -1
meta3
bench readdir --path /pvfs/gen/d000000
bench meta -c "$CLIENTS" -n $((CLIENTS * 200)) --no-ref
echo "after the runs: VmRSS $(rss_kb) KiB"
stop
start snapshot+journal
grep -h "name space:" "$T/fs/run/mgr.log" | tail -1
stop

# The targets of issue 18 (part 5) beside the figures of this run.
echo
echo "summary: target | this run"
awk -v files="$FILES" -v clients="$CLIENTS" '
	function f(line, key,   n, i, kv) {
		n = split(line, kv, " ")
		for (i = 1; i <= n; i++)
			if (index(kv[i], key "=") == 1)
				return substr(kv[i], length(key) + 2)
		return ""
	}
	function med3(a, b, c) {
		return a + b + c - (a < b ? (a < c ? a : c) : (b < c ? b : c)) - \
		    (a > b ? (a > c ? a : c) : (b > c ? b : c))
	}
	/^RESULT names-rss / { bpf = f($0, "bytes_per_file") }
	/^RESULT names-start what=snapshot / { r1 = f($0, "ms") }
	/^RESULT names-start what=snapshot\+journal / { r2 = f($0, "ms") }
	/^RESULT meta clients=1 / {
		op = f($0, "op"); k = op SUBSEP (n[op]++ < 3 ? "small" : "big")
		v[k] = v[k] " " f($0, "rate")
	}
	/^RESULT readdir / { rd = f($0, "rate") }
	/^RESULT meta-client .* op=create\+close / {
		cmin = f($0, "min"); cmed = f($0, "median"); cmax = f($0, "max")
	}
	END {
		printf "  memory per file < 300 bytes        | %s bytes (%d files)\n", bpf, files
		printf "  restart < 20 s                     | %.1f s; with the journal %.1f s\n", r1 / 1000, r2 / 1000
		for (o = 0; o < 2; o++) {
			op = o == 0 ? "create+close" : "stat"
			split(v[op, "small"], a, " "); split(v[op, "big"], b, " ")
			s = med3(a[1], a[2], a[3]); g = med3(b[1], b[2], b[3])
			pct = s > 0 ? (g - s) * 100 / s : 0
			printf "  %-12s within 20%% of empty   | %d/s empty, %d/s with %d files (%+.0f%%; medians of 3)\n", \
			    op, s, g, files, pct
		}
		printf "  readdir >= 1 M entries/s           | %.2f M entries/s\n", rd / 1e6
		printf "  %d clients creating, none starved  | each client min %s, median %s, max %s /s\n", clients, cmin, cmed, cmax
	}' "$ALL"
