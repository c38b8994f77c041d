#!/bin/bash
# run.sh - `make bench`: the cases of doc/benchmarks.md on a fresh
# pvfs-local file system (4 iods) in a temporary directory, then a summary
# table of the RESULT lines and the targets table (targets.sh): each
# target beside its figure and reference from this run.  The cases: the
# headline and sweep data cases, metadata, noncontiguous, a mirrored file
# with an iod killed and restarted, the same job through a pvfs-fuse mount
# (when pvfs-fuse is built and /dev/fuse usable), and last the iods over
# TCP only (their Unix sockets unlinked, as for a client on another host).
# Writes nothing into the source or build tree.
#
# Environment (defaults in brackets):
#   PVFS_BUILDDIR     where pvfs-bench, pvfs-local and the daemons are [.]
#   BENCH_SIZE        bytes per client of the headline cases [1G]
#   BENCH_SWEEP_SIZE  bytes per client of the block and stripe sweeps [256M]
#   BENCH_FILES       files of the metadata runs [10000]
#   BENCH_IODS        iods of the file system [4]
#   BENCH_OUT         also append the whole output to this file
#   TMPDIR            where the file system lives (its disk is the iods')
set -u
set -o pipefail

B=${PVFS_BUILDDIR:-$(pwd)}
SIZE=${BENCH_SIZE:-1G}
SWEEP=${BENCH_SWEEP_SIZE:-256M}
FILES=${BENCH_FILES:-10000}
IODS=${BENCH_IODS:-4}
for p in pvfs-bench pvfs-local pvfs-mgr pvfs-iod; do
	[ -x "$B/$p" ] || { echo "run.sh: $B/$p not built" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/pvfs-bench.XXXXXX") || exit 1
MNT=
cleanup() {
	[ -n "$MNT" ] && { fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT" 2>/dev/null; }
	"$B/pvfs-local" stop "$T/fs" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$B/pvfs-local" start "$T/fs" --iods "$IODS" >/dev/null || exit 1
export PVFSTAB_FILE=$T/fs/pvfstab
ALL=$T/all

# bench ARGS...: print the command, run it, keep its output.
bench() {
	echo
	echo "\$ pvfs-bench $*"
	"$B/pvfs-bench" "$@" | tee -a "$ALL"
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "run.sh: pvfs-bench $* failed" >&2; exit 1; }
}

{
	echo "make bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uname -r)," \
		"load$(uptime | sed 's/.*load average//')"
	echo "file system: pvfs-local, $IODS iods, in $T (TMPDIR)"
} | tee "$ALL"

bench data -c 1 -s "$SIZE" -b 1M -S 64K
bench data -c 4 -s "$SIZE" -b 1M -S 64K
bench data -c 1 -s "$SIZE" -b 1M -S 64K --fsync
bench data -c 4 -s "$SIZE" -b 1M -S 64K --fsync
for b in 4K 16K 64K 256K 1M 4M; do
	bench data -c 1 -s "$SWEEP" -b "$b" -S 64K
done
for s in 4K 16K 64K 256K 1M; do
	bench data -c 1 -s "$SWEEP" -b 1M -S "$s"
done
bench meta -c 1 -n "$FILES"
bench meta -c 4 -n "$FILES"
bench noncontig -s "$SWEEP"
bench data -c 1 -s "$SWEEP" -b 1M -S 64K --no-ref --copies 2 \
	--iod-down "'$B/pvfs-local' kill '$T/fs' iod1 KILL" \
	--iod-up "'$B/pvfs-local' start '$T/fs' >/dev/null"

# Through a mount, where this machine can mount one.
if [ -x "$B/pvfs-fuse" ] && [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
	mkdir -p "$T/mnt"
	if "$B/pvfs-fuse" "$T/mnt" >"$T/mount.out" 2>&1; then
		MNT=$T/mnt
		bench data -c 1 -s "$SWEEP" -b 1M -S 64K --no-ref --mount "$MNT"
		fusermount3 -u "$MNT" || fusermount3 -uz "$MNT"
		MNT=
	else
		echo "run.sh: pvfs-fuse did not mount (skipping the mount case):"
		cat "$T/mount.out"
	fi
else
	echo
	echo "run.sh: no mount case (pvfs-fuse not built, or no /dev/fuse or fusermount3)"
fi

# Last, the iods over TCP only: their Unix sockets go, clients fall back to
# TCP (the mgr stays on its socket).  RESULT data lines become data-tcp.
rm -f "$T"/fs/run/iod*.sock
echo
echo "the iods over TCP from here on"
TCPSTART=$(wc -l <"$ALL")
bench data -c 1 -s "$SIZE" -b 1M -S 64K
bench data -c 4 -s "$SWEEP" -b 1M -S 64K
sed -i "$((TCPSTART + 1)),\$ s/^RESULT data /RESULT data-tcp /" "$ALL"

echo
echo "summary (MB/s = 10^6 B/s; each figure the second of three runs; ratios as in the targets)"
printf '%-8s %-6s %-6s %-6s %-5s %9s %9s %9s %9s %7s %7s\n' clients block stripe size fsync \
	write read tcp "loc.write" "w/ref" "r/tcp"
grep '^RESULT data ' "$ALL" | tr ' ' '\n' | awk -F= '
	function h(v) {
		if (v >= 1073741824 && v % 1073741824 == 0) return v / 1073741824 "G"
		if (v >= 1048576 && v % 1048576 == 0) return v / 1048576 "M"
		return v / 1024 "K"
	}
	$1 == "RESULT" { n++ } NF == 2 { f[n, $1] = $2 }
	END { for (i = 1; i <= n; i++)
		printf "%-8s %-6s %-6s %-6s %-5s %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f\n", \
			f[i, "clients"], h(f[i, "block"]), h(f[i, "ssize"]), h(f[i, "size"]), \
			(f[i, "fsync"] ? "yes" : "no"), f[i, "write"], f[i, "read"], f[i, "tcp"], \
			f[i, "local_write"], f[i, "write_ratio"], f[i, "read_ratio"] }'
echo
printf '%-8s %-13s %10s %9s %9s %12s\n' clients operation "ops/s" "p50 us" "p99 us" "local ops/s"
grep '^RESULT meta ' "$ALL" | tr ' ' '\n' | awk -F= '
	$1 == "RESULT" { n++ } NF == 2 { f[n, $1] = $2 }
	END { for (i = 1; i <= n; i++)
		printf "%-8s %-13s %10s %9s %9s %12s\n", f[i, "clients"], f[i, "op"], \
			f[i, "rate"], f[i, "p50_us"], f[i, "p99_us"], f[i, "local_rate"] }'
bash "$(dirname "$0")/targets.sh" "$ALL"
if [ -n "${BENCH_OUT:-}" ]; then cat "$ALL" >>"$BENCH_OUT"; fi
exit 0
